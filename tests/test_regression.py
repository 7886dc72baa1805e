"""Tests of pcalib.PCR and pcalib.cross_validate_pcr (chapter "PCA and prediction").

References: R's pls package (numbers quoted as literals, with the R code that printed
them), scikit-learn (PCA + LinearRegression pipelines, Ridge, r2_score, check_estimator)
and NumPy's SVD and least squares written out here.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse
from numpy.testing import assert_allclose

import pcalib
from pcalib import PCR, NotFittedError, cross_validate_pcr

GASOLINE = pcalib.datasets.load_gasoline()
X_GAS, Y_GAS = GASOLINE.data, GASOLINE.target

# R 4.2.2, pls 2.8-1:
#   m <- pcr(octane ~ NIR, ncomp = 10, data = gasoline)
#   B <- coef(m, ncomp = 1:10, intercept = TRUE); b <- B[, 1, k]
#   c(b[1], sum(b[-1]), sum(b[-1]^2), b[2], b[2 + 150], b[2 + 250], b[402])
# (intercept, sum and sum of squares of the 401 coefficients, and the coefficients at
# 900, 1200, 1400 and 1700 nm), printed with sprintf("%.12g").
R_PCR = {
    1: (81.0900752612, -10.7660850978, 10.0690446301, -0.0341446313674, -0.251134645029, -0.18017415418, 0.0327830635572),
    2: (75.2771900231, 10.0644273078, 12.2106816036, -0.00136022829094, -0.242267965893, -0.133546582298, 0.437623577744),
    3: (75.1449660665, -131.048316324, 160.936915887, -0.409868549684, -1.38996958429, -0.0690182376604, 2.47663166336),
    4: (100.003821781, -8.32884052276, 589.084345539, 0.397880820495, -3.48771803158, 0.983477822999, -0.638804683927),
    5: (99.5329453714, -3.88497633338, 591.814836454, 0.466438996529, -3.43926421161, 1.0069290381, -0.361336932316),
    6: (100.424175811, -3.66161007029, 592.030970536, 0.475627752764, -3.45618556188, 0.988284133855, -0.409633120636),
    7: (100.713143925, -3.25116762833, 592.222735489, 0.466258544284, -3.45728809462, 0.987781554595, -0.321927351433),
    8: (99.9657692216, -2.96905225508, 592.483948542, 0.461606893505, -3.42939863081, 1.01136525982, -0.266782197658),
    9: (105.521083508, -23.1839738382, 654.369942362, 0.417718146035, -3.12948375969, 0.926361688085, 1.66902880717),
    10: (103.382059535, -24.1265087014, 662.752156016, 0.248696398769, -3.35849071566, 1.02083581727, 1.59765564536),
}
# R: ms <- pcr(octane ~ NIR, ncomp = 10, data = gasoline, scale = TRUE); coef() is on the
# scale of X / sd (predict(ms) = b0 + (X / sd) %*% b, checked to 4e-14), so
#   b <- coef(ms, ncomp = k, intercept = TRUE)[, 1, 1]; beta <- b[-1] / apply(X, 2, sd)
#   c(b[1], sum(beta), sum(beta^2), beta[1], beta[251])
R_PCR_SCALED = {
    1: (86.5361174941, -91.268249959, 28.1027648103, -0.313254007988, -0.106496397859),
    2: (91.9643681859, 17.8845503227, 85.2370965596, 0.236441689306, -0.420196197811),
    3: (101.856964048, -3.3018038816, 1482.12535612, 1.61958846271, 0.711624072372),
    5: (95.5803747046, -8.506522552, 1509.26640706, 0.488712631307, 0.796148848438),
    10: (88.1153052241, -15.4454162945, 1775.4305542, 0.63385000424, 1.27078862313),
}
# R: RMSEP(pcr(octane ~ NIR, ncomp = 10, data = gasoline, validation = "CV", segments = 10,
#    segment.type = "consecutive" | "interleaved"), estimate = "CV")$val[1, 1, ], and
#    validation = "LOO"; entries for 0..10 components.
R_CV = {
    "consecutive": [1.54298995851, 1.50656071585, 1.51246989644, 1.40925732811, 0.261169810753, 0.257822383235,
                    0.265810258662, 0.272517311346, 0.278857920008, 0.257988729772, 0.258634218221],
    "interleaved": [1.54298995851, 1.4260900248, 1.44565512069, 1.21791602199, 0.246795294343, 0.244707943535,
                    0.245976031071, 0.248898717284, 0.246516049461, 0.233009912002, 0.236810760245],
    "loo": [1.54298995851, 1.44704489492, 1.47438684191, 1.25494462342, 0.250059636189, 0.250283098098,
            0.257793345571, 0.264593067557, 0.272407527434, 0.247417418132, 0.250819619039],
}


def correlated(n=40, p=6, seed=0, targets=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) + rng.standard_normal(p) * 10
    beta = rng.standard_normal(p)
    noise = rng.standard_normal(n if targets is None else (n, targets))
    y = (X @ beta if targets is None else (X @ beta)[:, None] * np.arange(1, targets + 1)) + noise + 3.0
    return X, y


# -- R's pls ---------------------------------------------------------------------------------


@pytest.mark.parametrize("k", range(1, 11))
def test_coefficients_are_r_pls_pcr(k):
    model = PCR(k).fit(X_GAS, Y_GAS)
    b = model.coef_
    intercept, total, squares, b900, b1200, b1400, b1700 = R_PCR[k]
    assert_allclose(model.intercept_, intercept, rtol=1e-10)
    assert_allclose([b.sum(), (b**2).sum()], [total, squares], rtol=1e-9)
    assert_allclose([b[0], b[150], b[250], b[400]], [b900, b1200, b1400, b1700], rtol=1e-9)
    assert model.n_components_ == k and model.pca_.n_components_ == k


@pytest.mark.parametrize("k", sorted(R_PCR_SCALED))
def test_standardized_coefficients_are_r_pls_pcr_with_scale(k):
    model = PCR(k, standardize=True).fit(X_GAS, Y_GAS)
    b = model.coef_
    intercept, total, squares, b900, b1400 = R_PCR_SCALED[k]
    assert_allclose(model.intercept_, intercept, rtol=1e-10)
    assert_allclose([b.sum(), (b**2).sum(), b[0], b[250]], [total, squares, b900, b1400], rtol=1e-9)


@pytest.mark.parametrize("kind", ["consecutive", "interleaved"])
def test_cross_validation_is_r_pls_cv(kind):
    folds = 10 if kind == "consecutive" else [np.arange(i, 60, 10) for i in range(10)]
    result = cross_validate_pcr(X_GAS, Y_GAS, 10, folds=folds)
    # R reports the 0-component entry by leave-one-out whatever the segments
    assert_allclose(result.rmsep[1:], R_CV[kind][1:], rtol=1e-10)
    assert list(result.n_components) == list(range(11))


def test_leave_one_out_is_r_pls_loo_including_the_mean():
    result = cross_validate_pcr(X_GAS, Y_GAS, 10, folds=60)
    assert_allclose(result.rmsep, R_CV["loo"], rtol=1e-10)


# -- scikit-learn --------------------------------------------------------------------------


@pytest.mark.parametrize("standardize", [False, True])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_pcr_is_scikit_learns_pipeline(k, standardize):
    from sklearn.decomposition import PCA as SklearnPCA
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = correlated(seed=k)
    steps = ([StandardScaler()] if standardize else []) + [SklearnPCA(k, svd_solver="full"), LinearRegression()]
    pipe = make_pipeline(*steps).fit(X, y)
    model = PCR(k, standardize=standardize).fit(X, y)
    new = correlated(seed=99)[0]
    assert_allclose(model.predict(new), pipe.predict(new), rtol=1e-10, atol=1e-10 * np.abs(y).max())
    assert_allclose(model.predict(X), X @ model.coef_ + model.intercept_, rtol=1e-12, atol=1e-10)


def test_score_is_scikit_learns_r2_and_the_pipelines():
    from sklearn.metrics import r2_score

    X, y = correlated(targets=3)
    model = PCR(2).fit(X, y)
    assert_allclose(model.score(X, y), r2_score(y, model.predict(X)), rtol=1e-12)
    X1, y1 = correlated()
    model1 = PCR(2).fit(X1, y1)
    assert_allclose(model1.score(X1, y1), r2_score(y1, model1.predict(X1)), rtol=1e-12)
    # a constant response: 1 if predicted exactly, else 0 (scikit-learn's force_finite)
    constant = np.full(X1.shape[0], 4.0)
    assert PCR(2).fit(X1, constant).score(X1, constant) == 1.0
    assert PCR(2).fit(X1, y1).score(X1, constant) == 0.0


def test_cross_validation_is_scikit_learns_cross_val_predict():
    from sklearn.decomposition import PCA as SklearnPCA
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import KFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    X, y = correlated(n=50, p=8, seed=3)
    parts = [test for _, test in KFold(5, shuffle=True, random_state=0).split(X)]
    result = cross_validate_pcr(X, y, 6, folds=parts)
    for k in (1, 4, 6):
        pipe = make_pipeline(SklearnPCA(k, svd_solver="full"), LinearRegression())
        predicted = cross_val_predict(pipe, X, y, cv=KFold(5, shuffle=True, random_state=0))
        assert_allclose(result.predictions[:, k], predicted, rtol=1e-10)
        assert_allclose(result.press[k], np.sum((predicted - y) ** 2), rtol=1e-10)


# -- the estimator ---------------------------------------------------------------------------


def test_every_k_prediction_is_the_smaller_fit():
    X, y = correlated(seed=4)
    model = PCR(5).fit(X, y)
    new = correlated(seed=5)[0]
    assert_allclose(model.predict(new, n_components=0), np.full(len(new), y.mean()), rtol=1e-14)
    for l in range(1, 6):
        assert_allclose(model.predict(new, n_components=l), PCR(l).fit(X, y).predict(new), rtol=1e-12)
    for bad in (-1, 6, 2.5, True):
        with pytest.raises(ValueError, match="n_components must be an integer from 0 to n_components_ = 5"):
            model.predict(new, n_components=bad)


def test_several_targets_are_separate_fits():
    X, Y = correlated(targets=3)
    joint = PCR(3).fit(X, Y)
    assert joint.coef_.shape == (3, X.shape[1]) and joint.intercept_.shape == (3,)
    assert joint.score_coef_.shape == (3, 3)
    for j in range(3):
        alone = PCR(3).fit(X, Y[:, j])
        assert_allclose(joint.coef_[j], alone.coef_, rtol=1e-12)
        assert_allclose(joint.intercept_[j], alone.intercept_, rtol=1e-12)
        assert_allclose(joint.predict(X)[:, j], alone.predict(X), rtol=1e-12)
    column = PCR(3).fit(X, Y[:, :1])
    assert column.coef_.shape == (1, X.shape[1]) and column.predict(X).shape == (X.shape[0], 1)


def test_score_coefficients_are_the_regression_on_the_scores():
    X, y = correlated(seed=6)
    model = PCR(4).fit(X, y)
    T = model.transform(X)
    design = np.column_stack([np.ones(len(y)), T])
    coef = np.linalg.lstsq(design, y, rcond=None)[0]
    assert_allclose(model.score_coef_, coef[1:], rtol=1e-10)
    assert_allclose(model.coef_, model.pca_.components_.T @ model.score_coef_, rtol=1e-10)
    assert_allclose(T, model.pca_.transform(X), rtol=1e-14)
    assert list(model.get_feature_names_out()) == ["pcr0", "pcr1", "pcr2", "pcr3"]


def test_components_beyond_the_rank_get_no_coefficient():
    # 6 samples: the centered data have rank 5, so a sixth component is round-off
    rng = np.random.default_rng(7)
    X = rng.standard_normal((6, 9))
    y = rng.standard_normal(6)
    full = PCR(6).fit(X, y)
    assert full.score_coef_[5] == 0.0 and np.all(np.isfinite(full.coef_))
    assert_allclose(full.coef_, PCR(5).fit(X, y).coef_, rtol=1e-12)
    minimum_norm = np.linalg.lstsq(X - X.mean(axis=0), y - y.mean(), rcond=None)[0]
    assert_allclose(full.coef_, minimum_norm, rtol=1e-10, atol=1e-12)


def feature_in_small_units():
    """50 samples of 3 features, the second in units 1e7 times smaller (a length in km
    beside others in um, say), and a response along it: singular values 6.34, 5.71 and
    6.2e-7, the third a real direction, not round-off."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 3))
    X[:, 1] *= 1e-7
    return X, X[:, 1] * 1e7 + 0.01 * rng.standard_normal(50)


def test_a_real_component_in_small_units_is_kept_as_r_and_lstsq_keep_it():
    # Regression: the round-off cut-off was on sigma^2 (sigma_j / sigma_1 < 3e-7 dropped),
    # which gave this fit R^2 = 0.0068. R 4.2.2, pls 2.8-1, on these data (written with
    # "%.17g"): m <- pcr(y ~ X, ncomp = 3, data = df)
    #   sprintf("%.12g", coef(m, ncomp = 3, intercept = TRUE)[, 1, 1])
    #   sprintf("%.12g", R2(m, estimate = "train")$val[1, 1, 4])
    # (coef(lm(y ~ X)) agrees to 9 digits: -0.000352952797791, 0.00424332364255,
    # 10028523.3898, 0.0013714351039)
    X, y = feature_in_small_units()
    r_coef = [0.00424332368094, 10028523.3897, 0.00137143574182]
    model = PCR(3).fit(X, y)
    assert model.pca_.solver_ == "svd"
    assert_allclose(model.coef_, r_coef, rtol=1e-6)
    assert_allclose(model.intercept_, -0.000352952620579, rtol=1e-5)
    assert_allclose(model.score(X, y), 0.99988607497, rtol=1e-9)
    minimum_norm = np.linalg.lstsq(X - X.mean(axis=0), y - y.mean(), rcond=None)[0]
    assert_allclose(model.coef_, minimum_norm, rtol=1e-6)
    # every training fold keeps it too (the old cut-off sat at sqrt(40 eps) = 9.4e-8)
    cv = cross_validate_pcr(X, y, 3, folds=5)
    assert cv.rmsep[3] < 0.02 < 0.9 < cv.rmsep[2]


def test_round_off_cut_off_is_on_sigma_for_svd_and_on_sigma_squared_for_scatter_routes():
    from pcalib.regression import resolved_components

    eps = np.finfo(np.float64).eps
    s = np.array([1.0, 1e-7, 100 * eps, 10 * eps])
    assert resolved_components(s, 50, 3, "svd").tolist() == [True, True, True, False]
    for route in ("eig", "gram", "krylov", "randomized"):  # sigma^2 known to eps sigma_1^2
        assert resolved_components(s, 50, 3, route).tolist() == [True, False, False, False]
        assert resolved_components(s * 1e-200, 50, 3, route).tolist() == [True, False, False, False]
    assert not resolved_components(np.zeros(3), 50, 3, "svd").any()


def test_constant_predictors_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="X has zero total variance: every column is constant"):
        PCR(1).fit(np.ones((10, 3)), np.arange(10.0))


def test_sparse_input_gives_the_dense_fit():
    rng = np.random.default_rng(8)
    dense = scipy.sparse.random(60, 12, density=0.3, random_state=rng).toarray()
    y = dense @ rng.standard_normal(12) + 1.0
    sparse_fit = PCR(4).fit(scipy.sparse.csr_matrix(dense), y)
    dense_fit = PCR(4).fit(dense, y)
    assert_allclose(sparse_fit.coef_, dense_fit.coef_, rtol=1e-10, atol=1e-12)
    assert_allclose(sparse_fit.predict(scipy.sparse.csc_matrix(dense)), dense_fit.predict(dense), rtol=1e-10)


def test_float32_and_integer_inputs_predict_in_float64():
    X, y = correlated(seed=9)
    reference = PCR(3).fit(X, y)
    single = PCR(3).fit(X.astype(np.float32), y.astype(np.float32))
    assert single.coef_.dtype == np.float64 and single.predict(X.astype(np.float32)).dtype == np.float64
    assert_allclose(single.coef_, reference.coef_, rtol=1e-5)
    integers = np.round(X * 100).astype(np.int64)
    labels = np.round(y).astype(np.int64)
    assert_allclose(PCR(3).fit(integers, labels).coef_, PCR(3).fit(integers.astype(float), labels.astype(float)).coef_,
                    rtol=1e-12)


@pytest.mark.parametrize("x_scale", [2.0**-500, 2.0**-40, 2.0**40, 2.0**500])
@pytest.mark.parametrize("y_scale", [2.0**-500, 1.0, 2.0**500])
def test_any_scale_of_x_and_y_gives_the_scaled_coefficients(x_scale, y_scale):
    # powers of two: the rescaled problem is the same problem to the last bit, and the
    # coefficients scale by y_scale / x_scale (no square of X or y is formed)
    X, y = correlated(seed=10)
    reference = PCR(3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = PCR(3).fit(X * x_scale, y * y_scale)
        predicted = model.predict(X * x_scale)
    assert_allclose(model.coef_, reference.coef_ * (y_scale / x_scale), rtol=1e-12)
    assert_allclose(predicted, reference.predict(X) * y_scale, rtol=1e-12)
    assert_allclose(model.score(X * x_scale, y * y_scale), reference.score(X, y), rtol=1e-12)


def test_large_offsets_do_not_move_the_fit():
    # data on a grid of 2**-10, so that X + 2**40 and y + 2**40 hold them exactly: the
    # offset data are the same problem, and a float64 mean of them is rounded
    X, y = correlated(seed=11)
    X, y = np.round(X * 1024) / 1024, np.round(y * 1024) / 1024
    reference = PCR(3).fit(X, y)
    shifted = PCR(3).fit(X + 2.0**40, y + 2.0**40)
    assert_allclose(shifted.coef_, reference.coef_, rtol=1e-10)
    assert_allclose(shifted.score_coef_, reference.score_coef_, rtol=1e-10)
    # predictions are near 2**40, whose float64 spacing is 2**-12
    assert_allclose(shifted.predict(X + 2.0**40) - 2.0**40, reference.predict(X), atol=2.0**-11)


def test_int64_response_near_two_to_the_62_is_centered_exactly():
    X, y = correlated(seed=12)
    labels = np.round(y * 1000).astype(np.int64)
    shifted = labels + 2**62
    reference = PCR(2).fit(X, labels.astype(float))
    model = PCR(2).fit(X, shifted)
    assert_allclose(model.coef_, reference.coef_, rtol=1e-12)
    assert_allclose(model.score_coef_, reference.score_coef_, rtol=1e-12)


def test_inputs_are_not_modified_and_fits_are_deterministic():
    X, y = correlated(seed=13)
    X.flags.writeable = False
    y.flags.writeable = False
    kept = (X.copy(), y.copy())
    first, second = PCR(3).fit(X, y), PCR(3).fit(X, y)
    first.predict(X), first.score(X, y), first.transform(X)
    cross_validate_pcr(X, y, 3, folds=4)
    np.testing.assert_array_equal(X, kept[0])
    np.testing.assert_array_equal(y, kept[1])
    for name in ("coef_", "intercept_", "score_coef_"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
    restored = pickle.loads(pickle.dumps(first))
    np.testing.assert_array_equal(restored.predict(X), first.predict(X))


def test_parameters_round_trip_and_repr():
    model = PCR(3, standardize=True)
    params = model.get_params()
    assert params == {"n_components": 3, "standardize": True}
    assert model.set_params(**params) is model and PCR(**params).get_params() == params
    assert repr(model) == "PCR(n_components=3, standardize=True)" and repr(PCR(2)) == "PCR(n_components=2)"
    with pytest.raises(ValueError, match="invalid parameter 'k' for PCR"):
        model.set_params(k=2)


def test_pandas_names_in_and_out():
    pd = pytest.importorskip("pandas")
    X, y = correlated(seed=14)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])], index=range(100, 140))
    model = PCR(2).set_output(transform="pandas").fit(frame, pd.Series(y))
    assert list(model.feature_names_in_) == list(frame.columns)
    scores = model.transform(frame)
    assert list(scores.columns) == ["pcr0", "pcr1"] and list(scores.index) == list(frame.index)
    assert_allclose(model.predict(frame), PCR(2).fit(X, y).predict(X), rtol=1e-14)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame[frame.columns[::-1]])


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("y", "error", "words"),
    [
        (None, ValueError, "PCR requires y to be passed, but the target y is None"),
        (np.ones(39), ValueError, "y has 39 samples but X has 40"),
        (np.full(40, np.nan), ValueError, "y contains NaN or infinity"),
        (np.ones((40, 2, 2)), ValueError, "y must be a 1-D array"),
        (np.array(["a"] * 40), TypeError, "y must hold real numbers"),
        (np.ones((40, 0)), ValueError, "y must be a 1-D array"),
    ],
)
def test_bad_responses_are_refused_by_name(y, error, words):
    X, _ = correlated()
    with pytest.raises(error, match=words):
        PCR(2).fit(X, y)


@pytest.mark.parametrize(
    ("params", "error", "words"),
    [
        ({"n_components": 0}, ValueError, "n_components must be between 1 and min"),
        ({"n_components": 7}, ValueError, r"n_components must be between 1 and min\(n_samples, n_features\) = 6"),
        ({"n_components": 2.0}, TypeError, "n_components must be an integer"),
        ({"n_components": True}, TypeError, "n_components must be an integer"),
        ({"n_components": 2, "standardize": 1}, TypeError, "standardize must be True or False"),
    ],
)
def test_bad_parameters_are_refused_at_fit(params, error, words):
    X, y = correlated()
    model = PCR(**params)  # __init__ only stores them
    with pytest.raises(error, match=words):
        model.fit(X, y)


def test_methods_before_fit_raise_not_fitted():
    X, y = correlated()
    for call in (lambda m: m.predict(X), lambda m: m.score(X, y), lambda m: m.transform(X)):
        with pytest.raises(NotFittedError):
            call(PCR(2))
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)


def test_wrong_feature_count_is_refused_in_pcrs_words():
    X, y = correlated()
    model = PCR(2).fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but PCR is expecting 6 features as input"):
        model.predict(X[:, :5])


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"folds": 1}, ValueError, "folds must be between 2 and n_samples = 40"),
        ({"folds": [np.arange(20), np.arange(19, 40)]}, ValueError, "exactly once"),
        ({"folds": [np.arange(40)]}, ValueError, "at least two arrays"),
        ({"folds": 3.5}, TypeError, "folds must be an int or an iterable"),
        ({"max_components": 30}, ValueError, "max_components must be between 1 and"),
        ({"standardize": "yes"}, TypeError, "standardize must be True or False"),
    ],
)
def test_cross_validation_refuses_bad_arguments(kwargs, error, words):
    X, y = correlated()
    with pytest.raises(error, match=words):
        cross_validate_pcr(X, y, **kwargs)


def test_cross_validation_default_and_best_k():
    X, y = correlated(n=30, p=10, seed=15)
    result = cross_validate_pcr(X, y, folds=5)  # training folds of 24 rows: rank 23, p = 10
    assert result.n_components[-1] == 10 and result.predictions.shape == (30, 11)
    assert result.best_n_components == int(np.argmin(result.press))
    assert_allclose(result.rmsep, np.sqrt(result.press / 30), rtol=1e-14)
    wide = cross_validate_pcr(X[:, :8].repeat(4, axis=1), y, folds=5)
    assert wide.n_components[-1] == 23
    several = cross_validate_pcr(X, np.column_stack([y, 2 * y]), 4, folds=5)
    assert several.press.shape == (5, 2)
    assert_allclose(several.press[:, 1], 4 * several.press[:, 0], rtol=1e-12)


# -- scikit-learn ------------------------------------------------------------------------------
# check_estimator runs on PCR(1), PCR(2) and PCR(2, standardize=True) in
# tests/test_sklearn_compat.py, with the other estimators.


def test_scikit_learn_sees_a_regressor_and_its_fitted_state():
    from sklearn.base import is_regressor
    from sklearn.exceptions import NotFittedError as SkNotFittedError
    from sklearn.model_selection import GridSearchCV
    from sklearn.utils.validation import check_is_fitted

    assert is_regressor(PCR(2))
    with pytest.raises(SkNotFittedError):
        check_is_fitted(PCR(2))
    X, y = correlated(n=80, p=6, seed=16)
    search = GridSearchCV(PCR(1), {"n_components": [1, 2, 3, 4, 5, 6]}, cv=5).fit(X, y)
    check_is_fitted(search.best_estimator_)
    assert search.best_params_["n_components"] >= 1

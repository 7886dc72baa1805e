"""Tests of pcalib.PCA, the estimator, against scikit-learn and published values."""

import inspect

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcalib import PCA, NotFittedError
from pcalib.solvers import dense_route, krylov_budget, lanczos_room

SOLVERS = ["auto", "eig", "svd", "gram", "krylov", "randomized"]


def data(n=200, p=8, seed=0, offset=3.0):
    rng = np.random.default_rng(seed)
    scales = 5.0 * 0.75 ** np.arange(p)
    return rng.standard_normal((n, p)) @ (np.linalg.qr(rng.standard_normal((p, p)))[0] * scales) + offset


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("shape", [(200, 8), (8, 30)])
def test_matches_sklearn(solver, shape):
    from sklearn.decomposition import PCA as SkPCA

    rng = np.random.default_rng(1)
    X = rng.standard_normal(shape) @ np.diag(0.8 ** np.arange(shape[1])) + 2.0
    k = 3
    ours = PCA(k, solver=solver, random_state=0).fit(X)
    sk = SkPCA(k, svd_solver="full").fit(X)
    # both libraries make the largest |entry| of each axis positive
    np.testing.assert_allclose(ours.components_, sk.components_, atol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_, sk.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_ratio_, sk.explained_variance_ratio_, rtol=1e-10)
    np.testing.assert_allclose(ours.singular_values_, sk.singular_values_, rtol=1e-10)
    assert ours.noise_variance_ == pytest.approx(sk.noise_variance_, rel=1e-10)
    Y = X[:20] + 0.5
    np.testing.assert_allclose(ours.transform(Y), sk.transform(Y), atol=1e-9)
    assert ours.score(Y) == pytest.approx(sk.score(Y), rel=1e-8)
    if shape[0] > shape[1]:
        np.testing.assert_allclose(ours.score_samples(Y), sk.score_samples(Y), rtol=1e-8)
    np.testing.assert_allclose(ours.get_covariance(), sk.get_covariance(), atol=1e-10)
    Z = ours.transform(Y)
    np.testing.assert_allclose(ours.inverse_transform(Z), sk.inverse_transform(Z), atol=1e-9)


def test_whiten_matches_sklearn():
    from sklearn.decomposition import PCA as SkPCA

    X = data()
    ours = PCA(3, whiten=True).fit(X)
    sk = SkPCA(3, whiten=True, svd_solver="full").fit(X)
    np.testing.assert_allclose(ours.transform(X), sk.transform(X), atol=1e-10)
    np.testing.assert_allclose(np.var(ours.fit_transform(X), axis=0, ddof=1), 1.0, rtol=1e-10)
    # The data model does not depend on how scores are scaled: our score with
    # whitening is the unwhitened one. (scikit-learn's get_covariance multiplies
    # the axes by sqrt(explained_variance_) when whiten=True, another model.)
    unwhitened = SkPCA(3, svd_solver="full").fit(X)
    assert ours.score(X) == pytest.approx(unwhitened.score(X), rel=1e-8)
    np.testing.assert_allclose(ours.get_covariance(), unwhitened.get_covariance(), atol=1e-10)
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X)), sk.inverse_transform(sk.transform(X)), atol=1e-9)


def test_fraction_of_variance_matches_sklearn():
    from sklearn.decomposition import PCA as SkPCA

    X = data(seed=2)
    for frac in (0.5, 0.8, 0.95, 0.999):
        ours = PCA(frac).fit(X)
        sk = SkPCA(frac, svd_solver="full").fit(X)
        assert ours.n_components_ == sk.n_components_
        np.testing.assert_allclose(ours.components_, sk.components_, atol=1e-10)
        assert ours.noise_variance_ == pytest.approx(sk.noise_variance_, rel=1e-10)
    assert PCA(0.8).fit_transform(X).shape == (200, PCA(0.8).fit(X).n_components_)


@given(
    st.integers(2, 12), st.integers(1, 8), st.integers(0, 2**32 - 1),
    st.sampled_from(SOLVERS[:-1]), st.booleans(), st.booleans(), st.sampled_from([0.0, 1e8]),
)
def test_round_trip_at_full_rank(n, p, seed, solver, standardize, whiten, offset):
    rng = np.random.default_rng(seed)
    m = min(n, p)
    # full column rank data when n > p; exactly round-trippable when k = p
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 2, p) + offset
    pca = PCA(solver=solver, standardize=standardize, whiten=whiten and n > p)
    scores = pca.fit_transform(X)
    assert scores.shape == (n, m)
    np.testing.assert_allclose(scores, pca.transform(X), atol=1e-7 * (1 + np.abs(scores).max()))
    V = pca.components_
    np.testing.assert_allclose(V @ V.T, np.eye(m), atol=1e-9)
    if m == p:
        np.testing.assert_allclose(pca.inverse_transform(scores), X, atol=1e-7 * (1 + offset))


def test_auto_solver_rule():
    assert dense_route("auto", 100, 5, 5, False) == "svd"
    assert dense_route("auto", 100000, 50, 10, False) == "eig"
    assert dense_route("auto", 2000, 20000, 10, False) == "gram"  # wide: one syrk
    assert dense_route("auto", 200, 100000, 10, False) == "gram"  # a Krylov block costs more
    assert dense_route("auto", 20000, 20000, 10, False) == "krylov"
    assert dense_route("auto", 20000, 20000, 20000, True) == "svd"  # square, every component
    assert dense_route("auto", 20000, 20000, 20000, False) == "svd"  # k = m
    assert PCA(10).fit(data(3000, 100)).solver_ == "eig"
    assert PCA(10).fit(np.random.default_rng(0).standard_normal((100, 3000))).solver_ == "gram"
    assert PCA(10).fit(data(20, 10)).solver_ == "svd"
    assert PCA(10).fit(data(300, 200)).solver_ == "eig"  # k < min(n, p): the guarded eig route
    assert PCA(None).fit(data(300, 200)).solver_ == "svd"  # every component, n and p within 4


def test_auto_solver_rule_at_its_thresholds():
    # Small work n * p * min(n, p) <= 1e6: SVD whatever the shape.
    assert dense_route("auto", 400, 50, 10, False) == "svd"  # exactly 1e6
    assert dense_route("auto", 401, 50, 10, False) == "eig"
    assert dense_route("auto", 50, 401, 10, False) == "gram"
    # Aspect ratio 4, for every component (k = min(n, p) or a fraction of variance).
    assert dense_route("auto", 4000, 1000, 1000, True) == "eig"
    assert dense_route("auto", 3999, 1000, 1000, True) == "svd"
    assert dense_route("auto", 1000, 4000, 1000, True) == "gram"
    assert dense_route("auto", 1000, 3999, 1000, False) == "svd"
    # k < min(n, p): the covariance route up to 1024 features (it keeps the scatter
    # matrix for partial_fit), whatever the aspect; the Gram route for wider data.
    assert dense_route("auto", 3999, 1000, 10, False) == "eig"
    assert dense_route("auto", 1000, 1024, 10, False) == "eig"
    assert dense_route("auto", 500, 3999, 10, False) == "gram"
    # Above 1024 features, n and p within a factor 4: Krylov when its budget holds at
    # least 4 blocks of k + 2 columns: half of the syrk plus Lanczos's 8k + 40 products
    # with the formed matrix (weight 12 per m^2), over 12 n p b per block; and (issue 35)
    # when the whole of it pays for 5k + 20 single-vector products, 2 * 17 n p each
    # (tall data: that condition alone).
    assert krylov_budget(20000, 1024, 10) == 0
    assert krylov_budget(4000, 1025, 10) == 4 and not lanczos_room(4000, 1025, 10)  # 38 < 70
    assert dense_route("auto", 4000, 1025, 10, False) == "eig"
    assert lanczos_room(4000, 1025, 3) and not lanczos_room(4000, 1025, 4)  # 35 = 35; 36 < 40
    assert dense_route("auto", 4000, 1025, 3, False) == "krylov"
    assert dense_route("auto", 20000, 1025, 10, False) == "eig"  # tall: one syrk
    assert dense_route("auto", 20000, 1025, 2, False) == "krylov"  # tall: 31 products, 30 needed
    assert dense_route("auto", 20000, 2000, 5, False) == "krylov"
    assert krylov_budget(20000, 2000, 50) == 2 and dense_route("auto", 20000, 2000, 50, False) == "eig"
    assert krylov_budget(20000, 2000, 10) == 7 and dense_route("auto", 20000, 2000, 10, False) == "eig"
    assert krylov_budget(6000, 2500, 10) == 10
    assert krylov_budget(2000, 20000, 10) == 7


def test_large_offset_is_exact():
    X = data(500, 10, seed=3, offset=0.0)
    a = PCA(4).fit(X)
    for solver in ("eig", "gram", "svd"):
        b = PCA(4, solver=solver).fit(X + 1e8)
        np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-6)
        np.testing.assert_allclose(b.components_, a.components_, atol=1e-6)


def test_iris_matches_r_prcomp():
    from sklearn.datasets import load_iris

    X = load_iris().data
    np.testing.assert_allclose(
        np.sqrt(PCA().fit(X).explained_variance_), [2.0562689, 0.4926162, 0.2796596, 0.1543862], atol=5e-8
    )
    scaled = PCA(standardize=True).fit(X)
    np.testing.assert_allclose(
        np.sqrt(scaled.explained_variance_), [1.7083611, 0.9560494, 0.3830886, 0.1439265], atol=5e-8
    )
    np.testing.assert_allclose(scaled.scale_, X.std(axis=0, ddof=1))
    np.testing.assert_array_equal(PCA().fit(X).scale_, np.ones(4))


def test_standardize_equals_pca_of_z_scores_and_score_has_jacobian():
    X = data(seed=4) * np.arange(1, 9)
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    a = PCA(3, standardize=True).fit(X)
    b = PCA(3).fit(Z)
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-10)
    np.testing.assert_allclose(a.transform(X), b.transform(Z), atol=1e-10)
    np.testing.assert_allclose(a.get_covariance(), b.get_covariance(), atol=1e-12)
    np.testing.assert_allclose(a.score_samples(X), b.score_samples(Z) - np.log(a.scale_).sum(), rtol=1e-10)


def test_score_is_gaussian_loglik():
    from scipy.stats import multivariate_normal

    X = data(seed=5)
    pca = PCA(3).fit(X)
    ref = multivariate_normal(pca.mean_, pca.get_covariance()).logpdf(X)
    np.testing.assert_allclose(pca.score_samples(X), ref, rtol=1e-10)


def test_full_rank_noise_zero_score():
    X = data(seed=6)
    pca = PCA().fit(X)
    assert pca.noise_variance_ == 0.0
    from scipy.stats import multivariate_normal

    ref = multivariate_normal(X.mean(axis=0), np.cov(X, rowvar=False)).logpdf(X)
    np.testing.assert_allclose(pca.score_samples(X), ref, rtol=1e-9)


def test_sklearn_clone_pipeline_gridsearch():
    from sklearn.base import clone
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    pca = PCA(2, solver="svd", whiten=True)
    c = clone(pca)
    assert c.get_params() == pca.get_params() and c is not pca
    X, y = load_iris(return_X_y=True)
    pipe = Pipeline([("scale", StandardScaler()), ("pca", PCA()), ("clf", LogisticRegression(max_iter=500))])
    search = GridSearchCV(pipe, {"pca__n_components": [1, 2, 3]}, cv=3).fit(X, y)
    assert search.best_params_["pca__n_components"] in (1, 2, 3)
    assert search.score(X, y) > 0.8
    assert search.best_estimator_.named_steps["pca"].n_components_ == search.best_params_["pca__n_components"]


def test_get_set_params_and_repr():
    pca = PCA(3, whiten=True)
    assert pca.get_params() == {
        "n_components": 3, "solver": "auto", "standardize": False, "whiten": True, "ddof": 1, "random_state": None,
        "missing": None, "missing_max_iter": 1000, "missing_tol": 1e-8, "tol": None,
    }
    assert pca.set_params(solver="svd", n_components=2) is pca
    assert pca.solver == "svd" and pca.n_components == 2
    assert repr(pca) == "PCA(n_components=2, solver='svd', whiten=True)"
    # __init__ stores values unchanged, even invalid ones (validated in fit)
    assert PCA(n_components="bad").n_components == "bad"


def test_ddof_zero():
    X = data(seed=7)
    pca = PCA(3, ddof=0).fit(X)
    np.testing.assert_allclose(pca.explained_variance_, np.linalg.eigvalsh(np.cov(X, rowvar=False, ddof=0))[::-1][:3])


def test_randomized_reproducible():
    X = data(seed=8)
    a = PCA(3, solver="randomized", random_state=1).fit(X)
    b = PCA(3, solver="randomized", random_state=1).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)


def test_dtypes_inputs_untouched_repeatable():
    X = data(seed=9)
    X0 = X.copy()
    pca = PCA(3).fit(X)
    first = pca.components_.copy()
    Z = pca.transform(X)
    Z0 = Z.copy()
    pca.inverse_transform(Z)
    pca.score(X)
    pca.fit_transform(X)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(Z, Z0)
    np.testing.assert_array_equal(PCA(3).fit(X).components_, first)
    p32 = PCA(3).fit(X.astype(np.float32))
    assert p32.components_.dtype == p32.explained_variance_.dtype == np.float32
    assert p32.transform(X.astype(np.float32)).dtype == np.float32
    assert p32.inverse_transform(p32.transform(X.astype(np.float32))).dtype == np.float32
    np.testing.assert_allclose(p32.explained_variance_, pca.explained_variance_, rtol=1e-4)
    pi = PCA(2).fit(np.round(X).astype(int))
    assert pi.components_.dtype == np.float64


# -- one test per bad input ----------------------------------------------------


def test_not_fitted_error_is_value_and_attribute_error():
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)


def test_transform_before_fit_rejected():
    with pytest.raises(NotFittedError, match="This PCA instance is not fitted yet"):
        PCA(2).transform(np.ones((3, 3)))


# Public methods that do not need a fit (they set parameters or fit).
_NO_FIT_NEEDED = {"fit", "fit_transform", "partial_fit", "get_params", "set_params", "set_output",
                  "tables_"}  # the names to_frame accepts: known before any fit


def _needing_a_fit():
    """Every public method and property of PCA except those in _NO_FIT_NEEDED."""
    names = [name for name in dir(PCA) if not name.startswith("_") and name not in _NO_FIT_NEEDED]
    return [name for name in names if callable(getattr(PCA, name)) or isinstance(getattr(PCA, name), property)]


def test_every_method_before_fit_raises_not_fitted():
    """Issue 22 item 12: inverse_transform before fit raised a bare AttributeError
    (it read n_components_ first); every method that needs a fit says so."""
    X = data()
    names = _needing_a_fit()
    assert {"inverse_transform", "transform", "score", "loadings_"} <= set(names)
    for name in names:
        member = getattr(PCA, name)
        pca = PCA(2)
        with pytest.raises(NotFittedError, match="This PCA instance is not fitted yet"):
            if isinstance(member, property):
                getattr(pca, name)
            else:
                required = [
                    q for q in inspect.signature(member).parameters.values()
                    if q.default is q.empty and q.name != "self"
                ]
                member(pca, *[X[:, :2] if name == "inverse_transform" else X][: len(required)])


def test_wrong_feature_count_rejected():
    pca = PCA(2).fit(data())
    with pytest.raises(ValueError, match="X has 5 features, but PCA is expecting 8 features"):
        pca.transform(np.ones((3, 5)))


def test_wrong_score_columns_rejected():
    pca = PCA(2).fit(data())
    with pytest.raises(ValueError, match=r"Z has 3 columns, but PCA has n_components_ = 2"):
        pca.inverse_transform(np.ones((3, 3)))


def test_invalid_solver_rejected():
    with pytest.raises(ValueError, match="solver must be one of .* got 'arpack'"):
        PCA(2, solver="arpack").fit(data())


def test_k_zero_rejected():
    with pytest.raises(ValueError, match="n_components must be between 1 and .* got 0"):
        PCA(0).fit(data())


def test_k_negative_rejected():
    with pytest.raises(ValueError, match="n_components must be between 1 and .* got -3"):
        PCA(-3).fit(data())


def test_k_too_large_rejected():
    with pytest.raises(ValueError, match=r"n_components must be between 1 and min\(n_samples, n_features\) = 8, got 9"):
        PCA(9).fit(data())


def test_k_fraction_above_one_rejected():
    with pytest.raises(ValueError, match=r"must be in \(0, 1\), got 1.5"):
        PCA(1.5).fit(data())


def test_k_fraction_one_rejected():
    with pytest.raises(ValueError, match=r"must be in \(0, 1\), got 1.0"):
        PCA(1.0).fit(data())


def test_k_string_rejected():
    with pytest.raises(TypeError, match="n_components must be an int, a float in \\(0, 1\\) or None, got 'all'"):
        PCA("all").fit(data())


def test_randomized_with_fraction_rejected():
    with pytest.raises(ValueError, match="solver='randomized' needs an integer n_components"):
        PCA(0.9, solver="randomized").fit(data())


def test_non_boolean_whiten_rejected():
    with pytest.raises(TypeError, match="whiten must be True or False"):
        PCA(2, whiten="yes").fit(data())


def test_whiten_zero_variance_rejected():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((4, 10))  # centered rank 3: the 4th variance is 0
    with pytest.raises(ValueError, match="whiten=True .* component 4 has variance 0"):
        PCA(whiten=True).fit(X)


def test_unknown_parameter_rejected():
    with pytest.raises(ValueError, match="invalid parameter 'n_comp' for PCA"):
        PCA().set_params(n_comp=3)


def test_nan_rejected():
    X = data()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        PCA(2).fit(X)


def test_one_sample_rejected():
    with pytest.raises(ValueError, match="X needs at least 2 samples"):
        PCA().fit(np.ones((1, 3)))


def test_zero_variance_column_with_standardize_rejected():
    X = data()
    X[:, 4] = 7.0
    with pytest.raises(ValueError, match=r"zero variance in column\(s\) \[4\]"):
        PCA(2, standardize=True).fit(X)


def test_singular_model_score_rejected():
    rng = np.random.default_rng(11)
    pca = PCA().fit(rng.standard_normal((4, 10)))  # k = min(n, p) = 4 < p, noise 0
    with pytest.raises(ValueError, match="covariance W W\\^T is singular"):
        pca.score(rng.standard_normal((2, 10)))

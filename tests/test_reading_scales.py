"""The reading aids, varimax and SparsePCA at every scale, offset and integer size,
and the answers they owe (issue 31: F02, F04-F08, F12, F16, F25).

Every check compares with an independent route: NumPy on the same data at unit scale
(an SVD of the exactly centered data, least squares, covariances), an exhaustive
search over supports, or R's numbers quoted as literals. The data are small integers
times a power of two, so that scaling them by a power of two, offsetting them by
1e14 or adding 2**62 is exact and the unit-scale reference is the truth.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import pcalib

CARS = pcalib.datasets.load_mtcars()


def integer_data(n=30, p=6, seed=0):
    """Correlated small integers (at most a few hundred in size)."""
    rng = np.random.default_rng(seed)
    return rng.integers(-9, 10, (n, p)) @ rng.integers(-3, 4, (p, p))


def quietly(f, *args, **kwargs):
    """f(*args, **kwargs), ignoring the warnings that variances beyond float64 give."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


def numpy_reading(D, k, standardize=False):
    """cos2 and contributions of rows and variables from NumPy's SVD of D centered."""
    Dc = D - D.mean(axis=0)
    if standardize:
        Dc = Dc / Dc.std(axis=0, ddof=1)
    _, s, Vt = np.linalg.svd(Dc, full_matrices=False)
    T = Dc @ Vt[:k].T
    p = D.shape[1]
    return {
        "row_cos2": T**2 / np.sum(Dc**2, axis=1, keepdims=True),
        "row_contributions": 100 * T**2 / s[:k] ** 2,
        "variable_cos2": np.corrcoef(Dc.T, T.T)[:p, p:] ** 2,
    }


def pcalib_reading(model, X):
    return {
        "row_cos2": pcalib.row_cos2(model, X),
        "row_contributions": pcalib.row_contributions(model, X),
        "variable_cos2": pcalib.variable_cos2(model, X),
    }


# 2**-565 ~ 1.5e-170, 2**532 ~ 1.4e160, and the ends of the float64 range
SCALES = [2.0**-990, 2.0**-565, 2.0**532, 2.0**1000]


# -- F05: models fitted at 1e-170 and 1e160 --------------------------------------------------


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("standardize", [False, True])
def test_reading_aids_are_the_same_at_every_scale(scale, standardize):
    D = integer_data() * 2.0**-6
    model = quietly(pcalib.PCA(3, standardize=standardize).fit, D * scale)
    got = quietly(pcalib_reading, model, D * scale)
    for name, expected in numpy_reading(D, 3, standardize).items():
        np.testing.assert_allclose(got[name], expected, atol=1e-11, err_msg=name)
    if standardize:  # the variances are known without the data
        np.testing.assert_allclose(pcalib.variable_cos2(model), got["variable_cos2"], atol=1e-12)


def test_variable_cos2_of_a_full_model_at_1e160_needs_no_data():
    D = integer_data() * 2.0**-6
    model = quietly(pcalib.PCA().fit, D * 2.0**532)
    expected = numpy_reading(D, 6)["variable_cos2"]
    np.testing.assert_allclose(pcalib.variable_cos2(model), expected, atol=1e-11)
    np.testing.assert_allclose(pcalib.variable_cos2(model).sum(axis=1), 1.0, atol=1e-12)


# -- F04: int64 near 2**62 --------------------------------------------------------------------


@pytest.mark.parametrize("standardize", [False, True])
def test_reading_aids_of_int64_near_2_62_are_exact(standardize):
    D = integer_data(seed=1) * 32
    X = D.astype(np.int64) + 2**62  # exact in int64; float64 would round to multiples of 1024
    model = pcalib.PCA(3, standardize=standardize).fit(X)
    got = pcalib_reading(model, X)
    for name, expected in numpy_reading(D.astype(float), 3, standardize).items():
        np.testing.assert_allclose(got[name], expected, atol=1e-11, err_msg=name)


# -- F16: an offset of 1e14 --------------------------------------------------------------------


def test_row_cos2_at_an_offset_of_1e14_keeps_every_row():
    D = integer_data(seed=2) * 2.0**-6  # multiples of the spacing of float64 near 1e14
    X = D + 1e14
    assert np.array_equal(X - 1e14, D)
    model = pcalib.PCA(3).fit(X)
    got = pcalib_reading(model, X)
    for name, expected in numpy_reading(D, 3).items():
        np.testing.assert_allclose(got[name], expected, atol=1e-11, err_msg=name)
    assert np.all(got["row_cos2"].sum(axis=1) > 0.3)  # no row read as the center


def test_only_a_row_at_the_center_has_no_direction():
    D = integer_data(n=31, seed=3) * 2.0**-6
    D[-1] = -D[:-1].sum(axis=0)  # the rows sum to 0: the last row is minus the others
    X = np.vstack([D, np.zeros((1, D.shape[1]))])  # a row exactly at the mean (0)
    model = pcalib.PCA(3).fit(X)
    cos2 = pcalib.row_cos2(model, X)
    assert np.all(cos2[-1] == 0)
    with np.errstate(invalid="ignore"):  # NumPy's 0/0 for the last row
        expected = numpy_reading(X, 3)["row_cos2"][:-1]
    np.testing.assert_allclose(cos2[:-1], expected, atol=1e-12)


# -- F06: axes of round-off eigenvalue ---------------------------------------------------------


def test_an_axis_of_round_off_variance_gets_no_contribution():
    W = np.random.default_rng(4).standard_normal((5, 10))  # n < p: rank 4 after centering
    model = pcalib.PCA().fit(W)
    assert model.n_components_ == 5
    s = np.linalg.svd(W - W.mean(axis=0), compute_uv=False)
    assert s[4] < 1e-14 * s[0]  # NumPy: the fifth axis has no variance
    ctr = pcalib.row_contributions(model, W)
    np.testing.assert_allclose(ctr.sum(axis=0), [100, 100, 100, 100, 0], atol=1e-10)
    np.testing.assert_allclose(ctr[:, :4], numpy_reading(W, 4)["row_contributions"], atol=1e-10)
    var_ctr = pcalib.variable_contributions(model)
    np.testing.assert_allclose(var_ctr.sum(axis=0), [100, 100, 100, 100, 0], atol=1e-10)
    assert np.all(pcalib.variable_cos2(model, W)[:, 4] == 0)


# -- F07: SparsePCA is not read with PCA's shares ------------------------------------------------


@pytest.mark.parametrize("reader", ["row_cos2", "row_contributions", "variable_cos2", "variable_contributions"])
def test_cos2_and_contributions_of_a_sparse_pca_are_refused(reader):
    X = CARS.data
    sparse = pcalib.SparsePCA(3, n_nonzero=1, standardize=True).fit(X)
    V = sparse.components_
    np.testing.assert_allclose(V @ V.T, np.eye(3), atol=1e-15)  # orthonormal axes, but:
    T = sparse.transform(X)
    assert abs(np.corrcoef(T.T)[0, 1]) > 0.4  # correlated scores, shares would not add up
    args = (sparse,) if reader == "variable_contributions" else (sparse, X)
    with pytest.raises(TypeError, match="SparsePCA"):
        getattr(pcalib, reader)(*args)


# -- F08 and F25: varimax is scale-free and handles equal columns --------------------------------

# R: L3 <- prcomp(mtcars, scale. = TRUE)$rotation[, 1:3] %*% diag(sdev[1:3])
#    varimax(L3, eps = 1e-14)$loadings[1:3, ]
R_VARIMAX = np.array([
    [-0.5415778600908, 0.663973865519, 0.4086743632622],
    [0.3411886233484, -0.617538623420, -0.6712122747833],
    [0.3441743655043, -0.715391460073, -0.5238466142931],
])
#    varimax(L3, normalize = FALSE, eps = 1e-14)$loadings[1:3, ]
R_VARIMAX_RAW = np.array([
    [-0.5272514421982, 0.6753668607115, 0.4087396824051],
    [0.3283592134254, -0.6241225968734, -0.6715212260003],
    [0.3289288667174, -0.7222112481066, -0.5242832479399],
])


def same_columns(A, B):
    """A with each column's sign chosen to agree with B's."""
    return A * np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)


def loadings3():
    return pcalib.PCA(3, standardize=True).fit(CARS.data).loadings_


@pytest.mark.parametrize("scale", [2.0**-1000, 2.0**-340, 1.0, 2.0**515, 2.0**1000])
@pytest.mark.parametrize(("normalize", "expected"), [(True, R_VARIMAX), (False, R_VARIMAX_RAW)])
def test_varimax_does_not_depend_on_the_scale_of_the_loadings(scale, normalize, expected):
    rotated, R = pcalib.varimax(loadings3() * scale, normalize=normalize, sort=False)  # R's order
    np.testing.assert_allclose(same_columns(rotated[:3] / scale, expected), expected, atol=5e-8)
    unit, _ = pcalib.varimax(loadings3(), normalize=normalize, sort=False)
    np.testing.assert_array_equal(rotated / scale, unit)  # the same bits
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-13)


def varimax_criterion(M):
    return np.sum(np.sum(M**4, axis=0) - np.sum(M**2, axis=0) ** 2 / len(M))


@pytest.mark.parametrize("normalize", [True, False])
def test_varimax_of_two_equal_columns_puts_them_in_one(normalize):
    a = loadings3()[:, 0]
    A = np.column_stack([a, a])
    rotated, R = pcalib.varimax(A, normalize=normalize)
    # R: a <- prcomp(mtcars, scale. = TRUE); a <- a$rotation[, 1] * a$sdev[1]
    #    varimax(cbind(a, a))$loadings[1:3, 1] (normalize = TRUE)
    np.testing.assert_allclose(np.abs(rotated[:3, 0]), [1.317976666883, 1.359368644513, 1.338534254203],
                               rtol=1e-11)
    np.testing.assert_allclose(rotated[:, 1], 0.0, atol=1e-14)
    np.testing.assert_allclose(A @ R, rotated, atol=1e-14)
    # a grid over the rotations by theta (brute force): the unnormalized criterion is
    # largest at 45 degrees, where the two columns become one
    thetas = np.linspace(0, np.pi / 2, 901)
    values = [varimax_criterion(A @ np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])) for t in thetas]
    assert abs(thetas[int(np.argmax(values))] - np.pi / 4) < 1e-12
    assert varimax_criterion(rotated) >= max(values) - 1e-12


# -- F02: SparsePCA at every scale ---------------------------------------------------------------


def best_support(S, c):
    """The best support of size c and its top eigenpair, by exhaustive search (NumPy)."""
    best = max(itertools.combinations(range(len(S)), c), key=lambda J: np.linalg.eigvalsh(S[np.ix_(J, J)])[-1])
    w_J = np.linalg.eigh(S[np.ix_(best, best)])
    axis = np.zeros(len(S))
    axis[list(best)] = w_J[1][:, -1]
    return axis * np.sign(axis[np.argmax(np.abs(axis))]), w_J[0][-1]


def adjusted_variances(D, W, standardize=False):
    """Residual variance of each score after least squares on the previous ones (NumPy)."""
    Dc = D - D.mean(axis=0)
    if standardize:
        Dc = Dc / Dc.std(axis=0, ddof=1)
    T = Dc @ W.T
    out = [T[:, 0].var(ddof=1)]
    for j in range(1, W.shape[0]):
        coef = np.linalg.lstsq(T[:, :j], T[:, j], rcond=None)[0]
        out.append(np.sum((T[:, j] - T[:, :j] @ coef) ** 2) / (len(D) - 1))
    return np.array(out)


@pytest.mark.parametrize("scale", [2.0**-1000, 2.0**-300, 2.0**-565, 2.0**256, 2.0**532, 2.0**1000])
@pytest.mark.parametrize("standardize", [False, True])
def test_sparse_pca_is_the_same_at_every_scale(scale, standardize):
    D = integer_data(n=40, p=7, seed=0) * 2.0**-6  # a seed where the best support is found
    model = quietly(pcalib.SparsePCA(3, n_nonzero=3, standardize=standardize).fit, D * scale)
    unit = pcalib.SparsePCA(3, n_nonzero=3, standardize=standardize).fit(D)
    np.testing.assert_array_equal(model.components_, unit.components_)  # the same bits
    Dc = D - D.mean(axis=0)
    S = np.cov((Dc / Dc.std(axis=0, ddof=1)) if standardize else Dc, rowvar=False)
    axis, top = best_support(S, 3)
    np.testing.assert_allclose(model.components_[0], axis, atol=1e-9)
    adjusted = adjusted_variances(D, model.components_, standardize)
    np.testing.assert_allclose(model.explained_variance_ratio_, adjusted / np.trace(S), rtol=1e-10)
    np.testing.assert_allclose(model.explained_variance_ratio_[0], top / np.trace(S), rtol=1e-10)
    if standardize or 2.0**-500 < scale < 2.0**500:  # variances in the float64 range
        factor = 1.0 if standardize else scale**2
        np.testing.assert_allclose(model.explained_variance_, adjusted * factor, rtol=1e-10)
    scores = quietly(model.transform, D * scale)
    reference = ((Dc / Dc.std(axis=0, ddof=1)) if standardize else Dc) @ model.components_.T
    np.testing.assert_allclose(scores / (1.0 if standardize else scale), reference, atol=1e-10)


def test_sparse_pca_of_int64_near_2_62_is_exact():
    D = integer_data(n=40, p=7, seed=6) * 64
    X = D.astype(np.int64) + 2**62
    model = pcalib.SparsePCA(2, n_nonzero=3).fit(X)
    S = np.cov(D.astype(float), rowvar=False)
    np.testing.assert_allclose(model.components_[0], best_support(S, 3)[0], atol=1e-10)
    np.testing.assert_allclose(model.explained_variance_, adjusted_variances(D.astype(float), model.components_),
                               rtol=1e-10)
    Dc = D - D.mean(axis=0)
    np.testing.assert_allclose(model.transform(X), Dc @ model.components_.T, atol=1e-8)


def test_sparse_pca_standardizes_tiny_columns():
    D = integer_data(n=40, p=5, seed=7) * 2.0**-6
    D[:, 2] *= 2.0**-560  # one column 1e-169 times the others (squares below float64)
    model = pcalib.SparsePCA(2, n_nonzero=2, standardize=True).fit(D)
    reference = pcalib.SparsePCA(2, n_nonzero=2, standardize=True).fit(D * [1, 1, 2.0**560, 1, 1])
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-14)


# -- F12: n_nonzero=1 is the largest diagonal entry, exactly ----------------------------------


def data_with_covariance(S, n=12, seed=0):
    """n rows whose sample covariance is S (to round-off)."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, len(S)))
    Q = np.linalg.qr(G - G.mean(axis=0))[0]  # orthonormal columns in the span of centered ones
    return np.sqrt(n - 1) * Q @ np.linalg.cholesky(S).T


def test_one_nonzero_takes_the_largest_variance_even_where_the_eigenvector_points_elsewhere():
    # the leading eigenvector (0, 1, 1)/sqrt(2) (eigenvalue 2.9) truncated to one entry
    # starts at variable 1, a fixed point of value 1.5; variable 0 has variance 2
    S = np.array([[2.0, 0.0, 0.0], [0.0, 1.5, 1.4], [0.0, 1.4, 1.5]])
    X = data_with_covariance(S)
    np.testing.assert_allclose(np.cov(X, rowvar=False), S, atol=1e-12)
    model = pcalib.SparsePCA(1, n_nonzero=1).fit(X)
    assert np.flatnonzero(model.components_[0]).tolist() == [0]
    np.testing.assert_allclose(model.explained_variance_, [2.0], rtol=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_one_nonzero_per_axis_is_forward_selection_of_residual_variance(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((25, 6)) @ rng.standard_normal((6, 6)) * rng.uniform(0.5, 2, 6)
    model = pcalib.SparsePCA(3, n_nonzero=1).fit(X)
    # reference: at each step the variable with the largest variance left after least
    # squares on the variables already chosen (NumPy lstsq)
    chosen, Xc = [], X - X.mean(axis=0)
    for _ in range(3):
        left = []
        for l in range(6):
            if chosen:
                coef = np.linalg.lstsq(Xc[:, chosen], Xc[:, l], rcond=None)[0]
                left.append(np.sum((Xc[:, l] - Xc[:, chosen] @ coef) ** 2) / 24)
            else:
                left.append(Xc[:, l].var(ddof=1))
        chosen.append(int(np.argmax(left)))
        assert np.isclose(model.explained_variance_[len(chosen) - 1], max(left), rtol=1e-10)
    assert [int(np.flatnonzero(w)[0]) for w in model.components_] == chosen

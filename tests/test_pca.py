"""Tests of pcalib.pca: the three routes, choose_k, reconstruction_error.

Independent references: numpy.linalg.svd / eigvalsh written out here, np.cov,
and R's prcomp on Fisher's iris (published values).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcalib import choose_k, pca_eig, pca_gram, pca_svd, reconstruction_error

ROUTES = [pca_eig, pca_svd, pca_gram]


def centered_with_spectrum(rng, n, p, s):
    """Centered n x p matrix whose singular values are exactly ``s`` (then zeros)."""
    r = len(s)
    A = rng.standard_normal((n, r))
    A -= A.mean(axis=0)
    U = np.linalg.qr(A)[0]  # orthonormal, still centered
    V = np.linalg.qr(rng.standard_normal((p, r)))[0]
    return (U * s) @ V.T


@st.composite
def pca_data(draw, kinds=("generic", "rank_deficient", "repeated", "offset", "float32", "n2")):
    """(X, s_true, kind): X with known centered singular values s_true (descending)."""
    kind = draw(st.sampled_from(kinds))
    if kind == "n2":
        n = 2
    else:
        n = draw(st.integers(3, 14))
    p = draw(st.integers(1, 9))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    rmax = min(n - 1, p)
    if kind == "rank_deficient" and rmax > 1:
        r = draw(st.integers(1, rmax - 1))
    else:
        r = rmax
    if kind == "repeated":
        s = np.repeat([5.0, 2.0], [(r + 1) // 2, r // 2])
    else:
        s = 10.0 * 0.7 ** np.arange(r)  # well separated: gap ratio 1/0.7
    X = centered_with_spectrum(rng, n, p, s) + rng.uniform(-3, 3, size=p)
    if kind == "offset":
        X += 1e8
    if kind == "float32":
        X = X.astype(np.float32)
    return X, s, kind


def tolerance(X, s):
    """Absolute tolerance on singular-value-sized quantities for this data."""
    eps = np.finfo(X.dtype).eps
    return 1e3 * eps * (s[0] + np.abs(X).max() * np.sqrt(X.size))


def unique_directions(s, kind):
    """Number of leading components whose axes are unique (distinct, nonzero s)."""
    return 0 if kind == "repeated" else len(s)


@given(pca_data())
def test_routes_agree_in_values_and_signs(data):
    X, s, kind = data
    results = [route(X) for route in ROUTES]
    tol = tolerance(X, s)
    m = min(X.shape)
    for res in results[1:]:
        np.testing.assert_allclose(res.singular_values, results[0].singular_values, atol=tol)
        np.testing.assert_allclose(res.mean, results[0].mean, rtol=1e-12 if X.dtype == np.float64 else 1e-6)
        u = unique_directions(s, kind)
        np.testing.assert_allclose(res.components[:u], results[0].components[:u], atol=tol / s[-1])
        np.testing.assert_allclose(res.scores[:, :u], results[0].scores[:, :u], atol=10 * tol)
    for res in results:
        assert res.components.shape == (m, X.shape[1])
        assert res.scores.shape == (X.shape[0], m)
        assert not np.isnan(res.components).any()


@given(pca_data())
def test_components_orthonormal_and_variance_identities(data):
    X, s, kind = data
    n, p = X.shape
    m = min(n, p)
    tol = tolerance(X, s)
    X64 = X.astype(np.float64)
    cov = np.atleast_2d(np.cov(X64, rowvar=False))
    top = np.sort(np.linalg.eigvalsh(cov))[::-1][:m]
    for route in ROUTES:
        res = route(X)
        V = res.components.astype(np.float64)
        np.testing.assert_allclose(V @ V.T, np.eye(m), atol=1e-5 if X.dtype == np.float32 else 1e-10)
        # explained variance = variance of the scores = top eigenvalues of np.cov
        ev = res.explained_variance.astype(np.float64)
        np.testing.assert_allclose(ev, np.var(res.scores.astype(np.float64), axis=0, ddof=1), atol=tol * s[0])
        np.testing.assert_allclose(ev, top, atol=tol * s[0])
        np.testing.assert_allclose(ev, np.r_[s, np.zeros(m - len(s))] ** 2 / (n - 1), atol=tol * s[0])
        # total variance preserved at full k; the ratios sum to one
        assert ev.sum() == pytest.approx(np.trace(cov), rel=1e-4 if X.dtype == np.float32 else 1e-9)
        assert res.explained_variance_ratio.sum() == pytest.approx(1.0, rel=1e-4 if X.dtype == np.float32 else 1e-9)
        # scores are the centered data in the new axes
        Xc = X64 - X64.mean(axis=0)
        np.testing.assert_allclose(res.scores, Xc @ V.T, atol=10 * tol)
        assert np.all(np.diff(ev) <= tol * s[0])


@given(pca_data(kinds=("generic", "offset")), st.integers(1, 9))
def test_partial_k_is_a_prefix_and_ratio_uses_total(data, k):
    X, s, _ = data
    k = min(k, min(X.shape))
    tol = tolerance(X, s)
    for route in ROUTES:
        full, part = route(X), route(X, k)
        np.testing.assert_allclose(part.explained_variance, full.explained_variance[:k], atol=tol * s[0])
        np.testing.assert_allclose(part.explained_variance_ratio, full.explained_variance_ratio[:k], atol=1e-9)
        np.testing.assert_allclose(part.components, full.components[:k], atol=tol / s[-1])


def test_numpy_svd_reference_and_sign_convention():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 5)) @ np.diag([5, 4, 3, 2, 1.0]) + 7
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    for route in ROUTES:
        res = route(X, 3)
        np.testing.assert_allclose(res.singular_values, s[:3], rtol=1e-12)
        np.testing.assert_allclose(np.abs(res.components), np.abs(Vt[:3]), atol=1e-12)
        idx = np.argmax(np.abs(res.components), axis=1)
        assert np.all(res.components[np.arange(3), idx] > 0)


def test_large_offset_invariance():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((200, 6)) @ np.diag([6, 5, 4, 3, 2, 1.0])
    for route in ROUTES:
        a, b = route(X), route(X + 1e8)
        np.testing.assert_allclose(b.explained_variance, a.explained_variance, rtol=1e-6)
        np.testing.assert_allclose(b.components, a.components, atol=1e-6)
        np.testing.assert_allclose(b.scores, a.scores, atol=1e-6 * np.abs(a.scores).max())


def test_gram_route_with_zero_singular_values_completes_the_basis():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((4, 10))  # centered rank 3 < min(n, p) = 4
    res = pca_gram(X)
    assert not np.isnan(res.components).any()
    assert res.singular_values[-1] == 0.0
    assert res.explained_variance[-1] == 0.0
    np.testing.assert_allclose(res.components @ res.components.T, np.eye(4), atol=1e-12)
    # the completed axis is orthogonal to the data's span, and the scores are X_c V
    # (what transform computes: 0 on that axis to round-off, not exactly)
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(Xc @ res.components[-1], 0.0, atol=1e-12)
    np.testing.assert_allclose(res.scores, Xc @ res.components.T, rtol=0, atol=1e-14 * np.abs(Xc).max())
    np.testing.assert_allclose(res.scores[:, -1], 0.0, rtol=0, atol=1e-14 * np.abs(Xc).max())


def test_eig_route_clips_negative_round_off_eigenvalues():
    X = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]]) * 0.1  # rank 1
    res = pca_eig(X)
    assert np.all(res.explained_variance >= 0)
    assert np.all(np.isfinite(res.singular_values))


def test_ddof_zero():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((8, 3))
    for route in ROUTES:
        res = route(X, ddof=0)
        np.testing.assert_allclose(res.explained_variance, np.linalg.eigvalsh(np.cov(X, rowvar=False, ddof=0))[::-1])


def test_iris_matches_r_prcomp():
    # R: prcomp(iris[, 1:4])$sdev and prcomp(iris[, 1:4], scale. = TRUE)$sdev
    from sklearn.datasets import load_iris

    from pcalib import standardize

    X = load_iris().data
    for route in ROUTES:
        sdev = np.sqrt(route(X).explained_variance)
        np.testing.assert_allclose(sdev, [2.0562689, 0.4926162, 0.2796596, 0.1543862], atol=5e-8)
        sdev_scaled = np.sqrt(route(standardize(X)[0]).explained_variance)
        np.testing.assert_allclose(sdev_scaled, [1.7083611, 0.9560494, 0.3830886, 0.1439265], atol=5e-8)


def test_dtypes_and_inputs_untouched_and_repeatable():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((12, 4)) + 1
    X0 = X.copy()
    for route in ROUTES:
        a, b = route(X, 2), route(X, 2)
        for field in ("components", "explained_variance", "explained_variance_ratio", "singular_values", "scores", "mean"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
            assert getattr(a, field).dtype == np.float64
        r32 = route(X.astype(np.float32), 2)
        assert r32.components.dtype == r32.scores.dtype == r32.explained_variance.dtype == np.float32
        np.testing.assert_allclose(r32.explained_variance, a.explained_variance, rtol=1e-4)
        ri = route(np.round(X * 10).astype(np.int64), 2)
        assert ri.components.dtype == np.float64
    np.testing.assert_array_equal(X, X0)
    reconstruction_error(X, 2)
    np.testing.assert_array_equal(X, X0)


def test_result_is_frozen():
    res = pca_svd(np.eye(3))
    with pytest.raises(AttributeError):
        res.components = None


# -- choose_k -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ratios", "threshold", "expected"),
    [
        ([0.5, 0.5], 0.5, 1),
        ([0.5, 0.5], 1.0, 2),
        ([0.1] * 10, 1.0, 10),  # the cumulative sum is 0.9999999999999999
        ([0.1] * 10, 0.3, 3),  # 0.1 + 0.1 + 0.1 = 0.30000000000000004
        ([0.7, 0.2, 0.1], 0.9, 2),  # 0.7 + 0.2 = 0.8999999999999999
        ([0.6, 0.3, 0.1], 0.95, 3),
        ([0.6, 0.3, 0.1], 0.01, 1),
    ],
)
def test_choose_k_at_exact_thresholds(ratios, threshold, expected):
    assert choose_k(ratios, threshold) == expected


def test_choose_k_with_pca_ratios():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((50, 6)) @ np.diag([10, 5, 2, 1, 0.5, 0.1])
    r = pca_svd(X).explained_variance_ratio
    k = choose_k(r, 0.9)
    assert r[:k].sum() >= 0.9 > r[: k - 1].sum()


def test_choose_k_threshold_zero_rejected():
    with pytest.raises(ValueError, match=r"threshold must be in \(0, 1\]"):
        choose_k([0.5, 0.5], 0.0)


def test_choose_k_threshold_above_one_rejected():
    with pytest.raises(ValueError, match=r"threshold must be in \(0, 1\]"):
        choose_k([0.5, 0.5], 1.5)


def test_choose_k_threshold_not_a_number_rejected():
    with pytest.raises(TypeError, match="threshold must be a real number"):
        choose_k([0.5, 0.5], "0.5")


def test_choose_k_ratios_not_reaching_threshold_rejected():
    with pytest.raises(ValueError, match="explained_variance_ratio sums to 0.5.*below threshold"):
        choose_k([0.3, 0.2], 0.9)


def test_choose_k_negative_ratio_rejected():
    with pytest.raises(ValueError, match="explained_variance_ratio must hold finite non-negative"):
        choose_k([0.5, -0.1], 0.3)


def test_choose_k_ratios_summing_above_one_rejected():
    with pytest.raises(ValueError, match="summing to at most 1"):
        choose_k([5.0, 2.0], 0.9)


def test_choose_k_two_dimensional_ratios_rejected():
    with pytest.raises(ValueError, match="explained_variance_ratio must be a non-empty 1-D array"):
        choose_k([[0.5, 0.5]], 0.9)


def test_choose_k_string_ratios_rejected():
    with pytest.raises(TypeError, match="explained_variance_ratio must be a 1-D numeric array"):
        choose_k("0.5", 0.9)


def test_choose_k_object_ratios_rejected():
    with pytest.raises(TypeError, match="explained_variance_ratio must hold real numbers"):
        choose_k(np.array(["a", "b"]), 0.9)


# -- reconstruction error -------------------------------------------------------


@given(pca_data(kinds=("generic", "rank_deficient", "offset")), st.integers(0, 9), st.sampled_from([0, 1]))
def test_reconstruction_error_is_sum_of_discarded_eigenvalues(data, k, ddof):
    X, s, _ = data
    n, p = X.shape
    k = min(k, min(n, p))
    Xc = X - X.mean(axis=0)
    _, s_np, Vt = np.linalg.svd(Xc, full_matrices=False)
    Vk = Vt[:k].T
    direct = np.sum((Xc - Xc @ Vk @ Vk.T) ** 2) / n
    lam = s_np**2 / (n - ddof)
    err = reconstruction_error(X, k, ddof=ddof)
    atol = 1e3 * np.finfo(float).eps * (s[0] ** 2 + np.abs(X).max() ** 2 * X.size) / n
    assert err == pytest.approx(direct, abs=atol)
    assert err == pytest.approx(lam[k:].sum() * (n - ddof) / n, abs=atol)


def test_reconstruction_error_full_rank_is_zero_and_decreasing():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((20, 5))
    errs = [reconstruction_error(X, k) for k in range(6)]
    assert errs[-1] == pytest.approx(0.0, abs=1e-12)
    assert all(a > b for a, b in zip(errs, errs[1:]))


# -- one test per bad input (each for all three routes) ----------------------------


@pytest.fixture(params=ROUTES, ids=lambda f: f.__name__)
def route(request):
    return request.param


def test_nan_rejected(route):
    with pytest.raises(ValueError, match="X contains NaN"):
        route([[1.0, np.nan], [2.0, 3.0], [0.0, 1.0]])


def test_inf_rejected(route):
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        route([[1.0, -np.inf], [2.0, 3.0], [0.0, 1.0]])


def test_one_dimensional_rejected(route):
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        route([1.0, 2.0, 3.0])


def test_three_dimensional_rejected(route):
    with pytest.raises(ValueError, match="X must be a 2-D array.*3 dimension"):
        route(np.ones((3, 2, 2)))


def test_empty_rejected(route):
    with pytest.raises(ValueError, match="X is empty"):
        route(np.empty((3, 0)))


def test_one_sample_rejected(route):
    with pytest.raises(ValueError, match="X needs at least 2 samples"):
        route([[1.0, 2.0, 3.0]])


def test_strings_rejected(route):
    with pytest.raises(TypeError, match="X must be a numeric array"):
        route("a matrix")


def test_object_dtype_rejected(route):
    with pytest.raises(TypeError, match="X must hold real numbers.*object"):
        route(np.array([[1.0, None], [2.0, 3.0]], dtype=object))


def test_k_zero_rejected(route):
    with pytest.raises(ValueError, match=r"k must be between 1 and min\(n_samples, n_features\) = 2, got 0"):
        route(np.eye(3)[:, :2], 0)


def test_k_negative_rejected(route):
    with pytest.raises(ValueError, match="k must be between 1 and .* got -1"):
        route(np.eye(3)[:, :2], -1)


def test_k_too_large_rejected(route):
    with pytest.raises(ValueError, match=r"k must be between 1 and min\(n_samples, n_features\) = 2, got 3"):
        route(np.eye(3)[:, :2], 3)


def test_k_not_integer_rejected(route):
    with pytest.raises(TypeError, match="k must be an integer, got 1.5"):
        route(np.eye(3), 1.5)


def test_constant_data_rejected(route):
    with pytest.raises(ValueError, match="X has zero total variance"):
        route(np.full((4, 3), 0.1))


def test_reconstruction_error_k_too_large_rejected():
    with pytest.raises(ValueError, match="k must be between"):
        reconstruction_error(np.eye(3), 4)


@pytest.mark.parametrize("offset", [0.0, 0.9, 3.0, 1e8])
def test_one_pass_reads_small_means_in_place_and_shifts_large_ones(offset):
    """The eig route's one pass (_one_pass_scatter) loses at most one bit: it reads X as
    it is (shift 0, no copy) when every column mean is at most its spread (offsets 0 and
    0.9 standard deviations here) and shifted by the mean of the first rows otherwise;
    either way the axes match NumPy's SVD, also at an offset of 1e8."""
    from pcalib._inputs.matrix import Moments, row_blocks
    from pcalib._routes.scatter import _one_pass_scatter

    rng = np.random.default_rng(7)
    X = rng.standard_normal((5000, 30)) * 0.8 ** np.arange(30) @ np.linalg.qr(rng.standard_normal((30, 30)))[0]
    X = X - X.mean(axis=0) + offset * X.std(axis=0)
    assert _one_pass_scatter(X, row_blocks(*X.shape)) is not None
    assert (not Moments.of_rows(X).shift.any()) == (offset < 1)
    Xc = X - X.mean(axis=0)
    Xc -= Xc.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    Vt = Vt[:5] * np.sign(Vt[:5][np.arange(5), np.argmax(np.abs(Vt[:5]), axis=1)])[:, None]
    found = pca_eig(X, 5)
    np.testing.assert_allclose(found.components, Vt, atol=1e-11)
    np.testing.assert_allclose(found.explained_variance, s[:5] ** 2 / 4999, rtol=1e-12)


def _tall(n=20000, p=12, seed=11):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) * 0.7 ** np.arange(p) @ np.linalg.qr(rng.standard_normal((p, p)))[0]


@pytest.mark.parametrize("solver", ["auto", "eig", "svd", "gram", "krylov", "randomized"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("row", [0, 19999])
@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_fit_refuses_nan_and_inf_that_the_one_pass_finds(solver, bad, row, offset):
    """PCA.fit does not check X for NaN and infinity before the eig route's one pass (a
    finite sum of squares shows that every entry is finite); a bad entry, in the first
    block or the last, is still refused with its value and position, by every solver,
    also at an offset where the one pass shifts the data (and, finding a non-finite
    result, leaves them to the frame route, which checks)."""
    from pcalib import PCA

    X = _tall() + offset
    X[row, 7] = bad
    with pytest.raises(ValueError, match=rf"X contains NaN or infinity \(the first, {bad}, at position \({row}, 7\)\)"):
        PCA(3, solver=solver).fit(X)


def test_one_pass_keeps_constant_columns_exact():
    """Columns of zeros and constant columns (at 7.25 and 1e9) fail the one pass's
    cancellation check or have a zero sum of squares; read again, they are found constant,
    so the one pass stands: their means are exact, their rows and columns of the scatter
    and their loadings exactly 0, and the axes
    those of the varying columns (NumPy's SVD)."""
    from pcalib import PCA
    from pcalib._inputs.matrix import row_blocks
    from pcalib._routes.scatter import _one_pass_scatter, scatter_matrix

    X = _tall()
    X[:, 2], X[:, 5], X[:, 9] = 0.0, 7.25, 1e9
    found = _one_pass_scatter(X, row_blocks(*X.shape))
    assert found is not None
    C, center, constant = found
    np.testing.assert_array_equal(np.flatnonzero(constant), [2, 5, 9])
    np.testing.assert_array_equal(center.value[[2, 5, 9]], [0.0, 7.25, 1e9])
    C, _, _, frame, _ = scatter_matrix(X, 1, False)
    assert int(frame.exponent) == 0  # the one pass: X read in its own units
    assert not np.any(C[[2, 5, 9]]) and not np.any(C[:, [2, 5, 9]])
    est = PCA(4).fit(X)
    np.testing.assert_array_equal(est.mean_[[2, 5, 9]], [0.0, 7.25, 1e9])
    assert not np.any(est.components_[:, [2, 5, 9]])  # solved on the varying columns only
    varying = np.setdiff1d(np.arange(12), [2, 5, 9])
    Xc = X[:, varying] - X[:, varying].mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    Vt = Vt[:4] * np.sign(Vt[:4][np.arange(4), np.argmax(np.abs(Vt[:4]), axis=1)])[:, None]
    np.testing.assert_allclose(est.components_[:, varying], Vt, atol=1e-12)
    np.testing.assert_allclose(est.explained_variance_, s[:4] ** 2 / 19999, rtol=1e-12)


def test_one_pass_repeats_for_drift_and_refuses_what_it_cannot_do_exactly():
    """A column constant in the first block that varies later about a large offset loses
    more than a bit about the first rows' mean: the one pass is repeated about the mean
    found, and stands. Entries far below or above 1 (whose squares leave the safe range)
    and uint64 data send the eig route to the shifted pass in the extremes' frame. The
    axes match NumPy's SVD either way."""
    from pcalib._inputs.matrix import row_blocks
    from pcalib._routes.scatter import _one_pass_scatter

    base = _tall()
    drifting = base.copy()
    drifting[:, 3] = 1e6
    drifting[10000:, 3] += np.linspace(0.0, 1.0, 10000)
    counts = np.round(np.abs(base) * 1000).astype(np.uint64)
    for X, taken in ((drifting, True), (base * 2.0**-300, False), (base * 2.0**230, False), (counts, False)):
        assert (_one_pass_scatter(X, row_blocks(*X.shape)) is not None) == taken
        Xf = X.astype(np.float64)
        Xc = Xf - Xf.mean(axis=0)
        Xc -= Xc.mean(axis=0)
        _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
        Vt = Vt[:3] * np.sign(Vt[:3][np.arange(3), np.argmax(np.abs(Vt[:3]), axis=1)])[:, None]
        np.testing.assert_allclose(pca_eig(X, 3).components, Vt, atol=1e-9)


@pytest.mark.parametrize("fit", ["fit", "partial_fit"])
def test_loadings_of_constant_columns_are_exactly_zero_at_every_k(fit):
    """The covariance route solves on the varying columns only: their axes have exactly
    0 on constant columns; asked for more axes than varying columns, it completes the
    basis with the unit vectors of the constant columns (eigenvalue 0), orthonormal."""
    from pcalib import PCA

    rng = np.random.default_rng(13)
    X = np.c_[rng.standard_normal((500, 2)) @ [[2.0, 0.5], [0.0, 1.0]], np.full(500, 3.5), np.zeros(500)]
    X = X[:, [0, 2, 1, 3]]  # constant columns 1 and 3
    est = getattr(PCA(4, solver="eig"), fit)(X)
    V = est.components_
    assert not np.any(V[:2, [1, 3]])
    np.testing.assert_array_equal(np.abs(V[2:, [1, 3]]), np.eye(2))
    assert not np.any(V[2:, [0, 2]])
    np.testing.assert_allclose(V @ V.T, np.eye(4), atol=1e-15)
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc[:, [0, 2]], full_matrices=False)
    np.testing.assert_allclose(est.explained_variance_, np.r_[s**2 / 499, 0.0, 0.0], rtol=1e-13)
    np.testing.assert_allclose(np.abs(V[:2][:, [0, 2]]), np.abs(Vt), atol=1e-13)

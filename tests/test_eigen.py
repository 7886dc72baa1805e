"""Tests of pcalib._linalg.eigen (shared partial eigensolver) and of the eig route's blocked scatter (pcalib._routes.scatter).

Every check compares with numpy.linalg.eigh / numpy.linalg.svd written out here.
"""

import numpy as np
import pytest

import pcalib
import pcalib._linalg.eigen as eigen_module
import pcalib._routes.scatter as scatter_module
from pcalib._linalg.eigen import krylov_top, lanczos_top_operator, rows_gram, top_eigh, transposed_times
from pcalib._linalg.moments import row_blocks
from pcalib._linalg.units import Frame
from tests.numpy_references import symmetric_with_spectrum


def decaying(m=600, seed=0):
    values = np.r_[100.0 * 0.7 ** np.arange(15), np.linspace(0.5, 0.01, m - 15)]
    return symmetric_with_spectrum(values, seed), np.sort(values)[::-1]


@pytest.mark.parametrize("order", ["F", "C"])
def test_krylov_matches_numpy_eigh_and_reads_only_the_lower_triangle(order):
    M, values = decaying()
    lower = np.array(np.tril(M), order=order)
    w, V, smallest = krylov_top(lower, 5)
    w_ref, V_ref = np.linalg.eigh(M)
    w_ref, V_ref = w_ref[::-1][:5], V_ref[:, ::-1][:, :5]
    np.testing.assert_allclose(w, w_ref, rtol=1e-12)
    np.testing.assert_allclose(np.abs(np.sum(V * V_ref, axis=0)), 1.0, atol=1e-12)
    residual = M @ V - V * w
    assert np.linalg.norm(residual, axis=0).max() <= 1e-10 * w_ref[0]
    assert smallest >= values[-1] - 1e-12  # an upper bound on the smallest eigenvalue


def counted_products(M: np.ndarray):
    """``times(Q) = M @ Q``, and the list of the widths of the blocks it multiplied."""
    products: list[int] = []

    def times(Q):
        products.append(Q.shape[1])
        return M @ Q

    return times, products


def test_lanczos_matches_numpy_eigh_through_products_only():
    M, _ = decaying(seed=2)
    times, products = counted_products(M)
    w, V = lanczos_top_operator(times, M.shape[0], 5)
    w_ref, V_ref = np.linalg.eigh(M)
    w_ref, V_ref = w_ref[::-1][:5], V_ref[:, ::-1][:, :5]
    np.testing.assert_allclose(w, w_ref, rtol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(V * V_ref, axis=0)), 1.0, atol=1e-12)
    assert np.linalg.norm(M @ V - V * w, axis=0).max() <= 1e-10 * w_ref[0]
    # vectors, the check of the 5 pairs, then the probe for missed copies (vectors)
    assert products.count(5) == 1 and set(products) == {1, 5}
    assert sum(products) < M.shape[0] / 2  # far fewer products than the order of M


def test_lanczos_refuses_a_residual_it_cannot_reach():
    M, _ = decaying(seed=3)
    assert lanczos_top_operator(lambda Q: M @ Q, M.shape[0], 5, rtol=1e-20) is None


def test_lanczos_gives_up_once_its_products_are_spent():
    M, _ = decaying(seed=2)
    times, products = counted_products(M)
    assert lanczos_top_operator(times, M.shape[0], 5, max_products=20) is None
    assert sum(products) == 20       # the 21st product is refused, not computed
    products.clear()
    assert lanczos_top_operator(times, M.shape[0], 5, max_products=M.shape[0]) is not None
    assert sum(products) < M.shape[0] / 2


def test_krylov_gives_up_early_on_a_flat_spectrum():
    values = np.r_[np.linspace(2.0, 1.99, 10), np.linspace(1.989, 1.0, 590)]
    M = symmetric_with_spectrum(values, seed=1)
    assert krylov_top(M, 8, predict=True) is None


def lanczos_spy(monkeypatch):
    """Record, for each call of top_eigh's Lanczos solve, whether it converged."""
    converged = []

    def counted(*args, **kwargs):
        found = lanczos_top_operator(*args, **kwargs)
        converged.append(found is not None)
        return found

    monkeypatch.setattr(eigen_module, "lanczos_top_operator", counted)
    return converged


@pytest.mark.parametrize("order", ["F", "C"])
def test_top_eigh_uses_lanczos_or_lapack_and_agrees_with_numpy(monkeypatch, order):
    """Above NUMPY_MAX_M (lowered to 100), k <= m / 40 takes ARPACK's Lanczos method on
    the formed matrix (dsymv products of its lower triangle, the only part given), larger
    k LAPACK's partial or full solve; each agrees with NumPy's eigh of the whole matrix."""
    M, _ = decaying(seed=2)
    w_ref, V_ref = np.linalg.eigh(M)
    w_ref, V_ref = w_ref[::-1], V_ref[:, ::-1]
    converged = lanczos_spy(monkeypatch)
    monkeypatch.setattr("pcalib._linalg.constants.NUMPY_MAX_M", 100)
    for k in (3, 15, 40, 600):  # Lanczos twice; LAPACK evr (k > m/40); LAPACK evd (k = m)
        w, V = top_eigh(np.array(np.tril(M), order=order), k)
        np.testing.assert_allclose(w, w_ref[:k], rtol=1e-10, atol=1e-12 * w_ref[0])
        top = min(k, 15)
        np.testing.assert_allclose(np.abs(np.sum(V[:, :top] * V_ref[:, :top], axis=0)), 1.0, atol=1e-10)
        np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-12)
    assert converged == [True, True]


def test_a_tolerance_keeps_lapack_up_to_the_certified_order(monkeypatch):
    """top_eigh_and_next with `with_next` (PCA(tol=...)'s certificate) solves by LAPACK up
    to constants.CERTIFIED_LAPACK_MAX_M, where Lanczos would otherwise run, and returns
    the k + 1 computed eigenvalues (NumPy's eigvalsh); above that order it takes
    Lanczos as an exact fit does, and returns none."""
    from pcalib._linalg.eigen import top_eigh_and_next

    M, _ = decaying(seed=2)
    w_ref = np.linalg.eigvalsh(M)[::-1]
    converged = lanczos_spy(monkeypatch)
    monkeypatch.setattr("pcalib._linalg.constants.NUMPY_MAX_M", 100)
    monkeypatch.setattr("pcalib._linalg.constants.CERTIFIED_LAPACK_MAX_M", 1000)
    _, _, computed = top_eigh_and_next(np.tril(M), 3, with_next=True)
    assert converged == []
    np.testing.assert_allclose(computed, w_ref[:4], rtol=1e-12)
    assert top_eigh_and_next(np.tril(M), 3, with_next=False)[2] is None
    assert converged == [True]
    monkeypatch.setattr("pcalib._linalg.constants.CERTIFIED_LAPACK_MAX_M", 500)
    assert top_eigh_and_next(np.tril(M), 3, with_next=True)[2] is None
    assert converged == [True, True]


def test_top_eigh_falls_back_to_lapack_when_lanczos_gives_up(monkeypatch):
    """Ten eigenvalues 0.001 apart over a flat bulk: Lanczos does not converge within
    its 0.2 m products, and LAPACK's answer is the one returned."""
    values = np.r_[np.linspace(2.0, 1.99, 10), np.linspace(1.989, 1.0, 590)]
    M = symmetric_with_spectrum(values, seed=3)
    converged = lanczos_spy(monkeypatch)
    monkeypatch.setattr("pcalib._linalg.constants.NUMPY_MAX_M", 100)
    w, _ = top_eigh(M.copy(), 8)
    assert converged == [False]
    np.testing.assert_allclose(w, np.sort(values)[::-1][:8], rtol=1e-12)


@pytest.mark.parametrize("offset", [0.0, 1e8])
def test_blocked_scatter_is_the_centered_cross_product(offset):
    """Both passes of the covariance route give X_c^T X_c and the mean when the first
    block's mean (about 3 off) is not the overall mean: the one pass (in X's units,
    repeated about the mean found where a column lost more than a bit) and the shifted
    pass in the frame of the extremes (its C and mean in the frame's units, X read as
    X * 2**-e with e a power of two)."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((10000, 8)) @ rng.standard_normal((8, 8))
    X[:5000] += 3.0
    X += offset
    blocks = row_blocks(*X.shape)
    assert len(blocks) > 1
    Xc = X - X.mean(axis=0)
    exact = Xc.T @ Xc
    C, center, scale, frame, _ = scatter_module.scatter_matrix(X, 1, False)
    assert int(frame.exponent) == 0 and frame.offset is None
    frame = Frame.of(X)
    e = int(frame.exponent)
    assert 0.5 <= np.ptp(np.ldexp(X, -e), axis=0).max() < 1
    in_frame, frame_center = scatter_module._shifted_scatter(X, frame, blocks)
    pairs = ((C, center.value), (np.ldexp(in_frame, 2 * e), np.ldexp(frame_center.value, e)))
    for found, found_mean in pairs:
        np.testing.assert_allclose(np.tril(found), np.tril(exact), rtol=1e-6 if offset else 1e-12,
                                   atol=1e-9 * np.abs(exact).max())
        np.testing.assert_allclose(found_mean, X.mean(axis=0), rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(scale, np.ones(8))


def test_pca_eig_route_with_lanczos_matches_numpy_svd(monkeypatch):
    """The eig route's covariance solved by top_eigh's Lanczos branch (orders above
    NUMPY_MAX_M, lowered to 100 so that order 300 takes it; a counter proves that
    Lanczos ran and converged), at an offset of 1e6 and standardized."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((1500, 300)) * np.r_[np.geomspace(1000, 500, 5), np.ones(295)] + 1e6
    monkeypatch.setattr("pcalib._linalg.constants.NUMPY_MAX_M", 100)
    converged = lanczos_spy(monkeypatch)
    pca = pcalib.PCA(5, solver="eig").fit(X)
    assert converged == [True]
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    signs = np.sign(np.sum(pca.components_ * Vt[:5], axis=1))
    np.testing.assert_allclose(pca.components_ * signs[:, None], Vt[:5], atol=1e-8)
    np.testing.assert_allclose(pca.singular_values_, s[:5], rtol=1e-10)
    # standardized, the columns' spreads are gone (about identity correlation)
    scores = pcalib.PCA(5, solver="eig", standardize=True).fit_transform(X)
    assert len(converged) == 2
    Z = Xc / Xc.std(axis=0, ddof=1)
    np.testing.assert_allclose(np.abs(scores), np.abs(Z @ np.linalg.svd(Z, full_matrices=False)[2][:5].T),
                               atol=1e-8 * np.abs(scores).max())


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("rows", [300, 600])  # NumPy's product, SciPy's dsyrk
def test_rows_gram_and_transposed_times_in_either_order(order, rows):
    Y = np.asarray(np.random.default_rng(4).standard_normal((rows, 900)), order=order)
    before = Y.copy()
    G = rows_gram(Y)
    reference = Y @ Y.T
    lower = np.tril_indices(rows)
    np.testing.assert_allclose(G[lower], reference[lower], rtol=1e-12, atol=1e-10)
    B = np.random.default_rng(5).standard_normal((rows, 4))
    np.testing.assert_allclose(transposed_times(Y, B), Y.T @ B, rtol=1e-12, atol=1e-11)
    np.testing.assert_array_equal(Y, before)  # not modified


def shuffled_diagonal(values, seed=0):
    """The product with a diagonal matrix of `values` in a seeded order, and that
    diagonal (the reference). Equal values are exact copies: rounding cannot turn the
    start vector within their eigenspace, so ARPACK finds one copy of each."""
    d = np.asarray(values)[np.random.default_rng(seed).permutation(len(values))]
    return (lambda Q: d[:, None] * Q), d


TWICE = 10.0 * 0.999 ** np.arange(500)  # every eigenvalue twice, 1e-3 apart


@pytest.mark.parametrize(
    "values, k",
    [
        (np.r_[TWICE, TWICE], 2),  # 10, 10 wanted; 10, 9.99 found first
        (np.r_[TWICE, TWICE], 3),
        (np.r_[10.0 * 0.9 ** np.arange(3), 1.003, 1.003, 0.999 ** np.arange(995)], 5),
    ],
)
def test_lanczos_finds_a_copy_missed_just_above_theta_k(values, k):
    """Review s14: the probe of lanczos_top_operator was ARPACK stopped at a relative
    residual of 3e-2, whose Ritz value, in a cluster 1e-3 to 3e-3 wide, stayed below
    theta_k: the missed copy was returned as theta_k (10, 9.99 for 10, 10 above; 1 for
    1.003 in the third case), 1e-3 to 3e-3 wrong, with no warning. The eigenvalues are
    the diagonal's, and the axes lie in the eigenspaces of the k largest."""
    times, d = shuffled_diagonal(values)
    w, V = lanczos_top_operator(times, d.size, k)
    expected = np.sort(d)[::-1][:k]
    np.testing.assert_allclose(w, expected, rtol=0, atol=1e-10 * expected[0])
    assert np.linalg.norm(V[d < expected[-1]]) <= 1e-8  # no weight off those coordinates


def test_a_capped_search_gives_up_when_its_probe_is_in_doubt():
    """With max_products (a formed matrix, which the caller then solves by LAPACK), a
    probe that finds a miss returns None at once, without the deflated ARPACK run that
    the uncapped search makes to find the copy: every eigenvalue twice, k = 2."""
    values = np.repeat(10.0 * 0.999 ** np.arange(500), 2)
    times, d = shuffled_diagonal(values)
    spent = []

    def counted(Q):
        spent.append(Q.shape[1])
        return times(Q)

    assert lanczos_top_operator(counted, d.size, 2, max_products=10_000) is None
    capped = sum(spent)
    spent.clear()
    w, _ = lanczos_top_operator(counted, d.size, 2)
    np.testing.assert_allclose(w, [10.0, 10.0], rtol=0, atol=1e-9)
    assert capped < sum(spent) and capped < 10_000

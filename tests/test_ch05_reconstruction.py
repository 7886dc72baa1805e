"""The results of the chapter "Minimum reconstruction error", checked against independent routes.

Notation as in the book: Q is a p x k matrix with orthonormal columns, P = Q Q^T its
projector, c an offset, V_k the first k principal axes v_1 ... v_k (eigenvectors of S),
U the left singular vectors of X_c.

References used here and never the code under test: numpy.linalg (qr, eigh, svd, lstsq,
matrix_rank) written out in the tests, scipy.optimize (a minimizer that knows nothing
of means, projectors or eigenvectors), scikit-learn's PCA (its inverse_transform gives
the reconstructions), and brute-force competitors (random and perturbed orthonormal
bases, random offsets).
"""

from itertools import combinations

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_strategies import seeded_data
from sklearn.decomposition import PCA as SklearnPCA

import pcalib

theorem = pytest.mark.theorem


@st.composite
def orthonormal_bases(draw, max_p=9):
    """(Q, rng): a p x k matrix with orthonormal columns, from numpy's QR of a Gaussian."""
    p = draw(st.integers(1, max_p))
    k = draw(st.integers(1, p))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return np.linalg.qr(rng.normal(size=(p, k)))[0], rng


def random_orthonormal(rng, p, k):
    return np.linalg.qr(rng.normal(size=(p, k)))[0]


@st.composite
def data_with_basis(draw, min_rows=2):
    """(X, Q, rng): seeded data, a random p x k orthonormal Q (1 <= k <= p), a generator."""
    X = draw(seeded_data(min_rows=min_rows))
    p = X.shape[1]
    k = draw(st.integers(1, p))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return X, random_orthonormal(rng, p, k), rng


def covariance_eigh(X):
    """Eigenpairs of np.cov(X), decreasing: (lambda_j, [v_1 ... v_p])."""
    p = X.shape[1]
    values, vectors = np.linalg.eigh(np.cov(X, rowvar=False).reshape(p, p))
    return values[::-1], vectors[:, ::-1]


def mean_squared_error(Xc, Q):
    """(1/n) ||X_c - X_c Q Q^T||_F^2 from the residual itself."""
    residual = Xc - (Xc @ Q) @ Q.T
    return np.sum(residual**2) / Xc.shape[0]


def squared_distances(X, c, M):
    """min_a ||x_i - c - M a||^2 for every row x_i, by numpy's least squares (no projector)."""
    B = (X - c).T
    coefficients = np.linalg.lstsq(M, B, rcond=None)[0]
    return np.sum((B - M @ coefficients) ** 2, axis=0)


# -- lem-recon-projector -------------------------------------------------------------------

@theorem("lem-recon-projector")
@given(orthonormal_bases())
def test_projector_is_symmetric_idempotent_of_rank_k(basis):
    Q, rng = basis
    p, k = Q.shape
    P = Q @ Q.T
    np.testing.assert_allclose(P, P.T, atol=1e-14)
    np.testing.assert_allclose(P @ P, P, atol=1e-13)
    assert np.linalg.matrix_rank(P) == k
    np.testing.assert_allclose(np.trace(P), k, rtol=1e-13)
    np.testing.assert_allclose(np.linalg.eigvalsh(P), [0.0] * (p - k) + [1.0] * k, atol=1e-13)
    np.testing.assert_allclose(P @ Q, Q, atol=1e-13)                 # range(P) contains range(Q)
    complement = np.eye(p) - P
    np.testing.assert_allclose(complement @ complement, complement, atol=1e-13)
    np.testing.assert_allclose(P @ complement, 0.0, atol=1e-13)
    v = rng.normal(size=p)
    np.testing.assert_allclose(v @ v, np.sum((P @ v) ** 2) + np.sum((complement @ v) ** 2),
                               rtol=1e-12)
    assert -1e-13 <= v @ P @ v <= v @ v * (1 + 1e-13)


@theorem("lem-recon-projector")
def test_projector_range_is_the_column_space_of_q():
    rng = np.random.default_rng(3)
    Q = random_orthonormal(rng, 6, 2)
    P = Q @ Q.T
    # the column spaces of P and Q agree: stacking them does not raise the rank
    assert np.linalg.matrix_rank(np.hstack([P, Q])) == 2
    # (I - P) v = 0 exactly for v in range(Q) ...
    np.testing.assert_allclose((np.eye(6) - P) @ (Q @ rng.normal(size=2)), 0.0, atol=1e-14)
    # ... and not for a vector with a component outside: (I - P) v is that component
    v = rng.normal(size=6)
    outside = v - Q @ np.linalg.lstsq(Q, v, rcond=None)[0]
    np.testing.assert_allclose((np.eye(6) - P) @ v, outside, atol=1e-14)
    assert np.linalg.norm(outside) > 0.1
    np.testing.assert_allclose(P @ outside, 0.0, atol=1e-14)


# -- thm-recon-best-offset -----------------------------------------------------------------

@theorem("thm-recon-best-offset")
@given(data_with_basis())
def test_distance_to_an_affine_subspace_and_the_offset_identity(drawn):
    X, Q, rng = drawn
    n, p = X.shape
    complement = np.eye(p) - Q @ Q.T
    xbar = X.mean(axis=0)
    spread2 = np.sum((X - xbar) ** 2) / n + 1e-300
    c = xbar + rng.normal(size=p) * np.sqrt(spread2)
    # part 1: least-squares distances and nearest points equal the projector formulas
    distances = squared_distances(X, c, Q)
    atol = 1e-9 * (spread2 + np.sum((xbar - c) ** 2))
    np.testing.assert_allclose(distances, np.sum(((X - c) @ complement) ** 2, axis=1),
                               rtol=1e-9, atol=atol)
    nearest = c + np.linalg.lstsq(Q, (X - c).T, rcond=None)[0].T @ Q.T
    np.testing.assert_allclose(nearest, c + (X - c) @ Q @ Q.T, rtol=0,
                               atol=1e-9 * (np.abs(X).max() + np.abs(c).max()))
    # part 2: the identity, with both sums from least squares
    at_mean = squared_distances(X, xbar, Q).sum()
    gap = complement @ (xbar - c)
    np.testing.assert_allclose(distances.sum(), at_mean + n * gap @ gap, rtol=1e-9,
                               atol=n * atol)


@theorem("thm-recon-best-offset")
@given(data_with_basis())
def test_best_offsets_are_exactly_the_mean_plus_the_subspace(drawn):
    X, Q, rng = drawn
    n, p = X.shape
    k = Q.shape[1]
    xbar = X.mean(axis=0)
    at_mean = squared_distances(X, xbar, Q).sum()
    scale = np.sum((X - xbar) ** 2) + 1e-300
    # every offset in xbar + range(Q) is as good as the mean ...
    for _ in range(5):
        c = xbar + Q @ rng.normal(size=k) * np.sqrt(scale / n)
        np.testing.assert_allclose(squared_distances(X, c, Q).sum(), at_mean, rtol=1e-9,
                                   atol=1e-9 * scale)
    # ... and any component outside range(Q) costs exactly n times its squared length
    if k < p:
        outside = random_orthonormal(rng, p, p)[:, 0]
        outside -= Q @ (Q.T @ outside)
        outside *= np.sqrt(scale / n) / np.linalg.norm(outside)
        worse = squared_distances(X, xbar + outside, Q).sum()
        np.testing.assert_allclose(worse - at_mean, n * outside @ outside, rtol=1e-7)
        assert worse > at_mean


@theorem("thm-recon-best-offset")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_blind_minimizer_finds_offsets_in_the_mean_plus_the_subspace(seed):
    rng = np.random.default_rng(seed)
    n, p, k = 25, 4, 2
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + rng.uniform(-50, 50, size=p)
    Q = random_orthonormal(rng, p, k)
    xbar = X.mean(axis=0)
    spread = np.sqrt(np.sum((X - xbar) ** 2) / n)
    at_mean = squared_distances(X, xbar, Q).sum()

    def objective(c):
        return squared_distances(X, c, Q).sum()

    start = xbar + rng.normal(scale=3 * spread, size=p)
    found = scipy.optimize.minimize(objective, start, method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(objective(found), at_mean, rtol=1e-10)
    off = found - xbar
    np.testing.assert_allclose(off - Q @ (Q.T @ off), 0.0, atol=1e-5 * spread)
    assert np.linalg.norm(off) > 0.1 * spread          # a minimizer other than the mean


# -- lem-recon-pythagoras --------------------------------------------------------------------

@theorem("lem-recon-pythagoras")
@given(data_with_basis(min_rows=3))
def test_pythagoras_for_the_data(drawn):
    X, Q, _ = drawn
    n, p = X.shape
    Xc = X - X.mean(axis=0)
    projected = Xc @ Q @ Q.T
    total = np.sum(Xc**2)
    np.testing.assert_allclose(np.sum(projected**2) + np.sum((Xc - projected) ** 2), total,
                               rtol=1e-10)
    S = np.cov(X, rowvar=False).reshape(p, p)
    np.testing.assert_allclose(np.sum(projected**2), (n - 1) * np.trace(Q.T @ S @ Q),
                               rtol=1e-9, atol=1e-12 * total)
    np.testing.assert_allclose(np.sum(projected**2), np.sum((Xc @ Q) ** 2), rtol=1e-10,
                               atol=1e-13 * total)


# -- lem-recon-ky-fan ------------------------------------------------------------------------

@st.composite
def symmetric_matrices(draw, max_p=8):
    p = draw(st.integers(1, max_p))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["indefinite", "psd", "repeated"]))
    B = rng.normal(size=(p, p))
    if kind == "indefinite":
        A = (B + B.T) / 2
    elif kind == "psd":
        A = B @ B.T
    else:                                        # repeated eigenvalues 2, 2, ..., -1, -1
        Z = np.linalg.qr(B)[0]
        A = (Z * np.where(np.arange(p) < (p + 1) // 2, 2.0, -1.0)) @ Z.T
    return (A + A.T) / 2, rng


def ky_fan_setup(A, k):
    """NumPy's eigenpairs of A, decreasing, and the bound lambda_1(A) + ... + lambda_k(A)."""
    values, vectors = np.linalg.eigh(A)
    values, vectors = values[::-1], vectors[:, ::-1]
    return values, vectors, values[:k].sum()


@theorem("lem-recon-ky-fan")
@given(symmetric_matrices(), st.data())
def test_ky_fan_bound_holds_and_is_attained(matrix, data):
    A, rng = matrix
    p = A.shape[0]
    k = data.draw(st.integers(1, p))
    values, vectors, bound = ky_fan_setup(A, k)
    scale = np.abs(values).max() + 1e-300
    # 50 random orthonormal p x k matrices Q at once, as a stack: the same draws and
    # the same Q as 50 calls of random_orthonormal, each checked as in a loop
    Q = np.linalg.qr(rng.normal(size=(50, p, k)))[0]
    traces = np.einsum("sik,ij,sjk->s", Q, A, Q)                 # tr(Q^T A Q) per Q
    assert np.all(traces <= bound + 1e-12 * scale * k)
    squares = (vectors.T @ Q) ** 2                             # (v_j^T q_l)^2 per Q
    h = squares.sum(axis=2)                                    # h_j = ||Q^T v_j||^2
    assert np.all(h >= -1e-13) and np.all(h <= 1 + 1e-13)
    np.testing.assert_allclose(h.sum(axis=1), k, rtol=1e-12)
    # the column sums of the matrix (v_j^T q_l)^2 are 1: doubly substochastic
    np.testing.assert_allclose(squares.sum(axis=1), 1.0, rtol=1e-12)
    V_k = vectors[:, :k]
    np.testing.assert_allclose(np.trace(V_k.T @ A @ V_k), bound, atol=1e-12 * scale * k)


@theorem("lem-recon-ky-fan")
@given(symmetric_matrices(), st.data())
def test_ky_fan_equality_only_on_the_top_eigenspace(matrix, data):
    # Quantitative form of the equality case (the exercise ex-recon-ky-fan-gap):
    # bound - tr(Q^T A Q) >= (lambda_k - lambda_{k+1}) / 2 * ||Q Q^T - V_k V_k^T||_F^2.
    A, rng = matrix
    p = A.shape[0]
    k = data.draw(st.integers(1, p))
    values, vectors, bound = ky_fan_setup(A, k)
    gap = values[k - 1] - values[k] if k < p else 0.0
    P_k = vectors[:, :k] @ vectors[:, :k].T
    scale = np.abs(values).max() + 1e-300
    for tau in (1.0, 1e-1, 1e-2):
        Q = np.linalg.qr(vectors[:, :k] + tau * rng.normal(size=(p, k)))[0]
        distance2 = np.sum((Q @ Q.T - P_k) ** 2)
        deficit = bound - np.trace(Q.T @ A @ Q)
        assert deficit >= gap / 2 * distance2 - 1e-11 * scale * p


@theorem("lem-recon-ky-fan")
def test_ky_fan_against_brute_force_over_coordinate_subspaces():
    # For a diagonal A the coordinate subspaces are candidates; the best of them is the top k.
    rng = np.random.default_rng(11)
    d = rng.normal(size=7)
    A = np.diag(d)
    for k in range(1, 8):
        best = max(sum(d[list(c)]) for c in combinations(range(7), k))
        np.testing.assert_allclose(best, np.sort(d)[::-1][:k].sum(), rtol=1e-14)
        for _ in range(20):
            Q = random_orthonormal(rng, 7, k)
            assert np.trace(Q.T @ A @ Q) <= best + 1e-12


# -- thm-recon-equivalence --------------------------------------------------------------------

@theorem("thm-recon-equivalence")
@given(data_with_basis(min_rows=3))
def test_error_identity_and_subspace_invariance(drawn):
    X, Q, rng = drawn
    n, p = X.shape
    k = Q.shape[1]
    Xc = X - X.mean(axis=0)
    S = np.cov(X, rowvar=False).reshape(p, p)
    error = mean_squared_error(Xc, Q)
    scale = np.trace(S)
    np.testing.assert_allclose(error, (n - 1) / n * (np.trace(S) - np.trace(Q.T @ S @ Q)),
                               rtol=1e-7, atol=1e-9 * scale)
    Z = random_orthonormal(rng, k, k)                          # rotate within the subspace
    np.testing.assert_allclose(mean_squared_error(Xc, Q @ Z), error, rtol=1e-9,
                               atol=1e-12 * scale)


@theorem("thm-recon-equivalence")
@given(seeded_data(min_rows=3), st.integers(0, 2**32 - 1), st.data())
def test_pca_basis_beats_every_competitor(X, seed, data):
    n, p = X.shape
    k = data.draw(st.integers(1, min(n, p)))
    rng = np.random.default_rng(seed)
    Xc = X - X.mean(axis=0)
    values, _ = covariance_eigh(X)
    V_k = pcalib.pca_svd(X, k=k).components.T
    best = mean_squared_error(Xc, V_k)
    scale = np.sum(Xc**2) / n
    np.testing.assert_allclose(best, (n - 1) / n * values[k:].sum(), rtol=1e-6,
                               atol=1e-9 * scale)
    for _ in range(30):
        assert mean_squared_error(Xc, random_orthonormal(rng, p, k)) >= best - 1e-9 * scale
        nearby = np.linalg.qr(V_k + 1e-2 * rng.normal(size=(p, k)))[0]
        assert mean_squared_error(Xc, nearby) >= best - 1e-9 * scale
    # the maximum of tr(Q^T S Q) is the sum of the top k eigenvalues, at the same Q
    S = np.cov(X, rowvar=False).reshape(p, p)
    np.testing.assert_allclose(np.trace(V_k.T @ S @ V_k), values[:k].sum(), rtol=1e-7)


@theorem("thm-recon-equivalence")
@given(seeded_data(min_rows=4))
def test_optimal_subspace_equals_sklearn_and_numpy_subspace(X):
    n, p = X.shape
    values, vectors = covariance_eigh(X)
    for k in range(1, min(n - 1, p)):
        if values[k - 1] - values[k] < 1e-2 * values[0]:
            continue                                             # part 3 needs a gap
        P_numpy = vectors[:, :k] @ vectors[:, :k].T
        V_k = pcalib.pca_eig(X, k=k).components.T
        np.testing.assert_allclose(V_k @ V_k.T, P_numpy, atol=1e-6)
        sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
        np.testing.assert_allclose(sk.components_.T @ sk.components_, P_numpy, atol=1e-6)


# -- cor-recon-pearson -----------------------------------------------------------------------

@theorem("cor-recon-pearson")
@given(data_with_basis(min_rows=3))
def test_no_affine_subspace_is_closer_than_the_mean_plus_the_axes(drawn):
    X, Q, rng = drawn                       # only the number of columns k of Q is used
    n, p = X.shape
    k = Q.shape[1]
    values, vectors = covariance_eigh(X)
    minimum = (n - 1) * values[k:].sum()
    xbar = X.mean(axis=0)
    scale = np.sum((X - xbar) ** 2) + 1e-300
    # the mean plus the first k eigenvectors of np.cov attains the bound (least squares)
    attained = squared_distances(X, xbar, vectors[:, :k]).sum()
    np.testing.assert_allclose(attained, minimum, rtol=1e-6, atol=1e-9 * scale)
    for _ in range(20):
        c = xbar + rng.normal(size=p) * np.sqrt(scale / n)
        M = rng.normal(size=(p, k))                         # any basis, not orthonormalized
        assert squared_distances(X, c, M).sum() >= minimum - 1e-9 * scale


@theorem("cor-recon-pearson")
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 2])
def test_a_blind_minimizer_over_offset_and_directions_finds_pearsons_subspace(seed, k):
    rng = np.random.default_rng(seed)
    n, p = 30, 3
    rotation = random_orthonormal(rng, p, p)
    X = rng.normal(size=(n, p)) * [3.0, 1.5, 0.5] @ rotation + rng.uniform(-20, 20, size=p)
    values, vectors = covariance_eigh(X)
    xbar = X.mean(axis=0)
    spread = np.sqrt(values.sum())

    def objective(params):
        return squared_distances(X, params[:p], params[p:].reshape(p, k)).sum()

    fits = [scipy.optimize.minimize(
        objective, np.concatenate([xbar + rng.normal(scale=spread, size=p),
                                   rng.normal(size=p * k)]),
        method="BFGS", options={"gtol": 1e-9}) for _ in range(3)]
    best = min(fits, key=lambda fit: fit.fun)
    c, M = best.x[:p], best.x[p:].reshape(p, k)
    P_M = M @ np.linalg.solve(M.T @ M, M.T)
    np.testing.assert_allclose(best.fun, (n - 1) * values[k:].sum(), rtol=1e-8)
    np.testing.assert_allclose(P_M, vectors[:, :k] @ vectors[:, :k].T, atol=1e-5)
    np.testing.assert_allclose((np.eye(p) - P_M) @ (c - xbar), 0.0, atol=1e-5 * spread)


# -- cor-recon-error-discarded --------------------------------------------------------------

@theorem("cor-recon-error-discarded")
@given(seeded_data(min_rows=2), st.data())
def test_reconstruction_error_is_the_scaled_sum_of_discarded_eigenvalues(X, data):
    n, p = X.shape
    k = data.draw(st.integers(0, min(n, p)))
    Xc = X - X.mean(axis=0)
    values, _ = covariance_eigh(X)
    sigma = np.linalg.svd(Xc, compute_uv=False)
    total = np.sum(Xc**2) / n
    library = pcalib.reconstruction_error(X, k)
    np.testing.assert_allclose(library, (n - 1) / n * values[k:].sum(), rtol=1e-6,
                               atol=1e-9 * total)
    np.testing.assert_allclose(library, np.sum(sigma[k:] ** 2) / n, rtol=1e-6,
                               atol=1e-9 * total)
    # the direct residual with numpy's own right singular vectors
    Vt = np.linalg.svd(Xc, full_matrices=False)[2]
    np.testing.assert_allclose(library, mean_squared_error(Xc, Vt[:k].T), rtol=1e-6,
                               atol=1e-9 * total)
    # relative to k = 0: 1 - cumulative ratio
    np.testing.assert_allclose(library / total, 1 - values[:k].sum() / values.sum(), atol=1e-8)
    # ddof only rescales the eigenvalues: with divisor n, the bare sum of numpy's eigenvalues
    biased = np.linalg.eigvalsh(np.cov(X, rowvar=False, ddof=0).reshape(p, p))[::-1]
    np.testing.assert_allclose(pcalib.reconstruction_error(X, k, ddof=0), biased[k:].sum(),
                               rtol=1e-6, atol=1e-9 * total)


@theorem("cor-recon-error-discarded")
@settings(max_examples=20)
@given(seeded_data(min_rows=3), st.data())
def test_reconstruction_error_matches_sklearn_inverse_transform(X, data):
    n, p = X.shape
    k = data.draw(st.integers(1, min(n, p)))
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    X_hat = sk.inverse_transform(sk.transform(X))
    sklearn_error = np.sum((X - X_hat) ** 2) / n
    total = np.sum((X - X.mean(axis=0)) ** 2) / n
    np.testing.assert_allclose(pcalib.reconstruction_error(X, k), sklearn_error, rtol=1e-6,
                               atol=1e-8 * total)
    # and pcalib's own estimator reconstructs the same points
    model = pcalib.PCA(n_components=k).fit(X)
    np.testing.assert_allclose(model.inverse_transform(model.transform(X)), X_hat,
                               atol=1e-7 * (np.abs(X).max() + 1))


@theorem("cor-recon-error-discarded")
def test_the_factor_is_exactly_n_minus_1_over_n_for_small_n():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [2.0, 1.0]])   # n = 4, eigenvalues 4/3, 1/3
    n = X.shape[0]
    values = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    np.testing.assert_allclose(values, [4 / 3, 1 / 3], rtol=1e-14)
    error = pcalib.reconstruction_error(X, 1)
    np.testing.assert_allclose(error, 3 / 4 * 1 / 3, rtol=1e-14)      # by hand: 1/4
    # the bare sum of the discarded eigenvalues is exactly n / (n - 1) times the error
    np.testing.assert_allclose(values[1:].sum() / error, n / (n - 1), rtol=1e-14)

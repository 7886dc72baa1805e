"""Tests of the results of the appendix "Linear algebra facts".

Each labelled result is checked on random matrices (hypothesis over shapes and seeds)
with routes independent of the proof: SciPy's and NumPy's general (non-symmetric)
eigensolvers, LAPACK's SVD, random competitors, and pcalib where the fact is what
pcalib relies on.
"""

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st

import pcalib

theorem = pytest.mark.theorem

seeds = st.integers(0, 2**32 - 1)
sizes = st.integers(1, 12)          # d: the size of a symmetric d x d matrix


def symmetric(d, seed, spread=1.0):
    """A random symmetric d x d matrix."""
    F = np.random.default_rng(seed).normal(scale=spread, size=(d, d))
    return (F + F.T) / 2


def symmetric_with_spectrum(eigenvalues, seed):
    """Q diag(eigenvalues) Q^T with a random orthogonal Q (Haar, by QR with sign fix)."""
    d = len(eigenvalues)
    Z = np.random.default_rng(seed).normal(size=(d, d))
    Q, R = np.linalg.qr(Z)
    Q = Q * np.where(np.diag(R) < 0, -1.0, 1.0)
    A = (Q * np.asarray(eigenvalues, dtype=float)) @ Q.T
    return (A + A.T) / 2, Q


@theorem("lem-la-real-eigenvalues")
@given(sizes, seeds)
def test_symmetric_matrices_have_real_eigenvalues_and_real_eigenvectors(d, seed):
    A = symmetric(d, seed)
    general = scipy.linalg.eigvals(A)                      # complex-capable general solver
    scale = max(1.0, np.abs(A).max()) * d
    assert np.abs(general.imag).max() <= 1e-10 * scale
    lam = np.linalg.eigvalsh(A)
    np.testing.assert_allclose(np.sort(general.real), lam, atol=1e-10 * scale)
    # a real eigenvector: the last right singular vector of A - lam I
    for value in lam:
        v = np.linalg.svd(A - value * np.eye(d))[2][-1]
        assert np.isrealobj(v) and np.isclose(np.linalg.norm(v), 1.0)
        np.testing.assert_allclose(A @ v, value * v, atol=1e-9 * scale)


def test_a_rotation_has_complex_eigenvalues():
    # Guards the test above: the general solver does report complex eigenvalues.
    eigenvalues = scipy.linalg.eigvals([[0.0, -1.0], [1.0, 0.0]])
    np.testing.assert_allclose(np.sort(eigenvalues.imag), [-1.0, 1.0], atol=1e-15)


@theorem("lem-la-orthogonal-eigenvectors")
@given(st.integers(2, 10), seeds)
def test_eigenvectors_of_distinct_eigenvalues_are_orthogonal(d, seed):
    # Spectrum spaced by at least 1, so every eigenvalue is simple and well separated.
    rng = np.random.default_rng(seed)
    spectrum = np.cumsum(1.0 + rng.random(d)) - d
    A, _ = symmetric_with_spectrum(spectrum, seed)
    # scipy.linalg.eig (LAPACK geev) normalizes but never orthogonalizes its eigenvectors.
    _, V = scipy.linalg.eig(A)
    V = V.real
    np.testing.assert_allclose(V.T @ V, np.eye(d), atol=1e-9)


def test_eigenvectors_of_a_nonsymmetric_matrix_need_not_be_orthogonal():
    _, V = scipy.linalg.eig([[1.0, 1.0], [0.0, 2.0]])
    assert abs(V[:, 0].real @ V[:, 1].real) > 0.5


@theorem("thm-la-spectral")
@given(sizes, seeds)
def test_spectral_decomposition_of_random_symmetric_matrices(d, seed):
    A = symmetric(d, seed)
    lam, V = scipy.linalg.eigh(A)
    lam, V = lam[::-1], V[:, ::-1]
    np.testing.assert_allclose(V.T @ V, np.eye(d), atol=1e-12)
    np.testing.assert_allclose(V.T @ A @ V, np.diag(lam), atol=1e-11 * d)
    np.testing.assert_allclose((V * lam) @ V.T, A, atol=1e-11 * d)
    # the eigenvalues are the roots of the characteristic polynomial, with multiplicity
    np.testing.assert_allclose(np.sort(np.linalg.eigvals(A).real)[::-1], lam, atol=1e-9 * d)


@theorem("thm-la-spectral")
def test_spectral_decomposition_with_a_repeated_eigenvalue():
    A, _ = symmetric_with_spectrum([5.0, 2.0, 2.0, 2.0, -1.0], seed=3)
    lam, V = np.linalg.eigh(A)
    np.testing.assert_allclose(lam, [-1.0, 2.0, 2.0, 2.0, 5.0], atol=1e-12)
    np.testing.assert_allclose(V.T @ V, np.eye(5), atol=1e-12)
    np.testing.assert_allclose((V * lam) @ V.T, A, atol=1e-12)


@theorem("thm-la-spectral")
@settings(max_examples=25)
@given(st.integers(2, 40), st.integers(1, 8), seeds)
def test_pca_eig_diagonalizes_the_covariance(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + rng.normal(scale=10, size=p)
    S = np.cov(X, rowvar=False).reshape(p, p)                 # independent covariance
    result = pcalib.pca_eig(X)
    k = result.components.shape[0]
    V, lam = result.components.T, result.explained_variance
    tol = 1e-10 * max(np.trace(S), 1e-300)
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(V.T @ S @ V, np.diag(lam), atol=tol)
    np.testing.assert_allclose(lam, scipy.linalg.eigvalsh(S)[::-1][:k], atol=tol)


@theorem("thm-la-rayleigh")
@given(sizes, seeds)
def test_rayleigh_quotient_lies_between_extreme_eigenvalues(d, seed):
    A = symmetric(d, seed)
    lam, V = np.linalg.eigh(A)                                 # ascending
    x = np.random.default_rng(seed + 1).normal(size=(500, d))
    quotients = np.einsum("ij,jk,ik->i", x, A, x) / np.einsum("ij,ij->i", x, x)
    tol = 1e-12 * max(1.0, np.abs(lam).max()) * d
    assert quotients.min() >= lam[0] - tol and quotients.max() <= lam[-1] + tol
    # the extremes are attained at the extreme eigenvectors, and scaling does not matter
    for j in (0, -1):
        v = V[:, j] * 3.7
        np.testing.assert_allclose(v @ A @ v / (v @ v), lam[j], atol=tol)


@theorem("thm-la-rayleigh")
def test_first_principal_axis_maximizes_projected_variance_against_scipy_optimizer():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 4)) @ rng.normal(size=(4, 4))
    S = np.cov(X, rowvar=False)

    def negative_quotient(x):
        return -(x @ S @ x) / (x @ x)

    best = scipy.optimize.minimize(negative_quotient, np.ones(4), method="BFGS", options={"gtol": 1e-10})
    lam1 = pcalib.pca_svd(X, k=1).explained_variance[0]
    np.testing.assert_allclose(-best.fun, lam1, rtol=1e-8)


@theorem("thm-la-courant-fischer")
@settings(max_examples=30)
@given(st.integers(2, 8), st.data())
def test_courant_fischer_max_min_and_min_max(d, data):
    seed = data.draw(seeds)
    k = data.draw(st.integers(1, d))
    A = symmetric(d, seed)
    lam, V = np.linalg.eigh(A)
    lam, V = lam[::-1], V[:, ::-1]
    rng = np.random.default_rng(seed + 7)
    tol = 1e-11 * max(1.0, np.abs(lam).max()) * d
    for _ in range(100):
        Q, _ = np.linalg.qr(rng.normal(size=(d, k)))            # random k-dim subspace
        assert np.linalg.eigvalsh(Q.T @ A @ Q)[0] <= lam[k - 1] + tol
        Q, _ = np.linalg.qr(rng.normal(size=(d, d - k + 1)))    # random (d-k+1)-dim subspace
        assert np.linalg.eigvalsh(Q.T @ A @ Q)[-1] >= lam[k - 1] - tol
    # attained by the spans of the leading and the trailing eigenvectors
    top, bottom = V[:, :k], V[:, k - 1:]
    np.testing.assert_allclose(np.linalg.eigvalsh(top.T @ A @ top)[0], lam[k - 1], atol=tol)
    np.testing.assert_allclose(np.linalg.eigvalsh(bottom.T @ A @ bottom)[-1], lam[k - 1], atol=tol)


@theorem("thm-la-courant-fischer")
@given(st.integers(2, 10), seeds)
def test_cauchy_interlacing_consequence(d, seed):
    # Deleting the last row and column interlaces the eigenvalues (a corollary of min-max).
    A = symmetric(d, seed)
    a = np.linalg.eigvalsh(A)[::-1]
    b = np.linalg.eigvalsh(A[:-1, :-1])[::-1]
    tol = 1e-12 * max(1.0, np.abs(a).max()) * d
    assert np.all(a[:-1] >= b - tol) and np.all(b >= a[1:] - tol)


@theorem("prop-la-trace-eigenvalues")
@given(sizes, st.integers(1, 12), seeds)
def test_trace_is_cyclic_and_equals_the_sum_of_eigenvalues(d, h, seed):
    rng = np.random.default_rng(seed)
    F, K = rng.normal(size=(d, h)), rng.normal(size=(h, d))
    np.testing.assert_allclose(np.trace(F @ K), np.trace(K @ F), atol=1e-12 * d * h)
    A = symmetric(d, seed)
    np.testing.assert_allclose(np.trace(A), np.linalg.eigvalsh(A).sum(), atol=1e-12 * d * max(1.0, np.abs(A).max()))


@theorem("prop-la-trace-eigenvalues")
@given(st.integers(2, 30), st.integers(1, 8), seeds)
def test_total_variance_is_the_sum_of_the_covariance_eigenvalues(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.1, 10, size=p) + 1e3
    S = np.cov(X, rowvar=False).reshape(p, p)
    expected = np.linalg.eigvalsh(S).sum()
    np.testing.assert_allclose(pcalib.total_variance(X), expected, rtol=1e-8)


@theorem("prop-la-orthogonal-projector")
@given(st.integers(1, 10), st.data())
def test_projector_onto_orthonormal_columns(d, data):
    k = data.draw(st.integers(1, d))
    seed = data.draw(seeds)
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(d, k)))
    P = Q @ Q.T
    np.testing.assert_allclose(P, P.T, atol=1e-14)
    np.testing.assert_allclose(P @ P, P, atol=1e-12)
    np.testing.assert_allclose(np.trace(P), k, atol=1e-12)
    assert np.linalg.matrix_rank(P) == k
    np.testing.assert_allclose(P @ Q, Q, atol=1e-12)            # range(Q) is inside range(P)
    complement = np.eye(d) - P
    np.testing.assert_allclose(complement @ complement, complement, atol=1e-12)
    np.testing.assert_allclose(Q.T @ complement, 0, atol=1e-12)
    x = rng.normal(size=d)
    np.testing.assert_allclose((P @ x) @ (x - P @ x), 0, atol=1e-12)
    np.testing.assert_allclose(x @ x, (P @ x) @ (P @ x) + (x - P @ x) @ (x - P @ x), rtol=1e-12)
    # closest point of range(Q): least squares by LAPACK gives the same point
    c = np.linalg.lstsq(Q, x, rcond=None)[0]
    np.testing.assert_allclose(Q @ c, P @ x, atol=1e-12)
    competitors = rng.normal(size=(200, k)) @ Q.T
    assert np.linalg.norm(x - competitors, axis=1).min() >= np.linalg.norm(x - P @ x) - 1e-12


@theorem("prop-la-orthogonal-projector")
def test_pca_projector_and_centering_matrix_are_orthogonal_projectors():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 6)) @ rng.normal(size=(6, 6))
    Q = pcalib.pca_eig(X, k=3).components.T
    P = Q @ Q.T
    np.testing.assert_allclose(P @ P, P, atol=1e-12)
    np.testing.assert_allclose(np.trace(P), 3, atol=1e-12)
    H = pcalib.centering_matrix(7)
    np.testing.assert_allclose(H @ H, H, atol=1e-14)
    np.testing.assert_allclose(np.trace(H), 6, atol=1e-12)


def _svd_by_the_proof(A):
    """The constructive proof of thm-la-svd, written out (for n >= p).

    Forming A^T A squares the condition number, so this is accurate only for
    well-conditioned non-zero singular values, which is what the test builds.
    """
    squares, V = np.linalg.eigh(A.T @ A)                 # sigma_i^2
    squares, V = np.maximum(squares[::-1], 0.0), V[:, ::-1]
    positive = squares > 1e-8 * max(squares[0], 1e-300)
    sigma = np.where(positive, np.sqrt(squares), 0.0)
    U = A @ V[:, positive] / sigma[positive]
    # complete to p orthonormal columns: project random vectors off U, then QR
    extra = np.random.default_rng(0).normal(size=(A.shape[0], A.shape[1] - U.shape[1]))
    extra -= U @ (U.T @ extra)
    Q, _ = np.linalg.qr(extra)
    return np.hstack([U, Q]), sigma, V


def _orthonormal_columns(rng, rows, cols):
    Q, R = np.linalg.qr(rng.normal(size=(rows, cols)))
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


@theorem("thm-la-svd")
@given(st.integers(1, 10), st.integers(1, 10), st.integers(0, 10), seeds)
def test_svd_exists_and_matches_lapack(n, p, rank, seed):
    # A with known singular values: `rank` of them in [1, 10], the others exactly 0.
    rng = np.random.default_rng(seed)
    m = min(n, p)
    rank = min(rank, m)
    known = np.zeros(m)
    known[:rank] = np.sort(rng.uniform(1.0, 10.0, size=rank))[::-1]
    A = (_orthonormal_columns(rng, n, m) * known) @ _orthonormal_columns(rng, p, m).T
    tall = A if n >= p else A.T
    U, s, V = _svd_by_the_proof(tall)
    np.testing.assert_allclose(U.T @ U, np.eye(m), atol=1e-10)
    np.testing.assert_allclose(V.T @ V, np.eye(m), atol=1e-12)
    np.testing.assert_allclose((U * s) @ V.T, tall, atol=1e-10)
    np.testing.assert_allclose(s, known, atol=1e-10)
    np.testing.assert_allclose(np.linalg.svd(A, compute_uv=False), known, atol=1e-12)
    if rank > 0:
        Uk, sk, Vtk = pcalib.truncated_svd(A, m)
        np.testing.assert_allclose(sk, known, atol=1e-12)
        np.testing.assert_allclose((Uk * sk) @ Vtk, A, atol=1e-12)
        np.testing.assert_allclose(A @ Vtk[:rank].T, Uk[:, :rank] * sk[:rank], atol=1e-12)


@theorem("prop-la-svd-gram")
@given(st.integers(1, 10), st.integers(1, 10), seeds)
def test_svd_diagonalizes_both_gram_matrices(n, p, seed):
    A = np.random.default_rng(seed).normal(size=(n, p))
    m = min(n, p)
    U, s, Vt = pcalib.truncated_svd(A, m)
    tol = 1e-10 * max(1.0, s[0] ** 2)
    right = np.linalg.eigvalsh(A.T @ A)[::-1]
    left = np.linalg.eigvalsh(A @ A.T)[::-1]
    np.testing.assert_allclose(right[:m], s**2, atol=tol)
    np.testing.assert_allclose(right[m:], 0, atol=tol)
    np.testing.assert_allclose(left[:m], s**2, atol=tol)
    np.testing.assert_allclose(left[m:], 0, atol=tol)
    np.testing.assert_allclose(A.T @ A, (Vt.T * s**2) @ Vt, atol=tol)
    np.testing.assert_allclose(A @ A.T, (U * s**2) @ U.T, atol=tol)
    np.testing.assert_allclose(A.T @ U, Vt.T * s, atol=1e-12 * max(1.0, s[0]))


@theorem("prop-la-svd-gram")
@settings(max_examples=25)
@given(st.integers(2, 30), st.integers(1, 8), seeds)
def test_pca_eigenvalues_are_squared_singular_values_over_n_minus_one(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + 50.0
    Xc = X - X.mean(axis=0)
    s = np.linalg.svd(Xc, compute_uv=False)[: min(n, p)]
    S = np.cov(X, rowvar=False).reshape(p, p)
    lam = np.linalg.eigvalsh(S)[::-1][: min(n, p)]
    tol = 1e-9 * max(lam[0], 1e-300)
    np.testing.assert_allclose(s**2 / (n - 1), lam, atol=tol)
    if s[0] > 1e-6:
        result = pcalib.pca_svd(X)
        np.testing.assert_allclose(result.explained_variance, lam, atol=tol)
        # scores = U Sigma = Xc V
        np.testing.assert_allclose(result.scores, Xc @ result.components.T, atol=1e-9 * max(1.0, s[0]))

"""Tests of the results of the chapter "The Eckart-Young theorem" (book/06_eckart_young.md).

Every result is checked against routes independent of the code under test: NumPy's and
SciPy's SVD and symmetric eigensolvers written out here, scikit-learn's PCA and
TruncatedSVD, and an alternating least-squares optimizer over rank-k factorizations.
"""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.decomposition import TruncatedSVD

import pcalib

theorem = pytest.mark.theorem


@st.composite
def matrices(draw, min_dim=1, max_dim=9):
    """Seeded real matrices of random shape, rank and scale (rank deficient included)."""
    m = draw(st.integers(min_dim, max_dim))
    n = draw(st.integers(min_dim, max_dim))
    rank = draw(st.integers(1, min(m, n)))
    scale = 10.0 ** draw(st.integers(-3, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return scale * rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))


@st.composite
def matrices_and_k(draw, max_dim=9):
    """A matrix with min(m, n) >= 2 and a rank 1 <= k < min(m, n)."""
    A = draw(matrices(min_dim=2, max_dim=max_dim))
    k = draw(st.integers(1, min(A.shape) - 1))
    return A, k


def orthogonal(size, rng):
    Q, R = np.linalg.qr(rng.standard_normal((size, size)))
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


def with_singular_values(m, n, sigma, rng):
    """An m x n matrix with prescribed singular values (len(sigma) = min(m, n))."""
    q = min(m, n)
    return (orthogonal(m, rng)[:, :q] * sigma) @ orthogonal(n, rng)[:, :q].T


def rank_k_competitors(A, k, rng, count=20):
    """Rank <= k matrices of three kinds: random factors with a least-squares right factor,
    perturbations of the truncated SVD, and other subsets of k singular triplets."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    m, n = A.shape
    out = []
    for _ in range(count):
        L = rng.standard_normal((m, k))
        out.append(L @ np.linalg.lstsq(L, A, rcond=None)[0])
        delta = 10.0 ** rng.uniform(-6, 0)
        out.append(((U[:, :k] + delta * rng.standard_normal((m, k))) * s[:k])
                   @ (Vt[:k] + delta * rng.standard_normal((k, n))))
        chosen = rng.choice(s.size, size=k, replace=False)
        out.append((U[:, chosen] * s[chosen]) @ Vt[chosen])
    return out


# -- the SVD ------------------------------------------------------------------------

@theorem("thm-ey-svd-existence")
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_svd_exists_with_orthogonal_factors_and_counts_the_rank(m, n, rank, seed):
    q = min(m, n)
    rank = min(rank, q)
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))
    U, s, Vt = np.linalg.svd(A)                                   # full form
    Sigma = np.zeros((m, n))
    Sigma[:q, :q] = np.diag(s)
    tol = 1e-12 * max(s[0], 1e-300) * max(m, n)
    np.testing.assert_allclose(U @ Sigma @ Vt, A, atol=tol)
    np.testing.assert_allclose(U.T @ U, np.eye(m), atol=1e-12)
    np.testing.assert_allclose(Vt @ Vt.T, np.eye(n), atol=1e-12)
    assert np.all(np.diff(s) <= 0) and np.all(s >= 0)
    # sigma_i^2 are the q largest eigenvalues of A^T A (SciPy's eigensolver)
    mu = scipy.linalg.eigvalsh(A.T @ A)[::-1][:q]
    np.testing.assert_allclose(mu, s**2, atol=1e-11 * s[0] ** 2 * max(m, n))
    # the rank is the number of non-zero singular values (tolerance as numpy.matrix_rank)
    assert np.sum(s > 1e-10 * s[0]) == rank
    # pcalib's thin form is an SVD with the same singular values
    U_p, s_p, Vt_p = pcalib.truncated_svd(A, q)
    np.testing.assert_allclose(s_p, s, atol=tol)
    np.testing.assert_allclose((U_p * s_p) @ Vt_p, A, atol=tol)
    np.testing.assert_allclose(U_p.T @ U_p, np.eye(q), atol=1e-10)


@theorem("thm-ey-svd-existence")
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_the_constructive_proof_builds_an_svd(m, n, seed):
    # The proof's construction: eigenvectors v_i of A^T A, u_i = A v_i / sigma_i, completed.
    rng = np.random.default_rng(seed)
    q = min(m, n)
    r = int(rng.integers(1, q + 1))
    sigma = np.concatenate([np.sort(rng.uniform(1.0, 10.0, size=r))[::-1], np.zeros(q - r)])
    A = with_singular_values(m, n, sigma, rng)
    mu, V = np.linalg.eigh(A.T @ A)
    mu, V = mu[::-1], V[:, ::-1]
    s = np.sqrt(np.maximum(mu[:q], 0))
    U_r = A @ V[:, :r] / s[:r]
    Q, _ = np.linalg.qr(np.hstack([U_r, rng.standard_normal((m, m - r))]))   # completion
    U = np.hstack([U_r, Q[:, r:]])
    Sigma = np.zeros((m, n))
    Sigma[:q, :q] = np.diag(np.where(np.arange(q) < r, s, 0.0))
    np.testing.assert_allclose(U.T @ U, np.eye(m), atol=1e-10)
    np.testing.assert_allclose(U @ Sigma @ V.T, A, atol=1e-10 * sigma[0])
    np.testing.assert_allclose(s[:r], sigma[:r], rtol=1e-10)


# -- norms and truncation -------------------------------------------------------------

@theorem("lem-ey-orthogonal-invariance")
@given(matrices(), st.integers(0, 2**32 - 1))
def test_norms_are_orthogonally_invariant_and_given_by_singular_values(A, seed):
    rng = np.random.default_rng(seed)
    Q, Z = orthogonal(A.shape[0], rng), orthogonal(A.shape[1], rng)
    s = np.linalg.svd(A, compute_uv=False)
    spectral = np.sqrt(scipy.linalg.eigvalsh(A.T @ A)[-1])       # not through an SVD
    np.testing.assert_allclose(np.linalg.norm(Q @ A @ Z, 2), np.linalg.norm(A, 2), rtol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(Q @ A @ Z, "fro"), np.sqrt(np.sum(A**2)), rtol=1e-10)
    np.testing.assert_allclose(spectral, s[0], rtol=1e-7)
    np.testing.assert_allclose(np.sum(A**2), np.sum(s**2), rtol=1e-10)


@theorem("lem-ey-truncation-error")
@given(matrices_and_k())
def test_truncation_error_is_the_tail_of_the_spectrum(data):
    A, k = data
    s = np.linalg.svd(A, compute_uv=False)
    E = A - pcalib.low_rank_approx(A, k)
    tol = 1e-11 * s[0] * max(A.shape)
    np.testing.assert_allclose(np.linalg.norm(E, 2), s[k], atol=tol)
    np.testing.assert_allclose(np.linalg.norm(E, "fro"), np.sqrt(np.sum(s[k:] ** 2)), atol=tol)


# -- Eckart-Young -------------------------------------------------------------------

@theorem("thm-eckart-young-operator")
@theorem("thm-eckart-young")
@given(matrices_and_k(), st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_no_rank_k_competitor_beats_the_truncated_svd(data, seed):
    A, k = data
    s = np.linalg.svd(A, compute_uv=False)
    bound_2, bound_F = s[k], np.sqrt(np.sum(s[k:] ** 2))
    slack = 1e-10 * s[0] * max(A.shape)
    Ak = pcalib.low_rank_approx(A, k)
    assert np.linalg.norm(A - Ak, 2) <= bound_2 + slack
    assert np.linalg.norm(A - Ak, "fro") <= bound_F + slack
    for B in rank_k_competitors(A, k, np.random.default_rng(seed)):
        assert np.linalg.norm(A - B, 2) >= bound_2 - slack
        assert np.linalg.norm(A - B, "fro") >= bound_F - slack


@theorem("thm-eckart-young")
@given(st.integers(3, 10), st.integers(3, 10), st.integers(0, 2**32 - 1))
@settings(max_examples=20)
def test_alternating_least_squares_reaches_but_never_passes_the_bound(m, n, seed):
    # An independent optimizer of ||A - L R^T||_F over all rank-k factorizations.
    rng = np.random.default_rng(seed)
    q = min(m, n)
    k = int(rng.integers(1, q))
    sigma = 10 * 0.5 ** np.arange(q)                              # clear gaps
    A = with_singular_values(m, n, sigma, rng)
    bound = np.sqrt(np.sum(sigma[k:] ** 2))
    L = rng.standard_normal((m, k))
    history = []
    for _ in range(200):
        R = np.linalg.lstsq(L, A, rcond=None)[0].T               # n x k
        L = np.linalg.lstsq(R, A.T, rcond=None)[0].T             # m x k
        history.append(np.linalg.norm(A - L @ R.T, "fro"))
    assert min(history) >= bound * (1 - 1e-12)
    np.testing.assert_allclose(history[-1], bound, rtol=1e-8)
    np.testing.assert_allclose(L @ R.T, pcalib.low_rank_approx(A, k), atol=1e-6 * sigma[0])


@theorem("thm-eckart-young-operator")
@theorem("thm-eckart-young")
def test_scikit_learn_truncated_svd_gives_the_same_optimum():
    rng = np.random.default_rng(0)
    A = with_singular_values(40, 25, 0.8 ** np.arange(25), rng)
    for k in (1, 3, 7):
        tsvd = TruncatedSVD(n_components=k, algorithm="arpack", random_state=0)
        B = tsvd.fit_transform(A) @ tsvd.components_
        np.testing.assert_allclose(B, pcalib.low_rank_approx(A, k), atol=1e-10)


@theorem("thm-eckart-young-operator")
def test_operator_norm_minimizer_is_not_unique():
    A = np.diag([3.0, 1.0])
    for t in np.linspace(-1, 1, 9):
        B = np.diag([3.0 + t, 0.0])
        np.testing.assert_allclose(np.linalg.norm(A - B, 2), 1.0, rtol=1e-14)
        assert np.linalg.norm(A - B, "fro") >= np.linalg.norm(A - pcalib.low_rank_approx(A, 1), "fro")


@theorem("lem-ey-weyl")
@given(matrices(), st.integers(0, 2**32 - 1), st.integers(-3, 3))
def test_weyl_inequality_for_singular_values(C, seed, log_scale):
    rng = np.random.default_rng(seed)
    D = 10.0**log_scale * rng.standard_normal(C.shape)
    sC, sD, sCD = (np.linalg.svd(M, compute_uv=False) for M in (C, D, C + D))
    q = sC.size
    slack = 1e-12 * (sC[0] + sD[0]) * max(C.shape)
    for i in range(1, q + 1):
        for j in range(1, q + 2 - i):
            assert sCD[i + j - 2] <= sC[i - 1] + sD[j - 1] + slack


@theorem("thm-eckart-young")
@given(matrices_and_k(), st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_singular_values_of_any_residual_dominate_the_shifted_spectrum(data, seed):
    # sigma_i(A - B) >= sigma_{i+k}(A) for every B of rank <= k: the core of the proof.
    A, k = data
    s = np.linalg.svd(A, compute_uv=False)
    q = s.size
    for B in rank_k_competitors(A, k, np.random.default_rng(seed), count=5):
        sR = np.linalg.svd(A - B, compute_uv=False)
        assert np.all(sR[: q - k] >= s[k:] - 1e-10 * s[0] * max(A.shape))


@theorem("thm-ey-mirsky")
@given(matrices_and_k(), st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_mirsky_nuclear_schatten_and_ky_fan_norms(data, seed):
    A, k = data
    s = np.linalg.svd(A, compute_uv=False)
    tail = s[k:]
    norms = {
        "nuclear": lambda sv: np.sum(sv),
        "schatten3": lambda sv: np.sum(sv**3) ** (1 / 3),
        "kyfan2": lambda sv: np.sum(sv[:2]),
    }
    slack = 1e-10 * s[0] * max(A.shape)
    best = {name: f(np.linalg.svd(A - pcalib.low_rank_approx(A, k), compute_uv=False)) for name, f in norms.items()}
    for name, f in norms.items():
        np.testing.assert_allclose(best[name], f(tail), atol=slack)
    for B in rank_k_competitors(A, k, np.random.default_rng(seed), count=5):
        sR = np.linalg.svd(A - B, compute_uv=False)
        for name, f in norms.items():
            assert f(sR) >= best[name] - slack


# -- back to PCA --------------------------------------------------------------------

@st.composite
def data_and_k(draw):
    n = draw(st.integers(3, 15))
    p = draw(st.integers(2, 7))
    k = draw(st.integers(1, min(n, p) - 1))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    offset = 10.0 ** draw(st.integers(0, 4))
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) + offset * rng.standard_normal(p)
    return X, k


@theorem("cor-ey-pca-reconstruction")
@given(data_and_k())
def test_pca_reconstruction_is_the_best_rank_k_approximation_of_centered_data(data):
    X, k = data
    n = X.shape[0]
    Xc = X - X.mean(axis=0)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    Xc_k = pcalib.low_rank_approx(Xc, k)
    scale = np.abs(Xc).max()
    np.testing.assert_allclose(np.sum((Xc - Xc_k) ** 2), (n - 1) * np.sum(lam[k:]),
                               atol=1e-9 * (n - 1) * lam[0] * X.shape[1])
    # scikit-learn's PCA reconstruction, where the k-th gap makes it unique
    gap = (lam[k - 1] - lam[k]) / lam[0]
    if gap > 1e-6:
        sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
        reconstruction = sk.inverse_transform(sk.transform(X)) - sk.mean_
        np.testing.assert_allclose(reconstruction, Xc_k, atol=1e-8 * scale / gap)


@theorem("prop-ey-centered-best-affine")
@given(data_and_k(), st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_the_mean_plus_pca_is_the_best_shift_plus_rank_k(data, seed):
    X, k = data
    rng = np.random.default_rng(seed)
    n, p = X.shape
    mean = X.mean(axis=0)
    Xc = X - mean
    s = np.linalg.svd(Xc, compute_uv=False)
    best_2, best_F = s[k], np.sqrt(np.sum(s[k:] ** 2))
    # the optimum is attained by scikit-learn's PCA reconstruction (mean included)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    residual = X - sk.inverse_transform(sk.transform(X))
    np.testing.assert_allclose(np.linalg.norm(residual, "fro"), best_F, atol=1e-9 * s[0] * n)
    slack = 1e-10 * np.abs(X).max() * n
    U, sX, Vt = np.linalg.svd(X, full_matrices=False)
    candidates = [(np.zeros(p), (U[:, :k] * sX[:k]) @ Vt[:k])]        # uncentered truncated SVD
    for _ in range(10):
        mu = mean + rng.standard_normal(p) * rng.uniform(0, 1) * s[0] / np.sqrt(n)
        L = rng.standard_normal((n, k))
        B = L @ np.linalg.lstsq(L, X - mu, rcond=None)[0]            # best B for that column space
        candidates.append((mu, B))
    for mu, B in candidates:
        M = X - mu - B
        assert np.linalg.norm(M, 2) >= best_2 - slack
        assert np.linalg.norm(M, "fro") >= best_F - slack

"""Tests of the results of the chapter "The Eckart-Young theorem" (book/06_eckart_young.md).

Every result is checked against routes independent of the code under test: NumPy's and
SciPy's SVD and symmetric eigensolvers written out here, scikit-learn's PCA and
TruncatedSVD, and an alternating least-squares optimizer over rank-k factorizations.

Notation of the book: a generic matrix A is n x p, m = min(n, p), r = rank A, and
A = U Sigma V^T is its SVD with singular values sigma_1 >= ... >= sigma_m.
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
    """Seeded real n x p matrices of random shape, rank and scale (rank deficient included)."""
    n = draw(st.integers(min_dim, max_dim))
    p = draw(st.integers(min_dim, max_dim))
    r = draw(st.integers(1, min(n, p)))
    scale = 10.0 ** draw(st.integers(-3, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return scale * rng.standard_normal((n, r)) @ rng.standard_normal((r, p))


@st.composite
def matrices_and_k(draw, max_dim=9):
    """A matrix with m = min(n, p) >= 2 and a rank 1 <= k < m."""
    A = draw(matrices(min_dim=2, max_dim=max_dim))
    k = draw(st.integers(1, min(A.shape) - 1))
    return A, k


def orthogonal(size, rng):
    Q, R = np.linalg.qr(rng.standard_normal((size, size)))
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


def with_singular_values(n, p, sigma, rng):
    """An n x p matrix with prescribed singular values (len(sigma) = m = min(n, p))."""
    m = min(n, p)
    return (orthogonal(n, rng)[:, :m] * sigma) @ orthogonal(p, rng)[:, :m].T


def rank_k_competitors(A, k, rng, count=20):
    """Rank <= k matrices of three kinds: random factors with a least-squares right factor,
    perturbations of the truncated SVD, and other subsets of k singular triplets."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    n, p = A.shape
    out = []
    for _ in range(count):
        Z = rng.standard_normal((n, k))
        out.append(Z @ np.linalg.lstsq(Z, A, rcond=None)[0])
        delta = 10.0 ** rng.uniform(-6, 0)
        out.append(((U[:, :k] + delta * rng.standard_normal((n, k))) * s[:k])
                   @ (Vt[:k] + delta * rng.standard_normal((k, p))))
        chosen = rng.choice(s.size, size=k, replace=False)
        out.append((U[:, chosen] * s[chosen]) @ Vt[chosen])
    return out


def alternating_least_squares(A, k, rng, steps, history=None):
    """Minimize ||A - Z Y||_F over Z (n x k) and Y (k x p), one factor at a time, from a
    random start: an optimizer that knows nothing of the SVD. Appends each step's error
    to `history` if given; returns Z Y."""
    Z = rng.standard_normal((A.shape[0], k))
    for _ in range(steps):
        Y = np.linalg.lstsq(Z, A, rcond=None)[0]                 # k x p
        Z = np.linalg.lstsq(Y.T, A.T, rcond=None)[0].T           # n x k
        if history is not None:
            history.append(np.linalg.norm(A - Z @ Y, "fro"))
    return Z @ Y


# -- the SVD ------------------------------------------------------------------------

@theorem("thm-ey-svd-existence")
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_svd_exists_with_orthogonal_factors_and_counts_the_rank(n, p, r, seed):
    m = min(n, p)
    r = min(r, m)
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, r)) @ rng.standard_normal((r, p))
    U, s, Vt = np.linalg.svd(A)                                   # full form
    Sigma = np.zeros((n, p))
    Sigma[:m, :m] = np.diag(s)
    tol = 1e-12 * max(s[0], 1e-300) * max(n, p)
    np.testing.assert_allclose(U @ Sigma @ Vt, A, atol=tol)
    np.testing.assert_allclose(U.T @ U, np.eye(n), atol=1e-12)
    np.testing.assert_allclose(Vt @ Vt.T, np.eye(p), atol=1e-12)
    assert np.all(np.diff(s) <= 0) and np.all(s >= 0)
    # sigma_j^2 = lambda_j(A^T A), j <= m (SciPy's eigensolver)
    eigenvalues = scipy.linalg.eigvalsh(A.T @ A)[::-1][:m]
    np.testing.assert_allclose(eigenvalues, s**2, atol=1e-11 * s[0] ** 2 * max(n, p))
    # the rank is the number of non-zero singular values (tolerance as numpy.matrix_rank)
    assert np.sum(s > 1e-10 * s[0]) == r
    # pcalib's thin form is an SVD with the same singular values
    U_p, s_p, Vt_p = pcalib.truncated_svd(A, m)
    np.testing.assert_allclose(s_p, s, atol=tol)
    np.testing.assert_allclose((U_p * s_p) @ Vt_p, A, atol=tol)
    np.testing.assert_allclose(U_p.T @ U_p, np.eye(m), atol=1e-10)


@theorem("thm-ey-svd-existence")
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_the_constructive_proof_builds_an_svd(n, p, seed):
    # The proof's construction: eigenvectors v_j of A^T A, u_j = A v_j / sigma_j, completed.
    rng = np.random.default_rng(seed)
    m = min(n, p)
    r = int(rng.integers(1, m + 1))
    sigma = np.concatenate([np.sort(rng.uniform(1.0, 10.0, size=r))[::-1], np.zeros(m - r)])
    A = with_singular_values(n, p, sigma, rng)
    eigenvalues, V = np.linalg.eigh(A.T @ A)
    eigenvalues, V = eigenvalues[::-1], V[:, ::-1]
    s = np.sqrt(np.maximum(eigenvalues[:m], 0))
    U_r = A @ V[:, :r] / s[:r]
    Q, _ = np.linalg.qr(np.hstack([U_r, rng.standard_normal((n, n - r))]))   # completion
    U = np.hstack([U_r, Q[:, r:]])
    Sigma = np.zeros((n, p))
    Sigma[:m, :m] = np.diag(np.where(np.arange(m) < r, s, 0.0))
    np.testing.assert_allclose(U.T @ U, np.eye(n), atol=1e-10)
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
@theorem("prop-ey-uniqueness")
@given(st.integers(3, 10), st.integers(3, 10), st.integers(0, 2**32 - 1))
@settings(max_examples=20)
def test_alternating_least_squares_reaches_but_never_passes_the_bound(n, p, seed):
    # An independent optimizer of ||A - Z Y||_F over all rank-k factorizations; with
    # gaps between all singular values it must end at A_k itself (prop-ey-uniqueness).
    rng = np.random.default_rng(seed)
    m = min(n, p)
    k = int(rng.integers(1, m))
    sigma = 10 * 0.5 ** np.arange(m)                              # clear gaps
    A = with_singular_values(n, p, sigma, rng)
    bound = np.sqrt(np.sum(sigma[k:] ** 2))
    history = []
    B = alternating_least_squares(A, k, rng, 200, history)
    assert min(history) >= bound * (1 - 1e-12)
    np.testing.assert_allclose(history[-1], bound, rtol=1e-8)
    np.testing.assert_allclose(B, pcalib.low_rank_approx(A, k), atol=1e-6 * sigma[0])


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


# -- uniqueness -----------------------------------------------------------------------

def numpy_truncation(A, k):
    """A_k and the SVD factors from NumPy (independent of pcalib)."""
    U, s, Vt = np.linalg.svd(A)
    return (U[:, :k] * s[:k]) @ Vt[:k], U, s, Vt


@theorem("prop-ey-uniqueness")
@given(matrices_and_k(), st.integers(0, 2**32 - 1))
@settings(max_examples=50)
def test_the_excess_error_bounds_the_distance_from_the_projector_of_a_k(data, seed):
    # The proof's key inequality (eq-ey-uniqueness-gap), for B with columns in span(Q):
    # ||A - B||^2 - ||A - A_k||^2 >= ||PA - B||^2 + (s_k^2 - s_{k+1}^2)(k - ||U_k^T Q||^2).
    A, k = data
    rng = np.random.default_rng(seed)
    n, p = A.shape
    Ak, U, s, _ = numpy_truncation(A, k)
    Q = orthogonal(n, rng)[:, :k]
    P = Q @ Q.T
    slack = 1e-9 * s[0] ** 2 * max(n, p)
    for B in (P @ A, Q @ rng.standard_normal((k, p)) * s[0], P @ Ak):
        excess = np.linalg.norm(A - B) ** 2 - np.linalg.norm(A - Ak) ** 2
        gap_term = (s[k - 1] ** 2 - s[k] ** 2) * (k - np.linalg.norm(U[:, :k].T @ Q) ** 2)
        assert excess >= np.linalg.norm(P @ A - B) ** 2 + gap_term - slack


@theorem("prop-ey-uniqueness")
@given(st.integers(3, 9), st.integers(3, 9), st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_with_a_gap_every_start_of_an_optimizer_ends_at_a_k(n, p, seed):
    # sigma_k > sigma_{k+1}: alternating least squares from random starts, an optimizer
    # that knows nothing of the SVD, always ends at the same matrix, A_k.
    rng = np.random.default_rng(seed)
    m = min(n, p)
    k = int(rng.integers(1, m))
    sigma = np.sort(rng.uniform(0.1, 1.0, size=m))[::-1]
    sigma[:k] += 1.0                                              # gap >= 0.1 after sigma_k
    A = with_singular_values(n, p, sigma, rng)
    Ak, *_ = numpy_truncation(A, k)
    # 200 steps (400 before): each step shrinks the error by (sigma_{k+1} / sigma_k)^2
    # <= (1 / 1.1)^2 here, so 200 steps reach 1e-16 of it even at the smallest gap; on
    # the 30 examples every start was within the tolerance after at most 13 steps.
    for _ in range(3):
        B = alternating_least_squares(A, k, rng, 200)
        np.testing.assert_allclose(B, Ak, atol=1e-8 * sigma[0])


@theorem("prop-ey-uniqueness")
@given(st.integers(3, 9), st.integers(3, 9), st.integers(0, 2**32 - 1), st.floats(0, 2 * np.pi))
def test_with_a_tie_a_whole_circle_of_matrices_attains_the_frobenius_minimum(n, p, seed, theta):
    # sigma_k = sigma_{k+1} > 0: rotating the pair (u_k, v_k) towards (u_{k+1}, v_{k+1})
    # keeps the Frobenius error; the swap B' of the proof is theta = pi / 2.
    rng = np.random.default_rng(seed)
    m = min(n, p)
    k = int(rng.integers(1, m))
    sigma = np.sort(rng.uniform(0.1, 1.0, size=m))[::-1]
    sigma[:k] += 1.0
    sigma[k] = sigma[k - 1]                                       # the tie
    A = with_singular_values(n, p, sigma, rng)
    Ak, U, s, Vt = numpy_truncation(A, k)
    u = np.cos(theta) * U[:, k - 1] + np.sin(theta) * U[:, k]
    v = np.cos(theta) * Vt[k - 1] + np.sin(theta) * Vt[k]
    B = Ak - s[k - 1] * np.outer(U[:, k - 1], Vt[k - 1]) + s[k - 1] * np.outer(u, v)
    assert np.linalg.matrix_rank(B, tol=1e-10 * s[0]) <= k
    np.testing.assert_allclose(np.linalg.norm(A - B), np.linalg.norm(A - Ak), rtol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(B - Ak) ** 2,
                               2 * s[k - 1] ** 2 * np.sin(theta) ** 2, atol=1e-10 * s[0] ** 2)


@theorem("prop-ey-uniqueness")
@given(matrices_and_k(), st.floats(-1, 1))
def test_operator_norm_minimizers_form_an_interval(data, fraction):
    # B_t = A_k - t u_1 v_1^T with |t| <= sigma_{k+1} attains sigma_{k+1} in the operator norm.
    A, k = data
    Ak, U, s, Vt = numpy_truncation(A, k)
    t = fraction * s[k]
    B = Ak - t * np.outer(U[:, 0], Vt[0])
    assert np.linalg.matrix_rank(B, tol=1e-10 * s[0]) <= k
    np.testing.assert_allclose(np.linalg.norm(A - B, 2), s[k], atol=1e-10 * s[0] * max(A.shape))


@theorem("prop-ey-uniqueness")
@given(matrices_and_k())
def test_a_matrix_of_rank_at_most_k_is_its_own_unique_best_approximation(data):
    # sigma_{k+1} = 0: the minimum error is 0, attained only by A itself.
    A, k = data
    s = np.linalg.svd(A, compute_uv=False)
    if s[k] > 1e-10 * s[0]:
        A = numpy_truncation(A, k)[0]                             # make rank A <= k
    np.testing.assert_allclose(pcalib.low_rank_approx(A, k), A, atol=1e-10 * s[0] * max(A.shape))


@theorem("lem-ey-weyl")
@given(matrices(), st.integers(0, 2**32 - 1), st.integers(-3, 3))
def test_weyl_inequality_for_singular_values(E, seed, log_scale):
    # sigma_{j+l-1}(E + F) <= sigma_j(E) + sigma_l(F) for all j + l - 1 <= m.
    rng = np.random.default_rng(seed)
    F = 10.0**log_scale * rng.standard_normal(E.shape)
    sE, sF, sEF = (np.linalg.svd(term, compute_uv=False) for term in (E, F, E + F))
    m = sE.size
    slack = 1e-12 * (sE[0] + sF[0]) * max(E.shape)
    for j in range(1, m + 1):
        for l in range(1, m + 2 - j):
            assert sEF[j + l - 2] <= sE[j - 1] + sF[l - 1] + slack


@theorem("thm-eckart-young")
@given(matrices_and_k(), st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_singular_values_of_any_residual_dominate_the_shifted_spectrum(data, seed):
    # sigma_j(A - B) >= sigma_{j+k}(A) for every B of rank <= k: the core of the proof.
    A, k = data
    s = np.linalg.svd(A, compute_uv=False)
    m = s.size
    for B in rank_k_competitors(A, k, np.random.default_rng(seed), count=5):
        sR = np.linalg.svd(A - B, compute_uv=False)
        assert np.all(sR[: m - k] >= s[k:] - 1e-10 * s[0] * max(A.shape))


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
    for _ in range(10):                                               # shifts c, parts B
        c = mean + rng.standard_normal(p) * rng.uniform(0, 1) * s[0] / np.sqrt(n)
        Z = rng.standard_normal((n, k))
        B = Z @ np.linalg.lstsq(Z, X - c, rcond=None)[0]             # best B for that column space
        candidates.append((c, B))
    for c, B in candidates:
        E = X - c - B
        assert np.linalg.norm(E, 2) >= best_2 - slack
        assert np.linalg.norm(E, "fro") >= best_F - slack


@theorem("prop-ey-centered-best-affine")
@given(data_and_k(), st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_the_best_shifts_fill_the_plane_of_the_axes(data, seed):
    """Part 2: with a gap after sigma_k, every pair c = xbar + V_k a,
    B = (Xc)_k - 1 a^T V_k^T has rank <= k and the fitted matrix 1 xbar^T + (Xc)_k, so
    the error of the mean; a shift xbar + d off that plane does worse even with its own
    best rank-k part: for d orthogonal to V_k with n |d|^2 <= sigma_k^2 - sigma_{k+1}^2,
    the squared error is exactly best^2 + n |d|^2 (the covariance block orthogonal to V_k
    gains n d d^T and its top eigenvalue stays below sigma_k^2)."""
    X, k = data
    rng = np.random.default_rng(seed)
    n, p = X.shape
    mean = X.mean(axis=0)
    U, s, Vt = np.linalg.svd(X - mean, full_matrices=False)     # NumPy, not pcalib
    assume(s[k - 1] - s[k] > 1e-3 * s[0])
    V_k, Xc_k = Vt[:k].T, (U[:, :k] * s[:k]) @ Vt[:k]
    best_sq = np.sum(s[k:] ** 2)
    ones = np.ones((n, 1))
    slack = 1e-12 * (s[0] + np.abs(X).max()) * s[0] * n * p          # round-off of sigma^2
    for a in rng.standard_normal((5, k)) * s[0]:
        c, B = mean + V_k @ a, Xc_k - ones * (V_k @ a)
        assert np.linalg.matrix_rank(B, tol=1e-9 * (s[0] + np.abs(B).max())) <= k
        np.testing.assert_allclose(ones * c + B, mean + Xc_k, rtol=0,
                                   atol=1e-9 * (np.abs(X).max() + s[0]))
    for _ in range(5):
        d = rng.standard_normal(p)
        d -= V_k @ (V_k.T @ d)                                       # off the plane
        d *= np.sqrt(rng.uniform(0.1, 1) * (s[k - 1] ** 2 - s[k] ** 2) / n) / np.linalg.norm(d)
        sY = np.linalg.svd(X - mean - d, compute_uv=False)         # own best rank-k part
        np.testing.assert_allclose(np.sum(sY[k:] ** 2), best_sq + n * d @ d, rtol=0, atol=slack)
        assert n * d @ d > slack                                     # strictly worse

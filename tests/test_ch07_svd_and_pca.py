"""Tests of the results of the chapter "SVD and PCA" (book/07_svd_and_pca.md).

Cross-checks against NumPy's and SciPy's SVD and symmetric eigensolvers written out
here, and against scikit-learn's PCA; never against pcalib itself.

Notation of the book: X is n x p, Xc = U Sigma V^T the thin SVD of the centered data,
m = min(n, p); the principal axes are the columns v_j of V, U holds the left singular
vectors u_j, lambda_j = sigma_j^2 / (n - 1), and the scores are T = Xc V = U Sigma.
"""

import itertools

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA

import pcalib

theorem = pytest.mark.theorem
ROUTES = (pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram)


def orthogonal(size, rng):
    Q, R = np.linalg.qr(rng.standard_normal((size, size)))
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


@st.composite
def data_matrices(draw, min_rows=2, max_rows=12, max_cols=8):
    """Seeded data of random shape (n < p and n > p), with offsets up to 1e4."""
    n = draw(st.integers(min_rows, max_rows))
    p = draw(st.integers(1, max_cols))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    offset = 10.0 ** draw(st.integers(0, 4))
    X = rng.standard_normal((n, p)) * rng.uniform(0.1, 5, size=p) + offset * rng.standard_normal(p)
    return X


@st.composite
def separated_data(draw, max_rows=12, max_cols=8):
    """Centered-data spectra with distinct, well separated, non-zero singular values.

    X = 1 x0^T + U diag(sigma) V^T with U orthonormal and orthogonal to 1, so the
    singular values of Xc are exactly sigma (ratio 0.6 between neighbours); r = len(sigma)
    = min(n - 1, p) is the rank of Xc.
    """
    n = draw(st.integers(3, max_rows))
    p = draw(st.integers(1, max_cols))
    r = min(n - 1, p)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    Z = rng.standard_normal((n, r))
    Z -= Z.mean(axis=0)
    U, _ = np.linalg.qr(Z)
    V = orthogonal(p, rng)[:, :r]
    sigma = 5 * 0.6 ** np.arange(r)
    return (U * sigma) @ V.T + rng.standard_normal(p), sigma


def top_eig(M):
    """Eigenvalues of a symmetric matrix in decreasing order, with their eigenvectors."""
    w, vectors = scipy.linalg.eigh(M)
    return w[::-1], vectors[:, ::-1]


# -- the link between the SVD and PCA ------------------------------------------------

@theorem("thm-svdpca-link")
@given(data_matrices())
def test_eigenvalues_are_squared_singular_values_over_n_minus_1(X):
    n, p = X.shape
    m = min(n, p)
    Xc = X - X.mean(axis=0)
    sigma = np.linalg.svd(Xc, compute_uv=False)
    lam, _ = top_eig(np.cov(X, rowvar=False).reshape(p, p))
    scale = max(lam[0], 1e-300)
    np.testing.assert_allclose(lam[:m], sigma**2 / (n - 1), atol=1e-10 * scale * p)
    np.testing.assert_allclose(lam[m:], 0.0, atol=1e-10 * scale * p)       # p > n: zeros
    result = pcalib.pca_svd(X)
    np.testing.assert_allclose(result.explained_variance, lam[:m], atol=1e-10 * scale * p)


@theorem("thm-svdpca-link")
@given(data_matrices())
def test_right_singular_vectors_are_eigenvectors_and_scores_are_u_sigma(X):
    n, p = X.shape
    Xc = X - X.mean(axis=0)
    U, sigma, Vt = np.linalg.svd(Xc, full_matrices=False)
    S = np.cov(X, rowvar=False).reshape(p, p)
    scale = max(sigma[0] ** 2 / (n - 1), 1e-300)
    np.testing.assert_allclose(S @ Vt.T, Vt.T * sigma**2 / (n - 1), atol=1e-10 * scale * p)
    T = Xc @ Vt.T
    np.testing.assert_allclose(T, U * sigma, atol=1e-10 * max(sigma[0], 1e-300))
    np.testing.assert_allclose(T.mean(axis=0), 0.0, atol=1e-10 * max(sigma[0], 1e-300))
    np.testing.assert_allclose(T.T @ T / (n - 1), np.diag(sigma**2 / (n - 1)), atol=1e-10 * scale * p)


@theorem("thm-svdpca-link")
@given(separated_data())
def test_pcalib_and_scikit_learn_agree_with_the_theorem(data):
    X, sigma = data
    n = X.shape[0]
    r = sigma.size
    result = pcalib.pca_svd(X, k=r)
    sk = SklearnPCA(n_components=r, svd_solver="full").fit(X)
    np.testing.assert_allclose(result.explained_variance, sigma**2 / (n - 1), rtol=1e-10)
    np.testing.assert_allclose(sk.explained_variance_, sigma**2 / (n - 1), rtol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(result.components * sk.components_, axis=1)), 1.0, atol=1e-10)
    np.testing.assert_allclose(np.var(result.scores, axis=0, ddof=1), sigma**2 / (n - 1), rtol=1e-10)


# -- the dual route ------------------------------------------------------------------

@theorem("prop-svdpca-gram")
@given(data_matrices())
def test_gram_eigenvalues_are_squared_singular_values(X):
    n, p = X.shape
    m = min(n, p)
    Xc = X - X.mean(axis=0)
    sigma = np.linalg.svd(Xc, compute_uv=False)
    theta, _ = top_eig(Xc @ Xc.T)                                  # lambda_j(G)
    scale = max(sigma[0] ** 2, 1e-300)
    np.testing.assert_allclose(theta[:m], sigma**2, atol=1e-10 * scale * n)
    np.testing.assert_allclose(theta[m:], 0.0, atol=1e-10 * scale * n)


@theorem("prop-svdpca-gram")
@given(separated_data())
def test_axes_recovered_from_the_gram_matrix(data):
    X, sigma = data
    n, p = X.shape
    r = sigma.size
    Xc = X - X.mean(axis=0)
    theta, U_g = top_eig(Xc @ Xc.T)
    V_dual = Xc.T @ U_g[:, :r] / np.sqrt(theta[:r])             # v = Xc^T u / sqrt(theta)
    np.testing.assert_allclose(V_dual.T @ V_dual, np.eye(r), atol=1e-9)
    S = Xc.T @ Xc / (n - 1)
    np.testing.assert_allclose(S @ V_dual, V_dual * theta[:r] / (n - 1), atol=1e-9 * sigma[0] ** 2)
    np.testing.assert_allclose(Xc @ V_dual, U_g[:, :r] * np.sqrt(theta[:r]), atol=1e-9 * sigma[0])
    _, _, Vt = scipy.linalg.svd(Xc, full_matrices=False, lapack_driver="gesvd")
    np.testing.assert_allclose(np.abs(np.sum(V_dual * Vt[:r].T, axis=0)), 1.0, atol=1e-9)
    gram = pcalib.pca_gram(X, k=r)
    np.testing.assert_allclose(np.abs(np.sum(gram.components.T * V_dual, axis=0)), 1.0, atol=1e-9)
    np.testing.assert_allclose(np.abs(gram.scores), np.abs(U_g[:, :r] * np.sqrt(theta[:r])),
                               atol=1e-9 * sigma[0])


# -- conditioning --------------------------------------------------------------------

@theorem("prop-svdpca-condition-squared")
@given(st.integers(2, 30), st.integers(2, 6), st.floats(0, 4), st.integers(0, 2**32 - 1))
def test_cross_product_squares_the_condition_number(extra_rows, p, log_kappa, seed):
    rng = np.random.default_rng(seed)
    n = p + extra_rows
    kappa = 10.0**log_kappa
    sigma = np.logspace(0, -log_kappa, p)
    A = (orthogonal(n, rng)[:, :p] * sigma) @ orthogonal(p, rng).T
    np.testing.assert_allclose(np.linalg.cond(A), kappa, rtol=1e-8)
    np.testing.assert_allclose(np.linalg.cond(A.T @ A), np.linalg.cond(A) ** 2, rtol=1e-6)
    w = scipy.linalg.eigvalsh(A.T @ A)                              # an independent solver
    np.testing.assert_allclose(w[-1] / w[0], kappa**2, rtol=1e-6)


@theorem("prop-svdpca-condition-squared")
def test_lauchli_example_covariance_routes_lose_the_small_eigenvalue():
    eta = 1e-8
    X = np.array([[1, 1], [-1, -1], [eta, 0], [-eta, 0], [0, eta], [0, -eta]])
    exact = 2 * eta**2 / 5
    assert np.array_equal(X.T @ X, [[2.0, 2.0], [2.0, 2.0]])               # 2 + 2 eta^2 rounds to 2
    assert np.linalg.matrix_rank(X.T @ X) == 1                              # lambda_2 is gone
    s = scipy.linalg.svdvals(X)                                             # SciPy's SVD keeps it
    np.testing.assert_allclose(s[1] ** 2 / 5, exact, rtol=1e-6)
    np.testing.assert_allclose(pcalib.pca_svd(X).explained_variance[1], exact, rtol=1e-6)
    assert pcalib.pca_eig(X).explained_variance[1] == 0.0
    assert pcalib.pca_gram(X).explained_variance[1] == 0.0


def lauchli(eta):
    """The centered Lauchli data of chapter 7 (n = 6, p = 2)."""
    return np.array([[1, 1], [-1, -1], [eta, 0], [-eta, 0], [0, eta], [0, -eta]])


def every_rounded_sum(terms):
    """The float64 values of a + b + c + d in every order of addition: each binary tree
    over four leaves is, up to swapping operands, ((a + b) + c) + d or (a + b) + (c + d)
    for some permutation."""
    sums = set()
    for a, b, c, d in itertools.permutations(terms):
        sums.add(((a + b) + c) + d)
        sums.add((a + b) + (c + d))
    return sums


EPS = np.finfo(float).eps


@pytest.mark.parametrize("factor", [0.5, 0.9, 0.99, 0.999])
def test_lauchli_entry_is_2_below_sqrt_eps_over_2_in_every_order(factor):
    # ex-svdpca-lauchli-threshold: below sqrt(eps / 2) the formed X^T X is singular
    # whatever the order of the sums
    eta = factor * np.sqrt(EPS / 2)
    assert every_rounded_sum([1.0, 1.0, eta**2, eta**2]) == {2.0}


@pytest.mark.parametrize("factor", [1.001, 1.01, 1.1, 2.0])
def test_lauchli_entry_is_not_2_above_sqrt_eps_in_any_order(factor):
    eta = factor * np.sqrt(EPS)
    assert 2.0 not in every_rounded_sum([1.0, 1.0, eta**2, eta**2])


def test_lauchli_entry_between_the_thresholds_depends_on_the_order():
    eta = 1.2e-8                                   # sqrt(eps / 2) < eta < sqrt(eps)
    assert len(every_rounded_sum([1.0, 1.0, eta**2, eta**2]) & {2.0, 2.0 + 2 * EPS}) == 2


@pytest.mark.parametrize("factor, zero", [(0.5, True), (0.8, True), (1.25, False), (2.0, False)])
def test_pca_eig_reports_lauchli_lambda_2_as_0_below_sqrt_12_eps(factor, zero):
    # the rank tolerance max(n, p) eps lambda_1 = 6 eps lambda_1 against
    # lambda_2 / lambda_1 = 2 eta^2 / (4 + 2 eta^2): zero for eta below about
    # sqrt(12 eps); the formed matrix's rounding (2 eps / eta^2 = 17% of lambda_2 there)
    # blurs the edge, so the factors stay 20% away from it
    eta = factor * np.sqrt(12 * EPS)
    lam_2 = pcalib.pca_eig(lauchli(eta)).explained_variance[1]
    assert (lam_2 == 0.0) == zero
    if not zero:
        truth = 2 * eta**2 / 5
        assert abs(lam_2 - truth) / truth <= 2 * EPS / eta**2      # the predicted order


# -- signs ---------------------------------------------------------------------------

@theorem("prop-svdpca-sign-ambiguity")
@given(data_matrices(), st.integers(0, 2**32 - 1))
def test_flipping_pairs_of_singular_vectors_keeps_an_svd(X, seed):
    Xc = X - X.mean(axis=0)
    U, sigma, Vt = np.linalg.svd(Xc, full_matrices=False)
    flips = np.random.default_rng(seed).choice([-1.0, 1.0], size=sigma.size)  # diagonal of J
    tol = 1e-12 * max(sigma[0], 1e-300) * max(X.shape)
    np.testing.assert_allclose((U * flips * sigma) @ (Vt * flips[:, None]), Xc, atol=tol)
    np.testing.assert_allclose((U * flips).T @ (U * flips), np.eye(sigma.size), atol=1e-10)
    np.testing.assert_allclose(Xc @ (Vt.T * flips), (U * sigma) * flips, atol=tol)


@theorem("prop-svdpca-sign-ambiguity")
@given(st.integers(3, 8), st.integers(0, 4), st.integers(0, 2**32 - 1))
def test_a_pair_with_sigma_0_takes_its_signs_separately(n, extra, seed):
    # wide centered data (p >= n): sigma_n = 0, so u_n alone may be flipped, and v_n
    # may be replaced by any unit vector of the null space of Xc (dimension p - n + 1)
    rng = np.random.default_rng(seed)
    p = n + extra
    X = rng.standard_normal((n, p))
    Xc = X - X.mean(axis=0)
    U, sigma, Vt = np.linalg.svd(Xc, full_matrices=False)
    assert sigma[-1] < 1e-12 * sigma[0]
    U_flipped = U.copy()
    U_flipped[:, -1] *= -1                          # u_n alone, v_n kept
    np.testing.assert_allclose((U_flipped * sigma) @ Vt, Xc, atol=1e-12 * sigma[0])
    null = scipy.linalg.null_space(Xc)
    assert null.shape[1] == p - n + 1
    other = null @ rng.standard_normal(p - n + 1)
    Vt_other = Vt.copy()
    Vt_other[-1] = other / np.linalg.norm(other)    # another valid last axis
    np.testing.assert_allclose(Vt_other @ Vt_other.T, np.eye(n), atol=1e-10)
    np.testing.assert_allclose((U * sigma) @ Vt_other, Xc, atol=1e-12 * sigma[0])


@theorem("prop-svdpca-sign-ambiguity")
@given(separated_data())
def test_with_distinct_singular_values_the_svd_is_unique_up_to_signs(data):
    X, sigma = data
    r = sigma.size
    Xc = X - X.mean(axis=0)
    U1, s1, Vt1 = scipy.linalg.svd(Xc, full_matrices=False, lapack_driver="gesdd")
    U2, s2, Vt2 = scipy.linalg.svd(Xc, full_matrices=False, lapack_driver="gesvd")
    _, V3 = top_eig(Xc.T @ Xc)
    delta = np.sum(Vt1[:r] * Vt2[:r], axis=1)
    np.testing.assert_allclose(np.abs(delta), 1.0, atol=1e-10)              # v~_j = delta_j v_j
    np.testing.assert_allclose(U2[:, :r], U1[:, :r] * delta, atol=1e-9)      # u~_j = delta_j u_j
    np.testing.assert_allclose(np.abs(np.sum(Vt1[:r].T * V3[:, :r], axis=0)), 1.0, atol=1e-9)


@theorem("prop-svdpca-sign-ambiguity")
@given(separated_data())
@settings(max_examples=40)
def test_every_route_applies_the_same_sign_convention(data):
    X, sigma = data
    r = sigma.size
    _, _, Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    axes = Vt[:r]
    pivots = axes[np.arange(r), np.argmax(np.abs(axes), axis=1)]
    expected = axes * np.where(pivots < 0, -1.0, 1.0)[:, None]             # the convention, written out
    # Skip axes whose two largest |entries| nearly tie: there round-off decides the sign.
    sorted_abs = np.sort(np.abs(axes), axis=1)
    clear = sorted_abs[:, -1] - (sorted_abs[:, -2] if axes.shape[1] > 1 else 0.0) > 1e-6
    for route in ROUTES:
        result = route(X, k=r)
        np.testing.assert_allclose(result.components[clear], expected[clear], atol=1e-8)
        largest = result.components[np.arange(r), np.argmax(np.abs(result.components), axis=1)]
        assert np.all(largest > 0)
        np.testing.assert_allclose(result.scores, (X - X.mean(axis=0)) @ result.components.T,
                                   atol=1e-8 * sigma[0])

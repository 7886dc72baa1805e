"""Tests of the results of the chapter "Probabilistic PCA" (book/09_ppca.md).

Notation of the chapter: W the p x k factor matrix, sigma^2 the noise variance,
M = W^T W + sigma^2 I_k, C = W W^T + sigma^2 I_p, S_n = X_c^T X_c / n with eigenvalues
tilde lambda_j (here `lam_n`) and eigenvectors v_j (the principal axes, here `V`); the
maximum-likelihood W is V_k (tilde Lambda_k - sigma^2 I)^{1/2} R.

Each labelled result is checked against routes that do not go through pcalib's
PPCA code: dense NumPy linear algebra, SciPy's multivariate normal density and
optimizer, and scikit-learn's PCA (whose `get_covariance` is the PPCA model with
the divisor n - 1).
"""

import itertools
import warnings

import numpy as np
import pytest
import scipy.optimize
import scipy.stats
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA

import pcalib

theorem = pytest.mark.theorem


@st.composite
def ppca_problems(draw, min_p=2, max_p=7, max_extra_n=30):
    """(X, k): n x p data with well separated spectrum, 1 <= k < p, n > p."""
    p = draw(st.integers(min_p, max_p))
    k = draw(st.integers(1, p - 1))
    n = p + 2 + draw(st.integers(0, max_extra_n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    scales = np.sort(rng.uniform(0.3, 5.0, size=p))[::-1]
    basis = np.linalg.qr(rng.normal(size=(p, p)))[0]
    offset = draw(st.sampled_from([0.0, 10.0, 1e4]))
    X = rng.normal(size=(n, p)) * scales @ basis.T + offset * rng.normal(size=p)
    return X, k


def spectrum_1_over_n(X):
    """Eigenvalues tilde lambda_j (decreasing) and eigenvectors v_j of S_n = X_c^T X_c / n,
    by numpy.linalg.eigh."""
    Xc = X - X.mean(axis=0)
    lam_n, V = np.linalg.eigh(Xc.T @ Xc / X.shape[0])
    return lam_n[::-1], V[:, ::-1]


def scipy_loglik(X, mean, W, sigma2):
    C = W @ W.T + sigma2 * np.eye(X.shape[1])
    return scipy.stats.multivariate_normal(mean, C).logpdf(X).sum()


def has_eigengap(lam_n, k, rel=1e-3):
    return lam_n[k - 1] - lam_n[k] > rel * lam_n[0] and lam_n[k] > rel * lam_n[0]


# -- lem-ppca-woodbury ---------------------------------------------------------------

@theorem("lem-ppca-woodbury")
@given(st.integers(2, 9), st.integers(1, 8), st.floats(0.01, 10.0), st.integers(0, 2**32 - 1))
def test_woodbury_push_through_and_determinant(p, k, sigma2, seed):
    k = min(k, p - 1)
    W = np.random.default_rng(seed).normal(size=(p, k))
    M = W.T @ W + sigma2 * np.eye(k)
    C = W @ W.T + sigma2 * np.eye(p)
    C_inv = np.linalg.inv(C)
    M_inv = np.linalg.inv(M)
    scale = np.abs(C_inv).max()
    np.testing.assert_allclose(C @ W, W @ M, atol=1e-12 * np.abs(C).max() * np.abs(W).max() * p)
    np.testing.assert_allclose(C_inv @ W, W @ M_inv, atol=1e-9 * scale * np.abs(W).max())
    np.testing.assert_allclose(W.T @ C_inv, M_inv @ W.T, atol=1e-9 * scale * np.abs(W).max())
    np.testing.assert_allclose(C_inv, (np.eye(p) - W @ M_inv @ W.T) / sigma2, atol=1e-9 * scale)
    np.testing.assert_allclose(
        np.linalg.slogdet(C)[1], (p - k) * np.log(sigma2) + np.linalg.slogdet(M)[1], rtol=1e-9, atol=1e-9
    )


# -- prop-ppca-marginal --------------------------------------------------------------

@theorem("prop-ppca-marginal")
@settings(max_examples=20)
@given(ppca_problems())
def test_marginal_density_is_the_gaussian_with_covariance_WWt_plus_sigma2(problem):
    X, k = problem
    model = pcalib.PPCA(k).fit(X)
    C = model.W_ @ model.W_.T + model.sigma2_ * np.eye(X.shape[1])
    assert np.all(np.linalg.eigvalsh(C) > 0)
    expected = scipy.stats.multivariate_normal(model.mean_, C).logpdf(X)
    np.testing.assert_allclose(model.score_samples(X), expected, rtol=1e-9, atol=1e-9)


@theorem("prop-ppca-marginal")
def test_samples_of_the_generative_process_have_mean_mu_and_covariance_C():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)) * [3.0, 1.5, 0.7, 0.4] + [1.0, -2.0, 0.0, 5.0]
    model = pcalib.PPCA(2).fit(X)
    n = 200_000
    draws = model.sample(n, random_state=1)
    C = model.W_ @ model.W_.T + model.sigma2_ * np.eye(4)
    assert np.abs(np.cov(draws, rowvar=False) - C).max() < 6 * np.abs(C).max() / np.sqrt(n)
    assert np.abs(draws.mean(axis=0) - model.mean_).max() < 6 * np.sqrt(np.diag(C).max() / n)


# -- prop-ppca-posterior --------------------------------------------------------------

@theorem("prop-ppca-posterior")
@settings(max_examples=20)
@given(ppca_problems())
def test_posterior_mean_and_covariance_equal_gaussian_conditioning(problem):
    X, k = problem
    model = pcalib.PPCA(k).fit(X)
    W, sigma2, mu = model.W_, model.sigma2_, model.mean_
    p = W.shape[0]
    C = W @ W.T + sigma2 * np.eye(p)
    # conditioning the joint Gaussian of (z, x): E[z|x] = W^T C^-1 (x - mu), Cov = I - W^T C^-1 W
    mean_conditioning = (W.T @ np.linalg.solve(C, (X - mu).T)).T
    scale = np.abs(mean_conditioning).max() + 1.0
    np.testing.assert_allclose(model.transform(X), mean_conditioning, atol=1e-9 * scale)
    M = W.T @ W + sigma2 * np.eye(k)
    np.testing.assert_allclose(sigma2 * np.linalg.inv(M), np.eye(k) - W.T @ np.linalg.solve(C, W), atol=1e-9)


@theorem("prop-ppca-posterior")
def test_posterior_by_monte_carlo_regression():
    # E[z | x] is linear in x, so regressing simulated z on simulated x recovers M^-1 W^T.
    rng = np.random.default_rng(5)
    p, k, sigma2, n = 5, 2, 0.4, 200_000
    W = rng.normal(size=(p, k))
    z = rng.standard_normal((n, k))
    x = z @ W.T + rng.standard_normal((n, p)) * np.sqrt(sigma2)
    coefficients, *_ = np.linalg.lstsq(x, z, rcond=None)          # z ~ x B, B = (M^-1 W^T)^T
    M = W.T @ W + sigma2 * np.eye(k)
    np.testing.assert_allclose(coefficients.T, np.linalg.solve(M, W.T), atol=0.02)
    residual_cov = np.cov(z - x @ coefficients, rowvar=False)
    np.testing.assert_allclose(residual_cov, sigma2 * np.linalg.inv(M), atol=0.02)


# -- prop-ppca-loglik ----------------------------------------------------------------------

@theorem("prop-ppca-loglik")
@given(ppca_problems(), st.floats(0.05, 5.0), st.integers(0, 2**32 - 1))
def test_loglik_trace_formula_and_sample_mean_maximizes(problem, sigma2, seed):
    """L(mu) = L(xbar) - n/2 (xbar - mu)^T C^-1 (xbar - mu), L(xbar) by the trace formula."""
    X, k = problem
    n, p = X.shape
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(p, k))
    C = W @ W.T + sigma2 * np.eye(p)
    xbar = X.mean(axis=0)
    Xc = X - xbar
    S_n = Xc.T @ Xc / n
    formula = -n / 2 * (p * np.log(2 * np.pi) + np.linalg.slogdet(C)[1] + np.trace(np.linalg.solve(C, S_n)))
    at_mean = scipy.stats.multivariate_normal(xbar, C).logpdf(X).sum()
    np.testing.assert_allclose(formula, at_mean, rtol=1e-9)
    shift = rng.normal(size=p) * 0.1
    elsewhere = scipy.stats.multivariate_normal(xbar + shift, C).logpdf(X).sum()
    quadratic = n / 2 * shift @ np.linalg.solve(C, shift)
    np.testing.assert_allclose(elsewhere, at_mean - quadratic, rtol=1e-9)
    assert quadratic > 0


# -- thm-ppca-ml ---------------------------------------------------------------------------

@theorem("thm-ppca-ml")
@settings(max_examples=30)
@given(ppca_problems())
def test_closed_form_matches_eigendecomposition_of_the_1_over_n_covariance(problem):
    X, k = problem
    n, p = X.shape
    lam_n, V = spectrum_1_over_n(X)
    model = pcalib.PPCA(k).fit(X)
    sigma2 = lam_n[k:].mean()
    np.testing.assert_allclose(model.sigma2_, sigma2, rtol=1e-9, atol=1e-12 * lam_n[0])
    np.testing.assert_allclose(model.mean_, X.mean(axis=0), rtol=1e-12, atol=1e-9 * np.abs(X).max())
    if has_eigengap(lam_n, k):
        WWt = V[:, :k] @ np.diag(lam_n[:k] - sigma2) @ V[:, :k].T
        np.testing.assert_allclose(model.W_ @ model.W_.T, WWt, atol=1e-8 * lam_n[0])
    L_max = -n / 2 * (p * np.log(2 * np.pi) + np.log(lam_n[:k]).sum() + (p - k) * np.log(sigma2) + p)
    np.testing.assert_allclose(scipy_loglik(X, model.mean_, model.W_, model.sigma2_), L_max, rtol=1e-9)
    np.testing.assert_allclose(model.loglik_history_[-1], L_max, rtol=1e-9)


@theorem("thm-ppca-ml")
@settings(max_examples=30)
@given(ppca_problems())
def test_model_covariance_matches_scikit_learn_up_to_the_divisor(problem):
    # scikit-learn's PCA.get_covariance is W W^T + sigma^2 I built with divisor n - 1.
    X, k = problem
    n = X.shape[0]
    model = pcalib.PPCA(k).fit(X)
    C = model.W_ @ model.W_.T + model.sigma2_ * np.eye(X.shape[1])
    reference = SklearnPCA(n_components=k, svd_solver="full").fit(X).get_covariance() * (n - 1) / n
    np.testing.assert_allclose(C, reference, atol=1e-8 * np.abs(reference).max())


@theorem("thm-ppca-ml")
@settings(max_examples=20)
@given(ppca_problems(max_p=5), st.integers(0, 2**32 - 1))
def test_no_perturbation_of_the_ml_parameters_increases_the_likelihood(problem, seed):
    X, k = problem
    model = pcalib.PPCA(k).fit(X)
    best = scipy_loglik(X, model.mean_, model.W_, model.sigma2_)
    rng = np.random.default_rng(seed)
    scale = np.sqrt(model.sigma2_)
    for step in (1e-1, 1e-2, 1e-3):
        for _ in range(5):
            W = model.W_ + step * scale * rng.normal(size=model.W_.shape)
            sigma2 = model.sigma2_ * np.exp(step * rng.normal())
            mean = model.mean_ + step * scale * rng.normal(size=model.mean_.shape)
            assert scipy_loglik(X, mean, W, sigma2) <= best + 1e-10 * abs(best)


@theorem("thm-ppca-ml")
def test_closed_form_equals_a_numerical_maximization_with_scipy():
    rng = np.random.default_rng(3)
    n, p, k = 50, 4, 2
    X = rng.normal(size=(n, p)) * [2.5, 1.6, 0.8, 0.5] @ np.linalg.qr(rng.normal(size=(p, p)))[0]
    mean = X.mean(axis=0)

    def negative_loglik(theta):
        return -scipy_loglik(X, mean, theta[:-1].reshape(p, k), np.exp(theta[-1]))

    result = scipy.optimize.minimize(
        negative_loglik, np.append(rng.normal(size=p * k), 0.0), method="BFGS", options={"gtol": 1e-8}
    )
    model = pcalib.PPCA(k).fit(X)
    W_opt = result.x[:-1].reshape(p, k)
    np.testing.assert_allclose(-result.fun, model.loglik_history_[-1], rtol=1e-7)
    np.testing.assert_allclose(W_opt @ W_opt.T, model.W_ @ model.W_.T, atol=1e-4)
    np.testing.assert_allclose(np.exp(result.x[-1]), model.sigma2_, rtol=1e-5)


@theorem("thm-ppca-ml")
def test_other_stationary_points_are_lower():
    rng = np.random.default_rng(8)
    n, p, k = 400, 6, 2
    X = rng.normal(size=(n, p)) * [4.0, 3.0, 2.5, 0.6, 0.5, 0.4]
    lam_n, V = spectrum_1_over_n(X)
    model = pcalib.PPCA(k).fit(X)
    best = scipy_loglik(X, model.mean_, model.W_, model.sigma2_)
    for kept in ([0, 2], [1, 2], [0], [1]):
        discarded = np.setdiff1d(np.arange(p), kept)
        sigma2 = lam_n[discarded].mean()
        assert np.all(lam_n[kept] > sigma2)                      # an admissible stationary point
        W = V[:, kept] * np.sqrt(lam_n[kept] - sigma2)
        C = W @ W.T + sigma2 * np.eye(p)
        Xc = X - X.mean(axis=0)
        np.testing.assert_allclose(Xc.T @ Xc / n @ np.linalg.solve(C, W), W, atol=1e-10 * lam_n[0])
        assert scipy_loglik(X, model.mean_, W, sigma2) < best


# -- thm-ppca-ml, step 5: every admissible stationary point, with tied eigenvalues -----------

def data_with_spectrum(lam_n, n, seed):
    """n x p data whose S_n has exactly the eigenvalues lam_n (to round-off), random axes."""
    p = lam_n.size
    rng = np.random.default_rng(seed)
    H = np.eye(n) - np.ones((n, n)) / n
    Q = np.linalg.qr(H @ rng.normal(size=(n, p)))[0]           # centered, orthonormal columns
    V = np.linalg.qr(rng.normal(size=(p, p)))[0]
    return np.sqrt(n) * Q * np.sqrt(lam_n) @ V.T + rng.normal(size=p)


@theorem("thm-ppca-ml")
@settings(max_examples=40)
@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 5.0]), min_size=3, max_size=7),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
)
def test_every_admissible_stationary_point_is_below_the_maximum_even_with_ties(values, k, seed):
    """Steps 3-5 of the proof: for every index set J with |J| <= k and sigma^2_J > 0 that
    is admissible (each kept eigenvalue > sigma^2_J), W = V_J (tL_J - sigma^2_J)^{1/2} is a
    stationary point (S_n C^-1 W = W and dL/dsigma^2 = 0), its log-likelihood (SciPy) is
    -n/2 (p log 2pi + p + g(J)), and it is below L_max unless J keeps the values of
    {1, ..., k}. The spectra have ties on purpose (repeated values, zeros)."""
    lam_n = np.sort(np.array(values))[::-1]
    p = lam_n.size
    k = min(k, p - 1)
    assume(lam_n[k - 1] > lam_n[k] > 0)                         # the theorem's hypotheses
    n = p + 6
    X = data_with_spectrum(lam_n, n, seed)
    lam_np, V = spectrum_1_over_n(X)
    np.testing.assert_allclose(lam_np, lam_n, atol=1e-10 * lam_n[0])
    xbar = X.mean(axis=0)
    S_n = (X - xbar).T @ (X - xbar) / n
    sigma2_ml = lam_n[k:].mean()
    L_max = -n / 2 * (p * np.log(2 * np.pi) + np.log(lam_n[:k]).sum() + (p - k) * np.log(sigma2_ml) + p)
    np.testing.assert_allclose(pcalib.PPCA(k).fit(X).loglik_history_[-1], L_max, rtol=1e-9)
    top_values = np.sort(lam_n[:k])
    for r in range(k + 1):
        for J in itertools.combinations(range(p), r):
            J = np.array(J, dtype=int)
            rest = np.setdiff1d(np.arange(p), J)
            sigma2_J = lam_n[rest].mean()
            if not (sigma2_J > 1e-12 and np.all(lam_n[J] > sigma2_J + 1e-12)):
                continue                                        # not admissible
            W = V[:, J] * np.sqrt(lam_n[J] - sigma2_J)
            C = W @ W.T + sigma2_J * np.eye(p)
            np.testing.assert_allclose(S_n @ np.linalg.solve(C, W), W, atol=1e-9 * lam_n[0])
            C_inv = np.linalg.inv(C)
            np.testing.assert_allclose(np.trace(C_inv), np.trace(C_inv @ S_n @ C_inv), rtol=1e-9)
            g = np.log(lam_n[J]).sum() + (p - r) * np.log(sigma2_J)
            value = scipy_loglik(X, xbar, W, sigma2_J)
            np.testing.assert_allclose(value, -n / 2 * (p * np.log(2 * np.pi) + p + g), rtol=1e-9)
            if r == k and np.array_equal(np.sort(lam_n[J]), top_values):
                np.testing.assert_allclose(value, L_max, rtol=1e-9)   # a maximizer (ties)
            else:
                assert value < L_max - 1e-9 * abs(L_max)


# -- EM (algorithm, not a labelled result) ---------------------------------------------------

@settings(max_examples=10)
@given(ppca_problems(max_p=5, max_extra_n=60))
def test_em_is_monotone_and_reaches_the_closed_form(problem):
    X, k = problem
    lam_n, _ = spectrum_1_over_n(X)
    n, p = X.shape
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        em = pcalib.PPCA(k, method="em", random_state=0, max_iter=100_000).fit(X)
    # random spectra can have near-equal eigenvalues at k: EM then converges slowly, and
    # says so (with the rate it measured); it must not say anything else
    assert all("PPCA EM converged slowly" in str(w.message) for w in caught)
    assert not caught or em.n_iter_ >= 200
    sigma2 = lam_n[k:].mean()
    L_max = -n / 2 * (p * np.log(2 * np.pi) + np.log(lam_n[:k]).sum() + (p - k) * np.log(sigma2) + p)
    assert np.all(np.diff(em.loglik_history_) >= -1e-9 * abs(L_max))
    np.testing.assert_allclose(em.loglik_history_[-1], L_max, rtol=1e-6)
    np.testing.assert_allclose(scipy_loglik(X, em.mean_, em.W_, em.sigma2_), L_max, rtol=1e-6)


# -- prop-ppca-zero-noise ------------------------------------------------------------------

@theorem("prop-ppca-zero-noise")
@settings(max_examples=30)
@given(ppca_problems())
def test_ppca_reconstruction_is_the_shrunken_projection(problem):
    X, k = problem
    lam_n, V = spectrum_1_over_n(X)
    if not has_eigengap(lam_n, k):
        return
    model = pcalib.PPCA(k).fit(X)
    Vk, xbar = V[:, :k], X.mean(axis=0)
    shrunk = xbar + ((X - xbar) @ Vk) * (1 - model.sigma2_ / lam_n[:k]) @ Vk.T
    recon = model.inverse_transform(model.transform(X))
    np.testing.assert_allclose(recon, shrunk, atol=1e-8 * (np.abs(X - xbar).max() + 1))


@theorem("prop-ppca-zero-noise")
@settings(max_examples=30)
@given(ppca_problems(), st.integers(0, 2**32 - 1))
def test_posterior_mean_formula_and_limit_is_the_pca_projection(problem, seed):
    X, k = problem
    lam_n, V = spectrum_1_over_n(X)
    if not has_eigengap(lam_n, k):
        return
    Vk, lam_k = V[:, :k], lam_n[:k]
    R = np.linalg.qr(np.random.default_rng(seed).normal(size=(k, k)))[0]
    Y = X - X.mean(axis=0)
    sklearn_pca = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    pca_reconstruction = sklearn_pca.inverse_transform(sklearn_pca.transform(X))
    errors = []
    for sigma2 in lam_k[-1] * np.array([0.5, 1e-2, 1e-4, 1e-6]):
        W = Vk * np.sqrt(lam_k - sigma2) @ R
        M = W.T @ W + sigma2 * np.eye(k)
        posterior_mean = np.linalg.solve(M, W.T @ Y.T).T                    # prop-ppca-posterior
        formula = (Y @ Vk) * (np.sqrt(lam_k - sigma2) / lam_k) @ R                 # rows: (R^T (tL - s)^1/2 tL^-1 V_k^T y)^T
        np.testing.assert_allclose(posterior_mean, formula, atol=1e-8 * (np.abs(formula).max() + 1))
        errors.append(np.abs(X.mean(axis=0) + posterior_mean @ W.T - pca_reconstruction).max())
    scale = np.abs(Y).max() + 1
    assert errors[-1] < 1e-5 * scale
    assert errors[0] >= errors[1] >= errors[2] - 1e-9 * scale


# -- noise_variance_ against scikit-learn's (the section "PCA's score is a PPCA likelihood") --

@pytest.mark.parametrize("n", [40, 6])
def test_noise_variance_is_scikit_learns_rescaled_and_recounted(n):
    """PPCA's ``noise_variance_`` averages the discarded eigenvalues of S_n over p - k;
    scikit-learn's averages those of S over min(n, p) - k. For n >= p the two differ by
    the divisor only; for n < p also by the count, (n - k)/(p - k)."""
    p, k = 8, 2
    X = np.random.default_rng(3).normal(size=(n, p)) * np.linspace(3.0, 0.5, p)
    sklearn_noise = SklearnPCA(n_components=k, svd_solver="full").fit(X).noise_variance_
    with_divisor_n = sklearn_noise * (n - 1) / n
    count = 1.0 if n >= p else (n - k) / (p - k)
    ppca = pcalib.PPCA(k).fit(X)
    np.testing.assert_allclose(ppca.noise_variance_, count * with_divisor_n, rtol=1e-10)
    lam_n, _ = spectrum_1_over_n(X)                          # the likelihood's own count
    np.testing.assert_allclose(ppca.noise_variance_, lam_n[k:].mean(), rtol=1e-10)

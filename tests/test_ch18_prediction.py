"""Tests of the results of the chapter "PCA and prediction" (book/18_pca_and_prediction.md).

Every result is checked against routes independent of pcalib's formula: NumPy's least
squares and SVD written out here, scikit-learn's Ridge and PLSRegression, exact linear
algebra of the estimator's linear map (PCR fitted to the columns of the identity), and
Monte Carlo over many noise draws.

Notation of the book: X_c = U Sigma V^T (rank r), y_c the centered response, PCR with k
components has coefficients sum_{j <= k} (u_j^T y_c / sigma_j) v_j.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import pcalib

theorem = pytest.mark.theorem


@st.composite
def regressions(draw):
    """Seeded (X, y, k): n, p from 3 to 12 (n < p included), k <= rank X_c, any offset."""
    n = draw(st.integers(3, 12))
    p = draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = 10.0 ** draw(st.integers(-2, 2))
    X = scale * rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) + 10.0 ** draw(st.integers(0, 3))
    y = rng.standard_normal(n) * 10.0 ** draw(st.integers(-2, 2)) + 5.0
    k = draw(st.integers(1, min(n - 1, p)))
    return X, y, k


def numpy_svd(X):
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return Xc, U, s, Vt


# -- the coefficients ---------------------------------------------------------------------------


@theorem("prop-pcr-coefficients")
@given(regressions())
@settings(max_examples=60, deadline=None)
def test_pcr_coefficients_fitted_values_and_minimum_over_the_span(data):
    X, y, k = data
    Xc, U, s, Vt = numpy_svd(X)
    yc = y - y.mean()
    if s[k - 1] < 1e-8 * s[0]:  # k beyond the numerical rank: nothing to compare
        return
    model = pcalib.PCR(k).fit(X, y)
    formula = Vt[:k].T @ ((U[:, :k].T @ yc) / s[:k])
    scale = np.abs(formula).max() + 1e-300
    kappa = s[0] / s[k - 1]
    assert_allclose(model.coef_, formula, atol=1e-10 * kappa * scale)
    # fitted values are the projection U_k U_k^T y_c
    fitted = Xc @ model.coef_
    assert_allclose(fitted, U[:, :k] @ (U[:, :k].T @ yc), atol=1e-9 * kappa * np.abs(yc).max())
    # least squares over beta = V_k c, by NumPy's lstsq on X_c V_k (independent of U)
    c = np.linalg.lstsq(Xc @ Vt[:k].T, yc, rcond=None)[0]
    assert_allclose(model.coef_, Vt[:k].T @ c, atol=1e-9 * kappa * scale)
    assert_allclose(model.intercept_, y.mean() - X.mean(axis=0) @ model.coef_,
                    atol=1e-9 * kappa * (abs(y.mean()) + np.abs(X.mean(axis=0)) @ np.abs(model.coef_)))


@theorem("prop-pcr-coefficients")
@given(st.integers(3, 10), st.integers(2, 14), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_pcr_with_every_component_is_minimum_norm_least_squares(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) + 3.0
    y = rng.standard_normal(n)
    r = min(n - 1, p)  # rank of the centered data, almost surely
    model = pcalib.PCR(r).fit(X, y)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    minimum_norm = np.linalg.lstsq(Xc, yc, rcond=None)[0]
    s = np.linalg.svd(Xc, compute_uv=False)
    assert_allclose(model.coef_, minimum_norm, atol=1e-9 * (s[0] / s[r - 1]) * (np.abs(minimum_norm).max() + 1))
    # any other least-squares solution is longer
    null = np.linalg.svd(Xc)[2][r:]
    if null.shape[0]:
        other = minimum_norm + null.T @ rng.standard_normal(null.shape[0])
        assert np.linalg.norm(Xc @ other - yc) <= np.linalg.norm(Xc @ minimum_norm - yc) + 1e-9
        assert np.linalg.norm(other) > np.linalg.norm(model.coef_)


@theorem("prop-pcr-r2")
@given(regressions(), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_r2_is_the_sum_of_squared_correlations_of_the_kept_scores(data, seed):
    X, y, k = data
    _, _, s, _ = numpy_svd(X)
    resolved = int(np.sum(s > 1e-8 * s[0]))
    k = min(k, resolved)
    model = pcalib.PCR(k).fit(X, y)
    scores = model.transform(X)
    r2 = np.array([np.corrcoef(scores[:, j], y)[0, 1] ** 2 for j in range(k)])  # NumPy's corrcoef
    assert_allclose(model.score(X, y), r2.sum(), atol=1e-9)
    # any subset J of the components: least squares on those scores (NumPy's lstsq)
    rng = np.random.default_rng(seed)
    subset = np.flatnonzero(rng.random(k) < 0.5)
    if subset.size:
        design = np.column_stack([np.ones(len(y)), scores[:, subset]])
        residual = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
        r2_subset = 1 - residual @ residual / np.sum((y - y.mean()) ** 2)
        assert_allclose(r2_subset, r2[subset].sum(), atol=1e-9)


@theorem("prop-pcr-r2")
def test_hadi_and_ling_the_last_component_carries_everything():
    rng = np.random.default_rng(1998)
    X = rng.standard_normal((60, 6)) @ np.diag([6.0, 5.0, 4.0, 3.0, 2.0, 0.05])
    last = pcalib.PCA(6).fit(X).transform(X)[:, -1]
    y = 7.0 + last
    r2 = [pcalib.PCR(k).fit(X, y).score(X, y) for k in range(1, 7)]
    assert_allclose(r2, [0, 0, 0, 0, 0, 1], atol=1e-9)


# -- bias and variance ------------------------------------------------------------------------


def design(n, p, sigmas, rng):
    """X with centered singular values `sigmas` and known axes (columns of V)."""
    Q = rng.standard_normal((n, p))
    Q = np.linalg.qr(Q - Q.mean(axis=0))[0]
    V = np.linalg.qr(rng.standard_normal((p, p)))[0]
    return (Q * sigmas) @ V.T + rng.standard_normal(p) * 3, V


def small_design(rng):
    """A design of 6 to 14 samples and 2 to 7 (fewer) features with known axes and
    singular values, for the exact tests: (X, V, sigmas)."""
    n, p = int(rng.integers(6, 15)), int(rng.integers(2, 8))
    p = min(p, n - 1)
    sigmas = np.sort(rng.uniform(0.2, 5.0, p))[::-1]
    X, V = design(n, p, sigmas, rng)
    return X, V, sigmas


def linear_map(X, k):
    """The n -> p map y -> beta_hat of PCR, read off by fitting the columns of I_n
    (PCR is linear in y; no SVD formula is used here)."""
    return pcalib.PCR(k).fit(X, np.eye(X.shape[0])).coef_.T  # p x n


@theorem("thm-pcr-bias-variance")
@pytest.mark.parametrize("seed", range(4))
def test_mean_and_covariance_by_monte_carlo(seed):
    rng = np.random.default_rng(seed)
    n, p, sigma = 30, 6, 0.7
    sigmas = np.geomspace(8, 0.3, p)
    X, V = design(n, p, sigmas, rng)
    beta = rng.standard_normal(p)
    replicates = 20000
    Y = 1.0 + (X @ beta)[:, None] + sigma * rng.standard_normal((n, replicates))
    for k in (1, 3, 6):
        coef = pcalib.PCR(k).fit(X, Y).coef_
        mean_theory = V[:, :k] @ V[:, :k].T @ beta
        cov_theory = sigma**2 * (V[:, :k] / sigmas[:k] ** 2) @ V[:, :k].T
        se = np.sqrt(np.diag(cov_theory) / replicates)
        assert np.all(np.abs(coef.mean(axis=0) - mean_theory) < 5 * se + 1e-12)
        empirical = np.cov(coef, rowvar=False)
        # each entry of a sample covariance has standard error <= sqrt(2 / replicates) * scale
        assert_allclose(empirical, cov_theory, atol=6 * np.sqrt(2 / replicates) * np.diag(cov_theory).max())
        mse = np.mean(np.sum((coef - beta) ** 2, axis=1))
        mse_theory = np.sum((V[:, k:].T @ beta) ** 2) + sigma**2 * np.sum(sigmas[:k] ** -2.0)
        assert_allclose(mse, mse_theory, rtol=0.03)


@theorem("thm-pcr-bias-variance")
@given(st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_exact_expectations_from_the_linear_map(seed):
    # beta_hat = A (X beta + eps) for the map A of PCR (with the intercept absorbed by
    # centering): E beta_hat = A X beta, Cov = sigma^2 A A^T, E||X_c(beta_hat - beta)||^2
    # = ||X_c (A X beta - beta)||^2 + sigma^2 ||X_c A||_F^2; all against the theorem.
    rng = np.random.default_rng(seed)
    X, V, sigmas = small_design(rng)
    n, p = X.shape
    Xc = X - X.mean(axis=0)
    beta, sigma = rng.standard_normal(p), float(rng.uniform(0.1, 2))
    for k in range(1, p + 1):
        A = linear_map(X, k)
        assert_allclose(A @ (X @ beta + 4.0), V[:, :k] @ V[:, :k].T @ beta, atol=1e-9)
        assert_allclose(sigma**2 * A @ A.T, sigma**2 * (V[:, :k] / sigmas[:k] ** 2) @ V[:, :k].T, atol=1e-9)
        fit_mse = np.sum((Xc @ (A @ X @ beta - beta)) ** 2) + sigma**2 * np.sum((Xc @ A) ** 2)
        theory = np.sum(sigmas[k:] ** 2 * (V[:, k:].T @ beta) ** 2) + k * sigma**2
        assert_allclose(fit_mse, theory, rtol=1e-9, atol=1e-12)


@theorem("thm-pcr-bias-variance")
@given(st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_prediction_at_a_new_point_bias_and_variance(seed):
    # y_hat(x) = w^T y for the weights w read off PCR fitted to the columns of I_n (the
    # intercept included): E y_hat = w^T (beta_0 + X beta), Var y_hat = sigma^2 ||w||^2;
    # against the theorem's -(x - xbar)^T (I - V_k V_k^T) beta and
    # sigma^2 (1/n + sum_{j <= k} t_j^2 / sigma_j^2), and SD^2 / (n - 1) for the sum.
    rng = np.random.default_rng(seed)
    X, V, sigmas = small_design(rng)
    n, p = X.shape
    X_new = X[:3] + 2.0 * rng.standard_normal((3, p))
    beta, beta_0 = rng.standard_normal(p), float(rng.normal(0, 5))
    for k in range(1, p + 1):
        model = pcalib.PCR(k).fit(X, np.eye(n))
        weights = model.predict(X_new)  # 3 x n: y_hat(x) = weights @ y
        residual = (X_new - X.mean(axis=0)) @ (np.eye(p) - V[:, :k] @ V[:, :k].T)
        bias = weights @ (beta_0 + X @ beta) - (beta_0 + X_new @ beta)
        assert_allclose(bias, -residual @ beta, atol=1e-9 * (1 + abs(beta_0)))
        t = (X_new - X.mean(axis=0)) @ V[:, :k]
        variance = 1 / n + np.sum(t**2 / sigmas[:k] ** 2, axis=1)  # over sigma^2
        assert_allclose(np.sum(weights**2, axis=1), variance, rtol=1e-9)
        pca = model.pca_  # SD^2 = sum_j t_j^2 / (sigma_j^2 / (n - 1))
        sd2 = np.sum(pca.transform(X_new) ** 2 / pca.explained_variance_, axis=1)
        assert_allclose(variance, 1 / n + sd2 / (n - 1), rtol=1e-9)


@theorem("cor-pcr-drop")
@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_keeping_component_k_pays_exactly_when_its_signal_exceeds_the_noise(seed):
    # the mean squared error of the coefficients from the linear map (exact, not the
    # theorem's formula); its change at each k has the sign the corollary gives
    rng = np.random.default_rng(seed)
    n, p = 12, 6
    sigmas = np.sort(rng.uniform(0.1, 4.0, p))[::-1]
    X, V = design(n, p, sigmas, rng)
    beta = V @ (rng.standard_normal(p) * rng.uniform(0, 2, p))
    sigma = float(rng.uniform(0.2, 2.0))
    mse = [np.sum(beta**2)]  # k = 0: beta_hat = 0
    for k in range(1, p + 1):
        A = linear_map(X, k)
        mse.append(np.sum((A @ X @ beta - beta) ** 2) + sigma**2 * np.sum(A**2))
    change = np.diff(mse)
    signal = sigmas * np.abs(V.T @ beta)
    decided = np.abs(signal - sigma) > 1e-6 * sigma
    assert np.array_equal((change < 0)[decided], (signal > sigma)[decided])
    assert_allclose(change, sigma**2 / sigmas**2 - (V.T @ beta) ** 2, atol=1e-9 * max(mse))


# -- filter factors --------------------------------------------------------------------------


@theorem("prop-pcr-filter-factors")
@given(regressions(), st.floats(1e-3, 1e3))
@settings(max_examples=25, deadline=None)
def test_ridge_and_pcr_filter_factors(data, alpha):
    from sklearn.linear_model import Ridge

    X, y, k = data
    Xc, U, s, Vt = numpy_svd(X)
    yc = y - y.mean()
    alpha = alpha * s[0] ** 2 * 1e-2  # penalties on the scale of the data
    keep = s > 1e-10 * s[0]
    U, s, Vt = U[:, keep], s[keep], Vt[keep]
    zeta = s**2 / (s**2 + alpha)
    by_factors = Vt.T @ (zeta * (U.T @ yc) / s)
    ridge = Ridge(alpha=alpha, solver="svd").fit(X, y)
    assert_allclose(ridge.coef_, by_factors, atol=1e-8 * (np.abs(by_factors).max() + 1e-300))
    # the effective number of parameters: the trace of the hat map, formed explicitly
    hat = Xc @ np.linalg.solve(Xc.T @ Xc + alpha * np.eye(X.shape[1]), Xc.T)
    assert_allclose(np.trace(hat), zeta.sum(), rtol=1e-8)
    # PCR: factors 1 for j <= k, 0 after; the hat map U_k U_k^T has trace k
    k = min(k, int(keep.sum()))
    pcr_factors = (np.arange(s.size) < k).astype(float)
    assert_allclose(pcalib.PCR(k).fit(X, y).coef_, Vt.T @ (pcr_factors * (U.T @ yc) / s),
                    atol=1e-9 * (s[0] / s[k - 1]) * (np.abs(by_factors).max() + np.abs(yc).max() / s[k - 1]))
    hat_pcr = Xc @ linear_map(X, k)
    assert_allclose(np.trace(hat_pcr), k, atol=1e-8)


# -- partial least squares ---------------------------------------------------------------------


@theorem("prop-pls-first-direction")
@given(regressions(), st.integers(0, 2**32 - 1))
@settings(max_examples=50, deadline=None)
def test_first_pls_weight_maximizes_the_squared_covariance(data, seed):
    from sklearn.cross_decomposition import PLSRegression

    X, y, _ = data
    Xc, U, s, Vt = numpy_svd(X)
    yc = y - y.mean()
    direction = Xc.T @ yc
    if np.linalg.norm(direction) < 1e-8 * s[0] * np.linalg.norm(yc):
        return
    w1 = direction / np.linalg.norm(direction)
    pls = PLSRegression(1, scale=False).fit(X, y)
    assert_allclose(np.abs(pls.x_weights_[:, 0] @ w1), 1.0, atol=1e-8)
    best = (w1 @ direction) ** 2
    rng = np.random.default_rng(seed)
    for w in rng.standard_normal((200, X.shape[1])):
        w /= np.linalg.norm(w)
        assert (w @ direction) ** 2 <= best * (1 + 1e-12)
    # the factorization cov^2 = var(t) var(y) corr(t, y)^2, and w1 in terms of the SVD
    t = Xc @ w1
    if np.var(t) > 0:
        corr = np.corrcoef(t, y)[0, 1]
        cov = np.cov(t, y)[0, 1]
        assert_allclose(cov**2, np.var(t, ddof=1) * np.var(y, ddof=1) * corr**2, rtol=1e-9)
    assert_allclose(direction, Vt.T @ (s * (U.T @ yc)), atol=1e-9 * np.linalg.norm(direction))


@theorem("prop-pls-first-direction")
def test_pcas_first_axis_has_more_variance_and_plss_more_covariance_on_the_spectra():
    from sklearn.cross_decomposition import PLSRegression

    gas = pcalib.datasets.load_gasoline()
    X, y = gas.data, gas.target
    Xc = X - X.mean(axis=0)
    pls_score = Xc @ PLSRegression(1, scale=False).fit(X, y).x_weights_[:, 0]
    pca_score = pcalib.PCA(1).fit(X).transform(X)[:, 0]
    assert np.var(pca_score) > np.var(pls_score)
    assert abs(np.cov(pls_score, y)[0, 1]) > abs(np.cov(pca_score, y)[0, 1])

"""Tests of pcalib.ppca: closed form vs EM, likelihood vs scipy, sigma2 -> 0 limit.

References: numpy.linalg.eigh of the 1/n covariance written out here,
scipy.stats.multivariate_normal.
"""

import numpy as np
import pytest
from numpy_references import ppca_closed_form
from scipy.stats import multivariate_normal

from pcalib import PPCA, NotFittedError
from pcalib.ppca import _gaussian_log_likelihood


def ppca_data(n=300, p=6, k=2, noise=0.5, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((p, k)) * np.array([4.0, 2.5, 1.5, 1.0][:k])
    X = rng.standard_normal((n, k)) @ W.T + noise * rng.standard_normal((n, p)) + rng.uniform(-5, 5, p)
    return X


def test_closed_form_matches_formula_from_numpy_eigh():
    X = ppca_data()
    k = 2
    W_ref, sigma2 = ppca_closed_form(X, k)
    model = PPCA(k).fit(X)
    assert model.sigma2_ == pytest.approx(sigma2, rel=1e-12)
    np.testing.assert_allclose(np.abs(model.W_), np.abs(W_ref), atol=1e-10)
    idx = np.argmax(np.abs(model.W_), axis=0)
    assert np.all(model.W_[idx, np.arange(k)] > 0)
    np.testing.assert_allclose(model.mean_, X.mean(axis=0))
    assert model.n_iter_ == 0 and model.loglik_history_.shape == (1,)


def test_log_likelihood_matches_scipy():
    X = ppca_data(seed=1)
    model = PPCA(2).fit(X)
    C = model.W_ @ model.W_.T + model.sigma2_ * np.eye(X.shape[1])
    ref = multivariate_normal(mean=model.mean_, cov=C).logpdf(X)
    np.testing.assert_allclose(model.score_samples(X), ref, rtol=1e-10)
    assert model.score(X) == pytest.approx(ref.mean(), rel=1e-10)
    assert model.loglik_history_[-1] == pytest.approx(ref.sum(), rel=1e-10)


def test_gaussian_log_likelihood_with_zero_noise():
    rng = np.random.default_rng(2)
    W = rng.standard_normal((3, 3))
    X = rng.standard_normal((5, 3))
    mu = np.array([1.0, -1.0, 0.5])
    ref = multivariate_normal(mean=mu, cov=W @ W.T).logpdf(X)
    np.testing.assert_allclose(_gaussian_log_likelihood(X, mu, W, 0.0), ref, rtol=1e-10)


def test_gaussian_log_likelihood_singular_covariance_rejected():
    W = np.ones((3, 1))
    with pytest.raises(ValueError, match="the model covariance W W\\^T is singular"):
        _gaussian_log_likelihood(np.zeros((2, 3)), np.zeros(3), W, 0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_em_converges_to_the_closed_form(seed):
    X = ppca_data(seed=seed)
    closed = PPCA(2).fit(X)
    em = PPCA(2, method="em", random_state=seed).fit(X)
    assert em.loglik_history_[-1] == pytest.approx(closed.loglik_history_[0], rel=1e-9)
    assert em.score(X) == pytest.approx(closed.score(X), rel=1e-9)
    assert em.sigma2_ == pytest.approx(closed.sigma2_, rel=1e-4)
    np.testing.assert_allclose(em.W_, closed.W_, atol=1e-3 * np.abs(closed.W_).max())
    assert em.n_iter_ > 1
    # EM never decreases the likelihood
    assert np.all(np.diff(em.loglik_history_) >= -1e-9 * np.abs(em.loglik_history_[-1]))


def test_sigma2_to_zero_gives_pca_subspace():
    rng = np.random.default_rng(3)
    n, p, k = 500, 5, 2
    Z = rng.standard_normal((n, k)) * [3.0, 1.0]
    B = np.linalg.qr(rng.standard_normal((p, k)))[0]
    for noise, tol in [(1e-1, 1e-1), (1e-3, 1e-3), (1e-6, 1e-6)]:
        X = Z @ B.T + noise * rng.standard_normal((n, p))
        model = PPCA(k).fit(X)
        Xc = X - X.mean(axis=0)
        _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
        lam = s**2 / n
        # W -> V_k Lambda_k^(1/2) as sigma2 -> 0
        np.testing.assert_allclose(np.abs(model.W_), np.abs(Vt[:k].T * np.sqrt(lam[:k])), atol=tol * 10)
        Q = np.linalg.qr(model.W_)[0]
        assert np.linalg.norm(Vt[:k].T - Q @ (Q.T @ Vt[:k].T), 2) < tol
        assert model.sigma2_ == pytest.approx(noise**2, rel=0.3)


def test_transform_is_posterior_mean_and_inverse():
    X = ppca_data(seed=4)
    model = PPCA(2).fit(X)
    W, s2, mu = model.W_, model.sigma2_, model.mean_
    M = W.T @ W + s2 * np.eye(2)
    Z = model.transform(X)
    np.testing.assert_allclose(Z, np.linalg.solve(M, W.T @ (X - mu).T).T, rtol=1e-10)
    np.testing.assert_allclose(model.inverse_transform(Z), Z @ W.T + mu, rtol=1e-12)


def test_sample_has_the_model_moments():
    X = ppca_data(seed=5)
    model = PPCA(2).fit(X)
    Y = model.sample(40000, random_state=0)
    C = model.W_ @ model.W_.T + model.sigma2_ * np.eye(X.shape[1])
    np.testing.assert_allclose(Y.mean(axis=0), model.mean_, atol=0.1)
    np.testing.assert_allclose(np.cov(Y, rowvar=False), C, atol=0.05 * np.abs(C).max())
    np.testing.assert_array_equal(model.sample(5, random_state=1), model.sample(5, random_state=1))


def test_inputs_untouched_and_repeatable():
    X = ppca_data(seed=6)
    X0 = X.copy()
    a = PPCA(2).fit(X)
    b = PPCA(2).fit(X)
    np.testing.assert_array_equal(a.W_, b.W_)
    a.transform(X)
    a.score_samples(X)
    np.testing.assert_array_equal(X, X0)
    e1 = PPCA(2, method="em", random_state=0).fit(X)
    e2 = PPCA(2, method="em", random_state=0).fit(X)
    np.testing.assert_array_equal(e1.W_, e2.W_)


def test_em_warns_when_not_converged():
    X = ppca_data(seed=7)
    with pytest.warns(UserWarning, match="PPCA EM did not converge in max_iter=2"):
        PPCA(2, method="em", max_iter=2, random_state=0).fit(X)


# -- one test per bad input ----------------------------------------------------


def test_transform_before_fit_rejected():
    with pytest.raises(NotFittedError, match="not fitted yet"):
        PPCA(2).transform(np.ones((3, 4)))


def test_unknown_method_rejected():
    with pytest.raises(ValueError, match='method must be "closed_form" or "em"'):
        PPCA(2, method="mcmc").fit(ppca_data())


def test_n_components_equal_to_features_rejected():
    with pytest.raises(ValueError, match=r"n_components must be smaller than the number of features \(6\), got 6"):
        PPCA(6).fit(ppca_data())


def test_n_components_zero_rejected():
    with pytest.raises(ValueError, match="n_components must be between 1 and"):
        PPCA(0).fit(ppca_data())


def test_n_components_not_integer_rejected():
    with pytest.raises(TypeError, match="n_components must be an integer"):
        PPCA(1.5).fit(ppca_data())


def test_bad_max_iter_rejected():
    with pytest.raises(ValueError, match="max_iter must be a positive integer"):
        PPCA(2, method="em", max_iter=0).fit(ppca_data())


def test_bad_tol_rejected():
    with pytest.raises(ValueError, match="tol must be a positive number"):
        PPCA(2, method="em", tol=-1.0).fit(ppca_data())


def test_zero_noise_rejected():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((20, 2)) @ rng.standard_normal((2, 5))  # rank 2
    with pytest.raises(ValueError, match="the noise variance estimate is 0"):
        PPCA(2).fit(X)


def test_wrong_feature_count_rejected():
    model = PPCA(2).fit(ppca_data())
    with pytest.raises(ValueError, match="X has 5 features, but PPCA is expecting 6 features as input"):
        model.score_samples(np.ones((3, 5)))


def test_wrong_latent_dimension_rejected():
    model = PPCA(2).fit(ppca_data())
    with pytest.raises(ValueError, match="Z has 3 columns, expected n_components = 2"):
        model.inverse_transform(np.ones((3, 3)))


def test_bad_sample_size_rejected():
    model = PPCA(2).fit(ppca_data())
    with pytest.raises(ValueError, match="n must be a positive integer"):
        model.sample(0)


def test_infinity_rejected():
    X = ppca_data()
    X[0, 0] = np.inf  # NaN is a missing value (tests/test_missing.py), infinity an error
    with pytest.raises(ValueError, match="infinity"):
        PPCA(2).fit(X)


def test_one_sample_rejected():
    with pytest.raises(ValueError, match="X needs at least 2 samples"):
        PPCA(1).fit(np.ones((1, 4)))


def test_score_samples_of_rows_with_holes_is_the_observed_marginal():
    """PPCA.score_samples refused NaN (issue 21 item 9); a row with holes now scores the
    log-density of its observed entries, checked against scipy's multivariate normal of
    each row's observed sub-vector under N(mu_o, W_o W_o^T + sigma^2 I)."""
    from scipy.stats import multivariate_normal

    X = ppca_data()
    model = PPCA(2).fit(X)
    rng = np.random.default_rng(3)
    X_holes = X[:40].copy()
    X_holes[rng.random(X_holes.shape) < 0.3] = np.nan
    X_holes[np.isnan(X_holes).all(axis=1), 0] = X[:40][np.isnan(X_holes).all(axis=1), 0]
    C = model.W_ @ model.W_.T + model.sigma2_ * np.eye(X.shape[1])
    expected = []
    for row in X_holes:
        o = ~np.isnan(row)
        expected.append(multivariate_normal(model.mean_[o], C[np.ix_(o, o)]).logpdf(row[o]))
    np.testing.assert_allclose(model.score_samples(X_holes), expected, rtol=1e-12)
    complete = ~np.isnan(X_holes).any(axis=1)
    np.testing.assert_allclose(model.score_samples(X_holes)[complete],
                               model.score_samples(X_holes[complete]), rtol=1e-12)
    assert np.isnan(X_holes).sum() > 0  # the input is not modified


def test_slow_em_warns_and_measures_the_eigenvalue_ratio():
    """EM with near-equal eigenvalues around the k-th converged in hundreds of iterations
    without a word (issue 21 item 9: about 950 iterations and 22 s at k = 10). Its column
    space moves like a power iteration of S, so the rate it reports must be
    lambda_(k+1)/lambda_k, computed here by numpy.linalg.eigvalsh; a fit whose
    eigenvalues are well separated stays silent."""
    import re
    import warnings

    X = np.random.default_rng(2).standard_normal((150, 12))  # pure noise: no gap
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    with pytest.warns(UserWarning, match="PPCA EM converged slowly") as caught:
        model = PPCA(5, method="em", random_state=0).fit(X)
    assert model.n_iter_ >= 200
    message = str(caught[0].message)
    assert "eigenvalues 5 and 6 are nearly equal" in message
    rate = float(re.search(r"by a factor (\d\.\d+)", message).group(1))
    assert rate == pytest.approx(lam[5] / lam[4], abs=0.005)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # a gap: fast, and nothing to say
        assert PPCA(2, method="em", random_state=0).fit(ppca_data()).n_iter_ < 200

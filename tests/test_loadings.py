"""PCA.loadings_: the axes scaled by the square roots of their eigenvalues (book/notation.md).

Each entry is checked against what a loading means, computed with NumPy alone:
the covariance of feature i with score j over the standard deviation of score j
(np.cov), the SVD of the centered data, and L L^T = S at full rank.
"""

import numpy as np
import pytest

from pcalib import PCA, NotFittedError


def correlated(n=200, p=5, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) + offset


def feature_score_cov_over_sd(X, T, ddof=1):
    """cov(x_i, t_j) / sd(t_j) from np.cov of the stacked columns."""
    p = X.shape[1]
    C = np.cov(np.hstack([X, T]).T, ddof=ddof)
    return C[:p, p:] / np.sqrt(np.diag(C)[p:])


@pytest.mark.parametrize("k", [1, 3, 5])
def test_loading_is_covariance_of_feature_and_score_over_score_sd(k):
    X = correlated()
    pca = PCA(k).fit(X)
    T = pca.transform(X)
    np.testing.assert_allclose(pca.loadings_, feature_score_cov_over_sd(X, T), rtol=1e-10, atol=1e-12)


def test_loadings_from_numpy_svd():
    X = correlated(offset=1e3)
    n = X.shape[0]
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    pivots = Vt[np.arange(3), np.argmax(np.abs(Vt[:3]), axis=1)]  # largest entry positive
    expected = (Vt[:3] * np.sign(pivots)[:, None]).T * (s[:3] / np.sqrt(n - 1))
    np.testing.assert_allclose(PCA(3).fit(X).loadings_, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("ddof", [0, 1])
def test_full_rank_loadings_rebuild_the_covariance(ddof):
    X = correlated(p=4, seed=1)
    L = PCA(ddof=ddof).fit(X).loadings_
    np.testing.assert_allclose(L @ L.T, np.cov(X.T, ddof=ddof), rtol=1e-10, atol=1e-12)


def test_standardized_loadings_are_correlations():
    X = correlated(seed=2) * np.array([1.0, 10.0, 100.0, 0.1, 1e4])
    pca = PCA(3, standardize=True).fit(X)
    p = X.shape[1]
    R = np.corrcoef(np.hstack([X, pca.transform(X)]).T)
    np.testing.assert_allclose(pca.loadings_, R[:p, p:], rtol=1e-10, atol=1e-12)
    assert np.all(np.abs(pca.loadings_) <= 1 + 1e-12)


def test_whitening_does_not_change_loadings():
    X = correlated(seed=3)
    np.testing.assert_allclose(PCA(3, whiten=True).fit(X).loadings_, PCA(3).fit(X).loadings_, rtol=1e-12)


def test_shape_and_dtype():
    X = correlated(p=6, seed=4)
    assert PCA(2).fit(X).loadings_.shape == (6, 2)
    L32 = PCA(2).fit(X.astype(np.float32)).loadings_
    assert L32.dtype == np.float32
    np.testing.assert_allclose(L32, PCA(2).fit(X).loadings_, rtol=1e-4, atol=1e-5)


def test_not_fitted():
    assert not hasattr(PCA(), "loadings_")
    with pytest.raises(NotFittedError, match="not fitted yet"):
        PCA().loadings_  # noqa: B018 (reading the property raises)

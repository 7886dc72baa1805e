"""The results of the chapter *Categories, counts and compositions*, checked on data
other than the chapter's: random tables, compositions and categorical columns."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose

import pcalib


@pytest.mark.theorem("thm-ca-inertia")
@pytest.mark.parametrize(("a", "b"), [(2, 2), (3, 7), (12, 4), (30, 30)])
def test_inertia_rank_and_chi2(a, b):
    rng = np.random.default_rng(a * 100 + b)
    N = rng.poisson(20 * rng.gamma(1.5, size=(a, b))) + 1
    k = min(a, b) - 1
    ca = pcalib.CA(k).fit(N)
    chi2 = scipy.stats.chi2_contingency(N, correction=False)[0] if min(a, b) > 1 else 0.0
    assert_allclose(ca.eigenvalues_.sum(), chi2 / N.sum(), rtol=1e-11)
    # E's singular values from NumPy: exactly min(a, b) - 1 of them non-zero
    P = N / N.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    E = (P - np.outer(r, c)) / np.sqrt(np.outer(r, c))
    s = np.linalg.svd(E, compute_uv=False)
    assert s[k - 1] > 1e-8 and (s.size == k or s[k] < 1e-14)
    assert_allclose(ca.eigenvalues_, s[:k] ** 2, rtol=1e-10)


@pytest.mark.theorem("prop-ca-chi2-distance")
def test_column_map_shows_column_chi2_distances():
    rng = np.random.default_rng(9)
    N = rng.poisson(15 * rng.gamma(2.0, size=(6, 10))) + 1
    ca = pcalib.CA(5).fit(N)
    P = N / N.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    prof = (P / c).T  # column profiles, b x a
    d2 = (((prof[:, None, :] - prof[None, :, :]) ** 2) / r).sum(axis=2)
    G = ca.column_coordinates_
    assert_allclose(((G[:, None, :] - G[None, :, :]) ** 2).sum(axis=2), d2, atol=1e-13)


@pytest.mark.theorem("prop-ca-transition")
def test_supplementary_row_equals_refit_limit():
    """A supplementary row is placed where a row of vanishing mass with that profile
    would be in a refit (the transition formula as a limit)."""
    rng = np.random.default_rng(10)
    N = (rng.poisson(40 * rng.gamma(2.0, size=(7, 5))) + 1).astype(float)
    h = np.array([5.0, 1.0, 9.0, 2.0, 3.0])
    ca = pcalib.CA(3).fit(N)
    tiny = pcalib.CA(3).fit(np.vstack([N, 1e-9 * h]))
    s = np.where(np.sum(ca.column_coordinates_ * tiny.column_coordinates_, axis=0) < 0, -1, 1)
    assert_allclose(tiny.row_coordinates_[-1] * s, ca.transform([h])[0], atol=1e-7)


@pytest.mark.theorem("prop-mca-two-columns")
def test_two_column_mca_on_random_categories():
    rng = np.random.default_rng(11)
    x = rng.integers(0, 5, 400)
    y = (x + rng.integers(0, 3, 400)) % 6  # associated with x; 6 levels
    mca = pcalib.MCA(9).fit(np.column_stack([x, y]))
    N = np.zeros((5, 6))
    np.add.at(N, (x, y), 1)
    theta = pcalib.CA(4).fit(N).eigenvalues_
    lam = mca.all_eigenvalues_
    assert lam.size == 9  # b - p = 11 - 2
    assert_allclose(lam[:4], (1 + np.sqrt(theta)) / 2, rtol=1e-11)
    assert_allclose(lam[-4:], (1 - np.sqrt(theta[::-1])) / 2, rtol=1e-9)
    assert_allclose(lam[4], 0.5, rtol=1e-12)  # b - 2 - 2m = 11 - 2 - 8 = 1 axis at 1/2
    assert_allclose(mca.adjusted_eigenvalues_, theta, rtol=1e-9)
    assert_allclose(mca.greenacre_ratio_, theta / theta.sum(), rtol=1e-9)


@pytest.mark.theorem("prop-closure-negative")
@pytest.mark.parametrize("p", [2, 3, 6])
def test_closed_covariance_rows_sum_to_zero(p):
    rng = np.random.default_rng(p)
    X = pcalib.closure(rng.gamma(2.0, size=(500, p)), total=100)
    S = np.cov(X, rowvar=False)
    assert_allclose(S.sum(axis=1), 0, atol=1e-11 * np.abs(S).max())
    off = ~np.eye(p, dtype=bool)
    assert_allclose(S[off].sum(), -np.trace(S), rtol=1e-10)
    assert S[off].mean() < 0
    if p == 2:  # two closed parts are perfectly negatively correlated
        assert_allclose(np.corrcoef(X, rowvar=False)[0, 1], -1, rtol=1e-12)


@pytest.mark.theorem("prop-clr-singular")
def test_clr_covariance_singular_and_axes_log_contrasts():
    rng = np.random.default_rng(12)
    X = np.exp(rng.normal(size=(200, 6)) @ rng.normal(size=(6, 6)))
    Y = pcalib.clr(X)
    S = np.cov(Y, rowvar=False)
    lam, V = np.linalg.eigh(S)
    assert lam[0] < 1e-13 * lam[-1] and np.linalg.matrix_rank(S) == 5
    assert_allclose(np.abs(V[:, 0]), 1 / np.sqrt(6), rtol=1e-10)  # the null vector is 1
    pca = pcalib.PCA(5).fit(Y)
    assert_allclose(pca.components_.sum(axis=1), 0, atol=1e-12)
    assert_allclose(pca.transform(pcalib.clr(3.0 * X)), pca.transform(Y), atol=1e-12)


@pytest.mark.theorem("prop-ca-biplot")
@pytest.mark.parametrize("seed", range(3))
def test_row_principal_map_reconstructs_observed_over_expected(seed):
    rng = np.random.default_rng(seed)
    N = rng.poisson(20 * rng.gamma(1.5, size=(7, 5))) + 1
    ca = pcalib.CA(4).fit(N)  # all min(a, b) - 1 axes
    P = N / N.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    assert_allclose(ca.row_coordinates_ @ ca.column_standard_coordinates_.T, P / np.outer(r, c) - 1, atol=1e-12)
    # two axes: the weighted rank-2 least-squares approximation (Eckart-Young on E)
    E = (P - np.outer(r, c)) / np.sqrt(np.outer(r, c))
    U, s, Vt = np.linalg.svd(E)
    E2 = (U[:, :2] * s[:2]) @ Vt[:2]
    two = ca.row_coordinates_[:, :2] @ ca.column_standard_coordinates_[:, :2].T
    assert_allclose(two * np.sqrt(np.outer(r, c)), E2, atol=1e-12)


def categorical_table(seed: int, n: int = 300) -> np.ndarray:
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=n)
    return np.column_stack([
        np.digitize(latent * w + rng.normal(size=n), [-1.0, 0.0, 1.0][: levels - 1])
        for w, levels in [(1.0, 4), (0.6, 3), (0.3, 2), (0.8, 4)]
    ])


@pytest.mark.theorem("prop-mca-eta2")
@pytest.mark.parametrize("seed", range(3))
def test_mca_inertia_is_the_mean_correlation_ratio_and_the_maximum(seed):
    X = categorical_table(seed)
    mca = pcalib.MCA(4).fit(X)
    n, p = X.shape
    F = mca.row_coordinates_
    # eta2 from first principles: between-group variance of the row scores over lambda
    eta2 = np.array([[sum(np.sum(X[:, q] == v) / n * F[X[:, q] == v, s].mean() ** 2
                          for v in np.unique(X[:, q])) / mca.eigenvalues_[s] for s in range(4)]
                     for q in range(p)])
    assert_allclose(mca.eta2_, eta2, rtol=1e-10)
    assert_allclose(eta2.mean(axis=0), mca.eigenvalues_, rtol=1e-10)

    def mean_eta2(f):  # f: (n, m) scores of mean 0 and variance 1 (weights 1/n)
        return np.mean([sum(np.sum(X[:, q] == v) / n * f[X[:, q] == v].mean(axis=0) ** 2
                            for v in np.unique(X[:, q])) for q in range(p)], axis=0)

    rng = np.random.default_rng(seed + 10)
    f = rng.normal(size=(n, 500))
    f -= f.mean(axis=0)
    f /= np.sqrt((f**2).mean(axis=0))
    assert np.all(mean_eta2(f) <= mca.eigenvalues_[0] + 1e-12)  # none of 500 beats axis 1
    best = F[:, :1] / np.sqrt(mca.eigenvalues_[0])
    assert_allclose(mean_eta2(best), mca.eigenvalues_[0], rtol=1e-10)


@pytest.mark.theorem("prop-variation-matrix")
def test_variation_matrix_is_coherent_and_sums_to_the_clr_variance():
    rng = np.random.default_rng(13)
    X = np.exp(rng.normal(size=(150, 6)) @ rng.normal(size=(6, 6)))
    T = pcalib.variation_matrix(X)
    direct = np.array([[np.var(np.log(X[:, j] / X[:, l]), ddof=1) for l in range(6)] for j in range(6)])
    assert_allclose(T, direct, atol=1e-13)
    assert_allclose(pcalib.variation_matrix(pcalib.closure(X, total=100)), T, atol=1e-13)
    sub = [1, 3, 4]
    assert_allclose(pcalib.variation_matrix(X[:, sub]), T[np.ix_(sub, sub)], atol=1e-13)
    S = np.cov(pcalib.clr(X), rowvar=False)
    d = np.diag(S)
    assert_allclose(T, d[:, None] + d[None, :] - 2 * S, atol=1e-12)
    assert_allclose(T.sum() / 12, np.linalg.eigvalsh(S).sum(), rtol=1e-12)


@pytest.mark.theorem("prop-ilr-isometry")
def test_ilr_keeps_inner_products_and_pca():
    rng = np.random.default_rng(14)
    X = np.exp(rng.normal(size=(120, 5)) @ rng.normal(size=(5, 5)))
    C, Y = pcalib.clr(X), pcalib.ilr(X)
    assert_allclose(Y @ Y.T, C @ C.T, atol=1e-11)
    lam_c, V_c = np.linalg.eigh(np.cov(C, rowvar=False))
    lam_i, V_i = np.linalg.eigh(np.cov(Y, rowvar=False))
    assert_allclose(lam_i, lam_c[1:], rtol=1e-10)  # the clr zero eigenvalue dropped
    Psi = pcalib.ilr(np.exp(np.eye(5))).T  # rows: scikit-bio's default basis
    assert_allclose(np.abs(np.sum((Psi @ V_c[:, 1:]) * V_i, axis=0)), 1, rtol=1e-10)

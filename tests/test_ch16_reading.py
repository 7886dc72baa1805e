"""Tests of the results of the chapter "Reading the components"
(book/16_reading_components.md) that tests/test_reading.py and tests/test_sparse_pca.py
do not already name.

References: first principles in NumPy and SciPy (correlations, cosines, pairwise and
Mahalanobis distances, covariances), on random data of several shapes.
"""

import numpy as np
import pytest
import scipy.spatial.distance

import pcalib
from pcalib.reading import _varimax_step

theorem = pytest.mark.theorem


def data(n=40, p=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) * rng.uniform(0.5, 5, p) + 10


@theorem("prop-cos2-sums")
@pytest.mark.parametrize(("standardize", "ddof"), [(False, 1), (True, 1), (True, 0), (False, 0)])
def test_contributions_and_cos2_sum_as_stated_and_do_not_depend_on_the_divisor(standardize, ddof):
    X = data()
    model = pcalib.PCA(standardize=standardize, ddof=ddof).fit(X)
    other = pcalib.PCA(standardize=standardize, ddof=1 - ddof).fit(X)
    ctr_v, cos2_v = pcalib.variable_contributions(model), pcalib.variable_cos2(model)
    ctr_r, cos2_r = pcalib.row_contributions(model, X), pcalib.row_cos2(model, X)
    np.testing.assert_allclose(ctr_v.sum(axis=0), 100, atol=1e-10)
    np.testing.assert_allclose(ctr_r.sum(axis=0), 100, atol=1e-10)
    np.testing.assert_allclose(cos2_v.sum(axis=1), 1, atol=1e-12)
    np.testing.assert_allclose(cos2_r.sum(axis=1), 1, atol=1e-12)
    T = (X - X.mean(axis=0)) @ (model.components_ / model.scale_).T
    np.testing.assert_allclose(cos2_v, np.corrcoef(X.T, T.T)[:6, 6:] ** 2, atol=1e-12)
    for f, g in ((ctr_v, pcalib.variable_contributions(other)), (cos2_v, pcalib.variable_cos2(other)),
                 (ctr_r, pcalib.row_contributions(other, X)), (cos2_r, pcalib.row_cos2(other, X))):
        np.testing.assert_allclose(f, g, atol=1e-10)


@theorem("prop-biplot")
@pytest.mark.parametrize("seed", range(3))
def test_form_biplot_keeps_distances_and_covariance_biplot_keeps_covariances(seed):
    X = data(seed=seed)
    model = pcalib.PCA().fit(X)
    lam, V = model.explained_variance_, model.components_.T
    Xc = X - X.mean(axis=0)
    T = Xc @ V
    for alpha in (0.0, 0.3, 1.0):
        A, B = T * lam ** ((alpha - 1) / 2), V * lam ** ((1 - alpha) / 2)
        np.testing.assert_allclose(A @ B.T, Xc, atol=1e-9)
    pd = scipy.spatial.distance.pdist
    np.testing.assert_allclose(pd(T), pd(X), rtol=1e-10)  # alpha = 1
    S = np.cov(X.T)
    B0 = V * np.sqrt(lam)
    np.testing.assert_allclose(B0 @ B0.T, S, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(pd(T / np.sqrt(lam)), pd(X, "mahalanobis", VI=np.linalg.inv(S)), rtol=1e-8)


@theorem("prop-varimax-fixed-point")
def test_varimax_fixed_point_has_symmetric_r_transpose_b_and_no_ascent_direction():
    X = data(n=80, p=8, seed=4)
    L = pcalib.PCA(3, standardize=True).fit(X).loadings_
    A = L / np.linalg.norm(L, axis=1, keepdims=True)
    _, R = pcalib.varimax(L, tol=1e-13)
    B, polar = _varimax_step(A, R)
    np.testing.assert_allclose(R.T @ B, B.T @ R, atol=1e-10)
    np.testing.assert_allclose(np.abs(polar), np.abs(R), atol=1e-10)
    # every directional derivative tr(B^T R K), K antisymmetric, vanishes
    rng = np.random.default_rng(0)
    for _ in range(10):
        K = rng.standard_normal((3, 3))
        K -= K.T
        assert abs(np.trace(B.T @ R @ K)) < 1e-10


@theorem("prop-rotation-price")
@pytest.mark.parametrize("seed", range(3))
def test_orthogonal_rotation_keeps_communalities_and_uncorrelated_standardized_scores(seed):
    X = data(n=60, p=7, seed=seed)
    model = pcalib.PCA(3).fit(X)
    L, lam = model.loadings_, model.explained_variance_
    T = (X - X.mean(axis=0)) @ model.components_.T
    O = np.linalg.qr(np.random.default_rng(seed).standard_normal((3, 3)))[0]
    LO = L @ O
    np.testing.assert_allclose(np.sum(LO**2, axis=1), np.sum(L**2, axis=1), atol=1e-10)
    np.testing.assert_allclose(np.sum(LO**2), lam.sum(), rtol=1e-12)
    assert np.all(np.sum(LO**2, axis=0) <= lam[0] * (1 + 1e-12))
    scores = T / np.sqrt(lam) @ O
    np.testing.assert_allclose(np.cov(scores.T), np.eye(3), atol=1e-10)
    np.testing.assert_allclose(np.cov(X.T, scores.T)[:7, 7:], LO, atol=1e-9)
    np.testing.assert_allclose(np.cov((T @ O).T), O.T @ np.diag(lam) @ O, atol=1e-9)
    assert np.abs(np.cov((T @ O).T) - np.diag(np.diag(np.cov((T @ O).T)))).max() > 1e-3


@theorem("prop-test-value")
@pytest.mark.parametrize(("n", "n_g"), [(8, 3), (9, 1), (10, 5), (7, 6)])
def test_the_mean_of_a_random_group_has_the_stated_variance(n, n_g):
    """Every subset of size n_g (exhaustive): the mean of the group means is 0 and their
    mean square is lambda~ / n_g (n - n_g) / (n - 1), lambda~ the divisor-n variance."""
    import itertools

    t = np.random.default_rng(n + n_g).standard_normal(n)
    t -= t.mean()
    means = np.array([t[list(g)].mean() for g in itertools.combinations(range(n), n_g)])
    assert abs(means.mean()) < 1e-14
    np.testing.assert_allclose(np.mean(means**2), np.mean(t**2) / n_g * (n - n_g) / (n - 1), rtol=1e-12)
    # pcalib's test values are these means over that standard deviation
    X = data(n=n, p=3, seed=n_g)
    model = pcalib.PCA(2).fit(X)
    groups = np.array(["in" if i < n_g else "out" for i in range(n)])
    cat = pcalib.supplementary_categories(model, X, groups)
    T = (X - X.mean(axis=0)) @ model.components_.T
    sd = np.sqrt(np.mean(T**2, axis=0) / n_g * (n - n_g) / (n - 1))
    np.testing.assert_allclose(cat.v_test[0], T[:n_g].mean(axis=0) / sd, rtol=1e-10)


@theorem("prop-schur-deflation")
@pytest.mark.parametrize("seed", range(3))
def test_schur_deflation_leaves_the_covariance_of_the_residuals(seed):
    X = data(n=50, p=7, seed=seed)
    Xc = X - X.mean(axis=0)
    S = Xc.T @ Xc / 49
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((7, 3)) * (rng.random((7, 3)) < 0.5) + np.eye(7, 3)  # sparse-ish axes
    W /= np.linalg.norm(W, axis=0)
    current = S.copy()
    for j in range(3):
        Q = np.linalg.qr(Xc @ W[:, :j])[0] if j else np.zeros((50, 0))
        residual = Xc - Q @ (Q.T @ Xc)  # least squares on the earlier scores (QR)
        np.testing.assert_allclose(current, residual.T @ residual / 49, atol=1e-10)
        pull = current @ W[:, j]
        current = current - np.outer(pull, pull) / (W[:, j] @ pull)
        np.testing.assert_allclose(current @ W[:, j], 0.0, atol=1e-10)
    # SparsePCA's axes: w_j^T S_j w_j are its adjusted variances
    model = pcalib.SparsePCA(3, n_nonzero=3).fit(X)
    current = S.copy()
    for j, w in enumerate(model.components_):
        np.testing.assert_allclose(w @ current @ w, model.explained_variance_[j], rtol=1e-10)
        pull = current @ w
        current = current - np.outer(pull, pull) / (w @ pull)


@theorem("prop-biplot-reading")
@pytest.mark.parametrize("standardize", [False, True])
def test_values_read_off_a_biplot_correlate_with_the_data_as_the_root_of_the_plane_cos2(standardize):
    X = data(n=60, p=6, seed=5)
    model = pcalib.PCA(standardize=standardize).fit(X)
    Zs = (X - X.mean(axis=0)) / model.scale_
    V2 = model.components_[:2].T
    read = (Zs @ V2) @ V2.T
    r = [np.corrcoef(read[:, l], Zs[:, l])[0, 1] for l in range(6)]
    np.testing.assert_allclose(r, np.sqrt(pcalib.variable_cos2(model)[:, :2].sum(axis=1)), atol=1e-12)

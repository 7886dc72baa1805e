"""The results of the chapter "Maximum variance", checked against independent routes.

References used here and never the code under test: numpy.linalg.eigh / eigvalsh of
np.cov written out in the tests, scipy.optimize (SLSQP) solving the constrained
maximization without knowing about eigenvectors, and scikit-learn's PCA.
"""

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA

import pcalib

from shared_strategies import seeded_data

theorem = pytest.mark.theorem
ROUTES = (pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram)


def reference_eigh(X):
    """Eigenpairs of np.cov(X) in decreasing order, with the book's sign convention."""
    values, vectors = np.linalg.eigh(np.cov(X, rowvar=False).reshape(X.shape[1], X.shape[1]))
    values, vectors = values[::-1], vectors[:, ::-1]
    signs = np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])])
    return values, vectors * signs


def separated(values, j, rel=1e-3):
    """True if eigenvalue j is separated from its neighbours by rel * lambda_1."""
    gaps = [abs(values[j] - values[i]) for i in (j - 1, j + 1) if 0 <= i < len(values)]
    return values[0] > 0 and all(g > rel * values[0] for g in gaps)


def unit_vectors(rng, m, p):
    u = rng.normal(size=(m, p))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


# -- prop-maxvar-projected-variance ----------------------------------------------------

@theorem("prop-maxvar-projected-variance")
@given(seeded_data(), st.integers(0, 2**32 - 1))
def test_variance_of_projection_is_the_quadratic_form(X, seed):
    n, p = X.shape
    u = unit_vectors(np.random.default_rng(seed), 20, p)
    S = np.cov(X, rowvar=False).reshape(p, p)
    Xc, _ = pcalib.center(X)
    t = Xc @ u.T                                               # n x 20 scores
    scale = np.abs(X).max() ** 2 + 1.0
    np.testing.assert_allclose(t.mean(axis=0), 0.0, atol=1e-10 * np.sqrt(scale))
    # the variance of the raw projections X u equals that of the centered scores
    np.testing.assert_allclose(np.var(X @ u.T, axis=0, ddof=1), np.einsum("ij,jk,ik->i", u, S, u),
                               rtol=1e-6, atol=1e-9 * scale)
    np.testing.assert_allclose(np.var(t, axis=0, ddof=1), np.einsum("ij,jk,ik->i", u, S, u),
                               rtol=1e-9, atol=1e-12 * scale)


# -- thm-maxvar-first-component ---------------------------------------------------------

@theorem("thm-maxvar-first-component")
@given(seeded_data(min_rows=3))
def test_first_axis_and_variance_match_numpy_and_sklearn(X):
    values, vectors = reference_eigh(X)
    sklearn_pca = SklearnPCA(n_components=1, svd_solver="full").fit(X)
    for route in ROUTES:
        result = route(X, k=1)
        np.testing.assert_allclose(result.explained_variance[0], values[0], rtol=1e-8)
        np.testing.assert_allclose(result.explained_variance[0], sklearn_pca.explained_variance_[0], rtol=1e-8)
        np.testing.assert_allclose(np.var(result.scores[:, 0], ddof=1), values[0], rtol=1e-8)
        if separated(values, 0):
            np.testing.assert_allclose(result.components[0], vectors[:, 0], atol=1e-6)
            assert abs(abs(result.components[0] @ sklearn_pca.components_[0]) - 1) < 1e-6


@theorem("thm-maxvar-first-component")
@given(seeded_data(), st.integers(0, 2**32 - 1))
def test_no_unit_vector_beats_the_largest_eigenvalue(X, seed):
    p = X.shape[1]
    S = np.cov(X, rowvar=False).reshape(p, p)
    lambda_1 = np.linalg.eigvalsh(S)[-1]
    u = unit_vectors(np.random.default_rng(seed), 2000, p)
    assert np.einsum("ij,jk,ik->i", u, S, u).max() <= lambda_1 * (1 + 1e-12) + 1e-300
    # the maximum is attained: the first pcalib axis reaches lambda_1
    u1 = pcalib.pca_svd(X, k=1).components[0]
    np.testing.assert_allclose(u1 @ S @ u1, lambda_1, rtol=1e-8)


@theorem("thm-maxvar-first-component")
@given(seeded_data(max_cols=5, offset=False), st.integers(0, 2**32 - 1))
def test_stationary_points_are_exactly_the_eigenvectors(X, seed):
    p = X.shape[1]
    S = np.cov(X, rowvar=False).reshape(p, p)
    values, vectors = np.linalg.eigh(S)
    # every unit eigenvector is stationary, with multiplier = its eigenvalue = u^T S u
    for lam, u in zip(values, vectors.T):
        np.testing.assert_allclose(2 * S @ u - 2 * lam * u, 0.0, atol=1e-12 * values[-1])
        np.testing.assert_allclose(u @ S @ u, lam, atol=1e-12 * values[-1])
    # a unit vector that is not an eigenvector admits no multiplier: the best lambda
    # (least squares, u^T S u) leaves a non-zero residual
    if p >= 2 and values[-1] - values[0] > 1e-6 * values[-1]:
        rng = np.random.default_rng(seed)
        u = vectors @ unit_vectors(rng, 1, p)[0]
        weights = (vectors.T @ u) ** 2
        residual = np.linalg.norm(S @ u - (u @ S @ u) * u)
        # residual^2 = sum_j w_j (lambda_j - mean)^2: the weighted spread of the eigenvalues
        mean = weights @ values
        spread = weights @ (values - mean) ** 2
        np.testing.assert_allclose(residual**2, spread, rtol=1e-6, atol=1e-20 * values[-1] ** 2)
        if spread > 1e-12 * values[-1] ** 2:
            assert residual > 0


def constrained_maximum(S, previous, rng, starts=4):
    """max u^T S u subject to |u| = 1 and u orthogonal to the rows of `previous`, by SLSQP."""
    p = S.shape[0]
    constraints = [{"type": "eq", "fun": lambda u: u @ u - 1, "jac": lambda u: 2 * u}]
    constraints += [{"type": "eq", "fun": lambda u, v=v: v @ u, "jac": lambda u, v=v: v} for v in previous]
    runs = []
    for _ in range(starts):
        u0 = rng.normal(size=p)
        u0 /= np.linalg.norm(u0)
        runs.append(scipy.optimize.minimize(
            lambda u: -(u @ S @ u), u0, jac=lambda u: -2 * S @ u, constraints=constraints,
            method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000}))
    return min(runs, key=lambda run: run.fun).x


@theorem("thm-maxvar-first-component")
@theorem("thm-maxvar-dth-component")
@settings(max_examples=15)
@given(seeded_data(min_rows=6, max_cols=5, offset=False), st.integers(0, 2**32 - 1))
def test_sequential_constrained_maxima_are_the_eigenvalues(X, seed):
    rng = np.random.default_rng(seed)
    p = X.shape[1]
    S = np.cov(X, rowvar=False)
    S = S.reshape(p, p) / np.trace(S.reshape(p, p))           # scale 1: tolerances are relative
    values = np.linalg.eigvalsh(S)[::-1]
    components = pcalib.pca_svd(X).components
    for d in range(1, components.shape[0] + 1):
        previous = components[: d - 1]
        u = constrained_maximum(S, previous, rng)
        np.testing.assert_allclose(u @ S @ u, values[d - 1], atol=1e-7)
        # multipliers from the stationarity condition 2 S u = 2 lambda u + sum_j mu_j u_j
        A = np.column_stack([2 * u, *previous])
        coefficients = np.linalg.lstsq(A, 2 * S @ u, rcond=None)[0]
        np.testing.assert_allclose(coefficients[0], values[d - 1], atol=1e-6)
        np.testing.assert_allclose(coefficients[1:], 0.0, atol=1e-6)
        if separated(values, d - 1, rel=1e-2):
            assert abs(abs(u @ components[d - 1]) - 1) < 1e-4


@theorem("thm-maxvar-dth-component")
@given(seeded_data(max_cols=6, offset=False))
def test_multipliers_vanish_at_every_feasible_stationary_point(X):
    # Part 1 for the exact eigenvectors of numpy: with u_1..u_{d-1} the top eigenvectors,
    # every eigenvector u_m (m >= d) is feasible and stationary with mu = 0, lambda = lambda_m.
    p = X.shape[1]
    S = np.cov(X, rowvar=False).reshape(p, p)
    values, vectors = np.linalg.eigh(S)
    values, vectors = values[::-1], vectors[:, ::-1]
    scale = max(values[0], 1e-300)
    for d in range(1, p + 1):
        previous = vectors[:, : d - 1]
        for m in range(d - 1, p):
            u = vectors[:, m]
            A = np.column_stack([2 * u, previous])
            (lam, *mu), *_ = np.linalg.lstsq(A, 2 * S @ u, rcond=None)
            np.testing.assert_allclose(lam, values[m], atol=1e-10 * scale)
            np.testing.assert_allclose(mu, 0.0, atol=1e-10 * scale)
        # and the best feasible value is lambda_d: no unit vector of the complement beats it
        if d < p:
            rng = np.random.default_rng(d)
            complement = vectors[:, d - 1:]
            u = unit_vectors(rng, 500, p - d + 1) @ complement.T
            assert np.einsum("ij,jk,ik->i", u, S, u).max() <= values[d - 1] + 1e-10 * scale


@theorem("thm-maxvar-dth-component")
@given(seeded_data(min_rows=3))
def test_all_axes_match_sklearn_and_numpy(X):
    values, vectors = reference_eigh(X)
    k = min(X.shape)
    sklearn_pca = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    result = pcalib.pca_svd(X)
    np.testing.assert_allclose(result.explained_variance, values[:k], rtol=1e-7, atol=1e-9 * values[0])
    np.testing.assert_allclose(result.explained_variance, sklearn_pca.explained_variance_,
                               rtol=1e-7, atol=1e-9 * values[0])
    for j in range(k):
        if separated(values, j, rel=1e-2) and values[j] > 1e-6 * values[0]:
            np.testing.assert_allclose(result.components[j], vectors[:, j], atol=1e-5)
            assert abs(abs(result.components[j] @ sklearn_pca.components_[j]) - 1) < 1e-6


def test_iris_first_eigenvalue_is_the_published_value():
    # R: prcomp(iris[, 1:4])$sdev^2 = 4.22824171, 0.24267075, 0.07820950, 0.02383509
    from sklearn.datasets import load_iris

    result = pcalib.pca_eig(load_iris().data)
    np.testing.assert_allclose(result.explained_variance,
                               [4.22824171, 0.24267075, 0.07820950, 0.02383509], atol=5e-9)
    assert not np.isclose(np.var(result.scores[:, 0], ddof=1), 4.22824171**2, rtol=0.1)


# -- prop-maxvar-scores-uncorrelated ------------------------------------------------------

@theorem("prop-maxvar-scores-uncorrelated")
@given(seeded_data(min_rows=3), st.data())
def test_scores_have_diagonal_covariance_with_the_eigenvalues(X, data):
    values = np.linalg.eigvalsh(np.cov(X, rowvar=False).reshape(X.shape[1], X.shape[1]))[::-1]
    k = data.draw(st.integers(1, min(X.shape)))
    scale = values[0]
    results = [route(X, k=k) for route in ROUTES]
    score_sets = [r.scores for r in results] + [pcalib.PCA(n_components=k).fit_transform(X)]
    for T in score_sets:
        cov_T = np.cov(T, rowvar=False).reshape(k, k)
        np.testing.assert_allclose(cov_T, np.diag(values[:k]), atol=1e-7 * scale)
        np.testing.assert_allclose(T.mean(axis=0), 0.0, atol=1e-7 * np.sqrt(scale) + 1e-12)
    # W^T S W with W from pcalib and S from numpy
    W = results[1].components.T
    S = np.cov(X, rowvar=False).reshape(X.shape[1], X.shape[1])
    np.testing.assert_allclose(W.T @ S @ W, np.diag(values[:k]), atol=1e-7 * scale)
    # scikit-learn's scores: same covariance
    T_sklearn = SklearnPCA(n_components=k, svd_solver="full").fit_transform(X)
    np.testing.assert_allclose(np.cov(T_sklearn, rowvar=False).reshape(k, k), np.diag(values[:k]),
                               atol=1e-7 * scale)


# -- prop-maxvar-total-variance ------------------------------------------------------------

@theorem("prop-maxvar-total-variance")
@given(seeded_data(min_rows=2, max_rows=12, max_cols=10))
def test_all_components_keep_the_total_variance(X):
    total = np.var(X, axis=0, ddof=1).sum()
    for route in ROUTES:
        result = route(X)                                  # min(n, p) components
        np.testing.assert_allclose(result.explained_variance.sum(), total, rtol=1e-7)
        np.testing.assert_allclose(np.var(result.scores, axis=0, ddof=1).sum(), total, rtol=1e-7)
        np.testing.assert_allclose(result.explained_variance_ratio.sum(), 1.0, rtol=1e-7)
    np.testing.assert_allclose(np.linalg.eigvalsh(np.cov(X, rowvar=False).reshape(X.shape[1], -1)).sum(),
                               total, rtol=1e-9)


@theorem("prop-maxvar-total-variance")
def test_rotation_by_all_axes_keeps_the_trace_when_p_exceeds_n():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(6, 15)) * rng.uniform(0.5, 4.0, size=15)
    values = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    assert np.all(values[5:] < 1e-12 * values[0])          # rank n - 1 = 5
    result = pcalib.pca_gram(X)
    np.testing.assert_allclose(result.explained_variance.sum(), np.trace(np.cov(X, rowvar=False)), rtol=1e-10)

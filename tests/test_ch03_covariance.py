"""Tests of the labelled results of the chapter "Covariance" (book/03_covariance.md).

Independent routes: explicit loops over the entrywise definition, numpy (np.cov,
np.corrcoef, np.linalg), scikit-learn (empirical_covariance, StandardScaler), and an
exact expectation over every sample of a finite distribution for the unbiasedness theorem.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.covariance import empirical_covariance
from sklearn.preprocessing import StandardScaler

import pcalib

theorem = pytest.mark.theorem


def data_matrices(min_rows=2, max_rows=12, max_cols=6, offset=1e3):
    """Finite float64 matrices with at least `min_rows` rows; entries up to `offset`."""
    shapes = st.tuples(st.integers(min_rows, max_rows), st.integers(1, max_cols))
    elements = st.floats(-offset, offset, allow_nan=False, allow_infinity=False)
    return shapes.flatmap(lambda shape: arrays(np.float64, shape, elements=elements))


@st.composite
def seeded_data(draw, min_rows=2, max_rows=30, max_cols=8, min_cols=1):
    """Gaussian data with random shape, scales and large means (well conditioned per column)."""
    n = draw(st.integers(min_rows, max_rows))
    p = draw(st.integers(min_cols, max_cols))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scales = 10.0 ** rng.uniform(-2, 2, size=p)
    return rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) * scales + rng.normal(size=p) * 1e3


def scale_of(X):
    Xc = X - X.mean(axis=0)
    return max(np.abs(Xc).max() ** 2, 1e-300)


# -- prop-covariance-matrix-form ------------------------------------------------------

@theorem("prop-covariance-matrix-form")
@settings(max_examples=40)
@given(data_matrices(max_rows=8, max_cols=4))
def test_matrix_form_equals_entrywise_definition(X):
    n, p = X.shape
    xbar = [sum(X[i, j] for i in range(n)) / n for j in range(p)]
    loops = np.array([[sum((X[i, j] - xbar[j]) * (X[i, l] - xbar[l]) for i in range(n)) / (n - 1)
                       for l in range(p)] for j in range(p)])
    outer = sum(np.outer(X[i] - xbar, X[i] - xbar) for i in range(n)) / (n - 1)
    tol = 1e-11 * scale_of(X) + 1e-300
    # pcalib against the definition in exact arithmetic: the float loops above carry the
    # rounding of their own mean (a constant column at 293.06 gave 3.8e-27, not 0)
    F = [[Fraction(float(v)) for v in row] for row in X]
    exact_mean = [sum(F[i][j] for i in range(n)) / n for j in range(p)]
    exact = np.array([[float(sum((F[i][j] - exact_mean[j]) * (F[i][l] - exact_mean[l])
                                 for i in range(n)) / (n - 1)) for l in range(p)]
                      for j in range(p)])
    np.testing.assert_allclose(pcalib.covariance(X), exact, rtol=0, atol=tol)
    np.testing.assert_allclose(outer, loops, rtol=0, atol=tol)
    np.testing.assert_allclose(np.cov(X, rowvar=False).reshape(p, p), loops, rtol=0, atol=tol)


@theorem("prop-covariance-matrix-form")
@given(seeded_data())
def test_ddof0_matches_scikit_learn(X):
    n = X.shape[0]
    S_n = pcalib.covariance(X, ddof=0)
    np.testing.assert_allclose(S_n, empirical_covariance(X), rtol=1e-9, atol=1e-9 * np.abs(S_n).max())
    np.testing.assert_allclose(S_n, (n - 1) / n * pcalib.covariance(X), rtol=1e-12)


# -- lem-covariance-scatter-about-a-point ---------------------------------------------

@theorem("lem-covariance-scatter-about-a-point")
@given(seeded_data(max_cols=5), st.integers(0, 2**32 - 1))
def test_scatter_about_any_point(X, seed):
    n, p = X.shape
    c = np.random.default_rng(seed).normal(size=p) * 1e3         # the chapter's point c
    xbar = X.mean(axis=0)
    about_c = (X - c).T @ (X - c)
    about_mean = np.einsum("ij,il->jl", X - xbar, X - xbar)
    rhs = about_mean + n * np.outer(xbar - c, xbar - c)
    np.testing.assert_allclose(about_c, rhs, rtol=1e-9, atol=1e-9 * np.abs(about_c).max())
    # the difference is positive semi-definite
    assert np.linalg.eigvalsh(about_c - about_mean).min() >= -1e-9 * np.abs(about_c).max()


# -- thm-covariance-unbiased ----------------------------------------------------------

@st.composite
def finite_distributions(draw):
    """A distribution on a few points of R^p with given probabilities (exact expectations
    by enumeration)."""
    n_points = draw(st.integers(1, 4))
    p = draw(st.integers(1, 3))
    points = draw(arrays(np.float64, (n_points, p), elements=st.integers(-20, 20).map(float)))
    weights = draw(st.lists(st.integers(1, 9), min_size=n_points, max_size=n_points))
    weights = np.array(weights, dtype=float)
    return points, weights / weights.sum()


@theorem("thm-covariance-unbiased")
@settings(max_examples=30)
@given(finite_distributions(), st.integers(2, 4))
def test_expected_covariance_by_exact_enumeration(distribution, n):
    points, probabilities = distribution
    n_points, p = points.shape
    mu = probabilities @ points
    C = (points - mu).T @ ((points - mu) * probabilities[:, None])   # population covariance
    if n_points > 1:                                           # numpy's weighted route agrees
        weighted = np.cov(points, rowvar=False, aweights=probabilities, bias=True)
        np.testing.assert_allclose(weighted.reshape(p, p), C, atol=1e-9)
    expected_S = np.zeros((p, p))
    expected_Sn = np.zeros((p, p))
    for idx in itertools.product(range(n_points), repeat=n):    # every sample of size n, exactly
        probability = np.prod(probabilities[list(idx)])
        sample = points[list(idx)]
        expected_S += probability * pcalib.covariance(sample)
        expected_Sn += probability * pcalib.covariance(sample, ddof=0)
    atol = 1e-9 * max(1.0, np.abs(C).max())
    np.testing.assert_allclose(expected_S, C, rtol=0, atol=atol)
    np.testing.assert_allclose(expected_Sn, (n - 1) / n * C, rtol=0, atol=atol)


@theorem("thm-covariance-unbiased")
def test_unbiasedness_by_simulation():
    rng = np.random.default_rng(2024)
    C = np.array([[2.0, -0.6, 0.3], [-0.6, 1.0, 0.0], [0.3, 0.0, 0.5]])
    chol = np.linalg.cholesky(C)
    draws = rng.normal(size=(20_000, 4, 3)) @ chol.T - 7.0
    centered = draws - draws.mean(axis=1, keepdims=True)
    S = np.einsum("dij,dil->djl", centered, centered) / 3      # numpy route, divisor n - 1 = 3
    se = S.std(axis=0, ddof=1) / np.sqrt(len(S))
    assert np.all(np.abs(S.mean(axis=0) - C) < 5 * se)
    S_n = np.einsum("dij,dil->djl", centered, centered) / 4    # divisor n = 4, its own route
    se_n = S_n.std(axis=0, ddof=1) / np.sqrt(len(S_n))
    assert np.all(np.abs(S_n.mean(axis=0) - 0.75 * C) < 5 * se_n)


# -- prop-covariance-psd, cor-covariance-spectrum ------------------------------------

@theorem("prop-covariance-psd")
@given(seeded_data(), st.integers(0, 2**32 - 1))
def test_covariance_is_symmetric_psd_quadratic_form(X, seed):
    n, p = X.shape
    S = pcalib.covariance(X)
    np.testing.assert_array_equal(S, S.T)
    Xc = X - X.mean(axis=0)
    for y in np.random.default_rng(seed).normal(size=(4, p)):
        quadratic = y @ S @ y
        expected = np.sum((Xc @ y) ** 2) / (n - 1)
        assert quadratic >= -1e-12 * np.abs(S).max() * (y @ y)
        assert quadratic == pytest.approx(expected, rel=1e-8, abs=1e-10 * np.abs(S).max() * (y @ y))


@theorem("cor-covariance-spectrum")
@given(seeded_data())
def test_covariance_spectrum_is_real_non_negative_with_orthonormal_eigenvectors(X):
    S = pcalib.covariance(X)
    eigenvalues = np.linalg.eigvals(S)                          # general solver: no symmetry assumed
    scale = max(np.abs(S).max(), 1e-300)
    assert np.all(np.abs(eigenvalues.imag) <= 1e-8 * scale)
    assert np.all(eigenvalues.real >= -1e-8 * scale)
    eigenvalues, V = np.linalg.eigh(S)
    np.testing.assert_allclose(V.T @ V, np.eye(len(eigenvalues)), atol=1e-10)
    np.testing.assert_allclose(V @ np.diag(eigenvalues) @ V.T, S, atol=1e-10 * scale)
    # eigenvalues = singular values of Xc squared over n - 1 (an SVD route)
    sv = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    expected = np.zeros(len(eigenvalues))
    expected[: len(sv)] = sv**2 / (X.shape[0] - 1)
    np.testing.assert_allclose(np.sort(eigenvalues)[::-1], expected, atol=1e-9 * scale)


# -- prop-covariance-rank --------------------------------------------------------------

@theorem("prop-covariance-rank")
@settings(max_examples=40)
@given(st.integers(2, 15), st.integers(1, 15), st.integers(1, 15), st.integers(0, 2**32 - 1))
def test_rank_of_covariance(n, p, r, seed):
    rng = np.random.default_rng(seed)
    # data of rank at most r before centering, with integer-valued well-separated entries
    X = np.round(rng.normal(size=(n, r)) * 4) @ np.round(rng.normal(size=(r, p)) * 4) + 1000.0
    S = pcalib.covariance(X)
    Xc = X - X.mean(axis=0)
    tol = 1e-8 * max(np.abs(S).max(), 1e-300)
    rank_S = np.linalg.matrix_rank(S, hermitian=True, tol=tol)
    # the same threshold on the SVD of the centered data: sigma^2 / (n - 1) are S's eigenvalues
    rank_Xc = int(np.sum(np.linalg.svd(Xc, compute_uv=False) ** 2 / (n - 1) > tol))
    assert rank_S == rank_Xc
    assert rank_S <= min(n - 1, p, r)
    # exactly p - rank S eigenvalues are zero (at the same threshold)
    assert np.sum(np.abs(np.linalg.eigvalsh(S)) <= tol) == p - rank_S


@theorem("prop-covariance-rank")
@pytest.mark.parametrize("n, p", [(2, 5), (5, 10), (10, 4), (30, 30)])
def test_rank_bound_is_attained_by_gaussian_data(n, p):
    X = np.random.default_rng(n * 100 + p).normal(size=(n, p))
    S = pcalib.covariance(X)
    assert np.linalg.matrix_rank(S, hermitian=True) == min(n - 1, p)
    zero_eigenvalues = np.sum(np.linalg.eigvalsh(S) < 1e-10 * np.abs(S).max())
    assert zero_eigenvalues == p - min(n - 1, p)


# -- prop-covariance-trace ---------------------------------------------------------------

@theorem("prop-covariance-trace")
@given(data_matrices())
def test_total_variance_three_ways(X):
    n = X.shape[0]
    total = pcalib.total_variance(X)
    by_columns = np.var(X, axis=0, ddof=1).sum()
    # np.var's own round-off: about n * eps * max x^2, which is all it returns for a
    # constant column (1.9e-26 at 683.3), where pcalib's two-pass centering gives 0.
    reference_error = n * np.finfo(float).eps * float(np.max(X**2, initial=0.0))
    assert total == pytest.approx(by_columns, rel=1e-10, abs=max(reference_error, 1e-300))
    assert np.trace(np.atleast_2d(np.cov(X, rowvar=False))) == pytest.approx(by_columns, rel=1e-10, abs=1e-12)
    Xc = X - X.mean(axis=0)
    sv = np.linalg.svd(Xc, compute_uv=False)
    assert np.sum(sv**2) / (n - 1) == pytest.approx(by_columns, rel=1e-9, abs=1e-12)
    eigenvalues = np.linalg.eigvalsh(pcalib.covariance(X))
    assert eigenvalues.sum() == pytest.approx(by_columns, rel=1e-9, abs=1e-12)
    rows = sum(float(row @ row) for row in Xc) / (n - 1)
    assert rows == pytest.approx(by_columns, rel=1e-10, abs=1e-12)


# -- prop-covariance-linear-map, cor-covariance-variance-along-direction --------------

@theorem("prop-covariance-linear-map")
@given(seeded_data(), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_covariance_of_a_linear_map(X, k, seed):
    n, p = X.shape
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(p, k))
    b = rng.normal(size=k) * 1e4
    Y = X @ A + b
    S = np.atleast_2d(np.cov(X, rowvar=False))
    expected = A.T @ S @ A
    scale = max(np.abs(A).max() ** 2 * np.abs(S).max() * p, 1e-300)
    np.testing.assert_allclose(pcalib.covariance(Y), expected, rtol=1e-7, atol=1e-9 * scale)
    size = np.abs(b).max() + np.abs(X).max() * np.abs(A).max() * p
    np.testing.assert_allclose(Y.mean(axis=0), A.T @ X.mean(axis=0) + b, rtol=1e-9, atol=1e-9 * size)


@theorem("cor-covariance-variance-along-direction")
@given(seeded_data(min_rows=3), st.integers(0, 2**32 - 1))
def test_variance_along_a_unit_vector_and_uncorrelated_scores(X, seed):
    n, p = X.shape
    w = np.random.default_rng(seed).normal(size=p)
    w /= np.linalg.norm(w)                                     # a unit vector
    S = np.atleast_2d(np.cov(X, rowvar=False))
    projections = (X - X.mean(axis=0)) @ w
    assert abs(projections.mean()) <= 1e-9 * max(np.abs(projections).max(), 1e-300)
    assert np.var(projections, ddof=1) == pytest.approx(w @ S @ w, rel=1e-8, abs=1e-10 * np.abs(S).max())
    eigenvalues, V = np.linalg.eigh(S)
    score_cov = np.atleast_2d(np.cov((X - X.mean(axis=0)) @ V, rowvar=False))
    scale = max(np.abs(S).max(), 1e-300)
    np.testing.assert_allclose(score_cov, np.diag(eigenvalues), atol=1e-9 * scale)
    # the library's PCA reports these variances: the eigenvalues themselves, not their squares
    result = pcalib.pca_svd(X)
    k = len(result.explained_variance)
    np.testing.assert_allclose(result.explained_variance, np.sort(eigenvalues)[::-1][:k], atol=1e-9 * scale)


# -- prop-covariance-standardized-correlation ------------------------------------------

@theorem("prop-covariance-standardized-correlation")
@given(seeded_data(min_rows=3))
def test_covariance_of_standardized_data_is_correlation(X):
    p = X.shape[1]
    R = np.atleast_2d(np.corrcoef(X, rowvar=False))
    Xs, mean, scale = pcalib.standardize(X)
    np.testing.assert_allclose(Xs.mean(axis=0), 0.0, atol=1e-10)
    R_pcalib = np.atleast_2d(np.cov(Xs, rowvar=False))       # the covariance of Xs, unclipped
    np.testing.assert_allclose(R_pcalib, R, atol=1e-10)
    np.testing.assert_allclose(np.diag(R_pcalib), 1.0, atol=1e-12)
    assert np.all(np.abs(R_pcalib) <= 1 + 1e-12)              # np.corrcoef clips; this does not
    # divisor n: scikit-learn's StandardScaler uses it, and R is unchanged
    Xs0, _, _ = pcalib.standardize(X, ddof=0)
    np.testing.assert_allclose(Xs0, StandardScaler().fit_transform(X), atol=1e-9)
    np.testing.assert_allclose(np.atleast_2d(np.cov(Xs0, rowvar=False, bias=True)), R, atol=1e-10)
    # R = D_s^{-1} S D_s^{-1} written out, D_s the diagonal of standard deviations
    S = np.atleast_2d(np.cov(X, rowvar=False))
    d_s_inv = 1 / np.sqrt(np.diag(S))
    np.testing.assert_allclose(d_s_inv[:, None] * S * d_s_inv[None, :], R, atol=1e-10)
    # X_s = X_c D_s^{-1}
    np.testing.assert_allclose(Xs, (X - X.mean(axis=0)) * d_s_inv, atol=1e-9)
    assert Xs.shape == (X.shape[0], p)


# -- prop-covariance-standardized-units -------------------------------------------------

@theorem("prop-covariance-standardized-units")
@given(seeded_data(min_rows=3), st.integers(0, 2**32 - 1))
def test_standardized_data_do_not_depend_on_units(X, seed):
    n, p = X.shape
    rng = np.random.default_rng(seed)
    kappa = 10.0 ** rng.uniform(-3, 3, size=p)          # positive unit factors, D_kappa = diag(kappa)
    b = rng.normal(size=p) * 1e3                               # offsets (e.g. Celsius -> Fahrenheit)
    X2 = X * kappa + b                                         # X D_kappa + 1 b^T
    S = np.atleast_2d(np.cov(X, rowvar=False))
    S2 = np.atleast_2d(np.cov(X2, rowvar=False))
    KSK = kappa[:, None] * S * kappa[None, :]
    np.testing.assert_allclose(S2, KSK, rtol=1e-7, atol=1e-9 * np.abs(KSK).max())
    Xs = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)         # numpy route
    np.testing.assert_allclose(pcalib.standardize(X2)[0], Xs, atol=1e-7)
    np.testing.assert_allclose(np.corrcoef(X2, rowvar=False), np.corrcoef(X, rowvar=False), atol=1e-9)

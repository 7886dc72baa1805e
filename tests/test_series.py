"""Tests of pcalib.series: SSA, weighted and functional PCA (chapter "Curves and series").

References: the basic SSA algorithm written independently in base R (R's Rssa is not
packaged for Debian, so its numbers cannot be quoted), explicit loops over anti-diagonals
written here, NumPy's SVD and SciPy's generalized symmetric eigensolver.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import pcalib
from pcalib import SSA, NotFittedError, functional_pca, quadrature_weights, trajectory_matrix, weighted_pca
from pcalib.series import anti_diagonal_counts

CO2 = pcalib.datasets.load_co2().values


def loop_diagonal_average(Z):
    """Mean of each anti-diagonal, by loops over the entries."""
    sums, counts = np.zeros(sum(Z.shape) - 1), np.zeros(sum(Z.shape) - 1)
    for i in range(Z.shape[0]):
        for j in range(Z.shape[1]):
            sums[i + j] += Z[i, j]
            counts[i + j] += 1
    return sums / counts


# -- SSA against base R -------------------------------------------------------------------------

# R 4.2.2, base R only (Golyandina & Zhigljavsky 2013, Algorithms 2.1 and 3.2):
#   x <- as.numeric(co2); N <- length(x); L <- 120; K <- N - L + 1
#   X <- sapply(1:K, function(i) x[i:(i + L - 1)]); s <- svd(X)       # L x K
#   hankelize <- function(Y) { ... mean of each anti-diagonal by loops ... }
#   rec <- function(g) hankelize(s$u[, g, drop = FALSE] %*% diag(s$d[g], length(g)) %*%
#                                t(s$v[, g, drop = FALSE]))
#   s$d[1:8]; rec(1)[c(1, 2, 234, 468)]; rec(2:3)[c(1, 2, 234, 468)]
#   w <- pmin(1:N, N:1, min(L, K)); F <- sapply(1:8, rec); G <- t(F) %*% (w * F)
#   W <- G / sqrt(outer(diag(G), diag(G))); W[1,2]; W[2,3]; W[4,5]; W[5,6]; W[1,4]
#   g <- 1:6; U <- s$u[, g]; pi <- U[L, ]; nu2 <- sum(pi^2); R <- (U[1:(L-1), ] %*% pi) / (1 - nu2)
#   y <- rec(g); for (h in 1:24) y <- c(y, sum(R * y[(length(y) - L + 2):length(y)]))
#   nu2; y[N + c(1, 2, 12, 24)]; R[c(1, 119)]          (all printed with sprintf("%.12g"))
R_SIGMA = [68897.7123216, 286.520786662, 285.423427523, 122.677853206, 77.888258725, 77.5524676148,
           43.2854524129, 37.9482766759]
R_TREND = [313.20350424, 313.287500059, 335.435509997, 364.422335921]
R_SEASONAL = [-0.323109045212, 1.01857595401, 1.76387335554, -1.76971231586]
R_WCOR = [4.06261438426e-06, 0.999343395811, 0.0017450121228, 0.999419643649, 0.00143721803254]
R_NU2 = 0.056533862013
R_FORECAST = [364.695621211, 365.533101141, 365.039327411, 366.532088524]
R_LRR = [0.0134846578594, 0.0473081816776]


def test_ssa_of_co2_is_the_base_r_implementation():
    ssa = SSA(120).fit(CO2)
    assert_allclose(ssa.singular_values_[:8], R_SIGMA, rtol=1e-11)
    trend, seasonal = ssa.reconstruct([0, [1, 2]])
    assert_allclose(trend[[0, 1, 233, 467]], R_TREND, rtol=1e-11)
    assert_allclose(seasonal[[0, 1, 233, 467]], R_SEASONAL, rtol=1e-10)
    W = ssa.w_correlation(range(8))
    assert_allclose(np.abs([W[0, 1], W[1, 2], W[3, 4], W[4, 5], W[0, 3]]), R_WCOR, rtol=1e-10)
    assert_allclose(np.sum(ssa.components_[:6, -1] ** 2), R_NU2, rtol=1e-10)
    assert_allclose(ssa.forecast(24, range(6))[[0, 1, 11, 23]], R_FORECAST, rtol=1e-11)
    assert_allclose(ssa.recurrence(range(6))[[0, 118]], R_LRR, rtol=1e-10)


@given(st.integers(5, 60), st.data())
@settings(max_examples=40, deadline=None)
def test_ssa_is_the_hankel_svd_with_diagonal_averaging(N, data):
    window = data.draw(st.integers(2, N - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = np.cumsum(rng.standard_normal(N)) + 10 * np.sin(np.arange(N) / 3)
    X = np.array([x[i:i + window] for i in range(N - window + 1)])
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    ssa = SSA(window).fit(x)
    assert_allclose(ssa.singular_values_, s, atol=1e-12 * s[0])
    assert ssa.components_.shape == Vt.shape and ssa.factors_.shape == U.shape
    j = data.draw(st.integers(0, s.size - 1))
    if (j == 0 or s[j - 1] - s[j] > 1e-8 * s[0]) and (j == s.size - 1 or s[j] - s[j + 1] > 1e-8 * s[0]):
        reference = loop_diagonal_average(s[j] * np.outer(U[:, j], Vt[j]))
        assert_allclose(ssa.reconstruct([j])[0], reference, atol=1e-9 * s[0] / (s[j - 1] - s[j] if j else s[0]))
    assert_allclose(ssa.reconstruct([list(range(s.size))])[0], x, atol=1e-10 * np.abs(x).max())
    assert_allclose(ssa.reconstruct(list(range(s.size))).sum(axis=0), x, atol=1e-10 * np.abs(x).max())


def test_the_sign_convention_and_the_attributes():
    ssa = SSA(24).fit(CO2)
    largest = np.argmax(np.abs(ssa.components_), axis=1)
    assert np.all(ssa.components_[np.arange(24), largest] > 0)
    assert_allclose(ssa.factors_ * ssa.singular_values_ @ ssa.components_, trajectory_matrix(CO2, 24), rtol=1e-12)
    assert ssa.n_windows_ == 445 and ssa.series_length_ == 468
    assert repr(SSA(24)) == "SSA(window=24)"


@pytest.mark.parametrize("scale", [2.0**-900, 2.0**-300, 2.0**300, 2.0**900])
def test_any_scale_gives_the_scaled_decomposition(scale):
    reference = SSA(60).fit(CO2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = SSA(60).fit(CO2 * scale)
        parts = scaled.reconstruct([0, [1, 2]])
        forecast = scaled.forecast(5, range(6))
    assert_allclose(scaled.singular_values_, reference.singular_values_ * scale, rtol=1e-13)
    assert_allclose(parts, reference.reconstruct([0, [1, 2]]) * scale, rtol=1e-12, atol=1e-12 * scale)
    assert_allclose(forecast, reference.forecast(5, range(6)) * scale, rtol=1e-12)
    assert_allclose(scaled.w_correlation(range(6)), reference.w_correlation(range(6)), atol=1e-12)


def test_inputs_are_not_modified_and_results_repeat():
    x = CO2.copy()
    x.flags.writeable = False
    first, second = SSA(36).fit(x), SSA(36).fit(x)
    first.reconstruct([0, [1, 2]]), first.forecast(3, [0]), first.w_correlation()
    np.testing.assert_array_equal(x, CO2)
    np.testing.assert_array_equal(first.singular_values_, second.singular_values_)
    np.testing.assert_array_equal(first.components_, second.components_)


def test_w_correlation_defaults_to_fifty_components_and_is_a_correlation():
    ssa = SSA(120).fit(CO2)
    W = ssa.w_correlation()
    assert W.shape == (50, 50)
    assert_allclose(np.diag(W), 1.0, rtol=1e-12)
    assert_allclose(W, W.T, atol=1e-15)
    assert np.all(np.abs(W) <= 1 + 1e-12)
    small = SSA(3).fit(CO2[:10]).w_correlation()
    assert small.shape == (3, 3)


@pytest.mark.parametrize(
    ("window", "x", "error", "words"),
    [
        (1, CO2, ValueError, "window must be between 2 and len"),
        (468, CO2, ValueError, r"window must be between 2 and len\(x\) - 1 = 467"),
        (12.0, CO2, TypeError, "window must be an integer"),
        (True, CO2, TypeError, "window must be an integer"),
        (12, CO2.reshape(39, 12), ValueError, "x must be a 1-D series"),
        (2, np.array([1.0, np.nan, 3.0, 4.0]), ValueError, "x contains NaN"),
        (2, np.array(["a", "b", "c"]), TypeError, "x must hold real numbers"),
    ],
)
def test_bad_series_and_windows_are_refused(window, x, error, words):
    with pytest.raises(error, match=words):
        SSA(window).fit(x)


@pytest.mark.parametrize(
    ("groups", "error", "words"),
    [
        (0, TypeError, "groups must be a list of groups"),
        ([[]], ValueError, "non-empty list"),
        ([24], ValueError, "between 0 and 23"),
        ([[-1, 2]], ValueError, "between 0 and 23"),
        ([[0.5]], ValueError, "component index"),
        ([[[0, 1]]], ValueError, "component index"),
    ],
)
def test_bad_groups_are_refused(groups, error, words):
    ssa = SSA(24).fit(CO2)
    with pytest.raises(error, match=words):
        ssa.reconstruct(groups)


def test_repeated_indices_in_a_group_are_refused():
    """Regression (review ch19 round 1, finding 6): [[1, 1, 2]] used to count component 1
    twice, and recurrence/forecast used non-orthonormal lag vectors, a silent wrong answer."""
    t = np.arange(100)
    ssa = SSA(24).fit(10 + np.sin(2 * np.pi * t / 12))
    for call in (lambda: ssa.reconstruct([[1, 1, 2]]), lambda: ssa.w_correlation([0, [1, 2, 1]]),
                 lambda: ssa.recurrence([0, 1, 1, 2]), lambda: ssa.forecast(3, [0, 1, 1, 2])):
        with pytest.raises(ValueError, match="must not repeat a component index"):
            call()
    # the same component in two different groups stays allowed
    first, again = ssa.reconstruct([0, 0])
    np.testing.assert_array_equal(first, again)


def test_forecast_and_recurrence_refuse_what_has_no_recurrence():
    ssa = SSA(2).fit(CO2[:20])
    with pytest.raises(ValueError, match="span holds the last lag axis"):
        ssa.recurrence([0, 1])  # the whole plane R^2 contains e_2
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        SSA(24).fit(CO2).forecast(0, [0])
    for method, args in (("reconstruct", ([0],)), ("w_correlation", ()), ("forecast", (2, [0])),
                         ("recurrence", ([0],))):
        with pytest.raises(NotFittedError, match="SSA instance is not fitted"):
            getattr(SSA(12), method)(*args)


def test_trajectory_matrix_and_counts():
    X = trajectory_matrix(np.arange(7.0), 3)
    np.testing.assert_array_equal(X, [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]])
    counts = anti_diagonal_counts(5, 3)
    np.testing.assert_array_equal(counts, [1, 2, 3, 3, 3, 2, 1])
    ones = np.ones_like(X)
    assert_allclose(loop_diagonal_average(ones) * counts, np.bincount(np.add.outer(range(5), range(3)).ravel()))
    assert X.flags.writeable and not np.shares_memory(X, np.arange(7.0))


# -- weighted and functional PCA ------------------------------------------------------------------


@given(st.integers(3, 20), st.integers(2, 8), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_weighted_pca_is_the_generalized_eigenproblem(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) + 50.0
    w = rng.uniform(0.1, 3.0, p)
    k = min(n - 1, p)
    fit = weighted_pca(X, w, k)
    S = np.cov(X, rowvar=False)
    lam, xi = scipy.linalg.eigh(w[:, None] * S * w, np.diag(w))
    lam, xi = lam[::-1][:k], xi[:, ::-1][:, :k]
    assert_allclose(fit.explained_variance, lam, atol=1e-10 * lam[0])
    assert_allclose(fit.components @ np.diag(w) @ fit.components.T, np.eye(k), atol=1e-9)
    gaps = np.abs(np.diff(np.concatenate([[np.inf], lam, [0.0]])))
    for j in range(k):
        if min(gaps[j], gaps[j + 1]) > 1e-6 * lam[0]:
            cosine = abs(fit.components[j] @ (w * xi[:, j]))
            assert_allclose(cosine, 1.0, atol=1e-7 * lam[0] / min(gaps[j], gaps[j + 1]))
    assert_allclose(fit.scores, (X - X.mean(axis=0)) @ (w[:, None] * fit.components.T),
                    atol=1e-9 * np.abs(X - X.mean(axis=0)).max() * p)
    assert_allclose(fit.explained_variance_ratio, fit.explained_variance / np.sum(w * np.diag(S)), rtol=1e-10)


def test_equal_weights_give_pca_and_a_common_factor_only_rescales():
    X = pcalib.datasets.load_iris().data
    plain = pcalib.PCA(3).fit(X)
    fit = weighted_pca(X, np.ones(4), 3)
    assert_allclose(fit.components, plain.components_, atol=1e-12)
    assert_allclose(fit.explained_variance, plain.explained_variance_, rtol=1e-12)
    scaled = weighted_pca(X, np.full(4, 4.0), 3)
    assert_allclose(scaled.components, plain.components_ / 2, atol=1e-12)
    assert_allclose(scaled.explained_variance, 4 * plain.explained_variance_, rtol=1e-12)
    assert_allclose(scaled.explained_variance_ratio, plain.explained_variance_ratio_, rtol=1e-12)


def test_quadrature_weights():
    assert_allclose(quadrature_weights([0.0, 1.0, 3.0]), [0.5, 1.5, 1.0])
    grid = pcalib.datasets.load_growth().grid
    w = quadrature_weights(grid)
    assert_allclose(w.sum(), 17.0, rtol=1e-14)
    assert_allclose(w @ np.sin(grid), scipy.integrate.trapezoid(np.sin(grid), x=grid), rtol=1e-14)
    for bad, error, words in (([1.0], ValueError, "at least 2 points"), ([[0.0, 1.0]], ValueError, "1-D"),
                              ([0.0, 1.0, 1.0], ValueError, "strictly increasing, but grid\\[2\\]"),
                              ([0.0, np.inf], ValueError, "grid contains NaN or infinity")):
        with pytest.raises(error, match=words):
            quadrature_weights(bad)


def test_functional_pca_without_penalty_is_weighted_pca_with_quadrature_weights():
    growth = pcalib.datasets.load_growth()
    fit = functional_pca(growth.data, growth.grid, 4)
    reference = weighted_pca(growth.data, quadrature_weights(growth.grid), 4)
    for name in ("components", "explained_variance", "scores", "mean", "weights"):
        np.testing.assert_array_equal(getattr(fit, name), getattr(reference, name))


@pytest.mark.parametrize("alpha", [0.01, 1.0, 100.0])
def test_penalized_functional_pca_is_the_generalized_problem(alpha):
    growth = pcalib.datasets.load_growth()
    X, t = growth.data, growth.grid
    w = quadrature_weights(t)
    h = np.diff(t)
    D = np.zeros((t.size - 2, t.size))  # second divided differences, written out
    for l in range(t.size - 2):
        D[l, l] = 2 / (h[l] * (h[l] + h[l + 1]))
        D[l, l + 1] = -2 / (h[l] * h[l + 1])
        D[l, l + 2] = 2 / (h[l + 1] * (h[l] + h[l + 1]))
    assert_allclose(D @ t**2, 2.0, rtol=1e-12)  # exact for quadratics
    B = np.diag(w) + alpha * D.T @ (w[1:-1, None] * D)
    A = w[:, None] * np.cov(X, rowvar=False) * w
    _, xi = scipy.linalg.eigh(A, B)
    xi = xi[:, ::-1][:, :3]
    xi /= np.sqrt(np.sum(w[:, None] * xi**2, axis=0))
    fit = functional_pca(X, t, 3, roughness=alpha)
    assert_allclose(np.abs(np.sum(fit.components * xi.T * w, axis=1)), 1.0, atol=1e-9)
    scores = (X - X.mean(axis=0)) @ (w[:, None] * fit.components.T)
    assert_allclose(fit.scores, scores, atol=1e-8)
    assert_allclose(fit.explained_variance, np.var(scores, axis=0, ddof=1), rtol=1e-10)
    total = np.sum(w * np.var(X, axis=0, ddof=1))
    assert_allclose(fit.explained_variance_ratio, fit.explained_variance / total, rtol=1e-10)


@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_penalized_functional_pca_at_extreme_scales(scale):
    growth = pcalib.datasets.load_growth()
    reference = functional_pca(growth.data, growth.grid, 2, roughness=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = functional_pca(growth.data * scale, growth.grid, 2, roughness=1.0)
    assert_allclose(fit.components, reference.components, atol=1e-10)
    assert_allclose(fit.explained_variance, reference.explained_variance * scale**2, rtol=1e-9)
    assert_allclose(fit.scores, reference.scores * scale, rtol=1e-9, atol=1e-9 * scale)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda X, t: weighted_pca(X, -np.ones(31)), ValueError, "weights must be positive"),
        (lambda X, t: weighted_pca(X, np.ones(30)), ValueError, r"one entry per feature, shape \(31,\)"),
        (lambda X, t: weighted_pca(X, np.full(31, np.nan)), ValueError, "weights contains NaN"),
        (lambda X, t: functional_pca(X, t[:-1]), ValueError, r"one point per column of X, shape \(31,\)"),
        (lambda X, t: functional_pca(X, t, roughness=-1.0), ValueError, "roughness must be a non-negative"),
        (lambda X, t: functional_pca(X, t, roughness=True), ValueError, "roughness must be a non-negative"),
        (lambda X, t: functional_pca(X, t, 40, roughness=1.0), ValueError, "k must be an integer between 1 and"),
        (lambda X, t: functional_pca(X[:, :2], t[:2], roughness=1.0), ValueError, "at least 3 grid points"),
        (lambda X, t: functional_pca(X, t[::-1]), ValueError, "strictly increasing"),
    ],
)
def test_bad_arguments_are_refused(call, error, words):
    growth = pcalib.datasets.load_growth()
    with pytest.raises(error, match=words):
        call(growth.data, growth.grid)


@pytest.mark.parametrize("alpha", [0.0, 5.0])
def test_constant_curves_are_refused_with_and_without_a_penalty(alpha):
    # the penalized branch used to return explained_variance_ratio [nan, nan] with a
    # RuntimeWarning, while the unpenalized one raised (review 2 of chapter 19, #10)
    grid = np.linspace(0.0, 1.0, 8)
    constant = np.tile(np.arange(8.0), (5, 1))           # every curve the same
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="zero total variance"):
            functional_pca(constant, grid, 2, roughness=alpha)


def test_area_weighted_eofs_put_the_larger_area_first_for_every_seed():
    # the chapter's synthetic field, 12 noise draws: the tropical pattern holds more
    # area-weighted variance and comes first; unweighted PCA puts the polar one first
    psi = np.repeat(np.radians(np.arange(-85.0, 90, 10.0)), 18)
    area = np.cos(psi)
    polar, tropics = (np.abs(psi) > np.radians(60)) * 1.0, (np.abs(psi) < np.radians(30)) * 1.0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        amplitudes = rng.standard_normal((120, 2))
        amplitudes = np.linalg.qr(amplitudes - amplitudes.mean(axis=0))[0] * np.sqrt(119) * [1.5, 1]
        field = amplitudes[:, :1] * polar + amplitudes[:, 1:] * tropics + 0.3 * rng.standard_normal((120, psi.size))
        eof = weighted_pca(field, area, 1).components[0]
        plain = pcalib.PCA(1).fit(field).components_[0]
        assert np.sum(area * eof**2 * tropics) / np.sum(area * eof**2) > 0.9
        assert np.sum(plain**2 * tropics) / np.sum(plain**2) < 0.1

"""Tests of the results of the chapter "Curves and series" (book/19_curves_and_series.md).

Checked against routes independent of pcalib's: NumPy's eigensolvers on the rescaled
covariance, SciPy's generalized symmetric eigensolver and a Cholesky reduction written
out here, explicit loops over anti-diagonals, random competitors, and series whose
structure is known exactly (constants, sines, exponentials).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import pcalib
from pcalib.series import anti_diagonal_counts

theorem = pytest.mark.theorem


def second_differences(t):
    h = np.diff(t)
    D = np.zeros((t.size - 2, t.size))
    for l in range(t.size - 2):
        D[l, l:l + 3] = [2 / (h[l] * (h[l] + h[l + 1])), -2 / (h[l] * h[l + 1]), 2 / (h[l + 1] * (h[l] + h[l + 1]))]
    return D


@st.composite
def curves_on_uneven_grids(draw):
    n, p = draw(st.integers(4, 25)), draw(st.integers(4, 15))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    grid = np.cumsum(rng.uniform(0.05, 2.0, p))
    X = rng.standard_normal((n, 3)) @ rng.standard_normal((3, p)) + 0.1 * rng.standard_normal((n, p)) + 20
    return X, grid, rng


# -- functional PCA ---------------------------------------------------------------------------------


@theorem("prop-curves-weighted-pca")
@given(curves_on_uneven_grids())
@settings(max_examples=40, deadline=None)
def test_weighted_axes_are_rescaled_axes_of_the_rescaled_matrix(data):
    X, grid, rng = data
    w = pcalib.quadrature_weights(grid)
    k = min(X.shape[0] - 1, X.shape[1], 3)
    fit = pcalib.functional_pca(X, grid, k)
    # NumPy's eigendecomposition of D^1/2 S D^1/2, mapped back by D^-1/2
    S = np.cov(X, rowvar=False)
    lam, V = np.linalg.eigh(np.sqrt(w)[:, None] * S * np.sqrt(w))
    lam, V = lam[::-1], V[:, ::-1]
    assert_allclose(fit.explained_variance, lam[:k], atol=1e-10 * lam[0])
    for j in range(k):
        gap = min(lam[j - 1] - lam[j] if j else np.inf, lam[j] - lam[j + 1])
        if gap > 1e-6 * lam[0]:
            xi = V[:, j] / np.sqrt(w)
            assert_allclose(abs(fit.components[j] @ (w * xi)), 1.0, atol=1e-8 * lam[0] / gap)
    # the maximum: no w-unit vector w-orthogonal to nothing beats lambda_1
    centered = X - X.mean(axis=0)
    for candidate in rng.standard_normal((100, X.shape[1])):
        candidate /= np.sqrt(candidate @ (w * candidate))
        assert np.var(centered @ (w * candidate), ddof=1) <= fit.explained_variance[0] * (1 + 1e-10)
    assert_allclose(np.var(fit.scores, axis=0, ddof=1), fit.explained_variance, rtol=1e-9)


@theorem("prop-curves-weighted-pca")
def test_the_growth_eigenfunctions_do_not_depend_on_the_grid():
    # interpolated to a fine even grid, the curves give the same eigenfunctions
    from scipy.interpolate import PchipInterpolator

    growth = pcalib.datasets.load_growth()
    fine = np.linspace(1, 18, 1701)
    coarse_fit = pcalib.functional_pca(growth.data, growth.grid, 3)
    fine_fit = pcalib.functional_pca(PchipInterpolator(growth.grid, growth.data, axis=1)(fine), fine, 3)
    w_fine = pcalib.quadrature_weights(fine)
    assert_allclose(coarse_fit.explained_variance, fine_fit.explained_variance, rtol=0.01)
    for j in range(3):
        on_fine = PchipInterpolator(growth.grid, coarse_fit.components[j])(fine)
        cosine = abs(np.sum(w_fine * on_fine * fine_fit.components[j])) / np.sqrt(np.sum(w_fine * on_fine**2))
        assert np.degrees(np.arccos(min(cosine, 1.0))) < 0.5


@theorem("prop-curves-penalized")
@given(curves_on_uneven_grids(), st.floats(1e-3, 1e3))
@settings(max_examples=40, deadline=None)
def test_penalized_eigenfunctions_by_cholesky_reduction(data, alpha):
    X, grid, rng = data
    w = pcalib.quadrature_weights(grid)
    D = second_differences(grid)
    assert_allclose(D @ (3 + 2 * grid), 0.0, atol=1e-9)  # lines are the null space
    B = np.diag(w) + alpha * D.T @ (w[1:-1, None] * D)
    centered = X - X.mean(axis=0)
    A = (centered * w).T @ (centered * w) / (X.shape[0] - 1)
    L = np.linalg.cholesky(B)
    reduced = np.linalg.solve(L, np.linalg.solve(L, A).T)
    rho, eta = np.linalg.eigh((reduced + reduced.T) / 2)
    rho, eta = rho[::-1], eta[:, ::-1]
    xi = np.linalg.solve(L.T, eta)  # xi = L^-T eta
    k = min(2, X.shape[0] - 1)
    fit = pcalib.functional_pca(X, grid, k, roughness=alpha)
    for j in range(k):
        gap = min(rho[j - 1] - rho[j] if j else np.inf, rho[j] - rho[j + 1])
        if gap > 1e-6 * rho[0]:
            unit = xi[:, j] / np.sqrt(np.sum(w * xi[:, j] ** 2))
            assert_allclose(abs(np.sum(w * unit * fit.components[j])), 1.0, atol=1e-7 * rho[0] / gap)
    # B-orthogonality of the returned eigenfunctions and the maximum of the quotient
    gram = fit.components @ B @ fit.components.T
    assert_allclose(gram - np.diag(np.diag(gram)), 0.0, atol=1e-8 * np.abs(gram).max())
    def quotient(v):
        return (v @ A @ v) / (v @ B @ v)

    best = quotient(fit.components[0])
    assert_allclose(best, rho[0], rtol=1e-8)
    for candidate in rng.standard_normal((50, X.shape[1])):
        assert quotient(candidate) <= best * (1 + 1e-10)


@theorem("prop-curves-penalized")
def test_zero_penalty_is_functional_pca_and_a_huge_one_gives_a_line():
    growth = pcalib.datasets.load_growth()
    X, t = growth.data, growth.grid
    tiny = pcalib.functional_pca(X, t, 2, roughness=1e-12)
    plain = pcalib.functional_pca(X, t, 2)
    assert_allclose(tiny.components, plain.components, atol=1e-7)
    stiff = pcalib.functional_pca(X, t, 1, roughness=1e10).components[0]
    assert np.max(np.abs(stiff - np.polyval(np.polyfit(t, stiff, 1), t))) < 1e-5 * np.max(np.abs(stiff))


# -- singular spectrum analysis --------------------------------------------------------------------


@theorem("prop-curves-ssa-inner-product")
@given(st.integers(4, 40), st.data())
@settings(max_examples=50, deadline=None)
def test_the_frobenius_product_of_trajectory_matrices_is_the_w_inner_product(N, data):
    window = data.draw(st.integers(2, N - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a, b = rng.standard_normal(N), rng.standard_normal(N)
    Ta, Tb = pcalib.trajectory_matrix(a, window), pcalib.trajectory_matrix(b, window)
    counts = np.array([sum(1 for i in range(N - window + 1) for j in range(window) if i + j == t) for t in range(N)])
    np.testing.assert_array_equal(anti_diagonal_counts(N - window + 1, window), counts)
    assert_allclose(np.trace(Ta.T @ Tb), np.sum(counts * a * b), rtol=1e-12, atol=1e-12)
    # wcor of two reconstructed parts is the cosine between their trajectory matrices
    ssa = pcalib.SSA(window).fit(a + b)
    groups = [0, list(range(1, min(window, N - window + 1)))]
    first, second = (pcalib.trajectory_matrix(part, window) for part in ssa.reconstruct(groups))
    cosine = np.sum(first * second) / (np.linalg.norm(first) * np.linalg.norm(second))
    assert_allclose(ssa.w_correlation(groups)[0, 1], cosine, atol=1e-10)


@theorem("thm-curves-diagonal-averaging")
@given(st.integers(4, 30), st.data())
@settings(max_examples=40, deadline=None)
def test_diagonal_averaging_is_the_nearest_hankel_matrix_and_a_projection(N, data):
    window = data.draw(st.integers(2, N - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = N - window + 1
    Z = rng.standard_normal((n, window))
    # diagonal averaging by loops (the definition), through SSA of a series whose
    # trajectory matrix is Z's projection: the map is exactly T^+
    sums, counts = np.zeros(N), np.zeros(N)
    for i in range(n):
        for j in range(window):
            sums[i + j] += Z[i, j]
            counts[i + j] += 1
    averaged = sums / counts
    H = pcalib.trajectory_matrix(averaged, window)
    best = np.linalg.norm(Z - H)
    for _ in range(50):
        other = pcalib.trajectory_matrix(averaged + rng.standard_normal(N) * rng.uniform(1e-6, 1), window)
        assert np.linalg.norm(Z - other) >= best * (1 - 1e-12)
    # orthogonal projection: the residual is orthogonal to every Hankel matrix
    for _ in range(5):
        hankel = pcalib.trajectory_matrix(rng.standard_normal(N), window)
        assert abs(np.sum((Z - H) * hankel)) < 1e-10 * np.linalg.norm(Z) * np.linalg.norm(hankel)


@theorem("thm-curves-diagonal-averaging")
@given(st.integers(6, 40), st.data())
@settings(max_examples=40, deadline=None)
def test_reconstruction_is_eckart_young_then_the_projection(N, data):
    window = data.draw(st.integers(2, N - 2))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.standard_normal(N).cumsum()
    X = pcalib.trajectory_matrix(x, window)
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    k = data.draw(st.integers(1, s.size))
    if k < s.size and s[k - 1] - s[k] < 1e-8 * s[0]:
        return  # the rank-k truncation is not unique
    Xk = (U[:, :k] * s[:k]) @ Vt[:k]  # Eckart-Young's best rank-k approximation
    sums, counts = np.zeros(N), np.zeros(N)
    for i in range(X.shape[0]):
        for j in range(window):
            sums[i + j] += Xk[i, j]
            counts[i + j] += 1
    reconstructed = pcalib.SSA(window).fit(x).reconstruct([list(range(k))])[0]
    tolerance = 1e-9 * s[0] / (s[k - 1] - s[k] if k < s.size else s[0])
    assert_allclose(reconstructed, sums / counts, atol=tolerance)


@theorem("thm-curves-diagonal-averaging")
@pytest.mark.parametrize("seed", range(5))
def test_any_group_is_the_frobenius_projection_onto_its_elementary_matrices(seed):
    # the first step for a group that is not the leading k: X_J is the least-squares
    # combination of the u_j v_j^T (solved here on the vectorized matrices), and SSA's
    # reconstruction is its diagonal average
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(40).cumsum()
    window = int(rng.integers(5, 30))
    X = pcalib.trajectory_matrix(x, window)
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    group = sorted(rng.choice(np.arange(1, s.size), size=3, replace=False).tolist())
    basis = np.column_stack([np.outer(U[:, j], Vt[j]).ravel() for j in group])
    coefficients = np.linalg.lstsq(basis, X.ravel(), rcond=None)[0]
    assert_allclose(coefficients, s[group], rtol=1e-10)             # <X, u_j v_j^T> = sigma_j
    projection = (basis @ coefficients).reshape(X.shape)
    assert abs(np.sum((X - projection) * basis[:, 0].reshape(X.shape))) < 1e-10 * s[0]
    counts = anti_diagonal_counts(*X.shape)
    averaged = np.array([np.trace(np.fliplr(projection), offset=X.shape[1] - 1 - t)
                         for t in range(x.size)]) / counts
    reconstructed = pcalib.SSA(window).fit(x).reconstruct([group])[0]
    assert_allclose(reconstructed, averaged, atol=1e-10 * s[0])


@theorem("prop-curves-separability")
@pytest.mark.parametrize("period", [4, 6, 12])
@pytest.mark.parametrize("multiple", [(2, 3), (3, 5)])
def test_a_constant_and_a_sine_are_separated_exactly(period, multiple):
    window, n = period * multiple[0], period * multiple[1]
    N = n + window - 1
    t = np.arange(N)
    level, wave = np.full(N, -3.0), 2 * np.cos(2 * np.pi * t / period + 1.0)
    X1, X2 = pcalib.trajectory_matrix(level, window), pcalib.trajectory_matrix(wave, window)
    assert_allclose(X1.T @ X2, 0.0, atol=1e-11)
    assert_allclose(X1 @ X2.T, 0.0, atol=1e-11)  # weak separability holds
    ssa = pcalib.SSA(window).fit(level + wave)
    s = ssa.singular_values_
    # ||X1||_F^2 = 9 n p in one singular value; ||X2||_F^2 = 4 n p / 2, split over a pair
    assert_allclose(s[:3], np.sqrt(n * window) * np.array([3.0, 1.0, 1.0]), rtol=1e-12)
    group_level, group_wave = [0], [1, 2]
    got_level, got_wave = ssa.reconstruct([group_level, group_wave])
    assert_allclose(got_level, level, atol=1e-11)
    assert_allclose(got_wave, wave, atol=1e-11)
    assert abs(ssa.w_correlation([group_level, group_wave])[0, 1]) < 1e-12


@theorem("prop-curves-separability")
def test_two_sines_of_different_periods_are_separable_when_both_sizes_are_multiples():
    window, n = 60, 120  # multiples of 12 and of 20
    t = np.arange(n + window - 1)
    slow, fast = 4 * np.sin(2 * np.pi * t / 20), np.cos(2 * np.pi * t / 12)
    ssa = pcalib.SSA(window).fit(slow + fast)
    got_slow, got_fast = ssa.reconstruct([[0, 1], [2, 3]])
    assert_allclose(got_slow, slow, atol=1e-10)
    assert_allclose(got_fast, fast, atol=1e-10)
    # off the multiples the same grouping is only approximate
    approx = pcalib.SSA(window).fit((slow + fast)[:-7]).reconstruct([[0, 1]])[0]
    assert np.max(np.abs(approx - slow[:-7])) > 1e-4


@theorem("thm-curves-recurrence")
@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_finite_rank_series_obey_the_recurrence_and_are_forecast_exactly(seed):
    rng = np.random.default_rng(seed)
    t = np.arange(200)
    growth_rate, period = rng.uniform(-0.01, 0.01), rng.uniform(5, 30)
    x = 3 * np.exp(growth_rate * t) + rng.uniform(0.5, 2) * np.cos(2 * np.pi * t / period + rng.uniform(0, 6))
    window = int(rng.integers(10, 60))
    ssa = pcalib.SSA(window).fit(x[:120])
    s = ssa.singular_values_
    assert s[3] < 1e-10 * s[0]  # rank 3: one exponential and one sine
    h = ssa.recurrence(range(3))
    # the recurrence, from NumPy's SVD of the whole series' trajectory matrix
    V = np.linalg.svd(pcalib.trajectory_matrix(x, window))[2][:3].T
    last = V[-1]
    assert_allclose(h, V[:-1] @ last / (1 - last @ last), atol=1e-8)
    windows = pcalib.trajectory_matrix(x, window)
    assert_allclose(windows[:, :-1] @ h, windows[:, -1], atol=1e-8 * np.abs(x).max())
    assert_allclose(ssa.forecast(80, range(3)), x[120:], atol=1e-7 * np.abs(x).max())
    # any vector of the span satisfies z_p = h^T z_(1..p-1)
    for c in rng.standard_normal((5, 3)):
        z = ssa.components_[:3].T @ c
        assert_allclose(z[-1], h @ z[:-1], atol=1e-10 * np.abs(z).max())


@theorem("thm-curves-recurrence")
def test_the_recurrence_needs_the_last_lag_outside_the_span():
    ssa = pcalib.SSA(2).fit(np.arange(1.0, 9.0))
    with pytest.raises(ValueError, match="no linear recurrence"):
        ssa.recurrence([0, 1])
    x = 2.0 ** np.arange(12.0)  # f_t = 2 f_(t-1): rank 1, windows along (1, 2, 4, 8)
    geometric = pcalib.SSA(4).fit(x)
    # every h with h^T (1, 2, 4) = 8 continues it; the theorem's h is the shortest one
    shortest = np.linalg.lstsq(np.array([[1.0, 2.0, 4.0]]), [8.0], rcond=None)[0]
    assert_allclose(geometric.recurrence([0]), shortest, atol=1e-12)
    assert_allclose(shortest @ [1.0, 2.0, 4.0], 8.0, rtol=1e-14)
    assert_allclose(geometric.forecast(3, [0]), 2.0 ** np.arange(12.0, 15.0), rtol=1e-12)

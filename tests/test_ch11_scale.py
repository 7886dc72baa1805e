"""Tests of the results of the chapter "PCA at scale" (book/11_pca_at_scale.md).

Notation of the chapter: blocks a and b of rows with counts n_a, n_b, means xbar_a,
xbar_b and scatter matrices Phi_a = sum_{i in a} (x_i - xbar_a)(x_i - xbar_a)^T;
delta = xbar_b - xbar_a; ell the width of a Gaussian test matrix Omega; q the number of
iterations; P the projector onto the columns of A Omega.

Each result is checked against routes independent of the chapter's helpers: np.cov and
NumPy's SVD of the whole matrix, SciPy's QR and orth, with other sizes, seeds and
offsets than the chapter's. The merge code here is written out again on purpose: the
chapter's cells are tested by nbval, these tests check the mathematics.
"""

from functools import reduce

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import pcalib

theorem = pytest.mark.theorem


def triple(block):
    mean = block.mean(axis=0)
    return block.shape[0], mean, (block - mean).T @ (block - mean)


def merge(first, second):
    (n_a, mean_a, phi_a), (n_b, mean_b, phi_b) = first, second
    n, delta = n_a + n_b, mean_b - mean_a
    return n, mean_a + n_b / n * delta, phi_a + phi_b + n_a * n_b / n * np.outer(delta, delta)


def merge_in_order(triples, order, merge=merge):
    """Merge a pool of triples, each step joining the neighbours picked by `order`,
    then a left fold of what is left: every binary tree over the blocks can occur."""
    pool = list(triples)
    for pick in order:
        if len(pool) == 1:
            break
        i = pick % (len(pool) - 1)
        pool[i:i + 2] = [merge(pool[i], pool[i + 1])]
    return reduce(merge, pool)


def with_singular_values(n, p, sigma, rng):
    left = np.linalg.qr(rng.standard_normal((n, p)))[0]
    right = np.linalg.qr(rng.standard_normal((p, p)))[0]
    return (left * sigma) @ right.T


@st.composite
def split_data(draw):
    """Seeded data with an offset, cut into 1..12 row blocks, and a merge order."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(2, 60))
    p = draw(st.integers(1, 5))
    offset = 10.0 ** draw(st.integers(0, 8))
    X = offset + rng.standard_normal((n, p)) @ rng.standard_normal((p, p))
    n_cuts = draw(st.integers(0, min(11, n - 1)))
    cuts = np.sort(rng.choice(np.arange(1, n), n_cuts, replace=False))
    order = draw(st.lists(st.integers(0, 100), max_size=12))
    return X, np.split(X, cuts), order


@theorem("thm-scale-merge")
@settings(max_examples=60, deadline=None)
@given(split_data())
def test_merged_triple_equals_the_batch_one_in_every_order(case):
    X, blocks, order = case
    n, p = X.shape
    shift = X[0]
    count, mean, phi = merge_in_order([triple(b - shift) for b in blocks], order)
    assert count == n
    np.testing.assert_allclose(mean + shift, X.mean(axis=0), rtol=1e-12)
    batch = np.cov(X, rowvar=False).reshape(p, p) * (n - 1)     # two-pass, whole X
    np.testing.assert_allclose(phi, batch, rtol=0, atol=1e-9 * max(np.abs(batch).max(), 1e-300))


@theorem("thm-scale-merge")
def test_merge_formula_exact_on_integers():
    """On small integers every operation is exact: the formula holds with no rounding."""
    rng = np.random.default_rng(1)
    X = rng.integers(-5, 6, size=(8, 3)).astype(float)      # block means are multiples of 1/4
    a, b = triple(X[:4]), triple(X[4:])
    count, mean, phi = merge(a, b)
    Xc = X - X.mean(axis=0)
    assert count == 8
    assert np.array_equal(mean, X.mean(axis=0))
    assert np.array_equal(phi, Xc.T @ Xc)


@theorem("thm-scale-hmt")
@pytest.mark.parametrize("extra", [2, 4, 8])
def test_range_finder_error_below_the_halko_martinsson_tropp_bounds(extra):
    rng = np.random.default_rng(extra)
    n, p, k = 50, 30, 4
    sigma = np.exp(-np.arange(p) / 8.0)
    A = with_singular_values(n, p, sigma, rng)
    tail = np.sqrt(np.sum(sigma[k:] ** 2))
    ell = k + extra
    frobenius, spectral = [], []
    for seed in range(300):
        omega = np.random.default_rng(seed).standard_normal((p, ell))
        Q = scipy.linalg.orth(A @ omega)
        residual = A - Q @ (Q.T @ A)
        frobenius.append(np.linalg.norm(residual))
        spectral.append(np.linalg.norm(residual, 2))
    frobenius, spectral = np.array(frobenius), np.array(spectral)
    se = lambda e: 3 * e.std() / np.sqrt(e.size)  # noqa: E731
    assert frobenius.mean() + se(frobenius) <= np.sqrt(1 + k / (ell - k - 1)) * tail
    bound_2 = (1 + np.sqrt(k / (ell - k - 1))) * sigma[k] + np.e * np.sqrt(ell) / extra * tail
    assert spectral.mean() + se(spectral) <= bound_2
    # never better than the best rank-ell error (Eckart-Young): the check can fail
    assert np.all(spectral >= sigma[ell] * (1 - 1e-10))


@theorem("thm-scale-hmt")
def test_pcalib_randomized_svd_without_iterations_within_the_truncated_bound():
    rng = np.random.default_rng(7)
    n, p, k, extra = 40, 25, 3, 5
    sigma = 1.0 / np.arange(1, p + 1)
    A = with_singular_values(n, p, sigma, rng)
    tail = np.sqrt(np.sum(sigma[k:] ** 2))
    ell = k + extra
    errors = []
    for seed in range(200):
        U, s, Vt = pcalib.randomized_svd(A, k, oversample=extra, n_iter=0, random_state=seed)
        errors.append(np.linalg.norm(A - (U * s) @ Vt, 2))
    bound_2 = (1 + np.sqrt(k / (ell - k - 1))) * sigma[k] + np.e * np.sqrt(ell) / extra * tail
    assert np.mean(errors) <= sigma[k] + bound_2
    assert min(errors) >= sigma[k] * (1 - 1e-10)          # Eckart-Young: never below


def ritz_error(A, Q, k):
    """Frobenius error of Q (Q^T A)_k, the Rayleigh-Ritz rank-k approximation."""
    U, s, Vt = np.linalg.svd(Q.T @ A, full_matrices=False)
    return np.linalg.norm(A - Q @ (U[:, :k] * s[:k]) @ Vt[:k])


@theorem("prop-scale-krylov")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 4), st.integers(1, 4))
def test_block_krylov_at_least_as_accurate_as_power_iterations(seed, q, k):
    rng = np.random.default_rng(seed)
    n, p = 40, 30
    sigma = np.arange(1, p + 1) ** -rng.uniform(0.05, 1.0)
    A = with_singular_values(n, p, sigma, rng)
    omega = rng.standard_normal((p, k + 1))
    blocks = [A @ omega]
    for _ in range(q):
        blocks.append(A @ (A.T @ blocks[-1]))
        blocks[-1] /= np.linalg.norm(blocks[-1])            # scaling keeps the span
    power = scipy.linalg.orth(blocks[-1])
    krylov = scipy.linalg.orth(np.hstack(blocks), rcond=1e-12)
    assert ritz_error(A, krylov, k) <= ritz_error(A, power, k) * (1 + 1e-9)


def block_r(block):
    """(count, mean, R) with R the QR factor of the centered block (SciPy's QR)."""
    mean = block.mean(axis=0)
    return block.shape[0], mean, scipy.linalg.qr(block - mean, mode="r")[0]


def merge_r(first, second):
    """R factor of [R_a; R_b; sqrt(n_a n_b / n) delta^T]: the centered TSQR step."""
    (n_a, mean_a, r_a), (n_b, mean_b, r_b) = first, second
    n, delta = n_a + n_b, mean_b - mean_a
    stacked = np.vstack([r_a, r_b, np.sqrt(n_a * n_b / n) * delta])
    return n, mean_a + n_b / n * delta, scipy.linalg.qr(stacked, mode="r")[0]


@theorem("prop-scale-tsqr")
@settings(max_examples=40, deadline=None)
@given(split_data())
def test_centered_tsqr_gives_the_scatter_and_the_singular_values(case):
    X, blocks, order = case
    n, p = X.shape
    shift = X[0]
    _, _, R = merge_in_order([block_r(b - shift) for b in blocks], order, merge_r)
    Xc = X - X.mean(axis=0)
    scale = max(np.linalg.norm(Xc, 2), 1e-300)
    np.testing.assert_allclose(R.T @ R, Xc.T @ Xc, rtol=0, atol=1e-9 * scale**2)
    s_R = np.linalg.svd(R, compute_uv=False)
    s_X = np.linalg.svd(Xc, compute_uv=False)
    size = min(n, p)
    np.testing.assert_allclose(s_R[:size], s_X[:size], rtol=0, atol=1e-9 * scale)
    assert np.all(np.abs(s_R[size:]) <= 1e-9 * scale)


@theorem("prop-scale-tsqr")
def test_tsqr_axes_equal_those_of_the_whole_svd_on_ill_conditioned_data():
    rng = np.random.default_rng(3)
    n, p = 3000, 5
    sigma = 10.0 ** -np.array([0.0, 1, 3, 5, 7])
    core = with_singular_values(n, p, sigma, rng)
    X = core - core.mean(axis=0) + 3.0
    blocks = np.array_split(X, 7)
    _, _, R = reduce(merge_r, [block_r(b) for b in blocks])
    _, s_R, Vt_R = np.linalg.svd(R)
    _, s_X, Vt_X = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    np.testing.assert_allclose(s_R, s_X, rtol=0, atol=1e-12)
    cosines = np.sum(Vt_R * Vt_X, axis=1)
    assert np.all(np.linalg.norm(Vt_R - cosines[:, None] * Vt_X, axis=1) < 1e-6)



def turn_toward(sigma, U, V, E, i, j):
    r"""First-order component along v_i of the perturbed v_j (right singular vectors of
    X = U diag(sigma) V^T perturbed by E), as chapter 11's TSQR check states it:
    :math:`(\sigma_i u_i^\top E v_j + \sigma_j u_j^\top E v_i) / (\sigma_j^2 - \sigma_i^2)`."""
    coupling = sigma[i] * U[:, i] @ E @ V[:, j] + sigma[j] * U[:, j] @ E @ V[:, i]
    return coupling / (sigma[j] ** 2 - sigma[i] ** 2)


def perturbed_svd(sigma, U, V, E):
    return np.linalg.svd((U * sigma) @ V.T + E, full_matrices=False)


def test_first_order_turn_of_a_right_singular_vector_and_its_gap():
    """Chapter 11, TSQR check: v_8 turns toward v_7 by the formula of `turn_toward`
    (NumPy's SVD of the perturbed matrix is the reference), at most ||E|| / (sigma_7 -
    sigma_8); the formula with the indices of E swapped (that of the left vectors) is
    wrong for v_8. For n > p the left vector u_8 also leaves the column space of X, by
    about ||(I - U U^T) E v_8|| / sigma_8, far more than the right vector turns: why
    Wedin's theorem, which bounds both, needs sigma_8 in its gap."""
    rng = np.random.default_rng(11)
    n, p = 400, 8
    sigma = 10.0 ** -np.array([0, 1, 2, 3, 4, 5, 7, 9.0])
    U = np.linalg.qr(rng.standard_normal((n, p)))[0]
    V = np.linalg.qr(rng.standard_normal((p, p)))[0]
    i, j = 6, 7                                             # v_8 toward v_7
    E_random = 1e-13 * rng.standard_normal((n, p))
    E_swapped = 1e-13 * np.outer(U[:, j], V[:, i])          # only u_8^T E v_7 != 0
    for E in (E_random, E_swapped):
        U_e, _, Vt_e = perturbed_svd(sigma, U, V, E)
        v_j = Vt_e[j] * np.sign(Vt_e[j] @ V[:, j])
        turned = v_j @ V[:, i]
        expected = turn_toward(sigma, U, V, E, i, j)
        np.testing.assert_allclose(turned, expected, rtol=0.02)
        assert abs(turned) <= np.linalg.norm(E, 2) / (sigma[i] - sigma[j])
    swapped = turn_toward(sigma, V, U, E_swapped.T, i, j)  # u and v exchanged: left vectors
    assert abs(swapped) > 50 * abs(turned)
    gap_bound = np.linalg.norm(E_random, 2) / (sigma[i] - sigma[j])
    U_e, _, _ = perturbed_svd(sigma, U, V, E_random)
    outside = np.linalg.norm(U_e[:, j] - U @ (U.T @ U_e[:, j]))
    predicted = np.linalg.norm(E_random @ V[:, j] - U @ (U.T @ E_random @ V[:, j])) / sigma[j]
    np.testing.assert_allclose(outside, predicted, rtol=0.05)
    assert outside > 10 * gap_bound

def tail_bound(sigma, k, ell):
    """The right side of the tail bound (HMT Corollary 10.9), oversampling ell - k."""
    tail = np.sqrt(np.sum(sigma[k:] ** 2))
    return (1 + 17 * np.sqrt(1 + k / (ell - k))) * sigma[k] + 8 * np.sqrt(ell) / (ell - k + 1) * tail


@theorem("thm-scale-hmt-tail")
@pytest.mark.parametrize("extra", [4, 7])
def test_every_range_finder_error_below_the_tail_bound(extra):
    rng = np.random.default_rng(40 + extra)
    n, p, k = 70, 45, 3
    sigma = np.exp(-np.arange(p) / 6.0)
    A = with_singular_values(n, p, sigma, rng)
    ell = k + extra
    bound = tail_bound(sigma, k, ell)
    simple = (1 + 11 * np.sqrt(ell) * np.sqrt(min(n, p))) * sigma[k]
    assert bound <= simple                      # the simplified form follows
    errors = []
    for seed in range(300):
        Q = scipy.linalg.orth(A @ np.random.default_rng(seed).standard_normal((p, ell)))
        errors.append(np.linalg.norm(A - Q @ (Q.T @ A), 2))
    # the failure probability 6 e^{-(ell - k)} would allow a few of the 300 above the
    # bound (at most 0.11 of them); its constants are loose enough that none is
    assert max(errors) <= bound


@theorem("cor-scale-power")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 6))
def test_power_inequality_for_any_projector(seed, q, dim):
    """||P A||^(2q+1) <= ||P (A A^T)^q A|| for any orthogonal projector P (the step of
    the proof), for random A and random P of any rank."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((12, 9)) * rng.uniform(0.1, 3.0, 9)
    basis = np.linalg.qr(rng.standard_normal((12, dim)))[0]
    P = basis @ basis.T
    left = np.linalg.norm(P @ A, 2) ** (2 * q + 1)
    right = np.linalg.norm(P @ np.linalg.matrix_power(A @ A.T, q) @ A, 2)
    assert left <= right * (1 + 1e-9) + 1e-300


@theorem("cor-scale-power")
@pytest.mark.parametrize("q", [1, 2])
def test_power_scheme_errors_below_the_rooted_bounds(q):
    rng = np.random.default_rng(9)
    n, p, k, ell = 50, 35, 4, 9
    sigma = np.arange(1, p + 1) ** -0.5                     # slow decay
    A = with_singular_values(n, p, sigma, rng)
    B = np.linalg.matrix_power(A @ A.T, q) @ A              # singular values sigma^(2q+1)
    np.testing.assert_allclose(np.linalg.svd(B, compute_uv=False), sigma ** (2 * q + 1), rtol=1e-8)
    errors = []
    for seed in range(200):
        Q = scipy.linalg.orth(B @ np.random.default_rng(seed).standard_normal((p, ell)))
        errors.append(np.linalg.norm(A - Q @ (Q.T @ A), 2))
    errors = np.array(errors)
    rooted = tail_bound(sigma ** (2 * q + 1), k, ell) ** (1 / (2 * q + 1))
    assert errors.max() <= rooted
    tail_q = np.sqrt(np.sum(sigma[k:] ** (2 * (2 * q + 1))))
    mean_bound = ((1 + np.sqrt(k / (ell - k - 1))) * sigma[k] ** (2 * q + 1)
                  + np.e * np.sqrt(ell) / (ell - k) * tail_q) ** (1 / (2 * q + 1))
    assert errors.mean() + 3 * errors.std() / np.sqrt(errors.size) <= mean_bound


@theorem("prop-scale-residual")
@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(1e-4, 0.5))
def test_residual_bounds_for_a_perturbed_eigenvector(seed, size):
    rng = np.random.default_rng(seed)
    p = 8
    eigenvalues = np.sort(rng.uniform(0.0, 10.0, p))[::-1]
    eigenvalues[3] = eigenvalues[4]                       # a repeated eigenvalue too
    V = np.linalg.qr(rng.standard_normal((p, p)))[0]
    S = (V * eigenvalues) @ V.T
    j = rng.integers(p)
    w = V[:, j] + size * rng.standard_normal(p)
    w /= np.linalg.norm(w)
    theta = w @ S @ w
    r = np.linalg.norm(S @ w - theta * w)
    distances = np.abs(eigenvalues - theta)
    nearest = eigenvalues[np.argmin(distances)]
    others = distances[np.abs(eigenvalues - nearest) > 1e-12]
    if others.size == 0:
        return
    delta = others.min()
    space = V[:, np.abs(eigenvalues - nearest) <= 1e-12]    # the eigenspace
    sine = np.linalg.norm(w - space @ (space.T @ w))
    slack = 1e-10 * eigenvalues.max()
    assert abs(theta - nearest) <= r + slack
    assert abs(theta - nearest) <= r**2 / delta + slack
    assert sine <= r / delta + 1e-10


@theorem("prop-scale-residual")
def test_residual_bounds_are_attained_by_two_by_two_rotations():
    """On diag(1, 0) and w = (cos t, sin t): theta = cos^2 t, ||r|| = cos t sin t and
    delta = theta, so the eigenvalue error sin^2 t equals ||r||^2/delta and sin t is
    cos t times ||r||/delta = tan t: the second and third bounds are sharp as t -> 0."""
    S = np.diag([1.0, 0.0])
    for t in (1e-3, 0.1, 0.3):
        w = np.array([np.cos(t), np.sin(t)])
        theta = w @ S @ w
        r = np.linalg.norm(S @ w - theta * w)
        delta = theta - 0.0                     # the other eigenvalue is 0
        np.testing.assert_allclose(1 - theta, r**2 / delta, rtol=1e-9)
        np.testing.assert_allclose(np.sin(t), np.cos(t) * r / delta, rtol=1e-9)


@theorem("prop-scale-probe")
@pytest.mark.parametrize("alpha", [1.5, 3.0])
def test_probe_estimate_fails_at_most_with_probability_one_over_alpha(alpha):
    rng = np.random.default_rng(11)
    for A in (np.outer(rng.standard_normal(30), rng.standard_normal(20)),
              rng.standard_normal((30, 20)) * np.exp(-np.arange(20))):
        probes = rng.standard_normal((20, 50_000))
        lengths = np.linalg.norm(A @ probes, axis=0)
        failed = np.mean(alpha * np.sqrt(2 / np.pi) * lengths < np.linalg.norm(A, 2))
        assert failed <= 1 / alpha + 4 * np.sqrt(0.25 / lengths.size)
    # rank one: the probability is exactly Pr(|g| < 1 / (alpha sqrt(2/pi))), near 1/alpha
    A = np.outer(rng.standard_normal(30), rng.standard_normal(20))
    lengths = np.linalg.norm(A @ rng.standard_normal((20, 50_000)), axis=0)
    failed = np.mean(alpha * np.sqrt(2 / np.pi) * lengths < np.linalg.norm(A, 2))
    assert failed > 0.85 / alpha


def frequent_directions(A, ell):
    """Frequent Directions with a buffer of 2 ell rows, written again (SciPy's SVD);
    also returns the total shrinkage Delta."""
    F = np.zeros((2 * ell, A.shape[1]))
    filled, shrinkage = 0, 0.0
    for row in A:
        if filled == 2 * ell:
            _, s, Vt = scipy.linalg.svd(F, full_matrices=False)
            tau = s[ell - 1] ** 2
            F = np.zeros_like(F)
            F[:ell] = np.sqrt(np.maximum(s[:ell] ** 2 - tau, 0.0))[:, None] * Vt[:ell]
            filled, shrinkage = ell, shrinkage + tau
        F[filled] = row
        filled += 1
    return F, shrinkage


@theorem("prop-scale-fd")
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.floats(0.3, 1.0))
def test_frequent_directions_error_below_the_bound_for_every_k(seed, ell, decay):
    rng = np.random.default_rng(seed)
    n, p = 150, 25
    A = rng.standard_normal((n, p)) * decay ** np.arange(p) @ np.linalg.qr(rng.standard_normal((p, p)))[0]
    F, shrinkage = frequent_directions(A, ell)
    gap = A.T @ A - F.T @ F
    scale = np.linalg.norm(A, 2) ** 2
    assert np.linalg.eigvalsh(gap).min() >= -1e-10 * scale          # A^T A - F^T F >= 0
    error = np.linalg.norm(gap, 2)
    assert error <= shrinkage * (1 + 1e-10) + 1e-10 * scale
    squares = np.linalg.svd(A, compute_uv=False) ** 2
    for k in range(ell):
        assert error <= squares[k:].sum() / (ell - k) * (1 + 1e-10) + 1e-10 * scale


@theorem("prop-scale-fd")
def test_frequent_directions_is_exact_below_the_sketch_size():
    """Rank k < ell: the bound with that k is 0, so F^T F = A^T A."""
    rng = np.random.default_rng(2)
    A = rng.standard_normal((300, 3)) @ rng.standard_normal((3, 20))
    F, _ = frequent_directions(A, 5)
    np.testing.assert_allclose(F.T @ F, A.T @ A, atol=1e-9 * np.linalg.norm(A, 2) ** 2)


@theorem("prop-scale-fd")
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.floats(0.3, 1.0), st.integers(0, 6))
def test_frequent_directions_for_pca_loses_one_rank_to_the_shift(seed, ell, decay, power):
    """Chapter 11, FD for PCA: rows X (mean far from 0) sketched as A = X - 1 c^T with
    c = x_1, the scatter estimated by F^T F - n (xbar - c)(xbar - c)^T. Its error against
    np.cov (the reference) is at most ||X_c - (X_c)_{k-1}||_F^2 / (ell - k), 1 <= k < ell:
    A is X_c plus a rank-one matrix, so sigma_{j+1}(A) <= sigma_j(X_c) (Weyl)."""
    rng = np.random.default_rng(seed)
    n, p = 150, 25
    rotation = np.linalg.qr(rng.standard_normal((p, p)))[0]
    X = 10.0**power * (1 + rng.random(p)) + rng.standard_normal((n, p)) * decay ** np.arange(p) @ rotation
    shifted = X - X[0]
    F, _ = frequent_directions(shifted, ell)
    offset = shifted.mean(axis=0)
    estimate = F.T @ F - n * np.outer(offset, offset)
    scatter = np.cov(X, rowvar=False) * (n - 1)
    squares = np.linalg.svd(X - X.mean(axis=0), compute_uv=False) ** 2
    error = np.linalg.norm(scatter - estimate, 2)
    tolerance = 1e-9 * np.linalg.norm(shifted, 2) ** 2
    for k in range(1, ell):
        assert error <= squares[k - 1:].sum() / (ell - k) + tolerance
    weyl = np.linalg.svd(shifted, compute_uv=False)[1:] ** 2
    assert np.all(weyl <= squares[:-1] * (1 + 1e-9) + tolerance)

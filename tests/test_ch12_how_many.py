"""Tests of the results of the chapter "How many components, and how sure?"
(book/12_how_many_components.md).

Notation of the chapter: C a population covariance with eigenvalues lambda_j(C) and unit
eigenvectors v_j(C); S the sample covariance; gamma = p / n; Delta a symmetric
perturbation; ||sin Theta(Q_hat, Q)||_F = ||(I - Q Q^T) Q_hat||_F.

The deterministic results (Weyl, the curvature lemma, Davis-Kahan and its one-axis
corollary) are checked on random matrices with NumPy's eigensolver; the asymptotic ones
(Marchenko-Pastur, the spiked model, Anderson) by simulation with other settings than the
chapter's (other gamma, noise level and distributions). Broken stick, row-wise and
row-and-column cross-validation are covered in test_selection.py, the bootstrap in
test_bootstrap.py.
"""

import numpy as np
import pytest
import scipy.integrate
from hypothesis import given
from hypothesis import strategies as st

theorem = pytest.mark.theorem


def eig_decreasing(A):
    lam, V = np.linalg.eigh(A)
    return lam[::-1], V[:, ::-1]


def sin_theta(Q_hat, Q):
    return np.linalg.norm(Q_hat - Q @ (Q.T @ Q_hat))


def random_symmetric(rng, p, scale=1.0):
    M = rng.standard_normal((p, p))
    return scale * (M + M.T) / 2


@st.composite
def perturbed_pairs(draw):
    """(A, Delta, k): symmetric A with a gap after its k-th eigenvalue, a random Delta of
    random size (from tiny to larger than the gap)."""
    p = draw(st.integers(2, 9))
    k = draw(st.integers(1, p - 1))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    lam = np.sort(rng.uniform(-3, 3, size=p))[::-1]
    lam[:k] += draw(st.floats(0.01, 3.0))  # the gap delta_k is at least this
    basis = np.linalg.qr(rng.standard_normal((p, p)))[0]
    A = basis @ np.diag(lam) @ basis.T
    Delta = random_symmetric(rng, p, 10 ** draw(st.floats(-6, 1)))
    return A, Delta, k


# -- eigenvalue bias ---------------------------------------------------------------------


@theorem("prop-howmany-eigenvalue-bias")
def test_partial_sums_of_sample_eigenvalues_are_biased_outwards():
    # non-Gaussian (uniform) data with a rotated covariance, n = 15, p = 6
    rng = np.random.default_rng(0)
    lam_C = np.array([5.0, 3.0, 2.0, 1.0, 1.0, 0.4])
    basis = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    reps, n = 6000, 15
    U = rng.uniform(-np.sqrt(3), np.sqrt(3), size=(reps, n, 6))  # variance 1
    X = (U * np.sqrt(lam_C)) @ basis.T
    Xc = X - X.mean(axis=1, keepdims=True)
    lam_S = np.linalg.eigvalsh(Xc.transpose(0, 2, 1) @ Xc / (n - 1))[:, ::-1]
    top, bottom = np.cumsum(lam_S, axis=1), np.cumsum(lam_S[:, ::-1], axis=1)
    se_top, se_bottom = top.std(axis=0) / np.sqrt(reps), bottom.std(axis=0) / np.sqrt(reps)
    assert np.all(top.mean(axis=0) >= np.cumsum(lam_C) - 3 * se_top)
    assert np.all(bottom.mean(axis=0) <= np.cumsum(lam_C[::-1]) + 3 * se_bottom)
    assert top.mean(axis=0)[0] > lam_C[0] + 5 * se_top[0]
    assert bottom.mean(axis=0)[0] < lam_C[-1] - 5 * se_bottom[0]
    # the total is unbiased: E tr S = tr C
    assert abs(top.mean(axis=0)[-1] - lam_C.sum()) < 4 * se_top[-1]


# -- random matrix limits --------------------------------------------------------------------


def marchenko_pastur_cdf(x, gamma, sigma2):
    a, b = sigma2 * (1 - np.sqrt(gamma)) ** 2, sigma2 * (1 + np.sqrt(gamma)) ** 2

    def density(t):
        return np.sqrt(max((b - t) * (t - a), 0.0)) / (2 * np.pi * gamma * sigma2 * t)

    return scipy.integrate.quad(density, a, min(max(x, a), b))[0]


@theorem("thm-howmany-marchenko-pastur")
def test_marchenko_pastur_law_and_edges_for_rademacher_noise():
    rng = np.random.default_rng(1)
    n, p, sigma2 = 1600, 800, 2.0  # gamma = 1/2
    X = rng.choice([-1.0, 1.0], size=(n, p)) * np.sqrt(sigma2)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))
    a, b = sigma2 * (1 - np.sqrt(0.5)) ** 2, sigma2 * (1 + np.sqrt(0.5)) ** 2
    grid = np.linspace(a, b, 30)[1:-1]
    cdf = np.array([marchenko_pastur_cdf(x, 0.5, sigma2) for x in grid])
    assert np.abs(np.searchsorted(lam, grid) / p - cdf).max() < 0.02
    assert cdf[-1] < 1 and marchenko_pastur_cdf(b, 0.5, sigma2) == pytest.approx(1, abs=1e-6)
    assert abs(lam[-1] - b) < 0.1 * b and abs(lam[0] - a) < 0.1


@theorem("thm-howmany-spiked")
@pytest.mark.parametrize(("spike", "above"), [(7.0, True), (9.0, True), (3.0, False)])
def test_spiked_model_limits_of_eigenvalue_and_axis(spike, above):
    rng = np.random.default_rng(int(spike))
    n, p, sigma2 = 1000, 500, 2.0  # gamma = 1/2: transition at 2 (1 + 0.707) = 3.41
    gamma = p / n
    assert (spike > sigma2 * (1 + np.sqrt(gamma))) == above
    basis = np.linalg.qr(rng.standard_normal((p, p)))[0]
    tops, cos2 = [], []
    for _ in range(3):
        lam = np.full(p, sigma2)
        lam[0] = spike
        X = rng.standard_normal((n, p)) * np.sqrt(lam) @ basis.T
        w, V = eig_decreasing(np.cov(X, rowvar=False))
        tops.append(w[0])
        cos2.append((V[:, 0] @ basis[:, 0]) ** 2)
    if above:
        excess = spike - sigma2
        expected_top = spike * (1 + gamma * sigma2 / excess)
        expected_cos2 = (1 - gamma * sigma2**2 / excess**2) / (1 + gamma * sigma2 / excess)
    else:
        expected_top, expected_cos2 = sigma2 * (1 + np.sqrt(gamma)) ** 2, 0.0
    assert np.mean(tops) == pytest.approx(expected_top, rel=0.03)
    assert abs(np.mean(cos2) - expected_cos2) < 0.08


@theorem("thm-howmany-anderson")
def test_simple_sample_eigenvalues_are_asymptotically_normal_with_variance_2_lambda_squared():
    rng = np.random.default_rng(2)
    lam_C = np.array([6.0, 2.0, 1.0])
    n, reps = 1000, 3000
    X = rng.standard_normal((reps, n, 3)) * np.sqrt(lam_C)
    Xc = X - X.mean(axis=1, keepdims=True)
    lam_S = np.linalg.eigvalsh(Xc.transpose(0, 2, 1) @ Xc / (n - 1))[:, ::-1]
    z = np.sqrt(n) * (lam_S - lam_C) / (np.sqrt(2) * lam_C)
    np.testing.assert_allclose(z.std(axis=0), 1.0, atol=0.06)
    np.testing.assert_allclose(z.mean(axis=0), 0.0, atol=0.12)  # bias O(1/sqrt(n)) in z
    assert np.abs(np.corrcoef(z, rowvar=False)[np.triu_indices(3, 1)]).max() < 0.08


# -- perturbation bounds -------------------------------------------------------------------


@theorem("thm-howmany-weyl")
@given(perturbed_pairs())
def test_weyl_eigenvalues_move_by_at_most_the_operator_norm(pair):
    A, Delta, _ = pair
    shift = np.abs(eig_decreasing(A + Delta)[0] - eig_decreasing(A)[0])
    norm = np.linalg.norm(Delta, 2)
    assert np.all(shift <= norm + 1e-12 * np.abs(A).max())


@theorem("thm-howmany-weyl")
def test_weyl_is_attained_by_a_multiple_of_the_identity():
    A = random_symmetric(np.random.default_rng(3), 5)
    shift = eig_decreasing(A + 0.7 * np.eye(5))[0] - eig_decreasing(A)[0]
    np.testing.assert_allclose(shift, 0.7, rtol=1e-12)


@theorem("lem-howmany-curvature")
@given(perturbed_pairs(), st.integers(0, 2**32 - 1))
def test_curvature_lemma_for_random_subspaces(pair, seed):
    A, _, k = pair
    lam, V = eig_decreasing(A)
    Q = np.linalg.qr(np.random.default_rng(seed).standard_normal((A.shape[0], k)))[0]
    lhs = np.trace(V[:, :k].T @ A @ V[:, :k]) - np.trace(Q.T @ A @ Q)
    rhs = (lam[k - 1] - lam[k]) * sin_theta(Q, V[:, :k]) ** 2
    assert lhs >= rhs - 1e-12 * np.abs(A).max() * k
    # equality: replace v_k by v_{k+1}, a difference of delta with ||sin Theta||_F = 1
    swapped = np.column_stack([V[:, : k - 1], V[:, k]])
    lhs_swapped = np.trace(V[:, :k].T @ A @ V[:, :k]) - np.trace(swapped.T @ A @ swapped)
    assert sin_theta(swapped, V[:, :k]) == pytest.approx(1.0, abs=1e-12)
    assert lhs_swapped == pytest.approx(lam[k - 1] - lam[k], abs=1e-10 * np.abs(lam).max())


def spectra_and_bounds(A, Delta):
    """Eigenpairs of A and A + Delta (decreasing) and beta_l = min(2 sqrt(l) ||Delta||_2,
    sqrt(2) ||Delta||_F) / delta_l for l = 0..p (beta_0 = beta_p = 0)."""
    lam, V = eig_decreasing(A)
    V_hat = eig_decreasing(A + Delta)[1]
    op, fro = np.linalg.norm(Delta, 2), np.linalg.norm(Delta)
    with np.errstate(divide="ignore"):
        beta = [min(2 * np.sqrt(l) * op, np.sqrt(2) * fro) / (lam[l - 1] - lam[l])
                for l in range(1, len(lam))]
    return lam, V, V_hat, np.concatenate([[0.0], beta, [0.0]])


@theorem("thm-howmany-davis-kahan")
@given(perturbed_pairs())
def test_davis_kahan_bound_holds(pair):
    A, Delta, k = pair
    lam, V, V_hat, beta = spectra_and_bounds(A, Delta)
    bound = beta[k]
    measured = sin_theta(V_hat[:, :k], V[:, :k])
    assert measured <= bound + 1e-9
    # the symmetric form used in the proof: ||P - P_hat||_F^2 = 2 ||sin Theta||_F^2
    P, P_hat = V[:, :k] @ V[:, :k].T, V_hat[:, :k] @ V_hat[:, :k].T
    assert np.linalg.norm(P - P_hat) ** 2 == pytest.approx(2 * measured**2, abs=1e-10)


@theorem("thm-howmany-davis-kahan")
def test_davis_kahan_does_not_depend_on_the_basis_of_a_repeated_top_eigenvalue():
    # lambda_1 = lambda_2 > lambda_3: V_2(A) is any basis of the top plane
    rng = np.random.default_rng(4)
    basis = np.linalg.qr(rng.standard_normal((5, 5)))[0]
    A = basis @ np.diag([3.0, 3.0, 1.0, 0.5, 0.0]) @ basis.T
    rotation = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    Delta = random_symmetric(rng, 5, 0.05)
    V_hat = eig_decreasing(A + Delta)[1][:, :2]
    for V2 in (basis[:, :2], basis[:, :2] @ rotation):
        assert sin_theta(V_hat, V2) <= np.sqrt(2) * np.linalg.norm(Delta) / 2.0


@theorem("cor-howmany-one-axis")
@given(perturbed_pairs())
def test_one_axis_bound_holds(pair):
    A, Delta, _ = pair
    lam, V, V_hat, beta = spectra_and_bounds(A, Delta)
    p = len(lam)
    gaps = lam[:-1] - lam[1:]
    for j in range(1, p + 1):
        if (j > 1 and gaps[j - 2] <= 1e-9) or (j < p and gaps[j - 1] <= 1e-9):
            continue  # the corollary needs both neighbouring gaps
        sine = np.sqrt(max(1 - (V_hat[:, j - 1] @ V[:, j - 1]) ** 2, 0.0))
        assert sine <= np.hypot(beta[j - 1], beta[j]) + 1e-7


@theorem("thm-howmany-anderson")
def test_sample_axes_are_asymptotically_normal_with_andersons_covariance():
    """sqrt(n) (v_1(S) - v_1(C)) has covariance Gamma_1 = sum_{l != 1} lambda_1 lambda_l /
    (lambda_1 - lambda_l)^2 v_l v_l^T: 4000 Gaussian samples of n = 1000, C = diag(6, 2, 1),
    so Gamma_1 = diag(0, 0.75, 0.24). The empirical covariance must be within 10% of it."""
    rng = np.random.default_rng(7)
    lam_C = np.array([6.0, 2.0, 1.0])
    n, reps = 1000, 4000
    X = rng.standard_normal((reps, n, 3)) * np.sqrt(lam_C)
    Xc = X - X.mean(axis=1, keepdims=True)
    v1 = np.linalg.eigh(Xc.transpose(0, 2, 1) @ Xc / (n - 1))[1][:, :, -1]
    v1 *= np.sign(v1[:, :1])  # oriented to v_1(C) = e_1
    deviation = np.sqrt(n) * (v1 - [1.0, 0.0, 0.0])
    gamma = np.diag([0.0, 6 * 2 / 4**2, 6 * 1 / 5**2])
    covariance = np.cov(deviation, rowvar=False)
    np.testing.assert_allclose(np.diag(covariance)[1:], np.diag(gamma)[1:], rtol=0.1)
    assert abs(covariance[1, 2]) < 0.05 and covariance[0, 0] < 0.05


def test_parallel_analysis_detects_correlation_not_variance():
    """The permutation null keeps each column's variance: spikes carried by single
    features (C diagonal) are in every null data set and parallel analysis finds none of
    them, while the same spikes rotated over all features are found; the
    Marchenko-Pastur edge finds them either way. 10 data sets of 200 x 20, spikes 8 and 5
    on unit noise (other sizes than the chapter's)."""
    import pcalib

    rng = np.random.default_rng(31)
    spectrum = np.r_[8.0, 5.0, np.ones(18)]
    rotation = np.linalg.qr(rng.standard_normal((20, 20)))[0]
    found = {"aligned": [], "rotated": [], "mp aligned": []}
    for seed in range(10):
        Z = rng.standard_normal((200, 20)) * np.sqrt(spectrum)
        for name, X in (("aligned", Z), ("rotated", Z @ rotation.T)):
            found[name].append(pcalib.choose_k(X=X, method="parallel", n_resamples=20, random_state=seed))
        found["mp aligned"].append(pcalib.choose_k(X=Z, method="mp"))
    assert np.mean(np.array(found["aligned"]) == 0) >= 0.7
    assert np.mean(np.array(found["rotated"]) == 2) >= 0.8
    assert np.mean(np.array(found["mp aligned"]) == 2) >= 0.8

"""Single-vector Lanczos (pcalib._linalg.lanczos), the first stage of the dense Krylov
route of "auto" since issue 35.

References are numpy.linalg.eigh of the matrix written out here, never pcalib itself.
"""

import numpy as np
import pytest

import pcalib._linalg.lanczos as lanczos_module
import pcalib._routes.dense_krylov as dense_krylov
from pcalib import PCA
from pcalib._linalg.lanczos import lanczos_top_vector, missed_eigenvalue
from tests.numpy_references import symmetric_with_spectrum


def counted(M):
    """The product with M, and the list of the vectors it was called with."""
    calls = []

    def times(q):
        assert q.ndim == 1
        calls.append(q.copy())
        return M @ q

    return times, calls


def reference(M, k):
    w, V = np.linalg.eigh(M)
    return w[::-1][:k], V[:, ::-1][:, :k]


def every_value_twice():
    """500 x 400 data whose centered scatter matrix has every eigenvalue twice: two
    copies of one centered 250 x 200 block (singular values 10 * 0.98^j) on the
    diagonal, computed block by block without rounding between them (the second draw
    of the seed, the data of the measurement in review s13)."""
    rng = np.random.default_rng(3)
    nb, pb = 250, 200
    for _ in range(2):
        U = np.linalg.qr(rng.standard_normal((nb, pb)))[0]
        U -= U.mean(axis=0)
        W = np.linalg.qr(rng.standard_normal((pb, pb)))[0]
        B = (U * (10.0 * 0.98 ** np.arange(pb))) @ W.T
    X = np.zeros((2 * nb, 2 * pb))
    X[:nb, :pb] = B
    X[nb:, pb:] = B
    return X


def test_finds_the_leading_pairs_to_the_residual_test():
    values = np.r_[50.0 * 0.8 ** np.arange(12), np.linspace(1.0, 0.01, 388)]
    M = symmetric_with_spectrum(values)
    k, rtol = 6, 1e-12
    times, calls = counted(M)
    run = lanczos_top_vector(times, 400, k, rtol, max_products=200)
    assert run.found is not None
    theta, V = run.found
    w, W = reference(M, k)
    np.testing.assert_allclose(theta, w, rtol=0, atol=rtol * w[0])
    assert np.linalg.norm(M @ V - V * theta, axis=0).max() <= rtol * theta[0]
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-14)
    np.testing.assert_allclose(np.abs(np.sum(V * W, axis=0)), 1.0, atol=1e-12)
    # every product is counted: the main run's and the probe's
    assert run.products == len(calls) < 200
    again = lanczos_top_vector(counted(M)[0], 400, k, rtol, max_products=200)
    assert np.array_equal(again.found[1], V)  # deterministic


def test_a_missed_copy_of_a_repeated_eigenvalue_is_caught_by_the_probe(monkeypatch):
    # lambda_3 = lambda_4 = 6 exactly, on a diagonal matrix, so that rounding cannot
    # rotate the start vector within that eigenspace: the Krylov space holds one of its
    # directions, and Lanczos alone returns 10, 8, 6, 4, 3 (found here, 16 products).
    # On a rotated matrix the copies differ by round-off, and Lanczos found both.
    values = np.r_[10.0, 8.0, 6.0, 6.0, 4.0, 3.0, np.linspace(0.5, 0.01, 294)]
    M = np.diag(values)
    k = 5
    run = lanczos_top_vector(lambda q: M @ q, 300, k, 1e-12, max_products=250)
    assert run.found is None  # the probe saw an eigenvalue above theta_5 = 4
    monkeypatch.setattr(lanczos_module, "missed_eigenvalue", lambda *args, **kwargs: (False, 0))
    blind = lanczos_top_vector(lambda q: M @ q, 300, k, 1e-12, max_products=250)
    assert blind.found is not None
    np.testing.assert_allclose(blind.found[0], [10.0, 8.0, 6.0, 4.0, 3.0], rtol=1e-12)  # what the probe is for


def test_auto_finishes_on_the_formed_matrix_when_the_probe_fires(monkeypatch):
    rng = np.random.default_rng(2)
    n, p, k = 1300, 1100, 4
    X = (rng.standard_normal((n, 6)) * [40.0, 30.0, 20.0, 10.0, 5.0, 2.5]) @ rng.standard_normal((6, p))
    X += rng.standard_normal((n, p))
    fired = []
    monkeypatch.setattr(lanczos_module, "missed_eigenvalue", lambda *args, **kwargs: fired.append(1) or (True, 3))
    pca = PCA(k).fit(X)
    assert fired and pca.solver_ == "eig"
    Xc = X - X.mean(axis=0)
    lam, V = reference(Xc.T @ Xc / (n - 1), k)
    np.testing.assert_allclose(pca.explained_variance_, lam, rtol=1e-12)
    assert np.abs(np.sum(pca.components_.T * V, axis=0)).min() > 1 - 1e-12


def test_the_probe_finds_nothing_when_nothing_is_missed_and_bounds_its_products():
    values = np.r_[9.0, 7.0, 5.0, np.linspace(1.0, 0.01, 197)]
    M = symmetric_with_spectrum(values, seed=3)
    w, W = reference(M, 3)
    missed, products = missed_eigenvalue(lambda q: M @ q, np.asfortranarray(W), w, 1e-12)
    assert not missed and 1 <= products <= lanczos_module._PROBE_STEPS
    # the same probe with one pair left out of V finds it (7 > 5 + rtol * 9)
    keep = [0, 2]
    missed, _ = missed_eigenvalue(lambda q: M @ q, np.asfortranarray(W[:, keep]), w[keep], 1e-12)
    assert missed


def test_zero_coordinates_stay_exactly_zero():
    values = np.r_[30.0 * 0.7 ** np.arange(10), np.linspace(1.0, 0.1, 190)]
    M = symmetric_with_spectrum(values, seed=4)
    zero = np.zeros(200, dtype=bool)
    zero[[3, 77]] = True
    M[zero] = 0.0
    M[:, zero] = 0.0  # a scatter matrix's constant columns
    run = lanczos_top_vector(lambda q: M @ q, 200, 5, 1e-12, max_products=150, zero=zero)
    assert run.found is not None
    assert np.all(run.found[1][zero] == 0.0)


def test_the_budget_and_the_forecast_stop_a_run_that_will_not_converge():
    # 300 eigenvalues within 1% of each other: nothing stands out near k (the run
    # converges within a budget of 120: 147 products with its probe)
    values = 1.0 + 0.01 * np.random.default_rng(5).uniform(size=300)
    M = symmetric_with_spectrum(values, seed=5)
    times, calls = counted(M)
    run = lanczos_top_vector(times, 300, 5, 1e-12, max_products=100)
    assert run.found is None and run.products == len(calls)
    assert run.products < 100  # the forecast gave up before the budget ran out
    assert run.products >= lanczos_module._FORECAST_FROM * 100  # not before it may
    tiny = lanczos_top_vector(counted(M)[0], 300, 5, 1e-12, max_products=8)
    assert tiny.found is None and tiny.products == 8


def test_the_forecast_waits_for_half_the_budget_and_extrapolates_the_best_rate():
    forecast = lanczos_module._predicted_to_fail
    rtol = 1e-12
    # 2500 x 2500, decaying spectrum, k = 10 (tests/benchmarks.py): the estimate
    # stalls at 2e-3 from 20 to 25 products, then falls to 1e-12 at 65
    stall = [(15, 5e-3), (20, 2e-3), (25, 2e-3)]
    assert not forecast(stall, rtol, 114)  # before half of the budget: no verdict
    assert forecast(stall, rtol, 40)  # past half: the best rate, doubled, misses 40
    later = stall + [(30, 1e-4), (35, 1e-5), (40, 1e-6), (45, 8e-8), (50, 5e-9), (55, 3e-10), (60, 2e-11)]
    # from 35 on: best rate log(1e-5 / 2e-3) / 10 per product, doubled: 35 + 13.8 / 1.06
    assert not forecast(later[:5], rtol, 70)
    assert forecast([(30, 1e-2), (35, 1e-2), (40, 1.1e-2)], rtol, 70)  # no decay at all


def test_auto_runs_lanczos_first_and_matches_the_svd(monkeypatch):
    # a square-ish shape past 1024 features: the first stage converges, no block Krylov
    rng = np.random.default_rng(6)
    n, p, k = 1300, 1100, 5
    U = np.linalg.qr(rng.standard_normal((n, 8)))[0]
    W = np.linalg.qr(rng.standard_normal((p, 8)))[0]
    X = (U * (10.0 * np.sqrt(n) * 0.5 ** np.arange(8))) @ W.T + 1e-3 * rng.standard_normal((n, p)) + 3.0
    block = []
    monkeypatch.setattr(dense_krylov, "krylov_top_operator", lambda *a, **o: block.append(1))
    pca = PCA(k).fit(X)
    assert pca.solver_ == "krylov" and not block
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    signs = np.sign(np.sum(pca.components_ * Vt[:k], axis=1))
    np.testing.assert_allclose(pca.components_, Vt[:k] * signs[:, None], rtol=0, atol=1e-10)
    np.testing.assert_allclose(pca.singular_values_, s[:k], rtol=1e-12)


@pytest.mark.parametrize("k, route", [(2, "krylov"), (5, "eig")])
def test_tall_data_take_lanczos_when_its_budget_allows_5k_plus_20_products(k, route):
    # n >= 4p with p > 1024: tall data keep their syrk for block Krylov, but Lanczos's
    # products cost little. 4400 x 1100: the exact route's cost pays for 36
    # single-vector products at k = 2 (at least 5k + 20 = 30) and 37 at k = 5 (45)
    rng = np.random.default_rng(7)
    n, p = 4400, 1100
    X = (rng.standard_normal((n, 20)) * 10.0 * 0.8 ** np.arange(20)) @ rng.standard_normal((20, p)) / np.sqrt(p)
    X += rng.standard_normal((n, p))
    pca = PCA(k).fit(X)
    assert pca.solver_ == route
    Xc = X - X.mean(axis=0)
    lam, V = reference(Xc.T @ Xc, k)
    np.testing.assert_allclose(pca.singular_values_ ** 2, lam, rtol=1e-11)
    assert np.abs(np.sum(pca.components_.T * V, axis=0)).min() > 1 - 1e-12


def test_the_probe_finds_a_missed_copy_within_ten_percent_of_theta_k():
    # every eigenvalue twice, on a diagonal matrix (exact copies): Lanczos from one
    # vector finds 1, 0.955 for k = 2 and misses the second 1, 4.7% above theta_2. A
    # probe that stopped at a residual of 10% of its top Ritz value (its rule before
    # review s13) ended after 4 products below 0.955 and cleared the pairs.
    values = np.repeat(0.955 ** np.arange(150), 2)
    M = np.diag(values)
    run = lanczos_top_vector(lambda q: M @ q, 300, 2, 1e-12, max_products=250)
    assert run.found is None
    w = np.array([1.0, 0.955])
    V = np.asfortranarray(np.eye(300)[:, [0, 2]])  # the pairs that Lanczos returns
    missed, products = missed_eigenvalue(lambda q: M @ q, V, w, 1e-12)
    assert missed and products <= lanczos_module._PROBE_STEPS


def test_pca_on_data_with_every_eigenvalue_twice_matches_the_svd(monkeypatch):
    # two copies of the same centered block on the diagonal: X_c^T X_c is block
    # diagonal with two equal blocks, computed block by block without rounding
    # between them, so the Krylov space never separates the copies. The fit took the
    # Krylov route and returned sigma_2 = 0.977 sigma_1 instead of sigma_1 (2.3% off)
    # before review s13.
    from pcalib._linalg import constants

    monkeypatch.setattr(constants, "KEPT_MOMENTS_MAX_FEATURES", 100)
    X = every_value_twice()
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    assert s[1] == pytest.approx(s[0], rel=1e-12)
    pca = PCA(2).fit(X)
    np.testing.assert_allclose(pca.singular_values_, s[:2], rtol=1e-12)


def test_the_basis_stays_orthonormal_and_t_is_its_projection_on_a_stiff_spectrum():
    # eigenvalues from 1 to 1e-11: converged directions come back in every product,
    # and one pass of Gram-Schmidt leaves |Q^T Q - I| near 1 here (planted in review s13)
    M = symmetric_with_spectrum(np.r_[10.0 ** -np.arange(0, 12, 0.5), np.linspace(1e-12, 0, 276)], seed=8)
    run = lanczos_module._Lanczos(lambda q: M @ q, np.random.default_rng(0).standard_normal(300), 60)
    for _ in range(60):
        run.step()
    Q = run.Q[:, :60]
    np.testing.assert_allclose(Q.T @ Q, np.eye(60), rtol=0, atol=1e-14)
    T = np.diag(run.alpha) + np.diag(run.beta[:-1], 1) + np.diag(run.beta[:-1], -1)
    np.testing.assert_allclose(Q.T @ M @ Q, T, rtol=0, atol=1e-14)


def test_the_pairs_are_accepted_on_their_residuals_from_the_products_not_the_estimate():
    # products of a matrix that is not quite symmetric: T_d is then not Q^T A Q, and the
    # estimate beta_d |e_d^T s_i| fell below 1e-12 after 24 products while the true
    # residuals stay near 1e-9 (the run accepted them without the a-posteriori test)
    M = symmetric_with_spectrum(np.r_[50.0 * 0.8 ** np.arange(12), np.linspace(1.0, 0.01, 288)], seed=10)
    N = np.random.default_rng(9).standard_normal((300, 300)) / np.sqrt(300)
    run = lanczos_top_vector(lambda q: M @ q + 1e-9 * (N @ q), 300, 5, 1e-12, max_products=60)
    assert run.found is None


def test_a_probe_without_a_verdict_leaves_the_pairs_to_the_formed_matrix():
    # found 0.501 and 0.5 (k = 2): a missed copy would be 0.501; the deflated matrix's
    # spectrum crowds just below 0.4999, and 20 steps cannot tell its top from 0.501
    values = np.r_[0.501, 0.5, 0.4999 * (1 - np.linspace(0, 1, 298) ** 3)]
    D = np.diag(values)
    V = np.asfortranarray(np.eye(300)[:, :2])
    assert missed_eigenvalue(lambda q: D @ q, V, values[:2], 1e-12) == (True, lanczos_module._PROBE_STEPS)
    # with nothing above theta_k to miss but theta_1 itself, the same probe converges
    assert not missed_eigenvalue(lambda q: D @ q, V, np.array([0.5, 0.5]), 1e-12)[0]


def test_a_tol_fit_runs_block_krylov_and_its_certificate_holds_on_repeated_values(monkeypatch):
    # the data of test_pca_on_data_with_every_eigenvalue_twice_matches_the_svd, where
    # Lanczos from one vector misses the second copy of sigma_1. A fit with tol runs
    # block Krylov (blocks of k + 2 columns hold both copies), never Lanczos, and its
    # certificate's bounds hold against the SVD.
    from pcalib._linalg import constants

    monkeypatch.setattr(constants, "KEPT_MOMENTS_MAX_FEATURES", 100)
    monkeypatch.setattr(dense_krylov, "lanczos_top_vector", lambda *args, **kwargs: pytest.fail("Lanczos ran"))
    X = every_value_twice()
    nb = X.shape[0] // 2
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    for tol in (1e-2, 1e-8):
        pca = PCA(2, tol=tol).fit(X)
        assert pca.solver_ in ("krylov", "eig")  # "eig": block Krylov gave up (flat here)
        errors = np.abs(pca.explained_variance_ - s[:2] ** 2 / (2 * nb - 1))
        assert np.all(pca.explained_variance_bound_ >= errors)
        # the two leading axes span a plane of two equal singular values: any basis of
        # it is exact, so the sine is measured against that plane
        plane = Vt[:2]
        sines = np.linalg.norm(pca.components_ - (pca.components_ @ plane.T) @ plane, axis=1)
        assert np.all(pca.components_bound_ >= sines)

"""PCA(tol=...): exactness traded for time, with certified error bounds (issue 35).

Every bound is compared with the true error against NumPy's (LAPACK's) SVD of the same
centered data; the randomized bound on lambda_{k+1} is checked over many seeds."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from pcalib import PCA
from pcalib._linalg.certificate import FAILURE_PROBABILITY, certify


def _decaying(n: int, p: int, seed: int) -> np.ndarray:
    """A 6-dimensional signal of well separated scales over unit noise."""
    rng = np.random.default_rng(seed)
    signal = rng.standard_normal((n, 6)) * np.array([12.0, 9.0, 7.0, 5.0, 4.0, 3.0])
    return signal @ np.linalg.qr(rng.standard_normal((p, 6)))[0].T + rng.standard_normal((n, p))


def _truth(X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return s[:k] ** 2 / (X.shape[0] - 1), Vt[:k]


def _sines(components: np.ndarray, Vt: np.ndarray) -> np.ndarray:
    """sin of the angle between each axis and the reference's, as ||v - (v.u) u||
    (accurate for small angles, where sqrt(1 - cos^2) is not)."""
    cosines = np.sum(components * Vt, axis=1)
    return np.linalg.norm(components - cosines[:, None] * Vt, axis=1)


@pytest.mark.theorem("prop-scale-certificate")
@pytest.mark.parametrize("tol", [1e-2, 1e-3, 1e-5, 1e-8])
@pytest.mark.parametrize("shape", [(500, 200), (200, 600)], ids=["tall", "wide"])
def test_bounds_hold_and_tighten_with_tol(shape, tol):
    X = _decaying(*shape, seed=3)
    k = 6
    ev, Vt = _truth(X, k)
    fit = PCA(k, tol=tol).fit(X)
    assert fit.solver_ in ("krylov", "eig", "gram")  # Krylov, or exact if it ran out of budget
    sines = _sines(fit.components_, Vt)
    errors = np.abs(fit.explained_variance_ - ev)
    assert np.all(fit.components_bound_ >= sines)
    assert np.all(fit.explained_variance_bound_ >= errors)
    # the five leading signal components stand well apart from the noise: their axes
    # are certified at every tol (the sixth, 3 over noise whose top eigenvalues reach
    # (1 + sqrt(p/n))^2 ~ 7.5 for the wide shape, may not be at a loose one)
    assert np.all(fit.components_bound_[:5] < 1)
    if tol <= 1e-5:
        assert fit.components_bound_.max() < 1e3 * tol
    exact = PCA(k).fit(X)
    assert exact.components_bound_ is None and exact.explained_variance_bound_ is None


@pytest.mark.theorem("prop-scale-certificate")
def test_bounds_hold_over_many_seeds_and_spectra():
    """40 data sets, two tolerances: no bound is ever below the true error."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X = _decaying(200 + 10 * seed, 120, seed) * rng.uniform(0.5, 2.0, 120)
        ev, Vt = _truth(X, 5)
        for tol in (1e-3, 1e-6):
            fit = PCA(5, tol=tol, solver="krylov").fit(X)
            assert np.all(fit.components_bound_ >= _sines(fit.components_, Vt))
            assert np.all(fit.explained_variance_bound_ >= np.abs(fit.explained_variance_ - ev))


def test_close_eigenvalues_get_no_axis_bound_but_the_others_do():
    """Two signal scales 1e-4 apart: their axes are not determined to better than the
    residual over that gap, so a loose tol certifies the others and not them."""
    rng = np.random.default_rng(5)
    scales = np.array([20.0, 10.0, 10.0005, 5.0])
    basis = np.linalg.qr(rng.standard_normal((300, 4)))[0]
    X = (rng.standard_normal((2000, 4)) * scales) @ basis.T + 0.1 * rng.standard_normal((2000, 300))
    ev, Vt = _truth(X, 4)
    fit = PCA(4, tol=1e-4, solver="krylov").fit(X)
    assert fit.components_bound_[0] < 1e-2
    assert np.all(fit.explained_variance_bound_ >= np.abs(fit.explained_variance_ - ev))
    assert np.all(fit.components_bound_ >= _sines(fit.components_, Vt))


@pytest.mark.parametrize("kind", ["sparse", "dask"])
def test_bounds_on_sparse_and_dask_data(kind):
    X = _decaying(500, 150, seed=8)
    ev, Vt = _truth(X, 4)
    if kind == "sparse":
        data = sp.csr_matrix(X)
    else:
        data = pytest.importorskip("dask.array").from_array(X, chunks=(100, 150))
    fit = PCA(4, tol=1e-4, solver="krylov").fit(data)
    assert np.all(fit.components_bound_ >= _sines(fit.components_, Vt))
    assert np.all(fit.explained_variance_bound_ >= np.abs(fit.explained_variance_ - ev))
    assert np.all(fit.components_bound_ < 1)


@pytest.mark.parametrize("tol", [0, 1, -1e-3, True, "1e-3"])
def test_tol_is_checked(tol):
    with pytest.raises(ValueError, match="tol must be None"):
        PCA(2, tol=tol).fit(_decaying(50, 10, seed=1))


def test_the_randomized_bound_on_the_next_eigenvalue_holds_over_many_seeds():
    """U >= lambda_{k+1} for every one of 300 seeds (it may fail with probability 1e-4
    per seed), on a trailing spectrum that is flat (the hardest case for a power bound)
    and one that decays. With the third eigenvalue far above the tail, the powers stop
    as soon as every pair is certified; with it at 1.3 times the tail, all ten powers
    run, and U is within the worst-case factor (rho sqrt(2/pi) ||omega||)**(1/10) of
    lambda_{k+1}."""
    rng = np.random.default_rng(0)
    p, k = 200, 3
    Q = np.linalg.qr(rng.standard_normal((p, p)))[0]
    assert FAILURE_PROBABILITY == pytest.approx(1e-4)
    worst = (10 * np.sqrt(2 / np.pi) * 1.3 * np.sqrt(p)) ** 0.1  # ||omega|| < 1.3 sqrt(p)
    for third in (5.0, 1.3):
        for tail in (np.full(p - k, 1.0), np.geomspace(1.0, 1e-3, p - k)):
            lam = np.r_[10.0, 7.0, third, tail]
            M = (Q * lam) @ Q.T
            certificates = [certify(lambda B, M=M: M @ B, Q[:, :k], np.random.default_rng(seed))
                            for seed in range(300)]
            uppers = np.array([c.upper for c in certificates])
            assert np.all(uppers >= lam[k])
            if third == 5.0:
                assert all(np.all(c.axis_bounds < 1e-12) for c in certificates)
            else:
                assert uppers.max() <= worst * lam[k]


def test_block_norms_from_the_gram_matrix_bound_the_svd_norms():
    """certify's spectral norms of residual blocks, taken from R^T R (k x k) instead of
    an SVD of each p x k block: equal to the SVD's to 1e-13, never below it."""
    from pcalib._linalg.certificate import block_norm

    rng = np.random.default_rng(7)
    for scale in (1e-100, 1e-8, 1.0):  # certify's residuals are in frame units (at most 1)
        R = rng.standard_normal((3000, 12)) * np.logspace(0, -6, 12) * scale
        gram = R.T @ R
        for columns in (np.arange(12), np.array([3, 7, 11]), np.array([5]), np.array([], int)):
            exact = np.linalg.norm(R[:, columns], 2) if columns.size else 0.0
            got = block_norm(gram, columns, len(R))
            assert exact <= got <= exact * (1 + 1e-13) + 1e-300

r"""The k largest eigenpairs of a symmetric matrix, shared by PCA and PCoA.

Three solvers (and a fourth in :mod:`pcalib._linalg.lanczos`: Lanczos without restarts,
for the dense Krylov route of "auto", whose products with single vectors are ``gemv``
calls on data in memory):

* :func:`lanczos_top_operator`, ARPACK's implicitly restarted Lanczos method for
  an operator whose products with single vectors are cheap (a sparse matrix in
  memory): one vector per product, so few products for a given accuracy;
* :func:`krylov_top`, a block Krylov method with Rayleigh-Ritz and an explicit
  residual test, for large matrices when few eigenpairs are wanted: a few
  products with a thin block, :math:`O(m^2 b)` each, instead of the
  :math:`O(m^3)` tridiagonal reduction that LAPACK needs even for one eigenpair;
* :func:`top_eigh`, the dispatcher used by PCA: on a formed matrix, ARPACK's Lanczos
  method when few eigenpairs are wanted (its products, one ``dsymv`` each, cost
  :math:`m^2` against LAPACK's :math:`O(m^3)`), LAPACK (``?syevr`` with an index
  range, or ``?syevd``) otherwise or when Lanczos does not converge.

:func:`top_eigh_of_varying` gives a PCA scatter matrix's constant columns loadings of
exactly 0, by solving on the other columns only.

Both read only the lower triangle of the matrix (LAPACK's tridiagonal reduction
is measured 15-20 % faster from the lower triangle than from the upper one at
orders 2000-3000). The routes form their matrices with NumPy's BLAS
(:func:`pcalib._linalg.moments.gram_and_sums`), so :func:`top_eigh` solves small ones
with NumPy's LAPACK: the hot path stays in one BLAS library. Larger ones need SciPy
(a partial ``?syevr``, Lanczos products by ``dsymv``): one switch, about 0.1 s, against
the seconds that forming a matrix of that order takes.

Why one BLAS library: the NumPy and SciPy wheels each bundle their own OpenBLAS, whose
threads keep spinning for a while after a call, so a pipeline that alternates NumPy and
SciPy BLAS calls on 2 cores loses about 0.1 s per switch (measured: a 20000 x 1000 PCA
took 0.37 s with the switches, 0.25 s with one library's BLAS doing all of it; SciPy's
``?syevr`` at order 500 takes 0.015 s alone, 0.11 s right after a NumPy product).
``OPENBLAS_THREAD_TIMEOUT=1`` (set by ``tasks.py`` and ``.ci/run`` for builds and tests)
shortens the spinning; benchmark with and without it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg
import scipy.sparse.linalg
from scipy.linalg import blas

from . import constants
from .forecast import decay_rates, misses_budget
from .lanczos import KEPT_DIRECTION, missed_eigenvalue

__all__ = [
    "cholesky_qr", "krylov_block", "krylov_top", "krylov_top_operator", "lanczos_top_operator", "lapack_top_eigh",
    "rows_gram", "symmetric_times",
    "top_eigh", "top_eigh_and_next", "top_eigh_of_varying", "transposed_times",
]

# Relative residual at which a Ritz pair is accepted: ||M v - theta v|| <= rtol * max_{i<=k} |theta_i|.
KRYLOV_RTOL = 1e-10
# Largest Krylov space of the PCA routes that never form their matrix (sparse and Dask
# data; dense data with solver='krylov'), in blocks: passes over the data.
KRYLOV_MAX_BLOCKS = 40
# Residual test of top_eigh's Lanczos solve of a formed matrix, which replaces the dense
# Krylov route when that gives up: ten times looser than that route's
# (pcalib._routes.dense_krylov.DENSE_KRYLOV_RTOL), as ARPACK's restarted Lanczos ends well
# past its test (measured at 5000 x 5000, k = 10, decaying spectrum, where the block
# Krylov route needs 1e-12 for its axes to be within 1e-10: largest axis error 1.7e-11);
# its products are cheap (one pass over a triangle of m^2 / 2 entries).
FORMED_RTOL = 1e-11


def krylov_top(
    M: np.ndarray, k: int, rtol: float = KRYLOV_RTOL, *, max_dim: int | None = None, predict: bool = False
) -> tuple[np.ndarray, np.ndarray, float] | None:
    r"""k largest eigenpairs of symmetric `M` by block Krylov iteration with Rayleigh-Ritz.

    The subspace :math:`\mathcal K = [Q_0, M Q_0, M^2 Q_0, \dots]` (orthonormalized,
    :math:`Q_0` a seeded Gaussian block of :math:`b = \max(2k, k + 10)` columns)
    grows one block at a time; the Ritz pairs :math:`(\theta_j, K s_j)` of
    :math:`T = K^\top M K` (only the k leading ones) are computed after each block
    up to ``_CHECK_EVERY_BLOCK`` columns, then each time the subspace has grown by
    ``_CHECK_GROWTH``,
    and returned once every residual satisfies

    .. math:: \|M v_j - \theta_j v_j\| \le \mathrm{rtol} \cdot \max_{i \le k} |\theta_i| ,

    which bounds each eigenvalue error by :math:`\mathrm{rtol} \max_{i \le k}|\theta_i|`
    (and by its square over the spectral gap).

    Parameters
    ----------
    M : ndarray of shape (m, m)
        Symmetric float64 matrix; only its lower triangle is read. Not modified.
    k : int
        Number of eigenpairs, ``1 <= k <= m``.
    rtol : float
        Relative residual tolerance.
    max_dim : int, optional
        Largest subspace dimension (default m // 3).
    predict : bool
        Give up as soon as the decay of the residual predicts that the subspace would
        have to grow past `max_dim` (``_predicted_to_fail``: cheap failure on a flat
        spectrum; but a matrix of low rank, whose residual drops suddenly once the
        range is spanned, may be given up too early).

    Returns
    -------
    (values, vectors, smallest) or None
        The k largest Ritz values in decreasing order, their orthonormal Ritz
        vectors (m, k) and the smallest Ritz value of the final subspace (an upper
        bound on the smallest eigenvalue of `M`). ``None`` if the subspace would
        grow past `max_dim` columns (a flat spectrum, where LAPACK is cheaper) or
        stops growing before convergence.
    """
    return krylov_top_operator(symmetric_times(M), M.shape[0], k, rtol, max_dim=max_dim, predict=predict)


def symmetric_times(M: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    r"""The product :math:`Q \mapsto M Q` with a symmetric matrix given by its lower
    triangle, for Q of shape (m, b): ``dsymv`` when b = 1 (a Lanczos step; measured on
    one core, 1.7 ms at order 2000 against 15 ms for ``dsymm`` with 4 columns), ``dsymm``
    otherwise. BLAS wants Fortran order: a C-ordered M is passed as :math:`M^\top`, whose
    upper triangle is the lower triangle of M (no copy of M per product)."""
    Mf, lower = (M, 1) if M.flags.f_contiguous else (M.T, 0)

    def times(Q: np.ndarray) -> np.ndarray:
        if Q.shape[1] == 1:
            return blas.dsymv(1.0, Mf, Q[:, 0], lower=lower)[:, None]
        return blas.dsymm(1.0, Mf, Q, lower=lower)

    return times


def krylov_block(k: int, m: int) -> int:
    r"""Width of the blocks of :func:`krylov_top_operator`: :math:`\max(2k, k + 10)`,
    at most m."""
    return min(max(2 * k, k + 10), m)


def krylov_top_operator(
    times: Callable[[np.ndarray], np.ndarray],
    m: int,
    k: int,
    rtol: float = KRYLOV_RTOL,
    *,
    max_dim: int | None = None,
    predict: bool = False,
    block: int | None = None,
    start: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, float] | None:
    r""":func:`krylov_top` for a symmetric m x m matrix M given only by its product
    ``times(Q) = M @ Q`` with a block Q (m x b, F-ordered): one product per block of
    the Krylov space, so for an implicit :math:`M = X_c^\top X_c` one pass over the
    data per block, and the residual test is the a-posteriori error estimate. `block`
    is the width b (default :func:`krylov_block`; at least k); `start`, if given, an
    m x b block with orthonormal columns to start from instead of a seeded Gaussian
    one (its width is then b)."""
    if start is not None:
        block = start.shape[1]
    block = krylov_block(k, m) if block is None else min(max(block, k), m)
    max_dim = m // 3 if max_dim is None else max_dim
    rng = np.random.default_rng(0)
    K = np.empty((m, max_dim), order="F")
    MK = np.empty((m, max_dim), order="F")
    T = np.empty((max_dim, max_dim), order="F")  # T = K^T M K, grown one block at a time
    if start is None:
        Q = scipy.linalg.qr(rng.standard_normal((m, block)), mode="economic", check_finite=False)[0]
    else:
        Q = np.asfortranarray(start)
    d = checked = 0
    scale = 0.0
    history: list[tuple[int, float]] = []  # (dimension, residual) at each Rayleigh-Ritz step
    while d + Q.shape[1] <= max_dim:
        new = slice(d, d + Q.shape[1])
        K[:, new] = Q
        MK[:, new] = times(np.asfortranarray(Q))
        d = new.stop
        Kd = K[:, :d]
        T[:d, new] = blas.dgemm(1.0, Kd, MK[:, new], trans_a=1)
        T[new, :d] = T[:d, new].T
        # The part of M K outside the space, orthogonalized twice for stability: by the
        # Krylov property only the new block's, M K_new - K T[:, new]. It starts the
        # next block, and bounds the residuals of the Ritz pairs.
        Y = MK[:, new] - blas.dgemm(1.0, Kd, T[:d, new])
        Y -= blas.dgemm(1.0, Kd, blas.dgemm(1.0, Kd, Y, trans_a=1))
        if d <= _CHECK_EVERY_BLOCK or d >= _CHECK_GROWTH * checked or d + block > max_dim:
            checked = d
            # Only the k leading Ritz pairs are needed (d >= block >= k).
            theta, S = scipy.linalg.eigh(T[:d, :d], subset_by_index=[d - k, d - 1], check_finite=False)
            theta, S = theta[::-1], np.asfortranarray(S[:, ::-1])
            scale = np.abs(theta).max()
            # M K s - theta K s = (I - K K^T) M K s = Y s_new: a norm of m x k entries
            res = np.linalg.norm(blas.dgemm(1.0, Y, S[new]), axis=0).max() / scale
            if res <= rtol:  # the a-posteriori test, with the stored products M K
                residual = blas.dgemm(1.0, MK[:, :d], S) - blas.dgemm(1.0, Kd, S * theta)
                res = np.linalg.norm(residual, axis=0).max() / scale
            if res <= rtol:
                smallest = scipy.linalg.eigh(
                    T[:d, :d], eigvals_only=True, subset_by_index=[0, 0], check_finite=False
                )
                return theta.copy(), blas.dgemm(1.0, Kd, S), float(smallest[0])
            history.append((d, res))
            if predict and _predicted_to_fail(history, rtol, max_dim):
                break
        Q = orthonormal_directions(Y, KEPT_DIRECTION * scale)
        if Q.shape[1] == 0:  # invariant subspace yet not converged: leave it to LAPACK
            break
        # A direction of norm s_i carries about eps * scale / s_i of K after the two
        # passes: a third one makes it orthogonal to working precision again, and
        # Cholesky QR (Q is orthonormal to about 1e-3 or better) normalizes it.
        Q -= blas.dgemm(1.0, Kd, blas.dgemm(1.0, Kd, Q, trans_a=1))
        Q = cholesky_qr(Q)
    return None


# The Rayleigh-Ritz step (an eigensolve of the d x d matrix T, O(d^3)) runs after every
# block up to _CHECK_EVERY_BLOCK columns (about 10 ms there, little against a pass over
# the data, which is what each block of the sparse and Dask routes costs), then once the
# subspace has grown by _CHECK_GROWTH since the last one, and before the last block that
# fits: at most 20% more columns. Measured: 5000 x 5000 dense, k = 50, decaying
# spectrum, 1643 columns: 2.2 s of eigensolves when run after every block, against 2.3 s
# of products.
_CHECK_EVERY_BLOCK = 512
_CHECK_GROWTH = 1.2

# _predicted_to_fail: the residual is extrapolated from the third Rayleigh-Ritz step on,
# at the best rate seen, and, once a quarter of the largest subspace is spent, at the
# latest rate with room for it to double (measured on tests/benchmarks.py's spectra, where
# the residual often stalls for a few blocks and then falls faster and faster:
# 10000 x 4000 flat, k = 10, b = 13: 7.2e-2 at 65 columns, 6.3e-2 at 91, 2.2e-10 at
# 247; 5000 x 5000 decaying, k = 50: a latest rate of -0.0105 per column at 954
# columns of a budget of 1931 forecast 2161 columns, and it converged at 1643). These
# were measured when block Krylov was the dense route of an exact "auto" fit (since
# issue 35 that route runs Lanczos with single vectors, pcalib._linalg.lanczos, with a
# forecast of its own); the rule serves the Krylov stage of PCA(tol=...), which keeps
# block Krylov, and CA's block Krylov route (pcalib._categories.ca_solver). A
# quarter rather than half since "auto" let a run spend the whole exact route's cost,
# twice what it did before: the latest rate was trusted from the same column on.
# With half, the runs that gave up (2500 x 2500 and 5000 x 2000, decaying, k = 10)
# spent 13 and 8 blocks where they had spent 5 and 3 (0.57 and 0.54 s of CPU against
# 0.45 and 0.44 s); with a quarter 0.44 and 0.51 s against 0.42 and 0.46 s, while
# 5000 x 5000 (a latest forecast of at most 392 columns of 533) still converged.
_TRUST_LATEST_RATE = 0.25
_ACCELERATION = 2.0


def _predicted_to_fail(history: list[tuple[int, float]], rtol: float, max_dim: int) -> bool:
    r"""Whether block Krylov, with residuals ``history`` (dimension d, residual r) at
    its Rayleigh-Ritz steps, will not reach `rtol` within `max_dim` columns. With the
    rates of :func:`pcalib._linalg.forecast.decay_rates`, the forecast
    :math:`d + \log(\mathrm{rtol}/r) / \rho` (:func:`pcalib._linalg.forecast.misses_budget`): Krylov methods
    converge faster as the space grows, so the best rate seen gives an optimistic
    forecast, and the method gives up when even that one passes `max_dim`; once
    ``_TRUST_LATEST_RATE`` of `max_dim` is spent, also when the forecast at the latest
    rate times ``_ACCELERATION`` does (a flat spectrum near the k-th eigenvalue, where
    the rate stays low)."""
    if len(history) < 3:
        return False
    rates = decay_rates(history)
    d, res = history[-1]
    if misses_budget(d, res, rtol, min(rates), max_dim):
        return True
    return d >= _TRUST_LATEST_RATE * max_dim and misses_budget(d, res, rtol, _ACCELERATION * rates[-1], max_dim)


# Cholesky QR of a block Y is used when Y^T Y is this well conditioned (cond(Y) < 1e6):
# two passes then give orthonormal columns to working precision (Yamamoto et al., 2015),
# at about a third of the time of LAPACK's Householder QR plus SVD (5000 x 50: 4 ms
# against 40 ms measured on 2 cores).
_CHOLESKY_QR_CONDITION = 1e12


def cholesky_qr(Y: np.ndarray, gram: np.ndarray | None = None) -> np.ndarray:
    r"""One pass of Cholesky QR, :math:`Y R^{-1}` with :math:`R^\top R = Y^\top Y`
    (`gram`, if already computed: its upper triangle is read): orthonormal columns to
    about :math:`\varepsilon\,\kappa(Y)^2`; zero rows of Y stay zero. Raises
    ``numpy.linalg.LinAlgError`` when :math:`Y^\top Y` is not numerically positive
    definite."""
    gram = blas.dsyrk(1.0, Y, trans=1) if gram is None else gram
    R = scipy.linalg.cholesky(gram, lower=False, check_finite=False)
    return blas.dtrsm(1.0, R, Y, side=1, lower=0)


def orthonormal_directions(Y: np.ndarray, floor: float) -> np.ndarray:
    r"""An orthonormal basis of the directions of Y whose singular values exceed `floor`
    (the others are dropped). When the eigenvalues :math:`s_i^2` of :math:`Y^\top Y`
    all exceed :math:`\max(\text{floor}^2, s_1^2 / 10^{12})`, every direction is
    kept and two passes of Cholesky QR give the basis; otherwise the SVD of Y says
    which to keep."""
    Y = np.asfortranarray(Y)
    gram = blas.dsyrk(1.0, Y, trans=1)
    s2 = scipy.linalg.eigvalsh(gram, lower=False, check_finite=False)
    if s2[0] > max(floor**2, s2[-1] / _CHOLESKY_QR_CONDITION):
        return cholesky_qr(cholesky_qr(Y, gram))
    U, s, _ = scipy.linalg.svd(Y, full_matrices=False, overwrite_a=True, check_finite=False)
    return U[:, s > floor]


def lanczos_top_operator(
    times: Callable[[np.ndarray], np.ndarray],
    m: int,
    k: int,
    rtol: float = KRYLOV_RTOL,
    *,
    max_products: int | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    r"""k largest eigenpairs of a symmetric positive semi-definite m x m matrix M given
    only by ``times(Q) = M @ Q`` (Q of shape (m, b)), by the implicitly restarted
    Lanczos method (ARPACK ``dsaupd`` through ``scipy.sparse.linalg.eigsh``), with
    deflation to find the copies of a repeated eigenvalue.

    Lanczos builds the Krylov space :math:`[q, Mq, M^2 q, \dots]` one vector per
    product (a block method spends b products per step); restarts keep the space at
    ``ncv`` :math:`= \max(2k + 1, 30)` vectors, :math:`O(m k)` memory (30 rather than
    20 for small k: 129 products instead of 139 for k = 10 on the benchmark's sparse
    matrix, which pays for the probe below). ARPACK stops
    when its estimate of each residual is below ``rtol`` times the Ritz value (from a
    seeded start vector: deterministic); the result is then checked a posteriori with
    one block product,

    .. math:: \|M v_j - \theta_j v_j\| \le \mathrm{rtol} \cdot \theta_1 ,

    so each Ritz value is within :math:`\mathrm{rtol}\,\theta_1` of an eigenvalue
    of M and each vector within an angle :math:`\mathrm{rtol}\,\theta_1 / \delta_j`
    of its eigenvector (:math:`\delta_j` the gap to the rest of the spectrum, by
    the Davis-Kahan theorem). If the check fails, ARPACK runs again to machine
    precision (``tol=0``). Stopping at ``rtol`` rather than at machine precision
    saves about a quarter of the products (measured: 138 against 192 for k = 10
    on the benchmark's 100,000 x 20,000 sparse matrix).

    The residual check cannot see an eigenvalue that Lanczos missed. From one start
    vector, the Krylov space holds one direction of each eigenspace: of an
    eigenvalue of multiplicity r, Lanczos finds one copy (more only through
    rounding errors). So the k pairs found, V, are deflated: a probe
    (:func:`pcalib._linalg.lanczos.missed_eigenvalue`, at most ``_PROBE_STEPS``
    single-vector Lanczos steps from another seeded vector) runs on

    .. math:: M' = (I - V V^\top) M (I - V V^\top),

    whose eigenvalues are those of M not yet found (and 0 on the span of V). A
    probe's Ritz value is a lower bound of the largest of them: one above
    :math:`b = \theta_k + \mathrm{rtol}\,\theta_1` proves that an eigenvalue above
    :math:`\theta_k` was missed. The probe clears the pairs only once its top Ritz
    value :math:`\mu` has a residual estimate below 0.3 :math:`\min(\mu, c - \mu)`, c the
    least value a missed copy can have (the smallest :math:`\theta_j` above b, less
    :math:`\mathrm{rtol}\,\theta_1`), or its space is invariant. Otherwise (a miss,
    or no verdict) ARPACK runs on :math:`M'` for k more pairs; if the largest is
    above b, Rayleigh-Ritz on the union of the two sets keeps the k largest, and the
    probe runs again (each round finds at least one more copy); if not, nothing was
    missed. A probe that clears the pairs is a likelihood, not a proof: Lanczos from
    a random vector finds the top eigenvalue of :math:`M'` first.

    `max_products`, if given, caps the work: the search gives up (``None``) once that
    many vectors have been multiplied, counting the main run, its retry, the probes
    and the deflated runs (a cluster of wanted eigenvalues can otherwise keep ARPACK
    restarting 1000 times: 28,000 products, minutes, at m = 1000). With a cap (the
    callers then solve a formed matrix by LAPACK instead), a probe that finds a miss or
    no verdict also gives up at once, without the deflated run: at 1000 x 3000 Gaussian
    noise, k = 2, the probe has no verdict on the 1000 x 1000 Gram matrix (the third
    eigenvalue is near the second), and the deflated run until the cap took the fit from
    0.28 to 0.40 s of CPU.

    Returns
    -------
    (values, vectors) or None
        The k largest Ritz values in decreasing order and their orthonormal Ritz
        vectors (m, k); ``None`` if ARPACK does not converge within 1000 restarts
        or `max_products` products, or the residual test fails. Needs ``1 <= k < m``.
    """
    if max_products is None:
        return _lanczos_top(times, m, k, rtol, deflate=True)
    spent = 0

    def counted(Q: np.ndarray) -> np.ndarray:
        nonlocal spent
        spent += Q.shape[1]
        if spent > max_products:
            raise _BudgetSpent
        return times(Q)

    try:
        return _lanczos_top(counted, m, k, rtol, deflate=False)
    except _BudgetSpent:
        return None


class _BudgetSpent(Exception):
    """Raised inside :func:`lanczos_top_operator` once `max_products` are spent."""


def _lanczos_top(
    times: Callable[[np.ndarray], np.ndarray], m: int, k: int, rtol: float, deflate: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    """The search of :func:`lanczos_top_operator`, without a budget; `deflate` False:
    None as soon as the probe finds a miss or no verdict."""
    found = _arpack(times, m, k, rtol, np.random.default_rng(0).uniform(-1.0, 1.0, m))
    starts = np.random.default_rng(1)

    def vector_times(q: np.ndarray) -> np.ndarray:
        return times(q[:, None])[:, 0]

    while found is not None and m - k >= 2:
        w, V = found
        if not missed_eigenvalue(vector_times, V, w, rtol, max_steps=_PROBE_STEPS)[0]:
            break
        if not deflate:
            return None

        def deflated(Q: np.ndarray, V: np.ndarray = V) -> np.ndarray:
            Q = Q - V @ (V.T @ Q)
            Y = times(np.asfortranarray(Q))
            return Y - V @ (V.T @ Y)

        extra = _arpack(deflated, m, min(k, m - k - 1), rtol, starts.uniform(-1.0, 1.0, m))
        if extra is None:
            return None
        if extra[0][0] <= w[-1] + rtol * w[0]:  # the probe had no verdict; nothing missed
            break
        basis = scipy.linalg.qr(np.hstack([V, extra[1]]), mode="economic", check_finite=False)[0]
        MB = times(np.asfortranarray(basis))
        theta, S = scipy.linalg.eigh(basis.T @ MB, check_finite=False)
        keep = np.argsort(theta)[::-1][:k]
        w, V, MV = theta[keep], np.asfortranarray(basis @ S[:, keep]), MB @ S[:, keep]
        if np.linalg.norm(MV - V * w, axis=0).max() > rtol * max(w[0], 0.0):
            return None
        found = w, V
    return found


# The most products of lanczos_top_operator's probe for missed copies
# (pcalib._linalg.lanczos.missed_eigenvalue; its rule since review s14: before, an ARPACK
# probe stopped at a relative residual of 3e-2, and on a diagonal matrix with every
# eigenvalue twice, 10 * 0.999^j, k = 2, returned 10, 9.99 for 10, 10: tests/test_eigen.py).
# More than the dense route's 40, as no verdict costs here a deflated ARPACK run of k
# pairs, about the main run's products: measured on tests/benchmarks.py's sparse CA
# (20,000 x 5,000 term-document, k = 10, a flat spectrum), the probe clears the pairs
# after 50 products (main run 306; with 40 steps, no verdict and a deflated run of 408
# products); on its sparse PCA (100,000 x 20,000, k = 10), after 15. Not more: the
# probe keeps its basis, steps + 1 vectors of order m, beside ARPACK's max(2k + 1, 30)
# (tests/test_sparse.py bounds the wide route's memory by 64 vectors of n + p).
_PROBE_STEPS = 60


def _operator(times: Callable[[np.ndarray], np.ndarray], m: int) -> scipy.sparse.linalg.LinearOperator:
    return scipy.sparse.linalg.LinearOperator(
        (m, m), matvec=lambda v: times(v.reshape(m, 1)).ravel(), matmat=times, dtype=np.float64
    )


def _arpack(
    times: Callable[[np.ndarray], np.ndarray], m: int, k: int, rtol: float, start: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """ARPACK's k largest eigenpairs from `start`, decreasing, if they pass the residual
    test of :func:`lanczos_top_operator` (at `rtol`, else at ``tol=0``); else None."""
    for tol in (rtol, 0.0):
        try:
            w, V = scipy.sparse.linalg.eigsh(
                _operator(times, m), k, which="LA", v0=start, ncv=min(m, max(2 * k + 1, 30)), tol=tol,
                maxiter=1000,
            )
        except scipy.sparse.linalg.ArpackNoConvergence:
            return None
        order = np.argsort(w)[::-1]
        w, V = w[order], np.asfortranarray(V[:, order])
        residual = np.linalg.norm(times(V) - V * w, axis=0).max()
        if residual <= rtol * max(w[0], 0.0):
            return w, V
    return None


def rows_gram(Y: np.ndarray) -> np.ndarray:
    r""":math:`Y Y^\top` for :func:`top_eigh`, in the BLAS that will solve it: NumPy's
    product up to ``constants.NUMPY_MAX_M`` rows, SciPy's ``dsyrk`` above (the lower triangle
    only, all that :func:`top_eigh` reads; no copy of Y in either order). Measured on
    2 cores, 2000 x 20000, k = 10: the same 0.86 s for the product, then 0.25 s for
    the eigensolve against 0.35-0.39 s after NumPy's product, whose threads still spin."""
    if Y.shape[0] <= constants.NUMPY_MAX_M:
        return Y @ Y.T
    if Y.flags.c_contiguous:
        return blas.dsyrk(1.0, Y.T, trans=1, lower=1)
    return blas.dsyrk(1.0, Y, lower=1)


def matrix_times(X: np.ndarray, B: np.ndarray) -> np.ndarray:
    r""":math:`X B` by SciPy's ``dgemm`` (no copy of X in either order), as
    :func:`transposed_times`; for a vector B (1-D), NumPy's ``gemv`` (a Lanczos step:
    measured on 2 cores at 5000 x 5000, :math:`X^\top (X b)` took 13 ms against
    41-49 ms with a block of 2 to 12 columns)."""
    if B.ndim == 1:
        return X @ B
    if X.flags.c_contiguous:
        return blas.dgemm(1.0, X.T, B, trans_a=1)
    return blas.dgemm(1.0, X, B)


def transposed_times(X: np.ndarray, B: np.ndarray) -> np.ndarray:
    r""":math:`X^\top B` by SciPy's ``dgemm`` (no copy of X in either order): the
    product after an eigensolve in SciPy's LAPACK (measured: 0.022 s for 2000 x 20000
    times 2000 x 10, against 0.09 s by NumPy right after it); for a vector B (1-D),
    NumPy's ``gemv``, as :func:`matrix_times`."""
    if B.ndim == 1:
        return X.T @ B
    if X.flags.c_contiguous:
        return blas.dgemm(1.0, X.T, B)
    return blas.dgemm(1.0, X, B, trans_a=1)


def top_eigh(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k largest eigenpairs, in decreasing order, of a symmetric matrix given by its lower triangle.

    NumPy's ``?syevd`` up to order ``constants.NUMPY_MAX_M``; above it, when
    ``k <= m / 40``, ARPACK's Lanczos method (:func:`lanczos_top_operator`, one ``dsymv``
    of the lower triangle a product, residuals to ``FORMED_RTOL`` of the largest
    eigenvalue, at most ``constants.FORMED_LANCZOS_MAX_FRACTION * m`` products), falling
    back to LAPACK if it does not converge within them; otherwise a partial LAPACK solve
    (``?syevr`` with an index range) when ``k < m``, the full divide-and-conquer solver
    (``?syevd``) when ``k = m``. `M` may be overwritten.
    """
    w, V, _ = top_eigh_and_next(M, k, with_next=False)
    return w, V


def top_eigh_and_next(
    M: np.ndarray, k: int, with_next: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    r""":func:`top_eigh`, and with `with_next` the k + 1 leading eigenvalues that the same
    solve computed (:math:`\tilde\lambda_{k+1}` last; 0.0 when k = m, there being none)
    when LAPACK solved `M`: NumPy's full ``?syevd``, or ``?syevr`` asked for k + 1 pairs,
    whose k leading ones are those of :func:`top_eigh` to round-off only (so only
    ``PCA(tol=...)``'s certificate, :mod:`pcalib._linalg.certificate`, asks for them).
    None without `with_next`, or when the Lanczos method found the pairs (its Ritz values
    bound no eigenvalue of M), which it does with `with_next` only above order
    ``constants.CERTIFIED_LAPACK_MAX_M``. `M` may be overwritten."""
    m = M.shape[0]
    wanted = k + 1 if with_next and k < m else k
    if m > constants.NUMPY_MAX_M and 40 * k <= m and not (with_next and m <= constants.CERTIFIED_LAPACK_MAX_M):
        top = lanczos_top_operator(symmetric_times(M), m, k, FORMED_RTOL,
                                   max_products=int(constants.FORMED_LANCZOS_MAX_FRACTION * m))
        if top is not None:
            return top[0], top[1], None
    w, V = lapack_top_eigh(M, k, wanted)
    computed = (w[: k + 1] if wanted > k else np.append(w[:k], 0.0)) if with_next else None
    return w[:k], V, computed


def lapack_top_eigh(M: np.ndarray, k: int, wanted: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The `wanted` (default k) largest eigenvalues, in decreasing order, and the k
    leading eigenvectors of a symmetric matrix given by its lower triangle, by LAPACK
    alone: NumPy's ``?syevd`` up to order ``constants.NUMPY_MAX_M``, else SciPy's
    ``?syevr`` with an index range when fewer than m are wanted, ``?syevd`` otherwise
    (:func:`top_eigh` without its Lanczos step). `M` may be overwritten."""
    m = M.shape[0]
    wanted = k if wanted is None else wanted
    if m <= constants.NUMPY_MAX_M:
        w, V = np.linalg.eigh(M, UPLO="L")
        return w[::-1][:wanted], V[:, ::-1][:, :k]
    if wanted < m:
        w, V = scipy.linalg.eigh(
            M, lower=True, subset_by_index=[m - wanted, m - 1], driver="evr",
            overwrite_a=True, check_finite=False,
        )
    else:
        w, V = scipy.linalg.eigh(M, lower=True, driver="evd", overwrite_a=True, check_finite=False)
    return w[::-1], V[:, ::-1][:, :k]


def top_eigh_of_varying(C: np.ndarray, k: int, constant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`top_eigh` of a scatter matrix C whose rows and columns of
    `constant` columns are 0: solved on the varying columns only, so the loadings of
    the constant ones are exactly 0 (the eigensolver would mix them in to
    round-off). Beyond the number of varying columns, the axes are the unit vectors
    of the constant columns, with eigenvalue 0. `C` may be overwritten."""
    if not constant.any():
        return top_eigh(C, k)
    varying = np.flatnonzero(~constant)
    w_varying, V_varying = top_eigh(np.asfortranarray(C[np.ix_(varying, varying)]), min(k, varying.size))
    w = np.concatenate([w_varying, np.zeros(k - w_varying.size)])
    V = np.zeros((C.shape[0], k), order="F")
    V[varying, : w_varying.size] = V_varying
    V[np.flatnonzero(constant)[: k - w_varying.size], np.arange(w_varying.size, k)] = 1.0
    order = np.argsort(-w, kind="stable")  # round-off negatives of the varying part last
    return w[order], V[:, order]

r"""The k largest eigenpairs of a symmetric positive semi-definite matrix given only by
its products with single vectors: the Lanczos method without restarts, for the dense
Krylov route (:func:`pcalib._routes.dense_krylov.krylov_stage`).

Why single vectors: a product :math:`X_c^\top (X_c q)` with one vector is two
matrix-vector products (``gemv``), bound by the speed of memory, and measured (2 cores,
NumPy's OpenBLAS, 5000 x 5000) at 13 ms against 41-49 ms for a block of 2 to 12 columns:
OpenBLAS's ``dgemm`` is slow for thin blocks. Lanczos spends one vector per step, and
without restarts its space after d products is the whole Krylov space
:math:`\mathcal K_d(M, q)`, the best that d products can give; ARPACK's implicitly
restarted Lanczos (scikit-learn's ``svd_solver="arpack"``) keeps :math:`2k + 1` vectors and
needs more products (77-81 against 55 at 5000 x 5000, k = 10, residual 1e-12).

**The method.** From a seeded unit vector :math:`q_1`, each step multiplies the newest
vector, :math:`w = M q_j`, orthogonalizes w against every vector so far (two passes of
classical Gram-Schmidt: full reorthogonalization, :math:`O(m j)` per step, so that the
basis :math:`Q_d` stays orthonormal to working precision and no spurious copies of an
eigenvalue appear), and normalizes the rest, :math:`q_{j+1} = w / \beta_j`. Then
:math:`M Q_d = Q_d T_d + \beta_d q_{d+1} e_d^\top` with :math:`T_d` tridiagonal
(:math:`\alpha_j = q_j^\top M q_j` on the diagonal, :math:`\beta_j` beside it); a Ritz
pair :math:`(\theta_i, Q_d s_i)` of :math:`T_d` has the residual
:math:`\|M Q_d s_i - \theta_i Q_d s_i\| = \beta_d |e_d^\top s_i|`. The products
:math:`M Q_d` are kept, so once that estimate passes, the residuals are computed from
them (:math:`M Q_d S - Q_d S \Theta`, no product more) and the pairs are accepted when

.. math:: \|M v_i - \theta_i v_i\| \le \mathrm{rtol} \cdot \theta_1, \qquad i = 1, \dots, k,

the a-posteriori test of the block Krylov routes.

**Repeated eigenvalues.** From one vector, the Krylov space holds one direction of each
eigenspace, so Lanczos finds one copy of an eigenvalue of multiplicity r. After the test
passes, :func:`missed_eigenvalue` probes the deflated matrix :math:`(I - V V^\top) M (I -
V V^\top)`, V the k vectors found, with a few Lanczos steps from another seeded vector:
its Ritz values are lower bounds of its largest eigenvalue, so one above
:math:`\theta_k + \mathrm{rtol}\,\theta_1` proves that an eigenvalue above
:math:`\theta_k` was missed; the caller then solves the formed matrix. The probe
clears the pairs when its top Ritz value has converged (residual estimate at most
``_PROBE_TOL`` times its distance to the smallest :math:`\theta_j`, j < k, above that
bound, the least value a missed copy can have), and gives the matrix to the caller
when ``_PROBE_STEPS`` steps bring no verdict. Lanczos from a random
vector finds the top eigenvalue of the deflated matrix first, so a converged top Ritz
value far below every candidate copy is taken for it: a likelihood, not a proof.

**A budget.** The run stops after `max_products` products, or earlier when the decay of
its residual estimate predicts that it would not pass the test within them
(:func:`_predicted_to_fail`: a flat spectrum near :math:`\lambda_k`). A run that
stops, or whose probe finds (or cannot rule out) a missed copy, returns None, and the
caller solves the formed matrix (:func:`pcalib._routes.dense_krylov.krylov_stage`).
Not block Krylov from the run's Ritz vectors: a block Krylov space started from
vectors of :math:`\mathcal K_d(M, q)` stays inside a single-vector Krylov space
(measured at 5000 x 5000, flat spectrum, k = 10: 1.9 s of block Krylov from the Ritz
vectors of 25 Lanczos steps, against 0.9 s from a random block).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .forecast import decay_rates, misses_budget

__all__ = ["LanczosRun", "lanczos_top_vector", "missed_eigenvalue"]

# A new direction of the Krylov space is kept when its norm, after orthogonalization
# against the space, exceeds this times the largest Ritz value (block Krylov,
# pcalib._linalg.eigen; the Lanczos method here stops there, its space invariant): below
# the strictest residual test (1e-12, the dense Krylov route's) so that a direction
# it needs is not dropped (at 1e-8, a rank-8 signal over noise 1e-5 times smaller
# stalled at a residual of 1.5e-10 against a test of 1e-10).
KEPT_DIRECTION = 1e-13

# The residual estimate enters the forecast every _FORECAST_EVERY products (the estimate
# of one step to the next is noisy: at 5000 x 5000, flat spectrum, k = 10, it went
# 4e-2, 6e-2, 4e-2 at 35, 45 and 55 products before falling to 2e-14 at 105), and the
# forecast starts once _FORECAST_FROM of the budget is spent: Lanczos's residual often
# stalls, then falls faster and faster (2500 x 2500, decaying, k = 10: 5e-3, 2e-3, 2e-3
# at 15, 20 and 25 products, then 1e-12 at 65, within a budget of 81 that a forecast
# from the third estimate on gave up at 25).
_FORECAST_EVERY = 5
_FORECAST_FROM = 0.5
# The forecast extrapolates the best rate seen times _ACCELERATION (the rate grows as the
# space does). 4, not block Krylov's 2 (pcalib._linalg.eigen): replayed on the residual
# estimates of tests/benchmarks.py's 20 "krylov" rows (every 5 products), 2 gave up on
# two runs that converge within their budgets (flat spectrum, k = 50: 2500 x 2500 at 110
# of 220 products, 185 needed; 5000 x 5000 at 155 of 293, 195 needed; the formed matrix
# then took 5.1 s, 1.11 times ARPACK's time, at 5000 x 5000), 3 on one; 4 on none, and
# the seven runs that cannot converge within their budgets give up where they did.
_ACCELERATION = 4.0


def _predicted_to_fail(history: list[tuple[int, float]], rtol: float, max_products: int) -> bool:
    r"""Whether Lanczos, with residual estimates ``history`` (products d, estimate r),
    will not reach `rtol` within `max_products`: once ``_FORECAST_FROM`` of them are
    spent, when even the best rate seen over ``2 * _FORECAST_EVERY`` products
    (:func:`pcalib._linalg.forecast.decay_rates`), times ``_ACCELERATION``, leaves
    :math:`d + \log(\mathrm{rtol} / r) / \rho` above `max_products`
    (:func:`pcalib._linalg.forecast.misses_budget`)."""
    d, res = history[-1]
    if d < _FORECAST_FROM * max_products or len(history) < 3:
        return False
    return misses_budget(d, res, rtol, _ACCELERATION * min(decay_rates(history)), max_products)


# The probe for missed copies: at most _PROBE_STEPS products; it clears the pairs once
# its top Ritz value mu has a residual estimate below _PROBE_TOL min(mu, c - mu), c the
# least value a missed copy can have (missed_eigenvalue). Before review s13 the rule was
# 0.1 mu alone (ARPACK's): with every eigenvalue twice, the second 1 escaped a probe
# that stopped after 4 products at k = 2, theta = 1, 0.955, and the fit returned
# sigma_2 2.3% off (tests/test_lanczos.py). With 0.1 min(mu, c - mu) and 20 steps, the
# probe took 11-13 products on tests/benchmarks.py's decaying spectrum (k = 10, 2500 x
# 2500 and 5000 x 5000) and found no verdict on its flat one (2500 x 2500 and 10000 x
# 4000, k = 10), where c - mu is about 1% of mu: the formed matrix then took over after a
# converged run, 1.24-1.72 times ARPACK's time. 0.3 and 40 steps: 4 products on the
# decaying spectrum, 16 at 2500 x 2500 flat, and the copy above is still caught; 0.5
# lets it escape.
_PROBE_STEPS = 40
_PROBE_TOL = 0.3


@dataclass(frozen=True)
class LanczosRun:
    """What :func:`lanczos_top_vector` found: the k leading Ritz values (decreasing)
    and orthonormal Ritz vectors (m, k) that passed the residual test, or None; and
    the products it spent, the probe's included."""

    found: tuple[np.ndarray, np.ndarray] | None
    products: int


class _Lanczos:
    """The state of one run: the basis Q (m, d + 1), the products M Q (m, d) unless
    `keep_products` is False (the probe, which reads only residual estimates: half the
    memory), and the tridiagonal T_d (alpha, beta)."""

    def __init__(
        self, times: Callable[[np.ndarray], np.ndarray], start: np.ndarray, steps: int, keep_products: bool = True
    ) -> None:
        m = start.shape[0]
        self.times = times
        self.Q = np.empty((m, steps + 1), order="F")
        self.MQ = np.empty((m, steps if keep_products else 0), order="F")
        self.alpha = np.empty(steps)
        self.beta = np.empty(steps)
        self.Q[:, 0] = start / np.linalg.norm(start)
        self.d = 0

    def step(self) -> float:
        r"""One product and the orthogonalization of its result; returns
        :math:`\beta_d`, the norm of the new direction (not normalized when 0)."""
        j = self.d
        Qj = self.Q[:, : j + 1]
        w = self.times(self.Q[:, j])
        if self.MQ.shape[1]:
            self.MQ[:, j] = w
        h = Qj.T @ w
        w = w - Qj @ h
        correction = Qj.T @ w  # the second pass of Gram-Schmidt
        w -= Qj @ correction
        self.alpha[j] = h[j] + correction[j]
        self.beta[j] = np.linalg.norm(w)
        self.d = j + 1
        if self.beta[j] > 0.0:
            self.Q[:, j + 1] = w / self.beta[j]
        return float(self.beta[j])

    def ritz(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The `count` largest Ritz values of T_d (decreasing) and their eigenvectors
        in T_d's coordinates (d, count)."""
        d = self.d
        count = min(count, d)
        if d == 1:
            return self.alpha[:1].copy(), np.ones((1, 1))
        theta, S = scipy.linalg.eigh_tridiagonal(
            self.alpha[:d], self.beta[: d - 1], select="i", select_range=(d - count, d - 1), check_finite=False
        )
        return theta[::-1], S[:, ::-1]

    def estimates(self, S: np.ndarray) -> np.ndarray:
        r"""The residual norms :math:`\beta_d |e_d^\top s_i|` of the Ritz pairs S."""
        return self.beta[self.d - 1] * np.abs(S[-1])

    def vectors(self, S: np.ndarray) -> np.ndarray:
        """The Ritz vectors :math:`Q_d S`, (m, count), F-ordered."""
        return np.asfortranarray(self.Q[:, : self.d] @ S)

    def residuals(self, theta: np.ndarray, S: np.ndarray, V: np.ndarray) -> np.ndarray:
        r"""The residual norms :math:`\|M Q_d s_i - \theta_i v_i\|` of the Ritz vectors
        :math:`V = Q_d S` (:meth:`vectors`), from the kept products."""
        return np.linalg.norm(self.MQ[:, : self.d] @ S - V * theta, axis=0)


def _seeded_start(m: int, seed: int, zero: np.ndarray | None) -> np.ndarray:
    """A Gaussian start vector of length m from ``default_rng(seed)``, 0 on `zero`."""
    start = np.random.default_rng(seed).standard_normal((m,))
    if zero is not None:
        start[zero] = 0.0
    return start


def lanczos_top_vector(
    times: Callable[[np.ndarray], np.ndarray],
    m: int,
    k: int,
    rtol: float,
    *,
    max_products: int,
    zero: np.ndarray | None = None,
) -> LanczosRun:
    r"""The k largest eigenpairs of a symmetric positive semi-definite m x m matrix M
    given by ``times(q) = M @ q`` for vectors q of length m, by Lanczos without
    restarts (the module's docstring): accepted when every residual is at most
    ``rtol`` :math:`\theta_1` and the probe finds no missed copy.

    Parameters
    ----------
    times : callable
        The product with a vector (1-D, length m); must return a new array.
    m, k : int
        Order of M and number of pairs, ``1 <= k < m``.
    rtol : float
        The residual test, relative to :math:`\theta_1`.
    max_products : int
        Most products to spend before the test passes; the probe then spends at most
        ``_PROBE_STEPS`` more.
    zero : ndarray of bool (m,), optional
        Coordinates where every eigenvector of a nonzero eigenvalue is 0 (the constant
        columns of a scatter matrix): the start vectors are 0 there, so every vector of
        the run is exactly 0 there too.
    Returns
    -------
    LanczosRun
        ``found`` None when the budget ran out, the forecast gave up, the space became
        invariant before the test passed, or the probe found a missed eigenvalue.
    """
    steps = min(max_products, m)
    run = _Lanczos(times, _seeded_start(m, 0, zero), steps)
    history: list[tuple[int, float]] = []
    while run.d < steps:
        beta = run.step()
        if run.d < k + 1 and beta > 0.0:
            continue
        theta, S = run.ritz(k)
        scale = max(theta[0], np.finfo(float).tiny)
        invariant = beta <= KEPT_DIRECTION * scale
        estimate = run.estimates(S).max() / scale
        if estimate <= rtol and theta.shape[0] == k:
            V = run.vectors(S)
            if run.residuals(theta, S, V).max() <= rtol * scale:
                missed, spent = missed_eigenvalue(times, V, theta, rtol, zero)
                return LanczosRun(None if missed else (theta, V), run.d + spent)
        if invariant:
            break
        if run.d % _FORECAST_EVERY == 0:
            history.append((run.d, estimate))
            if _predicted_to_fail(history, rtol, steps):
                break
    return LanczosRun(None, run.d)


def missed_eigenvalue(
    times: Callable[[np.ndarray], np.ndarray], V: np.ndarray, theta: np.ndarray, rtol: float,
    zero: np.ndarray | None = None, max_steps: int = _PROBE_STEPS,
) -> tuple[bool, int]:
    r"""Whether the matrix M of ``times`` may have an eigenvalue above
    :math:`b = \theta_k + \mathrm{rtol}\,\theta_1` that the k pairs (`theta`, V) miss,
    by Lanczos on :math:`M' = (I - V V^\top) M (I - V V^\top)` from a seeded vector.
    Its Ritz values never exceed :math:`\lambda_1(M')`, so one above b proves a miss
    (True). The probe clears the pairs (False) when its top Ritz value :math:`\mu`
    has converged, residual estimate :math:`r \le` ``_PROBE_TOL``
    :math:`\min(\mu, c - \mu)`, far below c, the smallest :math:`\theta_j`,
    j < k, above b, less :math:`\mathrm{rtol}\,\theta_1` (c infinite when there is
    none): a missed copy equals some :math:`\theta_j` above b, so it is at least c, and
    a converged top Ritz value that far below c is taken for :math:`\lambda_1(M')`, as
    Lanczos from a random vector finds the top eigenvalue first (a likelihood, not a
    proof). Also False when the probe's space is invariant or spans the complement of
    V (its Ritz values are then eigenvalues of M'). True after `max_steps` (default
    ``_PROBE_STEPS``) products without a verdict: the caller then solves the formed
    matrix, or looks for the copies another way. Returns the answer and the products
    spent."""
    m, k = V.shape
    bound = theta[-1] + rtol * theta[0]

    def deflated(q: np.ndarray) -> np.ndarray:
        q = q - V @ (V.T @ q)
        w = times(q)
        return w - V @ (V.T @ w)

    above = theta[:-1][theta[:-1] > bound]
    target = above.min() - rtol * theta[0] if above.size else np.inf
    steps = min(max_steps, m - k)
    if steps <= 0:
        return False, 0
    start = _seeded_start(m, 1, zero)
    start -= V @ (V.T @ start)
    probe = _Lanczos(deflated, start, steps, keep_products=False)
    while probe.d < steps:
        beta = probe.step()
        top, s = probe.ritz(1)
        if top[0] > bound:
            return True, probe.d
        converged = probe.estimates(s)[0] <= _PROBE_TOL * min(top[0], target - top[0])
        if converged or beta <= KEPT_DIRECTION * theta[0]:
            return False, probe.d
    return steps < m - k, probe.d

r"""The error bounds that a fit with ``PCA(tol=...)`` certifies on its axes and eigenvalues.

Chapter *PCA at scale* (its proposition on residual bounds) bounds the error of an
approximate eigenpair :math:`(\theta, \mathbf v)` of a symmetric M by its residual
:math:`r = \|M\mathbf v - \theta\mathbf v\|` and the distance :math:`\delta` from
:math:`\theta` to the rest of the spectrum: an eigenvalue lies within r, and within
:math:`r^2/\delta`, of :math:`\theta`, and the axis within an angle whose sine is at
most :math:`r/\delta`. The residuals are computed; the distances are not known, and are
bounded from below here, so that the bounds hold for the computed pairs whatever the
eigenvalues (:func:`certify`):

1. each interval :math:`[\theta_j - r_j, \theta_j + r_j]` contains an eigenvalue of M
   (the first residual bound);
2. :math:`\lambda_{k+1}(M) \le \lambda_1(P M P)`, :math:`P = I - VV^\top` (Courant and
   Fischer: :math:`\lambda_{k+1}` is at most the largest Rayleigh quotient over the
   complement of the span of V), and by the randomized estimate of the chapter applied
   to :math:`(PMP)^t` (Halko, Martinsson and Tropp, Lemma 4.1), with J Gaussian vectors
   :math:`\boldsymbol\omega_i`,

   .. math:: \lambda_1(PMP) \le U = \Big(\rho\sqrt{2/\pi}\,\max_{i \le J}
             \big\|(PMP)^t\boldsymbol\omega_i\big\|\Big)^{1/t}

   with probability at least :math:`1 - \rho^{-J}` for each t (:func:`certify` takes the
   smallest over t = 1 to 10: all ten hold with probability at least :math:`1 -
   10\rho^{-J}`, and stopping early only drops tests). The probes come from a stream
   of their own (:func:`probe_generator`), independent of the start vectors of the
   iteration that found V. The powers are computed with the rounded products, so U is
   the largest :math:`\lambda` that this inequality allows for the exact powers given
   the computed ones and a bound on each power's rounding (:func:`_power_bounds`): the
   products' own bound and the projection's. It stops once the remaining
   powers could not improve a bound by more than a factor 2: the growth of each
   vector under PMP never falls from one power to the next, so after power t no later
   bound that holds (when the tests hold: a later bound below :math:`U^*_t` would be
   below :math:`\lambda_1(PMP)`, the growth being at most it) is below
   :math:`U^*_t = \max_i (\rho\sqrt{2/\pi}\|(PMP)^t\boldsymbol
   \omega_i\|\, g_i^{10 - t})^{1/10}`, :math:`g_i` the latest growth of
   :math:`\boldsymbol\omega_i`, and the bounds of steps 3 and 4 at U are compared with
   those at :math:`U^*_t`. (This includes the earlier rule, every pair certified with
   U at most half the smallest :math:`\theta_j`; where a pair stays uncertified
   whatever the remaining powers give, as at a loose tol, it saves the products that
   could not help);
3. if the intervals are pairwise disjoint and all lie above U, they hold k distinct
   eigenvalues above U, and no more than k exceed U: each interval holds exactly one,
   and every other eigenvalue is at most U. So the distance from :math:`\theta_j` to
   the rest of the spectrum is at least
   :math:`\delta_j = \min\big(\theta_j - U, \min_{i \ne j} (|\theta_j - \theta_i| - r_i)\big)`;
4. the same holds for the a leading pairs alone (a < k), with
   :math:`U_a = \max(\theta_{a+1}, U) + \|R_c\|_2 + \|V_c^\top R_c\|_2 \ge
   \lambda_{a+1}(M)`, c the pairs after the a leading ones, when
   :math:`U \ge \lambda_1(PMP)` (the probes' U of step 2): the
   compression of M to the complement of the a leading axes is, in the basis of the
   other k - a axes and of the complement of all k, the block matrix
   :math:`\begin{bmatrix}\Theta_c + V_c^\top R_c & R_c^\top P\\ P R_c & PMP\end{bmatrix}`
   (:math:`R = MV - V\Theta` the residuals; :math:`V^\top R`, the Ritz defect, has
   a zero diagonal and vanishes for Ritz vectors, but not for axes mapped from the
   left side or cut to the varying columns), whose largest eigenvalue is at most
   :math:`\max(\theta_{a+1}, \lambda_1(PMP))` plus the norms of the defect and of
   the off-diagonal block (Weyl). :func:`certify` takes the largest a for which the
   conditions of 3 hold, with the computed :math:`\theta_{a+1}` and block norms each
   raised by the rounding of the residuals (:func:`pcalib._linalg.rounding.product_rounding`;
   :math:`\sqrt{k - a}` times it for a block's 2-norm).

**Columns orthonormal to rounding.** Steps 2 and 4 and the coupling bound below take
V with orthonormal columns: P a projector (:math:`P^2 = P`, used by the powers of step
2), the complement of the span of V or of its a leading columns split as in step 4, and
:math:`V^\top MV` a compression of M (Cauchy's interlacing theorem). A computed V has
them only to rounding, and :func:`certify` takes :math:`\hat{\mathbf v}_j = \mathbf
v_j/\|\mathbf v_j\|` and :math:`P = I - VV^\top` as computed. The bounds are those of
the orthonormal :math:`Q = \hat V\hat G^{-1/2}`, :math:`\hat G = \hat V^\top\hat V`,
which has the span of V, with :math:`\omega \ge \|V^\top V - I\|_2, \|\hat G - I\|_2`
(:func:`_orthonormality_error`; :math:`\omega < 1`) and :math:`\eta = (1 - \omega)^{-1/2}
- 1 \ge \|\hat G^{-1/2} - I\|_2`:

* step 1 and the bounds of step 3 on each pair are about each :math:`\hat{\mathbf v}_j`
  alone, and the counting of step 3 needs only :math:`U \ge \lambda_{k+1}(M)`: no change;
* Courant and Fischer hold on the complement of the span of Q (the same span), with the
  projector :math:`P_Q = I - QQ^\top`. The computed powers apply :math:`I - VV^\top = P_Q
  + Q(I - CC^\top)Q^\top`, :math:`C = Q^\top V` (k x k, V = QC), and :math:`CC^\top` has
  the eigenvalues of :math:`C^\top C = V^\top V`, so :math:`\|(I - VV^\top) - P_Q\|_2 =
  \|V^\top V - I\|_2 \le \omega`:
  each power's error :math:`\mathbf e_s` gains :math:`\omega\|\mathrm{fl}(M\mathbf
  y_{s-1})\|` (and :math:`\mathbf e_0` gains :math:`\omega\|\boldsymbol\omega_i\|`), the
  projection's rounding is scaled by :math:`\|V\|_2^2 \le 1 + \omega`, and
  :math:`(P_QM)^tP_Q = (P_QMP_Q)^t` holds exactly. The part of an error in the span is
  moved by :math:`\|P_QMQ\|_2 = \|P_Q\hat R\hat G^{-1/2}\|_2 \le (1 + \eta)\|\hat R\|_2`
  (:math:`\hat R = M\hat V - \hat V\Theta`, as :math:`P_Q\hat V = 0`) in place of
  :math:`\|\hat R\|_2` (:func:`_power_bounds`);
* :math:`Q^\top MQ = \hat G^{-1/2}(\hat G\Theta + \hat V^\top\hat R)\hat G^{-1/2} = \Theta
  + \hat V^\top\hat R + E` (:math:`\hat V^\top M\hat V = \hat G\Theta + \hat V^\top\hat
  R`), with :math:`E = [\hat G^{1/2} - I, \Theta - c I]\hat G^{-1/2} + (\hat G^{-1/2} -
  I)\hat V^\top\hat R\hat G^{-1/2} + \hat V^\top\hat R(\hat G^{-1/2} - I)` for any c, so
  (c the midpoint of the :math:`\theta_j`, :math:`\|\hat G^{1/2} - I\|_2 \le 1 - \sqrt{1
  - \omega} \le \omega`)

  .. math:: \|E\|_2 \le (1 + \eta)\,\omega\,(\theta_{\max} - \theta_{\min})
            + \eta(2 + \eta)\,\|\hat V^\top\hat R\|_2 ,

  and the coupling of the span of Q with the complement, :math:`(I - QQ^\top)MQ_c =
  (I - QQ^\top)\hat R(\hat G^{-1/2})_{:,c}`, has norm at most :math:`\|\hat R_c\|_2 +
  \eta\|\hat R\|_2`. Step 4 with the a leading columns of Q (their complement is spanned
  by the other columns of Q and the complement of all k: the block matrix of step 4
  with Q, :math:`\Theta_c + (\hat V^\top\hat R)_{cc} + E_{cc}` in its corner) and the
  coupling bound below (Cauchy for :math:`Q^\top MQ`, then Weyl) hold with every coupling
  :math:`\|R_c\|_2 + \|V_c^\top R_c\|_2` raised by

  .. math:: \eta\|\hat R\|_2 + (1 + \eta)\,\omega\,(\theta_{\max} - \theta_{\min})
            + \eta(2 + \eta)\,\|\hat V^\top\hat R\|_2 \approx \omega\,(\theta_{\max}
            - \theta_{\min} + \|\hat R\|_2/2 + \|\hat V^\top\hat R\|_2)

  for small :math:`\omega` (:math:`\eta \approx \omega/2`).

M's norm does not enter: M acts on the span of V through :math:`\Theta` and
:math:`\hat R`. For the axes of a fit, :math:`\omega` is of order :math:`p\varepsilon`
and the term is far below the products' rounding bound, :math:`(\gamma_n + \gamma_p)
\operatorname{tr} M`; for columns far from orthonormal it is what keeps the bounds
true (two columns at an angle of 0.1 rad to each other, tests/test_certified_tol.py).
A formed spectrum's bounds (below) need none of this.

**Exact routes** (the formed matrix of the Krylov route's fallback, of the gram route and
of the eig route): there the k + 1 leading eigenvalues of a formed matrix
:math:`\tilde M = M + E` are computed, within :math:`\eta` of those of M
(``pcalib._linalg.rounding``, which derives :math:`\eta` and the rounding of the
products), and :func:`certify` takes :math:`U = \tilde\lambda_{k+1} + \eta` in step 2,
:math:`\tilde\lambda_{a+1} + \eta` in step 4, and bounds each eigenvalue by
:math:`|\theta_j - \tilde\lambda_j| + \eta`: one product with M (the residuals, which
certify the computed axes themselves), no random vectors, and the bounds hold with
certainty (up to the assumptions stated there). This U bounds
:math:`\lambda_{k+1}(M)`, which is all that step 3 needs, but not :math:`\lambda_1(PMP)`,
which :math:`U_a` of step 4 and the coupling bound below need (for M = diag(10, 9, 0),
V = [e_3] and U = 9 = :math:`\lambda_2`, the coupling bound would give
:math:`\lambda_1 \le 9`), so neither is used with a formed spectrum.

The certified pairs' intervals hold the a largest eigenvalues, in order. Every pair j
(in decreasing order of :math:`\theta_j`) also has :math:`\theta_j - \|V^\top R\|_2
\le \lambda_j` (the eigenvalues of :math:`V^\top M V = \Theta + V^\top R` are within
:math:`\|V^\top R\|_2` of the :math:`\theta_j`, Weyl, and at most the
:math:`\lambda_j`, Cauchy's interlacing theorem) and, for the probes' :math:`U \ge
\lambda_1(PMP)`, :math:`\lambda_j \le \max(\theta_j, U) + \|R\|_2 + \|V^\top
R\|_2` (Weyl: M without the coupling :math:`VR^\top P + PRV^\top` between the span
of V and its complement, of norm at most :math:`\|R\|_2`, has the eigenvalues of
:math:`V^\top M V` and those of PMP): the bound on the eigenvalues of the components
beyond a, whose intervals
meet or reach below the bound on the rest (close eigenvalues, or the noise). Those get
no bound on their axes (sine 1): an axis is determined only as well as its eigenvalue
stands apart, and the computation cannot tell which of two close eigenvalues it found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .rounding import FormedSpectrum, gamma

__all__ = ["Certificate", "block_norm", "certify", "probe_generator"]

# The randomized bound on lambda_{k+1}: J = _PROBES Gaussian vectors, the factor
# _SAFETY (rho), powers t = 1, ..., _POWERS of P M P, stopped once the powers left could
# improve no bound by more than a factor 2 (module docstring, step 2; each t a test that fails with probability rho**-J, so all of them
# together with at most _POWERS rho**-J = 1e-4). The bound of power t overestimates
# lambda_1(P M P) by up to about the factor (rho sqrt(2/pi) sqrt(p))**(1/t) (1.9 at
# p = 5000, t = 10), typically (rho sqrt(2/pi) |g|)**(1/t) (1.2 at t = 10); each power is
# one product of M with J columns.
_PROBES = 5
_SAFETY = 10.0
_POWERS = 10
# The powers stop once the bounds that U certifies are within this factor of those that
# the smallest U the remaining powers can give would certify (each axis's gap within
# half of that: the factor of the rule it replaces, U at most half the smallest Ritz
# value).
_SETTLED = 2.0
FAILURE_PROBABILITY = _POWERS * _SAFETY**-_PROBES
_EPS = float(np.finfo(np.float64).eps)
# The probes' stream: a child of seed 0 (spawn key 1) that no start vector of pcalib's
# iterations draws from (block Krylov and Lanczos start from default_rng(0), Lanczos's
# deflation probes from default_rng(1)). With default_rng(0) the probes were the first
# 5p numbers of the Krylov start block, so not independent of the axes they test.
_PROBE_SEED = np.random.SeedSequence(0, spawn_key=(1,))


def probe_generator() -> np.random.Generator:
    r"""The generator of :func:`certify`'s probes: fixed, so that a certified fit is
    reproducible, and from a stream of its own, so that the probes are independent of
    the axes they test (the randomized estimate of step 2 needs vectors drawn
    independently of :math:`PMP`, which depends on V, which depends on the start
    vectors of the iteration that found V)."""
    return np.random.default_rng(_PROBE_SEED)


@dataclass(frozen=True)
class Certificate:
    """What :func:`certify` proves about k approximate eigenpairs of a symmetric M, in
    M's units, with probability at least ``1 - FAILURE_PROBABILITY`` (with an exact
    route's :class:`pcalib._linalg.rounding.FormedSpectrum`, with certainty)."""

    theta: np.ndarray  #: (k,) the Rayleigh quotients of the axes
    residuals: np.ndarray  #: (k,) ||M v_j - theta_j v_j||
    eigenvalue_bounds: np.ndarray  #: (k,) |theta_j - lambda_j| <= this, lambda_j the j-th largest eigenvalue of M
    axis_bounds: np.ndarray  #: (k,) sine of the angle between v_j and its eigenvector, at most (1: none)
    upper: float  #: U, at least lambda_{k+1}(M)


def certify(times: Callable[[np.ndarray], np.ndarray], V: np.ndarray, rng: np.random.Generator,
            spectrum: FormedSpectrum | None = None, product_error: float | None = None) -> Certificate:
    r"""Certified error bounds for the columns of V (p, k), nearly orthonormal, as
    approximate eigenvectors of the symmetric positive semi-definite M given by
    ``times(Q) = M Q`` (see the module docstring). Each column is taken as the unit
    vector :math:`\mathbf v_j/\|\mathbf v_j\|` (its Rayleigh quotient and residual
    divided by :math:`\|\mathbf v_j\|^2` and :math:`\|\mathbf v_j\|`: a computed
    column's norm differs from 1 by up to about p eps, which moves the quotient by as
    much). Their loss of mutual orthogonality, :math:`\|V^\top V - I\|_2 \le \omega`, is
    counted too (module docstring, "Columns orthonormal to rounding"); a ValueError
    names V when :math:`\omega \ge 1`. `product_error` bounds the rounding of the
    products, :math:`\|\mathrm{fl}(M
    \mathbf q) - M\mathbf q\| \le` `product_error` :math:`\|\mathbf q\|` (see
    :func:`pcalib._linalg.rounding.product_rounding`); without it, the estimate :math:`\sqrt p\,\varepsilon
    \max_j\theta_j` stands in. The rounding of the quotients and residuals themselves
    is added, :math:`\gamma_{p+4}(\max_j\theta_j + \max_j r_j)`. With the `spectrum`
    of an exact route, one product with M (k columns) and no random vectors; without, at
    most ``_POWERS`` products, the first with k + J columns and the others with J (fewer
    once a smaller U could not improve any bound by more than ``_SETTLED``)."""
    p, k = V.shape
    V = np.asfortranarray(V)
    probes = np.empty((p, 0))
    if spectrum is None:
        probes = rng.standard_normal((p, _PROBES))
        drawn = np.linalg.norm(probes, axis=0)
        probes -= V @ (V.T @ probes)
    MB = times(np.asfortranarray(np.hstack([V, probes])))
    MV, W = MB[:, :k], MB[:, k:]
    squares = np.einsum("ij,ij->j", V, V)  # ||v_j||^2, 1 to round-off
    theta = np.einsum("ij,ij->j", V, MV) / squares  # the Rayleigh quotients of v_j / ||v_j||
    R = MV - V * theta  # the residual block (V^T R, the Ritz defect, is 0 only for Ritz vectors)
    residuals = np.linalg.norm(R, axis=0) / np.sqrt(squares)
    top = max(float(theta.max()), 0.0)
    products = np.sqrt(p) * _EPS * top if product_error is None else product_error
    rounding = (products + gamma(p + 4) * (top + float(residuals.max()))) * (1.0 + 16.0 * _EPS)
    residuals += rounding
    order = np.argsort(-theta, kind="stable")
    # bounds on lambda_1, ..., lambda_{k+1} of M: the formed spectrum's (Weyl), or none
    computed, error = (None, 0.0) if spectrum is None else (spectrum.eigenvalues[: k + 1], spectrum.error)  # k may be cut since
    above = np.full(k + 1, np.inf) if computed is None else np.maximum(computed + error, 0.0)
    scales = np.sqrt(np.outer(squares, squares))
    gram = (R.T @ R) / scales  # every block's 2-norm from k x k numbers (of the unit columns' residuals)
    # V^T R, the Ritz defect (zero diagonal; 0 for Ritz vectors): V^T M V = Theta + V^T R
    defect = (V.T @ R) / scales
    # the coupling of the pairs after the a leading ones (step 4), a = 0, ..., k - 1,
    # with the rest: ||R_c||_2 + ||V_c^T R_c||_2 for their columns c, which do not
    # depend on U. R is computed with an error of at most `rounding` per column:
    # sqrt(|c|) times that in the 2-norm of a block of |c| columns
    blocks = [block_norm(gram, order[a:], p) + np.sqrt(k - a) * rounding for a in range(k)]
    defects = [_defect_norm(defect, order[a:], residuals, rounding, p) for a in range(k)]
    # V's columns are orthonormal to rounding only: the bounds hold for the orthonormal
    # Q = V^ G^(-1/2) of the same span, and the difference adds `skew` to every coupling
    # (module docstring, "Columns orthonormal to rounding")
    omega = _orthonormality_error(V, squares)
    widening = omega / ((1.0 + np.sqrt(1.0 - omega)) * np.sqrt(1.0 - omega)) * (1.0 + 8.0 * _EPS)  # eta
    spread = float(theta.max() - theta.min()) + 2.0 * rounding
    skew = (widening * blocks[0] + (1.0 + widening) * omega * spread
            + widening * (2.0 + widening) * defects[0]) * (1.0 + 8.0 * _EPS)
    couplings = [block + defect_c + skew for block, defect_c in zip(blocks, defects)]
    pairs = _Pairs(theta, residuals, rounding, order, above, couplings, computed is None)
    upper = float(above[k])
    # the probes' bounds, their own rounding counted (||PR|| <= blocks[0]); none with a spectrum
    powers = () if spectrum is not None else _power_bounds(
        times, V, W, np.linalg.norm(probes, axis=0), drawn, products, (1.0 + widening) * blocks[0], omega)
    for upper_t, floor_t in powers:
        upper = min(upper, upper_t)
        if _settled(pairs.bounds(upper), pairs.bounds(min(floor_t, upper))):
            break
    eigenvalue_bounds, axis_bounds = pairs.bounds(upper)
    if computed is not None:  # |theta_j - lambda_j| <= |theta_j - lambda~_j| + eta, in order
        formed = np.abs(theta[order] - computed[:k]) + error + rounding
        eigenvalue_bounds[order] = np.minimum(eigenvalue_bounds[order], formed)
    return Certificate(theta, residuals, eigenvalue_bounds, axis_bounds, float(upper))


@dataclass(frozen=True)
class _Pairs:
    r"""What :func:`certify` knows of the k pairs before U: the Rayleigh quotients, the
    residuals (rounding included), the rounding of one residual, the pairs in
    decreasing order of theta, the bounds on lambda_1..lambda_{k+1} of a formed
    spectrum (inf without one), the couplings :math:`\|R_c\|_2 + \|V_c^\top R_c\|_2`
    of the pairs c after the a leading ones with the rest, a = 0, ..., k - 1 (rounding
    included), and whether U comes from the probes (at least :math:`\lambda_1(PMP)`,
    so that the coupling bounds hold) rather than from a formed spectrum (at least
    :math:`\lambda_{k+1}(M)` only)."""

    theta: np.ndarray
    residuals: np.ndarray
    rounding: float
    order: np.ndarray
    above: np.ndarray
    couplings: list[float]
    probed: bool

    def bounds(self, upper: float) -> tuple[np.ndarray, np.ndarray]:
        r"""The bounds on the eigenvalues and the axes (sines) that U = `upper`
        certifies. With the probes' U (:math:`\ge \lambda_1(PMP)`): for every pair,
        :math:`|\theta_j - \lambda_j| \le \max(U - \theta_j, 0) + \|R\|_2 +
        \|V^\top R\|_2` (module docstring: Cauchy's interlacing theorem and Weyl's
        inequality), and step 4 against :math:`U_a`. With a formed spectrum's U
        (:math:`\ge \lambda_{k+1}(M)` only) neither holds: the eigenvalue bounds are
        infinite here (:func:`certify` takes Weyl's from the spectrum) and step 4 is
        against :math:`\tilde\lambda_{a+1} + \eta`. For the largest a whose pairs
        satisfy step 3, the residual bounds."""
        theta, residuals, order, k = self.theta, self.residuals, self.order, self.theta.size
        eigenvalue_bounds = np.full(k, np.inf)
        if self.probed:
            eigenvalue_bounds = np.maximum(upper - theta, 0.0) + self.couplings[0] + self.rounding
        axis_bounds = np.ones(k)
        for a in range(k, 0, -1):  # the a leading pairs, all k first
            lead = order[:a]
            if a == k:
                bound = upper
            elif self.probed:  # U_a: needs U >= lambda_1(PMP)
                bound = max(float(theta[order[a]]) + self.rounding, upper) + self.couplings[a]
            else:  # lambda~_{a+1} + eta >= lambda_{a+1}(M), Weyl
                bound = float(self.above[a])
            gaps = _certified_gaps(theta[lead], residuals[lead], bound)
            if gaps is not None:
                eigenvalue_bounds[lead] = np.minimum(eigenvalue_bounds[lead],
                                                     np.minimum(residuals[lead], residuals[lead] ** 2 / gaps)
                                                     + self.rounding)
                axis_bounds[lead] = np.minimum(residuals[lead] / gaps, 1.0)
                break
        return eigenvalue_bounds, axis_bounds


def _settled(at_upper: tuple[np.ndarray, np.ndarray], at_lower: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether the bounds that U certifies (`at_upper`) are within ``_SETTLED`` times
    those that the smallest U the remaining powers can give would (`at_lower`): then
    no further power of :func:`certify` can improve any bound by more than that
    factor."""
    return all(np.all(bound <= _SETTLED * best) for bound, best in zip(at_upper, at_lower))


def block_norm(gram: np.ndarray, columns: np.ndarray, length: int) -> float:
    r"""The spectral norm of the columns `columns` of R (`length` rows) from ``gram`` =
    :math:`R^\top R`: :math:`\|R_{:,c}\|_2 = \lambda_{\max}(R_{:,c}^\top R_{:,c})^{1/2}`,
    a k x k eigenvalue problem instead of an SVD of a p x k block (50 of them cost 2.9 s
    at p = 50,000, k = 50). Rounded up by :math:`(\sqrt{p} + |c|)\,\epsilon` relative,
    the rounding of the Gram matrix's entries (as for the residuals in :func:`certify`)
    and of its largest eigenvalue."""
    block = gram[np.ix_(columns, columns)]
    largest = float(np.linalg.eigvalsh(block)[-1]) if block.size else 0.0
    margin = (np.sqrt(length) + len(columns)) * np.finfo(np.float64).eps
    return float(np.sqrt(max(largest, 0.0)) * (1.0 + margin))


def _defect_norm(defect: np.ndarray, columns: np.ndarray, residuals: np.ndarray, rounding: float,
                 length: int) -> float:
    r"""A bound on :math:`\|V_c^\top R_c\|_2` for the columns c = `columns` (unit
    columns of V, R their residuals, of `length` rows), from `defect`, the computed
    :math:`V^\top R` (k x k): its Frobenius norm, plus the rounding of that product,
    :math:`\gamma_L |V_c|^\top |R_c|` entrywise and so at most :math:`\gamma_L
    \sqrt{|c|}\,\|R_c\|_F` in norm (the `residuals` bound the columns' norms), plus
    :math:`\sqrt{|c|}` times the `rounding` of each column of R, which
    :math:`V_c^\top` does not enlarge; rounded up by 16u."""
    block = defect[np.ix_(columns, columns)]
    size = len(columns)
    product = gamma(length) * np.sqrt(size) * float(np.linalg.norm(residuals[columns]))
    return (float(np.linalg.norm(block)) + product + np.sqrt(size) * rounding) * (1.0 + 8.0 * _EPS)


def _orthonormality_error(V: np.ndarray, squares: np.ndarray) -> float:
    r"""A bound :math:`\omega` on both :math:`\|V^\top V - I\|_2` and :math:`\|\hat V^\top
    \hat V - I\|_2`, :math:`\hat V` the unit columns :math:`\mathbf v_j/\|\mathbf v_j\|`
    (`squares` the computed :math:`\|\mathbf v_j\|^2`; the off-diagonal entries of
    :math:`\hat V^\top\hat V` are those of :math:`V^\top V` divided by
    :math:`\|\mathbf v_i\|\|\mathbf v_j\|`, its diagonal is 1): the larger of the two
    computed k x k norms, plus the rounding of :math:`V^\top V`, :math:`\gamma_p
    |V|^\top|V|` entrywise and so at most :math:`\gamma_p\|V\|_F^2` in norm, and of the
    subtraction and the division (:math:`\sqrt k\,\varepsilon` in norm), both divided by
    :math:`\min(1, \min_j\|\mathbf v_j\|^2)`, plus the eigensolver's
    :math:`2k\varepsilon` times the Frobenius norms (as c of the module docstring);
    rounded up by 16u. A ValueError names V when it reaches 1 (columns dependent to
    rounding: no orthonormal basis of their span has k vectors)."""
    p, k = V.shape
    gram = V.T @ V
    unit = gram / np.sqrt(np.outer(squares, squares))
    np.fill_diagonal(unit, 1.0)
    norms = [(float(np.abs(np.linalg.eigvalsh(G - np.eye(k))).max()), float(np.linalg.norm(G - np.eye(k))))
             for G in (gram, unit)]
    rounding = (gamma(p) * float(squares.sum()) + _EPS * np.sqrt(k)) / min(1.0, float(squares.min()))
    omega = max(two + 2.0 * k * _EPS * frobenius for two, frobenius in norms) + rounding
    omega *= 1.0 + 8.0 * _EPS
    if not omega < 1.0:
        raise ValueError(f"V: its columns are too far from orthonormal to certify (||V^T V - I||_2 up to {omega:.3g})")
    return omega


def _certified_gaps(theta: np.ndarray, residuals: np.ndarray, bound: float) -> np.ndarray | None:
    r"""The lower bounds :math:`\delta_j` of step 3 (module docstring) on the distances
    from each :math:`\theta_j` to the rest of the spectrum, when the intervals
    :math:`[\theta_j \pm r_j]` are pairwise disjoint and above `bound` (at least the
    next eigenvalue); else None."""
    low, high = theta - residuals, theta + residuals
    order = np.argsort(-theta, kind="stable")
    if low.min() <= bound or np.any(low[order][:-1] <= high[order][1:]):
        return None
    return np.minimum(theta - bound, _pairwise_gaps(theta, residuals))


def _pairwise_gaps(theta: np.ndarray, residuals: np.ndarray) -> np.ndarray:
    r""":math:`\min_{i \ne j} (|\theta_j - \theta_i| - r_i)` for each j (inf for k = 1):
    the part of :math:`\delta_j` (step 3) that the other pairs set."""
    others = np.abs(theta[:, None] - theta[None, :]) - residuals[None, :]
    np.fill_diagonal(others, np.inf)
    return others.min(axis=1)


def _power_bounds(times: Callable[[np.ndarray], np.ndarray], V: np.ndarray, W: np.ndarray,
                  start: np.ndarray, drawn: np.ndarray, products: float,
                  coupling: float, omega: float) -> Iterator[tuple[float, float]]:
    r"""Upper bounds :math:`U_t` on :math:`\lambda_1(B)`, :math:`B = PMP`, for t = 1, 2,
    ..., ``_POWERS`` (each one more product), from :math:`W = M\mathbf y_0`, the
    product with the projected probes :math:`\mathbf y_0 = \mathrm{fl}(P\boldsymbol
    \omega_i)` (norms `start`; the probes' own norms `drawn`), each with the smallest
    bound that the powers up to ``_POWERS`` can still give.

    In exact arithmetic :math:`U_t = (\rho\sqrt{2/\pi}\max_i\|B^t\boldsymbol
    \omega_i\|)^{1/t}`. The powers are computed, :math:`\mathbf y_s =
    \mathrm{fl}(P\,\mathrm{fl}(M\mathbf y_{s-1})) = PM\mathbf y_{s-1} + \mathbf e_s`
    with :math:`\|\mathbf e_s\| \le` `products` :math:`\|\mathbf y_{s-1}\| + c_P
    \|\mathrm{fl}(M\mathbf y_{s-1})\|` (the products' rounding bound, and
    :math:`c_P = (\gamma_{2p+k}\sqrt k + \gamma_{p+2} + \varepsilon)(1 + \omega) +
    \omega` for the projection and the normalization, `omega` bounding
    :math:`\|V^\top V - I\|_2`, the distance of the computed :math:`I - VV^\top` from
    the projector P of the module docstring's "Columns orthonormal to rounding"), and
    :math:`\|\mathbf e_0\| \le c_P\|\boldsymbol\omega_i\|`.
    As :math:`(PM)^t P = B^t` and :math:`\|(PM)^j\mathbf e\| \le \lambda^{j-1}(\lambda
    + \|PR\|)\|\mathbf e\|` for j >= 1 (:math:`\lambda = \lambda_1(B)`; the part of
    :math:`\mathbf e` in the span of V is moved by :math:`PMV = PR`, whose norm is at
    most `coupling`),

    .. math:: \|B^t\boldsymbol\omega_i\| \le \|\mathbf y_t\| + \|\mathbf e_t\|
              + \sum_{s < t} \lambda^{t-s-1}(\lambda + \|PR\|)\,\|\mathbf e_s\| .

    On the event :math:`\lambda^t \le \rho\sqrt{2/\pi}\max_i\|B^t\boldsymbol\omega_i\|`
    of step 2, :math:`\lambda` is at most the largest root over i of :math:`\sum_{m=0}^t
    a_m\lambda^{-m} = 1`, with :math:`a_m` the coefficients of this inequality divided
    by :math:`\lambda^t` (the left side decreases in :math:`\lambda`: bisection in
    :math:`\log\lambda`); :math:`U_t` is that root, rounded up. The rounding only
    matters when :math:`\lambda_1(B)` is near the products' error.

    The stopping guide: the growth :math:`g_i = \|\mathbf y_t\|/\|\mathbf y_{t-1}\|`
    of each vector never falls in later powers (for a symmetric A,
    :math:`\|A^t\mathbf w\|^2 \le \|A^{t-1}\mathbf w\|\,\|A^{t+1}\mathbf w\|`), so no
    later bound is below :math:`\max_i (\rho\sqrt{2/\pi}\,\|\mathbf y_t\|\,
    g_i^{T - t})^{1/T}`, T = ``_POWERS`` (in exact arithmetic: a guide for when to
    stop, not a certified bound). Each column is normalized after every power (the
    logarithm of its growth summed), so that no power overflows or underflows."""
    p, k = V.shape
    factor = np.log(_SAFETY * np.sqrt(2 / np.pi))
    projection = ((gamma(2 * p + k) * np.sqrt(k) + gamma(p + 2) + _EPS) * (1.0 + omega) + omega) * (1.0 + 16.0 * _EPS)
    norm_error = np.log1p(2.0 * gamma(p + 2))  # the computed norms, rounded up
    with np.errstate(divide="ignore"):
        log_y = [np.log(start)]  # log ||y_s||, s = 0, 1, ...
        log_e = [np.log(projection * drawn) + norm_error]  # log of the bound on ||e_s||
    scale = start  # the norms of the columns multiplied: y_0 itself, then unit vectors
    for t in range(1, _POWERS + 1):
        if t > 1:
            W = times(np.asfortranarray(W))
        before = np.linalg.norm(W, axis=0)  # ||fl(M y_{t-1})||, in the units of the block
        W = W - V @ (V.T @ W)
        norms = np.linalg.norm(W, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            units = np.where(scale > 0, log_y[-1] - np.log(np.where(scale > 0, scale, 1.0)), -np.inf)
            log_e.append(np.log(products * scale + projection * before) + norm_error + units)
            log_y.append(np.log(norms) + units)  # -inf for a vector that M annihilated
        W = W / np.where(norms > 0, norms, 1.0)
        scale = (norms > 0).astype(np.float64)
        with np.errstate(invalid="ignore"):
            rates = log_y[-1] - log_y[-2]
            floor = np.max(np.where(np.isfinite(rates), factor + log_y[-1] + (_POWERS - t) * rates, -np.inf))
        yield _largest_root(_power_coefficients(log_y[-1] + norm_error, log_e, coupling, factor)), float(
            np.exp(floor / _POWERS))
        if not np.any(norms > 0):  # M vanishes outside the span of V (to rounding)
            return


def _power_coefficients(log_top: np.ndarray, log_e: list[np.ndarray], coupling: float,
                        factor: float) -> np.ndarray:
    r"""(t + 1, J) the logarithms of the coefficients :math:`a_m`, m = 0, ..., t, of
    :func:`_power_bounds`' inequality :math:`\sum_m a_m \lambda^{-m} \ge 1` for each
    probe: :math:`a_m/(\rho\sqrt{2/\pi}) = \|\mathbf e_m\|[m < t] + \|PR\|\,
    \|\mathbf e_{m-1}\|[m \ge 1] + (\|\mathbf y_t\| + \|\mathbf e_t\|)[m = t]`, from
    `log_top` (:math:`\log\|\mathbf y_t\|`) and the bounds `log_e` on
    :math:`\log\|\mathbf e_s\|`, s = 0, ..., t."""
    t = len(log_e) - 1
    errors = np.array(log_e)
    with np.errstate(divide="ignore"):
        moved = np.log(coupling) + errors[:-1]  # ||PR|| ||e_{m-1}||, m = 1, ..., t
    terms = np.full((t + 1, errors.shape[1]), -np.inf)
    terms[:t] = errors[:t]
    terms[1:] = np.logaddexp(terms[1:], moved)
    terms[t] = np.logaddexp(terms[t], np.logaddexp(log_top, errors[t]))
    return factor + terms


def _largest_root(log_a: np.ndarray) -> float:
    r"""The largest :math:`\lambda \ge 0` with :math:`\sum_m a_m\lambda^{-m} \ge 1` for
    some column of `log_a` (the logarithms of :math:`a_m`, m = 0, 1, ..., rows),
    rounded up: inf if some :math:`a_0 \ge 1`, 0 if no :math:`a_m` with m >= 1 is
    positive. The sum decreases in :math:`\lambda`, so each column's root lies between
    :math:`\max_m (\log a_m)/m` (where one term alone is 1) and :math:`\max_m (\log a_m
    + \log t - \log(1 - a_0))/m` (where each term is at most :math:`(1 - a_0)/t`).
    Where the rounding is negligible (the usual case), the lower end raised by
    :math:`10^{-10}` relative already has a sum below 1 and is taken; otherwise 50
    bisections in :math:`\log\lambda` find the root. The rounding of the logarithms
    (up to :math:`u(|\log a_m| + m|\log\lambda|)` each) is added to the result's."""
    if np.any(log_a[0] >= 0.0):
        return float("inf")
    powers = np.arange(1, log_a.shape[0])[:, None]
    finite = np.isfinite(log_a[1:])
    if not finite.any():
        return 0.0
    with np.errstate(divide="ignore"):
        room = np.log(powers.size) - np.log1p(-np.exp(log_a[0]))  # log(t / (1 - a_0))
    low = np.max(np.where(finite, log_a[1:] / powers, -np.inf), axis=0)
    high = np.max(np.where(finite, (log_a[1:] + room) / powers, -np.inf), axis=0)
    columns = np.isfinite(low)
    low, high, log_a = low[columns], high[columns], log_a[:, columns]
    exponents = np.arange(log_a.shape[0])[:, None]

    def above(at: np.ndarray) -> np.ndarray:  # the sum at lambda = exp(at) is at least 1
        return np.logaddexp.reduce(log_a - exponents * at, axis=0) >= 0.0

    near = low + 1e-10
    if not np.any(above(near)):
        high = np.minimum(near, high)
    else:
        for _ in range(50):
            middle = (low + high) / 2
            up = above(middle)
            low, high = np.where(up, middle, low), np.where(up, high, middle)
    largest = float(np.max(high))
    slack = 8.0 * _EPS * (float(np.max(np.abs(log_a[np.isfinite(log_a)]))) + exponents.size * abs(largest) + 1.0)
    return float(np.exp(largest + slack))

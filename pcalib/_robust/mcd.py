r"""Multivariate robust location and scatter (chapter *Outliers and robust PCA*).

* :func:`mcd`: the reweighted Minimum Covariance Determinant estimate, searched by
  FAST-MCD (Rousseeuw and Van Driessen 1999), with robustbase's conventions;
* :func:`mcd_consistency` and :func:`h_subset_size`: its consistency factor and the
  size of its subset;
* :func:`spatial_median`: the spatial (L1) median, by Weiszfeld's iteration with
  Vardi and Zhang's modification.

Both estimates run in the units of :func:`pcalib._linalg.units.median_shifted` (the data
shifted by a median row and scaled by a power of two), where covariances neither
overflow nor underflow and a large offset costs no digit; they are returned in the
data's units.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import scipy.special
from numpy.typing import ArrayLike

from .._linalg.units import median_shifted, rescale
from .._utils.validation import check_random_state

__all__ = ["MCD", "c_steps", "h_subset_size", "mcd", "mcd_consistency", "spatial_median"]

#: Random (k+1)-subsets that start FAST-MCD's C-steps, and how many of the best after
#: two C-steps are iterated to convergence (Rousseeuw and Van Driessen 1999).
MCD_STARTS = 500
MCD_KEEP = 10
MCD_MAX_STEPS = 100
#: Above this many rows the random starts run on a random subsample of this size (the
#: idea of FAST-MCD's nested subsets); the best fits then start C-steps on all rows.
MCD_SUBSAMPLE = 1500
#: Weiszfeld iterations for the spatial median stop when the step is below this
#: fraction of the data's spread.
MEDIAN_TOL = 1e-12
MEDIAN_MAX_ITER = 1000
_EPS = float(np.finfo(np.float64).eps)


def h_subset_size(n: int, k: int, alpha: float) -> int:
    r"""The size of the h-subset, robustbase's ``h.alpha.n``:
    :math:`h = \lfloor 2 n_2 - n + 2 (n - n_2)\alpha \rfloor`,
    :math:`n_2 = \lfloor (n + k + 1)/2 \rfloor`; h = n_2 for alpha = 1/2 (the
    largest breakdown point) and n for alpha = 1."""
    n2 = (n + k + 1) // 2
    return math.floor(2 * n2 - n + 2 * (n - n2) * alpha)


def mcd_consistency(k: int, fraction: float | np.ndarray) -> Any:
    r"""The factor that makes the covariance of the central `fraction` of a normal
    sample consistent (an array of factors for an array of fractions):

    .. math:: c_k(\alpha) = \frac{\alpha}{F_{\chi^2_{k+2}}(\chi^2_{k,\alpha})},

    since :math:`E[x x^\top \mid x^\top \Sigma^{-1} x \le q] =
    \frac{F_{k+2}(q)}{F_k(q)}\Sigma` for :math:`x \sim \mathcal N(0, \Sigma)`; 1 for
    a fraction of 1.
    """
    alpha = np.minimum(np.asarray(fraction, dtype=np.float64), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = alpha / scipy.special.chdtr(k + 2, scipy.special.chdtri(k, 1.0 - alpha))
    factor = np.where(alpha >= 1.0, 1.0, factor)
    return float(factor) if factor.ndim == 0 else factor


def _mean_cov(T: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance (divisor: the number of rows) of the rows `rows` of `T`."""
    sub = T[rows]
    m = sub.mean(axis=0)
    D = sub - m
    return m, D.T @ D / rows.size


def _mahalanobis2(T: np.ndarray, m: np.ndarray, C: np.ndarray) -> np.ndarray | None:
    """Squared Mahalanobis distances, or None if C is not positive definite."""
    try:
        L = np.linalg.cholesky(C)
    except np.linalg.LinAlgError:
        return None
    Z = (T - m) @ np.linalg.inv(L).T  # k x k inverse: one small product, not n solves
    return np.einsum("ij,ij->i", Z, Z)


def _nearest(d2: np.ndarray, h: int) -> np.ndarray:
    """Sorted indices of the h smallest entries of `d2` (ties: by index)."""
    if h >= d2.size:
        return np.arange(d2.size)
    cut = np.partition(d2, h - 1)[h - 1]
    below = np.flatnonzero(d2 < cut)
    return np.sort(np.r_[below, np.flatnonzero(d2 == cut)[: h - below.size]])


def _log_det(C: np.ndarray) -> float:
    sign, logdet = np.linalg.slogdet(C)
    return float(logdet) if sign > 0 else -np.inf


def c_steps(T: np.ndarray, rows: np.ndarray, h: int, steps: int) -> tuple[float, np.ndarray]:
    """C-steps from `rows`: each keeps the h rows nearest (Mahalanobis) to the current
    fit, which never increases the determinant. Returns (log det, rows), the log
    determinant of the covariance with divisor h."""
    m, C = _mean_cov(T, rows)
    obj = _log_det(C)
    for _ in range(steps):
        d2 = _mahalanobis2(T, m, C)
        if d2 is None:
            break
        new = _nearest(d2, h)
        if new.size == rows.size and np.array_equal(new, rows):
            break
        m_new, C_new = _mean_cov(T, new)
        obj_new = _log_det(C_new)
        if not obj_new < obj:
            if obj_new == obj:
                rows, m, C = new, m_new, C_new
            break
        rows, m, C, obj = new, m_new, C_new, obj_new
    return obj, rows


class _Subsets:
    """Many subsets of the rows of T at once, as weights W (m x n, one subset per row):
    their means and covariances (divisor s, the subsets' size) are BLAS products with
    T and with the products of its columns, :math:`(W T) / s` and :math:`(W P) / s -
    \bar t \bar t^\top`. The one-pass covariance loses digits only when a subset's
    spread is small against its distance to 0 (T is centered near 0 here); it only
    ranks the random starts, whose best are then stepped with :func:`c_steps`."""

    def __init__(self, T: np.ndarray) -> None:
        self.T = T
        self.i, self.j = np.triu_indices(T.shape[1])
        self.P = T[:, self.i] * T[:, self.j]  # (n, k(k+1)/2)

    def moments(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means (m, k) and covariances (m, k, k) of the subsets `rows` (m, s)."""
        m, size = rows.shape
        W = np.zeros((m, self.T.shape[0]))
        np.put_along_axis(W, rows, 1.0, axis=1)
        mean = W @ self.T / size
        pairs = W @ self.P / size - mean[:, self.i] * mean[:, self.j]
        cov = np.empty((m, self.T.shape[1], self.T.shape[1]))
        cov[:, self.i, self.j] = pairs
        cov[:, self.j, self.i] = pairs
        return mean, cov

    def nearest(self, mean: np.ndarray, cov: np.ndarray, h: int) -> np.ndarray:
        """The h rows nearest (Mahalanobis) to each fit, as sorted indices (m, h);
        :math:`d^2 = t^\top A t - 2 t^\top A \bar t + \bar t^\top A \bar t`,
        :math:`A = C^{-1}`, for all rows and fits in two products."""
        A = np.linalg.inv(cov)
        weights = A[:, self.i, self.j] * np.where(self.i == self.j, 1.0, 2.0)
        linear = np.einsum("mij,mj->mi", A, mean)
        d2 = weights @ self.P.T - 2.0 * linear @ self.T.T + np.sum(mean * linear, axis=1)[:, None]
        return np.sort(np.argpartition(d2, h - 1, axis=1)[:, :h], axis=1)


def _random_starts(T: np.ndarray, h: int, count: int, rng: np.random.Generator) -> list[tuple[float, np.ndarray]]:
    """`count` random (k+1)-subsets, each enlarged until its covariance is non-singular,
    then the h nearest rows and two C-steps, computed for all subsets at once.
    Returns (log det, rows) of each; a subset that becomes singular gives log det -inf
    (an exact fit) and is not stepped further."""
    n, k = T.shape
    scale = float(np.abs(T).max()) or 1.0
    floor = k * np.log(1e-12 * scale**2 + 1e-300)
    subsets = _Subsets(T)
    orders = np.argsort(rng.random((count, n)), axis=1)
    mean, cov = subsets.moments(orders[:, : k + 1])
    for i in np.flatnonzero(np.linalg.slogdet(cov)[1] < floor):  # enlarge the few singular ones
        size = k + 1
        while size < n and _log_det(_mean_cov(T, orders[i, :size])[1]) < floor:
            size += 1
        mean[i], cov[i] = _mean_cov(T, orders[i, :size])
    live = np.linalg.slogdet(cov)[1] >= floor
    rows = orders[:, :h].copy()
    for _ in range(3):  # the h nearest, then two C-steps
        if live.any():
            rows[live] = subsets.nearest(mean[live], cov[live], h)
        mean, cov = subsets.moments(rows)
        sign, logdet = np.linalg.slogdet(cov)
        live &= (sign > 0) & (logdet >= floor)
    return [(float(d) if g > 0 else -np.inf, r) for d, g, r in zip(logdet, sign, rows)]


class MCD(NamedTuple):
    """The result of :func:`mcd`."""

    #: reweighted center (k,) and covariance (k, k)
    location: np.ndarray
    covariance: np.ndarray
    #: raw MCD: the h rows (sorted indices), their mean and consistent covariance
    support: np.ndarray
    raw_location: np.ndarray
    raw_covariance: np.ndarray
    #: rows kept by the reweighting (bool, n)
    weights: np.ndarray


def _search(T: np.ndarray, h: int, rng: np.random.Generator, start: np.ndarray | None) -> tuple[float, np.ndarray]:
    """FAST-MCD's search: (log det, rows) of the best h-subset found."""
    n, k = T.shape
    # the random starts run on at most MCD_SUBSAMPLE rows, with h scaled to match
    S = T if n <= MCD_SUBSAMPLE else T[np.sort(rng.choice(n, MCD_SUBSAMPLE, replace=False))]
    h_s = h if S is T else max(k + 1, math.ceil(h * MCD_SUBSAMPLE / n))
    found = sorted(_random_starts(S, h_s, MCD_STARTS, rng), key=lambda c: c[0])
    runs = []
    for _, rows in found[:MCD_KEEP]:
        if S is not T:  # the subsample's fit picks the h nearest rows of all the data
            d2 = _mahalanobis2(T, *_mean_cov(S, rows))
            if d2 is None:
                continue
            rows = _nearest(d2, h)
        runs.append(c_steps(T, rows, h, MCD_MAX_STEPS))
    if start is not None:
        runs.append(c_steps(T, np.sort(np.asarray(start)), h, MCD_MAX_STEPS))
    return min(runs, key=lambda c: c[0]) if runs else (-np.inf, np.arange(h))


def mcd(
    T: ArrayLike, h: int, random_state: Any = None, start: np.ndarray | None = None,
) -> MCD:
    r"""The reweighted Minimum Covariance Determinant estimate of `T` (n x k).

    The raw MCD is the mean and covariance of the h rows whose covariance has the
    smallest determinant, searched by FAST-MCD (Rousseeuw and Van Driessen 1999):
    ``MCD_STARTS`` random (k+1)-subsets (enlarged until non-singular), two C-steps
    each (on a random subsample of ``MCD_SUBSAMPLE`` rows if n is larger), then the
    ``MCD_KEEP`` best, and `start` if given, iterated to convergence on all rows. The
    raw covariance (divisor h - 1) is multiplied by :func:`mcd_consistency` (k, h/n);
    rows with squared distance at most :math:`\chi^2_{k,0.975}` are kept, and their
    mean and covariance (divisor m - 1) times :math:`c_k(m/n)`, m the rows kept, is
    the reweighted estimate (robustbase's ``covMcd``; m/n tends to 0.975 on normal
    data). No small-sample correction (robustbase's ``use.correction=FALSE``).

    Returns
    -------
    MCD

    Raises
    ------
    ValueError
        If the h best rows span less than k dimensions (the MCD is singular).
    """
    arr = np.asarray(T, dtype=np.float64)
    n, k = arr.shape
    rng = check_random_state(random_state)
    units = median_shifted(arr)  # covariances in [-1, 1]^2 units, no offset
    U = units.values
    best = (0.0, np.arange(n)) if h >= n else _search(U, h, rng, start)
    m, C = _mean_cov(U, best[1])
    C = C * (h / max(h - 1, 1)) * mcd_consistency(k, h / n)
    d2 = _mahalanobis2(U, m, C)
    if d2 is None or not np.isfinite(best[0]):
        raise ValueError(
            f"the h = {h} rows of smallest covariance determinant span fewer than {k} "
            "dimensions (the MCD is singular): the data have an exact fit; choose fewer "
            "components or a larger alpha"
        )
    w = d2 <= scipy.special.chdtri(k, 0.025)
    m_w, C_w = _mean_cov(U, np.flatnonzero(w))
    kept = int(w.sum())
    C_w *= kept / (kept - 1) * mcd_consistency(k, kept / n)
    twice = 2 * units.exponent
    return MCD(
        units.data_location(m_w).value, rescale(C_w, twice, "the MCD covariance"), best[1],
        units.data_location(m).value, rescale(C, twice, "the raw MCD covariance"), w,
    )


def spatial_median(X: ArrayLike) -> np.ndarray:
    r"""The spatial (L1) median :math:`\arg\min_\mu \sum_i \|x_i - \mu\|`, by
    Weiszfeld's iteration :math:`\mu \leftarrow \sum_i w_i x_i / \sum_i w_i`,
    :math:`w_i = 1/\|x_i - \mu\|`, with Vardi and Zhang's (2000) modification at a data
    point, from the coordinatewise median, until the step is below ``MEDIAN_TOL``
    times the spread. It runs in the units of ``pcalib._linalg.units.median_shifted``,
    so neither the scale nor an offset of `X` costs digits."""
    units = median_shifted(np.asarray(X, dtype=np.float64))
    return units.data_location(spatial_median_in_units(units.values)).value


def spatial_median_in_units(Y: np.ndarray) -> np.ndarray:
    """:func:`spatial_median` of data already in the units of
    ``pcalib._linalg.units.median_shifted`` (values in [-1, 1], near 0), in those units."""
    mu = np.median(Y, axis=0)
    spread = float(np.sqrt(np.mean(np.sum((Y - Y.mean(axis=0)) ** 2, axis=1)))) or 1.0
    for _ in range(MEDIAN_MAX_ITER):
        d = np.linalg.norm(Y - mu, axis=1)
        at = d <= _EPS * spread
        if at.all():  # every row at mu
            break
        w = 1.0 / np.where(at, 1.0, d)
        w[at] = 0.0
        target = w @ Y / w.sum()
        if at.any():  # Vardi-Zhang: mu is a data point with multiplicity eta
            eta = float(at.sum())
            r = float(np.linalg.norm(w @ (Y - mu)))
            gamma = min(1.0, eta / r) if r > 0 else 1.0
            target = (1 - gamma) * target + gamma * mu
        step = float(np.linalg.norm(target - mu))
        mu = target
        if step <= MEDIAN_TOL * spread:
            break
    return mu

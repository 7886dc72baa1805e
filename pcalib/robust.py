r"""Robust PCA (chapter *Outliers and robust PCA*).

Classical PCA diagonalizes the sample covariance, which one far point can move
anywhere (breakdown point 0). The three methods here estimate a center
:math:`\hat\mu`, k orthonormal axes (the rows of ``components_``) and their robust
variances :math:`\hat\lambda_1 \ge \dots \ge \hat\lambda_k` that a minority of
outliers cannot carry away:

* ``"spherical"`` (Locantore et al. 1999): the eigenvectors of the covariance of the
  spatial signs :math:`(x_i - \hat\mu) / \|x_i - \hat\mu\|`, :math:`\hat\mu` the
  spatial median; :math:`\hat\lambda_j` the squared MAD of the projections
  :math:`v_j^\top (x_i - \hat\mu)`, the axes sorted by it.
* ``"grid"`` (Croux, Filzmoser and Oliveira 2007): projection pursuit; each axis
  maximizes a robust scale (MAD or Qn) of the projections, searched from the best of
  the coordinate axes and the rows' directions over a grid of angles in the plane of
  the current axis and each coordinate axis of the orthogonal complement of the axes
  found, the grid refined ``GRID_ITER`` times;
  :math:`\hat\lambda_j` is that scale squared. With p close to or above n, a direction
  can be fitted to the rows themselves and the grid overfits; ROBPCA, which first
  works in the span of the centered rows and then in k dimensions, is the method there.
* ``"robpca"`` (Hubert, Rousseeuw and Vanden Branden 2005): the h rows of least
  Stahel-Donoho outlyingness, their k-dimensional PCA subspace, the rows with small
  orthogonal distance to it, and the reweighted MCD of the scores in that subspace.

Every method reports the two distances of the outlier map, for row i with scores
:math:`t_i = V_k^\top (x_i - \hat\mu)`:

.. math::

    \mathrm{SD}_i = \sqrt{\textstyle\sum_{j=1}^k t_{ij}^2 / \hat\lambda_j}, \qquad
    \mathrm{OD}_i = \| x_i - \hat\mu - V_k t_i \|,

with the cutoffs :math:`\sqrt{\chi^2_{k, 0.975}}` for SD and
:math:`(\hat m + \hat s\, z_{0.975})^{3/2}` for OD, where :math:`\hat m, \hat s` are
the univariate MCD location and scale of :math:`\mathrm{OD}_i^{2/3}` (the
Wilson-Hilferty approximation makes :math:`\mathrm{OD}^{2/3}` roughly normal).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, NamedTuple

import numpy as np
import scipy.stats
from numpy.typing import ArrayLike

from ._signs import axis_signs
from ._sklearn_compat import EstimatorBase
from ._validation import as_data_matrix, check_random_state

__all__ = [
    "MCD",
    "RobustPCA",
    "h_subset_size",
    "mad",
    "mcd",
    "mcd_consistency",
    "outlyingness",
    "qn",
    "spatial_median",
    "univariate_mcd",
]

METHODS = ("robpca", "grid", "spherical")
SCALES = ("mad", "qn")
#: Directions through pairs of rows for the outlyingness of ROBPCA (rrcov's ``maxdir``);
#: all pairs when there are fewer.
N_DIRECTIONS = 250
#: Random (k+1)-subsets that start FAST-MCD's C-steps, and how many of the best after
#: two C-steps are iterated to convergence (Rousseeuw and Van Driessen 1999).
MCD_STARTS = 500
MCD_KEEP = 10
MCD_MAX_STEPS = 100
#: Above this many rows the random starts run on a random subsample of this size (the
#: idea of FAST-MCD's nested subsets); the best fits then start C-steps on all rows.
MCD_SUBSAMPLE = 1500
#: Grid search: angles per plane (pcaPP's ``splitcircle``) and refinements (``maxiter``).
GRID_ANGLES = 25
GRID_ITER = 10
#: The grid search starts from the best of the coordinate axes and the directions of
#: this many rows (evenly spaced): a coordinate axis alone can start in a poor local
#: maximum (pcaPP's PCAgrid stops at (1, 0, 0) on hbk; a row direction scores 6% more).
GRID_START_ROWS = 500
#: How many of the best candidates are refined by the grid (the best result is kept).
GRID_STARTS = 5
#: Weiszfeld iterations for the spatial median stop when the step is below this
#: fraction of the data's spread.
MEDIAN_TOL = 1e-12
MEDIAN_MAX_ITER = 1000
#: The OD cutoff is at least this fraction of the largest distance to the center, so
#: rows that lie in the fitted subspace up to round-off are never flagged by it.
OD_FLOOR = 1e-10
#: Qn needs all n(n-1)/2 pairwise differences: refused above this many rows.
QN_MAX_ROWS = 4000
#: The consistency constant of the MAD at the normal, 1 / Phi^{-1}(3/4).
MAD_CONSTANT = float(1.0 / scipy.stats.norm.ppf(0.75))
#: The consistency constant of Qn at the normal, 1 / (sqrt(2) Phi^{-1}(5/8)).
QN_CONSTANT = float(1.0 / (math.sqrt(2.0) * scipy.stats.norm.ppf(5.0 / 8.0)))
#: Croux and Rousseeuw's (1992) small-sample factors of Qn for n = 2..9.
_QN_SMALL = {2: 0.399, 3: 0.994, 4: 0.512, 5: 0.844, 6: 0.611, 7: 0.857, 8: 0.669, 9: 0.872}
_EPS = float(np.finfo(np.float64).eps)


# -- univariate robust location and scale --------------------------------------------------


def mad(y: np.ndarray, axis: int = 0) -> np.ndarray:
    r"""The MAD scaled for consistency at the normal,
    :math:`1.4826\,\mathrm{med}_i |y_i - \mathrm{med}(y)|` (R's ``mad``), along `axis`."""
    med = np.median(y, axis=axis, keepdims=True)
    return MAD_CONSTANT * np.median(np.abs(y - med), axis=axis)


def qn(y: np.ndarray) -> float:
    r"""Rousseeuw and Croux's (1993) scale :math:`Q_n` of a 1-D sample.

    .. math::

        Q_n = d_n\, c\, \{|y_i - y_j| ; i < j\}_{(\binom{h}{2})}, \qquad
        h = \lfloor n/2 \rfloor + 1,

    the :math:`\binom h2`-th smallest pairwise distance, :math:`c = 1/(\sqrt2\,
    \Phi^{-1}(5/8)) \approx 2.2191` (consistency at the normal) and :math:`d_n` Croux
    and Rousseeuw's small-sample factor (a table for n <= 9, n/(n+1.4) for odd n,
    n/(n+3.8) for even n). Naive: O(n^2) memory, at most ``QN_MAX_ROWS`` rows.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    n = y.size
    if n < 2:
        raise ValueError(f"Qn needs at least 2 values, got {n}")
    if n > QN_MAX_ROWS:
        raise ValueError(
            f"Qn is computed from all pairwise differences here: at most {QN_MAX_ROWS} rows, "
            f"got {n}; use robust_scale='mad'"
        )
    h = n // 2 + 1
    rank = h * (h - 1) // 2
    i, j = np.triu_indices(n, 1)
    d = np.abs(y[i] - y[j])
    value = float(np.partition(d, rank - 1)[rank - 1])
    factor = _QN_SMALL.get(n, n / (n + 1.4) if n % 2 else n / (n + 3.8))
    return factor * QN_CONSTANT * value


def univariate_mcd(Y: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Reweighted univariate MCD location and scale of each column of `Y` (n x m).

    The raw estimate is the mean :math:`\bar y_H` and variance of the h consecutive
    order statistics with the smallest variance (the exact univariate MCD). It is made
    consistent at the normal by the factor that puts the h-th smallest squared
    residual :math:`r_{(h)} = (y - \bar y_H)^2_{(h)} / s^2_H` at the
    :math:`\chi^2_1` quantile of h/n, and reweighted: the mean and standard deviation
    (divisor :math:`\sum w - 1`) of the values with :math:`r_i < \chi^2_{1,0.975}`.
    This is rrcov's ``unimcd`` (ties between windows: the first, not the middle one).

    Parameters
    ----------
    Y : ndarray of shape (n,) or (n, m)
    h : int
        The size of the subset, n/2 <= h <= n.

    Returns
    -------
    (location, scale) : ndarrays of shape (m,) (scalars' arrays for 1-D input)
    """
    Y = np.asarray(Y, dtype=np.float64)
    one = Y.ndim == 1
    Y = Y[:, None] if one else Y
    n = Y.shape[0]
    if h >= n:
        loc, scale = Y.mean(axis=0), Y.std(axis=0, ddof=1)
    else:
        S = np.sort(Y, axis=0)
        med = S[(n - 1) // 2]  # a central value: less cancellation in the window sums
        S0 = S - med
        c1 = np.vstack([np.zeros((1, S.shape[1])), np.cumsum(S0, axis=0)])
        c2 = np.vstack([np.zeros((1, S.shape[1])), np.cumsum(S0**2, axis=0)])
        sums = c1[h:] - c1[:-h]  # window sums, n - h + 1 windows
        ss = (c2[h:] - c2[:-h]) - sums**2 / h
        best = np.argmin(ss, axis=0)
        cols = np.arange(S.shape[1])
        mean0 = sums[best, cols] / h + med
        var0 = np.maximum(ss[best, cols], 0.0) / (h - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            res = (Y - mean0) ** 2 / var0
            factor = np.partition(res, h - 1, axis=0)[h - 1] / scipy.stats.chi2.ppf(h / n, 1)
            w = res / factor < scipy.stats.chi2.ppf(0.975, 1)
        w[:, ~(var0 > 0)] = False
        count = w.sum(axis=0)
        w[:, count < 2] = True  # a degenerate column: plain mean and sd (scale 0 if constant)
        count = w.sum(axis=0)
        loc = (Y * w).sum(axis=0) / count
        scale = np.sqrt(((Y - loc) ** 2 * w).sum(axis=0) / (count - 1))
        scale[~(var0 > 0)] = 0.0
    return (loc[0], scale[0]) if one else (loc, scale)


# -- multivariate: MCD and the spatial median ----------------------------------------------


def h_subset_size(n: int, k: int, alpha: float) -> int:
    r"""The size of the h-subset, robustbase's ``h.alpha.n``:
    :math:`h = \lfloor 2 n_2 - n + 2 (n - n_2)\alpha \rfloor`,
    :math:`n_2 = \lfloor (n + k + 1)/2 \rfloor`; h = n_2 for alpha = 1/2 (the
    largest breakdown point) and n for alpha = 1."""
    n2 = (n + k + 1) // 2
    return math.floor(2 * n2 - n + 2 * (n - n2) * alpha)


def mcd_consistency(k: int, fraction: float) -> float:
    r"""The factor that makes the covariance of the central `fraction` of a normal
    sample consistent:

    .. math:: c_k(\alpha) = \frac{\alpha}{F_{\chi^2_{k+2}}(\chi^2_{k,\alpha})},

    since :math:`E[x x^\top \mid x^\top \Sigma^{-1} x \le q] =
    \frac{F_{k+2}(q)}{F_k(q)}\Sigma` for :math:`x \sim \mathcal N(0, \Sigma)`.
    """
    if fraction >= 1.0:
        return 1.0
    q = scipy.stats.chi2.ppf(fraction, k)
    return float(fraction / scipy.stats.chi2.cdf(q, k + 2))


def _mean_cov(T: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sub = T[rows]
    m = sub.mean(axis=0)
    D = sub - m
    return m, D.T @ D / rows.size  # ML divisor: the one the consistency factor assumes


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


def _c_steps(T: np.ndarray, rows: np.ndarray, h: int, steps: int) -> tuple[float, np.ndarray]:
    """C-steps from `rows`: each keeps the h rows nearest (Mahalanobis) to the current
    fit, which never increases the determinant. Returns (log det, rows)."""
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


def _random_start(T: np.ndarray, h: int, rng: np.random.Generator) -> tuple[float, np.ndarray]:
    """A random (k+1)-subset, enlarged until its covariance is non-singular, then the h
    nearest rows and two C-steps. Returns (log det, rows); log det -inf if singular."""
    n, k = T.shape
    scale = float(np.abs(T).max()) or 1.0
    order = rng.permutation(n)
    size = k + 1
    while size < n and _log_det(_mean_cov(T, order[:size])[1]) < k * np.log(1e-12 * scale**2 + 1e-300):
        size += 1
    d2 = _mahalanobis2(T, *_mean_cov(T, order[:size]))
    if d2 is None:
        return np.inf, order[:h]
    return _c_steps(T, _nearest(d2, h), h, 2)


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


def mcd(
    T: ArrayLike, h: int, random_state: Any = None, start: np.ndarray | None = None,
) -> MCD:
    r"""The reweighted Minimum Covariance Determinant estimate of `T` (n x k).

    The raw MCD is the mean and covariance of the h rows whose covariance has the
    smallest determinant, searched by FAST-MCD (Rousseeuw and Van Driessen 1999):
    ``MCD_STARTS`` random (k+1)-subsets (enlarged until non-singular), two C-steps
    each (on a random subsample of ``MCD_SUBSAMPLE`` rows if n is larger), then the
    ``MCD_KEEP`` best, and `start` if given, iterated to convergence on all rows. The
    raw covariance is multiplied by :func:`mcd_consistency` (k, h/n); rows with
    squared distance at most :math:`\chi^2_{k,0.975}` are kept, and their mean and
    covariance (divisor m - 1) times :math:`c_k(m/n)`, m the rows kept, is the
    reweighted estimate
    (robustbase's convention; m/n tends to 0.975 on normal data). No small-sample
    correction (robustbase's ``use.correction=FALSE``).

    Returns
    -------
    MCD

    Raises
    ------
    ValueError
        If the h best rows span less than k dimensions (the MCD is singular).
    """
    T = np.asarray(T, dtype=np.float64)
    n, k = T.shape
    rng = check_random_state(random_state)
    if h >= n:
        best = (0.0, np.arange(n))
    else:
        # the random starts run on at most MCD_SUBSAMPLE rows, with h scaled to match
        S = T if n <= MCD_SUBSAMPLE else T[np.sort(rng.choice(n, MCD_SUBSAMPLE, replace=False))]
        h_s = h if S is T else max(k + 1, math.ceil(h * MCD_SUBSAMPLE / n))
        found = sorted((_random_start(S, h_s, rng) for _ in range(MCD_STARTS)), key=lambda c: c[0])
        runs = []
        for _, rows in found[:MCD_KEEP]:
            if S is not T:  # the subsample's fit picks the h nearest rows of all the data
                d2 = _mahalanobis2(T, *_mean_cov(S, rows))
                if d2 is None:
                    continue
                rows = _nearest(d2, h)
            runs.append(_c_steps(T, rows, h, MCD_MAX_STEPS))
        if start is not None:
            runs.append(_c_steps(T, np.sort(np.asarray(start)), h, MCD_MAX_STEPS))
        best = min(runs, key=lambda c: c[0]) if runs else (-np.inf, np.arange(h))
    m, C = _mean_cov(T, best[1])
    C = C * mcd_consistency(k, h / n)
    d2 = _mahalanobis2(T, m, C)
    if d2 is None or not np.isfinite(best[0]):
        raise ValueError(
            f"the h = {h} rows of smallest covariance determinant span fewer than {k} "
            "dimensions (the MCD is singular): the data have an exact fit; choose fewer "
            "components or a larger alpha"
        )
    w = d2 <= scipy.stats.chi2.ppf(0.975, k)
    m_w, C_w = _mean_cov(T, np.flatnonzero(w))
    kept = int(w.sum())
    C_w *= kept / (kept - 1) * mcd_consistency(k, kept / n)
    return MCD(m_w, C_w, best[1], m, C, w)


def spatial_median(X: np.ndarray) -> np.ndarray:
    r"""The spatial (L1) median :math:`\arg\min_\mu \sum_i \|x_i - \mu\|`, by
    Weiszfeld's iteration :math:`\mu \leftarrow \sum_i w_i x_i / \sum_i w_i`,
    :math:`w_i = 1/\|x_i - \mu\|`, with Vardi and Zhang's (2000) modification at a data
    point, from the coordinatewise median, until the step is below ``MEDIAN_TOL``
    times the spread."""
    X = np.asarray(X, dtype=np.float64)
    mu = np.median(X, axis=0)
    spread = float(np.sqrt(np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1)))) or 1.0
    for _ in range(MEDIAN_MAX_ITER):
        d = np.linalg.norm(X - mu, axis=1)
        at = d <= _EPS * spread
        w = 1.0 / np.where(at, 1.0, d)
        w[at] = 0.0
        target = w @ X / w.sum()
        if at.any():  # Vardi-Zhang: mu is a data point with multiplicity eta
            eta = float(at.sum())
            r = float(np.linalg.norm(w @ (X - mu)))
            gamma = min(1.0, eta / r) if r > 0 else 1.0
            target = (1 - gamma) * target + gamma * mu
        step = float(np.linalg.norm(target - mu))
        mu = target
        if step <= MEDIAN_TOL * spread:
            break
    return mu


# -- the estimator ------------------------------------------------------------------------


class RobustPCA(EstimatorBase):
    r"""Robust PCA: ROBPCA, projection pursuit over a grid, or spherical PCA.

    See the module docstring for the three methods and the distances. After a fit,
    the outlier map's cutoffs flag the rows with
    :math:`\mathrm{SD}_i > \sqrt{\chi^2_{k,0.975}}` or
    :math:`\mathrm{OD}_i > (\hat m + \hat s z_{0.975})^{3/2}`.

    Signs: each axis has its entry of largest absolute value positive.

    Parameters
    ----------
    n_components : int
        k, with 1 <= k < p (with k = p there is no orthogonal distance) and k <= n - 2.
    method : {"robpca", "grid", "spherical"}, default "robpca"
    alpha : float in [0.5, 1], default 0.75
        Sets the subset size :math:`h` (:func:`pcalib.robust.h_subset_size`), the rows ROBPCA and
        the MCD trust, and the subset of the univariate MCD of the OD cutoff (every
        method). 0.5: the largest breakdown point; 1: no robustness.
    robust_scale : {"mad", "qn"}, default "mad"
        The scale the grid method maximizes (pcaPP's ``method``).
    random_state : None, int or numpy.random.Generator
        Draws ROBPCA's directions (when there are more than ``N_DIRECTIONS`` pairs)
        and the MCD's starting subsets. The other methods draw nothing.

    Attributes
    ----------
    center_ : ndarray of shape (p,)
    components_ : ndarray of shape (k, p)
        Orthonormal axes, one per row.
    explained_variance_ : ndarray of shape (k,)
        The robust eigenvalues :math:`\hat\lambda_j`.
    score_distances_, orthogonal_distances_ : ndarrays of shape (n,)
        SD and OD of the training rows.
    cutoff_sd_, cutoff_od_ : float
        :math:`\sqrt{\chi^2_{k,0.975}}` and :math:`(\hat m + \hat s z_{0.975})^{3/2}`
        (at least ``OD_FLOOR`` times the largest distance to the center).
    outliers_ : ndarray of bool, shape (n,)
        True for a row beyond either cutoff.
    h_ : int
        The subset size.
    n_components_, n_samples_, n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        When fitted on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 3)) * [3.0, 1.0, 0.3]
    >>> X[:5] = [0.0, 0.0, 30.0]  # five far points off the plane
    >>> model = pcalib.RobustPCA(2, random_state=0).fit(X)
    >>> bool(model.outliers_[:5].all()), bool(abs(model.components_[0, 0]) > 0.99)
    (True, True)
    """

    _FITTED_BY = "components_"  # set last by fit

    def __init__(
        self,
        n_components: int,
        *,
        method: str = "robpca",
        alpha: float = 0.75,
        robust_scale: str = "mad",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.method = method
        self.alpha = alpha
        self.robust_scale = robust_scale
        self.random_state = random_state

    def _check_params(self, n: int, p: int) -> tuple[int, int]:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.robust_scale not in SCALES:
            raise ValueError(f"robust_scale must be one of {SCALES}, got {self.robust_scale!r}")
        alpha = self.alpha
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0.5 <= alpha <= 1:
            raise ValueError(f"alpha must be a number in [0.5, 1], got {alpha!r}")
        check_random_state(self.random_state, draw=False)
        k = self.n_components
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError(f"n_components must be an integer, got {k!r}")
        k = int(k)
        if not 1 <= k < p:
            raise ValueError(
                f"n_components must satisfy 1 <= n_components < n_features = {p} (robust PCA "
                f"measures the orthogonal distance to a k-dimensional subspace), got {k}"
            )
        h = h_subset_size(n, k, float(alpha))
        if k > n - 2 or h < k + 1:
            raise ValueError(
                f"X has {n} rows, too few for n_components={k} with alpha={alpha}: the h-subset "
                f"(h = {h} rows) must hold at least n_components + 1 = {k + 1} rows and n at "
                f"least n_components + 2 = {k + 2}"
            )
        return k, h

    # -- fit --------------------------------------------------------------------------------

    def fit(self, X: ArrayLike, y: object = None) -> RobustPCA:
        """Fit on `X` (n x p); `X` is not modified. `y` is ignored. Returns self."""
        X = self._remember_input(X)
        arr = np.ascontiguousarray(as_data_matrix(X, "X"), dtype=np.float64)
        n, p = arr.shape
        k, h = self._check_params(n, p)
        rng = check_random_state(self.random_state)
        if self.method == "robpca":
            center, axes, variances = self._robpca(arr, k, h, rng)
        elif self.method == "spherical":
            center, axes, variances = self._spherical(arr, k)
        else:
            center, axes, variances = self._grid(arr, k)
        axes = axes * axis_signs(axes)[:, None]
        if not np.all(variances > 0):
            raise ValueError(
                f"the robust variance along axis {int(np.argmin(variances > 0)) + 1} is 0 (more "
                "than half of the rows project onto one value): score distances are undefined; "
                "choose fewer components"
            )
        self.center_, self.components_, self.explained_variance_ = center, axes, variances
        self.h_, self.n_components_, self.n_samples_ = h, k, n
        self._distances(arr, h)
        return self

    def _robpca(
        self, arr: np.ndarray, k: int, h: int, rng: np.random.Generator,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        mean = arr.mean(axis=0)
        _, s, Vt = np.linalg.svd(arr - mean, full_matrices=False)
        r = int(np.sum(s > max(arr.shape) * _EPS * s[0])) if s[0] > 0 else 0
        if r <= k:
            raise ValueError(
                f"X has rank {r} after centering: n_components={k} must be below it for ROBPCA"
            )
        Z = (arr - mean) @ Vt[:r].T  # the data in the r-dimensional space they span
        # Stage 1: Stahel-Donoho outlyingness over directions through pairs of rows
        H0 = np.sort(np.argsort(outlyingness(Z, h, rng), kind="stable")[:h])
        m0 = Z[H0].mean(axis=0)
        _, _, W0 = np.linalg.svd(Z[H0] - m0, full_matrices=False)
        P0 = W0[:k].T
        # Stage 2: rows close to the k-dimensional subspace of H0 (OD below its cutoff)
        R = Z - m0
        od = np.linalg.norm(R - (R @ P0) @ P0.T, axis=1)
        H1 = od <= _od_cutoff(od, h)
        m1 = Z[H1].mean(axis=0)
        _, s1, W1 = np.linalg.svd(Z[H1] - m1, full_matrices=False)
        P1 = W1[:k].T
        T = (Z - m1) @ P1
        # Stage 3: reweighted MCD of the scores; the h rows nearest under H1's own
        # covariance start one more C-step run (rrcov's projectMCD)
        ev = s1[:k] ** 2 / (int(H1.sum()) - 1)
        start = np.argsort(np.sum(T**2 / ev, axis=1), kind="stable")[:h]
        fit = mcd(T, h, rng, start=start)
        c = fit.location
        lam, A = np.linalg.eigh(fit.covariance)
        lam, A = lam[::-1], A[:, ::-1]
        center = mean + Vt[:r].T @ (m1 + P1 @ c)
        axes = (Vt[:r].T @ P1 @ A).T
        return center, axes, lam

    def _spherical(self, arr: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        center = spatial_median(arr)
        D = arr - center
        norms = np.linalg.norm(D, axis=1)
        keep = norms > _EPS * (float(norms.max()) or 1.0)
        U = D[keep] / norms[keep, None]
        _, _, Vt = np.linalg.svd(U - U.mean(axis=0), full_matrices=False)
        variances = mad(D @ Vt.T) ** 2
        order = np.argsort(-variances, kind="stable")[:k]
        return center, Vt[order], variances[order]

    def _scale(self, Y: np.ndarray) -> np.ndarray:
        """The robust scale of each column of `Y`."""
        if self.robust_scale == "mad":
            return mad(Y)
        return np.array([qn(Y[:, j]) for j in range(Y.shape[1])])

    def _grid(self, arr: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        center = spatial_median(arr)
        D = arr - center
        p = arr.shape[1]
        B = np.eye(p)  # orthonormal basis of the complement of the axes found
        axes, variances = [], []
        for _ in range(k):
            a, value = self._grid_axis(D @ B)
            axes.append(B @ a)
            variances.append(value**2)
            # the complement of a within span(B), an orthonormal basis (Householder QR)
            Q = np.linalg.qr(np.column_stack([a, np.eye(B.shape[1])]))[0]
            B = B @ Q[:, 1:]
        return center, np.array(axes), np.array(variances)

    def _grid_axis(self, Y: np.ndarray) -> tuple[np.ndarray, float]:
        r"""The unit vector a maximizing the robust scale of ``Y @ a``, by the grid
        algorithm: from each of the ``GRID_STARTS`` best of the coordinate axes and the
        directions of up to ``GRID_START_ROWS`` rows (Croux and Ruiz-Gazen's
        candidates), rotate a toward
        each coordinate axis e_j by the best of ``GRID_ANGLES`` angles in
        :math:`[-\pi/2^{i+1}, \pi/2^{i+1})` at pass i."""
        q = Y.shape[1]
        if q == 1:
            return np.ones(1), float(self._scale(Y)[0])
        # candidates: the coordinate axes and the directions of (evenly spaced) rows
        rows = Y[np.unique(np.linspace(0, Y.shape[0] - 1, GRID_START_ROWS).astype(int))]
        norms = np.linalg.norm(rows, axis=1)
        rows = rows[norms > 0] / norms[norms > 0, None]
        starts = np.vstack([np.eye(q), rows])
        scales = self._scale(Y @ starts.T)
        refined = [
            self._grid_refine(Y, starts[i].copy(), float(scales[i]))
            for i in np.argsort(-scales, kind="stable")[:GRID_STARTS]
        ]
        return max(refined, key=lambda r: r[1])

    def _grid_refine(self, Y: np.ndarray, a: np.ndarray, best: float) -> tuple[np.ndarray, float]:
        q = Y.shape[1]
        for it in range(GRID_ITER):
            half = np.pi / 2 ** (it + 1)
            phi = np.linspace(-half, half, GRID_ANGLES, endpoint=False)
            phi = phi[phi != 0]
            for j in range(q):
                ya, yj = Y @ a, Y[:, j]
                if abs(a[j]) > 1 - 1e-12:  # a is e_j up to sign: no plane to search
                    continue
                norm = np.sqrt(1 + 2 * np.cos(phi) * np.sin(phi) * a[j])  # |cos a + sin e_j|
                cand = (np.outer(ya, np.cos(phi)) + np.outer(yj, np.sin(phi))) / norm
                values = self._scale(cand)
                i = int(np.argmax(values))
                if values[i] > best:
                    best = float(values[i])
                    a = np.cos(phi[i]) * a
                    a[j] += np.sin(phi[i])
                    a /= np.linalg.norm(a)
        return a, best

    def _sd_od(self, arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        R = arr - self.center_
        T = R @ self.components_.T
        sd = np.sqrt(np.sum(T**2 / self.explained_variance_, axis=1))
        return sd, np.linalg.norm(R - T @ self.components_, axis=1)

    def _distances(self, arr: np.ndarray, h: int) -> None:
        self.score_distances_, self.orthogonal_distances_ = self._sd_od(arr)
        self.cutoff_sd_ = float(np.sqrt(scipy.stats.chi2.ppf(0.975, self.components_.shape[0])))
        # floor at round-off: data lying in the subspace have ODs of order eps, not outliers
        floor = OD_FLOOR * float(np.linalg.norm(arr - self.center_, axis=1).max())
        self.cutoff_od_ = max(_od_cutoff(self.orthogonal_distances_, h), floor)
        self.outliers_ = (self.score_distances_ > self.cutoff_sd_) | (
            self.orthogonal_distances_ > self.cutoff_od_
        )

    # -- new data -----------------------------------------------------------------------------

    def transform(self, X: ArrayLike) -> Any:
        r"""Robust scores :math:`t = V_k^\top (x - \hat\mu)` of the rows of `X`."""
        self._require_fitted()
        arr = as_data_matrix(self._check_input(X), "X").astype(np.float64, copy=False)
        return self._wrap_output((arr - self.center_) @ self.components_.T, X)

    def distances(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        r"""Score and orthogonal distances (SD, OD) of the rows of `X` to the fitted
        center and subspace (the module docstring's formulas), for the outlier map."""
        self._require_fitted()
        arr = as_data_matrix(self._check_input(X), "X").astype(np.float64, copy=False)
        return self._sd_od(arr)

    def inverse_transform(self, T: ArrayLike) -> np.ndarray:
        r"""The points :math:`\hat\mu + V_k t` of the robust subspace with scores `T`."""
        self._require_fitted()
        scores = as_data_matrix(T, "T").astype(np.float64, copy=False)
        if scores.shape[1] != self.components_.shape[0]:
            raise ValueError(
                f"T has {scores.shape[1]} columns, expected n_components = {self.components_.shape[0]}"
            )
        return self.center_ + scores @ self.components_


def _od_cutoff(od: np.ndarray, h: int) -> float:
    r"""The cutoff :math:`(\hat m + \hat s z_{0.975})^{3/2}` of the orthogonal
    distances, :math:`\hat m, \hat s` the univariate MCD of :math:`\mathrm{OD}^{2/3}`."""
    m, s = univariate_mcd(od ** (2.0 / 3.0), h)
    return float(max(m + s * scipy.stats.norm.ppf(0.975), 0.0) ** 1.5)


def outlyingness(Z: np.ndarray, h: int, random_state: Any = None) -> np.ndarray:
    r"""Stahel-Donoho outlyingness over directions through pairs of rows:

    .. math::

        \mathrm{outl}(x_i) = \max_{v} \frac{|v^\top x_i - t_{\mathrm{MCD}}(v^\top x)|}
        {s_{\mathrm{MCD}}(v^\top x)},

    v over the unit directions :math:`x_a - x_b` of all pairs if there are at most
    ``N_DIRECTIONS`` of them, otherwise of ``N_DIRECTIONS`` random pairs; t and s the
    univariate MCD (:func:`univariate_mcd`) with subset size h. Directions along
    which the scale is 0 are skipped.
    """
    Z = np.asarray(Z, dtype=np.float64)
    n = Z.shape[0]
    if n * (n - 1) // 2 <= N_DIRECTIONS:
        a, b = np.triu_indices(n, 1)
    else:
        rng = check_random_state(random_state)
        a = rng.integers(0, n, N_DIRECTIONS)
        b = (a + rng.integers(1, n, N_DIRECTIONS)) % n  # b != a
    B = Z[a] - Z[b]
    norms = np.linalg.norm(B, axis=1)
    keep = norms > 1e-12 * (float(norms.max()) or 1.0)
    A = B[keep] / norms[keep, None]
    Y = Z @ A.T
    t, s = univariate_mcd(Y, h)
    ok = s > 1e-12 * (float(np.abs(Y).max()) or 1.0)
    if not ok.any():
        raise ValueError(
            f"at least h = {h} rows project onto one value along every direction tried: "
            "the data hold an exact fit; choose a larger alpha or remove duplicated rows"
        )
    return np.max(np.abs(Y[:, ok] - t[ok]) / s[ok], axis=1)

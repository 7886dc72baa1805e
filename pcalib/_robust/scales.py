r"""Univariate robust location and scale (chapter *Outliers and robust PCA*).

* :func:`mad`: the median absolute deviation, consistent at the normal;
* :func:`qn`: Rousseeuw and Croux's (1993) :math:`Q_n`, by Croux and Rousseeuw's
  (1992) :math:`O(n \log n)` selection among the pairwise differences;
* :func:`univariate_mcd`: the univariate MCD (rrcov's ``unimcd``), optionally made
  consistent at the normal after its reweighting;
* :func:`od_cutoff`: the cutoff of the orthogonal distances of the outlier map,
  :math:`(\hat m + \hat s z_{0.975})^{3/2}` with :math:`(\hat m, \hat s)` a robust
  location and scale of :math:`\mathrm{OD}^{2/3}`.

Each works on values of any size: medians and order statistics need no change of
units, and the univariate MCD, which squares, works on each sample minus its median
value, in units of a power of two.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

from .._linalg.units import rescale
from .mcd import mcd_consistency

__all__ = [
    "MAD_CONSTANT", "OD_RULES", "QN_CONSTANT", "REWEIGHT_CONSISTENCY", "kth_pairwise_difference", "mad", "mad_of_rows", "median",
    "median_of_rows", "od_cutoff", "qn",
    "univariate_mcd",
]

#: The consistency constant of the MAD at the normal, 1 / Phi^{-1}(3/4).
MAD_CONSTANT = float(1.0 / scipy.special.ndtri(0.75))
#: The consistency constant of Qn at the normal, 1 / (sqrt(2) Phi^{-1}(5/8)).
QN_CONSTANT = float(1.0 / (math.sqrt(2.0) * scipy.special.ndtri(5.0 / 8.0)))
#: Croux and Rousseeuw's (1992) small-sample factors of Qn for n = 2..9 (pcaPP's and
#: robustbase's ``qn`` before its 2023 factors).
QN_SMALL_SAMPLE = {2: 0.399, 3: 0.994, 4: 0.512, 5: 0.844, 6: 0.611, 7: 0.857, 8: 0.669, 9: 0.872}
#: Qn of samples with at most this many pairwise differences in all (n(n-1)/2 times the
#: number of samples) forms them all: faster than the selection for small n, the same
#: order statistic.
QN_ALL_PAIRS = 200_000
#: The rules for the cutoff of the orthogonal distances (:func:`od_cutoff`), rrcov's names.
OD_RULES = ("umcd", "medmad")
#: The consistency factor c_1(0.975) of the reweighted univariate MCD: its reweighting
#: keeps the values within sqrt(chi2_{1,0.975}) raw scales, 97.5% of a clean normal sample.
REWEIGHT_CONSISTENCY = mcd_consistency(1, 0.975)


def median_of_rows(rows: np.ndarray) -> np.ndarray:
    """The median of each row of a 2-D float64 array, which is reordered in place.

    The same numbers as ``np.median(rows, axis=1)`` in about a third of the time for
    even lengths: one selection of the upper middle value, whose lower neighbour is
    the largest value below it (NumPy selects both at once, which costs about 4x).
    """
    half = rows.shape[1] // 2
    rows.partition(half, axis=1)
    upper = rows[:, half]
    if rows.shape[1] % 2:
        return upper.copy()
    return (rows[:, :half].max(axis=1) + upper) / 2


def mad_of_rows(rows: np.ndarray) -> np.ndarray:
    """:func:`mad` of each row of a 2-D float64 array, which is overwritten."""
    center = median_of_rows(rows)
    rows -= center[:, None]
    return MAD_CONSTANT * median_of_rows(np.abs(rows, out=rows))


def _as_rows(y: np.ndarray, axis: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """A float64 copy of `y` with `axis` last, as a 2-D array, and the shape of the result."""
    rows = np.moveaxis(np.asarray(y, dtype=np.float64), axis, -1)
    return np.array(rows.reshape(-1, rows.shape[-1])), rows.shape[:-1]


def median(y: np.ndarray, axis: int = 0) -> np.ndarray:
    """``np.median(y, axis)`` of a finite array (:func:`median_of_rows`); `y` is not modified."""
    rows, shape = _as_rows(y, axis)
    return median_of_rows(rows).reshape(shape)


def mad(y: np.ndarray, axis: int = 0) -> np.ndarray:
    r"""The MAD scaled for consistency at the normal,
    :math:`1.4826\,\mathrm{med}_i |y_i - \mathrm{med}(y)|` (R's ``mad``), along `axis`;
    `y` is not modified."""
    rows, shape = _as_rows(y, axis)
    return mad_of_rows(rows).reshape(shape)


def kth_pairwise_difference(y: np.ndarray, k: int) -> float:
    r"""The k-th smallest (1-based) of the differences :math:`y_j - y_i`, i < j, of a
    sorted 1-D array, without forming the :math:`n(n-1)/2` differences.

    Croux and Rousseeuw's (1992) algorithm: row i of the triangle holds
    :math:`y_j - y_i` for j > i, increasing in j. Each row keeps a range of
    candidate columns; the weighted median (weights: the ranges' lengths) of the
    rows' middle candidates is a trial value t, and counting the differences below
    and up to t (a binary search per row) either identifies t as the answer or
    drops the candidates on one side of t in every row, at least a quarter of them.
    After :math:`O(\log n)` rounds of :math:`O(n \log n)` at most n candidates are
    left, and the answer is selected among them.
    """
    n = y.size
    rows = np.arange(n)
    left, right = rows + 1, np.full(n, n - 1)  # candidate columns: left..right
    while True:
        width = np.maximum(right - left + 1, 0)
        total = int(width.sum())
        if total <= n:
            break
        live = np.flatnonzero(width)
        middle = y[(left[live] + right[live]) // 2] - y[live]
        order = np.argsort(middle, kind="stable")
        weight = np.cumsum(width[live][order])
        trial = float(middle[order[np.searchsorted(weight, total / 2)]])
        bound = y + trial
        below = np.maximum(np.searchsorted(y, bound, "left") - rows - 1, 0)  # y_j - y_i < t
        upto = np.maximum(np.searchsorted(y, bound, "right") - rows - 1, 0)  # y_j - y_i <= t
        if k <= int(below.sum()):
            right = np.minimum(right, rows + below)
        elif k > int(upto.sum()):
            left = np.maximum(left, rows + 1 + upto)
        else:
            return trial
    dropped = int((left - rows - 1).sum())  # differences known to lie below every candidate
    starts = np.cumsum(width) - width
    columns = np.arange(total) - np.repeat(starts - left, width)
    candidates = y[columns] - y[np.repeat(rows, width)]
    return float(np.partition(candidates, k - dropped - 1)[k - dropped - 1])


def qn(y: np.ndarray, axis: int | None = None) -> float | np.ndarray:
    r"""Rousseeuw and Croux's (1993) scale :math:`Q_n`, of a sample (`axis` None: all of
    `y`) or of each column (``axis=0``) or row (``axis=1``) of a 2-D `y`.

    .. math::

        Q_n = d_n\, c\, \{|y_i - y_j| ; i < j\}_{(\binom{h}{2})}, \qquad
        h = \lfloor n/2 \rfloor + 1,

    the :math:`\binom h2`-th smallest pairwise distance, :math:`c = 1/(\sqrt2\,
    \Phi^{-1}(5/8)) \approx 2.2191` (consistency at the normal) and :math:`d_n` Croux
    and Rousseeuw's small-sample factor (a table for n <= 9, n/(n+1.4) for odd n,
    n/(n+3.8) for even n; pcaPP's ``qn``). The order statistic is found in
    :math:`O(n \log n)` time and :math:`O(n)` memory
    (``kth_pairwise_difference``), or among all the differences when there are
    at most ``QN_ALL_PAIRS`` of them; it equals R's ``robustbase::Qn(y, constant=1,
    finite.corr=FALSE)`` (which may round it to float32).
    """
    arr = np.asarray(y, dtype=np.float64)
    if axis is None:
        arr = arr.ravel()[:, None]
    elif arr.ndim != 2 or axis not in (0, 1):
        raise ValueError(f"qn: axis must be None, 0 or 1 for a 2-D array, got axis={axis!r}, shape {arr.shape}")
    elif axis == 1:
        arr = arr.T
    n = arr.shape[0]
    if n < 2:
        raise ValueError(f"Qn needs at least 2 values, got {n}")
    h = n // 2 + 1
    rank = h * (h - 1) // 2
    if n * (n - 1) // 2 * arr.shape[1] <= QN_ALL_PAIRS:  # small samples: every difference at once
        i, j = np.triu_indices(n, 1)
        values = np.partition(np.abs(arr[i] - arr[j]), rank - 1, axis=0)[rank - 1]
    else:
        ordered = np.sort(arr, axis=0)
        values = np.array([kth_pairwise_difference(np.ascontiguousarray(col), rank) for col in ordered.T])
    factor = QN_SMALL_SAMPLE.get(n, n / (n + 1.4) if n % 2 else n / (n + 3.8))
    scale = factor * QN_CONSTANT * values
    return float(scale[0]) if axis is None else scale


def univariate_mcd(Y: np.ndarray, h: int, *, consistent: bool = False) -> tuple[np.ndarray, np.ndarray]:
    r"""Reweighted univariate MCD location and scale of each column of `Y` (n x m).

    The raw estimate is the mean :math:`\bar y_H` and variance (divisor h - 1) of the
    h consecutive order statistics with the smallest variance (the exact univariate
    MCD). It is made consistent at the normal by the factor that puts the h-th
    smallest squared residual :math:`r_{(h)} = (y - \bar y_H)^2_{(h)} / s^2_H` at the
    :math:`\chi^2_1` quantile of h/n, and reweighted: the mean and standard deviation
    (divisor :math:`\sum w - 1`) of the m values with :math:`r_i < \chi^2_{1,0.975}`.
    This is rrcov's ``unimcd`` (ties between windows: the first, not the middle one).
    Its scale is *not* consistent: the values kept are those of a normal sample
    truncated at :math:`\pm 2.24\sigma`, whose standard deviation is about
    :math:`0.923\sigma`. With ``consistent=True`` the reweighted variance is
    multiplied by :math:`c_1(0.975)` (:func:`pcalib.robust.mcd_consistency`), the
    factor of a normal sample truncated where the rule truncates it, which removes
    that bias. The factor is fixed: robustbase's convention :math:`c_1(m/n)` would
    count the values the rule excludes (outliers, if any) as the normal tails it cut
    and inflate the scale under contamination (by about 22% at 10% outliers far out).

    If the best window has zero variance (at least h equal values: an exact fit), the
    location is that window's value and the scale is 0, so every other value lies
    infinitely far out (rrcov's ``unimcd`` returns NA here). With h = n the plain
    mean and standard deviation are returned.

    Parameters
    ----------
    Y : ndarray of shape (n,) or (n, m)
    h : int
        The size of the subset, n/2 <= h <= n.
    consistent : bool, default False
        Multiply the reweighted variance by :math:`c_1(0.975)`.

    Returns
    -------
    (location, scale) : ndarrays of shape (m,) (scalars' arrays for 1-D input)
    """
    arr = np.asarray(Y, dtype=np.float64)
    one = arr.ndim == 1
    S = np.sort(arr[None, :] if one else arr.T, axis=1)  # one sorted sample per row
    n = S.shape[1]
    # squares below: each sample minus its median value, in units of a power of two
    shift = S[:, (n - 1) // 2].copy()
    exponent = np.frexp(S[:, -1] / 2 - S[:, 0] / 2)[1] + 1
    S = np.ldexp(S - shift[:, None], -exponent[:, None])
    if h >= n:
        loc, scale = S.mean(axis=1), S.std(axis=1, ddof=1)
    else:
        zero = np.zeros((S.shape[0], 1))
        c1 = np.hstack([zero, np.cumsum(S, axis=1)])
        c2 = np.hstack([zero, np.cumsum(S**2, axis=1)])
        sums = c1[:, h:] - c1[:, :-h]  # window sums, n - h + 1 windows
        ss = (c2[:, h:] - c2[:, :-h]) - sums**2 / h
        best = np.argmin(ss, axis=1)
        rows = np.arange(S.shape[0])
        mean0 = sums[rows, best] / h
        var0 = np.maximum(ss[rows, best], 0.0) / (h - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            res = (S - mean0[:, None]) ** 2 / var0[:, None]
            quantile_h, quantile_975 = scipy.special.chdtri(1, [1.0 - h / n, 0.025])
            factor = np.partition(res, h - 1, axis=1)[:, h - 1] / quantile_h
            w = res / factor[:, None] < quantile_975
        w[~(var0 > 0)] = False
        count = w.sum(axis=1)
        w[count < 2] = True  # a degenerate sample: plain mean and sd (scale 0 if constant)
        count = w.sum(axis=1)
        loc = (S * w).sum(axis=1) / count
        variance = ((S - loc[:, None]) ** 2 * w).sum(axis=1) / (count - 1)
        if consistent:
            variance *= REWEIGHT_CONSISTENCY
        scale = np.sqrt(variance)
        # an exact fit: the best h-window is constant; the MCD is its mean, with scale 0
        # (not the plain mean of all values, which outliers would pull away from it)
        exact = ~(var0 > 0)
        loc[exact] = mean0[exact]
        scale[exact] = 0.0
    location = shift + np.ldexp(loc, exponent)
    scale = rescale(scale, exponent, "the univariate MCD scale")
    return (location[0], scale[0]) if one else (location, scale)


def od_cutoff(od: np.ndarray, h: int, rule: str = "umcd", *, consistent: bool = True) -> float:
    r"""The cutoff :math:`(\hat m + \hat s z_{0.975})^{3/2}` of the orthogonal distances.

    By Wilson and Hilferty, :math:`\mathrm{OD}^{2/3}` is roughly normal when
    :math:`\mathrm{OD}^2` is a scaled chi-square; :math:`(\hat m, \hat s)` is its
    location and scale: with ``rule="umcd"`` the univariate MCD with subset size h
    (:func:`univariate_mcd`; `consistent`: made consistent at the normal, else
    rrcov's ``unimcd``, whose scale is about 0.923 sigma and flags about 3.5% of
    clean rows at the nominal 2.5%), as Hubert, Rousseeuw and Vanden Branden (2005)
    propose; with ``rule="medmad"`` the median and the MAD, as rrcov's ``PcaHubert``
    flags (``.crit.od(method="medmad")``; R's ``mad`` rounds the constant to 1.4826).
    """
    values = od ** (2.0 / 3.0)
    if rule == "medmad":
        location, scale = median(values), mad(values)
    else:
        location, scale = univariate_mcd(values, h, consistent=consistent)
    return float(max(float(location) + float(scale) * scipy.special.ndtri(0.975), 0.0) ** 1.5)

r"""Bootstrap intervals for eigenvalues and principal axes (chapter *How many
components, and how sure?*).

A bootstrap resample draws n rows of X with replacement and repeats the PCA.
Its eigenvalues are compared in order. Its axes are not comparable as they come:
each is defined up to sign, and axes with close eigenvalues can change places.
:func:`align_axes` matches each axis of the data to one axis of the resample
(the assignment of largest total :math:`|\cos|`) and flips its sign so that
:math:`\mathbf v_j^\top \mathbf v_j^* \ge 0`; only then are percentiles of the
entries meaningful.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import linear_sum_assignment

from ._units import center_array, rescale
from ._validation import check_flag, check_random_state, output_dtype, validated
from .estimator import PCA

__all__ = ["BootstrapResult", "align_axes", "bootstrap_pca"]

#: Resamples are processed in stacks of at most this many entries (8 MB of float64; the
#: stack's Gram matrices, axes and aligned axes are a few times that): measured at
#: 300 x 300, B = 300, peak 260 MB with 2**20 (216 MB of them the kept samples), 696 MB with
#: 2**22 and three copies of the samples; the same results, 10.6 s against 12.1 s.
_STACK_ENTRIES = 2**20


def align_axes(axes: ArrayLike, reference: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Match each reference axis to one of `axes` and orient it the same way.

    With :math:`R` the k x p reference axes and :math:`A` the k' x p candidate
    axes (k' >= k, orthonormal rows), the permutation :math:`\pi` maximizes

    .. math:: \sum_{j=1}^{k} \big|\mathbf r_j^\top \mathbf a_{\pi(j)}\big|

    over injective maps (the linear assignment problem, solved by
    ``scipy.optimize.linear_sum_assignment``), and
    :math:`s_j = \operatorname{sign}(\mathbf r_j^\top \mathbf a_{\pi(j)})`
    (+1 for 0). Row j of the result is :math:`s_j \mathbf a_{\pi(j)}`.

    Parameters
    ----------
    axes : array_like of shape (k', p)
        Candidate axes, one per row (e.g. a bootstrap resample's).
    reference : array_like of shape (k, p)
        Axes to match, k <= k'.

    Returns
    -------
    aligned : ndarray of shape (k, p)
    permutation : ndarray of int, shape (k,)
        ``aligned[j] = signs[j] * axes[permutation[j]]``.
    signs : ndarray of shape (k,)
        +1 or -1.

    Raises
    ------
    ValueError
        If the arrays are not 2-D with the same number of columns, or there
        are fewer candidate axes than reference axes.
    """
    A, R = np.asarray(axes, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    if A.ndim != 2 or R.ndim != 2 or A.shape[1] != R.shape[1] or A.shape[0] < R.shape[0]:
        raise ValueError(
            f"axes (k', p) and reference (k, p) must be 2-D with k <= k' and the same p, "
            f"got shapes {A.shape} and {R.shape}"
        )
    aligned, permutation, signs = _align_batch(A[None], R)
    return aligned[0], permutation[0], signs[0]


def _align_batch(A: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`align_axes` for a stack of candidate sets A (c, k', p) against R (k, p).

    Where each reference axis has its own best candidate (the usual case), that choice
    maximizes the sum term by term; only the other sets go to the assignment solver.
    """
    cosines = np.einsum("jp,blp->bjl", R, A)  # (c, k, k')
    permutation = np.argmax(np.abs(cosines), axis=2)
    k = R.shape[0]
    clash = np.sort(permutation, axis=1)
    clash = np.any(clash[:, 1:] == clash[:, :-1], axis=1) if k > 1 else np.zeros(len(A), dtype=bool)
    for b in np.flatnonzero(clash):
        permutation[b] = linear_sum_assignment(-np.abs(cosines[b]))[1]
    chosen = np.take_along_axis(cosines, permutation[:, :, None], axis=2)[:, :, 0]
    signs = np.where(chosen < 0, -1.0, 1.0)
    aligned = np.take_along_axis(A, permutation[:, :, None], axis=1) * signs[:, :, None]
    return aligned, permutation, signs


def _leading_eigenpairs(R: np.ndarray, k: int, ddof: int) -> tuple[np.ndarray, np.ndarray]:
    r"""For a stack of centered resamples R (c, n, p): the k largest eigenvalues of
    :math:`R_b^\top R_b / (n - \mathrm{ddof})`, shape (c, k), and their axes (c, k, p).
    NumPy's stacked ``eigh`` of :math:`R_b^\top R_b` if n >= p, else its stacked SVD of
    :math:`R_b`: one call per stack, all in NumPy's BLAS."""
    _, n, p = R.shape
    if n >= p:
        w, V = np.linalg.eigh(np.matmul(R.transpose(0, 2, 1), R))
        return w[:, : -k - 1 : -1] / (n - ddof), V[:, :, : -k - 1 : -1].transpose(0, 2, 1)
    _, s, Vt = np.linalg.svd(R, full_matrices=False)
    return s[:, :k] ** 2 / (n - ddof), Vt[:, :k]


class _StreamingQuantiles:
    r"""Two quantiles along axis 0 of B values per entry, arriving in stacks,
    keeping only the order statistics they read.

    ``np.quantile(x, q)`` (its default, linear method) reads two order statistics
    of the B values: with :math:`h = (B - 1) q`, :math:`i = \lfloor h \rfloor` and
    :math:`t = h - i`, it returns :math:`x_{(i)} + t (x_{(i+1)} - x_{(i)})`. For
    :math:`q < 1/2` these are among the :math:`i + 2` smallest values, for
    :math:`q \ge 1/2` among the :math:`B - i` largest; each stack is merged into
    those (``np.partition``), so for the percentile interval at level L about
    :math:`(1 - L) B` values per entry are kept, not B, and the result is
    ``np.quantile``'s to the last bit (same order statistics, same interpolation).
    """

    def __init__(self, n_values: int, quantiles: list[float]) -> None:
        self.n_values, self.plans = n_values, []
        for q in quantiles:
            h = (n_values - 1) * np.float64(q)
            i = int(np.floor(h))
            if h >= n_values - 1:  # numpy: the largest value
                i, h = n_values - 1, np.float64(n_values - 1)
            lower = q < 0.5
            keep = min(n_values, i + 2) if lower else n_values - i
            self.plans.append((lower, keep, i, h - i))
        self.tails: list[np.ndarray | None] = [None] * len(quantiles)
        self.seen = 0

    def add(self, values: np.ndarray) -> None:
        """Merge a stack of values, shape (c, ...)."""
        self.seen += len(values)
        for j, (lower, keep, _, _) in enumerate(self.plans):
            kept = self.tails[j]
            both = values if kept is None else np.concatenate([kept, values])
            if len(both) > keep:
                cut = keep - 1 if lower else len(both) - keep
                both = np.partition(both, cut, axis=0)
                both = both[:keep] if lower else both[cut:]  # a view: copied below
            self.tails[j] = both.copy()

    def result(self) -> np.ndarray:
        """The quantiles, shape (len(quantiles), ...), once all B values were added."""
        if self.seen != self.n_values:
            raise RuntimeError(f"{self.seen} values were added, {self.n_values} expected")
        out = []
        for (lower, _, i, t), kept in zip(self.plans, self.tails):
            ordered = np.sort(cast(np.ndarray, kept), axis=0)  # not None: n_values >= 1 were added
            first = i if lower else 0  # position of x_(i) within the kept values
            a = ordered[first]
            b = ordered[min(first + 1, len(ordered) - 1)] if i < self.n_values - 1 else a
            diff = b - a
            value = a + diff * t
            if t >= 0.5:  # numpy's _lerp: exact at t = 1
                value = b - diff * (1 - t)
            out.append(value)
        return np.stack(out)


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    r"""Result of :func:`bootstrap_pca`.

    Attributes
    ----------
    explained_variance : ndarray of shape (k,)
        Eigenvalues :math:`\lambda_j` of the data.
    components : ndarray of shape (k, p)
        Axes :math:`\mathbf v_j^\top` of the data (pcalib's sign convention).
    explained_variance_samples : ndarray of shape (B, k)
        The k largest eigenvalues of each resample, in decreasing order.
    components_samples : ndarray of shape (B, k, p), or None
        The resamples' axes aligned to `components` (:func:`align_axes`), with
        ``keep_samples=True``; None by default (B k p numbers: 720 MB at the
        defaults on 300 x 300 data, 8 GB on 1000 x 1000).
    permutations, signs : ndarray of shape (B, k)
        The alignment of each resample: resample axis ``permutations[b, j]``,
        multiplied by ``signs[b, j]``, is matched to axis j.
    level : float
        Confidence level of the intervals.
    explained_variance_interval : ndarray of shape (2, k)
        Percentile intervals: rows are the :math:`(1 - \text{level})/2` and
        :math:`(1 + \text{level})/2` quantiles of the resampled eigenvalues.
    components_interval : ndarray of shape (2, k, p)
        The same quantiles of each entry of the aligned axes.
    """

    explained_variance: np.ndarray
    components: np.ndarray
    explained_variance_samples: np.ndarray
    components_samples: np.ndarray
    permutations: np.ndarray
    signs: np.ndarray
    level: float
    explained_variance_interval: np.ndarray
    components_interval: np.ndarray
    _cosines: np.ndarray = field(repr=False)

    @property
    def angles(self) -> np.ndarray:
        r"""Angles (radians) between each aligned resample axis and the data's axis,
        :math:`\arccos(\mathbf v_j^\top \mathbf v_j^*)`, shape (B, k) (computed
        during the bootstrap, with or without `components_samples`)."""
        return np.arccos(np.clip(self._cosines, -1.0, 1.0))


def bootstrap_pca(
    X: ArrayLike,
    k: int | None = None,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    standardize: bool = False,
    ddof: int = 1,
    random_state: int | np.random.Generator | None = None,
    keep_samples: bool = False,
) -> BootstrapResult:
    r"""Nonparametric bootstrap of a PCA: percentile intervals for eigenvalues and axes.

    For b = 1, ..., B: draw n row indices uniformly with replacement, center
    (and standardize) the resample :math:`X^{*b}` by its own mean (and standard
    deviations), and compute its PCA (eigendecomposition of the covariance if
    n >= p, else SVD of the data): eigenvalues :math:`\lambda_j^{*b}` (divisor
    n - ddof) and axes, aligned to the data's by :func:`align_axes`. The percentile interval of a quantity
    :math:`\theta` with resampled values :math:`\theta^{*1}, \dots, \theta^{*B}`
    is

    .. math:: \big[\, \theta^*_{((1-\text{level})/2)},\ \theta^*_{((1+\text{level})/2)} \,\big]

    (empirical quantiles, Efron 1979). Eigenvalues are compared in order
    (:math:`\lambda_j^{*b}` is the j-th largest of resample b); axes after
    alignment. For distinct population eigenvalues these intervals are
    asymptotically valid (Beran and Srivastava 1985); for equal ones they are not.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, n >= 2. Not modified.
    k : int or None
        Number of components, ``1 <= k <= min(n, p)``; None keeps all.
    n_resamples : int, default 1000
        Number of bootstrap resamples B.
    level : float, default 0.95
        Confidence level, in (0, 1).
    standardize : bool, default False
        PCA of the correlation matrix: the data and each resample are
        standardized by their own standard deviations.
    ddof : int, default 1
        Variance divisor ``n - ddof``.
    random_state : None, int or numpy.random.Generator
        Seed of the resampling; the result is deterministic for a fixed seed.
    keep_samples : bool, default False
        Also return every resample's aligned axes, ``components_samples``
        (B x k x p numbers). The intervals and ``angles`` do not need them.

    Returns
    -------
    BootstrapResult
        float32 arrays for float32 input.

    Notes
    -----
    The resamples are drawn from the centered data read in their frame
    (``pcalib._units.center_array``: an exact power-of-two scale, or the
    standardized columns when `standardize`), so no square overflows or
    underflows at any scale of X; the eigenvalues are converted to the data's
    units at the end.

    Memory: the percentile interval of an entry reads two of its B resampled
    values at each end, the
    :math:`\lfloor (B - 1)(1 - \text{level})/2 \rfloor + 2`-th smallest and
    largest; only those are kept, merged stack by stack, so the intervals of the
    axes hold about :math:`(1 - \text{level}) B k p` numbers (52 k p at the
    defaults, 37 MB for k = p = 300) instead of B k p (720 MB), and equal
    ``np.quantile`` of all B values to the last bit. Add a stack of resamples of
    at most ``_STACK_ENTRIES`` entries and its eigendecompositions. With
    ``keep_samples=True`` the B x k x p aligned axes are kept as well. Pass a
    small k when p is large.

    Raises
    ------
    TypeError, ValueError
        As :class:`pcalib.PCA` for the data and k; for invalid `n_resamples` or
        `level`; when standardizing, for a resample in which a column is constant.
    """
    reference = PCA(n_components=k, solver="svd", standardize=standardize, ddof=ddof).fit(X)
    arr, ddof = validated(X, ddof)
    dtype = output_dtype(arr)
    # frame units (an exact power of two) or standardized columns: no square overflows;
    # a resample is standardized by its own deviations whatever the columns' scale
    centered = center_array(arr, ddof, scale=standardize)
    Xc, exponent = centered.values, centered.exponent
    n, p = Xc.shape
    k = reference.n_components_
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    check_flag(keep_samples, "keep_samples")
    rng = check_random_state(random_state)
    axes_ref = reference.components_.astype(np.float64)
    tails = [(1 - level) / 2, (1 + level) / 2]
    eigenvalues = np.empty((n_resamples, k))
    axes = np.empty((n_resamples, k, p)) if keep_samples else None
    axes_quantiles = _StreamingQuantiles(n_resamples, tails)
    cosines = np.empty((n_resamples, k))
    permutations = np.empty((n_resamples, k), dtype=np.intp)
    signs = np.empty((n_resamples, k))
    per_stack = max(1, min(n_resamples, _STACK_ENTRIES // (n * p)))
    for start in range(0, n_resamples, per_stack):
        stack = slice(start, min(start + per_stack, n_resamples))
        R = Xc[rng.integers(0, n, size=(stack.stop - stack.start, n))]  # (c, n, p)
        if standardize:
            constant = np.argwhere(R.max(axis=1) == R.min(axis=1))
            if constant.size:
                raise ValueError(
                    f"bootstrap resample {start + constant[0, 0]} has a constant column "
                    f"({constant[0, 1]}); it cannot be standardized (use more samples or "
                    "standardize=False)"
                )
        R -= R.mean(axis=1, keepdims=True)
        if standardize:
            R /= np.sqrt(np.einsum("bij,bij->bj", R, R) / (n - ddof))[:, None, :]
        eigenvalues[stack], resample_axes = _leading_eigenpairs(R, k, ddof)
        del R  # freed now, not after the next stack is drawn
        aligned, permutations[stack], signs[stack] = _align_batch(resample_axes, axes_ref)
        del resample_axes
        cosines[stack] = np.einsum("bkp,kp->bk", aligned, axes_ref)
        axes_quantiles.add(aligned)
        if axes is not None:
            axes[stack] = aligned
    eigenvalues = rescale(eigenvalues, 2 * exponent, "the resampled eigenvalues")
    axes_interval = axes_quantiles.result()
    return BootstrapResult(
        explained_variance=reference.explained_variance_,
        components=reference.components_,
        explained_variance_samples=eigenvalues.astype(dtype, copy=False),
        components_samples=None if axes is None else axes.astype(dtype, copy=False),
        permutations=permutations,
        signs=signs.astype(dtype, copy=False),
        level=float(level),
        explained_variance_interval=np.quantile(eigenvalues, tails, axis=0).astype(dtype, copy=False),
        components_interval=axes_interval.astype(dtype, copy=False),
        _cosines=cosines,
    )

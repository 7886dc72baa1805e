r"""Intervals for eigenvalues and principal axes (chapter *How many components, and
how sure?*): the bootstrap, and Anderson's asymptotic intervals.

A bootstrap resample draws n rows of X with replacement and repeats the PCA.
Its eigenvalues are compared in order. Its axes are defined up to sign: by default
(``align="sign"``) resample axis j is compared with the data's axis j after
flipping it so that :math:`\mathbf v_j^\top \mathbf v_j^* \ge 0`, as the
eigenvalues are compared in order. With ``align="match"``, :func:`align_axes`
first matches each axis of the data to one of *all* the axes of the resample
(the assignment of largest total :math:`|\cos|`), which undoes the swaps of axes
with close eigenvalues; the chapter measures what each choice does to the
coverage of the intervals.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike
from scipy.linalg import blas
from scipy.special import erfinv

from ._linalg import constants
from ._linalg.eigen import top_eigh
from ._linalg.spectra import check_level, rank_tolerance
from ._linalg.units import center_array, rescale
from ._utils.kinds import LAZY, input_kind, lazy_input_error
from ._utils.progress import progress
from ._utils.validation import check_flag, check_n_components, check_random_state, output_dtype, validated
from .estimator import PCA

__all__ = ["AndersonIntervals", "BootstrapResult", "align_axes", "anderson_intervals", "bootstrap_pca"]

_ALIGNMENTS = ("sign", "match")
_INTERVALS = ("percentile", "basic")


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
    if clash.any():
        import scipy.optimize  # here: importing pcalib does not load scipy.optimize

    for b in np.flatnonzero(clash):
        permutation[b] = scipy.optimize.linear_sum_assignment(-np.abs(cosines[b]))[1]
    chosen = np.take_along_axis(cosines, permutation[:, :, None], axis=2)[:, :, 0]
    signs = np.where(chosen < 0, -1.0, 1.0)
    aligned = np.take_along_axis(A, permutation[:, :, None], axis=1) * signs[:, :, None]
    return aligned, permutation, signs


def _every_eigenpair(R: np.ndarray, ddof: int) -> tuple[np.ndarray, np.ndarray]:
    r"""For a stack of centered resamples R (c, n, p): all m = min(n, p) eigenvalues of
    :math:`R_b^\top R_b / (n - \mathrm{ddof})`, decreasing, shape (c, m), and their
    axes (c, m, p). NumPy's stacked ``eigh`` of :math:`R_b^\top R_b` if n >= p, else
    its stacked SVD of :math:`R_b`: one call per stack."""
    _, n, p = R.shape
    if n >= p:
        w, V = np.linalg.eigh(np.matmul(R.transpose(0, 2, 1), R))
        return w[:, ::-1] / (n - ddof), V[:, :, ::-1].transpose(0, 2, 1)
    _, s, Vt = np.linalg.svd(R, full_matrices=False)
    return s**2 / (n - ddof), Vt


def _leading_eigenpairs(R: np.ndarray, k: int, ddof: int) -> tuple[np.ndarray, np.ndarray]:
    r"""For a stack of centered resamples R (c, n, p): the k largest eigenvalues of
    :math:`R_b^\top R_b / (n - \mathrm{ddof})`, shape (c, k), and their axes (c, k, p),
    by pcalib's exact routes for k components, one resample at a time: the smaller of
    :math:`R_b^\top R_b` and :math:`R_b R_b^\top` formed by SciPy's ``dsyrk`` (lower
    triangle), then its k leading eigenpairs by LAPACK's partial ``?syevr``
    (:func:`pcalib._linalg.eigen.top_eigh` above order ``constants.NUMPY_MAX_M``: block Krylov
    when it pays), all in SciPy's BLAS. Axes of the Gram route are
    :math:`R_b^\top \mathbf u_j / \sigma_j`; a resample with fewer than k nonzero
    eigenvalues takes its axes from the SVD. Measured against every eigenpair by
    NumPy's stacked ``eigh`` (2-3x faster at orders 100 to 800, k = 3 to 5); up to
    order ``constants.BOOTSTRAP_STACKED_MAX_ORDER`` the stacked ``eigh`` of every eigenpair is faster."""
    c, n, p = R.shape
    if min(n, p) <= constants.BOOTSTRAP_STACKED_MAX_ORDER:
        w, V = _every_eigenpair(R, ddof)
        return w[:, :k], V[:, :k]
    eigenvalues, axes = np.empty((c, k)), np.empty((c, k, p))
    for b, Rb in enumerate(R):
        M = blas.dsyrk(1.0, Rb.T, lower=1) if n >= p else blas.dsyrk(1.0, Rb, lower=1)
        m = M.shape[0]
        if m > constants.NUMPY_MAX_M:
            w, V = top_eigh(M, k)
        elif k < m:
            w, V = scipy.linalg.eigh(M, lower=True, subset_by_index=[m - k, m - 1], driver="evr",
                                     overwrite_a=True, check_finite=False)
            w, V = w[::-1], V[:, ::-1]
        else:
            w, V = scipy.linalg.eigh(M, lower=True, overwrite_a=True, check_finite=False)
            w, V = w[::-1], V[:, ::-1]
        if n >= p:
            axes[b] = V.T
        elif w[-1] > rank_tolerance(w, max(n, p)):
            axes[b] = (Rb.T @ V / np.sqrt(w)).T
        else:
            axes[b] = np.linalg.svd(Rb, full_matrices=False)[2][:k]
        eigenvalues[b] = w
    return eigenvalues / (n - ddof), axes


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
        The resamples' axes aligned to `components`, with ``keep_samples=True``;
        None by default (B k p numbers: 720 MB at the defaults on 300 x 300 data,
        8 GB on 1000 x 1000).
    permutations, signs : ndarray of shape (B, k)
        The alignment of each resample: resample axis ``permutations[b, j]``,
        multiplied by ``signs[b, j]``, is compared with axis j (``permutations[b, j]
        = j`` with ``align="sign"``).
    level : float
        Confidence level of the intervals.
    interval : str
        "percentile" or "basic".
    explained_variance_interval : ndarray of shape (2, k)
        Lower and upper ends of the intervals for the eigenvalues.
    components_interval : ndarray of shape (2, k, p)
        Lower and upper ends of the intervals for each entry of the axes.
    """

    explained_variance: np.ndarray
    components: np.ndarray
    explained_variance_samples: np.ndarray
    components_samples: np.ndarray | None
    permutations: np.ndarray
    signs: np.ndarray
    level: float
    interval: str
    explained_variance_interval: np.ndarray
    components_interval: np.ndarray
    _cosines: np.ndarray = field(repr=False)

    @property
    def angles(self) -> np.ndarray:
        r"""Angles (radians) between each aligned resample axis and the data's axis,
        :math:`\arccos(\mathbf v_j^\top \mathbf v_j^*)`, shape (B, k) (computed
        during the bootstrap, with or without `components_samples`)."""
        return np.arccos(np.clip(self._cosines, -1.0, 1.0))

    def subspace_angles(self, axes: Sequence[int]) -> np.ndarray:
        r"""Largest principal angle (radians) between the span of a group of the data's
        axes and the span of the same group in each resample, shape (B,).

        With :math:`Q` the data's axes ``axes`` (as rows, m x p) and :math:`A_b` the
        resample's aligned axes of the same indices, the angle is

        .. math:: \theta_b = \arctan\frac{\sigma_{\max}\big(A_b - A_bQ^\top Q\big)}
                               {\sigma_{\min}\big(A_bQ^\top\big)},

        the largest principal angle between the two m-dimensional subspaces (its sine
        from the part of :math:`A_b` outside the data's span, its cosine from the part
        inside: accurate near 0 and near :math:`\pi/2`). It does not depend on the
        signs or the order of the axes inside the group, so a group of nearly tied
        axes, whose individual ``angles`` are large, can have small subspace angles.

        Parameters
        ----------
        axes : sequence of int
            Distinct indices in ``range(k)``, e.g. ``[0, 1]`` for the plane of the
            first two axes.

        Returns
        -------
        ndarray of shape (B,)

        Raises
        ------
        ValueError
            If the resampled axes were not kept (``keep_samples=False``), or `axes`
            is empty, repeats an index or is out of range.
        TypeError
            If `axes` holds something other than integers.
        """
        if self.components_samples is None:
            raise ValueError("subspace_angles needs the resampled axes: call bootstrap_pca with keep_samples=True")
        k = self.components.shape[0]
        if isinstance(axes, (str, bytes)) or not all(
            isinstance(j, numbers.Integral) and not isinstance(j, bool) for j in np.ravel(np.asarray(axes, dtype=object))
        ):
            raise TypeError(f"axes must be a sequence of integer indices, got {axes!r}")
        index = np.asarray(axes, dtype=np.intp).ravel()
        if index.size == 0 or len(set(index.tolist())) != index.size or index.min() < 0 or index.max() >= k:
            raise ValueError(f"axes must be distinct indices in range({k}), got {axes!r}")
        Q = self.components[index].astype(np.float64)
        A = self.components_samples[:, index].astype(np.float64)
        inside = A @ Q.T  # (B, m, m): the cosines are its singular values
        outside = A - inside @ Q  # (B, m, p): the sines are its singular values
        cosine = np.linalg.svd(inside, compute_uv=False)[:, -1]
        sine = np.linalg.svd(outside, compute_uv=False)[:, 0]
        return np.arctan2(sine, cosine)


def _ends(quantiles: np.ndarray, estimate: np.ndarray, interval: str) -> np.ndarray:
    r"""The interval (2, ...) from the two quantiles :math:`q_{lo}, q_{hi}` of the
    resampled values: :math:`[q_{lo}, q_{hi}]` (percentile) or
    :math:`[2\hat\theta - q_{hi}, 2\hat\theta - q_{lo}]` (basic)."""
    if interval == "percentile":
        return quantiles
    return np.stack([2 * estimate - quantiles[1], 2 * estimate - quantiles[0]])


def bootstrap_pca(
    X: ArrayLike,
    k: int | None = None,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    interval: str = "percentile",
    align: str = "sign",
    standardize: bool = False,
    ddof: int = 1,
    random_state: int | np.random.Generator | None = None,
    keep_samples: bool = False,
    verbose: bool = False,
) -> BootstrapResult:
    r"""Nonparametric bootstrap of a PCA: intervals for eigenvalues and axes.

    For b = 1, ..., B: draw n row indices uniformly with replacement, center
    (and standardize) the resample :math:`X^{*b}` by its own mean (and standard
    deviations), and compute its k leading eigenvalues :math:`\lambda_j^{*b}`
    (divisor n - ddof) and axes. Eigenvalues are compared in order
    (:math:`\lambda_j^{*b}` is the j-th largest of resample b). Axes:

    * ``align="sign"``: resample axis j, times the sign that makes
      :math:`\mathbf v_j^\top \mathbf v_j^{*b} \ge 0`;
    * ``align="match"``: the resample axis that :func:`align_axes` matches to
      :math:`\mathbf v_j` among all min(n, p) axes of the resample (the linear
      assignment of largest total :math:`|\cos|`), with the same sign rule. Every
      eigenpair of each resample is computed.

    With :math:`q_{lo}, q_{hi}` the :math:`(1 \mp \text{level})/2` quantiles of the
    resampled values :math:`\theta^{*1}, \dots, \theta^{*B}` of a quantity with
    estimate :math:`\hat\theta`, the intervals are

    .. math::

        [q_{lo},\ q_{hi}] \ \text{(percentile, Efron 1979)}, \qquad
        [2\hat\theta - q_{hi},\ 2\hat\theta - q_{lo}] \ \text{(basic)}.

    For distinct population eigenvalues both are asymptotically valid (Beran and
    Srivastava 1985); for equal ones they are not, and for close ones they cover
    less than `level` at moderate n (the chapter measures by how much, with either
    alignment).

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
    interval : {"percentile", "basic"}, default "percentile"
        Which interval (above).
    align : {"sign", "match"}, default "sign"
        How resample axes are compared with the data's (above).
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
    verbose : bool, default False
        Report the resamples done on stderr (a tqdm bar where tqdm is installed,
        a line at most every second otherwise).

    Returns
    -------
    BootstrapResult
        float32 arrays for float32 input.

    Notes
    -----
    The resamples are drawn from the centered data read in their frame
    (``pcalib._linalg.units.center_array``: an exact power-of-two scale, or the
    standardized columns when `standardize`), so no square overflows or
    underflows at any scale of X; the eigenvalues are converted to the data's
    units at the end. Eigenvalues within round-off of 0 (below
    :math:`\max(n, p)\, \varepsilon\, \lambda_1^{*b}`, some of them negative) are
    reported as 0; their axes are arbitrary.

    Time: with ``align="sign"`` each resample costs the product
    :math:`R_b^\top R_b` (or :math:`R_b R_b^\top` when n < p) and the k leading
    eigenpairs of it (LAPACK's partial solver, block Krylov for large orders),
    not a full eigendecomposition.

    Memory: an interval reads two of the B resampled values at each end, the
    :math:`\lfloor (B - 1)(1 - \text{level})/2 \rfloor + 2`-th smallest and
    largest; only those are kept, merged stack by stack, so the intervals of the
    axes hold about :math:`(1 - \text{level}) B k p` numbers (52 k p at the
    defaults, 37 MB for k = p = 300) instead of B k p (720 MB), and equal
    ``np.quantile`` of all B values to the last bit. Add a stack of resamples of
    at most ``constants.BOOTSTRAP_STACK_ENTRIES`` entries and its eigendecompositions. With
    ``keep_samples=True`` the B x k x p aligned axes are kept as well. Pass a
    small k when p is large.

    Raises
    ------
    TypeError, ValueError
        As :class:`pcalib.PCA` for the data and k; for invalid `n_resamples`,
        `level`, `interval` or `align`; when standardizing, for a resample in which
        a column is constant.
    """
    if input_kind(X) in LAZY:  # read in memory below: refused before PCA's Dask route reads it
        raise lazy_input_error(X)
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
    level = check_level(level, "level")
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be one of {_INTERVALS}, got {interval!r}")
    if align not in _ALIGNMENTS:
        raise ValueError(f"align must be one of {_ALIGNMENTS}, got {align!r}")
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
    per_stack = max(1, min(n_resamples, constants.BOOTSTRAP_STACK_ENTRIES // (n * p)))
    with progress(verbose, n_resamples, "bootstrap_pca") as report:
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
            if align == "match":
                lam, resample_axes = _every_eigenpair(R, ddof)
                del R  # freed now, not after the next stack is drawn
                aligned, permutations[stack], signs[stack] = _align_batch(resample_axes, axes_ref)
            else:
                lam, resample_axes = _leading_eigenpairs(R, k, ddof)
                del R
                chosen = np.einsum("bkp,kp->bk", resample_axes, axes_ref)
                permutations[stack], signs[stack] = np.arange(k), np.where(chosen < 0, -1.0, 1.0)
                aligned = resample_axes * signs[stack][:, :, None]
            eigenvalues[stack] = lam[:, :k]
            del resample_axes
            cosines[stack] = np.einsum("bkp,kp->bk", aligned, axes_ref)
            axes_quantiles.add(aligned)
            if axes is not None:
                axes[stack] = aligned
            report.update(advance=stack.stop - stack.start)
        report.done(f"{n_resamples} resamples")
    # round-off of a zero eigenvalue (a resample of fewer distinct rows than k + 1) is 0
    tolerance = max(n, p) * np.finfo(np.float64).eps * eigenvalues[:, :1]
    eigenvalues = np.where(eigenvalues > tolerance, eigenvalues, 0.0)
    # the interval in the frame's units, then rescaled: the quantiles of values that
    # overflowed to inf would be NaN (inf - inf), where the interval is inf
    estimate_units = np.ldexp(reference.singular_values_.astype(np.float64), -exponent) ** 2 / (n - ddof)
    lam_interval = rescale(_ends(np.quantile(eigenvalues, tails, axis=0), estimate_units, interval),
                           2 * exponent, "the eigenvalue intervals")
    eigenvalues = rescale(eigenvalues, 2 * exponent, "the resampled eigenvalues")
    axes_interval = _ends(axes_quantiles.result(), axes_ref, interval)
    return BootstrapResult(
        explained_variance=reference.explained_variance_,
        components=reference.components_,
        explained_variance_samples=eigenvalues.astype(dtype, copy=False),
        components_samples=None if axes is None else axes.astype(dtype, copy=False),
        permutations=permutations,
        signs=signs.astype(dtype, copy=False),
        level=level,
        interval=interval,
        explained_variance_interval=lam_interval.astype(dtype, copy=False),
        components_interval=axes_interval.astype(dtype, copy=False),
        _cosines=cosines,
    )


@dataclass(frozen=True, eq=False)
class AndersonIntervals:
    r"""Result of :func:`anderson_intervals`.

    Attributes
    ----------
    explained_variance : ndarray of shape (k,)
        Eigenvalues :math:`\hat\lambda_j` of the data.
    components : ndarray of shape (k, p)
        Axes :math:`\hat{\mathbf v}_j^\top` of the data (pcalib's sign convention).
    level : float
    explained_variance_interval : ndarray of shape (2, k)
    components_standard_error : ndarray of shape (k, p)
        Asymptotic standard error of each entry of each axis.
    components_interval : ndarray of shape (2, k, p)
    """

    explained_variance: np.ndarray
    components: np.ndarray
    level: float
    explained_variance_interval: np.ndarray
    components_standard_error: np.ndarray
    components_interval: np.ndarray


def anderson_intervals(X: ArrayLike, k: int | None = None, *, level: float = 0.95) -> AndersonIntervals:
    r"""Asymptotic intervals for eigenvalues and axes of normal data (Anderson 1963).

    For normal data with distinct population eigenvalues, as n grows with p fixed,
    :math:`\sqrt N(\hat\lambda_j - \lambda_j) \to \mathcal N(0, 2\lambda_j^2)` and
    :math:`\sqrt N(\hat{\mathbf v}_j - \mathbf v_j) \to \mathcal N\big(\mathbf 0,
    \sum_{l \ne j} \frac{\lambda_j \lambda_l}{(\lambda_j - \lambda_l)^2}
    \mathbf v_l \mathbf v_l^\top\big)`, N = n - 1. With z the
    :math:`(1 + \text{level})/2` normal quantile and the estimates in place of the
    population values (Jolliffe 2002, section 3.7.1):

    .. math::

        \frac{\hat\lambda_j}{1 + z\sqrt{2/N}} \le \lambda_j \le
        \frac{\hat\lambda_j}{1 - z\sqrt{2/N}}, \qquad
        \hat v_{ij} \pm z\, \Big(\frac1N \sum_{l \ne j}
        \frac{\hat\lambda_j \hat\lambda_l}{(\hat\lambda_j - \hat\lambda_l)^2}\,
        \hat v_{il}^2\Big)^{1/2}

    (the upper end is ``inf`` when :math:`z\sqrt{2/N} \ge 1`). The axes' standard
    errors grow without bound as the gaps :math:`\hat\lambda_j - \hat\lambda_l`
    shrink; an axis whose sample eigenvalue is exactly tied with another has standard
    errors ``inf`` in every entry (the axis is not determined). Normal theory: for other distributions the eigenvalues' variance
    involves fourth moments (the bootstrap estimates it).

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data with n > p, of full rank p. Not modified.
    k : int or None
        Number of components, ``1 <= k <= p``; None keeps all.
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    AndersonIntervals
        float32 arrays for float32 input.

    Raises
    ------
    TypeError, ValueError
        As :class:`pcalib.PCA`; for n <= p, a rank below p, or a bad `level`.
    """
    level = check_level(level, "level")
    model = PCA(solver="svd").fit(X)
    n, p = model.n_samples_, model.n_features_in_
    lam = model.explained_variance_.astype(np.float64)
    # the rank and the axes' weights from the scale-free ratios: the variances of data
    # near 1e+-270 leave float64 (inf or 0), the ratios do not
    ratios = model.explained_variance_ratio_.astype(np.float64)
    if n <= p or not ratios[-1] > rank_tolerance(ratios, n):
        raise ValueError(
            f"Anderson's intervals need n_samples > n_features and data of full rank, got "
            f"{n} x {p} of rank {int(np.sum(ratios > rank_tolerance(ratios, n)))}"
        )
    k = p if k is None else check_n_components(k, p)
    V = model.components_.astype(np.float64)
    z = float(np.sqrt(2.0) * erfinv(level))
    N = n - 1
    spread = z * np.sqrt(2.0 / N)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam_interval = np.stack([lam[:k] / (1 + spread), lam[:k] / (1 - spread) if spread < 1 else np.full(k, np.inf)])
        relative = ratios / ratios[0]  # the weights are scale-free
        gaps = relative[:k, None] - relative[None, :]
        weights = np.where(np.eye(k, p, dtype=bool), 0.0, relative[:k, None] * relative[None, :] / gaps**2)
    tied = ~np.all(np.isfinite(weights), axis=1)  # an exactly tied sample eigenvalue
    se = np.sqrt(np.where(np.isfinite(weights), weights, 0.0) @ (V**2) / N)  # (k, p): entry i of axis j
    se[tied] = np.inf
    dtype = model.components_.dtype
    return AndersonIntervals(
        explained_variance=model.explained_variance_[:k],
        components=model.components_[:k],
        level=level,
        explained_variance_interval=lam_interval.astype(dtype, copy=False),
        components_standard_error=se.astype(dtype, copy=False),
        components_interval=np.stack([V[:k] - z * se, V[:k] + z * se]).astype(dtype, copy=False),
    )

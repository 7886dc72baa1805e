r"""The covariance route's scatter matrix, in one pass over the data and without a centered copy.

The eig route of :mod:`pcalib._routes.dense` asks one question of the data,
:math:`C = Y_c^\top Y_c` with the exact column means, and later the scores
:math:`Y_c V_k`. This module answers both by blocks of rows, and adds what the chapters'
formula :math:`S = X_c^\top X_c / (n - 1)` leaves out:

* a frame (:class:`pcalib._linalg.units.Frame`): Y is X times an exact power of
  two, minus the column minima for integer data, so that no square overflows or
  underflows at any scale and 64-bit integers near :math:`2^{62}` lose no digit;
* shifted blocks (Chan, Golub and LeVeque 1983): each block is centered about a shift
  close to the mean, not about 0, so that :math:`X^\top X - n \bar x \bar x^\top` never
  cancels to noise for data with a large mean;
* the fast path (:func:`_one_pass_scatter`): most data are read once, as they are, in
  their own units, and the result is checked to have lost at most one bit;
* constant columns: rows and columns of exactly 0 in C, so their loadings are exactly 0;
* the column standard deviations, with ``standardize``.

:func:`scatter_matrix` is the entry point, :func:`scores_by_row_blocks` the scores.
"""

from __future__ import annotations

import numpy as np

from .._inputs.matrix import Moments, gram_and_sums, row_blocks, shifted_gram
from .._linalg.center import Center
from .._linalg.units import Frame, checked_scale
from .._utils.validation import checked_finite
from .decomposition import check_variance


def scatter_matrix(
    arr: np.ndarray, ddof: int, standardize: bool, name: str = "X", *, finite_checked: bool = True
) -> tuple[np.ndarray, Center, np.ndarray, Frame, bool]:
    r""":math:`C = Y_c^\top Y_c` in one pass over X, without a centered copy.

    Y is X read in a frame (:class:`pcalib._linalg.units.Frame`), where C neither
    overflows nor underflows. Most data are read in their own units
    (:func:`_one_pass_scatter`: one pass, at most one bit lost, no copy for
    C-contiguous float64 data whose column means are at most their spread).
    Others (squares out of range, uint64, data still drifting after three passes)
    are read in the frame of their column extremes (exact powers of two and
    integer offsets) and centered by the shifted-data algorithm (Chan, Golub and
    LeVeque 1983): each block of rows is shifted by :math:`c`, the float64 mean of
    the first block, into a reusable buffer, and :math:`\sum_B B^\top B` and
    :math:`r = \sum_B B^\top \mathbf 1` formed in one pass
    (:func:`pcalib._inputs.matrix.gram_and_sums`). Then :math:`\bar y = c + r/n` and

    .. math:: Y_c^\top Y_c = \sum_i (y_i - c)(y_i - c)^\top - \frac{r r^\top}{n}

    exactly. The subtraction cancels only as much as :math:`c` differs from
    :math:`\bar y` relative to the spread of each column, a factor of at most
    :math:`1 + n / n_1` (:math:`n_1` rows in the first block), where forming
    :math:`X^\top X - n \bar x \bar x^\top` loses a factor
    :math:`1 + \bar x_j^2 / s_j^2` (unbounded for a large mean). Rows and
    columns of constant columns are set to exactly 0. With `standardize`,
    :math:`C \leftarrow D^{-1} C D^{-1}`, D the column standard deviations (from
    the diagonal of C). Returns ``(C, center, scale, frame, one_pass)``, the mean (the
    exact pair of :class:`pcalib._linalg.center.Center`: the shift and the mean about
    it) and scale in the frame's units, and whether the one-pass branch formed C (whose
    rounding :func:`pcalib._linalg.rounding.scatter_error` bounds). Unless `finite_checked`, `arr` is checked for NaN and
    infinity before the frame's pass; the one pass needs no check, since its
    finite sums of squares show that every entry is finite.

    Raises
    ------
    ValueError
        If `arr` holds NaN or infinity, if every column is constant, or (with
        `standardize`) if some column is.
    """
    n, p = arr.shape
    blocks = row_blocks(n, p)
    found = _one_pass_scatter(arr, blocks)
    if found is not None:
        C, center, constant = found
        frame = Frame(None, np.zeros(p if standardize else (), dtype=np.int64), constant)
    else:
        if not finite_checked:
            checked_finite(arr, name)
        frame = Frame.of(arr, per_column=standardize)
        C, center = _shifted_scatter(arr, frame, blocks)
    check_variance(frame.constant)
    C[frame.constant] = 0.0
    C[:, frame.constant] = 0.0
    sd = np.ones(p)
    if standardize:
        sd = checked_scale(frame.constant, np.diagonal(C).copy(), n, ddof, name)
        C /= sd[:, None]
        C /= sd
    return C, center, sd, frame, found is not None


def _shifted_scatter(arr: np.ndarray, frame: Frame, blocks: list[slice]) -> tuple[np.ndarray, Center]:
    r""":func:`scatter_matrix`'s shifted-data pass: ``(Y_c^T Y_c, center)``, frame units.

    Floating data whose frame exponent is within :math:`\pm 200` (no square can
    overflow or underflow unscaled) are shifted in their own units, one subtraction
    per block into a buffer, and C and the mean converted to the frame's units at the
    end by exact powers of two (the same numbers: scaling by a power of two commutes
    with rounding); other data are read through the frame, block by block.
    """
    n, p = arr.shape
    if frame.offset is None and np.abs(frame.exponent).max() <= 200:
        shift = arr[blocks[0]].mean(axis=0, dtype=np.float64)
        C, r = shifted_gram(arr, shift)
        unit = np.broadcast_to(np.ldexp(1.0, -frame.exponent), (p,))
    else:
        shift = frame.read(arr[blocks[0]]).mean(axis=0)
        buf = np.empty((blocks[0].stop, p))
        C, r = gram_and_sums((_read_shifted(arr[rows], frame, shift, buf) for rows in blocks), p)
        unit = np.ones(p)
    C -= np.outer(r, r / n)
    C *= unit[:, None]
    C *= unit
    return C, Center(shift * unit, r / n * unit)


def _read_shifted(block: np.ndarray, frame: Frame, shift: np.ndarray, buf: np.ndarray) -> np.ndarray:
    """`block` read in `frame` into the first rows of `buf`, minus `shift`."""
    out = frame.read(block, out=buf[: block.shape[0]])
    out -= shift
    return out


# The one-pass scatter's range: every varying column's centered sum of squares is
# between these, so no square overflows and none that matters underflows (each product
# lost to underflow is below 2**-1022, n of them far below eps times 2**-600).
_ONE_PASS_SQUARES_RANGE = (2.0**-600, 2.0**500)


# The entries of the first block must be within this range (0 apart) for the one pass to
# be tried: far from both ends of _ONE_PASS_SQUARES_RANGE.
_ONE_PASS_PEAK_RANGE = (2.0**-250, 2.0**200)


def _one_pass_scatter(arr: np.ndarray, blocks: list[slice]) -> tuple[np.ndarray, Center, np.ndarray] | None:
    r"""The fast pass of :func:`scatter_matrix`: :math:`X_c^\top X_c` by the shifted-data
    algorithm of :meth:`pcalib._inputs.matrix.Moments.of_rows`, in X's own units. One
    pass over X as it is (no copy) for C-contiguous float64 data whose column means
    are at most their spread, where :math:`G = X^\top X` and :math:`r = X^\top \mathbf 1`
    give :math:`X_c^\top X_c = G - r r^\top / n`; otherwise one pass with each block
    shifted by the mean of the first rows into a buffer, and again about the mean
    found if a column lost more than one bit (data drifting along the rows).
    Returns ``(C, center, constant)``.

    The correction cancels by the factor :math:`1 + n \bar y_j^2 / (X_c^\top X_c)_{jj}`
    (:math:`\bar y` the mean about the shift): at most 2, one bit, as checked on
    every column after the pass. Constant columns (found by reading again a column
    that fails the check or sums to 0) have exact means and rows and columns of
    exactly 0. ``None`` (the caller reads X in the frame of its extremes) for uint64
    data, for a first block with entries outside ``_ONE_PASS_PEAK_RANGE``, for
    varying columns whose sums of squares leave ``_ONE_PASS_SQUARES_RANGE``, for a
    column still losing more than a bit after three passes, or for a non-finite
    result (overflow, or NaN or infinity in X: a sum of squares is finite only if
    each of its terms is).
    """
    if arr.dtype == np.uint64:
        return None  # not shifted exactly in int64
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # NaN, inf: the sums tell
        peak = np.abs(arr[blocks[0]]).max(axis=0)
        if peak.max() > _ONE_PASS_PEAK_RANGE[1] or np.any((peak > 0) & (peak < _ONE_PASS_PEAK_RANGE[0])):
            return None
        found = Moments.of_rows(arr, scaled=False)  # out of range: the frame of the extremes
    if not found.finite:
        return None
    squares, low, high = found.squares, *_ONE_PASS_SQUARES_RANGE
    if np.any(~found.constant & ((squares < low) | (squares > high) | (arr.shape[0] * found.mean**2 > squares))):
        return None
    return found.scatter, found.center(), found.constant


def scores_by_row_blocks(
    arr: np.ndarray, frame: Frame, center: Center, scale: np.ndarray, V: np.ndarray
) -> np.ndarray:
    r"""Scores :math:`((y - \bar y) / s) V`, one row block at a time (no centered copy).

    `center` and `scale` are in the units of `frame`, like the rows `y` it reads."""
    n, p = arr.shape
    scores = np.empty((n, V.shape[1]))
    standardized = bool(np.any(scale != 1.0))
    for rows in row_blocks(n, p):
        block = center.remove_from(frame.read(arr[rows]))
        if standardized:
            block /= scale
        np.matmul(block, V, out=scores[rows])
    return scores

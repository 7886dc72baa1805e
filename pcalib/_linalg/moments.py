r"""Count, mean and scatter matrix of data, in one pass that keeps its digits.

:class:`Moments` holds :math:`(n, \bar x, M)`, :math:`M = \sum_i (x_i - \bar x)(x_i - \bar x)^\top`,
about a shift close to the mean, and merges two sets of rows exactly (Chan, Golub and
LeVeque); :meth:`Moments.of_rows` reads a block of rows by the shifted-data algorithm.
The pass itself is :func:`shifted_gram` (:math:`Y^\top Y` and :math:`Y^\top \mathbf 1`
of :math:`Y = X - \mathbf 1 c^\top`, by row blocks of :func:`row_blocks` summed by
:func:`gram_and_sums`, on several threads for large blocks); :func:`tree_reduce`
merges many blocks' moments pairwise. Every kind of input (:mod:`pcalib._inputs.matrix`)
reduces its rows to :class:`Moments`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._utils.threads import blas_threads, cores, limited_blas
from . import constants
from .center import Center

__all__ = [
    "Moments", "constant_columns", "gram_and_sums", "reads_in_place", "row_blocks", "settle_constant_columns",
    "shifted_gram", "sum_into_first", "tree_reduce",
]


# Moments.of_rows keeps the centered sums of squares of varying columns in this range
# (else it reads the data again scaled by a power of two): none overflows, and none that
# matters underflows (as pcalib._routes.scatter._ONE_PASS_SQUARES_RANGE).
_SQUARES_RANGE = (2.0**-600, 2.0**500)


@dataclass(frozen=True)
class Moments:
    r"""Count, mean and scatter matrix of a set of rows, about a shift.

    ``mean`` and ``scatter`` are those of :math:`y_i = x_i - c` (c = ``shift``, a
    float64 vector close to the mean): :math:`\bar x = c + \bar y`, and the scatter
    :math:`M = \sum_i (y_i - \bar y)(y_i - \bar y)^\top` is the same for x and y.
    Keeping the mean relative to c keeps every merge exact at large offsets:
    the numbers combined are of the size of the spread of the data, not of
    their offset. The scatter is kept in units of :math:`4^e` (e = ``exponent``, 0
    unless the squares of the data would leave the float64 range): the true
    scatter is :math:`4^e M`, so no square overflows or underflows at any scale.
    """

    n: int
    shift: np.ndarray  #: (p,) c
    mean: np.ndarray  #: (p,) mean of y = x - c
    scatter: np.ndarray  #: (p, p) symmetric, or its diagonal (p,) only; units of 4**exponent
    value: np.ndarray  #: (p,) the one value of each constant column, NaN for the others
    exponent: int = 0  #: e: the scatter of the data is 4**e times `scatter`

    @classmethod
    def of_rows(cls, block: np.ndarray, *, full: bool = True, scaled: bool = True) -> Moments:
        r"""Moments of the rows of a 2-D block (NaN or inf in it give a non-finite
        mean), with the shifted-data algorithm: for rows :math:`y_i = x_i - c`,

        .. math:: M = Y^\top Y - r r^\top / n, \qquad r = Y^\top \mathbf 1 ,

        in one pass (:func:`shifted_gram`; with ``full=False`` only the diagonal
        of M). The subtraction cancels by the factor :math:`1 + n \bar y_j^2 / M_{jj}`,
        so c only has to be close to the mean: c = 0, without copying the block,
        when it is C-contiguous float64 whose first ``constants.SHIFT_HEAD_ROWS`` rows have means
        at most their spread; else the mean of those rows (for integer data an
        integer, subtracted exactly in int64 before the conversion to float64; 0 for
        an int64 column wide enough to wrap around, :func:`_movable_integer_columns`).
        The result is
        accepted when :math:`n \bar y_j^2 \le M_{jj}` for every column (at most one
        bit lost). A column that fails, or whose :math:`M_{jj}` is 0, is read again:
        if it is constant, its row and column of M are exactly 0 and c its value;
        otherwise c moves to the mean just found and the pass is repeated (data
        sorted or drifting along the rows). One pass over the block in all (no
        reduction for the column extremes but for int64 data, no copy of the whole
        block). With `scaled`, floating data whose sums of squares leave
        ``_SQUARES_RANGE`` (overflow, or underflow that costs digits: data near
        :math:`10^{\pm 160}` and beyond) are read again as :math:`2^{-e} X`, e such
        that the largest entry becomes at least 1 and below 2 (exact: a power of
        two), and the scatter is kept in units of :math:`4^e`.
        """
        n, p = block.shape
        movable = _movable_integer_columns(block)
        integer = movable is not None
        head = block[:constants.SHIFT_HEAD_ROWS]
        if scaled and not integer and _beyond_square_range(head):
            return cls._of_scaled_rows(block, full)  # read as 2**-e X at once: no square overflows
        with np.errstate(all="ignore"):  # NaN and inf: the caller finds them in the mean
            head_mean = np.asarray(head.mean(axis=0), dtype=np.float64)
            head_var = np.concatenate(
                [head[:, start:start + constants.SHIFT_HEAD_COLUMNS].var(axis=0) for start in range(0, p, constants.SHIFT_HEAD_COLUMNS)]
            ) if p else np.zeros(0)
            shift = np.zeros(p)
            # |mean| > sd, not mean**2 > var: the square of a mean near 1e160 overflows
            if not reads_in_place(block) or np.any((np.abs(head_mean) > np.sqrt(head_var)) & (head_var > 0)):
                shift = head_mean
            constant = np.zeros(p, dtype=bool)
            for _ in range(3):
                if movable is not None:  # integer data
                    shift = np.where(movable, np.round(shift), 0.0)  # subtracted in int64: exact
                G, r = shifted_gram(block, shift, integer=integer, full=full)
                mean = r / n
                scatter = G - np.outer(r, mean) if full else G - r * mean
                squares = np.diagonal(scatter) if full else scatter
                if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(squares))):
                    break
                constant, failing = settle_constant_columns(block, mean, squares, constant)
                if not (failing & movable if integer else failing).any():
                    break  # (a failing column that cannot move: the caller sees it in the result)
                shift = shift + mean
        value = np.where(constant, block[0].astype(np.float64), np.nan)
        # a constant column is its value plus exactly 0 (whether or not y was shifted)
        shift = np.where(constant, value, shift)
        mean[constant] = 0.0
        if integer and constant.any():
            # an int64 value beyond 2**53 is not a float64: keep what rounding took off
            # (a small integer, exact) as the mean about the rounded value, so blocks
            # constant at 2**62 and 2**62 + 1 still differ when merged
            for j in np.flatnonzero(constant):
                mean[j] = float(int(block[0, j]) - int(value[j]))
        scatter[constant] = 0.0
        if full:
            scatter[:, constant] = 0.0
        found = cls(n, shift, mean, scatter, value)
        if scaled and not integer and found.squares_out_of_range(block):
            return cls._of_scaled_rows(block, full)
        return found

    @classmethod
    def _of_scaled_rows(cls, block: np.ndarray, full: bool) -> Moments:
        r"""The moments of floating rows read as :math:`2^{-e} X`, e such that the
        largest entry becomes at least 1 and below 2 (exact), the scatter kept in units
        of :math:`4^e`."""
        e = int(np.frexp(np.max(np.abs(block)))[1]) - 1  # 2**e finite, even near 1e308
        inner = cls.of_rows(np.ldexp(block, -e), full=full, scaled=False)
        return cls(block.shape[0], np.ldexp(inner.shift, e), np.ldexp(inner.mean, e), inner.scatter,
                   np.ldexp(inner.value, e), e)

    def squares_out_of_range(self, block: np.ndarray) -> bool:
        """Whether a varying column's sum of squares left ``_SQUARES_RANGE`` although
        every entry of `block` (the rows of these moments) is finite."""
        squares = self.squares[~self.constant]
        with np.errstate(invalid="ignore"):
            outside = ~((squares >= _SQUARES_RANGE[0]) & (squares <= _SQUARES_RANGE[1]))
        return bool(outside.any()) and bool(np.all(np.isfinite(block)))

    @property
    def squares(self) -> np.ndarray:
        """(p,): the diagonal of the scatter, each column's centered sum of squares."""
        return np.diagonal(self.scatter) if self.scatter.ndim == 2 else self.scatter

    @property
    def finite(self) -> bool:
        """Whether the mean and the sums of squares are finite (NaN or inf in the rows,
        or an overflow, make them not)."""
        return bool(np.all(np.isfinite(self.mean)) and np.all(np.isfinite(self.squares)))

    @property
    def constant(self) -> np.ndarray:
        """bool (p,): columns whose entries are all equal."""
        return ~np.isnan(self.value)

    def about(self, shift: np.ndarray) -> Moments:
        """The same moments about another shift (exact when the shifts are close:
        their difference is then computed without rounding)."""
        return replace(self, shift=shift, mean=self.mean + (self.shift - shift))

    def merge(self, other: Moments) -> Moments:
        r"""Moments of the union of two sets of rows (Chan, Golub and LeVeque 1979):

        .. math::

            n = n_a + n_b, \quad \delta = \bar y_b - \bar y_a, \quad
            \bar y = \bar y_a + \frac{n_b}{n}\delta, \quad
            M = M_a + M_b + \frac{n_a n_b}{n}\,\delta\delta^\top ,

        exact in exact arithmetic; in floating point every term is of the size of
        the spread of the data (both sets about the shift of the first), so no
        cancellation occurs, unlike :math:`\sum x x^\top - n \bar x \bar x^\top`.
        The scatters are added in the units of the larger exponent (:math:`4^e`) of the
        terms that are not 0 (:meth:`_merge_exponent`).
        """
        b = other.about(self.shift)
        n = self.n + b.n
        delta = b.mean - self.mean
        e = _merge_exponent(self, b, delta * np.sqrt(self.n * b.n / n))
        unit_delta = np.ldexp(delta, -e)
        weighted = unit_delta * (self.n * b.n / n)
        cross = np.outer(unit_delta, weighted) if self.scatter.ndim == 2 else unit_delta * weighted
        with np.errstate(under="ignore"):  # a far smaller scatter adds nothing
            scatters = [np.ldexp(m.scatter, 2 * (m.exponent - e)) for m in (self, b)]
        return Moments(
            n, self.shift, self.mean + delta * (b.n / n), scatters[0] + scatters[1] + cross,
            # constant in both with the same value: the rounded values and what rounding
            # took off (the means about the shared shift) agree
            np.where((self.value == b.value) & (b.mean == self.mean), self.value, np.nan), e,
        )

    def data_mean(self) -> np.ndarray:
        return self.shift + self.mean

    def center(self) -> Center:
        """The column means as the exact pair (shift, mean about it): see :class:`Center`."""
        return Center(self.shift, self.mean)


def _beyond_square_range(head: np.ndarray) -> bool:
    r"""Whether the largest entry of the first rows of a floating block is finite and
    beyond :math:`2^{200}`: then the sums of squares of the block leave
    ``_SQUARES_RANGE`` whatever its shift, and reading the block as it is would overflow
    before the scaled reading repaired it (under NumPy 1.26 that overflow escaped
    ``errstate`` as a RuntimeWarning, seen on Dask input at an offset of 1e15)."""
    if head.size == 0:
        return False
    with np.errstate(invalid="ignore"):  # two reductions: np.abs(head) would copy the head
        top = max(float(np.max(head)), -float(np.min(head)))
    return bool(np.isfinite(top) and top > 2.0**200)


def _merge_exponent(a: Moments, b: Moments, cross: np.ndarray) -> int:
    r"""The exponent of the merge of `a` and `b`, whose cross term is
    :math:`\mathbf w \mathbf w^\top`, :math:`\mathbf w` = `cross` (data units): the
    largest exponent of the terms that are not 0. A scatter of zeros (a block of one
    row, or of constant columns) has no units of its own: its exponent 0 would put the
    scatters of data at :math:`10^{-160}` (kept in units of :math:`4^{-532}`) into units
    where they underflow. The cross term needs the units of :math:`\mathbf w` when its
    squares leave ``_SQUARES_RANGE`` (blocks of single rows at :math:`10^{-200}`), and no
    other units when they are in range (exponent 0, as :meth:`Moments.of_rows` keeps)."""
    exponents = [m.exponent for m in (a, b) if np.any(m.scatter)]
    largest = float(np.max(np.abs(cross))) if cross.size else 0.0
    if largest > 0:
        in_range = _SQUARES_RANGE[0] <= largest * largest <= _SQUARES_RANGE[1]
        exponents.append(0 if in_range else int(np.frexp(largest)[1]))
    return max(exponents, default=max(a.exponent, b.exponent))


def row_blocks(n: int, p: int) -> list[slice]:
    """Row blocks for a pass over an n x p array: at most 4096 rows and 2**21 entries
    (16 MiB of float64, within the last-level cache, so :func:`gram_and_sums` reads
    each row from memory once), at least 256 rows for an efficient ``syrk`` update."""
    rows = max(256, min(4096, 2**21 // p))
    return [slice(start, min(start + rows, n)) for start in range(0, n, rows)]


def gram_and_sums(blocks: Iterable[np.ndarray], p: int, *, full: bool = True) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`G = Y^\top Y` (full, symmetric) and :math:`r = Y^\top \mathbf 1` of the
    rows of a sequence of float64 blocks :math:`B` of Y, in one pass:

    .. math:: G = \sum_B B^\top B, \qquad r = \sum_B B^\top \mathbf 1 .

    Each block is multiplied while it is in cache (``B.T @ B``, which NumPy's BLAS
    does as a ``syrk``, then the ``gemv`` of its column sums), so Y is read from
    memory once. Measured on 1,000,000 x 200 (2 cores): 0.78 s against 0.99 s for one
    ``X.T @ X`` and one ``gemv`` over all of X, and 0.80 s for SciPy's ``dsyrk``
    alone (its OpenBLAS is an older build than NumPy's). With ``full=False``, only
    the diagonal of G, :math:`\sum_i y_{ij}^2`.
    """
    G, r = np.zeros((p, p) if full else p), np.zeros(p)
    part = np.empty((p, p) if full else 0)
    ones = np.ones(0)
    for block in blocks:
        if ones.size < block.shape[0]:
            ones = np.ones(block.shape[0])
        if full:
            np.matmul(block.T, block, out=part)
            G += part
        else:
            G += np.einsum("ij,ij->j", block, block)
        r += ones[: block.shape[0]] @ block
    return G, r


def _movable_integer_columns(block: np.ndarray) -> np.ndarray | None:
    """For integer data, the columns that an integer shift c may move (bool, (p,)): for
    those, x - c is exact in int64 for any c within the column's range. Every column of
    integers of at most 32 bits; the int64 columns that span less than 2**62 (found by
    two reductions for the extremes). A wider int64 column keeps the shift 0 (x - c could
    wrap around; x - 0 always fits). None for floating data and uint64, which int64
    does not hold."""
    kind = block.dtype.kind
    if kind not in "iu" or (kind == "u" and block.dtype.itemsize == 8):
        return None
    if block.dtype.itemsize < 8 or block.shape[0] == 0:
        return np.ones(block.shape[1], dtype=bool)
    span = block.max(axis=0).astype(np.float64) - block.min(axis=0).astype(np.float64)
    return span < 2.0**62


def shifted_gram(
    block: np.ndarray, shift: np.ndarray, *, integer: bool = False, full: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`Y^\top Y` (with ``full=False`` its diagonal) and :math:`Y^\top \mathbf 1`
    of :math:`Y = X - \mathbf 1 c^\top` (X = `block`, c = `shift`), in one pass by
    row blocks (:func:`gram_and_sums`). No copy when c = 0 and X is C-contiguous
    float64; otherwise each row block is shifted into a reusable float64 buffer
    (with `integer`, c holds whole numbers and is subtracted in int64, exactly as
    long as the differences fit).

    With T > 1 BLAS threads (at most :func:`pcalib._utils.threads.cores`: OpenBLAS counts the cores it may
    run on, not a container's CPU quota), the row blocks are split into T runs of
    consecutive blocks, summed by T threads with one BLAS thread each, and the T partial sums
    added in order (deterministic for a given T). Measured on 2 cores: 0.66 s
    against 0.80 s at 1,000,000 x 200, 1.13 s against 1.45 s at 300,000 x 500 (one
    BLAS call with two threads pays a fork and join per block).
    """
    n, p = block.shape
    blocks = row_blocks(n, p)
    threads = min(blas_threads(), cores(), len(blocks)) if block.size >= constants.PARALLEL_MIN_ENTRIES else 1
    if threads == 1:
        return _shifted_gram_of(block, blocks, shift, integer, full)
    runs = np.array_split(np.arange(len(blocks)), threads)
    with limited_blas(), ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(
            lambda run: _shifted_gram_of(block, [blocks[i] for i in run], shift, integer, full), runs
        ))
    return sum_into_first([G for G, _ in parts]), sum_into_first([r for _, r in parts])


def _shifted_gram_of(
    block: np.ndarray, blocks: list[slice], shift: np.ndarray, integer: bool, full: bool
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`shifted_gram` of the rows in `blocks`, on the calling thread."""
    p = block.shape[1]
    if not shift.any() and reads_in_place(block):
        return gram_and_sums((block[rows] for rows in blocks), p, full=full)
    buf = np.empty((max(rows.stop - rows.start for rows in blocks), p))
    if integer:
        whole = shift.astype(np.int64)
        shifted = (_into(buf, np.subtract(block[rows], whole, dtype=np.int64)) for rows in blocks)
    else:
        shifted = (np.subtract(block[rows], shift, out=buf[: rows.stop - rows.start]) for rows in blocks)
    return gram_and_sums(shifted, p, full=full)


def _into(buf: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """`rows` converted to float64 into the first rows of `buf`."""
    out = buf[: rows.shape[0]]
    np.copyto(out, rows)
    return out


def reads_in_place(block: np.ndarray) -> bool:
    """Whether BLAS reads `block` without a converted copy (C-contiguous float64)."""
    return block.dtype == np.float64 and block.flags.c_contiguous


def settle_constant_columns(
    block: np.ndarray, mean: np.ndarray, squares: np.ndarray, constant: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    r"""After a pass that found the means :math:`\bar y_j` and centered sums of squares
    :math:`M_{jj}` of the n rows of `block` (about some shift): the columns that lost
    more than one bit (:math:`n \bar y_j^2 > M_{jj}`) or whose :math:`M_{jj}` is 0,
    among those not yet known `constant`, are read again (:func:`constant_columns`).
    Returns ``(constant, failing)``: the columns now known constant, and those that
    failed and are not constant (the pass has to be redone for them)."""
    # compared as square roots: no square of the mean, which may be the data's own size
    spread = np.sqrt(np.maximum(squares, 0.0))
    suspect = ~constant & ((np.abs(mean) * np.sqrt(block.shape[0]) > spread) | (squares <= 0))
    constant = constant.copy()
    constant[suspect] = constant_columns(block, np.flatnonzero(suspect))
    return constant, suspect & ~constant


def constant_columns(block: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Which of `columns` of `block` hold one value only (bool, one per column), read by
    row blocks; stops at the first block where none is left."""
    first = block[0, columns]
    constant = np.ones(columns.size, dtype=bool)
    for rows in row_blocks(*block.shape) if columns.size else []:
        constant &= np.all(block[rows][:, columns] == first, axis=0)
        if not constant.any():
            break
    return constant


def tree_reduce(parts: Sequence[Any], combine: Callable[[Any, Any], Any]) -> Any:
    """Combine `parts` pairwise, level by level: a balanced tree of depth log2(len(parts))
    (with Dask delayed objects, the tree of tasks that runs in parallel)."""
    parts = list(parts)
    while len(parts) > 1:
        pairs = [combine(a, b) for a, b in zip(parts[::2], parts[1::2])]
        parts = pairs + parts[len(pairs) * 2:]
    return parts[0]


def sum_into_first(parts: list[np.ndarray]) -> np.ndarray:
    """The sum of `parts`, in their order, added into the first (no other array)."""
    total = parts[0]
    for part in parts[1:]:
        total += part
    return total

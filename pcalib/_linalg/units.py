r"""The exact units in which pcalib reads data, and the way back to the data's units.

A data matrix X is read as :math:`y = (x - c)\, 2^{-e}` (:class:`Frame`): c the column
minima of integer data (0 for floating data), e the power of two that brings the largest
column range into [1/2, 1). Both steps are exact (short of subnormal numbers), and in
these units no square or sum of squares overflows or underflows, at any scale of X.

* :func:`center_array`: the centered (optionally standardized) copy of a validated
  array in its frame (:class:`Centered`), the one full-size copy that the SVD, Gram,
  Krylov and randomized routes work on; :func:`centered_data` validates X and returns
  that copy in the data's units;
* :func:`checked_scale`: the column standard deviations of standardized data, refusing
  constant columns;
* :func:`rescale`: a result times its power of two, back in the data's units, with a
  warning when it leaves the float64 range;
* :func:`unit_exponent`: the one power of two of data with missing entries (NaN), in
  whose units the fits of the chapter *Missing values* run;
* :func:`median_shifted`: the data read in their frame and shifted by a median value
  of each column, in whose units the robust fits of the chapter *Outliers and robust
  PCA* run (they start from medians, not means);
* :func:`centered_rows`: rows centered by a fitted center and scaled, in exact units
  (the reading aids of the chapter *Reading the components*);
* :func:`norm_exponent`: the power of two that brings the largest column norm of
  centered data, known by its sums of squares, into [1/2, 1) (the units of the Krylov
  routes' products);
* :func:`rescale_squares`: squares of results times a power of four, back in the
  data's units, without squaring outside the float64 range;
* :func:`unresolved_columns`: varying columns whose variance is below what one frame
  resolves (a column a million billion times smaller in spread than another).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._utils.validation import output_dtype, validated, warn_outside_pcalib
from .center import Center

__all__ = [
    "Centered", "Frame", "Shifted", "center_array", "centered_data", "centered_rows",
    "checked_scale", "incomplete_units", "median_shifted", "norm_exponent", "rescale",
    "rescale_squares", "unit_exponent", "unresolved_columns",
]


def rescale(values: np.ndarray, exponent: np.ndarray | int, what: str) -> np.ndarray:
    r"""``values * 2**exponent`` (exact), warning when the result leaves the float64 range.

    A number too large for float64 becomes ``inf``, one too small loses digits
    (subnormal) or becomes 0; both are said in a ``RuntimeWarning`` naming `what`,
    never left to a silent overflow or a NaN further on. (A subnormal result that
    lost no digit, as when the data themselves are subnormal, is not warned about.)
    """
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        result = np.ldexp(values, exponent)
        back = np.ldexp(result, -np.asarray(exponent))
    # An entry that overflowed (inf from a finite value) or lost digits does not come
    # back: one comparison clears the common case, the two tests below tell them apart.
    if back.shape == values.shape and np.equal(back, values).all():
        return result
    if np.any(np.isinf(result) & np.isfinite(values)):
        warn_outside_pcalib(
            f"{what}: above the float64 range (about 1.8e308) at the scale of X, so "
            "reported as inf (scale-free results, such as axes and ratios, are not "
            "affected): rescale X to get finite values"
        )
    else:  # digits lost (or NaN, which never compares equal)
        warn_outside_pcalib(
            f"{what}: below the normal float64 range (about 2.2e-308) at the scale of X, so "
            "digits are lost or values are 0 (scale-free results, such as axes and ratios, "
            "are not affected): rescale X to get full precision"
        )
    return result


@dataclass(frozen=True)
class Frame:
    r"""The exact change of units in which pcalib reads a data matrix.

    A block of rows ``x`` is read as

    .. math:: y = (x - c)\, 2^{-e}

    with c the column minima for integer data (subtracted in integer arithmetic,
    so 64-bit integers beyond :math:`2^{53}` lose no digit before the
    conversion to float64) and c = 0 for floating data, and e the power of two
    that brings the largest column range into [1/2, 1) (one exponent for all
    columns; one per column when the columns are to be standardized). Scaling by
    a power of two is exact (short of subnormal numbers), and in these units no
    square or sum of squares overflows or underflows, at any scale of X.

    This and :meth:`read` are the only places where the data are touched before
    centering: every route reads its blocks through them, except the covariance
    route's one pass (:func:`pcalib._routes.scatter._one_pass_scatter`), which reads the data in
    their own units (the frame of exponent 0), as they are or shifted by the mean
    of their first rows, when their squares are safely in range.
    """

    offset: np.ndarray | None  #: integer column minima (integer data), else None
    exponent: np.ndarray  #: e, an integer array of shape () or (p,)
    constant: np.ndarray  #: bool (p,), columns whose entries are all equal

    @classmethod
    def of(cls, arr: np.ndarray, *, per_column: bool = False) -> Frame:
        """The frame of a validated array (two passes: column minima and maxima)."""
        low, high = np.minimum.reduce(arr, axis=0), np.maximum.reduce(arr, axis=0)
        if arr.dtype.kind in "iu":
            offset = low
            spread = (high.astype(np.uint64) - low.astype(np.uint64)).astype(np.float64)
            shift = 0
        else:
            offset = None  # halves, so that the range of a column at +-1e308 stays finite
            spread = high.astype(np.float64) / 2 - low.astype(np.float64) / 2
            shift = 1
        if per_column:
            exponent = np.where(spread > 0, np.frexp(spread)[1] + shift, 0).astype(np.int64)
        else:  # one exponent, found in Python's float arithmetic (the same frexp)
            largest = float(np.maximum.reduce(spread))
            exponent = np.array(math.frexp(largest)[1] + shift if largest > 0 else 0, dtype=np.int64)
        return cls(offset, exponent, low == high)

    def read(self, block: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``(block - c) * 2**-e`` as float64 (a new array, or written into `out`)."""
        if self.offset is not None:  # x - c in [0, 2**64): exact in uint64 arithmetic
            block = block.astype(np.uint64) - self.offset.astype(np.uint64)
        if out is None:
            out = np.array(block, dtype=np.float64, order="C")
        else:
            np.copyto(out, block)
        if self.exponent.ndim == 0:  # one exponent: Python arithmetic, no reductions
            power = -int(self.exponent)
            if power == 0:  # the data's own units: nothing to scale
                return out
            if -1022 <= power <= 1023:  # see below
                out *= math.ldexp(1.0, power)
                return out
            return np.ldexp(out, power, out=out)
        powers = -self.exponent
        if np.all((powers >= -1022) & (powers <= 1023)):
            # a normal power of two: the product is the same correctly rounded number
            # as ldexp's, and NumPy's multiplication is vectorized (ldexp is not: 1.9 s
            # against about 0.3 s over 1,000,000 x 200). Beyond (subnormal data, whose
            # exponent reaches -1074), the power itself is not a float64: ldexp.
            out *= np.ldexp(1.0, powers)
            return out
        return np.ldexp(out, powers, out=out)

    def data_center(self, center: Center) -> Center:
        """Column means in the data's units (the exact pair, :class:`pcalib._linalg.center.Center`)
        from column means read in this frame."""
        shift, offset = np.ldexp(center.shift, self.exponent), np.ldexp(center.offset, self.exponent)
        if self.offset is None:
            return Center(shift, offset)
        return Center.of_integers(self.offset, shift + offset)


class Centered(NamedTuple):
    """The centered data as the routes see them (:func:`center_array`)."""

    values: np.ndarray  #: (n, p) float64, C-contiguous: centered, in units of 2**exponent (or standardized)
    center: Center  #: the column means, in the data's units
    scale: np.ndarray  #: (p,) column standard deviations in the data's units (ones unless standardized)
    exponent: int  #: the centered data in the data's units are ``values * 2**exponent``
    constant: np.ndarray  #: bool (p,), constant columns


def checked_scale(constant: np.ndarray, sum_squares: np.ndarray, n: int, ddof: int, name: str = "X") -> np.ndarray:
    """Column standard deviations from the centered column sums of squares; refuse constant columns."""
    if np.any(constant):
        cols = np.flatnonzero(constant).tolist()
        raise ValueError(
            f"{name} has zero variance in column(s) {cols}; "
            "standardizing would divide by zero (drop the constant column(s))"
        )
    return np.sqrt(sum_squares / (n - ddof))


def center_array(arr: np.ndarray, ddof: int, *, scale: bool = False, name: str = "X") -> Centered:
    r"""Center (and optionally standardize) a validated array: the one full-size copy
    that the svd, gram and randomized routes work on. `arr` is not modified.

    The data are read through their :class:`Frame`, then centered twice: the
    second pass removes the rounding error of the first mean, which a large
    offset would otherwise leave in every centered value (at an offset of
    :math:`10^{15}` a float64 mean is off by about 0.1). A constant column is
    set to exactly 0.
    """
    frame = Frame.of(arr, per_column=scale)
    Xc = frame.read(arr)
    steps = []
    for _ in range(2):  # the column means, as ndarray.mean takes them (a sum over n)
        steps.append(np.add.reduce(Xc, axis=0) / Xc.shape[0])
        Xc -= steps[-1]
    if frame.constant.any():
        Xc[:, frame.constant] = 0.0
    sd = np.ones(arr.shape[1])
    exponent = int(frame.exponent) if frame.exponent.ndim == 0 else int(frame.exponent.max())
    if scale:
        sd = checked_scale(frame.constant, np.einsum("ij,ij->j", Xc, Xc), arr.shape[0], ddof, name)
        Xc /= sd
        sd = rescale(sd, frame.exponent, "the standard deviations")
        exponent = 0
    return Centered(Xc, frame.data_center(Center(*steps)), sd, exponent, frame.constant)


def centered_data(
    X: ArrayLike, ddof: int, *, scale: bool = False, name: str = "X"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.dtype]:
    """Validate `X` and return a centered (optionally scaled) float64 copy, in the data's units.

    Returns
    -------
    Xc : ndarray (n, p), float64, C-contiguous
    mean : ndarray (p,), float64
    scale : ndarray (p,), float64 (ones when ``scale`` is False)
    ddof : int
    dtype : the output dtype (float32 for float32 input, else float64)
    """
    arr, ddof = validated(X, ddof, name)
    centered = center_array(arr, ddof, scale=scale, name=name)
    Xc = rescale(centered.values, centered.exponent, "the centered data")
    return Xc, centered.center.value, centered.scale, ddof, output_dtype(arr)


def unit_exponent(arr: np.ndarray) -> int:
    r"""The e with :math:`\max_{ij} |x_{ij}|\, 2^{-e} \in [1/2, 1)` over the non-NaN entries
    (0 if they are all 0).

    ``np.ldexp(arr, -e)`` is exact (a change of units by a power of two) and
    puts every entry in (-1, 1), so sums of squares neither overflow (:math:`10^{160}`
    squared) nor underflow (:math:`10^{-200}` squared is 0); every result in these units
    is converted back exactly. The iterations and their stopping tests are the same
    at every scale (to the last bit for scales that are powers of two).
    """
    largest = float(np.nanmax(np.abs(arr))) if arr.size else 0.0
    return int(np.frexp(largest)[1]) if largest > 0 else 0


def incomplete_units(arr: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    r"""Data with missing entries in the units where their fits run: `y`, `c` and `e`
    with :math:`x = c + 2^e y` on the observed entries.

    c holds the column means of the observed entries and e brings the largest
    :math:`|x_{ij} - c_j|` into [1/2, 1) (:func:`unit_exponent`); y is NaN at the missing
    entries. The deviations :math:`x_{ij} - c_j` are exact when they are small against
    :math:`c_j` (Sterbenz), so an offset of :math:`10^{12}` costs no digit, where a
    mean taken in the iterations from values near :math:`10^{12}` would be off by
    :math:`10^{12}\varepsilon` in every centered value (the difference a first mean
    makes, :func:`center_array` removes it with a second). The means are taken in units
    of :func:`unit_exponent` of x, so nothing overflows at :math:`10^{300}`.
    """
    e0 = unit_exponent(arr)
    x = np.where(observed, np.ldexp(arr, -e0), np.nan)
    shift = np.nanmean(x, axis=0)
    deviations = x - shift
    e1 = unit_exponent(deviations)
    return np.ldexp(deviations, -e1), np.ldexp(shift, e0), e0 + e1


class Shifted(NamedTuple):
    """Data in the units of :func:`median_shifted`, with the way back to the data's units."""

    values: np.ndarray  #: (n, p) float64, :math:`y = (x - c)\, 2^{-e} - s`
    frame: Frame  #: the frame (c, e) in which the data were read
    shift: np.ndarray  #: (p,) s, a value of each column of the frame's reading

    @property
    def exponent(self) -> int:
        """e: a size in these units times :math:`2^e` is the size in the data's units."""
        return int(self.frame.exponent.max())

    def data_location(self, location: np.ndarray) -> Center:
        """A location given in these units, as the exact pair :class:`pcalib._linalg.center.Center`
        in the data's units (its ``subtract`` centers new rows exactly)."""
        return self.frame.data_center(Center(self.shift, np.asarray(location, dtype=np.float64)))


def median_shifted(arr: np.ndarray) -> Shifted:
    r"""A validated array read in its :class:`Frame` and shifted by a middle value of each
    column: :math:`y = (x - c)\, 2^{-e} - s`, s the lower median of each column of
    :math:`(x - c)\, 2^{-e}`.

    The frame makes the reading exact (integers offset in integer arithmetic, floats
    scaled by a power of two); s is one of the column's own values, so each difference
    is one correctly rounded subtraction, and the values lie in [-1, 1]. An estimator
    that starts from medians (the robust fits) then works near 0 at every offset and
    scale: a weighted mean of rows at an offset of :math:`10^{12}` would carry an
    absolute rounding error of about :math:`10^{-4}` into every later step.
    `arr` is not modified.
    """
    frame = Frame.of(arr)
    values = frame.read(arr)
    middle = (values.shape[0] - 1) // 2
    shift = np.partition(values, middle, axis=0)[middle].copy()
    values -= shift
    return Shifted(values, frame, shift)


def centered_rows(block: np.ndarray, center: Center, scale: np.ndarray) -> tuple[np.ndarray, int]:
    r"""Rows centered by a fitted center and divided by the scales, in exact units.

    For rows :math:`\mathbf x_i` of `block`, the column means
    :math:`\bar{\mathbf x} = \mathbf c + \bar{\mathbf y}` of a fit (`center`, the exact
    pair) and the scales :math:`d_l` (`scale`; ones without standardizing),

    .. math:: \mathbf z_i = D^{-1}\big((\mathbf x_i - \mathbf c) - \bar{\mathbf y}\big)
              = 2^{e}\, \mathbf y_i,

    returned as the :math:`\mathbf y_i` and e, the power of two that brings the
    largest :math:`|y_{il}|` into [1/2, 1) (e = 0 when every entry is 0). Integer data
    are centered in integer arithmetic (:meth:`pcalib._linalg.center.Center.subtract`);
    floating data are first read in units of the largest of :math:`|x_{il}|`,
    :math:`|c_l|` and :math:`|\bar y_l|` (an exact change of units, so that
    :math:`\mathbf x - \mathbf c` cannot overflow at :math:`\pm 10^{308}`), each
    column divided by its scale as a mantissa and a power of two. Every step is exact
    or rounds once relative to the spread of the data (not to their offset), and in
    the units of :math:`\mathbf y_i` no square or sum of squares overflows or
    underflows, at any scale of the data.

    Parameters
    ----------
    block : ndarray of shape (m, p)
        Validated finite rows, of any real or integer dtype.
    center : Center
        The column means of the fit, in the data's units.
    scale : ndarray of shape (p,)
        Positive column scales in the data's units.

    Returns
    -------
    (Y, e) : ndarray of shape (m, p), float64, and int
    """
    scale = np.asarray(scale, dtype=np.float64)
    if block.dtype.kind in "iu":  # exact integer differences, at most 2**64 in size
        read, shift = center, 0
    else:
        sizes = [np.abs(block).max(initial=0.0), np.abs(center.shift).max(initial=0.0),
                 np.abs(center.offset).max(initial=0.0)]
        shift = unit_exponent(np.array(sizes, dtype=np.float64))
        read = Center(np.ldexp(center.shift, -shift), np.ldexp(center.offset, -shift))
        block = np.ldexp(np.asarray(block, dtype=np.float64), -shift)
    values = read.subtract(block)
    mantissa, power = np.frexp(scale)  # d_l = mantissa_l 2**power_l, mantissa in [1/2, 1)
    values /= mantissa
    columns = shift - power  # column l of z is values[:, l] * 2**columns[l]
    largest = np.abs(values).max(axis=0, initial=0.0)
    top = (np.frexp(largest)[1] + columns)[largest > 0]
    exponent = int(top.max()) if top.size else 0
    return np.ldexp(values, columns - exponent), exponent


def norm_exponent(sums_of_squares: np.ndarray) -> int:
    r"""The f with :math:`\max_j \sqrt{m_j}\; 2^{-f} \in [1/2, 1)` for the column sums of
    squares :math:`m_j = \sum_i y_{ij}^2` (finite, not negative); 0 if they are all 0.

    Dividing the columns by :math:`2^f` (exact) gives a matrix Z whose columns have
    norms at most 1, so :math:`\|Z\|_2 \le \sqrt p` and the products
    :math:`Z^\top (Z Q)` of a Krylov method neither overflow nor underflow, and their
    Gram matrices neither, whatever the scale of the data (at :math:`10^{-85}` the
    Gram matrix of :math:`Z^\top Z Q` in the data's units is :math:`10^{-340}`: 0).
    """
    largest = float(np.max(sums_of_squares)) if np.size(sums_of_squares) else 0.0
    return int(np.frexp(np.sqrt(largest))[1]) if largest > 0 else 0


def rescale_squares(values: np.ndarray, exponent: np.ndarray | int, what: str, divisor: float = 1.0) -> np.ndarray:
    r""":math:`v^2\, 4^{e} / d` for each value v (`values`), e = `exponent`, d = `divisor`,
    with a warning when the result leaves the float64 range.

    With :math:`v = \mu\, 2^{f}` (:math:`\mu \in [1/2, 1)`, ``numpy.frexp``), the
    result is :math:`(\mu^2 / d)\, 2^{2(f + e)}`: the square is never formed in the
    units of v, where a value of :math:`10^{-200}` (a singular value in units in which
    another column is :math:`10^{200}`) squares to 0 and :math:`10^{200}` to inf. A result
    beyond float64 is inf, one below it 0 or subnormal; either is said in a
    ``RuntimeWarning`` naming `what` (the computation itself ran in units where nothing
    overflowed or underflowed).
    """
    mantissa, power = np.frexp(np.asarray(values, dtype=np.float64))
    exponent = np.asarray(exponent)
    with np.errstate(over="ignore", under="ignore"):
        result = np.ldexp(mantissa * mantissa / divisor, 2 * (power + exponent))
    exact = mantissa * mantissa / divisor
    if np.any(np.isinf(result) & np.isfinite(exact)):
        warn_outside_pcalib(
            f"{what}: above the float64 range (about 1.8e308) at the scale of X, so reported "
            "as inf (they were computed in units where nothing overflows): rescale X to get "
            "finite values"
        )
    elif not np.array_equal(np.ldexp(result, -2 * (power + exponent)), exact):  # digits lost
        warn_outside_pcalib(
            f"{what}: below the normal float64 range (about 2.2e-308) at the scale of X, so "
            "digits are lost or values are 0 (they were computed in units where nothing "
            "underflows): rescale X to get full precision"
        )
    return result


def unresolved_columns(sums_of_squares: np.ndarray, constant: np.ndarray, resolution: float) -> np.ndarray:
    r"""The varying columns whose centered sum of squares :math:`m_j` is at most
    `resolution` times the total :math:`\sum_l m_l` (indices, increasing).

    In one frame of units (one power of two for all columns) a PCA resolves variances
    down to about :math:`c\,\varepsilon` of the largest eigenvalue (the covariance,
    Gram and Krylov routes) or :math:`(c\,\varepsilon)^2` (the SVD): a column whose
    spread is :math:`10^{-200}` of another's has squares that underflow to 0 there, and
    one :math:`10^{-10}` times as wide is already round-off for the covariance route.
    Such a column varies, but the fit cannot see it: the eigenvalues and axes of the
    components that depend on it are not determined. `sums_of_squares` may have
    underflowed to 0; `constant` marks the columns that are truly constant.
    """
    squares = np.asarray(sums_of_squares, dtype=np.float64)
    total = float(np.sum(squares))
    return np.flatnonzero(~constant & (squares <= resolution * total))

r"""Column means kept as a pair, so that centering stays exact at any offset.

A float64 mean of data far from 0 is rounded: at an offset of :math:`10^{15}` by up
to 0.06, and an int64 mean near :math:`2^{62}` by up to 512. Subtracting that
rounded mean from new rows (``transform``, a Dask chunk, a product with the
centered data) moves every centered value by the rounding error, though the fit
itself centered exactly. :class:`Center` keeps the mean as
:math:`\bar x = c + \bar y`: a shift c close to the mean (whole numbers for
integer data) and the small mean :math:`\bar y` of :math:`x - c`, both exact
where the fit found them. :meth:`Center.subtract` computes
:math:`(x - c) - \bar y`: the first difference is exact (integers in integer
arithmetic; floats within a factor 2 of c by Sterbenz's lemma), the second is
of the size of the spread of the data, so the centered values are accurate to
about :math:`\varepsilon` times that spread, not times the offset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Integer differences at most this large are formed exactly in 64-bit integers (they
# cannot wrap around); larger ones, in columns spanning more than 2**62, are rounded
# to float64, an error of eps relative to the column's spread.
_EXACT_INTEGER_DIFFERENCE = 2.0**62


@dataclass(frozen=True)
class Center:
    r"""The column means :math:`\bar x = c + \bar y` of some data, as a pair.

    ``shift`` (c) holds whole numbers for integer data; ``offset`` (:math:`\bar y`)
    is the mean of :math:`x - c`, of the size of the spread of the data.
    """

    shift: np.ndarray  #: (p,) float64, c
    offset: np.ndarray  #: (p,) float64, the mean of x - c

    @classmethod
    def of(cls, mean: np.ndarray) -> Center:
        """A mean known only as one float64 vector (shift = mean, offset = 0)."""
        mean = np.asarray(mean, dtype=np.float64)
        return cls(mean, np.zeros_like(mean))

    @classmethod
    def of_integers(cls, whole: np.ndarray, offset: np.ndarray) -> Center:
        r"""The mean ``whole + offset`` of integer data, `whole` an integer array.

        c is `whole` rounded to float64 (still a whole number); what rounding took
        off (at most 1024 in size, found exactly in 64-bit integers) joins the offset.
        """
        top = 2.0**64 if whole.dtype == np.uint64 else 2.0**63
        shift = np.minimum(whole.astype(np.float64), np.nextafter(top, 0.0))
        taken = (whole.astype(np.uint64) - _as_uint64(shift)).view(np.int64)
        return cls(shift, taken.astype(np.float64) + offset)

    @property
    def value(self) -> np.ndarray:
        r""":math:`\bar x = c + \bar y` as one float64 vector (rounded)."""
        return self.shift + self.offset

    def subtract(self, block: np.ndarray) -> np.ndarray:
        r""":math:`(x - c) - \bar y` for each row x of `block`, as a new float64 array.

        For 64-bit integer data and whole-number c beyond :math:`2^{53}` (where
        float64 no longer holds every integer), :math:`x - c` is formed in 64-bit
        integers (exact; differences beyond :math:`2^{62}` in size, in columns that
        wide, are rounded to float64 instead).
        """
        # float64 holds every integer of at most 53 bits: only 64-bit integers far from 0
        # need the integer difference
        whole = block.dtype.kind in "iu" and block.dtype.itemsize == 8 and bool(
            np.any(np.abs(self.shift) >= 2.0**53)
            and np.all(self.shift == np.floor(self.shift))
            and np.all((self.shift >= -(2.0**63)) & (self.shift < 2.0**64))
        )
        if not whole:
            return self.remove_from(np.array(block, dtype=np.float64, order="C"))
        z = _integer_difference(block, self.shift)
        if self.offset.any():
            z -= self.offset
        return z

    def remove_from(self, z: np.ndarray) -> np.ndarray:
        """:math:`(z - c) - \\bar y` in place, for a float64 array `z`; returns `z`."""
        if self.shift.any():
            z -= self.shift
        if self.offset.any():
            z -= self.offset
        return z


def standardized_block(block: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
    r"""The rows of `block` centered and scaled, :math:`((x - c) - \bar y) / d`, as a new
    float64 array.

    Centered exactly (:meth:`Center.subtract`), then divided by the scales d
    (`scale`, skipped when they are all 1).

    Parameters
    ----------
    block : ndarray of shape (m, p)
    center : Center
        The column means.
    scale : ndarray of shape (p,)

    Returns
    -------
    ndarray of shape (m, p)
    """
    z = center.subtract(block)
    if np.any(scale != 1.0):
        z /= scale
    return z


def _as_uint64(whole: np.ndarray) -> np.ndarray:
    """Whole-number float64 values in [-2**63, 2**64) as uint64, modulo 2**64."""
    big = whole >= 2.0**63
    out = np.empty(whole.shape, dtype=np.uint64)
    out[big] = whole[big].astype(np.uint64)
    out[~big] = whole[~big].astype(np.int64).view(np.uint64)
    return out


def _integer_difference(block: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``block - shift`` as float64 (C order) for an integer block and whole-number
    float64 shifts: exact in 64-bit integers (modulo 2**64, read as signed) wherever
    the difference is below 2**62 in size, else rounded."""
    rounded = np.array(block, dtype=np.float64, order="C")
    rounded -= shift
    with np.errstate(over="ignore"):
        exact = (block.astype(np.uint64) - _as_uint64(shift)).view(np.int64).astype(np.float64)
    return np.where(np.abs(rounded) < _EXACT_INTEGER_DIFFERENCE, exact, rounded)

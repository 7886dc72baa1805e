"""The sign convention shared by every solver of pcalib.

An eigenvector or singular vector is defined only up to sign. pcalib flips each
axis so that its entry of largest absolute value is positive. Entries within a
relative ``TIE_TOLERANCE`` of the largest count as tied, and the first of them
decides: otherwise, for an axis such as (1, -1)/sqrt(2), round-off would pick
the sign and two solvers could disagree. Flipping uses +1/-1 factors, never
``np.sign``, which returns 0 for a zero entry and would wipe the axis.
"""

from __future__ import annotations

import numpy as np

__all__ = ["axis_signs", "TIE_TOLERANCE"]

#: Relative gap below which two entries of an axis are treated as tied in size
#: (sqrt of float64 epsilon: far above solver round-off, far below real gaps).
TIE_TOLERANCE = float(np.sqrt(np.finfo(np.float64).eps))


def axis_signs(axes: np.ndarray) -> np.ndarray:
    r"""Factors of +1 or -1 that make each row of `axes` follow the convention.

    .. math::

        s_i = \operatorname{sign}\big(a_{i j^*}\big), \qquad
        j^* = \min\{\, j : |a_{ij}| \ge (1 - \tau) \max_l |a_{il}| \,\}

    with :math:`\tau` = ``TIE_TOLERANCE`` and the sign of 0 taken as +1.

    Parameters
    ----------
    axes : ndarray of shape (k, p)
        One axis per row.

    Returns
    -------
    ndarray of shape (k,)
        ``s[i]`` is +1 or -1; multiplying row ``i`` by ``s[i]`` applies the
        convention. Same dtype as `axes`.
    """
    magnitude = np.abs(axes)
    largest = magnitude.max(axis=1, keepdims=True)
    pivot_index = np.argmax(magnitude >= (1 - TIE_TOLERANCE) * largest, axis=1)
    pivots = axes[np.arange(axes.shape[0]), pivot_index]
    return np.where(pivots < 0, -1.0, 1.0).astype(axes.dtype)

"""The sign convention shared by every solver of pcalib.

An eigenvector or singular vector is defined only up to sign. pcalib flips each
axis so that its entry of largest absolute value is positive (the first such
entry on a tie). Flipping uses +1/-1 factors, never ``np.sign``, which returns 0
for a zero entry and would wipe the axis.
"""

from __future__ import annotations

import numpy as np

__all__ = ["axis_signs"]


def axis_signs(axes: np.ndarray) -> np.ndarray:
    r"""Factors of +1 or -1 that make each row of `axes` follow the convention.

    Parameters
    ----------
    axes : ndarray of shape (k, p)
        One axis per row.

    Returns
    -------
    ndarray of shape (k,)
        ``s[i] = +1`` if the entry of largest absolute value of row ``i`` is
        positive, else ``-1``; multiplying row ``i`` by ``s[i]`` applies the
        convention.
    """
    idx = np.argmax(np.abs(axes), axis=1)
    pivots = axes[np.arange(axes.shape[0]), idx]
    return np.where(pivots < 0, -1.0, 1.0).astype(axes.dtype)

"""Centering: the mean vector and the centering matrix (chapter *Centering*)."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._linalg.units import center_array, rescale
from ._utils.validation import as_data_matrix, output_dtype

__all__ = ["centering_matrix", "center"]


def centering_matrix(n: int) -> np.ndarray:
    r"""The n x n centering matrix.

    .. math:: H = I_n - \frac{1}{n} \mathbf{1}\mathbf{1}^\top

    ``H @ X`` subtracts the column means of an n x p matrix ``X``. H is
    symmetric, idempotent, satisfies ``H @ 1 = 0`` and has rank n - 1.

    Parameters
    ----------
    n : int
        Number of samples, at least 1.

    Returns
    -------
    ndarray of shape (n, n), float64

    Raises
    ------
    TypeError
        If `n` is not an integer.
    ValueError
        If `n` is smaller than 1.

    Examples
    --------
    >>> centering_matrix(2)
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n must be an integer, got {n!r} of type {type(n).__name__}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    H = np.full((n, n), -1.0 / n)
    H[np.diag_indices(n)] += 1.0
    return H


def center(X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    r"""Remove the column means of a data matrix.

    .. math::

        \bar{x} = \frac{1}{n} X^\top \mathbf{1}, \qquad
        X_c = X - \mathbf{1}\bar{x}^\top = H X

    The subtraction is done directly (O(np)), not by forming H (O(n^2 p)),
    and twice: the second pass removes the rounding error of the first mean,
    so the centered values are exact to round-off even at an offset of
    :math:`10^{15}`; integer data have an integer offset subtracted before
    their conversion to float (exact for int64 beyond :math:`2^{53}`).

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, one sample per row. Not modified.

    Returns
    -------
    Xc : ndarray of shape (n, p)
        Centered copy of `X`; its column sums are zero to round-off.
    mean : ndarray of shape (p,)
        The mean vector :math:`\bar{x}`.

    Notes
    -----
    Integer input is returned as float64; float32 input stays float32.

    Examples
    --------
    >>> Xc, mean = center([[1.0, 2.0], [3.0, 6.0]])
    >>> mean
    array([2., 4.])
    >>> Xc
    array([[-1., -2.],
           [ 1.,  2.]])
    """
    arr = as_data_matrix(X, "X", copy=False, keep_integers=True)
    centered = center_array(arr, 0)
    Xc = rescale(centered.values, centered.exponent, "the centered data")
    dtype = output_dtype(arr)
    return Xc.astype(dtype, copy=False), centered.center.value.astype(dtype)

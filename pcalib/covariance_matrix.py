r"""Covariance, total variance and standardization (chapter *Covariance*).

Every function centers the data first (:func:`pcalib.center`) and never forms
the n x n centering matrix. With ``ddof`` the divisor is ``n - ddof``: ``ddof=1``
gives the unbiased sample covariance (R, scikit-learn), ``ddof=0`` the 1/n
(maximum-likelihood) version.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._linalg.units import Centered, center_array, rescale
from ._utils.validation import output_dtype, validated

__all__ = ["covariance", "total_variance", "standardize"]


def _cross_product(X: ArrayLike, ddof: int) -> tuple[Centered, float, np.dtype]:
    """The centered data of `X` (frame units) and the divisor n - ddof."""
    arr, ddof = validated(X, ddof)
    return center_array(arr, ddof), arr.shape[0] - ddof, output_dtype(arr)


def covariance(X: ArrayLike, ddof: int = 1) -> np.ndarray:
    r"""Sample covariance matrix of the columns of `X`.

    .. math::

        S = \frac{1}{n - \mathrm{ddof}} X_c^\top X_c,
        \qquad X_c = X - \mathbf{1}\bar{x}^\top

    Centering comes first: forming :math:`X^\top X - n\bar{x}\bar{x}^\top`
    instead cancels catastrophically when the mean is large.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, one sample per row. Not modified.
    ddof : int, default 1
        Delta degrees of freedom: the divisor is ``n - ddof``.

    Returns
    -------
    ndarray of shape (p, p)
        Symmetric positive semi-definite; float32 for float32 input.

    Raises
    ------
    TypeError
        If `X` is not numeric or `ddof` is not an integer.
    ValueError
        If `X` is not a finite non-empty 2-D array, or has at most ``ddof``
        samples (at least 2 samples are always needed).

    Examples
    --------
    >>> covariance([[1.0, 2.0], [3.0, 6.0]])
    array([[2., 4.],
           [4., 8.]])
    """
    centered, divisor, dtype = _cross_product(X, ddof)
    Y = centered.values
    S = rescale(Y.T @ Y / divisor, 2 * centered.exponent, "covariance entries")
    return S.astype(dtype, copy=False)


def total_variance(X: ArrayLike, ddof: int = 1) -> float:
    r"""Total variance: the trace of the covariance, without forming it.

    .. math::

        \operatorname{tr} S = \sum_{j=1}^{p} s_{jj}
        = \frac{1}{n - \mathrm{ddof}} \sum_{i=1}^{n}\sum_{j=1}^{p} (x_{ij} - \bar{x}_j)^2

    This costs O(np), against O(np^2) for the covariance matrix.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, one sample per row. Not modified.
    ddof : int, default 1
        Delta degrees of freedom: the divisor is ``n - ddof``.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        As :func:`covariance`.

    Examples
    --------
    >>> total_variance([[1.0, 2.0], [3.0, 6.0]])
    10.0
    """
    centered, divisor, _ = _cross_product(X, ddof)
    flat = centered.values.ravel()
    return float(rescale(flat @ flat / divisor, 2 * centered.exponent, "the total variance"))


def standardize(X: ArrayLike, ddof: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""z-scores: center each column and divide it by its standard deviation.

    .. math::

        z_{ij} = \frac{x_{ij} - \bar{x}_j}{s_j}, \qquad
        s_j = \sqrt{\frac{1}{n - \mathrm{ddof}} \sum_{i} (x_{ij} - \bar{x}_j)^2}

    The covariance of ``Z`` (with the same ``ddof``) is the correlation matrix
    of ``X``.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, one sample per row. Not modified.
    ddof : int, default 1
        Delta degrees of freedom of the standard deviations.

    Returns
    -------
    Z : ndarray of shape (n, p)
        Standardized copy of `X`.
    mean : ndarray of shape (p,)
        Column means.
    scale : ndarray of shape (p,)
        Column standard deviations :math:`s_j`.

    Raises
    ------
    TypeError, ValueError
        As :func:`covariance`; also ``ValueError`` naming the column index when
        a column is constant (zero variance).

    Examples
    --------
    >>> Z, mean, scale = standardize([[1.0, 10.0], [3.0, 30.0], [5.0, 50.0]])
    >>> Z[:, 0]
    array([-1.,  0.,  1.])
    >>> scale
    array([ 2., 20.])
    """
    arr, ddof = validated(X, ddof)
    Z, center, scale, _, _ = center_array(arr, ddof, scale=True)
    dtype = output_dtype(arr)
    return Z.astype(dtype, copy=False), center.value.astype(dtype), scale.astype(dtype)

r"""Covariance, total variance and standardization (chapter *Covariance*).

Every function centers the data first (:func:`pcalib.center`) and never forms
the n x n centering matrix. With ``ddof`` the divisor is ``n - ddof``: ``ddof=1``
gives the unbiased sample covariance (R, scikit-learn), ``ddof=0`` the 1/n
(maximum-likelihood) version.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_data_matrix, output_dtype

__all__ = ["covariance", "total_variance", "standardize"]


def _check_ddof(ddof: object, n_samples: int, name: str = "X") -> int:
    """Check ``ddof`` and that the data have more than ``ddof`` samples."""
    if isinstance(ddof, bool) or not isinstance(ddof, numbers.Integral):
        raise TypeError(f"ddof must be an integer, got {ddof!r} of type {type(ddof).__name__}")
    if ddof < 0:
        raise ValueError(f"ddof must be non-negative, got {ddof}")
    needed = max(2, int(ddof) + 1)
    if n_samples < needed:
        raise ValueError(
            f"{name} needs at least {needed} samples (rows) to estimate a variance "
            f"with ddof={ddof}, got {n_samples}"
        )
    return int(ddof)


def _validated(X: ArrayLike, ddof: int, name: str = "X") -> tuple[np.ndarray, int]:
    """Validate `X` (no copy for float input) and `ddof` against its number of samples."""
    arr = as_data_matrix(X, name, copy=False)
    return arr, _check_ddof(ddof, arr.shape[0], name)


def _checked_scale(arr: np.ndarray, sum_squares: np.ndarray, ddof: int, name: str = "X") -> np.ndarray:
    """Column standard deviations from the centered column sums of squares; refuse constant columns."""
    sd = np.sqrt(sum_squares / (arr.shape[0] - ddof))
    # A column is constant exactly when all its entries are equal; round-off
    # in the mean can leave tiny nonzero centered values, so test the data.
    constant = (arr.max(axis=0) == arr.min(axis=0)) | (sd == 0)
    if np.any(constant):
        cols = np.flatnonzero(constant).tolist()
        raise ValueError(
            f"{name} has zero variance in column(s) {cols}; "
            "standardizing would divide by zero (drop the constant column(s))"
        )
    return sd


def _centered(
    X: ArrayLike, ddof: int, *, scale: bool = False, name: str = "X"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.dtype]:
    """Validate `X` and return a centered (optionally scaled) float64 copy.

    This is the one full-size copy that the PCA routes work on: `X` is read
    without copying (``copy=False``), and the centered matrix is written into a
    new C-contiguous float64 array. Scaling, if asked, happens in place.

    Returns
    -------
    Xc : ndarray (n, p), float64, C-contiguous
    mean : ndarray (p,), float64
    scale : ndarray (p,), float64 (ones when ``scale`` is False)
    ddof : int
    dtype : the output dtype (float32 for float32 input, else float64)
    """
    arr, ddof = _validated(X, ddof, name)
    Xc, mean, sd = _center_array(arr, ddof, scale=scale, name=name)
    return Xc, mean, sd, ddof, output_dtype(arr)


def _center_array(
    arr: np.ndarray, ddof: int, *, scale: bool = False, name: str = "X"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The centered (optionally scaled) float64 copy of a validated array, its mean and scale."""
    mean = arr.mean(axis=0, dtype=np.float64)
    Xc = np.empty(arr.shape, dtype=np.float64, order="C")
    np.subtract(arr, mean, out=Xc)
    sd = np.ones(arr.shape[1])
    if scale:
        sd = _checked_scale(arr, np.einsum("ij,ij->j", Xc, Xc), ddof, name)
        Xc /= sd
    return Xc, mean, sd


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
    Xc, _, _, ddof, dtype = _centered(X, ddof)
    S = Xc.T @ Xc
    S /= Xc.shape[0] - ddof
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
    Xc, _, _, ddof, _ = _centered(X, ddof)
    flat = Xc.ravel()
    return float(flat @ flat) / (Xc.shape[0] - ddof)


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
    Z, mean, scale, _, dtype = _centered(X, ddof, scale=True)
    return Z.astype(dtype, copy=False), mean.astype(dtype), scale.astype(dtype)

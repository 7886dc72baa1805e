"""Input validation shared by every public function of pcalib.

Each checker returns a *new* float array (never a view that the caller could
modify through), so that public functions can promise not to touch their input.
Messages name the argument and say what was expected.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["as_data_matrix", "as_square_matrix", "check_n_components", "output_dtype"]


def output_dtype(a: np.ndarray) -> np.dtype:
    """Floating dtype of results: float32 stays float32, everything else is float64."""
    return np.dtype(np.float32) if a.dtype == np.float32 else np.dtype(np.float64)


def _as_float_array(value: ArrayLike, name: str, copy: bool = True) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got a {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and other unconvertible objects
        raise TypeError(f"{name} must be a numeric array: {exc}") from None
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must hold real numbers (integer or float), got dtype {arr.dtype}"
        )
    return np.array(arr, dtype=output_dtype(arr), copy=True if copy else None)


def as_data_matrix(
    X: ArrayLike, name: str = "X", *, copy: bool = True
) -> np.ndarray:
    """Validate a data matrix with samples in rows and return a float copy.

    With ``copy=False`` a float input is returned without copying (the caller
    then promises not to write into it); this saves one pass over large data.

    Raises
    ------
    TypeError
        If `X` is not numeric.
    ValueError
        If `X` is not 2-D, is empty, or holds NaN or infinity.
    """
    arr = _as_float_array(X, name, copy)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features), "
            f"got {arr.ndim} dimension(s) with shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty: got shape {arr.shape}, expected at least one sample and one feature")
    # A finite sum implies finite entries (NaN and inf propagate); the sum can
    # only overflow for huge finite entries, and then the elementwise check decides.
    if not np.isfinite(arr.sum()) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; all entries must be finite")
    return arr


def as_square_matrix(M: ArrayLike, name: str = "M") -> np.ndarray:
    """Validate a finite, non-empty square matrix and return a float copy."""
    arr = as_data_matrix(M, name)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    return arr


def check_n_components(k: object, upper: int, name: str = "k") -> int:
    """Check that `k` is an integer in ``[1, upper]`` and return it as ``int``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {k!r} of type {type(k).__name__}")
    if not 1 <= k <= upper:
        raise ValueError(f"{name} must be between 1 and min(n_samples, n_features) = {upper}, got {k}")
    return int(k)

"""Input validation shared by every public function of pcalib.

Each checker returns a *new* float array (never a view that the caller could
modify through), so that public functions can promise not to touch their input.
Messages name the argument, say what was expected and what was found.
"""

from __future__ import annotations

import numbers
import sys
import types
import warnings
from typing import Any, Literal, cast, overload

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

from .frames import check_numeric_columns
from .kinds import LAZY, SPARSE, input_kind, lazy_input_error

__all__ = [
    "NonFiniteError",
    "NotFittedError",
    "as_data_matrix",
    "as_numeric_array",
    "as_square_matrix",
    "check_ddof",
    "check_flag",
    "check_n_components",
    "check_positive_int",
    "check_random_state",
    "check_rank",
    "check_tol",
    "check_two_dimensional",
    "checked_finite",
    "fewest_samples",
    "incomplete_matrix",
    "output_dtype",
    "validated",
    "warn_outside_pcalib",
]


def output_dtype(a: np.ndarray) -> np.dtype:
    """Floating dtype of results: float32 stays float32, everything else is float64."""
    return np.dtype(np.float32) if a.dtype == np.float32 else np.dtype(np.float64)


def warn_outside_pcalib(message: str, category: type[Warning] = RuntimeWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside pcalib (the user's line)."""
    level, frame = 2, sys._getframe(1)
    caller: types.FrameType | None = frame
    while caller is not None and caller.f_globals.get("__name__", "").startswith("pcalib"):
        caller, level = caller.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def _is_real_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _describe_entry(value: object) -> str:
    """How an entry that is not a real number is named in an error message."""
    if value is None:
        return "None (a missing value)"
    if type(value).__name__ == "NAType":
        return "pandas.NA (a missing value)"
    if isinstance(value, (str, bytes)):
        return f"the string {value!r}"
    return f"{value!r} of type {type(value).__name__}"


def _object_array_as_float(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array whose entries are all real numbers, as float64; else a TypeError
    naming the first entry that is not (None, pandas.NA, a string, ...) and where it is."""
    flat = arr.ravel()
    for index, value in enumerate(flat):
        if not _is_real_number(value):
            where = np.unravel_index(index, arr.shape) if arr.ndim else ()
            position = f" at position {tuple(int(i) for i in where)}" if where else ""
            missing = value is None or type(value).__name__ == "NAType"
            advice = (
                "; pcalib needs complete data: drop or impute the missing values first"
                if missing
                else "; text that holds numbers converts with pandas.to_numeric(..., "
                "errors='coerce'), which makes any other text NaN, a missing value"
                if isinstance(value, str)
                else "; all entries must be real numbers"
            )
            raise TypeError(
                f"{name} must hold real numbers, but its object array holds "
                f"{_describe_entry(value)}{position}{advice}"
            )
    return arr.astype(np.float64)


def as_numeric_array(value: ArrayLike, name: str) -> np.ndarray:
    """`value` as a real (integer or floating) NumPy array, or a TypeError saying what it is."""
    if type(value) is np.ndarray and value.dtype.kind in "iuf":  # the common case, checked
        return value
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got a {type(value).__name__}")
    check_numeric_columns(value, name)
    kind = input_kind(value)
    if kind in LAZY:  # a Dask DataFrame or Series: never computed behind the user's back
        raise lazy_input_error(value, name)
    if kind == SPARSE:
        raise TypeError(
            f"{name} must be a dense array here, got a scipy.sparse {type(value).__name__}: "
            f"pcalib.PCA accepts sparse input (never densified); otherwise densify it with "
            f"{name}.toarray() if it fits in memory"
        )
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and other unconvertible objects
        raise TypeError(f"{name} must be a numeric array: {exc}") from None
    if arr.dtype == object:
        return _object_array_as_float(arr, name)
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got complex numbers (dtype {arr.dtype})")
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must hold real numbers (integer or float), got dtype {arr.dtype}"
        )
    return arr


def as_data_matrix(
    X: ArrayLike, name: str = "X", *, copy: bool = True, keep_integers: bool = False,
    check_finite: bool = True,
) -> np.ndarray:
    """Validate a data matrix with samples in rows and return a float copy.

    With ``copy=False`` a float input is returned without copying (the caller
    then promises not to write into it); this saves one pass over large data.
    With ``keep_integers=True`` an integer input is returned as it is (not
    copied): 64-bit integers beyond :math:`2^{53}` are not exact in float64, and
    the centering primitives subtract an integer offset before converting.
    With ``check_finite=False`` the caller promises to call :func:`checked_finite`
    before it uses the values, or to establish finiteness otherwise (a pass whose
    sums of squares are finite), saving a pass over large data.

    Raises
    ------
    TypeError
        If `X` is not numeric (the message says what was found: a sparse
        matrix, None or pandas.NA entries, strings, complex numbers, ...).
    ValueError
        If `X` is not 2-D, is empty, or holds NaN or infinity.
    """
    arr = as_numeric_array(X, name)
    if arr.dtype.kind in "iu" and keep_integers:
        pass
    else:
        # np.asarray, not np.array(copy=None): NumPy 1.26 (the declared minimum) has no
        # copy=None
        arr = np.array(arr, dtype=output_dtype(arr)) if copy else np.asarray(arr, dtype=output_dtype(arr))
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features), "
            f"got {arr.ndim} dimension(s) with shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty: got shape {arr.shape}, expected at least one sample and one feature")
    return checked_finite(arr, name) if check_finite else arr


def checked_finite(arr: np.ndarray, name: str = "X", *, first_row: int = 0) -> np.ndarray:
    """`arr` itself, after checking that it holds no NaN or infinity (one pass).
    `first_row`: the row of the whole data where `arr` begins (a chunk of rows), for
    the position in the message.

    Raises
    ------
    ValueError
        If `arr` holds NaN or infinity (the message gives the first and its position).
    """
    # A finite sum implies finite entries (NaN and inf propagate); the sum can
    # only overflow for huge finite entries, and then the elementwise check decides.
    if arr.dtype.kind == "f" and not np.isfinite(arr.sum()) and not np.all(np.isfinite(arr)):
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        value = float(arr[where])
        where = (first_row + where[0], *where[1:])
        raise NonFiniteError(
            f"{name} contains NaN or infinity (the first, {value}, at position "
            f"{where}); all entries must be finite",
            where, value,
        )
    return arr


class NonFiniteError(ValueError):
    """The ``ValueError`` of :func:`checked_finite`, with the position (row, column) and
    the value of the first NaN or infinity, so that an estimator can name the column
    and say what to do (``PCA``: its missing-value methods)."""

    def __init__(self, message: str, position: tuple[int, ...], value: float) -> None:
        super().__init__(message)
        self.position, self.value = position, value


def as_square_matrix(M: ArrayLike, name: str = "M") -> np.ndarray:
    """Validate a finite, non-empty square matrix and return a float copy."""
    arr = as_data_matrix(M, name)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    return arr


def _first_few(indices: np.ndarray) -> str:
    """The first ten of `indices` for a message, ``...`` after them if there are more."""
    shown = indices[:10].tolist()
    return f"{shown}{' ...' if indices.size > 10 else ''}"


def incomplete_matrix(
    X: ArrayLike, name: str = "X", *, n_features: int | None = None, whole_columns: bool = True
) -> tuple[np.ndarray, np.ndarray, np.dtype]:
    """Validate a data matrix whose missing entries are NaN.

    Returns a float64 copy, the boolean mask of observed entries and the output
    dtype. Every row must observe at least one feature, and with
    `whole_columns` every feature must be observed in at least one row.
    """
    if scipy.sparse.issparse(X):
        raise TypeError(f"{name} with missing values must be a dense array, got a sparse matrix")
    if type(X).__module__.partition(".")[0] == "pandas":
        # a nullable column ("Float64", "Int64") holds pd.NA: a missing value, as NaN is
        # (PPCA.fit reads it so; its columns are checked first, each named if refused)
        check_numeric_columns(X, name)
        X = cast(Any, X).to_numpy(dtype=np.float64, na_value=np.nan)
    arr = as_numeric_array(X, name)
    arr = np.array(arr, dtype=output_dtype(arr), copy=True)
    dtype = output_dtype(arr)
    observed = ~np.isnan(arr)
    if np.isinf(arr).any():
        raise ValueError(f"{name} contains infinity; observed entries must be finite (missing ones NaN)")
    as_data_matrix(np.where(observed, arr, 0.0), name, copy=False)  # shape checks, NaN aside
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, but the model was fitted with {n_features}")
    empty_rows = np.flatnonzero(~observed.any(axis=1))
    if empty_rows.size:
        raise ValueError(
            f"{name} has {empty_rows.size} row(s) with no observed value (all NaN): rows "
            f"{_first_few(empty_rows)}; such a row carries no information, drop it"
        )
    empty_columns = np.flatnonzero(~observed.any(axis=0))
    if whole_columns and empty_columns.size:
        raise ValueError(
            f"{name} has {empty_columns.size} column(s) with no observed value (all NaN): columns "
            f"{_first_few(empty_columns)}; nothing can be learned about them, drop them"
        )
    return arr.astype(np.float64, copy=False), observed, dtype


def check_flag(value: object, name: str) -> bool:
    """`value` as a bool; ``TypeError`` naming `name` unless it is True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_n_components(k: object, upper: int, name: str = "k") -> int:
    """Check that `k` is an integer in ``[1, upper]`` and return it as ``int``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {k!r} of type {type(k).__name__}")
    k = int(k)
    if not 1 <= k <= upper:
        raise ValueError(f"{name} must be between 1 and min(n_samples, n_features) = {upper}, got {k}")
    return k


def check_positive_int(value: object, name: str) -> int:
    """`value` as an ``int`` of at least 1 (an iteration count), else TypeError or ValueError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {value!r} of type {type(value).__name__}")
    if int(value) < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_tol(value: object, name: str = "tol") -> float:
    """`value` as a positive ``float`` (a tolerance), else ValueError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def check_rank(k: object, n: int, p: int, name: str = "k") -> int:
    """The rank `k` of an imputation model of n x p data: an integer with 1 <= k < min(n, p)."""
    k = check_n_components(k, min(n, p), name)
    if k >= min(n, p):
        raise ValueError(
            f"{name} must be smaller than min(n_samples, n_features) = {min(n, p)} to impute "
            f"(a rank-{k} model fits every observed entry exactly), got {k}"
        )
    return k


class NotFittedError(ValueError, AttributeError):
    """Raised when a method that needs a fitted model is called before ``fit``.

    Subclasses both ``ValueError`` and ``AttributeError``, like scikit-learn's.
    """


def fewest_samples(ddof: int) -> int:
    """The fewest samples that estimate a variance with divisor n - ddof: more than ddof, and 2."""
    return max(2, int(ddof) + 1)


def check_ddof(ddof: object, n_samples: int | None, name: str = "X") -> int:
    """Check ``ddof`` and that the data have more than ``ddof`` samples (the value
    alone if `n_samples` is None)."""
    if type(ddof) is not int and (isinstance(ddof, bool) or not isinstance(ddof, numbers.Integral)):
        raise TypeError(f"ddof must be an integer, got {ddof!r} of type {type(ddof).__name__}")
    ddof = int(ddof)
    if ddof < 0:
        raise ValueError(f"ddof must be non-negative, got {ddof}")
    needed = fewest_samples(ddof)
    if n_samples is not None and n_samples < needed:
        raise ValueError(
            f"{name} needs at least {needed} samples (rows) to estimate a variance "
            f"with ddof={ddof}, got {n_samples}"
        )
    return ddof


def validated(X: ArrayLike, ddof: int, name: str = "X") -> tuple[np.ndarray, int]:
    """Validate `X` (no copy for float input, integers kept as they are) and `ddof`
    against its number of samples."""
    arr = as_data_matrix(X, name, copy=False, keep_integers=True)
    return arr, check_ddof(ddof, arr.shape[0], name)


@overload
def check_random_state(random_state: object) -> np.random.Generator: ...
@overload
def check_random_state(random_state: object, *, draw: Literal[True]) -> np.random.Generator: ...
@overload
def check_random_state(random_state: object, *, draw: bool) -> np.random.Generator | None: ...
def check_random_state(random_state: object, *, draw: bool = True) -> np.random.Generator | None:
    """The Generator for `random_state`, or with ``draw=False`` only its validation.

    Validation never draws from a ``RandomState`` passed in (it would advance it),
    so an estimator can check its `random_state` whatever its solver.
    """
    message = (
        "random_state must be None, a non-negative int or a numpy Generator (or a "
        f"SeedSequence or RandomState), got {random_state!r}"
    )
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(message)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**31 - 1)) if draw else None
    try:
        return np.random.default_rng(random_state)  # type: ignore[arg-type]  # None, int, SeedSequence or Generator
    except (TypeError, ValueError) as exc:
        raise TypeError(message) from exc


def check_two_dimensional(arr: np.ndarray) -> None:
    """Refuse an `arr` that is not 2-D with scikit-learn's message (which says how to
    reshape a single feature or a single sample)."""
    if arr.ndim != 2:
        raise ValueError(
            f"X must be a 2-D array of shape (n_samples, n_features), got {arr.ndim} "
            f"dimension(s) with shape {arr.shape}. Reshape your data: X.reshape(-1, 1) "
            "if it has a single feature, X.reshape(1, -1) if it is a single sample"
        )

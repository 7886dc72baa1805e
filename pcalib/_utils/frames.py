"""Names in, names out: pandas DataFrames with pcalib's estimators.

A table goes in (anything with a ``columns`` attribute, as pandas and polars
DataFrames have) and its column names are remembered as ``feature_names_in_``
when they are all strings, as scikit-learn does. Later inputs are checked
against them. Results come out as a pandas DataFrame when the estimator's
``set_output(transform="pandas")`` (or scikit-learn's global
``transform_output`` setting, if scikit-learn is already loaded) asks for it,
with the input's row index and the columns of ``get_feature_names_out()``.

pandas is imported only when an output DataFrame is asked for: reading
``columns`` needs no import, so pcalib works without pandas installed.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from typing import Any

import numpy as np

__all__ = [
    "OUTPUTS",
    "check_feature_names",
    "check_numeric_columns",
    "feature_names_of",
    "float_values",
    "import_pandas",
    "requested_output",
    "to_frame",
]

#: The values ``set_output(transform=...)`` accepts (besides None: unchanged).
OUTPUTS = ("default", "pandas")


def feature_names_of(X: Any) -> np.ndarray | None:
    """The column names of a table `X` as an object array, or None.

    None when `X` has no ``columns`` (an array, a list), is not 2-D (a Dask
    Series has ``columns``, its name) or when its column names are not strings
    (pandas' default 0, 1, 2, ...): only string names are remembered, as in
    scikit-learn.

    Raises
    ------
    TypeError
        If some column names are strings and others are not (ambiguous).
    """
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray) or getattr(X, "ndim", 2) != 2:
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.size == 0:
        return None
    types = sorted({type(name).__qualname__ for name in names})
    if len(types) > 1 and "str" in types:
        raise TypeError(
            "feature names are only supported if all column names are strings, but X "
            f"has column names of types {types}: convert them all with "
            "X.columns = X.columns.astype(str), or drop the names"
        )
    return names if types == ["str"] else None


def _is_pandas(X: Any) -> bool:
    """Whether `X` is a pandas object (without importing pandas)."""
    return any(cls.__module__.partition(".")[0] == "pandas" for cls in type(X).__mro__)


def _is_real_entry(value: Any) -> bool:
    """A real number (not a bool), or a missing value (None, pandas.NA, NaN)."""
    if value is None or type(value).__name__ == "NAType":
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_numeric_columns(X: Any, name: str = "X") -> None:
    """Refuse a pandas DataFrame with a column that does not hold numbers, naming it.

    A column is numeric when its dtype is an integer or floating one, NumPy's or
    pandas' nullable ("Int64", "Float64", whose ``pd.NA`` are missing values), or
    object of real numbers (and missing values). Refused, as scikit-learn refuses
    them, with the column's name and dtype: dates and durations (NumPy would read
    them as counts of microseconds since 1970), strings (even "1.5": text is not a
    measurement), categories, and booleans: pcalib refuses a bool array whatever its
    container (a bool column mixed into float columns, a frame of bools, a NumPy
    bool array), since 0/1 is one coding of two classes among others; write
    ``X.astype({"column": float})`` to analyse it as 0/1. Anything else than a
    pandas DataFrame is left to the array checks.

    Raises
    ------
    TypeError
        Naming every column that is not numeric, with its dtype.
    """
    if not (_is_pandas(X) and hasattr(X, "dtypes") and hasattr(X, "columns")):
        return
    types = sys.modules["pandas"].api.types
    refused, described, texts = [], [], []
    for column, dtype in zip(X.columns, X.dtypes):
        what = f"dtype {dtype}"
        if types.is_object_dtype(dtype):
            bad = next((v for v in X[column].to_numpy() if not _is_real_entry(v)), None)
            if bad is None:
                continue
            what = f"dtype object, holding {bad!r} of type {type(bad).__name__}"
            if isinstance(bad, str):
                texts.append(column)
        elif types.is_numeric_dtype(dtype) and dtype.kind in "iuf":
            continue
        elif types.is_string_dtype(dtype) and not isinstance(dtype, types.CategoricalDtype):
            texts.append(column)
        refused.append(column)
        described.append(f"{column!r} ({what})")
    if refused:
        advice = (
            f"{name}.astype({{{refused[0]!r}: float}}) for 0/1, or a date as days since an origin"
        )
        if texts:  # numbers written as text: the conversion that keeps the bad entries visible
            advice = (
                f"{name}[{texts[0]!r}] = pd.to_numeric({name}[{texts[0]!r}], errors='coerce') for "
                "numbers written as text, which makes any other text NaN, a missing value "
                "(then PCA(missing='regularized'), pcalib.PPCA or pcalib.impute_pca); "
                + advice
            )
        raise TypeError(
            f"{name} must hold real numbers (integer or float columns), but these columns do "
            f"not: {', '.join(described)}. Drop them, or convert them to numbers first "
            f"(e.g. {advice})"
        )


def float_values(X: Any, values: np.ndarray) -> np.ndarray:
    """`values` = ``np.asarray(X)`` of object dtype, as float64.

    A pandas DataFrame of nullable dtypes ("Int64", "Float64") holds its
    missing values as ``pd.NA``; they become NaN, as in a float column.

    Raises
    ------
    TypeError
        If an entry is not a number.
    """
    try:
        if _is_pandas(X):
            return X.to_numpy(dtype=np.float64, na_value=np.nan)
        return values.astype(np.float64)
    except (TypeError, ValueError) as exc:
        advice = "" if not any(isinstance(v, str) for v in values.ravel()) else (
            "; text that holds numbers converts with pandas.to_numeric(..., errors='coerce'), "
            "which makes any other text NaN, a missing value"
        )
        raise TypeError(f"X must hold real numbers; an entry is not a number: {exc}{advice}") from None


def _listed(names: list[str], most: int = 5) -> str:
    shown = "".join(f"- {name}\n" for name in names[:most])
    return shown + ("- ...\n" if len(names) > most else "")


def check_feature_names(owner: str, fitted: np.ndarray | None, given: np.ndarray | None) -> None:
    """Compare the column names of new data with those seen by ``fit``.

    Same names in the same order, or no names on either side: nothing happens.
    Names on one side only: a ``UserWarning`` (the columns are then matched by
    position). Different names: ``ValueError`` listing what differs, in
    scikit-learn's words.

    Parameters
    ----------
    owner : str
        Name of the estimator class, for the messages.
    fitted : ndarray or None
        ``feature_names_in_`` of the fitted estimator (None if fitted without names).
    given : ndarray or None
        :func:`feature_names_of` the new data.
    """
    if fitted is None and given is None:
        return
    if fitted is None:
        warnings.warn(f"X has feature names, but {owner} was fitted without feature names", UserWarning, stacklevel=5)
        return
    if given is None:
        warnings.warn(
            f"X does not have valid feature names, but {owner} was fitted with feature names",
            UserWarning,
            stacklevel=5,
        )
        return
    if len(fitted) == len(given) and np.all(fitted == given):
        return
    unseen = sorted(set(given) - set(fitted))
    missing = sorted(set(fitted) - set(given))
    message = "The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + _listed(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + _listed(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def import_pandas() -> Any:
    """Import pandas, or say which extra to install."""
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "DataFrame output needs pandas, which is not installed: pip install pandas "
            "(or pip install 'pca-derived-and-verified[pandas]')"
        ) from None
    return pandas


def requested_output(config: dict[str, str] | None) -> str:
    """The output container asked for: the estimator's own ``set_output`` choice,
    else scikit-learn's global ``transform_output`` if scikit-learn is loaded,
    else "default" (NumPy arrays).

    Raises
    ------
    ValueError
        If scikit-learn's global setting asks for a container pcalib cannot make.
    """
    if config and "transform" in config:
        return config["transform"]
    sklearn = sys.modules.get("sklearn")
    output = sklearn.get_config().get("transform_output", "default") if sklearn else "default"
    if output not in OUTPUTS:
        raise ValueError(
            f"scikit-learn's transform_output is {output!r}, but pcalib's estimators can only "
            f"return {OUTPUTS}"
        )
    return output


def to_frame(values: np.ndarray, X: Any, columns: np.ndarray) -> Any:
    """`values` (n, k) as a pandas DataFrame named `columns`, indexed like `X`.

    The row index is `X`'s when `X` is a pandas DataFrame or Series, else
    pandas' default 0, ..., n - 1. The data are not copied.
    """
    pd = import_pandas()
    index = X.index if isinstance(X, (pd.DataFrame, pd.Series)) else None
    return pd.DataFrame(values, index=index, columns=columns, copy=False)


def pandas_frame(value: object) -> Any:
    """`value` if it is a pandas DataFrame, else None. Never imports pandas: if pandas
    is not imported yet, `value` cannot be a DataFrame."""
    pd = sys.modules.get("pandas")
    return value if pd is not None and isinstance(value, pd.DataFrame) else None


def is_default_index(index: Any, size: int) -> bool:
    pd = sys.modules["pandas"]
    return isinstance(index, pd.RangeIndex) and index.equals(pd.RangeIndex(size))


def aligned(frame: Any, labels: Any, axis: str, name: str) -> Any:
    """The values of `frame`, with its `axis` ("index" or "columns") put in the order of
    `labels`. Positional when `labels` is None or the axis carries the default 0..n-1."""
    index = getattr(frame, axis)
    if labels is None or is_default_index(index, len(index)) or index.equals(labels):
        return frame.to_numpy()
    if index.has_duplicates or len(index) != len(labels) or not index.isin(labels).all():
        raise ValueError(
            f"the {axis} of {name} must be the labels of the map's objects "
            f"(first: {list(labels[:3])}), got {list(index[:3])}"
        )
    return (frame.loc[labels] if axis == "index" else frame.loc[:, labels]).to_numpy()

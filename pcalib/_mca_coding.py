r"""Categorical columns as integer codes, for multiple correspondence analysis.

A table of Q categorical columns (a DataFrame, or a NumPy array of strings, numbers or
other objects) becomes, column by column, the sorted categories present and one code
per row (:func:`code_column`), found by a hash table (pandas' ``factorize``) or a sort
(NumPy's ``unique``): no Python loop over the rows. A missing entry (None, NaN of any
float type, NaT, ``pandas.NA``) is refused by name, never made a category.

:func:`category_names` names each category ``"<column>_<category>"`` and makes sure the
names are distinct (column ``a`` with category ``b_c`` and column ``a_b`` with
category ``c`` would both give ``a_b_c``); :func:`ventilate` reallocates the rows of rare
categories at random, as FactoMineR's ``level.ventil`` does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import scipy.sparse

__all__ = ["Columns", "category_names", "code_column", "columns_of", "indicator", "ventilate"]


class Columns(NamedTuple):
    """The columns of a categorical table (:func:`columns_of`)."""

    values: list[Any]  #: each column: a pandas Series or a 1-D NumPy array
    labels: list[str]  #: column names (``x0``, ``x1``... for an array)
    n_rows: int


def columns_of(X: Any) -> Columns:
    """The columns of `X` (a DataFrame or a 2-D array), not copied."""
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a pandas DataFrame
        return Columns([X.iloc[:, j] for j in range(X.shape[1])], [str(v) for v in X.columns], X.shape[0])
    if scipy.sparse.issparse(X):
        raise TypeError("MCA does not support sparse input: X must be a table of categories")
    arr = np.asarray(X)
    if np.iscomplexobj(arr):
        raise ValueError(f"Complex data not supported: X must hold categories, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(
            f"X must be a 2-D array of shape (n_samples, n_features), got {arr.ndim} "
            f"dimension(s) with shape {arr.shape}. Reshape your data: X.reshape(-1, 1) "
            "if it has a single feature, X.reshape(1, -1) if it is a single sample"
        )
    return Columns([arr[:, j] for j in range(arr.shape[1])], [f"x{j}" for j in range(arr.shape[1])], arr.shape[0])


def _pandas() -> Any:
    """pandas if it is installed (its hash tables code a column of objects without
    Python-level comparisons), else None."""
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def _missing(values: np.ndarray) -> np.ndarray:
    """Where `values` (a 1-D array) holds a missing entry: None, NaN of any float type,
    NaT, ``pandas.NA`` (and, in a float array, an infinity)."""
    kind = values.dtype.kind
    if kind in "fc":
        return ~np.isfinite(values)  # an infinity is no category either
    if kind in "mM":
        return np.isnat(values)
    if kind != "O":
        return np.zeros(values.shape, dtype=bool)
    pd = _pandas()
    if pd is not None:
        return np.asarray(pd.isna(values), dtype=bool)
    return np.fromiter(  # no pandas: None, and anything unequal to itself (NaN, NaT)
        (v is None or (v != v) is True for v in values.tolist()), dtype=bool, count=values.size
    )


def _refuse_missing(values: np.ndarray, label: str) -> None:
    missing = _missing(values)
    if missing.any():
        i = int(np.argmax(missing))
        raise ValueError(
            f"X column {label!r} contains a missing value or an infinity ({values[i]!r} in row {i}; "
            f"{int(missing.sum())} in all): MCA needs a category in every entry (recode "
            "missing values as a category of their own, e.g. the string 'missing')"
        )


def _sorted_codes(column: Any, label: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of a column and each row's index among them; a missing
    value refused."""
    pd = _pandas()
    dtype = getattr(column, "dtype", None)
    hashed = pd is not None and (not isinstance(dtype, np.dtype) or dtype.kind == "O")  # objects, pandas' dtypes
    if hashed:  # hashing: no Python-level comparisons, and no copy of a Series
        codes, uniques = pd.factorize(column, sort=False)  # a missing value gets code -1
        if (codes < 0).any():
            _refuse_missing(np.asarray(column, dtype=object), label)
        uniques = np.asarray(uniques, dtype=object)
        try:
            order = np.argsort(uniques, kind="stable")
        except TypeError:
            order = None
        if order is not None:
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            return uniques[order], rank[codes]
    values = np.asarray(column, dtype=object) if hashed else np.asarray(column)
    _refuse_missing(values, label)
    try:
        return np.unique(values, return_inverse=True)
    except TypeError:
        raise TypeError(
            f"X column {label!r} mixes values that cannot be compared (e.g. numbers and "
            "strings): convert the column to one type, e.g. str"
        ) from None


def code_column(column: Any, label: str, categories: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The categories of one column and each row's code (int64).

    Without `categories` (``fit``): the values present, sorted; a pandas categorical
    column keeps its categories' order, unused ones dropped. With `categories`
    (``transform``): codes into them, and a ValueError naming a value not among them.
    """
    if hasattr(column, "cat") and str(column.dtype) == "category":
        codes = column.cat.codes.to_numpy()
        if (codes < 0).any():
            _refuse_missing(column.to_numpy(dtype=object), label)
        used = np.unique(codes)
        present, codes = np.asarray(column.cat.categories)[used], np.searchsorted(used, codes)
    else:
        present, codes = _sorted_codes(column, label)
    if categories is None:
        return present, codes.astype(np.int64)
    lookup = {v: i for i, v in enumerate(categories.tolist())}
    mapped = np.fromiter((lookup.get(v, -1) for v in present.tolist()), dtype=np.int64, count=present.size)
    if (mapped < 0).any():
        unseen = present.tolist()[int(np.argmax(mapped < 0))]
        raise ValueError(
            f"X column {label!r} has the category {unseen!r}, not seen by fit "
            f"(fitted categories: {categories.tolist()[:10]})"
        )
    return categories, mapped[codes]


def category_names(labels: list[str], categories: list[np.ndarray]) -> np.ndarray:
    """``"<column>_<category>"`` for every category, distinct.

    When two such names coincide (column ``a`` with category ``b_c``, column ``a_b``
    with category ``c``), every name is written ``"<column>=<category!r>"`` instead
    (``a='b_c'`` and ``a_b='c'``).

    Raises
    ------
    ValueError
        If even those names coincide (two columns with the same name).
    """
    for form in ("{}_{}", "{}={!r}"):
        names = [form.format(label, v) for label, cats in zip(labels, categories) for v in cats.tolist()]
        if len(set(names)) == len(names):
            return np.asarray(names, dtype=object)
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    twice = [name for name, count in seen.items() if count > 1]
    raise ValueError(
        f"X has columns whose categories cannot be told apart by name ({twice[:3]}): give "
        "the columns distinct names"
    )


def indicator(codes: list[np.ndarray], sizes: list[int]) -> scipy.sparse.csr_matrix:
    """The n x J indicator matrix Z (CSR, entries 1.0) of the coded columns."""
    n, Q = codes[0].size, len(codes)
    offsets = np.cumsum([0] + list(sizes))
    indices = (np.column_stack(codes) + offsets[:-1]).ravel()
    indptr = np.arange(0, n * Q + 1, Q)
    return scipy.sparse.csr_matrix((np.ones(n * Q), indices, indptr), shape=(n, int(offsets[-1])))


def ventilate(
    codes: np.ndarray, size: int, level: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """FactoMineR's ventilation of one coded column (``level.ventil``).

    The categories chosen by fewer than `level` of the rows are rare. If at least two
    categories are not rare, each row of a rare category is given one of them at
    random, with probabilities proportional to their counts, and the rare categories
    disappear. Otherwise (every category rare, or one left: a binary column with a rare
    category) the column is left as it is, as FactoMineR does.

    Returns
    -------
    codes : ndarray of int64
        New codes, numbered among the categories kept.
    kept : ndarray of int
        The old code of each category kept.
    """
    counts = np.bincount(codes, minlength=size)
    rare = counts < level * codes.size
    frequent = np.flatnonzero(~rare)
    if not rare.any() or frequent.size < 2:
        return codes, np.arange(size)
    new = codes.copy()
    moved = rare[codes]
    new[moved] = rng.choice(frequent, size=int(moved.sum()), p=counts[frequent] / counts[frequent].sum())
    renumber = np.full(size, -1, dtype=np.int64)
    renumber[frequent] = np.arange(frequent.size)
    return renumber[new], frequent

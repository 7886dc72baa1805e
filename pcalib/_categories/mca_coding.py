r"""Categorical columns as integer codes, for multiple correspondence analysis.

A table of Q categorical columns (a DataFrame, or a NumPy array of strings, numbers or
other objects) becomes, column by column, the sorted categories present and one code
per row (:func:`code_column`), found by a hash table (pandas' ``factorize``) or a sort
(NumPy's ``unique``): no Python loop over the rows. A missing entry (None, NaN of any
float type, NaT, ``pandas.NA``) is refused by name, never made a category.

:func:`category_names` names each category by its value, prefixed by its column's name
when a value names categories of two columns, as FactoMineR does, and makes sure the
names are distinct; :func:`ventilate` reallocates the rows of rare categories at random,
as FactoMineR's ``level.ventil`` does.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse

from .._utils.kinds import LAZY, SPARSE, input_kind, lazy_input_error
from .._utils.validation import check_random_state, check_two_dimensional

__all__ = ["Columns", "category_names", "code_column", "coded_columns", "columns_of", "indicator", "ventilate"]


class Columns(NamedTuple):
    """The columns of a categorical table (:func:`columns_of`)."""

    values: list[Any]  #: each column: a pandas Series or a 1-D NumPy array
    labels: list[str]  #: column names (``x0``, ``x1``... for an array)
    n_rows: int


def columns_of(X: Any) -> Columns:
    """The columns of `X` (a DataFrame or a 2-D array), not copied."""
    kind = input_kind(X)
    if kind in LAZY:  # a Dask DataFrame: its columns would be computed one by one
        raise lazy_input_error(X, "X", "MCA")
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a pandas DataFrame
        return Columns([X.iloc[:, j] for j in range(X.shape[1])], [str(v) for v in X.columns], X.shape[0])
    if kind == SPARSE:
        raise TypeError("MCA does not support sparse input: X must be a table of categories")
    arr = np.asarray(X)
    if np.iscomplexobj(arr):
        raise ValueError(f"Complex data not supported: X must hold categories, got dtype {arr.dtype}")
    check_two_dimensional(arr)
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


def _clashing(names: list[list[str]], taken: set[str]) -> set[int]:
    """The columns (indices into `names`, one list of names per column) holding a name
    that another category, of any column or of `taken`, also has."""
    seen: dict[str, int] = {}
    for name in [name for column in names for name in column] + list(taken):
        seen[name] = seen.get(name, 0) + 1
    return {q for q, column in enumerate(names) if any(seen[name] > 1 for name in column)}


def category_names(labels: list[str], categories: list[np.ndarray], taken: Any = ()) -> np.ndarray:
    """A name for every category, distinct: FactoMineR's rule, then a safe fallback.

    A category is named by its value, ``"Fish_n"``; the categories of a column one of
    whose values is also a category of another column (``"Brown"`` hair and
    ``"Brown"`` eyes) are all written ``"<column>_<category>"`` (``"Hair_Brown"``,
    ``"Eye_Brown"``), as FactoMineR's ``MCA`` does. That is repeated while prefixed
    names still meet another name (column ``a`` with category ``b_c`` beside column
    ``b`` with category ``c``, once ``b`` is prefixed). If prefixing every such column
    leaves two names equal (column ``a`` with categories ``b_c`` and ``x``, column
    ``a_b`` with ``c`` and ``x``: ``a_b_c`` twice), every name is written
    ``"<column>=<category!r>"`` instead (``a='b_c'``, ``a_b='c'``). `taken` holds
    names already in use (the active categories, when naming supplementary ones).

    Raises
    ------
    ValueError
        If even those names coincide (two columns with the same name).
    """
    taken = {str(name) for name in taken}
    values = [[str(v) for v in cats.tolist()] for cats in categories]
    prefixed: set[int] = set()
    while True:
        names = [[f"{label}_{v}" for v in column] if q in prefixed else column
                 for q, (label, column) in enumerate(zip(labels, values))]
        clashing = _clashing(names, taken)
        if clashing <= prefixed:
            break
        prefixed |= clashing
    if clashing:
        names = [[f"{label}={v!r}" for v in cats.tolist()] for label, cats in zip(labels, categories)]
        clashing = _clashing(names, taken)
    if clashing:
        twice = sorted({name for q in clashing for name in names[q]})
        raise ValueError(
            f"X has columns whose categories cannot be told apart by name ({twice[:3]}): give "
            "the columns distinct names"
        )
    return np.asarray([name for column in names for name in column], dtype=object)


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


def coded_columns(X: Any, level: Any, random_state: Any) -> tuple[list[np.ndarray], list[np.ndarray], list[str]]:
    """The categories and codes of each column of `X` (:func:`code_column`), each
    column ventilated (:func:`ventilate`) at `level` with the draws of `random_state`
    if `level` > 0; and the column labels.

    Raises
    ------
    ValueError
        `level` not in [0, 1), no column, fewer than 2 rows, or a column with one
        category (named). A column whose rare category cannot be ventilated (fewer than
        two others) is left as it is with a RuntimeWarning, as FactoMineR does.
    """
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 <= float(level) < 1:
        raise ValueError(f"ventilation must be a number in [0, 1), got {level!r}")
    level = float(level)
    rng = check_random_state(random_state) if level > 0 else None
    columns = columns_of(X)
    p, n = len(columns.labels), columns.n_rows
    if p < 1:
        raise ValueError(f"X has 0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required by MCA")
    if n < 2:
        raise ValueError(f"X has {n} sample(s) (shape=({n}, {p})) while a minimum of 2 is required by MCA")
    cats, codes = [], []
    for values, label in zip(columns.values, columns.labels):
        categories, coded = code_column(values, label)
        if rng is not None:
            coded, kept = ventilate(coded, categories.size, float(level), rng)
            if kept.size == categories.size and np.bincount(coded).min() < level * n:
                warnings.warn(
                    f"X column {label!r} has a rare category but fewer than two others: "
                    "ventilation leaves it as it is (as FactoMineR does); consider "
                    "making the column supplementary", RuntimeWarning, stacklevel=4,
                )
            categories = categories[kept]
        if categories.size < 2:
            raise ValueError(
                f"X column {label!r} has a single category ({categories.tolist()[0]!r}): it "
                "separates no rows; drop it"
            )
        cats.append(categories)
        codes.append(coded)
    return cats, codes, columns.labels

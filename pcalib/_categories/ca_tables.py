r"""The tables that correspondence analysis reads, in exact power-of-two units.

Correspondence analysis depends on a table of counts :math:`N` only through the
correspondence matrix :math:`P = N / n`: multiplying :math:`N` by any constant changes
nothing. :func:`counts_table` therefore reads :math:`N` as :math:`N\,2^{-e}`, e the
power of two that brings its largest entry into [1/2, 1) (exact, as
:class:`pcalib._linalg.units.Frame`), so that no sum, square or product of the fit
overflows or underflows, whether the counts are :math:`10^{-300}` or :math:`10^{300}`.

A dense table whose entries are mostly zeros is read as a sparse one
(:data:`constants.CA_SPARSE_DENSITY`): the fit then costs one pass per product over its
non-zeros instead of over every entry.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import scipy.sparse

from .._linalg import constants
from .._utils.validation import as_data_matrix, checked_finite

__all__ = [
    "Counts", "aligned_rows", "counts_table", "dense_to_csr", "labels_of", "position",
    "refuse_empty",
]


class Counts(NamedTuple):
    r"""A validated table of counts in units of :math:`2^e` (:func:`counts_table`)."""

    table: np.ndarray | scipy.sparse.csr_matrix  #: float64 (I, J): a fresh array, or CSR
    row_sums: np.ndarray  #: (I,) float64, in the same units
    column_sums: np.ndarray  #: (J,) float64, in the same units
    exponent: int  #: e: the counts are ``table * 2**e``

    @property
    def total(self) -> float:
        """n, the sum of the table (in units of :math:`2^e`)."""
        return float(self.row_sums.sum())

    @property
    def shape(self) -> tuple[int, int]:
        """(I, J)."""
        return self.table.shape


def labels_of(X: Any, axis: int) -> list[str] | None:
    """Row (axis 0) or column (axis 1) labels of a DataFrame, for error messages."""
    if not (hasattr(X, "iloc") and hasattr(X, "columns")):  # not a DataFrame
        return None
    return [str(v) for v in (X.index if axis == 0 else X.columns)]


def position(i: int, j: int, X: Any, name: str = "X") -> str:
    """``X[i, j]``, with the row and column labels of a DataFrame."""
    rows, cols = labels_of(X, 0), labels_of(X, 1)
    named = f" (row {rows[i]!r}, column {cols[j]!r})" if rows and cols else ""
    return f"{name}[{i}, {j}]{named}"


def refuse_empty(sums: np.ndarray, X: Any, axis: int, name: str = "X") -> None:
    """Raise a ValueError naming the first row (axis 0) or column (axis 1) of `X` whose
    `sums` entry is not positive: an empty line has no profile."""
    empty = np.flatnonzero(~(sums > 0))
    if empty.size:
        what = "row" if axis == 0 else "column"
        labels = labels_of(X, axis)
        label = f" ({labels[empty[0]]!r})" if labels else ""
        raise ValueError(
            f"{what} {int(empty[0])}{label} of {name} sums to 0: an empty {what} has no profile; "
            f"remove it ({empty.size} empty {what}(s) in all)"
        )


def _scaled_exponent(largest: float) -> int:
    """e with ``largest * 2**-e`` in [1/2, 1) (0 for 0)."""
    return int(np.frexp(largest)[1]) if largest > 0 else 0


def _sparse_counts(X: Any, name: str) -> tuple[scipy.sparse.csr_matrix, int]:
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {X.shape}")
    if np.iscomplexobj(X.data) or X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real counts, got dtype {X.dtype}")
    csr = scipy.sparse.csr_matrix(X)  # shares X's arrays when X is CSR already
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    data = csr.data.astype(np.float64)  # a copy, so X is never written to
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name} contains NaN or infinity; all counts must be finite")
    bad = np.flatnonzero(data < 0)
    if bad.size:
        i = int(np.searchsorted(csr.indptr, bad[0], side="right") - 1)
        raise ValueError(
            f"Negative values in data: {name} must hold non-negative counts, got "
            f"{name}[{i}, {int(csr.indices[bad[0]])}] = {data[bad[0]]:g}"
        )
    exponent = _scaled_exponent(float(data.max())) if data.size else 0
    data = np.ldexp(data, -exponent)
    return scipy.sparse.csr_matrix((data, csr.indices, csr.indptr), shape=csr.shape), exponent


def _dense_array(X: Any, name: str) -> np.ndarray:
    """`X` as a 2-D numeric array (not copied if it is one already; bool viewed as
    0 and 1), its values not yet checked (:func:`_refuse_bad_entries`)."""
    try:
        raw = None if isinstance(X, (str, bytes)) else np.asarray(X)
    except Exception:  # ragged lists and the like: as_data_matrix explains
        raw = None
    data = raw.view(np.uint8) if raw is not None and raw.dtype == bool else X  # True = 1 count
    return as_data_matrix(data, name, copy=False, keep_integers=True, check_finite=False)


def _refuse_bad_entries(arr: np.ndarray, X: Any, name: str) -> None:
    """Raise a ValueError naming the first NaN, infinity or negative entry of `arr`
    (`X` read by :func:`_dense_array`), if it has one (two passes: a sum and a minimum)."""
    with np.errstate(over="ignore"):  # its finiteness test sums: counts of 1e300 overflow
        checked_finite(arr, name)
    if arr.dtype.kind in "if" and arr.min() < 0:
        i, j = (int(v) for v in np.argwhere(arr < 0)[0])
        raise ValueError(
            f"Negative values in data: {name} must hold non-negative counts, got "
            f"{position(i, j, X, name)} = {arr[i, j]:g}"
        )


def dense_to_csr(arr: np.ndarray, most: int | None = None) -> scipy.sparse.csr_matrix | None:
    """The CSR form of the 2-D array `arr` (its dtype kept), a block of rows at a time:
    per block one pass over its entries (``!= 0``, a boolean mask), the rest over the
    mask (an eighth of the bytes) and over the non-zeros. NaN counts as non-zero.
    None as soon as more than `most` non-zeros are found (if given): the pass that
    reads the table also decides whether it is sparse."""
    I, J = arr.shape
    step = max(1, constants.CA_BLOCK_BYTES // (8 * J))
    indptr = np.zeros(I + 1, dtype=np.int64)
    indices, data = [], []
    found = 0
    for start in range(0, I, step):
        block = arr[start : start + step]
        mask = block != 0
        indptr[start + 1 : start + block.shape[0] + 1] = np.count_nonzero(mask, axis=1)
        flat = np.flatnonzero(mask)  # row-major positions, so CSR's order
        found += flat.size
        if most is not None and found > most:
            return None
        indices.append(flat % J)
        data.append(block.ravel()[flat])
    np.cumsum(indptr, out=indptr)
    return scipy.sparse.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr), shape=(I, J))


def counts_table(X: Any, name: str = "X", *, prefer_sparse: bool = True) -> Counts:
    r"""Validate a table of non-negative counts and read it in units of :math:`2^e`.

    `X` is a NumPy array (numbers or bool), a DataFrame or a ``scipy.sparse`` matrix;
    it is never modified or densified. The table is returned as a fresh float64 array,
    or as CSR when `X` is sparse or (`prefer_sparse`) when at most
    :data:`constants.CA_SPARSE_DENSITY` of its entries are non-zero (read into CSR in
    one pass, given up once more are found; then the non-zeros alone are checked, as
    NaN, infinities and negative entries are among them). Its largest entry is in [1/2, 1): the change of units by
    :math:`2^{-e}` is exact.

    Raises
    ------
    TypeError, ValueError
        Not numeric, not 2-D, NaN or infinity, a negative entry (named by position).
    """
    if scipy.sparse.issparse(X):
        table, exponent = _sparse_counts(X, name)
    else:
        arr = _dense_array(X, name)
        csr = dense_to_csr(arr, int(constants.CA_SPARSE_DENSITY * arr.size)) if prefer_sparse else None
        if csr is not None:
            if not np.all(np.isfinite(csr.data)) or csr.data.min(initial=0) < 0:
                _refuse_bad_entries(arr, X, name)  # names the first one as a dense table does
            table, exponent = _sparse_counts(csr, name)
        else:  # the fit's own float64 copy, scaled in place
            _refuse_bad_entries(arr, X, name)
            table = arr.astype(np.float64)
            exponent = _scaled_exponent(float(table.max()))
            np.ldexp(table, -exponent, out=table)
    rows = np.asarray(table.sum(axis=1), dtype=np.float64).ravel()
    columns = np.asarray(table.sum(axis=0), dtype=np.float64).ravel()
    return Counts(table, rows, columns, exponent)



def _is_pandas(X: Any) -> bool:
    """Whether `X` is a pandas DataFrame or Series (without importing pandas)."""
    return hasattr(X, "index") and hasattr(X, "iloc")


def aligned_rows(X: Any, fitted_index: Any, n_rows: int, what: str) -> Any:
    """`X`, a table of supplementary columns on the fitted rows, with its rows in the
    fitted order.

    A pandas `X` is matched by its index: to the row labels the fit saw
    (`fitted_index`) or, when the fit saw an array (`fitted_index` None), to the
    positions 0..`n_rows` - 1. Rows in another order are put in the fitted order, as
    pandas aligns; labels that differ, or repeat, are refused, never matched by
    position. An array `X` is taken in the fitted order. A pandas Series is one column.

    Raises
    ------
    ValueError
        The index of `X` is not a reordering of the fitted rows' labels.
    """
    if not _is_pandas(X):
        return X
    if not hasattr(X, "columns"):  # a Series: one column
        X = X.to_frame()
    reference = list(range(n_rows)) if fitted_index is None else list(fitted_index)
    labels = list(X.index)
    if labels == reference:
        return X
    known, given = set(reference), set(labels)
    unique = len(given) == len(labels) and len(known) == len(reference)
    if unique and given == known:
        return X.loc[reference]
    fitted = (
        f"the fitted {what}" if fitted_index is not None
        else f"the fitted {what}, whose positions 0..{n_rows - 1} are their labels (the fit saw an array)"
    )
    problems = [f"{len(labels)} row(s)"]
    unknown = [v for v in labels if v not in known]
    missing = [v for v in reference if v not in given]
    if unknown:
        problems.append(f"labels not fitted: {unknown[:3]}")
    if missing:
        problems.append(f"fitted labels missing: {missing[:3]}")
    if not unique:
        problems.append("repeated labels")
    raise ValueError(
        f"X's index must hold the row labels of {fitted}, each once, so that its rows "
        f"are matched to them; got {', '.join(problems)}. Give X the fitted index, or "
        "pass X.to_numpy() to match the rows by position"
    )

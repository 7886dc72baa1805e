"""The kind of a data matrix: the one place where pcalib looks at it (:func:`input_kind`).

pcalib reads a data matrix of four kinds: a NumPy array (or anything ``numpy.asarray``
takes, a pandas DataFrame among them), a ``scipy.sparse`` matrix or array, a
``dask.array.Array`` and a ``dask.dataframe.DataFrame``; any other Dask collection (a
Dask Series, Bag, Delayed, a Dask-backed xarray object) is a fifth kind that no route
reads. The input adapters (:func:`pcalib._inputs.matrix.as_matrix`), the estimators'
input checks (``pcalib._estimator.base``) and the validation of data read in memory
(:func:`pcalib._utils.validation.as_numeric_array`) all ask :func:`input_kind`, so a
Dask DataFrame is the same thing to each of them.

Only :class:`pcalib.PCA` has routes for Dask data (one pass over the chunks); it reads
a Dask DataFrame as the Dask array of its rows, with its column names. Everywhere else
the data are read in memory: a Dask array is computed there (as NumPy would convert
it), while a Dask DataFrame or another collection is refused with a ``TypeError`` that
says how to read it (:func:`lazy_input_error`), never computed behind the user's back.

Dask is never imported here: a Dask collection can exist only once Dask is imported, so
the checks look in ``sys.modules``, and a program that never imported Dask pays nothing.
"""

from __future__ import annotations

import sys
from typing import Any, Literal

import scipy.sparse

__all__ = ["DASK_ARRAY", "DASK_COLLECTION", "DASK_FRAME", "DENSE", "LAZY", "SPARSE", "InputKind", "input_kind",
           "lazy_input_error"]

InputKind = Literal["dense", "sparse", "dask_array", "dask_frame", "dask_collection"]
DENSE: InputKind = "dense"  #: a NumPy array, or anything numpy.asarray converts (lists, pandas)
SPARSE: InputKind = "sparse"  #: a scipy.sparse matrix or array
DASK_ARRAY: InputKind = "dask_array"  #: a dask.array.Array
DASK_FRAME: InputKind = "dask_frame"  #: a dask.dataframe.DataFrame (2-D, named columns)
DASK_COLLECTION: InputKind = "dask_collection"  #: any other Dask collection
#: the kinds that hold no data until computed, and that no in-memory reader computes
LAZY: frozenset[InputKind] = frozenset({DASK_FRAME, DASK_COLLECTION})


def input_kind(X: object) -> InputKind:
    """The kind of the data matrix `X` (see the module docstring).

    A Dask collection is what ``dask.is_dask_collection`` says is one (an xarray object
    over a NumPy array is not); it is a Dask array or DataFrame by its class.
    """
    if scipy.sparse.issparse(X):
        return SPARSE
    dask = sys.modules.get("dask")
    if dask is None or not dask.is_dask_collection(X):
        return DENSE
    arrays = sys.modules.get("dask.array")
    if arrays is not None and isinstance(X, arrays.Array):
        return DASK_ARRAY
    frames = sys.modules.get("dask.dataframe")
    if frames is not None and isinstance(X, frames.DataFrame):
        return DASK_FRAME
    return DASK_COLLECTION


def lazy_input_error(X: Any, name: str = "X", reader: str | None = None) -> TypeError:
    """The ``TypeError`` for a Dask DataFrame or another Dask collection (:data:`LAZY`)
    given where its data would be read in memory (by `reader`, an estimator's name, or
    here), or a collection no route reads: what `X` is and how to pass it instead."""
    where = f"{reader} reads its data in memory" if reader else "its data are read here in memory"
    if input_kind(X) == DASK_FRAME:
        return TypeError(
            f"{name} is a Dask DataFrame and {where}; pcalib does not compute it for you: "
            f"pass {name}.compute() (a pandas DataFrame; the column names are kept) if it fits "
            f"in memory. pcalib.PCA (without missing values) reads a Dask DataFrame chunk by "
            f"chunk, as its Dask array {name}.to_dask_array(lengths=True)"
        )
    one_column = (
        f" A Dask Series is one column: {name}.to_frame() is that column as a Dask DataFrame."
        if getattr(X, "ndim", None) == 1 and hasattr(X, "to_frame") else ""
    )
    return TypeError(
        f"{name} is a Dask collection of type {type(X).__name__}, neither a dask.array.Array "
        "nor a dask.dataframe.DataFrame, and pcalib does not compute it for you: pass a Dask "
        f"array chunked by rows, a Dask DataFrame, or {name}.compute() if it fits in memory."
        + one_column
    )

r"""The kinds of data pcalib reads, each behind the same few primitives.

A data matrix X (n x p, one sample per row) comes as a NumPy array in memory,
a ``scipy.sparse`` matrix or array (CSR or CSC), or a ``dask.array.Array``
chunked by rows (out of core or distributed). The routes of :mod:`pcalib._routes.dense`
and :class:`pcalib.PCA` see the last two only through these primitives,
implemented once per kind: :class:`DenseMatrix` here,
:class:`pcalib._inputs.sparse.SparseMatrix` and :class:`pcalib._inputs.dask.DaskMatrix`
(and NumPy arrays keep their in-memory routes, which read them through
``pcalib._linalg.units.Frame``):

* :meth:`moments`: one pass, the count, mean and scatter matrix
  :math:`(n, \bar x, M)`, :math:`M = \sum_i (x_i - \bar x)(x_i - \bar x)^\top`,
  of the rows, blocks merged by the pairwise update of Chan, Golub and LeVeque
  (:class:`pcalib._linalg.moments.Moments`);
* :meth:`gram_times`: :math:`D^{-1} X_c^\top X_c D^{-1} Q` for a thin block Q
  with implicit centering (:math:`X_c = X - \mathbf 1 \bar x^\top` is never
  formed; D the diagonal of scales), one pass over the data;
* :meth:`project`: the scores :math:`((X - \mathbf 1 \bar x^\top) D^{-1}) V`;
* :meth:`map_rows`: a function applied to blocks of rows (in memory, dense).

:func:`as_matrix` wraps its input by the kind :func:`pcalib._utils.kinds.input_kind`
finds, the one place where pcalib looks at it (a Dask DataFrame is read as the Dask
array of its rows). Dask is imported only when a Dask collection comes in
(:func:`pcalib._utils.kinds.input_kind` looks at ``sys.modules``, so a program that
never imported Dask never pays for it), and every Dask computation goes through
``dask.compute`` with the scheduler the user set up (threads by default, a
``dask.distributed.Client`` if one exists; under the threads scheduler with BLAS
limited to one thread per task, ``pcalib._inputs.dask._compute``).

The names that other modules import from here, which now live in the modules
below it, stay importable from here: :class:`pcalib._linalg.moments.Moments`,
:func:`pcalib._linalg.moments.gram_and_sums`, :func:`pcalib._linalg.moments.row_blocks`,
:func:`pcalib._linalg.moments.shifted_gram`, :func:`pcalib._linalg.moments.tree_reduce`,
:func:`pcalib._utils.threads.cores` and :func:`pcalib._utils.threads.limited_blas`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._linalg.center import Center, standardized_block
from .._linalg.moments import Moments, gram_and_sums, row_blocks, shifted_gram, tree_reduce
from .._utils.kinds import DASK_ARRAY, DASK_FRAME, SPARSE, input_kind
from .._utils.threads import cores, limited_blas
from .._utils.validation import as_data_matrix, checked_finite, output_dtype
from .dask import DaskMatrix, frame_rows
from .route_table import IN_MEMORY, RouteTable
from .sparse import SparseMatrix

__all__ = [
    "DaskMatrix", "DenseMatrix", "Moments", "SparseMatrix", "as_matrix", "cores", "gram_and_sums", "limited_blas",
    "row_blocks", "shifted_gram", "tree_reduce",
]


class DenseMatrix:
    """A validated NumPy array in memory (integers kept as they are)."""

    #: every solver, by the in-memory skeletons of pcalib._routes.dense, which read `arr`
    #: directly; "auto" by the shape; the Krylov route of "auto" may end as eig or gram
    routes = RouteTable(
        label="dense", runs=dict.fromkeys(("eig", "svd", "gram", "krylov", "randomized"), IN_MEMORY),
        auto="shape", guarded=frozenset({"eig", "gram", "krylov"}), reports_route=True,
    )

    def __init__(self, arr: np.ndarray, name: str = "X", *, finite_checked: bool = True) -> None:
        self.arr = arr
        self.name = name
        self.finite_checked = finite_checked  #: False: NaN and inf not yet looked for
        self.shape = arr.shape
        self.dtype = output_dtype(arr)

    def checked(self) -> np.ndarray:
        """The array, its values checked for NaN and infinity if they were not yet."""
        if not self.finite_checked:
            checked_finite(self.arr, self.name)
            self.finite_checked = True
        return self.arr

    def moments(self, *, full: bool = True) -> Moments:
        """One pass: :meth:`Moments.of_rows` of the whole array."""
        return Moments.of_rows(self.checked(), full=full)

    def project(self, center: Center, scale: np.ndarray, V: np.ndarray) -> np.ndarray:
        r"""Scores :math:`((X - \mathbf 1 \bar x^\top) D^{-1}) V`, centered exactly."""
        return standardized_block(self.checked(), center, scale) @ V

    def gram_times(self, Q: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
        r""":math:`\sum_B Z_B^\top (Z_B Q)` over blocks of rows B, :math:`Z_B` the rows
        centered exactly and scaled (:func:`pcalib._linalg.center.standardized_block`): the
        product of :math:`Z^\top Z` that the sparse and Dask kinds give, one pass with
        no full-size copy."""
        arr = self.checked()
        total = np.zeros((arr.shape[1], Q.shape[1]))
        for rows in row_blocks(*arr.shape):
            Z = standardized_block(arr[rows], center, scale)
            total += Z.T @ (Z @ Q)
        return total

    def map_rows(self, func: Callable[[np.ndarray], np.ndarray], width: int | None) -> np.ndarray:
        """``func`` of all the rows at once, as given (as the Dask chunks are): `func`
        converts them, exactly for int64 near :math:`2^{62}` if it centers them first
        (:func:`pcalib._linalg.center.standardized_block`)."""
        return func(self.checked())


def as_matrix(X: Any, name: str = "X", *, defer_finite: bool = False) -> DenseMatrix | SparseMatrix | DaskMatrix:
    """`X` validated and wrapped in the primitives of its kind
    (:func:`pcalib._utils.kinds.input_kind`): a Dask DataFrame as the Dask array of its
    rows (:func:`pcalib._inputs.dask.frame_rows`), another Dask collection refused
    (:func:`pcalib._utils.kinds.lazy_input_error`). With `defer_finite`, a NumPy array's
    values are not yet checked for NaN and infinity (``finite_checked`` is False):
    :func:`pcalib._routes.dense._decompose_data`, the one reader of such an array, checks
    them or finds them finite in its own pass."""
    kind = input_kind(X)
    if kind == DASK_FRAME:
        return DaskMatrix(frame_rows(X, name), name)
    if kind == DASK_ARRAY:
        return DaskMatrix(X, name)
    if kind == SPARSE:
        return SparseMatrix(X, name)
    arr = as_data_matrix(X, name, copy=False, keep_integers=True, check_finite=not defer_finite)
    return DenseMatrix(arr, name, finite_checked=not defer_finite)

r"""Dask arrays chunked by rows: the primitives of :mod:`pcalib._inputs.matrix` for data out
of core or distributed.

Dask itself is imported only inside the methods (a :class:`DaskMatrix` exists only
for a Dask array, so Dask is then imported already). Every pass is a graph of
tasks, one per chunk of rows, reduced in a tree (:func:`pcalib._linalg.moments.tree_reduce`)
and run by ``dask.compute`` with the scheduler the user set up (:func:`_compute`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.linalg import blas

from .._linalg.center import Center, standardized_block
from .._linalg.moments import Moments, tree_reduce
from .._utils.frames import check_numeric_columns
from .._utils.threads import cores, limited_blas
from .._utils.validation import as_numeric_array, checked_finite, output_dtype
from .route_table import RouteTable

__all__ = ["DaskMatrix", "frame_rows"]


def frame_rows(X: Any, name: str) -> Any:
    """A ``dask.dataframe.DataFrame`` as the Dask array of its rows, one chunk per
    partition: ``X.to_dask_array(lengths=True)`` (a pass that counts the rows of each
    partition, so that every chunk knows where it starts), after its columns' dtypes are
    checked to be numbers (:func:`pcalib._utils.frames.check_numeric_columns` on the
    empty pandas DataFrame that carries them, ``X._meta``: no data are read for it).
    pandas' nullable columns ("Int64", "Float64") are read as float64 with ``pd.NA`` as
    NaN, as a pandas DataFrame is (:func:`pcalib._utils.frames.float_values`)."""
    check_numeric_columns(X._meta, name)
    nullable = {column: "float64" for column, dtype in X.dtypes.items() if not isinstance(dtype, np.dtype)}
    return (X.astype(nullable) if nullable else X).to_dask_array(lengths=True)


def _chunk_moments(block: np.ndarray, start: int, name: str, full: bool) -> Moments:
    """The :class:`Moments` of one chunk (rows `start` on of `name`); NaN or inf in it raise."""
    found = Moments.of_rows(block, full=full)
    if not found.finite:
        checked_finite(block, name, first_row=start)  # NaN or inf in the chunk: raise
    return found


def _chunk_gram_times(block: np.ndarray, Q: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
    r""":math:`Z^\top (Z Q)` for the chunk Z centered and scaled (two BLAS products)."""
    z = standardized_block(block, center, scale)
    return blas.dgemm(1.0, z, blas.dgemm(1.0, z, Q), trans_a=1)


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b (a task of the tree that sums the chunks' products)."""
    return a + b


class DaskMatrix:
    r"""A ``dask.array.Array`` chunked by rows. Chunked columns are rechunked to one
    column chunk (``X.rechunk({1: -1})``, documented in :class:`pcalib.PCA`): every
    primitive works on whole rows. Chunks are checked for NaN and inf as they are
    read (the error names the first row), so the check costs no extra pass."""

    #: each product is a pass over the chunks: block Krylov, few passes; no n x n Gram
    #: matrix; "auto" by one pass. The accuracy guard recomputes the covariance route by
    #: TSQR; past ``constants.SCATTER_MAX_FEATURES`` features, where TSQR's p x p R is
    #: too large, it warns when block Krylov lost digits
    routes = RouteTable(
        label="dask",
        runs={"eig": "moments", "randomized": "block_krylov", "krylov": "block_krylov", "svd": "tsqr"},
        auto="one_pass", guarded=frozenset({"eig", "randomized"}),
        svd_order="features", krylov_name="block Krylov", exact_instead="fit X.compute() in memory",
        refusal="needs the dask data in memory; use solver='auto', 'eig', 'randomized' or 'svd' (TSQR)",
    )

    def __init__(self, X: Any, name: str) -> None:
        import dask.array as da

        if X.ndim != 2:
            raise ValueError(f"{name} must be a 2-D Dask array, got shape {X.shape}")
        if any(np.isnan(c) for c in X.chunks[0]) or any(np.isnan(c) for c in X.chunks[1]):
            raise ValueError(
                f"{name} has unknown chunk sizes (NaN in {name}.chunks); call "
                f"{name}.compute_chunk_sizes() first"
            )
        as_numeric_array(np.empty((0, 0), dtype=X.dtype), name)  # the dtype check only
        if X.size == 0:
            raise ValueError(f"{name} is empty: got shape {X.shape}, expected at least one sample and one feature")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        self.da = da
        self.X = X
        self.name = name
        self.shape = tuple(int(s) for s in X.shape)
        self.dtype = output_dtype(np.empty(0, dtype=X.dtype))
        self.starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(int).tolist()

    def _blocks(self) -> list[Any]:
        return list(self.X.to_delayed()[:, 0])

    def moments(self, *, full: bool = True) -> Moments:
        """One pass: each chunk reduced to its Moments, merged in a tree of tasks."""
        import dask

        parts = [
            dask.delayed(_chunk_moments)(block, start, self.name, full)
            for block, start in zip(self._blocks(), self.starts)
        ]
        (found,) = _compute(tree_reduce(parts, dask.delayed(Moments.merge)))
        return found

    def gram_times(self, Q: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
        """One pass: the sum over chunks of :math:`Z_c^\\top (Z_c Q)`, Z_c the chunk
        centered and scaled, summed in a tree of tasks."""
        import dask

        Q, center, scale = (dask.delayed(a) for a in (np.ascontiguousarray(Q), center, scale))
        parts = [dask.delayed(_chunk_gram_times)(block, Q, center, scale) for block in self._blocks()]
        (total,) = _compute(tree_reduce(parts, dask.delayed(_add)))
        return total

    def project(self, center: Center, scale: np.ndarray, V: np.ndarray) -> Any:
        """Lazy scores, one chunk of rows at a time."""
        return self.map_rows(lambda b: standardized_block(b, center, scale) @ V, V.shape[1])

    def map_rows(self, func: Callable[[np.ndarray], np.ndarray], width: int | None) -> Any:
        """Lazy ``func`` of each chunk of rows: (n, width), or (n,) if width is None."""
        if width is None:
            return self.X.map_blocks(func, drop_axis=1, dtype=np.float64, meta=np.empty((0,)))
        return self.X.map_blocks(func, chunks=(self.X.chunks[0], (width,)), dtype=np.float64,
                                 meta=np.empty((0, 0)))

    def tsqr_r(self, center: Center, scale: np.ndarray) -> np.ndarray:
        r"""R of the TSQR factorization of :math:`Y = (X - \mathbf 1 \bar x^\top) D^{-1}`,
        corrected for the rounding error of :math:`\bar x` without a second pass.

        With :math:`Y = QR` and :math:`\mathbf h = Q^\top \mathbf 1`, the exactly centered
        :math:`Y_c = (I - \mathbf 1\mathbf 1^\top/n) Y` has
        :math:`Y_c^\top Y_c = R^\top (I - \mathbf h \mathbf h^\top / n) R = (C R)^\top (C R)`,
        :math:`C = I - \zeta \mathbf h \mathbf h^\top`,
        :math:`\zeta = (1 - \sqrt{1 - \|\mathbf h\|^2/n})/\|\mathbf h\|^2`
        (:math:`C^2 = I - \mathbf h\mathbf h^\top/n`; :math:`\|\mathbf h\|^2 \le n`): the
        chapter *PCA at scale*'s notation. So the singular values and right singular
        vectors of :math:`Y_c` are those of :math:`CR`, never squared.

        Q is never formed: the R factor of :math:`[Y, \mathbf 1]` is
        :math:`\begin{bmatrix} R & \mathbf h \\ 0 & \rho \end{bmatrix}` (its first
        columns are those of Y's QR), so TSQR keeps only the chunks' small R factors.
        Asking Dask for Q (to sum its columns) made it hold every chunk's Q factor until
        the top of the tree: more memory than the data (measured at 4,000,000 x 8 in 40
        chunks, 256 MB: the peak resident memory rose by 351 MB, by 105 MB with R only).
        """
        p = self.shape[1]
        Y = self.map_rows(
            lambda b: np.hstack([standardized_block(b, center, scale), np.ones((b.shape[0], 1))]), p + 1
        )
        _, R_ones = self.da.linalg.tsqr(Y, compute_svd=False)
        (R_ones,) = _compute(R_ones)
        m = min(self.shape[0], p)
        R, h = R_ones[:m, :p], R_ones[:m, p]
        n = self.shape[0]
        hh = float(h @ h)
        zeta = (1.0 - np.sqrt(max(1.0 - hh / n, 0.0))) / hh if hh > 0 else 0.0
        return R - np.outer(h, zeta * (h @ R))


def _compute(*collections: Any) -> tuple[Any, ...]:
    """``dask.compute`` with the active scheduler. Under Dask's local threads scheduler
    the tasks, BLAS products on chunks, share the process's BLAS: it is limited to
    one thread while they run (:func:`pcalib._utils.threads.limited_blas`), instead of every task
    starting a thread per core. Measured on
    1,000,000 x 200 in 10 chunks (2 cores): the one-pass moments took 2.1-2.4 s with
    2 tasks x 2 BLAS threads, 0.85 s with 2 x 1. With fewer tasks than cores
    (``num_workers``), BLAS keeps its threads."""
    import dask
    import dask.threaded
    from dask.base import get_scheduler

    if get_scheduler(collections=list(collections)) is not dask.threaded.get:
        return dask.compute(*collections)
    available = cores()
    if int(dask.config.get("num_workers", None) or available) < available:
        return dask.compute(*collections)  # fewer tasks than cores: BLAS threads help
    with limited_blas():
        return dask.compute(*collections)

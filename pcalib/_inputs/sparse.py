r"""SciPy sparse matrices (CSR or CSC): the primitives of :mod:`pcalib._inputs.matrix`, the
data never densified.

Products with the centered data are formed as :math:`X_c B = X B - \mathbf 1 (\bar x^\top B)`
and :math:`X_c^\top C = X^\top C - \bar x (\mathbf 1^\top C)`, split between the
cores by runs of rows of the compressed matrix (:func:`_row_pieces`).
:class:`SparseMatrix` keeps the state (the matrix the products read, its pieces,
the shift of dense columns and the power of two of :meth:`SparseMatrix.moments`);
the computations on a given matrix are the functions of the moment pass
(:func:`_column_sums`, :func:`_shifted`, :func:`_constant_values`,
:func:`_warn_if_cancelled`) and of the dense routes (:func:`_centered_gram`,
:func:`_centered_r`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse
from scipy.linalg import blas

from .._linalg import constants
from .._linalg.center import Center
from .._linalg.moments import Moments, sum_into_first
from .._utils.threads import cores
from .._utils.validation import NonFiniteError, as_numeric_array, output_dtype, warn_outside_pcalib
from .route_table import RouteTable

__all__ = ["SparseMatrix"]


# SparseMatrix.moments reads 2**-e X when the largest stored entry is outside this range
# (as pcalib._routes.scatter._ONE_PASS_PEAK_RANGE: no square overflows, none that matters underflows).
_SPARSE_PEAK_RANGE = (2.0**-250, 2.0**200)


def _first_non_finite(X: Any, data: np.ndarray) -> tuple[tuple[int, int], float]:
    """The (row, column) and value of the first stored NaN or infinity of a CSR or CSC
    matrix (for :class:`pcalib._utils.validation.NonFiniteError`)."""
    at = int(np.flatnonzero(~np.isfinite(data))[0])
    outer, inner = int(np.searchsorted(X.indptr, at, side="right")) - 1, int(X.indices[at])
    return ((outer, inner) if X.format == "csr" else (inner, outer)), float(data[at])


def _sharing(kind: Any, shape: tuple[int, int], data: np.ndarray, indices: np.ndarray, indptr: np.ndarray) -> Any:
    """A compressed sparse matrix of class `kind` made of the given arrays, not copies
    (set as attributes: SciPy's constructor copies a slice of less than half its array,
    and so does ``.T``)."""
    matrix = kind(shape, dtype=data.dtype)
    matrix.data, matrix.indices, matrix.indptr = data, indices, indptr
    return matrix


@dataclass(frozen=True)
class _Piece:
    """A run of consecutive rows of a CSR matrix, and its transpose (CSC), both views."""

    rows: slice
    csr: Any
    transposed: Any


def _row_pieces(csr: Any, parts: int) -> list[_Piece]:
    """`csr` (a CSR matrix) cut into `parts` runs of consecutive rows holding about as
    many stored entries each, sharing its arrays."""
    indptr = csr.indptr
    cuts = np.searchsorted(indptr, np.linspace(0, csr.nnz, parts + 1)[1:-1])
    edges = [0, *(int(c) for c in cuts), csr.shape[0]]
    pieces = []
    for start, stop in zip(edges[:-1], edges[1:]):
        first, last = indptr[start], indptr[stop]
        arrays = (csr.data[first:last], csr.indices[first:last], indptr[start:stop + 1] - first)
        shape = (stop - start, csr.shape[1])
        pieces.append(_Piece(
            slice(start, stop), _sharing(scipy.sparse.csr_matrix, shape, *arrays),
            _sharing(scipy.sparse.csc_matrix, shape[::-1], *arrays),
        ))
    return pieces


def _centered_gram_part(piece: _Piece, W: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`P^\top Y` and :math:`Y^\top \mathbf 1` for :math:`Y = P W - \mathbf 1 s^\top`
    (P some rows of X, s = `shift`)."""
    Y = piece.csr @ W
    Y -= shift
    return piece.transposed @ Y, Y.sum(axis=0)


# -- the moment pass ---------------------------------------------------------------------


def _column_sums(compressed: Any, by_rows: bool, canonical: bool, func: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    r"""Column sums :math:`\sum_i f(x_{ij})` of f of the stored entries of X.

    For an elementwise f with f(0) = 0: sparse products with ones of the matrix of
    X's pattern and values f(x), by runs of about ``constants.SPARSE_SUMS_CHUNK`` stored entries
    (so f's temporaries stay small). A position stored more than once counts
    as the sum of its parts: each run of a non-canonical matrix is copied with
    its duplicates summed first.

    Parameters
    ----------
    compressed : scipy.sparse.csr_matrix
        X (n x p) if `by_rows`, else :math:`X^\top` (p x n); float64 values.
    by_rows : bool
        Whether `compressed` is X itself.
    canonical : bool
        Whether each position is stored at most once (else duplicates are summed first).
    func : callable
        f, applied to an array of stored values.

    Returns
    -------
    ndarray of shape (p,)
    """
    n, p = compressed.shape if by_rows else compressed.shape[::-1]
    sums = np.zeros(p)
    for piece in _row_pieces(compressed, max(1, -(-compressed.nnz // constants.SPARSE_SUMS_CHUNK))):
        part = piece.csr
        if not canonical:
            part = part.copy()
            part.sum_duplicates()
        values = func(part.data)
        if by_rows:  # rows of X: add up their column sums
            sums += _sharing(scipy.sparse.csc_matrix, part.shape[::-1], values, part.indices, part.indptr) @ np.ones(part.shape[0])
        else:  # rows of X^T, columns of X: their sums are those of the columns
            sums[piece.rows] = _sharing(scipy.sparse.csr_matrix, part.shape, values, part.indices, part.indptr) @ np.ones(n)
    return sums


def _shifted(X: Any, shift: np.ndarray) -> Any:
    r""":math:`Y = X - \mathbf 1 c^\top` (c = `shift`), sparse in X's format.

    The columns where c is not 0 are stored in full (an explicit zero where
    :math:`x_{ij} = c_j`), the others as they are; duplicates summed.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, p)
        CSR or CSC, float64 values.
    shift : ndarray of shape (p,)

    Returns
    -------
    scipy.sparse matrix of shape (n, p)
    """
    n, p = X.shape
    columns = np.flatnonzero(shift)
    full = np.asarray(X[:, columns].toarray()) - shift[columns]
    kept = X @ scipy.sparse.diags((shift == 0).astype(np.float64))
    placed = scipy.sparse.csc_matrix(
        (full.ravel(order="F"), np.tile(np.arange(n), columns.size),
         np.r_[np.arange(columns.size) * n, columns.size * n]), shape=(n, columns.size),
    ) @ scipy.sparse.csr_matrix(
        (np.ones(columns.size), columns, np.arange(columns.size + 1)), shape=(columns.size, p)
    )
    Y = (kept + placed).asformat(X.format)
    Y.sum_duplicates()
    return Y


def _warn_if_cancelled(mean: np.ndarray, squares: np.ndarray, n: int) -> None:
    r"""Warn when the scatter :math:`M_{jj} = \sum_i x_{ij}^2 - n \bar x_j^2` of some column
    lost more than four digits to cancellation: :math:`\bar x_j^2 / s_j^2 > 10^4`,
    :math:`s_j^2 = M_{jj} / n`.

    Parameters
    ----------
    mean : ndarray of shape (p,)
        :math:`\bar x`.
    squares : ndarray of shape (p,)
        The diagonal of M.
    n : int
        The number of rows.
    """
    variance = np.maximum(squares, 0.0) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        lost = np.where(variance > 0, mean**2 / variance, 0.0).max()
    if lost > 1e4:
        warn_outside_pcalib(
            f"the sparse covariance X^T X - n mean mean^T loses about {np.log10(lost):.0f} "
            "digits to cancellation (column means large against their spread); "
            "subtract a typical value from those columns first, or densify"
        )


def _constant_values(X: Any, non_zeros: np.ndarray) -> np.ndarray:
    """The one value of each constant column of X, NaN for the others.

    A column is constant when none of its entries is non-zero (value 0), or when
    all n are and they are equal: only those full columns have their extremes read.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, p)
    non_zeros : ndarray of shape (p,)
        The number of non-zero entries of each column.

    Returns
    -------
    ndarray of shape (p,)
    """
    value = np.where(non_zeros == 0, 0.0, np.nan)
    full_columns = np.flatnonzero(non_zeros == X.shape[0])
    if full_columns.size:
        dense_ones = X[:, full_columns]
        low = dense_ones.min(axis=0).toarray().ravel()
        high = dense_ones.max(axis=0).toarray().ravel()
        value[full_columns] = np.where(low == high, low, np.nan)
    return value


# -- the products ------------------------------------------------------------------------


def _centered_gram(X: Any, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    r"""The n x n Gram matrix :math:`Z_c Z_c^\top` of :math:`Z_c = (X - \mathbf 1 \bar x^\top) D^{-1}`.

    From the sparse product :math:`G = Z Z^\top` (Z = X D^{-1}):

    .. math:: Z_c Z_c^\top = G - a \mathbf 1^\top - \mathbf 1 a^\top
              + (m^\top m)\, \mathbf 1 \mathbf 1^\top, \qquad m = D^{-1} \bar x,
              \quad a = Z m .

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, p)
        float64 values.
    mean : ndarray of shape (p,)
        :math:`\bar x`.
    scale : ndarray of shape (p,)
        The diagonal of D.

    Returns
    -------
    ndarray of shape (n, n)
    """
    m = mean / scale
    Z = X @ scipy.sparse.diags(1.0 / scale)
    G = np.asarray((Z @ Z.T).toarray())
    a = np.asarray(Z @ m).ravel()
    G -= a[:, None]
    G -= a
    G += m @ m
    return G


def _centered_r(X: Any, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    r"""An upper triangular R (m x m, m = min(n, p)) with :math:`R^\top R = Z_c^\top Z_c`
    if n >= p, :math:`Z_c Z_c^\top` otherwise, :math:`Z_c = (X - \mathbf 1 \bar x^\top) D^{-1}`.

    By Householder QR factorizations of dense blocks (the Gram matrix of :math:`Z_c`
    is never formed: the singular values of R are those of :math:`Z_c`, to about
    :math:`\varepsilon\sigma_1`).

    n >= p: blocks B of rows, each read as :math:`[\mathbf 1, (B - \mathbf 1\bar x^\top)
    D^{-1}]` and stacked under the R of the blocks before; the R of
    :math:`[\mathbf 1, Z]` is :math:`\begin{pmatrix} r_{11} & r^\top \\ 0 & R \end{pmatrix}`
    where R is that of Z projected off :math:`\mathbf 1`, i.e. of :math:`Z_c`
    exactly (the first column centers the residual of the rounded mean).
    n < p: blocks of whole columns, centered (twice: the second pass removes the
    rounding of the first) and scaled, transposed and stacked the same way,
    :math:`R^\top R = Z_c Z_c^\top`. Blocks of about 2**21 entries and at least m
    rows, so the stacking costs at most as much as the blocks.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, p)
        float64 values.
    mean : ndarray of shape (p,)
        :math:`\bar x`.
    scale : ndarray of shape (p,)
        The diagonal of D.

    Returns
    -------
    ndarray of shape (min(n, p), min(n, p))
    """
    n, p = X.shape
    R = np.zeros((0, min(n, p) + (n >= p)))
    if n >= p:
        X = X.tocsr()
        rows = max(p + 1, 2**21 // (p + 1))
        for start in range(0, n, rows):
            block = np.asarray(X[start:start + rows].toarray())
            block -= mean
            block /= scale
            R = np.linalg.qr(np.vstack([R, np.hstack([np.ones((len(block), 1)), block])]), mode="r")  # type: ignore[assignment]
        return R[1:, 1:]
    X = X.tocsc()
    columns = max(n, 2**21 // n)
    for start in range(0, p, columns):
        cut = slice(start, start + columns)
        block = np.asarray(X[:, cut].toarray())
        block -= mean[cut]
        block -= block.mean(axis=0)
        block /= scale[cut]
        R = np.linalg.qr(np.vstack([R, block.T]), mode="r")  # type: ignore[assignment]
    return R


class SparseMatrix:
    r"""A CSR or CSC matrix, never densified: products with a centered matrix are
    formed as :math:`X_c B = X B - \mathbf 1 (\bar x^\top B)` and
    :math:`X_c^\top C = X^\top C - \bar x (\mathbf 1^\top C)`.

    Inside :meth:`parallel`, :meth:`gram_times` splits each product between the cores
    (one piece per core, fewer if a piece would hold fewer stored entries than
    ``constants.SPARSE_PARALLEL_MIN_STORED`` or than the length of the partial result it
    returns, p for CSR and n for CSC): SciPy's sparse kernels
    release the GIL, and a CSR matrix cut into runs of rows (a CSC one into runs of
    columns) gives each thread its own part of the work, the parts added in a fixed
    order (deterministic for a given number of cores)."""

    #: products cost no pass over a store: Lanczos, one vector at a time; QR of dense
    #: blocks and the n x n Gram matrix keep a min(n, p)^2 matrix; "auto" by least cost
    routes = RouteTable(
        label="sparse",
        runs={"eig": "moments", "randomized": "lanczos", "krylov": "lanczos", "svd": "sparse_qr",
              "gram": "sparse_gram"},
        auto="least_cost", guarded=frozenset({"eig", "gram", "randomized"}),
        square=frozenset({"gram", "svd"}), square_instead="use solver='auto' or 'randomized' (Lanczos)",
    )
    #: rows per dense block in map_rows (score_samples): a small multiple of p entries
    _ROWS = 1024

    def __init__(self, X: Any, name: str) -> None:
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got a sparse array of shape {X.shape}")
        if X.format not in ("csr", "csc"):
            X = X.tocsr()  # a copy of the non-zeros, never a dense matrix
        data = as_numeric_array(X.data, name)
        if np.prod(X.shape) == 0:
            raise ValueError(f"{name} is empty: got shape {X.shape}, expected at least one sample and one feature")
        if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
            raise NonFiniteError(
                f"{name} contains NaN or infinity; all entries must be finite", *_first_non_finite(X, data)
            )
        if data.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        self.shape = X.shape
        self.dtype = output_dtype(data)
        # X - 1 c^T (c the shift, 0 but in the columns whose mean exceeds their spread,
        # :meth:`moments`) and its mean about c, once moments has shifted X
        self._shift: np.ndarray | None = None
        self._shifted_mean = self._data_mean = np.zeros(0)
        # e: the products read 2**-e X (moments sets it when the squares of X would leave
        # the float64 range); shift and means above are in those units
        self._exponent = 0
        self._given = X  # X as given (map_rows reads it; the products read self.X)
        self._use(X)

    def _use(self, X: Any) -> None:
        """Read the products from X (CSR or CSC, float32 or float64)."""
        self.X = X
        # The products read float64 values: float32 ones are converted once here (SciPy
        # would convert them at every product). The pieces are runs of rows of X (CSR)
        # or of the CSR matrix X^T, i.e. runs of columns of X (CSC).
        self._by_rows = X.format == "csr"
        # (not canonical: indices unsorted, as products leave them, or stored twice)
        self._canonical = bool(X.has_canonical_format)
        values = X.data.astype(np.float64, copy=False)
        self._compressed = _sharing(
            scipy.sparse.csr_matrix, X.shape if self._by_rows else X.shape[::-1], values, X.indices, X.indptr
        )
        # each piece returns a full-length partial result: worth it only for pieces that
        # hold more stored entries than that length (and than constants.SPARSE_PARALLEL_MIN_STORED)
        per_piece = max(constants.SPARSE_PARALLEL_MIN_STORED, self._compressed.shape[1])
        parts = max(1, min(cores(), X.nnz // per_piece))
        self._pieces = _row_pieces(self._compressed, parts)
        self._pool: ThreadPoolExecutor | None = None

    @contextlib.contextmanager
    def parallel(self) -> Iterator[None]:
        """Context: :meth:`gram_times` runs its pieces at once, the first on the calling
        thread and the others on a pool of threads (kept while the context is open: a
        product takes milliseconds)."""
        if len(self._pieces) == 1:
            yield
            return
        with ThreadPoolExecutor(len(self._pieces) - 1, thread_name_prefix="pcalib-sparse") as pool:
            self._pool = pool
            try:
                yield
            finally:
                self._pool = None

    def _each_piece(self, func: Callable[[_Piece], Any]) -> list[Any]:
        """`func` of every piece, in their order (at once inside :meth:`parallel`)."""
        if self._pool is None:
            return [func(piece) for piece in self._pieces]
        others = [self._pool.submit(func, piece) for piece in self._pieces[1:]]
        return [func(self._pieces[0]), *(future.result() for future in others)]

    def _float64(self) -> Any:
        """X with its values in float64 (a view of the arrays the products read)."""
        compressed = self._compressed
        if self._by_rows:
            return compressed
        return _sharing(scipy.sparse.csc_matrix, self.shape, compressed.data, compressed.indices, compressed.indptr)

    def _column_sums(self, func: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        r""":math:`\sum_i f(x_{ij})` over the stored entries of each column j of the matrix
        the products read (:func:`_column_sums`)."""
        return _column_sums(self._compressed, self._by_rows, self._canonical, func)

    def moments(self, *, full: bool = True) -> Moments:
        r""":math:`M = Y^\top Y - n \bar y \bar y^\top` of :math:`Y = X - \mathbf 1 c^\top`
        from the sparse product (the only form that keeps X sparse; with ``full=False``
        only its diagonal, from column sums of the squared stored entries).

        The subtraction cancels by the factor :math:`1 + \bar y_j^2 / s_j^2` in column
        j: harmless for a sparse column (of density d with equal non-zeros, the factor
        is 1 + d / (1 - d)), ruinous for a dense column far from 0 (at an offset of
        :math:`10^8` and spread 1 every digit is lost). So the columns whose mean
        exceeds their spread (:math:`\bar x_j^2 > s_j^2`, more than one bit lost; such
        a column is more than half full) are shifted: c holds their means, 0 for the
        others, and Y, whose shifted columns are stored in full (at most twice their
        stored entries), replaces X in every product (:meth:`gram_times`,
        :meth:`project`, the Gram and QR routes). The moments are those of Y about
        c (:class:`Moments`: the mean :math:`\bar y` is kept apart from c, so the
        centering stays exact at any offset); a column still losing more than
        :math:`10^4` is warned about. A column is constant when none of its entries
        is non-zero, or when all n are and they are equal (the only columns whose
        extremes are read)."""
        n, p = self.shape
        if self._shift is None and self._exponent == 0 and self.X.nnz:
            peak = float(np.max(np.abs(self.X.data)))
            if peak > 0 and not _SPARSE_PEAK_RANGE[0] <= peak <= _SPARSE_PEAK_RANGE[1]:
                self._exponent = int(np.frexp(peak)[1]) - 1  # read 2**-e X, exactly; 2**e finite
                scaled = self._float64().copy()
                scaled.data = np.ldexp(scaled.data, -self._exponent)
                self._use(scaled)
        mean, sums_of_squares = self._column_sums(lambda values: values) / n, self._column_sums(np.square)
        if self._shift is None:
            with np.errstate(over="ignore", invalid="ignore"):
                offset = (mean**2 > sums_of_squares / n - mean**2) & (mean != 0)
            if offset.any():
                shift = np.where(offset, mean, 0.0)
                self._use(_shifted(self._float64(), shift))  # Y = X - 1 c^T from now on
                self._shift = shift
                mean, sums_of_squares = self._column_sums(lambda values: values) / n, self._column_sums(np.square)
        shift = np.zeros(p) if self._shift is None else self._shift
        if full:
            X = self._float64()
            scatter = (X.T @ X).toarray()
            scatter -= np.outer(mean, mean * n)
            squares = np.diagonal(scatter)
        else:
            squares = scatter = sums_of_squares - n * mean**2
        _warn_if_cancelled(mean, squares, n)
        value = _constant_values(self.X, self._column_sums(lambda values: (values != 0).astype(np.float64)))
        constant = ~np.isnan(value)
        value = shift + value  # data units (exact: a shifted value is close to its shift)
        # a constant column is its value plus exactly 0, as in Moments.of_rows
        shift, mean = np.where(constant, value, shift), np.where(constant, 0.0, mean)
        if self._shift is not None:
            self._shifted_mean, self._data_mean = mean + (shift - self._shift), shift + mean
        e = self._exponent
        return Moments(n, np.ldexp(shift, e), np.ldexp(mean, e), scatter, np.ldexp(value, e), e)

    def _read_as(self, center: Center, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`center` and `scale` (data units) in the units of the matrix the products read
        (:math:`2^{-e} X`, shifted), as :meth:`_about_shift` says."""
        return self._about_shift(np.ldexp(center.value, -self._exponent)), np.ldexp(scale, -self._exponent)

    def _about_shift(self, mean: np.ndarray) -> np.ndarray:
        r"""The mean `mean` of X as a mean of the matrix the products read: itself, or
        :math:`\bar y` (kept exactly) for the data mean that :meth:`moments` gave."""
        if self._shift is None:
            return mean
        if np.array_equal(mean, self._data_mean):
            return self._shifted_mean
        return mean - self._shift

    def gram_times(self, Q: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
        r""":math:`D^{-1} X_c^\top X_c D^{-1} Q`, centered implicitly: :math:`Y = X W - \mathbf 1
        (\bar x^\top W)` with :math:`W = D^{-1} Q`, then :math:`X^\top Y - \bar x\,
        (\mathbf 1^\top Y)`, piece by piece (at once inside :meth:`parallel`)."""
        mean, scale = self._read_as(center, scale)
        W = Q / scale[:, None]
        shift = mean @ W
        if self._by_rows:
            parts = self._each_piece(lambda piece: _centered_gram_part(piece, W, shift))
            XtY = sum_into_first([part[0] for part in parts])
            column_sums = sum_into_first([part[1] for part in parts])
        else:  # pieces of X^T: X W summed over them, then X^T Y one block of rows each
            XW = sum_into_first(self._each_piece(lambda piece: piece.transposed @ W[piece.rows]))
            XW -= shift
            XtY = np.concatenate(self._each_piece(lambda piece: piece.csr @ XW))
            column_sums = XW.sum(axis=0)
        return (XtY - np.outer(mean, column_sums)) / scale[:, None]

    def stored_per_row_and_column(self) -> tuple[np.ndarray, np.ndarray]:
        """The numbers of entries stored in each row (n,) and each column (p,), as float64."""
        X = self.X
        along, across = np.diff(X.indptr), np.bincount(X.indices, minlength=X.shape[1 if self._by_rows else 0])
        rows, columns = (along, across) if self._by_rows else (across, along)
        return rows.astype(np.float64), columns.astype(np.float64)

    def centered_gram(self, center: Center, scale: np.ndarray) -> np.ndarray:
        r"""The n x n Gram matrix :math:`Z_c Z_c^\top` of :math:`Z_c = (X - \mathbf 1
        \bar x^\top) D^{-1}` (:func:`_centered_gram`), which cancels no more than
        :meth:`moments` does (its dense columns far from 0 are shifted: then X is Y and
        :math:`\bar x` is :math:`\bar y`)."""
        return _centered_gram(self._float64(), *self._read_as(center, scale))

    def transpose_times(self, U: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
        r""":math:`Z_c^\top U = D^{-1} (X^\top U - \bar x\, (\mathbf 1^\top U))`, p x k."""
        mean, scale = self._read_as(center, scale)
        product = np.ascontiguousarray(self._float64().T @ U, dtype=np.float64)
        # minus the outer product, in place (p x k may be large): a BLAS rank-one update
        # of the F-ordered transpose
        blas.dger(-1.0, U.sum(axis=0), mean, a=product.T, overwrite_a=True)
        product /= scale[:, None]
        return product

    def centered_r(self, center: Center, scale: np.ndarray) -> np.ndarray:
        r"""An upper triangular R with :math:`R^\top R = Z_c^\top Z_c` (n >= p) or
        :math:`Z_c Z_c^\top`, by QR factorizations of dense blocks (:func:`_centered_r`)."""
        return _centered_r(self._float64(), *self._read_as(center, scale))

    def project(self, center: Center, scale: np.ndarray, V: np.ndarray) -> np.ndarray:
        r"""Scores :math:`(X - \mathbf 1 \bar x^\top) D^{-1} V`: :math:`X W - \mathbf 1
        (\bar x^\top W)`, :math:`W = D^{-1} V`, but for the columns stored more than
        half full with a mean not 0 (dense columns, perhaps far from 0, where that
        difference would cancel): those are read as a dense block and centered
        first."""
        mean, scale = self._read_as(center, scale)
        W = V / scale[:, None]
        X = self._float64()
        n, p = self.shape
        stored = np.diff(X.indptr) if X.format == "csc" else np.bincount(X.indices, minlength=p)
        dense = np.flatnonzero((stored > n / 2) & (mean != 0))
        if dense.size:
            block = np.asarray(X[:, dense].toarray())
            if self._shift is None:  # X as given: the fit's exact pair (Center), not the rounded mean
                e = self._exponent
                block = Center(np.ldexp(center.shift[dense], -e), np.ldexp(center.offset[dense], -e)).subtract(block)
            else:
                block -= mean[dense]
            scores = block @ W[dense]
            W, mean = W.copy(), mean.copy()
            W[dense], mean[dense] = 0.0, 0.0
            scores += X @ W
        else:
            scores = np.asarray(X @ W, dtype=np.float64)
        scores -= mean @ W
        return scores

    def map_rows(self, func: Callable[[np.ndarray], np.ndarray], width: int | None) -> np.ndarray:
        """``func`` of the rows of X as given, densified ``_ROWS`` rows at a time."""
        X = self._given.tocsr()
        return np.concatenate([
            func(X[start:start + self._ROWS].toarray().astype(np.float64))
            for start in range(0, X.shape[0], self._ROWS)
        ])

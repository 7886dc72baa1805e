r"""The leading singular triplets of a table's standardized residuals, and its inertias.

For a table :math:`N` read by :func:`pcalib._categories.ca_tables.counts_table` (row sums
:math:`R_i`, column sums :math:`C_j`, total n, masses :math:`r_i = R_i/n` and
:math:`c_j = C_j/n`), correspondence analysis is the SVD of

.. math::

    E = D_r^{-1/2}(P - \mathbf r\mathbf c^\top)D_c^{-1/2} = A - \sqrt{\mathbf r}\sqrt{\mathbf c}^\top,
    \qquad a_{ij} = \frac{n_{ij}}{\sqrt{R_i C_j}} .

:func:`residual_svd` takes one of three routes:

* a small table (its smaller side at most :data:`constants.CA_LAPACK_MAX`, or k above a fifth of
  it): LAPACK's SVD of the formed E;
* a larger dense table: E formed in place in the table's own copy (no second
  full-size array), then the block Krylov method of :mod:`pcalib._linalg.eigen` on the Gram
  matrix of its smaller side, :math:`E^\top E` or :math:`EE^\top`, two matrix
  products (BLAS) per block, for as many blocks as cost about as much as forming that
  Gram matrix; where that method needs more (no gap near :math:`\theta_k`, as in a
  table of noise), that Gram matrix formed once
  (``dsyrk``, m x m for the smaller side m) and solved by Lanczos, each product
  reading it instead of E twice;
* a sparse table: E is never formed (it has no zeros). ARPACK's Lanczos method runs
  on the same Gram matrix as an operator, with
  :math:`E\mathbf y = \Pi_r A \Pi_c \mathbf y`, :math:`\Pi_r = I - \sqrt{\mathbf r}
  \sqrt{\mathbf r}^\top` and :math:`\Pi_c` likewise (:math:`A\sqrt{\mathbf c} =
  \sqrt{\mathbf r}`, so this is E; the projections remove the rounding error along
  the trivial axis, whose singular value 1 would otherwise reach every product).

The Krylov routes find the leading eigenvectors :math:`V_k` of the Gram matrix; the
singular values then come from the SVD of the thin :math:`EV_k`, a Rayleigh-Ritz step on
E itself, so that they carry the rounding error of E (about :math:`\varepsilon`), not of
its square (:math:`\varepsilon / \sigma`, relative): a table near independence has
:math:`\sigma_1` of :math:`10^{-5}` or less. The inertias are sums of squared residuals,
never differences of sums of squares (:math:`\sum_j a_{ij}^2 - r_i` cancels to
nothing near independence).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from .._linalg import constants
from .._linalg.eigen import krylov_top_operator, lanczos_top_operator, lapack_top_eigh, rows_gram, symmetric_times
from .ca_tables import Counts

__all__ = ["CA_RTOL", "Residuals", "residual_svd", "sparse_inertias"]

_EPS = float(np.finfo(np.float64).eps)

#: Ritz residuals are accepted below this times the largest principal inertia
#: (pcalib's PCA accepts 1e-10): the axes of CA tables often have small gaps, and an
#: axis is within residual / gap of the exact one (Davis-Kahan), so 100 times less
#: costs a few more products and keeps coordinates to about 1e-12.
CA_RTOL = 1e-12
#: Round-off of a product with the implicit sparse E, relative to its largest singular
#: value 1 (the trivial axis): a Ritz residual cannot fall below about this.
_SPARSE_FLOOR = 1e3 * _EPS


class Residuals(NamedTuple):
    r"""The k leading singular triplets of E and the inertias (:func:`residual_svd`)."""

    U: np.ndarray  #: (I, k) left singular vectors (fresh array)
    s: np.ndarray  #: (k,) singular values, decreasing
    V: np.ndarray  #: (J, k) right singular vectors (fresh array)
    total: float  #: :math:`\|E\|_F^2`, the total inertia
    row_inertias: np.ndarray  #: (I,) :math:`\sum_j e_{ij}^2`
    column_inertias: np.ndarray  #: (J,) :math:`\sum_i e_{ij}^2`


def _masses(counts: Counts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:math:`1/\\sqrt{R_i}`, :math:`1/\\sqrt{C_j}`, :math:`\\sqrt{r_i}`, :math:`\\sqrt{c_j}`."""
    n = counts.total
    R, C = counts.row_sums, counts.column_sums
    return 1.0 / np.sqrt(R), 1.0 / np.sqrt(C), np.sqrt(R / n), np.sqrt(C / n)


def _form_in_place(table: np.ndarray, counts: Counts) -> np.ndarray:
    """Overwrite the table's own copy with E, a block of rows at a time."""
    row_scale, col_scale, sr, sc = _masses(counts)
    step = max(1, constants.CA_BLOCK_BYTES // (8 * table.shape[1]))
    for start in range(0, table.shape[0], step):
        rows = slice(start, start + step)
        block = table[rows]
        block *= row_scale[rows, None]
        block *= col_scale
        block -= np.outer(sr[rows], sc)
    return table


def sparse_inertias(counts: Counts) -> tuple[np.ndarray, np.ndarray]:
    r"""Row and column sums of :math:`e_{ij}^2` of a sparse table: the non-zeros'
    :math:`(a_{ij} - \sqrt{r_i c_j})^2`, plus :math:`r_i c_j` summed over the zeros,
    :math:`r_i(1 - \sum_{j:\,n_{ij} > 0} c_j)` (0 for a row without zeros)."""
    N: Any = counts.table  # CSR
    I, J = N.shape
    row_scale, col_scale, sr, sc = _masses(counts)
    rows_of = np.repeat(np.arange(I), np.diff(N.indptr))
    e = N.data * row_scale[rows_of] * col_scale[N.indices] - sr[rows_of] * sc[N.indices]
    e *= e
    row_nnz, col_nnz = np.diff(N.indptr), np.bincount(N.indices, minlength=J)
    c, r = sc**2, sr**2
    zero_rows = np.maximum(1.0 - np.bincount(rows_of, weights=c[N.indices], minlength=I), 0.0)
    zero_cols = np.maximum(1.0 - np.bincount(N.indices, weights=r[rows_of], minlength=J), 0.0)
    zero_rows[row_nnz == J] = 0.0
    zero_cols[col_nnz == I] = 0.0
    row_inertias = np.bincount(rows_of, weights=e, minlength=I) + r * zero_rows
    column_inertias = np.bincount(N.indices, weights=e, minlength=J) + c * zero_cols
    return row_inertias, column_inertias


def _sparse_products(counts: Counts) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    r"""``E @ Y`` and ``E.T @ W`` for a sparse table, E never formed (module docstring)."""
    N: Any = counts.table  # CSR
    Nt = N.T.tocsr()
    row_scale, col_scale, sr, sc = _masses(counts)

    def times(Y: np.ndarray) -> np.ndarray:
        Y = Y - np.outer(sc, sc @ Y)
        W = row_scale[:, None] * (N @ (col_scale[:, None] * Y))
        return W - np.outer(sr, sr @ W)

    def transposed_times(W: np.ndarray) -> np.ndarray:
        W = W - np.outer(sr, sr @ W)
        Y = col_scale[:, None] * (Nt @ (row_scale[:, None] * W))
        return Y - np.outer(sc, sc @ Y)

    return times, transposed_times


def _ritz(
    times: Callable[[np.ndarray], np.ndarray], vectors: np.ndarray, rows_side: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""(U, s, V) from orthonormal approximate singular vectors of one side: the SVD of
    the thin product of E (or :math:`E^\top`) with them."""
    W = times(vectors)
    left, s, rotation_t = np.linalg.svd(W, full_matrices=False)
    rotated = vectors @ rotation_t.T
    return (rotated, s, left) if rows_side else (left, s, rotated)


def _gram_products(
    times: Callable[[np.ndarray], np.ndarray],
    transposed_times: Callable[[np.ndarray], np.ndarray],
    rows_side: bool,
) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    r"""The product with the Gram matrix of the smaller side (:math:`EE^\top` for the
    rows, else :math:`E^\top E`), and the product with E (or :math:`E^\top`) that
    maps its eigenvectors to the other side."""
    if rows_side:
        return (lambda Q: times(transposed_times(Q))), transposed_times
    return (lambda Q: transposed_times(times(Q))), times


def _sparse_krylov_svd(counts: Counts, k: int, total: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The sparse route (module docstring); None if Lanczos does not converge."""
    I, J = counts.shape
    rows_side = I < J
    gram, other = _gram_products(*_sparse_products(counts), rows_side)
    rtol = max(CA_RTOL, _SPARSE_FLOOR / total) if total > 0 else CA_RTOL
    found = lanczos_top_operator(gram, min(I, J), k, rtol)
    return None if found is None else _ritz(other, np.ascontiguousarray(found[1]), rows_side)


def _dense_krylov_svd(E: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The truncated route of a dense E (module docstring): block Krylov on the Gram
    operator of the smaller side, two passes over E per block, within
    :data:`constants.CA_KRYLOV_MAX_FRACTION` of m columns; if it does not converge
    there, or is predicted not to (no gap near :math:`\theta_k`), the Gram
    matrix G formed in one product (``dsyrk``) and solved by Lanczos with products
    by G (m x m, read in place of E, I x m: the fit of a 6000 x 2000 table 43% non-zero,
    with a flat spectrum, took 7.0-7.7 CPU s with Lanczos's 264 products by E, 2.9-3.2 s
    with G formed) or, past the products that cost as much, by LAPACK
    (:func:`pcalib._linalg.eigen.lapack_top_eigh`)."""
    I, J = E.shape
    m, rows_side = min(I, J), I < J
    gram, other = _gram_products(E.__matmul__, E.T.__matmul__, rows_side)
    budget = int(constants.CA_KRYLOV_MAX_FRACTION * m)  # about the cost of forming G
    result = krylov_top_operator(gram, m, k, CA_RTOL, predict=True, max_dim=budget)
    if result is not None:
        vectors = result[1]
    else:
        lower = rows_gram(E if rows_side else E.T)  # dsyrk: its lower triangle holds G
        found = lanczos_top_operator(  # dsymv on that triangle: G is never made whole
            symmetric_times(lower), m, k, CA_RTOL,
            max_products=int(constants.CA_LANCZOS_MAX_FRACTION * m),
        )
        vectors = lapack_top_eigh(lower, k)[1] if found is None else found[1]  # no second Lanczos
    return _ritz(other, np.ascontiguousarray(vectors), rows_side)


def _lapack_svd(E: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    U, s, Vt = np.linalg.svd(E, full_matrices=False)
    return U[:, :k].copy(), s[:k].copy(), Vt[:k].T.copy()


def _arpack_svd(
    times: Callable[[np.ndarray], np.ndarray],
    transposed_times: Callable[[np.ndarray], np.ndarray],
    shape: tuple[int, int],
    k: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The last resort of the sparse route: ``scipy.sparse.linalg.svds`` at ``tol=0``."""
    op = scipy.sparse.linalg.LinearOperator(
        shape, matvec=lambda x: times(np.reshape(x, (-1, 1))).ravel(),
        rmatvec=lambda y: transposed_times(np.reshape(y, (-1, 1))).ravel(), dtype=np.float64,
    )
    v0 = np.random.default_rng(0).standard_normal(min(shape))  # fixed: deterministic
    U, s, Vt = scipy.sparse.linalg.svds(op, k=k, tol=0, v0=v0, solver="arpack")
    order = np.argsort(-s, kind="stable")
    return U[:, order], s[order], Vt[order].T.copy()


def residual_svd(counts: Counts, k: int) -> Residuals:
    """The k leading singular triplets of the standardized residuals of `counts`
    (1 <= k < min(I, J)), and the total, row and column inertias (module docstring).

    A dense table's array is overwritten (it is the fit's own copy); a sparse one is
    only read. The singular vectors carry no sign convention yet.
    """
    I, J = counts.shape
    m = min(I, J)
    if scipy.sparse.issparse(counts.table):
        row_inertias, column_inertias = sparse_inertias(counts)
        total = float(row_inertias.sum())
        found = _sparse_krylov_svd(counts, k, total)
        if found is None:
            found = _arpack_svd(*_sparse_products(counts), (I, J), k)
        return Residuals(*found, total, row_inertias, column_inertias)
    E = _form_in_place(counts.table, counts)
    row_inertias = np.einsum("ij,ij->i", E, E)
    column_inertias = np.einsum("ij,ij->j", E, E)
    total = float(row_inertias.sum())
    if m > constants.CA_LAPACK_MAX and 5 * k <= m:
        found = _dense_krylov_svd(E, k)
    else:
        found = _lapack_svd(E, k)
    return Residuals(*found, total, row_inertias, column_inertias)

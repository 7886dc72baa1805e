r"""The routes for data that are never held as one dense array: sparse matrices, Dask
arrays, and the merged moments of ``PCA.partial_fit``.

None of them forms the centered data :math:`X_c` (centering a sparse matrix makes it
dense; a Dask array does not fit in memory). They read the data through
:mod:`pcalib._inputs.matrix`, whose one-pass moments, products with the implicitly centered
data and QR factorizations of dense blocks carry the centering, and end as the dense
routes do (:mod:`pcalib._routes.decomposition`), with no scores (``transform`` gives them).
Each adapter's route table (:class:`pcalib._inputs.route_table.RouteTable`) names the
decomposition that runs each route; :func:`decompose_sparse_or_dask` takes that name to
its function:

* "moments" (route "eig"): :func:`decompose_moments`, the k leading eigenpairs of the
  scatter matrix from the one-pass moments (any kind of data, and the stream of
  ``partial_fit``);
* "lanczos" and "block_krylov" (routes "randomized" and "krylov", sparse and Dask data):
  :func:`_decompose_implicit` on products with :math:`X_c^\top X_c`, never formed;
* "sparse_qr" and "tsqr" (route "svd", sparse and Dask data): :func:`_decompose_sparse_qr`
  and :func:`_decompose_tsqr`, the singular values of the triangular factor of :math:`X_c`;
* "sparse_gram" (route "gram"): :func:`_decompose_sparse_gram`, the n x n matrix
  :math:`X_c X_c^\top` of sparse data with few rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .._inputs.matrix import DaskMatrix, Moments, SparseMatrix, limited_blas
from .._linalg import constants
from .._linalg.center import Center
from .._linalg.eigen import (
    KRYLOV_MAX_BLOCKS,
    KRYLOV_RTOL,
    cholesky_qr,
    krylov_block,
    krylov_top_operator,
    lanczos_top_operator,
    top_eigh,
    top_eigh_of_varying,
)
from .._linalg.svd import exact_svd, orthonormal_completion
from .._linalg.units import checked_scale, norm_exponent, rescale
from .decomposition import (
    Decomposition,
    check_variance,
    signed,
    sqrt_eigenvalues,
)

_EPS = np.finfo(np.float64).eps
_LARGEST_POWER = np.finfo(np.float64).maxexp - 1  # 1023: 2**1023 is the largest power of two


def decompose_sparse_or_dask(
    data: SparseMatrix | DaskMatrix, k: int, decomposition: str, *, ddof: int, standardize: bool,
    rtol: float = KRYLOV_RTOL,
) -> Decomposition:
    r"""Principal axes of sparse or Dask data by the decomposition that the data's route
    table names for a route (:class:`pcalib._inputs.route_table.RouteTable`), one of
    :data:`IMPLICIT_DECOMPOSITIONS`: "moments" (the covariance from the one-pass moments),
    "lanczos" and "block_krylov" (the implicit Krylov routes; `rtol` is their residual
    test), "tsqr" (Dask's SVD route), "sparse_qr" (QR factorizations of dense blocks) and
    "sparse_gram" (the sparse :math:`X X^\top`)."""
    if decomposition in _KRYLOV:
        return _KRYLOV[decomposition](data, k, ddof=ddof, standardize=standardize, rtol=rtol)
    return _EXACT[decomposition](data, k, ddof=ddof, standardize=standardize)


@dataclass(frozen=True)
class _MomentUnits:
    r"""How the moment routes read data of given :class:`pcalib._inputs.matrix.Moments`:
    as :math:`Z = (X - \mathbf 1 \bar x^\top) D^{-1}`, D = diag(`divisor`) in the data's
    units: the standard deviations with `standardize`, else :math:`2^{e + f}` (e the
    moments' exponent, f = :func:`pcalib._linalg.units.norm_exponent` of their sums of squares
    in units of :math:`4^e`): Z's largest column has norm in [1/2, 1), so Z, the
    products :math:`Z^\top Z Q` and their Gram matrices neither overflow nor underflow
    at any scale of the data (at :math:`10^{-85}`, read as :math:`2^e X` alone, the
    Gram matrices of block Krylov were :math:`10^{-340}`: 0, and its axes 1 rad off)."""

    divisor: np.ndarray  #: (p,) data units
    frame_divisor: np.ndarray  #: (p,) the same in units of 2**e (powers of two unless standardized)
    scale: np.ndarray  #: (p,) the estimator's scale_: the standard deviations, or ones
    exponent: int  #: the decomposition's sizes are 2**exponent times those of Z

    @classmethod
    def of(cls, moments: Moments, ddof: int, standardize: bool, name: str = "X") -> _MomentUnits:
        """Refuses data whose columns are all constant, or constant columns to standardize."""
        constant, e = moments.constant, moments.exponent
        check_variance(constant)
        if not standardize:
            # at most 2**1023 in the data's units (data near 1.8e308: 2**(e + f) would be
            # inf); Z's column norms are then at most a few powers of two above 1
            f = min(norm_exponent(np.where(constant, 0.0, moments.squares)), _LARGEST_POWER - e)
            ones = np.ones(constant.size)
            return cls(np.full(constant.size, np.ldexp(1.0, e + f)), np.full(constant.size, np.ldexp(1.0, f)),
                       ones, e + f)
        sd = checked_scale(constant, moments.squares, moments.n, ddof, name)  # units of 2**e
        data_sd = rescale(sd, e, "the standard deviations")
        return cls(data_sd, sd, data_sd, 0)

    def column_ss(self, moments: Moments) -> np.ndarray:
        r"""(p,) the column sums of squares of Z."""
        return np.where(moments.constant, 0.0, moments.squares) / self.frame_divisor**2

    def total_ss(self, moments: Moments) -> float:
        r""":math:`\|Z\|_F^2`."""
        return float(np.sum(self.column_ss(moments)))


def decompose_moments(moments: Moments, k: int, *, ddof: int, standardize: bool = False) -> Decomposition:
    r"""The covariance route from the one-pass moments :math:`(n, \bar x, M)` of the
    data (any kind: :meth:`pcalib._inputs.matrix.Moments.merge` of blocks, chunks or
    batches): the k leading eigenpairs of :math:`D^{-1} M D^{-1}`
    (:func:`pcalib._linalg.eigen.top_eigh`), with :math:`\sigma_j = \sqrt{\lambda_j(M)}`.
    Rows and columns of constant columns are exactly 0. No scores."""
    p = moments.mean.size
    units = _MomentUnits.of(moments, ddof, standardize)
    C = np.array(moments.scatter, order="F")
    C[moments.constant] = 0.0
    C[:, moments.constant] = 0.0
    C /= units.frame_divisor[:, None]
    C /= units.frame_divisor
    total_ss = float(np.trace(C))
    w, V = top_eigh_of_varying(C, k, moments.constant)
    s = sqrt_eigenvalues(w, moments.n, p)
    kept = moments if p <= constants.KEPT_MOMENTS_MAX_FEATURES else None
    return replace(_decomposition_of_axes(V, s, total_ss, moments, units, "eig"), moments=kept)


def _decomposition_of_axes(
    V: np.ndarray, s: np.ndarray, total_ss: float, moments: Moments, units: _MomentUnits, route: str
) -> Decomposition:
    """A Decomposition from axes V (p, k) and singular values s of Z (see
    :class:`_MomentUnits`), no scores."""
    tail_ss = max(total_ss - float(s @ s), 0.0)
    found = signed(np.ascontiguousarray(V.T), s, total_ss, tail_ss, None)
    return Decomposition(*found, moments.center(), units.scale, units.exponent, route,
                         column_ss=units.column_ss(moments), constant=moments.constant)


#: the k leading eigenpairs (w, V) of an operator given by ``times(Q)``, of order p,
#: to the residual test `rtol`: (times, p, k, rtol) -> (w, V)
TopPairs = Callable[[Callable[[np.ndarray], np.ndarray], int, int, float], tuple[np.ndarray, np.ndarray]]


def _decompose_implicit(
    data: SparseMatrix | DaskMatrix, k: int, top_pairs: TopPairs, *, ddof: int, standardize: bool, rtol: float
) -> Decomposition:
    r"""The wide route for data that stay sparse or out of core: the k leading
    eigenpairs of :math:`D^{-1} X_c^\top X_c D^{-1}` given only by its products
    with thin blocks (:meth:`gram_times`, implicit centering: :math:`X_c` is never
    formed), by `top_pairs` (:func:`_decompose_by_lanczos`, :func:`_decompose_by_block_krylov`).
    Both accept the Ritz pairs when every residual
    :math:`\|M v_j - \theta_j v_j\| \le 10^{-10} \theta_1` (`rtol`; the a-posteriori
    error estimate: each Ritz value is then within :math:`10^{-10}\lambda_1` of an
    eigenvalue, each axis within an angle of about :math:`10^{-10}\lambda_1/\delta_j`
    of an eigenvector, :math:`\delta_j` its gap to the rest of the spectrum).
    One more pass first, for the column means (and scales)."""
    n, p = data.shape
    moments = data.moments(full=False)
    units = _MomentUnits.of(moments, ddof, standardize)
    center = moments.center()

    def times(Q: np.ndarray) -> np.ndarray:
        return data.gram_times(Q, center, units.divisor)

    w, V = top_pairs(times, p, k, rtol)
    return _decomposition_of_axes(V, sqrt_eigenvalues(w, n, p), units.total_ss(moments), moments, units, "randomized")


def _block_krylov_pairs(
    times: Callable[[np.ndarray], np.ndarray], p: int, k: int, rtol: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""Block Krylov (:func:`pcalib._linalg.eigen.krylov_top_operator`), one product per
    block of :math:`\max(2k, k + 10)` vectors.

    Raises
    ------
    RuntimeError
        If its space reaches ``KRYLOV_MAX_BLOCKS`` blocks before the residual test
        passes (a flat spectrum at the k-th eigenvalue).
    """
    top = krylov_top_operator(times, p, k, rtol, max_dim=min(p, KRYLOV_MAX_BLOCKS * krylov_block(k, p)))
    if top is None:
        raise RuntimeError(
            f"the block Krylov method did not reach a residual of {rtol:g} within "
            f"{KRYLOV_MAX_BLOCKS} passes over X (the spectrum is flat near component {k}); "
            "ask for fewer or more components, or densify X if it fits in memory"
        )
    return top[0], top[1]


def _decompose_by_block_krylov(
    data: SparseMatrix | DaskMatrix, k: int, *, ddof: int, standardize: bool, rtol: float
) -> Decomposition:
    """The implicit route by block Krylov: for a Dask array, where each product is a
    pass over the chunks, few passes (:func:`_block_krylov_pairs`)."""
    return _decompose_implicit(data, k, _block_krylov_pairs, ddof=ddof, standardize=standardize, rtol=rtol)


def _decompose_by_lanczos(data: SparseMatrix, k: int, *, ddof: int, standardize: bool, rtol: float) -> Decomposition:
    r"""The implicit route by the Lanczos method for a sparse matrix in memory, whose
    products are cheap (:func:`pcalib._linalg.eigen.lanczos_top_operator`, one vector per
    product), each product split between the cores
    (:meth:`pcalib._inputs.sparse.SparseMatrix.parallel`) and BLAS limited to one thread
    (ARPACK's steps are vector operations of order p: BLAS threads, left spinning
    after each, took the cores from the products; measured at 100,000 x 20,000 with
    2,000,000 stored entries, k = 10: 1.2 s without the limit, 0.74 s with it, 0.5 s
    with the products split as well); block Krylov for k = p, which ARPACK refuses.

    Raises
    ------
    RuntimeError
        If ARPACK stops after 1000 restarts before the residual test passes.
    """

    def lanczos_pairs(
        times: Callable[[np.ndarray], np.ndarray], p: int, k: int, rtol: float
    ) -> tuple[np.ndarray, np.ndarray]:
        if k >= p:
            return _block_krylov_pairs(times, p, k, rtol)
        with limited_blas(), data.parallel():
            top = lanczos_top_operator(times, p, k, rtol)
        if top is None:
            raise RuntimeError(
                f"the Lanczos method (ARPACK) did not reach a residual of {rtol:g} "
                f"within 1000 restarts (the spectrum is flat near component {k}); ask for "
                "fewer or more components, or densify X if it fits in memory"
            )
        return top[0], top[1]

    return _decompose_implicit(data, k, lanczos_pairs, ddof=ddof, standardize=standardize, rtol=rtol)


def _decompose_by_moments(data: SparseMatrix | DaskMatrix, k: int, *, ddof: int, standardize: bool) -> Decomposition:
    """The covariance route: :func:`decompose_moments` of the data's one-pass moments."""
    return decompose_moments(data.moments(), k, ddof=ddof, standardize=standardize)


def _recovered_axes(data: SparseMatrix, U: np.ndarray, s: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
    r"""Axes :math:`v_j = Z_c^\top u_j / \sigma_j` (p, k) from left singular vectors U
    (n, k), re-orthonormalized (the squared condition number of the Gram route costs
    :math:`v_j` about :math:`\varepsilon \sigma_1^2 / \sigma_j^2` of orthogonality).
    With every :math:`\sigma_j > 0`, by one Cholesky QR step
    (:func:`pcalib._linalg.eigen.cholesky_qr`), :math:`V \leftarrow V R^{-1}`
    with :math:`R^\top R = V^\top V` (``dsyrk`` and ``dtrsm``: 2 p k^2 flops, a quarter of
    a Householder QR with its Q, and as accurate for columns this close to
    orthonormal); otherwise (some :math:`\sigma_j` at most :math:`\max(n, p)\,
    \varepsilon\,\sigma_1`, round-off whose :math:`u_j` is noise, or Cholesky failing)
    by :func:`pcalib._linalg.svd.orthonormal_completion`, whose completion gives the axes
    of those :math:`\sigma_j`."""
    k = s.size
    keep = s > max(data.shape) * _EPS * s[0]  # beyond: round-off, whose u_j is noise
    V = data.transpose_times(U[:, keep] / s[keep], center, scale)
    if keep.all():
        try:
            return cholesky_qr(np.asfortranarray(V))
        except np.linalg.LinAlgError:  # columns too far from orthonormal: Householder
            pass
    return orthonormal_completion(V, k)


def _decompose_sparse_gram(data: SparseMatrix, k: int, *, ddof: int, standardize: bool = False) -> Decomposition:
    r"""The Gram route for sparse data with few rows: the k leading eigenpairs
    :math:`(\sigma_j^2, u_j)` of the n x n matrix :math:`Z_c Z_c^\top`
    (:meth:`pcalib._inputs.matrix.SparseMatrix.centered_gram`, :func:`pcalib._linalg.eigen.top_eigh`),
    and the axes :math:`v_j = Z_c^\top u_j / \sigma_j` (completed to an orthonormal
    basis where :math:`\sigma_j = 0`, as :func:`pca_gram` does). Costs the sparse
    product :math:`X X^\top` (:math:`\sum_j c_j^2` multiplications, :math:`c_j` the
    entries stored in column j), :math:`O(n^3)` for the eigensolver and
    :math:`O(\mathrm{nnz}\, k)` for the axes; memory :math:`n^2 + p k` numbers."""
    n, p = data.shape
    moments = data.moments(full=False)
    units = _MomentUnits.of(moments, ddof, standardize)
    center = moments.center()
    w, U = top_eigh(np.asfortranarray(data.centered_gram(center, units.divisor)), k)
    s = sqrt_eigenvalues(w, n, p)
    V = _recovered_axes(data, U, s, center, units.divisor)
    return _decomposition_of_axes(V, s, units.total_ss(moments), moments, units, "gram")


def _decompose_sparse_qr(data: SparseMatrix, k: int, *, ddof: int, standardize: bool = False) -> Decomposition:
    r"""The SVD route for sparse data: the singular values of :math:`Z_c` from those of
    the triangular factor R of its dense blocks (:meth:`pcalib._inputs.matrix.SparseMatrix.centered_r`,
    to about :math:`\varepsilon \sigma_1`: the condition number is never squared),
    the axes from R's right singular vectors (n >= p) or as :math:`Z_c^\top u_j / \sigma_j`
    from its left ones (n < p). The accuracy guard of "auto" for sparse data: costs
    :math:`O(n p \min(n, p))` and :math:`\min(n, p)^2` numbers."""
    n, p = data.shape
    moments = data.moments(full=False)
    units = _MomentUnits.of(moments, ddof, standardize)
    center = moments.center()
    _, s_all, Wt = exact_svd(data.centered_r(center, units.divisor), overwrite_a=True)
    s = np.concatenate([s_all, np.zeros(max(k - s_all.size, 0))])[:k]
    if n >= p:
        V = orthonormal_completion(Wt[: min(k, Wt.shape[0])].T, k)
    else:
        U = np.zeros((n, k))
        U[:, : min(k, Wt.shape[0])] = Wt[:k].T
        V = _recovered_axes(data, U, s, center, units.divisor)
    return _decomposition_of_axes(V, s, float(s_all @ s_all), moments, units, "svd")


def _decompose_tsqr(data: DaskMatrix, k: int, *, ddof: int, standardize: bool = False) -> Decomposition:
    r"""The SVD route for Dask data: TSQR of the centered (scaled) data,
    :math:`Y_c = Q R` (``dask.array.linalg.tsqr``, one pass and the tree of small QR
    factorizations; the rounding error of the mean corrected in R, see
    :meth:`pcalib._inputs.matrix.DaskMatrix.tsqr_r`), then the SVD of the p x p matrix R:
    the singular values of :math:`Y_c` to about :math:`\varepsilon \sigma_1`, the
    condition number never squared. The accuracy guard of the covariance route."""
    moments = data.moments(full=False)
    units = _MomentUnits.of(moments, ddof, standardize)
    _, s_all, Vt = exact_svd(data.tsqr_r(moments.center(), units.divisor), overwrite_a=True)
    return _decomposition_of_axes(Vt[:k].T, s_all[:k], float(s_all @ s_all), moments, units, "svd")


#: the decompositions of sparse and Dask data by the names the route tables give them
#: (:class:`pcalib._inputs.route_table.RouteTable`): the Krylov ones take a residual test
_KRYLOV: dict[str, Callable[..., Decomposition]] = {
    "lanczos": _decompose_by_lanczos, "block_krylov": _decompose_by_block_krylov,
}
_EXACT: dict[str, Callable[..., Decomposition]] = {
    "moments": _decompose_by_moments, "sparse_gram": _decompose_sparse_gram, "sparse_qr": _decompose_sparse_qr,
    "tsqr": _decompose_tsqr,
}
#: every name of a decomposition of sparse or Dask data
IMPLICIT_DECOMPOSITIONS = frozenset(_KRYLOV) | frozenset(_EXACT)

r"""PCA by its three routes (chapters *Maximum variance*, *SVD and PCA*,
*Minimum reconstruction error*).

All three routes center first, :math:`X_c = X - \mathbf{1}\bar{x}^\top`, then:

* ``pca_eig``: eigendecomposition of the covariance
  :math:`S = X_c^\top X_c / (n - \mathrm{ddof}) = V \Lambda V^\top` (p x p);
* ``pca_svd``: SVD of the data :math:`X_c = U \Sigma V^\top`, with
  :math:`\lambda_j = \sigma_j^2 / (n - \mathrm{ddof})`;
* ``pca_gram``: eigendecomposition of the Gram matrix
  :math:`G = X_c X_c^\top = U \Sigma^2 U^\top` (n x n), components recovered as
  :math:`v_j = X_c^\top u_j / \sigma_j`.

They return the same numbers and signs (sign convention of
``pcalib._signs.axis_signs`` on the components, scores flipped with them).
The covariance and Gram routes square the condition number: eigenvalues are
accurate to about :math:`\varepsilon \lambda_1` in absolute terms, the SVD to
about :math:`\varepsilon \sigma_1` on the singular values.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike
from scipy.linalg import blas

from ._center import Center
from ._decomposition import (
    _EPS,
    _KEPT_MOMENTS_MAX_FEATURES,
    _axes_from_left,
    _check_variance,
    _data_moments,
    _Decomposition,
    _found_from_axes,
    _signed,
    _sqrt_eigenvalues,
    _svd_found,
)
from ._dense_krylov import _krylov_axes
from ._eigen import (
    KRYLOV_MAX_BLOCKS,
    KRYLOV_RTOL,
    _top_eigh_of_varying,
    krylov_block,
    krylov_top_operator,
    lanczos_top_operator,
    top_eigh,
)
from ._inputs import (
    DaskMatrix,
    DenseMatrix,
    Moments,
    SparseMatrix,
    limited_blas,
)
from ._scatter import _scatter, _scores_by_row_blocks
from ._validation import _validated, check_n_components, checked_finite, output_dtype
from .covariance_matrix import _center_array, _checked_scale, _Frame, _rescale
from .lowrank import _auto_n_iter, _exact_svd, _orthonormal_completion, _randomized_svd_f64

__all__ = ["PCAResult", "pca_eig", "pca_svd", "pca_gram", "reconstruction_error"]


@dataclass(frozen=True, eq=False)
class PCAResult:
    """Result of :func:`pca_eig`, :func:`pca_svd` and :func:`pca_gram`.

    Attributes
    ----------
    components : ndarray of shape (k, p)
        Principal axes :math:`v_j^\\top` (orthonormal rows), sign convention applied.
    explained_variance : ndarray of shape (k,)
        Eigenvalues :math:`\\lambda_j = \\sigma_j^2 / (n - \\mathrm{ddof})`, non-increasing;
        the variance of the scores along each axis.
    explained_variance_ratio : ndarray of shape (k,)
        :math:`\\lambda_j / \\operatorname{tr} S`, with the total variance computed
        directly, so the ratios are right for any k.
    singular_values : ndarray of shape (k,)
        Singular values :math:`\\sigma_j` of the centered data :math:`X_c`.
    scores : ndarray of shape (n, k)
        :math:`X_c V_k = U_k \\Sigma_k`.
    mean : ndarray of shape (p,)
        Column means :math:`\\bar{x}`.
    """

    components: np.ndarray
    explained_variance: np.ndarray
    explained_variance_ratio: np.ndarray
    singular_values: np.ndarray
    scores: np.ndarray
    mean: np.ndarray


def _decompose(
    Xc: np.ndarray,
    k: int,
    route: str,
    *,
    need_scores: bool = True,
    random_state: np.random.Generator | None = None,
    oversample: int = 10,
) -> tuple[np.ndarray, np.ndarray, float, float, np.ndarray | None]:
    """Principal axes of the centered float64 matrix `Xc` by the svd, gram or randomized route.

    `Xc` may be overwritten. Returns ``(components (k, p), singular_values (k,),
    total_ss, tail_ss, scores (n, k) or None)`` with the sign convention applied;
    ``total_ss`` is :math:`\\|X_c\\|_F^2` and ``tail_ss`` the sum of the discarded
    :math:`\\sigma_j^2` (exact from the SVD, the difference of the two sums otherwise).
    Scores are :math:`X_c V_k`, what ``transform`` computes, for the gram and
    randomized routes, and :math:`U_k \\Sigma_k` (the same to round-off) for the SVD.
    """
    n, p = Xc.shape
    if route == "svd":
        return _svd_found(*_exact_svd(Xc, overwrite_a=True), k, need_scores)
    if route == "gram":
        w, U = top_eigh(Xc @ Xc.T, k)  # eigenpairs of X_c X_c^T (n x n, a syrk)
        s = _sqrt_eigenvalues(w, n, p)
        V = _axes_from_left(Xc, U, s, k)
    else:  # "randomized"; "eig" is _decompose_data's, "krylov" _krylov_axes's
        rng = random_state if random_state is not None else np.random.default_rng(0)  # deterministic
        _, s, Vt = _randomized_svd_f64(Xc, k, oversample, _auto_n_iter(k, Xc.shape), rng)
        V = Vt.T
    return _found_from_axes(Xc, s, V, need_scores)


def _decompose_data(
    arr: np.ndarray,
    k: int,
    route: str,
    *,
    ddof: int,
    standardize: bool = False,
    need_scores: bool = True,
    random_state: np.random.Generator | None = None,
    finite_checked: bool = True,
    name: str = "X",
    max_blocks: int | None = None,
    max_vectors: int = 0,
) -> _Decomposition:
    r"""Principal axes of validated data `arr` (not modified) by one route
    (`max_blocks`, `max_vectors`: the "krylov" route's budget, see :func:`_krylov_axes`).

    The "eig" route forms :math:`Y_c^\top Y_c` by row blocks (:func:`_scatter`,
    no centered copy of X); the others work on one centered float64 copy
    (:func:`pcalib.covariance_matrix._center_array`). Both read X in its frame, where
    nothing overflows or underflows. Unless `finite_checked`, `arr` is first
    checked for NaN and infinity, except where the eig route's one pass finds
    its sums of squares finite (then so is every entry).

    Raises
    ------
    ValueError
        If `arr` holds NaN or infinity, or every column is constant (zero total variance).
    """
    n, p = arr.shape
    if route != "eig":
        if not finite_checked:
            checked_finite(arr, name)
        centered = _center_array(arr, ddof, scale=standardize)
        _check_variance(centered.constant)
        if route == "svd" and p <= _KEPT_MOMENTS_MAX_FEATURES:  # the scatter from the SVD too
            U, s_all, Vt = _exact_svd(centered.values, overwrite_a=True)
            frame = _Frame(None, np.asarray(centered.exponent), centered.constant)
            moments = _data_moments(n, (Vt.T * s_all**2) @ Vt, centered.scale, centered.center, frame)
            return _Decomposition(*_svd_found(U, s_all, Vt, k, need_scores), centered.center,
                                  centered.scale, centered.exponent, route, moments)
        if route == "krylov":
            s, V, route = _krylov_axes(centered.values, k, centered.constant, max_blocks, max_vectors)
            found = _found_from_axes(centered.values, s, V, need_scores)
        else:
            found = _decompose(centered.values, k, route, need_scores=need_scores, random_state=random_state)
        return _Decomposition(*found, centered.center, centered.scale, centered.exponent, route)
    C, center, scale, frame = _scatter(arr, ddof, standardize, name, finite_checked=finite_checked)
    total_ss = float(np.trace(C))
    data_center = frame.data_center(center)
    moments = _data_moments(n, C, scale, data_center, frame)  # before C is overwritten
    w, V = _top_eigh_of_varying(C, k, frame.constant)
    s = _sqrt_eigenvalues(w, n, p)
    V = np.asfortranarray(V)
    scores = _scores_by_row_blocks(arr, frame, center, scale, V) if need_scores else None
    tail_ss = max(total_ss - float(s @ s), 0.0)
    found = _signed(np.ascontiguousarray(V.T), s, total_ss, tail_ss, scores)
    exponent = 0 if standardize else int(frame.exponent)
    scale = _rescale(scale, frame.exponent, "the standard deviations") if standardize else scale
    return _Decomposition(*found, data_center, scale, exponent, route, moments)


@dataclass(frozen=True)
class _MomentUnits:
    r"""How the moment routes read data of given :class:`pcalib._inputs.Moments`:
    as :math:`Z = (X - \mathbf 1 \bar x^\top) D^{-1}`, D = diag(`divisor`) in the data's
    units: the standard deviations with `standardize`, else :math:`2^e` (e the
    moments' exponent: Z neither overflows nor underflows at any scale)."""

    divisor: np.ndarray  #: (p,) data units
    frame_divisor: np.ndarray  #: (p,) the same in units of 2**e (ones unless standardized)
    scale: np.ndarray  #: (p,) the estimator's scale_: the standard deviations, or ones
    exponent: int  #: the decomposition's sizes are 2**exponent times those of Z

    @classmethod
    def of(cls, moments: Moments, ddof: int, standardize: bool, name: str = "X") -> _MomentUnits:
        """Refuses data whose columns are all constant, or constant columns to standardize."""
        constant, e = moments.constant, moments.exponent
        _check_variance(constant)
        if not standardize:
            ones = np.ones(constant.size)
            return cls(np.full(constant.size, np.ldexp(1.0, e)), ones, ones, e)
        sd = _checked_scale(constant, moments.squares, moments.n, ddof, name)  # units of 2**e
        data_sd = _rescale(sd, e, "the standard deviations")
        return cls(data_sd, sd, data_sd, 0)

    def total_ss(self, moments: Moments) -> float:
        r""":math:`\|Z\|_F^2`."""
        squares = np.where(moments.constant, 0.0, moments.squares)
        return float(np.sum(squares / self.frame_divisor**2))


def _decompose_moments(moments: Moments, k: int, *, ddof: int, standardize: bool = False) -> _Decomposition:
    r"""The covariance route from the one-pass moments :math:`(n, \bar x, M)` of the
    data (any kind: :meth:`pcalib._inputs.Moments.merge` of blocks, chunks or
    batches): the k leading eigenpairs of :math:`D^{-1} M D^{-1}`
    (:func:`pcalib._eigen.top_eigh`), with :math:`\sigma_j = \sqrt{\lambda_j(M)}`.
    Rows and columns of constant columns are exactly 0. No scores."""
    p = moments.mean.size
    units = _MomentUnits.of(moments, ddof, standardize)
    C = np.array(moments.scatter, order="F")
    C[moments.constant] = 0.0
    C[:, moments.constant] = 0.0
    C /= units.frame_divisor[:, None]
    C /= units.frame_divisor
    total_ss = float(np.trace(C))
    w, V = _top_eigh_of_varying(C, k, moments.constant)
    s = _sqrt_eigenvalues(w, moments.n, p)
    kept = moments if p <= _KEPT_MOMENTS_MAX_FEATURES else None
    return replace(_decomposition_of_axes(V, s, total_ss, moments, units, "eig"), moments=kept)


def _decomposition_of_axes(
    V: np.ndarray, s: np.ndarray, total_ss: float, moments: Moments, units: _MomentUnits, route: str
) -> _Decomposition:
    """A _Decomposition from axes V (p, k) and singular values s of Z (see
    :class:`_MomentUnits`), no scores."""
    tail_ss = max(total_ss - float(s @ s), 0.0)
    found = _signed(np.ascontiguousarray(V.T), s, total_ss, tail_ss, None)
    return _Decomposition(*found, moments.center(), units.scale, units.exponent, route)


def _decompose_implicit(data: SparseMatrix | DaskMatrix, k: int, *, ddof: int, standardize: bool = False) -> _Decomposition:
    r"""The wide route for data that stay sparse or out of core: the k leading
    eigenpairs of :math:`D^{-1} X_c^\top X_c D^{-1}` given only by its products
    with thin blocks (:meth:`gram_times`, implicit centering: :math:`X_c` is never
    formed). A sparse matrix in memory, whose products are cheap, goes to the
    Lanczos method (:func:`pcalib._eigen.lanczos_top_operator`, one vector per
    product), each product split between the cores
    (:meth:`pcalib._inputs.SparseMatrix.parallel`) and BLAS limited to one thread
    (ARPACK's steps are vector operations of order p: BLAS threads, left spinning
    after each, took the cores from the products; measured at 100,000 x 20,000 with
    2,000,000 stored entries, k = 10: 1.2 s without the limit, 0.74 s with it, 0.5 s
    with the products split as well); a Dask array, where each product is a pass over
    the chunks, to block Krylov (:func:`pcalib._eigen.krylov_top_operator`, one
    pass per block of :math:`\max(2k, k + 10)` vectors: few passes). Both
    accept the Ritz pairs when every residual
    :math:`\|M v_j - \theta_j v_j\| \le 10^{-10} \theta_1` (the a-posteriori
    error estimate: each Ritz value is then within :math:`10^{-10}\lambda_1` of an
    eigenvalue, each axis within an angle of about :math:`10^{-10}\lambda_1/\delta_j`
    of an eigenvector, :math:`\delta_j` its gap to the rest of the spectrum).
    One more pass first, for the column means (and scales).

    Raises
    ------
    RuntimeError
        If the method stops before the residual test passes (a flat spectrum at
        the k-th eigenvalue): ARPACK after 1000 restarts, block Krylov when its
        space reaches ``KRYLOV_MAX_BLOCKS`` blocks.
    """
    n, p = data.shape
    moments = data.moments(full=False)
    units = _MomentUnits.of(moments, ddof, standardize)
    center = moments.center()

    def times(Q: np.ndarray) -> np.ndarray:
        return data.gram_times(Q, center, units.divisor)

    top: tuple[Any, ...] | None
    if isinstance(data, SparseMatrix) and k < p:  # in memory: Lanczos
        with limited_blas(), data.parallel():
            top = lanczos_top_operator(times, p, k)
        if top is None:
            raise RuntimeError(
                f"the Lanczos method (ARPACK) did not reach a residual of {KRYLOV_RTOL:g} "
                f"within 1000 restarts (the spectrum is flat near component {k}); ask for "
                "fewer or more components, or densify X if it fits in memory"
            )
    else:
        top = krylov_top_operator(times, p, k, max_dim=min(p, KRYLOV_MAX_BLOCKS * krylov_block(k, p)))
        if top is None:
            raise RuntimeError(
                f"the block Krylov method did not reach a residual of {KRYLOV_RTOL:g} within "
                f"{KRYLOV_MAX_BLOCKS} passes over X (the spectrum is flat near component {k}); "
                "ask for fewer or more components, or densify X if it fits in memory"
            )
    w, V = top[:2]
    return _decomposition_of_axes(V, _sqrt_eigenvalues(w, n, p), units.total_ss(moments), moments, units, "randomized")


def _recovered_axes(data: SparseMatrix, U: np.ndarray, s: np.ndarray, center: Center, scale: np.ndarray) -> np.ndarray:
    r"""Axes :math:`v_j = Z_c^\top u_j / \sigma_j` (p, k) from left singular vectors U
    (n, k), re-orthonormalized (the squared condition number of the Gram route costs
    :math:`v_j` about :math:`\varepsilon \sigma_1^2 / \sigma_j^2` of orthogonality).
    With every :math:`\sigma_j > 0`, by one Cholesky QR step, :math:`V \leftarrow V R^{-1}`
    with :math:`R^\top R = V^\top V` (``dsyrk`` and ``dtrsm``: 2 p k^2 flops, a quarter of
    a Householder QR with its Q, and as accurate for columns this close to
    orthonormal); otherwise (some :math:`\sigma_j` at most :math:`\max(n, p)\,
    \varepsilon\,\sigma_1`, round-off whose :math:`u_j` is noise, or Cholesky failing)
    by :func:`pcalib.lowrank._orthonormal_completion`, whose completion gives the axes
    of those :math:`\sigma_j`."""
    k = s.size
    keep = s > max(data.shape) * _EPS * s[0]  # beyond: round-off, whose u_j is noise
    V = data.transpose_times(U[:, keep] / s[keep], center, scale)
    if keep.all():
        Vt = np.asfortranarray(V.T)  # (k, p)
        try:
            R = scipy.linalg.cholesky(blas.dsyrk(1.0, Vt), lower=False, check_finite=False)
            return blas.dtrsm(1.0, R, Vt, side=0, lower=0, trans_a=1, overwrite_b=True).T
        except np.linalg.LinAlgError:  # columns too far from orthonormal: Householder
            pass
    return _orthonormal_completion(V, k)


def _decompose_sparse_gram(data: SparseMatrix, k: int, *, ddof: int, standardize: bool = False) -> _Decomposition:
    r"""The Gram route for sparse data with few rows: the k leading eigenpairs
    :math:`(\sigma_j^2, u_j)` of the n x n matrix :math:`Z_c Z_c^\top`
    (:meth:`pcalib._inputs.SparseMatrix.centered_gram`, :func:`pcalib._eigen.top_eigh`),
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
    s = _sqrt_eigenvalues(w, n, p)
    V = _recovered_axes(data, U, s, center, units.divisor)
    return _decomposition_of_axes(V, s, units.total_ss(moments), moments, units, "gram")


def _decompose_sparse_qr(data: SparseMatrix, k: int, *, ddof: int, standardize: bool = False) -> _Decomposition:
    r"""The SVD route for sparse data: the singular values of :math:`Z_c` from those of
    the triangular factor R of its dense blocks (:meth:`pcalib._inputs.SparseMatrix.centered_r`,
    to about :math:`\varepsilon \sigma_1`: the condition number is never squared),
    the axes from R's right singular vectors (n >= p) or as :math:`Z_c^\top u_j / \sigma_j`
    from its left ones (n < p). The accuracy guard of "auto" for sparse data: costs
    :math:`O(n p \min(n, p))` and :math:`\min(n, p)^2` numbers."""
    n, p = data.shape
    moments = data.moments(full=False)
    units = _MomentUnits.of(moments, ddof, standardize)
    center = moments.center()
    _, s_all, Wt = _exact_svd(data.centered_r(center, units.divisor), overwrite_a=True)
    s = np.concatenate([s_all, np.zeros(max(k - s_all.size, 0))])[:k]
    if n >= p:
        V = _orthonormal_completion(Wt[: min(k, Wt.shape[0])].T, k)
    else:
        U = np.zeros((n, k))
        U[:, : min(k, Wt.shape[0])] = Wt[:k].T
        V = _recovered_axes(data, U, s, center, units.divisor)
    return _decomposition_of_axes(V, s, float(s_all @ s_all), moments, units, "svd")


def _decompose_tsqr(data: DaskMatrix, k: int, *, ddof: int, standardize: bool = False) -> _Decomposition:
    r"""The SVD route for Dask data: TSQR of the centered (scaled) data,
    :math:`Y_c = Q R` (``dask.array.linalg.tsqr``, one pass and the tree of small QR
    factorizations; the rounding error of the mean corrected in R, see
    :meth:`pcalib._inputs.DaskMatrix.tsqr_r`), then the SVD of the p x p matrix R:
    the singular values of :math:`Y_c` to about :math:`\varepsilon \sigma_1`, the
    condition number never squared. The accuracy guard of the covariance route."""
    moments = data.moments(full=False)
    units = _MomentUnits.of(moments, ddof, standardize)
    _, s_all, Vt = _exact_svd(data.tsqr_r(moments.center(), units.divisor), overwrite_a=True)
    return _decomposition_of_axes(Vt[:k].T, s_all[:k], float(s_all @ s_all), moments, units, "svd")


def _decompose_matrix(
    data: DenseMatrix | SparseMatrix | DaskMatrix, k: int, route: str, *, ddof: int, standardize: bool,
    **in_memory: Any,
) -> _Decomposition:
    """Principal axes of data of any kind (:func:`pcalib._inputs.as_matrix`) by one route.

    NumPy arrays go to the in-memory routes (:func:`_decompose_data`, which also takes
    the `in_memory` options `need_scores`, `random_state`, `max_blocks` and
    `max_vectors`). Sparse and Dask data: "eig" from the one-pass moments,
    "randomized" and "krylov" by the implicit Krylov routes, "svd" by TSQR (Dask) or
    QR factorizations of dense blocks (sparse), "gram" from the sparse
    :math:`X X^\top` (sparse only); they have no scores (``transform`` gives them).
    """
    if isinstance(data, DenseMatrix):
        return _decompose_data(data.arr, k, route, ddof=ddof, standardize=standardize,
                               finite_checked=data.finite_checked, name=data.name, **in_memory)
    if route == "eig":
        return _decompose_moments(data.moments(), k, ddof=ddof, standardize=standardize)
    if route in ("randomized", "krylov"):
        return _decompose_implicit(data, k, ddof=ddof, standardize=standardize)
    if isinstance(data, SparseMatrix):
        sparse_route = _decompose_sparse_gram if route == "gram" else _decompose_sparse_qr
        return sparse_route(data, k, ddof=ddof, standardize=standardize)
    return _decompose_tsqr(data, k, ddof=ddof, standardize=standardize)


def _pca(X: ArrayLike, k: int | None, ddof: int, route: str) -> PCAResult:
    arr, ddof = _validated(X, ddof)
    n, p = arr.shape
    dtype = output_dtype(arr)
    k = min(n, p) if k is None else check_n_components(k, min(n, p), "k")
    found = _decompose_data(arr, k, route, ddof=ddof)
    arrays = (
        found.components,
        found.explained_variance(n - ddof),
        found.explained_variance_ratio(),
        found.singular_values(),
        found.data_scores(),
        found.mean,
    )
    return PCAResult(*(np.ascontiguousarray(a, dtype=dtype) for a in arrays))


_ROUTE_DOC = r"""
    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, one sample per row (n >= 2). Not modified.
    k : int or None, default None
        Number of components, ``1 <= k <= min(n, p)``; None keeps all ``min(n, p)``.
    ddof : int, default 1
        The covariance divisor is ``n - ddof``.

    Returns
    -------
    PCAResult
        Components (k, p), explained variance, ratio, singular values of
        :math:`X_c`, scores (n, k) and mean; float32 for float32 input.

    Raises
    ------
    TypeError
        If `X` is not numeric, or `k` or `ddof` is not an integer.
    ValueError
        If `X` is not a finite non-empty 2-D array, has fewer than 2 samples
        (or at most ``ddof``), has zero total variance, or `k` is out of range.
"""


def pca_eig(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by eigendecomposition of the covariance matrix.

    .. math::

        S = \frac{1}{n - \mathrm{ddof}} X_c^\top X_c = V \Lambda V^\top,
        \qquad \text{scores} = X_c V_k

    Costs :math:`O(np^2)` for :math:`S` (formed by blocks of rows in one pass, with
    no centered copy of X) plus at most :math:`O(p^3)` for the eigensolver (LAPACK
    ``syevd`` up to p = 512, partial ``syevr`` above when ``k < p``; a block Krylov
    method with residual :math:`\le 10^{-10} \lambda_1` when p > 1200 and
    k <= p / 40): the route
    for n >> p. Eigenvalues below the rank tolerance
    :math:`\max(n, p)\,\varepsilon\,\lambda_{\max}` (round-off, including
    slightly negative ones) are set to 0.
    """
    return _pca(X, k, ddof, "eig")


def pca_svd(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by singular value decomposition of the centered data.

    .. math::

        X_c = U \Sigma V^\top, \qquad \lambda_j = \frac{\sigma_j^2}{n - \mathrm{ddof}},
        \qquad \text{scores} = U_k \Sigma_k

    The most accurate route (no squared condition number); costs
    :math:`O(np \min(n, p))`.
    """
    return _pca(X, k, ddof, "svd")


def pca_gram(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by eigendecomposition of the Gram matrix (the dual route).

    .. math::

        G = X_c X_c^\top = U \Sigma^2 U^\top, \qquad
        v_j = \frac{X_c^\top u_j}{\sigma_j}, \qquad \text{scores} = U_k \Sigma_k

    Costs :math:`O(n^2 p)` plus :math:`O(n^3)`: the route for p >> n.
    Eigenvalues of G below the rank tolerance
    :math:`\max(n, p)\,\varepsilon\,\lambda_{\max}(G)` are round-off; their
    :math:`\sigma_j` is set to 0 and their axes are completed to an orthonormal
    basis (by a QR factorization of the recovered axes, which also restores
    their orthogonality). Such axes are one valid choice among many.
    """
    return _pca(X, k, ddof, "gram")


for _f in (pca_eig, pca_svd, pca_gram):
    if _f.__doc__ is not None:  # None under python -OO, which strips docstrings
        _f.__doc__ += _ROUTE_DOC


def reconstruction_error(X: ArrayLike, k: int, ddof: int = 1) -> float:
    r"""Mean squared reconstruction error of the rank-k PCA of `X`.

    .. math::

        \frac{1}{n} \big\| X_c - X_c V_k V_k^\top \big\|_F^2
        = \frac{1}{n} \sum_{j > k} \sigma_j^2
        = \frac{n - \mathrm{ddof}}{n} \sum_{j > k} \lambda_j

    computed from the discarded singular values of :math:`X_c` (no
    cancellation). The value does not depend on `ddof`, which only scales the
    eigenvalues; it is accepted so the identity above can be stated with it.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data (n >= 2). Not modified.
    k : int
        Number of kept components, ``0 <= k <= min(n, p)`` (k = 0 reconstructs
        every sample by the mean: the error is the total variance times (n - ddof)/n).
    ddof : int, default 1
        As in :func:`pca_svd`.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        As :func:`pca_svd` (k = 0 allowed).

    Examples
    --------
    >>> reconstruction_error([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [2.0, 1.0]], 1)
    0.25
    """
    arr, ddof = _validated(X, ddof)
    n, p = arr.shape
    if not (isinstance(k, numbers.Integral) and not isinstance(k, bool) and k == 0):
        k = check_n_components(k, min(n, p), "k")
    centered = _center_array(arr, ddof)
    s = scipy.linalg.svdvals(centered.values, overwrite_a=True, check_finite=False)
    tail = s[k:]
    return float(_rescale(tail @ tail / n, 2 * centered.exponent, "the reconstruction error"))

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
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from ._decomposition import (
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
from ._eigen import _top_eigh_of_varying, top_eigh
from ._implicit_routes import _decompose_sparse_or_dask
from ._inputs import DaskMatrix, DenseMatrix, SparseMatrix
from ._scatter import _scatter, _scores_by_row_blocks
from ._validation import _validated, check_n_components, checked_finite, output_dtype
from .covariance_matrix import _center_array, _Frame, _rescale
from .lowrank import _auto_n_iter, _exact_svd, _randomized_svd_f64

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
    return _decompose_sparse_or_dask(data, k, route, ddof=ddof, standardize=standardize)


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

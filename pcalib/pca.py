r"""PCA by its three routes (chapters *Maximum variance*, *Minimum reconstruction error*,
*SVD and PCA*).

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

Each public route calls its skeleton here (:func:`_eig_route`, :func:`_svd_route`,
:func:`_gram_route`): one named call a step (center, form the matrix, eigensolve or SVD,
sign convention). :class:`pcalib.PCA` reaches them, and its "krylov" and "randomized"
routes, through :func:`_decompose_matrix` and :func:`_decompose_data`. The engine below
the steps is private, each module's docstring saying what it adds to the chapters'
formulas: :mod:`pcalib._scatter` (the scatter matrix in one pass, no centered copy),
:mod:`pcalib._eigen` (eigensolvers), :mod:`pcalib._dense_krylov` (axes without forming
the matrix), :mod:`pcalib._decomposition` (the steps every route ends with) and
:mod:`pcalib._implicit_routes` (sparse and Dask data, ``PCA.partial_fit``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from ._decomposition import (
    Decomposition,
    Found,
    axes_from_left,
    check_variance,
    data_moments,
    found_from_axes,
    signed,
    sqrt_eigenvalues,
    svd_found,
    svd_moments,
)
from ._dense_krylov import krylov_axes
from ._eigen import top_eigh, top_eigh_of_varying
from ._implicit_routes import decompose_sparse_or_dask
from ._inputs import DaskMatrix, DenseMatrix, SparseMatrix
from ._scatter import scatter_matrix, scores_by_row_blocks
from ._svd import auto_n_iter, exact_svd, randomized_svd_f64
from ._units import Centered, center_array, rescale
from ._validation import check_n_components, checked_finite, output_dtype, validated

__all__ = ["PCAResult", "pca_eig", "pca_svd", "pca_gram", "reconstruction_error"]

# Oversampling columns of the randomized route (Halko, Martinsson and Tropp's p = 10).
_OVERSAMPLE = 10


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
    arr, k, ddof = _arguments(X, k, ddof)
    return _result(_eig_route(arr, k, ddof=ddof), arr, ddof)


def pca_svd(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by singular value decomposition of the centered data.

    .. math::

        X_c = U \Sigma V^\top, \qquad \lambda_j = \frac{\sigma_j^2}{n - \mathrm{ddof}},
        \qquad \text{scores} = U_k \Sigma_k

    The most accurate route (no squared condition number); costs
    :math:`O(np \min(n, p))`.
    """
    arr, k, ddof = _arguments(X, k, ddof)
    return _result(_svd_route(_centered_copy(arr, ddof), k), arr, ddof)


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
    arr, k, ddof = _arguments(X, k, ddof)
    return _result(_gram_route(_centered_copy(arr, ddof), k), arr, ddof)


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
    arr, ddof = validated(X, ddof)
    n, p = arr.shape
    if not (isinstance(k, numbers.Integral) and not isinstance(k, bool) and k == 0):
        k = check_n_components(k, min(n, p), "k")
    centered = center_array(arr, ddof)
    s = scipy.linalg.svdvals(centered.values, overwrite_a=True, check_finite=False)
    tail = s[k:]
    return float(rescale(tail @ tail / n, 2 * centered.exponent, "the reconstruction error"))


def _eig_route(
    arr: np.ndarray, k: int, *, ddof: int, standardize: bool = False, need_scores: bool = True,
    finite_checked: bool = True, name: str = "X",
) -> Decomposition:
    r"""The covariance route (chapter *Maximum variance*): center and scatter, eigensolve, signs.

    .. math::

        C = Y_c^\top Y_c = V \Lambda V^\top, \qquad \sigma_j = \sqrt{\lambda_j},
        \qquad \text{scores} = Y_c V_k

    Y is X read in its frame (X times an exact power of two, minus the column minima
    for integer data), standardized with `standardize`. The steps, and the engine below
    each:

    1. center and scatter: :func:`pcalib._scatter.scatter_matrix`, C and the exact column
       means in one pass by blocks of rows, with no centered copy (each block shifted
       by a mean of the first rows, so a large mean costs no digits; rows and columns
       of constant columns exactly 0); :func:`pcalib._decomposition.data_moments`
       keeps the count, mean and C for a later ``PCA.partial_fit`` (p <= 1024);
    2. eigensolve: :func:`pcalib._eigen.top_eigh_of_varying`, the k leading
       eigenpairs of C solved on its varying columns, so constant columns get
       loadings of exactly 0 (LAPACK, or block Krylov for large p:
       :func:`pcalib._eigen.top_eigh`); :math:`\sigma_j` by
       :func:`pcalib._decomposition.sqrt_eigenvalues`, 0 below the rank tolerance;
    3. scores: :func:`pcalib._scatter.scores_by_row_blocks`, :math:`Y_c V_k` block
       by block (with `need_scores`);
    4. signs: :func:`pcalib._decomposition.signed`, each axis's largest loading
       positive, its scores flipped with it.

    The discarded sum of squares is :math:`\operatorname{tr} C - \sum_{j \le k} \sigma_j^2`;
    sizes stay in the frame's units until read. Unless `finite_checked`, `arr` is checked
    for NaN and infinity, except where the one pass finds its sums of squares finite.
    """
    n, p = arr.shape
    C, center, scale, frame = scatter_matrix(arr, ddof, standardize, name, finite_checked=finite_checked)
    total_ss = float(np.trace(C))
    data_center = frame.data_center(center)
    moments = data_moments(n, C, scale, data_center, frame)  # before C is overwritten
    w, V = top_eigh_of_varying(C, k, frame.constant)
    s = sqrt_eigenvalues(w, n, p)
    V = np.asfortranarray(V)
    scores = scores_by_row_blocks(arr, frame, center, scale, V) if need_scores else None
    found = signed(np.ascontiguousarray(V.T), s, total_ss, max(total_ss - float(s @ s), 0.0), scores)
    exponent = 0 if standardize else int(frame.exponent)
    scale = rescale(scale, frame.exponent, "the standard deviations") if standardize else scale
    return Decomposition(*found, data_center, scale, exponent, "eig", moments)


def _centered_copy(
    arr: np.ndarray, ddof: int, standardize: bool = False, finite_checked: bool = True, name: str = "X"
) -> Centered:
    r"""The first step of the other routes: :math:`Y_c`, one centered float64 copy of
    `arr` (:func:`pcalib._units.center_array`: read in its frame, centered
    twice so that a large mean leaves no rounding error, constant columns exactly 0,
    standardized with `standardize`). ValueError if `arr` holds NaN or infinity (checked
    unless `finite_checked`) or every column is constant (zero total variance)."""
    if not finite_checked:
        checked_finite(arr, name)
    centered = center_array(arr, ddof, scale=standardize)
    check_variance(centered.constant)
    return centered


def _svd_route(centered: Centered, k: int, need_scores: bool = True) -> Decomposition:
    r"""The SVD route (chapter *SVD and PCA*) on the centered copy: SVD, signs.

    .. math:: Y_c = U \Sigma V^\top, \qquad \text{scores} = U_k \Sigma_k

    1. SVD: :func:`pcalib._svd.exact_svd`, LAPACK's thin SVD (``gesdd``, ``gesvd``
       if it fails), the condition number never squared: every :math:`\sigma_j` to about
       :math:`\varepsilon \sigma_1`; :func:`pcalib._decomposition.svd_moments` keeps
       the scatter :math:`V \Sigma^2 V^\top` for a later ``PCA.partial_fit`` (p <= 1024);
    2. signs: :func:`pcalib._decomposition.svd_found`, the k leading triplets, the
       discarded :math:`\sum_{j > k} \sigma_j^2` exact, scores :math:`U_k \Sigma_k`, the
       sign convention.
    """
    U, s_all, Vt = exact_svd(centered.values, overwrite_a=True)
    moments = svd_moments(centered, s_all, Vt)
    return Decomposition.of_centered(svd_found(U, s_all, Vt, k, need_scores), centered, "svd", moments)


def _gram_route(centered: Centered, k: int, need_scores: bool = True) -> Decomposition:
    r"""The Gram route (chapter *SVD and PCA*) on the centered copy: Gram matrix,
    eigensolve, axes, signs.

    .. math::

        G = Y_c Y_c^\top = U \Sigma^2 U^\top, \qquad v_j = \frac{Y_c^\top u_j}{\sigma_j},
        \qquad \text{scores} = Y_c V_k

    1. Gram matrix: :math:`Y_c Y_c^\top`, n x n (one ``syrk``);
    2. eigensolve: :func:`pcalib._eigen.top_eigh`, its k leading eigenpairs;
       :math:`\sigma_j` by :func:`pcalib._decomposition.sqrt_eigenvalues`, 0 below the
       rank tolerance;
    3. axes: :func:`pcalib._decomposition.axes_from_left`, :math:`Y_c^\top u_j /
       \sigma_j` re-orthonormalized, completed to an orthonormal basis where
       :math:`\sigma_j = 0`;
    4. signs: :func:`pcalib._decomposition.found_from_axes`, scores :math:`Y_c V_k`,
       the discarded sum of squares as a difference of two sums, the sign convention.
    """
    Yc = centered.values
    w, U = top_eigh(Yc @ Yc.T, k)
    s = sqrt_eigenvalues(w, *Yc.shape)
    V = axes_from_left(Yc, U, s, k)
    return Decomposition.of_centered(found_from_axes(Yc, s, V, need_scores), centered, "gram")


def _krylov_route(
    centered: Centered, k: int, need_scores: bool = True, max_blocks: int | None = None, max_vectors: int = 0
) -> Decomposition:
    r"""The Krylov route (chapter *SVD and PCA*) on the centered copy: the k leading
    eigenpairs of the smaller of :math:`Y_c^\top Y_c` and :math:`Y_c Y_c^\top`, never
    formed, then signs.

    1. axes: :func:`pcalib._dense_krylov.krylov_axes`, block Krylov within
       `max_blocks` blocks, then Lanczos within `max_vectors` vectors, each stopped by
       the residual test :math:`\|M v_j - \theta_j v_j\| \le 10^{-10} \theta_1`, then
       the formed matrix (the route is then "eig" or "gram"); without `max_blocks`
       (``solver="krylov"``) block Krylov alone, RuntimeError past 40 blocks;
    2. signs: :func:`pcalib._decomposition.found_from_axes`, as for the Gram route.
    """
    s, V, route = krylov_axes(centered.values, k, centered.constant, max_blocks, max_vectors)
    return Decomposition.of_centered(found_from_axes(centered.values, s, V, need_scores), centered, route)


def _randomized_route(
    centered: Centered, k: int, need_scores: bool = True, random_state: np.random.Generator | None = None
) -> Decomposition:
    r"""The randomized route (approximate; chapter *PCA at scale*) on the centered copy:
    :func:`pcalib._svd.randomized_svd_f64` (block Krylov from a Gaussian test matrix
    of k + 10 columns, the passes of :func:`pcalib._svd.auto_n_iter`, a fixed seed
    without `random_state`), then signs (:func:`pcalib._decomposition.found_from_axes`)."""
    Yc = centered.values
    rng = random_state if random_state is not None else np.random.default_rng(0)  # deterministic
    _, s, Vt = randomized_svd_f64(Yc, k, _OVERSAMPLE, auto_n_iter(k, Yc.shape), rng)
    return Decomposition.of_centered(found_from_axes(Yc, s, Vt.T, need_scores), centered, "randomized")


def _decompose_data(
    arr: np.ndarray, k: int, route: str, *, ddof: int, standardize: bool = False, need_scores: bool = True,
    random_state: np.random.Generator | None = None, finite_checked: bool = True, name: str = "X",
    max_blocks: int | None = None, max_vectors: int = 0,
) -> Decomposition:
    r"""Principal axes of validated data `arr` (not modified) by one route's skeleton:
    :func:`_eig_route`, or the centered copy (:func:`_centered_copy`) and
    :func:`_svd_route`, :func:`_gram_route`, :func:`_krylov_route` (`max_blocks` and
    `max_vectors`: its budget) or :func:`_randomized_route` (`random_state`).

    Raises
    ------
    ValueError
        If `arr` holds NaN or infinity (checked unless `finite_checked`), or every
        column is constant (zero total variance).
    """
    if route == "eig":
        return _eig_route(arr, k, ddof=ddof, standardize=standardize, need_scores=need_scores,
                          finite_checked=finite_checked, name=name)
    centered = _centered_copy(arr, ddof, standardize, finite_checked, name)
    if route == "svd":
        return _svd_route(centered, k, need_scores)
    if route == "gram":
        return _gram_route(centered, k, need_scores)
    if route == "krylov":
        return _krylov_route(centered, k, need_scores, max_blocks, max_vectors)
    return _randomized_route(centered, k, need_scores, random_state)


def _decompose_matrix(
    data: DenseMatrix | SparseMatrix | DaskMatrix, k: int, route: str, *, ddof: int, standardize: bool,
    **in_memory: Any,
) -> Decomposition:
    r"""Principal axes of data of any kind (:func:`pcalib._inputs.as_matrix`) by one route.

    NumPy arrays go to the in-memory routes (:func:`_decompose_data`, which also takes
    the `in_memory` options `need_scores`, `random_state`, `max_blocks` and
    `max_vectors`); sparse and Dask data to
    :func:`pcalib._implicit_routes.decompose_sparse_or_dask`, with no scores
    (``transform`` gives them).
    """
    if isinstance(data, DenseMatrix):
        return _decompose_data(data.arr, k, route, ddof=ddof, standardize=standardize,
                               finite_checked=data.finite_checked, name=data.name, **in_memory)
    return decompose_sparse_or_dask(data, k, route, ddof=ddof, standardize=standardize)


def _decompose(Xc: np.ndarray, k: int, route: Literal["svd"], *, need_scores: bool = True) -> Found:
    r"""The SVD route's steps on data the caller centered, `Xc` (float64, overwritten):
    :math:`X_c = U \Sigma V^\top` (:func:`pcalib._svd.exact_svd`), then the k
    leading triplets with signs (:func:`pcalib._decomposition.svd_found`). For PPCA's
    closed form (:mod:`pcalib.ppca`), whose `route` is "svd"."""
    return svd_found(*exact_svd(Xc, overwrite_a=True), k, need_scores)


def _arguments(X: ArrayLike, k: int | None, ddof: int) -> tuple[np.ndarray, int, int]:
    """A public route's validated data, number of components (None: all min(n, p)) and ddof."""
    arr, ddof = validated(X, ddof)
    m = min(arr.shape)
    return arr, (m if k is None else check_n_components(k, m, "k")), ddof


def _result(found: Decomposition, arr: np.ndarray, ddof: int) -> PCAResult:
    """A public route's result from its skeleton's, in the data's units and output dtype."""
    arrays = (
        found.components,
        found.explained_variance(arr.shape[0] - ddof),
        found.explained_variance_ratio(),
        found.singular_values(),
        found.data_scores(),
        found.mean,
    )
    dtype = output_dtype(arr)
    return PCAResult(*(np.ascontiguousarray(a, dtype=dtype) for a in arrays))

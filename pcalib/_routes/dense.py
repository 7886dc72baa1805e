r"""PCA's routes on data in memory, one short skeleton each, and the dispatcher that
runs a route by name.

A skeleton is one named call a step (center, form the matrix, eigensolve or SVD, sign
convention); the engine below each step is in its own module, whose docstring says what
it adds to the chapters' formulas: :mod:`pcalib._routes.scatter` (the scatter matrix in one
pass, no centered copy), :mod:`pcalib._linalg.eigen` (eigensolvers), :mod:`pcalib._linalg.svd`
(SVDs), :mod:`pcalib._routes.dense_krylov` (axes without forming the matrix) and
:mod:`pcalib._routes.decomposition` (the steps every route ends with).

The public routes of :mod:`pcalib.pca` (chapters *Maximum variance*, *Minimum
reconstruction error*, *SVD and PCA*) call :func:`eig_route`, or :func:`svd_route` and
:func:`gram_route` on the copy of :func:`centered_copy`. :class:`pcalib.PCA` runs them,
and its "krylov" and "randomized" routes (:func:`krylov_route`, or
:func:`implicit_krylov_route` without the copy, and :func:`randomized_route`), through :func:`decompose_matrix` (from
:func:`pcalib.solvers.fit_by_route`), which sends sparse and Dask data to
:mod:`pcalib._routes.implicit`. :func:`svd_of_centered` is the SVD route's steps on data
its caller centered (PPCA's closed form).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._inputs.route_table import IN_MEMORY
from .._linalg.eigen import KRYLOV_RTOL, rows_gram, top_eigh_and_next, top_eigh_of_varying
from .._linalg.rounding import FormedSpectrum, formed_spectrum, scatter_error
from .._linalg.svd import auto_n_iter, exact_svd, randomized_svd_f64
from .._linalg.units import Centered, center_array, rescale
from .._utils.validation import checked_finite
from .decomposition import (
    Decomposition,
    FormedProducts,
    Found,
    axes_from_left,
    check_variance,
    column_squares,
    data_moments,
    found_from_axes,
    signed,
    sqrt_eigenvalues,
    svd_found,
    svd_moments,
)
from .dense_krylov import DENSE_KRYLOV_RTOL, implicitly_centered, krylov_axes, krylov_stage, leading_axes
from .implicit import decompose_sparse_or_dask
from .scatter import scatter_matrix, scores_by_row_blocks

__all__ = [
    "centered_copy",
    "decompose_matrix",
    "eig_route",
    "gram_route",
    "implicit_krylov_route",
    "krylov_route",
    "randomized_route",
    "svd_of_centered",
    "svd_route",
]


# Oversampling columns of the randomized route (Halko, Martinsson and Tropp's p = 10).
_OVERSAMPLE = 10


def eig_route(
    arr: np.ndarray, k: int, *, ddof: int, standardize: bool = False, need_scores: bool = True,
    finite_checked: bool = True, name: str = "X", certifiable: bool = False,
) -> Decomposition:
    r"""The covariance route (chapter *Maximum variance*): center and scatter, eigensolve, signs.

    .. math::

        C = Y_c^\top Y_c = V \Lambda V^\top, \qquad \sigma_j = \sqrt{\lambda_j},
        \qquad \text{scores} = Y_c V_k

    Y is X read in its frame (X times an exact power of two, minus the column minima
    for integer data), standardized with `standardize`. The steps, and the engine below
    each:

    1. center and scatter: :func:`pcalib._routes.scatter.scatter_matrix`, C and the exact column
       means in one pass by blocks of rows, with no centered copy (each block shifted
       by a mean of the first rows, so a large mean costs no digits; rows and columns
       of constant columns exactly 0); :func:`pcalib._routes.decomposition.data_moments`
       keeps the count, mean and C for a later ``PCA.partial_fit`` (p <= 1024);
    2. eigensolve: :func:`pcalib._linalg.eigen.top_eigh_of_varying`, the k leading
       eigenpairs of C solved on its varying columns, so constant columns get
       loadings of exactly 0 (LAPACK, or first ARPACK's Lanczos method above order
       512 for :math:`40k \le p`: :func:`pcalib._linalg.eigen.top_eigh`); :math:`\sigma_j` by
       :func:`pcalib._routes.decomposition.sqrt_eigenvalues`, 0 below the rank tolerance;
    3. scores: :func:`pcalib._routes.scatter.scores_by_row_blocks`, :math:`Y_c V_k` block
       by block (with `need_scores`);
    4. signs: :func:`pcalib._routes.decomposition.signed`, each axis's largest loading
       positive, its scores flipped with it.

    The discarded sum of squares is :math:`\operatorname{tr} C - \sum_{j \le k} \sigma_j^2`;
    sizes stay in the frame's units until read. Unless `finite_checked`, `arr` is checked
    for NaN and infinity, except where the one pass finds its sums of squares finite.

    `certifiable` (``PCA(tol=...)``): where the one-pass branch formed C, a copy of C
    is kept for the certificate's products, with the bounds of
    :func:`pcalib._linalg.rounding.scatter_error`, and, without constant columns,
    the solve also gives :math:`\tilde\lambda_{k+1}` (the same pairs, to round-off:
    :func:`pcalib._linalg.eigen.top_eigh_and_next`), so that the certificate needs no
    random vectors; elsewhere the certificate multiplies the data.
    """
    n, p = arr.shape
    C, center, scale, frame, one_pass = scatter_matrix(arr, ddof, standardize, name, finite_checked=finite_checked)
    column_ss = np.diagonal(C).copy()
    total_ss = float(np.sum(column_ss))
    data_center = frame.data_center(center)
    moments = data_moments(n, C, scale, data_center, frame)  # before C is overwritten
    bounds = scatter_error(column_ss, center.offset, scale, n, standardize) if certifiable and one_pass else None
    formed, products = None, None
    if bounds is not None:
        products = FormedProducts(C.copy(order="K"), n, bounds.product)  # the solve overwrites C
    if bounds is not None and not frame.constant.any():
        w, V, computed = top_eigh_and_next(C, k)
        formed = bounds.spectrum(computed) if computed is not None else None
    else:
        w, V = top_eigh_of_varying(C, k, frame.constant)
    s = sqrt_eigenvalues(w, n, p)
    V = np.asfortranarray(V)
    scores = scores_by_row_blocks(arr, frame, center, scale, V) if need_scores else None
    found = signed(np.ascontiguousarray(V.T), s, total_ss, max(total_ss - float(s @ s), 0.0), scores)
    exponent = 0 if standardize else int(frame.exponent)
    scale = rescale(scale, frame.exponent, "the standard deviations") if standardize else scale
    return Decomposition(*found, data_center, scale, exponent, "eig", moments, column_ss, frame.constant,
                         formed=formed, copy_products=products)


def centered_copy(
    arr: np.ndarray, ddof: int, standardize: bool = False, finite_checked: bool = True, name: str = "X"
) -> Centered:
    r"""The first step of the other routes: :math:`Y_c`, one centered float64 copy of
    `arr` (:func:`pcalib._linalg.units.center_array`: read in its frame, centered
    twice so that a large mean leaves no rounding error, constant columns exactly 0,
    standardized with `standardize`). ValueError if `arr` holds NaN or infinity (checked
    unless `finite_checked`) or every column is constant (zero total variance)."""
    if not finite_checked:
        checked_finite(arr, name)
    centered = center_array(arr, ddof, scale=standardize)
    check_variance(centered.constant)
    return centered


def svd_route(centered: Centered, k: int, need_scores: bool = True) -> Decomposition:
    r"""The SVD route (chapter *SVD and PCA*) on the centered copy: SVD, signs.

    .. math:: Y_c = U \Sigma V^\top, \qquad \text{scores} = U_k \Sigma_k

    1. SVD: :func:`pcalib._linalg.svd.exact_svd`, LAPACK's thin SVD (``gesdd``, ``gesvd``
       if it fails), the condition number never squared: every :math:`\sigma_j` to about
       :math:`\varepsilon \sigma_1`; :func:`pcalib._routes.decomposition.svd_moments` keeps
       the scatter :math:`V \Sigma^2 V^\top` for a later ``PCA.partial_fit`` (p <= 1024);
    2. signs: :func:`pcalib._routes.decomposition.svd_found`, the k leading triplets, the
       discarded :math:`\sum_{j > k} \sigma_j^2` exact, scores :math:`U_k \Sigma_k`, the
       sign convention.
    """
    column_ss = column_squares(centered.values)  # before the SVD overwrites the copy
    U, s_all, Vt = exact_svd(centered.values, overwrite_a=True)
    moments = svd_moments(centered, s_all, Vt)
    return Decomposition.of_centered(svd_found(U, s_all, Vt, k, need_scores), centered, "svd", column_ss, moments)


def gram_route(centered: Centered, k: int, need_scores: bool = True, certifiable: bool = False) -> Decomposition:
    r"""The Gram route (chapter *SVD and PCA*) on the centered copy: Gram matrix,
    eigensolve, axes, signs.

    .. math::

        G = Y_c Y_c^\top = U \Sigma^2 U^\top, \qquad v_j = \frac{Y_c^\top u_j}{\sigma_j},
        \qquad \text{scores} = Y_c V_k

    1. Gram matrix: :math:`Y_c Y_c^\top`, n x n (one ``syrk``,
       :func:`pcalib._linalg.eigen.rows_gram`);
    2. eigensolve: :func:`pcalib._linalg.eigen.top_eigh`, its k leading eigenpairs;
       :math:`\sigma_j` by :func:`pcalib._routes.decomposition.sqrt_eigenvalues`, 0 below the
       rank tolerance;
    3. axes: :func:`pcalib._routes.decomposition.axes_from_left`, :math:`Y_c^\top u_j /
       \sigma_j` re-orthonormalized, completed to an orthonormal basis where
       :math:`\sigma_j = 0`;
    4. signs: :func:`pcalib._routes.decomposition.found_from_axes`, scores :math:`Y_c V_k`,
       the discarded sum of squares as a difference of two sums, the sign convention.
    """
    Yc = centered.values
    # certifiable (PCA(tol=...)): the solve also gives lambda~_{k+1} for the certificate;
    # otherwise k pairs only, as LAPACK's partial solve then gives the same bits as always
    w, U, computed = top_eigh_and_next(rows_gram(Yc), k, with_next=certifiable)
    s = sqrt_eigenvalues(w, *Yc.shape)
    V = axes_from_left(Yc, U, s, k)
    column_ss = column_squares(Yc)
    formed = _formed(computed, column_ss, Yc.shape, "gram")
    return Decomposition.of_centered(found_from_axes(Yc, s, V, need_scores, column_ss), centered, "gram", column_ss,
                                     formed=formed, certifiable=certifiable)


def krylov_route(
    centered: Centered, k: int, need_scores: bool = True, max_blocks: int | None = None,
    rtol: float = DENSE_KRYLOV_RTOL, certifiable: bool = False,
) -> Decomposition:
    r"""The Krylov route (chapter *SVD and PCA*) on the centered copy: the k leading
    eigenpairs of the smaller of :math:`Y_c^\top Y_c` and :math:`Y_c Y_c^\top`, never
    formed, then signs.

    1. axes: :func:`pcalib._routes.dense_krylov.krylov_axes`, Lanczos with single
       vectors within the cost of `max_blocks` blocks (block Krylov within
       `max_blocks` blocks for ``PCA(tol=...)``, `certifiable`), stopped by the residual test
       :math:`\|M v_j - \theta_j v_j\| \le 10^{-12} \theta_1`, then the formed
       matrix (the route is then "eig" or "gram"); without `max_blocks`
       (``solver="krylov"``) block Krylov alone, RuntimeError past 40 blocks (`rtol`:
       the residual test, 1e-12 unless ``PCA(tol=...)`` sets it);
    2. signs: :func:`pcalib._routes.decomposition.found_from_axes`, as for the Gram route.
    """
    Yc = centered.values
    s, V, route, computed, formed_matrix = krylov_axes(Yc, k, centered.constant, max_blocks, rtol, certifiable)
    column_ss = column_squares(Yc)
    return Decomposition.of_centered(found_from_axes(Yc, s, V, need_scores, column_ss), centered, route, column_ss,
                                     formed=_formed(computed, column_ss, Yc.shape, route), certifiable=certifiable,
                                     formed_matrix=formed_matrix)


def _formed(
    computed: np.ndarray | None, column_ss: np.ndarray, shape: tuple[int, int], route: str
) -> FormedSpectrum | None:
    r"""The :class:`pcalib._linalg.rounding.FormedSpectrum` of the matrix that `route`
    formed from the centered copy (n x p, `shape`, column sums of squares `column_ss`)
    and solved: :math:`Y_c^\top Y_c` for "eig" (products of length n), :math:`Y_c
    Y_c^\top` for "gram" (length p); None without its `computed` eigenvalues."""
    if computed is None:
        return None
    n, p = shape
    return formed_spectrum(computed, float(np.sum(column_ss)), n if route == "eig" else p, n, p)


def implicit_krylov_route(
    arr: np.ndarray, k: int, *, ddof: int, standardize: bool = False, need_scores: bool = True,
    max_blocks: int | None = None, rtol: float = DENSE_KRYLOV_RTOL, certifiable: bool = False,
) -> Decomposition | None:
    r"""The Krylov route without the centered copy: the same steps as
    :func:`krylov_route` on the products :math:`(X - \mathbf 1 \bar x^\top) D^{-1} B`
    and their transposes, computed from `arr` itself
    (:func:`pcalib._routes.dense_krylov.implicitly_centered`; None where it refuses, and the
    caller makes the copy). The Krylov stage is
    :func:`pcalib._routes.dense_krylov.krylov_stage`; if it runs out of budget, the formed
    matrix takes over: :func:`eig_route` for n >= p (one pass, no copy), else
    the centered copy's, as in :func:`krylov_route`. Saves one
    pass and the copy of X (measured on 2 cores: 0.10 s at 5000 x 5000, 0.21 s at
    10000 x 4000, against 0.03-0.04 s for the pass of column moments)."""
    implicit = implicitly_centered(arr, ddof, standardize)
    if implicit is None:
        return None
    Y, center, scale, constant, exponent = implicit
    top = krylov_stage(Y, k, constant, max_blocks, rtol, certifiable)
    if top is None and arr.shape[0] >= arr.shape[1]:  # the eig route's one pass: no copy
        return eig_route(arr, k, ddof=ddof, standardize=standardize, need_scores=need_scores,
                         certifiable=certifiable)
    if top is None:
        return krylov_route(centered_copy(arr, ddof, standardize), k, need_scores, max_blocks=0,
                            certifiable=certifiable)
    s, V = leading_axes(Y, *top, constant, k, from_krylov=True)
    return Decomposition(*found_from_axes(Y, s, V, need_scores), center, scale, exponent, "krylov",
                         column_ss=Y.column_ss, constant=constant, copy_products=Y if certifiable else None)


def randomized_route(
    centered: Centered, k: int, need_scores: bool = True, random_state: np.random.Generator | None = None
) -> Decomposition:
    r"""The randomized route (approximate; chapter *PCA at scale*) on the centered copy:
    :func:`pcalib._linalg.svd.randomized_svd_f64` (block Krylov from a Gaussian test matrix
    of k + 10 columns, the passes of :func:`pcalib._linalg.svd.auto_n_iter`, a fixed seed
    without `random_state`), then signs (:func:`pcalib._routes.decomposition.found_from_axes`)."""
    Yc = centered.values
    rng = random_state if random_state is not None else np.random.default_rng(0)  # deterministic
    _, s, Vt = randomized_svd_f64(Yc, k, _OVERSAMPLE, auto_n_iter(k, Yc.shape), rng)
    column_ss = column_squares(Yc)
    found = found_from_axes(Yc, s, Vt.T, need_scores, column_ss)
    return Decomposition.of_centered(found, centered, "randomized", column_ss)


def _decompose_data(
    arr: np.ndarray, k: int, route: str, *, ddof: int, standardize: bool = False, need_scores: bool = True,
    random_state: np.random.Generator | None = None, finite_checked: bool = True, name: str = "X",
    max_blocks: int | None = None, rtol: float = DENSE_KRYLOV_RTOL, certifiable: bool = False,
) -> Decomposition:
    r"""Principal axes of validated data `arr` (not modified) by one route's skeleton:
    :func:`eig_route`, or the centered copy (:func:`centered_copy`) and
    :func:`svd_route`, :func:`gram_route`, :func:`krylov_route` (`max_blocks`: its
    budget; `rtol`: its residual test) or :func:`randomized_route` (`random_state`);
    `certifiable` (``PCA(tol=...)``): the gram and Krylov routes also keep what the
    certificate reads of a formed matrix's solve.

    Raises
    ------
    ValueError
        If `arr` holds NaN or infinity (checked unless `finite_checked`), or every
        column is constant (zero total variance).
    """
    if route == "eig":
        return eig_route(arr, k, ddof=ddof, standardize=standardize, need_scores=need_scores,
                         finite_checked=finite_checked, name=name, certifiable=certifiable)
    if route == "krylov" and max_blocks != 0:  # with no budget, the formed matrix at once
        found = implicit_krylov_route(arr, k, ddof=ddof, standardize=standardize,
                                      need_scores=need_scores, max_blocks=max_blocks, rtol=rtol,
                                      certifiable=certifiable)
        if found is not None:
            return found
    centered = centered_copy(arr, ddof, standardize, finite_checked, name)
    if route == "svd":
        return svd_route(centered, k, need_scores)
    if route == "gram":
        return gram_route(centered, k, need_scores, certifiable)
    if route == "krylov":
        return krylov_route(centered, k, need_scores, max_blocks, rtol, certifiable)
    return randomized_route(centered, k, need_scores, random_state)


def decompose_matrix(
    data: Any, k: int, route: str, *, ddof: int, standardize: bool, tol: float | None = None, **in_memory: Any,
) -> Decomposition:
    r"""Principal axes of data of any kind (an adapter of :func:`pcalib._inputs.matrix.as_matrix`)
    by one route, run by the decomposition that the adapter's route table names for it
    (``data.routes.runs``, :class:`pcalib._inputs.route_table.RouteTable`).

    :data:`pcalib._inputs.route_table.IN_MEMORY` (a NumPy array, ``data.arr``): the
    in-memory skeletons (:func:`_decompose_data`, which also takes the `in_memory`
    options `need_scores`, `random_state` and `max_blocks`); any other name: that
    decomposition of :func:`pcalib._routes.implicit.decompose_sparse_or_dask`, with no
    scores (``transform`` gives them). `tol` (``PCA(tol=...)``) replaces the residual test
    of the Krylov routes, :math:`10^{-12}\theta_1` in memory and :math:`10^{-10}\theta_1`
    for sparse and Dask data.
    """
    decomposition = data.routes.runs[route]
    if decomposition == IN_MEMORY:
        return _decompose_data(data.arr, k, route, ddof=ddof, standardize=standardize,
                               finite_checked=data.finite_checked, name=data.name,
                               rtol=DENSE_KRYLOV_RTOL if tol is None else tol, certifiable=tol is not None,
                               **in_memory)
    return decompose_sparse_or_dask(data, k, decomposition, ddof=ddof, standardize=standardize,
                                    rtol=KRYLOV_RTOL if tol is None else tol)


def svd_of_centered(Xc: np.ndarray, k: int, *, need_scores: bool = True) -> Found:
    r"""The SVD route's steps on data the caller centered, `Xc` (float64, overwritten):
    :math:`X_c = U \Sigma V^\top` (:func:`pcalib._linalg.svd.exact_svd`), then the k
    leading triplets with signs (:func:`pcalib._routes.decomposition.svd_found`). For PPCA's
    closed form (:mod:`pcalib.ppca`)."""
    return svd_found(*exact_svd(Xc, overwrite_a=True), k, need_scores)

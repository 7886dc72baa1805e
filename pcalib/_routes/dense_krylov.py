r"""The dense Krylov route's engine: the k leading axes of a centered matrix, never
forming :math:`X_c^\top X_c` or :math:`X_c X_c^\top`.

The chapter *SVD and PCA* finds the axes as eigenvectors of the smaller of the two
matrices; above about a thousand features forming it (one ``syrk``) and solving it
(:math:`O(m^3)` by LAPACK, or :math:`O(k m^2)` by ARPACK's Lanczos method on the
formed matrix for :math:`40k \le m`) costs more than a few dozen products with single
vectors.
:func:`krylov_axes` runs Lanczos with single vectors
(:func:`pcalib._linalg.lanczos.lanczos_top_vector`) within a budget, stopped by the
a-posteriori residual test of ``DENSE_KRYLOV_RTOL``, then, if it has not converged,
the formed matrix, as the eig or gram route would solve it; ``solver="krylov"``
asked for by name runs block Krylov (:func:`pcalib._linalg.eigen.krylov_top_operator`)
instead, without a budget. The budget is the solver policy's (:mod:`pcalib.solvers`); the route's
skeleton, which calls it as one step, is :func:`pcalib._routes.dense.krylov_route`.
Where the column means allow it, :func:`implicitly_centered` gives the same products
without a centered copy, and :func:`pcalib._routes.dense.implicit_krylov_route` runs
:func:`krylov_stage` and :func:`leading_axes` on them.
"""

from __future__ import annotations

import numpy as np

from .._linalg import constants
from .._linalg.center import Center
from .._linalg.eigen import (
    KRYLOV_MAX_BLOCKS,
    cholesky_qr,
    krylov_block,
    krylov_top_operator,
    rows_gram,
    top_eigh_and_next,
    top_eigh_of_varying,
)
from .._linalg.lanczos import lanczos_top_vector
from .._linalg.moments import Moments
from .._linalg.units import checked_scale, norm_exponent
from .decomposition import CenteredProducts, axes_from_left, sqrt_eigenvalues

# Width of the blocks in which the cost model of "auto" counts the dense route's budget
# (pcalib.solvers.krylov_budget), k + 2 columns: the blocks that the route ran before
# issue 35 put Lanczos with single vectors in their place (lanczos_products converts).
# Measured then on tests/benchmarks.py's spectra (2 cores, 5000 x 5000 and 10000 x
# 4000): for k = 10, b = 12 or 13 took 0.79-1.24 s where b = max(2k, k + 10) = 20 took
# 0.85-1.53 s; for k = 50, b = 53 took 2.1 s against 2.6 s at b = 60 and 6.7 s at 100;
# k + 2 against k + 3 (one thread, CPU, k = 10): 2.03 against 2.20 s at 5000 x 5000.
_BLOCK_EXTRA = 2
# The dense route's residual test, a hundred times tighter than the sparse and Dask
# routes' (``pcalib._linalg.eigen.KRYLOV_RTOL``): a product costs little here, and the axes
# of components near the noise, whose gaps are small, then agree with the SVD to 1e-10.
# An axis is off by about the residual over its gap: at 5000 x 5000, k = 10, decaying
# spectrum (tests/benchmarks.py; the 10th eigenvalue at the edge of the noise, gap
# 0.0042 lambda_1), block Krylov at 1e-11 left an axis 5.1e-10 from the SVD's and
# 1e-12 left 3.1e-11 (issue 35); Lanczos at 1e-12 leaves 5.3e-11 there and 9.4e-11 at
# 2500 x 2500, as it stops just past the test where a block overshoots it.
DENSE_KRYLOV_RTOL = 1e-12


def dense_krylov_block(k: int, m: int) -> int:
    """Width of the blocks in which "auto" counts the dense Krylov route's budget, for k
    components of an m x m matrix: k + 2, at most m (the sparse and Dask routes use
    :func:`pcalib._linalg.eigen.krylov_block`, wider, as each of their blocks is a pass over
    data that may be on disk)."""
    return min(k + _BLOCK_EXTRA, m)


def lanczos_products(blocks: int, block: int) -> int:
    r"""How many single-vector products cost as much as `blocks` blocks of `block`
    columns: :math:`\lfloor 4 c\, b B / (2 g) \rfloor`, with c the weight of a flop of a
    thin block product (4 n p b of them per block) and g that of a multiply-add of a
    single-vector product (2 n p per product), each relative to a flop of the ``syrk``
    (``constants.THIN_PRODUCT_COST``, ``constants.VECTOR_PRODUCT_COST``)."""
    return int(4 * constants.THIN_PRODUCT_COST * block * blocks / (2 * constants.VECTOR_PRODUCT_COST))


def krylov_axes(
    Xc: np.ndarray, k: int, constant: np.ndarray, max_blocks: int | None = None, rtol: float = DENSE_KRYLOV_RTOL,
    certifiable: bool = False,
) -> tuple[np.ndarray, np.ndarray, str, np.ndarray | None, np.ndarray | None]:
    r"""The k leading singular values and right singular vectors (p, k) of the centered
    matrix `Xc`, by a Krylov method on the smaller of :math:`X_c^\top X_c` and
    :math:`X_c X_c^\top`, never formed (:func:`krylov_stage`): each step costs the
    products :math:`X_c^\top (X_c q)` (or :math:`X_c (X_c^\top q)`) with one vector,
    two passes over :math:`X_c` (block Krylov's step: the same products with a block of
    vectors). The Ritz
    pairs are accepted when every residual :math:`\|M v_j - \theta_j v_j\| \le
    10^{-12} \theta_1`, the a-posteriori test of the sparse and Dask routes made a
    hundred times tighter (``DENSE_KRYLOV_RTOL``): each :math:`\theta_j` is then within
    :math:`10^{-12}\theta_1` of an eigenvalue (and within the square of that over its
    gap), each axis within an angle of about :math:`10^{-12}\theta_1 / \delta_j` of
    its eigenvector.

    Without `max_blocks` (``solver="krylov"``), block Krylov with blocks of
    :math:`\max(2k, k + 10)` columns, as on the sparse and Dask routes, whose space
    may grow to ``KRYLOV_MAX_BLOCKS`` blocks; beyond, RuntimeError. With
    `max_blocks` (the budget of "auto"), Lanczos with single vectors stops when it has
    spent that cost, as soon as the decay of the residual predicts it would (a flat
    spectrum near the k-th eigenvalue), or when its probe finds a missed copy of a
    repeated eigenvalue; then the k leading
    eigenpairs of the same matrix, formed (one ``syrk``) and solved by
    :func:`pcalib._linalg.eigen.top_eigh`, take over: the result is then that of the eig
    route (n >= p) or the gram route (n < p), to round-off. Returns the singular
    values, the axes, the route that found them ("krylov", "eig" or "gram") and, when
    `certifiable` (``PCA(tol=...)``) and LAPACK solved the formed matrix whole, its
    k + 1 leading computed eigenvalues (for the certificate,
    :func:`pcalib._linalg.rounding.formed_spectrum`; None otherwise, and with
    constant columns, solved apart; without `certifiable` the solve asks for k pairs
    only, which keeps the bits of fits without tol as they were), and then, for
    n >= p, a copy of the formed :math:`X_c^\top X_c` for the certificate's product
    (:class:`pcalib._routes.decomposition.FormedProducts`; None otherwise).

    The loadings of `constant` columns (zero in `Xc`) are exactly 0, as in the eig
    route: block Krylov starts from random vectors that are not, so for n >= p its
    Ritz vectors are cut to the varying columns and re-orthonormalized (a Cholesky QR
    step, which keeps zero rows zero); Lanczos starts from a vector that is 0 there,
    and so stays 0 there; the formed matrix is solved on
    the varying columns (:func:`pcalib._linalg.eigen.top_eigh_of_varying`); with no more varying columns
    than k, only the formed matrix runs.
    """
    Y = CenteredProducts(Xc)
    top = krylov_stage(Y, k, constant, max_blocks, rtol, certifiable)
    if top is not None:
        return (*leading_axes(Y, *top, constant, k, from_krylov=True), "krylov", None, None)
    n, p = Xc.shape
    route, computed, kept = ("eig" if n >= p else "gram"), None, None
    if n >= p and constant.any():  # solved on the varying columns only
        w, W = top_eigh_of_varying(rows_gram(Xc.T), k, constant)
    else:  # the formed matrix (a syrk): X_c^T X_c as the eig route, or X_c X_c^T as the gram route
        formed = rows_gram(Xc.T if n >= p else Xc)
        kept = formed.copy(order="K") if certifiable and n >= p else None  # the solve overwrites it
        w, W, computed = top_eigh_and_next(formed, k, with_next=certifiable)
    return (*leading_axes(Y, w, W, constant, k, from_krylov=False), route, computed, kept)


def krylov_stage(
    Y: CenteredProducts, k: int, constant: np.ndarray, max_blocks: int | None, rtol: float = DENSE_KRYLOV_RTOL,
    certifiable: bool = False,
) -> tuple[np.ndarray, np.ndarray] | None:
    r"""The Krylov stage of :func:`krylov_axes` on the products `Y`: the k leading
    eigenvalues and eigenvectors of the smaller of :math:`Y^\top Y` and
    :math:`Y Y^\top`, or None when the formed matrix should take over: when the budget
    `max_blocks` is 0 or ran out, when the forecast gave up, or when n >= p and at
    most k columns vary.

    An exact fit of "auto" (`max_blocks` given, not `certifiable`) runs Lanczos with
    single vectors (:func:`pcalib._linalg.lanczos.lanczos_top_vector`) within the cost
    of `max_blocks` blocks of :func:`dense_krylov_block` columns
    (:func:`lanczos_products`); None also when its probe finds (or cannot rule out) a
    missed copy of a repeated eigenvalue. ``PCA(tol=...)`` (`certifiable`) runs block
    Krylov with blocks of :func:`dense_krylov_block` columns within `max_blocks`: at a
    loose tolerance a few blocks hold every pair, where single vectors need many steps
    (measured one thread, CPU, against scikit-learn's default at the tolerance that
    matches its accuracy: 2500 x 2500, k = 50, 3.99 times its time with Lanczos against
    1.08-1.28 with blocks; flat spectrum, k = 10: 1.65 against 0.82). ``solver="krylov"``
    (no `max_blocks`): block Krylov with blocks of
    :func:`pcalib._linalg.eigen.krylov_block` columns, RuntimeError past
    ``KRYLOV_MAX_BLOCKS`` blocks. `rtol`: the residual test, ``DENSE_KRYLOV_RTOL``
    unless ``PCA(tol=...)`` sets it."""
    n, p = Y.shape
    m = min(n, p)
    if max_blocks == 0 or (n >= p and np.count_nonzero(~constant) <= k):
        return None  # nothing to try: the formed matrix (the caller) at once
    if max_blocks is not None and not certifiable:
        products = lanczos_products(max_blocks, dense_krylov_block(k, m))
        return lanczos_top_vector(Y.gram_times, m, k, rtol, max_products=products,
                                  zero=constant if n >= p else None).found
    block = dense_krylov_block(k, m) if max_blocks is not None else krylov_block(k, m)
    budget = KRYLOV_MAX_BLOCKS if max_blocks is None else max_blocks
    found = krylov_top_operator(
        Y.gram_times, m, k, rtol, max_dim=min(m, budget * block), predict=max_blocks is not None, block=block
    )
    if found is None and max_blocks is None:
        raise RuntimeError(
            f"the block Krylov method did not reach a residual of {rtol:g} within "
            f"{KRYLOV_MAX_BLOCKS} blocks (the spectrum is flat near component {k}); ask for "
            "fewer or more components, or use solver='auto', 'eig', 'gram' or 'svd'"
        )
    return None if found is None else found[:2]


def leading_axes(
    Y: CenteredProducts, w: np.ndarray, W: np.ndarray, constant: np.ndarray, k: int, *,
    from_krylov: bool,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Singular values and axes (p, k) of Y from the k leading eigenpairs (w, W) of
    the smaller of :math:`Y^\top Y` and :math:`Y Y^\top`: W itself if n >= p (the
    loadings of `constant` columns set to exactly 0 when Krylov found W), else
    :math:`Y^\top u_j / \sigma_j` (:func:`pcalib._routes.decomposition.axes_from_left`)."""
    n, p = Y.shape
    s = sqrt_eigenvalues(w, n, p)
    if n < p:
        return s, axes_from_left(Y, W, s, k)
    if from_krylov and constant.any():
        W = np.asfortranarray(W)
        W[constant] = 0.0
        W = cholesky_qr(W)
    return s, W


def implicitly_centered(
    arr: np.ndarray, ddof: int, standardize: bool
) -> tuple[CenteredProducts, Center, np.ndarray, np.ndarray, int] | None:
    r"""The centered (and standardized) data as products with `arr` itself, no copy:
    :class:`pcalib._routes.decomposition.CenteredProducts`, the column means (the exact pair),
    the scales, the constant columns and the exponent f of the products' units (the
    centered data are :math:`2^f` times Y); None where a centered copy is needed.

    One pass over `arr` (:meth:`pcalib._linalg.moments.Moments.of_rows`, the diagonal of the
    scatter only) gives each column's mean :math:`\bar x_j` and centered sum of
    squares :math:`M_{jj}`. The products are used when `arr` is float64 in C or F
    order, its sums of squares are in range (no change of units), it holds no NaN or
    infinity, and every varying column has :math:`n \bar x_j^2 \le M_{jj}`: its mean
    is at most its spread, so the products with `arr` cancel at most one bit, as the
    eig route's one-pass scatter (:func:`pcalib._routes.scatter.scatter_matrix`) allows.
    Without `standardize`, :math:`D = 2^f I`, f = :func:`pcalib._linalg.units.norm_exponent`
    of the :math:`M_{jj}`: Y's largest column has norm in [1/2, 1), so block Krylov's
    Gram matrices neither underflow nor overflow (data at :math:`10^{-85}` have sums of
    squares in range, but Gram matrices of :math:`10^{-340}` in their own units).
    Constant columns get :math:`D^{-1}_{jj} = 0`: exactly 0 in Y at any value; with
    `standardize` they are refused by the centered copy (None here).
    """
    if arr.dtype != np.float64 or not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        return None
    moments = Moments.of_rows(arr, full=False)
    constant, squares = moments.constant, moments.squares
    if not moments.finite or moments.exponent or constant.all() or (standardize and constant.any()):
        return None
    n, p = arr.shape
    mean = moments.data_mean()
    if np.any(n * mean[~constant] ** 2 > squares[~constant]):
        return None
    exponent = 0 if standardize else norm_exponent(np.where(constant, 0.0, squares))
    scale = checked_scale(constant, squares, n, ddof) if standardize else np.ones(p)
    inv_scale = np.where(constant, 0.0, np.ldexp(1.0 / scale, -exponent))
    column_ss = squares * inv_scale**2
    scaled = standardize or constant.any() or exponent != 0
    products = CenteredProducts(arr, mean, inv_scale if scaled else None, column_ss)
    return products, moments.center(), scale, constant, exponent

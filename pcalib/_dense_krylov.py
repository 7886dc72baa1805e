r"""The dense Krylov route's engine: the k leading axes of a centered matrix, never
forming :math:`X_c^\top X_c` or :math:`X_c X_c^\top`.

The chapter *SVD and PCA* finds the axes as eigenvectors of the smaller of the two
matrices; above about a thousand features forming it (one ``syrk``) and solving it
(:math:`O(m^3)`) costs more than a few products with thin blocks. :func:`krylov_axes`
runs up to three stages: block Krylov (:func:`pcalib._eigen.krylov_top_operator`), then
the Lanczos method within a budget of vectors (:func:`_lanczos_within`), both stopped by
the a-posteriori residual test of ``pcalib._eigen.KRYLOV_RTOL``, then the formed
matrix, as the eig or gram route would solve it. The budgets are the solver
policy's (:mod:`pcalib.solvers`); the route's skeleton, which calls it as one
step, is :func:`pcalib._routes.krylov_route`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg import blas

from ._decomposition import axes_from_left, sqrt_eigenvalues
from ._eigen import (
    KRYLOV_MAX_BLOCKS,
    KRYLOV_RTOL,
    krylov_block,
    krylov_top_operator,
    lanczos_top_operator,
    top_eigh,
    top_eigh_of_varying,
)


class _OverBudget(Exception):
    """Raised by :func:`_lanczos_within`'s operator when its budget is spent."""


def _lanczos_within(Xc: np.ndarray, k: int, max_vectors: int) -> tuple[np.ndarray, np.ndarray] | None:
    r""":func:`pcalib._eigen.lanczos_top_operator` on :math:`X_c^\top X_c` (or
    :math:`X_c X_c^\top` if n < p), never formed, stopped (None) once it has multiplied
    `max_vectors` vectors. One vector per product, two passes over :math:`X_c` each:
    where the spectrum is flat near :math:`\lambda_k`, the polynomial degree that
    convergence needs grows one per pass here, one per block of b vectors in block
    Krylov. The products go through NumPy's BLAS, as the kernel PCA's Lanczos products
    do (15 ms per vector at 5000 x 5000, measured), where block Krylov's go through
    SciPy's ``dgemm`` with the rest of its loop."""
    n, p = Xc.shape
    used = 0

    def times(Q: np.ndarray) -> np.ndarray:
        nonlocal used
        used += Q.shape[1]
        if used > max_vectors:
            raise _OverBudget
        return Xc.T @ (Xc @ Q) if n >= p else Xc @ (Xc.T @ Q)

    try:
        return lanczos_top_operator(times, min(n, p), k)
    except _OverBudget:
        return None


def krylov_axes(
    Xc: np.ndarray, k: int, constant: np.ndarray, max_blocks: int | None = None, max_vectors: int = 0
) -> tuple[np.ndarray, np.ndarray, str]:
    r"""The k leading singular values and right singular vectors (p, k) of the centered
    matrix `Xc`, by block Krylov on the smaller of :math:`X_c^\top X_c` and
    :math:`X_c X_c^\top`, never formed: each block :math:`Q` of
    :math:`b = \max(2k, k + 10)` columns costs the two products
    :math:`X_c^\top (X_c Q)` (or :math:`X_c (X_c^\top Q)`), :math:`4 n p b` flops and
    two passes over :math:`X_c` (:func:`pcalib._eigen.krylov_top_operator`). The Ritz
    pairs are accepted when every residual :math:`\|M v_j - \theta_j v_j\| \le
    10^{-10} \theta_1`, the a-posteriori test of the sparse and Dask routes: each
    :math:`\theta_j` is then within :math:`10^{-10}\theta_1` of an eigenvalue (and
    within the square of that over its gap), each axis within an angle of about
    :math:`10^{-10}\theta_1 / \delta_j` of its eigenvector.

    Without `max_blocks` (``solver="krylov"``), the space may grow to
    ``KRYLOV_MAX_BLOCKS`` blocks; beyond, RuntimeError. With `max_blocks` (the
    budget of "auto"), the method stops when the space would grow past that many
    blocks, or as soon as the decay of the residual predicts it (a flat spectrum near
    the k-th eigenvalue, where block Krylov converges slowly); then, if `max_vectors`
    allows, the Lanczos method takes over (:func:`_lanczos_within`, the same residual
    test), and if it too stops, the k leading eigenpairs
    of the same matrix, formed (one ``syrk``) and solved by
    :func:`pcalib._eigen.top_eigh`, take over: the result is then that of the eig
    route (n >= p) or the gram route (n < p), to round-off. Returns the singular
    values, the axes and the route that found them ("krylov", "eig" or "gram").

    The loadings of `constant` columns (zero in `Xc`) are exactly 0, as in the eig
    route: the Krylov stages start from random vectors that are not, so for n >= p
    their Ritz vectors are cut to the varying columns and re-orthonormalized (a
    Cholesky QR step, which keeps zero rows zero), and the formed matrix is solved on
    the varying columns (:func:`pcalib._eigen.top_eigh_of_varying`); with no more varying columns
    than k, only the formed matrix runs.
    """
    n, p = Xc.shape
    m = min(n, p)
    Xf = Xc.T  # F-ordered view of the C-ordered copy: BLAS reads it without a copy

    def times(Q: np.ndarray) -> np.ndarray:
        if n >= p:  # X_c^T (X_c Q)
            return blas.dgemm(1.0, Xf, blas.dgemm(1.0, Xf, Q, trans_a=1))
        return blas.dgemm(1.0, Xf, blas.dgemm(1.0, Xf, Q), trans_a=1)  # X_c (X_c^T Q)

    block = krylov_block(k, m)
    budget = KRYLOV_MAX_BLOCKS if max_blocks is None else max_blocks
    if n >= p and np.count_nonzero(~constant) <= k:
        budget = max_vectors = 0
    found = krylov_top_operator(times, m, k, max_dim=min(m, budget * block), predict=max_blocks is not None)
    top = None if found is None else found[:2]
    if top is None and max_blocks is None and budget:
        raise RuntimeError(
            f"the block Krylov method did not reach a residual of {KRYLOV_RTOL:g} within "
            f"{KRYLOV_MAX_BLOCKS} blocks (the spectrum is flat near component {k}); ask for "
            "fewer or more components, or use solver='auto', 'eig', 'gram' or 'svd'"
        )
    if top is None and max_vectors:
        top = _lanczos_within(Xc, k, max_vectors)
    if top is None and n >= p:  # the formed matrix (a syrk), as the eig route
        w, W = top_eigh_of_varying(Xc.T @ Xc, k, constant)
        route = "eig"
    elif top is None:  # as the gram route
        w, W = top_eigh(Xc @ Xc.T, k)
        route = "gram"
    else:
        w, W, route = top[0], top[1], "krylov"
        if n >= p and constant.any():
            W = np.asfortranarray(W)
            W[constant] = 0.0
            R = scipy.linalg.cholesky(blas.dsyrk(1.0, W, trans=1), lower=False, check_finite=False)
            W = blas.dtrsm(1.0, R, W, side=1, lower=0)  # W R^{-1}
    s = sqrt_eigenvalues(w, n, p)
    return s, (W if n >= p else axes_from_left(Xc, W, s, k)), route

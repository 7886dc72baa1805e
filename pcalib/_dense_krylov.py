r"""The dense Krylov route's engine: the k leading axes of a centered matrix, never
forming :math:`X_c^\top X_c` or :math:`X_c X_c^\top`.

The chapter *SVD and PCA* finds the axes as eigenvectors of the smaller of the two
matrices; above about a thousand features forming it (one ``syrk``) and solving it
(:math:`O(m^3)`) costs more than a few products with thin blocks. :func:`krylov_axes`
runs block Krylov (:func:`pcalib._eigen.krylov_top_operator`) within a budget of
blocks, stopped by the a-posteriori residual test of ``DENSE_KRYLOV_RTOL``,
then, if it has not converged, the formed matrix, as the eig or gram route would
solve it. The budget is the solver policy's (:mod:`pcalib.solvers`); the route's
skeleton, which calls it as one step, is :func:`pcalib._routes.krylov_route`.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas

from ._decomposition import axes_from_left, sqrt_eigenvalues
from ._eigen import (
    KRYLOV_MAX_BLOCKS,
    cholesky_qr,
    krylov_block,
    krylov_top_operator,
    rows_gram,
    top_eigh,
    top_eigh_of_varying,
)

# Width of the dense route's blocks: k + 3 columns. Measured on tests/benchmarks.py's
# spectra (2 cores, 5000 x 5000 and 10000 x 4000): for k = 10, b = 12 or 13 took
# 0.79-1.24 s where b = max(2k, k + 10) = 20 took 0.85-1.53 s (the products of a thin
# block are bound by memory, but a wider block spends more columns per pass than it
# saves passes); for k = 50, b = 53 took 2.1 s against 2.6 s at b = 60 and 6.7 s at 100
# (each block's Rayleigh-Ritz step grows with the subspace).
_BLOCK_EXTRA = 3
# The dense route's residual test, ten times tighter than the sparse and Dask routes'
# (``pcalib._eigen.KRYLOV_RTOL``): a block costs little here, and the axes of components
# near the noise, whose gaps are small, then agree with the SVD to 1e-10 (measured on
# tests/benchmarks.py's decaying spectrum at 5000 x 5000, k = 10 and 50: largest axis
# error 1.8e-10 and 2.7e-10 at 1e-10, 2.5e-11 and 2.4e-12 at 1e-11, for 5-13% more time
# on 2 cores; 10000 x 4000, k = 10: 1.8e-10 against 1.4e-11).
DENSE_KRYLOV_RTOL = 1e-11


def dense_krylov_block(k: int, m: int) -> int:
    """Width of the dense Krylov route's blocks for k components of an m x m matrix:
    k + 3, at most m (the sparse and Dask routes use
    :func:`pcalib._eigen.krylov_block`, wider, as each of their blocks is a pass over
    data that may be on disk)."""
    return min(k + _BLOCK_EXTRA, m)


def krylov_axes(
    Xc: np.ndarray, k: int, constant: np.ndarray, max_blocks: int | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    r"""The k leading singular values and right singular vectors (p, k) of the centered
    matrix `Xc`, by block Krylov on the smaller of :math:`X_c^\top X_c` and
    :math:`X_c X_c^\top`, never formed: each block :math:`Q` of
    :math:`b = k + 3` columns (:func:`dense_krylov_block`) costs the two products
    :math:`X_c^\top (X_c Q)` (or :math:`X_c (X_c^\top Q)`), :math:`4 n p b` flops and
    two passes over :math:`X_c` (:func:`pcalib._eigen.krylov_top_operator`). The Ritz
    pairs are accepted when every residual :math:`\|M v_j - \theta_j v_j\| \le
    10^{-11} \theta_1`, the a-posteriori test of the sparse and Dask routes made ten
    times tighter (``DENSE_KRYLOV_RTOL``): each :math:`\theta_j` is then within
    :math:`10^{-11}\theta_1` of an eigenvalue (and within the square of that over its
    gap), each axis within an angle of about :math:`10^{-11}\theta_1 / \delta_j` of
    its eigenvector.

    Without `max_blocks` (``solver="krylov"``), the blocks are
    :math:`\max(2k, k + 10)` columns wide, as on the sparse and Dask routes, and the
    space may grow to ``KRYLOV_MAX_BLOCKS`` blocks; beyond, RuntimeError. With
    `max_blocks` (the budget of "auto"), the method stops when the space would grow past that many
    blocks, or as soon as the decay of the residual predicts it (a flat spectrum near
    the k-th eigenvalue, where block Krylov converges slowly); then the k leading
    eigenpairs of the same matrix, formed (one ``syrk``) and solved by
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

    block = dense_krylov_block(k, m) if max_blocks is not None else krylov_block(k, m)
    budget = KRYLOV_MAX_BLOCKS if max_blocks is None else max_blocks
    if n >= p and np.count_nonzero(~constant) <= k:
        budget = 0
    found = krylov_top_operator(
        times, m, k, DENSE_KRYLOV_RTOL, max_dim=min(m, budget * block), predict=max_blocks is not None,
        block=block,
    )
    top = None if found is None else found[:2]
    if top is None and max_blocks is None and budget:
        raise RuntimeError(
            f"the block Krylov method did not reach a residual of {DENSE_KRYLOV_RTOL:g} within "
            f"{KRYLOV_MAX_BLOCKS} blocks (the spectrum is flat near component {k}); ask for "
            "fewer or more components, or use solver='auto', 'eig', 'gram' or 'svd'"
        )
    if top is None and n >= p:  # the formed matrix (a syrk), as the eig route
        w, W = top_eigh_of_varying(rows_gram(Xf), k, constant)  # X_c^T X_c
        route = "eig"
    elif top is None:  # as the gram route
        w, W = top_eigh(rows_gram(Xc), k)
        route = "gram"
    else:
        w, W, route = top[0], top[1], "krylov"
        if n >= p and constant.any():
            W = np.asfortranarray(W)
            W[constant] = 0.0
            W = cholesky_qr(W)
    s = sqrt_eigenvalues(w, n, p)
    return s, (W if n >= p else axes_from_left(Xc, W, s, k)), route

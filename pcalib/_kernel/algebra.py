r"""The linear algebra of :class:`pcalib.KernelPCA`, each step with its formula.

The double centering :math:`H K H` of the kernel matrix, in place
(:func:`center_kernel_matrix`) or as a product (:func:`centered_times`), its top
eigenpairs (:func:`exact_eigenpairs`, :func:`top_eigenpairs`) and the refusal of eigenvalues at round-off
(:func:`check_above_roundoff`); the Nyström approximation (:func:`landmark_root`,
:func:`nystrom_eigenpairs`). The kernels themselves are in :mod:`pcalib._kernel.kernels`,
the pre-images in :mod:`pcalib._kernel.preimages`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

import numpy as np
import scipy.linalg
from scipy.linalg import blas

from .._linalg import constants
from .._linalg.eigen import (
    cholesky_qr,
    krylov_block,
    krylov_top_operator,
    lanczos_top_operator,
    lapack_top_eigh,
    top_eigh,
)

__all__ = [
    "Eigenpairs", "NystromFit", "center_kernel_matrix", "centered_times", "check_above_roundoff", "column_start",
    "exact_eigenpairs", "landmark_root", "nystrom_eigenpairs", "top_eigenpairs",
]

_EPS = float(np.finfo(np.float64).eps)
#: Eigenvalues of the landmark kernel W below this fraction of its largest are dropped
#: from :math:`W^{+1/2}` (their directions carry almost nothing and amplify round-off).
LANDMARK_RTOL = 1e-8


# -- the exact fit --------------------------------------------------------------------------


def center_kernel_matrix(K: np.ndarray) -> np.ndarray:
    r"""Double-center a symmetric kernel matrix in place, :math:`K \leftarrow H K H`.

    With :math:`H = I - \frac1n \mathbf 1 \mathbf 1^\top` and the column means
    :math:`\bar k_j = \frac1n \sum_i K_{ij}` (equal to the row means, K symmetric),

    .. math:: (H K H)_{ij} = K_{ij} - \bar k_i - \bar k_j + \bar{\bar k},
              \qquad \bar{\bar k} = \frac1n \sum_j \bar k_j ,

    the Gram matrix of the feature vectors centered at their mean, in :math:`O(n^2)`
    without forming H.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric float64; overwritten by :math:`H K H`.

    Returns
    -------
    ndarray of shape (n,)
        :math:`\bar k`, the column means of K before centering.
    """
    kbar = K.mean(axis=0)
    K -= kbar
    K -= kbar[:, None]
    K += kbar.mean()
    return kbar


def centered_times(K: np.ndarray, kbar: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    r"""The product :math:`Q \mapsto H K H Q` of the centered kernel, without forming it.

    With :math:`\bar k = K \mathbf 1 / n` (K symmetric) and
    :math:`\bar{\bar k} = \mathbf 1^\top \bar k / n`,

    .. math::

        H K H Q = K Q - \mathbf 1 (\bar k^\top Q) - \bar k (\mathbf 1^\top Q)
        + \bar{\bar k}\, \mathbf 1 (\mathbf 1^\top Q):

    one product with K and three rank-one corrections, :math:`O(n^2 b)` for a block of
    b columns. The product is SciPy's ``dgemm`` on :math:`K^\top` (F-ordered: no copy),
    the BLAS of :func:`pcalib._linalg.eigen.krylov_top_operator`'s other steps, so that no
    second thread pool wakes between them (measured on 2 cores, n = 5000, k = 10: the
    eigensolve took 0.64-0.79 s with the product in NumPy's BLAS, 0.23-0.26 s here).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric, C order; not modified.
    kbar : ndarray of shape (n,)
        Its column means.

    Returns
    -------
    callable
        ``times(Q)`` for Q of shape (n, b), F-ordered.
    """
    kbarbar = float(kbar.mean())
    K_t = K.T  # F-ordered view of K: SciPy's dgemm reads it without a copy

    def times(Q: np.ndarray) -> np.ndarray:
        Y = blas.dgemm(1.0, K_t, Q, trans_a=1)
        ones_q = Q.sum(axis=0)
        Y -= blas.dgemv(1.0, Q, kbar, trans=1)  # kbar^T Q, in the same BLAS
        Y -= np.outer(kbar, ones_q)
        Y += kbarbar * ones_q
        return Y

    return times


#: Columns of K read for the start block of block Krylov, per column of the block.
START_COLUMNS = 10


def column_start(K: np.ndarray, block: int) -> np.ndarray:
    r"""A start block for block Krylov on :math:`HKH`, from the kernel matrix's own columns.

    The b = `block` leading left singular vectors of :math:`C = H K_{:, L}`, for
    ``START_COLUMNS`` b evenly spaced columns L: the range finder of the randomized SVD
    with a sample of columns as its test matrix, already multiplied by K, so it costs
    :math:`O(n (10b)^2)` instead of a product with K. They are :math:`C V_b`
    orthonormalized, :math:`V_b` the leading eigenvectors of :math:`C^\top C`. Measured (Gaussian kernel of
    tests/benchmarks.py's data, k = 10, b = 20): the residual test passes after 6
    products at n = 12000 and 7 at n = 6000, against 8 from a Gaussian block.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    block : int
        b.

    Returns
    -------
    ndarray of shape (n, b), F order, orthonormal columns orthogonal to :math:`\mathbf 1`
    """
    n = K.shape[0]
    C = np.asfortranarray(K[:, np.linspace(0, n - 1, min(n, START_COLUMNS * block)).astype(int)])
    C -= C.mean(axis=0)
    # the leading right singular vectors from C^T C, then U = C V (a few large BLAS calls
    # instead of LAPACK's SVD, whose many small ones stall on a busy machine); the two
    # passes of Cholesky QR restore the orthogonality that forming C^T C costs
    m = C.shape[1]
    _, V = scipy.linalg.eigh(blas.dsyrk(1.0, C, trans=1), lower=False, subset_by_index=[m - block, m - 1],
                             check_finite=False)
    return cholesky_qr(cholesky_qr(blas.dgemm(1.0, C, V)))


def top_eigenpairs(K: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, str]:
    r"""The k largest eigenpairs of an explicitly centered kernel K (n x n, C order,
    symmetric), for :func:`exact_eigenpairs` when the operator route does not apply
    or does not converge.

    For k << n (n above ``constants.NUMPY_MAX_M`` and :math:`40k \le n`), ARPACK's Lanczos
    method with products ``K @ Q`` (:func:`pcalib._linalg.eigen.lanczos_top_operator`:
    residuals checked to 1e-10 of the largest eigenvalue, deflation probe for
    repeated eigenvalues, at most ``constants.KERNEL_LANCZOS_MAX_FRACTION * n`` products: about the
    cost of LAPACK); LAPACK alone (:func:`pcalib._linalg.eigen.lapack_top_eigh`) otherwise, or if Lanczos
    fails.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    k : int

    Returns
    -------
    mu : ndarray of shape (k,)
        Decreasing eigenvalues.
    U : ndarray of shape (n, k)
        Orthonormal eigenvectors.
    solver : {"lanczos", "dense"}
        Which ran.
    """
    n = K.shape[0]
    if n > constants.NUMPY_MAX_M and 40 * k <= n:
        top = lanczos_top_operator(lambda Q: K @ Q, n, k, max_products=int(constants.KERNEL_LANCZOS_MAX_FRACTION * n))
        if top is not None:
            return top[0], top[1], "lanczos"
    mu, U = lapack_top_eigh(K, k)  # not top_eigh: it would try Lanczos again
    return mu, U, "dense"


def check_above_roundoff(mu: np.ndarray, scale: float, n: int) -> None:
    r"""Refuse components whose eigenvalue is 0 to working precision (or negative).

    The round-off of an eigenvalue of an n x n matrix with entries up to `scale` is
    taken as :math:`10\, n\, \varepsilon\, \text{scale}`; ``ValueError`` (saying how
    many eigenvalues are above it) unless the smallest of `mu` is above.

    Parameters
    ----------
    mu : ndarray of shape (k,)
        The eigenvalues found, decreasing.
    scale : float
        The largest absolute entry of the kernel matrix.
    n : int
        Its order.
    """
    floor = 10 * n * _EPS * scale
    if not mu[-1] > floor:
        positive = int(np.sum(mu > floor))
        if positive == 0:
            raise ValueError(
                "the centered kernel is 0 to working precision (no eigenvalue above its "
                f"round-off, {floor:.3g} in units of its largest entry {scale:.3g}): the kernel "
                "does not tell the rows apart. Are all rows of X equal? If not: with "
                "kernel='rbf', gamma is far too small or too large for their spread; with "
                "'poly' or 'cosine' (not translation invariant), a large offset of X drowns "
                "its spread: center X, or choose another kernel or gamma"
            )
        raise ValueError(
            f"the centered kernel has only {positive} eigenvalue(s) above its round-off "
            f"({floor:.3g}) among the {mu.size} largest, so n_components={mu.size} asks for "
            f"axes of zero (or negative) variance: choose n_components <= {positive}"
        )


class Eigenpairs(NamedTuple):
    """The top eigenpairs of a centered kernel matrix (:func:`exact_eigenpairs`)."""

    values: np.ndarray  #: (k,) nu_j, decreasing
    vectors: np.ndarray  #: (n, k) u_j, orthogonal to 1
    kernel_mean: np.ndarray  #: (n,) the column means of K
    diagonal: np.ndarray  #: (n,) the diagonal of K, before centering
    solver: str  #: "krylov", "lanczos" or "dense"


def exact_eigenpairs(K: np.ndarray, k: int, scale: float | None = None) -> Eigenpairs:
    r"""The top k eigenpairs :math:`H K H u_j = \nu_j u_j` of the centered kernel matrix.

    For k << n (n above ``constants.NUMPY_MAX_M`` and :math:`40k \le n`), block Krylov
    (:func:`pcalib._linalg.eigen.krylov_top_operator`, blocks of :math:`\max(2k, k + 10)`
    columns, so an eigenvalue repeated up to that many times, as the rotational
    symmetry of a Gaussian kernel on isotropic data makes them, is found with every
    copy) on the implicitly centered product :func:`centered_times`, accepted when
    every residual :math:`\|H K H u_j - \nu_j u_j\| \le 10^{-10} \nu_1`
    (``solver="krylov"``). Otherwise, or if it does not converge within
    ``constants.KRYLOV_MAX_FRACTION * n`` columns (about the cost of LAPACK), K is centered in place (:func:`center_kernel_matrix`) and solved by
    :func:`top_eigenpairs` (``"lanczos"`` or ``"dense"``). Refused by
    :func:`check_above_roundoff` if :math:`\nu_k` is at round-off. Each :math:`u_j` is
    then made exactly orthogonal to :math:`\mathbf 1`, as an eigenvector of
    :math:`\nu_j \ne 0` is (:math:`H \mathbf 1 = 0`).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric, C order; may be overwritten by :math:`H K H`.
    k : int
    scale : float, optional
        The largest :math:`|K_{ij}|` if known (1 for the Gaussian kernel), else found.

    Returns
    -------
    Eigenpairs
    """
    n = K.shape[0]
    if scale is None:
        scale = max(float(K.max()), -float(K.min()))  # the largest |K_ij|, without a copy
    diagonal = K.diagonal().copy()
    found = None
    if n > constants.NUMPY_MAX_M and 40 * k <= n:
        kbar = K.mean(axis=0)
        start = column_start(K, krylov_block(k, n))
        krylov = krylov_top_operator(
            centered_times(K, kbar), n, k, start=start, max_dim=int(constants.KRYLOV_MAX_FRACTION * n)
        )
        found = None if krylov is None else (krylov[0], krylov[1], "krylov")
    if found is None:
        kbar = center_kernel_matrix(K)
        found = top_eigenpairs(K, k)
    mu, U, solver = found
    check_above_roundoff(mu, scale, n)
    return Eigenpairs(mu, U - U.mean(axis=0), kbar, diagonal, solver)


# -- the Nystrom fit ------------------------------------------------------------------------


def landmark_root(W: np.ndarray) -> np.ndarray:
    r"""The pseudo-inverse square root :math:`P = W^{+1/2}` of the landmark kernel.

    With :math:`W = Q\, \mathrm{diag}(s)\, Q^\top`, :math:`P = Q_r\, \mathrm{diag}(s_r)^{-1/2}`
    over the r eigenvalues above ``LANDMARK_RTOL`` times the largest, so that
    :math:`P P^\top = W^+` (of the kept part) and the Nyström features of x are
    :math:`f(x) = P^\top k(L, x)`.

    Parameters
    ----------
    W : ndarray of shape (m, m)
        :math:`k(L, L)` for the m landmark rows L.

    Returns
    -------
    ndarray of shape (m, r)
    """
    s, Q = np.linalg.eigh(W)
    keep = s > LANDMARK_RTOL * s[-1]
    return Q[:, keep] / np.sqrt(s[keep])


class NystromFit(NamedTuple):
    """What :func:`nystrom_eigenpairs` finds in its pass over the rows."""

    values: np.ndarray  #: (k,) decreasing eigenvalues
    axes: np.ndarray  #: (r, k) their unit eigenvectors w_j
    mean_shift: np.ndarray  #: (m,) d = cbar - c0
    feature_trace: float  #: tr(C W^+ C^T) = sum_i ||f(x_i)||^2


def nystrom_eigenpairs(
    blocks: Iterable[np.ndarray], P: np.ndarray, shift: np.ndarray, n: int, k: int, scale: float
) -> NystromFit:
    r"""The top eigenpairs of the centered Nyström kernel, in one pass over the rows.

    With :math:`C = k(X, L)` (n x m) the Nyström approximation of K is
    :math:`C W^+ C^\top = F F^\top`, :math:`F = C P` (:func:`landmark_root`), so the
    eigenvalues of :math:`H C W^+ C^\top H` are those of the m x m matrix

    .. math:: F_c^\top F_c = P^\top S P, \qquad S = (C - \mathbf 1 \bar c^\top)^\top (C - \mathbf 1 \bar c^\top),

    and C is never stored: `blocks` are its rows :math:`C - \mathbf 1 c_0^\top` block
    by block, shifted by :math:`c_0` (`shift`, near the mean: less cancellation), and
    :math:`S = \sum_B B^\top B - n\, d d^\top` with :math:`d = \bar c - c_0`. The same
    sums give the trace of the approximation,
    :math:`\operatorname{tr}(F F^\top) = \operatorname{tr}(P^\top C^\top C P)` with
    :math:`C^\top C = \sum_B B^\top B + c_0 t^\top + t c_0^\top + n c_0 c_0^\top`,
    :math:`t = \sum_B B^\top \mathbf 1`.

    Parameters
    ----------
    blocks : iterable of ndarray of shape (rows, m)
        The rows of :math:`C - \mathbf 1 c_0^\top`, all n of them.
    P : ndarray of shape (m, r)
    shift : ndarray of shape (m,)
        :math:`c_0`.
    n : int
        The number of rows.
    k : int
        The number of eigenpairs.
    scale : float
        The largest absolute entry of W: :func:`check_above_roundoff` refuses
        eigenvalues at its round-off.

    Returns
    -------
    NystromFit
    """
    m = P.shape[0]
    S = np.zeros((m, m))
    total = np.zeros(m)
    for block in blocks:
        S += block.T @ block
        total += block.sum(axis=0)
    cross = np.outer(shift, total)
    gram = S + cross + cross.T + n * np.outer(shift, shift)  # C^T C
    feature_trace = float(np.einsum("ij,ij->", P, gram @ P))
    d = total / n
    S -= n * np.outer(d, d)  # (C - cbar)^T (C - cbar)
    G = P.T @ S @ P  # F_c^T F_c with F = C P: its eigenvalues are those of H C W^+ C^T H
    G = 0.5 * (G + G.T)
    mu, axes = top_eigh(G, k)
    check_above_roundoff(mu, scale, n)
    return NystromFit(mu, axes, d, feature_trace)

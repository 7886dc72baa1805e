r"""The linear algebra of :class:`pcalib.KernelPCA`, each step with its formula.

The double centering :math:`H K H` of the kernel matrix, in place
(:func:`center_kernel_matrix`) or as a product (:func:`centered_times`), its top
eigenpairs (:func:`exact_eigenpairs`, :func:`top_eigenpairs`) and the refusal of eigenvalues at round-off
(:func:`check_above_roundoff`); the Nyström approximation (:func:`landmark_root`,
:func:`nystrom_eigenpairs`); the pre-images: the points of feature space with
given scores (:class:`PreimageMap`) and the fixed point of the Gaussian kernel
(:func:`fixed_point_preimage`). The kernels themselves are in :mod:`pcalib._kernels`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas

from ._eigen import NUMPY_MAX_M, krylov_top_operator, lanczos_top_operator, top_eigh
from ._validation import warn_outside_pcalib

__all__ = [
    "PreimageMap", "center_kernel_matrix", "centered_times", "check_above_roundoff", "exact_eigenpairs",
    "fixed_point_preimage", "landmark_root", "nystrom_eigenpairs", "top_eigenpairs",
]

_EPS = float(np.finfo(np.float64).eps)
#: Eigenvalues of the landmark kernel W below this fraction of its largest are dropped
#: from :math:`W^{+1/2}` (their directions carry almost nothing and amplify round-off).
LANDMARK_RTOL = 1e-8
#: Fixed-point pre-image iterations: at most this many, stopping when no point moves by
#: more than ``PREIMAGE_TOL`` times the spread of the reference points.
PREIMAGE_MAX_ITER = 500
PREIMAGE_TOL = 1e-10


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
    the BLAS of :func:`pcalib._eigen.krylov_top_operator`'s other steps, so that no
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


def top_eigenpairs(K: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    r"""The k largest eigenpairs of an explicitly centered kernel K (n x n, C order,
    symmetric), for :func:`exact_eigenpairs` when the operator route does not apply
    or does not converge.

    For k << n (n above ``NUMPY_MAX_M`` and :math:`40k \le n`), ARPACK's Lanczos
    method with products ``K @ Q`` (:func:`pcalib._eigen.lanczos_top_operator`:
    residuals checked to 1e-10 of the largest eigenvalue, deflation probe for
    repeated eigenvalues); LAPACK (:func:`pcalib._eigen.top_eigh`) otherwise, or if
    Lanczos fails.

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
    """
    n = K.shape[0]
    if n > NUMPY_MAX_M and 40 * k <= n:
        top = lanczos_top_operator(lambda Q: K @ Q, n, k)
        if top is not None:
            return top
    return top_eigh(K, k)


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
        raise ValueError(
            f"the centered kernel has only {positive} eigenvalue(s) above its round-off "
            f"({floor:.3g}) among the {mu.size} largest, so n_components={mu.size} asks for "
            "axes of zero (or negative) variance: choose n_components <= "
            f"{positive}" + (" or a kernel that separates the rows" if positive == 0 else "")
        )


def exact_eigenpairs(K: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The top k eigenpairs :math:`H K H u_j = \nu_j u_j` of the centered kernel matrix.

    For k << n (n above ``NUMPY_MAX_M`` and :math:`40k \le n`), block Krylov
    (:func:`pcalib._eigen.krylov_top_operator`, blocks of :math:`\max(2k, k + 10)`
    columns, so an eigenvalue repeated up to that many times, as the rotational
    symmetry of a Gaussian kernel on isotropic data makes them, is found with every
    copy) on the implicitly centered product :func:`centered_times`, accepted when
    every residual :math:`\|H K H u_j - \nu_j u_j\| \le 10^{-10} \nu_1`. Otherwise,
    or if it does not converge within n/3 columns, K is centered in place
    (:func:`center_kernel_matrix`) and solved by :func:`top_eigenpairs`. Refused by
    :func:`check_above_roundoff` if :math:`\nu_k` is at round-off. Each :math:`u_j` is
    then made exactly orthogonal to :math:`\mathbf 1`, as an eigenvector of
    :math:`\nu_j \ne 0` is (:math:`H \mathbf 1 = 0`).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric, C order; may be overwritten by :math:`H K H`.
    k : int

    Returns
    -------
    mu : ndarray of shape (k,)
        :math:`\nu_j`, decreasing.
    U : ndarray of shape (n, k)
        :math:`u_j`.
    kbar : ndarray of shape (n,)
        The column means of K.
    """
    n = K.shape[0]
    scale = max(float(K.max()), -float(K.min()))  # the largest |K_ij|, without a copy
    found = None
    if n > NUMPY_MAX_M and 40 * k <= n:
        kbar = K.mean(axis=0)
        krylov = krylov_top_operator(centered_times(K, kbar), n, k)
        found = None if krylov is None else krylov[:2]
    if found is None:
        kbar = center_kernel_matrix(K)
        found = top_eigenpairs(K, k)
    mu, U = found
    check_above_roundoff(mu, scale, n)
    return mu, U - U.mean(axis=0), kbar


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


def nystrom_eigenpairs(
    blocks: Iterable[np.ndarray], P: np.ndarray, n: int, k: int, scale: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The top eigenpairs of the centered Nyström kernel, in one pass over the rows.

    With :math:`C = k(X, L)` (n x m) the Nyström approximation of K is
    :math:`C W^+ C^\top = F F^\top`, :math:`F = C P` (:func:`landmark_root`), so the
    eigenvalues of :math:`H C W^+ C^\top H` are those of the m x m matrix

    .. math:: F_c^\top F_c = P^\top S P, \qquad S = (C - \mathbf 1 \bar c^\top)^\top (C - \mathbf 1 \bar c^\top),

    and C is never stored: `blocks` are its rows :math:`C - \mathbf 1 c_0^\top` block
    by block, shifted by some :math:`c_0` near the mean (less cancellation), and
    :math:`S = \sum_B B^\top B - n\, d d^\top` with :math:`d = \bar c - c_0`.

    Parameters
    ----------
    blocks : iterable of ndarray of shape (rows, m)
        The rows of :math:`C - \mathbf 1 c_0^\top`, all n of them.
    P : ndarray of shape (m, r)
    n : int
        The number of rows.
    k : int
        The number of eigenpairs.
    scale : float
        The largest absolute entry of W: :func:`check_above_roundoff` refuses
        eigenvalues at its round-off.

    Returns
    -------
    mu : ndarray of shape (k,)
        Decreasing eigenvalues.
    axes : ndarray of shape (r, k)
        Their unit eigenvectors :math:`w_j` (the axes of the Nyström features).
    d : ndarray of shape (m,)
        :math:`\bar c - c_0`.
    """
    m = P.shape[0]
    S = np.zeros((m, m))
    total = np.zeros(m)
    for block in blocks:
        S += block.T @ block
        total += block.sum(axis=0)
    d = total / n
    S -= n * np.outer(d, d)  # (C - cbar)^T (C - cbar)
    G = P.T @ S @ P  # F_c^T F_c with F = C P: its eigenvalues are those of H C W^+ C^T H
    G = 0.5 * (G + G.T)
    mu, axes = top_eigh(G, k)
    check_above_roundoff(mu, scale, n)
    return mu, axes, d


# -- pre-images -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PreimageMap:
    r"""The points of feature space with given scores, as combinations of the reference rows.

    The point with scores :math:`\beta`, :math:`\Psi = \bar\varphi + \sum_j \beta_j V_j`,
    is :math:`\sum_i \gamma_i \varphi(r_i)` with :math:`\gamma = A\beta + g_0` (A the
    coefficients of the scores; :math:`g_0 = \mathbf 1/n` for the exact route,
    :math:`W^+ \bar c` for Nyström). Its inner products with the :math:`\varphi(r_i)`,
    :math:`K_{RR}\,\gamma`, are :math:`S\beta + s_0` up to a constant (exact:
    :math:`K A = T` the training scores, :math:`K g_0 = \bar k`; Nyström:
    :math:`S = W A`, :math:`s_0 = W g_0`); with the Gaussian kernel, whose feature
    vectors all have norm 1, the largest marks the reference row nearest to :math:`\Psi`.
    """

    offset: np.ndarray  #: (n_ref,) g_0
    gram_coef: np.ndarray  #: (n_ref, k) S
    gram_offset: np.ndarray  #: (n_ref,) s_0

    def weights(self, beta: np.ndarray, coef: np.ndarray) -> np.ndarray:
        r""":math:`\gamma = A\beta + g_0` for each row :math:`\beta` of `beta` (q, k); A = `coef`."""
        return beta @ coef.T + self.offset

    def nearest(self, beta: np.ndarray) -> np.ndarray:
        """For each row of `beta`, the index of the reference row nearest to its point
        (by the largest inner product)."""
        return np.argmax(beta @ self.gram_coef.T + self.gram_offset, axis=1)


def fixed_point_preimage(
    kernel: Callable[[np.ndarray, np.ndarray], np.ndarray], X: np.ndarray, R: np.ndarray, gamma: np.ndarray
) -> np.ndarray:
    r"""Pre-images by the fixed-point iteration of Mika et al. (1999) for the Gaussian kernel.

    For a point :math:`\Psi = \sum_i \gamma_i \varphi(r_i)` of feature space, the
    iteration

    .. math:: x \leftarrow \frac{\sum_i \gamma_i\, k(x, r_i)\, r_i}{\sum_i \gamma_i\, k(x, r_i)}

    makes :math:`\sum_i \gamma_i k(x, r_i)` stationary, so minimizes
    :math:`\|\varphi(x) - \Psi\|` locally. Each point stops when it moves by at most
    ``PREIMAGE_TOL`` times the spread of R (the root mean squared distance of its
    rows to their mean), after ``PREIMAGE_MAX_ITER`` iterations, or at a
    non-positive denominator (it keeps its iterate); a warning counts the points
    that did not converge or met such a denominator.

    Parameters
    ----------
    kernel : callable
        ``kernel(A, R)``: the Gaussian kernel matrix :math:`k(a_i, r_l)`.
    X : ndarray of shape (q, p)
        The starting points; overwritten by the iterates.
    R : ndarray of shape (n_ref, p)
        The reference rows :math:`r_i`.
    gamma : ndarray of shape (q, n_ref)
        The coefficients :math:`\gamma` of each point.

    Returns
    -------
    ndarray of shape (q, p)
        `X`, holding the pre-images.
    """
    spread = float(np.sqrt(np.mean(np.sum((R - R.mean(axis=0)) ** 2, axis=1)))) or 1.0
    active = np.ones(X.shape[0], dtype=bool)
    stuck = np.zeros(X.shape[0], dtype=bool)
    for _ in range(PREIMAGE_MAX_ITER):
        if not active.any():
            break
        weights = kernel(X[active], R) * gamma[active]
        den = weights.sum(axis=1)
        bad = ~(den > 0)
        new = weights @ R
        new[~bad] /= den[~bad][:, None]
        new[bad] = X[active][bad]
        moved = np.linalg.norm(new - X[active], axis=1)
        rows = np.flatnonzero(active)
        X[rows] = new
        stuck[rows[bad]] = True
        active[rows[(moved <= PREIMAGE_TOL * spread) | bad]] = False
    if active.any() or stuck.any():
        warn_outside_pcalib(
            f"KernelPCA.inverse_transform: the fixed-point pre-image did not converge for "
            f"{int(active.sum())} point(s) in {PREIMAGE_MAX_ITER} iterations and met a "
            f"non-positive denominator for {int(stuck.sum())}; their last iterates are returned",
            UserWarning,
        )
    return X

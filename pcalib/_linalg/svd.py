r"""The SVDs under pcalib's routes, on validated float64 arrays, with no sign convention.

* :func:`exact_svd`: LAPACK's thin SVD (``gesdd``, ``gesvd`` if it fails);
* :func:`randomized_svd_f64`: the randomized block Krylov SVD of
  :func:`pcalib.randomized_svd` (chapter *PCA at scale*), with the number of Krylov
  steps of :func:`auto_n_iter`;
* :func:`orthonormal_completion`: k orthonormal columns whose first ones span a given
  basis, completed deterministically where a route found fewer than k directions above
  round-off.

:mod:`pcalib.lowrank` checks its arguments, calls these and applies the sign
convention; the PCA routes call them on the centered data.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg import blas

from .eigen import matrix_times, orthonormal_directions, transposed_times

__all__ = ["auto_n_iter", "exact_svd", "orthonormal_completion", "randomized_svd_f64"]


def exact_svd(A: np.ndarray, *, overwrite_a: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thin LAPACK SVD (divide and conquer, falling back to QR iteration)."""
    try:
        return scipy.linalg.svd(
            A, full_matrices=False, overwrite_a=overwrite_a, check_finite=False, lapack_driver="gesdd"
        )
    except np.linalg.LinAlgError:  # pragma: no cover - gesdd convergence failure is rare
        return scipy.linalg.svd(A, full_matrices=False, check_finite=False, lapack_driver="gesvd")


def orthonormal_completion(Q: np.ndarray, k: int) -> np.ndarray:
    """k orthonormal columns, the first ``r = Q.shape[1]`` spanning the columns of Q.

    A Householder QR factorization of ``[Q, 0]`` (m x k, r <= k <= m): it
    re-orthonormalizes Q (an orthonormal Q comes back unchanged, to round-off,
    since the signs of R's diagonal are made positive), and for each zero column
    it produces the next unit vector orthogonal to all the previous ones: a
    deterministic completion of the basis, never NaN.
    """
    m, r = Q.shape
    padded = np.hstack([Q, np.zeros((m, k - r))]) if r < k else Q
    basis, R = scipy.linalg.qr(padded, mode="economic", check_finite=False)
    return basis * np.where(np.diag(R) < 0, -1.0, 1.0)


def auto_n_iter(k: int, A_shape: tuple[int, int]) -> int:
    """scikit-learn's rule: 7 Krylov steps when k < 0.1 min(n, p), else 4 (same passes over A)."""
    return 7 if k < 0.1 * min(A_shape) else 4


def randomized_svd_f64(
    A: np.ndarray, k: int, oversample: int, n_iter: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Randomized block Krylov SVD on a validated float64 array (no signs applied).

    Works with the wide orientation transposed away (``M = A`` or ``A^T``, n >= p),
    so the Krylov blocks have ``n`` rows and ``l = k + oversample`` columns. Every
    block is orthogonalized against the earlier ones (twice) and orthonormalized
    (:func:`pcalib._linalg.eigen.orthonormal_directions`: two passes of Cholesky QR, or an
    SVD that drops the directions at round-off level when the block exhausted the
    range of M), so the basis stays orthonormal to working precision. All
    products go through scipy's BLAS (``dgemm``): the loop stays in one BLAS library.
    """
    transpose = A.shape[0] < A.shape[1]
    # F-ordered view of the matrix we sketch: M = A (tall) or A^T (wide).
    M = A.T if transpose else A
    n, p = M.shape
    ell = min(k + oversample, p)
    Mf = np.asfortranarray(M) if not (M.flags.f_contiguous or M.flags.c_contiguous) else M

    def times(X: np.ndarray) -> np.ndarray:  # M @ X
        return matrix_times(Mf, X)

    def times_t(Y: np.ndarray) -> np.ndarray:  # M^T @ Y
        return transposed_times(Mf, Y)

    width = min(ell * (n_iter + 1), p)  # the range of M has dimension at most p
    K = np.empty((n, width), order="F")
    Y = times(np.asfortranarray(rng.standard_normal((p, ell))))
    Y = orthonormal_directions(Y, 1e-12 * np.abs(Y).max())
    d = 0
    for step in range(n_iter + 1):
        if step:
            Y = times(times_t(Y))
            size = np.abs(Y).max()
            for _ in range(2):  # block Gram-Schmidt against the basis, twice
                Y -= blas.dgemm(1.0, K[:, :d], blas.dgemm(1.0, K[:, :d], Y, trans_a=True))
            Y = orthonormal_directions(Y, 1e-12 * size)
        cols = min(Y.shape[1], width - d)
        K[:, d:d + cols] = Y[:, :cols]
        d += cols
        if d == width or cols == 0:
            break
    Q = K[:, :d]
    # Rayleigh-Ritz on the whole Krylov space: the SVD of B = Q^T M, computed as
    # that of the tall B^T = M^T Q = W S Z^T (p x d), so B = Z S W^T.
    W, s, Zt = exact_svd(times_t(Q), overwrite_a=True)
    U = blas.dgemm(1.0, Q, Zt[:k].T)
    s, V = s[:k], W[:, :k]
    if s.size < k:  # the Krylov space had fewer than k directions above round-off:
        # M has numerical rank d < k; the other k - d triplets have sigma = 0
        U, V = orthonormal_completion(U, k), orthonormal_completion(V, k)
        s = np.concatenate([s, np.zeros(k - s.size)])
    Vt = np.ascontiguousarray(V.T)
    if transpose:  # A = M^T = V S U^T
        U, Vt = Vt.T, U.T
    return U, s, Vt

r"""Low-rank approximation: exact and randomized SVD (chapters *Eckart-Young*, *PCA at scale*).

The singular value decomposition :math:`A = U \Sigma V^\top` gives the best
rank-k approximation :math:`A_k = U_k \Sigma_k V_k^\top` in the spectral and
Frobenius norms (Eckart and Young 1936):

.. math::

    \|A - A_k\|_2 = \sigma_{k+1}, \qquad
    \|A - A_k\|_F = \Big(\sum_{j > k} \sigma_j^2\Big)^{1/2}.

Nothing here centers the data: these are SVDs of `A` itself.
Sign convention: each right singular vector (row of ``Vt``) is flipped so that its
entry of largest absolute value is positive, and the matching column of ``U``
with it, so :math:`U \Sigma V^\top` is unchanged.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike
from scipy.linalg import blas

from ._signs import axis_signs
from ._validation import as_data_matrix, check_n_components, output_dtype

__all__ = ["truncated_svd", "low_rank_approx", "randomized_svd"]


def _exact_svd(A: np.ndarray, *, overwrite_a: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thin LAPACK SVD (divide and conquer, falling back to QR iteration)."""
    try:
        return scipy.linalg.svd(
            A, full_matrices=False, overwrite_a=overwrite_a, check_finite=False, lapack_driver="gesdd"
        )
    except np.linalg.LinAlgError:  # pragma: no cover - gesdd convergence failure is rare
        return scipy.linalg.svd(A, full_matrices=False, check_finite=False, lapack_driver="gesvd")


def _apply_signs(U: np.ndarray, s: np.ndarray, Vt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flip singular triplets to the sign convention (largest |entry| of each Vt row positive)."""
    signs = axis_signs(Vt)
    return U * signs, s, Vt * signs[:, None]


def _cast(dtype: np.dtype, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.ascontiguousarray(a, dtype=dtype) for a in arrays)


def truncated_svd(A: ArrayLike, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The k leading singular triplets of `A`, from an exact LAPACK SVD.

    .. math:: A \approx U_k \Sigma_k V_k^\top

    Parameters
    ----------
    A : array_like of shape (n, p)
        Any finite real matrix (not centered). Not modified.
    k : int
        Number of triplets, ``1 <= k <= min(n, p)``.

    Returns
    -------
    U : ndarray of shape (n, k)
        Left singular vectors (orthonormal columns).
    s : ndarray of shape (k,)
        Singular values, non-increasing.
    Vt : ndarray of shape (k, p)
        Right singular vectors (orthonormal rows), sign convention applied.

    Raises
    ------
    TypeError
        If `A` is not numeric or `k` is not an integer.
    ValueError
        If `A` is not a finite non-empty 2-D array or `k` is out of range.

    Examples
    --------
    >>> U, s, Vt = truncated_svd([[3.0, 0.0], [0.0, -2.0]], 1)
    >>> s
    array([3.])
    """
    arr = as_data_matrix(A, "A")
    k = check_n_components(k, min(arr.shape), "k")
    U, s, Vt = _exact_svd(arr.astype(np.float64, copy=False), overwrite_a=True)
    U, s, Vt = _apply_signs(U[:, :k], s[:k], Vt[:k])
    return _cast(output_dtype(arr), U, s, Vt)


def low_rank_approx(A: ArrayLike, k: int) -> np.ndarray:
    r"""Best rank-k approximation of `A` (Eckart-Young), from an exact SVD.

    .. math:: A_k = U_k \Sigma_k V_k^\top = \arg\min_{\operatorname{rank} B \le k} \|A - B\|

    for both the spectral and the Frobenius norm.

    Parameters
    ----------
    A : array_like of shape (n, p)
        Any finite real matrix. Not modified.
    k : int
        Target rank, ``1 <= k <= min(n, p)``.

    Returns
    -------
    ndarray of shape (n, p)

    Raises
    ------
    TypeError, ValueError
        As :func:`truncated_svd`.

    Examples
    --------
    >>> low_rank_approx([[3.0, 0.0], [0.0, 1.0]], 1)
    array([[3., 0.],
           [0., 0.]])
    """
    U, s, Vt = truncated_svd(A, k)
    return (U * s) @ Vt


def _check_random_state(random_state: object) -> np.random.Generator:
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**31 - 1))
    try:
        return np.random.default_rng(random_state)  # None, int, SeedSequence or Generator
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"random_state must be None, a non-negative int or a numpy Generator, got {random_state!r}"
        ) from exc


def _check_nonneg_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer, got {value!r} of type {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}")
    return int(value)


def _auto_n_iter(k: int, A_shape: tuple[int, int]) -> int:
    """scikit-learn's rule: 7 power iterations when k < 0.1 min(n, p), else 4."""
    return 7 if k < 0.1 * min(A_shape) else 4


def _randomized_svd_f64(
    A: np.ndarray, k: int, oversample: int, n_iter: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Randomized subspace iteration on a validated float64 array (no signs applied).

    Works with the wide orientation transposed away, so the sketch ``Y`` has
    ``max(n, p)`` rows and ``l = k + oversample`` columns. All products go
    through scipy's BLAS (``dgemm``) so the whole loop stays in one BLAS library.
    """
    transpose = A.shape[0] < A.shape[1]
    # F-ordered view of the matrix we sketch: M = A (tall) or A^T (wide).
    M = A.T if transpose else A
    n, p = M.shape
    ell = min(k + oversample, p)
    Mf = np.asfortranarray(M) if not (M.flags.f_contiguous or M.flags.c_contiguous) else M

    def times(X: np.ndarray) -> np.ndarray:  # M @ X
        if Mf.flags.f_contiguous:
            return blas.dgemm(1.0, Mf, X)
        return blas.dgemm(1.0, Mf.T, X, trans_a=True)

    def times_t(Y: np.ndarray) -> np.ndarray:  # M^T @ Y
        if Mf.flags.f_contiguous:
            return blas.dgemm(1.0, Mf, Y, trans_a=True)
        return blas.dgemm(1.0, Mf.T, Y)

    def orth(Y: np.ndarray, final: bool) -> np.ndarray:
        # LU is cheaper than QR and keeps the columns well conditioned between
        # products (as in scikit-learn); the last step needs a true orthonormal basis.
        if final:
            return scipy.linalg.qr(Y, mode="economic", overwrite_a=True, check_finite=False)[0]
        return scipy.linalg.lu(Y, permute_l=True, overwrite_a=True, check_finite=False)[0]

    omega = np.asfortranarray(rng.standard_normal((p, ell)))
    Q = times(omega)
    for _ in range(n_iter):
        Q = orth(Q, final=False)
        Q = orth(times_t(Q), final=False)
        Q = times(Q)
    Q = orth(Q, final=True)
    B = times_t(Q).T  # (ell, p) = Q^T M
    Ub, s, Vt = _exact_svd(B, overwrite_a=True)
    U = blas.dgemm(1.0, Q, Ub)
    U, s, Vt = U[:, :k], s[:k], Vt[:k]
    if transpose:  # A = M^T = V S U^T
        U, Vt = Vt.T, U.T
    return U, s, Vt


def randomized_svd(
    A: ArrayLike,
    k: int,
    oversample: int = 10,
    n_iter: int | str = "auto",
    random_state: int | np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Approximate k leading singular triplets by randomized subspace iteration.

    Halko, Martinsson and Tropp (2011), Algorithms 4.4 and 5.1: draw a Gaussian
    test matrix :math:`\Omega` (p x l, :math:`l = k + \text{oversample}`), form
    the sketch

    .. math:: Y = (A A^\top)^{q} A \Omega,

    re-normalizing the block after every multiplication by `A` or
    :math:`A^\top` (LU factors in between, a QR factorization at the end, so
    round-off does not collapse the columns onto the top singular vector),
    take an orthonormal basis :math:`Q` of :math:`Y`, and finish with the
    exact SVD of the small matrix :math:`B = Q^\top A = \tilde U \Sigma V^\top`,
    :math:`U = Q \tilde U`. The error decays like
    :math:`(\sigma_{l+1}/\sigma_k)^{2q+1}`: power iterations matter when the
    spectrum is flat.

    `A` is not centered (this is an SVD of `A`; center first for PCA).

    Parameters
    ----------
    A : array_like of shape (n, p)
        Finite real matrix. Not modified.
    k : int
        Number of triplets, ``1 <= k <= min(n, p)``.
    oversample : int, default 10
        Extra columns of the test matrix (:math:`l = \min(k + \text{oversample}, \min(n,p))`).
    n_iter : int or "auto", default "auto"
        Number of power iterations :math:`q`. ``"auto"`` uses scikit-learn's
        rule: 7 if ``k < 0.1 * min(n, p)``, else 4.
    random_state : None, int or numpy.random.Generator
        Seed of the Gaussian test matrix; a fixed seed gives identical results.

    Returns
    -------
    U : ndarray of shape (n, k)
    s : ndarray of shape (k,)
    Vt : ndarray of shape (k, p)
        As :func:`truncated_svd` (same sign convention), approximately.

    Raises
    ------
    TypeError
        If `A` is not numeric, or `k`, `oversample`, `n_iter` are not integers.
    ValueError
        If `A` is not a finite non-empty 2-D array, `k` is out of range, or
        `oversample` / `n_iter` is negative.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((50, 8)) @ np.diag([10, 5, 1, 1, 1, 1, 1, 1.0])
    >>> U, s, Vt = randomized_svd(A, 2, random_state=0)
    >>> np.allclose(s, np.linalg.svd(A, compute_uv=False)[:2])
    True
    """
    arr = as_data_matrix(A, "A", copy=False)
    k = check_n_components(k, min(arr.shape), "k")
    oversample = _check_nonneg_int(oversample, "oversample")
    if isinstance(n_iter, str):
        if n_iter != "auto":
            raise ValueError(f'n_iter must be a non-negative integer or "auto", got {n_iter!r}')
        n_iter = _auto_n_iter(k, arr.shape)
    n_iter = _check_nonneg_int(n_iter, "n_iter")
    rng = _check_random_state(random_state)
    U, s, Vt = _randomized_svd_f64(arr.astype(np.float64, copy=False), k, oversample, n_iter, rng)
    U, s, Vt = _apply_signs(U, s, Vt)
    return _cast(output_dtype(arr), U, s, Vt)

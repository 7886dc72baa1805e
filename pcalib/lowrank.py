r"""Low-rank approximation: exact and randomized SVD (chapters *Eckart-Young*, *PCA at scale*).

The singular value decomposition :math:`A = U \Sigma V^\top` gives a best
rank-k approximation :math:`A_k = U_k \Sigma_k V_k^\top` in the spectral and
Frobenius norms (Frobenius: Eckart and Young 1936; spectral: already a case of Ky
Fan's 1951 inequality; every unitarily invariant norm: Mirsky 1960):

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
from numpy.typing import ArrayLike

from ._linalg.signs import axis_signs
from ._linalg.svd import auto_n_iter, exact_svd, randomized_svd_f64
from ._linalg.units import rescale, unit_exponent
from ._utils.validation import as_data_matrix, check_n_components, check_random_state, output_dtype

__all__ = ["truncated_svd", "low_rank_approx", "randomized_svd"]

# randomized_svd works on A itself while its largest entry is within 2**+-256 of 1: then
# the products A A^T Y (entries up to n p times the square of A's) and the Gram matrices
# of its orthogonalization stay far inside the float64 range. Beyond, it works on
# 2**-e A (e = pcalib._linalg.units.unit_exponent, exact) and scales the singular values back:
# at 1e160 the products overflowed (LAPACK failed), at 1e-160 they underflowed
# (singular values 29% off).
_SAFE_EXPONENT = 256


def _apply_signs(U: np.ndarray, s: np.ndarray, Vt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flip singular triplets to the sign convention (largest |entry| of each Vt row positive)."""
    signs = axis_signs(Vt)
    return U * signs, s, Vt * signs[:, None]


def _cast(
    dtype: np.dtype, U: np.ndarray, s: np.ndarray, Vt: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The factors of an SVD as C-contiguous arrays of `dtype`."""
    return tuple(np.ascontiguousarray(a, dtype=dtype) for a in (U, s, Vt))  # type: ignore[return-value]


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
    U, s, Vt = exact_svd(arr.astype(np.float64, copy=False), overwrite_a=True)
    U, s, Vt = _apply_signs(U[:, :k], s[:k], Vt[:k])
    return _cast(output_dtype(arr), U, s, Vt)


def low_rank_approx(A: ArrayLike, k: int) -> np.ndarray:
    r"""A best rank-k approximation of `A` (Eckart-Young), from an exact SVD.

    .. math:: A_k = U_k \Sigma_k V_k^\top \in \arg\min_{\operatorname{rank} B \le k} \|A - B\|

    for both the spectral and the Frobenius norm. In the Frobenius norm it is the only
    minimizer when :math:`\sigma_k > \sigma_{k+1}` (or :math:`\sigma_{k+1} = 0`); in
    the spectral norm there are others as soon as :math:`\sigma_{k+1} > 0`.

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


def _check_nonneg_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer, got {value!r} of type {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}")
    return int(value)


def randomized_svd(
    A: ArrayLike,
    k: int,
    oversample: int = 10,
    n_iter: int | str = "auto",
    random_state: int | np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Approximate k leading singular triplets by a randomized block Krylov method.

    Halko, Martinsson and Tropp (2011), section 4.5 and Algorithm 5.1; Musco and
    Musco (2015): draw a Gaussian test matrix :math:`\Omega` (p x l,
    :math:`l = k + \text{oversample}`) and keep *every* block of the power
    iteration in one orthonormal basis

    .. math:: Q = \operatorname{orth}\big[A\Omega,\ (AA^\top)A\Omega,\ \dots,\ (AA^\top)^{q}A\Omega\big]

    (each block orthogonalized against the earlier ones as it is formed, so
    round-off does not collapse the columns onto the top singular vector), then
    finish with Rayleigh-Ritz: the exact SVD of the small matrix
    :math:`B = Q^\top A = \tilde U \Sigma V^\top`, :math:`U = Q \tilde U`. The basis
    contains the subspace :math:`(AA^\top)^q A\Omega` of plain subspace iteration
    (scikit-learn's ``randomized_svd``), so with the same q (the same number of
    passes over A) the result is at least as accurate, and much more so on a flat
    spectrum, where the error decays like a Chebyshev polynomial of degree 2q+1 in
    the gap instead of :math:`(\sigma_{l+1}/\sigma_k)^{2q+1}`. The price is the
    final product with a basis of :math:`l(q+1)` columns (capped at
    :math:`\min(n, p)`).

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
        Number of Krylov steps :math:`q` (each one product with :math:`A^\top`
        and one with :math:`A`). ``"auto"``: scikit-learn's rule, 7 if
        ``k < 0.1 * min(n, p)``, else 4, so both make the same number of passes
        over `A`. Measured (``python -m tests.benchmarks``, 20000 x 2000, k = 10):
        sine of the subspace error 4.5e-5 against scikit-learn's 4.1e-2, in about
        0.4 times its time.
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
        n_iter = auto_n_iter(k, arr.shape)
    n_iter = _check_nonneg_int(n_iter, "n_iter")
    rng = check_random_state(random_state)
    A64 = arr.astype(np.float64, copy=False)
    e = unit_exponent(A64)
    if not -_SAFE_EXPONENT <= e <= _SAFE_EXPONENT:  # A A^T Y would overflow or underflow
        A64 = np.ldexp(A64, -e)  # exact: a change of units by a power of two
    U, s, Vt = randomized_svd_f64(A64, k, oversample, n_iter, rng)
    if A64 is not arr and e:
        s = rescale(s, e, "singular values")
    U, s, Vt = _apply_signs(U, s, Vt)
    return _cast(output_dtype(arr), U, s, Vt)

r"""The kernels of :class:`pcalib.KernelPCA`: the functions k(x, y) and their matrices.

Each kernel is a function of two row sets, returning the matrix :math:`k(a_i, b_l)`
(:func:`kernel_matrix` picks one by name; :func:`kernel_blocks` and
:func:`kernel_scores` read it block by block, never holding a whole n x n_ref
kernel), with the checks of the kernel's parameters and of a precomputed matrix.
The linear algebra of the fit is in :mod:`pcalib._kernel_algebra`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from typing import Any, cast

import numpy as np

__all__ = [
    "KERNELS", "callable_kernel", "check_kernel_parameters", "check_n_components", "check_precomputed_kernel",
    "cosine_kernel", "kernel_blocks", "kernel_matrix", "kernel_scores", "linear_kernel", "poly_kernel", "rbf_kernel",
    "squared_distances",
]

#: The kernels named by a string (a callable is the other choice).
KERNELS = ("rbf", "poly", "linear", "cosine", "precomputed")
_EPS = float(np.finfo(np.float64).eps)
#: Entries of one block of rows of k(X, R) (2**23 float64: 64 MiB), so that transform
#: and the Nyström fit never hold the whole n x n_ref kernel.
BLOCK_ENTRIES = 2**23


# -- parameters -----------------------------------------------------------------------------


def check_kernel_parameters(
    kernel: str | Callable[[np.ndarray, np.ndarray], Any], gamma: float | None, degree: int, coef0: float,
    n_landmarks: int | None,
) -> None:
    """Raise ``ValueError`` for a kernel parameter of :class:`pcalib.KernelPCA` out of range.

    Parameters
    ----------
    kernel : str or callable
        One of ``KERNELS`` or a callable.
    gamma : float or None
        A positive finite number, or None.
    degree : int
        A positive integer (not a bool).
    coef0 : float
        A finite number (not a bool).
    n_landmarks : int or None
        A positive integer or None; None with ``kernel="precomputed"``, whose whole
        matrix is given.
    """
    if not callable(kernel) and kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS} or a callable, got {kernel!r}")
    if gamma is not None and not (
        isinstance(gamma, numbers.Real) and not isinstance(gamma, bool) and gamma > 0 and np.isfinite(gamma)
    ):
        raise ValueError(f"gamma must be a positive number or None, got {gamma!r}")
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 1:
        raise ValueError(f"degree must be a positive integer, got {degree!r}")
    if isinstance(coef0, bool) or not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
        raise ValueError(f"coef0 must be a finite number, got {coef0!r}")
    if n_landmarks is not None:
        if isinstance(n_landmarks, bool) or not isinstance(n_landmarks, numbers.Integral) or n_landmarks < 1:
            raise ValueError(f"n_landmarks must be a positive integer or None, got {n_landmarks!r}")
        if kernel == "precomputed":
            raise ValueError(
                'n_landmarks needs a kernel pcalib evaluates; with kernel="precomputed" the '
                "whole kernel matrix is given: use n_landmarks=None"
            )


def check_n_components(n_components: int, n: int, rank_bound: int) -> int:
    r"""`n_components` as an int k, ``ValueError`` unless :math:`1 \le k \le` `rank_bound`.

    Parameters
    ----------
    n_components : int
        The number of components asked for.
    n : int
        The number of samples: the centered kernel has rank at most n - 1.
    rank_bound : int
        n - 1, or less with landmarks (the rank of their kernel).

    Returns
    -------
    int
    """
    k = int(n_components)
    if not 1 <= k <= rank_bound:
        landmarks = ", and at most the number of landmarks (the rank of their kernel)" if rank_bound < n - 1 else ""
        raise ValueError(
            f"n_components must be between 1 and {rank_bound} (the centered kernel of "
            f"n = {n} samples has rank at most n - 1{landmarks}), got {k}"
        )
    return k


def check_precomputed_kernel(K: np.ndarray) -> None:
    r"""Raise ``ValueError`` unless `K` is square and symmetric to
    :math:`\max_{ij} |K_{ij} - K_{ji}| \le \sqrt{\varepsilon}\, \max_{ij} |K_{ij}|`.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        A kernel matrix given with ``kernel="precomputed"``.
    """
    if K.shape[0] != K.shape[1]:
        raise ValueError(
            f'with kernel="precomputed", X must be the square n x n kernel matrix, got shape {K.shape}'
        )
    asym = float(np.abs(K - K.T).max())
    if asym > np.sqrt(_EPS) * max(float(np.abs(K).max()), _EPS):
        raise ValueError(
            f'with kernel="precomputed", X must be a symmetric kernel matrix; |X - X^T| reaches {asym:.3g}'
        )


# -- kernels --------------------------------------------------------------------------------


def squared_distances(A: np.ndarray, B: np.ndarray, shift: np.ndarray) -> np.ndarray:
    r"""The squared distances :math:`\|a_i - b_l\|^2` of the rows of two arrays.

    Computed as :math:`\|a_i\|^2 + \|b_l\|^2 - 2 a_i^\top b_l` (one matrix product)
    after subtracting `shift` from both (less cancellation when the rows are far
    from 0), clipped at 0.

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)
        When `B` is `A` (the same object), the diagonal is exactly 0.
    shift : ndarray of shape (p,)
        A point near the rows, e.g. their mean.

    Returns
    -------
    ndarray of shape (q, r)
    """
    same = A is B
    A = A - shift
    B = A if same else B - shift
    D = A @ B.T
    D *= -2.0
    D += np.einsum("ij,ij->i", A, A)[:, None]
    D += np.einsum("ij,ij->i", B, B)[None, :]
    np.maximum(D, 0.0, out=D)
    if same:
        np.fill_diagonal(D, 0.0)
    return D


def rbf_kernel(A: np.ndarray, B: np.ndarray, gamma: float, shift: np.ndarray) -> np.ndarray:
    r"""The Gaussian kernel :math:`k(a, b) = \exp(-\gamma \|a - b\|^2)`.

    The squared distances are those of :func:`squared_distances` about `shift`.

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)
    gamma : float
        :math:`\gamma > 0`.
    shift : ndarray of shape (p,)
        The training mean.

    Returns
    -------
    ndarray of shape (q, r)
    """
    K = squared_distances(A, B, shift)
    K *= -gamma
    return np.exp(K, out=K)


def poly_kernel(A: np.ndarray, B: np.ndarray, gamma: float, degree: int, coef0: float) -> np.ndarray:
    r"""The polynomial kernel :math:`k(a, b) = (\gamma\, a^\top b + c_0)^d`.

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)
    gamma : float
        :math:`\gamma`.
    degree : int
        d.
    coef0 : float
        :math:`c_0`.

    Returns
    -------
    ndarray of shape (q, r)
    """
    K = A @ B.T
    K *= gamma
    K += coef0
    K **= degree
    return K


def linear_kernel(A: np.ndarray, B: np.ndarray, shift: np.ndarray) -> np.ndarray:
    r"""The linear kernel :math:`a^\top b`, evaluated as :math:`(a - c)^\top (b - c)`.

    With c the training mean: for the exact route :math:`H K H` is unchanged (the
    extra terms are constant along a row or a column), and K's entries stay at the
    data's spread instead of :math:`\|x\|^2`, so :math:`H K H` does not cancel digits
    with a large mean.

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)
        When `B` is `A`, the shifted rows are formed once.
    shift : ndarray of shape (p,)
        c.

    Returns
    -------
    ndarray of shape (q, r)
    """
    same = A is B
    A = A - shift
    return A @ (A if same else B - shift).T


def cosine_kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    r"""The cosine kernel :math:`k(a, b) = a^\top b / (\|a\| \|b\|)`.

    Parameters
    ----------
    A : ndarray of shape (q, p)
        The new rows, named "X" in errors.
    B : ndarray of shape (r, p)
        The reference rows, named "X_fit_" in errors; when `B` is `A`, normalized once.

    Returns
    -------
    ndarray of shape (q, r)

    Raises
    ------
    ValueError
        If a row is 0 (the kernel is undefined there).
    """
    same = A is B
    A = _unit_rows(A, "X")
    return A @ (A if same else _unit_rows(B, "X_fit_")).T


def _unit_rows(A: np.ndarray, name: str) -> np.ndarray:
    """The rows of `A` divided by their Euclidean norms; ``ValueError`` for a row of zeros."""
    norms = np.linalg.norm(A, axis=1)
    if np.any(norms == 0):
        raise ValueError(
            f"{name} has a row of zeros (row {int(np.argmax(norms == 0))}): the cosine kernel "
            "x.y / (|x| |y|) is undefined there; remove it or choose another kernel"
        )
    return A / norms[:, None]


def callable_kernel(kernel: Callable[[np.ndarray, np.ndarray], Any], A: np.ndarray, B: np.ndarray) -> np.ndarray:
    r"""A user's kernel: ``kernel(A, B)``, checked to be the finite matrix :math:`k(a_i, b_l)`.

    Parameters
    ----------
    kernel : callable
        Returns an array_like of shape (q, r).
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)

    Returns
    -------
    ndarray of shape (q, r)
        float64, a new array (the caller may change it in place).
    """
    K = np.asarray(kernel(A, B), dtype=np.float64)
    if K.shape != (A.shape[0], B.shape[0]) or not np.all(np.isfinite(K)):
        raise ValueError(
            f"kernel(A, B) must return a finite array of shape (len(A), len(B)) = "
            f"{(A.shape[0], B.shape[0])}, got shape {K.shape}"
        )
    return np.array(K, copy=True)


def kernel_matrix(
    kernel: str | Callable[[np.ndarray, np.ndarray], Any], A: np.ndarray, B: np.ndarray, *,
    gamma: float | None, degree: int, coef0: float, shift: np.ndarray | None,
) -> np.ndarray:
    r"""The matrix :math:`k(a_i, b_l)` of a kernel of :class:`pcalib.KernelPCA`, a new
    float64 array.

    Parameters
    ----------
    kernel : {"rbf", "poly", "linear", "cosine"} or callable
        :func:`rbf_kernel`, :func:`poly_kernel`, :func:`linear_kernel`,
        :func:`cosine_kernel` or :func:`callable_kernel`.
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)
    gamma : float or None
        The fitted :math:`\gamma` of "rbf" and "poly".
    degree : int
        d of "poly".
    coef0 : float
        :math:`c_0` of "poly".
    shift : ndarray of shape (p,) or None
        The training mean, for "rbf" and "linear".

    Returns
    -------
    ndarray of shape (q, r)
    """
    if callable(kernel):
        return callable_kernel(kernel, A, B)
    if kernel == "rbf":
        return rbf_kernel(A, B, cast(float, gamma), cast(np.ndarray, shift))
    if kernel == "poly":
        return poly_kernel(A, B, cast(float, gamma), degree, coef0)
    if kernel == "linear":
        return linear_kernel(A, B, cast(np.ndarray, shift))
    if kernel == "cosine":
        return cosine_kernel(A, B)
    raise ValueError(f"no kernel function for kernel={kernel!r}")


def kernel_blocks(
    kernel: Callable[[np.ndarray, np.ndarray], np.ndarray], X: np.ndarray, R: np.ndarray, shift: np.ndarray
) -> Iterator[tuple[int, np.ndarray]]:
    r"""The rows of :math:`k(X, R) - \mathbf 1 s^\top` (s = `shift`), block by block.

    Blocks of about ``BLOCK_ENTRIES`` entries, so the whole q x n_ref kernel is
    never held.

    Parameters
    ----------
    kernel : callable
        ``kernel(A, R)``: the matrix :math:`k(a_i, r_l)`, a new array.
    X : ndarray of shape (q, p)
    R : ndarray of shape (n_ref, p)
        The reference rows.
    shift : ndarray of shape (n_ref,)

    Yields
    ------
    start : int
        The first row of X in the block.
    block : ndarray of shape (rows, n_ref)
        Its kernel rows minus s.
    """
    rows = max(1, BLOCK_ENTRIES // max(R.shape[0], 1))
    for start in range(0, X.shape[0], rows):
        block = kernel(X[start:start + rows], R)
        block -= shift
        yield start, block


def kernel_scores(
    kernel: Callable[[np.ndarray, np.ndarray], np.ndarray], X: np.ndarray, R: np.ndarray, coef: np.ndarray,
    kernel_mean: np.ndarray, shift: np.ndarray,
) -> np.ndarray:
    r"""The scores :math:`t(x) = A^\top (k(R, x) - \bar k)` of the rows x of `X`.

    Read by :func:`kernel_blocks` shifted by s = `shift`, from which
    :math:`\bar k - s` is then subtracted (s near :math:`\bar k`: less cancellation).

    Parameters
    ----------
    kernel : callable
        ``kernel(A, R)``: the matrix :math:`k(a_i, r_l)`, a new array.
    X : ndarray of shape (q, p)
    R : ndarray of shape (n_ref, p)
        The reference rows.
    coef : ndarray of shape (n_ref, k)
        A.
    kernel_mean : ndarray of shape (n_ref,)
        :math:`\bar k`, the mean over the training rows of :math:`k(x_i, r)`.
    shift : ndarray of shape (n_ref,)
        s.

    Returns
    -------
    ndarray of shape (q, k)
    """
    T = np.empty((X.shape[0], coef.shape[1]))
    rest = kernel_mean - shift
    for start, block in kernel_blocks(kernel, X, R, shift):
        block -= rest
        T[start:start + block.shape[0]] = block @ coef
    return T

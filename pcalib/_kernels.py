r"""The kernels of :class:`pcalib.KernelPCA` and the linear algebra of its fit.

Each kernel is a function of two row sets, returning the matrix :math:`k(a_i, b_l)`
(:func:`kernel_matrix` picks one by name; :func:`kernel_blocks` and
:func:`kernel_scores` read it block by block). The steps of the fit that are not
the estimator's business are here too, each with its formula: the double centering
:math:`H K H` of the kernel matrix (:func:`center_kernel_matrix`), its top
eigenpairs (:func:`top_eigenpairs`, :func:`exact_eigenpairs`), the refusal of
eigenvalues at round-off (:func:`check_above_roundoff`), the Nyström approximation
(:func:`landmark_root`, :func:`nystrom_eigenpairs`), and the pre-images: the points
of feature space with given scores (:class:`PreimageMap`) and the fixed point of
the Gaussian kernel (:func:`fixed_point_preimage`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ._eigen import NUMPY_MAX_M, lanczos_top_operator, top_eigh
from ._validation import warn_outside_pcalib

__all__ = [
    "KERNELS", "PreimageMap", "center_kernel_matrix", "check_above_roundoff", "check_kernel_parameters",
    "check_n_components", "check_precomputed_kernel", "exact_eigenpairs", "fixed_point_preimage", "kernel_blocks",
    "kernel_matrix", "kernel_scores", "landmark_root", "nystrom_eigenpairs", "squared_distances", "top_eigenpairs",
]

#: The kernels named by a string (a callable is the other choice).
KERNELS = ("rbf", "poly", "linear", "cosine", "precomputed")
_EPS = float(np.finfo(np.float64).eps)
#: Entries of one block of rows of k(X, R) (2**23 float64: 64 MiB), so that transform
#: and the Nyström fit never hold the whole n x n_ref kernel.
BLOCK_ENTRIES = 2**23
#: Eigenvalues of the landmark kernel W below this fraction of its largest are dropped
#: from :math:`W^{+1/2}` (their directions carry almost nothing and amplify round-off).
LANDMARK_RTOL = 1e-8
#: Fixed-point pre-image iterations: at most this many, stopping when no point moves by
#: more than ``PREIMAGE_TOL`` times the spread of the reference points.
PREIMAGE_MAX_ITER = 500
PREIMAGE_TOL = 1e-10


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


def top_eigenpairs(K: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    r"""The k largest eigenpairs of the centered kernel K (n x n, C order, symmetric).

    For k << n (n above ``NUMPY_MAX_M`` and :math:`40k \le n`), ARPACK's Lanczos
    method with products ``K @ Q`` in NumPy's BLAS (:func:`pcalib._eigen.lanczos_top_operator`:
    residuals checked to 1e-10 of the largest eigenvalue, deflation probe for
    repeated eigenvalues, which the rotational symmetry of a Gaussian kernel on
    isotropic data produces). Measured on 2 shared cores, n = 5000, k = 10: 0.7 s,
    against 1.7-2.8 s for the block Krylov solver :func:`pcalib._eigen.krylov_top`,
    whose many small SciPy BLAS calls pay for thread hand-offs after NumPy's product.
    LAPACK (:func:`pcalib._eigen.top_eigh`) otherwise, or if Lanczos fails.

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

    :func:`center_kernel_matrix`, then :func:`top_eigenpairs`, refused by
    :func:`check_above_roundoff` if :math:`\nu_k` is at round-off. Each :math:`u_j`
    is then made exactly orthogonal to :math:`\mathbf 1`, as an eigenvector of
    :math:`\nu_j \ne 0` is (:math:`H \mathbf 1 = 0`).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric, C order; overwritten by :math:`H K H`.
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
    scale = float(np.abs(K).max())
    kbar = center_kernel_matrix(K)
    mu, U = top_eigenpairs(K, k)
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

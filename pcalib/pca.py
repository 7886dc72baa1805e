r"""PCA by its three routes (chapters *Maximum variance*, *SVD and PCA*,
*Minimum reconstruction error*).

All three routes center first, :math:`X_c = X - \mathbf{1}\bar{x}^\top`, then:

* ``pca_eig``: eigendecomposition of the covariance
  :math:`S = X_c^\top X_c / (n - \mathrm{ddof}) = V \Lambda V^\top` (p x p);
* ``pca_svd``: SVD of the data :math:`X_c = U \Sigma V^\top`, with
  :math:`\lambda_j = \sigma_j^2 / (n - \mathrm{ddof})`;
* ``pca_gram``: eigendecomposition of the Gram matrix
  :math:`G = X_c X_c^\top = U \Sigma^2 U^\top` (n x n), components recovered as
  :math:`v_j = X_c^\top u_j / \sigma_j`.

They return the same numbers and signs (sign convention of
``pcalib._signs.axis_signs`` on the components, scores flipped with them).
The covariance and Gram routes square the condition number: eigenvalues are
accurate to about :math:`\varepsilon \lambda_1` in absolute terms, the SVD to
about :math:`\varepsilon \sigma_1` on the singular values.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike
from scipy.linalg import blas

from ._eigen import top_eigh
from ._signs import axis_signs
from ._validation import check_n_components, output_dtype
from .covariance import _center_array, _centered, _checked_scale, _validated
from .lowrank import _auto_n_iter, _exact_svd, _randomized_svd_f64

__all__ = ["PCAResult", "pca_eig", "pca_svd", "pca_gram", "reconstruction_error"]

_EPS = np.finfo(np.float64).eps


@dataclass(frozen=True, eq=False)
class PCAResult:
    """Result of :func:`pca_eig`, :func:`pca_svd` and :func:`pca_gram`.

    Attributes
    ----------
    components : ndarray of shape (k, p)
        Principal axes :math:`v_j^\\top` (orthonormal rows), sign convention applied.
    explained_variance : ndarray of shape (k,)
        Eigenvalues :math:`\\lambda_j = \\sigma_j^2 / (n - \\mathrm{ddof})`, non-increasing;
        the variance of the scores along each axis.
    explained_variance_ratio : ndarray of shape (k,)
        :math:`\\lambda_j / \\operatorname{tr} S`, with the total variance computed
        directly, so the ratios are right for any k.
    singular_values : ndarray of shape (k,)
        Singular values :math:`\\sigma_j` of the centered data :math:`X_c`.
    scores : ndarray of shape (n, k)
        :math:`X_c V_k = U_k \\Sigma_k`.
    mean : ndarray of shape (p,)
        Column means :math:`\\bar{x}`.
    """

    components: np.ndarray
    explained_variance: np.ndarray
    explained_variance_ratio: np.ndarray
    singular_values: np.ndarray
    scores: np.ndarray
    mean: np.ndarray


def _gram_lower(Xc: np.ndarray) -> np.ndarray:
    """Lower triangle of ``Xc Xc^T``, in one BLAS call (``dsyrk``).

    `Xc` is C-contiguous, so ``Xc.T`` is F-contiguous and reaches Fortran without a copy.
    """
    return blas.dsyrk(1.0, Xc.T, trans=1, lower=1)


def _row_blocks(n: int, p: int) -> list[slice]:
    """Row blocks of the eig route: large enough for an efficient ``dsyrk`` update of the
    p x p matrix, small enough (at most 4096 rows, about 2**21 entries) to stay a small
    fraction of X."""
    rows = max(256, min(4096, 2**21 // p))
    return [slice(start, min(start + rows, n)) for start in range(0, n, rows)]


def _scatter(
    arr: np.ndarray, ddof: int, standardize: bool, name: str = "X"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Lower triangle of :math:`C = X_c^\top X_c` in one pass over X, without a centered copy.

    The shifted-data algorithm (Chan, Golub and LeVeque 1983): each block of rows
    is shifted by :math:`c`, the float64 mean of the first block, into a reusable
    buffer :math:`B`, and added by ``dsyrk`` (:math:`A \mathrel{+}= B^\top B`) while
    ``dgemv`` sums its columns (:math:`r \mathrel{+}= B^\top \mathbf 1`). Then
    :math:`\bar x = c + r/n` and

    .. math:: X_c^\top X_c = \sum_i (x_i - c)(x_i - c)^\top - \frac{r r^\top}{n}

    exactly. The subtraction cancels only as much as :math:`c` differs from
    :math:`\bar x` relative to the spread of each column, a factor of at most
    :math:`1 + n / n_1` (:math:`n_1` rows in the first block), where forming
    :math:`X^\top X - n \bar x \bar x^\top` loses a factor
    :math:`1 + \bar x_j^2 / s_j^2` (unbounded for a large mean). With
    `standardize`, :math:`C \leftarrow D^{-1} C D^{-1}`, D the column standard
    deviations (from the diagonal of C). Returns ``(C, mean, scale)``.
    """
    n, p = arr.shape
    blocks = _row_blocks(n, p)
    shift = arr[blocks[0]].mean(axis=0, dtype=np.float64)
    buf = np.empty((blocks[0].stop, p))
    ones = np.ones(blocks[0].stop)
    C = np.zeros((p, p), order="F")
    r = np.zeros(p)
    for rows in blocks:
        b = buf[: rows.stop - rows.start]
        np.subtract(arr[rows], shift, out=b)
        r = blas.dgemv(1.0, b.T, ones[: b.shape[0]], beta=1.0, y=r, overwrite_y=1)
        C = blas.dsyrk(1.0, b.T, c=C, beta=1.0, lower=1, overwrite_c=1)
    C -= np.outer(r, r / n)
    mean = shift + r / n
    sd = np.ones(p)
    if standardize:
        sd = _checked_scale(arr, np.diagonal(C).copy(), ddof, name)
        C /= sd[:, None]
        C /= sd
    return C, mean, sd


def _scores_by_row_blocks(arr: np.ndarray, mean: np.ndarray, scale: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Scores :math:`((X - \bar x) / s) V`, one row block at a time (no centered copy)."""
    n, p = arr.shape
    scores = np.empty((n, V.shape[1]))
    for rows in _row_blocks(n, p):
        scores[rows] = blas.dgemm(1.0, (arr[rows] - mean) / scale, V)
    return scores


def _sqrt_eigenvalues(w: np.ndarray, n: int, p: int) -> np.ndarray:
    """Singular values from eigenvalues of X_c^T X_c or X_c X_c^T (in decreasing order).

    These eigenvalues carry an absolute error of about eps * lambda_max: values
    below the rank tolerance ``max(n, p) * eps * lambda_max`` (including those
    that round-off makes slightly negative) are indistinguishable from 0, and
    are set to exactly 0.
    """
    return np.where(w > max(n, p) * _EPS * w[0], np.sqrt(np.maximum(w, 0.0)), 0.0)


def _decompose(
    Xc: np.ndarray,
    k: int,
    route: str,
    *,
    mean: np.ndarray,
    need_scores: bool = True,
    random_state: np.random.Generator | None = None,
    oversample: int = 10,
) -> tuple[np.ndarray, np.ndarray, float, np.ndarray | None]:
    """Principal axes of the centered float64 matrix `Xc` by one route.

    `Xc` may be overwritten. Returns ``(components (k, p), singular_values (k,),
    total_ss, scores (n, k) or None)`` with the sign convention applied;
    ``total_ss`` is :math:`\\|X_c\\|_F^2`.
    """
    n, p = Xc.shape
    if route == "gram":
        G = _gram_lower(Xc)  # X_c X_c^T (n x n)
        total_ss = float(np.trace(G))
        _check_total(total_ss, n, p, mean)
        w, U = top_eigh(G, k)
        s = _sqrt_eigenvalues(w, n, p)
        # For sigma = 0, X_c^T u / sigma would be noise divided by noise. We leave a
        # zero column instead, and the QR factorization below completes the basis
        # there with unit vectors orthogonal to the others (deterministic, never
        # NaN). The QR also re-orthonormalizes the recovered axes, whose
        # orthogonality the squared condition number degrades for small sigma.
        keep = s > 0
        V = blas.dgemm(1.0, Xc.T, U[:, keep] / s[keep])  # X_c^T U / s  (p x r)
        V = np.hstack([V, np.zeros((p, k - V.shape[1]))]) if not keep.all() else V
        Q, R = scipy.linalg.qr(V, mode="economic", overwrite_a=True, check_finite=False)
        Q *= np.where(np.diag(R) < 0, -1.0, 1.0)
        components = np.ascontiguousarray(Q.T)
        scores = U * s if need_scores else None
    elif route == "svd":
        U, s_all, Vt = _exact_svd(Xc, overwrite_a=True)
        total_ss = float(s_all @ s_all)
        _check_total(total_ss, n, p, mean)
        s, components = s_all[:k], Vt[:k]
        scores = U[:, :k] * s if need_scores else None
    else:  # "randomized"; "eig" is _decompose_data's
        flat = Xc.ravel()
        total_ss = float(flat @ flat)
        _check_total(total_ss, n, p, mean)
        U, s, components = _randomized_svd_f64(Xc, k, oversample, _auto_n_iter(k, Xc.shape), random_state)
        scores = U * s if need_scores else None
    return _signed(components, s, total_ss, scores)


def _signed(
    components: np.ndarray, s: np.ndarray, total_ss: float, scores: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, float, np.ndarray | None]:
    """Apply the sign convention to the components, and to the scores with them."""
    signs = axis_signs(components)
    components = components * signs[:, None]
    if scores is not None:
        scores = scores * signs
    return components, s, total_ss, scores


def _decompose_data(
    arr: np.ndarray,
    k: int,
    route: str,
    *,
    ddof: int,
    standardize: bool = False,
    need_scores: bool = True,
    random_state: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray, float, np.ndarray | None, np.ndarray, np.ndarray]:
    """Principal axes of validated data `arr` (not modified) by one route.

    The "eig" route forms :math:`X_c^\top X_c` by row blocks (:func:`_scatter`,
    no centered copy of X); the others work on one centered float64 copy.
    Returns ``(components, singular_values, total_ss, scores or None, mean, scale)``.
    """
    n, p = arr.shape
    if route != "eig":
        Xc, mean, scale = _center_array(arr, ddof, scale=standardize)
        return (*_decompose(Xc, k, route, mean=mean, need_scores=need_scores, random_state=random_state),
                mean, scale)
    C, mean, scale = _scatter(arr, ddof, standardize)
    total_ss = float(np.trace(C))
    _check_total(total_ss, n, p, mean)
    w, V = top_eigh(C, k)
    s = _sqrt_eigenvalues(w, n, p)
    V = np.asfortranarray(V)
    scores = _scores_by_row_blocks(arr, mean, scale, V) if need_scores else None
    return (*_signed(np.ascontiguousarray(V.T), s, total_ss, scores), mean, scale)


def _check_total(total_ss: float, n: int, p: int, mean: np.ndarray) -> None:
    """Refuse data whose spread is zero or below the round-off of the mean.

    Then every direction has variance 0 (to working precision): the principal
    axes and the explained-variance ratios are undefined.
    """
    resolution = n * p * (8 * _EPS * float(np.max(np.abs(mean)))) ** 2
    if not total_ss > resolution:
        raise ValueError(
            "X has zero total variance (all samples are equal to working precision); "
            "principal axes are undefined"
        )


def _pca(X: ArrayLike, k: int | None, ddof: int, route: str) -> PCAResult:
    arr, ddof = _validated(X, ddof)
    n, p = arr.shape
    dtype = output_dtype(arr)
    k = min(n, p) if k is None else check_n_components(k, min(n, p), "k")
    components, s, total_ss, scores, mean, _ = _decompose_data(arr, k, route, ddof=ddof)
    ev = s**2 / (n - ddof)
    ratio = s**2 / total_ss
    arrays = (components, ev, ratio, s, scores, mean)
    return PCAResult(*(np.ascontiguousarray(a, dtype=dtype) for a in arrays))


_ROUTE_DOC = r"""
    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, one sample per row (n >= 2). Not modified.
    k : int or None, default None
        Number of components, ``1 <= k <= min(n, p)``; None keeps all ``min(n, p)``.
    ddof : int, default 1
        The covariance divisor is ``n - ddof``.

    Returns
    -------
    PCAResult
        Components (k, p), explained variance, ratio, singular values of
        :math:`X_c`, scores (n, k) and mean; float32 for float32 input.

    Raises
    ------
    TypeError
        If `X` is not numeric, or `k` or `ddof` is not an integer.
    ValueError
        If `X` is not a finite non-empty 2-D array, has fewer than 2 samples
        (or at most ``ddof``), has zero total variance, or `k` is out of range.
"""


def pca_eig(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by eigendecomposition of the covariance matrix.

    .. math::

        S = \frac{1}{n - \mathrm{ddof}} X_c^\top X_c = V \Lambda V^\top,
        \qquad \text{scores} = X_c V_k

    Costs :math:`O(np^2)` for :math:`S` (formed by blocks of rows, with no
    centered copy of X) plus at most :math:`O(p^3)` for the eigensolver (partial,
    LAPACK ``syevr``, when ``k < p``; a block Krylov method with residual
    :math:`\le 10^{-10} \lambda_1` when p > 1200 and k <= p / 40): the route
    for n >> p. Eigenvalues below the rank tolerance
    :math:`\max(n, p)\,\varepsilon\,\lambda_{\max}` (round-off, including
    slightly negative ones) are set to 0.
    """
    return _pca(X, k, ddof, "eig")


def pca_svd(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by singular value decomposition of the centered data.

    .. math::

        X_c = U \Sigma V^\top, \qquad \lambda_j = \frac{\sigma_j^2}{n - \mathrm{ddof}},
        \qquad \text{scores} = U_k \Sigma_k

    The most accurate route (no squared condition number); costs
    :math:`O(np \min(n, p))`.
    """
    return _pca(X, k, ddof, "svd")


def pca_gram(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by eigendecomposition of the Gram matrix (the dual route).

    .. math::

        G = X_c X_c^\top = U \Sigma^2 U^\top, \qquad
        v_j = \frac{X_c^\top u_j}{\sigma_j}, \qquad \text{scores} = U_k \Sigma_k

    Costs :math:`O(n^2 p)` plus :math:`O(n^3)`: the route for p >> n.
    Eigenvalues of G below the rank tolerance
    :math:`\max(n, p)\,\varepsilon\,\lambda_{\max}(G)` are round-off; their
    :math:`\sigma_j` is set to 0 and their axes are completed to an orthonormal
    basis (by a QR factorization of the recovered axes, which also restores
    their orthogonality). Such axes are one valid choice among many.
    """
    return _pca(X, k, ddof, "gram")


for _f in (pca_eig, pca_svd, pca_gram):
    _f.__doc__ += _ROUTE_DOC


def reconstruction_error(X: ArrayLike, k: int, ddof: int = 1) -> float:
    r"""Mean squared reconstruction error of the rank-k PCA of `X`.

    .. math::

        \frac{1}{n} \big\| X_c - X_c V_k V_k^\top \big\|_F^2
        = \frac{1}{n} \sum_{j > k} \sigma_j^2
        = \frac{n - \mathrm{ddof}}{n} \sum_{j > k} \lambda_j

    computed from the discarded singular values of :math:`X_c` (no
    cancellation). The value does not depend on `ddof`, which only scales the
    eigenvalues; it is accepted so the identity above can be stated with it.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data (n >= 2). Not modified.
    k : int
        Number of kept components, ``0 <= k <= min(n, p)`` (k = 0 reconstructs
        every sample by the mean: the error is the total variance times (n - ddof)/n).
    ddof : int, default 1
        As in :func:`pca_svd`.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        As :func:`pca_svd` (k = 0 allowed).

    Examples
    --------
    >>> reconstruction_error([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [2.0, 1.0]], 1)
    0.25
    """
    Xc, _, _, _, _ = _centered(X, ddof)
    n, p = Xc.shape
    if not (isinstance(k, numbers.Integral) and not isinstance(k, bool) and k == 0):
        k = check_n_components(k, min(n, p), "k")
    s = scipy.linalg.svdvals(Xc, overwrite_a=True, check_finite=False)
    tail = s[k:]
    return float(tail @ tail) / n

r"""PCA by its three routes (chapters *Maximum variance*, *Minimum reconstruction error*,
*SVD and PCA*).

All three routes center first, :math:`X_c = X - \mathbf{1}\bar{x}^\top`, then:

* ``pca_eig``: eigendecomposition of the covariance
  :math:`S = X_c^\top X_c / (n - \mathrm{ddof}) = V \Lambda V^\top` (p x p);
* ``pca_svd``: SVD of the data :math:`X_c = U \Sigma V^\top`, with
  :math:`\lambda_j = \sigma_j^2 / (n - \mathrm{ddof})`;
* ``pca_gram``: eigendecomposition of the Gram matrix
  :math:`G = X_c X_c^\top = U \Sigma^2 U^\top` (n x n), components recovered as
  :math:`v_j = X_c^\top u_j / \sigma_j`.

They return the same numbers and signs (sign convention of
``pcalib._linalg.signs.axis_signs`` on the components, scores flipped with them).
The covariance and Gram routes square the condition number: eigenvalues are
accurate to about :math:`\varepsilon \lambda_1` in absolute terms, the SVD to
about :math:`\varepsilon \sigma_1` on the singular values.

Each public route calls its skeleton in :mod:`pcalib._routes.dense`
(:func:`pcalib._routes.dense.eig_route`, :func:`pcalib._routes.dense.svd_route`,
:func:`pcalib._routes.dense.gram_route`): one named call a step (center, form the matrix,
eigensolve or SVD, sign convention). :class:`pcalib.PCA` reaches them, and its "krylov"
and "randomized" routes, through the dispatcher there
(:func:`pcalib._routes.dense.decompose_matrix`). The engine below the steps is private, each
module's docstring saying what it adds to the chapters' formulas: :mod:`pcalib._routes.scatter`
(the scatter matrix in one pass, no centered copy), :mod:`pcalib._linalg.eigen` (eigensolvers),
:mod:`pcalib._linalg.svd` (SVDs), :mod:`pcalib._routes.dense_krylov` (axes without forming the
matrix), :mod:`pcalib._routes.decomposition` (the steps every route ends with) and
:mod:`pcalib._routes.implicit` (sparse and Dask data, ``PCA.partial_fit``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from ._linalg.units import center_array, rescale
from ._routes.decomposition import Decomposition
from ._routes.dense import centered_copy, eig_route, gram_route, svd_route
from ._utils.validation import check_n_components, output_dtype, validated

__all__ = ["PCAResult", "pca_eig", "pca_svd", "pca_gram", "reconstruction_error"]


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

    Costs :math:`O(np^2)` for :math:`S` (formed by blocks of rows in one pass, with
    no centered copy of X) plus at most :math:`O(p^3)` for the eigensolver (LAPACK
    ``syevd`` up to p = 512, partial ``syevr`` above when ``k < p``; ARPACK's Lanczos
    method with residual :math:`\le 10^{-11} \lambda_1` when p > 512 and
    k <= p / 40): the route
    for n >> p. Eigenvalues below the rank tolerance
    :math:`\max(n, p)\,\varepsilon\,\lambda_{\max}` (round-off, including
    slightly negative ones) are set to 0.
    """
    arr, k, ddof = _arguments(X, k, ddof)
    return _result(eig_route(arr, k, ddof=ddof), arr, ddof)


def pca_svd(X: ArrayLike, k: int | None = None, ddof: int = 1) -> PCAResult:
    r"""PCA by singular value decomposition of the centered data.

    .. math::

        X_c = U \Sigma V^\top, \qquad \lambda_j = \frac{\sigma_j^2}{n - \mathrm{ddof}},
        \qquad \text{scores} = U_k \Sigma_k

    The most accurate route (no squared condition number); costs
    :math:`O(np \min(n, p))`.
    """
    arr, k, ddof = _arguments(X, k, ddof)
    return _result(svd_route(centered_copy(arr, ddof), k), arr, ddof)


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
    arr, k, ddof = _arguments(X, k, ddof)
    return _result(gram_route(centered_copy(arr, ddof), k), arr, ddof)


for _f in (pca_eig, pca_svd, pca_gram):
    if _f.__doc__ is not None:  # None under python -OO, which strips docstrings
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
    arr, ddof = validated(X, ddof)
    n, p = arr.shape
    if not (isinstance(k, numbers.Integral) and not isinstance(k, bool) and k == 0):
        k = check_n_components(k, min(n, p), "k")
    centered = center_array(arr, ddof)
    s = scipy.linalg.svdvals(centered.values, overwrite_a=True, check_finite=False)
    tail = s[k:]
    return float(rescale(tail @ tail / n, 2 * centered.exponent, "the reconstruction error"))


def _arguments(X: ArrayLike, k: int | None, ddof: int) -> tuple[np.ndarray, int, int]:
    """A public route's validated data, number of components (None: all min(n, p)) and ddof."""
    arr, ddof = validated(X, ddof)
    m = min(arr.shape)
    return arr, (m if k is None else check_n_components(k, m, "k")), ddof


def _result(found: Decomposition, arr: np.ndarray, ddof: int) -> PCAResult:
    """A public route's result from its skeleton's, in the data's units and output dtype."""
    arrays = (
        found.components,
        found.explained_variance(arr.shape[0] - ddof),
        found.explained_variance_ratio(),
        found.singular_values(),
        found.data_scores(),
        found.mean,
    )
    dtype = output_dtype(arr)
    return PCAResult(*(np.ascontiguousarray(a, dtype=dtype) for a in arrays))

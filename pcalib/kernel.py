r"""Kernel PCA (chapter *Kernel PCA*; Schölkopf, Smola and Müller 1998).

PCA of the points :math:`\varphi(x_i)` in a feature space given only through the
kernel :math:`k(x, y) = \langle \varphi(x), \varphi(y) \rangle`. With the kernel
matrix :math:`K_{ij} = k(x_i, x_j)` and :math:`H = I - \frac1n \mathbf 1 \mathbf 1^\top`,
the feature vectors centered at their mean have the Gram matrix
:math:`\tilde K = H K H` (the double centering of the chapters *Centering* and
*Principal coordinates*). Its eigenpairs :math:`\tilde K u_j = \nu_j u_j`
(:math:`\|u_j\| = 1`) give the axes :math:`V_j = \sum_i a_{ij} (\varphi(x_i) - \bar\varphi)`
with :math:`a_j = u_j / \sqrt{\nu_j}` (unit length in feature space), and the score of
any point

.. math::

    t_j(x) = \langle \varphi(x) - \bar\varphi, V_j \rangle
           = \sum_i a_{ij} \big(k(x, x_i) - \bar k_i\big),
    \qquad \bar k_i = \frac1n \sum_l k(x_l, x_i),

(the term with the mean of :math:`k(x, x_l)` over l drops because
:math:`\mathbf 1^\top a_j = 0`). The training scores are :math:`u_j \sqrt{\nu_j}`.

Large n: the Nyström method (Williams and Seeger 2001) replaces K by
:math:`C W^{+} C^\top` with :math:`C = k(X, L)` (n x m) and :math:`W = k(L, L)` for m
landmark rows L; that is linear PCA of the m-dimensional features
:math:`f(x) = W^{+1/2} k(L, x)`, done here without storing the n x m matrix C.

The estimator keeps the parameters and the steps of fit, transform and
inverse_transform; the kernel functions are those of :mod:`pcalib._kernels`, and
the linear algebra of those steps (centering, eigenpairs, the Nyström pass, the
fixed-point pre-image) the functions of :mod:`pcalib._kernel_algebra`, each with
its formula.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ._kernel_algebra import PreimageMap, exact_eigenpairs, fixed_point_preimage, landmark_root, nystrom_eigenpairs
from ._kernels import (
    check_kernel_parameters,
    check_n_components,
    check_precomputed_kernel,
    kernel_blocks,
    kernel_matrix,
    kernel_scores,
    squared_distances,
)
from ._signs import axis_signs
from ._sklearn_compat import EstimatorBase
from ._validation import as_data_matrix, check_random_state

__all__ = ["KernelPCA", "median_heuristic_gamma"]

#: Rows of the data used by the median heuristic (evenly spaced if there are more).
MEDIAN_ROWS = 1000


def median_heuristic_gamma(X: ArrayLike) -> float:
    r"""The bandwidth of the Gaussian kernel by the median heuristic.

    With :math:`\sigma` the median of the positive distances
    :math:`\|x_i - x_l\|` (i < l), the kernel :math:`\exp(-\|x-y\|^2 / (2\sigma^2))`
    has :math:`\gamma = 1 / (2\sigma^2)`. Above ``MEDIAN_ROWS`` rows, the median is
    taken over ``MEDIAN_ROWS`` evenly spaced rows (deterministic).

    Parameters
    ----------
    X : array_like of shape (n, p)

    Returns
    -------
    float
        :math:`\gamma`; 1.0 if all rows are equal (no positive distance).
    """
    arr = as_data_matrix(X, "X")
    if arr.shape[0] > MEDIAN_ROWS:
        arr = arr[np.linspace(0, arr.shape[0] - 1, MEDIAN_ROWS).astype(int)]
    d2 = squared_distances(arr, arr, arr.mean(axis=0))
    d2 = d2[np.triu_indices(arr.shape[0], 1)]
    d2 = d2[d2 > 0]
    if d2.size == 0:
        return 1.0
    return float(0.5 / np.median(d2))


def _fitted_gamma(kernel: Any, gamma: float | None, X: np.ndarray) -> float | None:
    """The gamma of the kernel fitted on `X`: `gamma`, or by default the median heuristic
    for "rbf" and 1/p for "poly"; None for the kernels without one."""
    if kernel == "rbf":
        return float(gamma) if gamma is not None else median_heuristic_gamma(X)
    if kernel == "poly":
        return float(gamma) if gamma is not None else 1.0 / X.shape[1]
    return None


def _float64_rows(X: Any) -> np.ndarray:
    """`X` validated as a float64 array in C order: the same bits from a DataFrame
    (F-ordered values) as from its array."""
    return np.ascontiguousarray(as_data_matrix(X, "X"), dtype=np.float64)


class KernelPCA(EstimatorBase):
    r"""Kernel PCA, exact or by the Nyström method.

    The kernels:

    * ``"rbf"``: :math:`k(x, y) = \exp(-\gamma \|x - y\|^2)`, ``gamma=None`` by the
      median heuristic (:func:`pcalib.kernel.median_heuristic_gamma`);
    * ``"poly"``: :math:`(\gamma\, x^\top y + c_0)^d`, ``gamma=None`` gives 1/p;
    * ``"linear"``: :math:`x^\top y` (kernel PCA is then PCA), evaluated as
      :math:`(x - \bar x)^\top (y - \bar x)` with the training mean, which leaves
      :math:`H K H` unchanged and keeps its digits when the mean is large;
    * ``"cosine"``: :math:`x^\top y / (\|x\| \|y\|)`;
    * ``"precomputed"``: `X` is the n x n kernel matrix in ``fit`` and the q x n
      matrix :math:`k(x_{\text{new}}, x_i)` in ``transform``;
    * a callable ``kernel(A, B)`` returning the matrix :math:`k(a_i, b_l)`.

    Eigenvalues: with :math:`\nu_j` the eigenvalues of the centered kernel
    :math:`\tilde K = H K H`,

    .. math:: \lambda_j = \frac{\nu_j}{n - 1},

    the variance (divisor n - 1, as :class:`pcalib.PCA`) of the j-th scores; with the
    linear kernel they are PCA's ``explained_variance_``. scikit-learn's
    ``KernelPCA.eigenvalues_`` is :math:`\nu_j = (n-1)\lambda_j`; R's kernlab
    (``kpca``, ``eig``) reports :math:`\nu_j / n = \frac{n-1}{n} \lambda_j`.

    Signs: each column of training scores has its entry of largest absolute value
    positive (``pcalib._signs``).

    Parameters
    ----------
    n_components : int
        Number of components k, at most n - 1 (and, with landmarks, at most their number).
    kernel : {"rbf", "poly", "linear", "cosine", "precomputed"} or callable, default "rbf"
    gamma : float or None
        Kernel parameter of "rbf" and "poly" (see above).
    degree : int, default 3
        Degree d of "poly".
    coef0 : float, default 1
        :math:`c_0` of "poly".
    n_landmarks : int or None
        None: the exact n x n kernel. An int m: the Nyström approximation with
        min(m, n) landmark rows drawn without replacement; with m >= n every row
        is a landmark and the result is the exact one (to round-off).
    random_state : None, int or numpy.random.Generator
        Draws the landmarks (unused by the exact route).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (k,)
        :math:`\lambda_j = \nu_j / (n - 1)`, decreasing.
    coef_ : ndarray of shape (n_ref, k)
        The score of x is ``(k(x, X_fit_) - kernel_mean_) @ coef_``; exact route
        :math:`a_j = u_j / \sqrt{\nu_j}`; Nyström :math:`W^{+1/2} w_j` with
        :math:`w_j` the unit axes of the Nyström features.
    X_fit_ : ndarray of shape (n_ref, p)
        The reference rows: all training rows (exact), or the landmarks
        (absent with ``kernel="precomputed"``).
    kernel_mean_ : ndarray of shape (n_ref,)
        Mean over the training rows of :math:`k(x_i, r)` for each reference row r.
    landmarks_ : ndarray of int, shape (m,)
        Indices of the landmark rows (Nyström only).
    gamma_ : float or None
        The gamma used (None for kernels without one).
    n_samples_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        When fitted on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> X = np.random.default_rng(0).standard_normal((50, 3))
    >>> kp = pcalib.KernelPCA(2, kernel="linear").fit(X)
    >>> bool(np.allclose(kp.eigenvalues_, pcalib.PCA(2).fit(X).explained_variance_))
    True
    """

    _FITTED_BY = "coef_"  # set last by fit

    def __init__(
        self,
        n_components: int,
        *,
        kernel: str | Callable[[np.ndarray, np.ndarray], Any] = "rbf",
        gamma: float | None = None,
        degree: int = 3,
        coef0: float = 1,
        n_landmarks: int | None = None,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_landmarks = n_landmarks
        self.random_state = random_state

    @property
    def _n_features_out(self) -> int:
        return self.coef_.shape[1]

    def _check_params(self) -> None:
        check_kernel_parameters(self.kernel, self.gamma, self.degree, self.coef0, self.n_landmarks)
        check_random_state(self.random_state, draw=False)
        if isinstance(self.n_components, bool) or not isinstance(self.n_components, numbers.Integral):
            raise TypeError(f"n_components must be an integer, got {self.n_components!r}")

    # -- kernels --------------------------------------------------------------------------

    def _kernel(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """The matrix k(a_i, b_l) of the fitted kernel, a new float64 array."""
        return kernel_matrix(self.kernel, A, B, gamma=self.gamma_, degree=self.degree, coef0=self.coef0,
                             shift=self._shift)

    def _scores(self, arr: np.ndarray) -> np.ndarray:
        r"""Scores :math:`(k(x, R) - \bar k) A`, one block of rows at a time."""
        if self.kernel == "precomputed":
            return (arr - self.kernel_mean_) @ self.coef_
        return kernel_scores(self._kernel, arr, self.X_fit_, self.coef_, self.kernel_mean_, self._kernel_shift)

    # -- fit ------------------------------------------------------------------------------

    def fit(self, X: ArrayLike, y: object = None) -> KernelPCA:
        """Fit the model on `X` (n x p; with ``kernel="precomputed"``, the n x n kernel
        matrix). `X` is not modified. Returns self."""
        self._fit(X)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> Any:
        r"""Fit on `X` and return its scores: :math:`u_j \sqrt{\nu_j}` for the exact route
        (equal to ``transform(X)`` to round-off), the block pass of the fit for Nyström."""
        return self._wrap_output(self._fit(X), X)

    def _fit(self, X: ArrayLike) -> np.ndarray:
        self.__dict__.pop("coef_", None)  # a fit that raises leaves the model unfitted
        X = self._remember_input(X)
        self._check_params()
        arr = _float64_rows(X)
        if self.kernel == "precomputed":
            check_precomputed_kernel(arr)
        self.gamma_ = _fitted_gamma(self.kernel, self.gamma, arr)
        self._shift = arr.mean(axis=0) if self.kernel in ("rbf", "linear") else None
        self.n_samples_ = arr.shape[0]
        self.__dict__.pop("landmarks_", None)
        return self._fit_exact(arr) if self.n_landmarks is None else self._fit_nystrom(arr)

    def _finish(self, mu: np.ndarray, coef: np.ndarray, scores: np.ndarray, n: int) -> np.ndarray:
        """Apply the sign convention to the training scores and store the results."""
        signs = axis_signs(scores.T)
        self.coef_ = coef * signs
        self.eigenvalues_ = mu / (n - 1)
        return scores * signs

    def _fit_exact(self, arr: np.ndarray) -> np.ndarray:
        n = arr.shape[0]
        k = check_n_components(self.n_components, n, n - 1)
        if self.kernel == "precomputed":
            K = np.array(0.5 * (arr + arr.T), order="C")
        else:
            self.X_fit_ = arr
            K = self._kernel(arr, arr)
        mu, U, kbar = exact_eigenpairs(K, k)
        self.kernel_mean_ = kbar
        self._kernel_shift = np.zeros(n) if self.kernel == "precomputed" else kbar
        scores = self._finish(mu, U / np.sqrt(mu), U * np.sqrt(mu), n)
        self._preimage = PreimageMap(np.full(n, 1.0 / n), scores, kbar)  # K gamma = T beta + kbar + const 1
        return scores

    def _fit_nystrom(self, arr: np.ndarray) -> np.ndarray:
        n = arr.shape[0]
        m = min(int(cast(int, self.n_landmarks)), n)  # the Nystrom route: not None
        self.landmarks_ = np.sort(check_random_state(self.random_state).choice(n, size=m, replace=False))
        self.X_fit_ = L = arr[self.landmarks_]
        W = self._kernel(L, L)
        P = landmark_root(W)  # W^{+1/2}, m x r: features f(x) = k(x, L) P
        k = check_n_components(self.n_components, n, min(n - 1, P.shape[1]))
        # the blocks of C = k(X, L) are read shifted by the landmarks' kernel means (near
        # the data's: less cancellation)
        self._kernel_shift = W.mean(axis=0)
        blocks = (block for _, block in kernel_blocks(self._kernel, arr, L, self._kernel_shift))
        mu, axes, d = nystrom_eigenpairs(blocks, P, n, k, float(np.abs(W).max()))
        self.kernel_mean_ = self._kernel_shift + d
        coef = P @ axes
        scores = kernel_scores(self._kernel, arr, L, coef, self.kernel_mean_, self._kernel_shift)
        offset = (P @ P.T) @ self.kernel_mean_  # W^+ cbar
        result = self._finish(mu, coef, scores, n)
        self._preimage = PreimageMap(offset, W @ self.coef_, W @ offset)  # K_LL gamma = W coef beta + W W^+ cbar
        return result

    # -- transform and pre-images ----------------------------------------------------------

    def transform(self, X: ArrayLike) -> Any:
        r"""Scores of new points, :math:`t_j(x) = \sum_i a_{ij}\,(k(x, x_i) - \bar k_i)`.

        Derived from :math:`\langle \varphi(x) - \bar\varphi, V_j\rangle` with the centered
        test kernel; the row-mean term vanishes because :math:`\mathbf 1^\top a_j = 0`.
        With ``kernel="precomputed"``, `X` is the q x n matrix of kernel values
        between the new points and the training points.
        """
        self._require_fitted()
        arr = _float64_rows(self._check_input(X))
        return self._wrap_output(self._scores(arr), X)

    def inverse_transform(self, Z: ArrayLike) -> np.ndarray:
        r"""Pre-images: points x whose feature vector is close to the point of the
        principal subspace with scores z.

        The point of feature space with scores :math:`\beta` is
        :math:`\Psi = \bar\varphi + \sum_j \beta_j V_j = \sum_i \gamma_i \varphi(r_i)`
        over the reference rows :math:`r_i`, with :math:`\gamma = A\beta + g_0`
        (:math:`g_0 = \mathbf 1/n` exactly, :math:`W^+ \bar c` for Nyström).

        * ``"linear"``: exact, :math:`x = \bar x + \sum_j \beta_j v_j`,
          :math:`v_j = \sum_i a_{ij} r_i` (PCA's reconstruction).
        * ``"rbf"``: the fixed-point iteration of Mika et al. (1999), which makes
          :math:`\sum_i \gamma_i k(x, r_i)` stationary (so minimizes
          :math:`\|\varphi(x) - \Psi\|` locally):

          .. math:: x \leftarrow \frac{\sum_i \gamma_i\, k(x, r_i)\, r_i}{\sum_i \gamma_i\, k(x, r_i)},

          started at the reference row nearest to :math:`\Psi` in feature space. A
          warning says if some point did not converge or met a non-positive denominator.

        Other kernels raise ``ValueError`` (no pre-image method here).

        Parameters
        ----------
        Z : array_like of shape (q, n_components)

        Returns
        -------
        ndarray of shape (q, n_features_in_)
        """
        self._require_fitted()
        if self.kernel not in ("rbf", "linear"):
            raise ValueError(
                f"inverse_transform needs kernel='rbf' (fixed-point pre-image) or 'linear' "
                f"(exact), got kernel={self.kernel!r}"
            )
        beta = as_data_matrix(Z, "Z")
        k = self.coef_.shape[1]
        if beta.shape[1] != k:
            raise ValueError(f"Z has {beta.shape[1]} columns, expected n_components = {k}")
        R = self.X_fit_
        gamma = self._preimage.weights(beta, self.coef_)  # q x n_ref
        if self.kernel == "linear":  # in the coordinates shifted by c, as the kernel is
            return (gamma @ (R - self._shift)) + self._shift
        return fixed_point_preimage(self._kernel, R[self._preimage.nearest(beta)], R, gamma)

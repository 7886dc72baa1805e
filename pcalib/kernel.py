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
:math:`\mathbf 1^\top a_j = 0`). The training scores are :math:`u_j \sqrt{\nu_j}`, of
variance :math:`\nu_j / (n - 1)`.

Large n: the Nyström method (Williams and Seeger 2001) replaces K by
:math:`C W^{+} C^\top` with :math:`C = k(X, L)` (n x m) and :math:`W = k(L, L)` for m
landmark rows L; that is linear PCA of the m-dimensional features
:math:`f(x) = W^{+1/2} k(L, x)`, done here without storing the n x m matrix C.

The estimator keeps the parameters and the steps of fit, transform and
inverse_transform. The kernels, evaluated in exact power-of-two units, are those of
:mod:`pcalib._kernel.kernels`; the linear algebra of the fit (centering, eigenpairs, the
Nyström pass) is in :mod:`pcalib._kernel.algebra`, the pre-images in
:mod:`pcalib._kernel.preimages`, each with its formula.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._estimator.base import EstimatorBase
from ._kernel.algebra import exact_eigenpairs, landmark_root, nystrom_eigenpairs
from ._kernel.kernels import (
    MEDIAN_ROWS,
    UnitKernel,
    check_kernel_parameters,
    check_n_components,
    check_symmetric_kernel,
    kernel_blocks,
    kernel_scores,
    unit_kernel,
    unit_median_gamma,
)
from ._kernel.preimages import PreimageMap, Preimages, preimage_method
from ._linalg.signs import axis_signs
from ._linalg.units import center_array, rescale
from ._utils.validation import as_data_matrix, check_random_state, warn_outside_pcalib

__all__ = ["KernelPCA", "MEDIAN_ROWS", "median_heuristic_gamma"]


def median_heuristic_gamma(X: ArrayLike) -> float:
    r"""The bandwidth of the Gaussian kernel by the median heuristic.

    With :math:`\sigma` the median of the positive distances
    :math:`\|x_i - x_l\|` (i < l), the kernel :math:`\exp(-\|x-y\|^2 / (2\sigma^2))`
    has :math:`\gamma = 1 / (2\sigma^2)`. Above ``MEDIAN_ROWS`` rows, the median is
    taken over ``MEDIAN_ROWS`` evenly spaced rows (deterministic). The distances are
    computed in the exact units of ``pcalib._linalg.units.center_array`` (64-bit
    integers offset in integer arithmetic first), so no square overflows or
    underflows; a :math:`\gamma` beyond the float64 range is reported as inf or 0
    with a warning.

    Parameters
    ----------
    X : array_like of shape (n, p)

    Returns
    -------
    float
        :math:`\gamma`; 1.0 if all rows are equal (no positive distance).
    """
    centered = center_array(as_data_matrix(X, "X", copy=False, keep_integers=True), 1)
    if not np.any(centered.values):
        return 1.0
    return float(rescale(np.asarray(unit_median_gamma(centered.values)), -2 * centered.exponent, "gamma"))


def _fitted_gamma(kernel: Any, gamma: float | None, fitted: UnitKernel, p: int) -> float | None:
    """The gamma of the fitted kernel in the data's units: the median heuristic's by default
    for "rbf", 1/p for "poly"; None for the kernels without one."""
    if kernel == "rbf":
        return fitted.data_gamma() if gamma is None else float(gamma)
    if kernel == "poly":
        return 1.0 / p if gamma is None else float(gamma)
    return None


def _kernel_trace(kernel: UnitKernel, Y: np.ndarray) -> float:
    r""":math:`\sum_i k(y_i, y_i)` in the kernel's units, from 64 x 64 diagonal blocks."""
    total = 0.0
    for start in range(0, Y.shape[0], 64):
        block = Y[start:start + 64]
        total += float(np.trace(kernel(block, block)))
    return total


def _data_kernel_mean(kbar: np.ndarray, kernel: UnitKernel) -> np.ndarray:
    r""":math:`\bar k` in the data's units, :math:`\bar k_{\text{units}} 2^{2q} + \kappa`
    (a warning if that leaves the float64 range)."""
    with np.errstate(over="ignore"):
        mean = np.ldexp(kbar, 2 * kernel.exponent) + kernel.constant
    if not np.all(np.isfinite(mean)):
        warn_outside_pcalib("kernel_mean_: above the float64 range at the scale of X (reported as inf)")
    return mean


def _data_rows(X: Any) -> np.ndarray:
    """`X` validated (64-bit integers kept as they are, for the exact frame)."""
    return as_data_matrix(X, "X", copy=False, keep_integers=True)


class KernelPCA(EstimatorBase):
    r"""Kernel PCA, exact or by the Nyström method.

    The kernels:

    * ``"rbf"``: :math:`k(x, y) = \exp(-\gamma \|x - y\|^2)`, ``gamma=None`` by the
      median heuristic (:func:`pcalib.kernel.median_heuristic_gamma`);
    * ``"poly"``: :math:`(\gamma\, x^\top y + c_0)^d`, ``gamma=None`` gives 1/p;
    * ``"linear"``: :math:`x^\top y` (kernel PCA is then PCA);
    * ``"cosine"``: :math:`x^\top y / (\|x\| \|y\|)`;
    * ``"precomputed"``: `X` is the n x n kernel matrix in ``fit`` and the q x n
      matrix :math:`k(x_{\text{new}}, x_i)` in ``transform``;
    * a callable ``kernel(A, B)`` returning the matrix :math:`k(a_i, b_l)` (given
      float64 rows in the data's units; ``kernel(X, X)`` must be symmetric, as a
      precomputed matrix).

    Exact units: the data are read as :math:`(x - c)\, 2^{-e}` (``pcalib._linalg.units``:
    "rbf" and "linear", which depend only on differences, from the column means, a
    64-bit integer offset subtracted in integers; "poly" by a power of two) and the
    kernel is formed in units where it neither overflows nor underflows; results
    come back by exact powers of two, with a warning where they leave float64.

    Conventions (n samples, :math:`\nu_j` the eigenvalues of :math:`\tilde K = HKH`):

    ============================  ===========================  =======================  ==========================
    quantity                      pcalib                       scikit-learn             R kernlab (``kpca``)
    ============================  ===========================  =======================  ==========================
    :math:`\nu_j`                 ``eigenvalues_``             ``eigenvalues_``         ``eig(m) * n``
    variance :math:`\nu_j/(n-1)`  ``explained_variance_``      (none)                   (none)
    training scores               ``transform(X)``             ``transform(X)``         ``rotated(m) / sqrt(n)``
    coefficients :math:`a_j`      ``coef_``                    ``eigenvectors_ /``      ``pcv(m) / sqrt(n)``
                                                               ``sqrt(eigenvalues_)``
    ============================  ===========================  =======================  ==========================

    kernlab takes the eigenvalues of :math:`\tilde K / n`, so its ``eig`` is
    :math:`\nu_j / n`; ``explained_variance_`` uses the divisor n - 1 of
    :class:`pcalib.PCA`, whose ``explained_variance_`` it equals for the linear kernel.

    Signs: each column of training scores has its entry of largest absolute value
    positive (``pcalib._linalg.signs``).

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
    preimage : {"fixed-point", "kwok-tsang", "learned"}, default "fixed-point"
        How :meth:`inverse_transform` maps scores back (see there).
    alpha : float, default 1.0
        The ridge of the learned pre-image.
    random_state : None, int or numpy.random.Generator
        Draws the landmarks (unused by the exact route).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (k,)
        :math:`\nu_j`, the eigenvalues of the centered kernel matrix, decreasing (of
        :math:`H C W^+ C^\top H` with landmarks).
    explained_variance_ : ndarray of shape (k,)
        :math:`\nu_j / (n - 1)`, the variances of the training scores.
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
    trace_error_ : float
        Nyström only: :math:`\operatorname{tr}(K - C W^+ C^\top) \ge 0`, which bounds the
        eigenvalues' total shortfall, :math:`\sum_j (\nu_j^{\text{exact}} - \nu_j) \le`
        ``trace_error_`` (each term is :math:`\ge 0`).
    gamma_ : float or None
        The gamma used (None for kernels without one).
    solver_ : str
        Which eigensolver ran: "krylov" (block Krylov on the implicitly centered
        product), "lanczos" (ARPACK on the formed :math:`HKH`), "dense" (LAPACK, or
        ``pcalib._linalg.eigen.top_eigh``), "nystrom".
    n_components_ : int
    n_samples_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        When fitted on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> X = np.random.default_rng(0).standard_normal((50, 3))
    >>> kp = pcalib.KernelPCA(2, kernel="linear").fit(X)
    >>> pca = pcalib.PCA(2).fit(X)
    >>> bool(np.allclose(kp.explained_variance_, pca.explained_variance_))
    True
    >>> bool(np.allclose(kp.eigenvalues_, 49 * pca.explained_variance_))
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
        preimage: str = "fixed-point",
        alpha: float = 1.0,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_landmarks = n_landmarks
        self.preimage = preimage
        self.alpha = alpha
        self.random_state = random_state

    @property
    def _n_features_out(self) -> int:
        return self.coef_.shape[1]

    def _check_params(self) -> None:
        check_kernel_parameters(self.kernel, self.gamma, self.degree, self.coef0, self.n_landmarks,
                                self.preimage, self.alpha)
        check_random_state(self.random_state, draw=False)
        if isinstance(self.n_components, bool) or not isinstance(self.n_components, numbers.Integral):
            raise TypeError(f"n_components must be an integer, got {self.n_components!r}")

    def _scores(self, arr: np.ndarray) -> np.ndarray:
        r"""Scores :math:`(k(x, R) - \bar k) A` in the units of the fit, a block of rows at a time."""
        Y = self._kernel.read(arr)
        if self.kernel == "precomputed":
            return (Y - self._kernel_mean) @ self._coef
        return kernel_scores(self._kernel, Y, self._reference, self._coef, self._kernel_mean, self._kernel_shift)

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
        for name in ("coef_", "landmarks_", "trace_error_", "X_fit_", "_reference", "_preimages"):
            self.__dict__.pop(name, None)  # a fit that raises leaves the model unfitted
        X = self._remember_input(X)
        self._check_params()
        arr = _data_rows(X)
        if self.kernel == "precomputed":
            check_symmetric_kernel(arr, 'with kernel="precomputed", X')
        kernel, Y = unit_kernel(self.kernel, arr, self.gamma, self.degree, self.coef0,
                                drop_constant=self.n_landmarks is None)
        self.gamma_ = _fitted_gamma(self.kernel, self.gamma, kernel, arr.shape[1])
        self.n_samples_ = arr.shape[0]
        if self.n_landmarks is None:
            return self._fit_exact(kernel, Y, arr)
        return self._fit_nystrom(kernel, Y, arr)

    def _fit_exact(self, kernel: UnitKernel, Y: np.ndarray, arr: np.ndarray) -> np.ndarray:
        n = Y.shape[0]
        k = check_n_components(self.n_components, n, n - 1)
        if self.kernel == "precomputed":
            K = np.array(0.5 * (Y + Y.T), order="C")
        else:
            self.X_fit_, self._reference = np.array(arr, dtype=np.float64, order="C"), Y
            K = kernel(Y, Y)
            if callable(self.kernel):
                check_symmetric_kernel(K, "the callable kernel(X, X)")
                kernel, K = kernel.scaled_to(np.array(0.5 * (K + K.T), order="C"))
        pairs = exact_eigenpairs(K, k, 1.0 if self.kernel == "rbf" else None)
        mu, U, kbar = pairs.values, pairs.vectors, pairs.kernel_mean
        self._kernel, self._kernel_shift = kernel, np.zeros(n) if self.kernel == "precomputed" else kbar
        scores = self._store(mu, U / np.sqrt(mu), U * np.sqrt(mu), kbar, n, pairs.solver)
        if self.kernel != "precomputed":
            points = PreimageMap.of_training_rows(pairs.diagonal, kbar, scores)
            self._preimages = Preimages(kernel, Y, self._coef, points)
        return rescale(scores, kernel.exponent, "the scores")

    def _fit_nystrom(self, kernel: UnitKernel, Y: np.ndarray, arr: np.ndarray) -> np.ndarray:
        n = Y.shape[0]
        m = min(int(self.n_landmarks), n)  # type: ignore[arg-type]  # the Nystrom route: not None
        self.landmarks_ = np.sort(check_random_state(self.random_state).choice(n, size=m, replace=False))
        self.X_fit_, self._reference = np.array(arr[self.landmarks_], dtype=np.float64, order="C"), Y[self.landmarks_]
        W = kernel(self._reference, self._reference)
        if callable(self.kernel):
            check_symmetric_kernel(W, "the callable kernel(L, L) of the landmarks L")
            kernel, W = kernel.scaled_to(np.array(0.5 * (W + W.T), order="C"))
        self._kernel = kernel
        P = landmark_root(W)  # W^{+1/2}, m x r: features f(x) = k(x, L) P
        k = check_n_components(self.n_components, n, min(n - 1, P.shape[1]))
        # the blocks of C = k(X, L) are read shifted by the landmarks' kernel means (near
        # the data's: less cancellation)
        self._kernel_shift = W.mean(axis=0)
        blocks = (block for _, block in kernel_blocks(kernel, Y, self._reference, self._kernel_shift))
        found = nystrom_eigenpairs(blocks, P, self._kernel_shift, n, k, float(np.abs(W).max()))
        kbar = self._kernel_shift + found.mean_shift
        coef = P @ found.axes
        scores = kernel_scores(kernel, Y, self._reference, coef, kbar, self._kernel_shift)
        signed = self._store(found.values, coef, scores, kbar, n, "nystrom")
        trace_error = max(_kernel_trace(kernel, Y) - found.feature_trace, 0.0)
        self.trace_error_ = float(rescale(np.asarray(trace_error), 2 * kernel.exponent, "trace_error_"))
        points = PreimageMap.of_landmarks(W, P, kbar, self._coef)
        self._preimages = Preimages(kernel, self._reference, self._coef, points)
        return rescale(signed, kernel.exponent, "the scores")

    def _store(self, mu: np.ndarray, coef: np.ndarray, scores: np.ndarray, kbar: np.ndarray, n: int,
               solver: str) -> np.ndarray:
        """Apply the sign convention, store the results in the units of the fit and in the
        data's (warning where they leave float64); return the signed scores (fit units)."""
        signs = axis_signs(scores.T)
        q = self._kernel.exponent
        self._coef, self._kernel_mean = coef * signs, kbar
        self.solver_, self.n_components_ = solver, mu.size
        self.eigenvalues_ = rescale(mu, 2 * q, "eigenvalues_")
        self.explained_variance_ = rescale(mu / (n - 1), 2 * q, "explained_variance_")
        self.kernel_mean_ = _data_kernel_mean(kbar, self._kernel)
        self.coef_ = rescale(self._coef, -q, "coef_")
        return scores * signs

    # -- transform and pre-images ----------------------------------------------------------

    def transform(self, X: ArrayLike) -> Any:
        r"""Scores of new points, :math:`t_j(x) = \sum_i a_{ij}\,(k(x, x_i) - \bar k_i)`.

        Derived from :math:`\langle \varphi(x) - \bar\varphi, V_j\rangle` with the centered
        test kernel; the row-mean term vanishes because :math:`\mathbf 1^\top a_j = 0`.
        With ``kernel="precomputed"``, `X` is the q x n matrix of kernel values
        between the new points and the training points.
        """
        self._require_fitted()
        arr = _data_rows(self._check_input(X))
        return self._wrap_output(rescale(self._scores(arr), self._kernel.exponent, "the scores"), X)

    def inverse_transform(self, Z: ArrayLike) -> np.ndarray:
        r"""Pre-images: points x whose feature vector is close to the point of the
        principal subspace with scores z.

        The point of feature space with scores :math:`\beta` is
        :math:`\Psi = \bar\varphi + \sum_j \beta_j V_j = \sum_i \gamma_i \varphi(r_i)`
        over the reference rows :math:`r_i`, with :math:`\gamma = A\beta + g_0`
        (:math:`g_0 = \mathbf 1/n` exactly, :math:`W^+ \bar c` for Nyström).

        * ``"linear"``: exact, :math:`x = \bar x + \sum_j \beta_j v_j`,
          :math:`v_j = \sum_i a_{ij} r_i` (PCA's reconstruction), unless
          ``preimage="learned"``.
        * ``preimage="fixed-point"`` (``"rbf"``): the iteration of Mika et al. (1999),
          :math:`x \leftarrow \sum_i \gamma_i k(x, r_i) r_i / \sum_i \gamma_i k(x, r_i)`,
          from the reference row nearest to :math:`\Psi` in feature space (a warning
          if some point does not converge or meets a non-positive denominator).
        * ``preimage="kwok-tsang"`` (``"rbf"``): Kwok and Tsang (2004), from the
          distances to the 10 nearest reference rows
          (``pcalib._kernel.preimages.kwok_tsang_preimage``).
        * ``preimage="learned"`` (every kernel but "precomputed"): kernel ridge
          regression from the reference rows' scores to the rows, with their mean and
          the ridge `alpha` (Bakır et al. 2004;
          ``pcalib._kernel.preimages.LearnedPreimage``), fitted at the first call.

        Points are processed in blocks of about ``pcalib._linalg.constants.KERNEL_BLOCK_ENTRIES`` / n_ref, so memory
        stays bounded whatever their number.

        Parameters
        ----------
        Z : array_like of shape (q, n_components)

        Returns
        -------
        ndarray of shape (q, n_features_in_)
        """
        self._require_fitted()
        method = preimage_method(self.kernel, self.preimage)
        beta = as_data_matrix(Z, "Z")
        k = self._coef.shape[1]
        if beta.shape[1] != k:
            raise ValueError(f"Z has {beta.shape[1]} columns, expected n_components = {k}")
        beta = rescale(beta, -self._kernel.exponent, "the scores")
        return self._kernel.to_data(self._preimages(method, beta, self.alpha))

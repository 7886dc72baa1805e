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
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ._eigen import NUMPY_MAX_M, lanczos_top_operator, top_eigh
from ._signs import axis_signs
from ._sklearn_compat import EstimatorBase
from ._validation import _check_random_state, as_data_matrix, warn_outside_pcalib

__all__ = ["KernelPCA", "median_heuristic_gamma"]

KERNELS = ("rbf", "poly", "linear", "cosine", "precomputed")
_EPS = float(np.finfo(np.float64).eps)
#: Rows of the data used by the median heuristic (evenly spaced if there are more).
MEDIAN_ROWS = 1000
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
    d2 = _squared_distances(arr, arr, arr.mean(axis=0))
    d2 = d2[np.triu_indices(arr.shape[0], 1)]
    d2 = d2[d2 > 0]
    if d2.size == 0:
        return 1.0
    return float(0.5 / np.median(d2))


def _squared_distances(A: np.ndarray, B: np.ndarray, shift: np.ndarray) -> np.ndarray:
    r""":math:`\|a_i - b_l\|^2` as :math:`\|a_i\|^2 + \|b_l\|^2 - 2 a_i^\top b_l` after
    subtracting `shift` from both (less cancellation), clipped at 0; exact zeros on
    the diagonal when `A` is `B`."""
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


def _top_eigenpairs(K: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k largest eigenpairs of the centered kernel K (n x n, C order, symmetric).

    For k << n, ARPACK's Lanczos method with products ``K @ Q`` in NumPy's BLAS
    (:func:`lanczos_top_operator`: residuals checked to 1e-10 of the largest
    eigenvalue, deflation probe for repeated eigenvalues, which the rotational
    symmetry of a Gaussian kernel on isotropic data produces). Measured on 2 shared
    cores, n = 5000, k = 10: 0.7 s, against 1.7-2.8 s for the block Krylov solver
    :func:`krylov_top`, whose many small SciPy BLAS calls pay for thread hand-offs
    after NumPy's product. LAPACK (:func:`top_eigh`) otherwise, or if Lanczos fails.
    """
    n = K.shape[0]
    if n > NUMPY_MAX_M and 40 * k <= n:
        top = lanczos_top_operator(lambda Q: K @ Q, n, k)
        if top is not None:
            return top
    return top_eigh(K, k)


def _unit_rows(A: np.ndarray, name: str) -> np.ndarray:
    norms = np.linalg.norm(A, axis=1)
    if np.any(norms == 0):
        raise ValueError(
            f"{name} has a row of zeros (row {int(np.argmax(norms == 0))}): the cosine kernel "
            "x.y / (|x| |y|) is undefined there; remove it or choose another kernel"
        )
    return A / norms[:, None]


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

    # -- parameters ---------------------------------------------------------------------

    def _check_params(self) -> None:
        if not callable(self.kernel) and self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS} or a callable, got {self.kernel!r}")
        if self.gamma is not None and not (
            isinstance(self.gamma, numbers.Real) and not isinstance(self.gamma, bool) and self.gamma > 0
            and np.isfinite(self.gamma)
        ):
            raise ValueError(f"gamma must be a positive number or None, got {self.gamma!r}")
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral) or self.degree < 1:
            raise ValueError(f"degree must be a positive integer, got {self.degree!r}")
        if isinstance(self.coef0, bool) or not isinstance(self.coef0, numbers.Real) or not np.isfinite(self.coef0):
            raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}")
        if self.n_landmarks is not None:
            if (isinstance(self.n_landmarks, bool) or not isinstance(self.n_landmarks, numbers.Integral)
                    or self.n_landmarks < 1):
                raise ValueError(f"n_landmarks must be a positive integer or None, got {self.n_landmarks!r}")
            if self.kernel == "precomputed":
                raise ValueError(
                    'n_landmarks needs a kernel pcalib evaluates; with kernel="precomputed" the '
                    "whole kernel matrix is given: use n_landmarks=None"
                )
        _check_random_state(self.random_state, draw=False)
        if isinstance(self.n_components, bool) or not isinstance(self.n_components, numbers.Integral):
            raise TypeError(f"n_components must be an integer, got {self.n_components!r}")

    def _check_k(self, n: int, rank_bound: int) -> int:
        k = int(self.n_components)
        if not 1 <= k <= rank_bound:
            landmarks = ", and at most the number of landmarks (the rank of their kernel)" if rank_bound < n - 1 else ""
            raise ValueError(
                f"n_components must be between 1 and {rank_bound} (the centered kernel of "
                f"n = {n} samples has rank at most n - 1{landmarks}), got {k}"
            )
        return k

    # -- kernels --------------------------------------------------------------------------

    def _kernel(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """The matrix k(a_i, b_l), a new array (float64)."""
        if callable(self.kernel):
            K = np.asarray(self.kernel(A, B), dtype=np.float64)
            if K.shape != (A.shape[0], B.shape[0]) or not np.all(np.isfinite(K)):
                raise ValueError(
                    f"kernel(A, B) must return a finite array of shape (len(A), len(B)) = "
                    f"{(A.shape[0], B.shape[0])}, got shape {K.shape}"
                )
            return np.array(K, copy=True)
        if self.kernel == "rbf":
            K = _squared_distances(A, B, cast(np.ndarray, self._shift))  # set by fit for rbf
            K *= -cast(float, self.gamma_)
            return np.exp(K, out=K)
        if self.kernel == "cosine":
            same = A is B
            A = _unit_rows(A, "X")
            return A @ (A if same else _unit_rows(B, "X_fit_")).T
        if self.kernel == "linear":
            # (a - c).(b - c): for the exact route H K H is unchanged (the extra terms are
            # constant along a row or a column), and K's entries stay at the data's spread
            # instead of |x|^2, so H K H does not cancel digits with a large mean.
            same = A is B
            A = A - self._shift
            return A @ (A if same else B - self._shift).T
        K = A @ B.T
        if self.kernel == "poly":
            K *= self.gamma_
            K += self.coef0
            K **= self.degree
        return K

    def _blocks(self, arr: np.ndarray) -> Any:
        """Row blocks of `arr` and their kernel rows k(block, X_fit_) minus kernel_mean_."""
        R = self.X_fit_
        rows = max(1, BLOCK_ENTRIES // max(R.shape[0], 1))
        for start in range(0, arr.shape[0], rows):
            block = self._kernel(arr[start:start + rows], R)
            block -= self._kernel_shift
            yield start, block

    def _scores(self, arr: np.ndarray) -> np.ndarray:
        r"""Scores :math:`(k(x, R) - \bar k) A`, one block of rows at a time."""
        if self.kernel == "precomputed":
            return (arr - self.kernel_mean_) @ self.coef_
        T = np.empty((arr.shape[0], self.coef_.shape[1]))
        shift = self.kernel_mean_ - self._kernel_shift
        for start, block in self._blocks(arr):
            block -= shift
            T[start:start + block.shape[0]] = block @ self.coef_
        return T

    # -- fit ------------------------------------------------------------------------------

    @staticmethod
    def _data(X: Any) -> np.ndarray:
        # C order: the same bits from a DataFrame (F-ordered values) as from its array
        return np.ascontiguousarray(as_data_matrix(X, "X"), dtype=np.float64)

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
        arr = self._data(X)
        n = arr.shape[0]
        if self.kernel == "precomputed":
            if arr.shape[0] != arr.shape[1]:
                raise ValueError(
                    f'with kernel="precomputed", X must be the square n x n kernel matrix, got shape {arr.shape}'
                )
            asym = float(np.abs(arr - arr.T).max())
            if asym > np.sqrt(_EPS) * max(float(np.abs(arr).max()), _EPS):
                raise ValueError(
                    f'with kernel="precomputed", X must be a symmetric kernel matrix; |X - X^T| reaches {asym:.3g}'
                )
        self.gamma_ = None
        if self.kernel == "rbf":
            self.gamma_ = float(self.gamma) if self.gamma is not None else median_heuristic_gamma(arr)
        elif self.kernel == "poly":
            self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / arr.shape[1]
        self._shift = arr.mean(axis=0) if self.kernel in ("rbf", "linear") else None
        self.n_samples_ = n
        if hasattr(self, "landmarks_"):
            del self.landmarks_
        if self.n_landmarks is None:
            scores = self._fit_exact(arr)
        else:
            scores = self._fit_nystrom(arr)
        return scores

    def _threshold_check(self, mu: np.ndarray, scale: float, n: int) -> None:
        """Refuse components whose eigenvalue is 0 to working precision (or negative)."""
        floor = 10 * n * _EPS * scale
        if not mu[-1] > floor:
            positive = int(np.sum(mu > floor))
            raise ValueError(
                f"the centered kernel has only {positive} eigenvalue(s) above its round-off "
                f"({floor:.3g}) among the {mu.size} largest, so n_components={mu.size} asks for "
                "axes of zero (or negative) variance: choose n_components <= "
                f"{positive}" + (" or a kernel that separates the rows" if positive == 0 else "")
            )

    def _finish(self, mu: np.ndarray, coef: np.ndarray, scores: np.ndarray, n: int) -> np.ndarray:
        """Apply the sign convention to the training scores and store the results."""
        signs = axis_signs(scores.T)
        self.coef_ = coef * signs
        self.eigenvalues_ = mu / (n - 1)
        return scores * signs

    def _fit_exact(self, arr: np.ndarray) -> np.ndarray:
        n = arr.shape[0]
        k = self._check_k(n, n - 1)
        if self.kernel == "precomputed":
            K = np.array(0.5 * (arr + arr.T), order="C")
        else:
            self.X_fit_ = arr
            K = self._kernel(arr, arr)
        scale = float(np.abs(K).max())
        # H K H in place: K_ij - kbar_i - kbar_j + kbarbar (K symmetric: row means = column means)
        kbar = K.mean(axis=0)
        K -= kbar
        K -= kbar[:, None]
        K += kbar.mean()
        mu, U = _top_eigenpairs(K, k)
        del K
        self._threshold_check(mu, scale, n)
        U = U - U.mean(axis=0)  # exactly orthogonal to 1, as eigenvectors of mu != 0 are
        self.kernel_mean_ = kbar
        self._kernel_shift = np.zeros(n) if self.kernel == "precomputed" else kbar
        self._preimage_offset = np.full(n, 1.0 / n)
        scores = self._finish(mu, U / np.sqrt(mu), U * np.sqrt(mu), n)
        self._preimage_start = scores  # K gamma = T beta + kbar + const 1 (chapter)
        self._preimage_start0 = kbar
        return scores

    def _fit_nystrom(self, arr: np.ndarray) -> np.ndarray:
        n = arr.shape[0]
        rng = _check_random_state(self.random_state)
        m = min(int(cast(int, self.n_landmarks)), n)  # the Nystrom route: not None
        idx = np.sort(rng.choice(n, size=m, replace=False))
        L = arr[idx]
        self.landmarks_ = idx
        self.X_fit_ = L
        W = self._kernel(L, L)
        s, Q = np.linalg.eigh(W)
        keep = s > LANDMARK_RTOL * s[-1]
        P = Q[:, keep] / np.sqrt(s[keep])  # W^{+1/2}, m x r: features f(x) = k(x, L) P
        k = self._check_k(n, min(n - 1, P.shape[1]))
        # One pass over blocks of rows: S = sum (C - c0)^T (C - c0) and the sum of C - c0,
        # shifted by c0 = the landmarks' kernel means (near the data's, less cancellation).
        self._kernel_shift = W.mean(axis=0)
        S = np.zeros((m, m))
        total = np.zeros(m)
        for _, block in self._blocks(arr):
            S += block.T @ block
            total += block.sum(axis=0)
        d = total / n
        S -= n * np.outer(d, d)  # (C - cbar)^T (C - cbar)
        G = P.T @ S @ P  # F_c^T F_c with F = C P: its eigenvalues are those of H C W^+ C^T H
        G = 0.5 * (G + G.T)
        mu, Wk = top_eigh(G, k)
        self._threshold_check(mu, float(np.abs(W).max()), n)
        self.kernel_mean_ = self._kernel_shift + d
        coef = P @ Wk
        self.coef_ = coef
        scores = self._scores(arr)
        Wplus = P @ P.T
        self._preimage_offset = Wplus @ self.kernel_mean_
        result = self._finish(mu, coef, scores, n)
        self._preimage_start = W @ self.coef_  # K_LL gamma = W coef beta + W W^+ cbar
        self._preimage_start0 = W @ self._preimage_offset
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
        arr = self._data(self._check_input(X))
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
        gamma = beta @ self.coef_.T + self._preimage_offset  # q x n_ref
        if self.kernel == "linear":  # in the coordinates shifted by c, as the kernel is
            return (gamma @ (R - self._shift)) + self._shift
        start = np.argmax(beta @ self._preimage_start.T + self._preimage_start0, axis=1)
        return self._fixed_point(R[start], gamma)

    def _fixed_point(self, Xq: np.ndarray, gamma: np.ndarray) -> np.ndarray:
        R = self.X_fit_
        spread = float(np.sqrt(np.mean(np.sum((R - R.mean(axis=0)) ** 2, axis=1)))) or 1.0
        active = np.ones(Xq.shape[0], dtype=bool)
        stuck = np.zeros(Xq.shape[0], dtype=bool)
        for _ in range(PREIMAGE_MAX_ITER):
            if not active.any():
                break
            weights = self._kernel(Xq[active], R) * gamma[active]
            den = weights.sum(axis=1)
            bad = ~(den > 0)
            new = weights @ R
            new[~bad] /= den[~bad][:, None]
            new[bad] = Xq[active][bad]
            moved = np.linalg.norm(new - Xq[active], axis=1)
            rows = np.flatnonzero(active)
            Xq[rows] = new
            stuck[rows[bad]] = True
            active[rows[(moved <= PREIMAGE_TOL * spread) | bad]] = False
        if active.any() or stuck.any():
            warn_outside_pcalib(
                f"KernelPCA.inverse_transform: the fixed-point pre-image did not converge for "
                f"{int(active.sum())} point(s) in {PREIMAGE_MAX_ITER} iterations and met a "
                f"non-positive denominator for {int(stuck.sum())}; their last iterates are returned",
                UserWarning,
            )
        return Xq

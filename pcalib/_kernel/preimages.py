r"""Pre-images of kernel PCA: points of the data space whose feature vector is close
to a point of the principal subspace.

The point of feature space with scores :math:`\beta` is
:math:`\Psi = \bar\varphi + \sum_j \beta_j V_j = \sum_i \gamma_i \varphi(r_i)` over the
reference rows :math:`r_i` (:class:`PreimageMap`). Three ways back to the data:

* the fixed point of Mika et al. (1999) for the Gaussian kernel
  (:func:`fixed_point_preimage`), which makes :math:`\sum_i \gamma_i k(x, r_i)`
  stationary;
* Kwok and Tsang (2004) (:func:`kwok_tsang_preimage`): the feature-space distances from
  :math:`\Psi` to its nearest reference rows, turned into distances in the data space,
  and the point with those distances found as in principal coordinates (Gower's
  add-a-point formula);
* the learned map of Bakır, Weston and Schölkopf (2004) (:class:`LearnedPreimage`):
  kernel ridge regression from the scores of the reference rows to the rows, with
  their mean (scikit-learn's ``fit_inverse_transform`` leaves it out).

All work in the exact units of the fit (:class:`pcalib._kernel.kernels.UnitKernel`) on one
block of points at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg

from .._linalg import constants
from .._utils.validation import warn_outside_pcalib
from .kernels import UnitKernel, linear_kernel, rbf_kernel, unit_median_gamma

__all__ = [
    "KWOK_TSANG_NEIGHBORS", "LearnedPreimage", "PREIMAGE_MAX_ITER", "PREIMAGE_TOL", "PreimageMap", "Preimages",
    "fixed_point_preimage", "kwok_tsang_preimage", "preimage_method",
]

#: Fixed-point pre-image iterations: at most this many, stopping when no point moves by
#: more than ``PREIMAGE_TOL`` times the spread of the reference points.
PREIMAGE_MAX_ITER = 500
PREIMAGE_TOL = 1e-10
#: The number of nearest reference rows of a Kwok-Tsang pre-image (their paper's choice).
KWOK_TSANG_NEIGHBORS = 10
#: Singular values of the neighbours below this fraction of the largest are dropped
#: (neighbours on a line span one direction, not two).
_NEIGHBOR_RTOL = 1e-10


@dataclass(frozen=True)
class PreimageMap:
    r"""The points of feature space with given scores, and their distances to the
    reference rows.

    The point with scores :math:`\beta`, :math:`\Psi = \bar\varphi + \sum_j \beta_j V_j`,
    is :math:`\sum_i \gamma_i \varphi(r_i)` with :math:`\gamma = A\beta + g_0` (A the
    coefficients of the scores; :math:`g_0 = \mathbf 1/n` for the exact route,
    :math:`W^+ \bar c` for Nyström). With :math:`t_i` the scores of the reference
    row :math:`r_i` and :math:`\rho_i = \|\varphi(r_i) - \bar\varphi\|^2`,

    .. math:: \|\Psi - \varphi(r_i)\|^2 = \|\beta\|^2 + \rho_i - 2\, \beta^\top t_i,

    since :math:`\langle \Psi - \bar\varphi, \varphi(r_i) - \bar\varphi\rangle = \beta^\top t_i`.
    """

    offset: np.ndarray  #: (n_ref,) g_0
    reference_scores: np.ndarray  #: (n_ref, k) t_i
    reference_spread: np.ndarray  #: (n_ref,) rho_i

    @classmethod
    def of_training_rows(cls, diagonal: np.ndarray, kernel_mean: np.ndarray, scores: np.ndarray) -> PreimageMap:
        r"""The exact route's: :math:`g_0 = \mathbf 1/n`, the training scores and
        :math:`\rho_i = K_{ii} - 2\bar k_i + \bar{\bar k}`."""
        n = diagonal.size
        return cls(np.full(n, 1.0 / n), scores, diagonal - 2 * kernel_mean + kernel_mean.mean())

    @classmethod
    def of_landmarks(cls, W: np.ndarray, P: np.ndarray, kernel_mean: np.ndarray, coef: np.ndarray) -> PreimageMap:
        r"""Nyström's, from the landmarks' kernel W, :math:`P = W^{+1/2}`, the means
        :math:`\bar c` and the coefficients A: :math:`g_0 = P P^\top \bar c`, the landmarks'
        scores :math:`(W - \mathbf 1 \bar c^\top) A` and
        :math:`\rho_l = \|P^\top (W_l - \bar c)\|^2` (their features, centered)."""
        features = (W - kernel_mean) @ P
        return cls(P @ (P.T @ kernel_mean), (W - kernel_mean) @ coef, np.einsum("ij,ij->i", features, features))

    def weights(self, beta: np.ndarray, coef: np.ndarray) -> np.ndarray:
        r""":math:`\gamma = A\beta + g_0` for each row :math:`\beta` of `beta` (q, k); A = `coef`."""
        return beta @ coef.T + self.offset

    def feature_distances(self, beta: np.ndarray) -> np.ndarray:
        r"""The squared feature-space distances :math:`\|\Psi - \varphi(r_i)\|^2` (q, n_ref),
        clipped at 0."""
        D = beta @ self.reference_scores.T
        D *= -2.0
        D += self.reference_spread
        D += np.einsum("ij,ij->i", beta, beta)[:, None]
        return np.maximum(D, 0.0, out=D)

    def nearest(self, beta: np.ndarray) -> np.ndarray:
        """For each row of `beta`, the index of the reference row nearest to its point."""
        return np.argmin(self.feature_distances(beta), axis=1)


def fixed_point_preimage(
    kernel: Callable[[np.ndarray, np.ndarray], np.ndarray], X: np.ndarray, R: np.ndarray, gamma: np.ndarray
) -> tuple[np.ndarray, int, int]:
    r"""Pre-images by the fixed-point iteration of Mika et al. (1999) for the Gaussian kernel.

    For a point :math:`\Psi = \sum_i \gamma_i \varphi(r_i)` of feature space, the
    iteration

    .. math:: x \leftarrow \frac{\sum_i \gamma_i\, k(x, r_i)\, r_i}{\sum_i \gamma_i\, k(x, r_i)}

    makes :math:`\sum_i \gamma_i k(x, r_i)` stationary, so minimizes
    :math:`\|\varphi(x) - \Psi\|` locally. Each point stops when it moves by at most
    ``PREIMAGE_TOL`` times the spread of R (the root mean squared distance of its
    rows to their mean), after ``PREIMAGE_MAX_ITER`` iterations, or at a
    non-positive denominator (it keeps its iterate).

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
    X : ndarray of shape (q, p)
        `X`, holding the pre-images.
    unconverged : int
        How many points did not converge.
    stuck : int
        How many met a non-positive denominator.
    """
    spread = float(np.sqrt(np.mean(np.sum((R - R.mean(axis=0)) ** 2, axis=1)))) or 1.0
    active = np.ones(X.shape[0], dtype=bool)
    stuck = np.zeros(X.shape[0], dtype=bool)
    for _ in range(PREIMAGE_MAX_ITER):
        if not active.any():
            break
        weights = kernel(X[active], R)
        weights *= gamma[active]
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
    return X, int(active.sum()), int(stuck.sum())


def kwok_tsang_preimage(distances: np.ndarray, R: np.ndarray, gamma: float) -> tuple[np.ndarray, int]:
    r"""Pre-images by the method of Kwok and Tsang (2004) for the Gaussian kernel.

    For each point :math:`\Psi`, take the s = ``KWOK_TSANG_NEIGHBORS`` reference rows
    nearest in feature space. The Gaussian kernel ties a feature-space distance
    :math:`\tilde d^2 = \|\varphi(x) - \varphi(r)\|^2 = 2 - 2 e^{-\gamma d^2}` to the
    distance d in the data space, so the wanted distances are

    .. math:: d_i^2 = -\frac{1}{\gamma} \log\Big(1 - \frac{\tilde d_i^2}{2}\Big) .

    With the neighbours centered at their mean :math:`\bar r` and their SVD
    :math:`N_c = U \Sigma V^\top` (coordinates :math:`Z = U\Sigma` in their span), the
    point :math:`x = \bar r + V z` whose squared distances to them best match
    :math:`d^2` in least squares (Gower's add-a-point formula of principal
    coordinates) has

    .. math:: z = \tfrac12\, \Sigma^{-1} U^\top \big(d_0^2 - d^2\big),
              \qquad d_{0,i}^2 = \|Z_i\|^2 .

    Parameters
    ----------
    distances : ndarray of shape (q, n_ref)
        The squared feature-space distances :math:`\tilde d^2` from each point to the
        reference rows (:meth:`PreimageMap.feature_distances`).
    R : ndarray of shape (n_ref, p)
        The reference rows.
    gamma : float
        The Gaussian kernel's :math:`\gamma` in the units of R.

    Returns
    -------
    ndarray of shape (q, p)
        The pre-images.
    int
        The number of points for which some neighbour has :math:`\tilde d_i^2 \ge 2`
        (kernel value at or below 0, which no point of the data space has): that value
        is clipped to the smallest positive float, its distance becomes about 708/γ,
        and the pre-image is not meaningful.
    """
    s = min(KWOK_TSANG_NEIGHBORS, R.shape[0])
    nearest = np.argpartition(distances, s - 1, axis=1)[:, :s]
    feature = np.take_along_axis(distances, nearest, axis=1)
    # 1 - d~^2/2 is the kernel value; at or below 0 (no such point exists) it is clipped
    tiny = np.finfo(np.float64).tiny
    kernel_value = 1.0 - 0.5 * feature
    clipped = int(np.sum(np.any(kernel_value < tiny, axis=1)))
    d2 = -np.log(np.clip(kernel_value, tiny, 1.0)) / gamma
    neighbors = R[nearest]  # q x s x p
    mean = neighbors.mean(axis=1)
    U, sv, Vt = np.linalg.svd(neighbors - mean[:, None, :], full_matrices=False)
    d0 = np.einsum("qsr,qr->qs", U**2, sv**2)
    kept = sv > _NEIGHBOR_RTOL * sv[:, :1]
    z = 0.5 * np.einsum("qsr,qs->qr", U, d0 - d2)
    z = np.divide(z, sv, out=np.zeros_like(z), where=kept)
    return mean + np.einsum("qr,qrp->qp", z, Vt), clipped


@dataclass(frozen=True)
class LearnedPreimage:
    r"""The learned pre-image map of Bakır, Weston and Schölkopf (2004), with the mean.

    Kernel ridge regression from the scores :math:`t_i` of the reference rows to the
    rows :math:`r_i`, on the rows centered at their mean :math:`\bar r`:

    .. math:: \hat x(\beta) = \bar r + k_s(\beta, T)\,(K_s + \alpha I)^{-1} (R - \mathbf 1 \bar r^\top),

    with :math:`K_s = k_s(T, T)` a kernel on the scores: the linear kernel
    :math:`t^\top t'` for linear kernel PCA (then :math:`\hat x(\beta) = \bar x +
    \sum_j \beta_j \frac{\nu_j}{\nu_j + \alpha} v_j`, PCA's reconstruction shrunk, and
    exactly it as :math:`\alpha \to 0`), otherwise the Gaussian kernel with the median
    heuristic's bandwidth on T. scikit-learn's ``fit_inverse_transform`` regresses the
    uncentered rows, and its linear map loses :math:`\bar x`.
    """

    scores: np.ndarray  #: (n_ref, k) T
    dual: np.ndarray  #: (n_ref, p) (K_s + alpha I)^{-1} (R - 1 rbar^T)
    mean: np.ndarray  #: (p,) rbar
    gamma: float | None  #: the Gaussian kernel's gamma on the scores; None: linear

    @classmethod
    def fit(cls, scores: np.ndarray, rows: np.ndarray, alpha: float, linear: bool) -> LearnedPreimage:
        """The map learned from the reference scores (n_ref, k) and rows (n_ref, p)
        with the ridge `alpha` (in the units of the score kernel)."""
        gamma = None if linear else unit_median_gamma(scores)
        mean = rows.mean(axis=0)
        K = linear_kernel(scores, scores) if gamma is None else rbf_kernel(scores, scores, gamma)
        K[np.diag_indices_from(K)] += alpha
        dual = scipy.linalg.solve(K, rows - mean, assume_a="pos", check_finite=False)
        return cls(scores, dual, mean, gamma)

    def __call__(self, beta: np.ndarray) -> np.ndarray:
        """The pre-images of the rows of `beta` (q, k)."""
        if self.gamma is None:
            K = linear_kernel(beta, self.scores)
        else:
            K = rbf_kernel(beta, self.scores, self.gamma)
        return K @ self.dual + self.mean


def preimage_method(kernel: str | Callable[..., Any], preimage: str) -> str:
    """The pre-image method of :class:`pcalib.KernelPCA` for `kernel` and its parameter
    `preimage` ("exact" for the linear kernel unless learned), or ``ValueError``."""
    if preimage == "learned" and kernel != "precomputed":
        return "learned"
    if kernel == "linear":
        return "exact"
    if kernel == "rbf":
        return preimage
    raise ValueError(
        f"inverse_transform needs kernel='rbf' or 'linear' for preimage={preimage!r}, got "
        f"kernel={kernel!r}" + ("" if kernel == "precomputed" else
                                ": preimage='learned' works with every kernel of the data")
    )


@dataclass
class Preimages:
    r"""What the pre-images of a fitted :class:`pcalib.KernelPCA` need, in the units of
    its fit: the kernel, the reference rows R, the coefficients A of the scores and
    the :class:`PreimageMap`; learned maps are fitted at their first use, one per
    ridge."""

    kernel: UnitKernel
    reference: np.ndarray  #: (n_ref, p) R
    coef: np.ndarray  #: (n_ref, k) A
    points: PreimageMap
    learned: dict[float, LearnedPreimage] = field(default_factory=dict)

    def __call__(self, method: str, beta: np.ndarray, alpha: float) -> np.ndarray:
        """The pre-images of the scores `beta` (q, k) by `method` (:func:`preimage_method`),
        in blocks of ``constants.KERNEL_BLOCK_ENTRIES`` / n_ref points; a warning counts the fixed points
        that did not converge or met a non-positive denominator, another the Kwok-Tsang
        points whose neighbours' kernel values had to be clipped."""
        R = self.reference
        out = np.empty((beta.shape[0], R.shape[1]))
        rows = max(1, constants.KERNEL_BLOCK_ENTRIES // R.shape[0])
        failures = np.zeros(2, dtype=int)
        clipped = 0
        for start in range(0, beta.shape[0], rows):
            block = beta[start:start + rows]
            if method == "learned":
                out[start:start + rows] = self.learned_map(alpha)(block)
            elif method == "kwok-tsang":
                found_kt = kwok_tsang_preimage(self.points.feature_distances(block), R, self.kernel.gamma)
                out[start:start + rows] = found_kt[0]
                clipped += found_kt[1]
            elif method == "exact":
                out[start:start + rows] = self.points.weights(block, self.coef) @ R
            else:
                gamma = self.points.weights(block, self.coef)
                found = fixed_point_preimage(self.kernel, R[self.points.nearest(block)], R, gamma)
                out[start:start + rows] = found[0]
                failures += found[1:]
        if failures.any():
            warn_outside_pcalib(
                f"KernelPCA.inverse_transform: the fixed-point pre-image did not converge for "
                f"{failures[0]} point(s) in {PREIMAGE_MAX_ITER} iterations and met a non-positive "
                f"denominator for {failures[1]}; their last iterates are returned", UserWarning,
            )
        if clipped:
            warn_outside_pcalib(
                f"KernelPCA.inverse_transform: the Kwok-Tsang pre-image is not meaningful for "
                f"{clipped} point(s): some of their nearest reference rows are at a feature-space "
                f"distance d~^2 >= 2, which no point of the data space has (kernel value <= 0, "
                f"clipped); the scores are too far from the data for this method", UserWarning,
            )
        return out

    def learned_map(self, alpha: float) -> LearnedPreimage:
        """The learned map with the ridge `alpha` (in the data's units), fitted once."""
        if alpha not in self.learned:
            linear = self.kernel.kernel == "linear"  # then the ridge is in units of the scores squared
            ridge = float(np.ldexp(alpha, -2 * self.kernel.exponent)) if linear else float(alpha)
            self.learned[alpha] = LearnedPreimage.fit(self.points.reference_scores, self.reference, ridge, linear)
        return self.learned[alpha]

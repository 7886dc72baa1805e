r"""Probabilistic PCA (chapter *Probabilistic PCA*; Tipping and Bishop 1999).

The model: a latent :math:`z \sim \mathcal N(0, I_k)` and

.. math::

    x = W z + \mu + \varepsilon, \qquad \varepsilon \sim \mathcal N(0, \sigma^2 I_p),
    \qquad\text{so}\qquad x \sim \mathcal N(\mu, C), \quad C = W W^\top + \sigma^2 I_p.

The posterior of the latent variable is
:math:`z \mid x \sim \mathcal N\big(M^{-1} W^\top (x - \mu),\ \sigma^2 M^{-1}\big)`
with :math:`M = W^\top W + \sigma^2 I_k`.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from . import missing as _missing
from ._signs import axis_signs
from ._validation import as_data_matrix, check_n_components
from .covariance import _centered
from .lowrank import _check_random_state
from .pca import _decompose

__all__ = ["PPCA"]

_LOG_2PI = float(np.log(2.0 * np.pi))
_EPS = np.finfo(np.float64).eps


def _gaussian_log_likelihood(X: np.ndarray, mean: np.ndarray, W: np.ndarray, sigma2: float) -> np.ndarray:
    r"""Log-density of each row of `X` under :math:`\mathcal N(\mu, W W^\top + \sigma^2 I)`.

    .. math::

        \log p(x) = -\tfrac12\Big(p \log 2\pi + \log|C| + (x-\mu)^\top C^{-1} (x-\mu)\Big)

    With :math:`\sigma^2 > 0` the p x p matrix C is never formed: the Woodbury
    identity :math:`C^{-1} = \sigma^{-2}(I - W M^{-1} W^\top)` and the matrix
    determinant lemma :math:`|C| = \sigma^{2(p-k)} |M|` reduce everything to a
    Cholesky factorization :math:`M = L L^\top` of the k x k matrix
    :math:`M = W^\top W + \sigma^2 I`. With :math:`\sigma^2 = 0`, C = W W^T is
    factorized directly (it must then be non-singular).

    Parameters
    ----------
    X : ndarray of shape (n, p), float64 (validated by the caller)
    mean : ndarray of shape (p,)
    W : ndarray of shape (p, k)
    sigma2 : float, >= 0

    Returns
    -------
    ndarray of shape (n,)

    Raises
    ------
    ValueError
        If ``sigma2 == 0`` and :math:`W W^\top` is singular (the density does not exist).
    """
    D = X - mean
    p, k = W.shape
    if sigma2 > 0:
        L = scipy.linalg.cholesky(W.T @ W + sigma2 * np.eye(k), lower=True)
        T = scipy.linalg.solve_triangular(L, (D @ W).T, lower=True)
        quad = (np.einsum("ij,ij->i", D, D) - np.einsum("ji,ji->i", T, T)) / sigma2
        logdet = (p - k) * np.log(sigma2) + 2.0 * np.sum(np.log(np.diag(L)))
    else:
        try:
            L = scipy.linalg.cholesky(W @ W.T, lower=True)
        except np.linalg.LinAlgError:
            raise ValueError(
                "the model covariance W W^T is singular (noise variance 0 and fewer than "
                "n_features directions): the log-likelihood is undefined; use fewer components"
            ) from None
        T = scipy.linalg.solve_triangular(L, D.T, lower=True)
        quad = np.einsum("ji,ji->i", T, T)
        logdet = 2.0 * np.sum(np.log(np.diag(L)))
    return -0.5 * (p * _LOG_2PI + logdet + quad)


def _canonical_W(W: np.ndarray) -> np.ndarray:
    r"""Remove the rotation R from :math:`W = U_k (\Lambda_k - \sigma^2 I)^{1/2} R`.

    The SVD :math:`W = A D B^\top` gives :math:`W B = A D`, orthogonal columns in
    decreasing norm; columns follow the sign convention.
    """
    A, d, _ = np.linalg.svd(W, full_matrices=False)
    Wc = A * d
    return Wc * axis_signs(Wc.T)


class PPCA:
    r"""Probabilistic PCA fitted by maximum likelihood.

    Closed form (Tipping and Bishop 1999, eqs. 7-8): with
    :math:`S = X_c^\top X_c / n` (the 1/n covariance) and its eigenpairs
    :math:`(\lambda_j, u_j)` in decreasing order,

    .. math::

        \sigma^2 = \frac{1}{p - k} \sum_{j > k} \lambda_j, \qquad
        W = U_k (\Lambda_k - \sigma^2 I)^{1/2},

    choosing the rotation R = I and the sign convention on W's columns.

    EM (their Appendix; Bishop 2006, eqs. 12.54-12.57, written with S):

    .. math::

        W_{\text{new}} = S W \big(\sigma^2 I + M^{-1} W^\top S W\big)^{-1}, \qquad
        \sigma^2_{\text{new}} = \tfrac1p \operatorname{tr}\big(S - S W M^{-1} W_{\text{new}}^\top\big),

    with :math:`S W = X_c^\top (X_c W) / n` (S is never formed). The iteration
    stops when the relative change of the log-likelihood falls below `tol`;
    the fitted W is then rotated to the same canonical form as the closed form.

    Parameters
    ----------
    n_components : int
        Latent dimension k, ``1 <= k <= min(n_samples, n_features - 1)``.
    method : {"closed_form", "em"}, default "closed_form"
    max_iter : int, default 10000
        Maximum number of EM iterations.
    tol : float, default 1e-10
        EM stopping tolerance on the relative change of the log-likelihood.
    random_state : None, int or numpy.random.Generator
        Seed of the random initial W of EM.

    Attributes
    ----------
    W_ : ndarray of shape (n_features, n_components)
    sigma2_ : float
    mean_ : ndarray of shape (n_features,)
    n_iter_ : int
        EM iterations run (0 for the closed form).
    loglik_history_ : ndarray
        Total log-likelihood of the training data at each EM iterate (one value
        for the closed form); non-decreasing for EM.
    """

    def __init__(
        self,
        n_components: int,
        method: str = "closed_form",
        max_iter: int = 10000,
        tol: float = 1e-10,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.method = method
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _check_params(self, n: int, p: int) -> int:
        if self.method not in ("closed_form", "em"):
            raise ValueError(f'method must be "closed_form" or "em", got {self.method!r}')
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1:
            raise ValueError(f"max_iter must be a positive integer, got {self.max_iter!r}")
        if isinstance(self.tol, bool) or not isinstance(self.tol, numbers.Real) or not self.tol > 0:
            raise ValueError(f"tol must be a positive number, got {self.tol!r}")
        k = check_n_components(self.n_components, min(n, p), "n_components")
        if k >= p:
            raise ValueError(
                f"n_components must be smaller than the number of features ({p}): "
                "sigma2 is estimated from the discarded directions"
            )
        return k

    def fit(self, X: ArrayLike, y: object = None) -> PPCA:
        """Fit the model to `X` (n x p, not modified); returns self.

        NaN entries are missing values: then EM over the observed entries
        (:func:`pcalib.missing.fit_ppca`) whatever `method` says.
        """
        if _missing.has_missing(X):
            return _missing.fit_ppca(self, X)
        Xc, mean, _, _, _ = _centered(X, 0)
        n, p = Xc.shape
        k = self._check_params(n, p)
        if self.method == "closed_form":
            components, s, total_ss, _ = _decompose(Xc.copy(), min(n, p), "svd", mean=mean, need_scores=False)
            lam = s**2 / n  # the nonzero eigenvalues of S; the other p - min(n, p) are 0
            sigma2 = float(lam[k:].sum()) / (p - k)  # from the tail directly: no cancellation
            self._check_sigma2(sigma2, total_ss / n / p)
            W = components[:k].T * np.sqrt(np.maximum(lam[:k] - sigma2, 0.0))
            history = [self._loglik(Xc, W, sigma2)]
        else:
            W, sigma2, history = self._em(Xc, k)
            W = _canonical_W(W)
        self.W_, self.sigma2_, self.mean_ = W, float(sigma2), mean
        self.n_iter_ = len(history) - 1
        self.loglik_history_ = np.asarray(history)
        return self

    @staticmethod
    def _check_sigma2(sigma2: float, avg_var: float) -> None:
        if not sigma2 > (1e3 * _EPS) ** 2 * avg_var:
            raise ValueError(
                "the noise variance estimate is 0: X has rank <= n_components, so the "
                "likelihood is unbounded; choose fewer components"
            )

    @staticmethod
    def _loglik(Xc: np.ndarray, W: np.ndarray, sigma2: float) -> float:
        return float(_gaussian_log_likelihood(Xc, np.zeros(Xc.shape[1]), W, sigma2).sum())

    def _converged(self, history: list[float]) -> bool:
        r"""Stop when the remaining likelihood gain is below ``tol * |L|``.

        EM converges linearly, :math:`d_{t+1} \approx r\, d_t` for the gains
        :math:`d_t = L_t - L_{t-1}`; the gain still to come is then about
        :math:`d_t\, r / (1 - r)` (Aitken), which can be far larger than the last
        step when r is close to 1.
        """
        if len(history) < 3:
            return False
        d_prev, d = history[-2] - history[-3], history[-1] - history[-2]
        r = d / d_prev if d_prev > 0 else 0.0
        remaining = d * r / (1.0 - r) if 0.0 <= r < 1.0 else np.inf
        return max(abs(d), remaining) <= self.tol * abs(history[-1])

    def _em(self, Xc: np.ndarray, k: int) -> tuple[np.ndarray, float, list[float]]:
        n, p = Xc.shape
        tr_S = float(np.einsum("ij,ij->", Xc, Xc)) / n
        rng = _check_random_state(self.random_state)
        W = rng.standard_normal((p, k)) * np.sqrt(tr_S / p)
        sigma2 = tr_S / p
        history: list[float] = []
        I = np.eye(k)
        for _ in range(self.max_iter):
            SW = Xc.T @ (Xc @ W) / n
            M = W.T @ W + sigma2 * I
            Minv_WtS = np.linalg.solve(M, SW.T)  # M^{-1} W^T S  (k x p)
            Minv_WtSW = Minv_WtS @ W
            # log-likelihood of the current iterate, from quantities already at hand
            logdet = (p - k) * np.log(sigma2) + np.linalg.slogdet(M)[1]
            trace_term = (tr_S - np.trace(Minv_WtSW)) / sigma2
            history.append(-0.5 * n * (p * _LOG_2PI + logdet + trace_term))
            if self._converged(history):
                break
            W_new = np.linalg.solve((sigma2 * I + Minv_WtSW).T, SW.T).T
            sigma2 = (tr_S - np.sum(Minv_WtS.T * W_new)) / p
            self._check_sigma2(sigma2, tr_S / p)
            W = W_new
        else:
            warnings.warn(
                f"PPCA EM did not converge in max_iter={self.max_iter} iterations "
                f"(tol={self.tol}); increase max_iter",
                UserWarning,
                stacklevel=3,
            )
        return W, sigma2, history

    def _check_fitted(self) -> None:
        if not hasattr(self, "W_"):
            from .estimator import NotFittedError

            raise NotFittedError("this PPCA instance is not fitted yet; call fit(X) first")

    def _check_X(self, X: ArrayLike) -> np.ndarray:
        self._check_fitted()
        arr = as_data_matrix(X, "X").astype(np.float64, copy=False)
        if arr.shape[1] != self.W_.shape[0]:
            raise ValueError(f"X has {arr.shape[1]} features, but PPCA was fitted with {self.W_.shape[0]}")
        return arr

    def transform(self, X: ArrayLike) -> np.ndarray:
        r"""Posterior mean of the latent variables, :math:`M^{-1} W^\top (x - \mu)`, shape (n, k).

        A row with NaN gets its posterior mean given its observed entries.
        """
        self._check_fitted()
        arr = self._check_X(_missing.fill_missing(X, self.mean_, self.W_, self.sigma2_))
        M = self.W_.T @ self.W_ + self.sigma2_ * np.eye(self.W_.shape[1])
        return scipy.linalg.solve(M, self.W_.T @ (arr - self.mean_).T, assume_a="pos").T

    def inverse_transform(self, Z: ArrayLike) -> np.ndarray:
        r"""Map latent points back to data space: :math:`W z + \mu`, shape (n, p)."""
        self._check_fitted()
        Z = as_data_matrix(Z, "Z").astype(np.float64, copy=False)
        if Z.shape[1] != self.W_.shape[1]:
            raise ValueError(f"Z has {Z.shape[1]} columns, expected n_components = {self.W_.shape[1]}")
        return Z @ self.W_.T + self.mean_

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        r"""Log-likelihood of each sample under :math:`\mathcal N(\mu, W W^\top + \sigma^2 I)`."""
        return _gaussian_log_likelihood(self._check_X(X), self.mean_, self.W_, self.sigma2_)

    def score(self, X: ArrayLike, y: object = None) -> float:
        """Average log-likelihood of the samples of `X`."""
        return float(np.mean(self.score_samples(X)))

    def sample(self, n: int, random_state: int | np.random.Generator | None = None) -> np.ndarray:
        r"""Draw `n` samples :math:`x = W z + \mu + \varepsilon` from the fitted model."""
        self._check_fitted()
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        rng = _check_random_state(random_state)
        p, k = self.W_.shape
        z = rng.standard_normal((int(n), k))
        eps = rng.standard_normal((int(n), p)) * np.sqrt(self.sigma2_)
        return z @ self.W_.T + self.mean_ + eps

r"""The PPCA model of a PCA fit: :meth:`pcalib.PCA.get_covariance`, ``score_samples``
and ``score`` (Tipping and Bishop's maximum-likelihood model whose k axes and
variances are the fit's, and whose noise variance is the mean discarded eigenvalue).
A mixin of :class:`pcalib.PCA`.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from .._linalg.center import Center, standardized_block
from .model import spectral_log_likelihood


class _Fitted(Protocol):
    """What :class:`PPCAScoring` needs of the estimator it is mixed into."""

    explained_variance_: np.ndarray
    components_: np.ndarray
    noise_variance_: float
    n_samples_: int
    n_features_in_: int

    def _require_fitted(self) -> None: ...
    def _checked_input(self, X: ArrayLike, name: str = ..., columns: int | None = ...) -> Any: ...
    def _fitted_f64(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def _fitted_center(self) -> Center: ...
    def _ppca_W(self) -> np.ndarray: ...
    def score_samples(self, X: ArrayLike) -> np.ndarray: ...

_EPS = np.finfo(np.float64).eps


def above_round_off(variances: np.ndarray, n: int, p: int) -> np.ndarray:
    r"""Which variances (decreasing) exceed round-off, :math:`\max(n, p)\,\varepsilon\,\lambda_1`:
    the SVD returns about that where the other routes return exact zeros."""
    return variances > max(n, p) * _EPS * variances[0]


class PPCAScoring:
    """get_covariance, score_samples and score of a fitted PCA."""

    def _ppca_W(self: _Fitted) -> np.ndarray:
        ev = self.explained_variance_.astype(np.float64)
        return self.components_.T.astype(np.float64) * np.sqrt(np.maximum(ev - self.noise_variance_, 0.0))

    def get_covariance(self: _Fitted) -> np.ndarray:
        r"""Model covariance :math:`W W^\top + \sigma^2 I` (in the standardized space if ``standardize``).

        :math:`W = V_k \operatorname{diag}\big(\max(\lambda_j - \sigma^2, 0)\big)^{1/2}`
        with :math:`V_k` = ``components_.T`` (p x k) and :math:`\sigma^2` =
        ``noise_variance_``: the PPCA model of the fit. It does not depend on
        ``whiten`` (whitening rescales the scores, not the data); scikit-learn's
        ``get_covariance`` differs here when ``whiten=True``.
        """
        self._require_fitted()
        W = self._ppca_W()
        C = W @ W.T
        C[np.diag_indices_from(C)] += self.noise_variance_
        return C

    def score_samples(self: _Fitted, X: ArrayLike) -> np.ndarray:
        r"""Log-likelihood of each sample under the PPCA model of :meth:`get_covariance`.

        .. math::

            \log p(x) = \log \mathcal N\big(z;\ 0,\ W W^\top + \sigma^2 I\big)
            - \sum_j \log s_j, \qquad z = (x - \bar{x}) / s,

        the second term being the Jacobian of standardization (0 unless
        ``standardize``). Matches ``sklearn.decomposition.PCA.score_samples``.
        """
        data = self._checked_input(X)
        # C has eigenvalue max(lambda_j, sigma^2) along v_j and sigma^2 elsewhere
        variances = np.maximum(self.explained_variance_.astype(np.float64), self.noise_variance_)
        # Variances at round-off level are zeros: one answer whatever the solver.
        positive = int(np.sum(above_round_off(variances, self.n_samples_, self.n_features_in_)))
        if self.noise_variance_ == 0 and positive < self.n_features_in_:
            raise ValueError(
                f"noise_variance_ is 0 and only {positive} of the {self.n_features_in_} "
                "directions have variance above round-off (X has rank at most "
                f"{positive} after centering), so the PPCA model covariance W W^T is "
                "singular and the log-likelihood is undefined; use fewer components"
            )
        _, scale, components = self._fitted_f64()
        center = self._fitted_center()  # the exact pair: int64 near 2**62 is centered exactly
        jacobian = float(np.sum(np.log(scale)))

        def log_likelihood(block: np.ndarray) -> np.ndarray:
            Z = standardized_block(block, center, scale)
            return spectral_log_likelihood(Z, components.T, variances, self.noise_variance_)[0] - jacobian

        return data.map_rows(log_likelihood, None)

    def score(self: _Fitted, X: ArrayLike, y: object = None) -> float:
        """Average log-likelihood of the samples of `X` (see :meth:`score_samples`)."""
        return float(np.mean(self.score_samples(X)))

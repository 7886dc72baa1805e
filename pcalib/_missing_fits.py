r"""The fits of data with missing entries (NaN) behind :mod:`pcalib.missing` and
:func:`pcalib.impute_pca` (chapter *Missing values*), whose formulas the docstring of
:mod:`pcalib.missing` gives.

* PPCA over the observed entries: each row's posterior and the log-density of its
  observed entries (:func:`observed_posterior`, :func:`latent_means`), and the
  maximum-likelihood fit by PX-EM (:class:`_ObservedStep`, run by
  :func:`pcalib._ppca_em.run_em`), which refuses an unbounded likelihood
  (:func:`_check_bounded`); :func:`fit_ppca_in_units` runs it in the units of
  :func:`pcalib._units.unit_exponent`.
* (Regularized) iterative PCA (:func:`iterative_pca`): fill the holes with column
  means, then repeat "PCA of the completed matrix, refill the holes with its (shrunk)
  rank-k reconstruction".
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ._eigen import top_eigh
from ._ppca_em import Params, PosteriorMoments, PPCAFit, run_em
from ._ppca_model import check_noise_variance
from ._units import checked_scale, unit_exponent
from ._validation import incomplete_matrix

if TYPE_CHECKING:
    from .ppca import PPCA

__all__ = ["fit_ppca_in_units", "iterative_pca", "latent_means", "observed_posterior"]

_LOG_2PI = float(np.log(2.0 * np.pi))


# -- probabilistic PCA over the observed entries ---------------------------------


def _row_gram(mask: np.ndarray, W: np.ndarray) -> np.ndarray:
    r""":math:`W_{o_i}^\top W_{o_i} = \sum_{j \in o_i} w_j w_j^\top` for every row, shape (n, k, k)."""
    p, k = W.shape
    outer = (W[:, :, None] * W[:, None, :]).reshape(p, k * k)
    return (mask @ outer).reshape(-1, k, k)


def latent_means(Y0: np.ndarray, mask: np.ndarray, W: np.ndarray, sigma2: float) -> np.ndarray:
    r"""Posterior means :math:`\hat z_i = M_i^{-1} W_{o_i}^\top y_i`, shape (n, k).

    `Y0` holds the centered observed entries and 0 at the missing ones, `mask`
    is 1.0 at observed entries. With :math:`\sigma^2 = 0` the limit, the
    minimum-norm least-squares solution :math:`W_{o_i}^{+} y_i`, is returned.
    """
    G = _row_gram(mask, W)
    B = (Y0 @ W)[..., None]
    if sigma2 > 0:
        G[:, np.arange(W.shape[1]), np.arange(W.shape[1])] += sigma2
        return np.linalg.solve(G, B)[..., 0]
    return (np.linalg.pinv(G, hermitian=True) @ B)[..., 0]


def _posterior(
    Y0: np.ndarray, mask: np.ndarray, W: np.ndarray, sigma2: float
) -> tuple[np.ndarray, np.ndarray, float, float]:
    r"""E step: posterior means (n, k), posterior covariances :math:`\sigma^2 M_i^{-1}`
    (n, k, k), the observed-data log-likelihood of the parameters, and the sum of the
    sizes of its terms (for its round-off, see :func:`observed_posterior`)."""
    Z, M_inv, row_logliks, sizes = observed_posterior(Y0, mask, W, sigma2)
    return Z, sigma2 * M_inv, float(np.sum(row_logliks)), float(np.sum(sizes))


def observed_posterior(
    Y0: np.ndarray, mask: np.ndarray, W: np.ndarray, sigma2: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""For each row, with :math:`o` its observed features and :math:`y_o` its centered
    observed entries (`Y0`, zero elsewhere): the posterior mean
    :math:`\hat z = M_o^{-1} W_o^\top y_o`, :math:`M_o = W_o^\top W_o + \sigma^2 I`, the
    inverses :math:`M_o^{-1}` (n, k, k), and the log-density of :math:`y_o` under
    :math:`\mathcal N(0, W_o W_o^\top + \sigma^2 I)` (n,), by the matrix determinant
    lemma and Woodbury's identity (k x k systems, never :math:`|o| \times |o|`):

    .. math::

        \log p(y_o) = -\tfrac12\Big(|o| \log 2\pi + (|o| - k)\log\sigma^2 + \log|M_o|
        + \frac{\|y_o - W_o \hat z\|^2 + \sigma^2 \|\hat z\|^2}{\sigma^2}\Big).

    Last, for round-off estimates, a bound on the size of the terms summed for each
    row, as :func:`pcalib._ppca_model.spectral_log_likelihood` gives it: the sum of
    their absolute values (the log-eigenvalues of :math:`M_o` one by one) plus
    :math:`2\|y_o\|\sqrt{q/\sigma^2}`, q the quadratic term, the effect of the rounding
    error of :math:`y_o` (about :math:`\varepsilon\|y_o\|`) on q.
    """
    k = W.shape[1]
    M = _row_gram(mask, W)
    M[:, np.arange(k), np.arange(k)] += sigma2
    L = np.linalg.cholesky(M)
    M_inv = np.linalg.inv(M)
    Z = (M_inv @ (Y0 @ W)[..., None])[..., 0]
    residual = (Y0 - Z @ W.T) * mask
    p_obs = mask.sum(axis=1)
    quad = (np.einsum("ij,ij->i", residual, residual) + sigma2 * np.einsum("ij,ij->i", Z, Z)) / sigma2
    log_diagonal = np.log(np.diagonal(L, axis1=1, axis2=2))
    logdet_M = 2.0 * log_diagonal.sum(axis=1)
    sizes = (p_obs * _LOG_2PI + (p_obs - k) * abs(np.log(sigma2)) + 2.0 * np.abs(log_diagonal).sum(axis=1)
             + quad + 2.0 * np.linalg.norm(Y0, axis=1) * np.sqrt(quad / sigma2))
    return Z, M_inv, -0.5 * (p_obs * _LOG_2PI + (p_obs - k) * np.log(sigma2) + logdet_M + quad), sizes


def _m_step(
    X0: np.ndarray, mask: np.ndarray, Z: np.ndarray, Sigma: np.ndarray, n_observed: float
) -> tuple[np.ndarray, np.ndarray, float]:
    r"""M step: for each feature j, :math:`(w_j, \mu_j)` solves
    :math:`A_j \beta_j = b_j` with

    .. math::

        A_j = \sum_{i:\, j \in o_i} \begin{pmatrix} \hat z_i \hat z_i^\top + \Sigma_i & \hat z_i \\
        \hat z_i^\top & 1 \end{pmatrix}, \qquad
        b_j = \sum_{i:\, j \in o_i} x_{ij} \begin{pmatrix} \hat z_i \\ 1 \end{pmatrix},

    then :math:`\sigma^2 = \frac{1}{|\Omega|}\sum_{(i,j) \in \Omega}
    \big((x_{ij} - \mu_j - w_j^\top \hat z_i)^2 + w_j^\top \Sigma_i w_j\big)`.
    """
    n, k = Z.shape
    Z1 = np.hstack([Z, np.ones((n, 1))])
    second = Z1[:, :, None] * Z1[:, None, :]
    second[:, :k, :k] += Sigma
    A = (mask.T @ second.reshape(n, -1)).reshape(-1, k + 1, k + 1)
    beta = np.linalg.solve(A, (X0.T @ Z1)[..., None])[..., 0]
    W, mu = beta[:, :k], beta[:, k]
    residual = (X0 - Z @ W.T - mu) * mask
    spread = np.sum(_row_gram(mask, W) * Sigma)
    return W, mu, (float(np.sum(residual**2)) + float(spread)) / n_observed


# The observed-data likelihood is taken as unbounded when, after this many iterations,
# sigma^2 is below _UNBOUNDED_NOISE times the average variance and fell more than
# _UNBOUNDED_FALL-fold over the last _UNBOUNDED_WINDOW iterations. A bounded maximum
# with so little noise is reached in a few dozen iterations (sigma^2 then stops
# moving); an unbounded one drives sigma^2 down geometrically until round-off stops it
# (measured: 40 x 8 data, 70% missing, k = 3: 1e-3 of the variance after 100
# iterations, 6e-5 after 200, 6e-8 after 400, 2e-11 after 800, another answer for
# each start).
_UNBOUNDED_NOISE = 1e-6


_UNBOUNDED_FALL = 10.0


_UNBOUNDED_WINDOW = 200


def _check_bounded(noise: list[float], observed: np.ndarray, k: int) -> None:
    """Raise ``ValueError`` when the noise variances of the EM iterates (relative to
    the average variance) say the likelihood is unbounded (see _UNBOUNDED_NOISE)."""
    if len(noise) <= _UNBOUNDED_WINDOW or noise[-1] >= _UNBOUNDED_NOISE:
        return
    if noise[-1] * _UNBOUNDED_FALL < noise[-1 - _UNBOUNDED_WINDOW]:
        per_row = observed.sum(axis=1)
        raise ValueError(
            f"the observed-data likelihood of a rank-{k} PPCA is unbounded here: the noise "
            f"variance fell to {noise[-1]:.1e} of the average variance and keeps falling "
            f"(a rank-{k} model passes through the observed entries; rows observe "
            f"{int(per_row.min())} to {int(per_row.max())} of {observed.shape[1]} features, "
            f"median {float(np.median(per_row)):g}), so every start would give another "
            "answer; choose fewer components, or observe more entries per row"
        )


class _ObservedStep:
    r"""PX-EM over the observed entries of data with NaN, for :func:`pcalib._ppca_em.run_em`.

    Each iteration is the E step of :func:`_posterior`, the M step of
    :func:`_m_step`, and the parameter-expansion step: with
    :math:`\nu = \frac1n\sum_i \hat z_i` and
    :math:`\Psi = \frac1n\sum_i (\hat z_i \hat z_i^\top + \Sigma_i) - \nu\nu^\top`,

    .. math::

        \mu \leftarrow \mu + W\nu, \qquad W \leftarrow W L, \quad L L^\top = \Psi .

    :math:`\nu` and :math:`\Psi` are the M step of the expanded model
    :math:`z \sim \mathcal N(\nu, \Psi)`, whose observed-data likelihood is the same
    function (its extra parameters are not identified); the map above collapses it
    back to :math:`z \sim \mathcal N(0, I)` without changing the likelihood, so
    the log-likelihood never decreases. After each M step the noise variance is
    checked (:func:`pcalib._ppca_model.check_noise_variance` and
    :func:`_check_bounded`). `X0` holds the observed entries less their column
    means, 0 at the missing ones; the means of the iterates are relative to those.
    """

    with_missing_values = True

    def __init__(self, X0: np.ndarray, observed: np.ndarray, k: int) -> None:
        self.X0, self.observed, self.k = X0, observed, k
        self.mask = observed.astype(np.float64)
        self.n_features = X0.shape[1]
        self.n_observed = float(self.mask.sum())
        self.average_variance = float(np.sum(X0**2)) / self.n_observed
        self.noise: list[float] = []  # sigma^2 of each iterate over the average variance

    def expect(self, params: Params) -> tuple[float, float, PosteriorMoments]:
        W, mu, sigma2 = params
        Z, Sigma, loglik, size = _posterior(self.X0 - mu * self.mask, self.mask, W, sigma2)
        return loglik, size, (Z, Sigma)

    def maximize(self, params: Params, moments: PosteriorMoments) -> Params:
        Z, Sigma = moments
        W, mu, sigma2 = _m_step(self.X0, self.mask, Z, Sigma, self.n_observed)
        check_noise_variance(sigma2, self.average_variance)
        self.noise.append(sigma2 / self.average_variance)
        _check_bounded(self.noise, self.observed, self.k)
        nu = Z.mean(axis=0)
        Psi = (Z.T @ Z + Sigma.sum(axis=0)) / Z.shape[0] - np.outer(nu, nu)
        return Params(W @ np.linalg.cholesky(Psi), mu + W @ nu, sigma2)


def _observed_em(
    arr: np.ndarray, observed: np.ndarray, k: int, *, max_iter: int, tol: float, random_state: object
) -> PPCAFit:
    """Maximum-likelihood PPCA of the observed entries of `arr` by PX-EM
    (:class:`_ObservedStep`, run by :func:`pcalib._ppca_em.run_em`), in the units of `arr`.

    Raises ``ValueError`` when every column is constant, when the likelihood is
    unbounded (:func:`_check_bounded`), and when a posterior or the M step's systems
    become singular (numpy's ``LinAlgError``, said in words).
    """
    n = arr.shape[0]
    shift = np.nanmean(np.where(observed, arr, np.nan), axis=0)  # observed column means
    step = _ObservedStep(np.where(observed, arr - shift, 0.0), observed, k)
    if not step.average_variance > 0:
        raise ValueError(
            "X's observed entries all equal their column means (every column constant): "
            "there is no variance for PPCA to model"
        )
    try:
        fit = run_em(step, k, max_iter=max_iter, tol=tol, random_state=random_state)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"PPCA EM with missing values broke down: the observed entries of X ({n} "
            f"rows) do not determine a rank-{k} model (its covariance or the latent "
            "posterior became singular, the likelihood is degenerate); choose fewer "
            "components or observe more entries per feature"
        ) from None
    return fit._replace(mean=fit.mean + shift)


def fit_ppca_in_units(model: PPCA, X: ArrayLike) -> tuple[PPCAFit, int, int]:
    r""":func:`pcalib.missing.fit_ppca` in the units of
    :func:`pcalib._units.unit_exponent`: the fit of :math:`y = 2^{-e} x`, e and the
    number of observed entries (for :func:`pcalib._ppca_em.in_data_units`). EM runs in
    those units, so no square overflows or underflows at any scale of X; ``sigma2_``
    itself may leave the float64 range (a warning says so), these values do not."""
    arr, observed, _ = incomplete_matrix(X)
    k = model._check_params(*arr.shape)
    e = unit_exponent(arr)  # EM in units of 2**e: x = 2**e y
    fit = _observed_em(np.ldexp(arr, -e), observed, k, max_iter=model.max_iter, tol=model.tol,
                       random_state=model.random_state)
    return fit, e, int(observed.sum())


# -- iterative and regularized iterative PCA ---------------------------------------


def _shrunk_fit(Z: np.ndarray, k: int, regularized: bool) -> tuple[np.ndarray, float]:
    r"""Rank-k reconstruction of the centered matrix `Z` and :math:`\|Z\|_F^2`.

    Component j is multiplied by :math:`1 - \sigma^2/\tilde\lambda_j` if
    `regularized`, with :math:`\sigma^2 = \frac{1}{p-k}\sum_{j>k}\tilde\lambda_j`
    (eigenvalues of :math:`Z^\top Z / n`: the maximum-likelihood PPCA noise variance
    of the completed matrix, so that a fixed point holds conditional means under that
    fit). missMDA's ``imputePCA`` (version 1.21) uses
    :math:`\min\big(n\sum_{j>k}\tilde\lambda_j/((n-1-k)(p-k)), \tilde\lambda_{k+1}\big)`
    for :math:`n - 1 \ge p` instead: the residual sum of squares over its degrees of
    freedom, :math:`n/(n-1-k)` times this value.
    """
    n, p = Z.shape
    gram_of_columns = n >= p
    G = Z.T @ Z if gram_of_columns else Z @ Z.T
    total = float(np.trace(G))
    w, U = top_eigh(G, k)
    w = np.maximum(w, 0.0)
    noise = max(total - float(w.sum()), 0.0) / (p - k)  # n sigma^2
    shrink = np.divide(w - noise, w, out=np.zeros(k), where=w > 0) if regularized else np.ones(k)
    fitted = (Z @ U) * shrink @ U.T if gram_of_columns else (U * shrink) @ (U.T @ Z)
    return fitted, total


def iterative_pca(
    arr: np.ndarray,
    observed: np.ndarray,
    k: int,
    *,
    regularized: bool,
    standardize: bool = False,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, int]:
    r"""Complete `arr` by (regularized) iterative PCA; returns the completed copy and the
    number of iterations.

    Start from the column means of the observed entries; then repeat: center
    (and scale) the completed matrix :math:`\hat X`, take its rank-k
    reconstruction (:func:`_shrunk_fit`), and copy it into the missing entries.
    Unregularized, each iteration does not increase the residual sum of squares
    over the observed entries. Stops when the change of the imputed values,
    plus the change still to come if it shrinks geometrically (Aitken), is at
    most ``tol`` times :math:`\|\hat X - \mathbf 1 \bar x^\top\|_F` (both in
    standardized units if `standardize`).
    """
    rows, columns = np.nonzero(~observed)
    completed = np.where(observed, arr, np.nanmean(np.where(observed, arr, np.nan), axis=0))
    previous_step = np.inf
    for iteration in range(1, max_iter + 1):
        mean = completed.mean(axis=0)
        centered = completed - mean
        sd = np.ones(arr.shape[1])
        if standardize:
            squares = np.einsum("ij,ij->j", centered, centered)
            sd = checked_scale(squares == 0, squares, arr.shape[0], 0)
            centered /= sd
        fitted, total = _shrunk_fit(centered, k, regularized)
        imputed = fitted[rows, columns] * sd[columns] + mean[columns]
        step = float(np.linalg.norm((imputed - completed[rows, columns]) / sd[columns]))
        completed[rows, columns] = imputed
        ratio = step / previous_step if previous_step > 0 else 0.0
        to_come = step * ratio / (1.0 - ratio) if ratio < 1.0 else np.inf
        if max(step, to_come) <= tol * np.sqrt(total):
            return completed, iteration
        previous_step = step
    warnings.warn(
        f"iterative PCA did not converge in max_iter={max_iter} iterations (tol={tol}); "
        "increase max_iter",
        UserWarning,
        stacklevel=3,
    )
    return completed, max_iter

r"""PPCA of data with missing entries (NaN), the fits behind :class:`pcalib.PPCA` and
:mod:`pcalib.missing` (chapter *Missing values*), whose formulas the docstring of
:mod:`pcalib.missing` gives. It takes arrays and parameters, never an estimator.

* Each row's posterior given its observed entries and their log-density
  (:func:`observed_posterior`, :func:`latent_means`); the holes' conditional means
  (:func:`conditional_fill`).
* The maximum-likelihood fit by PX-EM (:class:`_ObservedStep`, run by
  :func:`pcalib._ppca.em.run_em`), which stops with an error when EM heads for a
  singularity of the likelihood (:func:`_check_bounded`); :func:`fit_observed` runs it in the units of
  :func:`pcalib._linalg.units.incomplete_units`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._linalg.units import incomplete_units
from .._utils.frames import to_frame
from .._utils.kinds import LAZY, SPARSE, input_kind, lazy_input_error
from .._utils.validation import check_n_components
from .em import Params, PosteriorMoments, PPCAFit, run_em
from .model import check_noise_variance

__all__ = [
    "ObservedFit", "as_given", "check_ppca_rank", "conditional_fill", "fit_observed", "has_missing",
    "latent_means", "observed_posterior",
]

_LOG_2PI = float(np.log(2.0 * np.pi))


def has_missing(X: object) -> bool:
    """True if `X` is a floating array (or nested list) holding at least one NaN.

    Raises
    ------
    TypeError
        If `X` is a Dask DataFrame or Series (:data:`pcalib._utils.kinds.LAZY`): looking
        for NaN would compute it (:func:`pcalib._utils.kinds.lazy_input_error`).
    """
    kind = input_kind(X)
    if kind in LAZY:
        raise lazy_input_error(X)
    if kind == SPARSE:
        return False
    try:
        arr = np.asarray(X)
    except Exception:  # ragged or exotic input: the caller's validation reports it
        return False
    return arr.dtype.kind == "f" and bool(np.isnan(arr).any())


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
    row, as :func:`pcalib._ppca.model.spectral_log_likelihood` gives it: the sum of
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


# The observed-data likelihood is taken as unbounded when sigma^2 is below
# _UNBOUNDED_NOISE times the average variance and fell more than _UNBOUNDED_FALL-fold
# over the last max(_UNBOUNDED_WINDOW, t/4) of the t iterations so far. A bounded
# maximum with so little noise is reached in a few dozen iterations (sigma^2 then stops
# moving); an unbounded one drives sigma^2 down until round-off stops it. Measured: 40 x
# 8 data, 70% missing, k = 3: 1e-3 of the variance after 100 iterations, 6e-5 after
# 200, 6e-8 after 400, 2e-11 after 800. Iris, 60% missing (seed 5), k = 3, where a
# single row observes more than 3 features: slower, 8e-5 after 1600 iterations, 1e-7
# after 3200, 8e-11 after 6400 and there it stays, the log-likelihood wandering down
# by round-off 2,700 times in 10,000 iterations. A window of 200 iterations, fixed,
# missed it (issue 32); one that grows with the run catches it after about 2,900.
_UNBOUNDED_NOISE = 1e-6


_UNBOUNDED_FALL = 10.0


_UNBOUNDED_WINDOW = 200


def _check_bounded(noise: list[float], observed: np.ndarray, k: int) -> None:
    """Raise ``ValueError`` when the noise variances of the EM iterates (relative to
    the average variance) say the likelihood is unbounded (see _UNBOUNDED_NOISE)."""
    window = max(_UNBOUNDED_WINDOW, len(noise) // 4)
    if len(noise) <= window or noise[-1] >= _UNBOUNDED_NOISE:
        return
    if noise[-1] * _UNBOUNDED_FALL < noise[-1 - window]:
        per_row = observed.sum(axis=1)
        raise ValueError(
            f"the observed-data likelihood of a rank-{k} PPCA is unbounded here: the noise "
            f"variance fell to {noise[-1]:.1e} of the average variance and keeps falling "
            f"(a rank-{k} model passes through the observed entries; rows observe "
            f"{int(per_row.min())} to {int(per_row.max())} of {observed.shape[1]} features, "
            f"median {float(np.median(per_row)):g}, and {int(np.sum(per_row > k))} observe "
            f"more than {k}), so every start would give another answer; choose fewer "
            "components, or observe more entries per row"
        )


class _ObservedStep:
    r"""PX-EM over the observed entries of data with NaN, for :func:`pcalib._ppca.em.run_em`.

    Each iteration is the E step of :func:`_posterior`, the M step of
    :func:`_m_step`, and the parameter-expansion step: with the posterior covariances
    :math:`\Psi_i = \sigma^2 M_{o_i}^{-1}`, :math:`\mathbf m = \frac1n\sum_i \hat z_i` and
    :math:`\Upsilon = \frac1n\sum_i (\hat z_i \hat z_i^\top + \Psi_i) - \mathbf m\mathbf m^\top`,

    .. math::

        \mu \leftarrow \mu + W\mathbf m, \qquad W \leftarrow W L, \quad L L^\top = \Upsilon .

    :math:`\mathbf m` and :math:`\Upsilon` are the M step of the expanded model
    :math:`z \sim \mathcal N(\mathbf m, \Upsilon)` (the book's notation), whose observed-data likelihood is the same
    function (its extra parameters are not identified); the map above collapses it
    back to :math:`z \sim \mathcal N(0, I)` without changing the likelihood, so
    the log-likelihood never decreases. After each M step the noise variance is
    checked (:func:`pcalib._ppca.model.check_noise_variance` and
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
        latent_mean = Z.mean(axis=0)  # m and Upsilon of the book
        latent_cov = (Z.T @ Z + Sigma.sum(axis=0)) / Z.shape[0] - np.outer(latent_mean, latent_mean)
        return Params(W @ np.linalg.cholesky(latent_cov), mu + W @ latent_mean, sigma2)


def _observed_em(
    arr: np.ndarray, observed: np.ndarray, k: int, *, max_iter: int, tol: float, random_state: object,
    verbose: bool = False,
) -> PPCAFit:
    """Maximum-likelihood PPCA of the observed entries of `arr` by PX-EM
    (:class:`_ObservedStep`, run by :func:`pcalib._ppca.em.run_em`), in the units of `arr`.

    Raises ``ValueError`` when every column is constant, when EM heads for a
    singularity of an unbounded likelihood (:func:`_check_bounded`; a finite local
    maximum of the same likelihood raises nothing), and when a posterior or the M step's systems
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
        fit = run_em(step, k, max_iter=max_iter, tol=tol, random_state=random_state, verbose=verbose)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"PPCA EM with missing values broke down: the observed entries of X ({n} "
            f"rows) do not determine a rank-{k} model (its covariance or the latent "
            "posterior became singular, the likelihood is degenerate); choose fewer "
            "components or observe more entries per feature"
        ) from None
    return fit._replace(mean=fit.mean + shift)




def check_ppca_rank(k: object, n: int, p: int, name: str = "n_components") -> int:
    """`k` as the latent dimension of a PPCA of n samples of p features: an integer
    with ``1 <= k <= min(n, p)`` and ``k < p`` (sigma^2 is estimated from the p - k
    discarded directions); ``TypeError`` or ``ValueError`` naming `name` otherwise."""
    k = check_n_components(k, min(n, p), name)
    if k >= p:
        raise ValueError(
            f"{name} must be smaller than the number of features ({p}), got {k}: "
            "sigma2 is estimated from the discarded directions"
        )
    return k


class ObservedFit(NamedTuple):
    """A PPCA fit of data with holes in the units where it ran: ``fit`` is the fit of
    :math:`y = 2^{-e}(x - c)` (:func:`pcalib._linalg.units.incomplete_units`, c = ``shift``,
    e = ``exponent``), ``n_observed`` the number of observed entries."""

    fit: PPCAFit
    shift: np.ndarray
    exponent: int
    n_observed: int


def fit_observed(
    arr: np.ndarray, observed: np.ndarray, k: int, *, max_iter: int, tol: float, random_state: object,
    verbose: bool = False,
) -> ObservedFit:
    r"""Maximum-likelihood PPCA of the observed entries of a validated array (NaN or
    anything at the missing entries, `observed` their mask) with k components, by
    PX-EM, run on :math:`y = 2^{-e}(x - c)` (:func:`pcalib._linalg.units.incomplete_units`:
    c the observed column means, so an offset of :math:`10^{12}` costs no digit, and
    no square overflows or underflows at any scale). :func:`pcalib._ppca.em.in_data_units`
    gives the fit in the data's units; its ``sigma2`` may leave the float64 range
    there, the fit in these units does not."""
    y, shift, exponent = incomplete_units(arr, observed)
    fit = _observed_em(y, observed, k, max_iter=max_iter, tol=tol, random_state=random_state, verbose=verbose)
    return ObservedFit(fit, shift, exponent, int(observed.sum()))


def conditional_fill(
    arr: np.ndarray, observed: np.ndarray, mean: np.ndarray, W: np.ndarray, sigma2: float, exponent: int,
    scale: np.ndarray | None = None,
) -> np.ndarray:
    r"""`arr` (float64, validated) with each missing entry replaced by its conditional
    mean given the row's observed entries, under :math:`x = \mu + D_s 2^e (W z + \varepsilon)`,
    :math:`\varepsilon \sim \mathcal N(0, \sigma^2 I)`: the model's W and
    :math:`\sigma^2` in units of :math:`2^e` (so that :math:`W^\top W` neither overflows
    nor underflows), :math:`D_s` = ``diag(scale)`` (the identity by default),

    .. math::

        \E[x_m \mid x_o] = \mu_m + 2^e D_{s,m} W_m \hat z, \qquad
        \hat z = M_o^{-1} W_o^\top 2^{-e} D_{s,o}^{-1} (x_o - \mu_o).

    A new array; the observed entries are kept.
    """
    scale = np.ones(W.shape[0]) if scale is None else np.asarray(scale, dtype=np.float64)
    out = np.array(arr, dtype=np.float64)
    rows = np.flatnonzero(~observed.all(axis=1))
    part, seen = out[rows], observed[rows]
    Y0 = np.ldexp(np.where(seen, (part - mean) / scale, 0.0), -exponent)
    Z = latent_means(Y0, seen.astype(np.float64), W, sigma2)
    part[~seen] = (np.ldexp(Z @ W.T, exponent) * scale + mean)[~seen]
    out[rows] = part
    return out


def as_given(values: np.ndarray, X: object) -> Any:
    """A filled copy of `X` (float64 `values`, n x p) of the type `X` was given: a pandas
    DataFrame with `X`'s index and columns, else an array, float32 for float32 `X`."""
    if type(X).__module__.partition(".")[0] == "pandas" and hasattr(X, "columns"):
        return to_frame(values, X, X.columns)
    return values.astype(np.float32 if getattr(X, "dtype", None) == np.float32 else np.float64, copy=False)

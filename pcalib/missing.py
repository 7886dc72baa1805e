r"""PCA and probabilistic PCA of data with missing values (chapter *Missing values*).

Missing entries are NaN. Row i observes the features :math:`o_i`; :math:`W_{o}`,
:math:`\mu_{o}` and :math:`x_{o}` keep the rows (entries) of those features.

Probabilistic PCA (Tipping and Bishop 1999; Ilin and Raiko 2010). Under
:math:`x = W z + \mu + \varepsilon` the observed part of a row is again a PPCA
model, :math:`x_o \sim \mathcal N(\mu_o, W_o W_o^\top + \sigma^2 I)`, so the
log-likelihood of the observed entries is

.. math::

    \mathcal L = \sum_i -\tfrac12\Big(p_i \log 2\pi + (p_i - k)\log\sigma^2
    + \log\det M_i + \frac{\|y_i - W_{o_i}\hat z_i\|^2 + \sigma^2\|\hat z_i\|^2}{\sigma^2}\Big),

with :math:`p_i = |o_i|`, :math:`y_i = x_{i,o_i} - \mu_{o_i}`,
:math:`M_i = W_{o_i}^\top W_{o_i} + \sigma^2 I_k` and the posterior mean
:math:`\hat z_i = M_i^{-1} W_{o_i}^\top y_i`. EM with a parameter-expanded M step
(PX-EM, Liu, Rubin and Wu 1998, see :class:`pcalib._missing_fits._ObservedStep`, run
by :func:`pcalib._ppca_em.run_em`) never decreases it.

Iterative PCA (the "EM" method of the R package missMDA) and regularized
iterative PCA (Josse and Husson 2012), see :func:`pcalib._missing_fits.iterative_pca`:
fill the holes with column means, then repeat "PCA of the completed matrix, refill the
holes with its rank-k reconstruction", the regularized version shrinking
component j by :math:`1 - \sigma^2/\tilde\lambda_j`, with :math:`\sigma^2` the mean
of the p - k discarded eigenvalues (missMDA's ``imputePCA`` uses
:math:`n/(n-1-k)` times it, a degrees-of-freedom correction; see
:func:`pcalib.impute_pca`).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

from ._missing_fits import fit_ppca_in_units, iterative_pca, latent_means, observed_posterior
from ._ppca_em import PPCAFit, in_data_units
from ._units import unit_exponent
from ._validation import check_positive_int, check_rank, check_tol, incomplete_matrix

if TYPE_CHECKING:
    from .estimator import PCA
    from .ppca import PPCA

__all__ = ["fill_missing", "fit_ppca", "observed_log_likelihood"]

METHODS = ("em", "regularized", "iterative")
_ESTIMATOR_METHODS = ("regularized",)


# -- validation -------------------------------------------------------------------


def has_missing(X: object) -> bool:
    """True if `X` is a floating array (or nested list) holding at least one NaN."""
    if scipy.sparse.issparse(X):
        return False
    try:
        arr = np.asarray(X)
    except Exception:  # ragged or exotic input: the caller's validation reports it
        return False
    return arr.dtype.kind == "f" and bool(np.isnan(arr).any())


# -- probabilistic PCA over the observed entries ---------------------------------


def observed_log_likelihood(X: ArrayLike, mean: np.ndarray, W: np.ndarray, sigma2: float) -> np.ndarray:
    r"""Log-density of each row's observed entries (NaN missing) under the PPCA model
    :math:`\mathcal N(\mu, W W^\top + \sigma^2 I)`: the marginal of the observed features,
    :math:`\mathcal N(\mu_o, W_o W_o^\top + \sigma^2 I)` (chapter "Missing values"), what
    cross-validation with holes scores. Rows without NaN get the
    full log-density. Raises ``ValueError`` for a row with no observed entry."""
    arr, observed, _ = incomplete_matrix(X, whole_columns=False, n_features=W.shape[0])
    mask = observed.astype(np.float64)
    Y0 = np.where(observed, arr - mean, 0.0)
    return observed_posterior(Y0, mask, W, sigma2)[2]


def fit_ppca(model: PPCA, X: ArrayLike) -> PPCAFit:
    r"""Maximum-likelihood PPCA of the observed entries of `X` (NaN missing) by PX-EM.

    What ``PPCA.fit`` runs when `X` holds NaN, with the settings of `model` (a
    :class:`pcalib.PPCA`: its ``n_components``, ``max_iter``, ``tol`` and
    ``random_state``; `model` is not modified). On `X` without NaN it runs the same
    EM over all the entries, which reaches the closed form.

    Returns
    -------
    PPCAFit
        A named tuple ``(W, mean, sigma2, loglik_history)`` in the data's units:
        what ``PPCA.fit`` stores as ``W_``, ``mean_``, ``sigma2_`` and
        ``loglik_history_`` (the observed-data log-likelihood of every EM iterate,
        the last one that of the parameters returned).
    """
    return in_data_units(*fit_ppca_in_units(model, X))


def fill_missing(
    X: ArrayLike, mean: np.ndarray, W: np.ndarray, sigma2: float, scale: np.ndarray | None = None
) -> ArrayLike:
    r"""Replace each NaN by its conditional mean given the row's observed entries.

    Under :math:`x = D_s(W z + \varepsilon) + \mu` (:math:`D_s` = ``diag(scale)``,
    the identity by default), a row's missing part is filled with

    .. math::

        \begin{aligned}
        \E[x_m \mid x_o] &= \mu_m + D_{s,m} W_m \hat z, \\
        \hat z &= M_o^{-1} W_o^\top D_{s,o}^{-1}(x_o - \mu_o),
        \end{aligned}

    and its observed entries are kept. ``transform`` of the filled row then
    uses only the observed entries: for PPCA, :math:`M^{-1}W^\top(\hat x - \mu)
    = \hat z`, the posterior mean given :math:`x_o`. With :math:`\sigma^2 = 0`,
    :math:`\hat z = W_o^{+} D_{s,o}^{-1}(x_o - \mu_o)`, the least-squares fit.
    `X` without NaN is returned unchanged (the caller validates it).
    """
    if not has_missing(X):
        return X
    arr, observed, dtype = incomplete_matrix(X, "X", n_features=W.shape[0], whole_columns=False)
    scale = np.ones(W.shape[0]) if scale is None else np.asarray(scale, dtype=np.float64)
    rows = np.flatnonzero(~observed.all(axis=1))
    part, seen = arr[rows], observed[rows]
    # z is unchanged when y, W (by 2**-e) and sigma^2 (by 4**-e) change units together:
    # in units where W's largest entry is in [1/2, 1), W^T W neither overflows nor underflows
    e = unit_exponent(np.asarray(W, dtype=np.float64))
    Y0 = np.ldexp(np.where(seen, (part - mean) / scale, 0.0), -e)
    W_unit = np.ldexp(np.asarray(W, dtype=np.float64), -e)
    Z = latent_means(Y0, seen.astype(np.float64), W_unit, float(np.ldexp(sigma2, -2 * e)))
    part[~seen] = (np.ldexp(Z @ W_unit.T, e) * scale + mean)[~seen]
    arr[rows] = part
    return arr.astype(dtype, copy=False)


# -- iterative and regularized iterative PCA ---------------------------------------


def complete_for_pca(estimator: PCA, X: ArrayLike) -> ArrayLike:
    """The matrix that ``PCA.fit`` analyses when ``missing`` is set: `X` itself if it
    has no NaN, otherwise `X` completed by regularized iterative PCA with
    ``n_components`` components (standardized at every iteration if ``standardize``)."""
    if estimator.missing not in _ESTIMATOR_METHODS:
        raise ValueError(f"missing must be None or one of {_ESTIMATOR_METHODS}, got {estimator.missing!r}")
    k = estimator.n_components
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(
            f"missing={estimator.missing!r} needs an integer n_components (the rank of the "
            f"imputation model), got {k!r}"
        )
    max_iter = check_positive_int(estimator.missing_max_iter, "missing_max_iter")
    tol = check_tol(estimator.missing_tol, "missing_tol")
    if not has_missing(X):
        return X
    arr, observed, dtype = incomplete_matrix(X)
    k = check_rank(k, *arr.shape, "n_components")
    completed, _ = iterative_pca(
        arr, observed, k, regularized=True, standardize=bool(estimator.standardize),
        max_iter=max_iter, tol=tol,
    )
    return completed.astype(dtype, copy=False)


def fill_for_pca(estimator: PCA, X: ArrayLike) -> ArrayLike:
    r"""Fill the NaN of `X` for ``PCA.transform`` (``missing`` set): conditional means
    (:func:`fill_missing`) under the PPCA model of the fit, in the standardized
    space, with :math:`\sigma^2` the mean of the p - k discarded eigenvalues (the
    rule of the regularized iteration; ``noise_variance_`` averages over m - k).
    A rescaling of the model covariance does not change a conditional mean, so the
    divisor ``n - ddof`` does not matter."""
    if not has_missing(X):
        return X
    k, p = estimator.n_components_, estimator.n_features_in_
    m = min(estimator.n_samples_, p)
    sigma2 = estimator.noise_variance_ * (m - k) / (p - k) if k < p else 0.0
    ev = estimator.explained_variance_.astype(np.float64)
    W = estimator.components_.T.astype(np.float64) * np.sqrt(np.maximum(ev - sigma2, 0.0))
    return fill_missing(X, estimator.mean_.astype(np.float64), W, sigma2, estimator.scale_)

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
(PX-EM, Liu, Rubin and Wu 1998, see :class:`pcalib._ppca.em_missing._ObservedStep`, run
by :func:`pcalib._ppca.em.run_em`) never decreases it.

Iterative PCA (the "EM" method of the R package missMDA) and regularized
iterative PCA (Josse and Husson 2012), see :func:`pcalib._ppca.missing_fits.iterative_pca`:
fill the holes with column means, then repeat "PCA of the completed matrix, refill the
holes with its rank-k reconstruction", the regularized version shrinking
component j by :math:`1 - \sigma^2/\tilde\lambda_j`, with :math:`\sigma^2` the mean
of the p - k discarded eigenvalues (missMDA's ``imputePCA`` uses
:math:`n/(n-1-k)` times it, a degrees-of-freedom correction; see
:func:`pcalib.impute_pca`).

This module is the chapter's public face: its functions take arrays and parameters
(never an estimator) and call the fits of :mod:`pcalib._ppca.em_missing` (PPCA) and
:mod:`pcalib._ppca.missing_fits` (iterative PCA), which :class:`pcalib.PPCA`,
:class:`pcalib.PCA` and :func:`pcalib.impute_pca` call too.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._linalg.units import unit_exponent
from ._ppca.em import PPCAFit, in_data_units
from ._ppca.em_missing import check_ppca_rank, conditional_fill, fit_observed, has_missing, observed_posterior
from ._utils.validation import check_positive_int, check_random_state, check_tol, incomplete_matrix

__all__ = ["fill_missing", "fit_ppca", "observed_log_likelihood"]


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


def fit_ppca(
    X: ArrayLike,
    k: int,
    *,
    max_iter: int = 10000,
    tol: float = 1e-14,
    random_state: int | np.random.Generator | None = None,
    verbose: bool = False,
) -> PPCAFit:
    r"""Maximum-likelihood PPCA with k components of the observed entries of `X` (NaN
    missing) by PX-EM.

    What ``PPCA(k, max_iter=..., tol=..., random_state=...).fit(X)`` runs when `X`
    holds NaN (the defaults are PPCA's). On `X` without NaN it runs the same EM over all
    the entries, which reaches the closed form. `X` is not modified.

    Returns
    -------
    PPCAFit
        A named tuple ``(W, mean, sigma2, loglik_history)`` in the data's units:
        what ``PPCA.fit`` stores as ``W_``, ``mean_``, ``sigma2_`` and
        ``loglik_history_`` (the observed-data log-likelihood of every EM iterate,
        the last one that of the parameters returned).

    Raises
    ------
    TypeError, ValueError
        For bad `X` (see :func:`pcalib.impute_pca`), k not an integer in
        ``[1, min(n, p))``, bad `max_iter`, `tol` or `random_state`; ``ValueError``
        also when EM heads for a singularity of the likelihood: the noise variance
        falls below 1e-6 of the average variance and keeps falling (possible only
        when a rank-k model can pass through the observed entries of the rows that
        observe more than k features). Such an unbounded likelihood may also have
        finite local maxima, as Gaussian mixtures do; EM may settle at one of them,
        and then no error is raised.
    """
    arr, observed, _ = incomplete_matrix(X)
    n, p = arr.shape
    k = check_ppca_rank(k, n, p, name="k")
    max_iter = check_positive_int(max_iter, "max_iter")
    tol = check_tol(tol)
    check_random_state(random_state, draw=False)
    fit, shift, exponent, n_observed = fit_observed(arr, observed, k, max_iter=max_iter, tol=tol,
                                                    random_state=random_state, verbose=verbose)
    return in_data_units(fit, exponent, n_observed, shift)


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
    `X` without NaN is returned unchanged (the caller validates it); otherwise a new
    array (float32 for float32 input).
    """
    if not has_missing(X):
        return X
    arr, observed, dtype = incomplete_matrix(X, "X", n_features=W.shape[0], whole_columns=False)
    W = np.asarray(W, dtype=np.float64)
    # z is unchanged when y, W (by 2**-e) and sigma^2 (by 4**-e) change units together:
    # in units where W's largest entry is in [1/2, 1), W^T W neither overflows nor underflows
    e = unit_exponent(W)
    filled = conditional_fill(arr, observed, np.asarray(mean, dtype=np.float64), np.ldexp(W, -e),
                              float(np.ldexp(sigma2, -2 * e)), e, scale)
    return filled.astype(dtype, copy=False)

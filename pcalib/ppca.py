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

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from ._estimator.base import EstimatorBase
from ._linalg.units import center_array
from ._ppca.em import CompleteStep, PPCAFit, complete_log_likelihood, in_data_units, run_em
from ._ppca.em_missing import as_given, check_ppca_rank, conditional_fill, fit_observed, has_missing, observed_posterior
from ._ppca.model import check_noise_variance, spectral_log_likelihood
from ._routes.dense import svd_of_centered
from ._utils.progress import progress
from ._utils.validation import (
    as_data_matrix,
    check_positive_int,
    check_random_state,
    incomplete_matrix,
    validated,
)

__all__ = ["PPCA"]


def _gaussian_log_likelihood(X: np.ndarray, mean: np.ndarray, W: np.ndarray, sigma2: float) -> np.ndarray:
    r"""Log-density of each row of `X` under :math:`\mathcal N(\mu, W W^\top + \sigma^2 I)`.

    .. math::

        \log p(x) = -\tfrac12\Big(p \log 2\pi + \log|C| + (x-\mu)^\top C^{-1} (x-\mu)\Big)

    The thin SVD :math:`W = A\, \operatorname{diag}(d)\, B^\top` gives C in
    spectral form, eigenvalues :math:`d_j^2 + \sigma^2` along the columns of A and
    :math:`\sigma^2` elsewhere (:func:`pcalib._ppca.model.spectral_log_likelihood`): the p x p
    matrix C is never formed, and the residual term is computed directly.

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
        If C is singular (``sigma2 == 0`` and :math:`W W^\top` singular): the density does not exist.
    """
    A, d, _ = np.linalg.svd(W, full_matrices=False)
    return spectral_log_likelihood(X - mean, A, d**2 + sigma2, sigma2)[0]


def _in_fit_units(W: np.ndarray, sigma2: float, units: tuple[int, float | None]) -> tuple[int, np.ndarray, float]:
    r"""e, :math:`2^{-e} W` and :math:`4^{-e}\sigma^2`: a PPCA model in the units where it
    was fitted (:math:`y = 2^{-e}(x - \mu)`), in which :math:`W^\top W` and
    :math:`\sigma^2` neither overflow nor underflow. `units` holds e and the fit's own
    :math:`4^{-e}\sigma^2`: ``sigma2_`` in the data's units may have left the float64
    range (0 for data at :math:`10^{-200}`), so the fit's value is used unless
    ``sigma2_`` was changed since (or `units` has none)."""
    e, sigma2_fit = units
    with np.errstate(under="ignore", over="ignore"):
        if sigma2_fit is None or float(np.ldexp(sigma2_fit, 2 * e)) != sigma2:
            sigma2_fit = float(np.ldexp(sigma2, -2 * e))
    return e, np.ldexp(np.asarray(W, dtype=np.float64), -e), sigma2_fit


class PPCA(EstimatorBase):
    r"""Probabilistic PCA fitted by maximum likelihood.

    Closed form (Tipping and Bishop 1999, eqs. 7-8): with
    :math:`S = X_c^\top X_c / n` (the 1/n covariance) and its eigenpairs
    :math:`(\lambda_j, v_j)` in decreasing order,

    .. math::

        \sigma^2 = \frac{1}{p - k} \sum_{j > k} \lambda_j, \qquad
        W = V_k (\Lambda_k - \sigma^2 I)^{1/2},

    choosing the rotation R = I and the sign convention on W's columns
    (:math:`\lambda_j = \sigma_j(X_c)^2 / n` from the SVD, and :math:`\sigma^2`
    from the discarded ones directly, so a small noise keeps its digits).

    EM (their Appendix; Bishop 2006, eqs. 12.54-12.57), with the parameter
    expansion of Liu, Rubin and Wu (1998, PX-EM). With
    :math:`M = W^\top W + \sigma^2 I`, the posterior means
    :math:`\hat Z = X_c W M^{-1}` (n x k) and
    :math:`E = \sum_i \mathbb E[z_i z_i^\top] = n \sigma^2 M^{-1} + \hat Z^\top \hat Z`,
    one iteration is

    .. math::

        W_* = X_c^\top \hat Z\, E^{-1}, \qquad W_{\text{new}} = W_* L,

    .. math::

        \sigma^2_{\text{new}} = \frac{1}{np}\Big(\big\|X_c - \hat Z W_*^\top\big\|_F^2
        + n \sigma^2 \operatorname{tr}\big(M^{-1} W_*^\top W_*\big)\Big),

    where :math:`L L^\top = E / n` (Cholesky). :math:`W_*` and
    :math:`\sigma^2_{\text{new}}` are the M step of plain EM (its
    :math:`\sigma^2` update written as a sum of two non-negative terms, so nothing
    cancels even at a noise of :math:`10^{-9}`); the factor L is the M step of
    the expanded model with latent covariance :math:`\operatorname{cov}(z) = E/n`,
    mapped back to :math:`\operatorname{cov}(z) = I`. Without it, once the
    column space of W is right, column j's length converges at the rate
    :math:`1 - 2\sigma^2(\lambda_j - \sigma^2)/\lambda_j^2`, slowest for
    :math:`\lambda_1`: some :math:`10^{10}` iterations at :math:`\sigma^2/\lambda_1 =
    10^{-10}` (the chapter's exercise *Why plain EM is slow at low noise*). Each iteration is O(npk) and the
    log-likelihood never decreases. The fitted W is finally rotated to the
    same canonical form as the closed form.

    EM stops when two tests pass, with or without missing values (one rule,
    ``pcalib._ppca.em._converged``): the log-likelihood still to be gained,
    extrapolated from the last two gains (Aitken), is at most ``tol * |L|`` (or the
    gains are within the round-off of L); and the relative change of the parameters
    still to come (:math:`\sigma^2`, the :math:`d_j^2` of W = A diag(d) B^T, the
    column space of W and, with missing values, the mean in units of each feature's
    standard deviation), extrapolated the same way, is at most
    :math:`\sqrt{\mathrm{tol}}`: near the maximum a relative change :math:`\delta`
    of the parameters moves L by only about :math:`n p \delta^2 / 4`. With the
    default tolerance W and :math:`\sigma^2` reach the closed form to about
    :math:`10^{-7}` relative, or to their own round-off (about
    :math:`\varepsilon \|x\| / \sigma` relative) when the noise is tiny.

    Parameters
    ----------
    n_components : int
        Latent dimension k, ``1 <= k <= min(n_samples, n_features - 1)``.
    method : {"closed_form", "em"}, default "closed_form"
    max_iter : int, default 10000
        Maximum number of EM iterations; a warning says if EM stopped there. EM
        that converges but needs 200 iterations or more warns too, with the rate
        it measured: EM turns the fitted subspace like a power iteration, at a
        rate of about :math:`\lambda_{k+1}/\lambda_k`, so a slow EM means
        near-equal eigenvalues around the k-th (or, with missing values, holes
        that hold much of the information).
    tol : float, default 1e-14
        EM stopping tolerance: on the log-likelihood still to be gained, relative
        to :math:`|L|`, and (its square root) on the relative change of the
        parameters still to come.
    random_state : None, int or numpy.random.Generator
        Seed of the random initial W of EM (validated for both methods).
    verbose : bool, default False
        Report EM's progress, one step per iteration with its log-likelihood and
        noise variance (in the units EM runs in): a tqdm bar where tqdm is
        installed, otherwise a line on stderr at most once a second
        (``pcalib._utils.progress``). The closed form has nothing to report.

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
    n_features_in_ : int
    feature_names_in_ : ndarray of str objects, shape (n_features,)
        Column names, when fitted on a DataFrame whose column names are all
        strings (absent otherwise); ``transform`` then checks them.

    Raises
    ------
    ValueError
        From ``fit``, by both methods alike, if the noise variance is 0 to working
        precision (:math:`\sigma^2 \le (10^3\varepsilon)^2 \operatorname{tr}(S)/p`):
        the data have rank at most k after centering and the likelihood is unbounded.
        From ``fit`` on data with NaN, also when EM heads for a singularity of the
        likelihood (:func:`pcalib.missing.fit_ppca`); EM may instead settle at a
        finite local maximum, without error.

    Notes
    -----
    scikit-learn's ``check_estimator`` passes for ``n_components=1``, except
    ``check_transformer_n_iter`` for the closed form (no EM iteration:
    ``n_iter_ = 0``). With ``n_components >= 2``, six of its checks fit data
    with 2 features, on which PPCA refuses :math:`k \ge p` (there is no
    discarded direction to estimate :math:`\sigma^2` from); pass them in
    ``expected_failed_checks`` as ``tests/test_sklearn_compat.py`` does.
    """

    _accepts_nan = True  # NaN entries are missing values (pcalib._ppca.em_missing.fit_observed)
    _FITTED_BY = "W_"

    def __init__(
        self,
        n_components: int,
        method: str = "closed_form",
        max_iter: int = 10000,
        tol: float = 1e-14,
        random_state: int | np.random.Generator | None = None,
        verbose: bool = False,
    ) -> None:
        self.n_components = n_components
        self.method = method
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    _fit_minimum = (
        EstimatorBase._fit_minimum[0],
        (2, "sigma2 is the mean variance of the n_features - n_components >= 1 discarded directions"),
    )

    @property
    def _n_features_out(self) -> int:
        return self.W_.shape[1]

    @property
    def noise_variance_(self) -> float:
        """``sigma2_`` under scikit-learn's name: ``sklearn.decomposition.PCA.noise_variance_`` with the divisor n,
        times (n - k)/(p - k) for n < p (it averages the discarded eigenvalues over n - k, the likelihood over p - k)."""
        self._require_fitted()
        return self.sigma2_

    @property
    def n_components_(self) -> int:
        """The number of components k of the fit (columns of ``W_``)."""
        self._require_fitted()
        return int(self.W_.shape[1])

    def _check_params(self, n: int, p: int) -> int:
        if self.method not in ("closed_form", "em"):
            raise ValueError(f'method must be "closed_form" or "em", got {self.method!r}')
        check_positive_int(self.max_iter, "max_iter")
        if isinstance(self.tol, bool) or not isinstance(self.tol, numbers.Real) or not self.tol > 0:
            raise ValueError(f"tol must be a positive number, got {self.tol!r}")
        check_random_state(self.random_state, draw=False)
        progress(self.verbose, 0, "")  # refuses a verbose that is not True or False
        return check_ppca_rank(self.n_components, n, p)

    def fit(self, X: ArrayLike, y: object = None) -> PPCA:
        """Fit the model to `X` (n x p, not modified); returns self.

        NaN entries are missing values: then EM over the observed entries
        (:func:`pcalib.missing.fit_ppca`) whatever `method` says, on the deviations from
        the observed column means divided by the power of two that brings the largest
        into [1/2, 1) (``pcalib._linalg.units.incomplete_units``). Otherwise
        both methods work on the centered data read in their frame (exact powers of
        two, ``pcalib._linalg.units.Frame``). Either way no square overflows or
        underflows; W, sigma^2 and the log-likelihood are converted back to the data's
        units (a warning says if sigma^2 leaves the float64 range there).
        """
        X = self._remember_input(X)
        if has_missing(X):
            arr, observed, _ = incomplete_matrix(X)
            k = self._check_params(*arr.shape)
            found = fit_observed(arr, observed, k, max_iter=self.max_iter, tol=self.tol,
                                 random_state=self.random_state, verbose=self.verbose)
            self._units = (found.exponent, found.fit.sigma2)
            return self._set_fitted(in_data_units(found.fit, found.exponent, found.n_observed, found.shift))
        arr, _ = validated(X, 0)
        n, p = arr.shape
        k = self._check_params(n, p)
        centered = center_array(arr, 0)
        Xc = centered.values
        if self.method == "closed_form":
            components, s, _, _, _ = svd_of_centered(Xc.copy(), min(n, p), need_scores=False)
            lam = s**2 / n  # the nonzero eigenvalues of S; the other p - min(n, p) are 0
            sigma2 = float(lam[k:].sum()) / (p - k)  # from the tail directly: no cancellation
            check_noise_variance(sigma2, float(lam.sum()) / p)
            W = components[:k].T * np.sqrt(np.maximum(lam[:k] - sigma2, 0.0))
            fit = PPCAFit(W, np.zeros(p), sigma2, np.array([complete_log_likelihood(Xc, W, sigma2)[0]]))
        else:
            fit = run_em(CompleteStep(Xc), k, max_iter=self.max_iter, tol=self.tol,
                         random_state=self.random_state, verbose=self.verbose)
        # back to the data's units: x = center + 2**e y
        self._units = (centered.exponent, fit.sigma2)
        return self._set_fitted(in_data_units(fit, centered.exponent, n * p, centered.center.value))

    def _set_fitted(self, fit: PPCAFit) -> PPCA:
        """Store `fit` (in the data's units) as the fitted attributes; returns self."""
        self.W_, self.mean_, self.sigma2_ = fit.W, fit.mean, fit.sigma2
        self.n_iter_ = len(fit.loglik_history) - 1
        self.loglik_history_ = fit.loglik_history
        return self

    def _model_in_units(self) -> tuple[int, np.ndarray, float]:
        """The model in the units of its fit (:func:`_in_fit_units`)."""
        return _in_fit_units(self.W_, self.sigma2_, getattr(self, "_units", (0, None)))

    def _checked_with_holes(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """`X` checked against the fit (names, number of features) as float64, NaN
        allowed, and the mask of its observed entries."""
        self._require_fitted()
        arr = self._check_input(X)
        if has_missing(arr):
            arr, observed, _ = incomplete_matrix(arr, "X", n_features=self.W_.shape[0], whole_columns=False)
            return arr, observed
        arr = as_data_matrix(arr, "X").astype(np.float64, copy=False)
        if arr.shape[1] != self.W_.shape[0]:
            raise ValueError(f"X has {arr.shape[1]} features, but PPCA was fitted with {self.W_.shape[0]}")
        return arr, np.ones(arr.shape, dtype=bool)

    def _filled(self, X: ArrayLike) -> np.ndarray:
        """`X` checked, as float64, with each NaN replaced by its conditional mean."""
        arr, observed = self._checked_with_holes(X)
        if observed.all():
            return arr
        e, W, sigma2 = self._model_in_units()
        return conditional_fill(arr, observed, self.mean_, W, sigma2, e)

    def fill(self, X: ArrayLike) -> np.ndarray:
        r"""`X` with each NaN replaced by its conditional mean given the row's observed
        entries, :math:`\E[x_m \mid x_o] = \mu_m + W_m M_o^{-1} W_o^\top (x_o - \mu_o)`
        (:func:`pcalib.missing.fill_missing`); observed entries kept. Returns the type it
        was given: a DataFrame with the same index and columns for a DataFrame, else a
        float array (float32 for float32 input). `X` is not modified."""
        return as_given(self._filled(X), X)

    def transform(self, X: ArrayLike) -> np.ndarray:
        r"""Posterior mean of the latent variables, :math:`M^{-1} W^\top (x - \mu)`, shape (n, k).

        A row with NaN gets its posterior mean given its observed entries. Computed in
        the units of the fit, so the scale of the data does not matter.
        """
        arr = self._filled(X)
        e, W, sigma2 = self._model_in_units()
        M = W.T @ W + sigma2 * np.eye(W.shape[1])
        Y = np.ldexp(arr - self.mean_, -e)
        return self._wrap_output(scipy.linalg.solve(M, W.T @ Y.T, assume_a="pos").T, X)

    def inverse_transform(self, Z: ArrayLike) -> np.ndarray:
        r"""Map latent points back to data space: :math:`W z + \mu`, shape (n, p)."""
        self._require_fitted()
        Z = as_data_matrix(Z, "Z").astype(np.float64, copy=False)
        if Z.shape[1] != self.W_.shape[1]:
            raise ValueError(f"Z has {Z.shape[1]} columns, expected n_components = {self.W_.shape[1]}")
        return Z @ self.W_.T + self.mean_

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        r"""Log-likelihood of each sample under :math:`\mathcal N(\mu, W W^\top + \sigma^2 I)`.

        A row with NaN entries gets the log-density of its observed entries, under their
        marginal :math:`\mathcal N(\mu_o, W_o W_o^\top + \sigma^2 I)`
        (:func:`pcalib.missing.observed_log_likelihood`): the held-out score that
        cross-validation with holes needs. Computed in the units of the fit,
        :math:`y = 2^{-e}(x - \mu)`, whose density is :math:`2^{e}` per observed
        coordinate times that of x.
        """
        arr, observed = self._checked_with_holes(X)
        e, W, sigma2 = self._model_in_units()
        Y0 = np.ldexp(np.where(observed, arr - self.mean_, 0.0), -e)
        jacobian = observed.sum(axis=1) * e * np.log(2.0)
        if observed.all():
            return _gaussian_log_likelihood(Y0, np.zeros(W.shape[0]), W, sigma2) - jacobian
        return observed_posterior(Y0, observed.astype(np.float64), W, sigma2)[2] - jacobian

    def score(self, X: ArrayLike, y: object = None) -> float:
        """Average log-likelihood of the samples of `X`."""
        return float(np.mean(self.score_samples(X)))

    def sample(self, n: int, random_state: int | np.random.Generator | None = None) -> np.ndarray:
        r"""Draw `n` samples :math:`x = W z + \mu + \varepsilon` from the fitted model."""
        self._require_fitted()
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        rng = check_random_state(random_state)
        p, k = self.W_.shape
        e, W, sigma2 = self._model_in_units()  # the noise's scale even when sigma2_ underflowed
        z = rng.standard_normal((int(n), k))
        eps = rng.standard_normal((int(n), p)) * np.sqrt(sigma2)
        return np.ldexp(z @ W.T + eps, e) + self.mean_

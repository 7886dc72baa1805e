r"""PPCA's EM: one driver for complete data and for data with missing entries.

:func:`run_em` owns what every PPCA EM fit shares: the random start, the iteration,
the log-likelihood history, the stopping rule (:func:`_converged`), and the warnings
when EM stops at ``max_iter`` or converges slowly. What differs between the models, the
E step and the M step with its parameter expansion (PX-EM, Liu, Rubin and Wu 1998),
comes in a step object (:class:`EMStep`): :class:`CompleteStep` here, for centered
complete data, and ``pcalib._ppca.missing_fits._ObservedStep``, for the observed entries of data
with NaN. Both work in units of a power of two chosen by their caller;
:func:`in_data_units` converts a fit back.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np
import scipy.linalg

from .._linalg.units import rescale
from .._utils.progress import progress
from .._utils.validation import check_random_state, warn_outside_pcalib
from .model import canonical_W, check_noise_variance, spectral_log_likelihood

_EPS = np.finfo(np.float64).eps
_TINY = np.finfo(np.float64).tiny

PosteriorMoments = tuple[np.ndarray, np.ndarray]  # the posterior moments that a step's M step takes


class Params(NamedTuple):
    """An EM iterate: W (p x k), the mean (p,) relative to the step's own center,
    and the noise variance."""

    W: np.ndarray
    mean: np.ndarray
    sigma2: float


class PPCAFit(NamedTuple):
    """A fitted PPCA model: W in canonical form (p x k), the mean (p,), the noise
    variance, and the log-likelihood of the data at each EM iterate (one value for
    the closed form), the last one that of the parameters returned."""

    W: np.ndarray
    mean: np.ndarray
    sigma2: float
    loglik_history: np.ndarray


class EMStep(Protocol):
    """What :func:`run_em` needs of a model: its E step and its M step.

    ``n_features`` is p, ``average_variance`` the mean squared centered entry (the
    scale of the random start), ``with_missing_values`` says which warnings to give.
    """

    n_features: int
    average_variance: float
    with_missing_values: bool

    def expect(self, params: Params) -> tuple[float, float, PosteriorMoments]:
        """E step at `params`: the log-likelihood of the data, the sum of the sizes
        of the terms summed for it (its round-off is ``4 eps`` times that), and the
        posterior moments that :meth:`maximize` takes."""
        ...

    def maximize(self, params: Params, moments: PosteriorMoments) -> Params:
        """M step and parameter expansion from the posterior moments at `params`."""
        ...


def _remaining(steps: list[float]) -> float:
    r"""What a linearly converging sequence still has to move, from its last two steps.

    With :math:`d_{t} \approx r\, d_{t-1}`, the steps still to come sum to
    :math:`d_t\, r / (1 - r)` (Aitken), which can be far larger than the last
    step when r is close to 1. Steps that do not shrink (:math:`r \ge 1`: a
    plateau) or are negative give infinity; a zero step gives 0.
    """
    d_prev, d = steps[-2], steps[-1]
    if d == 0:
        return 0.0
    if not 0 < d < d_prev:
        return np.inf
    r = d / d_prev
    return d * r / (1.0 - r)


# EM that needs more iterations than this warns that it converged slowly, and why. With
# well-separated eigenvalues PX-EM converges in a few dozen iterations (measured: 19 on
# 500 x 30 data with k = 10 and a gap of 4.5 to 1; 108 for eigenvalues (9, 4, 3.8, 1, 1,
# 1) and k = 2, where lambda_3/lambda_2 = 0.95); on 500 x 30 pure noise with k = 10
# (lambda_11/lambda_10 = 0.98) it needs 829.
_SLOW_ITERATIONS = 200


def _em_rate(history: list[float] | np.ndarray) -> float | None:
    r"""The factor by which EM's error shrinks per iteration near the end of a run.

    Near a maximum the distance of the parameters shrinks like :math:`r^t`, and the
    log-likelihood gains :math:`L_t - L_{t-1}` like :math:`r^{2t}`: `r` is the square
    root of the gains' geometric rate, fitted by least squares to the logarithms of
    the last 60 gains that stand above the round-off of L (the first quarter of the
    run, EM's transient, left out). None when fewer than 5 such gains are left.
    """
    values = np.asarray(history, dtype=np.float64)
    gains = np.diff(values)
    above = gains > 1e3 * np.finfo(np.float64).eps * max(abs(float(values[-1])), 1.0)
    t = np.flatnonzero(above)
    t = t[t >= gains.size // 4][-60:]
    if t.size < 5:
        return None
    slope = np.polyfit(t, np.log(gains[t]), 1)[0]
    return float(min(np.exp(slope / 2.0), 1.0))


def _slow_em_reason(history: list[float] | np.ndarray, k: int, missing: bool) -> str:
    """The part of a warning that says how slowly EM converged and why (see
    _SLOW_ITERATIONS)."""
    rate = _em_rate(history)
    measured = (
        f"near the end each iteration shrank the error only by a factor {rate:.3f}. "
        if rate is not None else ""
    )
    if missing:
        return (
            f"{measured}With complete data EM turns the fitted subspace like a power "
            f"iteration of the covariance, at a rate of about lambda_{k + 1}/lambda_{k} "
            "per iteration, and missing entries slow it further (the more information "
            f"they hold, the closer to 1). A rate near 1 means that eigenvalues {k} and "
            f"{k + 1} are nearly equal, so component {k} is poorly determined by the "
            "data, or that the holes hold much of the information; choose a number of "
            "components at a gap in the spectrum"
        )
    return (
        f"{measured}EM turns the fitted subspace like a power iteration of the "
        f"covariance, at a rate of about lambda_{k + 1}/lambda_{k} per iteration: a "
        f"rate near 1 means that eigenvalues {k} and {k + 1} are nearly equal, so "
        f"component {k} is poorly determined by the data. Choose a number of components "
        "at a gap in the spectrum, or method='closed_form', which gives the same maximum "
        "without iterating"
    )


def _converged(gains: list[float], roundoff: float, loglik: float, steps: list[float], tol: float) -> bool:
    r"""EM's stopping rule, one for every PPCA EM: a test on the log-likelihood and
    a test on the parameters, which must both pass.

    With :math:`L_t` the log-likelihood of iterate t, its gains
    :math:`g_t = L_t - L_{t-1}` and the parameter steps
    :math:`s_t = \Delta(\theta_{t-1}, \theta_t)` (:func:`_parameter_change`), EM stops
    at iterate t when

    .. math::

        \Big(\max(|g_t|, |g_{t-1}|) \le \epsilon_L \ \text{ or }\
        R(g) \le \mathrm{tol}\,|L_t|\Big) \quad\text{and}\quad
        R(s) \le \sqrt{\mathrm{tol}},

    where :math:`\epsilon_L` is the round-off of :math:`L_t` and
    :math:`R(g) = g_t\, r/(1 - r)`, :math:`r = g_t/g_{t-1}`, is the gain still to
    come if the gains keep shrinking geometrically (:func:`_remaining`, Aitken),
    likewise for the steps. Gains or steps that do not shrink (a plateau,
    :math:`r \ge 1`) never pass. The parameter test is needed because near the
    maximum a relative change :math:`\delta` of the parameters moves L by only
    about :math:`n p \delta^2 / 4` (less along a direction in which L is flat), below
    ``tol * |L|`` and the round-off of L long before :math:`\delta` is small.

    Parameters
    ----------
    gains, steps : list of float
        The gains :math:`g_2, \dots, g_t` and steps :math:`s_2, \dots, s_t` so far.
    roundoff : float
        :math:`\epsilon_L`.
    loglik : float
        :math:`L_t`.
    tol : float
        The estimator's ``tol``.

    Returns
    -------
    bool
        True when both tests pass.
    """
    if len(steps) < 2:
        return False
    at_roundoff = max(abs(gains[-1]), abs(gains[-2])) <= roundoff
    likelihood = at_roundoff or _remaining(gains) <= tol * abs(loglik)
    return likelihood and _remaining(steps) <= np.sqrt(tol)


class _Shape(NamedTuple):
    r"""What the parameter test compares of an iterate: :math:`\sigma^2`,
    :math:`W = A \operatorname{diag}(d) B^\top` (thin SVD), the mean, and the model's
    standard deviation of each feature, :math:`\sqrt{C_{jj}} = (\|w_j\|^2 + \sigma^2)^{1/2}`."""

    sigma2: float
    d: np.ndarray
    A: np.ndarray
    mean: np.ndarray
    sd: np.ndarray

    @classmethod
    def of(cls, params: Params) -> _Shape:
        W, mean, sigma2 = params
        A, d, _ = np.linalg.svd(W, full_matrices=False)
        return cls(sigma2, d, A, mean, np.sqrt(np.einsum("ij,ij->i", W, W) + sigma2))


def _parameter_change(old: _Shape, new: _Shape) -> float:
    r"""Relative change :math:`\Delta(\theta, \theta')` between two PPCA iterates.

    .. math::

        \Delta = \max\Big(\frac{|\sigma'^2 - \sigma^2|}{\sigma'^2},\
        \frac{\max_j |d_j'^2 - d_j^2|}{d_1'^2},\ \|A' - A A^\top A'\|_F,\
        \max_j \frac{|\mu_j' - \mu_j|}{\sqrt{C'_{jj}}}\Big),

    with :math:`W = A \operatorname{diag}(d) B^\top`: the relative change of
    :math:`\sigma^2`, the change of the :math:`d_j^2` relative to :math:`d_1^2`, the
    distance between the column spaces of W (rotations of W within its column
    space, to which the likelihood is blind, do not count), and the change of each
    feature's mean in units of its standard deviation under the model,
    :math:`C = W W^\top + \sigma^2 I` (0 for complete data, whose mean is not
    iterated).
    """
    subspace = np.linalg.norm(new.A - old.A @ (old.A.T @ new.A))
    return max(abs(new.sigma2 - old.sigma2) / new.sigma2,
               float(np.max(np.abs(new.d**2 - old.d**2))) / max(new.d[0] ** 2, _TINY),
               float(subspace), float(np.max(np.abs(new.mean - old.mean) / new.sd)))


def run_em(
    step: EMStep, k: int, *, max_iter: int, tol: float, random_state: object, verbose: bool = False
) -> PPCAFit:
    r"""Maximum-likelihood PPCA by EM, the model's iteration given by `step`.

    Starts from W with independent :math:`\mathcal N(0, \bar v)` entries, the mean 0
    and :math:`\sigma^2 = \bar v` (:math:`\bar v` the step's average variance), then
    alternates ``step.expect`` and ``step.maximize`` until :func:`_converged` passes
    or ``max_iter`` iterations have run (a warning says so). EM that converges in
    ``_SLOW_ITERATIONS`` iterations or more warns too, with the rate it measured. With
    `verbose`, each iteration is reported (:func:`pcalib._utils.progress.progress`: the
    log-likelihood and the noise variance, in the step's units).

    Returns the fit in the step's units, W in canonical form; its history ends
    with the log-likelihood of the parameters returned, also when ``max_iter``
    stops the iteration.
    """
    p, average = step.n_features, step.average_variance
    check_noise_variance(average, average)  # constant data
    rng = check_random_state(random_state)
    params = Params(rng.standard_normal((p, k)) * np.sqrt(average), np.zeros(p), average)
    label, missing = (" with missing values", True) if step.with_missing_values else ("", False)
    history: list[float] = []
    gains: list[float] = []
    steps: list[float] = []  # the relative changes of the parameters (_parameter_change)
    previous = None
    converged = False
    with progress(verbose, max_iter, f"PPCA EM{label}") as report:
        for _ in range(max_iter):
            loglik, size, moments = step.expect(params)
            shape = _Shape.of(params)
            if previous is not None:
                gains.append(loglik - history[-1])
                steps.append(_parameter_change(previous, shape))
            history.append(loglik)
            report.update(loglik=loglik, sigma2=params.sigma2)
            if _converged(gains, 4 * _EPS * size, loglik, steps, tol):
                report.done(f"converged in {len(history) - 1} iterations")
                converged = True
                break
            previous = shape
            params = step.maximize(params, moments)
        else:
            history.append(step.expect(params)[0])  # the iterate returned
            report.done(f"stopped at max_iter={max_iter} before converging")
    if not converged:
        slow = max_iter >= _SLOW_ITERATIONS
        warn_outside_pcalib(
            f"PPCA EM{label} did not converge in max_iter={max_iter} iterations (tol={tol}): the "
            f"log-likelihood still changed by {history[-1] - history[-2]:.3g} in the last one; "
            "increase max_iter" + (f"; {_slow_em_reason(history, k, missing)}" if slow else ""),
            UserWarning,
        )
    if _SLOW_ITERATIONS <= len(history) - 1 < max_iter:  # converged, slowly
        warn_outside_pcalib(
            f"PPCA EM{label} converged slowly, in {len(history) - 1} iterations: "
            + _slow_em_reason(history, k, missing),
            UserWarning,
        )
    return PPCAFit(canonical_W(params.W), params.mean, params.sigma2, np.asarray(history))


def complete_log_likelihood(Xc: np.ndarray, W: np.ndarray, sigma2: float) -> tuple[float, float]:
    r"""Total log-likelihood of centered complete data under :math:`\mathcal N(0, W W^\top
    + \sigma^2 I)`, by the thin SVD of W and :func:`pcalib._ppca.model.spectral_log_likelihood`, and the
    sum of the sizes of its terms (for its round-off)."""
    A, d, _ = np.linalg.svd(W, full_matrices=False)
    values, sizes = spectral_log_likelihood(Xc, A, d**2 + sigma2, sigma2)
    return float(values.sum()), float(sizes.sum())


class CompleteStep:
    r"""PX-EM on centered complete data :math:`X_c` (n x p), the iteration written out
    in :class:`pcalib.PPCA`'s docstring: with :math:`M = W^\top W + \sigma^2 I`, the
    posterior means :math:`\hat Z = X_c W M^{-1}` and
    :math:`E = n \sigma^2 M^{-1} + \hat Z^\top \hat Z`,

    .. math::

        W_* = X_c^\top \hat Z\, E^{-1}, \qquad
        \sigma^2_{\text{new}} = \frac{1}{np}\Big(\big\|X_c - \hat Z W_*^\top\big\|_F^2
        + n \sigma^2 \operatorname{tr}\big(M^{-1} W_*^\top W_*\big)\Big), \qquad
        W_{\text{new}} = W_* L, \quad L L^\top = E / n .

    The mean is the column mean, not iterated: the iterates' mean stays 0.
    """

    with_missing_values = False

    def __init__(self, Xc: np.ndarray) -> None:
        self.Xc = Xc
        n, self.n_features = Xc.shape
        self.average_variance = float(np.einsum("ij,ij->", Xc, Xc)) / n / self.n_features

    def expect(self, params: Params) -> tuple[float, float, PosteriorMoments]:
        W, _, sigma2 = params
        loglik, size = complete_log_likelihood(self.Xc, W, sigma2)
        Minv = scipy.linalg.inv(W.T @ W + sigma2 * np.eye(W.shape[1]), check_finite=False)
        return loglik, size, (Minv, (self.Xc @ W) @ Minv)  # posterior means, one row per sample

    def maximize(self, params: Params, moments: PosteriorMoments) -> Params:
        (n, p), (Minv, Z), sigma2 = self.Xc.shape, moments, params.sigma2
        E = n * sigma2 * Minv + Z.T @ Z  # sum of the posterior second moments
        W_star = scipy.linalg.solve(E, (self.Xc.T @ Z).T, assume_a="pos").T
        residual = self.Xc - Z @ W_star.T
        sigma2 = (float(np.einsum("ij,ij->", residual, residual))
                  + n * sigma2 * float(np.einsum("ij,ji->", Minv, W_star.T @ W_star))) / (n * p)
        check_noise_variance(sigma2, self.average_variance)
        return Params(W_star @ scipy.linalg.cholesky(E / n, lower=True), params.mean, sigma2)  # the expansion


def in_data_units(fit: PPCAFit, exponent: int, n_observed: int, center: np.ndarray | float = 0.0) -> PPCAFit:
    r"""A fit of :math:`y = 2^{-e}(x - c)` as a fit of x: W times :math:`2^e`, the mean
    :math:`c + 2^e \mu`, :math:`\sigma^2` times :math:`4^e`, and the log-likelihoods less
    :math:`N e \log 2` (the density of x is :math:`2^{-e}` per observed coordinate
    times that of y; N the number of observed entries). A result outside the
    float64 range is said in a warning naming the estimator's attribute.
    """
    return PPCAFit(
        rescale(fit.W, exponent, "W_"),
        center + rescale(fit.mean, exponent, "mean_"),
        float(rescale(np.asarray(fit.sigma2), 2 * exponent, "sigma2_")),
        fit.loglik_history - n_observed * exponent * np.log(2.0),
    )

r"""The PPCA model's closed forms, shared by :mod:`pcalib.ppca` (the estimator),
:mod:`pcalib.missing` (its EM with missing values) and the PPCA scores of
:class:`pcalib.PCA`: the log-density in spectral form, the canonical W, and the
extrapolated remaining change of a converging sequence (the EM stopping rule).
"""

from __future__ import annotations

import numpy as np

from ._signs import axis_signs

_LOG_2PI = float(np.log(2.0 * np.pi))


def _spectral_log_likelihood(
    D: np.ndarray, A: np.ndarray, c: np.ndarray, sigma2: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""Log-density of each row of `D` under :math:`\mathcal N(0, C)`,
    :math:`C = A \operatorname{diag}(c) A^\top + \sigma^2 (I - A A^\top)`.

    `A` (p x r) has orthonormal columns: C has eigenvalues :math:`c_j` along
    them and :math:`\sigma^2` on their orthogonal complement, so

    .. math::

        \log p(d) = -\tfrac12\Big(p \log 2\pi + \sum_j \log c_j + (p - r)\log\sigma^2
        + \sum_j \frac{(a_j^\top d)^2}{c_j} + \frac{\|d - A A^\top d\|^2}{\sigma^2}\Big).

    The residual :math:`d - A A^\top d` is computed directly, not as
    :math:`\|d\|^2 - \|A^\top d\|^2` (the subtraction hidden in the Woodbury form
    of :math:`C^{-1}`), which cancels when :math:`\sigma^2 \ll c_j`: at
    :math:`\sigma^2 = 10^{-14} c_1` it would lose every digit of the residual term.

    Returns the log-densities and, for round-off estimates, a bound on the size
    of the terms summed for each, rounding errors of d included.

    Raises
    ------
    ValueError
        If C is singular: some :math:`c_j = 0`, or :math:`\sigma^2 = 0` with r < p.
    """
    p, r = A.shape
    if np.any(c <= 0) or (r < p and not sigma2 > 0):
        raise ValueError(
            "the model covariance W W^T is singular (noise variance 0 and fewer than "
            "n_features directions of positive variance): the log-likelihood is undefined; "
            "use fewer components"
        )
    P = D @ A
    quad = np.einsum("ij,ij->i", P / c, P)
    logdet = float(np.sum(np.log(c)))
    size = float(np.sum(np.abs(np.log(c))))
    smallest = float(c.min())
    if r < p:
        R = D - P @ A.T
        quad += np.einsum("ij,ij->i", R, R) / sigma2
        logdet += (p - r) * np.log(sigma2)
        size += (p - r) * abs(np.log(sigma2))
        smallest = min(smallest, sigma2)
    # d carries a rounding error of about eps * ||d||, which moves the quadratic
    # form by up to 2 ||d|| sqrt(quad / smallest variance) times eps
    sizes = p * _LOG_2PI + size + quad + 2 * np.linalg.norm(D, axis=1) * np.sqrt(quad / smallest)
    return -0.5 * (p * _LOG_2PI + logdet + quad), sizes


def _canonical_W(W: np.ndarray) -> np.ndarray:
    r"""Remove the rotation R from :math:`W = U_k (\Lambda_k - \sigma^2 I)^{1/2} R`.

    The SVD :math:`W = A D B^\top` gives :math:`W B = A D`, orthogonal columns in
    decreasing norm; columns follow the sign convention.
    """
    A, d, _ = np.linalg.svd(W, full_matrices=False)
    Wc = A * d
    return Wc * axis_signs(Wc.T)


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

r"""The PPCA model's closed forms, shared by :mod:`pcalib.ppca` (the estimator),
:mod:`pcalib._ppca.em` and :mod:`pcalib._ppca.missing_fits` (its EM, with and without missing
values) and the PPCA scores of :class:`pcalib.PCA`: the log-density in spectral form,
the canonical W, and the check that the noise variance is not 0.
"""

from __future__ import annotations

import numpy as np

from .._linalg.signs import axis_signs

_EPS = np.finfo(np.float64).eps
_LOG_2PI = float(np.log(2.0 * np.pi))


def spectral_log_likelihood(
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


def canonical_W(W: np.ndarray) -> np.ndarray:
    r"""Remove the rotation R from :math:`W = U_k (\Lambda_k - \sigma^2 I)^{1/2} R`.

    The SVD :math:`W = A D B^\top` gives :math:`W B = A D`, orthogonal columns in
    decreasing norm; columns follow the sign convention.
    """
    A, d, _ = np.linalg.svd(W, full_matrices=False)
    Wc = A * d
    return Wc * axis_signs(Wc.T)


def check_noise_variance(sigma2: float, average_variance: float) -> None:
    r"""Raise ``ValueError`` if the noise variance is 0 to working precision,
    :math:`\sigma^2 \le (10^3\varepsilon)^2 \bar v` with :math:`\bar v` the average
    variance of the data: they have rank at most k after centering, and the
    likelihood is unbounded (closed form and EM alike)."""
    if not sigma2 > (1e3 * _EPS) ** 2 * average_variance:
        raise ValueError(
            "the noise variance estimate is 0: X has rank <= n_components, so the "
            "likelihood is unbounded; choose fewer components"
        )

r"""The rules for the number of components that read the explained-variance ratios
alone: the threshold of variance, Kaiser's, the broken stick and Minka's.

:func:`pcalib.choose_k` runs them (and, above them in :mod:`pcalib.selection`, the
noise rules and the data rules); the estimators cut a fraction of variance or Minka's
"mle" with them (``pcalib._estimator.n_components``). :func:`broken_stick` and
:func:`minka_log_evidence` are public as ``pcalib.broken_stick`` and
``pcalib.minka_log_evidence``.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from .._utils.validation import check_flag
from .spectra import as_spectrum, check_decreasing, check_int, numerical_rank, rank_tolerance

__all__ = [
    "RATIO_RULES",
    "Spectrum",
    "broken_stick",
    "minka_log_evidence",
    "ratio_rule",
    "sample_and_feature_counts",
    "spectrum_of_ratios",
    "threshold_rule",
    "whole_ratios",
]

_EPS = np.finfo(np.float64).eps
RATIO_RULES = ("threshold", "kaiser", "broken_stick", "minka")


def broken_stick(p: int) -> np.ndarray:
    r"""Expected shares of the pieces of a stick broken at random into `p` pieces.

    A stick of length 1 is cut at p - 1 independent uniform points. The
    expected length of the j-th longest piece is

    .. math:: b_j = \frac{1}{p} \sum_{i=j}^{p} \frac{1}{i}, \qquad j = 1, \dots, p,

    and :math:`\sum_j b_j = 1`. The broken-stick rule keeps the leading
    components whose explained-variance ratio exceeds :math:`b_j`.

    Parameters
    ----------
    p : int
        Number of pieces (features), at least 1.

    Returns
    -------
    ndarray of shape (p,)
        :math:`b_1 > b_2 > \dots > b_p` (:math:`b_1 = 1` for p = 1).

    Raises
    ------
    TypeError
        If `p` is not an integer.
    ValueError
        If `p` < 1.

    Examples
    --------
    >>> broken_stick(2)
    array([0.75, 0.25])
    """
    p = check_int(p, "p", 1)
    inverse = 1.0 / np.arange(1, p + 1)
    return np.cumsum(inverse[::-1])[::-1] / p


def minka_log_evidence(eigenvalues: ArrayLike, n_samples: int) -> np.ndarray:
    r"""Minka's Laplace approximation of the log-evidence :math:`\log p(X \mid k)`.

    For the PPCA model with k components, Minka (2000, eq. 30) approximates the
    evidence from the eigenvalues :math:`\lambda_1 \ge \dots \ge \lambda_p` of
    the covariance (any divisor: the choice of k is scale free) and n:

    .. math::

        \log p(X \mid k) \approx{} & \log p(U) - \frac n2 \sum_{j \le k} \log\lambda_j
        - \frac{n (p - k)}{2} \log v \\
        & + \frac{m + k}{2} \log 2\pi - \frac12 \log |A_Z| - \frac k2 \log n,

    with :math:`v = \frac{1}{p-k}\sum_{j > k} \lambda_j`,
    :math:`m = pk - k(k+1)/2`,
    :math:`\log p(U) = -k \log 2 + \sum_{i=1}^{k} \big(\log\Gamma(\frac{p-i+1}{2})
    - \frac{p-i+1}{2}\log\pi\big)` and

    .. math::

        \log |A_Z| &= \sum_{a=1}^{k} \sum_{b=a+1}^{p}
        \log\Big(n\,(\lambda_a - \lambda_b)\big(\hat\lambda_b^{-1} - \hat\lambda_a^{-1}\big)\Big), \\
        \hat\lambda_j &= \lambda_j \ (j \le k), \qquad \hat\lambda_j = v \ (j > k).

    This is the function that scikit-learn maximizes for
    ``PCA(n_components="mle")`` (``_assess_dimension``), computed here for all k
    at once in :math:`O(p^2)`. Eigenvalues within round-off of 0 (below
    :math:`\max(n, p)\, \varepsilon\, \lambda_1` in absolute value, the rank
    tolerance of :func:`pcalib.pca_eig`; some of them negative) are set to 0; zeros
    mark a rank deficiency: a k with :math:`\lambda_k = 0` gets :math:`-\infty`, and
    the k with :math:`\lambda_k > 0 = v` (k is the rank) gets :math:`+\infty`,
    the limit of the evidence as :math:`v \to 0` (for n > k). scikit-learn
    instead floors :math:`\lambda_k` and v at an absolute 1e-15, which makes
    its k there depend on the units of the data. A k whose first k + 1
    eigenvalues are not distinct gets :math:`-\infty` (the Laplace
    approximation needs distinct eigenvalues).

    Parameters
    ----------
    eigenvalues : array_like of shape (p,)
        All p eigenvalues (or explained-variance ratios), non-negative (up to
        round-off) and non-increasing, p >= 2.
    n_samples : int
        Number of samples n, at least p (scikit-learn's condition).

    Returns
    -------
    ndarray of shape (p - 1,)
        Entry ``k - 1`` is the log-evidence of k components, k = 1, ..., p - 1.
        Minka's rule is ``argmax + 1``: it never returns 0 (k = 0, isotropic data,
        is not among the models compared).

    Raises
    ------
    TypeError
        If the eigenvalues are not numeric or `n_samples` not an integer.
    ValueError
        If fewer than 2 eigenvalues, negative (beyond round-off), increasing or
        non-finite ones, all zero, or ``n_samples < p``.
    """
    n = check_int(n_samples, "n_samples", 1)
    lam, dtype = as_spectrum(eigenvalues, "eigenvalues", n)
    check_decreasing(lam, "eigenvalues")
    p = lam.size
    if p < 2:
        raise ValueError(f"Minka's rule needs at least 2 eigenvalues (features), got {p}")
    if n < p:
        raise ValueError(
            f"Minka's rule needs n_samples >= the number of features ({p}), got n_samples={n}"
        )
    lam = np.where(lam > rank_tolerance(lam, n, dtype), lam, 0.0)
    ks = np.arange(1, p)
    tail = np.cumsum(lam[::-1])[::-1]  # tail[j] = sum of lam[j:]
    v = tail[1:] / (p - ks)
    positive = lam[:-1] > 0
    distinct = np.cumsum(np.diff(lam) >= 0) == 0  # lam_1 > ... > lam_{k+1}
    usable = positive & (v > 0) & distinct
    evidence = np.where(positive & (v == 0), np.inf, -np.inf)
    if not usable.any():
        return evidence
    # Only the first K eigenvalues enter a usable k's terms, K = largest usable k + 1.
    K = int(ks[usable].max()) + 1
    log_lam = np.log(lam[:K], where=lam[:K] > 0, out=np.full(K, -np.inf))
    with np.errstate(divide="ignore"):
        gaps = np.log(np.triu(lam[:K, None] - lam[None, :], 1))  # log(lam_a - lam_b), b > a
    gaps[np.tril_indices(K)] = 0.0
    gaps_kept = np.cumsum(gaps[:, :K].sum(axis=0))  # sum over a < b < k of log gaps, by k
    gaps_rows = np.cumsum(gaps[: K - 1].sum(axis=1))  # sum over a < k, b > a, by k
    cum_log_lam = np.cumsum(log_lam)
    i = np.arange(1, K)
    log_pU = np.cumsum(gammaln((p - i + 1) / 2) - (p - i + 1) / 2 * np.log(np.pi)) - i * np.log(2)
    for k in ks[usable]:
        kept = cum_log_lam[k - 1]
        m = p * k - k * (k + 1) / 2
        log_AZ = (
            gaps_rows[k - 1]
            + gaps_kept[k - 1] - (k - 1) * kept  # a < b <= k: log((lam_a - lam_b) / (lam_a lam_b))
            + (p - k) * np.sum(np.log(1 / v[k - 1] - 1 / lam[:k]))
            + m * np.log(n)
        )
        evidence[k - 1] = (
            log_pU[k - 1] - n / 2 * kept - n * (p - k) / 2 * np.log(v[k - 1])
            + (m + k) / 2 * np.log(2 * np.pi) - log_AZ / 2 - k / 2 * np.log(n)
        )
    return evidence


class Spectrum(NamedTuple):
    """A spectrum as the spectrum rules read it."""

    ratios: np.ndarray  #: decreasing explained-variance ratios, float64, >= 0
    dtype: np.dtype  #: the dtype they came in (its epsilon sets the tolerances)
    n_samples: int | None
    n_features: int | None  #: None for bare ratios: p is then taken to be their number
    correlation: bool  #: the eigenvalues are those of a correlation matrix


def spectrum_of_ratios(ratios: ArrayLike, n_samples: int | None, standardize: bool) -> Spectrum:
    """`ratios` validated as explained-variance ratios (:func:`as_spectrum`), with n if
    known and p unknown."""
    r, dtype = as_spectrum(ratios, "explained_variance_ratio", n_samples)
    return Spectrum(r, dtype, n_samples, None, check_flag(standardize, "standardize"))


def whole_ratios(method: str, spectrum: Spectrum) -> np.ndarray:
    """The ratios of `spectrum` checked for the rule `method`: summing to at most 1 (up
    to round-off); for every rule but "threshold", also non-increasing and summing to 1
    (those of every component, not of the leading ones only)."""
    r = spectrum.ratios
    total = float(np.sum(r))
    eps = float(np.finfo(spectrum.dtype).eps) if spectrum.dtype.kind == "f" else _EPS
    if total > 1 + max(1e-8, 8 * r.size * eps):
        raise ValueError(f"explained_variance_ratio must hold ratios summing to at most 1, got a sum of {total!r}")
    if method == "threshold":
        return r
    check_decreasing(r, "explained_variance_ratio")
    if total < 1 - np.sqrt(eps):  # float32 ratios of PCA itself sum to 1 within about 1e-7
        raise ValueError(
            f"method={method!r} reads the whole spectrum, but the ratios sum to {total:.6g}: "
            "they are those of the leading components only. Pass the ratios of every "
            "component (PCA(n_components=None)), a model fitted with every component, or X"
        )
    return r


def sample_and_feature_counts(method: str, spectrum: Spectrum) -> tuple[int, int]:
    """n and p of `spectrum` for a rule that needs n (p is the number of ratios when
    only they were given)."""
    n = spectrum.n_samples
    if n is None:
        raise ValueError(f"method={method!r} with explained_variance_ratio needs n_samples")
    return n, spectrum.ratios.size if spectrum.n_features is None else spectrum.n_features


def ratio_rule(method: str, spectrum: Spectrum, threshold: float) -> int:
    """k by one of :data:`RATIO_RULES` (the rules of :func:`pcalib.choose_k`)."""
    r = whole_ratios(method, spectrum)
    if method == "threshold":
        return threshold_rule(r, threshold)
    rank = numerical_rank(r, spectrum.n_samples, spectrum.dtype)
    kept = r[:rank]
    if method == "kaiser":
        return int(np.sum(kept > kept.sum() / rank))
    if method == "broken_stick":
        above = kept > broken_stick(rank)
        return int(np.argmin(above)) if not above.all() else rank
    n, p = sample_and_feature_counts(method, spectrum)
    if p > n:
        raise ValueError(f"Minka's rule needs n_samples >= the number of features ({p}), got {n}")
    return int(np.argmax(minka_log_evidence(np.pad(r, (0, p - r.size)), n))) + 1


def threshold_rule(r: np.ndarray, threshold: float) -> int:
    """The smallest k whose leading ratios `r` reach `threshold` (with a round-off
    allowance of ``8 * len(r) * eps``)."""
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a real number in (0, 1], got {threshold!r}")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    cumulative = np.cumsum(r)
    reached = np.flatnonzero(cumulative >= threshold - 8 * r.size * _EPS)
    if reached.size == 0:
        raise ValueError(
            f"explained_variance_ratio sums to {cumulative[-1]:.6g}, below threshold={threshold}; "
            "pass the ratios of all components"
        )
    return int(reached[0]) + 1

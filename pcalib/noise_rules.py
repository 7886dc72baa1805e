r"""Rules for k that compare the spectrum with noise (chapter *How many components, and
how sure?*).

* :func:`parallel_analysis`: the eigenvalues of null data sets, column permutations
  of the data (Buja and Eyuboglu 1992) or normal data with the same column variances
  (Horn 1965);
* :func:`marchenko_pastur_edge`: the upper edge of the Marchenko-Pastur law at an
  estimated noise variance, with a Tracy-Widom margin;
* :func:`bartlett_test`: the chi-square tests of equal trailing eigenvalues of
  Bartlett (1950, 1951) and Lawley (1956);
* :func:`velicer_map`: Velicer's (1976) minimum average partial correlation.

Each returns what the rule compares; :func:`pcalib.choose_k` returns the k alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import chdtrc

from ._linalg.spectra import (
    as_spectrum,
    centered_in_units,
    check_decreasing,
    check_int,
    check_level,
    marchenko_pastur_median,
    numerical_rank,
    rank_tolerance,
    spectra_of_stack,
    spectrum_of_centered,
    stacked,
)
from ._linalg.units import rescale
from ._utils.validation import check_random_state

__all__ = [
    "BartlettTest",
    "MarchenkoPasturEdge",
    "ParallelAnalysis",
    "bartlett_test",
    "marchenko_pastur_edge",
    "parallel_analysis",
    "velicer_map",
]

#: The 95% quantile of the Tracy-Widom law of order 1 (Johnstone 2001, table 1).
TRACY_WIDOM_95 = 0.9793
_NULLS = ("permutation", "normal")


# -- parallel analysis -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ParallelAnalysis:
    """Result of :func:`parallel_analysis`.

    Attributes
    ----------
    n_components : int
        Number of leading eigenvalues above their threshold (0 to p).
    eigenvalues : ndarray of shape (p,)
        Eigenvalues of the data's covariance (or correlation) matrix, decreasing.
    thresholds : ndarray of shape (p,)
        The `quantile` (or the mean) of the j-th eigenvalue over the null data sets.
    """

    n_components: int
    eigenvalues: np.ndarray
    thresholds: np.ndarray


def parallel_analysis(
    X: ArrayLike,
    *,
    n_resamples: int = 100,
    quantile: float | Literal["mean"] = 0.95,
    null: Literal["permutation", "normal"] = "permutation",
    standardize: bool = False,
    random_state: int | np.random.Generator | None = None,
) -> ParallelAnalysis:
    r"""Parallel analysis: which eigenvalues stand above those of structureless data?

    Each of `n_resamples` null data sets has the n x p shape of X and no correlation:

    * ``null="permutation"`` (Buja and Eyuboglu 1992): every column of the centered
      data permuted independently; the column variances and distributions stay, the
      correlations are destroyed;
    * ``null="normal"`` (Horn 1965): independent normal columns with the data's
      column variances (unit variances with `standardize`, Horn's correlation matrices).

    With :math:`\lambda_j^{(b)}` the eigenvalues of null set b and :math:`q_j` their
    `quantile` over b (Glorfeld 1995 took the 95% quantile, Horn the mean),

    .. math:: k = \max\{\, j : \lambda_l > q_l \text{ for every } l \le j \,\}

    (0 if :math:`\lambda_1 \le q_1`). Both nulls spread the total variance evenly:
    their eigenvalues lie around :math:`\operatorname{tr}(S)/p`, the average
    eigenvalue, not around the noise variance of a spiked model, which is smaller
    by the variance of the spikes (the chapter measures the cost).

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, n >= 2. Not modified.
    n_resamples : int, default 100
        Number of null data sets.
    quantile : float in (0, 1) or "mean", default 0.95
        Quantile of the null eigenvalues, or "mean" for their average.
    null : {"permutation", "normal"}, default "permutation"
        How the null data sets are drawn (above).
    standardize : bool, default False
        Work with the correlation matrix (standardized columns; each normal null set
        is standardized by its own deviations) instead of the covariance.
    random_state : None, int or numpy.random.Generator
        Seed of the null data; the result is deterministic for a fixed seed.

    Returns
    -------
    ParallelAnalysis

    Raises
    ------
    TypeError, ValueError
        For invalid data (as :func:`pcalib.covariance`; a constant column when
        standardizing), zero total variance or invalid options.
    """
    k, observed, thresholds, e = parallel_analysis_in_units(
        X, n_resamples, quantile, null, standardize, random_state
    )
    return ParallelAnalysis(
        n_components=k,
        eigenvalues=rescale(observed, 2 * e, "the eigenvalues"),
        thresholds=rescale(thresholds, 2 * e, "the thresholds"),
    )


def parallel_analysis_in_units(
    X: ArrayLike, n_resamples: int, quantile: object, null: str, standardize: bool, random_state: object
) -> tuple[int, np.ndarray, np.ndarray, int]:
    """:func:`parallel_analysis` in units of 2**e: (k, eigenvalues, thresholds, e); k is
    decided there, so it does not depend on the scale of X."""
    Xc, e = centered_in_units(X, standardize)
    n, p = Xc.shape
    n_resamples = check_int(n_resamples, "n_resamples", 1)
    level = None if isinstance(quantile, str) and quantile == "mean" else check_level(quantile, "quantile")
    if null not in _NULLS:
        raise ValueError(f"null must be one of {_NULLS}, got {null!r}")
    rng = check_random_state(random_state)
    observed = spectrum_of_centered(Xc)
    sd = np.sqrt(np.einsum("ij,ij->j", Xc, Xc) / (n - 1))

    def null_spectra(count: int) -> np.ndarray:
        if null == "permutation":  # a permuted centered column is still centered
            # permuted in place in a C-ordered copy: the same draws as permuting a
            # broadcast view, whose strided result made the Gram products slow
            stack = np.repeat(Xc[None], count, axis=0)
            rng.permuted(stack, axis=1, out=stack)
        else:
            stack = rng.standard_normal((count, n, p)) * sd
            stack -= stack.mean(axis=1, keepdims=True)
            if standardize:
                stack /= np.sqrt(np.einsum("bij,bij->bj", stack, stack) / (n - 1))[:, None, :]
        w = spectra_of_stack(stack)
        spectra = np.zeros((count, p))
        spectra[:, : w.shape[1]] = np.where(w > max(n, p) * np.finfo(float).eps * w[:, :1], w, 0.0) / (n - 1)
        return spectra

    spectra = stacked(n_resamples, n * p, null_spectra)
    thresholds = spectra.mean(axis=0) if level is None else np.quantile(spectra, level, axis=0)
    above = observed > thresholds
    k = int(np.argmin(above)) if not above.all() else above.size
    return k, observed, thresholds, e


# -- the Marchenko-Pastur edge -------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MarchenkoPasturEdge:
    r"""Result of :func:`marchenko_pastur_edge` (in the units of the eigenvalues given).

    Attributes
    ----------
    n_components : int
        Number of eigenvalues above `threshold`.
    noise_variance : float
        :math:`\hat\sigma^2`, from the median eigenvalue.
    edge : float
        The upper edge :math:`\hat\sigma^2 (\sqrt{N} + \sqrt{p})^2 / N` of pure noise.
    threshold : float
        The edge plus the Tracy-Widom margin: what an eigenvalue must exceed.
    """

    n_components: int
    noise_variance: float
    edge: float
    threshold: float


def marchenko_pastur_edge(
    eigenvalues: ArrayLike, n_samples: int, *, n_features: int | None = None
) -> MarchenkoPasturEdge:
    r"""Components above the noise edge of random matrix theory, at an estimated noise level.

    With N = n - 1 degrees of freedom and p features, the nonzero eigenvalues of the
    covariance of pure noise of variance :math:`\sigma^2` fill
    :math:`[\sigma^2(\sqrt N - \sqrt p)^2, \sigma^2(\sqrt N + \sqrt p)^2]/N` (the
    Marchenko-Pastur law). The noise variance is estimated from the median of the
    :math:`m = \min(N, p)` eigenvalues that noise makes nonzero (Gavish and Donoho 2014):

    .. math::

        \hat\sigma^2 = \frac{N\, \operatorname{median}(\lambda_1, \dots, \lambda_m)}{M\, \mu_\beta},
        \qquad M = \max(N, p),\ \beta = m / M,

    :math:`\mu_\beta` the median of the law of ratio :math:`\beta` and variance 1; a
    few spikes barely move a median. An eigenvalue counts as signal above the 95%
    quantile of the largest noise eigenvalue, by the Tracy-Widom limit of Johnstone
    (2001) with the half-integer centering of Ma (2012):

    .. math::

        \lambda_j > \hat\sigma^2\, \frac{\mu + 0.9793\, s}{N},

    .. math::

        \mu = \big(\sqrt{N - \tfrac12} + \sqrt{p - \tfrac12}\big)^2, \quad
        s = \big(\sqrt{N - \tfrac12} + \sqrt{p - \tfrac12}\big)
        \Big(\tfrac{1}{\sqrt{N - 1/2}} + \tfrac{1}{\sqrt{p - 1/2}}\Big)^{1/3}.

    k is the number of eigenvalues above that threshold. A spectrum whose numerical
    rank r is below min(N, p) (constant or collinear columns, its zeros written out) is
    read as data in r dimensions: p = r above.

    Parameters
    ----------
    eigenvalues : array_like of shape (p,) or (min(n, p),)
        Every eigenvalue of the covariance with divisor n - 1, decreasing, never the
        leading ones only (``PCA(n_components=None)``, not ``PCA(10)``): the median is
        that of all of them. Any common factor, such as explained-variance ratios,
        scales `noise_variance` alike and leaves k.
    n_samples : int
        Number of samples n.
    n_features : int, optional
        Number of features p; default the number of eigenvalues, allowed only when they
        number fewer than n - 1. A spectrum of n - 1 or more eigenvalues may be the
        min(n, p) leading ones of a wider matrix (``PCA().fit(X).explained_variance_``
        with n < p), whose p it cannot tell; such a spectrum needs `n_features`. With
        `n_features`, at least min(n - 1, p) eigenvalues are required; without it,
        the eigenvalues given are taken to be all p of them.

    Returns
    -------
    MarchenkoPasturEdge

    Raises
    ------
    TypeError, ValueError
        For eigenvalues that are not numeric, not decreasing or negative beyond
        round-off; `n_features` below their number; `n_features` missing for n - 1 or
        more eigenvalues; with `n_features`, fewer than min(n - 1, p) eigenvalues; fewer
        than two nonzero eigenvalues.
    """
    n = check_int(n_samples, "n_samples", 3)
    lam, dtype = as_spectrum(eigenvalues, "eigenvalues", n)
    check_decreasing(lam, "eigenvalues")
    if n_features is None and lam.size >= n - 1:
        raise ValueError(
            f"{lam.size} eigenvalues at n_samples={n} may be the leading min(n, p) of more "
            "features: pass n_features=p"
        )
    p = lam.size if n_features is None else check_int(n_features, "n_features", lam.size)
    N = n - 1
    if lam.size < min(N, p):
        raise ValueError(
            f"eigenvalues must hold every eigenvalue, at least min(n_samples - 1, n_features) "
            f"= {min(N, p)} (zeros written out), got {lam.size}: the leading ones alone would "
            "set the noise variance from the wrong median"
        )
    rank = numerical_rank(lam, n, dtype)
    dims = p if rank >= min(N, p) else rank
    m, M = min(N, dims), max(N, dims)
    if m < 2:
        raise ValueError(f"the Marchenko-Pastur edge needs at least 2 nonzero eigenvalues, got {m}")
    sigma2 = N * float(np.median(lam[:m])) / (M * marchenko_pastur_median(m / M))
    root = np.sqrt(N - 0.5) + np.sqrt(dims - 0.5)
    spread = root * (1 / np.sqrt(N - 0.5) + 1 / np.sqrt(dims - 0.5)) ** (1 / 3)
    threshold = sigma2 * (root**2 + TRACY_WIDOM_95 * spread) / N
    edge = sigma2 * (np.sqrt(N) + np.sqrt(dims)) ** 2 / N
    return MarchenkoPasturEdge(int(np.sum(lam[:m] > threshold)), sigma2, float(edge), float(threshold))


# -- Bartlett's test -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BartlettTest:
    r"""Result of :func:`bartlett_test`: the tests of :math:`H_k`, k = 0, ..., r - 2.

    Attributes
    ----------
    n_components : int
        The first k whose :math:`H_k` is not rejected at `alpha` (r - 1 if all are).
    statistic, df, p_value : ndarray of shape (r - 1,)
        Entry k: the chi-square statistic of :math:`H_k`, its degrees of freedom and
        its p-value.
    """

    n_components: int
    statistic: np.ndarray
    df: np.ndarray
    p_value: np.ndarray


def bartlett_test(
    eigenvalues: ArrayLike, n_samples: int, *, correlation: bool = False, alpha: float = 0.05
) -> BartlettTest:
    r"""Chi-square tests that the trailing eigenvalues are equal (Bartlett, Lawley).

    :math:`H_k: \lambda_{k+1}(C) = \dots = \lambda_r(C)`, r the numerical rank of the
    spectrum (p for data with n > p and no collinear columns). With
    :math:`q = r - k`, :math:`\bar\lambda = \frac1q\sum_{j>k}\lambda_j` and
    N = n - 1, the likelihood-ratio statistic of the normal model is

    .. math:: T_k = c_k \Big( q \log\bar\lambda - \sum_{j = k+1}^{r} \log\lambda_j \Big),

    with the multiplier of Lawley (1956) for the covariance matrix,

    .. math:: c_k = N - k - \frac{2q^2 + q + 2}{6q}
        + \bar\lambda^2 \sum_{i \le k} \frac{1}{(\lambda_i - \bar\lambda)^2},
        \qquad \text{df} = \frac{(q + 2)(q - 1)}{2},

    and, with ``correlation=True``, Bartlett's (1950, 1951) for the correlation
    matrix, :math:`c_k = N - (2r + 5)/6 - 2k/3`, df = r(r - 1)/2 for k = 0 (the test
    of R = I, R's ``psych::cortest.bartlett``) and (q + 2)(q - 1)/2 for k >= 1,
    whose chi-square law is only a rough approximation (Bentler and Yuan 1998).
    The tests run in order: k is the first :math:`H_k` not rejected at `alpha`.
    They assume normal data, and at large n they reject for departures from
    equality too small to matter.

    Parameters
    ----------
    eigenvalues : array_like
        Eigenvalues of the covariance (or correlation) matrix, decreasing, any divisor.
    n_samples : int
        Number of samples n; n - 1 must exceed the rank r.
    correlation : bool, default False
        The eigenvalues are those of a correlation matrix.
    alpha : float, default 0.05
        Level of each test, in (0, 1).

    Returns
    -------
    BartlettTest

    Raises
    ------
    TypeError, ValueError
        For invalid eigenvalues, fewer than 2 nonzero ones, n - 1 <= r or a bad `alpha`.
    """
    n = check_int(n_samples, "n_samples", 2)
    lam, dtype = as_spectrum(eigenvalues, "eigenvalues", n)
    check_decreasing(lam, "eigenvalues")
    alpha = check_level(alpha, "alpha")
    r = numerical_rank(lam, n, dtype)
    N = n - 1
    if r < 2 or N <= r:
        raise ValueError(
            f"Bartlett's test needs at least 2 nonzero eigenvalues and n_samples - 1 above "
            f"their number, got {r} of them and n_samples={n}"
        )
    lam = lam[:r]
    k = np.arange(r - 1)
    q = r - k
    tail_sums = np.cumsum(lam[::-1])[::-1][:-1]  # sum of lam[k:], k = 0..r-2
    mean = tail_sums / q
    log_tail = np.cumsum(np.log(lam)[::-1])[::-1][:-1]
    log_ratio = q * np.log(mean) - log_tail  # >= 0 by the AM-GM inequality
    df = (q + 2) * (q - 1) / 2
    if correlation:
        multiplier = N - (2 * r + 5) / 6 - 2 * k / 3
        df[0] = r * (r - 1) / 2
    else:
        # (mean / gap)**2, not mean**2 / gap**2: the squares of eigenvalues near
        # 1e+-300 leave float64 (0 / 0 gave a NaN statistic), their ratios do not
        kept = [np.sum((mean[j] / (lam[:j] - mean[j])) ** 2) for j in k]
        multiplier = N - k - (2 * q**2 + q + 2) / (6 * q) + np.array(kept)
    statistic = multiplier * np.maximum(log_ratio, 0.0)
    p_value = chdtrc(df, statistic)
    accepted = np.flatnonzero(p_value > alpha)
    chosen = int(accepted[0]) if accepted.size else r - 1
    return BartlettTest(chosen, statistic, df, p_value)


# -- Velicer's MAP -----------------------------------------------------------------------


def velicer_map(X: ArrayLike, *, power: int = 2) -> np.ndarray:
    r"""Velicer's minimum average partial correlation, for m = 0, ..., r - 1 components.

    With R the correlation matrix of X, :math:`\lambda_j, \mathbf v_j` its
    eigenpairs, r its rank, and :math:`C_m = R - \sum_{j \le m} \lambda_j \mathbf v_j \mathbf v_j^\top`
    the partial covariances after removing m principal components,

    .. math::

        \mathrm{MAP}_m = \frac{1}{p(p - 1)} \sum_{i \ne l}
        \Big(\frac{(C_m)_{il}^2}{(C_m)_{ii} (C_m)_{ll}}\Big)^{a/2},

    with a = `power`: for a = 2 the average squared partial correlation (Velicer 1976;
    ``psych::VSS``'s ``map`` for m >= 1), for a = 4 the average fourth power of the
    revision of Velicer, Eaton and Fava (2000). Velicer's rule keeps the m of smallest
    MAP, which can be 0: the components are kept while removing them lowers the partial
    correlations. A variable whose partial variance vanishes (to round-off) makes
    :math:`\mathrm{MAP}_m` undefined: ``inf``, never chosen.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, p >= 2, no constant column. Not modified.
    power : {2, 4}, default 2
        The power a of the partial correlations averaged (above).

    Returns
    -------
    ndarray of shape (r,)
        :math:`\mathrm{MAP}_m`, m = 0, ..., r - 1.

    Raises
    ------
    TypeError, ValueError
        For invalid data, fewer than 2 features, a constant column or a `power` that is
        not the integer 2 or 4.
    """
    if isinstance(power, bool) or not isinstance(power, (int, np.integer)):
        raise TypeError(f"power must be the integer 2 or 4, got {power!r}")
    if power not in (2, 4):
        raise ValueError(f"power must be 2 or 4, got {power!r}")
    Z, _ = centered_in_units(X, True)
    n, p = Z.shape
    if p < 2:
        raise ValueError(f"Velicer's MAP needs at least 2 features, got {p}")
    R = Z.T @ Z / (n - 1)
    w, V = np.linalg.eigh(R)
    w, V = w[::-1], V[:, ::-1]
    rank = numerical_rank(w, n)
    tolerance = rank_tolerance(w, n)
    partial = R.copy()
    values = np.empty(rank)
    for m in range(rank):
        if m:
            partial -= w[m - 1] * np.outer(V[:, m - 1], V[:, m - 1])
        d = np.diag(partial).copy()
        if np.any(d <= tolerance):
            values[m] = np.inf
            continue
        correlations = partial / np.sqrt(np.outer(d, d))
        np.fill_diagonal(correlations, 0.0)
        values[m] = np.sum(correlations**power) / (p * (p - 1))
    return values

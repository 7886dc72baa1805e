r"""Rules for the number of components k (chapter *How many components, and how sure?*).

Spectrum rules look at the eigenvalues :math:`\lambda_1 \ge \dots \ge \lambda_p`
only, through the explained-variance ratios :math:`r_j = \lambda_j / \sum_l \lambda_l`:

* ``"threshold"``: the smallest k with :math:`\sum_{j \le k} r_j \ge t`;
* ``"kaiser"`` (Kaiser 1960): the components with :math:`\lambda_j` above the
  average eigenvalue, :math:`r_j > 1/p` (:math:`\lambda_j > 1` for a correlation matrix);
* ``"broken_stick"`` (Frontier 1976, Jackson 1993): the leading components with
  :math:`r_j` above the expected share :math:`b_j` of :func:`broken_stick`;
* ``"minka"`` (Minka 2000): the k of largest Laplace-approximated evidence
  :math:`\log p(X \mid k)` (:func:`minka_log_evidence`), scikit-learn's ``"mle"``.

Data rules resample the data:

* ``"parallel"`` (Horn 1965): the leading eigenvalues above the 95% quantile of
  the eigenvalues of column-permuted data (:func:`parallel_analysis`);
* ``"cv"`` (Bro, Kjeldahl, Smilde and Kiers 2008): the k of smallest
  row-and-column cross-validated prediction error (:func:`cv_press`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ._units import center_array, centered_data, rescale
from ._validation import check_flag, check_random_state, validated
from .pca import pca_eig, pca_gram

__all__ = [
    "choose_k",
    "broken_stick",
    "minka_log_evidence",
    "ParallelAnalysis",
    "parallel_analysis",
    "cv_press",
]

_EPS = np.finfo(np.float64).eps
_SPECTRUM_RULES = ("threshold", "kaiser", "broken_stick", "minka")
_DATA_RULES = ("parallel", "cv")
_RULES = _SPECTRUM_RULES + _DATA_RULES


def _as_spectrum(values: ArrayLike, name: str) -> np.ndarray:
    """Validate a non-empty 1-D array of finite non-negative reals; return it as float64."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D numeric array, got a {type(values).__name__}")
    arr = np.asarray(values)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must hold finite non-negative values, got {arr}")
    return arr


def _as_ratio_array(explained_variance_ratio: ArrayLike) -> np.ndarray:
    r = _as_spectrum(explained_variance_ratio, "explained_variance_ratio")
    if r.sum() > 1 + 1e-8:
        raise ValueError(
            f"explained_variance_ratio must hold finite non-negative ratios summing to at most 1, got {r}"
        )
    return r


def _as_eigenvalue_array(eigenvalues: ArrayLike) -> np.ndarray:
    lam = _as_spectrum(eigenvalues, "eigenvalues")
    if not lam[0] > 0:
        raise ValueError(f"eigenvalues must be non-negative and not all zero, got {lam}")
    _check_decreasing(lam, "eigenvalues")
    return lam


def _check_decreasing(values: np.ndarray, name: str) -> None:
    """Refuse values that are not in non-increasing order (beyond round-off)."""
    if np.any(np.diff(values) > 8 * _EPS * values[0]):
        raise ValueError(f"{name} must be in non-increasing order (largest first), got {values}")


def _check_int(value: object, name: str, lowest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    if value < lowest:
        raise ValueError(f"{name} must be at least {lowest}, got {value}")
    return int(value)


def _centered_data(X: ArrayLike, standardize: bool) -> tuple[np.ndarray, int]:
    r"""Centered (and, if asked, standardized) float64 copy of validated `X`, in units of
    :math:`2^e`: the centered data are ``Xc * 2**e`` (e = 0 when standardized).

    The exact power-of-two change of units of :func:`pcalib.pca_eig` (the largest column
    range in [1/2, 1)), so that no square overflows or underflows at any scale of X:
    every rule for k is scale-free, and at 1e-200 the squares in the data's units (1e-400)
    are 0, at 1e160 infinite."""
    arr, _ = validated(X, 1)
    centered = center_array(arr, 1, scale=check_flag(standardize, "standardize"))
    return centered.values, int(centered.exponent)


def _spectrum(Xc: np.ndarray) -> np.ndarray:
    r"""All p eigenvalues of :math:`X_c^\top X_c / (n - 1)`, decreasing (zeros beyond min(n, p)).

    From the smaller of :math:`X_c^\top X_c` and :math:`X_c X_c^\top`: absolute error about
    :math:`\varepsilon \lambda_1`, ample for comparing eigenvalues with thresholds.
    Values below the rank tolerance :math:`\max(n, p)\,\varepsilon\,\lambda_1`
    (round-off, some of it negative) are set to exactly 0, as in :func:`pcalib.pca_eig`.
    """
    n, p = Xc.shape
    gram = Xc.T @ Xc if n >= p else Xc @ Xc.T
    w = np.linalg.eigvalsh(gram)[::-1]  # NumPy's LAPACK after NumPy's product: one BLAS
    if not w[0] > 0:
        raise ValueError("X has zero total variance: every rule for k is undefined")
    lam = np.zeros(p)
    lam[: w.size] = np.where(w > max(n, p) * _EPS * w[0], w, 0.0) / (n - 1)
    return lam


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
    p = _check_int(p, "p", 1)
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
    at once in :math:`O(p^2)`. The eigenvalues are used as given; zeros mark a
    rank deficiency: a k with :math:`\lambda_k = 0` gets :math:`-\infty`, and
    the k with :math:`\lambda_k > 0 = v` (k is the rank) gets :math:`+\infty`,
    the limit of the evidence as :math:`v \to 0` (for n > k). scikit-learn
    instead floors :math:`\lambda_k` and v at an absolute 1e-15, which makes
    its k there depend on the units of the data. A k whose first k + 1
    eigenvalues are not distinct gets :math:`-\infty` (the Laplace
    approximation needs distinct eigenvalues).

    Parameters
    ----------
    eigenvalues : array_like of shape (p,)
        All p eigenvalues (or explained-variance ratios), non-negative and
        non-increasing, p >= 2.
    n_samples : int
        Number of samples n, at least p (scikit-learn's condition).

    Returns
    -------
    ndarray of shape (p - 1,)
        Entry ``k - 1`` is the log-evidence of k components, k = 1, ..., p - 1.
        Minka's rule is ``argmax + 1``.

    Raises
    ------
    TypeError
        If the eigenvalues are not numeric or `n_samples` not an integer.
    ValueError
        If fewer than 2 eigenvalues, negative, increasing or non-finite ones,
        all zero, or ``n_samples < p``.
    """
    lam = _as_eigenvalue_array(eigenvalues)
    p = lam.size
    if p < 2:
        raise ValueError(f"Minka's rule needs at least 2 eigenvalues (features), got {p}")
    n = _check_int(n_samples, "n_samples", 1)
    if n < p:
        raise ValueError(
            f"Minka's rule needs n_samples >= the number of features ({p}), got n_samples={n}"
        )
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
        The `quantile` of the j-th eigenvalue over the permuted data sets.
    """

    n_components: int
    eigenvalues: np.ndarray
    thresholds: np.ndarray


def parallel_analysis(
    X: ArrayLike,
    *,
    n_resamples: int = 100,
    quantile: float = 0.95,
    standardize: bool = False,
    random_state: int | np.random.Generator | None = None,
) -> ParallelAnalysis:
    r"""Horn's parallel analysis: which eigenvalues stand above those of structureless data?

    Each of `n_resamples` null data sets permutes every column of the
    centered data independently: the column variances stay, the correlations
    are destroyed. With :math:`\lambda_j^{(b)}` the eigenvalues of null set b and
    :math:`q_j` their `quantile` over b (Horn 1965 used the mean; Glorfeld 1995
    the 95% quantile),

    .. math:: k = \max\{\, j : \lambda_l > q_l \text{ for every } l \le j \,\}

    (0 if :math:`\lambda_1 \le q_1`).

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, n >= 2. Not modified.
    n_resamples : int, default 100
        Number of permuted data sets.
    quantile : float, default 0.95
        Quantile of the null eigenvalues, in (0, 1).
    standardize : bool, default False
        Work with the correlation matrix (standardized columns) instead of
        the covariance.
    random_state : None, int or numpy.random.Generator
        Seed of the permutations; the result is deterministic for a fixed seed.

    Returns
    -------
    ParallelAnalysis

    Raises
    ------
    TypeError, ValueError
        For invalid data (as :func:`pcalib.covariance`; a constant column when
        standardizing), zero total variance or invalid options.
    """
    k, observed, thresholds, e = _parallel_analysis(X, n_resamples, quantile, standardize, random_state)
    return ParallelAnalysis(
        n_components=k,
        eigenvalues=rescale(observed, 2 * e, "the eigenvalues"),
        thresholds=rescale(thresholds, 2 * e, "the thresholds"),
    )


def _parallel_analysis(
    X: ArrayLike, n_resamples: int, quantile: float, standardize: bool, random_state: object
) -> tuple[int, np.ndarray, np.ndarray, int]:
    """:func:`parallel_analysis` in units of 2**e: (k, eigenvalues, thresholds, e); k is
    decided there, so it does not depend on the scale of X."""
    Xc, e = _centered_data(X, standardize)
    n_resamples = _check_int(n_resamples, "n_resamples", 1)
    if isinstance(quantile, bool) or not isinstance(quantile, numbers.Real) or not 0 < quantile < 1:
        raise ValueError(f"quantile must be a number in (0, 1), got {quantile!r}")
    rng = check_random_state(random_state)
    observed = _spectrum(Xc)
    # Permuting a centered column keeps it centered: the null data need no re-centering.
    null = np.array([_spectrum(rng.permuted(Xc, axis=0)) for _ in range(n_resamples)])
    thresholds = np.quantile(null, quantile, axis=0)
    above = observed > thresholds
    k = int(np.argmin(above)) if not above.all() else above.size
    return k, observed, thresholds, e


def cv_press(
    X: ArrayLike,
    max_k: int | None = None,
    *,
    n_folds: int = 10,
    standardize: bool = False,
    random_state: int | np.random.Generator | None = None,
) -> np.ndarray:
    r"""Row-and-column ("eigenvector") cross-validation of PCA: PRESS for k = 0, ..., max_k.

    The rows are split into `n_folds` folds. For each fold, the principal
    axes :math:`V_k` are fitted on the other rows, and every entry
    :math:`x_{ij}` of a held-out row is predicted from the *other* entries of
    that row: its scores are the least-squares fit
    :math:`\hat{\mathbf t} = \arg\min_{\mathbf t} \sum_{l \ne j} (y_l - (V_k \mathbf t)_l)^2`
    (:math:`\mathbf y` the row centered by the training mean) and the prediction
    is :math:`(V_k \hat{\mathbf t})_j` (Bro, Kjeldahl, Smilde and Kiers 2008,
    the "eigenvector" method). The held-out entry never enters its own
    prediction. By the leave-one-out identity of least squares the error is

    .. math::

        y_j - (V_k \hat{\mathbf t})_j = \frac{e_j}{1 - h_j}, \qquad
        \mathbf e = (I - V_k V_k^\top)\,\mathbf y, \qquad
        h_j = \sum_{l \le k} v_{jl}^2,

    so one PCA per fold gives every k. Returns
    :math:`\mathrm{PRESS}_k = \sum_{i, j} \big(e_{ij} / (1 - h_j)\big)^2`;
    a k at which some :math:`h_j = 1` (feature j cannot be predicted from the
    others) gets ``inf``. Naive row-wise cross-validation, which compares a held-out row
    with its own projection, is not offered: its error can only fall as k grows.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Data, n >= n_folds. Not modified.
    max_k : int or None
        Largest k, at most ``min(p - 1, n_train - 1)`` with ``n_train`` the
        smallest training set; None takes that bound.
    n_folds : int, default 10
        Number of folds of rows, 2 <= n_folds <= n.
    standardize : bool, default False
        Standardize with each training set's mean and standard deviation (errors
        are then in standard units).
    random_state : None, int or numpy.random.Generator
        Seed of the assignment of rows to folds.

    Returns
    -------
    ndarray of shape (max_k + 1,)
        :math:`\mathrm{PRESS}_k`, k = 0, ..., max_k (k = 0 predicts by the mean).

    Raises
    ------
    TypeError, ValueError
        For invalid data or options, or a constant column in a training set
        when standardizing.
    """
    press, e = _cv_press(X, max_k, n_folds, standardize, random_state)
    return rescale(press, 2 * e, "PRESS")


def _cv_press(
    X: ArrayLike, max_k: int | None, n_folds: int, standardize: bool, random_state: object
) -> tuple[np.ndarray, int]:
    r""":func:`cv_press` in units of :math:`2^e`: (PRESS / 4**e, e). The data are first
    multiplied by the power of two :math:`2^{-e}` that brings their largest absolute
    value into [1/2, 1) (exact), so no square overflows or underflows; e = 0 when
    standardizing (PRESS is then in standard units)."""
    arr, _ = validated(X, 1)
    n, p = arr.shape
    largest_entry = float(np.max(np.abs(arr))) if arr.size else 0.0
    e = int(np.frexp(largest_entry)[1]) if largest_entry > 0 else 0
    arr = np.ldexp(arr, -e)
    n_folds = _check_int(n_folds, "n_folds", 2)
    if n_folds > n:
        raise ValueError(f"n_folds must be at most the number of samples ({n}), got {n_folds}")
    smallest_train = n - -(-n // n_folds)  # n minus the largest fold
    if smallest_train < 2:
        raise ValueError(f"n_folds={n_folds} leaves training sets of {smallest_train} sample(s); at least 2 needed")
    largest = min(p - 1, smallest_train - 1)
    if max_k is None:
        max_k = largest
    max_k = _check_int(max_k, "max_k", 0)
    if max_k > largest:
        raise ValueError(
            f"max_k must be at most min(p - 1, n_train - 1) = {largest} for this data and "
            f"n_folds={n_folds}, got {max_k}"
        )
    standardize = check_flag(standardize, "standardize")
    rng = check_random_state(random_state)
    fold = np.empty(n, dtype=np.intp)
    fold[rng.permutation(n)] = np.arange(n) % n_folds
    press = np.zeros(max_k + 1)
    for f in range(n_folds):
        train, held_out = arr[fold != f], arr[fold == f]
        Xc, mean, scale, _, _ = centered_data(train, 1, scale=standardize)
        axes = _leading_axes(Xc, max_k)
        residual = (held_out - mean) / scale  # e for k = 0
        leverage = np.zeros(p)
        press[0] += np.sum(residual**2)
        for k in range(1, max_k + 1):
            v = axes[k - 1]
            residual -= np.outer(residual @ v, v)
            leverage += v**2
            slack = 1.0 - leverage
            if np.any(slack <= 1e-10):
                press[k] = np.inf
            else:
                press[k] += np.sum((residual / slack) ** 2)
    return press, 0 if standardize else e


def _leading_axes(X: np.ndarray, k: int) -> np.ndarray:
    """The k leading principal axes (k, p) by the cheaper exact route: the covariance
    if n >= p, else the Gram matrix ((0, p) for k = 0)."""
    if k == 0:
        return np.zeros((0, X.shape[1]))
    return (pca_eig if X.shape[0] >= X.shape[1] else pca_gram)(X, k).components


def choose_k(
    explained_variance_ratio: ArrayLike | None = None,
    threshold: float = 0.95,
    *,
    method: str = "threshold",
    X: ArrayLike | None = None,
    n_samples: int | None = None,
    standardize: bool = False,
    random_state: int | np.random.Generator | None = None,
    **options: Any,
) -> int:
    r"""Number of components by one of six rules.

    The spectrum rules take either the explained-variance ratios
    :math:`r_j = \lambda_j / \sum_l \lambda_l` of **all** p components (zeros
    included: p is their count) or the data `X`; the data rules need `X`.

    ``"threshold"`` (default)
        :math:`\min\{k : \sum_{j \le k} r_j \ge t\}`, with a round-off
        allowance of ``8 * len(r) * eps`` on the cumulative sum, so
        ``choose_k([0.5, 0.5], 0.5) == 1``. Any leading ratios may be passed.
    ``"kaiser"``
        :math:`\#\{j : r_j > 1/p\}`: eigenvalues above the average (above 1
        for standardized data, Kaiser's original rule).
    ``"broken_stick"``
        The leading components with :math:`r_j > b_j`, :math:`b_j` from
        :func:`broken_stick`.
    ``"minka"``
        :math:`\arg\max_k \log p(X \mid k)`, k in 1..p-1, from
        :func:`minka_log_evidence`; with ratios, pass `n_samples`. The k of
        scikit-learn's ``PCA(n_components="mle")``.
    ``"parallel"``
        :func:`parallel_analysis` (`options`: ``n_resamples``, ``quantile``).
    ``"cv"``
        :math:`\arg\min_k \mathrm{PRESS}_k` of :func:`cv_press` (`options`:
        ``max_k``, ``n_folds``), k from 0.

    Parameters
    ----------
    explained_variance_ratio : array_like of shape (p,), optional
        Ratios in decreasing order (non-negative, sum <= 1).
    threshold : float, default 0.95
        Fraction of variance to keep, in (0, 1]; used by ``"threshold"`` only.
    method : str, default "threshold"
        One of "threshold", "kaiser", "broken_stick", "minka", "parallel", "cv".
    X : array_like of shape (n, p), optional
        The data, instead of the ratios (needed by "parallel" and "cv").
        Not modified.
    n_samples : int, optional
        n, for ``"minka"`` with ratios.
    standardize : bool, default False
        With `X`: use the correlation matrix (standardized columns).
    random_state : None, int or numpy.random.Generator
        Seed of "parallel" and "cv"; the result is deterministic for a fixed seed.
    **options
        Passed on to :func:`parallel_analysis` or :func:`cv_press`.

    Returns
    -------
    int
        k: between 1 and p for "threshold" and "minka" (at most p - 1);
        between 0 and p for the others (0: no component stands out).

    Raises
    ------
    TypeError
        For non-numeric input, an unknown option or a non-real threshold.
    ValueError
        For an unknown method, both or neither of ratios and X, a data rule
        without X, invalid ratios (not 1-D, negative, sum above 1, or
        increasing for rules other than "threshold"), a threshold outside
        (0, 1] or not reached by the ratios, or Minka's rule without n_samples
        or with n_samples < p.

    Examples
    --------
    >>> choose_k([0.6, 0.3, 0.1], threshold=0.9)
    2
    >>> choose_k([0.6, 0.3, 0.1], method="broken_stick")  # b = (0.61, 0.28, 0.11)
    0
    >>> choose_k([0.6, 0.3, 0.1], method="kaiser")
    1
    """
    if method not in _RULES:
        raise ValueError(f"method must be one of {_RULES}, got {method!r}")
    if (explained_variance_ratio is None) == (X is None):
        raise ValueError("pass either explained_variance_ratio or X (exactly one of them)")
    if method in _DATA_RULES:
        if X is None:
            raise ValueError(f"method={method!r} resamples the data: pass X, not ratios")
        if n_samples is not None:
            raise ValueError("n_samples is taken from X; do not pass it with X")
        # both in units of 2**e: no warning about values choose_k does not return
        if method == "parallel":
            unknown = set(options) - {"n_resamples", "quantile"}
            if unknown:
                raise TypeError(f"method='parallel' takes the options n_resamples and quantile, got {sorted(unknown)}")
            return _parallel_analysis(
                X, options.get("n_resamples", 100), options.get("quantile", 0.95), standardize, random_state
            )[0]
        unknown = set(options) - {"max_k", "n_folds"}
        if unknown:
            raise TypeError(f"method='cv' takes the options max_k and n_folds, got {sorted(unknown)}")
        press, _ = _cv_press(X, options.get("max_k"), options.get("n_folds", 10), standardize, random_state)
        return int(np.argmin(press))
    if options:
        raise TypeError(f"method={method!r} takes no options, got {sorted(options)}")
    if X is not None:
        if n_samples is not None:
            raise ValueError("n_samples is taken from X; do not pass it with X")
        Xc, _ = _centered_data(X, standardize)
        lam = _spectrum(Xc)  # in units of 4**e: the ratios are all the rules read
        r, n_samples = lam / lam.sum(), Xc.shape[0]
    elif explained_variance_ratio is not None:
        r = _as_ratio_array(explained_variance_ratio)
    if method == "threshold":
        return _threshold_rule(r, threshold)
    _check_decreasing(r, "explained_variance_ratio")
    if method == "kaiser":
        return int(np.sum(r > 1.0 / r.size))
    if method == "broken_stick":
        above = r > broken_stick(r.size)
        return int(np.argmin(above)) if not above.all() else r.size
    if n_samples is None:
        raise ValueError("method='minka' with explained_variance_ratio needs n_samples")
    return int(np.argmax(minka_log_evidence(r, n_samples))) + 1


def _threshold_rule(r: np.ndarray, threshold: float) -> int:
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

r"""Rules for the number of components k (chapter *How many components, and how sure?*).

:func:`choose_k` runs every rule. Spectrum rules read the eigenvalues
:math:`\lambda_1 \ge \dots \ge \lambda_r > 0` only (r the rank: the zero eigenvalues
that n <= p forces are not components), through the explained-variance ratios
:math:`r_j = \lambda_j / \sum_l \lambda_l`:

* ``"threshold"``: the smallest k with :math:`\sum_{j \le k} r_j \ge t`;
* ``"kaiser"`` (Kaiser 1960): the components with :math:`\lambda_j` above the
  average eigenvalue, :math:`r_j > 1/r` (:math:`\lambda_j > 1` for a correlation matrix);
* ``"broken_stick"`` (Frontier 1976, Jackson 1993): the leading components with
  :math:`r_j` above the expected share :math:`b_j` of :func:`broken_stick` (r pieces);
* ``"minka"`` (Minka 2000): the k of largest Laplace-approximated evidence
  :math:`\log p(X \mid k)` (:func:`minka_log_evidence`), scikit-learn's ``"mle"``;
* ``"mp"``: the eigenvalues above the Marchenko-Pastur edge at an estimated noise
  variance (:func:`pcalib.marchenko_pastur_edge`);
* ``"bartlett"``: the first k whose trailing eigenvalues pass the chi-square test of
  equality (:func:`pcalib.bartlett_test`).

Data rules need the data:

* ``"parallel"``: the leading eigenvalues above those of null data sets
  (:func:`pcalib.parallel_analysis`);
* ``"map"``: Velicer's minimum average partial correlation (:func:`pcalib.velicer_map`);
* ``"cv"`` (Bro, Kjeldahl, Smilde and Kiers 2008): the k of smallest
  row-and-column cross-validated prediction error (:func:`cv_press`).
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ._linalg.center import standardized_block
from ._linalg.spectra import (
    as_spectrum,
    centered_in_units,
    check_decreasing,
    check_int,
    numerical_rank,
    rank_tolerance,
    spectrum_of_centered,
)
from ._linalg.units import Frame, center_array, rescale
from ._utils.validation import NotFittedError, check_flag, check_random_state, validated
from .noise_rules import bartlett_test, marchenko_pastur_edge, parallel_analysis_in_units, velicer_map
from .pca import pca_eig, pca_gram

__all__ = ["choose_k", "broken_stick", "minka_log_evidence", "cv_press"]

_EPS = np.finfo(np.float64).eps
_SPECTRUM_RULES = ("threshold", "kaiser", "broken_stick", "minka", "mp", "bartlett")
_DATA_RULES = ("parallel", "cv", "map")
_RULES = _SPECTRUM_RULES + _DATA_RULES
_OPTIONS = {"parallel": ("n_resamples", "quantile", "null"), "cv": ("max_k", "n_folds"), "bartlett": ("alpha",)}



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
    press, e = cv_press_in_units(X, max_k, n_folds, standardize, random_state)
    return rescale(press, 2 * e, "PRESS")


def cv_press_in_units(
    X: ArrayLike, max_k: int | None, n_folds: int, standardize: bool, random_state: object
) -> tuple[np.ndarray, int]:
    r""":func:`cv_press` in units of :math:`2^e`: (PRESS / 4**e, e). The data are read in
    their frame (:class:`pcalib._linalg.units.Frame`: integer data less their column minima in
    integer arithmetic, then an exact power of two :math:`2^{-e}` that brings the
    largest column range into [1/2, 1)), so that int64 data near :math:`2^{62}` lose
    no digit and no square overflows or underflows; e = 0 when standardizing (PRESS is
    then in standard units). Each fold is centered by its training rows' exact mean
    (:class:`pcalib._linalg.center.Center`)."""
    arr, _ = validated(X, 1)
    n, p = arr.shape
    frame = Frame.of(arr)
    data = frame.read(arr)
    e = int(frame.exponent)
    n_folds = check_int(n_folds, "n_folds", 2)
    if n_folds > n:
        raise ValueError(f"n_folds must be at most the number of samples ({n}), got {n_folds}")
    smallest_train = n - -(-n // n_folds)  # n minus the largest fold
    if smallest_train < 2:
        raise ValueError(f"n_folds={n_folds} leaves training sets of {smallest_train} sample(s); at least 2 needed")
    largest = min(p - 1, smallest_train - 1)
    if max_k is None:
        max_k = largest
    max_k = check_int(max_k, "max_k", 0)
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
        train = center_array(data[fold != f], 1, scale=standardize, name="a training set of X")
        axes = _leading_axes(train.values, max_k)
        residual = standardized_block(data[fold == f], train.center, train.scale)  # e for k = 0
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


class _Spectrum(NamedTuple):
    """A spectrum as the spectrum rules read it."""

    ratios: np.ndarray  #: decreasing explained-variance ratios, float64, >= 0
    dtype: np.dtype  #: the dtype they came in (its epsilon sets the tolerances)
    n_samples: int | None
    n_features: int | None  #: None for bare ratios: p is then taken to be their number
    correlation: bool  #: the eigenvalues are those of a correlation matrix


def _is_estimator(value: object) -> bool:
    return not isinstance(value, (str, bytes, list, tuple, np.ndarray)) and (
        hasattr(type(value), "fit") or hasattr(value, "explained_variance_ratio_") or hasattr(value, "explained_variance_")
    )


def _spectrum_of_estimator(model: object, n_samples: int | None, standardize: bool) -> _Spectrum:
    """The ratios, n and p of a fitted estimator (``explained_variance_ratio_``,
    ``n_samples_``, ``n_features_in_``)."""
    name = type(model).__name__
    ratios = getattr(model, "explained_variance_ratio_", None)
    if ratios is None:
        if getattr(model, "explained_variance_", None) is None and hasattr(type(model), "fit"):
            raise NotFittedError(f"this {name} is not fitted: call fit before choose_k")
        raise TypeError(
            f"choose_k reads the explained_variance_ratio_ of a fitted estimator, and {name} has "
            "none: pass its ratios of every component, or X"
        )
    if standardize:
        raise ValueError("standardize applies to X; a fitted estimator is read as it was fitted")
    fitted_n = getattr(model, "n_samples_", None)
    if fitted_n is not None and n_samples is not None:
        raise ValueError(f"n_samples is taken from the fitted {name}; do not pass it")
    r, dtype = as_spectrum(ratios, f"{name}.explained_variance_ratio_", fitted_n or n_samples)
    p = getattr(model, "n_features_in_", r.size)
    return _Spectrum(r, dtype, fitted_n or n_samples, int(p), bool(getattr(model, "standardize", False)))


def _spectrum_of_ratios(ratios: ArrayLike, n_samples: int | None, standardize: bool) -> _Spectrum:
    r, dtype = as_spectrum(ratios, "explained_variance_ratio", n_samples)
    return _Spectrum(r, dtype, n_samples, None, check_flag(standardize, "standardize"))


def _spectrum_of_data(X: ArrayLike, n_samples: int | None, standardize: bool) -> _Spectrum:
    if n_samples is not None:
        raise ValueError("n_samples is taken from X; do not pass it with X")
    Xc, _ = centered_in_units(X, standardize)
    lam = spectrum_of_centered(Xc)  # in units of 4**e: the ratios are all the rules read
    return _Spectrum(lam / lam.sum(), np.dtype(np.float64), Xc.shape[0], Xc.shape[1], bool(standardize))


def _check_options(method: str, options: dict[str, Any]) -> None:
    allowed = _OPTIONS.get(method, ())
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        takes = f"the options {', '.join(allowed)}" if allowed else "no options"
        raise TypeError(f"method={method!r} takes {takes}, got {unknown}")


def choose_k(
    explained_variance_ratio: ArrayLike | Any | None = None,
    threshold: float = 0.95,
    *,
    method: str = "threshold",
    X: ArrayLike | None = None,
    n_samples: int | None = None,
    standardize: bool = False,
    random_state: int | np.random.Generator | None = None,
    **options: Any,
) -> int:
    r"""Number of components by one of nine rules.

    The spectrum rules read the explained-variance ratios
    :math:`r_j = \lambda_j / \sum_l \lambda_l` from one of: the ratios themselves, a
    fitted estimator (its ``explained_variance_ratio_``, ``n_samples_`` and
    ``n_features_in_``, e.g. a :class:`pcalib.PCA`), or the data `X`. Every rule
    but the threshold needs the **whole** spectrum: ratios that sum to less than 1
    (the leading components only, as from ``PCA(3)``) are refused, not read as if
    the rest were 0. Eigenvalues within round-off of 0 are zeros, and only the
    :math:`r` nonzero ones (the rank) count: with n <= p, the p - n + 1 zeros that
    the sample size forces are not components.

    ``"threshold"`` (default)
        :math:`\min\{k : \sum_{j \le k} r_j \ge t\}`, with a round-off
        allowance of ``8 * len(r) * eps`` on the cumulative sum, so
        ``choose_k([0.5, 0.5], 0.5) == 1``. Any leading ratios may be passed.
    ``"kaiser"``
        :math:`\#\{j : r_j > 1/r\}`: eigenvalues above their average (above 1
        for standardized data of full rank, Kaiser's original rule).
    ``"broken_stick"``
        The leading components with :math:`r_j > b_j`, :math:`b_j` from
        :func:`broken_stick` with r pieces.
    ``"minka"``
        :math:`\arg\max_k \log p(X \mid k)`, k in 1..p-1 (never 0), from
        :func:`minka_log_evidence`; needs n >= p. The k of scikit-learn's
        ``PCA(n_components="mle")``.
    ``"mp"``
        :func:`pcalib.marchenko_pastur_edge`: the eigenvalues above the noise edge
        at the median-based noise variance, with a Tracy-Widom margin.
    ``"bartlett"``
        :func:`pcalib.bartlett_test` (`options`: ``alpha``, default 0.05): the
        first k whose trailing eigenvalues are not found unequal.
    ``"parallel"``
        :func:`pcalib.parallel_analysis` (`options`: ``n_resamples``,
        ``quantile``, ``null``).
    ``"map"``
        :math:`\arg\min_m` of :func:`pcalib.velicer_map` (the correlation matrix,
        whatever `standardize`), m from 0.
    ``"cv"``
        :math:`\arg\min_k \mathrm{PRESS}_k` of :func:`cv_press` (`options`:
        ``max_k``, ``n_folds``), k from 0.

    Parameters
    ----------
    explained_variance_ratio : array_like of shape (p,) or a fitted estimator, optional
        Ratios in decreasing order (non-negative, sum <= 1), or an estimator with
        ``explained_variance_ratio_``.
    threshold : float, default 0.95
        Fraction of variance to keep, in (0, 1]; used by ``"threshold"`` only.
    method : str, default "threshold"
        One of "threshold", "kaiser", "broken_stick", "minka", "mp", "bartlett",
        "parallel", "map", "cv".
    X : array_like of shape (n, p), optional
        The data, instead of ratios or an estimator (needed by "parallel", "map"
        and "cv"). Not modified.
    n_samples : int, optional
        n, for "minka", "mp" and "bartlett" with ratios (an estimator's
        ``n_samples_`` or X give it otherwise).
    standardize : bool, default False
        With `X`: use the correlation matrix (standardized columns). With ratios:
        they come from a correlation matrix (for "bartlett").
    random_state : None, int or numpy.random.Generator
        Seed of "parallel" and "cv"; the result is deterministic for a fixed seed.
    **options
        Passed on to the rule (above).

    Returns
    -------
    int
        k: between 1 and p for "threshold" and "minka" (at most p - 1);
        between 0 and r for the others (0: no component stands out).

    Raises
    ------
    TypeError
        For non-numeric input, an estimator without ``explained_variance_ratio_``,
        an unknown option or a non-real threshold.
    ValueError
        For an unknown method; both or neither of ratios (or estimator) and X; a
        data rule without X; invalid ratios (not 1-D, negative beyond round-off,
        sum above 1, or increasing for rules other than "threshold"); leading ratios
        only for a rule other than "threshold"; a threshold outside (0, 1] or not
        reached; "minka", "mp" or "bartlett" without n_samples, or with too few
        samples for the rule.
    NotFittedError
        For an estimator that is not fitted.

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
        raise ValueError("pass either explained_variance_ratio (or a fitted estimator) or X (exactly one of them)")
    _check_options(method, options)
    if method in _DATA_RULES:
        if X is None:
            raise ValueError(f"method={method!r} needs the data: pass X, not ratios or an estimator")
        if n_samples is not None:
            raise ValueError("n_samples is taken from X; do not pass it with X")
        if method == "parallel":  # in units of 2**e: no warning about values not returned
            return parallel_analysis_in_units(
                X, options.get("n_resamples", 100), options.get("quantile", 0.95),
                options.get("null", "permutation"), standardize, random_state,
            )[0]
        if method == "map":
            return int(np.argmin(velicer_map(X)))
        press, _ = cv_press_in_units(X, options.get("max_k"), options.get("n_folds", 10), standardize, random_state)
        return int(np.argmin(press))
    if X is not None:
        spectrum = _spectrum_of_data(X, n_samples, standardize)
    elif _is_estimator(explained_variance_ratio):
        spectrum = _spectrum_of_estimator(explained_variance_ratio, n_samples, standardize)
    else:
        spectrum = _spectrum_of_ratios(cast(ArrayLike, explained_variance_ratio), n_samples, standardize)
    return _spectrum_rule(method, spectrum, threshold, options)


def _spectrum_rule(method: str, spectrum: _Spectrum, threshold: float, options: dict[str, Any]) -> int:
    """k by a spectrum rule."""
    r = spectrum.ratios
    total = float(np.sum(r))
    eps = float(np.finfo(spectrum.dtype).eps) if spectrum.dtype.kind == "f" else _EPS
    if total > 1 + max(1e-8, 8 * r.size * eps):
        raise ValueError(f"explained_variance_ratio must hold ratios summing to at most 1, got a sum of {total!r}")
    if method == "threshold":
        return _threshold_rule(r, threshold)
    check_decreasing(r, "explained_variance_ratio")
    if total < 1 - np.sqrt(eps):  # float32 ratios of PCA itself sum to 1 within about 1e-7
        raise ValueError(
            f"method={method!r} reads the whole spectrum, but the ratios sum to {total:.6g}: "
            "they are those of the leading components only. Pass the ratios of every "
            "component (PCA(n_components=None)), a model fitted with every component, or X"
        )
    n = spectrum.n_samples
    rank = numerical_rank(r, n, spectrum.dtype)
    kept = r[:rank]
    if method == "kaiser":
        return int(np.sum(kept > kept.sum() / rank))
    if method == "broken_stick":
        above = kept > broken_stick(rank)
        return int(np.argmin(above)) if not above.all() else rank
    if n is None:
        raise ValueError(f"method={method!r} with explained_variance_ratio needs n_samples")
    p = r.size if spectrum.n_features is None else spectrum.n_features
    if method == "minka":
        if p > n:
            raise ValueError(f"Minka's rule needs n_samples >= the number of features ({p}), got {n}")
        return int(np.argmax(minka_log_evidence(np.pad(r, (0, p - r.size)), n))) + 1
    if method == "mp":
        if spectrum.n_features is None and r.size >= n:
            raise ValueError(
                f"with {r.size} ratios and n_samples={n} the number of features is unknown "
                "(PCA keeps min(n, p) components): pass X or the fitted estimator"
            )
        return marchenko_pastur_edge(r, n, n_features=p).n_components
    return bartlett_test(r, n, correlation=spectrum.correlation, alpha=options.get("alpha", 0.05)).n_components


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

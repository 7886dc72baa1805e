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

from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ._linalg.center import standardized_block
from ._linalg.spectra import (
    as_spectrum,
    centered_in_units,
    check_int,
    spectrum_of_centered,
)
from ._linalg.spectrum_rules import (
    RATIO_RULES,
    Spectrum,
    broken_stick,
    minka_log_evidence,
    ratio_rule,
    sample_and_feature_counts,
    spectrum_of_ratios,
    whole_ratios,
)
from ._linalg.units import Frame, center_array, rescale
from ._utils.validation import NotFittedError, check_flag, check_random_state, validated
from .noise_rules import bartlett_test, marchenko_pastur_edge, parallel_analysis_in_units, velicer_map
from .pca import pca_eig, pca_gram

__all__ = ["choose_k", "broken_stick", "minka_log_evidence", "cv_press"]

_SPECTRUM_RULES = ("threshold", "kaiser", "broken_stick", "minka", "mp", "bartlett")
_DATA_RULES = ("parallel", "cv", "map")
_RULES = _SPECTRUM_RULES + _DATA_RULES
_OPTIONS = {"parallel": ("n_resamples", "quantile", "null"), "cv": ("max_k", "n_folds"), "bartlett": ("alpha",)}



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


def _is_estimator(value: object) -> bool:
    return not isinstance(value, (str, bytes, list, tuple, np.ndarray)) and (
        hasattr(type(value), "fit") or hasattr(value, "explained_variance_ratio_") or hasattr(value, "explained_variance_")
    )


def _spectrum_of_estimator(model: object, n_samples: int | None, standardize: bool) -> Spectrum:
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
    return Spectrum(r, dtype, fitted_n or n_samples, int(p), bool(getattr(model, "standardize", False)))


def _spectrum_of_data(X: ArrayLike, n_samples: int | None, standardize: bool) -> Spectrum:
    if n_samples is not None:
        raise ValueError("n_samples is taken from X; do not pass it with X")
    Xc, _ = centered_in_units(X, standardize)
    lam = spectrum_of_centered(Xc)  # in units of 4**e: the ratios are all the rules read
    return Spectrum(lam / lam.sum(), np.dtype(np.float64), Xc.shape[0], Xc.shape[1], bool(standardize))


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
        spectrum = spectrum_of_ratios(cast(ArrayLike, explained_variance_ratio), n_samples, standardize)
    return _spectrum_rule(method, spectrum, threshold, options)


def _spectrum_rule(method: str, spectrum: Spectrum, threshold: float, options: dict[str, Any]) -> int:
    """k by a spectrum rule: one of the ratios alone (``pcalib._linalg.spectrum_rules``),
    or the Marchenko-Pastur edge or Bartlett's test."""
    if method in RATIO_RULES:
        return ratio_rule(method, spectrum, threshold)
    r = whole_ratios(method, spectrum)
    n, p = sample_and_feature_counts(method, spectrum)
    if method == "mp":
        if spectrum.n_features is None and r.size >= n:
            raise ValueError(
                f"with {r.size} ratios and n_samples={n} the number of features is unknown "
                "(PCA keeps min(n, p) components): pass X or the fitted estimator"
            )
        return marchenko_pastur_edge(r, n, n_features=p).n_components
    return bartlett_test(r, n, correlation=spectrum.correlation, alpha=options.get("alpha", 0.05)).n_components

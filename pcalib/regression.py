r"""Principal component regression (chapter *PCA and prediction*).

PCR regresses a response on the first k principal component scores of the
predictors. With the centered (optionally standardized) predictors
:math:`X_c = U \Sigma V^\top` and the centered response :math:`y_c`, the scores are
:math:`T = X_c V_k = U_k \Sigma_k`; least squares on them gives the coefficient of
score j

.. math::

    \frac{\mathbf t_j^\top y_c}{\mathbf t_j^\top \mathbf t_j}
    = \frac{\mathbf u_j^\top y_c}{\sigma_j}, \qquad j = 1, \dots, k,

(the scores are orthogonal, so each is a regression on one variable), and on the
predictors

.. math::

    \hat\beta_k = \sum_{j \le k} \frac{\mathbf u_j^\top y_c}{\sigma_j} \mathbf v_j,
    \qquad \hat\beta_0 = \bar y - \bar x^\top \hat\beta_k,

divided by the column standard deviations when standardizing. With k = rank
:math:`X_c` this is the minimum-norm least-squares solution.

:class:`PCR` is a scikit-learn regressor on pcalib's estimator base; its
decomposition is a fitted :class:`pcalib.PCA` (``pca_``).
:func:`cross_validate_pcr` predicts each held-out row with every number of
components 0, 1, ..., k_max from one decomposition per fold.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ._estimator.base import EstimatorBase
from ._linalg.units import center_array, rescale, unit_exponent
from ._ppca.scoring import above_round_off
from ._utils.validation import as_data_matrix, as_numeric_array, check_flag, check_n_components, checked_finite
from .estimator import PCA

__all__ = ["PCR", "PCRCrossValidation", "cross_validate_pcr"]


def _as_float64(X: Any) -> Any:
    """float32 data (NumPy, sparse) as float64, so that predictions carry float64 digits."""
    return X.astype(np.float64) if getattr(X, "dtype", None) == np.float32 else X


def _target(y: object, n: int, owner: str) -> np.ndarray:
    """The response as a finite array of shape (n,) or (n, q), not the caller's: float64,
    or integers kept as they are (64-bit integers beyond 2**53 are centered exactly by
    :func:`pcalib._linalg.units.center_array`, not rounded to float64 first)."""
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None")
    arr = as_numeric_array(cast(ArrayLike, y), "y")
    if arr.ndim not in (1, 2) or arr.ndim == 2 and arr.shape[1] == 0:
        raise ValueError(f"y must be a 1-D array (n_samples,) or a 2-D array (n_samples, n_targets), got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"y has {arr.shape[0]} samples but X has {n}: one response per row of X is needed")
    if arr.dtype.kind in "iu":
        return arr.copy()
    return checked_finite(np.array(arr, dtype=np.float64), "y")


def resolved_components(singular_values: np.ndarray, n: int, p: int, solver: str) -> np.ndarray:
    r"""Which singular values (decreasing, of n samples of p features) exceed round-off.

    The "svd" route computes each :math:`\sigma_j` to about :math:`\varepsilon\sigma_1`,
    so a component is resolved when :math:`\sigma_j > \max(n, p)\,\varepsilon\,\sigma_1`
    (the default cut-off of NumPy's ``lstsq`` and ``matrix_rank``). The routes
    that diagonalize a scatter matrix ("eig", "gram", "krylov", "randomized") compute
    :math:`\sigma_j^2` to about :math:`\varepsilon\sigma_1^2`; there the same test is
    applied to the squares, :math:`\sigma_j^2 > \max(n, p)\,\varepsilon\,\sigma_1^2`.
    All zero if :math:`\sigma_1 = 0`.
    """
    if singular_values[0] <= 0:
        return np.zeros(singular_values.size, dtype=bool)
    if solver == "svd":
        return singular_values > max(n, p) * np.finfo(np.float64).eps * singular_values[0]
    units = np.ldexp(singular_values, -unit_exponent(singular_values))  # squares in range
    return above_round_off(units**2, n, p)


class PCR(EstimatorBase):
    r"""Principal component regression: least squares on the first k principal component scores.

    Fits :class:`pcalib.PCA` with k components to `X` (``pca_``), then regresses
    the centered response on the scores :math:`T = X_c V_k`:

    .. math::

        \hat\beta_k = D_s^{-1} \sum_{j \le k} \frac{\mathbf u_j^\top y_c}{\sigma_j} \mathbf v_j,
        \qquad \hat\beta_0 = \bar y - \bar x^\top \hat\beta_k,

    with :math:`\mathbf u_j = \mathbf t_j / \sigma_j` and :math:`D_s` the column standard
    deviations if ``standardize`` (else the identity). A component whose singular
    value is round-off gets the score coefficient 0: on the SVD route
    :math:`\sigma_j \le \max(n, p)\,\varepsilon\,\sigma_1`, NumPy's ``lstsq``
    cut-off, so that a real direction in small units (:math:`\sigma_j/\sigma_1` =
    1e-7, say) is kept, as by R's ``pls`` and ``lstsq``; on the routes that
    diagonalize a scatter matrix the same bound on :math:`\sigma_j^2`. The numbers are R's
    ``pls::pcr(y ~ X, ncomp = k, scale = standardize)`` (``coef`` there is on the
    scale of ``X / sd`` when ``scale = TRUE``; ``coef_`` here is always on the scale
    of ``X``).

    Parameters
    ----------
    n_components : int
        k, the number of components, in ``[1, min(n_samples, n_features)]``.
    standardize : bool, default False
        Standardize the columns of `X` (divisor n - 1) before the PCA.

    Attributes
    ----------
    pca_ : pcalib.PCA
        The fitted decomposition of `X`.
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        :math:`\hat\beta_k` on the scale of `X` (2-D when `y` was 2-D, as scikit-learn's
        ``LinearRegression``).
    intercept_ : float or ndarray of shape (n_targets,)
        :math:`\hat\beta_0`.
    score_coef_ : ndarray of shape (n_components,) or (n_targets, n_components)
        The coefficients of the scores, :math:`\mathbf u_j^\top y_c / \sigma_j`.
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        Column names, when fitted on a DataFrame with string column names.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 6)) @ np.diag([4.0, 3.0, 2.0, 1.0, 0.5, 0.1])
    >>> y = X @ np.array([1.0, -1.0, 0.5, 0.0, 0.0, 0.0]) + 3.0
    >>> model = PCR(3).fit(X, y)
    >>> bool(model.score(X, y) > 0.99), model.coef_.shape
    (True, (6,))
    """

    def __init__(self, n_components: int, *, standardize: bool = False) -> None:
        self.n_components = n_components
        self.standardize = standardize

    _accepts_sparse = True  # as PCA: centered implicitly, never densified
    _FITTED_BY = "intercept_"  # set last by fit

    @property
    def _n_features_out(self) -> int:
        return self.n_components_

    def __sklearn_tags__(self) -> Any:
        """A regressor (and a transformer: ``transform`` gives the scores), for scikit-learn."""
        from sklearn.utils import RegressorTags, TargetTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.target_tags = TargetTags(required=True, multi_output=True, single_output=True)
        # With k < p, PCR drops directions by design, and y may lie along one of them
        # (the chapter's warning): a low score on some data is the method, not a defect.
        tags.regressor_tags = RegressorTags(poor_score=True)
        return tags

    def fit(self, X: ArrayLike, y: object = None) -> PCR:
        """Fit the PCA of `X` (n x p, not modified) and the regression of `y` on its scores.

        `y` has shape (n,) or (n, n_targets). Returns self.
        """
        arr = _as_float64(self._remember_input(X))
        n, p = arr.shape
        k = check_n_components(self.n_components, min(n, p), "n_components")
        check_flag(self.standardize, "standardize")
        target = _target(y, n, type(self).__name__)
        Y = target.reshape(n, -1)
        self.pca_ = PCA(k, standardize=self.standardize)
        scores = np.asarray(self.pca_.fit_transform(arr), dtype=np.float64)
        s = self.pca_.singular_values_.astype(np.float64)
        resolved = resolved_components(s, n, p, self.pca_.solver_)
        # score coefficient j: u_j^T y_c / sigma_j with u_j = t_j / sigma_j, y_c in units of 2**e
        # (pcalib._linalg.units): no square of y or of X is formed, at any scale
        y_centered = center_array(Y, ddof=1, name="y")
        mantissa, exponent = np.frexp(np.where(resolved, s, 1.0))
        U = scores[:, resolved] / s[resolved]
        score_coef = np.zeros((k, Y.shape[1]))
        score_coef[resolved] = rescale(
            (U.T @ y_centered.values) / mantissa[resolved, None],
            y_centered.exponent - exponent[resolved, None],
            "score_coef_",
        )
        coef = (self.pca_.components_.T.astype(np.float64) @ score_coef) / self.pca_.scale_.astype(np.float64)[:, None]
        y_mean = y_centered.center.value
        intercept = y_mean - self.pca_.mean_.astype(np.float64) @ coef
        one_d = target.ndim == 1
        self.n_components_ = k
        self._y_mean = y_mean
        self._score_coef = score_coef  # (k, q), the form predict uses
        self.score_coef_ = score_coef[:, 0] if one_d else score_coef.T.copy()
        self.coef_ = coef[:, 0] if one_d else coef.T.copy()
        self.intercept_ = float(intercept[0]) if one_d else intercept
        return self

    def _predictions_for_every_k(self, X: ArrayLike) -> np.ndarray:
        r"""Predictions with k = 0, 1, ..., ``n_components_`` components, shape
        (n, ``n_components_`` + 1, n_targets): :math:`\bar y + \sum_{j \le k} t_j(x)\,
        \mathbf u_j^\top y_c / \sigma_j` for each k, from one projection of `X`."""
        self._require_fitted()
        scores = np.asarray(self.pca_.transform(_as_float64(self._check_input(X))), dtype=np.float64)
        terms = scores[:, :, None] * self._score_coef[None, :, :]
        return self._y_mean + np.concatenate([np.zeros_like(terms[:, :1]), np.cumsum(terms, axis=1)], axis=1)

    def predict(self, X: ArrayLike, n_components: int | None = None) -> np.ndarray:
        r"""Predicted responses :math:`\hat\beta_0 + x^\top\hat\beta`, computed as
        :math:`\bar y + \sum_{j \le k} t_j(x)\, \mathbf u_j^\top y_c / \sigma_j` (the scores of `X` are centered
        exactly, at any offset).

        Parameters
        ----------
        X : array_like of shape (m, n_features)
        n_components : int or None, default None
            k, the number of components to use, from 0 (the mean of `y`) to
            ``n_components_``; None: all of them. Each k gives the prediction of
            ``PCR(k)`` fitted to the same data.

        Returns
        -------
        ndarray of shape (m,) or (m, n_targets), float64
        """
        self._require_fitted()
        k = self.n_components_ if n_components is None else n_components
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k <= self.n_components_:
            raise ValueError(f"n_components must be an integer from 0 to n_components_ = {self.n_components_}, got {k!r}")
        predicted = self._predictions_for_every_k(X)[:, int(k)]
        return predicted[:, 0] if self.coef_.ndim == 1 else predicted

    def score(self, X: ArrayLike, y: ArrayLike) -> float:
        r"""The coefficient of determination :math:`R^2 = 1 - \sum_i (y_i - \hat y_i)^2 / \sum_i (y_i - \bar y)^2`
        of the predictions of `X` (averaged over the targets, as scikit-learn's
        ``r2_score``; a constant `y` gives 1 if predicted exactly, else 0)."""
        predicted = self.predict(X)
        predicted = predicted.reshape(predicted.shape[0], -1)
        observed = _target(y, predicted.shape[0], type(self).__name__).astype(np.float64)
        observed = observed.reshape(predicted.shape[0], -1)
        if observed.shape != predicted.shape:
            raise ValueError(f"y has {observed.shape[1]} targets, but the model was fitted with {predicted.shape[1]}")
        e = unit_exponent(observed)  # R^2 is scale-free: squares in units of 2**e cannot overflow
        observed, predicted = np.ldexp(observed, -e), np.ldexp(predicted, -e)
        residual = np.sum((observed - predicted) ** 2, axis=0)
        total = np.sum((observed - observed.mean(axis=0)) ** 2, axis=0)
        r2 = np.where(total > 0, 1 - residual / np.where(total > 0, total, 1.0), np.where(residual == 0, 1.0, 0.0))
        return float(np.mean(r2))

    def transform(self, X: ArrayLike) -> np.ndarray:
        """The principal component scores of `X` (n, k) on which `y` is regressed
        (``pca_.transform``, float64), as scikit-learn's ``PLSRegression.transform``."""
        self._require_fitted()
        scores = self.pca_.transform(_as_float64(self._check_input(X)))
        return self._wrap_output(np.asarray(scores, dtype=np.float64), X)


@dataclass(frozen=True)
class PCRCrossValidation:
    r"""Cross-validated predictions of PCR for every number of components (:func:`cross_validate_pcr`).

    Attributes
    ----------
    n_components : ndarray of shape (k_max + 1,)
        0, 1, ..., k_max; 0 predicts the mean of the training response.
    predictions : ndarray of shape (n, k_max + 1) or (n, k_max + 1, n_targets)
        Row i, column k: the prediction of sample i by ``PCR(k)`` fitted without
        the fold that holds i.
    press : ndarray of shape (k_max + 1,) or (k_max + 1, n_targets)
        The predicted residual sum of squares :math:`\sum_i (y_i - \hat y_{i,k})^2`.
    rmsep : ndarray like `press`
        :math:`\sqrt{\mathrm{PRESS}/n}`, R pls's ``RMSEP(..., estimate = "CV")``.
    folds : list of ndarray
        The rows held out by each fold.
    """

    n_components: np.ndarray
    predictions: np.ndarray
    press: np.ndarray
    rmsep: np.ndarray
    folds: list[np.ndarray]

    @property
    def best_n_components(self) -> int:
        """The number of components with the smallest PRESS (summed over targets)."""
        total = self.press if self.press.ndim == 1 else self.press.sum(axis=1)
        return int(self.n_components[np.argmin(total)])


def _test_folds(folds: int | Iterable[ArrayLike], n: int) -> list[np.ndarray]:
    """The rows held out by each fold: `folds` consecutive segments, or the given index
    sets, which must hold every row exactly once."""
    if isinstance(folds, numbers.Integral) and not isinstance(folds, bool):
        count = int(folds)
        if not 2 <= count <= n:
            raise ValueError(f"folds must be between 2 and n_samples = {n}, got {count}")
        return [np.asarray(part) for part in np.array_split(np.arange(n), count)]
    try:
        parts = [np.asarray(part) for part in folds]  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"folds must be an int or an iterable of arrays of row indices, got {folds!r}") from None
    everything = np.concatenate(parts) if parts else np.array([], dtype=int)
    if len(parts) < 2 or everything.dtype.kind not in "iu" or not np.array_equal(np.sort(everything), np.arange(n)):
        raise ValueError(
            f"folds must be at least two arrays of row indices that hold each row 0..{n - 1} exactly once"
        )
    return parts


def cross_validate_pcr(
    X: ArrayLike,
    y: ArrayLike,
    max_components: int | None = None,
    *,
    folds: int | Iterable[ArrayLike] = 10,
    standardize: bool = False,
) -> PCRCrossValidation:
    r"""Cross-validated errors of PCR for every number of components, one PCA per fold.

    For each fold, ``PCR(k_max, standardize=standardize)`` is fitted to the other rows;
    the held-out rows are projected once, and their predictions with
    k = 0, 1, ..., k_max components are the partial sums
    :math:`\bar y + \sum_{j \le k} t_j(x)\, \mathbf u_j^\top y_c / \sigma_j` (:meth:`PCR.predict`), since the first
    k axes and coefficients of a k_max-component fit are those of a k-component fit.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Dense data.
    y : array_like of shape (n,) or (n, n_targets)
    max_components : int or None, default None
        k_max; None: the largest rank a training fold can have, min(smallest training
        fold - 1, p).
    folds : int or iterable of arrays of row indices, default 10
        An int: that many consecutive segments (the first ``n % folds`` one row
        longer: scikit-learn's ``KFold(folds)`` without shuffling, R pls's
        ``segment.type = "consecutive"``). Otherwise the rows held out by each fold,
        each row exactly once (for example ``[test for _, test in
        KFold(5, shuffle=True, random_state=0).split(X)]``).
    standardize : bool, default False
        Standardize within each training fold (as R pls does with ``scale = TRUE``).

    Returns
    -------
    PCRCrossValidation

    Notes
    -----
    R pls reports the 0-component row of ``RMSEP(..., "CV")`` by leave-one-out
    whatever the segments; here every k, 0 included, uses the same folds.
    """
    arr = as_data_matrix(X, "X", copy=False, keep_integers=True)
    n, p = arr.shape
    target = _target(y, n, "cross_validate_pcr")
    check_flag(standardize, "standardize")
    parts = _test_folds(folds, n)
    largest = min(n - max(len(part) for part in parts) - 1, p)
    if largest < 1:
        raise ValueError(f"the training folds have too few rows for one component (the largest fold holds {max(map(len, parts))} of {n})")
    k_max = largest if max_components is None else check_n_components(max_components, largest, "max_components")
    predictions = np.empty((n, k_max + 1, target.reshape(n, -1).shape[1]))
    for test in parts:
        train = np.setdiff1d(np.arange(n), test)
        model = PCR(k_max, standardize=standardize).fit(arr[train], target[train])
        predictions[test] = model._predictions_for_every_k(arr[test])
    residuals = predictions - target.reshape(n, 1, -1).astype(np.float64)
    e = unit_exponent(residuals)  # sums of squares in units of 2**e, then back
    squares = np.sum(np.ldexp(residuals, -e) ** 2, axis=0)
    if target.ndim == 1:
        predictions, squares = predictions[:, :, 0], squares[:, 0]
    press, rmsep = rescale(squares, 2 * e, "press"), rescale(np.sqrt(squares / n), e, "rmsep")
    return PCRCrossValidation(np.arange(k_max + 1), predictions, press, rmsep, parts)

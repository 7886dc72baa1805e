r"""Supplementary variables, a description of the axes, and confidence ellipses
(chapter *Reading the components*).

Variables that did not build the axes can still be read on them, with FactoMineR's
definitions (Lê, Josse and Husson 2008; Husson, Lê and Pagès 2017). For a PCA with
scores :math:`t_{ij}` of the n training rows:

* a **quantitative** supplementary variable y is placed at its correlations
  :math:`r(\mathbf y, \mathbf t_j)` (FactoMineR's ``quanti.sup$cor``);
* a **qualitative** supplementary variable (a category per row) places each category
  g at the mean score :math:`\bar t_{gj}` of its :math:`n_g` rows (``quali.sup$coord``),
  with the test value

  .. math:: v_{gj} = \bar t_{gj} \Big/ \sqrt{\frac{\lambda^{(n)}_j}{n_g}\,\frac{n - n_g}{n - 1}},
            \qquad \lambda^{(n)}_j = \frac1n\sum_i t_{ij}^2,

  the mean standardized by its standard deviation when the :math:`n_g` rows are drawn
  at random without replacement (about N(0, 1) then), and the correlation ratio
  :math:`\eta^2_j = \sum_g n_g \bar t_{gj}^2 / \sum_i t_{ij}^2`;
* :func:`describe_axes` lists, for each axis, the variables significantly correlated
  with it, the qualitative variables with a significant one-way analysis of variance
  and their significant categories (FactoMineR's ``dimdesc``);
* :func:`category_ellipses` draws the normal-theory confidence ellipse of each
  category's mean on a plane (FactoMineR's ``plotellipses``).

Scores are computed in exact units (:func:`pcalib._linalg.units.centered_rows`), and every
result is a ratio of them or is converted back exactly.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._estimator.fitted import fitted_axes, labelled, rows_in_units
from ._linalg.units import center_array, rescale
from ._utils.frames import feature_names_of
from ._utils.validation import as_data_matrix

__all__ = [
    "AxisDescription",
    "Categories",
    "category_ellipses",
    "describe_axes",
    "supplementary_categories",
    "supplementary_correlations",
]


class Categories(NamedTuple):
    """A qualitative supplementary variable on the axes (:func:`pcalib.supplementary_categories`)."""

    names: list[str]  #: the categories, sorted
    counts: np.ndarray  #: (m,) rows in each category
    coordinates: np.ndarray  #: (m, k) mean score of each category's rows
    cos2: np.ndarray  #: (m, k) squared cosine of the category's mean row with each axis
    v_test: np.ndarray  #: (m, k) test values
    eta2: np.ndarray  #: (k,) correlation ratio of the variable with each component


class AxisDescription(NamedTuple):
    """What characterizes one axis (:func:`pcalib.describe_axes`); each entry a tuple
    (name, statistic, p-value)."""

    axis: int  #: the component, 0-based
    quantitative: list[tuple[str, float, float]]  #: (variable, correlation, p), correlation decreasing
    qualitative: list[tuple[str, float, float]]  #: (variable, R^2 = eta^2, p), p increasing
    categories: list[tuple[str, float, float]]  #: ("variable=category", estimate, p)


def _scores(model: Any, X: ArrayLike) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """The scores of the rows of `X` in units (T = U 2**e, columns centered), e, the
    axes' singular values (0 for round-off axes) and the rows in units."""
    axes = fitted_axes(model)
    Y, e, _ = rows_in_units(model, X, axes.V.shape[1])
    T = Y @ axes.V.T
    T -= T.mean(axis=0)
    T[:, axes.sigma == 0] = 0.0
    return T, e, axes.sigma, Y


def _groups(groups: ArrayLike, n: int, name: str = "groups") -> tuple[list[str], np.ndarray]:
    """The sorted category names of `groups` (n labels) and each row's category index."""
    labels = np.asarray(groups, dtype=object)
    if labels.shape != (n,):
        raise ValueError(f"{name} must hold one label per row of X ({n}), got shape {labels.shape}")
    missing = [i for i, g in enumerate(labels) if _is_missing(g)]
    if missing:
        raise ValueError(
            f"{name} has missing labels (None, NaN, NaT or NA) at rows {missing[:5]}: give every "
            "row a category"
        )
    names, index = np.unique(labels.astype(str), return_inverse=True)
    if names.size < 2:
        raise ValueError(f"{name} must have at least 2 categories to compare, got {names.tolist()}")
    return [str(g) for g in names], index


def _is_missing(label: Any) -> bool:
    """None, NaN, NaT or pandas.NA (a label that is not equal to itself, or cannot say)."""
    if label is None:
        return True
    try:
        return bool(label != label)
    except TypeError:  # pandas.NA: its comparisons are NA, which has no truth value
        return True


def _correlations(A: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Correlations of the centered columns of A (n, q) with those of T (n, k); 0 where
    a column has no variance."""
    a = np.sqrt(np.einsum("ij,ij->j", A, A))
    t = np.sqrt(np.einsum("ij,ij->j", T, T))
    norms = np.outer(a, t)
    return np.divide(A.T @ T, norms, out=np.zeros(norms.shape), where=norms > 0)


def supplementary_correlations(model: Any, X: ArrayLike, Y: ArrayLike) -> Any:
    r"""Correlations of supplementary quantitative variables with the components.

    .. math:: r(\mathbf y_m, \mathbf t_j) = \frac{\sum_i (y_{im} - \bar y_m)\, t_{ij}}
              {\|\mathbf y_m - \bar y_m\one\|\,\|\mathbf t_j\|},

    FactoMineR's ``quanti.sup$cor`` (its ``$coord`` for a standardized PCA; the cos2
    are the squares). An active variable given as `Y` gets its loading's correlation,
    :math:`\sqrt{\cos^2}` with its sign.

    Parameters
    ----------
    model : fitted PCA
    X : array_like or DataFrame of shape (n, p)
        The rows whose scores the variables are correlated with (the training data).
    Y : array_like or DataFrame of shape (n, q)
        The supplementary variables (a DataFrame's columns name the output rows).

    Returns
    -------
    ndarray of shape (q, k), or a DataFrame when `Y` is one.
    """
    T, _, _, _ = _scores(model, X)
    arr = as_data_matrix(Y, "Y", copy=False, keep_integers=True)
    if arr.shape[0] != T.shape[0]:
        raise ValueError(f"Y must have one row per row of X ({T.shape[0]}), got {arr.shape[0]}")
    Zy = center_array(arr, 0, scale=True, name="Y").values  # exact, each column in its own units
    names = feature_names_of(Y)
    return labelled(_correlations(Zy, T), None if names is None else list(names))


def supplementary_categories(model: Any, X: ArrayLike, groups: ArrayLike) -> Categories:
    r"""A qualitative supplementary variable on the axes (FactoMineR's ``quali.sup``).

    Category g (rows :math:`I_g`, :math:`n_g` of them) is placed at the mean score
    :math:`\bar t_{gj} = \frac{1}{n_g}\sum_{i\in I_g} t_{ij}`, with

    .. math::

        \cos^2_{gj} = \frac{\bar t_{gj}^2}{\|\bar{\mathbf z}_g\|^2},\qquad
        v_{gj} = \bar t_{gj}\Big/\sqrt{\frac{\lambda^{(n)}_j}{n_g}\,\frac{n-n_g}{n-1}},
        \qquad \eta^2_j = \frac{\sum_g n_g\bar t_{gj}^2}{\sum_i t_{ij}^2},

    :math:`\bar{\mathbf z}_g` the mean of the category's rows as the model decomposed
    them and :math:`\lambda^{(n)}_j = \frac1n\sum_i t_{ij}^2`. The test value is the
    category's mean over its standard deviation when :math:`n_g` rows are drawn at
    random without replacement, so :math:`|v| > 1.96` marks a mean unlikely under
    random groups (at the 5% level, approximately). The coordinates are the model's
    scores: FactoMineR's for ``ddof=0`` (with ``ddof=1`` and standardized data they
    are :math:`\sqrt{(n-1)/n}` times FactoMineR's); cos2, test values and
    :math:`\eta^2` are the same for both.

    Parameters
    ----------
    model : fitted PCA
    X : array_like or DataFrame of shape (n, p)
        The training rows.
    groups : array_like of shape (n,)
        A category per row (strings, numbers; a pandas Series or Categorical). At
        least two categories, no missing label.

    Returns
    -------
    Categories
    """
    T, e, sigma, Y = _scores(model, X)
    n = T.shape[0]
    names, index = _groups(groups, n)
    counts = np.bincount(index)
    member = np.zeros((len(names), n))
    member[index, np.arange(n)] = 1.0
    means = (member @ T) / counts[:, None]  # in units 2**e
    rows = (member @ (Y - Y.mean(axis=0))) / counts[:, None]
    length2 = np.einsum("ij,ij->i", rows, rows)
    cos2 = np.divide(means**2, length2[:, None], out=np.zeros(means.shape), where=length2[:, None] > 0)
    total = np.einsum("ij,ij->j", T, T)  # n lambda^(n)_j, in units 4**e
    spread = np.sqrt(np.outer((n - counts) / (counts * (n - 1.0)), total / n))
    v_test = np.divide(means, spread, out=np.zeros(means.shape), where=spread > 0)
    eta2 = np.divide(counts @ means**2, total, out=np.zeros(total.shape), where=total > 0)
    coordinates = rescale(means, e, "the category coordinates")
    return Categories(names, counts, coordinates, cos2, v_test, eta2)


def _names(values: Any, default: str, count: int) -> list[str]:
    names = feature_names_of(values)
    return [f"{default}{j + 1}" for j in range(count)] if names is None else [str(v) for v in names]


def describe_axes(
    model: Any,
    X: ArrayLike,
    *,
    quantitative: ArrayLike | None = None,
    qualitative: Any = None,
    proba: float = 0.05,
) -> list[AxisDescription]:
    r"""What characterizes each axis: FactoMineR's ``dimdesc``.

    For component j, with the scores :math:`\mathbf t_j` of the n rows of `X`:

    * each quantitative variable (the active ones, the columns of `X`, then those of
      `quantitative`) with its correlation r and the p-value of the test of zero
      correlation, :math:`2P(t_{n-2} > |r|\sqrt{(n-2)/(1-r^2)})`, kept when
      :math:`p \le` `proba` and listed by decreasing r;
    * each qualitative variable with :math:`R^2 = \eta^2_j` (between-category over
      total sum of squares of :math:`\mathbf t_j`) and the p-value of the one-way
      analysis of variance, :math:`P(F_{G-1, n-G} > F)`, kept when :math:`p \le`
      `proba`, by increasing p;
    * each category g of those variables with its estimate
      :math:`\bar t_{gj} - \frac1G\sum_{g'}\bar t_{g'j}` (the effect in a one-way
      model with sum-to-zero contrasts) and the p-value of the correlation of its
      indicator with :math:`\mathbf t_j`, kept when :math:`p \le` `proba`, positive
      estimates of small p first and negative ones of small p last (FactoMineR's
      order, by decreasing :math:`\operatorname{sign}/p`).

    Correlations, :math:`R^2` and p-values are FactoMineR's; the estimates are in the
    model's scores (FactoMineR's for ``ddof=0``).

    Parameters
    ----------
    model : fitted PCA
    X : array_like or DataFrame of shape (n, p)
        The training rows.
    quantitative : array_like or DataFrame of shape (n, q), optional
        Supplementary quantitative variables (named ``y1, ...`` unless a DataFrame).
    qualitative : mapping of name to labels (n,), or DataFrame, optional
        Supplementary qualitative variables.
    proba : float in (0, 1], default 0.05
        The largest p-value listed.

    Returns
    -------
    list of AxisDescription, one per component
    """
    import scipy.stats  # here: importing pcalib does not load scipy.stats

    if not (isinstance(proba, (int, float)) and 0 < proba <= 1):
        raise ValueError(f"proba must be a number in (0, 1], got {proba!r}")
    T, e, _, Y = _scores(model, X)
    n, k = T.shape
    columns = [Y - Y.mean(axis=0)]
    names = _names(X, "x", Y.shape[1]) if getattr(model, "feature_names_in_", None) is None else [
        str(v) for v in model.feature_names_in_]
    if quantitative is not None:
        arr = as_data_matrix(quantitative, "quantitative", copy=False, keep_integers=True)
        if arr.shape[0] != n:
            raise ValueError(f"quantitative must have one row per row of X ({n}), got {arr.shape[0]}")
        columns.append(center_array(arr, 0, scale=True, name="quantitative").values)
        names += _names(quantitative, "y", arr.shape[1])
    r = np.clip(_correlations(np.hstack(columns), T), -1.0, 1.0)
    if qualitative is not None and not callable(getattr(qualitative, "items", None)):
        raise TypeError(
            "qualitative must map each variable's name to its labels (a dict or a DataFrame),"
            f" got {type(qualitative).__name__}: for one variable, pass {{'name': labels}}")
    factors = dict(qualitative.items()) if qualitative is not None else {}
    grouped = {name: _groups(labels, n, f"qualitative[{name!r}]") for name, labels in factors.items()}
    out = []
    for j in range(k):
        p_r = _correlation_p(r[:, j], n, scipy.stats)
        quanti = sorted(((names[m], r[m, j], p_r[m]) for m in range(len(names)) if p_r[m] <= proba),
                        key=lambda row: -row[1])
        quali, cats = [], []
        for name, (levels, index) in grouped.items():
            r2, p_f, estimates, p_g = _anova(T[:, j], levels, index, scipy.stats)
            if p_f <= proba:
                quali.append((str(name), r2, p_f))
            cats += [(f"{name}={g}", rescale(est, e, "an estimate"), p) for g, est, p in zip(levels, estimates, p_g)
                     if p <= proba]
        quali.sort(key=lambda row: row[2])
        cats.sort(key=lambda row: -np.sign(row[1]) / max(row[2], np.finfo(float).tiny))
        out.append(AxisDescription(j, quanti, quali, [(c, float(est), float(p)) for c, est, p in cats]))
    return out


def _correlation_p(r: np.ndarray, n: int, stats: Any) -> np.ndarray:
    """Two-sided p-values of the t test of zero correlation (n - 2 degrees of freedom)."""
    with np.errstate(divide="ignore"):
        t = np.abs(r) * np.sqrt((n - 2) / np.maximum(1.0 - r**2, 0.0))
    return 2.0 * stats.t.sf(t, n - 2)


def _anova(t: np.ndarray, levels: list[str], index: np.ndarray, stats: Any) -> tuple[float, float, np.ndarray, np.ndarray]:
    """R^2 and p-value of the one-way analysis of variance of `t` by category, the
    sum-to-zero effects of the categories and the p-values of their indicators'
    correlations with `t`."""
    n, groups = t.size, len(levels)
    counts = np.bincount(index, minlength=groups)
    means = np.bincount(index, weights=t, minlength=groups) / counts
    total = float(np.sum((t - t.mean()) ** 2))
    between = float(counts @ (means - t.mean()) ** 2)
    r2 = between / total if total > 0 else 0.0
    within = total - between
    F = (between / (groups - 1)) / (within / (n - groups)) if within > 0 else np.inf
    indicators = (index[:, None] == np.arange(groups)).astype(float)
    r = np.clip(_correlations(indicators - indicators.mean(axis=0), (t - t.mean())[:, None])[:, 0], -1, 1)
    return r2, float(stats.f.sf(F, groups - 1, n - groups)), means - means.mean(), _correlation_p(r, n, stats)


def category_ellipses(
    model: Any,
    X: ArrayLike,
    groups: ArrayLike,
    *,
    components: tuple[int, int] = (0, 1),
    level: float = 0.95,
    kind: str = "confidence",
    n_points: int = 100,
) -> dict[str, np.ndarray]:
    r"""The ellipse of each category on the plane of two components (FactoMineR's
    ``plotellipses`` and ``coord.ellipse``).

    For category g, with :math:`\bar{\mathbf t}_g` the mean and :math:`C_g` the
    covariance (divisor :math:`n_g - 1`) of its rows' scores on components a and b,
    the ellipse is

    .. math:: \{\mathbf m : (\mathbf m - \bar{\mathbf t}_g)^\top M^{-1}
              (\mathbf m - \bar{\mathbf t}_g) = \chi^2_{2,\text{level}}\},

    .. math:: M = C_g / n_g \text{ (confidence) or } C_g \text{ (concentration)},

    :math:`\chi^2_{2,q} = -2\log(1 - q)` the q-quantile of the chi-square distribution
    with 2 degrees of freedom. The confidence ellipse is the large-sample region for
    the category's mean, treating its rows as a random sample and the axes as fixed
    (the uncertainty of the axes themselves is not in it); the concentration ellipse
    holds about that share of the category's rows if they are normal. Its points are
    :math:`(\bar t_a + \tau s_a\cos(\theta + \delta/2),\ \bar t_b + \tau s_b\cos(\theta
    - \delta/2))`, :math:`\tau^2 = \chi^2_{2,\text{level}}`, :math:`s_a, s_b` the
    standard deviations of M, :math:`\cos\delta` the correlation, θ at `n_points`
    equal steps over :math:`[0, 2\pi]`: R's ``ellipse::ellipse``, point for point. A
    category of one row is a point.

    Parameters
    ----------
    model : fitted PCA
    X : array_like or DataFrame of shape (n, p)
        The training rows.
    groups : array_like of shape (n,)
        A category per row.
    components : pair of int, default (0, 1)
        The components a and b (0-based).
    level : float in (0, 1), default 0.95
    kind : {"confidence", "concentration"}, default "confidence"
    n_points : int, default 100

    Returns
    -------
    dict mapping each category (sorted) to an ndarray of shape (n_points, 2)
    """
    if kind not in ("confidence", "concentration"):
        raise ValueError(f'kind must be "confidence" or "concentration", got {kind!r}')
    if not (isinstance(level, float) and 0 < level < 1):
        raise ValueError(f"level must be a float in (0, 1), got {level!r}")
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) or n_points < 3:
        raise ValueError(f"n_points must be an integer of at least 3, got {n_points!r}")
    T, e, _, _ = _scores(model, X)
    a, b = components
    if not (0 <= a < T.shape[1] and 0 <= b < T.shape[1]) or a == b:
        raise ValueError(f"components must be two different indices below {T.shape[1]}, got {components!r}")
    names, index = _groups(groups, T.shape[0])
    tau = np.sqrt(-2.0 * np.log1p(-level))
    theta = np.linspace(0.0, 2.0 * np.pi, int(n_points))
    out = {}
    for g, name in enumerate(names):
        plane = T[index == g][:, [a, b]]
        centre = plane.mean(axis=0)
        if plane.shape[0] > 1:
            M = np.cov(plane, rowvar=False) / (plane.shape[0] if kind == "confidence" else 1)
        else:
            M = np.zeros((2, 2))
        s = np.sqrt(np.diag(M))
        r = M[0, 1] / (s[0] * s[1]) if s.all() else 0.0
        delta = np.arccos(np.clip(r, -1.0, 1.0))
        points = np.column_stack([tau * s[0] * np.cos(theta + delta / 2), tau * s[1] * np.cos(theta - delta / 2)])
        out[name] = rescale(points + centre, e, "the ellipses")
    return out

r"""Figures of the book: scree plot, cumulative variance, biplot, projection, CA map.

Matplotlib is imported inside each function, so ``import pcalib`` does not need it
(without it, a function raises an ``ImportError`` that says
``pip install matplotlib``). Each function draws on the given ``ax`` (or on a new
figure's axes) and returns it. Results of :func:`pcalib.pca_svd` and friends, or a
fitted :class:`pcalib.PCA`, can be passed instead of arrays.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._utils.figures import finite_values, is_pcoa_result, matplotlib_axes, result_field
from ._utils.repel import repel_labels
from ._utils.validation import as_data_matrix

__all__ = [
    "biplot", "ca_map", "correlation_circle", "cumulative_variance", "outlier_map", "projection", "repel_labels", "scree",
]


def scree(explained_variance: Any, ax: Any = None, *, ratio: bool = False, **kwargs: Any) -> Any:
    r"""Scree plot: the eigenvalue :math:`\lambda_j` against the component number j.

    Parameters
    ----------
    explained_variance : array_like of shape (k,), a PCA result or a PCoAResult
        The eigenvalues, or an object with ``explained_variance`` (or, with
        ``ratio=True``, ``explained_variance_ratio``; a trailing underscore as in a
        fitted estimator is accepted; CA's and MCA's ``eigenvalues_`` and
        ``explained_inertia_ratio_`` too). A :class:`pcalib.PCoAResult` gives every
        eigenvalue :math:`\beta_j` it holds, negative ones included (with
        ``ratio=True``, :math:`\beta_j / \operatorname{tr} B`), and a line at zero.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure if omitted.
    ratio : bool, default False
        Plot :math:`\lambda_j / \sum_i \lambda_i` taken from the result's
        ``explained_variance_ratio`` (arrays are used as given).
    **kwargs
        Passed to ``ax.plot`` (default style: a line with dots).

    Returns
    -------
    matplotlib Axes
    """
    pcoa = is_pcoa_result(explained_variance)
    if pcoa:
        beta = np.asarray(explained_variance.eigenvalues, dtype=float)
        total = explained_variance.total_inertia
        if ratio:
            explained_variance = beta / total if total > 0 else np.zeros_like(beta)
        else:
            explained_variance = beta
    field = "explained_variance_ratio" if ratio else "explained_variance"
    values = finite_values(explained_variance, field, "explained_variance")
    ax = matplotlib_axes(ax)
    j = np.arange(1, values.size + 1)
    ax.plot(j, values, **{"marker": "o", **kwargs})
    if pcoa:
        ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xlabel("axis $j$" if pcoa else "component $j$")
    if ratio:
        ax.set_ylabel("proportion explained" if pcoa else "explained variance ratio")
    else:
        ax.set_ylabel(r"eigenvalue $\beta_j$" if pcoa else r"eigenvalue $\lambda_j$")
    ax.set_title("Scree plot")
    return ax


def cumulative_variance(ratio: Any, ax: Any = None, threshold: float | None = None) -> Any:
    r"""Cumulative explained-variance ratio :math:`\sum_{i \le k} \lambda_i / \sum_i \lambda_i`.

    Parameters
    ----------
    ratio : array_like of shape (k,) or a PCA result
        Explained-variance ratios, or an object with ``explained_variance_ratio``.
    ax : matplotlib Axes, optional
    threshold : float in (0, 1], optional
        Draw the threshold as a horizontal line and mark the smallest k that reaches
        it (as :func:`pcalib.choose_k`) with a vertical line, if some k reaches it.

    Returns
    -------
    matplotlib Axes
    """
    values = finite_values(ratio, "explained_variance_ratio", "ratio")
    if threshold is not None and not (
        isinstance(threshold, numbers.Real) and not isinstance(threshold, (bool, np.bool_)) and 0 < threshold <= 1
    ):
        raise ValueError(f"threshold must be a number in (0, 1], got {threshold!r}")
    ax = matplotlib_axes(ax)
    cumulative = np.cumsum(values)
    k = np.arange(1, values.size + 1)
    ax.plot(k, cumulative, marker="o")
    if threshold is not None:
        ax.axhline(threshold, color="0.5", linestyle="--", label=f"threshold {threshold:g}")
        reached = np.flatnonzero(cumulative >= threshold - 1e-12)
        if reached.size:
            ax.axvline(reached[0] + 1, color="0.5", linestyle=":", label=f"k = {reached[0] + 1}")
        ax.legend()
    ax.set_xlabel("number of components $k$")
    ax.set_ylabel("cumulative explained variance ratio")
    ax.set_ylim(0, max(1.05, cumulative.max() * 1.05))
    ax.set_title("Cumulative explained variance")
    return ax


def biplot(
    scores: Any,
    components: Any = None,
    ax: Any = None,
    feature_names: list[str] | None = None,
    *,
    labels: ArrayLike | None = None,
    data: ArrayLike | None = None,
    sample_labels: ArrayLike | bool | None = None,
    alpha: float | None = None,
    arrow_scale: float = 1.0,
) -> Any:
    r"""Biplot of the first two components: scores as points, loadings as arrows.

    By default the arrow of feature j ends at :math:`c\,(v_{1j}, v_{2j})`, where
    :math:`v_1, v_2` are the first two principal axes and the factor c makes the
    longest arrow reach 80% of the largest absolute score, so that both are legible.

    With `alpha`, Gabriel's biplot of the factorization :math:`X_c \approx G H^\top`
    is drawn to scale (no factor c): the points are the rows of
    :math:`G = T\Lambda^{(\alpha - 1)/2}` and the arrows the rows of
    :math:`H = V\Lambda^{(1 - \alpha)/2}`, so that :math:`G H^\top = T V^\top`
    whatever `alpha`. ``alpha=1`` is the form biplot (points: the scores, distances
    between rows kept; arrows: the axes); ``alpha=0`` the covariance biplot (points:
    the standardized scores; arrows: the loadings :math:`\mathbf v_j\sqrt{\lambda_j}`,
    whose inner products are the covariances). R's ``biplot(prcomp(X), scale = s)``
    is ``alpha = 1 - s`` up to a factor :math:`\sqrt n` between points and arrows.

    The map is drawn with equal scales on both axes (a unit is as long across as up,
    so that distances and angles on the page are those of the factorization), its
    axes labelled with the share of variance of each component when the result
    knows it ("PC1 (32.7%)"; "PCo1 (...)" and the title "PCoA map" for principal
    coordinates), and labels that would overlap are pushed apart
    (:func:`repel_labels`).

    Parameters
    ----------
    scores : array_like of shape (n, >=2), a PCA result, a fitted PCA or a PCoAResult
        Scores :math:`X_c V`, or an object with ``scores`` and ``components``
        (:func:`pcalib.pca_svd` and friends), or a fitted :class:`pcalib.PCA`,
        which stores no scores: then pass `data`, and the points are
        ``scores.transform(data)``. A :class:`pcalib.PCoAResult`: the points are its
        `coordinates`, and the arrows ``scores.project_variables(data)`` for the
        variables `data` measured on the objects (``ape::biplot.pcoa``; no arrows
        without `data`).
    components : array_like of shape (>=2, p), a result or a fitted PCA, optional
        Principal axes as rows; taken from `scores` if it is a result or an estimator.
    ax : matplotlib Axes, optional
    feature_names : list of p str, optional
        Arrow labels; default the estimator's ``feature_names_in_`` (fitted on a
        DataFrame), the columns of a DataFrame `data`, else ``x1, ..., xp``.
    labels : array_like of shape (n,), optional
        Group of each point (for example a class index), used as the colour.
    data : array_like or pandas.DataFrame of shape (n, p), optional
        The samples to place, when `scores` is a fitted estimator; the variables to
        project, when it is a PCoAResult (a DataFrame's columns name the arrows).
    sample_labels : array_like of n str, or True, optional
        Text written next to each point; True takes the result's ``labels`` (a
        PCoAResult of a labelled D), else the row index of a DataFrame `data`, else
        the row numbers 0..n-1.
    alpha : float in [0, 1], optional
        Gabriel's exponent (above). The eigenvalues :math:`\lambda_j` come from the
        result or estimator (``explained_variance``), else from the variances of the
        score columns (divisor n - 1). Not for a PCoAResult.
    arrow_scale : float, default 1
        With `alpha`: the arrows are drawn `arrow_scale` times :math:`B` (the inner
        product of a point and an arrow is then `arrow_scale` times the centered value);
        the form biplot's arrows, the unit axes, are short next to the scores.

    Returns
    -------
    matplotlib Axes
        One scatter collection with n points and p arrows (annotations).
    """
    if alpha is not None and (
        isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 <= alpha <= 1
    ):
        raise ValueError(f"alpha must be a number in [0, 1] or None, got {alpha!r}")
    if isinstance(arrow_scale, bool) or not isinstance(arrow_scale, numbers.Real) or not arrow_scale > 0:
        raise ValueError(f"arrow_scale must be a positive number, got {arrow_scale!r}")
    lam = None if alpha is None else result_field(scores, "explained_variance")
    whitened = bool(getattr(scores, "whiten", False))
    pcoa = is_pcoa_result(scores)
    shares = result_field(scores, "proportion_explained" if pcoa else "explained_variance_ratio")
    if shares is None and components is not None:
        shares = result_field(components, "explained_variance_ratio")
    if feature_names is None:
        feature_names = _names_of(scores, components, data)
    if sample_labels is True and not pcoa and hasattr(data, "index"):
        sample_labels = [str(name) for name in data.index]
    if pcoa and alpha is not None:
        raise TypeError("alpha is for PCA biplots; a PCoAResult has no variables' axes to scale")
    if pcoa:
        if components is not None:
            raise TypeError("components is not used with a PCoAResult: pass the variables as data")
        arrows = np.zeros((0, 2)) if data is None else np.asarray(scores.project_variables(data), dtype=float)
        sample_labels = scores.labels if sample_labels is True else sample_labels
        scores, components, data = scores.coordinates, arrows.T, None
    if components is None:
        components = result_field(scores, "components")
        if components is None:
            raise TypeError("components is required unless scores is a result with `components`")
    elif result_field(components, "components") is not None:  # a result or a fitted estimator
        components = result_field(components, "components")
    found = result_field(scores, "scores")
    if found is None and hasattr(scores, "transform") and hasattr(scores, "components_"):
        if data is None:
            raise TypeError(
                f"a fitted {type(scores).__name__} stores no scores: pass the samples to "
                "place, biplot(model, data=X), or their scores, biplot(model.transform(X), model)"
            )
        found = scores.transform(data)
    elif data is not None:
        raise TypeError("data is only used when scores is a fitted estimator (it is transformed)")
    T = as_data_matrix(found if found is not None else scores, "scores")
    V = components if pcoa else as_data_matrix(components, "components")
    if T.shape[1] < 2 or V.shape[0] < 2:
        raise ValueError(
            f"a biplot needs two components: scores has {T.shape[1]} column(s), "
            f"components has {V.shape[0]} row(s)"
        )
    p = V.shape[1]
    names = [f"x{j + 1}" for j in range(p)] if feature_names is None else list(feature_names)
    if len(names) != p:
        raise ValueError(f"feature_names must have {p} names (one per feature), got {len(names)}")
    colours = None
    if labels is not None:
        colours = np.asarray(labels)
        if colours.shape != (T.shape[0],):
            raise ValueError(f"labels must have shape ({T.shape[0]},), got {colours.shape}")
    if sample_labels is True:
        sample_labels = range(T.shape[0])
    texts = None if sample_labels is None else [str(name) for name in sample_labels]
    if texts is not None and len(texts) != T.shape[0]:
        raise ValueError(f"sample_labels must have {T.shape[0]} entries (one per point), got {len(texts)}")
    loadings = V[:2].T
    if alpha is None:
        longest = np.linalg.norm(loadings, axis=1).max() if p else 0.0
        c = 0.8 * np.abs(T[:, :2]).max() / longest if longest > 0 else 1.0
    else:
        lam = T[:, :2].var(axis=0, ddof=1) if lam is None else np.asarray(lam, dtype=float)[:2]
        if np.any(lam <= 0):
            raise ValueError("alpha needs positive variances of the first two components")
        if whitened:  # a whitened estimator's transform divides by sqrt(lambda)
            T = T[:, :2] * np.sqrt(lam)
        T = T[:, :2] * lam ** ((alpha - 1) / 2)
        loadings, c = loadings * lam ** ((1 - alpha) / 2), float(arrow_scale)
    ax = matplotlib_axes(ax)
    ax.scatter(T[:, 0], T[:, 1], c=colours, s=12, alpha=0.7)
    written = [
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(3, 3), fontsize=8)
        for text, (x, y) in zip(texts or [], T[:, :2])
    ]
    for name, (x, y) in zip(names, c * loadings):
        ax.annotate("", xy=(x, y), xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": "tab:red"})
        written.append(ax.text(1.08 * x, 1.08 * y, name, color="tab:red", ha="center", va="center"))
    if p:  # keep the arrows' labels inside the axes (text does not extend the limits)
        ax.update_datalim(1.15 * c * loadings)
        ax.autoscale_view()
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set_aspect("equal", adjustable="datalim")
    for setter, j in ((ax.set_xlabel, 0), (ax.set_ylabel, 1)):
        setter(_axis_label("PCo" if pcoa else "PC", j, shares))
    if pcoa:
        ax.set_title("PCoA map" if not p else "PCoA biplot")
    else:
        ax.set_title("Biplot" if alpha is None else f"Biplot, alpha = {alpha:g}")
    repel_labels(ax, written)
    return ax


def _names_of(scores: Any, components: Any, data: Any) -> list[str] | None:
    """Feature names known to the inputs: an estimator's ``feature_names_in_`` or the
    columns of a DataFrame `data` (the variables of a PCoA biplot), else None."""
    for source in (scores, components):
        names = getattr(source, "feature_names_in_", None)
        if names is not None:
            return [str(name) for name in names]
    columns = getattr(data, "columns", None)
    if columns is not None and not isinstance(data, np.ndarray):
        return [str(name) for name in columns]
    return None


def _axis_label(prefix: str, j: int, shares: Any) -> str:
    """"PC1 (32.7%)", or "PC1" when the share of component j is not known."""
    if shares is None or np.size(shares) <= j:
        return f"{prefix}{j + 1}"
    return f"{prefix}{j + 1} ({100 * float(np.asarray(shares)[j]):.1f}%)"


def correlation_circle(
    model: Any,
    X: ArrayLike,
    ax: Any = None,
    *,
    components: tuple[int, int] = (0, 1),
    feature_names: list[str] | None = None,
) -> Any:
    r"""The correlation circle: each variable as the arrow of its correlations with two
    components.

    Variable l is drawn from the origin to :math:`(r(x_l, t_a), r(x_l, t_b))`, the
    correlations of its values with the scores of components a and b (for a
    standardized PCA, the loadings :math:`v_{la}\sqrt{\lambda_a}`). The arrow lies
    in the unit circle; its squared length is the variable's cos2 on the plane, so a
    variable near the circle is well represented there, and the cosine of the angle
    between two such arrows approximates their correlation. Labels that would overlap
    are pushed apart (:func:`repel_labels`).

    Parameters
    ----------
    model : fitted PCA (anything with ``transform``)
    X : array_like or DataFrame of shape (n, p)
        The training data (a DataFrame's columns name the arrows).
    ax : matplotlib Axes, optional
    components : pair of int, default (0, 1)
        The two components (0-based).
    feature_names : list of p str, optional
        Arrow labels; default the DataFrame's columns, the model's
        ``feature_names_in_``, or ``x1, ..., xp``.

    Returns
    -------
    matplotlib Axes
        p arrows (annotations) and the unit circle.
    """
    data = as_data_matrix(X, "X")
    a, b = components
    T = np.asarray(model.transform(X), dtype=float)
    if not (0 <= a < T.shape[1] and 0 <= b < T.shape[1]) or a == b:
        raise ValueError(f"components must be two different indices below {T.shape[1]}, got {components!r}")
    Zx = data - data.mean(axis=0)
    Zt = T[:, [a, b]] - T[:, [a, b]].mean(axis=0)
    norms = np.linalg.norm(Zx, axis=0)[:, None] * np.linalg.norm(Zt, axis=0)
    r = np.divide(Zx.T @ Zt, norms, out=np.zeros((data.shape[1], 2)), where=norms > 0)
    p = data.shape[1]
    names = feature_names
    columns = getattr(X, "columns", None)
    if names is None and columns is not None:
        names = [str(name) for name in columns]
    if names is None and getattr(model, "feature_names_in_", None) is not None:
        names = [str(name) for name in model.feature_names_in_]
    names = [f"x{j + 1}" for j in range(p)] if names is None else list(names)
    if len(names) != p:
        raise ValueError(f"feature_names must have {p} names (one per feature), got {len(names)}")
    ax = matplotlib_axes(ax)
    theta = np.linspace(0, 2 * np.pi, 361)
    ax.plot(np.cos(theta), np.sin(theta), color="0.5", lw=0.8)
    written = []
    for name, (x, y) in zip(names, r):
        ax.annotate("", xy=(x, y), xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": "tab:red"})
        written.append(ax.text(1.1 * x, 1.1 * y, name, color="tab:red", ha="center", va="center", fontsize=8))
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    ratio = getattr(model, "explained_variance_ratio_", None)
    for setter, j in ((ax.set_xlabel, a), (ax.set_ylabel, b)):
        setter(f"PC{j + 1}" + ("" if ratio is None else f" ({100 * ratio[j]:.1f}%)"))
    ax.set_xlim(-1.2, 1.2)
    ax.set_ylim(-1.2, 1.2)
    ax.set_aspect("equal")
    ax.set_title("Correlation circle")
    repel_labels(ax, written)
    return ax


def projection(
    X: ArrayLike,
    components: Any = None,
    ax: Any = None,
    mean: ArrayLike | None = None,
    *,
    explained_variance: ArrayLike | None = None,
    project: bool = False,
) -> Any:
    r"""2-D data with its principal axes, optionally projected on the first axis.

    Axis j is drawn from the mean :math:`\bar x` to
    :math:`\bar x + 2\sqrt{\lambda_j}\, D_s v_j` (two standard deviations along it),
    and with ``project=True`` each point is joined to its projection
    :math:`\bar x + D_s v_1 v_1^\top D_s^{-1} (x_i - \bar x)` on the first axis.
    :math:`D_s` is the diagonal of the column standard deviations when `components`
    is a :class:`pcalib.PCA` fitted with ``standardize=True``: its axes live in the
    standardized space and are drawn where they lie in the data's own units (not
    perpendicular to each other, in general, and the projection is oblique).
    Otherwise :math:`D_s = I`: orthogonal axes and orthogonal projections.

    Parameters
    ----------
    X : array_like of shape (n, 2)
        The data, in their own units.
    components : array_like of shape (k, 2), k in {1, 2}, or a PCA result
        Principal axes as rows (unit vectors), or an object with ``components``,
        ``explained_variance`` and ``mean`` (and ``scale_`` for a fitted PCA).
    ax : matplotlib Axes, optional
    mean : array_like of shape (2,), optional
        Centre of the axes; default: from the result, else the column means of X.
    explained_variance : array_like of shape (k,), optional
        Eigenvalues :math:`\lambda_j` scaling the arrows; default: from the result,
        else the variances of the scores :math:`(x_i - \bar x)^\top v_j` (ddof=1).
    project : bool, default False
        Draw the projections on the first axis.

    Returns
    -------
    matplotlib Axes
        One scatter collection of the n points (and one of the n projections), and
        one arrow annotation per axis.
    """
    data = as_data_matrix(X, "X")
    if data.shape[1] != 2:
        raise ValueError(f"X must have 2 columns (2-D data), got shape {data.shape}")
    if components is None:
        raise TypeError("components is required: principal axes as rows, or a PCA result")
    scale = np.ones(2)
    result = result_field(components, "components")
    if result is not None:
        mean = result_field(components, "mean") if mean is None else mean
        if explained_variance is None:
            explained_variance = result_field(components, "explained_variance")
        if result_field(components, "scale") is not None:
            scale = np.asarray(result_field(components, "scale"), dtype=float)
        components = result
    V = as_data_matrix(components, "components")
    if V.shape[1] != 2 or V.shape[0] > 2:
        raise ValueError(f"components must have shape (1, 2) or (2, 2), got {V.shape}")
    centre = data.mean(axis=0) if mean is None else np.asarray(mean, dtype=float)
    if centre.shape != (2,):
        raise ValueError(f"mean must have shape (2,), got {centre.shape}")
    if explained_variance is None:
        lam = ((data - centre) @ V.T).var(axis=0, ddof=1) if data.shape[0] > 1 else np.zeros(V.shape[0])
    else:
        lam = np.asarray(explained_variance, dtype=float)[: V.shape[0]]
        if lam.shape != (V.shape[0],) or np.any(lam < 0) or not np.all(np.isfinite(lam)):
            raise ValueError(
                f"explained_variance must hold {V.shape[0]} non-negative finite values, got {lam!r}"
            )
    ax = matplotlib_axes(ax)
    ax.scatter(data[:, 0], data[:, 1], s=12, alpha=0.7, label="data")
    if project:
        v1 = V[0] / np.linalg.norm(V[0])
        proj = centre + np.outer(((data - centre) / scale) @ v1, v1 * scale)
        for x, y in zip(data, proj):
            ax.plot([x[0], y[0]], [x[1], y[1]], color="0.7", lw=0.8)
        ax.scatter(proj[:, 0], proj[:, 1], s=12, marker="x", color="tab:green", label="projection on PC1")
    for j, (v, l) in enumerate(zip(V, lam)):
        tip = centre + 2 * np.sqrt(l) * v * scale
        ax.annotate("", xy=tip, xytext=centre, arrowprops={"arrowstyle": "->", "color": "tab:red", "lw": 2})
        ax.text(*tip, f" PC{j + 1}", color="tab:red")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title("Data and principal axes")
    ax.legend()
    return ax


def outlier_map(
    model: Any, X: ArrayLike, ax: Any = None, *, row_labels: Any = None, annotate: bool = True,
) -> Any:
    r"""The outlier map of a fitted :class:`pcalib.RobustPCA`: the orthogonal distance
    :math:`\mathrm{OD}_i` against the score distance :math:`\mathrm{SD}_i` of each row of
    `X`, with the model's cutoffs as a vertical and a horizontal line.

    The lines cut the plane into the four kinds of points: regular (both small), good
    leverage points (far along the subspace: large SD, small OD), orthogonal outliers
    (far from the subspace: small SD, large OD) and bad leverage points (both large).

    Parameters
    ----------
    model : RobustPCA
        Fitted; its ``distances``, ``cutoff_sd_`` and ``cutoff_od_`` are used.
    X : array_like of shape (n, p)
        The rows to place (usually the training data).
    ax : matplotlib Axes, optional
    row_labels : sequence of length n, optional
        Names written beside the rows beyond a cutoff (default: their 0-based index).
    annotate : bool, default True
        Write those names.

    Returns
    -------
    matplotlib Axes
    """
    sd, od = model.distances(X)
    labels = list(range(sd.size)) if row_labels is None else list(row_labels)
    if len(labels) != sd.size:
        raise ValueError(f"row_labels must have one entry per row of X ({sd.size}), got {len(labels)}")
    ax = matplotlib_axes(ax)
    c_sd, c_od = model.cutoff_sd_, model.cutoff_od_
    far_sd, far_od = sd > c_sd, od > c_od
    kinds = [
        (~far_sd & ~far_od, "regular", "tab:blue", "o"),
        (far_sd & ~far_od, "good leverage", "tab:green", "s"),
        (~far_sd & far_od, "orthogonal outlier", "tab:orange", "^"),
        (far_sd & far_od, "bad leverage", "tab:red", "D"),
    ]
    for mask, name, color, marker in kinds:
        ax.scatter(sd[mask], od[mask], s=18, color=color, marker=marker, label=f"{name} ({int(mask.sum())})")
    ax.axvline(c_sd, color="0.4", ls="--", lw=1)
    ax.axhline(c_od, color="0.4", ls="--", lw=1)
    if annotate:
        for i in np.flatnonzero(far_sd | far_od):
            ax.annotate(str(labels[i]), (sd[i], od[i]), xytext=(3, 3), textcoords="offset points", fontsize=7)
    ax.set_xlabel("score distance")
    ax.set_ylabel("orthogonal distance")
    ax.set_title("Outlier map")
    ax.legend(fontsize="small")
    return ax


_CA_KINDS = ("symmetric", "rows", "columns")
#: ``ca_map``'s choices of the share of inertia on the axis labels, and the MCA
#: attribute that holds each corrected share
_CA_INERTIAS = {"raw": "explained_inertia_ratio_", "benzecri": "benzecri_ratio_", "greenacre": "greenacre_ratio_"}


def _inertia_shares(model: Any, inertia: str, dims: tuple[int, int]) -> tuple[list[float], str]:
    r"""The percent of inertia of the axes `dims` that ``ca_map`` writes, and a note on
    the correction (`inertia`); an axis with no corrected inertia (MCA's
    :math:`\lambda_s \le 1/p`) has 0."""
    if inertia not in _CA_INERTIAS:
        raise ValueError(f"inertia must be one of {tuple(_CA_INERTIAS)}, got {inertia!r}")
    if inertia != "raw" and not hasattr(model, "greenacre_ratio_"):
        raise ValueError(
            f"inertia={inertia!r} is for an MCA, whose raw inertias are diluted; a CA's "
            "shares are already its own: use inertia='raw'"
        )
    ratios = 100 * np.asarray(getattr(model, _CA_INERTIAS[inertia]))
    shares = [float(ratios[s]) if s < ratios.size else 0.0 for s in dims]
    return shares, "" if inertia == "raw" else f", {'Benzécri' if inertia == 'benzecri' else 'Greenacre'}"


def _most_contributing(
    contributions: np.ndarray | None, eigenvalues: np.ndarray, dims: tuple[int, ...], most: int | None, m: int
) -> np.ndarray:
    """Indices of the (at most `most`) points of largest contribution to the plane
    `dims`, in their original order; all m if `most` is None or contributions unknown."""
    if most is None or contributions is None or m <= most:
        return np.arange(m)
    weight = contributions[:, list(dims)] @ np.asarray(eigenvalues)[list(dims)]
    return np.sort(np.argsort(-weight, kind="stable")[:most])


def ca_map(
    model: Any,
    kind: str = "symmetric",
    ax: Any = None,
    *,
    dims: tuple[int, int] = (0, 1),
    row_labels: ArrayLike | None = None,
    column_labels: ArrayLike | None = None,
    max_labels: int | None = 16,
    inertia: str = "raw",
) -> Any:
    r"""The map of a fitted :class:`pcalib.CA` or :class:`pcalib.MCA`.

    ``kind`` chooses the coordinates (Greenacre's three maps):

    * ``"symmetric"``: rows and columns in principal coordinates,
      :math:`F = D_r^{-1/2}U\Sigma` and :math:`G = D_c^{-1/2}V\Sigma`: distances between
      rows, and between columns, are chi-square distances; a row-to-column distance
      means nothing;
    * ``"rows"``: rows in principal coordinates, columns in standard coordinates
      :math:`\Gamma_c = D_c^{-1/2}V` (the row-principal asymmetric map): each row sits
      at the average of the column points weighted by its profile (the transition
      formula), and its projection on a column's direction is a biplot reading;
    * ``"columns"``: the other way round.

    The axes are drawn to the same scale (equal aspect) and labelled
    ``"Dim 1 (xx.x%)"`` with each axis's share of the total inertia; labels are placed
    around their points where they overlap least (:func:`repel_labels`). For MCA the columns are the
    categories (labelled with ``category_names_``) and the rows the individuals
    (small unlabelled points).

    Parameters
    ----------
    model : fitted CA or MCA
    kind : {"symmetric", "rows", "columns"}, default "symmetric"
    ax : matplotlib Axes, optional
    dims : pair of int, default (0, 1)
        The two axes shown (0-based, below ``n_components_``).
    row_labels, column_labels : array_like of str, optional
        CA's defaults: the columns' ``feature_names_in_`` (else ``c0``, ``c1``...), the
        rows ``r0``, ``r1``...; MCA's rows are not labelled unless given.
    max_labels : int or None, default 16
        Label at most this many points of each kind (rows, columns): those that
        contribute most to the plane shown, :math:`\sum_{s \in \text{dims}}
        \lambda_s\, \mathrm{ctr}_{js}` (as FactoMineR's ``selectMod = "contrib"``);
        the others are drawn unlabelled. None labels every point.
    inertia : {"raw", "benzecri", "greenacre"}, default "raw"
        The share of inertia written on each axis label: the raw share
        (``explained_inertia_ratio_``), or, for an MCA, whose raw shares are diluted,
        Benzécri's or Greenacre's corrected share (``benzecri_ratio_``,
        ``greenacre_ratio_``; 0 for an axis with :math:`\lambda_s \le 1/p`), named
        on the label: ``"Dim 1 (65.6%, Greenacre)"``.

    Returns
    -------
    matplotlib Axes
        One scatter collection for the rows and one for the columns.
    """
    if not (hasattr(model, "row_coordinates_") and hasattr(model, "column_standard_coordinates_")):
        raise TypeError(f"model must be a fitted pcalib.CA or pcalib.MCA, got {type(model).__name__}")
    if kind not in _CA_KINDS:
        raise ValueError(f"kind must be one of {_CA_KINDS}, got {kind!r}")
    k = int(model.n_components_)
    d = tuple(int(v) for v in dims)
    if len(d) != 2 or d[0] == d[1] or not all(0 <= v < k for v in d):
        raise ValueError(f"dims must be two distinct axes in 0..{k - 1}, got {dims!r}")
    shares, corrected = _inertia_shares(model, inertia, d)
    sigma = np.sqrt(model.eigenvalues_)
    F, G = model.row_coordinates_, model.column_coordinates_
    if kind == "rows":
        G = model.column_standard_coordinates_
    elif kind == "columns":
        F = F / sigma
    mca = hasattr(model, "category_names_")
    if column_labels is None:
        names = model.category_names_ if mca else getattr(model, "feature_names_in_", None)
        column_labels = names if names is not None else [f"c{j}" for j in range(G.shape[0])]
    if row_labels is None and not mca:
        row_labels = [f"r{i}" for i in range(F.shape[0])]
    ax = matplotlib_axes(ax)
    F, G = F[:, list(d)], G[:, list(d)]
    ax.axhline(0, color="0.75", lw=0.8, zorder=0)
    ax.axvline(0, color="0.75", lw=0.8, zorder=0)
    few_rows = row_labels is not None
    ax.scatter(F[:, 0], F[:, 1], s=24 if few_rows else 6, color="C0" if few_rows else "0.6",
               marker="o", label="individuals" if mca else "rows")
    ax.scatter(G[:, 0], G[:, 1], s=24, color="C3", marker="^", label="categories" if mca else "columns")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel(f"Dim {d[0] + 1} ({shares[0]:.1f}%{corrected})")
    ax.set_ylabel(f"Dim {d[1] + 1} ({shares[1]:.1f}%{corrected})")
    title = {"symmetric": "Symmetric map", "rows": "Row-principal map", "columns": "Column-principal map"}
    ax.set_title(f"{title[kind]} ({type(model).__name__})")
    chosen = [
        _most_contributing(getattr(model, "row_contributions_", None), model.eigenvalues_, d, max_labels, F.shape[0])
        if few_rows else np.zeros(0, dtype=int),
        _most_contributing(model.column_contributions_, model.eigenvalues_, d, max_labels, G.shape[0]),
    ]
    points = np.vstack([F[chosen[0]], G[chosen[1]]])
    texts = [str(row_labels[i]) for i in chosen[0]] + [str(column_labels[j]) for j in chosen[1]]  # type: ignore[index]
    colours = ["C0"] * chosen[0].size + ["C3"] * chosen[1].size
    written = [
        ax.annotate(text, xy, xytext=(5, 0), textcoords="offset points", ha="left", va="center", fontsize="small", color=colour)
        for text, xy, colour in zip(texts, points, colours)
    ]
    ax.autoscale_view()
    repel_labels(ax, written)
    return ax

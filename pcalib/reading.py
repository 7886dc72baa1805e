r"""Reading the components (chapter *Reading the components*).

What a fitted PCA says about each variable and each row, with FactoMineR's
definitions (Lê, Josse and Husson 2008), and the rotations varimax (Kaiser 1958)
and promax (Hendrickson and White 1964).

For a model with axes :math:`v_j` (the rows of ``components_``), eigenvalues
:math:`\lambda_j` and scores :math:`t_{ij} = v_j^\top z_i`, where
:math:`z_i = D_s^{-1}(x_i - \bar x)` is the row as the model decomposed it
(:math:`D_s = I` without standardizing):

* the **contribution** of variable l to axis j is :math:`100\, v_{lj}^2` percent
  (each axis: 100 in all);
* the **quality** (squared cosine) of variable l on axis j is
  :math:`\lambda_j v_{lj}^2 / s_{ll}`, the squared correlation between the variable
  and the component, :math:`s_{ll}` the variance of the variable in the model's
  space (1 when standardized); over all axes it sums to 1;
* the contribution of row i to axis j is
  :math:`100\, t_{ij}^2 / \sum_{i'} t_{i'j}^2` percent, the denominator
  :math:`\sigma_j^2 = (n - \mathrm{ddof})\lambda_j` taken from the fit;
* the quality of row i on axis j is :math:`t_{ij}^2 / \|z_i\|^2`, the squared
  cosine of the angle between the centered row and the axis.

These are the same whatever the divisor (``ddof``) of the variances, which is why
pcalib with ``ddof=1`` and FactoMineR (divisor n) agree on them.

They are computed as ratios in exact units (:func:`pcalib._linalg.units.centered_rows`:
rows centered by the fit's exact mean, then scaled by a power of two), never from
squares of the data, so they are the same at every scale of the data, at any offset,
and for 64-bit integers beyond :math:`2^{53}`. An axis whose eigenvalue is 0 to
round-off (:math:`\lambda_j \le \max(n, p)\,\varepsilon\,\lambda_1`, as the null
axes of data with fewer rows than columns) explains nothing: its contributions and
variable qualities are 0.

They are defined for PCA: orthonormal axes whose scores are uncorrelated, with
``singular_values_`` :math:`\sigma_j` (the root sums of squares of the training
scores). A model without them, such as :class:`pcalib.SparsePCA` (correlated
scores, adjusted variances), is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._estimator.fitted import AT_CENTER, EPS, checked_rows, fitted_axes, labelled, model_scale, per_row, rows_in_units
from ._linalg.signs import axis_signs
from ._linalg.units import center_array, centered_rows, rescale, unit_exponent
from ._utils.validation import as_data_matrix, check_positive_int, check_tol

__all__ = [
    "promax",
    "row_contributions",
    "row_cos2",
    "variable_contributions",
    "variable_cos2",
    "varimax",
]


def _variable_index(model: Any) -> Any:
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else list(names)


def variable_contributions(model: Any) -> Any:
    r"""Contribution of each variable to each axis, in percent (FactoMineR's ``var$contrib``).

    .. math:: \mathrm{ctr}_{lj} = 100\, v_{lj}^2,

    the share of the variance :math:`\lambda_j = \sum_l \lambda_j v_{lj}^2` of
    component j that comes from variable l. Each column sums to 100, except that of
    an axis of round-off variance, which is 0.

    Parameters
    ----------
    model : fitted PCA
        Any object with orthonormal ``components_`` (k, p) and ``singular_values_``.

    Returns
    -------
    ndarray of shape (p, k), or a pandas DataFrame indexed by the variables' names
    when the model was fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> X = np.random.default_rng(0).standard_normal((50, 4))
    >>> ctr = pcalib.variable_contributions(pcalib.PCA(2).fit(X))
    >>> ctr.shape, np.allclose(ctr.sum(axis=0), 100)
    ((4, 2), True)
    """
    axes = fitted_axes(model)
    return labelled(100.0 * axes.V.T**2 * (axes.sigma > 0), _variable_index(model))


def variable_cos2(model: Any, X: ArrayLike | None = None) -> Any:
    r"""Quality of representation of each variable on each axis (FactoMineR's ``var$cos2``).

    .. math::

        \cos^2_{lj} = \frac{\lambda_j v_{lj}^2}{s_{ll}} = r(x_l, t_j)^2,

    the squared correlation between variable l and component j, :math:`s_{ll}` the
    variance of the variable in the space the model decomposed (1 for a model fitted
    with ``standardize=True``). Over all the axes each row sums to 1; over the first
    k it is the share of the variable's variance that the k components explain.

    Parameters
    ----------
    model : fitted PCA
    X : array_like of shape (n, p), optional
        The training data, to compute :math:`s_{ll}`. Not needed when the model is
        standardized, or keeps every component (then
        :math:`s_{ll} = \sum_j \lambda_j v_{lj}^2`).

    Returns
    -------
    ndarray of shape (p, k), or a DataFrame (as :func:`variable_contributions`).

    Raises
    ------
    ValueError
        When :math:`s_{ll}` cannot be known without `X`.
    """
    axes = fitted_axes(model)
    k, p = axes.V.shape
    unit = unit_exponent(axes.sigma)
    weighted = axes.V.T**2 * np.ldexp(axes.sigma, -unit) ** 2  # v_lj^2 sigma_j^2, in units 4**unit
    if X is not None:  # s_ll (n - ddof) = the sum of squares of the centered, scaled column
        arr, _ = checked_rows(model, X, p)
        Y, e = centered_rows(arr, center_array(arr, 0).center, model_scale(model, p))
        sums = np.einsum("ij,ij->j", Y, Y) * np.ldexp(1.0, 2 * (e - unit))
        sums *= (axes.n - axes.ddof) / (arr.shape[0] - axes.ddof)
    elif getattr(model, "standardize", False):
        sums = np.full(p, np.ldexp(float(axes.n - axes.ddof), -2 * unit))
    elif k == min(p, axes.n):
        sums = weighted.sum(axis=1)
    else:
        raise ValueError(
            f"variable_cos2 needs the variances of the variables: the model keeps "
            f"{k} of its components and is not standardized, so pass the training "
            "data as X"
        )
    cos2 = np.divide(weighted, sums[:, None], out=np.zeros((p, k)), where=sums[:, None] > 0)
    return labelled(cos2, _variable_index(model))


def row_cos2(model: Any, X: ArrayLike) -> Any:
    r"""Quality of representation of each row on each axis (FactoMineR's ``ind$cos2``).

    .. math:: \cos^2_{ij} = \frac{t_{ij}^2}{\|z_i\|^2},

    the squared cosine of the angle between the centered (scaled) row :math:`z_i`
    and axis j; over all axes it sums to 1. A row at the center to round-off
    (:math:`\|z_i\| \le 64\,\varepsilon\sqrt p\,\sigma_1`, the round-off of an
    exactly centered row, :math:`\sigma_1` the first singular value) has no
    direction: its cos2 are 0.

    Parameters
    ----------
    model : fitted PCA
    X : array_like or DataFrame of shape (n, p)
        Any rows (training or new ones); a DataFrame's index names the output rows.

    Returns
    -------
    ndarray of shape (n, k), or a DataFrame indexed like `X`.
    """
    axes = fitted_axes(model)
    Y, e, index = rows_in_units(model, X, axes.V.shape[1])
    Y, r = per_row(Y)  # z_i = Y_i 2**(e + r_i), max |Y_il| in [1/2, 1)
    T = Y @ axes.V.T
    length = np.sqrt(np.einsum("ij,ij->i", Y, Y))
    noise = AT_CENTER * EPS * np.sqrt(axes.V.shape[1]) * axes.sigma.max(initial=0.0)
    away = (length > np.ldexp(noise, -(e + r)))[:, None]
    cos2 = np.divide(T**2, length[:, None] ** 2, out=np.zeros_like(T), where=away)
    return labelled(cos2, index)


def row_contributions(model: Any, X: ArrayLike) -> Any:
    r"""Contribution of each row to each axis, in percent (FactoMineR's ``ind$contrib``).

    .. math::

        \mathrm{ctr}_{ij} = 100\,\frac{t_{ij}^2}{\sigma_j^2}
        = 100\,\frac{t_{ij}^2}{\sum_{i'} t_{i'j}^2},

    the sums over the n training rows, :math:`\sigma_j^2 = (n - \mathrm{ddof})
    \lambda_j`. For the training data each column sums to 100; a new row is measured
    against the same total. An axis of round-off variance gets 0.

    Parameters
    ----------
    model : fitted PCA
        Needs ``singular_values_`` besides the axes.
    X : array_like or DataFrame of shape (m, p)

    Returns
    -------
    ndarray of shape (m, k), or a DataFrame indexed like `X`.
    """
    axes = fitted_axes(model)
    Y, e, index = rows_in_units(model, X, axes.V.shape[1])
    mantissa, power = np.frexp(axes.sigma)  # sigma_j = mantissa_j 2**power_j
    ratio = np.divide(Y @ axes.V.T, mantissa, out=np.zeros((Y.shape[0], axes.V.shape[0])), where=mantissa > 0)
    ctr = 100.0 * rescale(ratio**2, 2 * (e - power), "the row contributions")  # (t_ij / sigma_j)^2
    return labelled(ctr, index)


def _varimax_step(A: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gradient B of Kaiser's criterion at the rotation R, and its polar factor."""
    p = A.shape[0]
    Z = A @ R
    B = A.T @ (Z**3 - Z * (np.sum(Z**2, axis=0) / p))
    U, _, Wt = np.linalg.svd(B)
    return B, U @ Wt


def varimax(
    loadings: ArrayLike,
    *,
    normalize: bool = True,
    tol: float = 1e-8,
    max_iter: int = 1000,
    sort: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Kaiser's varimax rotation of a loading matrix.

    In the notation of the book's chapter *Reading the components*: finds the
    orthogonal :math:`O` (k x k) that maximizes the varimax criterion of
    :math:`\Gamma = \tilde L O`, :math:`\tilde L` the loadings :math:`L` with each row
    divided by its length (Kaiser's normalization; :math:`\tilde L = L` without
    `normalize`),

    .. math::

        f(O) = \sum_{j=1}^k \Big[\sum_{l=1}^p \Gamma_{lj}^4
               - \frac1p \Big(\sum_{l=1}^p \Gamma_{lj}^2\Big)^2\Big],

    (p times the sum over columns of the variance of the squared loadings) by the
    SVD iteration of R's ``stats::varimax``: with
    :math:`E_{\mathrm v} = \tilde L^\top\big(\Gamma^{\circ 3} - \Gamma\,\diag(\tfrac1p
    \one^\top\Gamma^{\circ 2})\big)` (a quarter of the gradient of f) and its SVD
    :math:`E_{\mathrm v} = U_{\mathrm v}\Delta V_{\mathrm v}^\top`, the next rotation
    is :math:`O = U_{\mathrm v}V_{\mathrm v}^\top`, the orthogonal matrix closest to
    :math:`E_{\mathrm v}`. A fixed point satisfies :math:`O^\top E_{\mathrm v} =
    E_{\mathrm v}^\top O`, the condition for a stationary point of f on the
    orthogonal group. With `normalize`, the rotated rows are multiplied back by their
    lengths: the result is :math:`LO`.

    The iteration starts from the identity, as R's. When the loadings have rank
    r < k (two equal columns, say), the identity is a stationary point that is not a
    maximum, so it starts instead from the right singular vectors of L, which put
    the loadings in r columns and zeros. It runs in units of a power of two of the
    loadings (the same rotation at every scale) and stops when R moves by less than
    `tol` or when :math:`O^\top E_{\mathrm v} - E_{\mathrm v}^\top O` is round-off (at
    a stationary point, where :math:`E_{\mathrm v}` can be 0 and its polar factor is
    then arbitrary).

    Parameters
    ----------
    loadings : array_like of shape (p, k)
        For example ``PCA(k).fit(X).loadings_``; a zero row is left as it is.
    normalize : bool, default True
        Kaiser's row normalization.
    tol : float, default 1e-8
        Stop when the rotation moves by less than `tol` (largest entry of the change).
        R's ``stats::varimax`` stops instead when the sum of the singular values of
        :math:`E_{\mathrm v}` grows by less than a relative ``eps = 1e-5``, which can
        leave the loadings
        1e-3 from the stationary point.
    max_iter : int, default 1000
    sort : bool, default True
        Order the rotated columns by decreasing sum of squares (the variance each
        rotated component explains), as psych does; R's ``stats::varimax`` and
        GPArotation keep the order the iteration gives them (``sort=False``).

    Returns
    -------
    rotated : ndarray of shape (p, k)
        :math:`LO`, each column's entry of largest magnitude positive (pcalib's
        sign convention).
    rotation : ndarray of shape (k, k)
        The orthogonal O, its columns ordered and flipped with those of `rotated`.

    Raises
    ------
    ValueError
        For non-finite loadings, fewer than 2 columns, or a non-positive `tol`.
    RuntimeError
        When `max_iter` iterations do not converge.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> L = np.array([[0.7, 0.5], [0.7, 0.4], [0.6, -0.5], [0.6, -0.6]])
    >>> rotated, O = pcalib.varimax(L)
    >>> bool(np.allclose(O.T @ O, np.eye(2))), bool(np.allclose(L @ O, rotated))
    (True, True)
    """
    A0 = as_data_matrix(loadings, "loadings").astype(np.float64, copy=False)
    p, k = A0.shape
    if k < 2:
        raise ValueError(f"loadings must have at least 2 columns to rotate, got shape {A0.shape}")
    tol = check_tol(tol)
    max_iter = check_positive_int(max_iter, "max_iter")
    e = unit_exponent(A0)
    A = np.ldexp(A0, -e)  # exact: entries in (-1, 1), no square out of range
    h = np.ones(p)
    if normalize:
        h = np.sqrt(np.einsum("ij,ij->i", A, A))
        h[h == 0] = 1.0
        A = A / h[:, None]
    R = _varimax_start(A)
    stationary = 16 * p * k * EPS  # |A| < 1 in these units: round-off of R^T B
    for _ in range(max_iter):
        B, R_new = _varimax_step(A, R)
        if np.abs(R.T @ B - B.T @ R).max() <= stationary:
            break
        change = np.abs(R_new - R).max()
        R = R_new
        if change < tol:
            break
    else:
        raise RuntimeError(f"varimax did not converge in max_iter={max_iter} iterations (tol={tol})")
    rotated = (A @ R) * h[:, None]
    order = np.argsort(-np.einsum("ij,ij->j", rotated, rotated), kind="stable") if sort else np.arange(k)
    rotated, R = rotated[:, order], R[:, order]
    signs = axis_signs(rotated.T)
    return rescale(rotated * signs, e, "the rotated loadings"), R * signs


def _varimax_start(A: np.ndarray) -> np.ndarray:
    """The identity, or the right singular vectors of `A` when its rank is below k."""
    _, s, Wt = np.linalg.svd(A, full_matrices=False)
    if s[-1] > A.shape[1] * max(A.shape) * EPS * s[0]:
        return np.eye(A.shape[1])
    return Wt.T


def promax(
    loadings: ArrayLike, *, m: int = 4, tol: float = 1e-8, max_iter: int = 1000,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Hendrickson and White's promax rotation: varimax, then an oblique fit to a
    sharpened target (R's ``stats::promax``).

    In the notation of the book's chapter *Reading the components*: with :math:`LO`
    the varimax loadings (:func:`varimax`, Kaiser's normalization) and the target
    :math:`(LO)^{\circ m}` keeping signs (entries :math:`g|g|^{m-1}`), the
    least-squares :math:`\Theta_0 = ((LO)^\top LO)^{-1}(LO)^\top(LO)^{\circ m}` is
    rescaled, :math:`\Theta = \Theta_0\,\diag\big(\diag((\Theta_0^\top
    \Theta_0)^{-1})\big)^{1/2}`, so that the components keep unit variance. The
    pattern loadings are :math:`LO\Theta` and the correlations of the rotated
    components are :math:`\Psi = \Theta^{-1}\Theta^{-\top}`: the components are no
    longer uncorrelated, and a pattern loading is a regression weight, not a
    correlation (the correlations, the *structure*, are :math:`LO\Theta\Psi`).

    Parameters
    ----------
    loadings : array_like of shape (p, k)
        :math:`L`.
    m : int, default 4
        The power of the target (R's default).
    tol, max_iter
        Of the varimax step.

    Returns
    -------
    pattern : ndarray of shape (p, k)
        :math:`LO\Theta`, columns in the varimax order (:func:`varimax`, sorted),
        each column's entry of largest magnitude positive.
    rotation : ndarray of shape (k, k)
        The oblique :math:`O\Theta`, with :math:`L\,O\Theta` the pattern.
    correlations : ndarray of shape (k, k)
        :math:`\Psi`, the correlations of the rotated components.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> L = np.array([[0.7, 0.5], [0.7, 0.4], [0.6, -0.5], [0.6, -0.6]])
    >>> pattern, rotation, Psi = pcalib.promax(L)
    >>> bool(np.allclose(L @ rotation, pattern)), bool(np.allclose(np.diag(Psi), 1))
    (True, True)
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
        raise ValueError(f"m must be an integer of at least 2, got {m!r}")
    rotated, R = varimax(loadings, tol=tol, max_iter=max_iter)
    e = unit_exponent(rotated)
    Lam = np.ldexp(rotated, -e)  # the varimax loadings in units: U does not depend on them
    target = Lam * np.abs(Lam) ** (m - 1)
    U = np.linalg.lstsq(Lam, target, rcond=None)[0]
    U = U * np.sqrt(np.diag(np.linalg.inv(U.T @ U)))
    signs = axis_signs((Lam @ U).T)
    U = U * signs
    Ui = np.linalg.inv(U)
    return rescale(Lam @ U, e, "the pattern loadings"), R @ U, Ui @ Ui.T

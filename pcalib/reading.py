r"""Reading the components (chapter *Reading the components*).

What a fitted PCA says about each variable and each row, with FactoMineR's
definitions (Lê, Josse and Husson 2008), and the varimax rotation (Kaiser 1958).

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
  :math:`(n - \mathrm{ddof})\lambda_j` taken from the fit;
* the quality of row i on axis j is :math:`t_{ij}^2 / \|z_i\|^2`, the squared
  cosine of the angle between the centered row and the axis.

These are the same whatever the divisor (``ddof``) of the variances, which is why
pcalib with ``ddof=1`` and FactoMineR (divisor n) agree on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._frames import feature_names_of, import_pandas
from ._validation import as_data_matrix

__all__ = [
    "row_contributions",
    "row_cos2",
    "variable_contributions",
    "variable_cos2",
    "varimax",
]

#: Axes are orthonormal when every entry of V V^T - I is below this.
ORTHONORMAL_TOL = 1e-8


def _parts(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """The axes (k, p) and eigenvalues (k,) of a fitted PCA-like model, as float64.

    Raises ``TypeError`` for an object without them and ``ValueError`` when the axes
    are not orthonormal (cos2 and contributions presume orthonormal axes)."""
    if not (hasattr(model, "components_") and hasattr(model, "explained_variance_")):
        raise TypeError(
            "model must be a fitted PCA (an object with components_ and explained_variance_), "
            f"got {type(model).__name__}"
        )
    V = np.asarray(model.components_, dtype=np.float64)
    lam = np.asarray(model.explained_variance_, dtype=np.float64)
    if np.abs(V @ V.T - np.eye(V.shape[0])).max() > ORTHONORMAL_TOL:
        raise ValueError(
            "model's components_ are not orthonormal (a sparse or rotated fit?): cos2 and "
            "contributions are defined for orthonormal axes"
        )
    return V, lam


def _frame(values: np.ndarray, index: Any) -> Any:
    """`values` as a pandas DataFrame (index `index`, columns PC1, PC2, ...) when
    `index` is not None, else unchanged."""
    if index is None:
        return values
    pd = import_pandas()
    columns = [f"PC{j + 1}" for j in range(values.shape[1])]
    return pd.DataFrame(values, index=index, columns=columns)


def _variable_index(model: Any) -> Any:
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else list(names)


def _rows(model: Any, X: ArrayLike) -> tuple[np.ndarray, Any]:
    """The rows of `X` as the model decomposed them, z_i = (x_i - mean) / scale, and
    the row index of a DataFrame (None otherwise)."""
    names = feature_names_of(X)
    fitted = getattr(model, "feature_names_in_", None)
    if fitted is not None and names is not None and list(names) != list(fitted):
        raise ValueError(
            f"X's columns {list(names)} differ from the columns the model was fitted on "
            f"{list(fitted)}"
        )
    index = getattr(X, "index", None) if names is not None else None
    arr = as_data_matrix(X, "X").astype(np.float64, copy=False)
    p = np.shape(model.components_)[1]
    if arr.shape[1] != p:
        raise ValueError(f"X has {arr.shape[1]} columns, but the model was fitted on {p}")
    if not hasattr(model, "mean_"):
        raise TypeError(
            f"model must be a fitted PCA with mean_ (the center its scores are measured "
            f"from), got {type(model).__name__}"
        )
    mean = np.asarray(model.mean_, dtype=np.float64)
    scale = np.asarray(getattr(model, "scale_", np.ones(p)), dtype=np.float64)
    return (arr - mean) / scale, index


def variable_contributions(model: Any) -> Any:
    r"""Contribution of each variable to each axis, in percent (FactoMineR's ``var$contrib``).

    .. math:: \mathrm{ctr}_{lj} = 100\, v_{lj}^2,

    the share of the variance :math:`\lambda_j = \sum_l \lambda_j v_{lj}^2` of
    component j that comes from variable l. Each column sums to 100.

    Parameters
    ----------
    model : fitted PCA
        Any object with orthonormal ``components_`` (k, p) and ``explained_variance_``.

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
    V, _ = _parts(model)
    return _frame(100.0 * V.T**2, _variable_index(model))


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
    V, lam = _parts(model)
    p = V.shape[1]
    if X is not None:
        Z, _ = _rows(model, X)
        ddof = int(getattr(model, "ddof", 1))
        variances = np.sum((Z - Z.mean(axis=0)) ** 2, axis=0) / (Z.shape[0] - ddof)
    elif getattr(model, "standardize", False):
        variances = np.ones(p)
    elif V.shape[0] == min(p, int(getattr(model, "n_samples_", None) or p)):
        variances = (V.T**2) @ lam
    else:
        raise ValueError(
            f"variable_cos2 needs the variances of the variables: the model keeps "
            f"{V.shape[0]} of its components and is not standardized, so pass the training "
            "data as X"
        )
    cos2 = np.divide(
        V.T**2 * lam, variances[:, None], out=np.zeros((p, V.shape[0])),
        where=variances[:, None] > 0,
    )
    return _frame(cos2, _variable_index(model))


def row_cos2(model: Any, X: ArrayLike) -> Any:
    r"""Quality of representation of each row on each axis (FactoMineR's ``ind$cos2``).

    .. math:: \cos^2_{ij} = \frac{t_{ij}^2}{\|z_i\|^2},

    the squared cosine of the angle between the centered (scaled) row :math:`z_i`
    and axis j; over all axes it sums to 1. A row at the center (to round-off:
    :math:`\|z_i\|` below 64 machine epsilons times the length of the scaled row
    :math:`D_s^{-1} x_i`) has no direction: its cos2 are 0.

    Parameters
    ----------
    model : fitted PCA
    X : array_like or DataFrame of shape (n, p)
        Any rows (training or new ones); a DataFrame's index names the output rows.

    Returns
    -------
    ndarray of shape (n, k), or a DataFrame indexed like `X`.
    """
    V, _ = _parts(model)
    Z, index = _rows(model, X)
    T = Z @ V.T
    d2 = np.einsum("ij,ij->i", Z, Z)
    # the round-off of z_i = (x_i - mean) / scale is about eps |x_i / scale|
    arr = as_data_matrix(X, "X").astype(np.float64, copy=False)
    scale = np.asarray(getattr(model, "scale_", np.ones(Z.shape[1])), dtype=np.float64)
    noise = 64 * np.finfo(np.float64).eps * np.linalg.norm(arr / scale, axis=1)
    away = (d2 > noise**2)[:, None]
    cos2 = np.divide(T**2, d2[:, None], out=np.zeros_like(T), where=away)
    return _frame(cos2, index)


def row_contributions(model: Any, X: ArrayLike) -> Any:
    r"""Contribution of each row to each axis, in percent (FactoMineR's ``ind$contrib``).

    .. math::

        \mathrm{ctr}_{ij} = 100\,\frac{t_{ij}^2}{(n - \mathrm{ddof})\,\lambda_j}
        = 100\,\frac{t_{ij}^2}{\sum_{i'} t_{i'j}^2},

    the sums over the n training rows. For the training data each column sums to
    100; a new row is measured against the same total.

    Parameters
    ----------
    model : fitted PCA
        Needs ``n_samples_`` and ``ddof`` (default 1) besides the axes.
    X : array_like or DataFrame of shape (m, p)

    Returns
    -------
    ndarray of shape (m, k), or a DataFrame indexed like `X`.
    """
    V, lam = _parts(model)
    if not hasattr(model, "n_samples_"):
        raise TypeError(f"model must be fitted (have n_samples_), got {type(model).__name__}")
    Z, index = _rows(model, X)
    total = (int(model.n_samples_) - int(getattr(model, "ddof", 1))) * lam
    T = Z @ V.T
    ctr = np.divide(100.0 * T**2, total, out=np.zeros_like(T), where=total > 0)
    return _frame(ctr, index)


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
) -> tuple[np.ndarray, np.ndarray]:
    r"""Kaiser's varimax rotation of a loading matrix.

    Finds the orthogonal :math:`R` (k x k) that maximizes the varimax criterion of
    :math:`\Lambda = A R`,

    .. math::

        f(R) = \sum_{j=1}^k \Big[\sum_{l=1}^p \Lambda_{lj}^4
               - \frac1p \Big(\sum_{l=1}^p \Lambda_{lj}^2\Big)^2\Big],

    (p times the sum over columns of the variance of the squared loadings) by the
    SVD iteration of R's ``stats::varimax``: with
    :math:`B = A^\top\big(\Lambda^{\circ 3} - \Lambda\,\diag(\tfrac1p \one^\top
    \Lambda^{\circ 2})\big)` (a quarter of the gradient of f) and its SVD
    :math:`B = P\Delta Q^\top`, the next rotation is :math:`R = PQ^\top`, the
    orthogonal matrix closest to B. A fixed point satisfies :math:`R^\top B =
    B^\top R`, the condition for a stationary point of f on the orthogonal group.
    With `normalize`, the rows of the loadings are first divided by their lengths
    (the square roots of the communalities; Kaiser's normalization) and multiplied
    back after.

    Parameters
    ----------
    loadings : array_like of shape (p, k)
        For example ``PCA(k).fit(X).loadings_``; a zero row is left as it is.
    normalize : bool, default True
        Kaiser's row normalization.
    tol : float, default 1e-8
        Stop when the rotation moves by less than `tol` (largest entry of the change).
        R's ``stats::varimax`` stops instead when the sum of the singular values of
        B grows by less than a relative ``eps = 1e-5``, which can leave the loadings
        1e-3 from the stationary point.
    max_iter : int, default 1000

    Returns
    -------
    rotated : ndarray of shape (p, k)
        :math:`A R`, each column's entry of largest magnitude positive (pcalib's
        sign convention; the columns keep the order the iteration gives them).
    rotation : ndarray of shape (k, k)
        The orthogonal R, its columns flipped with those of `rotated`.

    Raises
    ------
    ValueError
        For non-finite loadings, fewer than 2 columns, or a non-positive `tol`.
    RuntimeError
        When `max_iter` iterations do not converge.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> A = np.array([[0.7, 0.5], [0.7, 0.4], [0.6, -0.5], [0.6, -0.6]])
    >>> rotated, R = pcalib.varimax(A)
    >>> bool(np.allclose(R.T @ R, np.eye(2))), bool(np.allclose(A @ R, rotated))
    (True, True)
    """
    A = as_data_matrix(loadings, "loadings").astype(np.float64, copy=True)
    p, k = A.shape
    if k < 2:
        raise ValueError(f"loadings must have at least 2 columns to rotate, got shape {A.shape}")
    if not (isinstance(tol, (int, float)) and tol > 0):
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    h = np.ones(p)
    if normalize:
        h = np.linalg.norm(A, axis=1)
        h[h == 0] = 1.0
        A = A / h[:, None]
    R = np.eye(k)
    for _ in range(int(max_iter)):
        _, R_new = _varimax_step(A, R)
        change = np.abs(R_new - R).max()
        R = R_new
        if change < tol:
            break
    else:
        raise RuntimeError(f"varimax did not converge in max_iter={max_iter} iterations (tol={tol})")
    rotated = (A @ R) * h[:, None]
    pivots = rotated[np.argmax(np.abs(rotated), axis=0), np.arange(k)]
    signs = np.where(pivots < 0, -1.0, 1.0)
    return rotated * signs, R * signs

r"""The parts of a fitted PCA that the reading aids use (chapter *Reading the components*).

:func:`fitted_axes` checks that a model is a PCA (orthonormal axes with
``singular_values_``) and zeroes the singular values of round-off size;
:func:`rows_in_units` reads rows as the model decomposed them, in exact units
(:func:`pcalib._linalg.units.centered_rows`, with the fit's exact mean); :func:`per_row`
puts each row in its own units. :mod:`pcalib.reading` and
:mod:`pcalib.supplementary` compute their ratios from these.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._linalg.center import Center
from .._linalg.units import centered_rows, unit_exponent
from .._ppca.scoring import above_round_off
from .._utils.frames import feature_names_of, import_pandas
from .._utils.validation import as_data_matrix

__all__ = [
    "AT_CENTER", "EPS", "ORTHONORMAL_TOL", "Axes", "checked_rows", "fitted_axes", "fitted_center", "labelled", "model_scale",
    "per_row", "rows_in_units",
]

#: Axes are orthonormal when every entry of V V^T - I is below this.
ORTHONORMAL_TOL = 1e-8
#: A row is at the center (no direction) when ||z_i|| is below this many machine
#: epsilons times sqrt(p) sigma_1, the round-off of an exactly centered row.
AT_CENTER = 64
EPS = float(np.finfo(np.float64).eps)


class Axes(NamedTuple):
    """The parts of a fitted PCA that the reading aids use (:func:`fitted_axes`)."""

    V: np.ndarray  #: (k, p) float64, the orthonormal axes as rows
    sigma: np.ndarray  #: (k,) float64, singular values; 0 for axes of round-off variance
    n: int  #: training rows (n_samples_, else p)
    ddof: int  #: divisor n - ddof of the variances


def fitted_axes(model: Any) -> Axes:
    r"""The axes, singular values, n and ddof of a fitted PCA, as :class:`Axes`.

    The singular values :math:`\sigma_j = \sqrt{(n - \mathrm{ddof})\lambda_j}` are
    ``singular_values_``; those of round-off size
    (:math:`\sigma_j^2 \le \max(n, p)\,\varepsilon\,\sigma_1^2`) are set to 0.

    Raises
    ------
    TypeError
        For an object without ``components_`` and ``singular_values_`` (a
        :class:`pcalib.SparsePCA`, a :class:`pcalib.RobustPCA`: their variances are
        not those of uncorrelated scores).
    ValueError
        When the axes are not orthonormal.
    """
    if not (hasattr(model, "components_") and hasattr(model, "singular_values_")):
        raise TypeError(
            "model must be a fitted PCA, with orthonormal components_ and singular_values_ "
            f"(the root sums of squares of its uncorrelated scores), got {type(model).__name__}: "
            "cos2 and contributions are shares of those sums. A sparse or robust fit has "
            "correlated scores or other variances: read its components_, or correlate the "
            "variables with its scores, np.corrcoef(X.T, model.transform(X).T)"
        )
    V = np.asarray(model.components_, dtype=np.float64)
    if np.abs(V @ V.T - np.eye(V.shape[0])).max() > ORTHONORMAL_TOL:
        raise ValueError(
            "model's components_ are not orthonormal (a rotated fit?): cos2 and "
            "contributions are defined for orthonormal axes"
        )
    sigma = np.array(model.singular_values_, dtype=np.float64)
    n = int(getattr(model, "n_samples_", None) or V.shape[1])
    if sigma.size and sigma.max() > 0:
        units = sigma / np.ldexp(1.0, unit_exponent(sigma))  # squares in range
        sigma[~above_round_off(units**2, n, V.shape[1])] = 0.0
    return Axes(V, sigma, n, int(getattr(model, "ddof", 1)))


def fitted_center(model: Any) -> Center:
    """The mean the model subtracts: a pcalib estimator's exact pair, else ``mean_``."""
    exact = getattr(model, "_fitted_center", None)
    if callable(exact):
        return exact()
    if not hasattr(model, "mean_"):
        raise TypeError(
            f"model must be a fitted PCA with mean_ (the center its scores are measured "
            f"from), got {type(model).__name__}"
        )
    return Center.of(np.asarray(model.mean_, dtype=np.float64))


def checked_rows(model: Any, X: ArrayLike, p: int) -> tuple[np.ndarray, Any]:
    """`X` validated against the model (p columns, the same names if both have them;
    integers kept as they are), and the row index of a DataFrame (None otherwise)."""
    names = feature_names_of(X)
    fitted = getattr(model, "feature_names_in_", None)
    if fitted is not None and names is not None and list(names) != list(fitted):
        raise ValueError(
            f"X's columns {list(names)} differ from the columns the model was fitted on "
            f"{list(fitted)}"
        )
    index = getattr(X, "index", None) if names is not None else None
    arr = as_data_matrix(X, "X", copy=False, keep_integers=True)
    if arr.shape[1] != p:
        raise ValueError(f"X has {arr.shape[1]} columns, but the model was fitted on {p}")
    return arr, index


def model_scale(model: Any, p: int) -> np.ndarray:
    """The model's column scales ``scale_`` as float64 (ones when it has none)."""
    return np.asarray(getattr(model, "scale_", np.ones(p)), dtype=np.float64)


def rows_in_units(model: Any, X: ArrayLike, p: int) -> tuple[np.ndarray, int, Any]:
    r"""The rows of `X` as the model decomposed them, :math:`z_i = D_s^{-1}(x_i - \bar x)
    = 2^e y_i` (:func:`pcalib._linalg.units.centered_rows`, with the model's exact mean), and
    the row index of a DataFrame (None otherwise).

    Returns
    -------
    (Y, e, index)
    """
    arr, index = checked_rows(model, X, p)
    Y, e = centered_rows(arr, fitted_center(model), model_scale(model, p))
    return Y, e, index


def per_row(Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row of `Y` times the power of two that brings its largest entry into
    [1/2, 1) (exact), and those exponents r_i (rows of zeros: 0)."""
    largest = np.abs(Y).max(axis=1)
    r = np.where(largest > 0, np.frexp(largest)[1], 0)
    return np.ldexp(Y, -r[:, None]), r


def labelled(values: np.ndarray, index: Any, columns: list[str] | None = None) -> Any:
    """`values` as a pandas DataFrame (index `index`, columns `columns`, default PC1,
    PC2, ...) when `index` is not None, else unchanged."""
    if index is None:
        return values
    pd = import_pandas()
    if columns is None:
        columns = [f"PC{j + 1}" for j in range(values.shape[1])]
    return pd.DataFrame(values, index=index, columns=columns)


"""Labelled tables: a fitted estimator's table-valued results as pandas DataFrames.

Every estimator answers ``model.to_frame("components_")`` (or any other table it
lists in ``model.tables_``) with one naming scheme (issue 33):

* the axes are ``PC1``, ``PC2``, ... for every estimator (R's ``prcomp`` names);
* the features are ``feature_names_in_`` when the fit saw a DataFrame with string
  column names, else ``x0``, ``x1``, ... (scikit-learn's names for unnamed columns);
* the rows of the fitted data (CA's rows, RobustPCA's distances) are the fitted
  DataFrame's row index, else 0, 1, ...;
* MCA's categories are ``category_names_``.

A one-dimensional result (the eigenvalues, a mean) becomes a one-column table named
after the attribute. ``transform`` keeps scikit-learn's output names (``pca0``, ...;
:meth:`get_feature_names_out`) so that pipelines see what they expect. pandas is
imported only when a table is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .frames import import_pandas

__all__ = [
    "AXES", "CATEGORIES", "FEATURES", "ROWS", "TABLES", "LabelledTables", "axis_names", "row_index_of",
    "tables_of",
]

#: what a dimension of a table indexes
AXES, FEATURES, ROWS, CATEGORIES = "axes", "features", "rows", "categories"


def axis_names(k: int) -> list[str]:
    """The names of k axes: ``PC1``, ..., ``PCk``."""
    return [f"PC{s + 1}" for s in range(k)]


def row_index_of(X: Any) -> Any:
    """The row index of a pandas DataFrame `X` (kept by reference, not copied), or None
    for any other input (an array, a Dask collection, whose index is lazy)."""
    index = getattr(X, "index", None)
    if index is None or not hasattr(X, "columns") or isinstance(X, np.ndarray):
        return None
    return index if type(index).__module__.startswith("pandas") else None


_AXIS = (AXES,)
_FEATURE = (FEATURES,)
_ROW = (ROWS,)
_AXES_BY_FEATURES = (AXES, FEATURES)
_FEATURES_BY_AXES = (FEATURES, AXES)
_ROWS_BY_AXES = (ROWS, AXES)
_SPECTRUM = {"explained_variance_": _AXIS, "explained_variance_ratio_": _AXIS}
_LOCATION = {"mean_": _FEATURE, "scale_": _FEATURE}

#: each estimator's table-valued attributes (by class name; subclasses inherit), with
#: what their rows and columns index. One registry, so that every estimator's tables
#: read alike and the API appendix can list them.
TABLES: dict[str, dict[str, tuple[str, ...]]] = {
    "PCA": {"components_": _AXES_BY_FEATURES, "loadings_": _FEATURES_BY_AXES, **_SPECTRUM,
            "singular_values_": _AXIS, **_LOCATION,
            "explained_variance_bound_": _AXIS, "components_bound_": _AXIS},
    "PPCA": {"W_": _FEATURES_BY_AXES, "mean_": _FEATURE},
    "RobustPCA": {"components_": _AXES_BY_FEATURES, **_SPECTRUM, "center_": _FEATURE,
                  "mean_": _FEATURE,
                  "score_distances_": _ROW, "orthogonal_distances_": _ROW, "outliers_": _ROW},
    "KernelPCA": {"eigenvalues_": _AXIS, "explained_variance_": _AXIS},
    "SparsePCA": {"components_": _AXES_BY_FEATURES, **_SPECTRUM, **_LOCATION},
    "CA": {"eigenvalues_": _AXIS, "explained_inertia_ratio_": _AXIS,
           "row_coordinates_": _ROWS_BY_AXES, "row_standard_coordinates_": _ROWS_BY_AXES,
           "row_contributions_": _ROWS_BY_AXES, "row_cos2_": _ROWS_BY_AXES,
           "row_masses_": _ROW, "row_inertias_": _ROW,
           "column_coordinates_": _FEATURES_BY_AXES,
           "column_standard_coordinates_": _FEATURES_BY_AXES,
           "column_contributions_": _FEATURES_BY_AXES, "column_cos2_": _FEATURES_BY_AXES,
           "column_masses_": _FEATURE, "column_inertias_": _FEATURE},
    "MCA": {"eigenvalues_": _AXIS, "explained_inertia_ratio_": _AXIS,
            "adjusted_eigenvalues_": _AXIS, "benzecri_ratio_": _AXIS, "greenacre_ratio_": _AXIS,
            "row_coordinates_": _ROWS_BY_AXES, "row_contributions_": _ROWS_BY_AXES, "row_cos2_": _ROWS_BY_AXES,
            "column_coordinates_": (CATEGORIES, AXES),
            "column_standard_coordinates_": (CATEGORIES, AXES),
            "column_contributions_": (CATEGORIES, AXES), "column_cos2_": (CATEGORIES, AXES),
            "column_masses_": (CATEGORIES,), "category_counts_": (CATEGORIES,),
            "eta2_": _FEATURES_BY_AXES},
    "PCR": {"coef_": _FEATURE, "score_coef_": _AXIS},
}


def tables_of(cls: type) -> dict[str, tuple[str, ...]]:
    """The tables of an estimator class: those of the first class in its MRO that
    :data:`TABLES` lists (none for an estimator it does not list)."""
    for klass in cls.__mro__:
        if klass.__name__ in TABLES and klass.__module__.startswith("pcalib"):
            return TABLES[klass.__name__]
    return {}


class LabelledTables:
    """``to_frame`` for estimators, from their entry in :data:`TABLES` (what each
    dimension of each table indexes: :data:`AXES`, :data:`FEATURES`, :data:`ROWS` or
    :data:`CATEGORIES`)."""

    if TYPE_CHECKING:  # what the estimator base class provides

        def _require_fitted(self) -> None: ...

    @property
    def tables_(self) -> list[str]:
        """The names :meth:`to_frame` accepts, in the order the class lists them."""
        return list(tables_of(type(self)))

    def to_frame(self, name: str) -> Any:
        """A fitted table-valued attribute as a labelled pandas DataFrame.

        Parameters
        ----------
        name : str
            One of :attr:`tables_`, e.g. ``"components_"`` (axes x features) or
            ``"loadings_"`` (features x axes).

        Returns
        -------
        pandas.DataFrame
            The attribute's values (a copy), rows and columns named as the module
            ``pcalib._utils.tables`` says: ``PC1, PC2, ...`` for the axes,
            ``feature_names_in_`` (or ``x0, x1, ...``) for the features, the fitted
            DataFrame's index for its rows, ``category_names_`` for categories.
            A one-dimensional attribute gives one column named after it.

        Raises
        ------
        ValueError
            If `name` is not one of :attr:`tables_`, or the attribute is None for
            this fit (PCA's ``*_bound_`` without ``tol``).
        pcalib.NotFittedError
            If the estimator is not fitted.
        """
        self._require_fitted()
        tables = tables_of(type(self))
        if not isinstance(name, str) or name not in tables:
            raise ValueError(
                f"name must be one of the tables of {type(self).__name__}: "
                f"{', '.join(tables)}; got {name!r}"
            )
        attribute = getattr(self, name)
        if attribute is None:  # PCA's bounds exist only for a fit with tol
            raise ValueError(
                f"{type(self).__name__}.{name} is None for this fit (it is set by a fit "
                "with tol=...), so there is no table"
            )
        values = np.array(attribute)
        kinds = tables[name]
        pd = import_pandas()
        index = self._labels(kinds[0], values.shape[0])
        if values.ndim == 1:
            return pd.DataFrame({name.rstrip("_"): values}, index=index)
        return pd.DataFrame(values, index=index, columns=self._labels(kinds[1], values.shape[1]))

    def _labels(self, kind: str, size: int) -> Any:
        """The `size` labels of a dimension that indexes `kind`."""
        if kind == AXES:
            return axis_names(size)
        if kind == FEATURES:
            names = getattr(self, "feature_names_in_", None)
            return list(names) if names is not None else [f"x{j}" for j in range(size)]
        if kind == CATEGORIES:
            return list(vars(self).get("category_names_", []))
        index = getattr(self, "_row_index", None)
        return index if index is not None and len(index) == size else import_pandas().RangeIndex(size)

"""scikit-learn's estimator protocol for pcalib's estimators, without scikit-learn.

:class:`EstimatorBase` gives :class:`pcalib.PCA` and :class:`pcalib.PPCA` what
``sklearn.base.clone``, ``Pipeline``, ``GridSearchCV`` and
``sklearn.utils.estimator_checks.check_estimator`` expect of a transformer:

- ``get_params`` / ``set_params`` read ``__init__``'s signature (``__init__``
  only stores its arguments); ``repr`` shows the parameters that differ from
  their defaults;
- ``__sklearn_tags__`` describes the estimator to scikit-learn. It imports
  scikit-learn's tag classes when it is called, and only scikit-learn calls
  it: ``import pcalib`` never imports scikit-learn;
- ``fit`` remembers ``n_features_in_`` and, for a DataFrame with string
  column names, ``feature_names_in_`` (:meth:`EstimatorBase._remember_input`);
  ``transform`` and friends check new data against them
  (:meth:`EstimatorBase._check_input`);
- ``get_feature_names_out`` and ``set_output(transform="pandas")``: names out
  (:mod:`pcalib._utils.frames`).

The input checks here come before pcalib's own validation and only add what
scikit-learn's conventions need: object arrays of numbers are read as
float64, complex, sparse, 1-D and empty inputs get the errors scikit-learn's
checks expect (each message says what to do). NaN, infinity and the other
numerical checks stay with pcalib's validation.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.frames import (
    OUTPUTS,
    check_feature_names,
    check_numeric_columns,
    feature_names_of,
    float_values,
    import_pandas,
    requested_output,
    to_frame,
)
from .._utils.kinds import DASK_FRAME, DENSE, LAZY, SPARSE, InputKind, input_kind, lazy_input_error
from .._utils.tables import LabelledTables, row_index_of
from .._utils.validation import NotFittedError, check_two_dimensional

__all__ = ["AT_LEAST_ONE", "EstimatorBase"]

#: The fewest samples and features an input may have, each with the reason
#: (said in the error message).
Minimum = tuple[tuple[int, str], tuple[int, str]]
AT_LEAST_ONE: Minimum = ((1, ""), (1, ""))


def _readable_kind(X: ArrayLike, owner: str, reads_dask: bool) -> InputKind:
    """The kind of `X` (:func:`pcalib._utils.kinds.input_kind`), checked before anything
    is read from it: a Dask DataFrame is read only if `reads_dask` (the estimator has
    routes for Dask data), another Dask collection never; either is refused without
    being computed (:func:`pcalib._utils.kinds.lazy_input_error`)."""
    kind = input_kind(X)
    if kind in LAZY and not (kind == DASK_FRAME and reads_dask):
        raise lazy_input_error(X, "X", owner)
    return kind


def _as_array(X: ArrayLike, kind: InputKind, owner: str, accepts_sparse: bool, minimum: Minimum = AT_LEAST_ONE) -> Any:
    """`X` of kind `kind` (:func:`_readable_kind`) as a 2-D array with at least `minimum`
    (samples, features), not copied if possible.

    A Dask array, a Dask DataFrame and, if `accepts_sparse`, a ``scipy.sparse`` matrix
    are returned as they are; an input NumPy cannot convert, or converts to something
    other than numbers, is returned as it is too, for pcalib's validation to explain.
    """
    if kind == SPARSE:
        if accepts_sparse:
            return X
        raise TypeError(
            f"{owner} does not support sparse input (got {type(X).__name__}): pass a dense "
            "array, e.g. X.toarray() if it fits in memory"
        )
    if kind != DENSE:
        return X
    check_numeric_columns(X)  # a DataFrame's dates, strings, bools: refused by column name
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):  # ragged lists and the like
        return X
    if arr.dtype == object:  # numbers as Python objects, e.g. a DataFrame of mixed dtypes
        arr = float_values(X, arr)
    if arr.dtype.kind not in "biufc":  # strings, dates: not numbers
        return X
    if np.iscomplexobj(arr):
        raise ValueError(f"Complex data not supported: X must hold real numbers, got dtype {arr.dtype}")
    check_two_dimensional(arr)
    for count, what, (least, why) in zip(arr.shape, ("sample", "feature"), minimum):
        if count < least:
            raise ValueError(
                f"X has {count} {what}(s) (shape={arr.shape}) while a minimum of {least} is "
                f"required by {owner}" + (f": {why}" if why else "")
            )
    return arr


class EstimatorBase(LabelledTables):
    """The scikit-learn estimator protocol, shared by :class:`~pcalib.PCA` and :class:`~pcalib.PPCA`.

    Subclasses define ``__init__`` (storing each argument under its own
    name), ``fit`` and ``transform`` (and ``_n_features_out`` unless their axes are ``components_``); they
    call :meth:`_remember_input` at the start of ``fit``,
    :meth:`_check_input` before using new data, and :meth:`_wrap_output` on
    what ``transform`` and ``fit_transform`` return. Class attributes say
    which inputs are accepted (they become scikit-learn's tags).
    """

    if TYPE_CHECKING:  # what subclasses define
        components_: np.ndarray

        def fit(self, X: ArrayLike, y: object = None) -> Any: ...
        def transform(self, X: ArrayLike) -> Any: ...

    @property
    def _n_features_out(self) -> int:
        """The number of columns ``transform`` returns: one per row of ``components_``
        (estimators that keep their axes elsewhere override it)."""
        return int(self.components_.shape[0])

    #: dtypes that ``transform`` returns unchanged (scikit-learn's ``preserves_dtype`` tag)
    _preserves_dtype: tuple[str, ...] = ("float64",)
    #: whether ``fit`` accepts ``scipy.sparse`` input (tag ``input_tags.sparse``)
    _accepts_sparse: bool = False
    #: whether ``fit`` accepts NaN as missing values (tag ``input_tags.allow_nan``)
    _accepts_nan: bool = False
    #: the fewest samples and features ``fit`` accepts, with the reasons
    _fit_minimum: Minimum = ((2, "X needs at least 2 samples to estimate a variance"), (1, ""))

    @property
    def _reads_dask(self) -> bool:
        """Whether ``fit`` and ``transform`` have routes for Dask data, so that a Dask
        DataFrame is read as its Dask array; without, it is refused, not computed."""
        return False

    # -- parameters -----------------------------------------------------------------

    @classmethod
    def _param_names(cls) -> list[str]:
        params = inspect.signature(cls.__init__).parameters
        return [name for name in params if name != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this estimator, by name (`deep` is accepted for scikit-learn)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> EstimatorBase:
        """Set parameters by name; returns self. Unknown names raise ``ValueError``."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; valid parameters are {valid}"
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()}
        shown = [
            f"{name}={value!r}"
            for name, value in self.get_params().items()
            if not (
                value is defaults[name]
                or (isinstance(value, (int, float, str, bool)) and value == defaults[name])
            )
        ]
        return f"{type(self).__name__}({', '.join(shown)})"

    def __sklearn_tags__(self) -> Any:
        """Tags for scikit-learn (imports scikit-learn; only scikit-learn calls this)."""
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=TransformerTags(preserves_dtype=list(self._preserves_dtype)),
            input_tags=InputTags(sparse=self._accepts_sparse, allow_nan=self._accepts_nan),
        )

    # -- input: remember at fit, check afterwards -----------------------------------------

    def _remember_input(self, X: ArrayLike, minimum: Minimum | None = None) -> Any:
        """Validate the input of ``fit``; record ``n_features_in_`` and ``feature_names_in_``.

        ``feature_names_in_`` is set when `X` is a table with string column
        names, and removed when a refit sees none. `minimum` replaces
        ``_fit_minimum`` (the first batch of ``partial_fit`` may hold one
        sample). Returns `X` as an array.
        """
        owner = type(self).__name__
        kind = _readable_kind(X, owner, self._reads_dask)
        names = feature_names_of(X)
        minimum = self._fit_minimum if minimum is None else minimum
        arr = _as_array(X, kind, owner, self._accepts_sparse, minimum)
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._row_index = row_index_of(X)
        if getattr(arr, "ndim", None) == 2:
            self.n_features_in_ = int(arr.shape[1])
        return arr

    def _check_input(self, X: ArrayLike) -> Any:
        """Check new data against what ``fit`` saw (names, then number of features).

        Call it once the estimator is known to be fitted. Returns `X` as an array.

        Raises
        ------
        ValueError
            If the column names differ from ``feature_names_in_`` or the number
            of columns from ``n_features_in_``.
        """
        owner = type(self).__name__
        kind = _readable_kind(X, owner, self._reads_dask)
        check_feature_names(owner, getattr(self, "feature_names_in_", None), feature_names_of(X))
        arr = _as_array(X, kind, owner, self._accepts_sparse)
        if getattr(arr, "ndim", None) == 2 and arr.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {arr.shape[1]} features, but {owner} is expecting {self.n_features_in_} "
                "features as input"
            )
        return arr

    # -- output: names and containers ------------------------------------------------------

    def fit_transform(self, X: ArrayLike, y: object = None) -> Any:
        """Fit on `X`, then return ``transform(X)``. `y` is ignored."""
        return self.fit(X, y).transform(X)

    #: the attribute whose presence means "fitted": one that fit sets last, so that a fit
    #: that raised leaves the estimator unfitted
    _FITTED_BY = "n_features_in_"

    def _require_fitted(self) -> None:
        """Raise :class:`pcalib.NotFittedError` (the one message of every estimator)
        unless the estimator is fitted. Reading ``_FITTED_BY`` may itself raise a
        NotFittedError that says more (``PCA.partial_fit`` with too few samples so far):
        that one is raised as it is."""
        try:
            getattr(self, self._FITTED_BY)
        except NotFittedError:
            raise
        except AttributeError:
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            ) from None

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> np.ndarray:
        """Names of the output columns: the lower-case class name and the component index.

        For example ``["pca0", "pca1"]`` for a ``PCA`` with two components,
        as scikit-learn names them.

        Parameters
        ----------
        input_features : array-like of str or None
            Only checked: it must equal ``feature_names_in_`` if ``fit`` saw
            names, and have ``n_features_in_`` entries.

        Returns
        -------
        ndarray of str objects, shape (n_components,)
        """
        self._require_fitted()
        if input_features is not None:
            given = np.asarray(input_features, dtype=object)
            fitted = getattr(self, "feature_names_in_", None)
            if fitted is not None and (given.shape != fitted.shape or np.any(given != fitted)):
                raise ValueError(
                    f"input_features is not equal to feature_names_in_: got {list(given)}, "
                    f"fitted with {list(fitted)}"
                )
            if given.shape != (self.n_features_in_,):
                raise ValueError(
                    "input_features should have length equal to number of features "
                    f"({self.n_features_in_}), got {len(given)}"
                )
        prefix = type(self).__name__.lower()
        return np.asarray([f"{prefix}{j}" for j in range(self._n_features_out)], dtype=object)

    def set_output(self, *, transform: str | None = None) -> EstimatorBase:
        """Choose what ``transform`` and ``fit_transform`` return.

        Parameters
        ----------
        transform : {"default", "pandas"} or None
            "default": NumPy arrays; "pandas": a pandas DataFrame with the
            columns of :meth:`get_feature_names_out` and the input's row index
            (pandas needed); None: unchanged. Without a choice, scikit-learn's
            global ``transform_output`` setting applies if scikit-learn is loaded.

        Returns
        -------
        self
        """
        if transform is None:
            return self
        if transform not in OUTPUTS:
            raise ValueError(f"transform must be one of {OUTPUTS} or None, got {transform!r}")
        if transform == "pandas":
            import_pandas()
        # scikit-learn's attribute name: its clone() and meta-estimators read it
        self._sklearn_output_config = {**getattr(self, "_sklearn_output_config", {}), "transform": transform}
        return self

    def _wrap_output(self, values: Any, X: ArrayLike) -> Any:
        """`values`, or a DataFrame of them indexed like `X` if ``set_output`` asked for one."""
        if requested_output(getattr(self, "_sklearn_output_config", None)) == "default":
            return values
        return to_frame(values, X, self.get_feature_names_out())

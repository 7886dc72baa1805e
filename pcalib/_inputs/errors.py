r"""Errors about the data that say how to fix them: :func:`naming_non_finite`.

A NaN or an infinity is found deep in a route (:class:`pcalib._utils.validation.NonFiniteError`
knows its row, column and value, not the column's name); :class:`pcalib.PCA` re-raises it
with the name of the column and, for a NaN, the ways to fit data with missing values.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from .._utils.validation import NonFiniteError

__all__ = ["naming_non_finite"]


@contextlib.contextmanager
def naming_non_finite(feature_names: np.ndarray | None, name: str = "X") -> Iterator[None]:
    """Context: re-raise the error of a NaN or infinity in `name` as a ``ValueError``
    with the column's name (from `feature_names`, the fitted ``feature_names_in_``,
    else its index) and, for a NaN, the missing-value fits that take it:
    ``PCA(missing="regularized")``, :class:`pcalib.PPCA`, :func:`pcalib.impute_pca`."""
    try:
        yield
    except NonFiniteError as error:
        column = error.position[-1]
        where = f"column {feature_names[column]!r}" if feature_names is not None else f"column {column}"
        first = (f"{name} contains NaN or infinity (the first, {error.value}, at position "
                 f"{error.position}), in {where}")
        if not np.isnan(error.value):
            raise ValueError(f"{first}: all entries must be finite") from None
        raise ValueError(
            f"{first}: a missing value, and PCA needs complete data. To fit data with "
            "missing values: PCA(n_components=k, missing='regularized') (regularized "
            "iterative PCA; its transform fills holes too), pcalib.PPCA(k).fit(X) "
            "(probabilistic PCA by EM over the observed entries) or pcalib.impute_pca(X, k) "
            "(the completed data); or drop the incomplete rows first (X.dropna() for a "
            "DataFrame)"
        ) from None

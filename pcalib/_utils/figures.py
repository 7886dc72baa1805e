"""What the figures of :mod:`pcalib.plot` read from what they are given: a result's
fields under the names each estimator uses, validated 1-D spectra, whether a result is
a PCoA, and the axes to draw on (matplotlib imported only there)."""

from __future__ import annotations

from typing import Any

import numpy as np

#: the names other estimators give a spectrum: CA and MCA call the eigenvalues of their
#: axes ``eigenvalues_`` (principal inertias) and their shares ``explained_inertia_ratio_``
SAME_AS = {"explained_variance": ("eigenvalues",), "explained_variance_ratio": ("explained_inertia_ratio",)}


def result_field(obj: Any, name: str) -> Any:
    """`obj.name` or `obj.name_` (fitted estimator) if present, then the same for the
    names in ``SAME_AS[name]``, else ``None``."""
    for candidate in (name, *SAME_AS.get(name, ())):
        for attr in (candidate, candidate + "_"):
            if hasattr(obj, attr):
                return getattr(obj, attr)
    return None


def finite_values(obj: Any, field: str, name: str) -> np.ndarray:
    """A non-empty finite 1-D array, taken from `obj.field` if `obj` is a result."""
    found = result_field(obj, field)
    values = found if found is not None else obj
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of numbers or a result with `{field}`, got a string")
    if np.iscomplexobj(values):
        raise TypeError(f"{name} must hold real numbers, got complex numbers")
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a 1-D array of numbers or a result with `{field}`, "
            f"got {type(values).__name__}"
        ) from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; all entries must be finite")
    return arr


def is_pcoa_result(obj: Any) -> bool:
    """Whether `obj` is a :class:`pcalib.PCoAResult` (recognized by what it holds)."""
    return all(hasattr(obj, name) for name in ("coordinates", "eigenvalues", "project_variables"))


def matplotlib_axes(ax: Any) -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "pcalib.plot needs matplotlib, which is not installed: pip install matplotlib "
            "(or pip install 'pca-derived-and-verified[plot]')"
        ) from None

    if ax is None:
        _, ax = plt.subplots()
    return ax

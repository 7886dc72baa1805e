"""Distance matrices as pcoa takes them: the forms D may take (a square array, a pandas
DataFrame, a ``skbio.DistanceMatrix``, a condensed vector), their labels and weights,
and the checks that D is a distance matrix (chapter *Principal coordinates*)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._linalg import constants
from .._utils.frames import aligned, is_default_index, pandas_frame
from .._utils.kinds import LAZY, input_kind, lazy_input_error
from .._utils.validation import as_data_matrix, as_square_matrix

# Relative tolerance for the symmetry and zero-diagonal checks of a distance matrix.
DISTANCE_RTOL = 1e-10


def distance_input(D: Any) -> tuple[np.ndarray, Any]:
    """(square float array, labels or None) from a square array, a pandas DataFrame, an
    object with ``data`` and ``ids`` (a ``skbio.DistanceMatrix``: duck-typed, skbio is
    never imported) or a condensed vector (``scipy.spatial.distance.pdist``)."""
    if input_kind(D) in LAZY:  # its shape and values would be computed
        raise lazy_input_error(D, "D")
    labels = None
    frame = pandas_frame(D)
    if frame is not None:
        D, labels = distance_labels(frame)
    elif hasattr(D, "ids") and hasattr(D, "data"):
        ids = list(D.ids)
        pd = sys.modules.get("pandas")
        labels = pd.Index(ids) if pd is not None else np.array(ids, dtype=object)
        D = D.data
    try:
        ndim = np.ndim(D)
    except Exception:  # ragged lists: as_square_matrix says what is wrong
        ndim = None
    if ndim == 1:
        return square_from_condensed(D), labels
    if ndim == 2 and np.shape(D)[0] != np.shape(D)[1]:  # a data matrix, most likely
        raise ValueError(
            f"D must be a square distance matrix, got shape {np.shape(D)}: pcoa takes the "
            "distances between n objects, not a data matrix of samples in rows. For a data "
            "matrix X: D = scipy.spatial.distance.squareform(scipy.spatial.distance.pdist(X)) "
            "(Euclidean; pdist(X, metric='braycurtis') and others for other distances)"
        )
    return as_square_matrix(D, "D"), labels


def square_from_condensed(v: ArrayLike) -> np.ndarray:
    """The square matrix of a condensed distance vector: the upper triangle row by row,
    m = n(n-1)/2 entries (the layout of ``pdist`` and ``squareform``)."""
    row = as_data_matrix(np.reshape(np.asarray(v), (1, -1)) if np.size(v) else [[0.0]], "D")
    m = row.shape[1] if np.size(v) else 0
    n = int(round((1 + np.sqrt(1 + 8 * m)) / 2))
    if n * (n - 1) // 2 != m:
        raise ValueError(
            f"D given as a 1-D condensed vector (as scipy.spatial.distance.pdist returns) "
            f"must have n(n-1)/2 entries for some n, got {m}"
        )
    square = np.zeros((n, n), dtype=row.dtype)
    upper = np.triu_indices(n, 1)
    square[upper] = row[0, :m]
    square[upper[::-1]] = row[0, :m]
    return square


def distance_labels(frame: Any) -> tuple[np.ndarray, Any]:
    """(values, labels) of a distance matrix given as a DataFrame. The labels are the
    index (the columns if the index is the default 0..n-1); the columns must name the
    same objects and are put in the order of the rows."""
    n_rows, n_columns = frame.shape
    if n_rows != n_columns:
        return frame.to_numpy(), None  # as_square_matrix reports the shape
    by_columns = is_default_index(frame.index, n_rows) and not is_default_index(frame.columns, n_columns)
    labels = frame.columns if by_columns else frame.index
    if labels.has_duplicates:
        raise ValueError(f"the labels of D must be unique, got duplicates such as "
                         f"{list(labels[labels.duplicated()][:3])}")
    return (frame.to_numpy() if by_columns else aligned(frame, labels, "columns", "D")), labels


def weights_vector(weights: object, labels: Any, n: int) -> np.ndarray:
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(weights, pd.Series) and labels is not None:
        missing = labels[~labels.isin(weights.index)]
        if len(missing):
            raise ValueError(f"weights has no entry for the objects {list(missing[:3])} of D")
        weights = weights.loc[labels]
    try:
        w = np.asarray(weights)
    except Exception as exc:  # ragged lists and other unconvertible objects
        raise TypeError(f"weights must be a 1-D array of positive numbers: {exc}") from None
    if w.dtype == bool or not (np.issubdtype(w.dtype, np.integer) or np.issubdtype(w.dtype, np.floating)):
        raise TypeError(f"weights must hold real numbers, got dtype {w.dtype}")
    if w.shape != (n,):
        raise ValueError(f"weights must have shape ({n},), one per object of D, got shape {w.shape}")
    w = w.astype(np.float64)
    bad = np.flatnonzero(~(np.isfinite(w) & (w > 0)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"weights must be finite and positive, got weights[{i}] = {float(w[i])!r}")
    return w


def check_distances(D: np.ndarray) -> None:
    """Raise ValueError unless D is non-negative, symmetric and has a zero diagonal (the
    last two up to DISTANCE_RTOL * max(D)). One sweep over blocks of rows."""
    n = D.shape[0]
    tol = DISTANCE_RTOL * float(D.max())
    for start in range(0, n, constants.DISTANCE_ROW_BLOCK):
        rows = slice(start, min(start + constants.DISTANCE_ROW_BLOCK, n))
        block = D[rows]
        if block.min() < 0:
            i, j = np.unravel_index(np.argmin(block), block.shape)
            raise ValueError(f"D must be non-negative: D[{start + i}, {j}] = {float(block[i, j])!r}")
        asym = np.abs(block - D[:, rows].T)
        if asym.max() > tol:
            i, j = np.unravel_index(np.argmax(asym), asym.shape)
            raise ValueError(
                f"D must be symmetric: D[{start + i}, {j}] = {float(block[i, j])!r} but "
                f"D[{j}, {start + i}] = {float(D[j, start + i])!r} (tolerance {tol:.3g}, "
                f"relative to max|D|)"
            )
    diagonal = np.abs(np.diagonal(D))
    if diagonal.max() > tol:
        d = int(np.argmax(diagonal))
        raise ValueError(f"D must have a zero diagonal: D[{d}, {d}] = {float(D[d, d])!r}")

r"""Compositional data (chapter *Categories, counts and compositions*).

A composition is a row of D positive parts of which only the ratios matter
(percentages, proportions, ppm). :func:`closure` rescales each row to a constant sum;
:func:`clr` is Aitchison's centred log-ratio transform

.. math::

    \operatorname{clr}(\mathbf x) = \Big(\log\frac{x_1}{g(\mathbf x)}, \dots,
    \log\frac{x_D}{g(\mathbf x)}\Big), \qquad g(\mathbf x) = \Big(\prod_{j=1}^D x_j\Big)^{1/D},

which does not change when a row is multiplied by a constant, and whose entries sum
to 0 (so the covariance of clr data is singular: :math:`\Sigma\mathbf 1 = 0`). PCA of
clr data is Aitchison's log-contrast PCA.

Both functions return a DataFrame with the same index and columns when given one,
otherwise a float64 NumPy array; the input is never modified.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_data_matrix

__all__ = ["closure", "clr"]


def _parts(X: ArrayLike, name: str = "X") -> np.ndarray:
    arr = as_data_matrix(X, name)
    negative = np.argwhere(arr < 0)
    if negative.size:
        i, j = (int(v) for v in negative[0])
        raise ValueError(f"{name} must hold non-negative parts, got {_entry(X, i, j, name)} = {arr[i, j]:g}")
    return arr


def _entry(X: Any, i: int, j: int, name: str) -> str:
    if not (hasattr(X, "iloc") and hasattr(X, "columns")):  # not a DataFrame
        return f"{name}[{i}, {j}]"
    return f"{name}[{i}, {j}] (row {X.index[i]!r}, column {X.columns[j]!r})"


def _like(values: np.ndarray, X: Any) -> Any:
    """`values` as a DataFrame shaped like `X` if `X` is a pandas DataFrame."""
    if hasattr(X, "iloc") and hasattr(X, "columns"):
        return type(X)(values, index=X.index, columns=X.columns)
    return values


def closure(X: ArrayLike, total: float = 1.0) -> Any:
    r"""Rescale each row of `X` to sum to `total`: :math:`\mathcal C(\mathbf x) =
    \kappa\,\mathbf x / \sum_j x_j`.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, D)
        Non-negative parts; zeros are allowed, a row of zeros is not.
    total : float, default 1.0
        :math:`\kappa`, e.g. 100 for percentages.

    Returns
    -------
    ndarray or DataFrame of shape (n, D)

    Raises
    ------
    ValueError
        A negative part (named by position), NaN or infinity, a row summing to 0, or a
        `total` that is not a positive finite number.

    Examples
    --------
    >>> closure([[1.0, 3.0], [2.0, 2.0]], total=100)
    array([[25., 75.],
           [50., 50.]])
    """
    if isinstance(total, bool) or not isinstance(total, (int, float, np.integer, np.floating)) or not (
        np.isfinite(total) and total > 0
    ):
        raise ValueError(f"total must be a positive finite number, got {total!r}")
    arr = _parts(X)
    sums = arr.sum(axis=1)
    empty = np.flatnonzero(~(sums > 0))
    if empty.size:
        raise ValueError(f"row {int(empty[0])} of X sums to 0: a composition needs a positive part")
    return _like(arr / sums[:, None] * float(total), X)


def clr(X: ArrayLike) -> Any:
    r"""The centred log-ratio transform of each row of `X` (module docstring).

    .. math:: \operatorname{clr}(\mathbf x)_j = \log x_j - \frac1D\sum_{l=1}^D \log x_l .

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, D)
        Positive parts (any scale: clr of a row and of its closure agree).

    Returns
    -------
    ndarray or DataFrame of shape (n, D)
        Each row sums to 0 (up to round-off).

    Raises
    ------
    ValueError
        A zero part (its logarithm is -inf; the message names the first zero entry and
        says how many there are), a negative part, NaN or infinity.

    Examples
    --------
    >>> out = clr([[1.0, 2.0, 4.0]])  # geometric mean (1 * 2 * 4)**(1/3) = 2
    >>> bool(np.allclose(out, np.log([[0.5, 1.0, 2.0]])))
    True
    """
    arr = _parts(X)
    zeros = np.argwhere(arr == 0)
    if zeros.size:
        i, j = (int(v) for v in zeros[0])
        raise ValueError(
            f"X has a zero part at {_entry(X, i, j, 'X')} ({len(zeros)} zero(s) in all): the "
            "log-ratio of a zero is undefined. Replace zeros first (e.g. multiplicative "
            "replacement by a small detection limit) or drop the part"
        )
    logs = np.log(arr)
    return _like(logs - logs.mean(axis=1, keepdims=True), X)

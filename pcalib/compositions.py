r"""Compositional data (chapter *Categories, counts and compositions*).

A composition is a row of D positive parts of which only the ratios matter
(percentages, proportions, ppm). :func:`closure` rescales each row to a constant sum;
:func:`clr` is Aitchison's centred log-ratio transform

.. math::

    \operatorname{clr}(\mathbf x) = \Big(\log\frac{x_1}{g(\mathbf x)}, \dots,
    \log\frac{x_D}{g(\mathbf x)}\Big), \qquad g(\mathbf x) = \Big(\prod_{j=1}^D x_j\Big)^{1/D},

which does not change when a row is multiplied by a constant, and whose entries sum
to 0 (so the covariance of clr data is singular: :math:`\Sigma\mathbf 1 = 0`). PCA of
clr data is Aitchison's log-contrast PCA. :func:`ilr` gives coordinates in an
orthonormal basis of the clr plane (D - 1 of them, a non-singular covariance) and
:func:`ilr_inv` goes back; :func:`variation_matrix` holds the variances of every
log-ratio, the description of a composition's spread that does not depend on which
other parts were measured; :func:`multiplicative_replacement` replaces zeros, which
no log-ratio allows. The names and conventions are scikit-bio's
(``skbio.stats.composition``).

Every function returns a DataFrame with the same index (and the same columns, where
there is one per part) when given one, otherwise a float64 NumPy array; the input is
never modified.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_data_matrix, check_ddof, checked_finite

__all__ = ["closure", "clr", "ilr", "ilr_inv", "multiplicative_replacement", "variation_matrix"]


def _parts(X: ArrayLike, name: str = "X") -> np.ndarray:
    arr = as_data_matrix(X, name, check_finite=False).astype(np.float64, copy=False)
    with np.errstate(over="ignore"):  # its sum of parts of 1e308 overflows; the parts do not
        checked_finite(arr, name)
    negative = np.argwhere(arr < 0)
    if negative.size:
        i, j = (int(v) for v in negative[0])
        raise ValueError(f"{name} must hold non-negative parts, got {_entry(X, i, j, name)} = {arr[i, j]:g}")
    return arr


def _entry(X: Any, i: int, j: int, name: str) -> str:
    if not _is_frame(X):
        return f"{name}[{i}, {j}]"
    return f"{name}[{i}, {j}] (row {X.index[i]!r}, column {X.columns[j]!r})"


def _is_frame(X: Any) -> bool:
    return hasattr(X, "iloc") and hasattr(X, "columns")


def _like(values: np.ndarray, X: Any, columns: list[str] | None = None) -> Any:
    """`values` as a DataFrame indexed like `X` if `X` is a pandas DataFrame (with `X`'s
    columns, or `columns`)."""
    if _is_frame(X):
        return type(X)(values, index=X.index, columns=X.columns if columns is None else columns)
    return values


def _positive(arr: np.ndarray, X: Any, name: str = "X") -> np.ndarray:
    """`arr` after refusing zero parts, whose logarithm is -inf (named by position)."""
    zeros = np.argwhere(arr == 0)
    if zeros.size:
        i, j = (int(v) for v in zeros[0])
        raise ValueError(
            f"{name} has a zero part at {_entry(X, i, j, name)} ({len(zeros)} zero(s) in all): "
            "the log-ratio of a zero is undefined. Replace zeros first "
            "(pcalib.multiplicative_replacement) or drop the part"
        )
    return arr


def _closed(arr: np.ndarray, name: str = "X") -> np.ndarray:
    r"""Rows of `arr` divided by their sums, each row first scaled by the power of two
    that brings its largest part into [1/2, 1) (exact), so that the sum of parts of
    :math:`10^{308}` does not overflow nor that of :math:`10^{-320}` lose digits."""
    largest = arr.max(axis=1)
    empty = np.flatnonzero(~(largest > 0))
    if empty.size:
        raise ValueError(f"row {int(empty[0])} of {name} sums to 0: a composition needs a positive part")
    scaled = np.ldexp(arr, -np.frexp(largest)[1][:, None])
    return scaled / scaled.sum(axis=1, keepdims=True)


def closure(X: ArrayLike, total: float = 1.0) -> Any:
    r"""Rescale each row of `X` to sum to `total`: :math:`\mathcal C(\mathbf x) =
    \kappa\,\mathbf x / \sum_j x_j`.

    Each row is read in exact power-of-two units first (its largest part in [1/2, 1)),
    so parts of any size, :math:`10^{-300}` or :math:`10^{308}`, give the same closed row.

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
    return _like(_closed(_parts(X)) * float(total), X)


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
    logs = np.log(_positive(_parts(X), X))
    return _like(logs - logs.mean(axis=1, keepdims=True), X)


def _basis(basis: ArrayLike | None, D: int) -> np.ndarray:
    r"""The (D - 1) x D orthonormal basis of the clr plane: `basis` checked, or
    scikit-bio's default, the Helmert-like rows
    :math:`\mathbf e_i = \sqrt{\tfrac{i}{i+1}}\,(\tfrac1i, \dots, \tfrac1i, -1, 0, \dots, 0)`
    (i entries :math:`1/i`), i = 1..D-1."""
    if basis is None:
        E = np.zeros((D - 1, D))
        for i in range(1, D):
            E[i - 1, :i] = 1.0 / i
            E[i - 1, i] = -1.0
            E[i - 1] *= np.sqrt(i / (i + 1.0))
        return E
    B = as_data_matrix(basis, "basis")
    if B.shape != (D - 1, D):
        raise ValueError(f"basis must have shape (D - 1, D) = ({D - 1}, {D}), got {B.shape}")
    if not (np.allclose(B @ B.T, np.eye(D - 1), atol=1e-10) and np.allclose(B.sum(axis=1), 0, atol=1e-10)):
        raise ValueError(
            "basis must have orthonormal rows that each sum to 0 (an orthonormal basis of "
            "the clr plane), e.g. from a sequential binary partition"
        )
    return B


def ilr(X: ArrayLike, basis: ArrayLike | None = None) -> Any:
    r"""Isometric log-ratio coordinates: :math:`\operatorname{ilr}(\mathbf x) =
    B\,\operatorname{clr}(\mathbf x)`, B an orthonormal (D - 1) x D basis of the clr
    plane (rows orthonormal, each summing to 0).

    As scikit-bio's ``skbio.stats.composition.ilr``: the default basis has the rows
    :math:`\mathbf e_i = \sqrt{i/(i+1)}\,(1/i, \dots, 1/i, -1, 0, \dots, 0)`, i = 1..D-1, so
    the first coordinate is :math:`\sqrt{1/2}\,\log(x_1/x_2)`. Distances, inner products
    and PCA eigenvalues of ilr coordinates are those of the clr data (B is an isometry
    of the clr plane), with a covariance that is not singular.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, D)
        Positive parts, D >= 2.
    basis : array_like of shape (D - 1, D), optional
        Rows orthonormal and each summing to 0.

    Returns
    -------
    ndarray or DataFrame of shape (n, D - 1)
        A DataFrame's columns are named ``ilr1``, ..., ``ilr{D-1}``.

    Raises
    ------
    ValueError
        A zero or negative part, NaN or infinity, fewer than 2 parts, or a basis of
        the wrong shape or not orthonormal in the clr plane.

    Examples
    --------
    >>> bool(np.allclose(ilr([[1.0, 4.0]]), np.log(1 / 4) / np.sqrt(2)))
    True
    """
    arr = _positive(_parts(X), X)
    D = arr.shape[1]
    if D < 2:
        raise ValueError(f"X must have at least 2 parts for a log-ratio, got {D}")
    logs = np.log(arr)
    logs -= logs.mean(axis=1, keepdims=True)
    return _like(logs @ _basis(basis, D).T, X, [f"ilr{j + 1}" for j in range(D - 1)])


def ilr_inv(Y: ArrayLike, basis: ArrayLike | None = None) -> Any:
    r"""The composition (closed to 1) whose ilr coordinates are the rows of `Y`:
    :math:`\mathcal C(\exp(B^\top \mathbf y))`, B as in :func:`ilr`.

    Parameters
    ----------
    Y : array_like or DataFrame of shape (n, D - 1)
    basis : array_like of shape (D - 1, D), optional

    Returns
    -------
    ndarray or DataFrame of shape (n, D)
        Rows of positive parts summing to 1 (a DataFrame's columns ``x1``..``xD``).

    Examples
    --------
    >>> bool(np.allclose(ilr_inv(ilr([[1.0, 3.0, 4.0]])), [[0.125, 0.375, 0.5]]))
    True
    """
    arr = as_data_matrix(Y, "Y")
    if arr.dtype != np.float64:
        arr = arr.astype(np.float64)
    D = arr.shape[1] + 1
    logs = arr @ _basis(basis, D)
    logs -= logs.max(axis=1, keepdims=True)  # exp of at most 0: no overflow
    return _like(_closed(np.exp(logs), "Y"), Y, [f"x{j + 1}" for j in range(D)])


def multiplicative_replacement(X: ArrayLike, delta: float | None = None) -> Any:
    r"""Replace zero parts by `delta` and shrink the others so that each row still sums
    to 1 (Martín-Fernández, Barceló-Vidal and Pawlowsky-Glahn, 2003).

    With the rows closed to 1 first and :math:`z_i` zeros in row i,

    .. math:: x'_{ij} = \delta \text{ if } x_{ij} = 0, \qquad
        x'_{ij} = (1 - z_i\,\delta)\, x_{ij} \text{ otherwise},

    so the ratios between non-zero parts, and hence every log-ratio between them, are
    unchanged (an additive replacement would change them). As scikit-bio's
    ``multiplicative_replacement``: the result is closed to 1, and the default `delta`
    is :math:`1/D^2`. A value below the detection limit (for example 65% of it) is
    the usual informed choice.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, D)
        Non-negative parts, no row of zeros.
    delta : float, optional
        The replacement, in the units of the closed rows (a share of 1), with
        :math:`z_i \delta < 1` in every row.

    Returns
    -------
    ndarray or DataFrame of shape (n, D)

    Raises
    ------
    ValueError
        A negative part, a row of zeros, NaN or infinity, or a `delta` that is not
        positive or leaves no room (:math:`z_i\delta \ge 1`).

    Examples
    --------
    >>> multiplicative_replacement([[0.0, 0.25, 0.75]], delta=0.1)
    array([[0.1  , 0.225, 0.675]])
    """
    closed = _closed(_parts(X))
    D = closed.shape[1]
    if delta is None:
        value = 1.0 / D**2
    elif isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise ValueError(f"delta must be a positive finite number, got {delta!r}")
    else:
        value = float(delta)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"delta must be a positive finite number, got {delta!r}")
    zeros = closed == 0
    room = 1.0 - zeros.sum(axis=1) * value
    if np.any(room <= 0):
        i = int(np.argmax(room <= 0))
        raise ValueError(
            f"delta={delta!r} is too large: row {i} has {int(zeros[i].sum())} zero(s), and "
            "zeros times delta must stay below 1 (choose a smaller delta)"
        )
    return _like(np.where(zeros, value, closed * room[:, None]), X)


def variation_matrix(X: ArrayLike, ddof: int = 1) -> Any:
    r"""Aitchison's variation matrix: the variances of every log-ratio,
    :math:`t_{jl} = \operatorname{Var}\log(x_j / x_l)`.

    It is the same for a composition and for its closure, and the entries of a
    subcomposition's matrix are the entries of the full one (subcompositional
    coherence), unlike correlations of parts or of clr coordinates. With S the
    covariance of the clr data, :math:`t_{jl} = s_{jj} + s_{ll} - 2 s_{jl}` (computed
    here from the log-ratios themselves, which does not cancel), and the total
    variance is :math:`\frac{1}{2D}\sum_{jl} t_{jl} = \operatorname{tr} S`.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, D)
        Positive parts.
    ddof : int, default 1
        The divisor of the variances is n - ddof.

    Returns
    -------
    ndarray or DataFrame of shape (D, D)
        Symmetric, zero diagonal (a DataFrame indexed and labelled by the parts).

    Examples
    --------
    >>> T = variation_matrix([[1.0, 2.0], [1.0, 8.0]])
    >>> bool(np.isclose(T[0, 1], np.var(np.log([0.5, 0.125]), ddof=1)))
    True
    """
    logs = np.log(_positive(_parts(X), X))
    ddof = check_ddof(ddof, logs.shape[0])
    logs -= logs.mean(axis=0)
    T = np.empty((logs.shape[1], logs.shape[1]))
    for j in range(logs.shape[1]):  # the log-ratios to part j, one n x D block at a time
        ratios = logs - logs[:, j : j + 1]
        T[j] = np.einsum("ij,ij->j", ratios, ratios) / (logs.shape[0] - ddof)
    T = (T + T.T) / 2  # the same sums in another order
    frame: Any = X
    if _is_frame(frame):
        return type(frame)(T, index=frame.columns, columns=frame.columns)
    return T

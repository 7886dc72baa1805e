r"""Compositional data (chapter *Categories, counts and compositions*).

A composition is a row of p positive parts of which only the ratios matter
(percentages, proportions, ppm). :func:`closure` rescales each row to a constant sum;
:func:`clr` is Aitchison's centred log-ratio transform

.. math::

    \operatorname{clr}(\mathbf x) = \Big(\log\frac{x_1}{g(\mathbf x)}, \dots,
    \log\frac{x_p}{g(\mathbf x)}\Big), \qquad g(\mathbf x) = \Big(\prod_{j=1}^p x_j\Big)^{1/p},

which does not change when a row is multiplied by a constant, and whose entries sum
to 0 (so the covariance S of clr data is singular: :math:`S\mathbf 1 = \mathbf 0`).
The Euclidean geometry of clr coordinates is Aitchison's geometry of compositions, and
PCA of clr data is Aitchison's log-contrast PCA. :func:`ilr` gives coordinates in an
orthonormal basis :math:`\Psi` of the clr plane (p - 1 of them, a non-singular
covariance), :func:`ilr_inv` goes back, and :func:`sbp_basis` builds :math:`\Psi` from a
sequential binary partition of the parts (balances); :func:`variation_matrix` holds the
variances of every log-ratio, the description of a composition's spread that does not
depend on which other parts were measured; :func:`multiplicative_replacement` replaces
zeros, which no log-ratio allows. The names and conventions are scikit-bio's
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

from ._utils.validation import as_data_matrix, check_ddof, checked_finite

__all__ = ["closure", "clr", "ilr", "ilr_inv", "multiplicative_replacement", "sbp_basis", "variation_matrix"]


def _parts(X: ArrayLike, name: str = "X", *, logs: bool = False) -> np.ndarray:
    """`arr` of finite non-negative parts; `logs` says the caller needs positive ones."""
    arr = as_data_matrix(X, name, check_finite=False).astype(np.float64, copy=False)
    with np.errstate(over="ignore"):  # its sum of parts of 1e308 overflows; the parts do not
        checked_finite(arr, name)
    negative = np.argwhere(arr < 0)
    if negative.size:
        i, j = (int(v) for v in negative[0])
        kind = "positive" if logs else "non-negative"
        raise ValueError(f"{name} must hold {kind} parts, got {_entry(X, i, j, name)} = {arr[i, j]:g}")
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
    X : array_like or DataFrame of shape (n, p)
        Non-negative parts; zeros are allowed, a row of zeros is not.
    total : float, default 1.0
        :math:`\kappa`, e.g. 100 for percentages.

    Returns
    -------
    ndarray or DataFrame of shape (n, p)

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

    .. math:: \operatorname{clr}(\mathbf x)_j = \log x_j - \frac1p\sum_{l=1}^p \log x_l .

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, p)
        Positive parts (any scale: clr of a row and of its closure agree).

    Returns
    -------
    ndarray or DataFrame of shape (n, p)
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
    logs = np.log(_positive(_parts(X, logs=True), X))
    return _like(logs - logs.mean(axis=1, keepdims=True), X)


def _basis(basis: ArrayLike | None, p: int) -> np.ndarray:
    r"""The (p - 1) x p orthonormal basis :math:`\Psi` of the clr plane: `basis`
    checked, or scikit-bio's default, the Helmert-like rows
    :math:`\boldsymbol\psi_i = \sqrt{\tfrac{i}{i+1}}\,(\tfrac1i, \dots, \tfrac1i, -1, 0,
    \dots, 0)` (i entries :math:`1/i`), i = 1..p-1."""
    if basis is None:
        Psi = np.zeros((p - 1, p))
        for i in range(1, p):
            Psi[i - 1, :i] = 1.0 / i
            Psi[i - 1, i] = -1.0
            Psi[i - 1] *= np.sqrt(i / (i + 1.0))
        return Psi
    Psi = as_data_matrix(basis, "basis")
    if Psi.shape != (p - 1, p):
        raise ValueError(f"basis must have shape (p - 1, p) = ({p - 1}, {p}), got {Psi.shape}")
    if not (np.allclose(Psi @ Psi.T, np.eye(p - 1), atol=1e-10) and np.allclose(Psi.sum(axis=1), 0, atol=1e-10)):
        raise ValueError(
            "basis must have orthonormal rows that each sum to 0 (an orthonormal basis of "
            "the clr plane), e.g. from a sequential binary partition (pcalib.sbp_basis)"
        )
    return Psi


def sbp_basis(sbp: ArrayLike) -> np.ndarray:
    r"""The orthonormal basis of balances of a sequential binary partition.

    Row i of `sbp` splits a group of parts into those marked +1 (r of them) and those
    marked -1 (s of them); 0 marks the parts outside the group. The partition is
    sequential: the first row splits all p parts, and each later row splits one group
    made by an earlier row. Row i of the basis is

    .. math:: \boldsymbol\psi_i = \sqrt{\frac{s}{r(r+s)}}\ \text{on the parts } +1,
        \qquad -\sqrt{\frac{r}{s(r+s)}}\ \text{on the parts } -1,

    so that the ilr coordinate :math:`\boldsymbol\psi_i^\top\operatorname{clr}(\mathbf x)
    = \sqrt{\frac{rs}{r+s}}\,\log\frac{g(\mathbf x_+)}{g(\mathbf x_-)}` is the **balance**
    of the two groups (g: geometric mean). As scikit-bio's
    ``skbio.stats.composition.sbp_basis``; pass the result as the `basis` of
    :func:`ilr` and :func:`ilr_inv`.

    Parameters
    ----------
    sbp : array_like of shape (p - 1, p)
        Entries +1, -1 and 0; each row with at least one +1 and one -1.

    Returns
    -------
    ndarray of shape (p - 1, p)
        Orthonormal rows, each summing to 0.

    Raises
    ------
    ValueError
        Not of shape (p - 1, p) with p >= 2, an entry other than +1, -1 and 0, a row
        without both signs, or rows that are not a sequential binary partition
        (balances that are not orthogonal).

    Examples
    --------
    >>> sbp_basis([[1, 1, -1], [1, -1, 0]]).round(4)
    array([[ 0.4082,  0.4082, -0.8165],
           [ 0.7071, -0.7071,  0.    ]])
    """
    S = as_data_matrix(sbp, "sbp")
    if S.shape[0] < 1 or S.shape[1] != S.shape[0] + 1:
        raise ValueError(f"sbp must have shape (p - 1, p) with p >= 2, got {S.shape}")
    if not np.all(np.isin(S, (-1, 0, 1))):
        raise ValueError("sbp must hold +1, -1 and 0 only (the two groups of each split and the parts outside)")
    r, s = (S > 0).sum(axis=1), (S < 0).sum(axis=1)
    if np.any(r == 0) or np.any(s == 0):
        i = int(np.argmax((r == 0) | (s == 0)))
        raise ValueError(f"sbp row {i} must mark at least one part +1 and one part -1, got {S[i].tolist()}")
    Psi = np.where(S > 0, np.sqrt(s / (r * (r + s)))[:, None], 0.0)
    Psi -= np.where(S < 0, np.sqrt(r / (s * (r + s)))[:, None], 0.0)
    if not np.allclose(Psi @ Psi.T, np.eye(S.shape[0]), atol=1e-12):
        raise ValueError(
            "sbp is not a sequential binary partition: each row after the first must split "
            "one of the groups made by the rows before it (the balances are not orthogonal)"
        )
    return Psi


def ilr(X: ArrayLike, basis: ArrayLike | None = None) -> Any:
    r"""Isometric log-ratio coordinates: :math:`\operatorname{ilr}(\mathbf x) =
    \Psi\operatorname{clr}(\mathbf x)`, :math:`\Psi` an orthonormal (p - 1) x p basis of
    the clr plane (rows orthonormal, each summing to 0).

    As scikit-bio's ``skbio.stats.composition.ilr``: the default basis has the rows
    :math:`\boldsymbol\psi_i = \sqrt{i/(i+1)}\,(1/i, \dots, 1/i, -1, 0, \dots, 0)`,
    i = 1..p-1, so the first coordinate is :math:`\sqrt{1/2}\,\log(x_1/x_2)`; a basis of
    balances comes from :func:`sbp_basis`. Distances, inner products and PCA
    eigenvalues of ilr coordinates are those of the clr data (:math:`\Psi` is an
    isometry of the clr plane), with a covariance that is not singular.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, p)
        Positive parts, p >= 2.
    basis : array_like of shape (p - 1, p), optional
        Rows orthonormal and each summing to 0.

    Returns
    -------
    ndarray or DataFrame of shape (n, p - 1)
        A DataFrame's columns are named ``ilr1``, ..., ``ilr{p-1}``.

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
    arr = _positive(_parts(X, logs=True), X)
    p = arr.shape[1]
    if p < 2:
        raise ValueError(f"X must have at least 2 parts for a log-ratio, got {p}")
    logs = np.log(arr)
    logs -= logs.mean(axis=1, keepdims=True)
    return _like(logs @ _basis(basis, p).T, X, [f"ilr{j + 1}" for j in range(p - 1)])


def ilr_inv(Y: ArrayLike, basis: ArrayLike | None = None) -> Any:
    r"""The composition (closed to 1) whose ilr coordinates are the rows of `Y`:
    :math:`\mathcal C(\exp(\Psi^\top \mathbf y))`, :math:`\Psi` as in :func:`ilr`.

    Parameters
    ----------
    Y : array_like or DataFrame of shape (n, p - 1)
    basis : array_like of shape (p - 1, p), optional

    Returns
    -------
    ndarray or DataFrame of shape (n, p)
        Rows of positive parts summing to 1 (a DataFrame's columns ``x1``..``xp``).

    Examples
    --------
    >>> bool(np.allclose(ilr_inv(ilr([[1.0, 3.0, 4.0]])), [[0.125, 0.375, 0.5]]))
    True
    """
    arr = as_data_matrix(Y, "Y")
    if arr.dtype != np.float64:
        arr = arr.astype(np.float64)
    p = arr.shape[1] + 1
    logs = arr @ _basis(basis, p)
    logs -= logs.max(axis=1, keepdims=True)  # exp of at most 0: no overflow
    return _like(_closed(np.exp(logs), "Y"), Y, [f"x{j + 1}" for j in range(p)])


def multiplicative_replacement(X: ArrayLike, delta: float | None = None) -> Any:
    r"""Replace zero parts by `delta` and shrink the others so that each row still sums
    to 1 (Martín-Fernández, Barceló-Vidal and Pawlowsky-Glahn, 2003).

    With the rows closed to 1 first and :math:`z_i` zeros in row i,

    .. math:: x'_{ij} = \delta \text{ if } x_{ij} = 0, \qquad
        x'_{ij} = (1 - z_i\,\delta)\, x_{ij} \text{ otherwise},

    so the ratios between non-zero parts, and hence every log-ratio between them, are
    unchanged (an additive replacement would change them). As scikit-bio's
    ``multi_replace`` (``multiplicative_replacement`` before scikit-bio 0.6): the result
    is closed to 1, and the default `delta` is :math:`1/p^2`. A value below the detection limit (for example 65% of it) is
    the usual informed choice.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, p)
        Non-negative parts, no row of zeros.
    delta : float, optional
        The replacement, in the units of the closed rows (a share of 1), with
        :math:`z_i \delta < 1` in every row.

    Returns
    -------
    ndarray or DataFrame of shape (n, p)

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
    p = closed.shape[1]
    if delta is None:
        value = 1.0 / p**2
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
    :math:`\tau_{jl} = \operatorname{Var}\log(x_j / x_l)`.

    It is the same for a composition and for its closure, and the entries of a
    subcomposition's matrix are the entries of the full one (subcompositional
    coherence), unlike correlations of parts or of clr coordinates. With S the
    covariance of the clr data, :math:`\tau_{jl} = s_{jj} + s_{ll} - 2 s_{jl}` (computed
    here from the log-ratios themselves, which does not cancel), and the total
    variance is :math:`\frac{1}{2p}\sum_{jl} \tau_{jl} = \operatorname{tr} S`.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n, p)
        Positive parts.
    ddof : int, default 1
        The divisor of the variances is n - ddof.

    Returns
    -------
    ndarray or DataFrame of shape (p, p)
        Symmetric, zero diagonal (a DataFrame indexed and labelled by the parts).

    Examples
    --------
    >>> T = variation_matrix([[1.0, 2.0], [1.0, 8.0]])
    >>> bool(np.isclose(T[0, 1], np.var(np.log([0.5, 0.125]), ddof=1)))
    True
    """
    logs = np.log(_positive(_parts(X, logs=True), X))
    ddof = check_ddof(ddof, logs.shape[0])
    logs -= logs.mean(axis=0)
    T = np.empty((logs.shape[1], logs.shape[1]))
    for j in range(logs.shape[1]):  # the log-ratios to part j, one n x p block at a time
        ratios = logs - logs[:, j : j + 1]
        T[j] = np.einsum("ij,ij->j", ratios, ratios) / (logs.shape[0] - ddof)
    T = (T + T.T) / 2  # the same sums in another order
    frame: Any = X
    if _is_frame(frame):
        return type(frame)(T, index=frame.columns, columns=frame.columns)
    return T

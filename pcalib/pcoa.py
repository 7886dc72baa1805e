r"""Principal coordinates analysis (chapter *Principal coordinates*).

From a table of distances :math:`D` between n objects, PCoA (Gower 1966) builds the
Gram matrix of the centered configuration

.. math:: B = -\tfrac12 H D^{(2)} H, \qquad H = I_n - \tfrac1n \mathbf{1}\mathbf{1}^\top,

where :math:`D^{(2)}` is the entrywise square, and returns the coordinates
:math:`Y_k = U_k \Lambda_k^{1/2}` from the k largest eigenpairs of B. For Euclidean
distances of the rows of X, :math:`B = X_c X_c^\top` and the coordinates are the PCA
scores of X.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._eigen import krylov_top
from ._signs import axis_signs
from ._validation import as_square_matrix, output_dtype

__all__ = ["PCoAResult", "double_center", "pcoa"]

# Relative tolerance for the symmetry and zero-diagonal checks of a distance matrix.
_DISTANCE_RTOL = 1e-10
# Up to this n the eigenproblem is solved densely; above it, when only k axes are
# wanted, by a block Krylov method (much faster for k << n).
_DENSE_MAX_N = 500
# Relative residual at which a Krylov Ritz pair is accepted:
# ||B v - theta v|| <= _KRYLOV_RTOL * max|theta|.
_KRYLOV_RTOL = 1e-10
# Rows per block when validating and squaring D (keeps blocks in cache).
_ROW_BLOCK = 64


@dataclass(frozen=True)
class PCoAResult:
    r"""Result of :func:`pcoa`.

    Attributes
    ----------
    coordinates : ndarray of shape (n, k)
        Principal coordinates :math:`Y_k = U_k \Lambda_k^{1/2}`, one row per object.
        Axis j has zero coordinates if its eigenvalue is not positive.
    eigenvalues : ndarray
        Eigenvalues of B in decreasing order, negative ones kept. All n of them when
        the full spectrum was computed (``full_spectrum`` is True); otherwise the k
        largest.
    proportion_explained : ndarray of shape (k,)
        :math:`\lambda_j / \operatorname{tr} B`. The denominator is the sum of all n
        eigenvalues, obtained from the distances without the spectrum, so the
        proportion of an axis does not depend on k. With negative eigenvalues the
        proportions of the positive axes add up to more than 1.
    total_inertia : float
        :math:`\operatorname{tr} B = \sum_i \lambda_i = \frac{1}{2n} \sum_{i,j} d_{ij}^2`.
    min_eigenvalue : float
        The smallest eigenvalue of B if the full spectrum was computed or n is small
        enough for the dense solver; otherwise the smallest Ritz value of the Krylov
        subspace, an upper bound: the true smallest eigenvalue is at most this value,
        so a negative value proves that D is not Euclidean.
    full_spectrum : bool
        Whether `eigenvalues` holds all n eigenvalues.
    """

    coordinates: np.ndarray
    eigenvalues: np.ndarray
    proportion_explained: np.ndarray
    total_inertia: float
    min_eigenvalue: float
    full_spectrum: bool

    @property
    def negative_share(self) -> float | None:
        r"""Share of the negative eigenvalues in the absolute spectrum.

        .. math:: \frac{\sum_{\lambda_i < 0} |\lambda_i|}{\sum_i |\lambda_i|}

        0 for a Euclidean distance matrix. ``None`` when only k eigenvalues were
        computed (the sum needs all of them); 0 when all eigenvalues are zero.
        """
        if not self.full_spectrum:
            return None
        absolute = float(np.abs(self.eigenvalues).sum())
        if absolute == 0.0:
            return 0.0
        return float(-self.eigenvalues[self.eigenvalues < 0].sum()) / absolute


def double_center(M: ArrayLike) -> np.ndarray:
    r"""Double centering :math:`H M H` of a square matrix.

    .. math::

        (HMH)_{ij} = m_{ij} - \bar m_{i\cdot} - \bar m_{\cdot j} + \bar m_{\cdot\cdot}

    with the row means :math:`\bar m_{i\cdot}`, the column means :math:`\bar m_{\cdot j}`
    and the grand mean :math:`\bar m_{\cdot\cdot}`. Computed in :math:`O(n^2)` from the
    means, without forming :math:`H = I - \frac1n \mathbf{1}\mathbf{1}^\top`.

    Parameters
    ----------
    M : array_like of shape (n, n)
        Finite square matrix. Not modified.

    Returns
    -------
    ndarray of shape (n, n)
        Rows and columns sum to zero (to round-off). float32 stays float32.

    Raises
    ------
    TypeError
        If `M` is not numeric.
    ValueError
        If `M` is not a non-empty square 2-D array of finite numbers.

    Examples
    --------
    >>> double_center([[1.0, 2.0], [3.0, 4.0]])  # additive: row + column effects only
    array([[0., 0.],
           [0., 0.]])
    >>> double_center([[2.0, 0.0], [0.0, 0.0]])
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    """
    C = as_square_matrix(M, "M")
    row = C.mean(axis=1)
    col = C.mean(axis=0)
    C -= row[:, None]
    C -= col
    C += row.mean()
    return C


def _gram_from_distances(D: np.ndarray) -> np.ndarray:
    """Validate the distance matrix D and return B = -1/2 H D^(2) H in float64.

    Works on blocks of rows that stay in cache: one sweep checks signs and symmetry,
    squares and halves the entries and takes the row means; a second sweep subtracts
    the row and column means (equal, by symmetry) and adds the grand mean.
    """
    n = D.shape[0]
    tol = _DISTANCE_RTOL * float(D.max())
    B = np.empty((n, n))
    row = np.empty(n)
    blocks = [slice(start, min(start + _ROW_BLOCK, n)) for start in range(0, n, _ROW_BLOCK)]
    for rows in blocks:
        block = D[rows]
        if block.min() < 0:
            i, j = np.unravel_index(np.argmin(block), block.shape)
            raise ValueError(f"D must be non-negative: D[{rows.start + i}, {j}] = {block[i, j]!r}")
        asym = np.abs(block - D[:, rows].T)
        if asym.max() > tol:
            i, j = np.unravel_index(np.argmax(asym), asym.shape)
            raise ValueError(
                f"D must be symmetric: D[{rows.start + i}, {j}] = {block[i, j]!r} but "
                f"D[{j}, {rows.start + i}] = {D[j, rows.start + i]!r} (tolerance {tol:.3g}, "
                f"relative to max|D|)"
            )
        out = B[rows]
        np.multiply(block, block, out=out)
        out *= -0.5
        row[rows] = out.mean(axis=1)
    diagonal = np.abs(np.diagonal(D))
    if diagonal.max() > tol:
        i = int(np.argmax(diagonal))
        raise ValueError(f"D must have a zero diagonal: D[{i}, {i}] = {D[i, i]!r}")
    shifted = row - row.mean()
    for rows in blocks:
        B[rows] -= row[rows, None] + shifted
    return B


def _krylov_top(B: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The k leading eigenpairs of B by :func:`pcalib._eigen.krylov_top` at ``_KRYLOV_RTOL``."""
    return krylov_top(B, k, rtol=_KRYLOV_RTOL, max_dim=B.shape[0] // 6)


def _check_k(k: object, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer or None, got {k!r} of type {type(k).__name__}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of objects n = {n}, got {k}")
    return int(k)


def pcoa(D: ArrayLike, k: int | None = None, *, full_spectrum: bool | None = None) -> PCoAResult:
    r"""Principal coordinates analysis (classical multidimensional scaling).

    .. math::

        B = -\tfrac12 H D^{(2)} H = U \Lambda U^\top, \qquad
        Y_k = U_k \Lambda_k^{1/2}, \qquad
        \text{proportion}_j = \frac{\lambda_j}{\operatorname{tr} B},
        \quad \operatorname{tr} B = \frac{1}{2n}\sum_{i,j} d_{ij}^2 .

    Parameters
    ----------
    D : array_like of shape (n, n)
        Distance (or dissimilarity) matrix: finite, non-negative, symmetric and with
        a zero diagonal, the last two up to :math:`10^{-10} \max|D|`. Not modified.
    k : int, optional
        Number of axes, 1 <= k <= n. ``None`` (default): every axis with a positive
        eigenvalue.
    full_spectrum : bool, optional
        Compute all n eigenvalues. Default: True when `k` is None, False otherwise
        (then only the k largest are computed, which for large n is much faster).
        False with ``k=None`` raises ValueError.

    Returns
    -------
    PCoAResult
        `coordinates` (n, k), `eigenvalues` (all n if the full spectrum was computed,
        else the k largest), `proportion_explained` (k,), `total_inertia`,
        `min_eigenvalue`, `full_spectrum` and the property `negative_share`.

    Raises
    ------
    TypeError
        If `D` is not numeric or `k` is not an integer.
    ValueError
        If `D` is not a square 2-D array of finite, non-negative numbers, not symmetric
        or has a non-zero diagonal; if `k` is out of range.

    Notes
    -----
    - **Negative eigenvalues.** A non-Euclidean D gives an indefinite B. Its negative
      eigenvalues are kept in `eigenvalues` and counted in the denominator
      :math:`\operatorname{tr} B` of `proportion_explained`; a requested axis whose
      eigenvalue is not positive gets zero coordinates (its proportion is negative or
      zero, which tells the reader). The proportion is relative to the sum of *all*
      eigenvalues because that sum is fixed by the distances: the proportion of an
      axis is the same whatever k is. (The alternative, relative to the sum of the
      positive eigenvalues, needs the full spectrum, and a program that divides by the
      sum of the k computed ones reports proportions that change with k.)
    - **Round-off.** Eigenvalues with :math:`|\lambda| < n\,\epsilon \max|\lambda|`
      (:math:`\epsilon` the float64 machine epsilon) are set to exactly 0: the zero
      eigenvalue of :math:`B\mathbf{1} = 0`, and the rank deficiency of Euclidean
      distances of points in fewer than n - 1 dimensions.
    - **Solver.** The full spectrum, or n <= 500, uses a dense symmetric eigensolver
      after an O(n^2) double centering. Otherwise a block Krylov method with
      Rayleigh-Ritz computes the k leading eigenpairs to a relative residual of
      :math:`10^{-10}` (falling back to the dense solver on a flat spectrum); the
      solver is shared with the PCA routes.
    - **Signs.** Each eigenvector :math:`u_j` is flipped so that its entry of largest
      absolute value is positive. PCA applies the convention to the p-dimensional
      axes :math:`v_j` instead, so for Euclidean distances of X the coordinates equal
      the PCA scores :math:`X_c V_k` up to the sign of each column.
    - Computations are in float64; float32 input gives float32 `coordinates`,
      `eigenvalues` and `proportion_explained`.

    Examples
    --------
    >>> D = [[0.0, 3.0, 4.0], [3.0, 0.0, 5.0], [4.0, 5.0, 0.0]]
    >>> result = pcoa(D)
    >>> result.coordinates.shape, round(result.total_inertia, 10)  # (9 + 16 + 25) / 3
    ((3, 2), 16.6666666667)
    """
    arr = as_square_matrix(D, "D")
    dtype = output_dtype(arr)
    n = arr.shape[0]
    if k is not None:
        k = _check_k(k, n)
    if k is None and full_spectrum is False:
        raise ValueError("full_spectrum=False needs k: with k=None every positive axis is returned, "
                         "which needs all eigenvalues")
    full = k is None if full_spectrum is None else bool(full_spectrum)
    B = _gram_from_distances(arr)
    total = float(np.trace(B))

    top = None
    if not full and n > _DENSE_MAX_N:
        top = _krylov_top(B, k)
    if top is None:
        values, vectors = np.linalg.eigh(B)
        values, vectors = values[::-1], vectors[:, ::-1]
        smallest = float(values[-1])
    else:
        values, vectors, smallest = top
    tiny = n * np.finfo(np.float64).eps * max(np.abs(values).max(), abs(smallest))
    values = np.where(np.abs(values) < tiny, 0.0, values)
    if abs(smallest) < tiny:
        smallest = 0.0

    if k is None:
        k = int(np.count_nonzero(values > 0))
    U = vectors[:, :k]
    U = U * axis_signs(U.T)
    coordinates = U * np.sqrt(np.maximum(values[:k], 0.0))
    eigenvalues = values if full else values[:k]
    proportion = values[:k] / total if total > 0 else np.zeros(k)
    return PCoAResult(
        coordinates=coordinates.astype(dtype),
        eigenvalues=eigenvalues.astype(dtype),
        proportion_explained=proportion.astype(dtype),
        total_inertia=total,
        min_eigenvalue=smallest,
        full_spectrum=full,
    )

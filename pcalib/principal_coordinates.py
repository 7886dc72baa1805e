r"""Principal coordinates analysis (chapter *Principal coordinates*).

From a table of distances :math:`D` between n objects, PCoA (Gower 1966) builds the
Gram matrix of the centered configuration

.. math:: B = -\tfrac12 H D^{(2)} H, \qquad H = I_n - \tfrac1n \mathbf{1}\mathbf{1}^\top,

where :math:`D^{(2)}` is the entrywise square, and returns the coordinates
:math:`Y_k = U_k \operatorname{diag}(\beta_1, \dots, \beta_k)^{1/2}` from the k largest
eigenpairs :math:`(\beta_j, u_j)` of B. For Euclidean distances of the rows of X,
:math:`B = X_c X_c^\top` and the coordinates are the PCA scores of X.

What ecologists use besides (R's ``ape::pcoa``, ``ape::biplot.pcoa`` and
``vegan::wcmdscale``; Legendre and Legendre, *Numerical Ecology*, 3rd ed., section 9.3):
the Lingoes and Cailliez corrections that make a non-Euclidean D Euclidean, sample
weights, placing new samples in an existing map (Gower 1968), the broken-stick
expectation of the proportions explained, and the projection of the original variables
onto the axes.

``D`` may be a square array, a pandas DataFrame (labels), a condensed vector as
``scipy.spatial.distance.pdist`` returns, or any object with ``data`` and ``ids`` such as
a ``skbio.DistanceMatrix`` (recognized by those attributes; pcalib never imports skbio).

Every computation runs on ``D`` divided by a power of two near ``max(D)`` (an exact
scaling), so that the squares of distances neither overflow nor underflow; the results
are scaled back at the end.
"""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._inputs.distances import check_distances, distance_input, weights_vector
from ._linalg import constants
from ._linalg.distances import (
    center_rows_and_columns,
    correction_constant,
    double_centered,
    lingoes_spectrum,
    round_off,
    scaled,
    squared_distances,
    warn_not_representable,
)
from ._linalg.eigen import krylov_top
from ._linalg.signs import axis_signs
from ._utils.frames import aligned, pandas_frame
from ._utils.validation import as_data_matrix, as_square_matrix, output_dtype
from .selection import broken_stick

__all__ = ["PCoAResult", "double_center", "pcoa"]

# Relative residual at which a Krylov Ritz pair is accepted:
# ||B v - theta v|| <= _KRYLOV_RTOL * max|theta|.
_KRYLOV_RTOL = 1e-10
CORRECTIONS = ("lingoes", "cailliez")
# Accepted spellings of "no correction" (ape::pcoa's default is "none").
_NO_CORRECTION = (None, "none")


@dataclass(frozen=True, eq=False)
class _UnitMap:
    """What the methods of a result need, computed on D / 2**exponent.

    Working at that scale keeps squared distances representable, so the methods give
    the right answer whenever the distances themselves are representable.
    """

    exponent: int                 # D was divided by 2**exponent
    coordinates: np.ndarray       # (n, k) principal coordinates
    eigenvalues: np.ndarray       # every computed eigenvalue, decreasing
    gram_diagonal: np.ndarray     # b_ii of the (weighted) double-centered matrix
    weights: np.ndarray | None    # sample weights, None for equal weights
    constant: float               # the added constant of the correction, 0 if none
    # The spectrum of a Euclidean version of D and its trace (full spectrum only, else
    # None): the eigenvalues themselves when D is Euclidean or corrected; otherwise
    # those after a Lingoes shift, as ape::pcoa reports them beside the uncorrected ones.
    euclidean_eigenvalues: np.ndarray | None = None
    euclidean_total: float = 0.0


@dataclass(frozen=True, eq=False)
class PCoAResult:
    r"""Result of :func:`pcoa`.

    Attributes
    ----------
    coordinates : ndarray of shape (n, k)
        Principal coordinates :math:`y_j = \sqrt{\beta_j}\, u_j` (with weights,
        :math:`\sqrt{\beta_j}\,\Omega^{-1/2} u_j`), one row per object. Axis j has zero
        coordinates if its eigenvalue is not positive.
    eigenvalues : ndarray
        Eigenvalues :math:`\beta_j` in decreasing order, negative ones kept, after the
        correction if one was applied. All n of them when the full spectrum was computed
        (``full_spectrum`` is True); otherwise the k largest.
    proportion_explained : ndarray of shape (k,)
        :math:`\beta_j / \operatorname{tr} B`. The denominator is the sum of all n
        eigenvalues, obtained from the distances without the spectrum, so the
        proportion of an axis does not depend on k. With negative eigenvalues the
        proportions of the positive axes add up to more than 1.
    total_inertia : float
        :math:`\operatorname{tr} B = \sum_i \beta_i = \frac{1}{2n} \sum_{i,j} d_{ij}^2`
        (with weights :math:`\frac{1}{2 \sum_i \omega_i}\sum_{i,j}\omega_i\omega_j d_{ij}^2`).
    min_eigenvalue : float
        The smallest eigenvalue of B if the full spectrum was computed or n is small
        enough for the dense solver; otherwise the smallest Ritz value of the Krylov
        subspace, an upper bound: the true smallest eigenvalue is at most this value,
        so a negative value proves that D is not Euclidean.
    full_spectrum : bool
        Whether `eigenvalues` holds all n eigenvalues.
    correction : {None, "lingoes", "cailliez"}
        The correction requested (None for ``correction="none"``).
    added_constant : float
        The constant the correction added: :math:`c_1` (Lingoes,
        :math:`d'_{ij} = \sqrt{d_{ij}^2 + 2c_1}`: :math:`2c_1` is added to each squared
        dissimilarity) or :math:`c_2` (Cailliez, :math:`d'_{ij} = d_{ij} + c_2`), for
        :math:`i \ne j`. 0 when no correction was requested or D is Euclidean (B has no
        negative eigenvalue), as in ``ape::pcoa``.
    weights : ndarray of shape (n,) or None
        The sample weights :math:`\omega_i`, None for the unweighted analysis.
    labels : pandas.Index or None
        The sample labels when D was a pandas DataFrame (its index) or had ``ids``
        (a ``skbio.DistanceMatrix``), else None.
    uncorrected : PCoAResult or None
        When a correction added a constant: the analysis of D itself, with the same k
        and weights (``ape::pcoa``'s ``vectors`` and ``Eigenvalues`` beside the corrected
        ``vectors.cor`` and ``Corr_eig``). None when no constant was added.
    """

    coordinates: np.ndarray
    eigenvalues: np.ndarray
    proportion_explained: np.ndarray
    total_inertia: float
    min_eigenvalue: float
    full_spectrum: bool
    correction: str | None = None
    added_constant: float = 0.0
    weights: np.ndarray | None = None
    labels: Any = None
    uncorrected: PCoAResult | None = field(default=None, repr=False)
    _unit: _UnitMap | None = field(default=None, repr=False)

    def _unit_map(self) -> _UnitMap:
        """The analysis in the units of its frame, which every method below reads."""
        if self._unit is None:
            raise ValueError(
                "this PCoAResult was not made by pcalib.pcoa (it has no unit map): its "
                "methods need the analysis that pcoa computed"
            )
        return self._unit

    @property
    def negative_share(self) -> float | None:
        r"""Share of the negative eigenvalues in the absolute spectrum.

        .. math:: \frac{\sum_{\beta_i < 0} |\beta_i|}{\sum_i |\beta_i|}

        0 for a Euclidean distance matrix. ``None`` when only k eigenvalues were
        computed (the sum needs all of them); 0 when all eigenvalues are zero.
        """
        if not self.full_spectrum:
            return None
        values = self._unit_map().eigenvalues
        absolute = float(np.abs(values).sum())
        if absolute == 0.0:
            return 0.0
        return float(-values[values < 0].sum()) / absolute

    @property
    def corrected_proportion(self) -> np.ndarray | None:
        r"""Proportion explained by each of the k axes in a Euclidean version of D
        (``ape::pcoa``'s column ``Rel_corr_eig``).

        With a correction, or for a Euclidean D, this is `proportion_explained`. For a
        non-Euclidean D analysed without correction it is the proportion after a
        Lingoes shift of the eigenvalues,

        .. math:: \frac{\beta_j + c_1}{\operatorname{tr} B + (n-1)\,c_1},
            \qquad c_1 = -\beta_n ,

        for the eigenvectors orthogonal to :math:`\mathbf 1` (0 for the one on
        :math:`\mathbf 1`): these add up to 1 over the axes, and `broken_stick` is
        their random counterpart. With weights, the eigenvalues are those of the
        weighted analysis of :math:`\sqrt{d_{ij}^2 + 2c_1}`. ``None`` when only k
        eigenvalues were computed.
        """
        unit = self._unit_map()
        if unit.euclidean_eigenvalues is None:
            return None
        k = self.proportion_explained.shape[0]
        values = unit.euclidean_eigenvalues[:k]
        total = unit.euclidean_total
        share = values / total if total > 0 else np.zeros(k)
        return share.astype(self.proportion_explained.dtype)

    @property
    def broken_stick(self) -> np.ndarray | None:
        r"""Broken-stick expectation of the proportion explained by each of the k axes
        (``ape::pcoa``'s column ``Broken_stick``).

        .. math:: b_j = \frac{1}{r} \sum_{i=j}^{r} \frac1i \quad (j \le r),
            \qquad b_j = 0 \quad (j > r),

        the expected length of the j-th longest of r pieces of a stick of length 1
        broken at random, where r is the number of positive entries of
        `corrected_proportion`: the positive eigenvalues of B when D is Euclidean or
        corrected, and those after the Lingoes shift (generically :math:`n - 2`)
        when B has negative eigenvalues and no correction was requested, as in
        ``ape::pcoa``. Compare it with `corrected_proportion` (which sums to 1, like
        the stick); an axis whose share exceeds :math:`b_j` explains more than a
        random division of the total would. ``None`` when only k eigenvalues were
        computed (r needs all of them).
        """
        unit = self._unit_map()
        if unit.euclidean_eigenvalues is None:
            return None
        pieces = int(np.count_nonzero(unit.euclidean_eigenvalues > 0))
        k = self.proportion_explained.shape[0]
        stick = np.zeros(k)
        if pieces:
            stick[: min(k, pieces)] = broken_stick(pieces)[:k]
        return stick.astype(self.proportion_explained.dtype)

    def transform(self, D_new_to_old: ArrayLike) -> Any:
        r"""Place new objects in the map by Gower's (1968) add-a-point formula.

        A new object with dissimilarities :math:`d_{\ast i}` to the n original objects
        gets the coordinates

        .. math::

            y_{\ast j} = \frac{1}{2\beta_j} \sum_{i=1}^n \omega_i\, y_{ij}
            \left(b_{ii} - d_{\ast i}^2\right), \qquad j = 1, \dots, k,

        with :math:`b_{ii}` the diagonal of B (the squared distance of object i from
        the centroid) and :math:`\omega_i = 1` without weights; 0 on axes whose
        eigenvalue is not positive. For Euclidean distances of the rows of X it gives
        the PCA scores :math:`V_k^\top (x_\ast - \bar x)` of the new point. Without a
        correction, an original object (its row of D) gets back its coordinates.

        The map's correction is applied to the new dissimilarities first
        (:math:`\sqrt{d_{\ast i}^2 + 2c_1}` or :math:`d_{\ast i} + c_2`), every new
        object being distinct from every original one, as distinct original objects
        are; a zero dissimilarity is corrected too. So after a correction an original
        object placed from its own row of D does *not* come back: its dissimilarity 0
        to itself becomes :math:`\sqrt{2c_1}` or :math:`c_2`, and its coordinate on
        axis j is shrunk towards the centroid,

        .. math:: y_{\ast j} = \frac{\beta_j - c_1}{\beta_j}\, y_{lj}
            \ \text{(Lingoes)}, \qquad
            y_{\ast j} = \Big(1 - \frac{c_2^2}{2\beta_j}\Big)\, y_{lj}
            \ \text{(Cailliez)},

        with :math:`\beta_j` the corrected eigenvalues (for Lingoes,
        :math:`\beta_j - c_1` is the uncorrected eigenvalue, so the factor is
        :math:`\beta^{\text{unc}}_j / (\beta^{\text{unc}}_j + c_1)`): little on the
        first axes, much on the last ones, and negative (the object lands on the other
        side of the centroid) on the axes made from negative uncorrected eigenvalues.

        Parameters
        ----------
        D_new_to_old : array_like or pandas.DataFrame of shape (m, n)
            Dissimilarities of m new objects (rows) to the n original ones (columns),
            finite and non-negative, measured like D. A DataFrame whose columns carry
            the labels of the map is aligned on them. Not modified.

        Returns
        -------
        ndarray of shape (m, k), or a pandas.DataFrame indexed like `D_new_to_old`
        when it is one. float32 when the map is float32.

        Raises
        ------
        TypeError
            If `D_new_to_old` is not numeric.
        ValueError
            If it is not a 2-D array with n columns of finite non-negative numbers,
            or its column labels do not match the map's.
        """
        unit = self._unit_map()
        n = unit.coordinates.shape[0]
        frame = pandas_frame(D_new_to_old)
        if frame is not None:
            D_new_to_old = aligned(frame, self.labels, "columns", "D_new_to_old")
        new = as_data_matrix(D_new_to_old, "D_new_to_old")
        if new.shape[1] != n:
            raise ValueError(
                f"D_new_to_old must have one column per original object, n = {n}, "
                f"got shape {new.shape}"
            )
        if new.min() < 0:
            i, j = np.unravel_index(np.argmin(new), new.shape)
            raise ValueError(f"D_new_to_old must be non-negative: D_new_to_old[{i}, {j}] = {float(new[i, j])!r}")
        squared = squared_distances(np.ldexp(new.astype(np.float64), -unit.exponent), self.correction, unit.constant)
        weighted = unit.coordinates if unit.weights is None else unit.coordinates * unit.weights[:, None]
        positive, values = _positive_axes(unit)
        out = np.zeros((new.shape[0], unit.coordinates.shape[1]))
        out[:, positive] = (unit.gram_diagonal - squared) @ weighted[:, positive] / (2 * values)
        out = scaled(out, unit.exponent, self.coordinates.dtype, "the new coordinates")
        return out if frame is None else _frame(out, frame.index)

    def project_variables(self, X: ArrayLike) -> Any:
        r"""Project variables measured on the objects onto the axes (the PCoA biplot).

        As ``ape::biplot.pcoa``: the covariance of each variable with the standardized
        coordinates, divided by the standard deviation :math:`\sqrt{\beta_j/(n-1)}` of
        the coordinates,

        .. math::

            \frac{1}{n-1} X_c^\top Z_k
            \operatorname{diag}\!\Big(\frac{\beta_j}{n-1}\Big)^{-1/2}
            = X_c^\top U_k \operatorname{diag}(\beta_j)^{-1/2}
            = X_c^\top Y_k \operatorname{diag}(\beta_j)^{-1},

        where :math:`Z_k` holds the coordinates standardized to variance 1. With
        weights, :math:`X` is centered at its weighted mean and the last form becomes
        :math:`X_c^\top \Omega Y_k \operatorname{diag}(\beta_j)^{-1}`. For Euclidean
        distances of the rows of X itself the rows of the result are the principal axes
        :math:`V_k` (up to the sign of each column). Axes with non-positive eigenvalues
        get 0. After a correction, the coordinates and :math:`\beta_j` are the
        corrected ones of this map (``ape::biplot.pcoa`` applied to ``pcoa`` of the
        corrected table). ``ape::biplot.pcoa`` of a corrected ``ape::pcoa`` draws the
        corrected coordinates (``vectors.cor``) but divides by the *uncorrected*
        eigenvalues (``Eigenvalues``): its column j is this result's times
        :math:`\sqrt{\beta_j / \beta^{\text{unc}}_j}`. After a Lingoes correction,
        which keeps the eigenvectors of B, that is
        ``result.uncorrected.project_variables(X)``.

        Parameters
        ----------
        X : array_like or pandas.DataFrame of shape (n, p)
            Variables (columns) measured on the n objects of the map (rows), in the
            same order; a DataFrame with the map's labels as index is aligned on them.
            Standardize it first to compare variables in different units. Not modified.

        Returns
        -------
        ndarray of shape (p, k), or a pandas.DataFrame indexed by the columns of `X`
        when it is one.

        Raises
        ------
        TypeError
            If `X` is not numeric.
        ValueError
            If `X` is not a finite 2-D array with n rows, or its labels do not match.
        """
        unit = self._unit_map()
        n = unit.coordinates.shape[0]
        frame = pandas_frame(X)
        if frame is not None:
            X = aligned(frame, self.labels, "index", "X")
        data = as_data_matrix(X, "X").astype(np.float64, copy=False)
        if data.shape[0] != n:
            raise ValueError(f"X must have one row per object of the map, n = {n}, got shape {data.shape}")
        w = np.ones(n) if unit.weights is None else unit.weights
        centered = data - (w @ data) / w.sum()
        positive, values = _positive_axes(unit)
        arrows = np.zeros((data.shape[1], unit.coordinates.shape[1]))
        arrows[:, positive] = centered.T @ (unit.coordinates[:, positive] * w[:, None]) / values
        arrows = scaled(arrows, -unit.exponent, np.dtype(np.float64), "the variables' projections")
        return arrows if frame is None else _frame(arrows, frame.columns)

    def to_frame(self) -> Any:
        """The coordinates as a pandas DataFrame, indexed by `labels` (0..n-1 without
        labels), with columns ``PCo1``, ..., ``PCok``. Imports pandas."""
        import pandas as pd

        index = self.labels if self.labels is not None else pd.RangeIndex(self.coordinates.shape[0])
        return _frame(self.coordinates, index)


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
    return center_rows_and_columns(as_square_matrix(M, "M"))


def _shown(value: object) -> str:
    """repr of `value`, NumPy scalars shown as the Python numbers they hold."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _frame(values: np.ndarray, index: Any) -> Any:
    pd = sys.modules["pandas"]
    columns = [f"PCo{j + 1}" for j in range(values.shape[1])]
    return pd.DataFrame(values, index=index, columns=columns)


# --- the computation, on D scaled to max|D| in [1/2, 1) --------------------------------


def _krylov_top(B: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The k leading eigenpairs of B by :func:`pcalib._linalg.eigen.krylov_top` at ``_KRYLOV_RTOL``."""
    return krylov_top(B, k, rtol=_KRYLOV_RTOL, max_dim=B.shape[0] // 6)


def _positive_axes(unit: _UnitMap) -> tuple[np.ndarray, np.ndarray]:
    """(mask, eigenvalues) of the map's axes whose eigenvalue is positive."""
    values = unit.eigenvalues[: unit.coordinates.shape[1]]
    positive = values > 0
    return positive, values[positive]


def _check_k(k: object, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer or None, got {_shown(k)} of type {type(k).__name__}")
    k = int(k)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of objects n = {n}, got {k}")
    return k


def pcoa(
    D: ArrayLike,
    k: int | None = None,
    *,
    correction: str | None = None,
    weights: ArrayLike | None = None,
    full_spectrum: bool | None = None,
) -> PCoAResult:
    r"""Principal coordinates analysis (classical multidimensional scaling).

    .. math::

        B = -\tfrac12 H D^{(2)} H = \sum_j \beta_j u_j u_j^\top, \qquad
        y_j = \sqrt{\beta_j}\, u_j,

    .. math::

        \text{proportion}_j = \frac{\beta_j}{\operatorname{tr} B}, \qquad
        \operatorname{tr} B = \frac{1}{2n}\sum_{i,j} d_{ij}^2 .

    With weights :math:`\omega_i` (``vegan::wcmdscale``), B is centered at the weighted
    mean, :math:`H_\omega = I - \mathbf{1}\omega^\top/\sum_i\omega_i`, the eigenpairs are
    those of :math:`\Omega^{1/2} B_\omega \Omega^{1/2}` with
    :math:`B_\omega = -\frac12 H_\omega D^{(2)} H_\omega^\top`,
    :math:`\Omega = \operatorname{diag}(\omega)`, and the coordinates are
    :math:`\sqrt{\beta_j}\,\Omega^{-1/2} u_j`. Integer weights give the analysis of
    the objects repeated that many times.

    Parameters
    ----------
    D : array_like of shape (n, n) or (n(n-1)/2,), pandas.DataFrame, skbio.DistanceMatrix
        Distance (or dissimilarity) matrix: finite, non-negative, symmetric and with
        a zero diagonal, the last two up to :math:`10^{-10} \max|D|`; or its condensed
        form, the upper triangle row by row (``scipy.spatial.distance.pdist``). A
        DataFrame's index gives the sample `labels` (its columns are aligned on them by
        name); an object with ``data`` and ``ids`` (a ``skbio.DistanceMatrix``) gives
        ``ids`` as the labels. Not modified.
    k : int, optional
        Number of axes, 1 <= k <= n. ``None`` (default): every axis with a positive
        eigenvalue.
    correction : {None, "none", "lingoes", "cailliez"}
        Make a non-Euclidean D Euclidean before the analysis (Legendre and Legendre
        2012, section 9.3.4), as ``ape::pcoa``; None and "none" apply none. Lingoes:
        :math:`d'_{ij} = \sqrt{d_{ij}^2 + 2c_1}` (:math:`2c_1` added to each squared
        dissimilarity) with :math:`c_1 = -\beta_n`, minus the smallest eigenvalue of B. Cailliez: :math:`d'_{ij} = d_{ij} + c_2` with :math:`c_2` the
        largest real eigenvalue of :math:`\begin{pmatrix} 0 & 2B \\ -I & -4B_1
        \end{pmatrix}`, :math:`B_1 = -\frac12 HDH`, the smallest constant that makes
        D' Euclidean. Both for :math:`i \ne j`; applied only if B has a negative
        eigenvalue. The constant is reported as `added_constant`, and the analysis of
        D itself as `uncorrected`. (The square root of D, for Bray-Curtis and other
        coefficients whose square root is Euclidean, is the third remedy: pass
        ``np.sqrt(D)``.)
    weights : array_like of shape (n,), optional
        Positive sample weights :math:`\omega_i` (a pandas Series is aligned on the
        labels of D). None: equal weights.
    full_spectrum : bool, optional
        Compute all n eigenvalues. Default: True when `k` is None, False otherwise
        (then only the k largest are computed, which for large n is much faster).
        False with ``k=None`` raises ValueError.

    Returns
    -------
    PCoAResult
        `coordinates` (n, k), `eigenvalues` (all n if the full spectrum was computed,
        else the k largest), `proportion_explained` (k,), `total_inertia`,
        `min_eigenvalue`, `full_spectrum`, `correction`, `added_constant`, `weights`,
        `labels`, `uncorrected`; the properties `negative_share`,
        `corrected_proportion` and `broken_stick`; the methods `transform` (new
        objects), `project_variables` (biplot) and `to_frame`.

    Raises
    ------
    TypeError
        If `D` or `weights` is not numeric or `k` is not an integer.
    ValueError
        If `D` is not a square 2-D array (or a condensed vector of n(n-1)/2 entries) of
        finite, non-negative numbers, not symmetric or has a non-zero diagonal; if `k` is out of range, `correction` unknown, or
        `weights` not positive with one entry per object.

    Warns
    -----
    RuntimeWarning
        If D is so large or so small that eigenvalues (squared distances) or the Lingoes
        constant overflow or underflow the output dtype; `coordinates` and
        `proportion_explained` are right at every scale at which D is representable.

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
    - **Round-off.** Eigenvalues with :math:`|\beta| < n\,\epsilon \max|\beta|`
      (:math:`\epsilon` the float64 machine epsilon) are set to exactly 0: the zero
      eigenvalue of :math:`B\mathbf{1} = 0`, and the rank deficiency of Euclidean
      distances of points in fewer than n - 1 dimensions. A correction is applied
      only if the smallest eigenvalue is below :math:`-n\,\epsilon\max|\beta|`
      (``ape::pcoa`` uses the absolute threshold :math:`-\sqrt{\epsilon}`).
    - **Scale.** D is divided by the power of two nearest above max(D) (exact), so that
      squared distances stay representable; results are scaled back. An all-zero D
      (every object at the same place) gives zero eigenvalues, coordinates and
      proportions.
    - **Solver.** The full spectrum, or n <= 500, uses a dense symmetric eigensolver
      after an O(n^2) double centering. Otherwise a block Krylov method with
      Rayleigh-Ritz computes the k leading eigenpairs to a relative residual of
      :math:`10^{-10}` (falling back to the dense solver on a flat spectrum); the
      solver is shared with the PCA routes. A correction needs the smallest
      eigenvalue of B (dense, :math:`O(n^3)`), and Cailliez's the eigenvalues of a
      2n x 2n non-symmetric matrix (an order of magnitude slower than B's symmetric
      eigendecomposition: 12 to 17 times for n = 100 to 800, measured on two cores).
      With a correction, the uncorrected analysis (`uncorrected`) is computed too;
      without one, a non-Euclidean D gets its Lingoes-shifted spectrum for
      `corrected_proportion` from the same eigendecomposition (with weights, from one
      more symmetric eigendecomposition).
    - **Signs.** Each coordinate column is flipped so that its entry of largest
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
    >>> star = [[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]]
    >>> round(pcoa(star, correction="lingoes").added_constant, 12)  # -(smallest beta)
    0.25
    """
    arr, labels = distance_input(D)
    dtype = output_dtype(arr)
    n = arr.shape[0]
    if k is not None:
        k = _check_k(k, n)
    if k is None and full_spectrum is False:
        raise ValueError("full_spectrum=False needs k: with k=None every positive axis is returned, "
                         "which needs all eigenvalues")
    if not (correction is None or (isinstance(correction, str) and correction in CORRECTIONS + ("none",))):
        raise ValueError(f"correction must be None, 'none', 'lingoes' or 'cailliez', got {_shown(correction)}")
    correction = None if correction in _NO_CORRECTION else correction
    w = None if weights is None else weights_vector(weights, labels, n)
    full = k is None if full_spectrum is None else bool(full_spectrum)

    check_distances(arr)
    largest = float(arr.max())
    if largest == 0:  # every object at the same place
        return _all_zero_result(n, k, full, dtype, correction, w, labels)
    exponent = int(np.frexp(largest)[1])          # largest / 2**exponent in [1/2, 1)
    unit_D = np.ldexp(np.ascontiguousarray(arr, dtype=np.float64), -exponent)  # any layout in
    np.fill_diagonal(unit_D, 0.0)                 # zero up to the tolerance accepted
    constant = 0.0 if correction is None else correction_constant(unit_D, correction)
    lost: list[str] = []
    uncorrected = None
    if constant:
        uncorrected = _analysis(unit_D, exponent, k, full, None, 0.0, w, dtype, labels, None, lost)
        lost = [f"uncorrected.{name}" for name in lost]
    result = _analysis(unit_D, exponent, k, full, correction, constant, w, dtype, labels, uncorrected, lost)
    if lost:
        warn_not_representable(lost, dtype, exponent)
    return result


def _analysis(unit_D: np.ndarray, exponent: int, k: int | None, full: bool, correction: str | None,
              constant: float, w: np.ndarray | None, dtype: np.dtype, labels: Any,
              uncorrected: PCoAResult | None, lost: list[str]) -> PCoAResult:
    """The PCoA of ``unit_D * 2**exponent`` (unit_D validated, max in [1/2, 1)), with the
    correction's constant already known (at the unit scale). The names of results that
    are not representable in `dtype` are appended to `lost`."""
    n = unit_D.shape[0]
    D2 = squared_distances(unit_D, correction, constant)
    np.fill_diagonal(D2, 0.0)                     # the correction is for distinct objects
    M = double_centered(D2, w)
    total = float(np.trace(M))
    gram_diagonal = np.diagonal(M).copy() if w is None else np.diagonal(M) / w

    top = None
    if not full and k is not None and n > constants.PCOA_DENSE_MAX_N:
        top = _krylov_top(M, k)
    if top is None:
        values, vectors = np.linalg.eigh(M)
        values, vectors = values[::-1], vectors[:, ::-1]
        smallest = float(values[-1])
    else:
        values, vectors, smallest = top
    tiny = round_off(n, values, smallest)
    values = np.where(np.abs(values) < tiny, 0.0, values)
    if abs(smallest) < tiny:
        smallest = 0.0
    euclidean_values, euclidean_total = None, 0.0
    if full:
        euclidean_values, euclidean_total = values, total
        if smallest < 0:                          # not Euclidean, not corrected
            euclidean_values, euclidean_total = lingoes_spectrum(M, unit_D, values, vectors, total, w)

    if k is None:
        k = int(np.count_nonzero(values > 0))
    U = vectors[:, :k] if w is None else vectors[:, :k] / np.sqrt(w)[:, None]
    U = U * axis_signs(U.T)
    coordinates = U * np.sqrt(np.maximum(values[:k], 0.0))
    eigenvalues = values if full else values[:k]
    proportion = values[:k] / total
    return PCoAResult(
        coordinates=scaled(coordinates, exponent, dtype, "coordinates", lost),
        eigenvalues=scaled(eigenvalues, 2 * exponent, dtype, "eigenvalues", lost),
        proportion_explained=proportion.astype(dtype),
        total_inertia=float(scaled(total, 2 * exponent, np.dtype(np.float64), "total_inertia", lost)),
        min_eigenvalue=float(scaled(smallest, 2 * exponent, np.dtype(np.float64), "min_eigenvalue", lost)),
        full_spectrum=full,
        correction=correction,
        added_constant=float(scaled(constant, exponent * (2 if correction == "lingoes" else 1),
                                     np.dtype(np.float64), "added_constant", lost)),
        weights=w,
        labels=labels,
        uncorrected=uncorrected,
        _unit=_UnitMap(exponent, coordinates, eigenvalues, gram_diagonal, w, constant,
                       euclidean_values, euclidean_total),
    )


def _all_zero_result(n: int, k: int | None, full: bool, dtype: np.dtype, correction: str | None,
                     w: np.ndarray | None, labels: Any) -> PCoAResult:
    """Every distance is 0: B = 0, every eigenvalue is 0 and no axis has a positive one."""
    k = 0 if k is None else k
    eigenvalues = np.zeros(n if full else k)
    coordinates = np.zeros((n, k))
    return PCoAResult(
        coordinates=coordinates.astype(dtype),
        eigenvalues=eigenvalues.astype(dtype),
        proportion_explained=np.zeros(k, dtype=dtype),
        total_inertia=0.0,
        min_eigenvalue=0.0,
        full_spectrum=full,
        correction=correction,
        added_constant=0.0,
        weights=w,
        labels=labels,
        _unit=_UnitMap(0, coordinates, eigenvalues, np.zeros(n), w, 0.0,
                       eigenvalues if full else None, 0.0),
    )

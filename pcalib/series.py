r"""Curves and series (chapter *Curves and series*): PCA in a weighted inner product,
functional PCA, and singular spectrum analysis.

**Weighted PCA.** With positive weights :math:`w_1, \dots, w_p` on the features and
:math:`D_w = \operatorname{diag}(w)`, the inner product
:math:`\langle a, b\rangle_w = \sum_l w_l a_l b_l` replaces the dot product. The axes
that maximize the variance of :math:`\langle x - \bar x, \xi\rangle_w` subject to
:math:`\langle \xi, \xi\rangle_w = 1` are :math:`\xi_j = D_w^{-1/2} v_j`, where
:math:`v_j` are the principal axes of :math:`X_c D_w^{1/2}`; the variances are
unchanged. Functional PCA takes the quadrature weights of the grid
(:func:`quadrature_weights`, so that :math:`\langle a, b\rangle_w \approx \int a b`);
the empirical orthogonal functions (EOFs) of a field on a latitude-longitude grid
take the cosine of the latitude (the area of a cell).

**Singular spectrum analysis** (Golyandina, Nekrutkin and Zhigljavsky 2001): a series
:math:`f_1, \dots, f_N` and a window p give the n x p trajectory matrix of its
:math:`n = N - p + 1` lagged windows, :math:`x_{ij} = f_{i + j - 1}`. Its SVD
:math:`\sum_j \sigma_j u_j v_j^\top` (no centering) splits it into elementary matrices;
a group of them, averaged along its anti-diagonals, is a component of the series.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from ._linalg.signs import axis_signs
from ._linalg.svd import exact_svd
from ._linalg.units import center_array, rescale, unit_exponent
from ._routes.decomposition import check_variance
from ._utils.validation import NotFittedError, as_data_matrix, as_numeric_array, checked_finite
from .pca import pca_svd

__all__ = [
    "SSA",
    "WeightedPCAResult",
    "anti_diagonal_counts",
    "functional_pca",
    "quadrature_weights",
    "trajectory_matrix",
    "weighted_pca",
]


# -- weighted and functional PCA -----------------------------------------------------------


@dataclass(frozen=True)
class WeightedPCAResult:
    r"""PCA in the inner product :math:`\langle a, b\rangle_w = \sum_l w_l a_l b_l`.

    Attributes
    ----------
    components : ndarray of shape (k, p)
        :math:`\xi_1, \dots, \xi_k` as rows: orthonormal in the weighted inner product,
        :math:`\xi_j^\top D_w \xi_l = \delta_{jl}` (without a roughness penalty), each
        with its entry of largest absolute value positive.
    explained_variance : ndarray of shape (k,)
        The variance of each column of `scores` (divisor n - 1).
    explained_variance_ratio : ndarray of shape (k,)
        `explained_variance` over the total weighted variance
        :math:`\sum_l w_l s_{ll}`.
    scores : ndarray of shape (n, k)
        :math:`\langle x_i - \bar x, \xi_j\rangle_w`.
    mean : ndarray of shape (p,)
    weights : ndarray of shape (p,)
    """

    components: np.ndarray
    explained_variance: np.ndarray
    explained_variance_ratio: np.ndarray
    scores: np.ndarray
    mean: np.ndarray
    weights: np.ndarray


def _positive_weights(weights: ArrayLike, p: int) -> np.ndarray:
    w = checked_finite(np.array(as_numeric_array(weights, "weights"), dtype=np.float64), "weights")
    if w.shape != (p,):
        raise ValueError(f"weights must have one entry per feature, shape ({p},), got shape {w.shape}")
    if np.any(w <= 0):
        raise ValueError(f"weights must be positive, got {w[w <= 0][0]!r} at position {int(np.argmax(w <= 0))}")
    return w


def _signed(axes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axes (rows) and their scores (columns) flipped to pcalib's sign convention."""
    signs = axis_signs(axes)
    return axes * signs[:, None], scores * signs


def weighted_pca(X: ArrayLike, weights: ArrayLike, k: int | None = None) -> WeightedPCAResult:
    r"""PCA in the inner product :math:`\langle a, b\rangle_w = a^\top D_w b` of the features.

    The weighted axes are :math:`\xi_j = D_w^{-1/2} v_j`, with :math:`v_j` the principal
    axes of :math:`X_c D_w^{1/2}` (:func:`pcalib.pca_svd`); they maximize the variance of
    :math:`\langle x - \bar x, \xi\rangle_w` over :math:`\langle\xi, \xi\rangle_w = 1`,
    orthogonally to the earlier ones, and that variance is the eigenvalue
    :math:`\lambda_j` of :math:`D_w^{1/2} S D_w^{1/2}`.

    Parameters
    ----------
    X : array_like of shape (n, p)
    weights : array_like of shape (p,)
        Positive weights :math:`w_l` (quadrature weights of a grid, or the cosine of
        the latitude of each cell of a field).
    k : int or None, default None
        The number of components; None: min(n, p).

    Returns
    -------
    WeightedPCAResult

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((30, 4))
    >>> weights = np.array([1.0, 1.0, 2.0, 2.0])
    >>> fit = weighted_pca(X, weights, 2)
    >>> bool(np.allclose(fit.components @ np.diag(weights) @ fit.components.T, np.eye(2)))
    True
    """
    arr = as_data_matrix(X, "X", keep_integers=True)
    w = _positive_weights(weights, arr.shape[1])
    root = np.sqrt(w)
    # centered first (exactly: int64 in integers, offsets of 1e15 in two passes, in units
    # of 2**e), then weighted: weighting raw data near 1e15 would round every entry
    centered = center_array(arr, 1)
    fit = pca_svd(centered.values * root, k)
    e = centered.exponent
    axes, scores = _signed(fit.components / root, fit.scores)
    return WeightedPCAResult(axes, rescale(fit.explained_variance, 2 * e, "explained_variance"),
                             fit.explained_variance_ratio, rescale(scores, e, "scores"),
                             centered.center.value, w)


def quadrature_weights(grid: ArrayLike) -> np.ndarray:
    r"""Trapezoidal quadrature weights of an increasing grid :math:`\tau_1 < \dots < \tau_p`.

    .. math::

        w_1 = \tfrac12(\tau_2 - \tau_1), \quad
        w_l = \tfrac12(\tau_{l+1} - \tau_{l-1}), \quad
        w_p = \tfrac12(\tau_p - \tau_{p-1}),

    so that :math:`\sum_l w_l a(\tau_l) b(\tau_l)` is the trapezoidal rule for
    :math:`\int_{\tau_1}^{\tau_p} a(\tau) b(\tau)\,d\tau`.

    Parameters
    ----------
    grid : array_like of shape (p,), p >= 2, strictly increasing

    Returns
    -------
    ndarray of shape (p,)
        Positive; they sum to :math:`\tau_p - \tau_1`.

    Examples
    --------
    >>> quadrature_weights([0.0, 1.0, 3.0])
    array([0.5, 1.5, 1. ])
    """
    t = checked_finite(np.array(as_numeric_array(grid, "grid"), dtype=np.float64), "grid")
    if t.ndim != 1 or t.size < 2:
        raise ValueError(f"grid must be a 1-D array of at least 2 points, got shape {t.shape}")
    gaps = np.diff(t)
    if np.any(gaps <= 0):
        raise ValueError(f"grid must be strictly increasing, but grid[{int(np.argmax(gaps <= 0)) + 1}] does not exceed the point before it")
    return np.concatenate([gaps[:1], gaps[1:] + gaps[:-1], gaps[-1:]]) / 2


def _roughness_matrix(grid: np.ndarray, w: np.ndarray) -> np.ndarray:
    r""":math:`\mathcal R = \Delta^\top \operatorname{diag}(w_2, \dots, w_{p-1}) \Delta`, with
    :math:`\Delta` the second divided differences of the grid, so that
    :math:`\xi^\top \mathcal R \xi \approx \int \xi''(\tau)^2 d\tau`."""
    h = np.diff(grid)
    D2 = np.zeros((grid.size - 2, grid.size))
    rows = np.arange(grid.size - 2)
    D2[rows, rows] = 2 / (h[:-1] * (h[:-1] + h[1:]))
    D2[rows, rows + 1] = -2 / (h[:-1] * h[1:])
    D2[rows, rows + 2] = 2 / (h[1:] * (h[:-1] + h[1:]))
    return D2.T @ (w[1:-1, None] * D2)


def functional_pca(
    X: ArrayLike, grid: ArrayLike, k: int | None = None, *, roughness: float = 0.0
) -> WeightedPCAResult:
    r"""Functional PCA of curves observed on a common, possibly uneven grid.

    Without a penalty this is :func:`weighted_pca` with the trapezoidal weights of
    the grid (:func:`quadrature_weights`): the components are the eigenfunctions
    :math:`\xi_j` on the grid, orthonormal in :math:`\int \xi_j \xi_l`. With a roughness
    penalty :math:`\alpha` (Silverman 1996), :math:`\xi_j` maximizes

    .. math::

        \frac{\operatorname{var}\langle x - \bar x, \xi\rangle_w}
             {\langle \xi, \xi\rangle_w + \alpha\,\xi^\top \mathcal R\,\xi},
        \qquad \xi^\top \mathcal R \xi \approx \int \xi''(\tau)^2\,d\tau,

    subject to orthogonality in the denominator's inner product: the generalized
    symmetric eigenproblem :math:`D_w S D_w \xi = \lambda^{(\alpha)}(D_w + \alpha \mathcal R)\xi`,
    with :math:`\mathcal R` from the second divided differences of the grid. The
    returned components are rescaled to
    :math:`\langle\xi_j, \xi_j\rangle_w = 1`, and `explained_variance` is the variance of
    their scores.

    Parameters
    ----------
    X : array_like of shape (n, p)
        Curve i observed at the grid points in row i.
    grid : array_like of shape (p,)
        Strictly increasing; p >= 3 when `roughness` > 0.
    k : int or None, default None
        The number of components; None: min(n, p).
    roughness : float, default 0.0
        :math:`\alpha \ge 0`, in the units of the grid to the fourth power.

    Returns
    -------
    WeightedPCAResult

    Raises
    ------
    ValueError
        If every column of `X` is constant (zero total variance), with or without a
        penalty, or an argument is out of range.
    """
    arr = as_data_matrix(X, "X", keep_integers=True)
    t = checked_finite(np.array(as_numeric_array(grid, "grid"), dtype=np.float64), "grid")
    if t.shape != (arr.shape[1],):
        raise ValueError(f"grid must have one point per column of X, shape ({arr.shape[1]},), got shape {t.shape}")
    w = quadrature_weights(t)
    if isinstance(roughness, bool) or not isinstance(roughness, numbers.Real) or not 0 <= roughness < np.inf:
        raise ValueError(f"roughness must be a non-negative number, got {roughness!r}")
    if roughness == 0:
        return weighted_pca(arr, w, k)
    if t.size < 3:
        raise ValueError("a roughness penalty needs at least 3 grid points (second differences)")
    n, p = arr.shape
    k = min(n, p) if k is None else k
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= min(n, p):
        raise ValueError(f"k must be an integer between 1 and min(n_samples, n_features) = {min(n, p)}, got {k!r}")
    exact = center_array(arr, 1)  # exact centering, in units of 2**e: no square overflows
    check_variance(exact.constant)
    mean, e, centered = exact.center.value, exact.exponent, exact.values
    weighted = centered * w
    _, axes = scipy.linalg.eigh(weighted.T @ weighted / (n - 1), np.diag(w) + roughness * _roughness_matrix(t, w),
                                subset_by_index=[p - k, p - 1])
    axes = axes[:, ::-1].T
    axes /= np.sqrt(np.einsum("jl,l,jl->j", axes, w, axes))[:, None]
    axes, scores = _signed(axes, weighted @ axes.T)
    variance = rescale(np.var(scores, axis=0, ddof=1), 2 * e, "explained_variance")
    total = rescale(np.sum(w * np.var(centered, axis=0, ddof=1)), 2 * e, "the total variance")
    return WeightedPCAResult(axes, variance, variance / total, rescale(scores, e, "scores"), mean, w)


# -- singular spectrum analysis --------------------------------------------------------------


def _series(x: ArrayLike, name: str = "x") -> np.ndarray:
    arr = checked_finite(np.array(as_numeric_array(x, name), dtype=np.float64), name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D series, got shape {arr.shape}")
    return arr


def _window(window: object, N: int) -> int:
    if isinstance(window, bool) or not isinstance(window, numbers.Integral):
        raise TypeError(f"window must be an integer, got {window!r} of type {type(window).__name__}")
    p = int(window)
    if not 2 <= p <= N - 1:
        raise ValueError(f"window must be between 2 and len(x) - 1 = {N - 1} (at least two windows of two values), got {p}")
    return p


def trajectory_matrix(x: ArrayLike, window: int) -> np.ndarray:
    r"""The n x p matrix of the lagged windows of a series: :math:`x_{ij} = f_{i+j-1}`.

    Row i is the window :math:`(f_i, \dots, f_{i+p-1})`, p = `window`, n = N - p + 1
    (the transpose of Golyandina's L x K trajectory matrix, so that windows are the
    samples). Constant along anti-diagonals: a Hankel matrix.

    Examples
    --------
    >>> trajectory_matrix([1.0, 2.0, 3.0, 4.0], 3)
    array([[1., 2., 3.],
           [2., 3., 4.]])
    """
    f = _series(x)
    p = _window(window, f.size)
    return np.lib.stride_tricks.sliding_window_view(f, p).copy()


def anti_diagonal_counts(n: int, p: int) -> np.ndarray:
    r"""How often each value of a series of length N = n + p - 1 appears in its n x p
    trajectory matrix: :math:`w_t = \min(t, n, p, N - t + 1)`, t = 1..N (Golyandina's
    weights of the w-correlation)."""
    N = n + p - 1
    t = np.arange(1, N + 1)
    return np.minimum(np.minimum(t, N - t + 1), min(n, p)).astype(np.float64)


class SSA:
    r"""Basic singular spectrum analysis (Golyandina, Nekrutkin and Zhigljavsky 2001).

    ``fit(x)`` takes the SVD of the trajectory matrix of the series (n x p, its
    n = N - p + 1 windows of p = `window` values; :func:`trajectory_matrix`),
    without centering: :math:`X = \sum_j \sigma_j u_j v_j^\top`. A group
    :math:`\mathcal J` of components is reconstructed by diagonal averaging of
    :math:`\sum_{j \in \mathcal J} \sigma_j u_j v_j^\top` (:meth:`reconstruct`): value t of
    the series is the mean of the entries :math:`(i, l)` with i + l - 1 = t.
    Golyandina et al. write the trajectory matrix transposed (p x n): their
    eigenvectors are the rows of ``components_`` here and their factor vectors the
    columns of ``factors_``. The results are checked against an independent
    implementation of the same algorithm in base R (R's Rssa package is not packaged
    for Debian, so its numbers are not quoted).

    Parameters
    ----------
    window : int
        p, the length of the lagged windows, 2 <= p <= N - 1.

    Attributes
    ----------
    singular_values_ : ndarray of shape (min(n, p),)
        :math:`\sigma_1 \ge \sigma_2 \ge \dots`
    components_ : ndarray of shape (min(n, p), p)
        The right singular vectors :math:`v_j` as rows (patterns of p consecutive
        values), pcalib's sign convention.
    factors_ : ndarray of shape (n, min(n, p))
        The left singular vectors :math:`u_j` as columns, signed to match.
    n_windows_ : int
        n.
    series_length_ : int
        N.

    Examples
    --------
    >>> t = np.arange(48)
    >>> x = 10 + np.sin(2 * np.pi * t / 12)
    >>> ssa = SSA(12).fit(x)
    >>> parts = ssa.reconstruct([0, [1, 2]])
    >>> bool(np.allclose(parts.sum(axis=0), x))
    True
    """

    def __init__(self, window: int) -> None:
        self.window = window

    def __repr__(self) -> str:
        return f"SSA(window={self.window!r})"

    def _require_fitted(self) -> None:
        if not hasattr(self, "singular_values_"):
            raise NotFittedError(
                "This SSA instance is not fitted yet. Call 'fit' with a series before using it."
            )

    def fit(self, x: ArrayLike) -> SSA:
        """Decompose the series `x` (1-D, finite, not modified). Returns self."""
        f = _series(x)
        p = _window(self.window, f.size)
        self._exponent = unit_exponent(f)  # the SVD runs in units of 2**e: no overflow
        U, s, Vt = exact_svd(trajectory_matrix(np.ldexp(f, -self._exponent), p))
        signs = axis_signs(Vt)
        self._s_units = s
        self.components_ = Vt * signs[:, None]
        self.factors_ = U * signs
        self.n_windows_ = f.size - p + 1
        self.series_length_ = f.size
        self.singular_values_ = rescale(s, self._exponent, "singular_values_")
        return self

    def _groups(self, groups: Sequence[int | Sequence[int]]) -> list[np.ndarray]:
        d = self._s_units.size
        if isinstance(groups, (numbers.Integral, str)) or not isinstance(groups, Sequence):
            raise TypeError(f"groups must be a list of groups (each an index or a list of indices), got {groups!r}")
        out = []
        for group in groups:
            indices = np.atleast_1d(np.asarray(group))
            if indices.size == 0 or indices.dtype.kind not in "iu" or indices.ndim != 1:
                raise ValueError(f"each group must be a component index or a non-empty list of them, got {group!r}")
            if np.any((indices < 0) | (indices >= d)):
                raise ValueError(f"component indices must be between 0 and {d - 1}, got {group!r}")
            if np.unique(indices).size != indices.size:
                raise ValueError(f"a group must not repeat a component index, got {group!r}")
            out.append(indices)
        return out

    def _reconstructed_units(self, indices: np.ndarray) -> np.ndarray:
        r"""Diagonal averaging of :math:`\sum_{j} \sigma_j u_j v_j^\top` (in units of 2**e):
        the anti-diagonal sums of the rank-one matrix :math:`u_j v_j^\top` are the
        convolution :math:`u_j * v_j`."""
        total = np.zeros(self.series_length_)
        for j in indices:
            total += self._s_units[j] * np.convolve(self.factors_[:, j], self.components_[j])
        return total / anti_diagonal_counts(self.n_windows_, self.window)

    def reconstruct(self, groups: Sequence[int | Sequence[int]]) -> np.ndarray:
        r"""The components of the series given by groups of elementary matrices.

        Parameters
        ----------
        groups : list
            Each entry a component index j (0-based: 0 is :math:`\sigma_1`) or a list
            of them; for example ``[0, [1, 2]]`` gives the first component alone and
            the second and third together.

        Returns
        -------
        ndarray of shape (len(groups), N)
            Row g: the diagonal averaging of :math:`\sum_{j \in g} \sigma_j u_j v_j^\top`.
            The rows for a partition of all components sum to the series.
        """
        self._require_fitted()
        parts = [self._reconstructed_units(indices) for indices in self._groups(groups)]
        return rescale(np.array(parts), self._exponent, "reconstruct")

    def w_correlation(self, groups: Sequence[int | Sequence[int]] | None = None) -> np.ndarray:
        r"""The w-correlations between reconstructed components.

        .. math::

            \operatorname{wcor}(a, b) = \frac{\langle a, b\rangle_w}{\|a\|_w \|b\|_w}, \qquad
            \langle a, b\rangle_w = \sum_t w_t a_t b_t,

        with :math:`w_t` = :func:`pcalib.series.anti_diagonal_counts`: the cosine of the angle between
        the trajectory matrices of a and b. Near 0: the two are separable; near 1 in
        absolute value: they belong to one component.

        Parameters
        ----------
        groups : list or None, default None
            As for :meth:`reconstruct`; None: each of the first min(d, 50) components
            alone.

        Returns
        -------
        ndarray of shape (len(groups), len(groups))
        """
        self._require_fitted()
        if groups is None:
            groups = list(range(min(self._s_units.size, 50)))
        parts = np.array([self._reconstructed_units(indices) for indices in self._groups(groups)])
        weighted = parts * anti_diagonal_counts(self.n_windows_, self.window)
        gram = weighted @ parts.T
        norms = np.sqrt(np.diag(gram))
        norms = np.where(norms > 0, norms, 1.0)
        return gram / norms[:, None] / norms[None, :]

    def recurrence(self, group: Sequence[int]) -> np.ndarray:
        r"""The linear recurrence of a group's subspace (Golyandina et al. 2001, ch. 2).

        With :math:`v_{pj}` the last entry of :math:`v_j`, :math:`\underline{v}_j` its
        first p - 1 entries, and :math:`\sum_{j \in g} v_{pj}^2 < 1`,

        .. math:: h = \frac{1}{1 - \sum_{j \in g} v_{pj}^2} \sum_{j \in g} v_{pj}\, \underline{v}_j ,

        so that every vector z of the span of the :math:`v_j` satisfies
        :math:`z_p = h^\top (z_1, \dots, z_{p-1})`; of the vectors with that property, h is
        the shortest.

        Parameters
        ----------
        group : list of int
            The component indices (0-based) whose span defines the recurrence.

        Returns
        -------
        ndarray of shape (p - 1,)

        Raises
        ------
        ValueError
            If :math:`\sum_{j \in g} v_{pj}^2` is 1 to round-off (the last coordinate axis
            lies in the span: no recurrence).
        """
        self._require_fitted()
        (indices,) = self._groups([group])
        V = self.components_[indices]
        last = V[:, -1]
        verticality = float(last @ last)
        if verticality > 1 - 1e-10:
            raise ValueError(
                f"the group's vectors have sum of squared last entries {verticality:.12g}: their "
                "span holds the last lag axis, so no linear recurrence continues it; choose another group"
            )
        return V[:, :-1].T @ last / (1 - verticality)

    def forecast(self, steps: int, group: Sequence[int]) -> np.ndarray:
        r"""Recurrent forecast of a group's reconstruction (Golyandina et al. 2001; R's ``Rssa::rforecast``).

        The reconstruction :math:`g_1, \dots, g_N` of the group is continued by its
        recurrence :math:`h` (:meth:`recurrence`):
        :math:`g_t = h^\top (g_{t-p+1}, \dots, g_{t-1})` for t = N + 1, ..., N + steps.

        Parameters
        ----------
        steps : int
            How many values to forecast, at least 1.
        group : list of int
            The components (0-based) to reconstruct and continue.

        Returns
        -------
        ndarray of shape (steps,)
            The new values only.
        """
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
            raise ValueError(f"steps must be a positive integer, got {steps!r}")
        h = self.recurrence(group)
        values = list(self.reconstruct([group])[0])
        for _ in range(int(steps)):
            values.append(float(h @ values[len(values) - h.size:]))
        return np.array(values[self.series_length_:])

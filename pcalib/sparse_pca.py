r"""Sparse PCA by the truncated power method (chapter *Reading the components*).

Cardinality-constrained PCA: the first axis solves

.. math::

    \max_{\mathbf w} \ \mathbf w^\top S \mathbf w
    \quad\text{subject to}\quad \|\mathbf w\| = 1,\ \|\mathbf w\|_0 \le c,

:math:`\|\mathbf w\|_0` the number of non-zero entries (an NP-hard problem in
general). The truncated power method (Yuan and Zhang 2013) iterates

.. math::

    \mathbf w \leftarrow \frac{\operatorname{trunc}_c(S\mathbf w)}
                              {\|\operatorname{trunc}_c(S\mathbf w)\|},

where :math:`\operatorname{trunc}_c` keeps the c entries of largest magnitude and
sets the others to 0. Each step does not decrease :math:`\mathbf w^\top S\mathbf w`
(S positive semi-definite), so the iteration converges to a fixed point, which need
not be the maximum. It is started from the truncated leading eigenvector of S and
from the coordinate axis of the largest diagonal entry of S (and, with
``n_init > 1``, from random vectors too); the best fixed point is kept. For c = 1
the answer is then exact (the largest diagonal entry, a fixed point from its own
axis), and for c = p it is the leading eigenvector.

Later axes are found the same way after the Schur complement deflation
:math:`S \leftarrow S - S\mathbf w\mathbf w^\top S / (\mathbf w^\top S\mathbf w)`
(Mackey 2009): the covariance of what the scores found so far leave unexplained, so
that each axis maximizes the variance it adds.

The sparse axes are not orthogonal and their scores are correlated in general, so
the variances :math:`\mathbf w_j^\top S \mathbf w_j` double count. Zou, Hastie and
Tibshirani (2006) report the **adjusted variance**: with the scores
:math:`T = X_c W` and the QR decomposition :math:`T = QR`, component j explains
:math:`R_{jj}^2 / (n - \mathrm{ddof})`, the variance of its scores left after
regressing them on the scores of components 1..j-1; after Schur complement
deflation this is :math:`\mathbf w_j^\top S_j \mathbf w_j`, the value each axis
maximizes. For orthogonal axes with uncorrelated scores (plain PCA) these are the
eigenvalues.

The data are read in exact power-of-two units (:func:`pcalib._linalg.units.center_array`,
integers offset exactly), so the axes and ratios are the same at every scale.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._estimator.base import EstimatorBase
from ._linalg.signs import axis_signs
from ._linalg.units import center_array, centered_rows, rescale
from ._utils.validation import (
    as_data_matrix,
    check_ddof,
    check_flag,
    check_random_state,
    warn_outside_pcalib,
)

__all__ = ["SparsePCA", "best_sparse_axis", "truncated_power"]


def _positive_int(value: object, name: str, upper: int | None = None) -> int:
    """`value` as an ``int`` with 1 <= value (<= `upper` if given), else TypeError or
    ValueError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < 1 or (upper is not None and value > upper):
        bound = f"1 <= {name} <= {upper}" if upper is not None else f"{name} >= 1"
        raise ValueError(f"{name} must satisfy {bound}, got {value}")
    return value


def _truncate(s: np.ndarray, c: int) -> np.ndarray:
    """`s` with all but the c entries of largest magnitude of each vector (last axis)
    set to 0 (ties: lower index)."""
    if c >= s.shape[-1]:
        return s.copy()
    size = np.abs(s)
    cut = -np.partition(-size, c - 1, axis=-1)[..., c - 1 : c]  # the c-th largest
    above = size > cut
    tied = size == cut
    room = c - above.sum(axis=-1, keepdims=True)  # places left for the tied entries
    keep = above | (tied & (np.cumsum(tied, axis=-1) <= room))
    return np.where(keep, s, 0.0)


def truncated_power(
    S: np.ndarray, c: int, start: np.ndarray, *, tol: float = 1e-10, max_iter: int = 1000,
) -> tuple[np.ndarray, Any]:
    r"""The truncated power method for one sparse axis of the symmetric p.s.d. `S`.

    .. math::

        \mathbf w_{t+1} = \operatorname{trunc}_c(S\mathbf w_t)
                          / \|\operatorname{trunc}_c(S\mathbf w_t)\|,

    from :math:`\mathbf w_0 = \operatorname{trunc}_c(\texttt{start})`, normalized,
    until :math:`\|\mathbf w_{t+1} - \mathbf w_t\| <` `tol`.

    The values :math:`\mathbf w_t^\top S\mathbf w_t` never decrease; the fixed point
    reached depends on the start and need not be the best one.

    `S` may be a stack of matrices, shape (..., p, p), and `start` a stack of vectors,
    shape (..., p) (broadcast against each other): each problem then iterates on its
    own and stops at its own fixed point. `c` must be an integer with
    :math:`1 \le c \le p` (else TypeError or ValueError naming `c`).

    Returns
    -------
    (w, n_iter) : ndarray of shape (..., p) with at most c non-zero entries and unit
        norm, and the number of iterations (an int, or an int array of shape (...)).
        When :math:`S\mathbf w_t = 0` (no variance left), the current
        :math:`\mathbf w_t` is returned.

    Warns
    -----
    UserWarning
        When a problem is still moving after `max_iter` iterations: its
        :math:`\mathbf w` is then the last iterate, which can be far from the fixed
        point even when its value is close to the fixed point's.
    """
    w, n_iter, unsettled = _truncated_power_runs(S, c, start, tol, max_iter)
    _warn_unsettled("the truncated power method", unsettled, max_iter, tol)
    return w, (int(n_iter) if n_iter.ndim == 0 else n_iter)


def _truncated_power_runs(
    S: np.ndarray, c: int, start: np.ndarray, tol: float, max_iter: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`truncated_power` without its warning: (w, n_iter, unsettled), n_iter and
    the boolean `unsettled` (still moving at `max_iter`) of shape (...)."""
    S = np.asarray(S, dtype=np.float64)
    start = np.asarray(start, dtype=np.float64)
    shape = np.broadcast_shapes(S.shape[:-2], start.shape[:-1]) + start.shape[-1:]
    p = shape[-1]
    c = _positive_int(c, "c", p)
    stack = np.broadcast_to(S, shape[:-1] + (p, p)).reshape(-1, p, p)
    w = _truncate(np.broadcast_to(start, shape).reshape(-1, p), c)
    norm = np.linalg.norm(w, axis=-1, keepdims=True)
    if np.any(norm == 0):
        raise ValueError("the start vector of the truncated power method is zero")
    w = w / norm
    n_iter = np.full(len(w), max_iter)
    running = np.arange(len(w))  # the problems still iterating
    for it in range(1, max_iter + 1):
        current = w[running]
        s = _truncate(np.einsum("blm,bm->bl", stack, w)[running], c)  # no copy of S
        norm = np.linalg.norm(s, axis=-1, keepdims=True)
        new = np.divide(s, norm, out=current.copy(), where=norm > 0)  # no variance: stay
        stopped = (norm[:, 0] == 0) | (np.linalg.norm(new - current, axis=-1) < tol)
        w[running] = new
        n_iter[running[stopped]] = it
        running = running[~stopped]
        if running.size == 0:
            break
    unsettled = np.zeros(len(w), dtype=bool)
    unsettled[running] = True
    return w.reshape(shape), n_iter.reshape(shape[:-1]), unsettled.reshape(shape[:-1])


def _warn_unsettled(what: str, unsettled: np.ndarray, max_iter: int, tol: float) -> None:
    """Warn (UserWarning, at the user's line) when any of the `unsettled` problems
    stopped at `max_iter` before its axis moved by less than `tol`."""
    if np.any(unsettled):
        warn_outside_pcalib(
            f"{what} did not converge in max_iter={max_iter} iterations (tol={tol}) in "
            f"{int(np.sum(unsettled))} of {unsettled.size} problem(s): an axis still "
            "moving is not a fixed point and can be far from one even when its variance "
            "is close; increase max_iter", UserWarning)


def best_sparse_axis(
    S: np.ndarray, c: int, *, n_init: int = 1, rng: np.random.Generator | None = None,
    tol: float = 1e-10, max_iter: int = 1000, leading: np.ndarray | None = None,
) -> tuple[np.ndarray, Any]:
    r"""The first axis of :class:`SparsePCA`: the best of the truncated power method's
    fixed points (:func:`truncated_power`) from several starts.

    The starts are the truncated leading eigenvector of `S`, the coordinate axis of
    its largest diagonal entry and ``n_init - 1`` random Gaussian vectors drawn from
    `rng`; the fixed point of largest :math:`\mathbf w^\top S\mathbf w` is kept
    (ties: the earlier start). `S` may be a stack of matrices, shape (..., p, p): each
    gets its own best axis, so many problems are solved at once. `leading`, shape
    (..., p), gives the leading eigenvectors of `S` when they are already at hand
    (``np.linalg.eigh(S)[1][..., -1]``), to save their computation.
    `c` must be an integer with :math:`1 \le c \le p`, as in :func:`truncated_power`.

    Returns
    -------
    (w, n_iter) : ndarray of shape (..., p), the best fixed points, and the
        iterations of the start that reached each (an int, or an int array).

    Warns
    -----
    UserWarning
        When any start of a problem is still moving after `max_iter` iterations (as
        :func:`truncated_power`): the axis kept is then the best of points that are not
        all fixed points.
    """
    w, n_iter, unsettled = _best_sparse_axis_runs(S, c, n_init, rng, tol, max_iter, leading)
    _warn_unsettled("the truncated power method", unsettled, max_iter, tol)
    return w, (int(n_iter) if n_iter.ndim == 0 else n_iter)


def _best_sparse_axis_runs(
    S: np.ndarray, c: int, n_init: int, rng: np.random.Generator | None, tol: float,
    max_iter: int, leading: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`best_sparse_axis` without its warning: (w, n_iter, unsettled), the last
    two of shape (...); `unsettled` marks the problems with a start still moving at
    `max_iter`."""
    S = np.asarray(S, dtype=np.float64)
    p = S.shape[-1]
    c = _positive_int(c, "c", p)
    if leading is None:
        leading = np.linalg.eigh(S)[1][..., -1]
    starts = [np.asarray(leading, dtype=np.float64),
              np.eye(p)[np.argmax(np.diagonal(S, axis1=-2, axis2=-1), axis=-1)]]
    if n_init > 1:
        rng = np.random.default_rng() if rng is None else rng
        starts += list(rng.standard_normal((n_init - 1, p)))
    runs = [_truncated_power_runs(S, c, start, tol, max_iter) for start in starts]
    axes = np.stack([np.broadcast_to(w, S.shape[:-1]) for w, _, _ in runs])
    iters = np.stack([np.broadcast_to(it, S.shape[:-2]) for _, it, _ in runs])
    unsettled = np.any([np.broadcast_to(u, S.shape[:-2]) for _, _, u in runs], axis=0)
    values = np.einsum("s...l,...lm,s...m->s...", axes, S, axes)
    best = np.argmax(values, axis=0)  # the first of equal values: the earlier start
    w = np.take_along_axis(axes, best[None, ..., None], axis=0)[0]
    n_iter = np.take_along_axis(iters, best[None], axis=0)[0]
    return w, n_iter, unsettled


class SparsePCA(EstimatorBase):
    r"""Sparse PCA: at most `n_nonzero` non-zero entries per axis (truncated power method).

    Axis j is a fixed point of the truncated power method
    (:func:`~pcalib.sparse_pca.truncated_power`, Yuan and Zhang 2013) for
    :math:`\max \mathbf w^\top S_j \mathbf w` over unit vectors with at most
    c = `n_nonzero` non-zero entries, the best of its starts (the truncated leading
    eigenvector of :math:`S_j`, the coordinate axis of its largest diagonal entry,
    and ``n_init - 1`` random vectors): exactly the maximum for c = 1 and c = p, a
    local maximum in between (the problem is NP-hard). :math:`S_1 = S` is the
    covariance (correlation, with ``standardize``) of the training data and
    :math:`S_{j+1} = S_j - S_j\mathbf w_j\mathbf w_j^\top S_j/(\mathbf w_j^\top S_j
    \mathbf w_j)` its Schur complement deflation (Mackey 2009), the covariance left
    after regressing the data on the scores found so far: :math:`\mathbf w_j^\top
    S_j\mathbf w_j` is the adjusted variance of component j, which each axis
    maximizes. With ``n_nonzero=None`` (c = p) the axes are PCA's. This is an
    :math:`\ell_0` (cardinality) constraint; scikit-learn's ``SparsePCA`` solves
    another problem, an :math:`\ell_1`-penalized matrix factorization.

    cos2 and contributions (:func:`pcalib.row_cos2` and friends) are refused: the
    scores are correlated and the adjusted variances are not their variances.

    Parameters
    ----------
    n_components : int
        k, 1 <= k <= min(n, p).
    n_nonzero : int or None, default None
        c, the largest number of non-zero entries of each axis, 1 <= c <= p; None
        for p.
    standardize : bool, default False
        Decompose the correlation matrix (columns divided by their standard
        deviations, divisor n - ddof).
    ddof : int, default 1
        Divisor n - ddof of the covariance.
    n_init : int, default 1
        Random starts of the power method per axis besides the two fixed ones (the
        truncated leading eigenvector of :math:`S_j` and the coordinate axis of its
        largest diagonal entry): ``n_init - 1`` random Gaussian vectors; the fixed
        point of largest :math:`\mathbf w^\top S_j\mathbf w` is kept.
    max_iter : int, default 1000
    tol : float, default 1e-10
        The iteration stops when the axis moves by less than `tol`.
    random_state : None, int or numpy.random.Generator
        Draws the random starts (used only when ``n_init > 1``).

    Attributes
    ----------
    components_ : ndarray of shape (k, p)
        Unit-norm sparse axes, one per row (largest entry positive). Not orthogonal
        in general.
    explained_variance_ : ndarray of shape (k,)
        The adjusted variances :math:`R_{jj}^2/(n - \mathrm{ddof})` of Zou, Hastie
        and Tibshirani (2006), :math:`X_c W = QR` (equal to
        :math:`\mathbf w_j^\top S_j\mathbf w_j`).
    explained_variance_ratio_ : ndarray of shape (k,)
        The adjusted variances over :math:`\operatorname{tr} S`.
    mean_, scale_ : ndarray of shape (p,)
        Column means; standard deviations (ones unless standardizing).
    n_iter_ : ndarray of int, shape (k,)
        Iterations of the power method for each axis (its best start). When a start
        of some axis is still moving after `max_iter` iterations, ``fit`` warns
        (UserWarning) and keeps the last iterate.
    n_components_, n_samples_, n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        When fitted on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))
    >>> X = rng.standard_normal((200, 6)) + 2 * z * [1, 1, 1, 0, 0, 0]
    >>> model = pcalib.SparsePCA(1, n_nonzero=3).fit(X)
    >>> np.flatnonzero(model.components_[0]).tolist()
    [0, 1, 2]
    """

    _FITTED_BY = "components_"  # set by fit with the other attributes

    def __init__(
        self,
        n_components: int,
        *,
        n_nonzero: int | None = None,
        standardize: bool = False,
        ddof: int = 1,
        n_init: int = 1,
        max_iter: int = 1000,
        tol: float = 1e-10,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.n_nonzero = n_nonzero
        self.standardize = standardize
        self.ddof = ddof
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _check_params(self, n: int, p: int) -> tuple[int, int]:
        k = _positive_int(self.n_components, "n_components")
        if k > min(n, p):  # as PCA: at most min(n, p) axes, one adjusted variance each
            raise ValueError(
                f"n_components must be between 1 and min(n_samples, n_features) = "
                f"{min(n, p)}, got {k}")
        c = p if self.n_nonzero is None else _positive_int(self.n_nonzero, "n_nonzero", p)
        _positive_int(self.n_init, "n_init")
        _positive_int(self.max_iter, "max_iter")
        tol = self.tol
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol > 0:
            raise ValueError(f"tol must be a positive number, got {tol!r}")
        check_ddof(self.ddof, n)
        check_flag(self.standardize, "standardize")
        check_random_state(self.random_state, draw=False)
        return k, c

    def fit(self, X: ArrayLike, y: object = None) -> SparsePCA:
        """Fit on `X` (n x p); `X` is not modified. `y` is ignored. Returns self."""
        X = self._remember_input(X)
        arr = as_data_matrix(X, "X", copy=False, keep_integers=True)
        n, p = arr.shape
        k, c = self._check_params(n, p)
        rng = check_random_state(self.random_state)
        centered = center_array(arr, int(self.ddof), scale=bool(self.standardize))  # exact units
        if not self.standardize and centered.constant.all():
            raise ValueError("X has zero variance in every column: there is no axis to find")
        Y = centered.values
        S = Y.T @ Y / (n - self.ddof)
        axes, iters = np.zeros((k, p)), np.zeros(k, dtype=int)
        unsettled = np.zeros(k, dtype=bool)
        current = S.copy()
        for j in range(k):
            axes[j], iters[j], unsettled[j] = _best_sparse_axis_runs(
                current, c, int(self.n_init), rng, float(self.tol), int(self.max_iter), None)
            pull = current @ axes[j]
            value = float(axes[j] @ pull)
            if value > 0:  # Schur complement: what the scores so far leave unexplained
                current = current - np.outer(pull, pull) / value
        _warn_unsettled("SparsePCA's truncated power method (one problem per axis)",
                        unsettled, int(self.max_iter), float(self.tol))
        axes = axes * axis_signs(axes)[:, None] + 0.0  # + 0.0: no -0. entries
        R = np.linalg.qr(Y @ axes.T, mode="r")
        adjusted = np.diag(R) ** 2 / (n - self.ddof)
        self.components_ = axes
        self.explained_variance_ = rescale(adjusted, 2 * centered.exponent, "explained_variance_")
        self.explained_variance_ratio_ = adjusted / float(np.trace(S))
        self.mean_, self.scale_, self._center = centered.center.value, centered.scale, centered.center
        self.n_iter_, self.n_components_, self.n_samples_ = iters, k, n
        return self

    def transform(self, X: ArrayLike) -> Any:
        r"""Scores :math:`t_j = \mathbf w_j^\top D_s^{-1}(\mathbf x - \bar{\mathbf x})` of the rows
        of `X`, centered by the fit's exact mean (``pcalib._linalg.units.centered_rows``)."""
        self._require_fitted()
        arr = as_data_matrix(self._check_input(X), "X", copy=False, keep_integers=True)
        Y, e = centered_rows(arr, self._center, self.scale_)
        return self._wrap_output(rescale(Y @ self.components_.T, e, "the scores"), X)

    def inverse_transform(self, T: ArrayLike) -> np.ndarray:
        r"""The points of the span of the axes whose scores are `T`.

        With :math:`W` the axes as columns (not orthogonal in general), the scores
        :math:`\mathbf t = W^\top \mathbf z` of any :math:`\mathbf z` determine its
        orthogonal projection :math:`W (W^\top W)^{+}\mathbf t` on the span of
        :math:`W`; the result is :math:`\bar{\mathbf x} + D_s W (W^\top W)^{+}\mathbf t`
        (pseudo-inverse :math:`^{+}`).
        """
        self._require_fitted()
        scores = as_data_matrix(T, "T").astype(np.float64, copy=False)
        W = self.components_.T
        if scores.shape[1] != W.shape[1]:
            raise ValueError(f"T has {scores.shape[1]} columns, expected n_components = {W.shape[1]}")
        Z = scores @ np.linalg.pinv(W.T @ W) @ W.T
        return self.mean_ + Z * self.scale_

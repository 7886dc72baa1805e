r"""The three robust PCA fits of :class:`pcalib.RobustPCA` (chapter *Outliers and robust PCA*).

Each takes the data Y (n x p) in the units of :func:`pcalib._linalg.units.median_shifted`
(values in [-1, 1], shifted by a median row), where no square overflows or
underflows and an offset costs no digit, and returns a :class:`RobustFit` in those
units: a center, k orthonormal axes and their robust variances.

* :func:`robpca`: ROBPCA (Hubert, Rousseeuw and Vanden Branden 2005), with rrcov's
  deterministic directions (:func:`rrcov_pairs`) for the outlyingness
  (:func:`outlyingness`);
* :func:`grid`: projection pursuit by the grid algorithm of Croux, Filzmoser and
  Oliveira (2007), as pcaPP's ``PCAgrid`` runs it;
* :func:`spherical`: spherical PCA (Locantore et al. 1999).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .._linalg.units import median_shifted
from .._utils.progress import SILENT, Progress
from .._utils.validation import warn_outside_pcalib
from .mcd import mcd, spatial_median_in_units
from .scales import mad, mad_of_rows, od_cutoff, qn, univariate_mcd

__all__ = [
    "EXACT_FIT", "GRID_ANGLES", "GRID_ITER", "N_DIRECTIONS", "RobustFit", "grid", "outlyingness", "robpca",
    "rrcov_pairs", "spherical",
]

#: Directions through pairs of rows for the outlyingness of ROBPCA (rrcov's ``maxdir``);
#: all pairs when there are at most this many.
N_DIRECTIONS = 250
#: Grid search: angles per plane (pcaPP's ``splitcircle``) and refinements (``maxiter``);
#: the search makes GRID_ITER + 1 passes, the i-th over an arc of pi / 2**i.
GRID_ANGLES = 25
GRID_ITER = 10
#: Rows whose orthogonal distance is at most this fraction of the largest distance to
#: the center lie on the fitted subspace up to round-off.
EXACT_FIT = 1e-10
_EPS = float(np.finfo(np.float64).eps)


class RobustFit(NamedTuple):
    """A robust PCA fit, in the units of the data it was fitted to."""

    center: np.ndarray  #: (p,)
    axes: np.ndarray  #: (k, p), orthonormal rows
    variances: np.ndarray  #: (k,), the robust variances along the axes


def _rank(s: np.ndarray, shape: tuple[int, int]) -> int:
    """The numerical rank of a matrix of singular values `s` (LAPACK's default tolerance)."""
    return int(np.sum(s > max(shape) * _EPS * s[0])) if s.size and s[0] > 0 else 0


# -- ROBPCA ----------------------------------------------------------------------------------


def rrcov_pairs(n: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    r"""`count` pairs of distinct rows among n (0-based), drawn as rrcov's ``extradir``
    draws them: its generator :math:`s \leftarrow (5761 s + 999) \bmod 65536` from
    s = 0, row :math:`\lfloor n s / 65536 \rfloor`, the second row redrawn while it
    equals the first. Deterministic, so ROBPCA does not depend on a seed."""
    first, second = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
    seed = 0
    for r in range(count):
        drawn: list[int] = []
        while len(drawn) < 2:
            seed = (5761 * seed + 999) % 65536
            row = seed * n // 65536
            if row not in drawn:
                drawn.append(row)
        first[r], second[r] = drawn
    return first, second


def outlyingness(Z: np.ndarray, h: int) -> np.ndarray:
    r"""Stahel-Donoho outlyingness over directions through pairs of rows:

    .. math::

        \mathrm{outl}(x_i) = \max_{v} \frac{|v^\top x_i - t_{\mathrm{MCD}}(v^\top x)|}
        {s_{\mathrm{MCD}}(v^\top x)},

    v over the unit directions :math:`x_a - x_b` of all pairs if there are at most
    ``N_DIRECTIONS`` of them, otherwise of the ``N_DIRECTIONS`` pairs of
    ``rrcov_pairs``; t and s the univariate MCD (:func:`univariate_mcd`, rrcov's
    ``unimcd``) with subset size h. Directions along which the scale is 0 are
    skipped. rrcov's ``outl``: the same directions and values.
    """
    units = median_shifted(np.asarray(Z, dtype=np.float64))  # norms of differences below
    V = units.values
    n = V.shape[0]
    if n * (n - 1) // 2 <= N_DIRECTIONS:
        a, b = np.triu_indices(n, 1)
    else:
        a, b = rrcov_pairs(n, N_DIRECTIONS)
    B = V[a] - V[b]
    norms = np.linalg.norm(B, axis=1)
    keep = norms > 1e-12 * (float(norms.max()) or 1.0)
    A = B[keep] / norms[keep, None]
    P = V @ A.T
    t, s = univariate_mcd(P, h)
    ok = s > 1e-12 * (float(np.abs(P).max()) or 1.0)
    if not ok.any():
        raise ValueError(
            f"at least h = {h} rows project onto one value along every direction tried: "
            "the data hold an exact fit; choose a larger alpha or remove duplicated rows"
        )
    return np.max(np.abs(P[:, ok] - t[ok]) / s[ok], axis=1)


def _pca_of_rows(Z: np.ndarray, rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, first k axes (as columns) and all eigenvalues (divisor m - 1) of the rows `rows`."""
    m = Z[rows].mean(axis=0)
    _, s, Wt = np.linalg.svd(Z[rows] - m, full_matrices=False)
    return m, Wt[:k].T, s**2 / max(Z[rows].shape[0] - 1, 1)


def robpca(Y: np.ndarray, k: int, h: int, rng: np.random.Generator,
           report: Progress = SILENT) -> RobustFit:
    r"""ROBPCA: the h rows of least outlyingness, the rows close to their k-dimensional
    PCA subspace, and the reweighted MCD of the scores in that subspace. The rows
    close to the subspace are those within rrcov's cutoff (:func:`od_cutoff` with the
    univariate MCD as rrcov computes it, ``consistent=False``), so that the fit is
    rrcov's ``PcaHubert(x, k, alpha, mcd=FALSE)`` (without robustbase's small-sample
    factors in the final MCD) to round-off.

    When at least h rows lie on the k-dimensional subspace of the h-subset (their
    orthogonal distances at most ``EXACT_FIT`` times the largest distance), those
    rows are an exact fit: they give the subspace, and a warning says so
    (robustbase's ``covMcd`` warns alike). Each of the three stages done is one step
    of `report`.
    """
    mean = Y.mean(axis=0)
    _, s, Vt = np.linalg.svd(Y - mean, full_matrices=False)
    r = _rank(s, Y.shape)
    if r <= k:
        raise ValueError(f"X has rank {r} after centering: n_components={k} must be below it for ROBPCA")
    Z = (Y - mean) @ Vt[:r].T  # the data in the r-dimensional space they span
    # Stage 1: Stahel-Donoho outlyingness over directions through pairs of rows
    H0 = np.sort(np.argsort(outlyingness(Z, h), kind="stable")[:h])
    m0, P0, _ = _pca_of_rows(Z, H0, k)
    report.update(stage="outlyingness")
    # Stage 2: rows close to the k-dimensional subspace of H0 (OD below its cutoff)
    R = Z - m0
    od = np.linalg.norm(R - (R @ P0) @ P0.T, axis=1)
    on = od <= EXACT_FIT * float(np.linalg.norm(R, axis=1).max())
    if on.sum() >= h:
        H1 = np.flatnonzero(on)
        spanned = _rank(np.linalg.svd(Z[H1] - Z[H1].mean(axis=0), compute_uv=False), Z[H1].shape)
        if spanned < k:
            raise ValueError(
                f"exact fit: {H1.size} of the {Y.shape[0]} rows (at least h = {h}) lie on a "
                f"{spanned}-dimensional affine subspace, so the robust variance along "
                f"{k - spanned} of the {k} axes is 0: choose n_components <= {spanned}"
            )
        warn_outside_pcalib(
            f"exact fit: {H1.size} of the {Y.shape[0]} rows (at least h = {h}) lie on a "
            f"{k}-dimensional affine subspace; it is the fitted subspace, and the rows off it "
            "are flagged as outliers"
        )
    else:
        H1 = np.flatnonzero(od <= od_cutoff(od, h, "umcd", consistent=False))
    m1, P1, ev = _pca_of_rows(Z, H1, k)
    T = (Z - m1) @ P1
    report.update(stage="orthogonal distances")
    # Stage 3: reweighted MCD of the scores; the h rows nearest under H1's own
    # covariance start one more C-step run (rrcov's projectMCD)
    start = np.argsort(np.sum(T**2 / ev[:k], axis=1), kind="stable")[:h]
    fit = mcd(T, h, rng, start=start)
    report.update(stage="reweighted MCD")
    lam, A = np.linalg.eigh(fit.covariance)
    lam, A = lam[::-1], A[:, ::-1]
    center = mean + Vt[:r].T @ (m1 + P1 @ fit.location)
    return RobustFit(center, (Vt[:r].T @ P1 @ A).T, lam)


# -- projection pursuit over a grid --------------------------------------------------------


def _scale_function(robust_scale: str) -> Callable[[np.ndarray], np.ndarray]:
    """The robust scale of each row of a 2-D array (the array may be reordered)."""
    if robust_scale == "mad":
        return mad_of_rows
    return lambda M: np.asarray(qn(M, axis=1))


def _grid_axis(Y: np.ndarray, scale: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, float, int]:
    r"""pcaPP's grid search for the unit vector a maximizing the robust scale of ``Y @ a``.

    It starts from the coordinate axis of largest scale and visits the coordinate
    axes :math:`e_j` in the order of their scales. For each, the current a is
    written :math:`\cos\varphi_0\, b + \sin\varphi_0\, e_j` with b a unit vector
    orthogonal to :math:`e_j`, and the best of ``GRID_ANGLES`` angles
    :math:`\varphi` around :math:`\varphi_0` replaces it; pass i (of
    ``GRID_ITER + 1``) spans an arc of :math:`\pi / 2^i`. Returns (a, its scale,
    the index of the starting axis).
    """
    q, n = Y.shape[1], Y.shape[0]
    columns = np.array(Y.T)  # one contiguous row per coordinate axis
    scales = scale(columns.copy())
    if q == 1:
        return np.ones(1), float(scales[0]), 0
    order = np.argsort(-scales, kind="stable")
    a = np.zeros(q)
    a[order[0]] = 1.0
    projection, value = columns[order[0]].copy(), float(scales[order[0]])
    plane = np.empty((2, n))  # the projections on b and on e_j
    for i in range(GRID_ITER + 1):
        # the first pass spans a half circle: its last angle would repeat its first
        count = GRID_ANGLES - 1 if i == 0 else GRID_ANGLES
        offsets = (np.arange(count) / (GRID_ANGLES - 1) - 0.5) * (math.pi / 2**i)
        turns = np.empty((count, 2))  # (cos, sin) of the angles tried
        for j in order:
            loading = a[j]
            if abs(loading) == 1.0:
                continue
            rest = math.sqrt(1.0 - loading**2)
            np.multiply(columns[j], loading, out=plane[0])
            np.subtract(projection, plane[0], out=plane[0])
            plane[0] /= rest
            plane[1] = columns[j]
            angles = offsets + math.asin(loading)
            np.cos(angles, out=turns[:, 0])
            np.sin(angles, out=turns[:, 1])
            values = scale(turns @ plane)
            best = int(np.argmax(values))
            cosine, sine = float(turns[best, 0]), float(turns[best, 1])
            a *= cosine / rest
            a[j] = sine
            projection = cosine * plane[0] + sine * plane[1]
            value = float(values[best])
        a /= np.linalg.norm(a)
    return a, value, int(order[0])


def _householder_complement(a: np.ndarray, index: int) -> np.ndarray:
    r"""An orthonormal basis (q x (q - 1), as columns) of the complement of the unit
    vector a: the columns other than `index` of the Householder reflection that maps
    :math:`e_{\mathrm{index}}` to a (pcaPP's choice; the basis stays close to the
    coordinate axes)."""
    w = -a.copy()
    w[index] += 1.0
    H = np.eye(a.size)
    size = float(w @ w)
    if size > _EPS:
        H -= 2.0 * np.outer(w, w) / size
    return np.delete(H, index, axis=1)


def grid(Y: np.ndarray, k: int, robust_scale: str, report: Progress = SILENT) -> RobustFit:
    r"""Projection pursuit over a grid (pcaPP's ``PCAgrid``): the center is the spatial
    median; each axis maximizes the robust scale (MAD or :math:`Q_n`) of the
    projections in the orthogonal complement of the axes found (:func:`_grid_axis`);
    :math:`\hat\lambda_j` is that scale squared, and the axes are sorted by it. With
    more columns than rows the search runs in the span of the centered rows (its
    directions outside have scale 0), as pcaPP does. Each axis found is one step of
    `report`."""
    center = spatial_median_in_units(Y)
    D = Y - center
    back = None
    if D.shape[1] > D.shape[0]:
        U, s, Vt = np.linalg.svd(D, full_matrices=False)
        r = _rank(s, D.shape)
        if r <= k:
            raise ValueError(f"X spans {r} dimensions about its center: n_components={k} must be below it")
        D, back = U[:, :r] * s[:r], Vt[:r]
    scale = _scale_function(robust_scale)
    basis = np.eye(D.shape[1])  # orthonormal basis of the complement of the axes found
    axes, variances = [], []
    for _ in range(k):
        a, value, start = _grid_axis(D @ basis, scale)
        axes.append(basis @ a)
        variances.append(value**2)
        basis = basis @ _householder_complement(a, start)
        report.update(scale=value)
    found = np.array(axes) if back is None else np.array(axes) @ back
    order = np.argsort(-np.array(variances), kind="stable")
    return RobustFit(center, found[order], np.array(variances)[order])


# -- spherical PCA ---------------------------------------------------------------------------


def spherical(Y: np.ndarray, k: int) -> RobustFit:
    r"""Spherical PCA: the eigenvectors of the covariance of the spatial signs
    :math:`(y_i - \hat\mu) / \|y_i - \hat\mu\|` (rows at the center left out),
    :math:`\hat\mu` the spatial median; :math:`\hat\lambda_j` the squared MAD of the
    projections on each, the axes sorted by it."""
    center = spatial_median_in_units(Y)
    D = Y - center
    norms = np.linalg.norm(D, axis=1)
    keep = norms > _EPS * (float(norms.max()) or 1.0)
    U = D[keep] / norms[keep, None]
    _, _, Vt = np.linalg.svd(U - U.mean(axis=0), full_matrices=False)
    variances = mad(D @ Vt.T) ** 2
    order = np.argsort(-variances, kind="stable")[:k]
    return RobustFit(center, Vt[order], variances[order])

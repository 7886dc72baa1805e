r"""Robust PCA (chapter *Outliers and robust PCA*).

Classical PCA diagonalizes the sample covariance, which one far point can move
anywhere (breakdown point 0). The three methods of :class:`RobustPCA` estimate a
center :math:`\hat\mu`, k orthonormal axes (the rows of ``components_``) and their
robust variances :math:`\hat\lambda_1 \ge \dots \ge \hat\lambda_k` that a minority of
outliers cannot carry away:

* ``"robpca"`` (Hubert, Rousseeuw and Vanden Branden 2005): the h rows of least
  Stahel-Donoho outlyingness over rrcov's deterministic directions, their
  k-dimensional PCA subspace, the rows with small orthogonal distance to it, and the
  reweighted MCD of the scores in that subspace;
* ``"grid"`` (Croux, Filzmoser and Oliveira 2007): projection pursuit; each axis
  maximizes a robust scale (MAD or Qn) of the projections, searched as pcaPP's
  ``PCAgrid`` searches, from the coordinate axis of largest scale, over a grid of
  angles in the plane of the current axis and each coordinate axis of the
  complement of the axes found; in the span of the centered rows when p > n;
  :math:`\hat\lambda_j` is that scale squared;
* ``"spherical"`` (Locantore et al. 1999): the eigenvectors of the covariance of the
  spatial signs :math:`(x_i - \hat\mu) / \|x_i - \hat\mu\|`, :math:`\hat\mu` the
  spatial median; :math:`\hat\lambda_j` the squared MAD of the projections
  :math:`v_j^\top (x_i - \hat\mu)`, the axes sorted by it.

Every method reports the two distances of the outlier map, for row i with scores
:math:`t_{ij} = \hat v_j^\top (x_i - \hat\mu)` on the axes :math:`\hat v_j`:

.. math::

    \mathrm{SD}_i = \sqrt{\textstyle\sum_{j=1}^k t_{ij}^2 / \hat\lambda_j}, \qquad
    \mathrm{OD}_i = \big\| x_i - \hat\mu - \textstyle\sum_{j=1}^k t_{ij} \hat v_j \big\|,

with the cutoffs :math:`\sqrt{\chi^2_{k, 0.975}}` for SD and
:math:`(\hat m + \hat s\, z_{0.975})^{3/2}` for OD, where :math:`\hat m, \hat s` are a
robust location and scale of :math:`\mathrm{OD}_i^{2/3}` (the Wilson-Hilferty
approximation makes :math:`\mathrm{OD}^{2/3}` roughly normal).

The fits run in the units of :func:`pcalib._linalg.units.median_shifted`: the data read in
their exact frame (integers offset in integer arithmetic), shifted by a median row
and scaled by a power of two, so that the results do not depend on the scale or the
offset of the data (to round-off) and no square overflows or underflows.

The building blocks are public here: :func:`mad`, :func:`qn`,
:func:`univariate_mcd` (from :mod:`pcalib._robust.scales`), :func:`mcd`,
:func:`spatial_median`, :func:`h_subset_size`, :func:`mcd_consistency` (from
:mod:`pcalib._robust.mcd`) and :func:`outlyingness` (from :mod:`pcalib._robust.fits`). Principal
component pursuit, which splits a matrix into low-rank and sparse parts, is
:func:`principal_component_pursuit` (from :mod:`pcalib._robust.pursuit`).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.special
from numpy.typing import ArrayLike

from ._estimator.base import EstimatorBase
from ._linalg.signs import axis_signs
from ._linalg.units import median_shifted, rescale
from ._robust.fits import EXACT_FIT, GRID_ANGLES, GRID_ITER, N_DIRECTIONS, RobustFit, grid, outlyingness, robpca
from ._robust.fits import spherical as spherical_fit
from ._robust.mcd import MCD, h_subset_size, mcd, mcd_consistency, spatial_median
from ._robust.pursuit import PursuitResult, principal_component_pursuit
from ._robust.scales import MAD_CONSTANT, OD_RULES, QN_CONSTANT, mad, od_cutoff, qn, univariate_mcd
from ._utils.progress import progress
from ._utils.validation import as_data_matrix, check_random_state

__all__ = [
    "GRID_ANGLES",
    "GRID_ITER",
    "MAD_CONSTANT",
    "MCD",
    "N_DIRECTIONS",
    "PursuitResult",
    "QN_CONSTANT",
    "RobustPCA",
    "h_subset_size",
    "mad",
    "mcd",
    "mcd_consistency",
    "od_cutoff",
    "outlyingness",
    "principal_component_pursuit",
    "qn",
    "spatial_median",
    "univariate_mcd",
]

METHODS = ("robpca", "grid", "spherical")
SCALES = ("mad", "qn")


class RobustPCA(EstimatorBase):
    r"""Robust PCA: ROBPCA, projection pursuit over a grid, or spherical PCA.

    See the module docstring for the three methods and the distances. After a fit,
    the outlier map's cutoffs flag the rows with
    :math:`\mathrm{SD}_i > \sqrt{\chi^2_{k,0.975}}` or
    :math:`\mathrm{OD}_i > (\hat m + \hat s z_{0.975})^{3/2}`.

    Signs: each axis has its entry of largest absolute value positive. Results do not
    depend on the scale or offset of X beyond round-off: a fit of :math:`c X + b`
    has the same axes and flags, center :math:`c\hat\mu + b` and variances
    :math:`c^2\hat\lambda_j`; 64-bit integers are read exactly.

    Parameters
    ----------
    n_components : int
        k, with 1 <= k < p (with k = p there is no orthogonal distance) and k <= n - 2.
    method : {"robpca", "grid", "spherical"}, default "robpca"
    alpha : float in [0.5, 1], default 0.75
        Sets the subset size :math:`h` (:func:`pcalib.robust.h_subset_size`), the rows
        ROBPCA and the MCD trust, and the subset of the univariate MCD of the OD
        cutoff (every method). 0.5: the largest breakdown point; 1: no robustness.
    robust_scale : {"mad", "qn"}, default "mad"
        The scale the grid method maximizes (pcaPP's ``method``).
    od_rule : {"umcd", "medmad"}, default "umcd"
        The location and scale of :math:`\mathrm{OD}^{2/3}` in the OD cutoff
        (:func:`pcalib.robust.od_cutoff`): the univariate MCD with subset size h, made
        consistent at the normal (Hubert et al.'s rule), or the median and MAD
        (rrcov's ``PcaHubert``). On clean normal rows whose p - k residual
        variances are equal (:math:`\mathrm{OD}^2` a scaled :math:`\chi^2_{p-k}`), both
        flag about 2.5% when p - k >= 3; with p - k = 2 the MCD rule flags 2.7%
        (median/MAD 2.6%), with p - k = 1, where :math:`\mathrm{OD}^{2/3}` is skewed,
        4.0% (3.0%). With unequal residual variances :math:`\lambda_j` (j > k) what
        counts is the effective number of residual dimensions
        :math:`(\sum_{j>k} \lambda_j)^2 / \sum_{j>k} \lambda_j^2`: variances 1 and
        0.25 (1.47 dimensions) give 4.4% (4.1%). Under
        contamination the MCD rule's cutoff stays near its clean value (its
        consistency factor is the fixed :math:`c_1(0.975)`), the median/MAD rule's
        grows: with 10% of the values far out, 2.07 against 2.39 standard deviations
        of the clean values (ideal 1.96).
    random_state : None, int or numpy.random.Generator
        Draws the random starting subsets of FAST-MCD in ROBPCA's final step, which
        also starts from the h rows nearest the reweighted subspace's center; on the
        data of the tests and the book every seed gave the same fit. ROBPCA's
        directions are rrcov's deterministic ones; the other methods draw nothing.
    verbose : bool, default False
        Report the fit's progress on stderr (a tqdm bar where tqdm is installed, a
        line per step otherwise): ROBPCA's three stages, or each axis of the grid.

    Attributes
    ----------
    center_, mean_ : ndarray of shape (p,)
        The robust center :math:`\hat\mu` (``mean_`` is scikit-learn's name for it;
        it is not the mean of X).
    components_ : ndarray of shape (k, p)
        Orthonormal axes, one per row.
    explained_variance_ : ndarray of shape (k,)
        The robust eigenvalues :math:`\hat\lambda_j`.
    explained_variance_ratio_ : ndarray of shape (k,)
        :math:`\hat\lambda_j / (\sum_{l \le k} \hat\lambda_l + \overline{\mathrm{OD}^2})`,
        :math:`\overline{\mathrm{OD}^2}` the mean squared orthogonal distance of the
        rows within the OD cutoff: a robust total variance, the variance along the k
        axes plus the residual variance off them, estimated on the rows that are not
        orthogonal outliers. On clean normal data it estimates
        :math:`\lambda_j / \operatorname{tr}\Sigma`, a little high (the rows beyond the
        cutoff, about 2.5% of them, are left out of the residual). It depends on k.
        (rrcov's ``summary`` divides the h-subset's classical eigenvalues by their sum
        instead.)
    score_distances_, orthogonal_distances_ : ndarrays of shape (n,)
        SD and OD of the training rows.
    cutoff_sd_, cutoff_od_ : float
        :math:`\sqrt{\chi^2_{k,0.975}}` and :math:`(\hat m + \hat s z_{0.975})^{3/2}`
        (at least ``EXACT_FIT`` times the largest distance to the center, so that
        rows on the subspace up to round-off are not flagged).
    outliers_ : ndarray of bool, shape (n,)
        True for a row beyond either cutoff.
    h_ : int
        The subset size.
    n_components_, n_samples_, n_features_in_ : int
    feature_names_in_ : ndarray of str objects
        When fitted on a DataFrame with string column names.

    Warns
    -----
    RuntimeWarning
        ROBPCA found an exact fit: at least h rows on a k-dimensional affine subspace
        (up to round-off). That subspace is returned and the rows off it are flagged.
        The check is made on the h rows of least outlyingness (step 2), so it can miss
        an exact fit: if rows close to but off the subspace are among those h rows, no
        warning is given even though h or more rows lie exactly on it (the fit itself
        may still recover the subspace and flag the rows off it: count the rows whose
        ``orthogonal_distances_`` are zero up to round-off).

    Examples
    --------
    >>> import numpy as np, pcalib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 3)) * [3.0, 1.0, 0.3]
    >>> X[:5] = [0.0, 0.0, 30.0]  # five far points off the plane
    >>> model = pcalib.RobustPCA(2, random_state=0).fit(X)
    >>> bool(model.outliers_[:5].all()), bool(abs(model.components_[0, 0]) > 0.99)
    (True, True)
    """

    _FITTED_BY = "components_"  # set last by fit

    def __init__(
        self,
        n_components: int,
        *,
        method: str = "robpca",
        alpha: float = 0.75,
        robust_scale: str = "mad",
        od_rule: str = "umcd",
        random_state: int | np.random.Generator | None = None,
        verbose: bool = False,
    ) -> None:
        self.n_components = n_components
        self.method = method
        self.alpha = alpha
        self.robust_scale = robust_scale
        self.od_rule = od_rule
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self, n: int, p: int) -> tuple[int, int]:
        for name, value, allowed in (
            ("method", self.method, METHODS), ("robust_scale", self.robust_scale, SCALES),
            ("od_rule", self.od_rule, OD_RULES),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        alpha = self.alpha
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0.5 <= alpha <= 1:
            raise ValueError(f"alpha must be a number in [0.5, 1], got {alpha!r}")
        check_random_state(self.random_state, draw=False)
        k = self.n_components
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError(f"n_components must be an integer, got {k!r}")
        k = int(k)
        if not 1 <= k < p:
            raise ValueError(
                f"n_components must satisfy 1 <= n_components < n_features = {p} (robust PCA "
                f"measures the orthogonal distance to a k-dimensional subspace), got {k}"
            )
        h = h_subset_size(n, k, float(alpha))
        if k > n - 2 or h < k + 1:
            raise ValueError(
                f"X has {n} rows, too few for n_components={k} with alpha={alpha}: the h-subset "
                f"(h = {h} rows) must hold at least n_components + 1 = {k + 1} rows and n at "
                f"least n_components + 2 = {k + 2}"
            )
        return k, h

    # -- fit --------------------------------------------------------------------------------

    def fit(self, X: ArrayLike, y: object = None) -> RobustPCA:
        """Fit on `X` (n x p); `X` is not modified. `y` is ignored. Returns self."""
        X = self._remember_input(X)
        arr = as_data_matrix(X, "X", copy=False, keep_integers=True)
        n, p = arr.shape
        k, h = self._check_params(n, p)
        units = median_shifted(arr)
        Y = units.values
        steps = {"robpca": 3, "spherical": 1, "grid": k}[self.method]
        with progress(self.verbose, steps, f"RobustPCA({self.method!r})") as report:
            if self.method == "robpca":
                fit = robpca(Y, k, h, check_random_state(self.random_state), report)
            elif self.method == "spherical":
                fit = spherical_fit(Y, k)
                report.update(stage="spatial signs")
            else:
                fit = grid(Y, k, self.robust_scale, report)
            report.done(f"{k} robust axes")
        axes = fit.axes * axis_signs(fit.axes)[:, None]
        positive = fit.variances > EXACT_FIT**2 * float(fit.variances.max())  # else 0 to round-off
        if not positive.all():
            raise ValueError(
                f"the robust variance along axis {int(np.argmin(positive)) + 1} is 0 (more "
                "than half of the rows project onto one value): score distances are undefined; "
                "choose fewer components"
            )
        fit = RobustFit(fit.center, axes, fit.variances)
        self._center = units.data_location(fit.center)  # exact pair, for new rows
        self._exponent = units.exponent
        self._variances = fit.variances  # in units of 2**(2 exponent): distances stay finite
        self.h_, self.n_components_, self.n_samples_ = h, k, n
        self.center_ = self._center.value
        self.mean_ = self.center_
        self.explained_variance_ = rescale(fit.variances, 2 * units.exponent, "explained variances")
        self._training_distances(Y - fit.center, fit, h)
        self.components_ = axes
        return self

    def _training_distances(self, R: np.ndarray, fit: RobustFit, h: int) -> None:
        """The training rows' distances, the cutoffs, the flags and the variance ratio,
        from the centered rows `R` in the units of the fit."""
        sd, od = _distances(R, fit.axes, fit.variances)
        floor = EXACT_FIT * float(np.linalg.norm(R, axis=1).max())
        cutoff = max(od_cutoff(od, h, self.od_rule), floor)
        within = od <= cutoff
        residual = float(np.mean(od[within] ** 2))
        e = self._exponent
        self.score_distances_ = sd
        self.orthogonal_distances_ = rescale(od, e, "orthogonal distances")
        self.cutoff_sd_ = float(np.sqrt(scipy.special.chdtri(fit.axes.shape[0], 0.025)))
        self.cutoff_od_ = float(rescale(np.asarray(cutoff), e, "the orthogonal cutoff"))
        self.outliers_ = (sd > self.cutoff_sd_) | ~within
        self.explained_variance_ratio_ = fit.variances / (fit.variances.sum() + residual)

    # -- new data -----------------------------------------------------------------------------

    def _centered(self, X: ArrayLike) -> np.ndarray:
        """Rows of `X` minus the robust center, centered exactly (integers too)."""
        self._require_fitted()
        arr = as_data_matrix(self._check_input(X), "X", copy=False, keep_integers=True)
        return self._center.subtract(arr)

    def transform(self, X: ArrayLike) -> Any:
        r"""Robust scores :math:`t = V_k^\top (x - \hat\mu)` of the rows of `X`."""
        return self._wrap_output(self._centered(X) @ self.components_.T, X)

    def distances(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        r"""Score and orthogonal distances (SD, OD) of the rows of `X` to the fitted
        center and subspace (the module docstring's formulas), for the outlier map."""
        R = np.ldexp(self._centered(X), -self._exponent)
        sd, od = _distances(R, self.components_, self._variances)
        return sd, rescale(od, self._exponent, "orthogonal distances")

    def inverse_transform(self, T: ArrayLike) -> np.ndarray:
        r"""The points :math:`\hat\mu + V_k t` of the robust subspace with scores `T`."""
        self._require_fitted()
        scores = as_data_matrix(T, "T").astype(np.float64, copy=False)
        if scores.shape[1] != self.components_.shape[0]:
            raise ValueError(
                f"T has {scores.shape[1]} columns, expected n_components = {self.components_.shape[0]}"
            )
        return self.center_ + scores @ self.components_


def _distances(R: np.ndarray, axes: np.ndarray, variances: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SD and OD of centered rows `R`, in the units of `R` (`variances` in their square)."""
    T = R @ axes.T
    sd = np.sqrt(np.sum((T / np.sqrt(variances)) ** 2, axis=1))
    return sd, np.linalg.norm(R - T @ axes, axis=1)

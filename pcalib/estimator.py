r"""The PCA estimator: fit once, transform many (scikit-learn conventions, no scikit-learn).

:class:`PCA` follows scikit-learn's estimator contract closely enough that
``sklearn.base.clone``, ``Pipeline`` and ``GridSearchCV`` accept it: ``__init__``
only stores its arguments, ``get_params``/``set_params`` read ``__init__``'s
signature, validation happens in ``fit``, fitted attributes end with ``_``.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from ._estimator.base import EstimatorBase
from ._estimator.streaming import StreamingFit
from ._inputs.errors import naming_non_finite
from ._inputs.matrix import as_matrix
from ._linalg.center import Center
from ._linalg.units import rescale
from ._ppca.em_missing import as_given, has_missing
from ._ppca.missing_fits import complete_for_pca, fill_for_pca
from ._ppca.scoring import PPCAScoring, above_round_off
from ._routes.decomposition import Decomposition
from ._utils.validation import (
    NotFittedError,
    check_ddof,
    check_flag,
    check_random_state,
    warn_outside_pcalib,
)
from .solvers import components_to_compute, cut_to_request, fit_by_route

__all__ = ["PCA", "NotFittedError"]


class _Fitted(Protocol):
    """What :class:`MissingValueHooks` needs of the PCA it is mixed into."""

    explained_variance_: np.ndarray
    noise_variance_: float
    n_samples_: int

    def _require_fitted(self) -> None: ...
    def _check_input(self, X: ArrayLike) -> Any: ...
    def _fitted_f64(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def _filled(self, X: ArrayLike) -> Any: ...


class MissingValueHooks:
    """The missing-value hooks of :class:`PCA`: filling new data from the fitted model
    (``fit`` completes its data by :func:`pcalib._ppca.missing_fits.complete_for_pca`)."""

    missing: str | None

    @property
    def _reads_dask(self) -> bool:
        """PCA's Dask routes read a Dask DataFrame; its missing-value fits read X in memory."""
        return self.missing is None

    def _filled(self: _Fitted, X: ArrayLike) -> Any:
        """`X` (checked against the fit) with its NaN filled by :func:`pcalib._ppca.missing_fits.fill_for_pca`;
        `X` itself if it has none."""
        if not has_missing(X):
            return X
        mean, scale, components = self._fitted_f64()
        return fill_for_pca(X, mean=mean, scale=scale, components=components,
                            explained_variance=self.explained_variance_, noise_variance=self.noise_variance_,
                            n_samples=self.n_samples_)

    def fill(self: _Fitted, X: ArrayLike) -> Any:
        r"""`X` with each NaN replaced by its conditional mean given the row's observed
        entries, under the PPCA model of the fit (in the standardized space if
        ``standardize``): :math:`W = V_k \operatorname{diag}(\lambda_j - \sigma^2)^{1/2}`,
        :math:`\sigma^2` the mean of the p - k discarded eigenvalues (``noise_variance_``
        rescaled by (m - k)/(p - k), m = min(n, p): it averages over m - k), as the
        regularized iteration fills the training data (:func:`pcalib.missing.fill_missing`). This is
        what :meth:`transform` projects when ``missing`` is set. Observed entries are
        kept; `X` (dense, n x p) is not modified. Returns the type it was given: a
        DataFrame with the same index and columns for a DataFrame (its column names
        checked against ``feature_names_in_`` first), else a float array (float32 for
        float32 input).
        """
        self._require_fitted()
        arr = self._check_input(X)
        return as_given(self._filled(arr) if has_missing(arr) else np.array(arr, dtype=np.float64), X)


class PCA(StreamingFit, PPCAScoring, MissingValueHooks, EstimatorBase):
    r"""Principal component analysis.

    Centers (and optionally standardizes) `X`, then finds the k leading
    principal axes :math:`v_1, \dots, v_k` (rows of ``components_``) with
    eigenvalues :math:`\lambda_j` (``explained_variance_``), so that the scores
    are :math:`X_c V_k` and :math:`\lambda_j` is the variance of score j
    (divisor ``n - ddof``).

    Parameters
    ----------
    n_components : int, float, "mle" or None, default None
        int in ``[1, min(n, p)]``: number of components; float in (0, 1):
        keep the smallest number of components whose explained-variance ratio
        reaches this fraction (:func:`pcalib.choose_k`); "mle": Minka's rule,
        the k of largest Laplace-approximated evidence
        (:func:`pcalib.minka_log_evidence`, ``choose_k(method="minka")``), the
        same k as scikit-learn's ``PCA(n_components="mle")``; it needs
        n >= p >= 2; None: all ``min(n, p)``.
    solver : {"auto", "eig", "svd", "gram", "krylov", "randomized"}, default "auto"
        "eig": eigendecomposition of :math:`X_c^\top X_c` (p x p); "gram": of
        :math:`X_c X_c^\top` (n x n); "svd": SVD of :math:`X_c`; "krylov": block Krylov
        and Lanczos on the smaller of the two, never formed, stopped by a residual test
        (an integer `n_components` only); "randomized": :func:`pcalib.randomized_svd`
        (approximate). "auto" picks an exact route from the shape and k, and falls back
        to "svd" when :math:`\lambda_k / \lambda_1 < \sqrt{\varepsilon}`; ``solver_``
        records the route that ran. Sparse (never densified) and Dask input (chunked by
        rows, out of core) have routes of their own. The rules, their measured constants
        and each route's accuracy: :mod:`pcalib.solvers`.
    standardize : bool, default False
        Divide each centered column by its standard deviation (PCA of the
        correlation matrix). A constant column raises ``ValueError``.
    whiten : bool, default False
        ``transform`` divides score j by :math:`\sqrt{\lambda_j}` (unit variance).
    ddof : int, default 1
        Variance divisor ``n - ddof``.
    random_state : None, int or numpy.random.Generator
        Seed of the randomized solver.
    missing : {None, "regularized"}, default None
        None: NaN in `X` is an error. "regularized": NaN marks a missing
        entry; ``fit`` analyses `X` completed by regularized iterative PCA with
        ``n_components`` components (an int; :func:`pcalib.impute_pca`,
        standardized at each iteration if ``standardize``), and ``transform``
        of a row with NaN uses only its observed entries (each hole is replaced
        by its conditional mean under the fitted model, :meth:`fill`, which fills new
        data too). The filled entries carry no noise, so
        ``noise_variance_`` understates the noise (about 0.61 of it at 30% missing,
        0.39 at 50%, in chapter 13's check): fit :class:`pcalib.PPCA` to the data
        with holes when the noise level matters.
    missing_max_iter : int, default 1000
        With ``missing``: the most evaluations of the regularized iteration's map
        (accelerated by SQUAREM, ``pcalib._ppca.missing_fits.iterative_pca``; a
        ``UserWarning`` says when they are not enough). Ignored otherwise.
    missing_tol : float, default 1e-8
        With ``missing``: the iteration stops when the larger of the change of the
        filled entries and the change still to come if it shrinks geometrically is at
        most ``tol`` times the norm of the centered completed matrix. Ignored otherwise.
    tol : float in (0, 1) or None, default None
        None: exact. A float: the Krylov routes (for an integer ``n_components`` < min(n, p)
        and n, p within a factor 4; other shapes take the exact route) stop at residuals
        :math:`\|M\mathbf v_j - \theta_j\mathbf v_j\| \le \text{tol}\cdot\theta_1`, and
        the fit reports the bounds it certifies (chapter *PCA at scale*):
        ``explained_variance_bound_``, ``components_bound_``.

    Attributes
    ----------
    components_ : ndarray (k, p)
        Principal axes, orthonormal rows, pcalib's sign convention.
    explained_variance_ : ndarray (k,)
        :math:`\lambda_j = \sigma_j^2 / (n - \mathrm{ddof})`.
    explained_variance_ratio_ : ndarray (k,)
        :math:`\lambda_j / \operatorname{tr} S`, the total computed directly.
    singular_values_ : ndarray (k,)
        Singular values of the centered (scaled) data.
    mean_, scale_ : ndarray (p,)
        Column means and standard deviations (ones unless standardizing).
    n_components_ : int
    noise_variance_ : float
        :math:`\sigma^2 = \big(\operatorname{tr} S - \sum_{j \le k} \lambda_j\big) / (m - k)`,
        0 when k = m (the PPCA noise, defined the same way for every solver;
        scikit-learn's definition). Round-off below 0 is clipped to 0.
    n_samples_, n_features_in_ : int
    feature_names_in_ : ndarray of str objects, shape (n_features,)
        Column names, when fitted on a DataFrame whose column names are all
        strings (absent otherwise); ``transform`` then checks them.
    solver_ : str
        The route that computed the fit: `solver`, or for ``"auto"`` the route
        its rules chose, ``"svd"`` when the accuracy guard recomputed.
    explained_variance_bound_, components_bound_ : ndarray (k,) or None
        With ``tol``: certified bounds on each eigenvalue's error and each axis's sine to
        its eigenvector (1: none), float32 rounding included. None without ``tol``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 3)) @ np.diag([3.0, 1.0, 0.1])
    >>> pca = PCA(2).fit(X)
    >>> pca.components_.shape, pca.transform(X).shape
    ((2, 3), (100, 2))

    Sparse input gives the dense fit, without a dense copy:

    >>> import scipy.sparse
    >>> S = scipy.sparse.random(200, 6, density=0.3, format="csr", random_state=0)
    >>> bool(np.allclose(PCA(2).fit(S).components_, PCA(2).fit(S.toarray()).components_))
    True
    """

    def __init__(
        self,
        n_components: int | float | None = None,
        *,
        solver: str = "auto",
        standardize: bool = False,
        whiten: bool = False,
        ddof: int = 1,
        random_state: int | np.random.Generator | None = None,
        missing: str | None = None,
        missing_max_iter: int = 1000,
        missing_tol: float = 1e-8,
        tol: float | None = None,
    ) -> None:
        self.n_components = n_components
        self.solver = solver
        self.standardize = standardize
        self.whiten = whiten
        self.ddof = ddof
        self.random_state = random_state
        self.missing = missing
        self.missing_max_iter = missing_max_iter
        self.missing_tol = missing_tol
        self.tol = tol

    _FITTED_BY = "components_"  # read after partial_fit: solves, or says why it cannot
    _preserves_dtype = ("float64", "float32")
    _accepts_sparse = True  # scipy.sparse input, never densified (pcalib._inputs.matrix)

    @property  # per instance: NaN are missing values only with `missing`
    def _accepts_nan(self) -> bool:  # type: ignore[override]
        return self.missing is not None
    @property
    def _n_features_out(self) -> int:
        return self.n_components_

    @property
    def loadings_(self) -> np.ndarray:
        r"""Loadings: the axes scaled by the square roots of their eigenvalues, shape (p, k).

        .. math::

            L = V_k \Lambda_k^{1/2}, \qquad \ell_{ij} = v_{ij} \sqrt{\lambda_j}
            = \operatorname{cov}(x_i, t_j) / \operatorname{sd}(t_j),

        column j for component j (R's ``loadings`` convention; the book's
        definition). The entry is the covariance between feature i and score
        :math:`t_j` divided by the standard deviation of the score, so with
        ``standardize=True`` it is their correlation, and :math:`L L^\top`
        is the covariance (correlation) matrix when k = p (read as
        :math:`\sigma_j / \sqrt{n - \text{ddof}}`: finite where :math:`\lambda_j` is not)."""
        self._require_fitted()
        root = self.singular_values_ / np.sqrt(float(self.n_samples_ - self.ddof))
        return self.components_.T * root.astype(self.components_.dtype, copy=False)

    # -- fitting ------------------------------------------------------------------

    def _fit(self, X: ArrayLike, need_scores: bool) -> np.ndarray | None:
        if self.missing is not None:
            X = complete_for_pca(X, method=self.missing, k=self.n_components, standardize=bool(self.standardize),
                                 max_iter=self.missing_max_iter, tol=self.missing_tol)
        data = as_matrix(X, defer_finite=True)  # the eig route's pass finds NaN and inf itself
        n, p = data.shape
        ddof = check_ddof(self.ddof, n)
        found, solver = _fit_by_route(self, data, ddof, need_scores)
        for name in ("_moments", "_unsolved"):
            self.__dict__.pop(name, None)
        if found.moments is not None and self.missing is None:  # a later partial_fit continues
            self._moments, self._stream_dtype = found.moments, data.dtype
        self._store(found, n, p, ddof, data.dtype, solver)
        if found.scores is None:
            return None
        scores = found.data_scores()
        if self.whiten:
            scores = found.scores / (found.s / np.sqrt(n - ddof))  # scale-free: no overflow
        return scores.astype(data.dtype, copy=False)

    def _store(self, found: Decomposition, n: int, p: int, ddof: int, dtype: np.dtype, solver: str) -> None:
        """Set the fitted attributes from a decomposition of n samples of p features."""
        for name, value in _fitted_attributes(found, n, p, ddof, dtype, bool(self.whiten)).items():
            setattr(self, name, value)
        self._center = found.center  # mean_ as the exact pair that transform subtracts
        self.n_samples_, self.n_features_in_ = n, p
        self.solver_ = solver

    def fit(self, X: ArrayLike, y: object = None) -> PCA:
        """Fit the model on `X` (n x p, not modified). `y` is ignored. Returns self.

        `X` may be a NumPy array (or anything ``numpy.asarray`` accepts), a
        ``scipy.sparse`` matrix or array (CSR or CSC; never densified) or a
        ``dask.array.Array`` chunked by rows (a Dask array chunked by columns is
        rechunked to whole rows first, ``X.rechunk({1: -1})``); a Dask DataFrame as
        ``X.to_dask_array(lengths=True)``, named by its columns. Fitted attributes are
        NumPy arrays whatever the input. A pandas DataFrame must hold numbers only
        (integer, float, their nullable dtypes, or objects that are numbers): a column
        of dates, durations, strings (even "1.5"), categories or booleans raises
        ``TypeError`` naming it, whether it is alone or among float columns. Booleans
        are refused as a NumPy bool array is; ``X.astype({"flag": float})`` analyses
        such a column as 0/1.

        Examples
        --------
        >>> import dask.array as da
        >>> data = np.random.default_rng(0).standard_normal((1000, 5))
        >>> X = da.from_array(data, chunks=(250, 5))
        >>> pca = PCA(2).fit(X)  # one pass over the chunks, with the active Dask scheduler
        >>> type(pca.components_).__name__, type(pca.transform(X)).__name__
        ('ndarray', 'Array')
        """
        _fit_naming_columns(self, X, need_scores=False)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> np.ndarray:
        """Fit on `X` and return its scores (n, k), whitened if ``whiten``
        (a lazy Dask array for a Dask `X`, as :meth:`transform`)."""
        scores = _fit_naming_columns(self, X, need_scores=True)
        return self.transform(X) if scores is None else self._wrap_output(scores, X)

    # -- using a fitted model -----------------------------------------------------

    def _checked_input(self, X: ArrayLike, name: str = "X", columns: int | None = None, *, fill: bool = False) -> Any:
        """`X` of any kind (:func:`pcalib._inputs.matrix.as_matrix`) with the fitted number of
        features; with `fill`, its NaN then filled (:meth:`fill`): the names are checked
        on `X` as given, before the holes are filled."""
        self._require_fitted()
        if columns is None:
            X = self._check_input(X)  # column names and count, as scikit-learn checks them
            if fill:
                X = self._filled(X)
        with naming_non_finite(self.__dict__.get("feature_names_in_"), name):
            data = as_matrix(X, name)
        expected = self.n_features_in_ if columns is None else columns
        if data.shape[1] != expected:
            if columns is not None:
                raise ValueError(f"{name} has {data.shape[1]} columns, but PCA has n_components_ = {columns}")
            raise ValueError(
                f"{name} has {data.shape[1]} features, but PCA is expecting {self.n_features_in_} "
                "features as input"
            )
        return data

    def _fitted_f64(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """mean_, scale_ and components_ as float64."""
        return (self.mean_.astype(np.float64), self.scale_.astype(np.float64),
                self.components_.astype(np.float64))

    def _fitted_center(self) -> Center:
        r"""The mean that :meth:`transform` subtracts: the fit's exact pair
        (:class:`pcalib._linalg.center.Center`), so that ``transform`` of the fitted data
        gives the scores of ``fit_transform`` at any offset (a float64 ``mean_`` of
        data at :math:`10^{15}` is rounded by up to 0.06, one of int64 data near
        :math:`2^{62}` by up to 512); ``mean_`` itself if it was changed since."""
        center = self.__dict__.get("_center")
        mean = self.mean_
        if center is None or not np.array_equal(center.value.astype(mean.dtype), mean):
            return Center.of(mean)
        return center

    def transform(self, X: ArrayLike) -> np.ndarray:
        r"""Scores of new samples: :math:`((x - \bar{x}) / s)\, V_k`, whitened if ``whiten``.

        Dense NumPy scores for NumPy and ``scipy.sparse`` input (the sparse matrix
        is never densified: :math:`X V_k - \mathbf 1 \bar x^\top V_k`, with s folded
        into :math:`V_k`); a lazy Dask array, chunked like the rows of `X`, for a Dask `X`.
        With ``missing`` set, a row with NaN uses only its observed entries.
        """
        data = self._checked_input(X, fill=self.missing is not None)
        _, scale, components = self._fitted_f64()
        scores = data.project(self._fitted_center(), scale, np.ascontiguousarray(components.T))
        if self.whiten:
            scores = scores / np.sqrt(self.explained_variance_.astype(np.float64))
        return self._wrap_output(scores.astype(data.dtype), X)

    def inverse_transform(self, Z: ArrayLike) -> np.ndarray:
        r"""Map scores back to data space: :math:`\hat{x} = (V_k^\top z) \odot s + \bar{x}`.

        At full rank (k = p) this inverts :meth:`transform`; otherwise it gives
        the projection of the sample onto the principal subspace. A Dask `Z` gives
        a lazy Dask array.
        """
        self._require_fitted()  # before n_components_ is read
        data = self._checked_input(Z, "Z", columns=self.n_components_)
        mean, scale, components = self._fitted_f64()
        root_ev = np.sqrt(self.explained_variance_.astype(np.float64)) if self.whiten else 1.0

        def reconstruct(z: np.ndarray) -> np.ndarray:
            X = (z * root_ev) @ components
            X *= scale
            X += mean
            return X

        return data.map_rows(reconstruct, self.n_features_in_).astype(data.dtype)


def _fit_by_route(model: PCA, data: Any, ddof: int, need_scores: bool) -> tuple[Decomposition, str]:
    """`model`'s parameters checked against `data` (``pcalib._inputs.matrix.as_matrix``) and
    the fit of `data` by the route they choose (:func:`pcalib.solvers.fit_by_route`)."""
    n, p = data.shape
    check_flag(model.standardize, "standardize")
    check_flag(model.whiten, "whiten")
    k, fraction = components_to_compute(model.n_components, model.solver, n, p)
    check_random_state(model.random_state, draw=False)  # whatever the solver
    tol = _checked_tol(model.tol)
    return fit_by_route(
        data, k, model.solver, every_component=fraction or model.n_components is None, ddof=ddof,
        standardize=bool(model.standardize), need_scores=need_scores, random_state=model.random_state,
        truncate=lambda found: cut_to_request(found, model.n_components, n) if fraction else found,
        tol=tol,
    )


def _fit_naming_columns(model: PCA, X: ArrayLike, need_scores: bool) -> np.ndarray | None:
    """``model._fit`` of `X` once its feature names are recorded, so that the error of a
    NaN or infinity names the DataFrame's column (:func:`pcalib._inputs.errors.naming_non_finite`)."""
    arr = model._remember_input(X)
    with naming_non_finite(model.__dict__.get("feature_names_in_")):
        return model._fit(arr, need_scores=need_scores)


def _fitted_attributes(
    found: Decomposition, n: int, p: int, ddof: int, dtype: np.dtype, whiten: bool
) -> dict[str, Any]:
    r"""The fitted attributes of :class:`PCA` that a decomposition of n samples of p
    features gives, as arrays of `dtype`; ``noise_variance_`` is
    :math:`\sigma^2 = \sum_{j > k} \sigma_j^2 / ((n - \mathrm{ddof})(m - k))`, m = min(n, p),
    and exactly 0 when the route does not resolve the discarded tail (below round-off,
    where the solvers would disagree on its value). With `whiten`, ``ValueError`` if a
    kept variance is 0 to round-off or leaves the float64 range."""
    k, s = found.s.size, found.s
    m = min(n, p)
    _warn_if_unresolved(found, n, p)
    resolved = k < m and not found.tail_is_round_off(n, p)
    noise = found.tail_ss / (n - ddof) / (m - k) if resolved else 0.0
    resolved_variances = above_round_off(s**2, n, p)
    if whiten and not np.all(resolved_variances):
        raise ValueError(
            "whiten=True divides by the square root of each explained variance, but "
            f"component {int(np.argmin(resolved_variances)) + 1} has variance 0 "
            "(to round-off): choose fewer n_components"
        )
    ev = found.explained_variance(n - ddof)
    if whiten and not np.all(np.isfinite(ev)):
        raise ValueError(
            "whiten=True divides by the square roots of the explained variances, which "
            "exceed the float64 range at the scale of X: rescale X"
        )
    arrays = {
        "components_": found.components,
        "explained_variance_": ev,
        "explained_variance_ratio_": found.explained_variance_ratio(),
        "singular_values_": found.singular_values(),
        "mean_": found.mean,
        "scale_": found.scale,
    }
    fitted: dict[str, Any] = {name: np.ascontiguousarray(a, dtype=dtype) for name, a in arrays.items()}
    fitted["explained_variance_bound_"] = fitted["components_bound_"] = None
    certificate = found.certificate
    if certificate is not None:  # frame units: |s_j^2 - theta_j| + the bound on |theta_j - lambda_j|
        bound = np.abs(s**2 - certificate.theta) + certificate.eigenvalue_bounds
        ev_bound = rescale(bound / (n - ddof), 2 * found.exponent, "explained_variance_bound_")
        fitted["explained_variance_bound_"], fitted["components_bound_"] = _stored_bounds(
            ev, fitted["explained_variance_"], ev_bound, found.components, fitted["components_"],
            certificate.axis_bounds,
        )
    fitted["n_components_"] = int(k)
    fitted["noise_variance_"] = float(rescale(np.asarray(noise), 2 * found.exponent, "noise_variance_"))
    return fitted


def _stored_bounds(
    ev: np.ndarray, stored_ev: np.ndarray, ev_bound: np.ndarray,
    V: np.ndarray, stored_V: np.ndarray, axis_bounds: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The certificate's bounds (float64 eigenvalues `ev` within `ev_bound`, float64 axes
    `V`, rows, within `axis_bounds`) made to hold for the values stored as fitted
    attributes, `stored_ev` and `stored_V` (float32 for float32 input: a rounding of
    relative size :math:`2^{-24}`, far above the bounds of an exact route). With
    :math:`\tilde v` the stored axis and :math:`\mathbf u` a unit eigenvector,
    :math:`\operatorname{dist}(\tilde v, \operatorname{span}\mathbf u) \le
    \|v\|\sin\angle(v, \mathbf u) + \|\tilde v - v\|`, so

    .. math:: \sin\angle(\tilde v, \mathbf u) \le \big(\|v\|\,b_j + \|\tilde v - v\|\big)
              \max(1, \|\tilde v\|^{-1}),
              \qquad |\tilde\ell_j - \lambda_j| \le b'_j + |\tilde\ell_j - \ell_j|,

    (the first also bounding the distance itself), each rounded up by 16u. The bounds
    themselves stay float64. Unchanged where nothing was rounded (float64 input)."""
    stored_ev64, stored_V64 = stored_ev.astype(np.float64), stored_V.astype(np.float64)
    if np.array_equal(stored_ev64, ev) and np.array_equal(stored_V64, V):
        return ev_bound, axis_bounds.copy()
    up = 1.0 + 8.0 * float(np.finfo(np.float64).eps)  # 16u
    ev_bound = (ev_bound + np.abs(stored_ev64 - ev)) * up
    norms, stored_norms = np.linalg.norm(V, axis=1), np.linalg.norm(stored_V64, axis=1)
    moved = np.linalg.norm(stored_V64 - V, axis=1)
    axes = (norms * axis_bounds + moved) * np.maximum(1.0, 1.0 / stored_norms) * up
    return ev_bound, np.minimum(axes, 1.0)  # 1: no bound, as the certificate says


def _warn_if_unresolved(found: Decomposition, n: int, p: int) -> None:
    r"""Warn when some components of `found` depend on columns its route could not see
    (:meth:`pcalib._routes.decomposition.Decomposition.unresolved`): a column whose spread is
    :math:`10^{-200}` of another's has squares of :math:`10^{-400}` in the one frame of
    units of the fit, so the eigenvalues of the components it carries come out 0 and
    their axes arbitrary."""
    columns, components = found.unresolved(n, p)
    if components.size == 0:
        return
    named = ", ".join(str(int(j)) for j in columns[:10]) + (", ..." if columns.size > 10 else "")
    warn_outside_pcalib(
        f"column(s) [{named}] of X vary, but their variances are at most "
        f"{found.resolution(n, p):.1e} of the total variance: in the one power-of-two frame "
        f"of the fit (route {found.route!r}) they are round-off, so the eigenvalues and axes "
        f"of components {int(components[0]) + 1} to {found.s.size} (explained_variance_ratio_ "
        "at that level) are not determined by this fit (their eigenvalues are reported as 0 "
        "or round-off, their axes are arbitrary): use standardize=True, or rescale the "
        "columns to comparable spreads"
    )


def _checked_tol(tol: object) -> float | None:
    """``PCA(tol=...)``: None, or a float in (0, 1)."""
    if tol is None:
        return None
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating, np.integer)) or not 0 < tol < 1:
        raise ValueError(f"tol must be None (exact) or a number in (0, 1), got {tol!r}")
    return float(tol)

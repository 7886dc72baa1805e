r"""The PCA estimator: fit once, transform many (scikit-learn conventions, no scikit-learn).

:class:`PCA` follows scikit-learn's estimator contract closely enough that
``sklearn.base.clone``, ``Pipeline`` and ``GridSearchCV`` accept it: ``__init__``
only stores its arguments, ``get_params``/``set_params`` read ``__init__``'s
signature, validation happens in ``fit``, fitted attributes end with ``_``.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import missing as _missing
from ._validation import as_data_matrix, check_n_components, output_dtype
from .covariance import _validated
from .lowrank import _check_random_state
from .pca import _decompose_data, choose_k
from .ppca import _gaussian_log_likelihood

__all__ = ["PCA", "NotFittedError"]

_SOLVERS = ("auto", "eig", "svd", "gram", "randomized")
_EPS = np.finfo(np.float64).eps

# Thresholds of the "auto" rule (see PCA's docstring), measured on 2 cores with
# tests/benchmarks.py data, k = 10:
# - full SVD of n x p with n * p * min(n, p) = 1.2e6 (500 x 50): 4 ms; at 2e7
#   (2000 x 100): 50 ms, against 3 ms for the covariance route;
# - n >= 4p: Marchenko-Pastur bound on the conditioning of pure noise (docstring);
# - 20000 x 3000: exact covariance route 2.5 s, randomized 2.5 s; 20000 x 5000:
#   7.5 s against 4.8 s. Exact while it costs at most about 1.6 times the randomized.
_SMALL_WORK = 1e6
_ASPECT = 4
_RANDOMIZED_MIN_DIM = 5000


class NotFittedError(ValueError, AttributeError):
    """Raised when a method that needs a fitted model is called before ``fit``.

    Subclasses both ``ValueError`` and ``AttributeError``, like scikit-learn's.
    """


class PCA:
    r"""Principal component analysis.

    Centers (and optionally standardizes) `X`, then finds the k leading
    principal axes :math:`v_1, \dots, v_k` (rows of ``components_``) with
    eigenvalues :math:`\lambda_j` (``explained_variance_``), so that the scores
    are :math:`X_c V_k` and :math:`\lambda_j` is the variance of score j
    (divisor ``n - ddof``).

    Parameters
    ----------
    n_components : int, float or None, default None
        int in ``[1, min(n, p)]``: number of components; float in (0, 1):
        keep the smallest number of components whose explained-variance ratio
        reaches this fraction (:func:`pcalib.choose_k`); None: all ``min(n, p)``.
    solver : {"auto", "eig", "svd", "gram", "randomized"}, default "auto"
        "eig": eigendecomposition of the p x p covariance (partial, LAPACK
        ``syevr``, for k < p); "gram": of the n x n Gram matrix
        :math:`X_c X_c^\top`; "svd": LAPACK SVD of :math:`X_c`; "randomized":
        :func:`pcalib.randomized_svd` of :math:`X_c` (approximate).
        "auto" picks, with m = min(n, p):

        1. "randomized" if `n_components` is an int, m >= 5000 and
           k <= m / 10: an exact m x m eigensolve costs
           :math:`O(m^2 \max(n,p) + m^3)`, while a few products with a thin
           block cost :math:`O(n p k)` (measured, k = 10: equal times at
           20000 x 3000, 7.5 s exact against 4.8 s at 20000 x 5000). Accuracy
           caveat: the result is approximate (a block Krylov method, see
           :func:`pcalib.randomized_svd`); pass ``solver="eig"`` / ``"gram"``
           for exact axes.
        2. "svd" if :math:`n p m \le 10^6`: small problems, where the most
           accurate route costs at most a few milliseconds.
        3. "eig" if :math:`n \ge 4p`, "gram" if :math:`p \ge 4n`: form the
           smaller of :math:`X_c^\top X_c` and :math:`X_c X_c^\top` with one
           BLAS call (``syrk``, half the flops of a general product; "eig" by
           blocks of rows, without a centered copy of X) and solve only for
           the k wanted eigenpairs (LAPACK ``syevr``, or a block Krylov method
           with a residual test for order above 1200 and small k): 3 to 10
           times faster than the SVD at every shape measured, and exact
           (centering comes first, so a large mean costs no accuracy, unlike
           scikit-learn's ``covariance_eigh``). The price is the squared
           condition number: eigenvalues are accurate to about
           :math:`\varepsilon \lambda_1` in absolute terms. The factor 4 is
           where that price stays small for any data: by the
           Marchenko-Pastur law, the covariance of pure noise with
           :math:`c = p/n` has condition number about
           :math:`\big((1+\sqrt c)/(1-\sqrt c)\big)^2`, at most 9 for
           :math:`c \le 1/4` but unbounded as :math:`c \to 1`.
        4. "svd" otherwise (n and p within a factor 4): no squared condition
           number, at 3 to 10 times the time and more memory (LAPACK's SVD
           holds all its factors: peak extra memory measured at 5.5 copies of
           X for 2000 x 1000, against 2.0 for "eig"; the eig and gram routes
           stay within about one copy of X from n >= 4p or p >= 4n on, 0.25
           copies at 20000 x 2000).

        Timings against scikit-learn: ``python -m tests.benchmarks``.
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
        by its conditional mean under the fitted model,
        :func:`pcalib.missing.fill_missing`).

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

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 3)) @ np.diag([3.0, 1.0, 0.1])
    >>> pca = PCA(2).fit(X)
    >>> pca.components_.shape, pca.transform(X).shape
    ((2, 3), (100, 2))
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
    ) -> None:
        self.n_components = n_components
        self.solver = solver
        self.standardize = standardize
        self.whiten = whiten
        self.ddof = ddof
        self.random_state = random_state
        self.missing = missing

    # -- scikit-learn parameter protocol -----------------------------------------

    @classmethod
    def _param_names(cls) -> list[str]:
        params = inspect.signature(cls.__init__).parameters
        return [name for name in params if name != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this estimator, by name (`deep` is accepted for scikit-learn)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> PCA:
        """Set parameters by name; returns self. Unknown names raise ``ValueError``."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for PCA; valid parameters are {valid}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()
        }
        shown = [
            f"{name}={value!r}"
            for name, value in self.get_params().items()
            if not (value is defaults[name] or (isinstance(value, (int, float, str, bool)) and value == defaults[name]))
        ]
        return f"PCA({', '.join(shown)})"

    # -- fitting ------------------------------------------------------------------

    def _check_params(self, n: int, p: int) -> tuple[int, bool]:
        """Validate the parameters against the data; returns (k to compute, is_fraction)."""
        if self.solver not in _SOLVERS:
            raise ValueError(f"solver must be one of {_SOLVERS}, got {self.solver!r}")
        for name in ("standardize", "whiten"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        m = min(n, p)
        nc = self.n_components
        if nc is None:
            return m, False
        if isinstance(nc, numbers.Real) and not isinstance(nc, (numbers.Integral, bool, np.bool_)):
            if not 0 < nc < 1:
                raise ValueError(
                    f"n_components as a float is the fraction of variance to keep and must be "
                    f"in (0, 1), got {nc}"
                )
            if self.solver == "randomized":
                raise ValueError(
                    "solver='randomized' needs an integer n_components (it computes only k "
                    f"components), got the fraction {nc}"
                )
            return m, True
        if isinstance(nc, (bool, np.bool_)) or not isinstance(nc, numbers.Integral):
            raise TypeError(
                f"n_components must be an int, a float in (0, 1) or None, got {nc!r} of type {type(nc).__name__}"
            )
        return check_n_components(nc, m, "n_components"), False

    def _choose_solver(self, n: int, p: int, k: int, fraction: bool) -> str:
        if self.solver != "auto":
            return self.solver
        m = min(n, p)
        if self.n_components is not None and not fraction and m >= _RANDOMIZED_MIN_DIM and k <= m / 10:
            return "randomized"
        if n * p * m <= _SMALL_WORK:
            return "svd"
        if n >= _ASPECT * p:
            return "eig"
        if p >= _ASPECT * n:
            return "gram"
        return "svd"

    def _fit(self, X: ArrayLike, need_scores: bool) -> np.ndarray | None:
        if self.missing is not None:
            X = _missing.complete_for_pca(self, X)
        arr, ddof = _validated(X, self.ddof)
        dtype = output_dtype(arr)
        n, p = arr.shape
        k, fraction = self._check_params(n, p)
        solver = self._choose_solver(n, p, k, fraction)
        rng = _check_random_state(self.random_state) if solver == "randomized" else None
        components, s, total_ss, scores, mean, scale = _decompose_data(
            arr, k, solver, ddof=ddof, standardize=bool(self.standardize), need_scores=need_scores,
            random_state=rng,
        )
        ratio = s**2 / total_ss
        if fraction:
            k = choose_k(ratio, self.n_components)
            components, s, ratio = components[:k], s[:k], ratio[:k]
            scores = scores[:, :k] if scores is not None else None
        ev = s**2 / (n - ddof)
        total_var = total_ss / (n - ddof)
        m = min(n, p)
        noise = max(total_var - float(ev.sum()), 0.0) / (m - k) if k < m else 0.0
        if self.whiten and not np.all(ev > max(n, p) * _EPS * ev[0]):
            raise ValueError(
                "whiten=True divides by the square root of each explained variance, but "
                f"component {int(np.argmin(ev > max(n, p) * _EPS * ev[0])) + 1} has variance 0 "
                "(to round-off): choose fewer n_components"
            )
        (
            self.components_,
            self.explained_variance_,
            self.explained_variance_ratio_,
            self.singular_values_,
            self.mean_,
            self.scale_,
        ) = (np.ascontiguousarray(a, dtype=dtype) for a in (components, ev, ratio, s, mean, scale))
        self.n_components_ = int(k)
        self.noise_variance_ = float(noise)
        self.n_samples_, self.n_features_in_ = n, p
        self.solver_ = solver
        if scores is None:
            return None
        if self.whiten:
            scores = scores / np.sqrt(ev)
        return scores.astype(dtype, copy=False)

    def fit(self, X: ArrayLike, y: object = None) -> PCA:
        """Fit the model on `X` (n x p, not modified). `y` is ignored. Returns self."""
        self._fit(X, need_scores=False)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> np.ndarray:
        """Fit on `X` and return its scores (n, k), whitened if ``whiten``."""
        return self._fit(X, need_scores=True)

    # -- using a fitted model -----------------------------------------------------

    def _check_is_fitted(self) -> None:
        if not hasattr(self, "components_"):
            raise NotFittedError(
                "This PCA instance is not fitted yet. Call 'fit' with appropriate arguments "
                "before using this estimator."
            )

    def _standardized(self, X: ArrayLike) -> tuple[np.ndarray, np.dtype]:
        self._check_is_fitted()
        arr = as_data_matrix(X, "X", copy=False)
        if arr.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {arr.shape[1]} features, but PCA is expecting {self.n_features_in_} "
                "features as input"
            )
        Z = arr - self.mean_.astype(np.float64)
        Z /= self.scale_
        return Z, output_dtype(arr)

    def transform(self, X: ArrayLike) -> np.ndarray:
        r"""Scores of new samples: :math:`((x - \bar{x}) / s)\, V_k`, whitened if ``whiten``.

        With ``missing`` set, a row with NaN uses only its observed entries.
        """
        if self.missing is not None:
            self._check_is_fitted()
            X = _missing.fill_for_pca(self, X)
        Z, dtype = self._standardized(X)
        scores = Z @ self.components_.T.astype(np.float64)
        if self.whiten:
            scores /= np.sqrt(self.explained_variance_.astype(np.float64))
        return scores.astype(dtype, copy=False)

    def inverse_transform(self, Z: ArrayLike) -> np.ndarray:
        r"""Map scores back to data space: :math:`\hat{x} = (V_k^\top z) \odot s + \bar{x}`.

        At full rank (k = p) this inverts :meth:`transform`; otherwise it gives
        the projection of the sample onto the principal subspace.
        """
        self._check_is_fitted()
        arr = as_data_matrix(Z, "Z", copy=False)
        if arr.shape[1] != self.n_components_:
            raise ValueError(
                f"Z has {arr.shape[1]} columns, but PCA has n_components_ = {self.n_components_}"
            )
        scores = arr.astype(np.float64)
        if self.whiten:
            scores *= np.sqrt(self.explained_variance_.astype(np.float64))
        X = scores @ self.components_.astype(np.float64)
        X *= self.scale_
        X += self.mean_
        return X.astype(output_dtype(arr), copy=False)

    def _ppca_W(self) -> np.ndarray:
        ev = self.explained_variance_.astype(np.float64)
        return self.components_.T.astype(np.float64) * np.sqrt(np.maximum(ev - self.noise_variance_, 0.0))

    def get_covariance(self) -> np.ndarray:
        r"""Model covariance :math:`W W^\top + \sigma^2 I` (in the standardized space if ``standardize``).

        :math:`W = V_k^\top \operatorname{diag}\big(\max(\lambda_j - \sigma^2, 0)\big)^{1/2}`,
        :math:`\sigma^2` = ``noise_variance_``: the PPCA model of the fit. It does
        not depend on ``whiten`` (whitening rescales the scores, not the data);
        scikit-learn's ``get_covariance`` differs here when ``whiten=True``.
        """
        self._check_is_fitted()
        W = self._ppca_W()
        C = W @ W.T
        C[np.diag_indices_from(C)] += self.noise_variance_
        return C

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        r"""Log-likelihood of each sample under the PPCA model of :meth:`get_covariance`.

        .. math::

            \log p(x) = \log \mathcal N\big(z;\ 0,\ W W^\top + \sigma^2 I\big)
            - \sum_j \log s_j, \qquad z = (x - \bar{x}) / s,

        the second term being the Jacobian of standardization (0 unless
        ``standardize``). Matches ``sklearn.decomposition.PCA.score_samples``.
        """
        Z, _ = self._standardized(X)
        ll = _gaussian_log_likelihood(Z, np.zeros(Z.shape[1]), self._ppca_W(), self.noise_variance_)
        return ll - float(np.sum(np.log(self.scale_.astype(np.float64))))

    def score(self, X: ArrayLike, y: object = None) -> float:
        """Average log-likelihood of the samples of `X` (see :meth:`score_samples`)."""
        return float(np.mean(self.score_samples(X)))

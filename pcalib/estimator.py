r"""The PCA estimator: fit once, transform many (scikit-learn conventions, no scikit-learn).

:class:`PCA` follows scikit-learn's estimator contract closely enough that
``sklearn.base.clone``, ``Pipeline`` and ``GridSearchCV`` accept it: ``__init__``
only stores its arguments, ``get_params``/``set_params`` read ``__init__``'s
signature, validation happens in ``fit``, fitted attributes end with ``_``.
"""

from __future__ import annotations

import numbers
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from . import missing as _missing
from ._center import Center
from ._inputs import as_matrix
from ._ppca_scoring import PPCAScoring, _above_round_off
from ._sklearn_compat import EstimatorBase
from ._solver_policy import (
    _SCATTER_MAX_FEATURES,
    SOLVERS,
    dense_route,
    implicit_route,
    krylov_budget,
    lanczos_budget,
)
from ._streaming import StreamingFit
from ._validation import (
    NotFittedError,
    _check_ddof,
    _check_random_state,
    check_n_components,
    warn_outside_pcalib,
)
from .covariance_matrix import _rescale
from .pca import _decompose_matrix, _Decomposition
from .selection import choose_k

__all__ = ["PCA", "NotFittedError"]


class PCA(StreamingFit, PPCAScoring, EstimatorBase):
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
        "eig": eigendecomposition of the p x p covariance (partial, LAPACK
        ``syevr``, for k < p); "gram": of the n x n Gram matrix
        :math:`X_c X_c^\top`; "svd": LAPACK SVD of :math:`X_c`; "krylov": block
        Krylov on :math:`X_c^\top X_c` (or :math:`X_c X_c^\top` if n < p), never
        formed, stopped by a residual test (below; an integer `n_components` only);
        "randomized": :func:`pcalib.randomized_svd` of :math:`X_c` (approximate: a
        fixed number of steps, no residual test). "auto" picks, with m = min(n, p),
        always an exact route:

        1. "svd" if :math:`n p m \le 10^6`: small problems, where the most
           accurate route costs at most a few milliseconds.
        2. Every component (`n_components` None, a fraction of variance, "mle" or
           m): "eig" if :math:`n \ge 4p`, "gram" if :math:`p \ge 4n`, "svd"
           otherwise. "eig" and "gram" form the smaller of :math:`X_c^\top X_c`
           and :math:`X_c X_c^\top` with one BLAS call (``syrk``, half the flops
           of a general product; "eig" by blocks of rows in one pass with the
           column sums, without a centered copy of X: :math:`X^\top X - n \bar x
           \bar x^\top` when every column's mean is at most its spread, checked
           per column, shifted blocks otherwise) and solve for the eigenpairs
           (LAPACK ``syevd`` up to order 512, ``syevr`` above, or a block Krylov
           method with a residual test for order above 1200 and small k): 3 to 10
           times faster than the SVD at every shape measured, and exact at any
           offset (unlike scikit-learn's ``covariance_eigh``, which forms
           :math:`X^\top X - n \bar x \bar x^\top` at every offset). The price
           is the squared condition number: eigenvalues are accurate to about
           :math:`\varepsilon \lambda_1` in absolute terms. The factor 4 is where
           that price stays small for noise-like data: by the Marchenko-Pastur law,
           the covariance of pure noise with :math:`c = p/n` has condition number
           about :math:`\big((1+\sqrt c)/(1-\sqrt c)\big)^2`, at most 9 for
           :math:`c \le 1/4` but unbounded as :math:`c \to 1`, and every component
           includes the smallest. It is not small for every matrix of that shape: a
           covariance can have any condition number at any n and p (chapter 7
           builds data with :math:`n \ge 4p` and :math:`\kappa(S) = 10^{18}`), and
           for those the accuracy guard below takes over. The SVD has no squared
           condition number, at 3 to 10 times the time and more memory (LAPACK's SVD
           holds all its factors: peak extra memory measured at 5.5 copies of X for
           2000 x 1000, against 2.0 for "eig"; the eig and gram routes stay within
           about one copy of X from n >= 4p or p >= 4n on, 0.25 copies at
           20000 x 2000).
        3. k < m components (an integer `n_components`): only
           :math:`\lambda_1, \dots, \lambda_k` matter, whose accuracy the guard
           below checks, whatever the shape. Above 1024 features with n and p
           within a factor 4 of each other (tall and wide data keep the one
           ``syrk`` of "eig" and "gram": measured at 20000 x 2000 and 2000 x 20000,
           a Krylov attempt that gave up cost 0.2-0.5 s more than that route, and one
           that converged saved 0.3 s), "krylov" when a cost model leaves it room:
           block Krylov may spend up to the estimated time of the exact route (it
           stops after three blocks when the decay of its residual predicts a
           failure),
           :math:`t_\text{exact} = a\, n p m + e\, m^3`, at
           :math:`t_\text{block} = 4 c\, n p b` per block of
           :math:`b = \max(2k, k + 10)` columns, and is tried when that allows 4
           blocks (:math:`a = 1.1 \cdot 10^{-11}` s per multiplication of the
           ``syrk``, :math:`e = 4 \cdot 10^{-11}` s per :math:`m^3` of the
           eigensolver, :math:`c = 3.3 \cdot 10^{-11}` s per flop of the thin
           products, measured on 2 cores). If its residual test is not met within
           that budget, or the decay of the residual predicts it will not be (a
           flat spectrum near :math:`\lambda_k`), the Lanczos method (ARPACK, one
           vector per product, :math:`L = 6 \cdot 10^{-10}` s per vector and entry
           of X) may spend as much, when that allows at least
           :math:`\max(90, 6(2k + 1))` vectors (a failure then costs up to three
           times the exact route's time; measured: 10000 x 4000, flat spectrum,
           k = 10, 133 vectors); if it too stops, the k leading
           eigenpairs of the formed matrix take over (``solver_`` "eig" if
           n >= p, "gram" otherwise). Otherwise "eig" if n >= p, or if p <= 1024
           and p < 4n (the eig route keeps the scatter matrix for a later
           :meth:`partial_fit`); "gram" for wider data.

        The "krylov" route works on one centered copy of X; each block costs the
        products :math:`X_c^\top (X_c Q)`, two passes over :math:`X_c`, and so does
        each Lanczos vector. Both accept the Ritz pairs when every residual
        :math:`\|M v_j - \theta_j v_j\| \le 10^{-10}\theta_1` (the a-posteriori
        test of the sparse and Dask
        routes): each eigenvalue is then within :math:`10^{-10}\lambda_1` (and
        within the square of that over its gap), each axis within an angle of
        about :math:`10^{-10}\lambda_1/\delta_j` of its eigenvector,
        :math:`\delta_j` its spectral gap. Passed explicitly, it refuses to run
        past 40 blocks (RuntimeError).

        The rules look only at the shape, so "auto" adds an accuracy guard:
        when the eig, gram or krylov route finds
        :math:`\lambda_k / \lambda_1 < \sqrt{\varepsilon}` (k capped at
        n - 1), the k-th eigenvalue has kept fewer than half its digits, and
        the fit is recomputed by the "svd" route (accurate to about
        :math:`\varepsilon \sigma_1` in each singular value). ``solver_``
        records the route that finally ran. A solver passed explicitly is
        never replaced.

        Timings against scikit-learn: ``python -m tests.benchmarks``.

        Sparse (``scipy.sparse``, never densified) and Dask input (chunked by rows,
        out of core or distributed; Dask is imported only when such an array comes
        in): "auto" and "eig" form the p x p covariance in one pass (each block or
        chunk reduced to its count, mean and scatter, merged exactly by the update of
        Chan, Golub and LeVeque) up to 4096 features, and beyond take the
        "randomized" route: the k leading eigenpairs of :math:`X_c^\top X_c` with
        implicit centering (:math:`X_c` never formed), by the Lanczos method
        (ARPACK) for sparse data, whose products are cheap, and by block Krylov
        for Dask (one pass per block); both stopped by a residual test of
        :math:`10^{-10}\lambda_1` (each eigenvalue then within
        :math:`10^{-10}\lambda_1`, each axis within an angle of about
        :math:`10^{-10}\lambda_1 / \delta_j`, :math:`\delta_j` its spectral gap),
        and deterministic (the sparse one deflates the pairs found and probes for
        missed copies of a repeated eigenvalue); "krylov" is the same route. "svd" is
        TSQR for Dask (the accuracy guard of "auto" there) and, for sparse data, Householder QR of
        dense blocks (:math:`R^\top R` is :math:`Y_c^\top Y_c` if n >= p, :math:`Y_c
        Y_c^\top` if n < p; the singular values of R are those of :math:`Y_c`); "gram"
        (sparse only) the n x n matrix :math:`Y_c Y_c^\top` from the sparse product
        :math:`X X^\top`, with the axes :math:`Y_c^\top u_j / \sigma_j`. Both keep a
        :math:`\min(n, p)^2` dense matrix and are refused beyond 4096. Dense
        columns of sparse data whose mean exceeds their spread are shifted by it
        first (stored in full), so no route cancels at large offsets.
        "randomized" without an integer `n_components` (all components, or a
        fraction of variance) takes the one-pass covariance route up to 4096
        features (``solver_`` says "eig").

        For sparse data "auto" takes the route of least estimated time, a cost
        model that counts the stored entries :math:`r_i` of each row and
        :math:`c_j` of each column (nnz in all):

        .. math::

            t_\text{eig} &= a \Big(\sum_i r_i^2 + p^2\Big) + e\, p^3, \qquad
            t_\text{gram} = a \Big(\sum_j c_j^2 + n^2\Big) + e\, n^3
            + b\, \mathrm{nnz}\, k, \\
            t_\text{Lanczos} &= (16 k + 20)\,\big(b\, \mathrm{nnz}
            + v\, p \max(2k + 1, 30)\big),

        with :math:`a = 1.5 \cdot 10^{-8}` s per multiplication of the sparse
        product :math:`X^\top X` or :math:`X X^\top` (and per entry of its dense
        result), :math:`e = 10^{-10}` s per :math:`m^3` of a dense eigensolve,
        :math:`b = 1.2 \cdot 10^{-9}` s per stored entry of a Lanczos product and
        :math:`v = 7 \cdot 10^{-10}` s per entry of ARPACK's Lanczos vectors
        (measured on 2 cores); "eig" only up to 4096 features, "gram" up to 4096
        samples, Lanczos (an integer k < p only) when estimated at least twice as
        fast as the better exact route. For example, 1000 x 200,000 with 200,000
        stored entries: "gram", 1.6 s at k = 100 and 3.7 s at k = 300, where
        Lanczos took 45 s and 209 s. Its accuracy guard: when the eig, gram or
        Lanczos route finds :math:`\lambda_k / \lambda_1 < \sqrt{\varepsilon}` and
        :math:`\min(n, p) \le 4096`, the fit is recomputed by the QR route
        ("svd"); beyond, a ``RuntimeWarning`` says that the smallest eigenvalues
        are round-off.
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
        :func:`pcalib.missing.fill_missing`). The filled entries carry no noise, so
        ``noise_variance_`` understates the noise (about 0.61 of it at 30% missing,
        0.39 at 50%, in chapter 13's check): fit :class:`pcalib.PPCA` to the data
        with holes when the noise level matters.
    missing_max_iter : int, default 1000
        With ``missing``: the most iterations of regularized iterative PCA (a
        ``UserWarning`` says when they are not enough: 2000 x 10 data with 30 to 50%
        of entries missing need 1300 to 2100). Ignored otherwise.
    missing_tol : float, default 1e-8
        With ``missing``: the iteration stops when the change of the filled entries,
        plus the change still to come if it shrinks geometrically, is at most ``tol``
        times the norm of the centered completed matrix. Ignored otherwise. (Named for
        ``missing`` so that no one mistakes them for the solver's: the PCA routes
        are exact and do not iterate.)

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

    _preserves_dtype = ("float64", "float32")
    _accepts_sparse = True  # scipy.sparse input, never densified (pcalib._inputs)

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
        is the covariance (correlation) matrix when k = p.
        """
        self._check_is_fitted()
        return self.components_.T * np.sqrt(self.explained_variance_)

    # -- fitting ------------------------------------------------------------------

    def _check_params(self, n: int, p: int) -> tuple[int, bool]:
        """Validate the parameters against the data; returns (k to compute, is_fraction)."""
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {self.solver!r}")
        for name in ("standardize", "whiten"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        m = min(n, p)
        nc = self.n_components
        if nc is None:
            return m, False
        if isinstance(nc, str) and nc == "mle":
            if not n >= p >= 2:
                raise ValueError(f"n_components='mle' needs n_samples >= n_features >= 2, got {n} x {p}")
            if self.solver in ("randomized", "krylov"):
                raise ValueError(f"solver={self.solver!r} needs an integer n_components, got 'mle'")
            return m, True
        if isinstance(nc, numbers.Real) and not isinstance(nc, (numbers.Integral, bool, np.bool_)):
            if not 0 < nc < 1:
                raise ValueError(
                    f"n_components as a float is the fraction of variance to keep and must be "
                    f"in (0, 1), got {nc}"
                )
            if self.solver in ("randomized", "krylov"):
                raise ValueError(
                    f"solver={self.solver!r} needs an integer n_components (it computes only k "
                    f"components), got the fraction {nc}"
                )
            return m, True
        if isinstance(nc, (bool, np.bool_)) or not isinstance(nc, numbers.Integral):
            raise TypeError(
                f"n_components must be an int, a float in (0, 1) or None, got {nc!r} of type {type(nc).__name__}"
                " (or the string 'mle' for Minka's rule)"
            )
        return check_n_components(nc, m, "n_components"), False

    def _choose_solver(self, n: int, p: int, k: int, fraction: bool) -> str:
        """The dense route (:func:`pcalib._solver_policy.dense_route`)."""
        return dense_route(self.solver, n, p, k, every_component=fraction or self.n_components is None)

    def _decompose(
        self, data: Any, k: int, fraction: bool, solver: str, ddof: int, need_scores: bool
    ) -> _Decomposition:
        """The decomposition by one route, truncated to the fraction of variance if asked."""
        rng = _check_random_state(self.random_state) if solver == "randomized" else None
        n, p = data.shape
        budget = ({"max_blocks": krylov_budget(n, p, k), "max_vectors": lanczos_budget(n, p, k)}
                  if self.solver == "auto" else {})
        found = _decompose_matrix(
            data, k, solver, ddof=ddof, standardize=bool(self.standardize), need_scores=need_scores,
            random_state=rng, **budget,
        )
        return self._truncated(found, fraction, data.shape[0])

    def _truncated(self, found: _Decomposition, fraction: bool, n: int) -> _Decomposition:
        """`found` cut to the k that the fraction of variance or Minka's rule chooses."""
        if fraction:
            ratio = found.explained_variance_ratio()
            k = (choose_k(ratio, method="minka", n_samples=n) if isinstance(self.n_components, str)
                 else choose_k(ratio, float(cast(float, self.n_components))))
            found = found.truncated(k)
        return found

    def _fit(self, X: ArrayLike, need_scores: bool) -> np.ndarray | None:
        if self.missing is not None:
            X = _missing.complete_for_pca(self, X)
        data = as_matrix(X, defer_finite=True)  # the eig route's pass finds NaN and inf itself
        n, p = data.shape
        ddof = _check_ddof(self.ddof, n)
        k, fraction = self._check_params(n, p)
        _check_random_state(self.random_state, draw=False)  # whatever the solver
        if data.implicit:
            solver = implicit_route(self.solver, n, p, k, fraction or self.n_components is None, data)
        else:
            solver = self._choose_solver(n, p, k, fraction)
        found = self._decompose(data, k, fraction, solver, ddof, need_scores)
        if not data.implicit:
            solver = found.route  # "krylov" within its budget, else the eig or gram route
        # the accuracy guard (TSQR for a Dask array, QR of dense blocks for a sparse one)
        guarded = ("eig", "gram", "randomized") if data.implicit and data.in_memory else ("eig", "gram", "krylov")
        if self.solver == "auto" and solver in guarded and found.lost_digits(n) and data.supports_svd:
            if min(n, p) <= _SCATTER_MAX_FEATURES or solver != "randomized":
                solver = "svd"
                found = self._decompose(data, k, fraction, solver, ddof, need_scores)
            else:
                warn_outside_pcalib(
                    f"lambda_{min(k, n - 1)} / lambda_1 < sqrt(eps): the Lanczos route resolves "
                    "eigenvalues to 1e-10 lambda_1 only, so the smallest of these are round-off "
                    f"(min(n, p) = {min(n, p)} is too large for the exact route); ask for fewer "
                    "components, or densify X"
                )
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

    def _store(self, found: _Decomposition, n: int, p: int, ddof: int, dtype: np.dtype, solver: str) -> None:
        """Set the fitted attributes from a decomposition of n samples of p features."""
        k, s = found.s.size, found.s
        m = min(n, p)
        # The mean discarded eigenvalue; below what the route resolves it is round-off
        # (and the solvers would disagree on its value), so it is exactly 0.
        resolved = k < m and not found.tail_is_round_off(n, p)
        noise = found.tail_ss / (n - ddof) / (m - k) if resolved else 0.0
        resolved_variances = _above_round_off(s**2, n, p)
        if self.whiten and not np.all(resolved_variances):
            raise ValueError(
                "whiten=True divides by the square root of each explained variance, but "
                f"component {int(np.argmin(resolved_variances)) + 1} has variance 0 "
                "(to round-off): choose fewer n_components"
            )
        ev = found.explained_variance(n - ddof)
        if self.whiten and not np.all(np.isfinite(ev)):
            raise ValueError(
                "whiten=True divides by the square roots of the explained variances, which "
                "exceed the float64 range at the scale of X: rescale X"
            )
        (
            self.components_,
            self.explained_variance_,
            self.explained_variance_ratio_,
            self.singular_values_,
            self.mean_,
            self.scale_,
        ) = (
            np.ascontiguousarray(a, dtype=dtype)
            for a in (found.components, ev, found.explained_variance_ratio(), found.singular_values(),
                      found.mean, found.scale)
        )
        self._center = found.center  # mean_ as the exact pair that transform subtracts
        self.n_components_ = int(k)
        self.noise_variance_ = float(_rescale(np.asarray(noise), 2 * found.exponent, "noise_variance_"))
        self.n_samples_, self.n_features_in_ = n, p
        self.solver_ = solver

    def fit(self, X: ArrayLike, y: object = None) -> PCA:
        """Fit the model on `X` (n x p, not modified). `y` is ignored. Returns self.

        `X` may be a NumPy array (or anything ``numpy.asarray`` accepts), a
        ``scipy.sparse`` matrix or array (CSR or CSC; never densified) or a
        ``dask.array.Array`` chunked by rows (a Dask array chunked by columns is
        rechunked to whole rows first, ``X.rechunk({1: -1})``). Fitted attributes are
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
        self._fit(self._remember_input(X), need_scores=False)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> np.ndarray:
        """Fit on `X` and return its scores (n, k), whitened if ``whiten``
        (a lazy Dask array for a Dask `X`, as :meth:`transform`)."""
        scores = self._fit(self._remember_input(X), need_scores=True)
        return self.transform(X) if scores is None else self._wrap_output(scores, X)

    # -- using a fitted model -----------------------------------------------------

    def _check_is_fitted(self) -> None:
        try:
            self.components_  # noqa: B018 (after partial_fit: solves, or says why it cannot)
        except NotFittedError:
            raise
        except AttributeError:
            raise NotFittedError(
                "This PCA instance is not fitted yet. Call 'fit' with appropriate arguments "
                "before using this estimator."
            ) from None

    def _checked_input(self, X: ArrayLike, name: str = "X", columns: int | None = None) -> Any:
        """`X` of any kind (:func:`pcalib._inputs.as_matrix`) with the fitted number of features."""
        self._check_is_fitted()
        if columns is None:
            X = self._check_input(X)  # column names and count, as scikit-learn checks them
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
        (:class:`pcalib._center.Center`), so that ``transform`` of the fitted data
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
        if self.missing is not None:
            self._check_is_fitted()
            X = _missing.fill_for_pca(self, X)
        data = self._checked_input(X)
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
        self._check_is_fitted()  # before n_components_ is read
        data = self._checked_input(Z, "Z", columns=self.n_components_)
        mean, scale, components = self._fitted_f64()
        root_ev = np.sqrt(self.explained_variance_.astype(np.float64)) if self.whiten else 1.0

        def reconstruct(z: np.ndarray) -> np.ndarray:
            X = (z * root_ev) @ components
            X *= scale
            X += mean
            return X

        return data.map_rows(reconstruct, self.n_features_in_).astype(data.dtype)

r"""Streaming PCA: :meth:`pcalib.PCA.partial_fit`, exact over any sequence of batches.

The state is the count, mean and scatter matrix of the samples seen
(:class:`pcalib._linalg.moments.Moments`, merged batch by batch); the eigenproblem is solved
once, when a fitted attribute is first read (:meth:`StreamingFit.__getattr__`).
A mixin of :class:`pcalib.PCA`, which supplies ``_store``.
"""

from __future__ import annotations

import numbers
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from .._inputs.errors import naming_non_finite
from .._inputs.matrix import as_matrix
from .._linalg import constants
from .._linalg.moments import Moments
from .._routes.decomposition import Decomposition
from .._routes.implicit import decompose_moments
from .._utils.validation import NotFittedError, check_ddof, check_flag, fewest_samples
from .base import AT_LEAST_ONE
from .n_components import components_to_compute, cut_to_request


class _Streamed(Protocol):
    """What :class:`StreamingFit` needs of the estimator it is mixed into."""

    n_components: Any
    solver: Any
    ddof: Any
    standardize: Any
    whiten: Any
    n_features_in_: int
    n_samples_: int
    solver_: str
    _moments: Moments
    _stream_dtype: np.dtype
    _unsolved: bool

    def _store(self, found: Decomposition, n: int, p: int, ddof: int, dtype: np.dtype, solver: str) -> None: ...
    def _remember_input(self, X: ArrayLike, smallest: Any = ...) -> Any: ...
    def _check_input(self, X: ArrayLike) -> Any: ...
    def _solve_stream(self) -> None: ...


_S = TypeVar("_S", bound=_Streamed)

# The fitted attributes that _store sets from a decomposition (partial_fit solves for
# them when one is first read, see PCA.__getattr__).
_SOLVED = (
    "components_", "explained_variance_", "explained_variance_ratio_", "singular_values_",
    "mean_", "scale_", "n_components_", "noise_variance_", "n_samples_", "solver_", "_center",
    "explained_variance_bound_", "components_bound_",
)


class StreamingFit:
    """partial_fit and the lazy solve of its fit (see the module docstring)."""

    def partial_fit(self: _S, X: ArrayLike, y: object = None) -> _S:
        r"""Update the fit with one more batch of samples (streaming PCA), exactly.

        The state is the count, mean and scatter matrix :math:`(n, \bar x, M)` of all
        the samples seen, updated by the pairwise formula of Chan, Golub and LeVeque
        (``pcalib._linalg.moments.Moments.merge``), so after any sequence of batches the
        fitted attributes are those of ``solver="eig"`` on all of them at once, to
        round-off (unlike scikit-learn's ``IncrementalPCA``, which truncates its state
        to k components at every batch). A call only merges its batch into the
        state; the k leading eigenpairs of the p x p state are computed when a
        fitted attribute is first read after it (one eigensolve for the whole
        stream), whatever `solver` says (``solver_`` is "eig"). A call to
        :meth:`fit` starts the stream again from its data: a later partial_fit
        continues from them when fit's route formed their scatter matrix (``solver_``
        "eig", at most 1024 features, no ``missing``), and raises ``ValueError``
        otherwise (scikit-learn's ``IncrementalPCA`` continues from a state truncated
        to k components; no exact continuation exists without the scatter matrix).

        Parameters
        ----------
        X : array_like, scipy.sparse or dask.array of shape (n_batch, p)
            One batch (not modified), of any number of samples; the fitted
            attributes exist once the batches seen hold more than ``ddof`` samples
            (at least 2) and at least `n_components` of them (reading one earlier
            raises ``NotFittedError``, saying why).
        y : ignored

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If p exceeds ``constants.PARTIAL_FIT_MAX_FEATURES`` (the p x p state would not fit: use the Dask
            route), the batch has another number of features than the earlier ones,
            or `n_components` exceeds p.

        Examples
        --------
        >>> from pcalib import PCA
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((300, 4)) @ np.diag([4.0, 2.0, 1.0, 0.5])
        >>> stream = PCA(2)
        >>> for batch in np.array_split(X, 7):
        ...     _ = stream.partial_fit(batch)
        >>> bool(np.allclose(stream.components_, PCA(2, solver="eig").fit(X).components_))
        True
        """
        previous = self.__dict__.get("_moments")
        if previous is None and "components_" in self.__dict__:
            raise ValueError(
                f"partial_fit after fit cannot continue the stream: fit's route (solver_="
                f"{self.solver_!r}) did not keep the scatter matrix of its {self.n_samples_} "
                "samples (solver 'eig' keeps it, for at most 1024 features and without "
                "missing values), so the new batch cannot be merged with them exactly; fit "
                "with solver='eig', or pass every batch, the first included, to partial_fit"
            )
        X = self._remember_input(X, AT_LEAST_ONE) if previous is None else self._check_input(X)
        with naming_non_finite(self.__dict__.get("feature_names_in_")):
            data = as_matrix(X)
        p = data.shape[1]  # a later batch was checked against n_features_in_ by _check_input
        if p > constants.PARTIAL_FIT_MAX_FEATURES:
            raise ValueError(
                f"partial_fit keeps a p x p scatter matrix, {p * p * 8 / 1e9:.1f} GB for p = {p} "
                f"features (at most {constants.PARTIAL_FIT_MAX_FEATURES} allowed): put the batches in one "
                "dask.array.Array (dask.array.concatenate) and call fit, whose Dask route with "
                "implicit centering keeps only O(p k) numbers"
            )
        check_flag(self.standardize, "standardize")
        check_flag(self.whiten, "whiten")
        components_to_compute(self.n_components, self.solver, p, p)  # more samples may come
        check_ddof(self.ddof, None)
        with naming_non_finite(self.__dict__.get("feature_names_in_")):
            batch = data.moments()
        moments = batch if previous is None else previous.merge(batch)
        dtype = data.dtype if previous is None else np.result_type(self._stream_dtype, data.dtype)
        for name in _SOLVED:  # the fit of the earlier batches is out of date
            self.__dict__.pop(name, None)
        self._moments, self._stream_dtype, self._unsolved = moments, dtype, True
        return self

    def _solve_stream(self: _Streamed) -> None:
        """The fitted attributes from the moments of the batches seen by partial_fit;
        ``NotFittedError`` (saying how many samples are needed) if they are too few."""
        moments = self._moments
        n, p = moments.n, moments.mean.size
        ddof = int(self.ddof)  # checked by partial_fit
        needed, why = fewest_samples(ddof), f"more than ddof={ddof} and at least 2"
        nc = self.n_components
        if isinstance(nc, numbers.Integral) and not isinstance(nc, (bool, np.bool_)) and int(nc) > needed:
            needed, why = int(nc), f"at least n_components={nc}"
        elif isinstance(nc, str) and p > needed:
            needed, why = p, "at least n_features for n_components='mle'"
        if n < needed:
            raise NotFittedError(
                f"the fit is not available yet: the batches seen by partial_fit hold {n} "
                f"sample(s) and it needs {needed} ({why}); pass more batches"
            )
        constant = moments.constant
        if constant.all() or (self.standardize and constant.any()):
            which = "every column" if constant.all() else f"column(s) {np.flatnonzero(constant).tolist()}"
            raise NotFittedError(
                f"the fit is not available yet: {which} of the {n} samples seen by partial_fit "
                "so far is constant, so "
                + ("the principal axes are undefined (zero total variance)" if constant.all()
                   else "standardize=True would divide by a zero standard deviation")
                + "; pass batches in which it varies"
            )
        k, fraction = components_to_compute(self.n_components, self.solver, n, p)
        found = decompose_moments(moments, k, ddof=ddof, standardize=bool(self.standardize))
        if fraction:
            found = cut_to_request(found, self.n_components, n)
        self._store(found, n, p, ddof, self._stream_dtype, "eig")
        self._unsolved = False

    def __getattr__(self, name: str) -> Any:
        """A fitted attribute read after :meth:`partial_fit`: solve for the fit now.

        Python calls this only for an attribute that is not set. partial_fit merges
        the moments of its batch and leaves the eigenproblem to the first read of a
        fitted attribute, so a stream of batches costs one p x p eigensolve, not one
        per batch. Too few samples so far raise ``NotFittedError`` (so ``hasattr``
        is False); any other error of the fit is raised as it is.
        """
        state = self.__dict__
        if name in _SOLVED and state.get("_unsolved"):
            self._solve_stream()
            return state[name]
        descriptor = getattr(type(self), name, None)
        if isinstance(descriptor, property):  # a property raised AttributeError (NotFittedError):
            return descriptor.__get__(self)  # raise it again, not a bare "no attribute"
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __sklearn_is_fitted__(self) -> bool:
        """Fitted once the fitted attributes exist (after partial_fit: once the
        batches seen determine them)."""
        return hasattr(self, "components_")

r"""Spectra for the rules of the chapter *How many components, and how sure?*

The rules for k read eigenvalues: of the data's covariance (or correlation) matrix, of
null data sets, or as a user passes them. This module holds what they share:
validation of a spectrum, its numerical rank, the spectrum of centered data in exact
units, stacks of null spectra, and the median of the Marchenko-Pastur law.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from .._utils.validation import check_flag, validated
from . import constants
from .units import center_array

__all__ = [
    
    "as_spectrum",
    "centered_in_units",
    "check_decreasing",
    "check_int",
    "check_level",
    "marchenko_pastur_median",
    "numerical_rank",
    "rank_tolerance",
    "spectra_of_stack",
    "spectrum_of_centered",
    "stacked",
]

_EPS = np.finfo(np.float64).eps
_FLOAT64 = np.dtype(np.float64)


def check_int(value: object, name: str, lowest: int) -> int:
    """`value` as an ``int`` of at least `lowest`, else TypeError or ValueError naming `name`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    if value < lowest:
        raise ValueError(f"{name} must be at least {lowest}, got {value}")
    return int(value)


def check_level(value: object, name: str) -> float:
    """`value` as a ``float`` in (0, 1) (a level, a quantile), else ValueError naming `name`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")
    return float(value)


def rank_tolerance(values: np.ndarray, n_samples: int | None, dtype: np.dtype = _FLOAT64) -> float:
    r"""The size below which an eigenvalue is round-off of 0:
    :math:`\max(n, p)\, \varepsilon\, \lambda_1`, with p the number of values, n the
    number of samples (if known) and :math:`\varepsilon` the machine epsilon of `dtype`.

    Eigenvalues of :math:`X_c^\top X_c` or :math:`X_c X_c^\top` carry an absolute error
    of about :math:`\varepsilon \lambda_1` (some of it below 0): the tolerance of
    :func:`pcalib.pca_eig` and of the rank of :func:`numpy.linalg.matrix_rank`."""
    eps = float(np.finfo(dtype).eps) if np.issubdtype(dtype, np.floating) else _EPS
    return max(n_samples or 0, values.size) * eps * float(np.max(values))


def numerical_rank(values: np.ndarray, n_samples: int | None, dtype: np.dtype = _FLOAT64) -> int:
    """The number of eigenvalues above :func:`rank_tolerance`."""
    return int(np.sum(values > rank_tolerance(values, n_samples, dtype)))


def as_spectrum(values: ArrayLike, name: str, n_samples: int | None = None) -> tuple[np.ndarray, np.dtype]:
    r"""Validate a non-empty 1-D array of finite reals, not all zero, whose negative
    entries are round-off (above :math:`-\)`:func:`rank_tolerance`); return it as float64
    with those set to exactly 0, and the input's dtype (its epsilon sets the tolerance)."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D numeric array, got a {type(values).__name__}")
    arr = np.asarray(values)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    dtype = arr.dtype
    arr = arr.astype(np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite non-negative values, got {arr}")
    if not np.max(arr) > 0:
        raise ValueError(f"{name} must be non-negative and not all zero, got {arr}")
    tolerance = rank_tolerance(arr, n_samples, dtype)
    if np.any(arr < -tolerance):
        raise ValueError(
            f"{name} must hold finite non-negative values (below 0 by at most the "
            f"round-off {tolerance:.3g}), got {arr}"
        )
    return np.where(arr < 0, 0.0, arr), dtype


def check_decreasing(values: np.ndarray, name: str) -> None:
    """Refuse values that are not in non-increasing order (beyond round-off)."""
    if np.any(np.diff(values) > 8 * _EPS * np.max(values)):
        raise ValueError(f"{name} must be in non-increasing order (largest first), got {values}")


def centered_in_units(X: ArrayLike, standardize: bool) -> tuple[np.ndarray, int]:
    r"""Centered (and, if asked, standardized) float64 copy of validated `X`, in units of
    :math:`2^e`: the centered data are ``Xc * 2**e`` (e = 0 when standardized).

    The exact power-of-two change of units of :func:`pcalib.pca_eig`
    (:func:`pcalib._linalg.units.center_array`), so that no square overflows or underflows at
    any scale of X: every rule for k is scale-free."""
    arr, _ = validated(X, 1)
    centered = center_array(arr, 1, scale=check_flag(standardize, "standardize"))
    return centered.values, int(centered.exponent)


def spectra_of_stack(stack: np.ndarray) -> np.ndarray:
    r"""The eigenvalues of :math:`Y_b^\top Y_b`, decreasing, for a stack of centered
    data sets (c, n, p): from the smaller of :math:`Y_b^\top Y_b` and
    :math:`Y_b Y_b^\top`, min(n, p) values each, by NumPy's stacked ``eigvalsh``."""
    _, n, p = stack.shape
    gram = np.matmul(stack.transpose(0, 2, 1), stack) if n >= p else np.matmul(stack, stack.transpose(0, 2, 1))
    return np.linalg.eigvalsh(gram)[:, ::-1]


def spectrum_of_centered(Xc: np.ndarray) -> np.ndarray:
    r"""All p eigenvalues of :math:`X_c^\top X_c / (n - 1)`, decreasing (zeros beyond min(n, p)).

    Absolute error about :math:`\varepsilon \lambda_1`, ample for comparing eigenvalues
    with thresholds. Values below :func:`rank_tolerance` (round-off, some of it
    negative) are set to exactly 0, as in :func:`pcalib.pca_eig`.
    """
    n, p = Xc.shape
    w = spectra_of_stack(Xc[None])[0]
    if not w[0] > 0:
        raise ValueError("X has zero total variance: every rule for k is undefined")
    lam = np.zeros(p)
    lam[: w.size] = np.where(w > rank_tolerance(w, n), w, 0.0) / (n - 1)
    return lam


def stacked(count: int, entries_each: int, make: Callable[[int], np.ndarray]) -> np.ndarray:
    """``make(c)`` for stacks of c data sets of `entries_each` entries (at most
    :data:`constants.STACK_ENTRIES` entries a stack, at least one data set), concatenated
    along axis 0: `count` results in all."""
    per_stack = max(1, min(count, constants.STACK_ENTRIES // max(entries_each, 1)))
    return np.concatenate([make(min(per_stack, count - start)) for start in range(0, count, per_stack)])


@lru_cache(maxsize=64)
def marchenko_pastur_median(ratio: float) -> float:
    r"""The median of the Marchenko-Pastur law of ratio :math:`\beta \in (0, 1]` and
    variance 1 (the chapter's eq. *eq-hm-mp*), on :math:`[a, b] = [(1 - \sqrt\beta)^2, (1 + \sqrt\beta)^2]`.

    With :math:`t(\theta) = a + (b - a)(1 - \cos\theta)/2` the distribution function is
    :math:`F = \int_0^\theta \frac{(b - a)^2 \sin^2\phi}{8 \pi \beta\, t(\phi)}\, d\phi`,
    whose integrand is smooth on :math:`[0, \pi]` (the square roots at the edges are
    gone). The midpoint rule on :math:`2^{14}` intervals and linear interpolation of
    its cumulative sums give the median to about :math:`10^{-9}` (checked against
    SciPy's adaptive quadrature in the tests). Cached: a rule run on many data sets of
    one shape asks for the same ratio each time."""
    a, b = (1 - np.sqrt(ratio)) ** 2, (1 + np.sqrt(ratio)) ** 2
    steps = 2**14
    theta = np.linspace(0.0, np.pi, steps + 1)
    middle = (theta[1:] + theta[:-1]) / 2
    t = a + (b - a) * (1 - np.cos(middle)) / 2
    cdf = np.concatenate([[0.0], np.cumsum((b - a) ** 2 * np.sin(middle) ** 2 / (8 * np.pi * ratio * t))])
    median_theta = np.interp(0.5, cdf / cdf[-1], theta)
    return float(a + (b - a) * (1 - np.cos(median_theta)) / 2)

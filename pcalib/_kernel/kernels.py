r"""The kernels of :class:`pcalib.KernelPCA`, evaluated in exact units.

A fitted kernel (:class:`UnitKernel`) reads the rows x of the data as
:math:`y = (x - c)\, 2^{-e}` (the frame of :func:`pcalib._linalg.units.center_array`
for the kernels that depend only on differences, ``"rbf"`` and ``"linear"``; a
power of two only for ``"poly"``) and returns kernel matrices in the units

.. math:: K_{\text{units}} = \big(k(x, x') - \kappa\big)\, 2^{-2q},

with q chosen by the kernel so that no entry overflows or underflows, and
:math:`\kappa` a constant the double centering removes (poly's :math:`c_0^d`,
subtracted exactly, so that a kernel that varies by :math:`10^{-300}` about it
keeps its digits; 0 for the other kernels and for Nyström, whose approximation
is not invariant under a constant). The factors :math:`2^{e}` and :math:`2^{q}`
are exact, so every result converts back to the data's units by one ``ldexp``.

The matrices are formed a block of rows at a time: the Gaussian kernel by one
``dgemm`` of SciPy's BLAS per block (:func:`rbf_kernel`), then ``exp`` in place
while the block is in cache; :func:`kernel_blocks` and :func:`kernel_scores`
read :math:`k(X, R)` in blocks of about ``constants.KERNEL_BLOCK_ENTRIES`` entries and never hold
a whole q x n_ref kernel. The checks of the parameters and of a kernel matrix
(:func:`check_symmetric_kernel`, one check for a precomputed matrix and a
callable's) are here too; the linear algebra of the fit is in
:mod:`pcalib._kernel.algebra`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.linalg import blas

from .._linalg import constants
from .._linalg.center import Center
from .._linalg.units import center_array, rescale, unit_exponent

__all__ = [
    "KERNELS", "PREIMAGES", "UnitKernel", "callable_kernel", "check_kernel_parameters",
    "check_n_components", "check_symmetric_kernel", "cosine_kernel", "kernel_blocks", "kernel_scores",
    "linear_kernel", "poly_kernel", "rbf_kernel", "squared_distances", "unit_kernel", "unit_median_gamma",
]

#: The kernels named by a string (a callable is the other choice).
KERNELS = ("rbf", "poly", "linear", "cosine", "precomputed")
#: The pre-image methods of :meth:`pcalib.KernelPCA.inverse_transform`.
PREIMAGES = ("fixed-point", "kwok-tsang", "learned")
_EPS = float(np.finfo(np.float64).eps)
#: Rows of the data used by the median heuristic (evenly spaced if there are more).
MEDIAN_ROWS = 1000


# -- parameters -----------------------------------------------------------------------------


def check_kernel_parameters(
    kernel: str | Callable[[np.ndarray, np.ndarray], Any], gamma: float | None, degree: int, coef0: float,
    n_landmarks: int | None, preimage: str, alpha: float,
) -> None:
    """Raise ``ValueError`` for a parameter of :class:`pcalib.KernelPCA` out of range.

    Parameters
    ----------
    kernel : str or callable
        One of ``KERNELS`` or a callable.
    gamma : float or None
        A positive finite number, or None.
    degree : int
        A positive integer (not a bool).
    coef0 : float
        A finite number (not a bool).
    n_landmarks : int or None
        A positive integer or None; None with ``kernel="precomputed"``, whose whole
        matrix is given.
    preimage : str
        One of ``PREIMAGES``.
    alpha : float
        The ridge of the learned pre-image: a positive finite number.
    """
    if not callable(kernel) and kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS} or a callable, got {kernel!r}")
    if gamma is not None and not (_is_real(gamma) and gamma > 0 and np.isfinite(gamma)):
        raise ValueError(f"gamma must be a positive number or None, got {gamma!r}")
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 1:
        raise ValueError(f"degree must be a positive integer, got {degree!r}")
    if not (_is_real(coef0) and np.isfinite(coef0)):
        raise ValueError(f"coef0 must be a finite number, got {coef0!r}")
    if n_landmarks is not None:
        if isinstance(n_landmarks, bool) or not isinstance(n_landmarks, numbers.Integral) or n_landmarks < 1:
            raise ValueError(f"n_landmarks must be a positive integer or None, got {n_landmarks!r}")
        if kernel == "precomputed":
            raise ValueError(
                'n_landmarks needs a kernel pcalib evaluates; with kernel="precomputed" the '
                "whole kernel matrix is given: use n_landmarks=None"
            )
    if not isinstance(preimage, str) or preimage not in PREIMAGES:
        raise ValueError(f"preimage must be one of {PREIMAGES}, got {preimage!r}")
    if not (_is_real(alpha) and alpha > 0 and np.isfinite(alpha)):
        raise ValueError(f"alpha must be a positive number, got {alpha!r}")


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_n_components(n_components: int, n: int, rank_bound: int) -> int:
    r"""`n_components` as an int k, ``ValueError`` unless :math:`1 \le k \le` `rank_bound`.

    Parameters
    ----------
    n_components : int
        The number of components asked for.
    n : int
        The number of samples: the centered kernel has rank at most n - 1.
    rank_bound : int
        n - 1, or less with landmarks (the rank of their kernel).

    Returns
    -------
    int
    """
    k = int(n_components)
    if not 1 <= k <= rank_bound:
        landmarks = ", and at most the number of landmarks (the rank of their kernel)" if rank_bound < n - 1 else ""
        raise ValueError(
            f"n_components must be between 1 and {rank_bound} (the centered kernel of "
            f"n = {n} samples has rank at most n - 1{landmarks}), got {k}"
        )
    return k


def check_symmetric_kernel(K: np.ndarray, what: str) -> None:
    r"""Raise ``ValueError`` unless the kernel matrix `K` is square and symmetric to
    :math:`\max_{ij} |K_{ij} - K_{ji}| \le \sqrt{\varepsilon}\, \max_{ij} |K_{ij}|`.

    The one check of a kernel matrix that pcalib does not form itself: a
    precomputed one and a callable's ``kernel(X, X)`` (a kernel is symmetric,
    :math:`k(x, y) = k(y, x)`; the eigenproblem of a matrix that is not has no
    kernel PCA meaning).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The kernel matrix of the training rows.
    what : str
        How the error names it, e.g. ``'with kernel="precomputed", X'``.
    """
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{what} must be the square n x n kernel matrix, got shape {K.shape}")
    top = unit_exponent(K)  # compared in units where |K| < 1: no overflow in K - K^T
    scaled = np.ldexp(K, -top)
    asym = float(np.abs(scaled - scaled.T).max())
    if asym > np.sqrt(_EPS) * max(float(np.abs(scaled).max()), _EPS):
        raise ValueError(
            f"{what} must be a symmetric kernel matrix (k(x, y) = k(y, x)); |K - K^T| reaches "
            f"{math.ldexp(asym, top):.3g} against max |K| = {math.ldexp(float(np.abs(scaled).max()), top):.3g}"
        )


# -- the kernel functions, in the units of their rows ---------------------------------------


def squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    r"""The squared distances :math:`\|a_i - b_l\|^2` of the rows of two arrays in units
    where they are at most about 1 (no overflow or underflow in the squares).

    Computed as :math:`\|a_i\|^2 + \|b_l\|^2 - 2 a_i^\top b_l` (one matrix product),
    clipped at 0; when `B` is `A` (the same object) the diagonal is exactly 0.

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)

    Returns
    -------
    ndarray of shape (q, r)
    """
    D = A @ B.T
    D *= -2.0
    D += np.einsum("ij,ij->i", A, A)[:, None]
    D += np.einsum("ij,ij->i", B, B)[None, :]
    np.maximum(D, 0.0, out=D)
    if A is B:
        np.fill_diagonal(D, 0.0)
    return D


def unit_median_gamma(Y: np.ndarray) -> float:
    r"""The median heuristic's :math:`\gamma = 1 / (2\sigma^2)`, :math:`\sigma` the median
    of the positive distances between the rows of `Y` (over ``MEDIAN_ROWS`` evenly
    spaced rows when there are more); 1.0 if all rows are equal. `Y` in units where
    its entries are at most about 1."""
    if Y.shape[0] > MEDIAN_ROWS:
        Y = Y[np.linspace(0, Y.shape[0] - 1, MEDIAN_ROWS).astype(int)]
    d2 = squared_distances(Y, Y)[np.triu_indices(Y.shape[0], 1)]
    d2 = d2[d2 > 0]
    return 1.0 if d2.size == 0 else float(0.5 / np.median(d2))


def rbf_kernel(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    r"""The Gaussian kernel :math:`k(a, b) = \exp(-\gamma \|a - b\|^2)`, formed in blocks.

    One product of SciPy's ``dgemm`` per block of rows gives the exponent
    :math:`-\gamma\|a - b\|^2` directly, from the rows extended by their squared norms,

    .. math:: [\,2\gamma a,\; -\gamma\|a\|^2,\; -\gamma\,] \cdot [\,b,\; 1,\; \|b\|^2\,]^\top
              = 2\gamma\, a^\top b - \gamma\|a\|^2 - \gamma\|b\|^2 ;

    it is exponentiated in place, a block of ``constants.KERNEL_FORM_ENTRIES`` entries at a time: two
    passes over the result (the product, the exp), no temporary of its size, and the
    product in the BLAS of the eigensolver that follows. When `B` is `A`, the diagonal
    is exactly 1. (The exponent is not clipped at 0: round-off can make it positive
    by about :math:`\varepsilon \gamma (\|a\|^2 + \|b\|^2)` for two nearly equal
    rows, an entry of :math:`1 + O(\varepsilon)`.)

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)
        Rows in units where they are at most about 1 (:class:`UnitKernel`).
    gamma : float
        :math:`\gamma > 0` in those units.

    Returns
    -------
    ndarray of shape (q, r), C order
    """
    q, r = A.shape[0], B.shape[0]
    A_ext = _extended_rows(A, (2.0 * gamma, -gamma, -gamma))
    B_ext = _extended_rows(B, (1.0, 1.0, 1.0), norms_last=True)
    K = np.empty((q, r))
    rows = max(1, constants.KERNEL_FORM_ENTRIES // max(r, 1))
    for start in range(0, q, rows):
        block = K[start:start + rows]
        # block^T = B_ext A_ext[start:]^T, written in place (block^T is F-ordered)
        blas.dgemm(1.0, B_ext.T, A_ext[start:start + rows].T, trans_a=1, c=block.T, overwrite_c=1)
        if A is B:
            diagonal = np.arange(start, start + block.shape[0])
            block[diagonal - start, diagonal] = 0.0
        np.exp(block, out=block)
    return K


def _extended_rows(A: np.ndarray, factors: tuple[float, float, float], norms_last: bool = False) -> np.ndarray:
    r"""The rows of `A` extended by two columns, C order: :math:`[f_1 a, f_2 \|a\|^2, f_3]`,
    or :math:`[f_1 a, f_3, f_2 \|a\|^2]` with `norms_last`."""
    q, p = A.shape
    out = np.empty((q, p + 2))
    np.multiply(A, factors[0], out=out[:, :p])
    norms = np.einsum("ij,ij->i", A, A)
    out[:, p + (1 if norms_last else 0)] = factors[1] * norms
    out[:, p + (0 if norms_last else 1)] = factors[2]
    return out


def poly_kernel(A: np.ndarray, B: np.ndarray, factor: float, coefficients: np.ndarray) -> np.ndarray:
    r"""The polynomial kernel in the units of :class:`UnitKernel`:
    :math:`\sum_k \alpha_k \tau^k` with :math:`\tau = f\, a^\top b` (Horner's scheme).

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)
    factor : float
        f.
    coefficients : ndarray of shape (d + 1,)
        :math:`\alpha_0, \dots, \alpha_d` (see :func:`unit_kernel`).

    Returns
    -------
    ndarray of shape (q, r)
    """
    tau = _matrix_times_transposed(A, B)
    tau *= factor
    K = np.full(tau.shape, coefficients[-1])
    for alpha in coefficients[-2::-1]:
        K *= tau
        K += alpha
    return K


def _matrix_times_transposed(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """:math:`A B^\\top` (C order) by SciPy's dgemm, the BLAS of the eigensolver."""
    A, B = np.ascontiguousarray(A), np.ascontiguousarray(B)
    return blas.dgemm(1.0, B.T, A.T, trans_a=1).T


def linear_kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    r"""The linear kernel :math:`a^\top b` of rows already read in the training frame
    (centered: :math:`H K H` is unchanged, and K's entries stay at the data's spread
    instead of :math:`\|x\|^2`, so :math:`H K H` does not cancel digits with a large
    mean).

    Parameters
    ----------
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)

    Returns
    -------
    ndarray of shape (q, r)
    """
    return _matrix_times_transposed(A, B)


def cosine_kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    r"""The cosine kernel :math:`k(a, b) = a^\top b / (\|a\| \|b\|)`.

    Each row is first divided by the power of two of its largest entry (exact; the
    kernel is unchanged), so its norm neither underflows (rows of :math:`10^{-170}`)
    nor overflows (:math:`10^{160}`).

    Parameters
    ----------
    A : ndarray of shape (q, p)
        The new rows, named "X" in errors.
    B : ndarray of shape (r, p)
        The reference rows, named "X_fit_" in errors; when `B` is `A`, normalized once.

    Returns
    -------
    ndarray of shape (q, r)

    Raises
    ------
    ValueError
        If a row is 0 (the kernel is undefined there).
    """
    unit_A = _unit_rows(A, "X")
    return _matrix_times_transposed(unit_A, unit_A if A is B else _unit_rows(B, "X_fit_"))


def _unit_rows(A: np.ndarray, name: str) -> np.ndarray:
    """The rows of `A` divided by their Euclidean norms (computed after an exact
    scaling of each row); ``ValueError`` for a row of zeros."""
    largest = np.abs(A).max(axis=1)
    if np.any(largest == 0):
        raise ValueError(
            f"{name} has a row of zeros (row {int(np.argmax(largest == 0))}): the cosine kernel "
            "x.y / (|x| |y|) is undefined there; remove it or choose another kernel"
        )
    scaled = np.ldexp(A, -np.frexp(largest)[1][:, None])
    scaled /= np.sqrt(np.einsum("ij,ij->i", scaled, scaled))[:, None]
    return scaled


def callable_kernel(kernel: Callable[[np.ndarray, np.ndarray], Any], A: np.ndarray, B: np.ndarray) -> np.ndarray:
    r"""A user's kernel: ``kernel(A, B)``, checked to be the finite matrix :math:`k(a_i, b_l)`.

    Parameters
    ----------
    kernel : callable
        Returns an array_like of shape (q, r).
    A : ndarray of shape (q, p)
    B : ndarray of shape (r, p)

    Returns
    -------
    ndarray of shape (q, r)
        float64, a new array (the caller may change it in place).
    """
    K = np.asarray(kernel(A, B), dtype=np.float64)
    if K.shape != (A.shape[0], B.shape[0]) or not np.all(np.isfinite(K)):
        raise ValueError(
            f"kernel(A, B) must return a finite array of shape (len(A), len(B)) = "
            f"{(A.shape[0], B.shape[0])}, got shape {K.shape}"
        )
    return np.array(K, copy=True)


# -- the fitted kernel ----------------------------------------------------------------------


@dataclass(frozen=True)
class UnitKernel:
    r"""A kernel of :class:`pcalib.KernelPCA` as the fit evaluates it, in exact units.

    Rows x are read as :math:`y = (x - c)\, 2^{-e}` (:meth:`read`); a call gives
    :math:`(k(x, x') - \kappa)\, 2^{-2q}` for read rows (:func:`unit_kernel` says what
    each kernel takes for c, e, q and :math:`\kappa`).
    """

    kernel: str | Callable[[np.ndarray, np.ndarray], Any]  #: the kernel's name or the user's callable
    center: Center | None  #: c ("rbf", "linear"), else None (c = 0)
    data_exponent: int  #: e
    exponent: int  #: q
    gamma: float  #: "rbf": gamma 2^(2e); "poly": the factor f of tau = f y.y'; else 1
    coefficients: np.ndarray  #: "poly": alpha_0..alpha_d; else empty
    constant: float  #: kappa, in the data's units

    def read(self, X: np.ndarray) -> np.ndarray:
        """Rows of the data (or, precomputed, of the kernel) in these units: a new
        float64 array, C order."""
        if self.center is not None:
            Y = self.center.subtract(X)
        else:
            Y = np.array(X, dtype=np.float64, order="C")
        exponent = 2 * self.exponent if self.kernel == "precomputed" else self.data_exponent
        return np.ldexp(Y, -exponent, out=Y) if exponent else Y

    def to_data(self, Y: np.ndarray) -> np.ndarray:
        r"""Read rows back in the data's units, :math:`c + y\, 2^{e}` (a new array)."""
        X = np.ldexp(Y, self.data_exponent)
        if self.center is not None:
            X += self.center.offset
            X += self.center.shift
        return X

    def __call__(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """The matrix :math:`(k(a_i, b_l) - \\kappa)\\, 2^{-2q}` of read rows, a new float64 array."""
        kernel = self.kernel
        if callable(kernel):
            K = callable_kernel(kernel, A, B)
            return np.ldexp(K, -2 * self.exponent, out=K) if self.exponent else K
        if kernel == "rbf":
            return rbf_kernel(A, B, self.gamma)
        if kernel == "poly":
            return poly_kernel(A, B, self.gamma, self.coefficients)
        if kernel == "linear":
            return linear_kernel(A, B)
        if kernel == "cosine":
            return cosine_kernel(A, B)
        raise ValueError(f"no kernel function for kernel={kernel!r}")

    def scaled_to(self, K: np.ndarray) -> tuple[UnitKernel, np.ndarray]:
        r"""For a kernel whose scale is known only from its values (a callable): the
        kernel with q such that :math:`\max |K|\, 2^{-2q} \in [1/4, 1)`, and `K` in
        those units (in place)."""
        q = (unit_exponent(K) + 1) // 2
        return replace(self, exponent=q), np.ldexp(K, -2 * q, out=K)

    def data_gamma(self) -> float:
        r"""The Gaussian kernel's :math:`\gamma` in the data's units,
        :math:`\gamma\, 2^{-2e}` (a warning if that leaves the float64 range)."""
        return float(rescale(np.asarray(self.gamma), -2 * self.data_exponent, "gamma_"))


def unit_kernel(
    kernel: str | Callable[[np.ndarray, np.ndarray], Any], X: np.ndarray, gamma: float | None, degree: int,
    coef0: float, *, drop_constant: bool,
) -> tuple[UnitKernel, np.ndarray]:
    r"""The kernel of the fit in exact units, and the rows of `X` read in them.

    * ``"rbf"``: rows :math:`(x - \bar x)\, 2^{-e}` in the frame of
      :func:`pcalib._linalg.units.center_array` (int64 offset in integers first: exact),
      :math:`\gamma 2^{2e}` (``gamma=None``: :func:`unit_median_gamma` of the read
      rows), q = 0 (the kernel is at most 1);
    * ``"linear"``: the same rows, :math:`y^\top y'`, q = e;
    * ``"poly"``: rows :math:`x\, 2^{-e}` (the kernel is not translation invariant:
      no offset), e from the largest :math:`|x_{ij}|`; with :math:`\tau = f\, y^\top
      y'` (:math:`|\tau| \le 1` on the training rows) and
      :math:`\gamma x^\top x' = 2^{b} \tau`,

      .. math:: (\gamma x^\top x' + c_0)^d - \kappa
                = 2^{2q} \sum_{k = k_0}^{d} \alpha_k \tau^k,
                \qquad \alpha_k 2^{2q} = \binom{d}{k} c_0^{d-k}\, 2^{bk},

      with :math:`\kappa = c_0^d` and :math:`k_0 = 1` when `drop_constant`
      (:math:`\kappa = 0`, :math:`k_0 = 0` otherwise) and 2q the even power of two
      of the largest term, each :math:`\alpha_k` formed exactly by ``ldexp``;
    * ``"cosine"`` and a callable: the rows as float64, q = 0 (a callable's q is set
      from its values by :meth:`UnitKernel.scaled_to`);
    * ``"precomputed"``: `X` is the kernel matrix, q from its largest entry.

    Parameters
    ----------
    kernel : str or callable
    X : ndarray of shape (n, p)
        Validated (integers kept as they are).
    gamma : float or None
        Of "rbf" and "poly", in the data's units.
    degree, coef0
        Of "poly".
    drop_constant : bool
        Whether the exact route may drop a constant (not Nyström).

    Returns
    -------
    kernel : UnitKernel
    Y : ndarray of shape (n, p)
        The rows of `X` read in its units (for "precomputed", the kernel matrix).
    """
    fitted = UnitKernel(kernel, None, 0, 0, 1.0, np.empty(0), 0.0)
    if kernel in ("rbf", "linear"):
        centered = center_array(X, 1)
        e = centered.exponent
        fitted = replace(fitted, center=centered.center, data_exponent=e, exponent=e if kernel == "linear" else 0)
        if kernel == "rbf":
            with np.errstate(over="ignore"):  # beyond float64: every pair apart gives exp(-inf) = 0
                unit_gamma = unit_median_gamma(centered.values) if gamma is None else np.ldexp(gamma, 2 * e)
            fitted = replace(fitted, gamma=min(float(unit_gamma), float(np.finfo(np.float64).max)))
        return fitted, centered.values
    if kernel == "precomputed":
        fitted = replace(fitted, exponent=(unit_exponent(X) + 1) // 2)
        return fitted, fitted.read(X)
    if kernel == "poly":
        e = unit_exponent(X.astype(np.float64, copy=False))
        fitted = replace(fitted, data_exponent=e)
        Y = fitted.read(X)
        gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
        factor, coefficients, q = _poly_units(gamma, degree, float(coef0), 2 * e, Y, drop_constant)
        kappa = float(np.float64(coef0) ** degree) if drop_constant else 0.0
        return replace(fitted, exponent=q, gamma=factor, coefficients=coefficients, constant=kappa), Y
    return fitted, fitted.read(X)


def _poly_units(
    gamma: float, degree: int, coef0: float, two_e: int, Y: np.ndarray, drop_constant: bool
) -> tuple[float, np.ndarray, int]:
    r"""f, the :math:`\alpha_k` and q of the polynomial kernel (:func:`unit_kernel`).

    With :math:`\gamma = m_\gamma 2^{g}`, :math:`\max_i \|y_i\|^2 \le 2^{s}` and
    :math:`c_0 = m_c 2^{c}` (frexp), :math:`\gamma x^\top x' = 2^{b}\tau` with
    :math:`b = g + 2e + s` and :math:`f = m_\gamma 2^{-s}`; term k is
    :math:`\binom{d}{k} m_c^{d-k}\, 2^{c(d-k) + bk}\, \tau^k`.
    """
    m_gamma, g = math.frexp(gamma)
    s = math.frexp(float(np.einsum("ij,ij->i", Y, Y).max()) or 1.0)[1]
    b = g + two_e + s
    m_c, c = math.frexp(coef0)
    terms = range(degree, degree + 1) if coef0 == 0 else range(1 if drop_constant else 0, degree + 1)
    mantissas, powers = {}, {}
    for k in terms:
        m_binomial, e_binomial = _frexp_integer(math.comb(degree, k))
        m_power, e_power = _frexp_power(m_c, degree - k)
        mantissas[k], e_product = math.frexp(m_binomial * m_power)
        powers[k] = e_product + e_binomial + e_power + c * (degree - k) + b * k
    two_q = max(powers.values())
    two_q += two_q % 2
    coefficients = np.zeros(degree + 1)
    for k, mantissa in mantissas.items():
        coefficients[k] = math.ldexp(mantissa, powers[k] - two_q)
    return math.ldexp(m_gamma, -s), coefficients, two_q // 2


def _frexp_integer(value: int) -> tuple[float, int]:
    """``math.frexp`` of a positive integer of any size (its leading 64 bits)."""
    shift = max(value.bit_length() - 64, 0)
    mantissa, exponent = math.frexp(float(value >> shift))
    return mantissa, exponent + shift


def _frexp_power(mantissa: float, power: int) -> tuple[float, int]:
    """``math.frexp`` of ``mantissa ** power`` without underflow (binary powering, each
    product renormalized by frexp)."""
    result, result_exponent = 1.0, 0
    base, base_exponent = mantissa, 0
    while power:
        if power & 1:
            result, shift = math.frexp(result * base)
            result_exponent += shift + base_exponent
        base, shift = math.frexp(base * base)
        base_exponent = 2 * base_exponent + shift
        power >>= 1
    return result, result_exponent


# -- blocks of k(X, R) ----------------------------------------------------------------------


def kernel_blocks(
    kernel: Callable[[np.ndarray, np.ndarray], np.ndarray], X: np.ndarray, R: np.ndarray, shift: np.ndarray
) -> Iterator[tuple[int, np.ndarray]]:
    r"""The rows of :math:`k(X, R) - \mathbf 1 s^\top` (s = `shift`), block by block.

    Blocks of about ``constants.KERNEL_BLOCK_ENTRIES`` entries, so the whole q x n_ref kernel is
    never held.

    Parameters
    ----------
    kernel : callable
        ``kernel(A, R)``: the matrix :math:`k(a_i, r_l)`, a new array.
    X : ndarray of shape (q, p)
    R : ndarray of shape (n_ref, p)
        The reference rows.
    shift : ndarray of shape (n_ref,)

    Yields
    ------
    start : int
        The first row of X in the block.
    block : ndarray of shape (rows, n_ref)
        Its kernel rows minus s.
    """
    rows = max(1, constants.KERNEL_BLOCK_ENTRIES // max(R.shape[0], 1))
    for start in range(0, X.shape[0], rows):
        block = kernel(X[start:start + rows], R)
        block -= shift
        yield start, block


def kernel_scores(
    kernel: Callable[[np.ndarray, np.ndarray], np.ndarray], X: np.ndarray, R: np.ndarray, coef: np.ndarray,
    kernel_mean: np.ndarray, shift: np.ndarray,
) -> np.ndarray:
    r"""The scores :math:`t(x) = A^\top (k(R, x) - \bar k)` of the rows x of `X`.

    Read by :func:`kernel_blocks` shifted by s = `shift`, from which
    :math:`\bar k - s` is then subtracted (s near :math:`\bar k`: less cancellation).

    Parameters
    ----------
    kernel : callable
        ``kernel(A, R)``: the matrix :math:`k(a_i, r_l)`, a new array.
    X : ndarray of shape (q, p)
    R : ndarray of shape (n_ref, p)
        The reference rows.
    coef : ndarray of shape (n_ref, k)
        A.
    kernel_mean : ndarray of shape (n_ref,)
        :math:`\bar k`, the mean over the training rows of :math:`k(x_i, r)`.
    shift : ndarray of shape (n_ref,)
        s.

    Returns
    -------
    ndarray of shape (q, k)
    """
    T = np.empty((X.shape[0], coef.shape[1]))
    rest = kernel_mean - shift
    for start, block in kernel_blocks(kernel, X, R, shift):
        block -= rest
        T[start:start + block.shape[0]] = block @ coef
    return T


r"""The numerics of principal coordinates on D scaled to max|D| in [1/2, 1): squared
distances after a correction, weighted double centering, the round-off threshold of the
eigenvalues, the Lingoes and Cailliez constants, the Lingoes-shifted spectrum, and the
scaling back of results (chapter *Principal coordinates*)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.linalg

from . import constants

EPS = np.finfo(np.float64).eps


def center_rows_and_columns(C: np.ndarray) -> np.ndarray:
    r"""In place on a square float array C: :math:`HCH`, entrywise
    :math:`c_{ij} - \bar c_{i\cdot} - \bar c_{\cdot j} + \bar c_{\cdot\cdot}`, from the row
    and column means in :math:`O(n^2)` (the engine of :func:`pcalib.double_center`)."""
    row = C.mean(axis=1)
    col = C.mean(axis=0)
    C -= row[:, None]
    C -= col
    C += row.mean()
    return C


def squared_distances(D: np.ndarray, correction: str | None, constant: float) -> np.ndarray:
    r"""The squared dissimilarities after the correction, for distinct objects:
    :math:`d^2 + 2c_1` (Lingoes), :math:`(d + c_2)^2` (Cailliez), :math:`d^2` (none).
    The diagonal of a square D is left to the caller."""
    if correction == "lingoes" and constant:
        return D * D + 2 * constant
    if correction == "cailliez" and constant:
        shifted = D + constant
        return shifted * shifted
    return D * D


def double_centered(D2: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    r"""In place on the squared distances :math:`D^{(2)}` (symmetric, zero diagonal):

    .. math:: \Omega^{1/2} \big(-\tfrac12 H_\omega D^{(2)} H_\omega^\top\big) \Omega^{1/2},
        \qquad H_\omega = I - \mathbf{1}\omega^\top / \textstyle\sum_i \omega_i,

    entrywise :math:`-\frac12\sqrt{\omega_i\omega_j}\,(d_{ij}^2 - r_i - r_j + g)` with the
    weighted row means :math:`r = D^{(2)}\omega / \sum\omega` and
    :math:`g = \omega^\top r / \sum\omega`. Without weights, B itself.
    """
    n = D2.shape[0]
    row = D2.mean(axis=1) if weights is None else D2 @ weights / weights.sum()
    grand = row.mean() if weights is None else weights @ row / weights.sum()
    shifted = row - grand
    root = None if weights is None else np.sqrt(weights)
    for start in range(0, n, constants.DISTANCE_ROW_BLOCK):
        rows = slice(start, min(start + constants.DISTANCE_ROW_BLOCK, n))
        block = D2[rows]
        block -= row[rows, None] + shifted
        block *= -0.5
        if root is not None:
            block *= root[rows, None] * root
    return D2


def round_off(n: int, values: np.ndarray, smallest: float) -> float:
    """Eigenvalues below this in magnitude are round-off: n * eps * max |eigenvalue|."""
    return n * EPS * max(float(np.abs(values).max()), abs(smallest))


def correction_constant(D: np.ndarray, correction: str) -> float:
    r"""The Lingoes constant :math:`c_1 = -\beta_n` or the Cailliez constant :math:`c_2`,
    the largest real eigenvalue of :math:`\begin{pmatrix} 0 & 2B \\ -I & -4B_1\end{pmatrix}`
    with :math:`B_1 = -\frac12 HDH`; 0 if B has no negative eigenvalue (beyond round-off).
    Computed from the unweighted B: whether D is Euclidean does not depend on weights."""
    n = D.shape[0]
    B = double_centered(D * D, None)
    beta = scipy.linalg.eigh(B, eigvals_only=True, check_finite=False)
    if beta[0] >= -round_off(n, beta, beta[0]):
        return 0.0
    if correction == "lingoes":
        return float(-beta[0])
    B1 = 0.5 * center_rows_and_columns(-D)      # -1/2 H D H
    companion = np.block([[np.zeros((n, n)), 2 * B], [-np.eye(n), -4 * B1]])
    # The largest real part, as ape::pcoa and vegan take it: it is the largest real
    # eigenvalue (tests/test_pcoa.py checks this), and a real double root split by
    # round-off into a complex pair is still found.
    return float(scipy.linalg.eigvals(companion, check_finite=False, overwrite_a=True).real.max())


def lingoes_spectrum(M: np.ndarray, unit_D: np.ndarray, values: np.ndarray, vectors: np.ndarray,
                      total: float, w: np.ndarray | None) -> tuple[np.ndarray, float]:
    r"""Eigenvalues (decreasing, round-off set to 0) and trace of the analysis of the
    Lingoes-corrected table :math:`\sqrt{d_{ij}^2 + 2c_1}`, given the full
    eigendecomposition (`values` decreasing, `vectors`) and trace of the double-centered
    M of D. Without weights (the Lingoes proposition of the chapter) they are :math:`\beta_j + c_1`
    on the complement of :math:`\mathbf 1`, 0 on :math:`\mathbf 1` (the eigenvector
    closest to it is dropped), with trace :math:`\operatorname{tr} B + (n-1)c_1`: no
    second eigendecomposition. With weights, those of :math:`M + c_1 P P^\top`,
    :math:`P = \Omega^{1/2} H_\omega`. :math:`c_1` is that of the unweighted B."""
    n = M.shape[0]
    if w is None:
        c1 = -float(values[-1])
        on_ones = int(np.argmax(np.abs(vectors.sum(axis=0))))
        shifted_values = np.r_[np.delete(values, on_ones) + c1, 0.0]
        shifted_total = total + (n - 1) * c1
    else:
        c1 = correction_constant(unit_D, "lingoes")
        P = np.sqrt(w)[:, None] * (np.eye(n) - w[None, :] / w.sum())
        shifted = M + c1 * (P @ P.T)
        shifted_values = np.linalg.eigvalsh(shifted)[::-1]
        shifted_total = float(np.trace(shifted))
    shifted_values = np.sort(shifted_values)[::-1]
    tiny = round_off(n, shifted_values, float(shifted_values[-1]))
    return np.where(np.abs(shifted_values) < tiny, 0.0, shifted_values), shifted_total


def scaled(values: Any, exponent: int, dtype: np.dtype, name: str, lost: list[str] | None = None) -> Any:
    """``values * 2**exponent`` in `dtype`; a number that over- or underflows there is
    reported by name in `lost` (or, when `lost` is None, by a warning to the caller of
    the caller: a public method)."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(values, exponent).astype(dtype)
    failed = (values != 0) & ((np.abs(out) < np.finfo(dtype).tiny) | ~np.isfinite(out))
    if np.any(failed):
        if lost is None:
            warn_not_representable([name], dtype, exponent, stacklevel=4)
        else:
            lost.append(name)
    return out


def warn_not_representable(names: list[str], dtype: np.dtype, exponent: int, stacklevel: int = 3) -> None:
    warnings.warn(
        f"pcoa: {', '.join(names)} are not representable in {np.dtype(dtype).name} at the "
        f"scale of D (max D about 2**{exponent}): numbers that overflow are inf, numbers "
        f"that underflow lose digits or are 0. Coordinates and proportion_explained "
        f"are computed at a safe scale; divide D by a constant to get all numbers.",
        RuntimeWarning,
        stacklevel=stacklevel,
    )

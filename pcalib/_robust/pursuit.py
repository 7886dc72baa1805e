r"""Principal component pursuit (chapter *Outliers and robust PCA*).

Candès, Li, Ma and Wright (2011) split a matrix into a low-rank part and a sparse part
by the convex program

.. math::

    \min_{L, S}\ \|L\|_* + \varpi \|S\|_1 \quad \text{subject to} \quad L + S = M,

:math:`\|L\|_*` the sum of the singular values and :math:`\|S\|_1` the sum of the
absolute entries. It is solved here by the inexact augmented Lagrangian method of Lin,
Chen and Ma (2010), in the units of a power of two (the iteration's thresholds scale
with the data, so the same steps run at every scale).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._linalg.units import rescale, unit_exponent
from .._utils.validation import as_data_matrix

__all__ = ["PursuitResult", "principal_component_pursuit"]


class PursuitResult(NamedTuple):
    """The result of :func:`principal_component_pursuit`."""

    low_rank: np.ndarray  #: L (n, p)
    sparse: np.ndarray  #: S (n, p), M - L up to the stopping tolerance
    dual: np.ndarray  #: Y (n, p), the multiplier of L + S = M (the optimality certificate)
    n_iter: int  #: iterations run


def principal_component_pursuit(
    M: ArrayLike, sparse_weight: float | None = None, *, tol: float = 1e-9, max_iter: int = 1000,
) -> PursuitResult:
    r"""Split `M` into a low-rank L and a sparse S, :math:`M = L + S`, by principal
    component pursuit (module docstring).

    Inexact augmented Lagrangian: with the multiplier Y and penalty :math:`\mu`,
    repeat :math:`L \leftarrow \mathcal D_{1/\mu}(M - S + Y/\mu)` (soft-thresholding
    of the singular values), :math:`S \leftarrow \mathcal S_{\varpi/\mu}(M - L +
    Y/\mu)` (soft-thresholding of the entries), :math:`Y \leftarrow Y + \mu(M - L -
    S)`, until :math:`\|M - L - S\|_F \le \mathrm{tol}\,\|M\|_F`;
    :math:`\mu = np / (4\|M\|_1)` as Candès et al. choose it. At the solution Y
    certifies optimality: :math:`|Y_{ij}| \le \varpi`, with equality and the sign of
    :math:`S_{ij}` where :math:`S_{ij} \ne 0`, and :math:`Y = UV^\top + W` with U, V
    the singular vectors of L, :math:`U^\top W = 0`, :math:`WV = 0`,
    :math:`\|W\|_2 \le 1`.

    The data are not centered: PCP models M itself (subtract a center first if the
    low-rank part should be a PCA subspace).

    Parameters
    ----------
    M : array_like of shape (n, p)
        Finite; not modified.
    sparse_weight : float, optional
        The weight :math:`\varpi > 0` of :math:`\|S\|_1`; default :math:`1/\sqrt{\max(n, p)}`, the value under which
        Candès et al. prove exact recovery of a low-rank L (incoherent, rank at most
        a constant times :math:`\min(n, p)/\log^2\max(n, p)`) from a sparse S of
        randomly placed entries.
    tol : float, default 1e-9
    max_iter : int, default 1000

    Returns
    -------
    PursuitResult
        L, S, Y (in the data's units) and the iterations.

    Raises
    ------
    ValueError
        If `sparse_weight` is not positive, or the iteration did not reach `tol`.
    """
    arr = as_data_matrix(M, "M").astype(np.float64, copy=False)
    n, p = arr.shape
    weight = 1.0 / np.sqrt(max(n, p)) if sparse_weight is None else sparse_weight
    if not (isinstance(weight, (int, float, np.floating)) and not isinstance(weight, bool) and weight > 0):
        raise ValueError(f"sparse_weight must be a positive number, got {weight!r}")
    e = unit_exponent(arr)
    A = np.ldexp(arr, -e)  # entries in (-1, 1): thresholds and norms at one scale
    size = float(np.abs(A).sum())
    if size == 0.0:
        zero = np.zeros_like(arr)
        return PursuitResult(zero, zero.copy(), zero.copy(), 0)
    mu = n * p / (4.0 * size)
    norm = float(np.linalg.norm(A))
    S, Y = np.zeros_like(A), np.zeros_like(A)
    iterations = 0
    while True:
        iterations += 1
        U, s, Vt = np.linalg.svd(A - S + Y / mu, full_matrices=False)
        L = (U * np.maximum(s - 1.0 / mu, 0.0)) @ Vt
        T = A - L + Y / mu
        S = np.sign(T) * np.maximum(np.abs(T) - weight / mu, 0.0)
        residual = A - L - S
        Y += mu * residual
        if np.linalg.norm(residual) <= tol * norm:
            break
        if iterations == max_iter:
            raise ValueError(
                f"principal component pursuit did not reach tol={tol} in max_iter={max_iter} "
                "iterations: raise max_iter or tol"
            )
    # Y is a subgradient, a scale-free quantity (the thresholds 1 and the weight)
    return PursuitResult(rescale(L, e, "L"), rescale(S, e, "S"), Y, iterations)

r"""The principal inertias and axes of multiple correspondence analysis, and the
corrections of Benzécri and Greenacre.

MCA of Q coded columns (n rows, J categories in all) is the CA of the n x J indicator
matrix Z. Two routes, both in :math:`O(nQ + Jk)` memory besides the n x k row
coordinates (on the truncated route, the Ritz step's :math:`EV_k` and its left singular
vectors):

* few categories (:math:`J^2 \le \max(` :data:`constants.BURT_MAX_J` :math:`^2, nQ)`): every
  principal inertia, from the J x J matrix
  :math:`E^\top E = D_c^{-1/2}(B/(nQ^2) - \mathbf c\mathbf c^\top)D_c^{-1/2}`,
  B = :math:`Z^\top Z` the Burt matrix;
* many categories (an identifier-like column): the truncated route of
  :func:`pcalib._categories.ca_solver.residual_svd` on the sparse Z, for the leading axes only:
  k, or more until one falls to :math:`1/Q` (the corrections need every axis
  above it).

Greenacre's total, the average inertia of the :math:`Q(Q-1)` cross-tables of pairs of
columns, is computed from those cross-tables (:func:`greenacre_total`), with their
non-zero cells only: it needs no eigenvalue.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse

from .._linalg import constants
from .ca_solver import residual_svd, sparse_inertias
from .ca_tables import counts_table

__all__ = [
    "Spectrum", "burt_matrix", "corrected_ratios", "correlation_ratios", "greenacre_total",
    "mca_spectrum",
]

_EPS = float(np.finfo(np.float64).eps)


class Spectrum(NamedTuple):
    """Principal inertias and right singular vectors of the indicator matrix."""

    eigenvalues: np.ndarray  #: every one (Burt route) or the leading ones, decreasing
    axes: np.ndarray  #: (J, k) the k leading right singular vectors of E (no sign convention)


def _pair_table(x: np.ndarray, y: np.ndarray, Jx: int, Jy: int) -> np.ndarray | scipy.sparse.csr_matrix:
    """The cross-table of two coded columns: dense (by ``bincount``) unless it has many
    more cells than rows, then CSR of its non-zero cells."""
    if Jx * Jy <= 4 * x.size + 4096:
        return np.bincount(x * Jy + y, minlength=Jx * Jy).reshape(Jx, Jy).astype(np.float64)
    cells, counts = np.unique(x * Jy + y, return_counts=True)
    return scipy.sparse.csr_matrix((counts.astype(np.float64), (cells // Jy, cells % Jy)), shape=(Jx, Jy))


def _table_inertia(table: np.ndarray | scipy.sparse.csr_matrix) -> float:
    r""":math:`\chi^2/n` of a cross-table: from the exact residual numerators
    :math:`n\,n_{ij} - R_iC_j` (integers below :math:`2^{53}`) when dense, else from
    its non-zero cells (:func:`pcalib._categories.ca_solver.sparse_inertias`)."""
    if scipy.sparse.issparse(table):
        return float(sparse_inertias(counts_table(table))[0].sum())
    R, C = table.sum(axis=1), table.sum(axis=0)
    n = R.sum()
    keep_r, keep_c = R > 0, C > 0
    T, R, C = table[np.ix_(keep_r, keep_c)], R[keep_r], C[keep_c]
    return float(np.sum((n * T - np.outer(R, C)) ** 2 / np.outer(R, C)) / n**2)


def burt_matrix(codes: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    r"""The J x J Burt matrix :math:`Z^\top Z`: the category counts on its diagonal,
    the cross-tables of pairs of columns off it (``bincount``, no Python loop over rows)."""
    offsets = np.cumsum([0] + sizes)
    B = np.zeros((offsets[-1], offsets[-1]))
    for a in range(len(codes)):
        block = slice(offsets[a], offsets[a + 1])
        B[block, block] = np.diag(np.bincount(codes[a], minlength=sizes[a]).astype(np.float64))
        for b in range(a + 1, len(codes)):
            table = np.bincount(codes[a] * sizes[b] + codes[b], minlength=sizes[a] * sizes[b])
            B[block, offsets[b] : offsets[b + 1]] = table.reshape(sizes[a], sizes[b])
            B[offsets[b] : offsets[b + 1], block] = B[block, offsets[b] : offsets[b + 1]].T
    return B


def _burt_spectrum(B: np.ndarray, n: int, c: np.ndarray, Q: int, k: int) -> Spectrum:
    J = B.shape[0]
    sc = np.sqrt(c)
    M = B / (n * Q**2)
    M /= sc[:, None]
    M /= sc
    M -= np.outer(sc, sc)
    lam, V = np.linalg.eigh(M)
    upper = min(n - 1, J - Q)
    return Spectrum(np.maximum(lam[::-1][:upper], 0.0), V[:, ::-1][:, :k].copy())


def _truncated_spectrum(Z: scipy.sparse.csr_matrix, Q: int, k: int) -> Spectrum:
    n, J = Z.shape
    upper = min(n - 1, J - Q)
    wanted = k
    counts = counts_table(Z)
    while True:
        found = residual_svd(counts, wanted)
        lam = found.s**2
        if lam[-1] <= 1.0 / Q + J * _EPS or wanted == upper:
            return Spectrum(lam, found.V[:, :k].copy())
        wanted = min(2 * wanted, upper)


def mca_spectrum(
    Z: scipy.sparse.csr_matrix, codes: list[np.ndarray], sizes: list[int], c: np.ndarray, k: int
) -> tuple[Spectrum, float]:
    """The principal inertias and the k leading axes of the indicator matrix `Z`
    (n x J, one column of `codes` per variable; `c` the column masses), by the route
    its size calls for (module docstring); and Greenacre's total."""
    n, J = Z.shape
    Q = len(codes)
    if J**2 <= max(constants.BURT_MAX_J**2, n * Q):
        B = burt_matrix(codes, sizes)
        return _burt_spectrum(B, n, c, Q, k), greenacre_total(codes, sizes, B)
    return _truncated_spectrum(Z, Q, k), greenacre_total(codes, sizes)


def greenacre_total(codes: list[np.ndarray], sizes: list[int], burt: np.ndarray | None = None) -> float:
    r"""The average inertia of the :math:`Q(Q-1)` cross-tables of pairs of columns
    (Greenacre's adjusted total inertia), from the blocks of the Burt matrix `burt`
    if given, else from each cross-table in turn.

    Equal to :math:`\frac{Q}{Q-1}\big(\sum_s\lambda_s^2 - \frac{J-Q}{Q^2}\big)`, the
    sum running over every principal inertia of the MCA (the Burt matrix, as a table,
    has principal inertias :math:`\lambda_s^2`); computed from the tables, it needs
    no eigenvalue and does not cancel.
    """
    Q = len(codes)
    if Q < 2:
        return float("nan")
    offsets = np.cumsum([0] + sizes)
    inertias = []
    for a in range(Q):
        for b in range(a + 1, Q):
            if burt is not None:
                table = burt[offsets[a] : offsets[a + 1], offsets[b] : offsets[b + 1]]
            else:
                table = _pair_table(codes[a], codes[b], sizes[a], sizes[b])
            inertias.append(_table_inertia(table))
    return 2.0 * float(np.sum(inertias)) / (Q * (Q - 1))


def corrected_ratios(eigenvalues: np.ndarray, Q: int, J: int, total: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Benzécri's adjusted inertias :math:`\big(\frac{Q}{Q-1}\big)^2(\lambda_s - 1/Q)^2` of
    the axes with :math:`\lambda_s > 1/Q`, their shares of their own sum (Benzécri) and
    of Greenacre's `total`. With one column, no correction applies: the raw inertias
    and their shares."""
    above = eigenvalues[eigenvalues > 1.0 / Q + J * _EPS]
    if Q == 1:
        return above, above / above.sum(), above / above.sum()
    adjusted = (Q / (Q - 1.0) * (above - 1.0 / Q)) ** 2
    return adjusted, adjusted / adjusted.sum(), adjusted / total


def correlation_ratios(coordinates: np.ndarray, shares: np.ndarray, sizes: list[int]) -> np.ndarray:
    r"""The squared correlation ratios :math:`\eta^2_{qs} = \sum_{j \in q} (n_j/n)\,y_{js}^2`
    of each variable q with each axis s, from its categories' principal coordinates
    :math:`y_{js}` (`coordinates`, J x k), their shares :math:`n_j/n` and the number
    of categories of each variable (`sizes`)."""
    weighted = shares[:, None] * coordinates**2
    return np.add.reduceat(weighted, np.cumsum([0] + sizes[:-1]), axis=0)

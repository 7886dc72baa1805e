r"""The principal inertias and axes of multiple correspondence analysis, and the
corrections of Benzécri and Greenacre.

MCA of Q coded columns (n rows, J categories in all) is the CA of the n x J indicator
matrix Z. Two routes, both in :math:`O(nQ + Jk)` memory:

* few categories (:math:`J^2 \le \max(` :data:`BURT_MAX_J` :math:`^2, nQ)`): every
  principal inertia, from the J x J matrix
  :math:`E^\top E = D_c^{-1/2}(B/(nQ^2) - \mathbf c\mathbf c^\top)D_c^{-1/2}`,
  B = :math:`Z^\top Z` the Burt matrix;
* many categories (an identifier-like column): the truncated route of
  :func:`pcalib._ca_solver.residual_svd` on the sparse Z, for the leading axes only:
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

from ._ca_solver import residual_svd, sparse_inertias
from ._ca_tables import counts_table

__all__ = ["BURT_MAX_J", "Spectrum", "corrected_ratios", "greenacre_total", "mca_spectrum"]

_EPS = float(np.finfo(np.float64).eps)

#: Up to this many categories the Burt route is taken whatever n (a J x J float64 array
#: of 8 MiB; LAPACK's eigh of it takes about 0.3 s on 2 cores).
BURT_MAX_J = 1024


class Spectrum(NamedTuple):
    """Principal inertias and right singular vectors of the indicator matrix."""

    eigenvalues: np.ndarray  #: every one (Burt route) or the leading ones, decreasing
    axes: np.ndarray  #: (J, k) the k leading right singular vectors of E (no sign convention)


def _burt_spectrum(Z: scipy.sparse.csr_matrix, c: np.ndarray, Q: int, k: int) -> Spectrum:
    n, J = Z.shape
    sc = np.sqrt(c)
    M = (Z.T @ Z).toarray()
    M /= n * Q**2
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


def mca_spectrum(Z: scipy.sparse.csr_matrix, c: np.ndarray, Q: int, k: int) -> Spectrum:
    """The principal inertias and the k leading axes of the indicator matrix `Z`
    (n x J, Q ones a row; `c` the column masses), by the route its size calls for
    (module docstring)."""
    n, J = Z.shape
    if J**2 <= max(BURT_MAX_J**2, n * Q):
        return _burt_spectrum(Z, c, Q, k)
    return _truncated_spectrum(Z, Q, k)


def greenacre_total(codes: list[np.ndarray], sizes: list[int]) -> float:
    r"""The average inertia of the :math:`Q(Q-1)` cross-tables of pairs of columns
    (Greenacre's adjusted total inertia), each from its non-zero cells.

    Equal to :math:`\frac{Q}{Q-1}\big(\sum_s\lambda_s^2 - \frac{J-Q}{Q^2}\big)`, the
    sum running over every principal inertia of the MCA (the Burt matrix, as a table,
    has principal inertias :math:`\lambda_s^2`).
    """
    Q = len(codes)
    if Q < 2:
        return float("nan")
    inertias = []
    for a in range(Q):
        for b in range(a + 1, Q):
            cells, counts = np.unique(codes[a] * sizes[b] + codes[b], return_counts=True)
            table = scipy.sparse.csr_matrix(
                (counts.astype(np.float64), (cells // sizes[b], cells % sizes[b])), shape=(sizes[a], sizes[b])
            )
            inertias.append(float(sparse_inertias(counts_table(table))[0].sum()))
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

r"""The failure forecasts of the Krylov solvers: block Krylov's
(:mod:`pcalib._linalg.eigen`) and single-vector Lanczos's (:mod:`pcalib._linalg.lanczos`)
extrapolate the decay of their residuals with these two functions (a module of its own:
:mod:`pcalib._linalg.eigen` imports the Lanczos module's probe for missed copies)."""

from __future__ import annotations

import numpy as np

__all__ = ["decay_rates", "misses_budget"]


def decay_rates(history: list[tuple[int, float]]) -> list[float]:
    r"""The decay rates :math:`\rho_j = (\log r_j - \log r_{j-2}) / (d_j - d_{j-2})` of
    the residuals ``history`` (dimension d, residual r), over steps two entries apart:
    what the failure forecasts of block Krylov (``pcalib._linalg.eigen``) and of
    single-vector Lanczos (``pcalib._linalg.lanczos``) extrapolate."""
    return [np.log(r1 / r0) / (d1 - d0) for (d0, r0), (d1, r1) in zip(history, history[2:])]


def misses_budget(d: int, residual: float, rtol: float, rate: float, budget: int) -> bool:
    r"""Whether a residual `residual` at dimension d, falling at `rate` per dimension,
    reaches `rtol` only past `budget`, :math:`d + \log(\mathrm{rtol}/r)/\rho >
    \text{budget}`, or never (:math:`\rho \ge 0`)."""
    return rate >= 0 or d + np.log(rtol / residual) / rate > budget

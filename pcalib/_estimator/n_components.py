"""The number of components an estimator asks for: `n_components` and `solver` checked
against the data's shape, and the cut that a fraction of variance or Minka's rule makes
once every component is computed (for :class:`pcalib.PCA`'s ``fit`` and
``partial_fit``; public as ``pcalib.solvers.components_to_compute`` and
``pcalib.solvers.cut_to_request``)."""

from __future__ import annotations

import numbers
from typing import cast

import numpy as np

from .._linalg.spectrum_rules import ratio_rule, spectrum_of_ratios
from .._routes.decomposition import Decomposition
from .._utils.validation import check_n_components

__all__ = ["SOLVERS", "components_to_compute", "cut_to_request"]

SOLVERS = ("auto", "eig", "svd", "gram", "krylov", "randomized")


def components_to_compute(n_components: object, solver: str, n: int, p: int) -> tuple[int, bool]:
    """`n_components` and `solver` checked against n x p data: the number of components
    to compute, and whether a fraction of variance or Minka's rule cuts them after."""
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    m = min(n, p)
    nc = n_components
    if nc is None:
        return m, False
    if isinstance(nc, str) and nc == "mle":
        if not n >= p >= 2:
            raise ValueError(f"n_components='mle' needs n_samples >= n_features >= 2, got {n} x {p}")
        if solver in ("randomized", "krylov"):
            raise ValueError(f"solver={solver!r} needs an integer n_components, got 'mle'")
        return m, True
    if isinstance(nc, numbers.Real) and not isinstance(nc, (numbers.Integral, bool, np.bool_)):
        if not 0 < float(nc) < 1:
            raise ValueError(
                f"n_components as a float is the fraction of variance to keep and must be "
                f"in (0, 1), got {nc}"
            )
        if solver in ("randomized", "krylov"):
            raise ValueError(
                f"solver={solver!r} needs an integer n_components (it computes only k "
                f"components), got the fraction {nc}"
            )
        return m, True
    if isinstance(nc, (bool, np.bool_)) or not isinstance(nc, numbers.Integral):
        raise TypeError(
            f"n_components must be an int, a float in (0, 1) or None, got {nc!r} of type {type(nc).__name__}"
            " (or the string 'mle' for Minka's rule)"
        )
    return check_n_components(nc, m, "n_components"), False


def cut_to_request(found: Decomposition, n_components: object, n: int) -> Decomposition:
    """`found` cut to the k that the fraction of variance `n_components` or Minka's rule
    ("mle") chooses for n samples."""
    ratio = found.explained_variance_ratio()
    if isinstance(n_components, str):  # as choose_k(ratio, method="minka", n_samples=n)
        k = ratio_rule("minka", spectrum_of_ratios(ratio, n, False), 0.95)
    else:  # as choose_k(ratio, n_components)
        k = ratio_rule("threshold", spectrum_of_ratios(ratio, None, False), float(cast(float, n_components)))
    return found.truncated(k)

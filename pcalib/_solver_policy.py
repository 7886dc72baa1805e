r"""Which route fits which data: the policy of ``PCA(solver="auto")``.

Pure functions of the shape, the number of components and (for sparse data) the
stored entries per row and column; no data are read here. The routes themselves
live in :mod:`pcalib.pca`; :class:`pcalib.PCA` asks :func:`dense_route` or
:func:`implicit_route` which one to run. Every constant is a measurement on the
2-core machine the book is built on (the comments say which), so the policy can be
re-measured with ``python -m tests.benchmarks`` without reading the estimator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._eigen import krylov_block
from .pca import _KEPT_MOMENTS_MAX_FEATURES

__all__ = ["SOLVERS", "dense_route", "implicit_route", "krylov_budget", "lanczos_budget", "sparse_route_costs"]

SOLVERS = ("auto", "eig", "svd", "gram", "krylov", "randomized")

# Thresholds of the "auto" rule (see PCA's docstring), measured on 2 cores with
# tests/benchmarks.py data, k = 10:
# - full SVD of n x p with n * p * min(n, p) = 1.2e6 (500 x 50): 4 ms; at 2e7
#   (2000 x 100): 50 ms, against 3 ms for the covariance route;
# - n >= 4p: Marchenko-Pastur bound on the conditioning of pure noise (docstring);
# - 20000 x 3000: exact covariance route 2.5 s, randomized 2.5 s; 20000 x 5000:
#   7.5 s against 4.8 s. Exact while it costs at most about 1.6 times the randomized.
_SMALL_WORK = 1e6
_ASPECT = 4
# The dense Krylov route of "auto" (rule 2 of PCA's docstring), costed in seconds on
# 2 cores: a syrk forming X_c^T X_c or X_c X_c^T, per multiplication (n p min(n, p),
# 0.40 s at 6000 x 2500, 0.87 s at 20000 x 2000: about 9e10 per second); the
# eigensolver of that m x m matrix, per m^3 (0.5 s at m = 2500, 6-7 s at 5000); a Krylov block, the
# two products X_c^T (X_c Q), per flop 4 n p b (b = max(2k, k + 10) columns:
# 0.015-0.07 s at 3000 x 3000 and 6000 x 2500, b = 20, about 3e10 per second, but
# slower per flop than the syrk). Block Krylov may spend up to _KRYLOV_SHARE of the exact
# route's estimated time (20000 x 2000, k = 5, decaying: converged at 8 blocks, 0.75 s
# with the copy, against 1.07 s for the eig route); it is tried only when that allows
# _KRYLOV_MIN_BLOCKS blocks.
_SYRK_SECONDS = 1.1e-11
_EIGENSOLVER_SECONDS = 4e-11
_THIN_PRODUCT_SECONDS = 3.3e-11
_KRYLOV_SHARE = 1.0
_KRYLOV_MIN_BLOCKS = 4
# After block Krylov, the Lanczos method (one vector per product, two passes over X_c):
# per vector, per entry of X (15 ms at 5000 x 5000, 21 ms at 2000 x 20000 on 2 cores,
# memory-bound), within _LANCZOS_SHARE of the exact route's time (it has no early stop,
# so a failure costs all of it: at half, 10000 x 4000 on a flat spectrum, k = 10,
# stopped at 90 of the 133 vectors it needed and took 7.3 s in all); tried when that allows
# at least 90 vectors and 6 times ARPACK's 2k + 1 (measured to reach the residual test
# at 5000 x 5000 and similar shapes: 47-81 vectors for k = 5 and 10 on a decaying
# spectrum, 117-164 on a flat one; 514-556 for k = 50, decaying).
_LANCZOS_VECTOR_ENTRY_SECONDS = 6e-10
_LANCZOS_SHARE = 1.0
_LANCZOS_MIN_VECTORS = 90
# Sparse and Dask data: the p x p covariance from one pass up to this many features
# (134 MB per p x p matrix, one per chunk being reduced), the implicit route beyond
# (Lanczos for sparse data, block Krylov for Dask).
_SCATTER_MAX_FEATURES = 4096
# Sparse data, solver="auto": the cost model of PCA's docstring, in seconds on 2 cores
# (measured with tests/benchmarks.py-like random CSR matrices): a sparse product X^T X or
# X X^T, per multiplication and per entry of its dense result (0.07 s for 100,000 x 2000
# at 0.1%, 0.32 s for 2000 x 50,000 at 1%); a dense m x m eigensolve, per m^3 (0.11 s at
# m = 1000, 0.7 s at 2000); a Lanczos product, per stored entry and per entry of ARPACK's
# ncv vectors of length p (0.5 s for the benchmark's 160 products of 100,000 x 20,000
# with 2,000,000 stored entries; 45 s for 1000 x 200,000 with 200,000, k = 100, where
# the vectors dominate). Lanczos is taken only if estimated at least
# _SPARSE_EXACT_PREMIUM times faster than the best exact route.
_SPARSE_PRODUCT_SECONDS = 1.5e-8
_EIGH_SECONDS = 1e-10
_LANCZOS_ENTRY_SECONDS = 1.2e-9
_LANCZOS_VECTOR_SECONDS = 7e-10
_SPARSE_EXACT_PREMIUM = 2.0


def sparse_route_costs(n: int, p: int, k: int, rows: np.ndarray, columns: np.ndarray) -> dict[str, float]:
    r"""Estimated seconds of each route for a sparse n x p matrix with ``rows[i]``
    entries stored in row i and ``columns[j]`` in column j (nnz in all), k components:

    .. math::

        t_\text{eig} &= a \Big(\sum_i r_i^2 + p^2\Big) + e\, p^3, \qquad
        t_\text{gram} = a \Big(\sum_j c_j^2 + n^2\Big) + e\, n^3 + b\, \mathrm{nnz}\, k, \\
        t_\text{Lanczos} &= (16 k + 20)\, \big(b\, \mathrm{nnz} + v\, p\, \max(2k + 1, 30)\big)

    (a per multiplication of the sparse product :math:`X^\top X` or :math:`X X^\top`
    and per entry of its dense result, e per :math:`m^3` of the eigensolver, b per
    stored entry of a Lanczos product, v per entry of ARPACK's Lanczos vectors, about
    16 products per component as measured). "eig" only up to
    ``_SCATTER_MAX_FEATURES`` features, "gram" up to as many samples (their dense
    matrices), Lanczos for k < p."""
    costs = {}
    nnz = float(rows.sum())
    if p <= _SCATTER_MAX_FEATURES:
        costs["eig"] = _SPARSE_PRODUCT_SECONDS * (float(rows @ rows) + p * p) + _EIGH_SECONDS * p**3
    if n <= _SCATTER_MAX_FEATURES:
        costs["gram"] = (_SPARSE_PRODUCT_SECONDS * (float(columns @ columns) + n * n) + _EIGH_SECONDS * n**3
                         + _LANCZOS_ENTRY_SECONDS * nnz * k)
    if k < p:
        vectors = p * max(2 * k + 1, 30)
        costs["randomized"] = (16 * k + 20) * (_LANCZOS_ENTRY_SECONDS * nnz + _LANCZOS_VECTOR_SECONDS * vectors)
    return costs


def krylov_budget(n: int, p: int, k: int) -> int:
    r"""Largest number of Krylov blocks the dense "krylov" route of "auto" may spend on
    an n x p matrix for k components: :math:`\lfloor s\, t_\text{exact} /
    t_\text{block} \rfloor` with

    .. math::

        t_\text{exact} = a\, n p m + e\, m^3, \qquad t_\text{block} = 4 c\, n p b,

    m = min(n, p), b = max(2k, k + 10) the block width, a, e and c the measured
    seconds per multiplication of the syrk, per :math:`m^3` of the eigensolver and per
    flop of a thin product (``_SYRK_SECONDS``, ``_EIGENSOLVER_SECONDS``,
    ``_THIN_PRODUCT_SECONDS``), and :math:`s = 1` (``_KRYLOV_SHARE``): a block Krylov
    run that converges at the end of its budget costs what the exact route would have
    cost, and one that will not converge is stopped after three blocks when the decay
    of its residual predicts it (:func:`pcalib._eigen.krylov_top_operator`); the
    Lanczos stage after it gets as much (:func:`lanczos_budget`).
    0 when p <= ``_KEPT_MOMENTS_MAX_FEATURES``: there the eig route keeps the scatter
    matrix for a later ``partial_fit``, and costs little."""
    m = min(n, p)
    if p <= _KEPT_MOMENTS_MAX_FEATURES:
        return 0
    exact = _SYRK_SECONDS * n * p * m + _EIGENSOLVER_SECONDS * m**3
    block = _THIN_PRODUCT_SECONDS * 4 * n * p * krylov_block(k, m)
    return int(_KRYLOV_SHARE * exact / block)


def lanczos_budget(n: int, p: int, k: int) -> int:
    r"""Largest number of vectors the Lanczos stage of the dense "krylov" route of "auto"
    may multiply, :math:`\lfloor s\, t_\text{exact} / (L\, n p) \rfloor` with
    :math:`L = 6 \cdot 10^{-10}` s per entry of X and per vector
    (``_LANCZOS_VECTOR_ENTRY_SECONDS``), :math:`t_\text{exact}` as in
    :func:`krylov_budget` and :math:`s = 1` (``_LANCZOS_SHARE``); 0 below :math:`\max(90, 6(2k + 1))` vectors (ARPACK keeps
    :math:`\max(2k + 1, 30)`), and up to 1024 features."""
    m = min(n, p)
    if p <= _KEPT_MOMENTS_MAX_FEATURES or k >= m - 1:
        return 0
    exact = _SYRK_SECONDS * n * p * m + _EIGENSOLVER_SECONDS * m**3
    vectors = int(_LANCZOS_SHARE * exact / (_LANCZOS_VECTOR_ENTRY_SECONDS * n * p))
    return vectors if vectors >= max(_LANCZOS_MIN_VECTORS, 6 * (2 * k + 1)) else 0


def dense_route(solver: str, n: int, p: int, k: int, every_component: bool) -> str:
    """The route for a NumPy array of n samples and p features, k components
    (`every_component`: all of them are wanted, or as many as a fraction of variance
    needs): `solver` itself unless it is "auto", else rules 1 to 3 of
    :class:`pcalib.PCA`'s docstring."""
    if solver != "auto":
        return solver
    m = min(n, p)
    if n * p * m <= _SMALL_WORK:
        return "svd"
    if every_component or k == m:
        return "eig" if n >= _ASPECT * p else "gram" if p >= _ASPECT * n else "svd"
    square_ish = n < _ASPECT * p and p < _ASPECT * n  # tall and wide data keep their one syrk
    if square_ish and (krylov_budget(n, p, k) >= _KRYLOV_MIN_BLOCKS or lanczos_budget(n, p, k)):
        return "krylov"
    return "eig" if n >= p or (p <= _KEPT_MOMENTS_MAX_FEATURES and p < _ASPECT * n) else "gram"


def implicit_route(solver: str, n: int, p: int, k: int, every_component: bool, data: Any) -> str:
    """The route for sparse or Dask data (`data`, :mod:`pcalib._inputs`): the covariance
    from the one-pass moments up to ``_SCATTER_MAX_FEATURES`` features, the implicit
    Krylov route beyond (and for solver="randomized" or "krylov" with an integer k);
    "auto" on sparse data takes the route of least estimated cost
    (:func:`sparse_route_costs`).

    Raises
    ------
    ValueError
        For "gram" on Dask data, "gram" or "svd" on sparse data with min(n, p) above
        ``_SCATTER_MAX_FEATURES``, and every component beyond that many features.
    """
    kind = type(data).__name__.replace("Matrix", "").lower()
    if solver == "gram" and not data.in_memory:
        raise ValueError(
            f"solver='gram' needs the {kind} data in memory; use solver='auto', 'eig', "
            "'randomized' or 'svd' (TSQR)"
        )
    if solver in ("gram", "svd") and data.in_memory and min(n, p) > _SCATTER_MAX_FEATURES:
        raise ValueError(
            f"solver={solver!r} on sparse data keeps a {min(n, p)} x {min(n, p)} dense "
            f"matrix (at most {_SCATTER_MAX_FEATURES} allowed): use solver='auto' or "
            "'randomized' (Lanczos)"
        )
    route = solver
    if solver == "auto" and data.in_memory:
        costs = sparse_route_costs(n, p, k, *data.stored_per_row_and_column())
        exact = {name: cost for name, cost in costs.items() if name != "randomized"}
        route = min(exact, key=lambda name: exact[name]) if exact else "randomized"
        if not every_component and k < p and (not exact or _SPARSE_EXACT_PREMIUM * costs["randomized"] < exact[route]):
            route = "randomized"
    elif solver in ("auto", "eig"):
        route = "eig" if p <= _SCATTER_MAX_FEATURES else "randomized"
    if route in ("randomized", "krylov") and every_component:
        # the Krylov route finds k leading components; all of them, or as many as a
        # fraction of variance needs, come exactly from the one-pass covariance
        if p <= _SCATTER_MAX_FEATURES:
            return "eig"
        raise ValueError(
            f"the {kind} route for p = {p} > {_SCATTER_MAX_FEATURES} features computes only "
            "the k leading components: pass an integer n_components"
        )
    return route

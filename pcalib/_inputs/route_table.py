"""The routes of PCA that a kind of data runs: the table each input adapter carries.

:mod:`pcalib.solvers` (the policy of ``solver="auto"`` and of the solvers passed
explicitly) and :func:`pcalib._routes.dense.decompose_matrix` (which runs a route) ask
the adapter's :class:`RouteTable`, never the adapter's class: which solvers the kind
runs and by which decomposition, the rule by which "auto" chooses among them, which
routes the accuracy guard checks, and which keep a dense matrix of order min(n, p).
The tables themselves are class attributes of :class:`pcalib._inputs.matrix.DenseMatrix`,
:class:`pcalib._inputs.sparse.SparseMatrix` and :class:`pcalib._inputs.dask.DaskMatrix`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["IN_MEMORY", "RouteTable"]

#: The decomposition of data held as one NumPy array: the skeletons of
#: :func:`pcalib._routes.dense._decompose_data`, one per solver.
IN_MEMORY = "in_memory"


@dataclass(frozen=True)
class RouteTable:
    """What a kind of data tells the policy and the routes about itself.

    The decompositions `runs` names are those of :func:`pcalib._routes.dense.decompose_matrix`:
    :data:`IN_MEMORY`, or one of :data:`pcalib._routes.implicit.IMPLICIT_DECOMPOSITIONS`
    ("moments", "lanczos", "block_krylov", "sparse_gram", "sparse_qr", "tsqr").
    """

    #: the kind, as messages name it ("dense", "sparse", "dask")
    label: str
    #: each solver the kind runs -> the decomposition that runs it
    runs: Mapping[str, str]
    #: how "auto" chooses: "shape", the rules of :func:`pcalib.solvers.dense_route`;
    #: "least_cost", the cost model of :func:`pcalib.solvers.sparse_route_costs` on the
    #: entries stored per row and column; "one_pass", the covariance from one pass up to
    #: ``constants.SCATTER_MAX_FEATURES`` features and the Krylov route beyond
    #: (the last two in :func:`pcalib.solvers.implicit_route`)
    auto: Literal["shape", "least_cost", "one_pass"]
    #: the routes whose result the accuracy guard of "auto" checks (then "svd" recomputes,
    #: or, where the "svd" route would keep too large a matrix, a warning says so)
    guarded: frozenset[str]
    #: the solvers that keep a dense min(n, p) x min(n, p) matrix of this kind's data,
    #: refused beyond ``constants.SCATTER_MAX_FEATURES``, and what to use instead
    square: frozenset[str] = field(default_factory=frozenset)
    square_instead: str = ""
    #: the order of the dense matrix the kind's "svd" route keeps: "min", min(n, p)
    #: (LAPACK's SVD, the sparse block QR), or "features", p (TSQR's p x p R); the guard
    #: recomputes a "randomized" fit by "svd" only up to ``constants.SCATTER_MAX_FEATURES``
    #: of that order, and beyond it warns
    svd_order: Literal["min", "features"] = "min"
    #: the guard's warning: the Krylov route's name, and the advice after "ask for fewer
    #: components, or "
    krylov_name: str = "Lanczos"
    exact_instead: str = "densify X"
    #: what a solver the kind does not run is told (after "solver='name' ")
    refusal: str = "is not a route of this kind of data"
    #: whether the route that ran is the one the decomposition reports (the dense Krylov
    #: route of "auto" gives way to "eig" or "gram" past its budget), not the one asked
    reports_route: bool = False

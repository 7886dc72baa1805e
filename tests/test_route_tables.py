"""Each input adapter carries the routes it runs (issue 34, cut 3): the policy of
``pcalib.solvers`` and the dispatch of ``pcalib._routes`` ask the adapter's route table,
never its class. The messages and routes below are those the policy gave before the
tables existed (the kinds' flags ``implicit`` and ``in_memory``, and ``isinstance``
checks in the routes), pinned as literals."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import pcalib
from pcalib import solvers
from pcalib._inputs.dask import DaskMatrix
from pcalib._inputs.matrix import DenseMatrix, as_matrix
from pcalib._inputs.route_table import IN_MEMORY
from pcalib._inputs.sparse import SparseMatrix
from pcalib._routes import implicit
from pcalib._routes.implicit import IMPLICIT_DECOMPOSITIONS

da = pytest.importorskip("dask.array")

ADAPTERS = (DenseMatrix, SparseMatrix, DaskMatrix)
SPARSE = sp.random(60, 12, density=0.3, format="csr", random_state=np.random.RandomState(34))


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.__name__)
def test_every_route_a_table_names_has_a_decomposition(adapter):
    table = adapter.routes
    assert set(table.runs.values()) <= IMPLICIT_DECOMPOSITIONS | {IN_MEMORY}
    assert {"eig", "svd", "randomized", "krylov"} <= set(table.runs)  # "svd": the guard's route
    assert table.guarded <= set(table.runs) and table.square <= set(table.runs)
    assert table.auto in ("shape", "least_cost", "one_pass")


def _refusal(solver, n, p, k, every_component, data):
    with pytest.raises(ValueError) as error:
        solvers.implicit_route(solver, n, p, k, every_component, data)
    return str(error.value)


def test_the_policy_gives_each_kind_its_routes_and_messages():
    """The routes of ``implicit_route`` for shapes on both sides of 4096 features (the
    data's own shape does not enter: n and p are passed), with the messages of before."""
    sparse = as_matrix(SPARSE)
    dask = as_matrix(da.from_array(SPARSE.toarray(), chunks=(20, 12)))
    assert _refusal("gram", 60, 12, 3, False, dask) == (
        "solver='gram' needs the dask data in memory; use solver='auto', 'eig', 'randomized' or 'svd' (TSQR)")
    for solver in ("gram", "svd"):
        assert _refusal(solver, 5000, 5000, 3, False, sparse) == (
            f"solver='{solver}' on sparse data keeps a 5000 x 5000 dense matrix (at most 4096 allowed): "
            "use solver='auto' or 'randomized' (Lanczos)")
    assert solvers.implicit_route("svd", 5000, 5000, 3, False, dask) == "svd"  # TSQR: no such limit
    for data, kind in ((sparse, "sparse"), (dask, "dask")):
        assert _refusal("eig", 100, 5000, 3, True, data) == (
            f"the {kind} route for p = 5000 > 4096 features computes only the k leading components: "
            "pass an integer n_components")
        assert solvers.implicit_route("eig", 100, 5000, 3, False, data) == "randomized"
        assert solvers.implicit_route("eig", 100, 4096, 3, False, data) == "eig"
        assert solvers.implicit_route("krylov", 100, 50, 3, True, data) == "eig"
    assert solvers.implicit_route("auto", 100, 5000, 3, False, dask) == "randomized"
    assert solvers.implicit_route("auto", 60, 12, 3, False, dask) == "eig"


def test_the_guard_checks_the_routes_each_table_names():
    """An eigenvalue ratio below sqrt(eps): "auto" recomputes by "svd" (TSQR for Dask,
    block QR for sparse, LAPACK in memory)."""
    rng = np.random.default_rng(34)
    X = rng.standard_normal((300, 8)) @ np.diag(10.0 ** -np.linspace(0, 5, 8)) + 3.0  # lambda_8 ~ 1e-10 lambda_1
    for data in (X, sp.csr_matrix(X), da.from_array(X, chunks=(70, 8))):
        assert pcalib.PCA(8).fit(data).solver_ == "svd"
        assert pcalib.PCA(8, solver="eig").fit(data).solver_ == "eig"


def test_the_routes_run_the_decomposition_the_table_names(monkeypatch):
    """A sparse matrix whose table names block Krylov for "randomized" is decomposed by
    block Krylov, not Lanczos: the dispatch reads the table, not the class."""
    calls = []
    for name in ("krylov_top_operator", "lanczos_top_operator"):
        original = getattr(implicit, name)
        monkeypatch.setattr(implicit, name, lambda *a, _f=original, _n=name, **kw: calls.append(_n) or _f(*a, **kw))

    def fit(data):
        return solvers.fit_by_route(data, 3, "randomized", every_component=False, ddof=1, standardize=False,
                                    need_scores=False, random_state=None, truncate=lambda found: found)[0]

    lanczos = fit(as_matrix(SPARSE))
    assert calls == ["lanczos_top_operator"]
    calls.clear()
    data = as_matrix(SPARSE)
    data.routes = replace(SparseMatrix.routes, runs={**SparseMatrix.routes.runs, "randomized": "block_krylov"})
    krylov = fit(data)
    assert calls and set(calls) == {"krylov_top_operator"}
    np.testing.assert_allclose(krylov.s, lanczos.s, rtol=1e-9)


def test_no_policy_or_route_asks_the_class_of_an_adapter():
    """The flags and checks the tables replaced do not come back."""
    package = Path(pcalib.__file__).parent
    sources = [package / "solvers.py", *sorted((package / "_routes").glob("*.py"))]
    asked = re.compile(r"isinstance\([^)]*(Dense|Sparse|Dask)Matrix|\bdata\.(implicit|in_memory)\b|type\(data\)")
    found = [f"{path.name}:{number}" for path in sources
             for number, line in enumerate(path.read_text().splitlines(), 1) if asked.search(line)]
    assert not found, found

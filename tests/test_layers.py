"""pcalib's modules import only downward, lend no private names, and its classes stay small
(issue 23).

The import graph of the package is read from the sources (every ``from .x import``
and ``from . import x``, at module level or inside a function; imports under
``if TYPE_CHECKING:`` are annotations only and do not count). It must have no cycle:
a cycle means a lower layer reaching back up, and a module that cannot be read,
tested or replaced without the one above it. Public functions must not shadow
their modules (``import pcalib.pcoa`` once gave the function ``pcalib.pcoa``). The
chapter module of PCA's three routes stays a short skeleton over its engine.
No module imports a name with a leading underscore from another: what a module lends
is named without one, in a private module. No class is over ``MAX_CLASS_LINES`` lines,
counted from its ``class`` line to its last line: a longer one does more than one
thing, and what is not its business belongs in functions of its module or in a module
of its own.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from functools import cache
from pathlib import Path

import pcalib

PACKAGE = Path(pcalib.__file__).parent
MODULES = sorted(m.name for m in pkgutil.walk_packages(pcalib.__path__, "pcalib."))
MAX_CLASS_LINES = 300


def _source(module: str) -> Path:
    return Path(importlib.util.find_spec(module).origin)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, *, annotations: bool = False) -> set[str]:
    """The pcalib modules that `module` imports at run time (and, with `annotations`,
    under ``if TYPE_CHECKING:`` too)."""
    path = _source(module)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node) and not annotations:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            target = f"{base}.{node.module}" if node.module else base
            if node.module:
                found.add(target)
            else:  # from . import x
                found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("pcalib."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in MODULES and name != module}


def test_the_import_graph_has_no_cycle():
    graph = {module: _imports(module) for module in MODULES if module != "pcalib"}
    state: dict[str, int] = {}
    path: list[str] = []
    cycles: list[list[str]] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_graph_reader_sees_imports_inside_functions():
    """The reader is not blind: the EM of data with NaN (_ppca.em_missing) imports from
    _ppca.model, estimator imports the missing-value hooks (_ppca.missing_fits), and
    TYPE_CHECKING imports are skipped (PPCAScoring's Protocol imports nothing, so the
    probe is the type-only import of a test module written here)."""
    assert "pcalib._ppca.model" in _imports("pcalib._ppca.em_missing")
    assert "pcalib._ppca.missing_fits" in _imports("pcalib.estimator")


# The missing-value layer (issue 34, cuts 1 and 2): the fits of data with NaN take arrays
# and parameters, never an estimator, so they import no estimator module, not even for
# annotations; and the estimators reach them directly, not through the public chapter
# module pcalib.missing, which sits above them.
MISSING_VALUE_LAYER = ("pcalib.missing", "pcalib._ppca.missing_fits", "pcalib._ppca.em_missing", "pcalib._ppca.em",
                       "pcalib._ppca.model")
ESTIMATOR_MODULES = ("pcalib.estimator", "pcalib.ppca", "pcalib.pca", "pcalib.imputation")


def test_the_missing_value_layer_imports_no_estimator():
    offenders = {module: sorted(_imports(module, annotations=True) & set(ESTIMATOR_MODULES))
                 for module in MISSING_VALUE_LAYER}
    assert not any(offenders.values()), f"the missing-value layer imports estimators: {offenders}"
    users = [module for module in ("pcalib.ppca", "pcalib.estimator") if "pcalib.missing" in _imports(module)]
    assert not users, f"{users} import the public pcalib.missing instead of the private fits"


def test_the_annotation_reader_sees_type_checking_imports(tmp_path, monkeypatch):
    """The reader is not blind: an import under ``if TYPE_CHECKING:`` counts with
    `annotations` and not without (a module written here, as missing.py was before
    issue 34: ``from .estimator import PCA`` for its annotations)."""
    package = tmp_path / "probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .estimator import PCA\n"
        "from . import high\n"
    )
    source = package / "low.py"
    monkeypatch.setattr(f"{__name__}._source", lambda module: source)
    monkeypatch.setattr(f"{__name__}.MODULES", ["probe.estimator", "probe.high", "probe.low"])
    assert _imports("probe.low", annotations=True) == {"probe.estimator", "probe.high"}
    assert _imports("probe.low") == {"probe.high"}


def test_no_public_name_shadows_a_module():
    for module in MODULES:
        short = module.split(".")[1]
        if hasattr(pcalib, short):
            assert getattr(pcalib, short) is importlib.import_module(f"pcalib.{short}"), (
                f"pcalib.{short} is not the module pcalib/{short}.py"
            )


@cache
def _definitions(module: str) -> tuple[dict[str, ast.AST], dict[str, tuple[str, str]]]:
    """The module-level functions of a pcalib module, and the names it imports from
    other pcalib modules (local name -> (module, name there))."""
    path = Path(importlib.util.find_spec(module).origin)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    imported = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level and node.module:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            imported.update({alias.asname or alias.name: (f"{base}.{node.module}", alias.name) for alias in node.names})
    return functions, imported


def _call_depths(module: str, function: str) -> dict[tuple[str, str], int]:
    """How many calls below `function` each pcalib function it reaches is first called
    (calls by plain name, followed through imports into other pcalib modules)."""

    def resolved(module: str, name: str) -> tuple[str, str] | None:
        functions, imported = _definitions(module)
        if name in functions:
            return module, name
        return resolved(*imported[name]) if name in imported else None

    depths = {(module, function): 0}
    layer = [(module, function)]
    while layer:
        following = []
        for where, name in layer:
            for node in ast.walk(_definitions(where)[0][name]):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    called = resolved(where, node.func.id)
                    if called is not None and called not in depths:
                        depths[called] = depths[(where, name)] + 1
                        following.append(called)
        layer = following
    return depths


def test_the_pca_routes_read_as_skeletons():
    """pcalib/pca.py is the module of chapters 4, 5 and 7 (issue 23): at most 450 lines
    (981 before), and a reader of a route finds its steps within a few calls, each one
    named call over the engine. Before, pca_eig reached the scatter matrix three calls
    down and the eigensolver four (pca_eig -> _pca -> _decompose_data ->
    _top_eigh_of_varying -> top_eigh), through the dispatcher of every route and every
    kind of data; now its skeleton (pcalib._routes.dense.eig_route, one call down) calls the
    scatter, the eigensolver and the sign convention itself."""
    assert len((PACKAGE / "pca.py").read_text(encoding="utf-8").splitlines()) <= 450
    far = 99
    eig = _call_depths("pcalib.pca", "pca_eig")
    assert eig.get(("pcalib._routes.scatter", "scatter_matrix"), far) <= 2
    assert eig.get(("pcalib._linalg.eigen", "top_eigh"), far) <= 3
    assert eig.get(("pcalib._linalg.signs", "axis_signs"), far) <= 3
    svd = _call_depths("pcalib.pca", "pca_svd")
    assert svd.get(("pcalib._linalg.units", "center_array"), far) <= 2
    assert svd.get(("pcalib._linalg.svd", "exact_svd"), far) <= 2
    gram = _call_depths("pcalib.pca", "pca_gram")
    assert min(gram.get(("pcalib._linalg.eigen", name), far) for name in ("top_eigh", "top_eigh_and_next")) <= 2
    assert gram.get(("pcalib._routes.decomposition", "axes_from_left"), far) <= 2


def test_the_call_reader_follows_imports():
    """The reader is not blind: pca_eig's walk reaches the engine's innermost steps
    (the Gram matrices of shifted blocks, in pcalib._linalg.moments), and the solver policy,
    which pca_eig never consults, is not on it."""
    eig = _call_depths("pcalib.pca", "pca_eig")
    assert {("pcalib._linalg.moments", "shifted_gram"), ("pcalib._linalg.moments", "gram_and_sums")} <= eig.keys()
    assert not any(module == "pcalib.solvers" for module, _ in eig)


def _class_lines(module: str) -> dict[str, int]:
    """The classes of `module` and their lengths in lines, from the ``class`` line to the
    last line of the body."""
    tree = ast.parse(_source(module).read_text(encoding="utf-8"))
    return {node.name: node.end_lineno - node.lineno + 1 for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def test_no_class_is_over_300_lines():
    sizes = {f"{module}.{name}": lines for module in MODULES for name, lines in _class_lines(module).items()}
    offenders = sorted((name, lines) for name, lines in sizes.items() if lines > MAX_CLASS_LINES)
    assert not offenders, f"classes over {MAX_CLASS_LINES} lines (issue 23: split them): " + ", ".join(
        f"{name} ({lines} lines)" for name, lines in offenders
    )
    assert sizes["pcalib.estimator.PCA"] > 100  # the reader sees the classes


def test_the_class_reader_counts_from_class_to_end():
    """The reader is not blind: KernelPCA's count is its ``class`` line to its last
    indented line, counted in the text."""
    source = _source("pcalib.kernel").read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(source) if line.startswith("class KernelPCA("))
    after = next((i for i in range(first + 1, len(source)) if source[i][:1] not in ("", " ")), len(source))
    last = max(i for i in range(first, after) if source[i].startswith("    "))
    assert _class_lines("pcalib.kernel")["KernelPCA"] == last - first + 1


def _private_imports(module: str, path: Path | None = None) -> list[str]:
    """The names with one leading underscore that `module` (read from `path`, by default
    its source) imports from other modules of its package (``from .x import _name``, at
    module level, inside a function or under ``if TYPE_CHECKING:``), each as
    ``"module: from x import _name"``."""
    path = path or _source(module)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            source = f"{base}.{node.module}" if node.module else base
            found += [
                f"{module}: from {source} import {alias.name}"
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
    return found


def test_no_private_name_is_imported_from_another_module():
    """A name with a leading underscore is its module's own business (issue 23): what
    another module needs is named without one, in a private module (``pcalib._linalg.units``,
    ``pcalib._routes.dense``, ...) whose own underscore already says "internal", and a public
    module that needs it imports it from there. 101 such imports before."""
    offenders = [line for module in MODULES for line in _private_imports(module)]
    assert not offenders, f"{len(offenders)} private names imported across modules:\n" + "\n".join(offenders)


def test_the_private_import_reader_is_not_blind(tmp_path):
    """The reader finds a private name imported at module level and one imported inside
    a function, from ``.`` and from ``..``, and passes over public and dunder names."""
    (tmp_path / "high.py").write_text(
        "from .low import _a, c, __version__\nfrom .. import _top\n\n"
        "def f():\n    from .low import _b\n    return _b\n"
    )
    assert _private_imports("package.sub.high", tmp_path / "high.py") == [
        "package.sub.high: from package.sub.low import _a",
        "package.sub.high: from package import _top",
        "package.sub.high: from package.sub.low import _b",
    ]


# The private engine in layers (issue 34): each private subpackage imports only from
# the layers below it (and from itself), counting imports under TYPE_CHECKING too; the
# public chapter modules stand above every layer. Layers on one line could be in either
# order (they do not import each other); the list fixes one.
LAYERS = (
    "pcalib._utils",  # validation, frames, tables, threads, progress, label placement
    "pcalib._linalg",  # centering, units, moments, eigensolvers, SVD, signs, certificates
    "pcalib._inputs",  # one adapter per input kind: NumPy, scipy.sparse, Dask
    "pcalib._kernel", "pcalib._robust", "pcalib._categories",  # Part IV engines
    "pcalib._routes",  # the PCA engine: the routes over the adapters
    "pcalib._ppca",  # PPCA and the missing-value fits (arrays in, never an estimator)
    "pcalib._estimator",  # the scikit-learn protocol, streaming, fitted-PCA helpers
)
PUBLIC = len(LAYERS)  # the rank of pcalib's public modules, above every layer


def _layer(module: str) -> int:
    """The rank of `module` in LAYERS (PUBLIC for a public module)."""
    for rank, layer in enumerate(LAYERS):
        if module == layer or module.startswith(layer + "."):
            return rank
    return PUBLIC


def _upward_imports() -> set[tuple[str, str]]:
    return {(module, target) for module in MODULES if module != "pcalib"
            for target in _imports(module, annotations=True) if _layer(target) > _layer(module)}


def test_every_layer_imports_only_below_itself():
    offenders = _upward_imports()
    assert not offenders, "imports from a higher layer: " + ", ".join(f"{a} -> {b}" for a, b in sorted(offenders))


def test_the_layer_reader_is_not_blind(monkeypatch):
    """A public module is above every layer; the adapters see the numerics below them;
    the estimator plumbing reaches down into the PPCA layer; and an import from a layer
    into a higher one is found (the streaming fit's import of the public pcalib.solvers,
    the last one cut, read from a graph written here)."""
    assert _layer("pcalib.pca") == PUBLIC > _layer("pcalib._estimator.base") > _layer("pcalib._utils.frames")
    assert "pcalib._linalg.moments" in _imports("pcalib._inputs.sparse")
    assert "pcalib._ppca.scoring" in _imports("pcalib._estimator.fitted")
    assert "pcalib._estimator.n_components" in _imports("pcalib._estimator.streaming")
    graph = {"pcalib._estimator.streaming": {"pcalib.solvers", "pcalib._linalg.moments"}, "pcalib.solvers": set()}
    monkeypatch.setattr(f"{__name__}.MODULES", sorted(graph))
    monkeypatch.setattr(f"{__name__}._imports", lambda module, annotations=False: graph[module])
    assert _upward_imports() == {("pcalib._estimator.streaming", "pcalib.solvers")}


def test_no_private_module_at_the_top_level():
    """pcalib's top level holds its public modules and its private layers, nothing else:
    every private name there is a subpackage in LAYERS, and every layer exists."""
    top = {module for module in MODULES if module.count(".") == 1}
    private = {module for module in top if module.split(".")[1].startswith("_")}
    assert private == set(LAYERS), f"private top-level modules not in LAYERS: {sorted(private - set(LAYERS))}"
    packages = {module for module in private if _source(module).name == "__init__.py"}
    assert packages == private, f"private modules at pcalib's top level: {sorted(private - packages)}"


MAX_MODULE_LINES = 700


def test_no_module_is_over_700_lines():
    """A module over 700 lines holds more than one subject (issue 34: principal_coordinates
    had 958, plot 719): split it along its seams into private modules."""
    sizes = {module: len(_source(module).read_text(encoding="utf-8").splitlines()) for module in MODULES}
    offenders = sorted((module, lines) for module, lines in sizes.items() if lines > MAX_MODULE_LINES)
    assert not offenders, f"modules over {MAX_MODULE_LINES} lines: {offenders}"
    assert sizes["pcalib.principal_coordinates"] > 500  # the reader sees the modules


def _names_imported_from_constants(module: str, path: Path | None = None) -> list[str]:
    """The names `module` imports from ``pcalib._linalg.constants`` (``from .constants
    import X``, ``from .._linalg.constants import X``, at any depth)."""
    path = path or _source(module)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level and node.module:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            if f"{base}.{node.module}".endswith("._linalg.constants"):
                found += [f"{module}: {alias.name}" for alias in node.names]
    return found


def test_the_tuning_constants_are_read_at_call_time():
    """The tuning constants (issue 34, cut 4) are read as ``constants.NAME``, never
    imported by name: an imported name is a copy that a test's monkeypatch of
    ``pcalib._linalg.constants`` does not reach, so the patch would silently test nothing."""
    offenders = [line for module in MODULES for line in _names_imported_from_constants(module)]
    assert not offenders, "names imported from pcalib._linalg.constants: " + ", ".join(offenders)
    assert "constants.EIGENSOLVER_COST" in _source("pcalib.solvers").read_text(encoding="utf-8")


def test_the_constants_import_reader_is_not_blind(tmp_path):
    """The reader finds a name imported from the constants module (at module level and
    inside a function, by ``..`` from a module two levels down) and passes over
    ``from .._linalg import constants``."""
    (tmp_path / "user.py").write_text(
        "from .._linalg import constants\nfrom .._linalg.constants import DENSE_MAX_M\n\n"
        "def f():\n    from ..constants import ASPECT\n    return ASPECT\n"
    )
    assert _names_imported_from_constants("pcalib._linalg.sub.user", tmp_path / "user.py") == [
        "pcalib._linalg.sub.user: DENSE_MAX_M", "pcalib._linalg.sub.user: ASPECT",
    ]


def test_no_module_cites_a_design_note_outside_the_repository():
    """pcalib's code once cited ``DESIGN`` ("Performance trap", ...), a file that is not in
    the repository (issue 34): a design note the code relies on is written where it is
    cited (a docstring paragraph), so a reader of the code can find it."""
    citing = [module for module in MODULES if "DESIGN" in _source(module).read_text(encoding="utf-8")]
    assert (PACKAGE.parent / "DESIGN.md").exists() or not citing, f"cite an absent DESIGN.md: {citing}"

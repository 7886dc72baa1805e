"""pcalib's modules import only downward (issue 23).

The import graph of the package is read from the sources (every ``from .x import``
and ``from . import x``, at module level or inside a function; imports under
``if TYPE_CHECKING:`` are annotations only and do not count). It must have no cycle:
a cycle means a lower layer reaching back up, and a module that cannot be read,
tested or replaced without the one above it. Public functions must not shadow
their modules (``import pcalib.pcoa`` once gave the function ``pcalib.pcoa``).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pcalib

PACKAGE = Path(pcalib.__file__).parent
MODULES = sorted(m.name for m in pkgutil.walk_packages(pcalib.__path__, "pcalib."))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str) -> set[str]:
    """The pcalib modules that `module` imports at run time."""
    path = Path(importlib.util.find_spec(module).origin)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
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
    """The reader is not blind: missing.py's EM imports from _ppca_model, estimator
    imports missing, and TYPE_CHECKING imports are skipped."""
    assert "pcalib._ppca_model" in _imports("pcalib.missing")
    assert "pcalib.missing" in _imports("pcalib.estimator")
    assert "pcalib.estimator" not in _imports("pcalib.missing")  # annotations only


def test_no_public_name_shadows_a_module():
    for module in MODULES:
        short = module.split(".")[1]
        if hasattr(pcalib, short):
            assert getattr(pcalib, short) is importlib.import_module(f"pcalib.{short}"), (
                f"pcalib.{short} is not the module pcalib/{short}.py"
            )

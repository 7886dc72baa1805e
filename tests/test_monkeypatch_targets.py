"""Every monkeypatch in the tests patches a name that exists where it is patched (issue 34).

A module moved or a name renamed leaves ``monkeypatch.setattr(module, "name", value)``
either failing at run time (``raising=True``, the default) or, with ``raising=False``,
silently patching nothing. This reads every test file, resolves each patched target
that names a pcalib module (through the file's own imports) and checks the name is an
attribute of that module: the module where the code looks it up.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

TESTS = Path(__file__).parent


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> dotted pcalib path, from every import of the file (any depth)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "pcalib":
                    names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else "pcalib"
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("pcalib"):
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    return None


def _resolve(dotted: str) -> object:
    """The object that a dotted path names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:]:
            target = getattr(target, part)
        return target
    raise ModuleNotFoundError(dotted)


def patched_targets(source: str) -> list[tuple[int, str, str]]:
    """(line, dotted target, name) of every ``monkeypatch.setattr`` on a pcalib target."""
    tree = ast.parse(source)
    aliases = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr"
                and _dotted(node.func.value, {"monkeypatch": "monkeypatch"}) == "monkeypatch" and node.args):
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith("pcalib."):
            target, name = first.value.rsplit(".", 1)
            found.append((node.lineno, target, name))
        elif len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            target = _dotted(first, aliases)
            if target:
                found.append((node.lineno, target, node.args[1].value))
    return found


def test_every_patched_name_exists_on_its_target():
    missing, seen = [], 0
    for path in sorted(TESTS.glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        if "setattr" not in source:  # no monkeypatch.setattr to read: skip the parse (67 of 81 files)
            continue
        for line, target, name in patched_targets(source):
            seen += 1
            try:
                ok = hasattr(_resolve(target), name)
            except (ImportError, AttributeError):
                ok = False
            if not ok:
                missing.append(f"{path.name}:{line}: {target}.{name}")
    assert not missing, "monkeypatches of names that do not exist where patched:\n" + "\n".join(missing)
    assert seen >= 25  # the reader is not blind: 29 patches of pcalib targets today


def test_the_reader_flags_a_moved_name():
    """A patch of a module under its old path, or of a name it does not hold, is found
    and does not resolve (the probes are written here, not taken from the tests)."""
    source = (
        "import pcalib._linalg.moments as moments\n"
        "from pcalib._inputs import sparse as _sparse_input\n"
        "def test(monkeypatch):\n"
        "    monkeypatch.setattr(moments, 'shifted_gram', None)\n"
        "    monkeypatch.setattr(moments, 'no_such_name', None)\n"
        "    monkeypatch.setattr(_sparse_input.SparseMatrix, 'gram_times', None)\n"
        "    monkeypatch.setattr('pcalib._moments.shifted_gram', None)\n"
    )
    found = patched_targets(source)
    assert [(t, n) for _, t, n in found] == [
        ("pcalib._linalg.moments", "shifted_gram"),
        ("pcalib._linalg.moments", "no_such_name"),
        ("pcalib._inputs.sparse.SparseMatrix", "gram_times"),
        ("pcalib._moments", "shifted_gram"),
    ]
    assert hasattr(_resolve("pcalib._linalg.moments"), "shifted_gram")
    assert not hasattr(_resolve("pcalib._linalg.moments"), "no_such_name")
    assert hasattr(_resolve("pcalib._inputs.sparse.SparseMatrix"), "gram_times")
    with pytest.raises((ImportError, AttributeError)):  # the old flat path is gone
        _resolve("pcalib._moments")


def _calls(monkeypatch, module: object, name: str) -> list[tuple]:
    """Record the positional arguments of every call of ``module.name`` (still run)."""
    calls: list[tuple] = []
    original = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def _pcoa_krylov_calls(monkeypatch) -> int:
    import numpy as np

    import pcalib

    calls = _calls(monkeypatch, importlib.import_module("pcalib.principal_coordinates"), "_krylov_top")
    X = np.random.default_rng(0).standard_normal((300, 30))
    pcalib.pcoa(np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)), k=3)
    return len(calls)


def _bootstrap_top_eigh_calls(monkeypatch) -> int:
    import numpy as np

    import pcalib

    calls = _calls(monkeypatch, importlib.import_module("pcalib.bootstrap"), "top_eigh")
    X = np.random.default_rng(1).standard_normal((80, 60)) * np.linspace(3.0, 1.0, 60)
    pcalib.bootstrap_pca(X, 3, n_resamples=2, random_state=8)
    return len(calls)


def _sparse_sum_runs(monkeypatch) -> int:
    import numpy as np
    import scipy.sparse as sp

    from pcalib._inputs.matrix import as_matrix

    calls = _calls(monkeypatch, importlib.import_module("pcalib._inputs.sparse"), "_row_pieces")
    as_matrix(sp.random(50, 40, density=0.2, random_state=np.random.RandomState(2), format="csr")).moments(full=False)
    return max(args[1] for args in calls)


@pytest.mark.parametrize("name, value, observe", [
    ("PCOA_DENSE_MAX_N", 0, _pcoa_krylov_calls),  # the Krylov route of pcoa: taken or not
    ("NUMPY_MAX_M", 40, _bootstrap_top_eigh_calls),  # the bootstrap's partial eigensolver
    ("SPARSE_SUMS_CHUNK", 4, _sparse_sum_runs),  # the runs of the sparse column sums
])
def test_a_patched_tuning_constant_steers_its_reader(monkeypatch, name, value, observe):
    """Tests patch these tuning constants in ``pcalib._linalg.constants`` and then only
    compare results, which the other route gives too: here the patch is shown to change
    what the code does (a reader holding its own copy of the constant, e.g. by ``from
    .constants import NAME``, would leave both counts equal)."""
    before = observe(monkeypatch)
    monkeypatch.undo()
    monkeypatch.setattr(f"pcalib._linalg.constants.{name}", value)
    after = observe(monkeypatch)
    assert before != after, f"patching constants.{name} = {value} changed nothing ({before} both times)"

"""Every labelled theorem, lemma, proposition and corollary of the book is named by a test.

A library test names the result it checks with ``@pytest.mark.theorem("label")``.
The scan is static (source of tests/*.py), so it does not depend on which tests
were selected in this run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COVERED_KINDS = ("theorem", "lemma", "proposition", "corollary")
DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{prf:(\w+)\}")
LABEL = re.compile(r"^:label:\s*(\S+)\s*$")


def labelled_results(book: Path = ROOT / "book") -> dict[str, str]:
    """Map label -> 'file: kind' for every covered directive in the book's sources."""
    found: dict[str, str] = {}
    for path in sorted(book.glob("*.md")):
        kind = None
        for line in path.read_text().splitlines():
            line = line.strip()
            opening = DIRECTIVE.match(line)
            if opening:
                kind = opening.group(2)
                continue
            label = LABEL.match(line)
            if label and kind in COVERED_KINDS:
                found[label.group(1)] = f"{path.name}: {kind}"
            if not line.startswith(":"):
                kind = None
    return found


def theorem_markers(tests: Path = ROOT / "tests") -> dict[str, list[str]]:
    """Map label -> test functions that carry ``pytest.mark.theorem(label)`` (or ``theorem(label)``)."""
    covered: dict[str, list[str]] = {}
    for path in sorted(tests.rglob("test_*.py")):
        source = path.read_text()
        if "theorem" not in source:  # no marker can be spelled without the word: skip the parse
            continue
        tree = ast.parse(source, filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and ast.unparse(decorator.func) in ("theorem", "pytest.mark.theorem")
                    and decorator.args
                    and isinstance(decorator.args[0], ast.Constant)
                ):
                    covered.setdefault(decorator.args[0].value, []).append(f"{path.name}::{node.name}")
    return covered


@pytest.fixture(scope="module")
def results() -> dict[str, str]:
    """The book's labelled results, scanned once for the three tests below."""
    return labelled_results()


@pytest.fixture(scope="module")
def covered() -> dict[str, list[str]]:
    """The tests' theorem markers, scanned once (parsing every test file is the cost)."""
    return theorem_markers()


def test_the_scanner_finds_the_centering_results(results, covered):
    # Guards the scan itself: if it silently found nothing, coverage would pass vacuously.
    assert results["thm-centering-rank"] == "02_centering.md: theorem"
    assert results["lem-centering-idempotent"] == "02_centering.md: lemma"
    assert "def-mean-vector" not in results          # definitions need no test
    assert "test_centering.py::test_centering_matrix_spectrum_and_rank" in covered["thm-centering-rank"]


def test_every_labelled_result_is_covered_by_a_library_test(results, covered):
    uncovered = sorted(f"{label} ({where})" for label, where in results.items() if label not in covered)
    assert not uncovered, "labelled results that no test names with @pytest.mark.theorem:\n  " + "\n  ".join(uncovered)


def test_every_theorem_marker_names_a_result_of_the_book(results, covered):
    stale = sorted(f"{label} <- {tests}" for label, tests in covered.items() if label not in results)
    assert not stale, "tests name labels that the book does not define:\n  " + "\n  ".join(stale)

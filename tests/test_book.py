"""The book's sources are well formed and every chapter is executed by the test suite."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The root conftest.py defines which chapters are collected; ask it, not a copy of it.
_spec = importlib.util.spec_from_file_location("book_conftest", ROOT / "conftest.py")
book_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(book_conftest)
CHAPTERS = book_conftest.toc_chapters()


def code_cell_count(path: Path) -> int:
    notebook = jupytext.read(path, fmt="md:myst")
    return sum(cell.cell_type == "code" for cell in notebook.cells)


def test_toc_lists_existing_markdown_sources():
    assert len(CHAPTERS) >= 3
    missing = [str(path.relative_to(ROOT)) for path in CHAPTERS if not path.exists()]
    assert not missing, f"_toc.yml names files that do not exist: {missing}"


def test_no_notebook_copies_are_left_beside_the_sources():
    copies = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "book").rglob("*.ipynb"))
    assert not copies, f".ipynb files in book/ (the .md chapter is the only source): {copies}"


@pytest.mark.parametrize("path", [p for p in CHAPTERS if p.exists()], ids=lambda p: p.name)
def test_chapters_with_code_are_myst_notebooks(path):
    text = path.read_text()
    has_code = "{code-cell}" in text
    if has_code:
        assert re.search(r"^\s+format_name: myst\s*$", text, re.M), (
            f"{path.name} has code cells but no jupytext front matter with format_name: myst, "
            "so Jupyter Book would not execute it"
        )
        assert re.search(r"^\s+name: python3\s*$", text, re.M), f"{path.name}: kernelspec must be python3"


def test_every_chapter_with_code_is_collected_one_item_per_code_cell():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "book"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    collected = Counter(
        line.split("::")[0] for line in result.stdout.splitlines() if "::Cell " in line
    )
    expected = {
        str(path.relative_to(ROOT)): code_cell_count(path) for path in CHAPTERS if path.exists()
    }
    expected = {name: count for name, count in expected.items() if count}
    assert expected, "no chapter has code cells: nothing would be checked"
    assert dict(collected) == expected, f"collected {dict(collected)}, expected {expected}"


def test_sources_hold_no_control_characters():
    """A backslash escape eaten by a Python string (\\f in \\frac, \\b in \\beta) leaves a
    control character that renders as nothing: 'rac{n-1}{n}' instead of a fraction."""
    sources = [*ROOT.glob("book/*.md"), *ROOT.glob("pcalib/**/*.py"), ROOT / "_config.yml"]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()!r}"
        for path in sources
        for number, line in enumerate(path.read_text().split("\n"), start=1)
        if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", line)
    ]
    assert not found, "control characters in the sources:\n" + "\n".join(found)


# What is left of a TeX command whose backslash escape became a newline (\nu, \norm,
# \nabla) or a tab (\tilde, \top, \tau) in a Python string: chapters 8 and 15 once
# showed "orm{B - YY^  op}" and "u_5/u_6".
EATEN_ESCAPE = re.compile(r"^\s*(orm\{|abla\b)|\t")


def test_book_holds_no_eaten_tex_escapes():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:60]!r}"
        for path in ROOT.glob("book/*.md")
        for number, line in enumerate(path.read_text().split("\n"), start=1)
        if EATEN_ESCAPE.search(line)
    ]
    assert not found, "tabs or remains of \\n/\\t escapes in the book:\n" + "\n".join(found)


CODE_LINE_LIMIT = 88


@pytest.mark.parametrize("path", [p for p in CHAPTERS if p.exists()], ids=lambda p: p.name)
def test_code_cell_lines_fit_the_page(path):
    """Every line of a code cell, its metadata (captions, alt text) included, is at most
    88 characters. The browser suite measures only what a page shows; a folded
    (hide-input) cell and the notebook download show the rest."""
    long_lines, inside = [], False
    for number, line in enumerate(path.read_text().split("\n"), start=1):
        if line.startswith("```{code-cell}"):
            inside = True
        elif inside and line.startswith("```"):
            inside = False
        elif inside and len(line) > CODE_LINE_LIMIT:
            long_lines.append(f"{path.name}:{number}: {len(line)} characters")
    assert not long_lines, "code-cell lines longer than 88 characters:\n" + "\n".join(long_lines)


@pytest.mark.parametrize("path", [p for p in CHAPTERS if p.exists()], ids=lambda p: p.name)
def test_figures_keep_the_constrained_layout(path):
    """book/matplotlibrc turns on matplotlib's constrained layout; a chapter that calls
    ``tight_layout`` switches engines, and matplotlib prints a UserWarning ("The figure
    layout has changed to tight") into the page, as six chapters once did."""
    calls = [f"{path.name}:{number}" for number, line in enumerate(path.read_text().split("\n"), 1)
             if "tight_layout(" in line]
    assert not calls, "tight_layout() called (constrained layout is on): " + ", ".join(calls)


MATH_DELIMITER = re.compile(r"(?<!\\)\$\$|(?<!\\)\$")
LIST_MARKER = re.compile(r"^\s*([-+*]|\d+[.)])\s")


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The numbered lines of a chapter outside code cells and code blocks; the lines of a
    directive that holds prose ({prf:proof}, {note}, ...) are kept."""
    kept, directives, code_fence = [], [], None
    for number, line in enumerate(path.read_text().split("\n"), start=1):
        marker = re.match(r"^\s*(`{3,}|~{3,})(.*)$", line)
        if code_fence is not None:
            if marker and marker.group(1) == code_fence and not marker.group(2).strip():
                code_fence = None
            continue
        if marker:
            fence, info = marker.groups()
            if info.startswith("{") and "code-cell" not in info:
                directives.append(fence)
            elif not info.strip() and directives and directives[-1] == fence:
                directives.pop()
            else:
                code_fence = fence
            continue
        kept.append((number, line))
    return kept


@pytest.mark.parametrize("path", [p for p in CHAPTERS if p.exists()], ids=lambda p: p.name)
def test_no_formula_line_starts_like_a_list_item(path):
    """A line inside a formula that starts with "- ", "+ " or "1. " ends the paragraph
    around it and opens a list when the formula sits in a paragraph or a list item, and
    the page then shows raw TeX (chapters 15 and 16 once did). Write "-\\frac", not
    "- \\frac", at the start of such a line."""
    display = inline = False
    offending = []
    for number, line in prose_lines(path):
        if (display or inline) and LIST_MARKER.match(line):
            offending.append(f"{path.name}:{number}: {line.strip()[:60]}")
        for delimiter in MATH_DELIMITER.findall(re.sub(r"`[^`]*`", "", line)):
            if delimiter == "$$" and not inline:
                display = not display
            elif delimiter == "$" and not display:
                inline = not inline
        if not line.strip():
            inline = False  # inline math never spans a blank line
    assert not offending, "formula lines that read as list items:\n" + "\n".join(offending)


@pytest.mark.parametrize("path", [p for p in CHAPTERS if p.exists()], ids=lambda p: p.name)
def test_display_formulas_stand_apart_from_the_text(path):
    """A ``$$`` that opens a display formula right after a line of text joins that
    paragraph instead of opening a block (inside a list item or a directive), and the
    page shows ``$`` signs and raw TeX after it (chapters 15 and 16 once did)."""
    lines = path.read_text().split("\n")
    display, glued = False, []
    for number, line in prose_lines(path):
        if line.strip().startswith("$$"):
            before = lines[number - 2].strip() if number >= 2 else ""
            if not display and before and not before.startswith(("```", ":")):
                glued.append(f"{path.name}:{number}: after {before[-50:]!r}")
            if line.strip().count("$$") == 1:
                display = not display
    assert not glued, "display formulas glued to the text before them:\n" + "\n".join(glued)

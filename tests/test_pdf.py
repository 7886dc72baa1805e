"""The PDF of the book (python3 tasks.py pdf), built from a small book of the same kind.

The small book has the book's configuration and extensions, a real chapter cut to its
title, its first code cell (which asks for SVG figures, as every chapter's does) and one
figure, a chapter with the Unicode the sources use, theorems, a proof, an exercise and a
citation, the book's unnumbered front matter and appendix, and the bibliography of the
works it cites and of every work whose entry has a character beyond ASCII. Sphinx's
LaTeX output is checked always; the PDF itself only where xelatex is installed (python3
tasks.py pdf installs it).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"
_spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
tasks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tasks)

CHAPTER = "02_centering"  # the smallest chapter with a figure
FIRST_CELL_LINES = ["%matplotlib inline", '%config InlineBackend.figure_formats = ["svg"]']
UNICODE = "λ Σ ∎ ≤ ° ² ⁴ – → ä"
FRONT_MATTER = """# PCA, derived and verified

A preface.

## Contents

```{tableofcontents}
```
"""
NOTES = "# Notes before the parts\n\nUnnumbered, like the notation page.\n"
UNICODE_CHAPTER = """---
jupytext: {text_representation: {extension: .md, format_name: myst}}
kernelspec: {display_name: Python 3, language: python, name: python3}
---
# Characters

In the text: UNICODE. In math: $30° ≤ λ_1 ≤ Σ$. A citation {cite}`pearson1901`.

```{code-cell} ipython3
# a comment: UNICODE
print("UNICODE")
```

```{prf:lemma} A lemma
:label: lem-mini-characters

$\\Xc^\\T\\one = \\mathbf{0}$ and $\\int_\\R e^{-t^2}\\,dt = \\sqrt{\\pi}$.
```

```{prf:proof}
Centering removes the mean, so $\\norm{\\xbar}$ plays no part.
```

$$
\\argmax_{\\norm{\\mathbf{w}} = 1} \\Var(\\Xc\\mathbf{w})
$$ (eq-mini-characters)

```{exercise} An exercise
:label: ex-mini-characters

Show {eq}`eq-mini-characters`.
```

```{solution} ex-mini-characters
By {prf:ref}`lem-mini-characters`.
```
""".replace("UNICODE", UNICODE)
APPENDIX = """# An appendix page

```{prf:theorem} A theorem
:label: thm-mini-appendix

$1 ≤ 2$.
```

$$
y = 1
$$ (eq-mini-appendix)
"""
TOC = {
    "format": "jb-book",
    "root": "book/index",
    "parts": [
        {"caption": "Front matter", "chapters": [{"file": "book/notes"}]},
        {
            "caption": "Part I, Foundations",
            "numbered": True,
            "chapters": [{"file": f"book/{CHAPTER}"}, {"file": "book/characters"}],
        },
        {"caption": "Appendix", "chapters": [{"file": "book/appendix"}, {"file": "book/bibliography"}]},
    ],
}


FIGURE_CELL = """fig, ax = plt.subplots(figsize=(4, 3))
ax.scatter([0.0, 1.0, 2.0], [1.0, 0.0, 2.0], label=r"mean $\\bar{\\mathbf{x}}$")
ax.annotate("", xy=(2, 2), xytext=(0, 0), arrowprops=dict(arrowstyle="->", lw=2.5))
ax.legend()
plt.show()"""


def chapter_with_one_figure(source: str) -> str:
    """The chapter's title and first code cell, with the two lines every first code cell
    begins with (added if the chapter does not have them yet), then one figure cell with
    the metadata of the chapter's first figure. The figures' format is set by the first
    cell alone: executing the whole chapter cost a second of CPU and proved no more."""
    notebook = jupytext.reads(source, fmt="md:myst")
    title = next(line for line in source.splitlines() if line.startswith("# "))
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    if FIRST_CELL_LINES[1] not in first.source:
        first.source = "\n".join([*FIRST_CELL_LINES, first.source])
    figure = next(cell for cell in notebook.cells if "figure" in cell.metadata.get("mystnb", {}))
    figure.source = FIGURE_CELL
    notebook.cells = [nbformat.v4.new_markdown_cell(title), first, figure]
    return jupytext.writes(notebook, fmt="md:myst")


def cited_and_beyond_ascii(bibtex: str, sources: list[str]) -> str:
    """The entries of a .bib file cited by the sources or holding a character beyond
    ASCII (a TeX accent or a Unicode letter, which a font may lack): formatting all 200
    entries of the book's took a sixth of the small book's build."""
    cited = {key.strip() for text in sources
             for keys in re.findall(r"\{cite[:\w]*\}`([^`]*)`", text) for key in keys.split(",")}
    entries = {entry.split("{", 1)[1].split(",", 1)[0].strip(): entry for entry in re.split(r"\n(?=@)", bibtex)}
    assert cited <= set(entries), cited - set(entries)
    beyond_ascii = re.compile(r"[^\x00-\x7f]|\\(['\"`^~=.]\{?\\?[A-Za-z]|[uvHc]\{|[oO]\b|ss\b|aa\b|AA\b)")
    return "\n".join(entry for key, entry in entries.items() if key in cited or beyond_ascii.search(entry)) + "\n"


@pytest.fixture(scope="module")
def small_book(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("small_book")
    book = root / "book"
    for folder in ("_ext", "_static"):
        if (ROOT / "book" / folder).is_dir():
            shutil.copytree(ROOT / "book" / folder, book / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("matplotlibrc", "bibliography.md"):
        shutil.copy(ROOT / "book" / name, book / name)
    (book / f"{CHAPTER}.md").write_text(chapter_with_one_figure((ROOT / "book" / f"{CHAPTER}.md").read_text()))
    for name, text in {"index": FRONT_MATTER, "notes": NOTES, "characters": UNICODE_CHAPTER,
                       "appendix": APPENDIX}.items():
        (book / f"{name}.md").write_text(text)
    sources = [path.read_text() for path in book.glob("*.md")]
    bibtex = (ROOT / "book" / "references.bib").read_text()
    (book / "references.bib").write_text(cited_and_beyond_ascii(bibtex, sources))
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    (root / "_toc.yml").write_text(yaml.safe_dump(TOC, sort_keys=False))
    return root


@pytest.fixture(scope="module")
def latex(small_book) -> Path:
    """The LaTeX output of the small book, compiled to PDF where xelatex is installed."""
    builder = "pdflatex" if not tasks.missing_latex() else "latex"
    result = subprocess.run(
        [str(JUPYTER_BOOK), "build", str(small_book), "--builder", builder, "--all"],
        cwd=small_book, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return small_book / "_build" / "latex"


@pytest.fixture(scope="module")
def tex(latex) -> str:
    (path,) = latex.glob("*.tex")
    return path.read_text()


def chapter_text(tex: str, docname: str) -> str:
    """The part of the .tex made from one source file."""
    label = r"\label{\detokenize{" + docname + "::doc}}"
    start = tex.index(label)
    end = tex.find("::doc}}", start + len(label))
    return tex[start : end if end > 0 else len(tex)]


def test_figures_of_a_chapter_come_as_pdf(latex, tex):
    """A chapter that draws its figures as SVG (the HTML's format) enters the PDF with PDF
    figures: the LaTeX builder asks its kernel for PDF too (book/_ext/latex_book.py) and
    MyST-NB's priority for LaTeX puts application/pdf first: vector, not a bitmap."""
    graphics = re.findall(r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{\{([^}]+)\}(\.\w+)\}",
                          chapter_text(tex, f"book/{CHAPTER}"))
    assert graphics, f"{CHAPTER}: no figure in the LaTeX output"
    assert {extension for _, extension in graphics} == {".pdf"}, graphics
    assert all((latex / (name + extension)).is_file() for name, extension in graphics)


def test_the_books_math_macros_are_defined_for_latex(tex):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    macros = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    undefined = [name for name in macros if f"\\protected\\def\\{name}" not in tex]
    assert not undefined, f"macros of _config.yml missing from the LaTeX preamble: {undefined}"


def test_chapters_are_numbered_as_in_the_html(tex):
    """Numbered parts: \\part and numbered chapters. Front matter: no part, an unnumbered
    chapter. Appendix: an unnumbered part and chapters. The preface has no toc heading."""
    assert r"\part{Foundations}" in tex and r"\part{Front matter}" not in tex
    assert r"\bookunnumberedchapter{Notes before the parts}" in tex
    assert re.search(r"\\booknumberedchapter\s*\\chapter\{Centering\}", tex)
    assert re.search(r"\\booknumberedchapter\s*\\chapter\{Characters\}", tex)
    assert r"\bookunnumberedpart{Appendix}" in tex
    assert r"\bookunnumberedchapter{An appendix page}" in tex
    assert r"\bookunnumberedchapter{Bibliography}" in tex
    assert "Contents}" not in chapter_text(tex, "book/index").replace(r"\sphinxtableofcontents", "")


def test_theorems_and_exercises_carry_the_html_numbers(tex):
    """Chapter.number in a numbered chapter (the HTML's numbers), a plain number in the
    appendix; equations and figures follow LaTeX's counters, which the preamble resets
    the same way."""
    characters = chapter_text(tex, "book/characters")
    assert "{Lemma 2.1 (A lemma)}" in characters
    assert "{Exercise 2.1 (An exercise)}" in characters
    assert "Solution to Exercise 2.1 (An exercise)" in characters
    assert r"\begin{equation}\label{equation:book/characters:eq-mini-characters}" in characters
    assert "{Theorem 1 (A theorem)}" in chapter_text(tex, "book/appendix")
    assert not re.search(r"\{(Theorem|Lemma|Proposition|Definition|Exercise) \d+\.\d+\.\d+", tex)


def test_proofs_and_solutions_are_set_without_boxes(tex):
    characters = chapter_text(tex, "book/characters")
    assert re.search(r"\\begin\{bookproof\}\s*\\sphinxAtStartPar\s*\\sphinxstyleemphasis\{Proof\.\}", characters)
    assert r"\end{bookproof}" in characters
    assert re.search(r"\\begin\{booksolution\}\{Solution to Exercise 2\.1 \(An exercise\)\}", characters)
    assert r"\end{booksolution}" in characters


def test_the_pdf_keeps_every_character(latex):
    """xelatex: no glyph dropped (λ, Σ, ∎, ≤, °, ... in text, math and code), no
    reference or citation left unresolved."""
    if tasks.missing_latex():
        pytest.skip(f"no LaTeX here ({', '.join(tasks.missing_latex())}): python3 tasks.py pdf installs it")
    (log,) = latex.glob("*.log")
    assert log.with_suffix(".pdf").is_file()
    assert tasks.latex_problems(log.read_text(errors="replace")) == []
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(log.with_suffix(".pdf")), "-"], capture_output=True, text=True).stdout
        assert UNICODE.replace(" ", "") in text.replace(" ", ""), "the Unicode line did not reach the PDF"


def test_the_log_check_finds_what_the_pdf_lost():
    """tasks.py pdf fails on these lines of xelatex's log, also when TeX wrapped them at
    79 characters."""
    log = "\n".join([
        "Missing character: There is no ⧵ (U+29F5) in font [latinmodern-math.otf]/OT:scr",
        "ipt=math;language=dflt;!",
        "LaTeX Warning: Hyper reference `book/06_eckart_young:lem-ey-truncation-error' o",
        "n page 93 undefined on input line 6405.",
        "LaTeX Warning: Citation `pearson1901' on page 3 undefined on input line 12.",
        "Package hyperref Warning: Token not allowed in a PDF string (Unicode):",
        "Output written on pca-derived-and-verified.pdf (224 pages).",
    ])
    assert tasks.latex_problems(log) == [
        "LaTeX Warning: Citation `pearson1901' on page 3 undefined on input line 12.",
        "LaTeX Warning: Hyper reference `book/06_eckart_young:lem-ey-truncation-error' on page 93 "
        "undefined on input line 6405.",
        "Missing character: There is no ⧵ (U+29F5) in font [latinmodern-math.otf]/OT:script=math;"
        "language=dflt;!",
    ]

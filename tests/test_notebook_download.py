"""Every chapter page offers its chapter as the notebook the build executed.

book/_ext/notebook_download.py copies the notebooks MyST-NB executed into the HTML
output (``_build/html/notebooks/<docname>.ipynb``) and links each one under its page's
title. These tests read the built book: the build of this test run, made once for all
tests that need it by the browser suite's ``ensure_built_book``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import jupytext
import nbclient
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
# The root conftest.py defines which chapters are collected; ask it, not a copy of it.
_spec = importlib.util.spec_from_file_location("book_conftest", ROOT / "conftest.py")
book_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(book_conftest)
CHAPTERS = book_conftest.toc_chapters()

from browser_support import ensure_built_book  # noqa: E402 (after the conftest import)


def code_cells(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def source_notebook(chapter: Path):
    return jupytext.read(chapter, fmt="md:myst")


def docname(chapter: Path) -> str:
    return chapter.relative_to(ROOT).with_suffix("").as_posix()


# which chapters have code, counted in their text as conftest.py's items do (parsing every
# chapter with jupytext at collection costs about 2.5 s of CPU in every xdist worker)
code_cell_directives = book_conftest.code_cell_directives


WITH_CODE = [c for c in CHAPTERS if c.exists() and code_cell_directives(c)]
WITHOUT_CODE = [c for c in CHAPTERS if c.exists() and c not in WITH_CODE]


@pytest.fixture(scope="module")
def book() -> Path:
    ensure_built_book()
    return HTML


def page_links(page: Path) -> list[Path]:
    """The files the page's notebook-download links point to."""
    hrefs = re.findall(r'<a class="notebook-download" href="([^"]+)"', page.read_text())
    return [(page.parent / href).resolve() for href in hrefs]


@pytest.mark.parametrize("chapter", WITH_CODE, ids=lambda c: c.stem)
def test_the_page_links_the_notebook_the_build_executed(book, chapter):
    page = book / f"{docname(chapter)}.html"
    html = page.read_text()
    assert page_links(page) == [(book / "notebooks" / f"{docname(chapter)}.ipynb").resolve()], (
        f"{page.name}: expected one notebook-download link to notebooks/{docname(chapter)}.ipynb")
    assert re.search(r'</h1>\s*<p class="notebook-download-line"><a class="notebook-download"', html), (
        f"{page.name}: the notebook link is not right under the title")
    assert "Download this chapter as a notebook (.ipynb)" in html

    (target,) = page_links(page)
    assert target.is_file(), f"{page.name}: its notebook {target} was not written"
    notebook = nbformat.read(target, as_version=4)
    nbformat.validate(notebook)
    executed = code_cells(notebook)
    assert [cell.source for cell in executed] == [cell.source for cell in code_cells(source_notebook(chapter))], (
        f"{chapter.name}: the notebook's code cells are not the chapter's")
    assert all(isinstance(cell.execution_count, int) for cell in executed), (
        f"{chapter.name}: a code cell of the notebook was not executed")
    assert any(cell.outputs for cell in executed), f"{chapter.name}: the notebook has no outputs"
    # A plain notebook: not paired with the MyST source, and it says what to install.
    assert "jupytext" not in notebook.metadata
    first = notebook.cells[0]
    assert first.cell_type == "markdown" and "pcalib" in first.source and "myst-nb" in first.source


@pytest.mark.parametrize("chapter", WITHOUT_CODE, ids=lambda c: c.stem)
def test_a_page_without_code_offers_no_notebook(book, chapter):
    page = book / f"{docname(chapter)}.html"
    assert page_links(page) == []
    assert not (book / "notebooks" / f"{docname(chapter)}.ipynb").exists()


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if c.exists()], ids=lambda c: c.stem)
def test_the_download_menu_offers_only_what_exists(book, chapter):
    """The theme's download menu: each link is a file of the book, the .pdf entry prints
    the page (the browser's print to PDF: no file that the build never made)."""
    page = book / f"{docname(chapter)}.html"
    menu = re.search(r'<div class="dropdown dropdown-download-buttons">(.*?)</ul>', page.read_text(), re.S)
    assert menu, f"{page.name}: no download menu"
    hrefs = re.findall(r'<a href="([^"]+)"', menu.group(1))
    missing = [href for href in hrefs if not (page.parent / href).resolve().is_file()]
    assert not missing, f"{page.name}: the download menu links files that do not exist: {missing}"
    buttons = re.findall(r'<button onclick="([^"]+)"', menu.group(1))
    assert buttons == ["window.print()"], f"{page.name}: unexpected download menu buttons {buttons}"
    assert (".ipynb" in menu.group(1)) == (chapter in WITH_CODE)


def test_a_downloaded_notebook_runs_top_to_bottom(book, tmp_path):
    """The smallest numbered chapter's notebook, run with nbclient in an empty folder (as
    a student would, without the book's files) in this environment, where pcalib and
    myst-nb are installed."""
    numbered = [c for c in WITH_CODE if re.match(r"\d\d_", c.name)]
    chapter = min(numbered, key=code_cell_directives)
    notebook = nbformat.read(book / "notebooks" / f"{docname(chapter)}.ipynb", as_version=4)
    for cell in code_cells(notebook):
        cell.outputs, cell.execution_count = [], None
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    assert all(isinstance(cell.execution_count, int) for cell in code_cells(notebook))
    assert any(cell.outputs for cell in code_cells(notebook))

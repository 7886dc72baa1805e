"""Every chapter of the book is a test: one item per code cell.

Each chapter is executed once per run of ``.ci/run``. Two ways, one per situation:

* When ``python3 tasks.py book`` passed after the last change to the book's sources
  (its stamp ``_build/html/.build-passed``, as the browser tests read it), the build
  has just executed every chapter in a fresh kernel and stopped on any raising cell
  (``execute.raise_on_error``). Each item then checks the notebook that build
  executed (``_build/jupyter_execute/book/NN.ipynb``): the cell is the chapter's cell
  as it is now, it was executed, and it raised nothing. Executing the chapter a second
  time would only repeat that work.
* Otherwise, or for a chapter named on the command line
  (``python3 tasks.py test book/13_missing_values.md``), or with
  ``PCALIB_EXECUTE_CHAPTERS=1``, the chapter runs under nbval, straight from the
  ``.md`` source. nbval 0.11 collects only ``.ipynb`` files and reads them with
  ``nbformat.read``; here its notebook's cells come from jupytext's MyST reader, so
  no ``.ipynb`` is ever written. nbval is pinned (requirements.txt) because this
  relies on ``nbval.plugin.IPyNbFile`` reading through ``nbval.plugin.nbformat``.

It also serves the whole suite: under pytest-xdist (``tasks.py test``: ``--dist
loadfile``) the workers take whole test files, except the browser tests, which they take
page by page and before anything else (BookScheduling); and the browser tests' per-page
table is printed by ``tests/browser_support.BrowserReport``, registered here.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from pathlib import Path
from types import SimpleNamespace

import jupytext
import nbformat
import pytest
import yaml
from nbval import plugin as nbval_plugin
from xdist.scheduler import LoadFileScheduling

ROOT = Path(__file__).resolve().parent
EXECUTED = ROOT / "_build" / "jupyter_execute"
#: the browser tests (nodeids ``tests/test_browser.py::test_x[book/02_centering]``)
BROWSER_TESTS = "tests/test_browser.py"


def toc_chapters(root: Path = ROOT) -> list[Path]:
    """Every file named in ``_toc.yml`` (root and chapters), as absolute ``.md`` paths."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("chapters"))
            walk(entry.get("sections"))
            for part in entry.get("parts", []):
                walk(part.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return [(root / name).with_suffix(".md") for name in names]


def _read_notebook(path, as_version=4, **kwargs):
    """nbformat.read for .ipynb, jupytext's MyST reader for .md chapters."""
    if str(path).endswith(".md"):
        return jupytext.read(path, fmt="md:myst")
    return nbformat.read(path, as_version=as_version, **kwargs)


# nbval reads notebooks through its module-level ``nbformat`` name; give it one
# that understands MyST Markdown and otherwise behaves as nbformat.
nbval_plugin.nbformat = SimpleNamespace(
    **{name: getattr(nbformat, name) for name in dir(nbformat) if not name.startswith("__")},
)
nbval_plugin.nbformat.read = _read_notebook


@functools.cache
def _browser_support():
    """``tests/browser_support.py`` (tests/ is no package and may not be on sys.path)."""
    spec = importlib.util.spec_from_file_location(
        "browser_support", ROOT / "tests" / "browser_support.py"
    )
    support = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)
    return support


@functools.cache
def _build_is_fresh() -> bool:
    """True when a passing book build is newer than every source of the book
    (the rule of ``tests/browser_support.build_is_fresh``, read from there)."""
    return _browser_support().build_is_fresh()[0]


def executed_notebook(chapter: Path) -> Path:
    """Where the book build writes the executed notebook of `chapter`."""
    return EXECUTED / chapter.resolve().relative_to(ROOT).with_suffix(".ipynb")


def code_cell_directives(chapter: Path) -> int:
    """The ```{code-cell} directives of a MyST chapter, counted in its text (each one a
    code cell of jupytext's reading, which the items check)."""
    return len(re.findall(r"^`{3,}\{code-cell\}", chapter.read_text(), re.M))


@functools.cache
def source_code_cells(chapter: Path) -> list[str]:
    """The sources of the chapter's code cells as jupytext's MyST reader gives them:
    parsed once per process, by the first item of the chapter that runs (collection
    counts the cells in the text, so that every xdist worker does not parse every
    chapter)."""
    notebook = jupytext.read(chapter, fmt="md:myst")
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


class BuiltChapter(pytest.File):
    """A chapter that the passing build of its current source executed."""

    def collect(self):
        executed = nbformat.read(executed_notebook(self.path), as_version=4)
        ran = [cell for cell in executed.cells if cell.cell_type == "code"]
        cells = code_cell_directives(self.path)
        for number in range(cells):
            yield BuiltCell.from_parent(
                self, name=f"Cell {number}", number=number, cells=cells,
                executed=ran[number] if number < len(ran) else None,
            )


class BuiltCell(pytest.Item):
    """One code cell: the build executed this very source and it raised nothing."""

    def __init__(self, *, number: int, cells: int, executed, **kwargs):
        super().__init__(**kwargs)
        self.number, self.cells, self.executed = number, cells, executed

    def runtest(self):
        where = f"{self.path.name}, {self.name}"
        source = source_code_cells(self.path)
        assert len(source) == self.cells, (
            f"{self.path.name}: jupytext reads {len(source)} code cells, the text has "
            f"{self.cells} code-cell directives"
        )
        assert self.executed is not None, f"{where}: the build's notebook has no such cell"
        assert self.executed.source == source[self.number], (
            f"{where}: the build executed another version of this cell; rebuild the book"
        )
        assert self.executed.get("execution_count") is not None, f"{where}: not executed"
        errors = [out for out in self.executed.outputs if out.output_type == "error"]
        assert not errors, f"{where} raised:\n" + "\n".join(
            f"{out.ename}: {out.evalue}" for out in errors
        )

    def repr_failure(self, excinfo):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.name} (executed by the book build)"


def pytest_collect_file(file_path: Path, parent):
    """Collect the chapters of ``_toc.yml`` and any ``.md`` chapter named on the command
    line (a draft not yet in the book), one item per code cell: checked in the notebook
    the passing build executed when there is one (see the module docstring), run under
    nbval otherwise."""
    if file_path.suffix != ".md":
        return None
    named = {Path(arg.split("::")[0]).resolve() for arg in parent.config.args}
    chapter = file_path.resolve()
    if chapter not in set(toc_chapters()) | named:
        return None
    reuse = (
        chapter not in named
        and os.environ.get("PCALIB_EXECUTE_CHAPTERS", "") in ("", "0")
        and executed_notebook(chapter).exists()
        and _build_is_fresh()
    )
    if reuse:
        return BuiltChapter.from_parent(parent, path=file_path)
    return nbval_plugin.IPyNbFile.from_parent(parent, path=file_path)


def pytest_configure(config):
    """Chapters store no outputs, so nothing is compared: each cell must run without error
    (nbval's lax mode), in the interpreter running pytest, where pcalib is installed.
    The browser tests' per-page table is printed by the process that reports the run."""
    config.option.nbval_lax = True
    config.option.nbval_current_env = True
    config.pluginmanager.register(
        _browser_support().BrowserReport(config), "pcabook-browser-report")


class BookScheduling(LoadFileScheduling):
    """pytest-xdist's ``--dist loadfile`` (a worker takes all the tests of a file, so a
    chapter's cells run in order), except that each page of the browser tests is a unit
    of its own, and the browser units come last.

    The browser tests were the run's longest file (about 70 s on the 2-core machine)
    while the other worker ran out of library tests. Now the workers take the library
    files first, in xdist's order, then the pages one at a time, each worker in its own
    Chromium (started when it takes its first page): 25 short units even out the ends of
    the two workers; and a worker's Chromium, which takes 0.02-0.03 s of CPU a second
    while it waits (on an empty page and on chapter 2), is not kept idle through the
    library files."""

    def _split_scope(self, nodeid: str) -> str:
        scope = super()._split_scope(nodeid)
        if scope == BROWSER_TESTS and nodeid.endswith("]"):
            return f"{scope}[{nodeid.partition('[')[2]}"
        return scope

    def _assign_work_unit(self, node) -> None:
        """xdist's order (files with the most tests first), the browser units last."""
        for scope in [scope for scope in self.workqueue if scope.startswith(BROWSER_TESTS)]:
            self.workqueue.move_to_end(scope)
        super()._assign_work_unit(node)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """BookScheduling for ``--dist loadfile``; xdist's own scheduler otherwise."""
    return BookScheduling(config, log) if config.getvalue("dist") == "loadfile" else None

"""Run the book's MyST Markdown chapters under nbval, straight from the ``.md`` sources.

nbval 0.11 collects only ``.ipynb`` files and reads them with ``nbformat.read``.
Here every chapter listed in ``_toc.yml`` is collected as an nbval notebook whose
cells come from jupytext's MyST reader, so each code cell is one test item and
no ``.ipynb`` is ever written. nbval is pinned (requirements.txt) because this
relies on ``nbval.plugin.IPyNbFile`` reading through ``nbval.plugin.nbformat``.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import jupytext
import nbformat
import yaml
from nbval import plugin as nbval_plugin

ROOT = Path(__file__).resolve().parent


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


def pytest_collect_file(file_path: Path, parent):
    """Collect as nbval notebooks, one item per code cell, the chapters of ``_toc.yml``
    and any ``.md`` chapter named on the command line (a draft not yet in the book)."""
    if file_path.suffix != ".md":
        return None
    named = {Path(arg.split("::")[0]).resolve() for arg in parent.config.args}
    if file_path.resolve() in set(toc_chapters()) | named:
        return nbval_plugin.IPyNbFile.from_parent(parent, path=file_path)
    return None


def pytest_configure(config):
    """Chapters store no outputs, so nothing is compared: each cell must run without error
    (nbval's lax mode), in the interpreter running pytest, where pcalib is installed."""
    config.option.nbval_lax = True
    config.option.nbval_current_env = True

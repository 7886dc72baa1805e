"""Every chapter page offers its chapter as a Jupyter notebook, outputs included.

MyST-NB executes each chapter during the build and writes the executed notebook to
``_build/jupyter_execute/<docname>.ipynb``. This extension

- copies it, at the end of an HTML build, to ``<html>/notebooks/<docname>.ipynb``
  (``_build/html/notebooks/book/02_centering.ipynb``), with two changes that make it a
  plain notebook a student can open anywhere: the metadata that pairs it with the
  MyST source (``jupytext``) or maps it back to source lines (``source_map``) is
  dropped, and a first Markdown cell says where it comes from and what to install
  (``pcalib`` and ``myst-nb``: the chapters import ``myst_nb.glue``);
- puts a link ``<a class="notebook-download">`` under the title of every page whose
  chapter has code cells, and adds the same file to the theme's download menu.

Cells, sources and outputs are otherwise exactly those the build executed.
"""

from __future__ import annotations

import html
import posixpath
from pathlib import Path

import nbformat
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

HERE = Path(__file__).resolve().parent
STATIC = HERE.parent / "_static"
FOLDER = "notebooks"
LABEL = "Download this chapter as a notebook (.ipynb)"
NOTE_TAG = "notebook-download-note"
DROPPED_METADATA = ("jupytext", "source_map")

logger = logging.getLogger(__name__)


def executed_notebook(app: Sphinx, docname: str) -> Path | None:
    """The notebook MyST-NB executed for ``docname``, if the page has code cells."""
    folder = Path(app.env.mystnb_config.output_folder)
    *parents, name = docname.split("/")
    path = folder.joinpath(*parents, name + ".ipynb")
    if not path.is_file():
        return None
    notebook = nbformat.read(path, as_version=4)
    return path if any(cell.cell_type == "code" for cell in notebook.cells) else None


def notebook_target(docname: str) -> str:
    """Where the notebook of ``docname`` goes, relative to the HTML output folder."""
    return f"{FOLDER}/{docname}.ipynb"


def install_note(title: str, repository: str | None) -> str:
    """The Markdown of the notebook's first cell."""
    source = f"git+{repository}" if repository else "the book's repository"
    return "\n".join(
        [
            f"*PCA, derived and verified*, chapter **{title}**: the notebook the book's build"
            " executed, with its outputs.",
            "",
            "To run it you need the book's library `pcalib` (with matplotlib) and MyST-NB,"
            " whose `glue` records the numbers the text quotes:",
            "",
            f'    pip install "pca-derived-and-verified[plot] @ {source}" myst-nb',
            "",
            '(or `pip install ".[plot]" myst-nb` in a clone of the repository).'
            " Cross-references, citations and theorem boxes in the Markdown cells are"
            " MyST syntax, which the book renders and Jupyter shows as plain text.",
        ]
    )


def student_notebook(path: Path, title: str, repository: str | None):
    """The executed notebook at ``path`` as a student downloads it."""
    notebook = nbformat.read(path, as_version=4)
    for key in DROPPED_METADATA:
        notebook.metadata.pop(key, None)
    note = nbformat.v4.new_markdown_cell(install_note(title, repository))
    note.metadata["tags"] = [NOTE_TAG]
    if notebook.nbformat_minor < 5:
        note.pop("id", None)  # cell ids arrived with nbformat 4.5
    notebook.cells.insert(0, note)
    nbformat.validate(notebook)
    return notebook


def add_link(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Link the page's notebook under its title and in the theme's download menu."""
    if doctree is None or executed_notebook(app, pagename) is None:
        return
    href = context["pathto"](notebook_target(pagename), 1)
    filename = posixpath.basename(notebook_target(pagename))
    link = (
        '<p class="notebook-download-line">'
        f'<a class="notebook-download" href="{html.escape(href)}" '
        f'download="{html.escape(filename)}" type="application/x-ipynb+json">'
        '<i class="fas fa-download" aria-hidden="true"></i> '
        f"{LABEL}</a></p>"
    )
    body = context.get("body", "")
    end_of_title = body.find("</h1>")
    if end_of_title < 0:
        context["body"] = link + body
    else:
        cut = end_of_title + len("</h1>")
        context["body"] = body[:cut] + link + body[cut:]
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].insert(
                0,
                {
                    "type": "link",
                    "url": href,
                    "text": ".ipynb",
                    "tooltip": "Download this chapter as a notebook, with its outputs",
                    "icon": "fas fa-code",
                    "label": "download-notebook-button",
                },
            )


def copy_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """Write the notebook of every page with code into the HTML output."""
    if exception is not None or app.builder.format != "html":
        return
    repository = (app.config.html_theme_options or {}).get("repository_url")
    count = 0
    for docname in sorted(app.env.found_docs):
        path = executed_notebook(app, docname)
        if path is None:
            continue
        title = app.env.titles[docname].astext()
        target = Path(app.outdir, notebook_target(docname))
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(student_notebook(path, title, repository), target)
        count += 1
    logger.info(f"notebook_download: {count} chapter notebooks in {Path(app.outdir, FOLDER)}")


def add_static_path(app: Sphinx, config: Config) -> None:
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", add_static_path)
    app.add_css_file("notebook-download.css")
    # After sphinx-book-theme (501) has made its download menu.
    app.connect("html-page-context", add_link, priority=600)
    app.connect("build-finished", copy_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

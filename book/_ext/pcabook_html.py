"""The book's HTML as a reader should get it: offline math, one copy of each script,
unique element ids, proofs with a visible start and end, math in search snippets.

A local Sphinx extension, registered in ``_config.yml`` (``sphinx: local_extensions``).
Each fix is a small handler; tests/test_browser.py checks the rendered result.

- MathJax 3 is served from ``_static/mathjax`` instead of a CDN (unless _config.yml
  sets ``mathjax_path``). The files come from the PyPI package
  ``sphinx-mathjax-offline`` (MathJax 3.2.2, pinned in requirements.txt); only the
  parts the TeX/CommonHTML bundle can load are copied.
- Sphinx 7 registers an inline script added after the builder exists twice: once on
  the builder (file name ``None``) and again from the registry (file name ``""``), and
  the two do not compare equal. sphinx-thebe and sphinx-togglebutton add theirs then,
  so ``const THEBE_JS_URL`` was declared twice on every page (a console error).
- sphinx-proof and sphinx-exercise give every proof the id ``proof`` and every body
  the id ``proof-content``, ``exercise-content`` or ``solution-content``: the ids
  become classes (``prf-proof`` for the proof box, the old name for the bodies).
- A proof's leading "Proof." is set in italics and the proof ends with a ∎ (HTML only:
  LaTeX's proof environment draws both itself).
- Two extensions that Jupyter Book loads do not say whether they are safe for parallel
  reading, so Sphinx read (and executed) the chapters one at a time. Both are:
  sphinx-multitoc-numbering (``use_multitoc_numbering``) only replaces
  ``TocTreeCollector.assign_section_numbers``, which Sphinx calls in the main process
  once every document is read and merged; sphinx-jupyterbook-latex's read-time
  transforms only set attributes on the nodes of the document being read (and act
  on the root document alone). They are declared safe here, so that
  ``python3 tasks.py book`` executes chapters side by side (``tasks.jupyter_book``).
  sphinx-proof says it is safe but its domain has no ``merge_domaindata``, which
  Sphinx calls to merge what each process read: its domain holds no data (the
  proofs are in ``env.proof_list``, which sphinx-proof merges at ``env-merge-info``),
  so the merge it is given does nothing.
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.ext.mathjax import MATHJAX_URL

STATIC = Path(__file__).resolve().parent.parent / "_static"
MATHJAX_DIST = "sphinx-mathjax-offline"
MATHJAX_ENTRY = "mathjax/tex-chtml.js"  # relative to _static
# What tex-chtml.js loads on demand: TeX packages (autoload, \require), CommonHTML
# fonts, the contextual menu and its accessibility tools (speech needs sre/).
MATHJAX_PARTS = ("tex-chtml.js", "input", "output/chtml", "ui", "a11y", "sre")

# id given to every instance -> class that replaces it
SHARED_IDS = {
    "proof": "prf-proof",
    "proof-content": "proof-content",
    "exercise-content": "exercise-content",
    "solution-content": "solution-content",
}
PROOF_LEAD = "Proof. "


def mathjax_source() -> Path:
    """The folder of MathJax 3 files shipped by the sphinx-mathjax-offline wheel."""
    try:
        dist = importlib.metadata.distribution(MATHJAX_DIST)
    except importlib.metadata.PackageNotFoundError as error:
        raise ExtensionError(
            f"MathJax is served with the book from the PyPI package {MATHJAX_DIST}: "
            "install requirements.txt (python3 tasks.py book does)"
        ) from error
    folder = Path(dist.locate_file(f"{MATHJAX_DIST}/static/mathjax"))
    if not (folder / "tex-chtml.js").is_file():
        raise ExtensionError(f"{folder} has no tex-chtml.js: reinstall {MATHJAX_DIST}")
    return folder


def use_local_mathjax(app: Sphinx, config) -> None:
    """Serve MathJax from _static unless _config.yml names another mathjax_path."""
    if config.mathjax_path == MATHJAX_URL:  # Sphinx's default: a CDN
        config.mathjax_path = MATHJAX_ENTRY


def add_static_files(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    if str(STATIC) not in app.config.html_static_path:  # other local extensions add it too
        app.config.html_static_path.append(str(STATIC))
    app.add_css_file("pcabook.css")


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    if app.config.mathjax_path != MATHJAX_ENTRY:
        return
    source = mathjax_source()
    target = Path(app.outdir) / "_static" / "mathjax"
    for part in MATHJAX_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, target / part, dirs_exist_ok=True)
        else:
            (target / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / part, target / part)


def search_page_assets(app: Sphinx, pagename: str, templatename: str, context: dict,
                       doctree: Any) -> None:
    """Math in search snippets: MathJax and the snippet script on the search page
    (Sphinx loads MathJax only on pages that contain math)."""
    if pagename != "search" or app.builder.format != "html":
        return
    builder = app.builder
    builder.add_js_file("", body="window.MathJax = " + json.dumps(app.config.mathjax3_config))
    builder.add_js_file(app.config.mathjax_path, defer="defer")
    builder.add_js_file("pcabook-search.js")


def deduplicate_scripts(app: Sphinx, pagename: str, templatename: str, context: dict,
                        doctree: Any) -> None:
    """Keep the first of scripts that differ only by a None/"" file name."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = (script.filename or "", script.priority, tuple(sorted(script.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def unshare_ids(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for node in doctree.findall(lambda n: isinstance(n, (nodes.admonition, nodes.section))):
        shared = [ident for ident in node["ids"] if ident in SHARED_IDS]
        if isinstance(node, nodes.section):  # a real section may be titled "Proof"
            shared = [ident for ident in shared if ident != "proof"]
        elif "proof" not in node["classes"]:
            shared = []
        for ident in shared:
            node["ids"].remove(ident)
            if SHARED_IDS[ident] not in node["classes"]:
                node["classes"].append(SHARED_IDS[ident])


def mark_proofs(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """*Proof.* in italics at the start, ∎ at the end of every proof (HTML)."""
    if app.builder.format != "html":
        return
    for box in doctree.findall(nodes.admonition):
        if "prf-proof" not in box["classes"]:
            continue
        first = next(box.findall(nodes.Text), None)
        if first is not None and str(first).startswith(PROOF_LEAD):
            lead = nodes.emphasis(PROOF_LEAD.strip(), PROOF_LEAD.strip(),
                                  classes=["prf-proof-title"])
            rest = nodes.Text(" " + str(first)[len(PROOF_LEAD):])
            first.parent.replace(first, [lead, rest])
        qed = nodes.inline("∎", "∎", classes=["prf-qed"])
        last = box.children[-1] if box.children else None
        if isinstance(last, nodes.paragraph):
            last += qed
        else:
            box += nodes.paragraph("", "", qed, classes=["prf-qed-line"])


# Extensions Jupyter Book loads that are safe for parallel reading and do not say so
# (module docstring).
PARALLEL_SAFE_UNDECLARED = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def declare_parallel_safe(app: Sphinx, config: Any) -> None:
    """Say for PARALLEL_SAFE_UNDECLARED what they do not say themselves."""
    for name in PARALLEL_SAFE_UNDECLARED:
        extension = app.extensions.get(name)
        if extension is not None and extension.parallel_read_safe is None:
            extension.parallel_read_safe = True


def merge_no_domain_data(self: Any, docnames: Any, otherdata: dict) -> None:
    """``merge_domaindata`` of a domain whose data hold nothing but their version."""


def setup(app: Sphinx) -> dict[str, Any]:
    from sphinx.domains import Domain
    from sphinx_proof.domain import ProofDomain

    if ProofDomain.merge_domaindata is Domain.merge_domaindata:
        ProofDomain.merge_domaindata = merge_no_domain_data
    app.setup_extension("sphinx.ext.mathjax")
    app.connect("config-inited", declare_parallel_safe)
    app.connect("config-inited", use_local_mathjax)
    app.connect("builder-inited", add_static_files)
    app.connect("build-finished", copy_mathjax)
    # after sphinx-proof and sphinx-exercise have built their nodes; before writing
    app.connect("doctree-resolved", unshare_ids, priority=400)
    app.connect("doctree-resolved", mark_proofs, priority=450)
    app.connect("html-page-context", search_page_assets)
    app.connect("html-page-context", deduplicate_scripts, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""book/_ext/lean_build.py: the build's two growing costs are gone, and nothing a page
shows depends on them.

The whole effect was measured on the book (session 7): rebuilding the 24 pages from
executed notebooks took 166-169 s of CPU before and 95 s after, the pickled
environment went from 9.8 MB to 1.5 MB, and every HTML page came out byte-identical.
Here each handler is checked on small docutils trees.
"""

from __future__ import annotations

import importlib.util
import pickle
from pathlib import Path
from types import SimpleNamespace

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.utils import new_document
from sphinx.domains.std import StandardDomain

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("lean_build", ROOT / "book" / "_ext" / "lean_build.py")
lean_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lean_build)


def page_with_a_solution(words: int = 20_000) -> tuple[nodes.document, nodes.Element]:
    """A document with a long section and a short box in it (as a solution sits in a
    chapter), every node knowing its document as docutils sets it."""
    document = new_document("page.md", get_default_settings())
    section = nodes.section(ids=["s"])
    section += nodes.paragraph(text=" ".join(["word"] * words))
    box = nodes.container(ids=["sol-1"])
    box += nodes.paragraph(text="The answer is 42.")
    section += box
    document += section
    for node in document.findall():
        node.document = document
    return document, box


def test_registry_copies_let_go_of_the_page_and_the_page_keeps_its_nodes():
    document, box = page_with_a_solution()
    copy_of_exercise = box.deepcopy()  # what sphinx-exercise registers for an exercise
    registry = {
        "sol-1": {"type": "solution", "docname": "page", "node": box},  # the node itself
        "ex-1": {"type": "exercise", "docname": "page", "node": copy_of_exercise},
        "other": {"type": "solution", "docname": "other", "node": box},
    }
    before = len(pickle.dumps(registry["sol-1"]))
    app = SimpleNamespace(env=SimpleNamespace(docname="page", sphinx_exercise_registry=registry))
    lean_build.detach_exercise_copies(app, document)
    for label in ("sol-1", "ex-1"):
        detached = registry[label]["node"]
        assert detached is not box and detached.parent is None
        assert all(node.document is None for node in detached.findall())
        assert detached.astext() == box.astext() and detached["ids"] == box["ids"]
        assert len(pickle.dumps(registry[label])) < before / 50
    assert registry["other"]["node"] is box  # another page's entries are not this page's
    assert box.parent is not None and box.document is document  # the page is untouched
    assert all(node.document is document for node in document.findall())


def test_numbered_references_unpickle_each_page_once():
    loads = []
    env = SimpleNamespace(
        get_doctree=lambda docname: loads.append(docname) or page_with_a_solution(10)[0],
        toc_fignumbers={"a": {}},
    )
    doctrees = lean_build.DoctreesReadOnce(env)
    first = doctrees.get_doctree("a")
    assert doctrees.get_doctree("a") is first and doctrees.get_doctree("b") is not first
    assert loads == ["a", "b"]
    assert doctrees.toc_fignumbers is env.toc_fignumbers  # everything else is the env's


def test_the_std_domain_resolves_numbered_references_through_the_cache():
    """setup wraps StandardDomain._resolve_numref_xref once (a second setup, as in a
    second build in one process, does not wrap it again), and the wrapped method gets a
    DoctreesReadOnce of the environment it was called with, the same for every call."""
    original = StandardDomain._resolve_numref_xref
    seen = []
    connected = []
    app = SimpleNamespace(connect=lambda event, handler, **kw: connected.append(event))
    try:
        StandardDomain._resolve_numref_xref = lambda self, env, *args: seen.append(env)
        lean_build.setup(app)
        wrapped = StandardDomain._resolve_numref_xref
        lean_build.setup(app)
        assert StandardDomain._resolve_numref_xref is wrapped
        env = SimpleNamespace(get_doctree=lambda docname: None)
        for _ in range(3):
            wrapped(None, env, "page", None, "numref", "label", None, None)
        assert all(isinstance(e, lean_build.DoctreesReadOnce) and e._env is env for e in seen)
        assert seen[0] is seen[1] is seen[2]
        assert connected.count("doctree-read") == 2 and "build-finished" in connected
    finally:
        StandardDomain._resolve_numref_xref = original

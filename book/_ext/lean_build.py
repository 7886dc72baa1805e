"""Two costs of the book's build that grow with every page, removed without changing
the HTML.

A local Sphinx extension, registered in ``_config.yml`` (``sphinx: local_extensions``).
Both costs fall in Sphinx's main process, where nothing else runs meanwhile; they were
found by sampling the 2-core build with py-spy (session 7).

- **The environment carried every page with an exercise.** sphinx-exercise keeps a deep
  copy of each exercise and solution node in ``env.sphinx_exercise_registry``, to number
  them and to title the references to them. docutils' ``deepcopy`` keeps each node's
  reference to its document, so every page's entries carried the whole page: the
  pickled environment weighed 9.8 MB, 7.5 MB of them in that registry. Sphinx pickles the
  environment in a reading process after each page and unpickles and merges it in the
  main process (``Builder._read_parallel``), so the pages were pickled and unpickled
  about 24 times over. (Solutions are registered as the page's node itself, whose
  ``parent`` leads to the page as well.) Once a page is read, the registry gets copies
  without the page (:func:`detach_exercise_copies`); what sphinx-exercise reads from
  them later (their titles, labels, ids and numbers) is in the nodes themselves.
- **Each numbered reference unpickled its target's page.** Sphinx's std domain resolves
  ``{numref}`` by loading the target page's doctree from its pickle
  (``StandardDomain._resolve_numref_xref`` calls ``env.get_doctree``), for every
  reference, while the main process resolves the pages one after another before
  handing them to the writers. The book has 77 of them, some to pages whose doctree
  pickles weigh 0.6 MB. :class:`DoctreesReadOnce` gives that method an environment whose
  ``get_doctree`` unpickles each page once per build; the method only reads the target
  node (its type, ids and caption).
"""

from __future__ import annotations

import functools
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment


def detach_exercise_copies(app: Sphinx, doctree: nodes.document) -> None:
    """Give the registry, for each exercise and solution of the page just read, a copy
    that holds neither the page nor a parent in it.

    sphinx-exercise registers a deep copy of each exercise and the node itself of each
    solution; in a parallel build the main process gets both as unpickled copies anyway,
    so a copy changes nothing it reads. The page's own nodes are left untouched."""
    env = app.env
    registry = getattr(env, "sphinx_exercise_registry", {})
    for entry in registry.values():
        if entry.get("docname") == env.docname:
            detached = entry["node"].deepcopy()
            for node in detached.findall():
                node._document = None
            entry["node"] = detached


class DoctreesReadOnce:
    """A build environment whose ``get_doctree`` unpickles each page once.

    Every other attribute is the environment's own. For read-only use: the doctree it
    returns for a page is the same object every time."""

    def __init__(self, env: BuildEnvironment) -> None:
        self._env = env
        self._doctrees: dict[str, nodes.document] = {}

    def get_doctree(self, docname: str) -> nodes.document:
        if docname not in self._doctrees:
            self._doctrees[docname] = self._env.get_doctree(docname)
        return self._doctrees[docname]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


def resolve_numref_reading_each_page_once(app: Sphinx) -> None:
    """Wrap ``StandardDomain._resolve_numref_xref`` to read doctrees through one
    :class:`DoctreesReadOnce` per build (made when the environment is complete, so no
    page changes after it is cached)."""
    original = StandardDomain._resolve_numref_xref
    if getattr(original, "reads_each_page_once", False):
        return
    current: list[DoctreesReadOnce] = []  # the one of this build's environment, if made

    @functools.wraps(original)
    def resolve(self: StandardDomain, env: BuildEnvironment, *args: Any) -> Any:
        if not current or current[0]._env is not env:
            current[:] = [DoctreesReadOnce(env)]
        return original(self, current[0], *args)

    resolve.reads_each_page_once = True  # type: ignore[attr-defined]
    StandardDomain._resolve_numref_xref = resolve  # type: ignore[method-assign]
    app.connect("build-finished", lambda app, exception: current.clear())


def setup(app: Sphinx) -> dict[str, Any]:
    # after sphinx-exercise's own doctree-read handler (priority 500)
    app.connect("doctree-read", detach_exercise_copies, priority=900)
    resolve_numref_reading_each_page_once(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The LaTeX side of the book: what ``python3 tasks.py pdf`` needs beyond the HTML setup.

- **Macros.** The math macros of ``_config.yml`` (``mathjax3_config.tex.macros``, the one
  list the chapters rely on: ``\\R``, ``\\Xc``, ``\\norm{...}``, ...) are defined again
  for LaTeX, so the PDF and the HTML cannot disagree on a macro.
- **Numbers as in the HTML.** A chapter is numbered in the PDF exactly when the HTML
  numbers it (the parts of ``_toc.yml`` with ``numbered: true``): the notation page,
  the appendix pages and the bibliography are unnumbered chapters, so "Chapter 4",
  "Theorem 4.2", "Fig. 4.1" and "(4.9)" mean the same in both. Theorems, exercises and
  their references take Sphinx's numbers (chapter.number, as in the HTML); figures,
  tables and equations take LaTeX's, which the preamble makes chapter.number in a
  numbered chapter and number alone elsewhere, as the HTML does.
- **Structure.** The book's front page (``book/index.md``) becomes the preface; a part
  caption "Part II, Principal components" becomes LaTeX's "Part II" page titled
  "Principal components"; parts without numbered chapters get no part number ("Front
  matter" gets no page at all, "Appendix" an unnumbered one); the bibliography has one
  heading, not two.
- **Proofs and solutions.** sphinx-proof draws a proof as an untitled box (an empty
  title bar, then "Proof." as plain text); here it is set as books set proofs: *Proof.*
  in italics, no box, and an end-of-proof mark ∎. A solution is a bold heading and its
  text without a box: in a box, Sphinx keeps a code block that it wrongly believes
  fits on the page in one piece, and a long solution ran over the page's foot.
- **Figures as PDF.** The chapters draw their figures as SVG only (their first cell's
  ``%config InlineBackend.figure_formats = ["svg"]``), which is what the HTML and a
  reader's notebook show. xelatex cannot include SVG, so for the LaTeX builder that line
  asks for SVG and PDF (:func:`figures_as_pdf_too`), and MyST-NB's priority for LaTeX
  takes the PDF: vector figures, not bitmaps. Drawing every figure twice in the HTML
  build cost 17-19% of a chapter's CPU (chapters 12 and 15, session 7).
- ``bbm.sty``, which sphinx-jupyterbook-latex's document class loads and Debian ships
  only in the 500 MB texlive-fonts-extra, is replaced by a three-line stand-in.

HTML builds are untouched.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.builders.latex import LaTeXBuilder
from sphinx.config import Config
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.latex import LaTeXTranslator
from sphinx_exercise.nodes import depart_solution_node, solution_node, visit_solution_node

HERE = Path(__file__).resolve().parent
LATEX_FILES = HERE / "latex"

# A part caption that already carries its number ("Part II, Principal components").
NUMBERED_CAPTION = re.compile(r"^Part\s+[IVXLC]+\s*[,:.]\s*")

PREAMBLE = r"""
% ---- book/_ext/latex_book.py ----
% Room for the running heads at 11pt (fancyhdr asks for 13.6pt).
\geometry{headheight=14pt}
% unicode-math's Latin Modern Math has no U+29F5, its \setminus.
\AtBeginDocument{\renewcommand{\setminus}{\mathbin{\backslash}}}
% Numbered chapters number their figures, tables, code blocks and equations
% chapter.number; unnumbered chapters (notation, appendix) number them 1, 2, ...
% as the HTML book does. \theH... keeps hyperref's anchors unique.
\newif\ifbooknumbered
\newcounter{bookunnumbered}
\makeatletter
\AtBeginDocument{%
  \edef\book@secnumdepth{\the\c@secnumdepth}%
  \renewcommand{\thefigure}{\ifbooknumbered\thechapter.\fi\arabic{figure}}%
  \renewcommand{\thetable}{\ifbooknumbered\thechapter.\fi\arabic{table}}%
  \renewcommand{\theliteralblock}{\ifbooknumbered\thechapter.\fi\arabic{literalblock}}%
  \renewcommand{\theequation}{\ifbooknumbered\thechapter.\fi\arabic{equation}}%
}
\newcommand{\booknumberedchapter}{%
  \booknumberedtrue
  \setcounter{secnumdepth}{\book@secnumdepth}%
  \renewcommand{\theHchapter}{\arabic{chapter}}}
\newcommand{\bookunnumberedchapter}[1]{%
  \booknumberedfalse
  \setcounter{secnumdepth}{0}%
  \stepcounter{bookunnumbered}%
  \renewcommand{\theHchapter}{unnumbered.\arabic{bookunnumbered}}%
  \chapter*{#1}\addcontentsline{toc}{chapter}{#1}\markboth{#1}{}%
  \setcounter{section}{0}\setcounter{figure}{0}\setcounter{table}{0}%
  \setcounter{equation}{0}\setcounter{literalblock}{0}}
\newcommand{\bookunnumberedpart}[1]{%
  \cleardoublepage\phantomsection\addcontentsline{toc}{part}{#1}\part*{#1}}
% The bibliography page has its own chapter title: no second heading.
\renewenvironment{sphinxthebibliography}[1]
  {\def\chapter*##1{}\begin{thebibliography}{#1}}
  {\end{thebibliography}}
\makeatother
% Solutions: the heading, then the text, code and figures, which may break across pages.
\newenvironment{booksolution}[1]
  {\par\medskip\noindent{\sffamily\bfseries #1}\par\nobreak\smallskip}
  {\par\medskip}
% Proofs: "Proof." in italics, no box, ∎ at the end.
\newenvironment{bookproof}
  {\par\medskip\noindent\ignorespaces}
  {\nobreak\hfill\nobreak\ensuremath{\blacksquare}\par\medskip}
"""


def latex_macros(macros: dict[str, str | list]) -> str:
    """LaTeX definitions of MathJax 3 macros: ``{"R": "\\mathbb{R}"}`` or
    ``{"norm": ["\\lVert #1 \\rVert", 1]}``.

    Each becomes an e-TeX ``\\protected`` macro, which replaces a command of the same
    name that a package may define (the MathJax meaning is the one the sources were
    written for) and stays safe in moving arguments (titles and captions with math).
    The expansion is braced, as MathJax treats it, so ``\\int_\\R`` works, except for
    operators (``\\operatorname...``), whose limits must stay attached to them.
    """
    lines = []
    for name, definition in macros.items():
        parameters = ""
        if isinstance(definition, (list, tuple)):
            definition, count = definition[0], int(definition[1])
            parameters = "".join(f"#{i}" for i in range(1, count + 1))
        if not definition.startswith("\\operatorname"):
            definition = "{" + definition + "}"
        lines.append(f"\\protected\\def\\{name}{parameters}{{{definition}}}")
    return "\n".join(lines)


class BookLaTeXTranslator(LaTeXTranslator):
    """Sphinx's LaTeX translator with the book's chapter numbering, parts and proofs."""

    def visit_title(self, node: nodes.Element) -> None:
        parent = node.parent
        if not isinstance(parent, nodes.section):
            return super().visit_title(node)
        if self.this_is_the_title:
            # The root document's title is the book's title (title page); its text is
            # the preface.
            self.body.append(r"\bookunnumberedchapter{%s}" % self.config.latex_book_preface_title)
            return super().visit_title(node)
        level = self.sectionnames[min(self.sectionlevel, len(self.sectionnames) - 1)]
        current = self.curfilestack[-1] if self.curfilestack else ""
        if level == "part":
            return self._visit_part_title(node, current)
        if level == "chapter":
            if self.builder.env.toc_secnumbers.get(current, {}).get(""):
                self.body.append(r"\booknumberedchapter" + "\n")
            else:
                title = self.escape(node.astext())
                self.body.append(r"\bookunnumberedchapter{%s}" % title)
                self.body.append("\n" + self.hypertarget_to(parent))
                raise nodes.SkipNode
        return super().visit_title(node)

    def _visit_part_title(self, node: nodes.Element, caption: str) -> None:
        """A part made by sphinx-jupyterbook-latex from a caption of _toc.yml."""
        numbered = _numbered_captions(self.builder.env)
        if caption in numbered:
            # "Part II, Principal components" -> \part{Principal components}
            node.children = [nodes.Text(NUMBERED_CAPTION.sub("", node.astext()))]
            return super().visit_title(node)
        seen_numbered = any(c in numbered for c in self._captions_before(caption))
        if seen_numbered:
            self.body.append(r"\bookunnumberedpart{%s}" % self.escape(node.astext()))
        raise nodes.SkipNode

    def _captions_before(self, caption: str) -> list[str]:
        captions = [tree.caption for tree in self.builder.env.external_site_map.root.subtrees]
        return captions[: captions.index(caption)] if caption in captions else []

    def visit_admonition(self, node: nodes.Element) -> None:
        if "proof" not in node.get("classes", []):
            return super().visit_admonition(node)
        # sphinx-proof writes "Proof. " at the start of the first paragraph.
        first = node.children[0] if node.children else None
        if isinstance(first, nodes.paragraph) and first.children:
            text = first.children[0]
            if isinstance(text, nodes.Text) and text.startswith("Proof."):
                rest = nodes.Text(str(text)[len("Proof.") :])
                first.replace(text, [nodes.emphasis("", "Proof."), rest])
        self.body.append("\n" + r"\begin{bookproof}")

    def depart_admonition(self, node: nodes.Element) -> None:
        if "proof" not in node.get("classes", []):
            return super().depart_admonition(node)
        self.body.append(r"\end{bookproof}" + "\n")


class DropContentsHeading(SphinxPostTransform):
    """Remove the title of a section of the root document that holds nothing but the
    table of contents ("## Contents" above ``{tableofcontents}``): the PDF has its own
    table of contents, and the heading would stand alone at the end of the preface.
    Runs before sphinx-jupyterbook-latex (700) arranges the root document into parts."""

    default_priority = 650
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        if self.app.project.path2doc(self.document["source"]) != self.config.root_doc:
            return
        for section in list(self.document.findall(nodes.section)):
            if section.get("docname") != self.config.root_doc or not section.children:
                continue
            title, *rest = section.children
            if rest and isinstance(title, nodes.title) and all(map(_holds_toctree, rest)):
                section.remove(title)


def _holds_toctree(node: nodes.Node) -> bool:
    """A toctree wrapper, or the node sphinx-jupyterbook-latex puts beside one."""
    classes = node.get("classes", []) if isinstance(node, nodes.Element) else []
    return "toctree-wrapper" in classes or "latex-tableofcontents" in classes


def visit_solution(self: LaTeXTranslator, node: nodes.Element) -> None:
    """sphinx-exercise's solution (its label and title), in a booksolution, not a box."""
    visit_solution_node(self, node)
    self.body[-1] = self.body[-1].replace(r"\begin{sphinxadmonition}{note}", r"\begin{booksolution}")


def depart_solution(self: LaTeXTranslator, node: nodes.Element) -> None:
    depart_solution_node(self, node)
    self.body[-1] = self.body[-1].replace(r"\end{sphinxadmonition}", r"\end{booksolution}")


def _numbered_captions(env) -> set[str]:
    """Captions of the _toc.yml parts whose chapters are numbered."""
    return {tree.caption for tree in env.external_site_map.root.subtrees if tree.numbered}


def configure_latex(app: Sphinx, config: Config) -> None:
    """Add the book's macros and layout to the LaTeX preamble and the stand-in files to
    the build.

    Runs after sphinx-jupyterbook-latex (priority 900 > 500), so the preamble comes
    after the packages it loads (unicode-math) and wins over their definitions."""
    macros = (config.mathjax3_config or {}).get("tex", {}).get("macros", {})
    elements = dict(config.latex_elements)
    elements["preamble"] = "\n".join(
        [
            elements.get("preamble", ""),
            PREAMBLE,
            "% The book's math macros (_config.yml, mathjax3_config)",
            latex_macros(macros),
        ]
    )
    config.latex_elements = elements
    files = list(config.latex_additional_files)
    files += [str(path) for path in sorted(LATEX_FILES.iterdir()) if str(path) not in files]
    config.latex_additional_files = files


def number_like_html(app: Sphinx) -> None:
    """Theorem and exercise numbers chapter.number, as in the HTML.

    sphinx-jupyterbook-latex sets ``numfig_secnum_depth = 2`` (chapter.section.number)
    so that LaTeX resets figure and equation counters per chapter under parts; the
    preamble above does that reset instead."""
    if isinstance(app.builder, LaTeXBuilder):
        app.config.numfig_secnum_depth = 1


SVG_ONLY = re.compile(r'^(%config InlineBackend\.figure_formats = )\["svg"\]$', re.M)


def figures_as_pdf_too(app: Sphinx, docname: str, source: list[str]) -> None:
    """For the LaTeX builder, a chapter's figures are drawn as PDF as well as SVG."""
    if isinstance(app.builder, LaTeXBuilder):
        source[0] = SVG_ONLY.sub(r'\1["svg", "pdf"]', source[0])


def setup(app: Sphinx) -> dict:
    app.add_config_value("latex_book_preface_title", "Preface", "env", str)
    app.connect("config-inited", configure_latex, priority=900)
    app.connect("builder-inited", number_like_html, priority=900)
    app.connect("source-read", figures_as_pdf_too)
    app.set_translator("latex", BookLaTeXTranslator, override=True)
    app.add_post_transform(DropContentsHeading)
    app.add_node(solution_node, override=True, latex=(visit_solution, depart_solution))
    return {"parallel_read_safe": True, "parallel_write_safe": True}

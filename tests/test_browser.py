"""The book as a reader sees it: every page of ``_toc.yml`` in a real headless browser.

Chromium (Debian's ``chromium``, driven by Selenium through Debian's ``chromedriver``)
opens every page of the built book, served from ``_build/html`` on 127.0.0.1; every
other host is unreachable, so a CDN dependency fails here. A pytest process has one
Chromium session and visits a page when its first test asks for it: under pytest-xdist
the workers take the pages one by one (conftest.BookScheduling). Per page:

- formulas: every one typeset by MathJax, no MathJax error, no raw TeX left in the text;
- images: every one loaded, with real alt text, sharp on a high-density screen (SVG or
  at least 2x pixels), and as many figures as the chapter draws;
- links: every link into the book reaches an existing page and, with ``#id``, an
  existing element of it;
- no console error, and every request answered by the local server;
- at 1400 px nothing wider than the text column (display equations, code inputs, cell
  outputs: printed arrays and error messages wrap or fit, none scrolls sideways);
  at 390 px (a phone) the page never scrolls sideways;
- theorem, proof, exercise and solution boxes as in the source, proofs set off by
  *Proof.* and ended by ∎, a solution toggle that opens, unique element ids, one search
  field, a favicon;
- chapters with code: the ``.ipynb`` download link gives a valid executed notebook;
- search finds every page by a word of its title, with snippets free of raw TeX.

The book is built first unless ``python3 tasks.py book`` finished after the last change
to the sources (browser_support.ensure_built_book). Without Chromium the tests are
skipped with a banner, or fail under CI=true. A per-page table is printed at the end.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import browser_support as support
import nbformat
import pytest

pytestmark = pytest.mark.browser

ROOT = support.ROOT
PROBES = (Path(__file__).parent / "browser_probes.js").read_text()
DESKTOP = (1400, 900)
PHONE = (390, 844)

_spec = importlib.util.spec_from_file_location("book_conftest", ROOT / "conftest.py")
_book_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_book_conftest)
SOURCES = {
    str(path.relative_to(ROOT).with_suffix("")): path
    for path in _book_conftest.toc_chapters() if path.exists()
}
PAGES = list(SOURCES)

# A word of each page's title that search must find it by (checked against the title).
SEARCH_TERMS = {
    "book/index": "verified",
    "book/notation": "notation",
    "book/01_why_reduce": "dimension",
    "book/02_centering": "centering",
    "book/03_covariance": "covariance",
    "book/04_maximum_variance": "maximum",
    "book/05_reconstruction": "reconstruction",
    "book/06_eckart_young": "Eckart",
    "book/07_svd_and_pca": "SVD",
    "book/08_pcoa": "coordinates",
    "book/09_ppca": "probabilistic",
    "book/10_pitfalls": "pitfalls",
    "book/11_pca_at_scale": "scale",
    "book/12_how_many_components": "sure",
    "book/13_missing_values": "missing",
    "book/14_robust_pca": "outliers",
    "book/15_kernel_pca": "kernel",
    "book/16_reading_components": "reading",
    "book/17_categories_counts_compositions": "compositions",
    "book/18_pca_and_prediction": "prediction",
    "book/19_curves_and_series": "curves",
    "book/appendix_linear_algebra": "algebra",
    "book/appendix_api": "API",
    "book/bibliography": "bibliography",
}

DIRECTIVE = re.compile(
    r"^\s*(`{3,}|:{3,})\{(prf:\w+|exercise|solution|exercise-start|solution-start)\}", re.M)
FILE_NAME_ALT = re.compile(r"(^|/)[\w.-]+\.(png|svg|jpe?g|gif|pdf)$|^_images/|^\s*$", re.I)


def source_of(page: str) -> str:
    return SOURCES[page].read_text()


def expected_boxes(page: str) -> dict[str, int]:
    """Directive counts of the source: theorem, proof, exercise, solution, ..."""
    counts: dict[str, int] = {}
    for match in DIRECTIVE.finditer(source_of(page)):
        kind = match.group(2).removeprefix("prf:").removesuffix("-start")
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def has_code(page: str) -> bool:
    return "{code-cell}" in source_of(page)


def drawn_figures(page: str) -> int:
    return source_of(page).count("plt.show()")


# ------------------------------------------------------------------ session fixtures


@dataclass
class Visit:
    """What one page showed: the in-page measurements plus logs and requests."""

    page: str
    data: dict = field(default_factory=dict)
    ready: str = ""
    console: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    solution: str = ""
    error: str = ""
    origin: str = ""
    broken_links: list[str] = field(default_factory=list)
    links_total: int = 0
    links_ok: int = 0
    phone: dict = field(default_factory=dict)  # the page at 390 px (measured_as_phone)


def table_row(visit: Visit) -> list[str]:
    """The page's cells of the per-page table (support.TABLE_COLUMNS)."""
    phone = visit.phone
    cells = ["-"] * 7
    if visit.data:
        data = visit.data
        formulas = data["formulas"]
        bad = len(formulas["unrendered"]) + len(formulas["errors"]) + len(formulas["raw"])
        images = data["images"]
        cells = [
            f"{formulas['total'] - bad}/{formulas['total']}",
            f"{sum(i['loaded'] for i in images)}/{len(images)}",
            f"{visit.links_ok}/{visit.links_total}",
            str(len(data["wideEquations"])),
            str(len(data["wideCode"])),
            str(len(data["wideOutputs"])),
            str(len(visit.console)),
        ]
    else:
        cells[0] = "error"
    if "error" in phone:
        phone_cell = "error"
    elif phone["pageWidth"] <= phone["viewport"] and not phone["sticking"]:
        phone_cell = "ok"
    else:
        phone_cell = f"{phone['pageWidth']}px"
    return cells[:6] + [phone_cell, cells[6]]


class VisitedPages(dict):
    """page -> what its visit measured, visiting a page when a test first asks for it:
    each pytest-xdist worker visits the pages of the tests it runs (tasks.py hands the
    browser tests out page by page), one worker all of them."""

    def __init__(self, visit):
        super().__init__()
        self.visit = visit

    def __missing__(self, page: str):
        self[page] = measured = self.visit(page)
        return measured


@pytest.fixture(scope="session")
def report(pytestconfig):
    """The per-page table printed after the run (support.BrowserReport, which the root
    conftest.py registers)."""
    plugin = pytestconfig.pluginmanager.get_plugin("pcabook-browser-report")
    plugin.order = PAGES
    return plugin


@pytest.fixture(scope="session")
def browser(report, pytestconfig):
    """The one Chromium session of the run, with the built book served locally."""
    terminal = pytestconfig.pluginmanager.get_plugin("terminalreporter")

    def say(message):
        if terminal is not None:
            terminal.write_line(message, yellow=True)

    found, why = support.find_chromium(report=say)
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and no browser: {why}", pytrace=False)
        report.skip(why)
        pytest.skip(f"no Chromium for the browser tests: {why}")
    try:
        support.ensure_built_book(report=say)
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
    with support.BookServer() as server:
        driver = support.start_browser(*found)
        driver.pcabook_server = server
        try:
            yield driver
        finally:
            support.stop_browser(driver)


def run_probe(driver, name: str, *args):
    """Call PROBES.name(*args) in the page; its result travels as JSON text."""
    return json.loads(driver.execute_script(
        f"{PROBES}\nreturn JSON.stringify(PROBES.{name}(...arguments));", *args))


def run_async_probe(driver, name: str):
    """Call PROBES.name(done) in the page and wait for done(result)."""
    return json.loads(driver.execute_async_script(
        f"{PROBES}\nconst done = arguments[arguments.length - 1];\n"
        f"PROBES.{name}((result) => done(JSON.stringify(result)));"))


def drain_logs(driver, origin: str) -> tuple[list[str], list[str]]:
    """Severe console entries and requests to other hosts since the last call."""
    console = [f"{e['message']}" for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    outside = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Network.requestWillBeSent":
            continue
        url = message["params"]["request"]["url"]
        if not url.startswith((origin, "data:", "blob:", "about:")):
            outside.append(url)
    return console, sorted(set(outside))


def open_page(driver, url: str) -> str:
    driver.get(url)
    return run_async_probe(driver, "ready")


def blank_at_desktop_width(driver) -> None:
    """The server's empty page at desktop width, its logs (and the last page's) drained."""
    server = driver.pcabook_server
    driver.get(server.url(support.BLANK.lstrip("/")))
    support.set_viewport(driver, *DESKTOP, mobile=False)
    drain_logs(driver, server.origin)


@pytest.fixture(scope="session")
def desktop(browser, report):
    """Each page at 1400 px: measurements, console, requests, a solution opened; then
    the same page narrowed to 390 px as a phone shows it (``Visit.phone``). A page is
    visited when a test first asks for it (VisitedPages).

    Narrowing the loaded page instead of loading it again saves a load and a typesetting
    per page; the layout is recomputed for the phone's viewport, with ``mobile``
    emulation, as on a fresh load, and any opened solution must fit the phone too. The
    viewport goes back to desktop width on the server's empty page: re-laying out a
    long page takes 2-4 s, as long as narrowing it."""
    server = browser.pcabook_server
    ids_cache: dict[Path, set[str] | None] = {}

    def visit_page(page: str) -> Visit:
        blank_at_desktop_width(browser)  # the browser's start page or the last page
        visit = Visit(page, origin=server.origin)
        first_request = len(server.requests)
        try:
            visit.ready = open_page(browser, server.url(f"{page}.html"))
            if "solution" in expected_boxes(page):
                visit.solution = run_probe(browser, "openSolution")
            visit.data = run_probe(browser, "desktop", sorted(expected_boxes(page)))
        except Exception as error:  # reported by every test of the page
            visit.error = f"{type(error).__name__}: {error}"
        visit.phone = measured_as_phone(browser)
        visit.console, visit.outside = drain_logs(browser, server.origin)
        visit.failed = [f"{path} ({status})" for path, status in server.requests[first_request:]
                        if status >= 400]
        visit.broken_links = broken_links(server, visit.data.get("links", []), ids_cache)
        internal = [u for u in visit.data.get("links", []) if server.file_for(u) is not None]
        visit.links_total = len(internal)
        visit.links_ok = len(internal) - len(visit.broken_links)
        report.add_row(page, table_row(visit))
        return visit

    return VisitedPages(visit_page)


def measured_as_phone(driver) -> dict:
    """The loaded page at 390 px wide with mobile emulation (the viewport stays so)."""
    try:
        support.set_viewport(driver, *PHONE, mobile=True)
        return run_probe(driver, "phone")
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}


@pytest.fixture(scope="session")
def phone(desktop):
    """Each page at 390 px wide, measured during its desktop visit."""
    return VisitedPages(lambda page: desktop[page].phone)


@pytest.fixture(scope="session")
def search(browser):
    """search.html for each page's term (SEARCH_TERMS): its results and snippets."""
    server = browser.pcabook_server

    def search_for(page: str) -> dict:
        blank_at_desktop_width(browser)
        browser.get(server.url(f"search.html?q={SEARCH_TERMS[page]}"))
        found = run_async_probe(browser, "searchResults")
        found["console"], found["outside"] = drain_logs(browser, server.origin)
        return found

    return VisitedPages(search_for)


def test_a_solution_found_by_its_title_gets_its_snippet(browser):
    """An exercise solution's anchor holds a "/" (#book/01_why_reduce-solution-6), which is
    no CSS selector: its snippet is the text of the element with that id (Sphinx's own
    lookup, a querySelector, throws there), for each such anchor of chapter 1."""
    browser.get(browser.pcabook_server.url("search.html?q=zzzz"))  # the index, no result
    run_async_probe(browser, "searchResults")
    texts = json.loads(browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const doc = "book/01_why_reduce", out = {};
          const index = Search._index, number = index.docnames.indexOf(doc);
          const html = await (await fetch(doc + ".html")).text();
          for (const [title, entries] of Object.entries(index.alltitles)) {
            for (const [i, id] of entries) {
              if (i !== number || !id || !id.includes("/")) continue;
              try { out[title] = Search.htmlToText(html, "#" + id); }
              catch (error) { out[title] = "ERROR " + error; }
            }
          }
          done(JSON.stringify(out));
        })();"""))
    assert len(texts) >= 3, f"chapter 1's solutions are not in the index: {texts}"
    for title, text in texts.items():
        assert not text.startswith("ERROR"), f"{title}: {text}"
        assert title.removeprefix("Solution to ").split(" (")[0] in text, f"{title}: {text[:200]}"


def ids_of(path: Path) -> set[str]:
    text = path.read_text(errors="replace")
    return set(re.findall(r"""\s(?:id|name)=["']([^"']+)["']""", text))


def broken_links(server, links: list[str], cache: dict) -> list[str]:
    """Same-origin links whose file or #fragment does not exist in the build."""
    broken = []
    for url in links:
        path = server.file_for(url)
        if path is None:
            continue
        if path not in cache:
            cache[path] = ids_of(path) if path.is_file() and path.suffix == ".html" else (
                set() if path.is_file() else None)
        ids = cache[path]
        shown = url.removeprefix(server.origin + "/")
        if ids is None:
            broken.append(f"{shown} (no such file)")
            continue
        fragment = url.partition("#")[2]
        if fragment and path.suffix == ".html":
            if unquote(fragment) not in ids:
                broken.append(f"{shown} (no element with this id)")
    return broken


def visited(desktop, page: str) -> Visit:
    visit = desktop[page]
    assert not visit.error, f"{page}: the page could not be measured: {visit.error}"
    return visit


# ----------------------------------------------------------------------- per page

page_parameters = pytest.mark.parametrize("page", PAGES)


@page_parameters
def test_every_formula_is_typeset(desktop, page):
    visit = visited(desktop, page)
    formulas = visit.data["formulas"]
    assert visit.ready in ("typeset", "no math"), f"{page}: {visit.ready}"
    assert not formulas["unrendered"], (
        f"{page}: formulas MathJax did not typeset: {formulas['unrendered'][:5]}")
    assert not formulas["errors"], f"{page}: MathJax errors: {formulas['errors'][:5]}"
    assert not formulas["raw"], f"{page}: raw TeX in the text: {formulas['raw'][:5]}"


@page_parameters
def test_every_image_loads_is_described_and_sharp(desktop, page):
    visit = visited(desktop, page)
    images = visit.data["images"]
    problems = [f"{i['src']}: not loaded" for i in images if not i["loaded"]]
    problems += [f"{i['src']}: alt text {i['alt']!r} does not say what the figure shows"
                 for i in images if FILE_NAME_ALT.search(i["alt"]) or len(i["alt"].split()) < 3]
    problems += [f"{i['src']}: {i['natural']} px of image shown {i['shown']} px wide "
                 "(neither SVG nor 2x: blurred on a high-density screen)"
                 for i in images if i["loaded"] and i["shown"]
                 and not i["src"].lower().endswith(".svg") and i["natural"] < 2 * i["shown"] - 1]
    drawn = drawn_figures(page)
    shown = sum(i["output"] for i in images)
    if shown < drawn:
        problems.append(f"the source draws {drawn} figures (plt.show()), the page shows {shown}")
    assert not problems, f"{page}:\n  " + "\n  ".join(problems)


@page_parameters
def test_every_link_into_the_book_resolves(desktop, page):
    visit = visited(desktop, page)
    assert visit.links_total > 0, f"{page}: no link found at all"
    assert not visit.broken_links, f"{page}: broken links: {visit.broken_links}"


@page_parameters
def test_no_console_error(desktop, page):
    visit = visited(desktop, page)
    assert not visit.console, f"{page}: console errors:\n  " + "\n  ".join(visit.console)


@page_parameters
def test_everything_comes_from_the_book_itself(desktop, page):
    visit = visited(desktop, page)
    assert not visit.outside, f"{page}: requests to other hosts (blocked here): {visit.outside}"
    assert not visit.failed, f"{page}: requests the local server could not answer: {visit.failed}"


@page_parameters
def test_nothing_wider_than_the_text_column_at_desktop_width(desktop, page):
    data = visited(desktop, page).data
    problems = [f"equation {e['equation']}: {e['width']} px in a {e['available']} px column"
                for e in data["wideEquations"]]
    problems += [f"code line of {c['characters']} characters ({c['line']}...): "
                 f"{c['width']} px in {c['available']} px" for c in data["wideCode"]]
    problems += [f"{o['kind']} output line of {o['characters']} characters ({o['line']}...): "
                 f"{o['width']} px in {o['available']} px" for o in data["wideOutputs"]]
    if data["pageWidth"] > data["viewport"]:
        problems.append(
            f"the page is {data['pageWidth']} px wide in a {data['viewport']} px window")
    assert not problems, f"{page} at {DESKTOP[0]} px:\n  " + "\n  ".join(problems)


@page_parameters
def test_no_warning_or_log_printed_in_the_page(desktop, page):
    stderr = visited(desktop, page).data["stderrOutputs"]
    assert not stderr, f"{page}: cells printed to stderr: {stderr}"


@page_parameters
def test_page_never_scrolls_sideways_on_a_phone(phone, page):
    measured = phone[page]
    assert "error" not in measured, f"{page}: {measured.get('error')}"
    assert measured["pageWidth"] <= measured["viewport"], (
        f"{page} at {PHONE[0]} px: the page is {measured['pageWidth']} px wide; "
        f"sticking out: {measured['sticking']}")
    assert not measured["sticking"], (
        f"{page} at {PHONE[0]} px: cut off at the right: {measured['sticking']}")


@page_parameters
def test_theorem_proof_exercise_and_solution_boxes(desktop, page):
    visit = visited(desktop, page)
    expected = expected_boxes(page)
    assert visit.data["boxes"] == expected, (
        f"{page}: boxes shown {visit.data['boxes']}, source has {expected}")
    marks = visit.data["proofMarks"]
    assert marks["withoutTitle"] == 0, (
        f"{page}: {marks['withoutTitle']} of {marks['proofs']} proofs lack *Proof.*")
    assert marks["withoutEnd"] == 0, (
        f"{page}: {marks['withoutEnd']} of {marks['proofs']} proofs lack a visible ∎")
    if "solution" in expected:
        assert visit.solution == "opened", f"{page}: {visit.solution}"


@page_parameters
def test_element_ids_are_unique(desktop, page):
    duplicates = visited(desktop, page).data["duplicateIds"]
    assert not duplicates, f"{page}: ids used more than once: {duplicates}"


@page_parameters
def test_one_search_field_and_a_favicon(desktop, page):
    data = visited(desktop, page).data
    assert data["searchFields"] == 1, (
        f"{page}: {data['searchFields']} search fields visible at desktop width")
    assert data["favicon"], f"{page}: no <link rel=icon>"
    with urllib.request.urlopen(data["favicon"], timeout=10) as response:
        assert response.status == 200 and response.read(), (
            f"{page}: favicon {data['favicon']} is empty")


@pytest.mark.parametrize("page", [p for p in PAGES if has_code(p)])
def test_chapter_offers_its_executed_notebook(desktop, page):
    """The page links its chapter as .ipynb: valid, executed, importing pcalib."""
    link = visited(desktop, page).data["notebook"]
    assert link, f"{page}: no <a class=\"notebook-download\"> link to the chapter's .ipynb"
    assert link.startswith(desktop[page].origin + "/"), f"{page}: {link} is not part of the book"
    with urllib.request.urlopen(link, timeout=30) as response:
        assert response.status == 200, f"{page}: {link} answered {response.status}"
        notebook = nbformat.reads(response.read().decode("utf-8"), as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, f"{page}: {link} has no code cell"
    assert any(cell.get("outputs") for cell in code), (
        f"{page}: {link} has no outputs (not executed)")
    assert any(re.search(r"^\s*(import pcalib|from pcalib)", cell.source, re.M) for cell in code), (
        f"{page}: {link} never imports pcalib")


# -------------------------------------------------------------------------- search


@pytest.mark.parametrize("page", PAGES)
def test_search_finds_the_page_by_a_word_of_its_title(desktop, search, page):
    term = SEARCH_TERMS.get(page)
    assert term, f"{page}: add a search term from its title to SEARCH_TERMS"
    title = visited(desktop, page).data["title"]
    assert term.lower() in title.lower(), (
        f"{page}: search term {term!r} is not in its title {title!r}")
    found = search[page]
    assert not found["timedOut"], f"search for {term!r} did not finish: {found['status']}"
    hrefs = [r["href"].split("#")[0] for r in found["results"]]
    assert any(h.endswith(f"/{page}.html") for h in hrefs), (
        f"search for {term!r} does not list {page}: {found['status']}; {hrefs[:8]}")
    raw = {r["title"]: r["raw"] for r in found["results"] if r["raw"]}
    assert not raw, f"search for {term!r}: raw TeX in snippets: {raw}"
    errors = [r["title"] for r in found["results"] if r["errors"]]
    assert not errors, f"search for {term!r}: MathJax errors in the snippets of {errors}"
    assert not found["console"], f"search for {term!r}: console errors {found['console']}"
    assert not found["outside"], f"search for {term!r}: requests to other hosts {found['outside']}"

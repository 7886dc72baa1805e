"""What the browser tests need: the built book, Debian's Chromium, a local web server.

- ``ensure_built_book`` reuses ``_build/html`` when ``python3 tasks.py book`` finished
  it (its stamp) after the last change to the sources, and builds it otherwise.
- ``find_chromium`` returns Debian's ``chromium`` and ``chromedriver``, installing them
  with apt-get when they are missing and this process may (root, apt-get present).
- ``BookServer`` serves ``_build/html`` on 127.0.0.1 and records every request.
- ``start_browser`` starts one headless Chromium that can reach nothing but 127.0.0.1;
  ``warm_up`` (this file run as a script) installs and starts it once ahead of the tests.
- ``BrowserReport`` prints the per-page table at the end of the run, merging the rows of
  every pytest-xdist worker (each worker's Chromium visits the pages of its tests).

Selenium drives the browser through Debian's ``chromedriver``, which is built from the
same source as Debian's ``chromium`` and so always speaks its protocol version.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

try:
    import fcntl
except ImportError:  # Windows: taking_turns lets every process through at once
    fcntl = None

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
BUILD_STAMP = HTML / ".build-passed"  # written by tasks.py after a build that passed
# Everything the HTML is made from (chapters execute pcalib, so it counts).
SOURCES = ("_config.yml", "_toc.yml", "book", "pcalib", "requirements.txt")
IGNORED_PARTS = {"__pycache__", ".ipynb_checkpoints", "_build", ".jupyter_cache"}

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")
CHROMEDRIVER_CANDIDATES = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
APT_PACKAGES = ("chromium", "chromium-driver")

# Flags for a headless Chromium running as root on a machine without network. The
# resolver maps every host but 127.0.0.1 to "not found" and the proxy (a closed port)
# catches addresses given as numbers: the book must work with nothing but itself.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
    "--window-size=1400,900",
    # CPU, not behaviour (the suite is CPU-bound on CI's 2 cores): the desktop fixture
    # leaves every page for an empty one, and the back-forward cache would freeze the
    # long page instead (and evict it later); scrollIntoView need not animate.
    "--disable-back-forward-cache",
    "--disable-smooth-scrolling",
)


# ---------------------------------------------------------------------------- the book


def newest_source() -> tuple[float, Path | None]:
    newest, which = 0.0, None
    for name in SOURCES:
        path = ROOT / name
        files = [path] if path.is_file() else (p for p in path.rglob("*") if p.is_file())
        for file in files:
            if IGNORED_PARTS.intersection(file.relative_to(ROOT).parts):
                continue
            mtime = file.stat().st_mtime
            if mtime > newest:
                newest, which = mtime, file
    return newest, which


def build_is_fresh() -> tuple[bool, str]:
    if not BUILD_STAMP.exists():
        return False, f"{BUILD_STAMP.relative_to(ROOT)} is missing (no passing build)"
    newest, which = newest_source()
    if newest > BUILD_STAMP.stat().st_mtime:
        return False, f"{which.relative_to(ROOT)} changed after the last build"
    return True, "the build is newer than every source"


@contextlib.contextmanager
def taking_turns(name: str):
    """Held by one process at a time: the pytest-xdist workers that would each build the
    book or install Chromium wait here, and the first does it for all
    (``_build/.<name>-lock``)."""
    path = ROOT / "_build" / f".{name}-lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure_built_book(report=print) -> None:
    """Build the book with the README's command unless a passing build is up to date
    (once for all test processes that need it: each xdist worker with browser tests, the
    notebook-download tests)."""
    with taking_turns("build"):
        fresh, why = build_is_fresh()
        if fresh:
            return
        report(f"browser tests: building the book first ({why}): python3 tasks.py book")
        result = subprocess.run(
            [sys.executable, str(ROOT / "tasks.py"), "book"],
            cwd=ROOT, capture_output=True, text=True, timeout=3600,
        )
    if result.returncode or not BUILD_STAMP.exists():
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-40:])
        raise RuntimeError(f"python3 tasks.py book failed (exit {result.returncode}):\n{tail}")


# ------------------------------------------------------------------------ the browser


def _first_existing(candidates, name: str) -> str | None:
    for candidate in (shutil.which(name), *candidates):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def installed_chromium() -> tuple[str, str] | None:
    browser = _first_existing(CHROMIUM_CANDIDATES, "chromium")
    driver = _first_existing(CHROMEDRIVER_CANDIDATES, "chromedriver")
    return (browser, driver) if browser and driver else None


def find_chromium(report=print) -> tuple[tuple[str, str] | None, str]:
    """(chromium, chromedriver) paths, installing Debian's packages if needed and
    possible (one process at a time: apt-get runs once); otherwise (None, why not)."""
    with taking_turns("chromium"):
        return _find_or_install_chromium(report)


def _find_or_install_chromium(report) -> tuple[tuple[str, str] | None, str]:
    found = installed_chromium()
    if found:
        return found, "installed"
    apt = shutil.which("apt-get")
    if apt is None:
        return None, "chromium and chromedriver are not installed and apt-get is not available"
    if os.geteuid() != 0:
        return None, (
            "chromium and chromedriver are not installed and installing them needs root: "
            f"sudo apt-get install -y {' '.join(APT_PACKAGES)}"
        )
    report(f"browser tests: installing {' '.join(APT_PACKAGES)} with apt-get")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    steps = ([apt, "update", "-q"], [apt, "install", "-y", "-q", *APT_PACKAGES])
    for step in steps:
        result = subprocess.run(step, env=env, capture_output=True, text=True, timeout=1800)
        if result.returncode:
            tail = "\n".join((result.stdout + result.stderr).splitlines()[-15:])
            return None, f"{' '.join(step)} failed (exit {result.returncode}):\n{tail}"
    found = installed_chromium()
    if found:
        return found, "installed now with apt-get"
    return None, (f"apt-get installed {' '.join(APT_PACKAGES)} "
                  "but chromium/chromedriver are not on PATH")


def start_browser(chromium: str, chromedriver: str):
    """One headless Chromium with a fresh profile; console and network logs kept."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pcabook-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # the performance log is read for requests only (test_browser.drain_logs): leave out
    # the Page domain's events
    options.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": False})
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_script_timeout(60)
    driver.set_page_load_timeout(60)
    driver.pcabook_profile = profile
    return driver


def stop_browser(driver) -> None:
    try:
        driver.quit()
    finally:
        shutil.rmtree(driver.pcabook_profile, ignore_errors=True)


def warm_up(report=print) -> None:
    """Chromium installed (find_chromium) and started once, so that the browser tests
    find it ready: .ci/run runs this (``python tests/browser_support.py``) beside the
    book build. In a CI-like run on a fresh machine the tests' first Chromium start took
    29 s, against 0.6-0.8 s on a machine that had started it before."""
    found, why = find_chromium(report=report)
    if found is None:
        report(f"no Chromium to warm up: {why}")
        return
    driver = start_browser(*found)
    try:
        driver.get("about:blank")
    finally:
        stop_browser(driver)
    report(f"Chromium ready: {found[0]} ({why})")


def set_viewport(driver, width: int, height: int, mobile: bool) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
    })


# ------------------------------------------------------------------------- the server


#: an empty page of the server's own origin: the browser leaves a long page for it before
#: changing the viewport (cheap on an empty page) and keeps its renderer process and
#: caches for the next page of the book (about:blank would start a new process).
BLANK = "/__blank__.html"


class BookServer:
    """``_build/html`` over HTTP on 127.0.0.1 (a free port), in a background thread,
    and an empty page at ``BLANK``.

    ``requests`` lists (path, status) of every request, so a test can name the files a
    page asked for and did not get.
    """

    def __init__(self, root: Path = HTML):
        self.requests: list[tuple[str, int]] = []
        recorder = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):  # quiet: the tests report what matters
                pass

            def log_request(self, code="-", size="-"):
                recorder.append((self.path, int(code) if str(code).isdigit() else 0))

            def do_GET(self):
                if self.path != BLANK:
                    return super().do_GET()
                body = b'<!DOCTYPE html><title>blank</title><link rel="icon" href="data:,">'
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        handler = functools.partial(Handler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> BookServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    def url(self, page: str) -> str:
        return f"{self.origin}/{page}"

    def file_for(self, url: str) -> Path | None:
        """The built file a same-origin URL names (None for another origin)."""
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            return None
        path = HTML / unquote(parts.path).lstrip("/")
        return path / "index.html" if path.is_dir() else path


# ------------------------------------------------------------------------- the report


#: the per-page table's columns after the page's name, and its legend
TABLE_COLUMNS = (("formulas", 9), ("images", 7), ("links", 7), ("wide eq", 7),
                 ("wide code", 9), ("wide out", 8), ("phone", 6), ("console", 7))
TABLE_LEGEND = ("formulas/images/links: good/total; wide eq/code/out: display equations, "
                "code inputs and cell outputs wider than the text column at 1400 px; "
                "phone: page width at 390 px; console: errors")


class BrowserReport:
    """The per-page table of the browser tests and their skip banner, printed after the
    run; registered by the root conftest.py in every pytest process.

    The browser tests set ``order`` (every page of the book, in the order of _toc.yml),
    give it one row per page they visited (``add_row``) and the reason when there was no
    browser (``skip``). Under pytest-xdist a worker's terminal summary is not shown: each
    worker hands its rows to the controlling process (``config.workeroutput``, read in
    ``pytest_testnodedown``), which prints every page, whichever worker visited it."""

    def __init__(self, config):
        self.order: list[str] = []
        self.rows: dict[str, list[str]] = {}  # page -> its cells (TABLE_COLUMNS)
        self.skipped_because = ""
        self.worker_output = getattr(config, "workeroutput", None)

    def add_row(self, page: str, cells: list[str]) -> None:
        self.rows[page] = cells
        self._hand_over()

    def skip(self, why: str) -> None:
        self.skipped_because = why
        self._hand_over()

    def _hand_over(self) -> None:
        """In an xdist worker: what the controller prints, as JSON (sent at its end)."""
        if self.worker_output is not None:
            self.worker_output["pcabook_browser"] = json.dumps(
                {"order": self.order, "rows": self.rows, "skipped": self.skipped_because})

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """The controller receives a worker's rows (xdist's hook, when it is installed)."""
        sent = getattr(node, "workeroutput", {}).get("pcabook_browser")
        if sent is None:
            return
        sent = json.loads(sent)
        self.rows.update(sent["rows"])
        self.order = self.order or sent["order"]
        self.skipped_because = self.skipped_because or sent["skipped"]

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.worker_output is not None:  # the controller prints
            return
        if self.skipped_because:
            skipped = [r for r in terminalreporter.stats.get("skipped", [])
                       if "test_browser.py" in r.nodeid]
            terminalreporter.section("BROWSER TESTS SKIPPED", sep="!", red=True, bold=True)
            terminalreporter.write_line(
                f"{len(skipped)} browser tests did not run: {self.skipped_because}", red=True)
            terminalreporter.write_line(
                "The rendered book was NOT checked. On CI (CI=true) this is a failure.", red=True)
        if not self.rows:
            return
        terminalreporter.section("browser: the book page by page")
        terminalreporter.write_line(
            f"{'page':<30} " + " ".join(f"{name:>{width}}" for name, width in TABLE_COLUMNS))
        for page in self.order:
            if page in self.rows:
                terminalreporter.write_line(f"{page.removeprefix('book/'):<30} " + " ".join(
                    f"{cell:>{width}}" for cell, (_, width) in zip(self.rows[page], TABLE_COLUMNS)))
        terminalreporter.write_line(TABLE_LEGEND)


if __name__ == "__main__":
    warm_up()

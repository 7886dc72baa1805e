#!/usr/bin/env python3
"""The two commands of the README, for a machine with nothing but Python 3.11+.

    python3 tasks.py book    # build the HTML book into _build/html
    python3 tasks.py test    # run the library tests and execute every chapter
    python3 tasks.py pdf     # build the whole book as one PDF (needs LaTeX, see below)
    python3 tasks.py minimum # the built wheel alone, on its declared minimum versions
                             # (--quick: the CI lane, MINIMUM_QUICK)
    python3 tasks.py environment  # only create or update .venv

Both create the virtual environment ``.venv`` on first use and install
``requirements.txt`` into it (again whenever requirements.txt or pyproject.toml
change), then run inside it. Extra arguments are passed on to pytest or to
``jupyter-book build``. ``pdf`` also needs Debian's LaTeX packages
(LATEX_PACKAGES): run as root with apt-get it installs them, otherwise it prints
the command that does.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
STAMP = VENV / ".requirements-installed"
BUILD_STAMP = ROOT / "_build" / "html" / ".build-passed"
MIN_PYTHON = (3, 11)
PYCACHE = VENV / "pycache"
#: The installer (https://docs.astral.sh/uv), one minor release: see install()
UV = "uv>=0.13,<0.14"


def run(*command: str | os.PathLike, **settings: str) -> None:
    """Run a command in the project folder with extra environment `settings`;
    exit with its status if it fails."""
    print("+", " ".join(str(c) for c in command), flush=True)
    status = subprocess.call([str(c) for c in command], cwd=ROOT, env=environment() | settings)
    if status:
        sys.exit(status)


def environment() -> dict[str, str]:
    """Headless, reproducible settings for builds and tests on small machines."""
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    # NumPy and SciPy each bundle an OpenBLAS whose idle threads spin for a while after
    # each call and take the cores from the other's threads: short spins, as in CI
    # (.ci/run). On a loaded 2-core machine a chapter took 142 s without it, 26 s with.
    env.setdefault("OPENBLAS_THREAD_TIMEOUT", "1")
    # Bytecode is written once, into .venv (PYCACHE), by the first process that imports a
    # module: uv installs without compiling, and with PYTHONDONTWRITEBYTECODE (set on
    # some machines, the CI machine among them) every chapter kernel and test worker
    # would compile NumPy, SciPy and Matplotlib again. Nothing is written beside the
    # sources either way.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(PYCACHE))
    env["PATH"] = str(PYTHON.parent) + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(VENV)
    return env


def requirements_digest() -> str:
    digest = hashlib.sha256()
    for name in ("requirements.txt", "pyproject.toml"):
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def ensure_environment() -> None:
    """Create .venv and install the requirements unless they are already installed."""
    if sys.version_info < MIN_PYTHON:
        sys.exit(f"Python {'.'.join(map(str, MIN_PYTHON))} or newer is needed, this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        print(f"Creating the virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    wanted = requirements_digest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    install(PYTHON, "-r", "requirements.txt")
    STAMP.write_text(wanted)


def install(python: Path, *requirements: str | os.PathLike) -> None:
    """``pip install`` `requirements` into the environment of `python`, by the uv of
    .venv (UV, installed there first) when it can be installed, else by pip.

    uv resolves, downloads and unpacks in parallel: ``requirements.txt`` took 9.7 s
    with uv against 155 s with pip (143 s of CPU: pip works one file at a time and
    byte-compiles every module it installs) on the 2-core CI machine, from empty
    caches. The bytecode is written on first import instead (environment())."""
    if has_uv():
        run(PYTHON, "-m", "uv", "pip", "install", "--python", python, "--quiet", *requirements)
    else:
        print("uv could not be installed here: pip installs the requirements (a few minutes)", flush=True)
        run(python, "-m", "pip", "install", "--quiet", *requirements)


@functools.cache
def has_uv() -> bool:
    """Whether .venv has uv, after installing it there if it can."""
    if subprocess.call([str(PYTHON), "-m", "uv", "--version"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL) == 0:
        return True
    return subprocess.call([str(PYTHON), "-m", "pip", "install", "--quiet", UV], cwd=ROOT,
                           env=environment()) == 0


def build_book(extra: list[str]) -> None:
    """Execute every chapter and build the HTML book; warnings are errors.

    The environment's MPLBACKEND is passed on untouched: each chapter's first cell
    selects the inline backend itself, so figures appear under any backend
    (.ci/run builds with MPLBACKEND=Agg to prove it). BUILD_STAMP is written only
    after a build that passed, so the browser tests know the HTML is complete.
    """
    BUILD_STAMP.unlink(missing_ok=True)
    run(PYTHON, __file__, "jupyter-book", "build", ".", "--all", "-n", "-W", "--keep-going", *extra)
    BUILD_STAMP.write_text("built by python3 tasks.py book; warnings were errors\n")
    print(f"\nThe book is in {ROOT / '_build' / 'html' / 'index.html'}")


# The PDF's toolchain, as Debian packages: xelatex (Unicode sources), latexmk and xindy
# (Sphinx's LaTeX Makefile), the packages Sphinx and sphinx-jupyterbook-latex load,
# GNU FreeFont (Sphinx's xelatex fonts) and Latin Modern Math (unicode-math).
LATEX_PACKAGES = (
    "texlive-xetex", "texlive-latex-recommended", "texlive-latex-extra",
    "texlive-fonts-recommended", "fonts-freefont-otf", "fonts-lmodern", "latexmk", "xindy",
)
LATEX_PROGRAMS = ("xelatex", "latexmk", "xindy", "kpsewhich", "fc-list")
LATEX_FILES = ("unicode-math.sty", "fncychap.sty", "tabulary.sty", "pgfplots.sty", "latinmodern-math.otf")
LATEX_FONTS = ("FreeSerif", "FreeSans", "FreeMono")


def missing_latex() -> list[str]:
    """What the PDF build needs and this machine lacks (programs, LaTeX files, fonts)."""
    missing = [name for name in LATEX_PROGRAMS if not shutil.which(name)]
    if missing:
        return missing
    found = subprocess.run(["kpsewhich", *LATEX_FILES], capture_output=True, text=True).stdout
    missing = [name for name in LATEX_FILES if name not in found]
    fonts = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True).stdout
    return missing + [font for font in LATEX_FONTS if font not in fonts]


def ensure_latex() -> None:
    """Install the LaTeX toolchain with apt-get when possible, else say how and stop."""
    missing = missing_latex()
    if not missing:
        return
    install = ["apt-get", "install", "-y", "--no-install-recommends", *LATEX_PACKAGES]
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"The PDF needs LaTeX (missing: {', '.join(missing)}); installing it.", flush=True)
        run("apt-get", "update", "-q", DEBIAN_FRONTEND="noninteractive")
        run(*install, DEBIAN_FRONTEND="noninteractive")
        missing = missing_latex()
        if not missing:
            return
    sys.exit(
        f"The PDF needs LaTeX, and this machine lacks {', '.join(missing)}. On Debian or Ubuntu:\n\n"
        f"    sudo apt-get update && sudo {' '.join(install)}\n\n"
        "elsewhere: TeX Live with xelatex, latexmk and xindy, and the GNU FreeFont fonts."
    )


def latex_problems(log: str) -> list[str]:
    """Lines of a xelatex log that mean the PDF lost something: a glyph no font has
    (silently dropped), or a reference or citation LaTeX could not resolve (printed ??)."""
    log = re.sub(r"^(.{79})\n", r"\1", log, flags=re.M)  # TeX wraps its log at 79 characters
    problems = re.compile(r"^(Missing character: .*|LaTeX Warning: (Hyper reference|Reference|Citation) .*undefined.*)$", re.M)
    return sorted({match.group(1) for match in problems.finditer(log)})


def build_pdf(extra: list[str]) -> None:
    """Build the whole book as one PDF with xelatex, from the sources of the HTML book."""
    ensure_latex()
    started = time.monotonic()
    run(PYTHON.parent / "jupyter-book", "build", ".", "--builder", "pdflatex", "--all",
        "-n", "-W", "--keep-going", *extra)
    tex = max((ROOT / "_build" / "latex").glob("*.tex"), key=lambda path: path.stat().st_mtime)
    log = tex.with_suffix(".log").read_text(errors="replace")
    pages = re.search(r"Output written on .*\((\d+) pages", log)
    print(f"\nThe PDF is {tex.with_suffix('.pdf')}: {pages.group(1) if pages else '?'} pages, "
          f"built in {time.monotonic() - started:.0f} s")
    if problems := latex_problems(log):
        sys.exit("The PDF is incomplete (see " + str(tex.with_suffix(".log")) + "):\n  " + "\n  ".join(problems))


def jupyter_book(argv: list[str]) -> None:
    """``jupyter-book`` with Sphinx reading the pages in ``PCALIB_BUILD_JOBS`` processes
    (default: one per core, at most 4), each chapter's kernel on its share of the cores'
    BLAS threads (``OPENBLAS_NUM_THREADS``, unless set).

    MyST-NB executes each chapter while Sphinx reads it, so reading in parallel runs
    the chapters side by side (most of a chapter's time is single-threaded Python).
    book/_ext/pcabook_html.py makes the extensions Jupyter Book loads fit for it.
    Jupyter Book 1.x's command line has no option for this, but its ``build_sphinx``
    takes ``jobs``. Runs inside the virtual environment (``main`` calls it there).
    """
    import functools

    import jupyter_book.sphinx
    import sphinx.builders
    from jupyter_book.cli.main import main as jupyter_book_cli

    jobs = int(os.environ.get("PCALIB_BUILD_JOBS", min(4, os.cpu_count() or 1)))
    # The chapters running side by side share the cores: each kernel gets its share of
    # BLAS threads. With two OpenBLAS threads per kernel, two kernels on two cores took
    # 2.2x the CPU time (chapter 15: 54.7 s against 24.3 s on one thread); the chapters'
    # numbers do not depend on it. Kernels inherit this environment.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // jobs)))
    jupyter_book.sphinx.build_sphinx = functools.partial(jupyter_book.sphinx.build_sphinx, jobs=jobs)
    sphinx.builders.make_chunks = one_page_per_task
    jupyter_book_cli(argv, prog_name="jupyter-book")


def code_characters(docname: str) -> int:
    """The characters in the code cells of page `docname` (``book/12_...``): the
    estimate of its execution time that orders the reading (0 for a page with none)."""
    path = ROOT / f"{docname}.md"
    if not path.exists():
        return 0
    inside, count = False, 0
    for line in path.read_text().split("\n"):
        if line.startswith("```{code-cell}"):
            inside = True
        elif inside and line.startswith("```"):
            inside = False
        elif inside:
            count += len(line) + 1
    return count


def one_page_per_task(docnames: list[str], nproc: int, maxbatch: int = 10) -> list[list[str]]:
    """Sphinx's parallel batches, one page each, the pages with the most code first.

    Sphinx (``sphinx.util.parallel.make_chunks``) reads the pages in alphabetical
    batches of up to ten, one batch per process: chapters 11 to 19, the longest to
    execute, then share one batch and run one after another (about 200 s of the
    2-core build) while the other process has finished its chapters. A page per task,
    the longest first, lets the processes share the work (longest processing time
    first scheduling). Sphinx's ``ParallelTasks`` starts the first `nproc` tasks as
    they are added, then the waiting ones last-added first (``dict.popitem``): so the
    list holds the `nproc` longest pages, then the others from the shortest up."""
    longest_first = sorted(docnames, key=code_characters, reverse=True)
    return [[name] for name in longest_first[:nproc] + longest_first[nproc:][::-1]]


def test_workers(extra: list[str]) -> list[str]:
    """pytest-xdist's options: ``PCALIB_TEST_WORKERS`` processes (default: one per core,
    at most 4), each taking whole test files (``--dist loadfile``), so a chapter's cells
    run in order; the browser tests come last, page by page, each worker's Chromium
    visiting the pages it takes (conftest.BookScheduling). None when the command line
    already says how many (``-n``) or there is one core."""
    if any(arg.startswith(("-n", "--numprocesses", "--dist")) or arg == "no:xdist"
           for arg in extra):
        return []
    workers = int(os.environ.get("PCALIB_TEST_WORKERS", min(4, os.cpu_count() or 1)))
    return ["-n", str(workers), "--dist", "loadfile"] if workers > 1 else []


#: What reads the book's build (``_build/html`` and the notebooks it executed): the
#: chapters (book/, one item per code cell) and two test files. ``--lane book`` runs
#: them, ``--lane library`` the rest of tests/; together they are the whole suite
#: (pyproject's testpaths: tests, book).
READS_THE_BUILD = ("book", "tests/test_browser.py", "tests/test_notebook_download.py")
LANES = {
    "library": ["tests", *(f"--ignore={path}" for path in READS_THE_BUILD if path.startswith("tests/"))],
    "book": list(READS_THE_BUILD),
}


def run_tests(extra: list[str]) -> None:
    """Run tests/ and every chapter of _toc.yml under nbval (see pyproject and conftest.py).

    ``--lane library`` or ``--lane book`` (LANES) runs one part: the library tests alone,
    without a build, or what reads the build. .ci/run runs the whole suite in one
    session after the build (beside the build, the library lane slowed it as much as it
    saved: the run is CPU-bound)."""
    if "--lane" in extra:
        at = extra.index("--lane")
        lane = extra[at + 1] if at + 1 < len(extra) else ""
        if lane not in LANES:
            sys.exit(f"--lane takes one of {', '.join(LANES)}, got {lane!r}")
        extra = extra[:at] + LANES[lane] + extra[at + 2:]
    run(PYTHON, "-m", "pytest", *test_workers(extra), *extra, MPLBACKEND="Agg")


MINIMUM_VENV = ROOT / ".venv-minimum"
MINIMUM_DIR = ROOT / "_build" / "minimum"
#: what the library's tests may import on the minimum versions: the wheel's declared
#: dependencies and extras, pytest, hypothesis and the standard library
MINIMUM_IMPORTS = {"numpy", "scipy", "pandas", "dask", "matplotlib", "threadpoolctl", "pytest",
                   "hypothesis", "pcalib", "numpy_references", "shared_strategies"}
#: ``minimum --quick``, the lane .ci/run can afford (about 25 s of CPU against 140 s for all
#: the files): every public entry point called once against a NumPy reference (the smoke file
#: checks that it calls each one), every docstring example, every input kind and solver
#: against an exact reference, the Dask paths, the pandas tables and error messages, and
#: the README's quick start
MINIMUM_QUICK = ("tests/test_minimum_versions_smoke.py", "tests/test_docstring_examples.py",
                 "tests/test_every_input_kind.py", "tests/test_dask.py", "tests/test_tables.py",
                 "tests/test_errors_point_to_fix.py", "tests/test_readme.py")


def minimum_pins() -> list[str]:
    """Each dependency and extra of pyproject.toml pinned at its declared minimum
    (``numpy>=1.26`` becomes ``numpy==1.26``), with pytest and hypothesis."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [d for ds in project["optional-dependencies"].values() for d in ds]
    pins = sorted({re.sub(r">=", "==", d) for d in declared})
    return pins + ["pytest", "hypothesis"]


def minimum_test_files() -> list[Path]:
    """The test files whose imports are all in MINIMUM_IMPORTS or the standard library
    and that test the library, not the source tree (those that need scikit-learn,
    scikit-bio or the book's tools, or read the repository's files, are left out)."""
    chosen = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        text = path.read_text()
        modules = re.findall(r"^\s*(?:from|import) (\w+)", text, re.M)
        if "__file__" not in text and all(m in MINIMUM_IMPORTS or m in sys.stdlib_module_names for m in modules):
            chosen.append(path)
    return chosen


def run_minimum(extra: list[str]) -> None:
    """Build the wheel, install it with every dependency at its declared minimum in a
    fresh virtual environment (MINIMUM_VENV), and run there the library tests that need
    nothing else, copied out of the source tree so that they import the installed wheel
    (`extra`: test files, e.g. ``tests/test_tables.py``, to run only those, ``--quick``
    for the files of MINIMUM_QUICK, and pytest options). A failing import or test means
    a declared minimum is false (issue 33)."""
    shutil.rmtree(MINIMUM_DIR, ignore_errors=True)
    wheels = MINIMUM_DIR / "wheel"
    # setuptools builds in ./build and never empties it: a module moved or deleted since
    # an earlier build would still be in the wheel
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    if has_uv():  # uv builds in its own isolated environment too, in seconds
        run(PYTHON, "-m", "uv", "build", "--quiet", "--wheel", "--out-dir", wheels, ".")
    else:
        run(PYTHON, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", wheels, ".")
    venv.EnvBuilder(with_pip=not has_uv(), clear=True).create(MINIMUM_VENV)
    python = MINIMUM_VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    (wheel,) = wheels.glob("*.whl")
    install(python, wheel, *minimum_pins())
    tests = MINIMUM_DIR / "tests"
    tests.mkdir(parents=True)
    for helper in ("conftest.py", "numpy_references.py", "shared_strategies.py"):
        shutil.copy(ROOT / "tests" / helper, tests)
    chosen = minimum_test_files()
    for path in chosen:
        shutil.copy(path, tests)
    # the README's quick start on the wheel alone: test_readme reads the README one
    # folder above itself, as in the source tree
    shutil.copy(ROOT / "README.md", MINIMUM_DIR)
    shutil.copy(ROOT / "tests" / "test_readme.py", tests)
    chosen.append(ROOT / "tests" / "test_readme.py")
    settings = tomllib_section("tool.pytest.ini_options")
    (MINIMUM_DIR / "pytest.ini").write_text(
        "[pytest]\naddopts = -p no:cacheprovider -ra\nmarkers =\n"
        + "".join(f"    {marker}\n" for marker in settings["markers"])
        + "filterwarnings =\n" + "".join(f"    {f}\n" for f in settings["filterwarnings"])
    )
    print(f"{len(chosen)} test files on the minimum versions: {' '.join(p.stem for p in chosen)}", flush=True)
    quick = "--quick" in extra
    targets = [a for a in extra if a.startswith("tests/")] or (list(MINIMUM_QUICK) if quick else ["tests"])
    options = [a for a in extra if not a.startswith("tests/") and a != "--quick"]
    status = subprocess.call([str(python), "-P", "-m", "pytest", "-q", *targets, *options], cwd=MINIMUM_DIR,
                             env=environment() | {"MPLBACKEND": "Agg", "VIRTUAL_ENV": str(MINIMUM_VENV)})
    if status:
        sys.exit(status)


def tomllib_section(dotted: str) -> dict:
    """A section of pyproject.toml, e.g. ``tool.pytest.ini_options``."""
    import tomllib

    section = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for key in dotted.split("."):
        section = section[key]
    return section


def main(argv: list[str]) -> None:
    if argv[:1] == ["jupyter-book"]:  # build_book's own call, inside the environment
        jupyter_book(argv[1:])
        return
    commands = {"book": build_book, "test": run_tests, "pdf": build_pdf, "minimum": run_minimum,
                "environment": lambda extra: None}
    if not argv or argv[0] not in commands:
        sys.exit(__doc__)
    ensure_environment()
    commands[argv[0]](argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""The two commands of the README, for a machine with nothing but Python 3.11+.

    python3 tasks.py book    # build the HTML book into _build/html
    python3 tasks.py test    # run the library tests and execute every chapter

Both create the virtual environment ``.venv`` on first use and install
``requirements.txt`` into it (again whenever requirements.txt or pyproject.toml
change), then run inside it. Extra arguments are passed on to pytest or to
``jupyter-book build``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
STAMP = VENV / ".requirements-installed"
BUILD_STAMP = ROOT / "_build" / "html" / ".build-passed"
MIN_PYTHON = (3, 11)


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
    run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(PYTHON, "-m", "pip", "install", "--quiet", "-r", "requirements.txt")
    STAMP.write_text(wanted)


def build_book(extra: list[str]) -> None:
    """Execute every chapter and build the HTML book; warnings are errors.

    The environment's MPLBACKEND is passed on untouched: each chapter's first cell
    selects the inline backend itself, so figures appear under any backend
    (.ci/run builds with MPLBACKEND=Agg to prove it). BUILD_STAMP is written only
    after a build that passed, so the browser tests know the HTML is complete.
    """
    BUILD_STAMP.unlink(missing_ok=True)
    run(PYTHON.parent / "jupyter-book", "build", ".", "--all", "-n", "-W", "--keep-going", *extra)
    BUILD_STAMP.write_text("built by python3 tasks.py book; warnings were errors\n")
    print(f"\nThe book is in {ROOT / '_build' / 'html' / 'index.html'}")


def run_tests(extra: list[str]) -> None:
    """Run tests/ and every chapter of _toc.yml under nbval (see pyproject and conftest.py)."""
    run(PYTHON, "-m", "pytest", *extra, MPLBACKEND="Agg")


def main(argv: list[str]) -> None:
    commands = {"book": build_book, "test": run_tests}
    if not argv or argv[0] not in commands:
        sys.exit(__doc__)
    ensure_environment()
    commands[argv[0]](argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])

"""pcalib and its tests pass ruff and mypy (issue 23), with the versions that
requirements.txt pins and the settings in pyproject.toml: a lint error or a type error
fails the suite, as a failing test does."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which(tool, path=str(Path(sys.executable).parent)) is None:
        pytest.fail(f"{tool} is not installed: it is in requirements.txt (python3 tasks.py test installs it)")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True,
                          check=False)


def test_ruff_finds_nothing():
    result = _run("ruff", "check", "pcalib", "tests", "conftest.py", "tasks.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing():
    result = _run("mypy")  # files and settings: [tool.mypy] in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr

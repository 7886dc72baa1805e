"""pcalib as a package: what ``pip install`` gives and how it imports.

Each check names a promise of the package's metadata or of its import that an
earlier version broke: docstrings appended to at import time (``python -OO``
strips them, so the import failed), the version written in two places, a
licence named but not shipped, type hints without the ``py.typed`` marker.
"""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pcalib

ROOT = Path(__file__).resolve().parents[1]


def test_imports_with_docstrings_stripped():
    """``python -OO`` removes docstrings: importing pcalib must not need them."""
    result = subprocess.run(
        [sys.executable, "-OO", "-c", "import pcalib, pcalib.plot; print(pcalib.pca_eig.__doc__)"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None"


def test_version_is_written_once():
    """pyproject reads the version from ``pcalib.__version__``; it states none itself."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "pcalib.__version__"}
    assert pcalib.__version__.count(".") == 2


def test_licence_and_typing_marker_are_shipped():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert (Path(pcalib.__file__).parent / "py.typed").exists()
    package_data = project["tool"]["setuptools"]["package-data"]["pcalib"]
    assert "py.typed" in package_data
    for pattern in package_data:
        matches = list(Path(pcalib.__file__).parent.glob(pattern))
        assert matches, f"package-data names {pattern!r}, which matches no file"


def test_dask_extra_installs_only_what_pcalib_imports():
    """pcalib imports dask.array, never dask.distributed: the extra must not pull it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extra = " ".join(project["project"]["optional-dependencies"]["dask"])
    assert "distributed" not in extra
    importing = re.compile(r"^\s*(import|from)\s+(dask\.)?distributed\b", re.M)
    for path in Path(pcalib.__file__).parent.rglob("*.py"):
        assert not importing.search(path.read_text()), f"{path.name} imports distributed"


def test_distribution_has_a_name_of_its_own_and_says_what_it_is():
    """The installed distribution (tasks.py's editable install) is not the index's
    unrelated ``pcalib``: its metadata name the import, classify it, point to the
    source and changelog, and ship the changelog."""
    from importlib import metadata, resources

    # (an editable install lists its distribution twice: its RECORD and its finder)
    assert set(metadata.packages_distributions()["pcalib"]) == {"pca-derived-and-verified"}
    meta = metadata.metadata("pca-derived-and-verified")
    assert meta["Name"] == "pca-derived-and-verified"
    assert meta["Version"] == pcalib.__version__
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    urls = dict(url.split(", ", 1) for url in meta.get_all("Project-URL"))
    assert {"Source", "Changelog", "Issues"} <= set(urls)
    assert "not this library" in meta["Description"]
    changelog = resources.files("pcalib") / "CHANGELOG.md"
    assert changelog.read_text().startswith("# Changes to pcalib")


def test_importing_pcalib_loads_only_what_every_fit_needs():
    """Issue 33: `import pcalib` had loaded scipy.stats, integrate, interpolate and ndimage
    (0.95 s, +78 MiB; a Dask worker idled 23 MiB higher). The modules of one estimator
    load when it runs."""
    heavy = ["scipy.stats", "scipy.optimize", "scipy.integrate", "scipy.interpolate",
             "scipy.ndimage", "pandas", "matplotlib", "dask", "sklearn", "tqdm"]
    code = f"import sys, pcalib; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

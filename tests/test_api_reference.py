"""Every public name of pcalib is documented in the API appendix, from its docstring.

The appendix (``book/appendix_api.md``) renders the docstrings with Sphinx autodoc, so
the docstrings are the one source of every signature. A name added to
``pcalib.__all__`` without an autodoc entry there would be public but undocumented.
"""

import re
from pathlib import Path

import pcalib

APPENDIX = Path(__file__).resolve().parents[1] / "book" / "appendix_api.md"
DIRECTIVE = re.compile(
    r"^\.\. auto(?:function|class|exception|module|data)::\s+pcalib\.(\w+)\s*$", re.M
)


def test_every_public_name_has_an_autodoc_entry():
    documented = set(DIRECTIVE.findall(APPENDIX.read_text()))
    missing = sorted(set(pcalib.__all__) - documented)
    assert not missing, f"public names without an autodoc entry in {APPENDIX.name}: {missing}"


def test_every_public_name_has_a_docstring_with_a_summary():
    for name in pcalib.__all__:
        doc = getattr(pcalib, name).__doc__ or ""
        summary = doc.strip().split("\n")[0]
        assert len(summary) > 10, f"pcalib.{name} has no one-line summary in its docstring"

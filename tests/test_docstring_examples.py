"""Every ``Examples`` section of pcalib's docstrings runs and prints what it shows.

The API appendix renders these docstrings, so an example that no longer holds would
be a false statement in the book.
"""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import pcalib

MODULES = sorted(m.name for m in pkgutil.walk_packages(pcalib.__path__, "pcalib."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failed, attempted = doctest.testmod(module, optionflags=flags, verbose=False)
    source = importlib.util.find_spec(name).origin
    if ">>> " in open(source, encoding="utf-8").read():
        assert attempted > 0, f"{name} has examples but doctest found none"
    assert failed == 0, f"{failed} docstring example(s) of {name} fail (run with -s to see them)"


@pytest.mark.parametrize("name", MODULES)
def test_source_has_no_invalid_escape(name):
    """A docstring with TeX (``\\max``, ``\\top``) must be a raw string: otherwise Python
    warns of an invalid escape, and ``\\t`` or ``\\f`` silently become a tab or a form
    feed in the rendered API reference."""
    import warnings

    source = importlib.util.find_spec(name).origin
    with open(source, encoding="utf-8") as file:
        text = file.read()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(text, source, "exec")

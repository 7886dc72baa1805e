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

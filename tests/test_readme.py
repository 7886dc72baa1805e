"""The README's quick start runs and prints what the README shows (issue 33)."""

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_quick_start_prints_what_the_readme_shows():
    text = README.read_text()
    code, shown = re.search(r"<!-- quick start -->\n```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S).groups()
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=os.environ | {"MPLBACKEND": "Agg"})
    assert run.stdout == shown
    assert "pip install pcalib" in text and "pca-derived-and-verified" in text

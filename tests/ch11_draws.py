"""Re-measure, over other draws of the data, the TSQR ranges that chapter 11 ("PCA at
scale", section "Tall data: TSQR") quotes but does not rerun.

Not a test (pytest collects only ``test_*.py``; the chapter's own draw is checked by
its cells under nbval). Run it from the repository's root:

    .venv/bin/python tests/ch11_draws.py --draws 64

It takes the chapter's own functions (``with_singular_values``, ``merge``, ``balanced``,
``block_r``, ``merge_r``, ``exactly_offset`` and ``tsqr``) from the chapter's code cells,
so that it measures what the chapter computes, and draws the 20000 x 8 core matrix with
``numpy.random.default_rng(seed)`` for seed = 0, 1, ... in place of the chapter's
stream. It prints, over the draws:

* for TSQR with each block centered by its own mean (no shift), at offsets 1e3 and 1e5:
  the range of the relative error of the smallest singular value, and the smallest of
  the largest errors in units of eps sigma_1 (against the SVD of the exactly centered
  matrix);
* for the shifted TSQR at offset 10: the range of the largest ratio of an axis's sine
  to its first-order bound eps sigma_1 / gap (the chapter's ``axis_used``).
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import numpy as np

CHAPTER = Path(__file__).resolve().parent.parent / "book" / "11_pca_at_scale.md"
NEEDED = ("with_singular_values", "merge", "balanced", "block_r", "merge_r", "exactly_offset", "tsqr")
N, P = 20000, 8
SIGMA = 10.0 ** -np.array([0, 1, 2, 3, 4, 5, 7, 9.0])
EPS = float(np.finfo(float).eps)


def chapter_functions() -> dict:
    """The functions NEEDED, defined by the chapter's code cells (their ``def``
    statements only: the cells' checks are not run), with n = N as the chapter has it."""
    cells = re.findall(r"```\{code-cell\} ipython3\n(.*?)```", CHAPTER.read_text(), re.S)
    found = {}
    for cell in cells:
        # the cell's options, as a YAML block or as :key: lines
        code = re.sub(r"\A---\n.*?\n---\n", "", cell, flags=re.S)
        code = re.sub(r"\A(?::[\w-]+:.*\n)+", "", code)
        code = re.sub(r"(?m)^%.*$", "", code)  # IPython magics (%matplotlib inline)
        for node in ast.parse(code).body:
            if isinstance(node, ast.FunctionDef) and node.name in NEEDED:
                found[node.name] = node
    missing = set(NEEDED) - set(found)
    if missing:
        raise SystemExit(f"the chapter no longer defines {sorted(missing)}")
    namespace = {"np": np, "n": N}
    exec(compile(ast.Module(body=list(found.values()), type_ignores=[]), str(CHAPTER), "exec"), namespace)
    return namespace


def measure(draws: int) -> None:
    f = chapter_functions()
    smallest = {1e3: [], 1e5: []}
    largest = {1e3: [], 1e5: []}
    axis_used = []
    for seed in range(draws):
        core = f["with_singular_values"](N, P, SIGMA, np.random.default_rng(seed))
        for offset in (1e3, 1e5):
            X, Xc_exact = f["exactly_offset"](core, offset)
            s_ref = np.linalg.svd(Xc_exact, compute_uv=False)
            plain = np.linalg.svd(f["tsqr"](X), compute_uv=False)
            smallest[offset].append(abs(plain[-1] / s_ref[-1] - 1))
            largest[offset].append(np.abs(plain - s_ref).max() / (EPS * s_ref[0]))
        X, Xc_exact = f["exactly_offset"](core, 10.0)
        _, s_svd, Vt_svd = np.linalg.svd(Xc_exact, full_matrices=False)
        _, _, Vt_tsqr = np.linalg.svd(f["tsqr"](X, X[0]))
        cosines = np.sum(Vt_tsqr * Vt_svd, axis=1)
        sines = np.linalg.norm(Vt_tsqr - cosines[:, None] * Vt_svd, axis=1)
        gaps = np.array([np.delete(np.abs(s_svd - s), j).min() for j, s in enumerate(s_svd)])
        axis_used.append(float(np.max(sines / (EPS * s_svd[0] / gaps))))
    print(f"{draws} draws of the core matrix (default_rng(0) to default_rng({draws - 1}))")
    for offset in (1e3, 1e5):
        print(f"offset {offset:.0e}, unshifted TSQR: smallest singular value off by "
              f"{min(smallest[offset]):.2%} to {max(smallest[offset]):.2%}; largest error "
              f"at least {min(largest[offset]):.2e} eps sigma_1")
    print(f"offset 1e+01, shifted TSQR: largest sine over its first-order bound "
          f"{min(axis_used):.2f} to {max(axis_used):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=64, help="how many draws (default 64)")
    measure(parser.parse_args().draws)

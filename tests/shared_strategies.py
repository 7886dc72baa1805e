"""Hypothesis strategies shared by several test files."""

import numpy as np
from hypothesis import strategies as st


@st.composite
def seeded_data(draw, min_rows=2, max_rows=30, max_cols=7, offset=True):
    """n x p data with a spread-out spectrum, a random rotation and (optionally) a large mean."""
    n = draw(st.integers(min_rows, max_rows))
    p = draw(st.integers(1, max_cols))
    seed = draw(st.integers(0, 2**32 - 1))
    decay = draw(st.sampled_from([0.3, 0.6, 0.9]))
    rng = np.random.default_rng(seed)
    rotation = np.linalg.qr(rng.normal(size=(p, p)))[0]
    X = rng.normal(size=(n, p)) * decay ** np.arange(p) @ rotation.T
    if offset:
        X = X + rng.uniform(-1e3, 1e3, size=p)
    return X

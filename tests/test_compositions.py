"""Tests of pcalib.closure and pcalib.clr against first principles."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from pcalib import closure, clr


def test_closure_sums_and_ratios():
    rng = np.random.default_rng(0)
    X = rng.gamma(2.0, size=(20, 5))
    kept = X.copy()
    C = closure(X, total=100)
    assert_allclose(C.sum(axis=1), 100, rtol=1e-14)
    assert_allclose(C[:, 1:] / C[:, :1], X[:, 1:] / X[:, :1], rtol=1e-13)  # ratios kept
    np.testing.assert_array_equal(X, kept)
    assert_allclose(closure([[0.0, 2.0]]), [[0.0, 1.0]])  # zeros allowed in a closure


def test_clr_first_principles():
    rng = np.random.default_rng(1)
    X = rng.gamma(2.0, size=(30, 4))
    g = np.exp(np.log(X).mean(axis=1))  # geometric mean
    assert_allclose(clr(X), np.log(X / g[:, None]), atol=1e-14)
    assert_allclose(clr(X).sum(axis=1), 0, atol=1e-14)
    assert_allclose(clr(7.5 * X), clr(X), atol=1e-14)  # scale invariant
    assert_allclose(clr(closure(X)), clr(X), atol=1e-14)


def test_clr_inverse_by_softmax():
    rng = np.random.default_rng(2)
    X = closure(rng.gamma(2.0, size=(10, 6)))
    Y = clr(X)
    back = np.exp(Y) / np.exp(Y).sum(axis=1, keepdims=True)
    assert_allclose(back, X, rtol=1e-13)


def test_zero_part_refused_naming_the_entry():
    X = np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0], [0.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match=r"zero part at X\[1, 1\] \(2 zero\(s\) in all\)"):
        clr(X)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, index=["s1", "s2", "s3"], columns=["Ca", "Mg", "Na"])
    with pytest.raises(ValueError, match=r"X\[1, 1\] \(row 's2', column 'Mg'\)"):
        clr(frame)


@pytest.mark.parametrize("func", [closure, clr])
def test_negative_and_nonfinite_refused(func):
    with pytest.raises(ValueError, match=r"non-negative parts, got X\[0, 1\] = -1"):
        func([[1.0, -1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="NaN|inf"):
        func([[1.0, np.nan], [1.0, 1.0]])
    with pytest.raises(TypeError):
        func([["a", "b"]])


def test_closure_refuses_empty_row_and_bad_total():
    with pytest.raises(ValueError, match="row 1 of X sums to 0"):
        closure([[1.0, 1.0], [0.0, 0.0]])
    for total in (0, -1.0, np.inf, True, "100"):
        with pytest.raises(ValueError, match="total must be a positive finite number"):
            closure([[1.0, 1.0]], total=total)


def test_dataframes_in_and_out():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([[1.0, 3.0], [2.0, 2.0]], index=["a", "b"], columns=["p", "q"])
    kept = frame.copy()
    out = clr(closure(frame, total=100))
    assert isinstance(out, pd.DataFrame) and list(out.index) == ["a", "b"]
    assert list(out.columns) == ["p", "q"]
    pd.testing.assert_frame_equal(frame, kept)

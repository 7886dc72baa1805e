"""Tests of pcalib.covariance: covariance, total_variance, standardize.

Cross-checks against numpy's np.cov / np.corrcoef / np.std written out here.
"""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcalib import covariance, standardize, total_variance


@st.composite
def matrices(draw, min_n=2, max_n=15, max_p=7):
    n = draw(st.integers(min_n, max_n))
    p = draw(st.integers(1, max_p))
    seed = draw(st.integers(0, 2**32 - 1))
    offset = draw(st.sampled_from([0.0, 3.0, 1e8]))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 3.0, size=p) + offset
    # guarantee non-constant columns (needed by standardize)
    X[0] += 1.0
    return X


@given(matrices(), st.sampled_from([0, 1]))
def test_covariance_matches_np_cov(X, ddof):
    S = covariance(X, ddof=ddof)
    ref = np.atleast_2d(np.cov(X - X.mean(axis=0), rowvar=False, ddof=ddof))
    scale = max(1.0, np.abs(ref).max())
    np.testing.assert_allclose(S, ref, atol=1e-9 * scale)
    assert S.shape == (X.shape[1], X.shape[1])
    np.testing.assert_array_equal(S, S.T)


@given(matrices())
def test_covariance_is_positive_semidefinite(X):
    S = covariance(X)
    w = np.linalg.eigvalsh(S)
    assert w.min() >= -1e-12 * max(1.0, w.max())


@given(matrices(), st.sampled_from([0, 1]))
def test_total_variance_is_trace_of_np_cov(X, ddof):
    ref = np.trace(np.atleast_2d(np.cov(X - X.mean(axis=0), rowvar=False, ddof=ddof)))
    assert total_variance(X, ddof=ddof) == pytest.approx(ref, rel=1e-10, abs=1e-12)


def test_covariance_of_linear_map():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    A = rng.standard_normal((5, 3))                  # the chapter's linear map y = A^T x
    np.testing.assert_allclose(covariance(X @ A), A.T @ np.cov(X, rowvar=False) @ A, atol=1e-12)


def test_large_offset_does_not_change_covariance():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((500, 4))
    np.testing.assert_allclose(covariance(X + 1e8), covariance(X), rtol=1e-6, atol=1e-7)
    assert total_variance(X + 1e8) == pytest.approx(total_variance(X), rel=1e-6)


@given(matrices(), st.sampled_from([0, 1]))
def test_standardize_gives_z_scores_and_correlation(X, ddof):
    Xs, mean, scale = standardize(X, ddof=ddof)
    # the exact mean of the floats (rational arithmetic); the data resolve it to
    # about eps * max|x| (NumPy's one-pass mean is off by up to 1.5 of that here)
    exact = [float(sum(Fraction(v) for v in column) / X.shape[0]) for column in X.T]
    np.testing.assert_allclose(mean, exact, rtol=0, atol=np.finfo(float).eps * np.abs(X).max())
    np.testing.assert_allclose(scale, np.std(X - X.mean(axis=0), axis=0, ddof=ddof), rtol=1e-8)
    # the data resolve the mean only to about eps * |X|: allow that, in z units
    tol = 1e-8 + 64 * np.finfo(float).eps * np.abs(X).max() / scale.min()
    np.testing.assert_allclose(Xs.mean(axis=0), 0.0, atol=tol)
    np.testing.assert_allclose(np.std(Xs, axis=0, ddof=ddof), 1.0, rtol=1e-8)
    if X.shape[1] > 1:
        np.testing.assert_allclose(
            covariance(Xs, ddof=ddof), np.corrcoef(X - X.mean(axis=0), rowvar=False), atol=1e-8
        )


def test_known_values():
    np.testing.assert_array_equal(covariance([[1.0, 2.0], [3.0, 6.0]]), [[2.0, 4.0], [4.0, 8.0]])
    assert total_variance([[1.0, 2.0], [3.0, 6.0]], ddof=0) == 5.0


def test_dtypes():
    X32 = np.arange(12, dtype=np.float32).reshape(4, 3) ** 1.5
    assert covariance(X32).dtype == np.float32
    Xs, mean, scale = standardize(X32)
    assert Xs.dtype == mean.dtype == scale.dtype == np.float32
    Xi = np.array([[1, 2], [3, 5], [4, 4]])
    assert covariance(Xi).dtype == np.float64
    np.testing.assert_allclose(covariance(Xi), np.cov(Xi, rowvar=False))


def test_inputs_not_modified_and_repeatable():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((10, 3)) + 5
    X0 = X.copy()
    outputs = [(covariance(X), total_variance(X), standardize(X)[0]) for _ in range(2)]
    np.testing.assert_array_equal(X, X0)
    for a, b in zip(outputs[0], outputs[1]):
        np.testing.assert_array_equal(a, b)


# -- one test per bad input -----------------------------------------------------


def test_nan_rejected():
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        covariance([[1.0, np.nan], [2.0, 3.0]])


def test_inf_rejected():
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        total_variance([[1.0, np.inf], [2.0, 3.0]])


def test_one_dimensional_rejected():
    with pytest.raises(ValueError, match="X must be a 2-D array.*got 1 dimension"):
        covariance([1.0, 2.0, 3.0])


def test_three_dimensional_rejected():
    with pytest.raises(ValueError, match="X must be a 2-D array.*got 3 dimension"):
        standardize(np.ones((2, 2, 2)))


def test_empty_rejected():
    with pytest.raises(ValueError, match="X is empty"):
        covariance(np.empty((0, 3)))


def test_one_sample_rejected():
    with pytest.raises(ValueError, match="X needs at least 2 samples"):
        covariance([[1.0, 2.0]])


def test_ddof_leaves_no_degrees_of_freedom():
    with pytest.raises(ValueError, match="X needs at least 3 samples .* ddof=2"):
        total_variance([[1.0], [2.0]], ddof=2)


def test_strings_rejected():
    with pytest.raises(TypeError, match="X must be a numeric array"):
        covariance("abc")


def test_object_array_rejected():
    with pytest.raises(TypeError, match="X must hold real numbers"):
        covariance(np.array([[1, "a"], [2, "b"]], dtype=object))


def test_negative_ddof_rejected():
    with pytest.raises(ValueError, match="ddof must be non-negative"):
        covariance(np.eye(3), ddof=-1)


def test_non_integer_ddof_rejected():
    with pytest.raises(TypeError, match="ddof must be an integer"):
        covariance(np.eye(3), ddof=0.5)


def test_zero_variance_column_rejected():
    X = np.array([[1.0, 5.0, 2.0], [2.0, 5.0, 3.0], [4.0, 5.0, 1.0]])
    with pytest.raises(ValueError, match=r"X has zero variance in column\(s\) \[1\]"):
        standardize(X)


def test_zero_variance_column_with_large_value_rejected():
    # 0.1 * 3 / 3 is not exactly 0.1: the centered column is round-off, not spread
    X = np.array([[1.0, 0.1], [2.0, 0.1], [4.0, 0.1]]) + np.array([0.0, 1e8])
    with pytest.raises(ValueError, match=r"column\(s\) \[1\]"):
        standardize(X)


def test_subnormal_data_are_read_without_an_overflow_warning():
    # The frame of [0, 2^-1032] has exponent -1031: 2^1031 is not a float64, and the
    # reader once computed it first ("overflow encountered in ldexp", found by chapter
    # 3's hypothesis test). The only warning left is the documented underflow of the
    # covariance itself, and the answer is the exact variance rounded.
    X = np.array([[0.0], [2.0**-1032]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        S = covariance(X)
    messages = [str(w.message) for w in caught]
    assert all("below the normal float64 range" in m for m in messages), messages
    assert S[0, 0] == 0.0  # (2^-1032)^2 / 2 is far below the smallest subnormal

"""Tests of pcalib.centering and of the results of the chapter "Centering"."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import pcalib

theorem = pytest.mark.theorem


def data_matrices(min_rows=1, max_rows=12, max_cols=6, offset=1e3):
    """Finite float64 matrices, with offsets up to `offset` so means are non-trivial."""
    shapes = st.tuples(st.integers(min_rows, max_rows), st.integers(1, max_cols))
    elements = st.floats(-offset, offset, allow_nan=False, allow_infinity=False)
    return shapes.flatmap(lambda shape: arrays(np.float64, shape, elements=elements))


# -- centering_matrix -------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_centering_matrix_entries(n):
    H = pcalib.centering_matrix(n)
    expected = np.array([[(1.0 if i == j else 0.0) - 1.0 / n for j in range(n)] for i in range(n)])
    assert H.shape == (n, n) and H.dtype == np.float64
    np.testing.assert_allclose(H, expected, rtol=0, atol=1e-15)


def test_centering_matrix_n2_by_hand():
    np.testing.assert_array_equal(pcalib.centering_matrix(2), [[0.5, -0.5], [-0.5, 0.5]])


@pytest.mark.parametrize("n", [0, -3])
def test_centering_matrix_rejects_n_below_one(n):
    with pytest.raises(ValueError, match=r"n must be at least 1"):
        pcalib.centering_matrix(n)


@pytest.mark.parametrize("n", [2.0, "3", None, True])
def test_centering_matrix_rejects_non_integer_n(n):
    with pytest.raises(TypeError, match=r"n must be an integer"):
        pcalib.centering_matrix(n)


def test_centering_matrix_accepts_numpy_integer():
    np.testing.assert_array_equal(pcalib.centering_matrix(np.int64(2)), pcalib.centering_matrix(2))


@theorem("lem-centering-symmetric")
@theorem("lem-centering-idempotent")
@theorem("lem-centering-annihilates-ones")
@given(st.integers(1, 60))
def test_centering_matrix_is_a_symmetric_idempotent_annihilator_of_ones(n):
    H = pcalib.centering_matrix(n)
    np.testing.assert_array_equal(H, H.T)
    np.testing.assert_allclose(H @ H, H, rtol=0, atol=1e-13)
    np.testing.assert_allclose(H @ np.ones(n), 0.0, atol=1e-13)


@theorem("thm-centering-rank")
@given(st.integers(1, 60))
def test_centering_matrix_spectrum_and_rank(n):
    H = pcalib.centering_matrix(n)
    eigenvalues, eigenvectors = np.linalg.eigh(H)           # ascending
    np.testing.assert_allclose(eigenvalues[0], 0.0, atol=1e-12)
    np.testing.assert_allclose(eigenvalues[1:], 1.0, rtol=0, atol=1e-12)
    # the null vector is the constant vector
    np.testing.assert_allclose(np.abs(eigenvectors[:, 0]), 1 / np.sqrt(n), rtol=0, atol=1e-12)
    assert np.linalg.matrix_rank(H) == n - 1
    # orthogonal projector onto the complement of 1: H y = y - mean(y) 1 for any y
    y = np.arange(n, dtype=float) ** 2
    np.testing.assert_allclose(H @ y, y - y.mean(), rtol=0, atol=1e-10)


# -- center -------------------------------------------------------------------------

def test_center_small_example_by_hand():
    Xc, mean = pcalib.center([[1, 2], [3, 6]])
    np.testing.assert_array_equal(mean, [2.0, 4.0])
    np.testing.assert_array_equal(Xc, [[-1.0, -2.0], [1.0, 2.0]])


@theorem("prop-centering-removes-means")
@given(data_matrices())
def test_center_equals_H_times_X(X):
    Xc, mean = pcalib.center(X)
    n = X.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n                     # from its definition
    scale = max(1.0, np.abs(X).max())
    np.testing.assert_allclose(Xc, H @ X, rtol=0, atol=1e-12 * scale * n)
    np.testing.assert_allclose(mean, np.mean(X, axis=0), rtol=0, atol=1e-12 * scale)


@theorem("cor-centered-columns-sum-to-zero")
@given(data_matrices())
def test_centered_columns_sum_to_zero_and_centering_is_idempotent(X):
    Xc, _ = pcalib.center(X)
    scale = max(1.0, np.abs(X).max())
    np.testing.assert_allclose(Xc.sum(axis=0), 0.0, atol=1e-11 * scale * X.shape[0])
    Xcc, mean2 = pcalib.center(Xc)
    np.testing.assert_allclose(mean2, 0.0, atol=1e-11 * scale)
    np.testing.assert_allclose(Xcc, Xc, rtol=0, atol=1e-11 * scale)


@theorem("prop-second-moment-decomposition")
@given(data_matrices())
def test_second_moment_splits_into_scatter_and_mean(X):
    Xc, mean = pcalib.center(X)
    n = X.shape[0]
    scale = max(1.0, np.abs(X).max()) ** 2 * n
    split = Xc.T @ Xc + n * np.outer(mean, mean)
    np.testing.assert_allclose(X.T @ X, split, rtol=0, atol=1e-11 * scale)


@theorem("prop-uncentered-top-singular-value")
@given(data_matrices(min_rows=2))
def test_uncentered_top_singular_vector_is_pulled_to_the_mean(X):
    """sigma_1(X)^2 >= n |xbar|^2 and sin(theta) <= sigma_1(Xc)^2 / sigma_1(X)^2, with
    sin(theta) the distance from the unit vector v_1 to the line of the mean."""
    Xc, mean = pcalib.center(X)
    n = X.shape[0]
    mean_energy = n * mean @ mean
    sigma1_X = np.linalg.svd(X, compute_uv=False)[0]
    assert sigma1_X**2 >= mean_energy * (1 - 1e-10) - 1e-9
    if mean_energy > 1e-6:
        v1_uncentered = np.linalg.svd(X)[2][0]            # the chapter's tilde v_1
        unit_mean = mean / np.linalg.norm(mean)
        sin_theta = np.linalg.norm(v1_uncentered - (v1_uncentered @ unit_mean) * unit_mean)
        sigma1_Xc = np.linalg.svd(Xc, compute_uv=False)[0]
        assert sin_theta <= sigma1_Xc**2 / sigma1_X**2 + 1e-8


@theorem("prop-uncentered-top-singular-value")
def test_uncentered_angle_bound_is_attained():
    """Rows (1, 3) and (1, -3): the mean (1, 0), the spread along (0, 1) with 9 times the
    mean's energy. The uncentered first axis is (0, 1), perpendicular to the mean, and
    sin(theta) = 1 = sigma_1(Xc)^2 / sigma_1(X)^2 = 18 / 18: no smaller constant holds."""
    X = np.array([[1.0, 3.0], [1.0, -3.0]])
    Xc, mean = pcalib.center(X)
    np.testing.assert_array_equal(mean, [1.0, 0.0])
    v1_uncentered = np.linalg.svd(X)[2][0]
    sin_theta = abs(v1_uncentered[1])                      # distance to the line of (1, 0)
    ratio = np.linalg.norm(Xc, 2) ** 2 / np.linalg.norm(X, 2) ** 2
    np.testing.assert_allclose([sin_theta, ratio], [1.0, 1.0], rtol=1e-15)


def test_center_does_not_modify_its_input():
    X = np.arange(12.0).reshape(4, 3)
    before = X.copy()
    Xc, _ = pcalib.center(X)
    np.testing.assert_array_equal(X, before)
    assert not np.shares_memory(X, Xc)


def test_center_keeps_float32_and_promotes_integers():
    X32 = np.arange(6, dtype=np.float32).reshape(3, 2)
    Xc, mean = pcalib.center(X32)
    assert Xc.dtype == np.float32 and mean.dtype == np.float32
    Xc, mean = pcalib.center(np.arange(6).reshape(3, 2))
    assert Xc.dtype == np.float64 and mean.dtype == np.float64


def test_center_is_deterministic():
    X = np.random.default_rng(0).normal(size=(30, 4))
    a, b = pcalib.center(X), pcalib.center(X)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_center_large_offset_keeps_the_spread():
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(100, 3))
    Xc, _ = pcalib.center(noise + 1e8)
    reference = noise - noise.mean(axis=0)                 # NumPy, without the offset
    np.testing.assert_allclose(Xc, reference, rtol=0, atol=1e-7)


# -- bad input: one test per kind, checking the type and the words of the message --

def test_center_rejects_nan():
    with pytest.raises(ValueError, match=r"X contains NaN or infinity"):
        pcalib.center([[1.0, np.nan], [2.0, 3.0]])


def test_center_rejects_inf():
    with pytest.raises(ValueError, match=r"X contains NaN or infinity"):
        pcalib.center([[1.0, np.inf], [2.0, 3.0]])


def test_center_rejects_1d():
    with pytest.raises(ValueError, match=r"X must be a 2-D array .* got 1 dimension"):
        pcalib.center([1.0, 2.0, 3.0])


def test_center_rejects_3d():
    with pytest.raises(ValueError, match=r"X must be a 2-D array .* got 3 dimension"):
        pcalib.center(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_center_rejects_empty(shape):
    with pytest.raises(ValueError, match=r"X is empty"):
        pcalib.center(np.zeros(shape))


@pytest.mark.parametrize("bad", [[["a", "b"], ["c", "d"]], "abc", np.array([[1, None]], dtype=object)])
def test_center_rejects_non_numeric(bad):
    with pytest.raises(TypeError, match=r"X must (hold real numbers|be a numeric array)"):
        pcalib.center(bad)


def test_center_rejects_complex():
    with pytest.raises(TypeError, match=r"X must hold real numbers"):
        pcalib.center(np.ones((2, 2), dtype=complex))


def test_center_rejects_ragged():
    with pytest.raises(TypeError, match=r"X must be a numeric array"):
        pcalib.center([[1.0, 2.0], [3.0]])


def test_center_pair_subtracts_exactly_for_every_integer_kind():
    """pcalib._linalg.center.Center: (x - c) - ybar is exact for integer data wherever the
    difference is below 2**62 (in uint64 near 2**64, int64 with negative shifts), and
    rounded only in a column that spans more than 2**62 (compared with Python integers)."""
    from pcalib._linalg.center import Center

    cases = [
        np.array([[2**64 - 1], [2**64 - 5], [2**64 - 1024]], dtype=np.uint64),
        np.array([[-(2**63)], [-(2**63) + 7], [-(2**63) + 1]], dtype=np.int64),
        np.array([[2**62 + 3], [2**62 - 2], [2**62 + 1]], dtype=np.int64),
        np.array([[-(2**62)], [2**62], [0]], dtype=np.int64),  # spans 2**63: rounded
    ]
    for X in cases:
        ints = [int(v) for v in X[:, 0]]
        whole = X[:1, 0].copy()
        center = Center.of_integers(whole, np.array([0.25]))
        got = center.subtract(X)[:, 0]
        want = [float(v - int(whole[0])) - 0.25 for v in ints]
        np.testing.assert_array_equal(got, want)

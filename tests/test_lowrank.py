"""Tests of pcalib.lowrank: truncated_svd, low_rank_approx, randomized_svd.

References: numpy.linalg.svd and scikit-learn's randomized_svd.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcalib import low_rank_approx, randomized_svd, truncated_svd


@st.composite
def matrices_and_k(draw):
    n = draw(st.integers(1, 12))
    p = draw(st.integers(1, 12))
    k = draw(st.integers(1, min(n, p)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, p)) * rng.uniform(0.1, 5, size=p)
    if draw(st.booleans()) and min(n, p) > 1:  # rank deficient
        A = A[:, :1] @ rng.standard_normal((1, p)) + A[:, 1:2] @ rng.standard_normal((1, p)) * 0.1
    return A, k


def matrix_with_singular_values(rng, n, s_true):
    """A = Q1 diag(s_true) Q2^T with random orthonormal Q1 (n x p) and Q2 (p x p); returns (A, Q2)."""
    p = s_true.size
    Q1 = np.linalg.qr(rng.standard_normal((n, p)))[0]
    Q2 = np.linalg.qr(rng.standard_normal((p, p)))[0]
    return (Q1 * s_true) @ Q2.T, Q2


def sin_theta(V, W):
    """Sine of the largest principal angle between the row spaces of V and W."""
    # ||(I - P_W) V^T||_2 computed directly (1 - cos^2 would cancel below 1e-8)
    return np.linalg.norm(V - (V @ W.T) @ W, 2)


@pytest.mark.theorem("thm-eckart-young")
@given(matrices_and_k())
def test_eckart_young_errors(data):
    A, k = data
    s = np.linalg.svd(A, compute_uv=False)
    E = A - low_rank_approx(A, k)
    tol = 1e-12 * s[0] * max(A.shape)
    next_sv = s[k] if k < len(s) else 0.0
    assert np.linalg.norm(E, 2) == pytest.approx(next_sv, abs=tol)
    assert np.linalg.norm(E, "fro") == pytest.approx(np.sqrt(np.sum(s[k:] ** 2)), abs=tol)
    assert np.linalg.matrix_rank(A - E, tol=1e-9 * s[0]) <= k


@pytest.mark.theorem("thm-eckart-young")
def test_random_rank_k_competitors_are_not_better():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((30, 20))
    k = 4
    best = np.linalg.norm(A - low_rank_approx(A, k), "fro")
    best2 = np.linalg.norm(A - low_rank_approx(A, k), 2)
    for _ in range(200):
        B = rng.standard_normal((30, k)) @ rng.standard_normal((k, 20))
        # the best multiple of B is also a rank-k competitor
        B *= np.sum(A * B) / np.sum(B * B)
        assert np.linalg.norm(A - B, "fro") >= best
        assert np.linalg.norm(A - B, 2) >= best2


@given(matrices_and_k())
def test_truncated_svd_matches_numpy(data):
    A, k = data
    U, s, Vt = truncated_svd(A, k)
    _, s_np, Vt_np = np.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose(s, s_np[:k], atol=1e-12 * s_np[0])
    np.testing.assert_allclose(U.T @ U, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(Vt @ Vt.T, np.eye(k), atol=1e-10)
    np.testing.assert_allclose((U * s) @ Vt, low_rank_approx(A, k), atol=1e-12 * s_np[0])
    idx = np.argmax(np.abs(Vt), axis=1)
    assert np.all(Vt[np.arange(k), idx] > 0)
    # A v_j = s_j u_j
    np.testing.assert_allclose(A @ Vt.T, U * s, atol=1e-10 * s_np[0])


def test_truncated_svd_signs_follow_right_vectors():
    A = np.array([[0.0, -3.0], [1.0, 0.0]])
    U, s, Vt = truncated_svd(A, 2)
    np.testing.assert_allclose(s, [3.0, 1.0])
    np.testing.assert_allclose(Vt, [[0.0, 1.0], [1.0, 0.0]], atol=1e-15)
    np.testing.assert_allclose(U, [[-1.0, 0.0], [0.0, 1.0]], atol=1e-15)


@pytest.mark.parametrize("shape", [(60, 25), (25, 60)])
def test_randomized_is_exact_on_low_rank_matrices(shape):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((shape[0], 5)) @ np.diag([9, 7, 5, 3, 1.0]) @ rng.standard_normal((5, shape[1]))
    U, s, Vt = randomized_svd(A, 3, random_state=0)
    U2, s2, Vt2 = truncated_svd(A, 3)
    np.testing.assert_allclose(s, s2, rtol=1e-12)
    np.testing.assert_allclose(Vt, Vt2, atol=1e-10)
    np.testing.assert_allclose(U, U2, atol=1e-10)


def test_randomized_reproducible_and_seed_types():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((80, 40))
    a = randomized_svd(A, 5, random_state=42)
    b = randomized_svd(A, 5, random_state=42)
    c = randomized_svd(A, 5, random_state=np.random.default_rng(42))
    d = randomized_svd(A, 5, random_state=np.random.RandomState(0))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(a, c):
        np.testing.assert_array_equal(x, y)
    assert d[1].shape == (5,)


def test_randomized_not_centering():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((50, 10)) + 100.0  # the mean dominates the top singular vector
    _, s, _ = randomized_svd(A, 1, random_state=0)
    assert s[0] == pytest.approx(np.linalg.svd(A, compute_uv=False)[0], rel=1e-12)


def test_randomized_at_least_as_accurate_as_sklearn_on_decaying_spectrum():
    from sklearn.utils.extmath import randomized_svd as sk_randomized_svd

    rng = np.random.default_rng(4)
    n, p, k = 400, 200, 10
    s_true = 0.85 ** np.arange(p)
    A, Q2 = matrix_with_singular_values(rng, n, s_true)
    Vref = Q2[:, :k].T
    ours_err, sk_err = [], []
    for seed in range(5):
        U, s, Vt = randomized_svd(A, k, random_state=seed)
        U2, s2, Vt2 = sk_randomized_svd(A, k, random_state=seed)
        ours_err.append((np.max(np.abs(s - s_true[:k]) / s_true[:k]), sin_theta(Vt, Vref)))
        sk_err.append((np.max(np.abs(s2 - s_true[:k]) / s_true[:k]), sin_theta(Vt2, Vref)))
    ours, sk = np.median(ours_err, axis=0), np.median(sk_err, axis=0)
    assert np.all(ours <= 1.5 * sk + 1e-13), (ours, sk)


def test_block_krylov_beats_subspace_iteration_on_a_flat_spectrum():
    # The same number of passes over A (n_iter=4) as scikit-learn's subspace
    # iteration; the Krylov basis holds its subspace, so it must do better.
    from sklearn.utils.extmath import randomized_svd as sk_randomized_svd

    rng = np.random.default_rng(6)
    n, p, k = 600, 300, 10
    s_true = np.r_[np.linspace(3.0, 2.0, k), np.linspace(1.8, 1.0, p - k)]
    A, Q2 = matrix_with_singular_values(rng, n, s_true)
    Vref = Q2[:, :k].T
    ours = np.median([sin_theta(randomized_svd(A, k, n_iter=4, random_state=s)[2], Vref) for s in range(3)])
    sk = np.median([sin_theta(sk_randomized_svd(A, k, n_iter=4, random_state=s)[2], Vref) for s in range(3)])
    assert ours < 0.2 * sk, (ours, sk)


def test_power_iterations_help_on_a_flat_spectrum():
    rng = np.random.default_rng(5)
    n, p, k = 300, 150, 5
    s_true = np.r_[np.linspace(2.0, 1.6, k), np.linspace(1.2, 1.0, p - k)]
    A, Q2 = matrix_with_singular_values(rng, n, s_true)
    Vref = Q2[:, :k].T
    errs = [sin_theta(randomized_svd(A, k, n_iter=q, random_state=0)[2], Vref) for q in (0, 2, 8, 30)]
    assert errs[0] > 0.5  # no power iteration: the wrong subspace
    assert errs[-1] < 1e-3
    assert errs == sorted(errs, reverse=True)


def test_dtypes_and_inputs_untouched():
    rng = np.random.default_rng(6)
    A = rng.standard_normal((20, 8))
    A0 = A.copy()
    for out in (truncated_svd(A, 3), randomized_svd(A, 3, random_state=0)):
        assert all(x.dtype == np.float64 for x in out)
    assert low_rank_approx(A, 2).dtype == np.float64
    A32 = A.astype(np.float32)
    for out in (truncated_svd(A32, 3), randomized_svd(A32, 3, random_state=0)):
        assert all(x.dtype == np.float32 for x in out)
    assert low_rank_approx(A32, 2).dtype == np.float32
    assert truncated_svd(np.arange(12).reshape(4, 3), 2)[1].dtype == np.float64
    np.testing.assert_array_equal(A, A0)


# -- one test per bad input ----------------------------------------------------


def test_nan_rejected():
    with pytest.raises(ValueError, match="A contains NaN or infinity"):
        truncated_svd([[1.0, np.nan], [0.0, 1.0]], 1)


def test_inf_rejected():
    with pytest.raises(ValueError, match="A contains NaN or infinity"):
        randomized_svd([[1.0, np.inf], [0.0, 1.0]], 1)


def test_one_dimensional_rejected():
    with pytest.raises(ValueError, match="A must be a 2-D array"):
        low_rank_approx([1.0, 2.0], 1)


def test_three_dimensional_rejected():
    with pytest.raises(ValueError, match="A must be a 2-D array.*3 dimension"):
        randomized_svd(np.ones((2, 2, 2)), 1)


def test_empty_rejected():
    with pytest.raises(ValueError, match="A is empty"):
        truncated_svd(np.empty((0, 2)), 1)


def test_strings_rejected():
    with pytest.raises(TypeError, match="A must be a numeric array"):
        truncated_svd("A", 1)


def test_object_rejected():
    with pytest.raises(TypeError, match="A must hold real numbers"):
        low_rank_approx(np.array([[{}, 1]], dtype=object), 1)


def test_k_zero_rejected():
    with pytest.raises(ValueError, match="k must be between 1 and .* got 0"):
        low_rank_approx(np.eye(3), 0)


def test_k_negative_rejected():
    with pytest.raises(ValueError, match="k must be between 1 and .* got -2"):
        randomized_svd(np.eye(3), -2)


def test_k_too_large_rejected():
    with pytest.raises(ValueError, match=r"k must be between 1 and min\(n_samples, n_features\) = 2, got 3"):
        truncated_svd(np.ones((2, 5)), 3)


def test_k_not_integer_rejected():
    with pytest.raises(TypeError, match="k must be an integer"):
        randomized_svd(np.eye(3), 2.0)


def test_negative_oversample_rejected():
    with pytest.raises(ValueError, match="oversample must be a non-negative integer, got -1"):
        randomized_svd(np.eye(3), 1, oversample=-1)


def test_non_integer_oversample_rejected():
    with pytest.raises(TypeError, match="oversample must be a non-negative integer"):
        randomized_svd(np.eye(3), 1, oversample=2.5)


def test_unknown_n_iter_string_rejected():
    with pytest.raises(ValueError, match='n_iter must be a non-negative integer or "auto"'):
        randomized_svd(np.eye(3), 1, n_iter="many")


def test_negative_n_iter_rejected():
    with pytest.raises(ValueError, match="n_iter must be a non-negative integer, got -1"):
        randomized_svd(np.eye(3), 1, n_iter=-1)


def test_bad_random_state_rejected():
    with pytest.raises(TypeError, match="random_state must be None, a non-negative int or a numpy Generator"):
        randomized_svd(np.eye(3), 1, random_state="seed")

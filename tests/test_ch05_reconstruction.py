"""The results of the chapter "Minimum reconstruction error", checked against independent routes.

References used here and never the code under test: numpy.linalg (qr, eigh, svd,
matrix_rank) written out in the tests, scikit-learn's PCA (its inverse_transform
gives the reconstructions), and brute-force competitors (random and perturbed
orthonormal bases).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA

import pcalib

from shared_strategies import seeded_data

theorem = pytest.mark.theorem


@st.composite
def orthonormal_bases(draw, max_p=9):
    """(W, rng): a p x k matrix with orthonormal columns, from numpy's QR of a Gaussian matrix."""
    p = draw(st.integers(1, max_p))
    k = draw(st.integers(1, p))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return np.linalg.qr(rng.normal(size=(p, k)))[0], rng


def random_orthonormal(rng, p, k):
    return np.linalg.qr(rng.normal(size=(p, k)))[0]


def covariance_eigh(X):
    """Eigenpairs of np.cov(X), decreasing."""
    p = X.shape[1]
    values, vectors = np.linalg.eigh(np.cov(X, rowvar=False).reshape(p, p))
    return values[::-1], vectors[:, ::-1]


def mean_squared_error(Xc, W):
    """(1/n) ||X_c - X_c W W^T||_F^2 from the residual itself."""
    residual = Xc - (Xc @ W) @ W.T
    return np.sum(residual**2) / Xc.shape[0]


# -- lem-recon-projector -------------------------------------------------------------------

@theorem("lem-recon-projector")
@given(orthonormal_bases())
def test_projector_is_symmetric_idempotent_of_rank_k(basis):
    W, rng = basis
    p, k = W.shape
    P = W @ W.T
    np.testing.assert_allclose(P, P.T, atol=1e-14)
    np.testing.assert_allclose(P @ P, P, atol=1e-13)
    assert np.linalg.matrix_rank(P) == k
    np.testing.assert_allclose(np.trace(P), k, rtol=1e-13)
    np.testing.assert_allclose(np.linalg.eigvalsh(P), [0.0] * (p - k) + [1.0] * k, atol=1e-13)
    np.testing.assert_allclose(P @ W, W, atol=1e-13)                     # range(P) contains range(W)
    Q = np.eye(p) - P
    np.testing.assert_allclose(Q @ Q, Q, atol=1e-13)
    np.testing.assert_allclose(P @ Q, 0.0, atol=1e-13)
    v = rng.normal(size=p)
    np.testing.assert_allclose(v @ v, np.sum((P @ v) ** 2) + np.sum((Q @ v) ** 2), rtol=1e-12)
    assert -1e-13 <= v @ P @ v <= v @ v * (1 + 1e-13)


@theorem("lem-recon-projector")
def test_projector_range_is_the_column_space_of_w():
    rng = np.random.default_rng(3)
    W = random_orthonormal(rng, 6, 2)
    P = W @ W.T
    # the column space of P and of W agree: stacking them does not raise the rank
    assert np.linalg.matrix_rank(np.hstack([P, W])) == 2
    # a vector orthogonal to W is annihilated
    v = rng.normal(size=6)
    v -= W @ (W.T @ v)
    np.testing.assert_allclose(P @ v, 0.0, atol=1e-14)


# -- lem-recon-pythagoras --------------------------------------------------------------------

@theorem("lem-recon-pythagoras")
@given(seeded_data(min_rows=3), st.integers(0, 2**32 - 1), st.data())
def test_pythagoras_for_the_data(X, seed, data):
    n, p = X.shape
    k = data.draw(st.integers(1, p))
    W = random_orthonormal(np.random.default_rng(seed), p, k)
    Xc = X - X.mean(axis=0)
    projected = Xc @ W @ W.T
    total = np.sum(Xc**2)
    np.testing.assert_allclose(np.sum(projected**2) + np.sum((Xc - projected) ** 2), total, rtol=1e-10)
    S = np.cov(X, rowvar=False).reshape(p, p)
    np.testing.assert_allclose(np.sum(projected**2), (n - 1) * np.trace(W.T @ S @ W),
                               rtol=1e-9, atol=1e-12 * total)
    np.testing.assert_allclose(np.sum(projected**2), np.sum((Xc @ W) ** 2), rtol=1e-10, atol=1e-13 * total)


# -- lem-recon-ky-fan ------------------------------------------------------------------------

@st.composite
def symmetric_matrices(draw, max_p=8):
    p = draw(st.integers(1, max_p))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["indefinite", "psd", "repeated"]))
    A = rng.normal(size=(p, p))
    if kind == "indefinite":
        S = (A + A.T) / 2
    elif kind == "psd":
        S = A @ A.T
    else:                                        # repeated eigenvalues 2, 2, ..., -1, -1
        Q = np.linalg.qr(A)[0]
        S = (Q * np.where(np.arange(p) < (p + 1) // 2, 2.0, -1.0)) @ Q.T
    return (S + S.T) / 2, rng


def ky_fan_setup(S, k):
    """NumPy's eigenpairs of S in decreasing order, and the Ky Fan bound lambda_1 + ... + lambda_k."""
    values, vectors = np.linalg.eigh(S)
    values, vectors = values[::-1], vectors[:, ::-1]
    return values, vectors, values[:k].sum()


@theorem("lem-recon-ky-fan")
@given(symmetric_matrices(), st.data())
def test_ky_fan_bound_holds_and_is_attained(matrix, data):
    S, rng = matrix
    p = S.shape[0]
    k = data.draw(st.integers(1, p))
    values, vectors, bound = ky_fan_setup(S, k)
    scale = np.abs(values).max() + 1e-300
    for _ in range(50):
        W = random_orthonormal(rng, p, k)
        assert np.trace(W.T @ S @ W) <= bound + 1e-12 * scale * k
        h = np.sum((vectors.T @ W) ** 2, axis=1)               # h_j = ||W^T u_j||^2
        assert np.all(h >= -1e-13) and np.all(h <= 1 + 1e-13)
        np.testing.assert_allclose(h.sum(), k, rtol=1e-12)
        # the column sums of the matrix (u_j^T w_l)^2 are 1: doubly substochastic
        np.testing.assert_allclose(np.sum((vectors.T @ W) ** 2, axis=0), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.trace(vectors[:, :k].T @ S @ vectors[:, :k]), bound, atol=1e-12 * scale * k)


@theorem("lem-recon-ky-fan")
@given(symmetric_matrices(), st.data())
def test_ky_fan_equality_only_on_the_top_eigenspace(matrix, data):
    # Quantitative form of the equality case (proved in the exercise of the chapter):
    # bound - tr(W^T S W) >= (lambda_k - lambda_{k+1}) / 2 * ||W W^T - W_k W_k^T||_F^2.
    S, rng = matrix
    p = S.shape[0]
    k = data.draw(st.integers(1, p))
    values, vectors, bound = ky_fan_setup(S, k)
    gap = values[k - 1] - values[k] if k < p else 0.0
    P_k = vectors[:, :k] @ vectors[:, :k].T
    scale = np.abs(values).max() + 1e-300
    for eps in (1.0, 1e-1, 1e-2):
        W = np.linalg.qr(vectors[:, :k] + eps * rng.normal(size=(p, k)))[0]
        distance2 = np.sum((W @ W.T - P_k) ** 2)
        deficit = bound - np.trace(W.T @ S @ W)
        assert deficit >= gap / 2 * distance2 - 1e-11 * scale * p


@theorem("lem-recon-ky-fan")
def test_ky_fan_against_brute_force_over_coordinate_subspaces():
    # For a diagonal S the coordinate subspaces are candidates; the best of them is the top k.
    rng = np.random.default_rng(11)
    d = rng.normal(size=7)
    S = np.diag(d)
    from itertools import combinations
    for k in range(1, 8):
        best = max(sum(d[list(c)]) for c in combinations(range(7), k))
        np.testing.assert_allclose(best, np.sort(d)[::-1][:k].sum(), rtol=1e-14)
        for _ in range(20):
            W = random_orthonormal(rng, 7, k)
            assert np.trace(W.T @ S @ W) <= best + 1e-12


# -- thm-recon-equivalence --------------------------------------------------------------------

@theorem("thm-recon-equivalence")
@given(seeded_data(min_rows=3), st.integers(0, 2**32 - 1), st.data())
def test_error_identity_and_subspace_invariance(X, seed, data):
    n, p = X.shape
    k = data.draw(st.integers(1, p))
    rng = np.random.default_rng(seed)
    Xc = X - X.mean(axis=0)
    S = np.cov(X, rowvar=False).reshape(p, p)
    W = random_orthonormal(rng, p, k)
    error = mean_squared_error(Xc, W)
    scale = np.trace(S)
    np.testing.assert_allclose(error, (n - 1) / n * (np.trace(S) - np.trace(W.T @ S @ W)),
                               rtol=1e-7, atol=1e-9 * scale)
    Q = random_orthonormal(rng, k, k)                          # rotate within the subspace
    np.testing.assert_allclose(mean_squared_error(Xc, W @ Q), error, rtol=1e-9, atol=1e-12 * scale)


@theorem("thm-recon-equivalence")
@given(seeded_data(min_rows=3), st.integers(0, 2**32 - 1), st.data())
def test_pca_basis_beats_every_competitor(X, seed, data):
    n, p = X.shape
    k = data.draw(st.integers(1, min(n, p)))
    rng = np.random.default_rng(seed)
    Xc = X - X.mean(axis=0)
    values, vectors = covariance_eigh(X)
    W_pca = pcalib.pca_svd(X, k=k).components.T
    best = mean_squared_error(Xc, W_pca)
    scale = np.sum(Xc**2) / n
    np.testing.assert_allclose(best, (n - 1) / n * values[k:].sum(), rtol=1e-6, atol=1e-9 * scale)
    for _ in range(30):
        assert mean_squared_error(Xc, random_orthonormal(rng, p, k)) >= best - 1e-9 * scale
        nearby = np.linalg.qr(W_pca + 1e-2 * rng.normal(size=(p, k)))[0]
        assert mean_squared_error(Xc, nearby) >= best - 1e-9 * scale
    # the maximum of tr(W^T S W) is the sum of the top k eigenvalues, at the same W
    S = np.cov(X, rowvar=False).reshape(p, p)
    np.testing.assert_allclose(np.trace(W_pca.T @ S @ W_pca), values[:k].sum(), rtol=1e-7)


@theorem("thm-recon-equivalence")
@given(seeded_data(min_rows=4))
def test_optimal_subspace_equals_sklearn_and_numpy_subspace(X):
    n, p = X.shape
    values, vectors = covariance_eigh(X)
    for k in range(1, min(n - 1, p)):
        if values[k - 1] - values[k] < 1e-2 * values[0]:
            continue                                             # part 3 needs a gap
        P_numpy = vectors[:, :k] @ vectors[:, :k].T
        W = pcalib.pca_eig(X, k=k).components.T
        np.testing.assert_allclose(W @ W.T, P_numpy, atol=1e-6)
        sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
        np.testing.assert_allclose(sk.components_.T @ sk.components_, P_numpy, atol=1e-6)


# -- cor-recon-error-discarded --------------------------------------------------------------

@theorem("cor-recon-error-discarded")
@given(seeded_data(min_rows=2), st.data())
def test_reconstruction_error_is_the_scaled_sum_of_discarded_eigenvalues(X, data):
    n, p = X.shape
    k = data.draw(st.integers(0, min(n, p)))
    Xc = X - X.mean(axis=0)
    values, _ = covariance_eigh(X)
    sigma = np.linalg.svd(Xc, compute_uv=False)
    total = np.sum(Xc**2) / n
    library = pcalib.reconstruction_error(X, k)
    np.testing.assert_allclose(library, (n - 1) / n * values[k:].sum(), rtol=1e-6, atol=1e-9 * total)
    np.testing.assert_allclose(library, np.sum(sigma[k:] ** 2) / n, rtol=1e-6, atol=1e-9 * total)
    # the direct residual with numpy's own right singular vectors
    Vt = np.linalg.svd(Xc, full_matrices=False)[2]
    np.testing.assert_allclose(library, mean_squared_error(Xc, Vt[:k].T), rtol=1e-6, atol=1e-9 * total)
    # relative to k = 0: 1 - cumulative ratio
    np.testing.assert_allclose(library / total, 1 - values[:k].sum() / values.sum(), atol=1e-8)
    # ddof only rescales the eigenvalues
    biased = pcalib.pca_svd(X, ddof=0).explained_variance
    np.testing.assert_allclose(pcalib.reconstruction_error(X, k, ddof=0), biased[k:].sum(),
                               rtol=1e-6, atol=1e-9 * total)


@theorem("cor-recon-error-discarded")
@settings(max_examples=20)
@given(seeded_data(min_rows=3), st.data())
def test_reconstruction_error_matches_sklearn_inverse_transform(X, data):
    n, p = X.shape
    k = data.draw(st.integers(1, min(n, p)))
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    X_hat = sk.inverse_transform(sk.transform(X))
    sklearn_error = np.sum((X - X_hat) ** 2) / n
    total = np.sum((X - X.mean(axis=0)) ** 2) / n
    np.testing.assert_allclose(pcalib.reconstruction_error(X, k), sklearn_error, rtol=1e-6, atol=1e-8 * total)
    # and pcalib's own estimator reconstructs the same points
    model = pcalib.PCA(n_components=k).fit(X)
    np.testing.assert_allclose(model.inverse_transform(model.transform(X)), X_hat,
                               atol=1e-7 * (np.abs(X).max() + 1))


@theorem("cor-recon-error-discarded")
def test_the_factor_is_visible_for_small_n():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [2.0, 1.0]])   # n = 4, eigenvalues 4/3, 1/3
    values = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    np.testing.assert_allclose(values, [4 / 3, 1 / 3], rtol=1e-14)
    np.testing.assert_allclose(pcalib.reconstruction_error(X, 1), 3 / 4 * 1 / 3, rtol=1e-14)
    assert not np.isclose(pcalib.reconstruction_error(X, 1), values[1:].sum())

"""Tests of pcalib.pcoa (chapter "Principal coordinates").

Independent routes: the SVD of the centered data (numpy.linalg.svd), B formed with the
explicit centering matrix and numpy.linalg.eigh, and scikit-bio's pcoa.
"""

import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist, squareform

import pcalib
from pcalib import double_center, pcoa
from pcalib.datasets import great_circle_distances, load_cities

pcoa_module = sys.modules["pcalib.pcoa"]


def gram_explicit(D):
    n = D.shape[0]
    H = pcalib.centering_matrix(n)
    return -0.5 * H @ (np.asarray(D, float) ** 2) @ H


def align_signs(A, B):
    """Flip the columns of A to match B (for comparisons up to the sign of each axis)."""
    s = np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)
    return A * s


def euclidean_data(seed=0, n=40, p=5):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, p)) * np.linspace(4, 0.5, p) + 10.0


def bray_curtis(seed=1, n=30, species=12):
    rng = np.random.default_rng(seed)
    counts = rng.poisson(rng.gamma(0.7, 4.0, size=species), size=(n, species)) + 1
    return squareform(pdist(counts, "braycurtis"))


def skbio_pcoa(D, k):
    from skbio.stats.ordination import pcoa as sk

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sk(D, method="eigh", number_of_dimensions=k)
    return (res.eigvals.to_numpy(), res.proportion_explained.to_numpy(), res.samples.to_numpy())


# --- double_center -----------------------------------------------------------------


@given(st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_double_center_equals_HMH(n, seed):
    M = np.random.default_rng(seed).normal(size=(n, n)) * 10
    H = pcalib.centering_matrix(n)
    assert np.allclose(double_center(M), H @ M @ H, atol=1e-12 * max(1, np.abs(M).max()))


def test_double_center_does_not_modify_and_keeps_float32():
    M = np.arange(16, dtype=np.float32).reshape(4, 4)
    before = M.copy()
    out = double_center(M)
    assert out.dtype == np.float32
    assert np.array_equal(M, before)
    assert np.allclose(out.sum(axis=0), 0, atol=1e-5) and np.allclose(out.sum(axis=1), 0, atol=1e-5)


@pytest.mark.parametrize(
    "M, exc, words",
    [(np.ones((2, 3)), ValueError, "square"), (np.ones(3), ValueError, "2-D"),
     (np.array([[1, np.nan], [0, 1]]), ValueError, "NaN"), ("ab", TypeError, "numeric")],
)
def test_double_center_rejects(M, exc, words):
    with pytest.raises(exc, match=words):
        double_center(M)


# --- pcoa versus PCA ---------------------------------------------------------------


def test_pcoa_equals_pca_scores_and_squared_singular_values():
    X = euclidean_data()
    D = squareform(pdist(X))
    res = pcoa(D)
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    scores = U * s
    p = X.shape[1]
    assert res.coordinates.shape == (X.shape[0], p)
    assert np.allclose(align_signs(res.coordinates, scores), scores, atol=1e-9)
    assert np.allclose(np.abs(res.coordinates), np.abs(scores), atol=1e-9)
    assert np.allclose(res.eigenvalues[:p], s**2, rtol=1e-10)
    assert np.all(res.eigenvalues[p:] == 0.0)  # round-off zeros set exactly to 0
    assert res.eigenvalues.shape == (X.shape[0],) and res.full_spectrum
    assert np.isclose(res.total_inertia, np.sum(Xc**2), rtol=1e-12)
    assert np.allclose(res.proportion_explained, s**2 / np.sum(s**2), rtol=1e-10)
    assert res.negative_share == 0.0 and res.min_eigenvalue == 0.0


def test_sign_convention_on_eigenvectors():
    res = pcoa(squareform(pdist(euclidean_data(3))))
    U = res.coordinates / np.sqrt(res.eigenvalues[: res.coordinates.shape[1]])
    idx = np.argmax(np.abs(U), axis=0)
    assert np.all(U[idx, np.arange(U.shape[1])] > 0)


@settings(max_examples=30)
@given(st.integers(2, 12), st.integers(1, 4), st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_property_pcoa_matches_pca_with_duplicates(n, p, seed, duplicates):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 3, size=p)
    X = np.vstack([X, X[: min(duplicates, n)]])  # duplicated points: zero distances
    D = squareform(pdist(X))
    res = pcoa(D)
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    m = res.coordinates.shape[1]
    assert m == np.count_nonzero(s > 1e-7 * s[0])
    assert np.allclose(res.eigenvalues[:m], s[:m] ** 2, rtol=1e-7)
    # the coordinates reproduce the distances
    assert np.allclose(squareform(pdist(res.coordinates)), D, atol=1e-7 * max(1, D.max()))
    assert np.isclose(res.eigenvalues.sum(), (D**2).sum() / (2 * len(D)), rtol=1e-9, atol=1e-12)


# --- cross-checks with scikit-bio ----------------------------------------------------


def test_matches_skbio_on_euclidean():
    D = squareform(pdist(euclidean_data(5)))
    ev, prop, coords = skbio_pcoa(D, 3)
    res = pcoa(D, k=3)
    assert np.allclose(res.eigenvalues, ev, rtol=1e-10)
    assert np.allclose(res.proportion_explained, prop, rtol=1e-10)
    assert np.allclose(align_signs(res.coordinates, coords), coords, atol=1e-9)


def test_matches_skbio_on_bray_curtis_and_keeps_negative_eigenvalues():
    D = bray_curtis()
    n = len(D)
    full = pcoa(D)
    B = gram_explicit(D)
    mu = np.sort(np.linalg.eigvalsh(B))[::-1]
    assert np.allclose(full.eigenvalues, mu, atol=1e-12)
    assert full.eigenvalues.min() < -1e-3 * full.eigenvalues[0]  # negatives kept
    assert full.min_eigenvalue == full.eigenvalues[-1]
    neg = -mu[mu < 0].sum() / np.abs(mu).sum()
    assert np.isclose(full.negative_share, neg, rtol=1e-10) and full.negative_share > 0
    # skbio with k < n divides by trace(B), as pcalib does for every k
    for k in (2, 5):
        ev, prop, coords = skbio_pcoa(D, k)
        res = pcoa(D, k=k)
        assert np.allclose(res.eigenvalues, ev, rtol=1e-10)
        assert np.allclose(res.proportion_explained, prop, rtol=1e-10)
        assert np.allclose(align_signs(res.coordinates, coords), coords, atol=1e-9)
    assert np.sum(full.proportion_explained) > 1.0
    assert full.coordinates.shape == (n, np.count_nonzero(mu > 1e-12))


def test_proportion_explained_does_not_depend_on_k():
    D = bray_curtis(seed=7)
    p2 = pcoa(D, k=2).proportion_explained
    p5 = pcoa(D, k=5).proportion_explained
    assert np.array_equal(p2, p5[:2])
    mu = np.sort(np.linalg.eigvalsh(gram_explicit(D)))[::-1]
    assert np.allclose(p5, mu[:5] / mu.sum(), rtol=1e-10)


def test_axes_with_non_positive_eigenvalues_get_zero_coordinates():
    D = bray_curtis(seed=2, n=12)
    res = pcoa(D, k=11)
    assert np.any(res.eigenvalues < 0)
    nonpos = res.eigenvalues <= 0
    assert np.all(res.coordinates[:, nonpos] == 0.0)
    assert np.all(res.proportion_explained[res.eigenvalues < 0] < 0)


def test_great_circle_distances_have_negative_eigenvalues():
    cities = load_cities()
    res = pcoa(great_circle_distances(cities.latitude, cities.longitude))
    assert res.eigenvalues.min() < -1e-3 * res.eigenvalues[0]
    assert res.negative_share > 0


def test_zero_distance_matrix_and_single_point():
    res = pcoa(np.zeros((4, 4)))
    assert res.coordinates.shape == (4, 0) and np.all(res.eigenvalues == 0)
    assert res.total_inertia == 0.0 and res.negative_share == 0.0
    assert pcoa(np.zeros((4, 4)), k=2).proportion_explained.tolist() == [0.0, 0.0]
    one = pcoa([[0.0]])
    assert one.coordinates.shape == (1, 0)


def test_full_spectrum_keyword():
    D = bray_curtis(seed=3)
    res = pcoa(D, k=2, full_spectrum=True)
    assert res.eigenvalues.shape == (len(D),) and res.proportion_explained.shape == (2,)
    partial = pcoa(D, k=2)
    assert partial.eigenvalues.shape == (2,) and partial.negative_share is None
    assert np.isclose(partial.min_eigenvalue, res.eigenvalues[-1], rtol=1e-10)


# --- the Krylov route (forced on small matrices) -----------------------------------


def sphere_distances(n=300, extent=60.0, seed=0):
    """Great-circle distances of random points: non-Euclidean, fast-decaying spectrum."""
    rng = np.random.default_rng(seed)
    return great_circle_distances(rng.uniform(-extent, extent, n), rng.uniform(-extent, extent, n))


@pytest.mark.parametrize("make, k", [(lambda: squareform(pdist(euclidean_data(1, n=300, p=30))), 3),
                                     (sphere_distances, 2),
                                     (lambda: squareform(pdist(euclidean_data(2, n=200, p=3))), 3)])
def test_krylov_route_matches_dense(monkeypatch, make, k):
    D = make()
    dense = pcoa(D, k=k, full_spectrum=True)
    B = gram_explicit(D)
    assert pcoa_module._krylov_top(B, k) is not None  # the Krylov route converges here
    monkeypatch.setattr(pcoa_module, "_DENSE_MAX_N", 0)
    fast = pcoa(D, k=k)
    assert not fast.full_spectrum and fast.eigenvalues.shape == (k,)
    assert np.allclose(fast.eigenvalues, dense.eigenvalues[:k], rtol=1e-8)
    assert np.allclose(fast.coordinates, dense.coordinates, atol=1e-6 * np.abs(dense.coordinates).max())
    assert fast.min_eigenvalue >= dense.eigenvalues[-1] - 1e-9 * dense.eigenvalues[0]  # upper bound
    assert np.array_equal(fast.proportion_explained, fast.eigenvalues / dense.total_inertia)


def test_krylov_min_eigenvalue_proves_negativity(monkeypatch):
    D = sphere_distances()
    monkeypatch.setattr(pcoa_module, "_DENSE_MAX_N", 0)
    fast = pcoa(D, k=2)
    mu = np.linalg.eigvalsh(gram_explicit(D))
    assert mu[0] <= fast.min_eigenvalue < 0


def test_krylov_gives_up_when_the_subspace_stops_growing(monkeypatch):
    B = gram_explicit(squareform(pdist(euclidean_data(2, n=200, p=3))))
    monkeypatch.setattr(pcoa_module, "_KRYLOV_RTOL", 0.0)  # never satisfied
    assert pcoa_module._krylov_top(B, 3) is None


def test_krylov_falls_back_to_dense_on_flat_spectrum(monkeypatch):
    rng = np.random.default_rng(0)
    D = squareform(pdist(rng.normal(size=(120, 120))))  # flat spectrum, rank 119
    dense = pcoa(D, k=3, full_spectrum=True)
    monkeypatch.setattr(pcoa_module, "_DENSE_MAX_N", 0)
    B = gram_explicit(D)
    assert pcoa_module._krylov_top(B, 3) is None
    fast = pcoa(D, k=3)
    assert np.allclose(fast.eigenvalues, dense.eigenvalues[:3], rtol=1e-10)


# --- validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "D, words",
    [
        (np.zeros((2, 3)), "D must be square"),
        (np.zeros(3), "D must be a 2-D"),
        (np.array([[0.0, 1.0], [2.0, 0.0]]), "D must be symmetric"),
        (np.array([[1.0, 1.0], [1.0, 0.0]]), "D must have a zero diagonal"),
        (np.array([[0.0, -1.0], [-1.0, 0.0]]), "D must be non-negative"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), "D contains NaN"),
        (np.array([[0.0, np.inf], [np.inf, 0.0]]), "D contains NaN or infinity"),
        (np.zeros((0, 0)), "D is empty"),
    ],
)
def test_rejects_bad_distance_matrices(D, words):
    with pytest.raises(ValueError, match=words):
        pcoa(D)


def test_rejects_non_numeric_D():
    with pytest.raises(TypeError, match="D must"):
        pcoa([["a", "b"], ["c", "d"]])


def test_symmetry_tolerance_is_relative():
    D = squareform(pdist(euclidean_data(n=6) * 1e6))
    D[0, 1] *= 1 + 1e-14  # round-off asymmetry: accepted
    pcoa(D)
    D[0, 1] *= 1 + 1e-6
    with pytest.raises(ValueError, match="symmetric"):
        pcoa(D)


@pytest.mark.parametrize("k, exc, words", [(0, ValueError, "k must be between 1"),
                                           (6, ValueError, "k must be between 1 and .* 5, got 6"),
                                           (2.0, TypeError, "k must be an integer"),
                                           (True, TypeError, "k must be an integer")])
def test_rejects_bad_k(k, exc, words):
    D = squareform(pdist(euclidean_data(n=5)))
    with pytest.raises(exc, match=words):
        pcoa(D, k=k)


def test_full_spectrum_false_needs_k():
    with pytest.raises(ValueError, match="full_spectrum=False needs k"):
        pcoa(np.zeros((3, 3)), full_spectrum=False)


def test_input_not_modified_and_numpy_int_k():
    D = bray_curtis()
    before = D.copy()
    pcoa(D, k=np.int64(2))
    assert np.array_equal(D, before)


def test_float32_and_integer_input():
    X = euclidean_data()
    D = squareform(pdist(X))
    res64 = pcoa(D, k=3)
    res32 = pcoa(D.astype(np.float32), k=3)
    assert res32.coordinates.dtype == np.float32
    assert res32.eigenvalues.dtype == np.float32 and res32.proportion_explained.dtype == np.float32
    assert np.allclose(res32.eigenvalues, res64.eigenvalues, rtol=1e-5)
    assert np.allclose(res32.coordinates, res64.coordinates, atol=1e-4 * np.abs(res64.coordinates).max())
    Di = np.array([[0, 3, 4], [3, 0, 5], [4, 5, 0]])
    assert pcoa(Di).coordinates.dtype == np.float64
    assert np.allclose(squareform(pdist(pcoa(Di).coordinates)), Di)


def test_result_is_frozen():
    res = pcoa(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(AttributeError):
        res.coordinates = None

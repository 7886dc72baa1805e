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

pcoa_module = sys.modules["pcalib.principal_coordinates"]


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
    monkeypatch.setattr("pcalib._linalg.constants.PCOA_DENSE_MAX_N", 0)
    fast = pcoa(D, k=k)
    assert not fast.full_spectrum and fast.eigenvalues.shape == (k,)
    assert np.allclose(fast.eigenvalues, dense.eigenvalues[:k], rtol=1e-8)
    assert np.allclose(fast.coordinates, dense.coordinates, atol=1e-6 * np.abs(dense.coordinates).max())
    assert fast.min_eigenvalue >= dense.eigenvalues[-1] - 1e-9 * dense.eigenvalues[0]  # upper bound
    assert np.array_equal(fast.proportion_explained, fast.eigenvalues / dense.total_inertia)


def test_krylov_min_eigenvalue_proves_negativity(monkeypatch):
    D = sphere_distances()
    monkeypatch.setattr("pcalib._linalg.constants.PCOA_DENSE_MAX_N", 0)
    fast = pcoa(D, k=2)
    mu = np.linalg.eigvalsh(gram_explicit(D))
    # A Ritz value is at least the smallest eigenvalue in exact arithmetic; both carry
    # round-off of order n eps max|beta| (issue 23: an exact comparison failed with one
    # BLAS thread, -371150091.1314128 against -371150091.13141346).
    round_off = len(D) * np.finfo(float).eps * np.abs(mu).max()
    assert mu[0] - round_off <= fast.min_eigenvalue < 0


def test_krylov_gives_up_when_the_subspace_stops_growing(monkeypatch):
    B = gram_explicit(squareform(pdist(euclidean_data(2, n=200, p=3))))
    monkeypatch.setattr(pcoa_module, "_KRYLOV_RTOL", 0.0)  # never satisfied
    assert pcoa_module._krylov_top(B, 3) is None


def test_krylov_falls_back_to_dense_on_flat_spectrum(monkeypatch):
    rng = np.random.default_rng(0)
    D = squareform(pdist(rng.normal(size=(120, 120))))  # flat spectrum, rank 119
    dense = pcoa(D, k=3, full_spectrum=True)
    monkeypatch.setattr("pcalib._linalg.constants.PCOA_DENSE_MAX_N", 0)
    B = gram_explicit(D)
    assert pcoa_module._krylov_top(B, 3) is None
    fast = pcoa(D, k=3)
    assert np.allclose(fast.eigenvalues, dense.eigenvalues[:3], rtol=1e-10)


# --- validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "D, words",
    [
        (np.zeros((2, 3)), "D must be a square distance matrix"),
        (np.zeros((2, 2, 2)), "D must be a 2-D"),
        (np.zeros(4), r"condensed vector .* n\(n-1\)/2 entries for some n, got 4"),
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


# --- references for the ecologists' PCoA, written from the published formulas ---------
#
# Legendre and Legendre (2012), Numerical Ecology, section 9.3.4, as ape::pcoa implements
# them; vegan::wcmdscale for the weights; Gower (1968) for adding a point. Everything here
# uses NumPy only (explicit H, numpy.linalg.eigh / eigvals), never pcalib.


def off_diagonal(n):
    return 1.0 - np.eye(n)


def smallest_on_complement_of_ones(B):
    """Smallest eigenvalue of B restricted to the complement of 1 (B 1 = 0 always)."""
    n = len(B)
    Q = np.linalg.qr(np.c_[np.ones(n), np.eye(n)[:, : n - 1]])[0][:, 1:]  # basis of 1-perp
    return np.linalg.eigvalsh(Q.T @ B @ Q)[0]


def lingoes_reference(D):
    """c1 = -(smallest eigenvalue of B) and d'_ij = sqrt(d_ij^2 + 2 c1), i != j."""
    c1 = -np.linalg.eigvalsh(gram_explicit(D))[0]
    return c1, np.sqrt(D**2 + 2 * c1 * off_diagonal(len(D)))


def cailliez_matrix(D):
    """The 2n x 2n matrix [[0, 2B], [-I, -4 B1]] with B1 = -1/2 H D H (Cailliez 1983)."""
    n = len(D)
    H = np.eye(n) - 1.0 / n
    B1 = -0.5 * H @ D @ H
    return np.block([[np.zeros((n, n)), 2 * gram_explicit(D)], [-np.eye(n), -4 * B1]])


def cailliez_reference(D):
    """c2 = largest real eigenvalue of the Cailliez matrix and d'_ij = d_ij + c2, i != j."""
    eigenvalues = np.linalg.eigvals(cailliez_matrix(D))
    real = eigenvalues[np.abs(eigenvalues.imag) <= 1e-9 * np.abs(eigenvalues).max()].real
    c2 = real.max()
    return c2, D + c2 * off_diagonal(len(D))


def ape_pcoa(D):
    """ape::pcoa's steps for a Euclidean (or corrected) D, in NumPy: eigenvalues of B by
    eigh, zero below sqrt(eps), coordinates of the positive axes, relative eigenvalues
    over the trace, and the broken stick rev(cumsum(1/(k:1))/k) over the k positive axes."""
    B = gram_explicit(D)
    values, vectors = np.linalg.eigh(B)
    values, vectors = values[::-1], vectors[:, ::-1]
    values[np.abs(values) < np.sqrt(np.finfo(float).eps)] = 0.0
    k = int(np.sum(values > np.sqrt(np.finfo(float).eps)))
    coordinates = vectors[:, :k] * np.sqrt(values[:k])
    stick = np.cumsum(1.0 / np.arange(k, 0, -1))[::-1] / k
    return values, coordinates, values[:k] / np.trace(B), stick


def weighted_reference(D, w):
    """vegan::wcmdscale: weighted Gower centring, Omega^1/2 B_w Omega^1/2, coordinates
    scaled by 1/sqrt(w); explicit matrices."""
    n = len(D)
    Hw = np.eye(n) - np.outer(np.ones(n), w) / w.sum()
    Bw = -0.5 * Hw @ (D**2) @ Hw.T
    root = np.sqrt(w)
    values, vectors = np.linalg.eigh(root[:, None] * Bw * root[None, :])
    values, vectors = values[::-1], vectors[:, ::-1]
    positive = values > 1e-10 * values[0]
    return values, vectors[:, positive] * np.sqrt(values[positive]) / root[:, None]


def assert_same_axes(Y, reference, values, atol):
    """Coordinates equal up to the sign of each column, where the eigenvalues are simple;
    for a repeated eigenvalue only the subspace is defined: compare Y Y^T."""
    assert Y.shape == reference.shape
    assert np.allclose(Y @ Y.T, reference @ reference.T, atol=atol * max(1.0, np.abs(reference).max()))
    k = Y.shape[1]
    gaps = -np.diff(values[: k + 1]) if k < len(values) else -np.diff(np.r_[values[:k], 0.0])
    if np.all(gaps > 1e-6 * values[0]):
        assert np.allclose(align_signs(Y, reference), reference, atol=atol)


def non_euclidean(seed=0, n=15):
    """Dissimilarities of independent uniform entries: far from Euclidean."""
    rng = np.random.default_rng(seed)
    A = rng.uniform(0.1, 2.0, size=(n, n))
    return np.triu(A, 1) + np.triu(A, 1).T


STAR = np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]], dtype=float)


# --- Lingoes and Cailliez -------------------------------------------------------------


REFERENCES = {"lingoes": lingoes_reference, "cailliez": cailliez_reference}


@pytest.mark.parametrize("correction", ["lingoes", "cailliez"])
@pytest.mark.parametrize("make", [bray_curtis, non_euclidean, lambda: STAR], ids=["bray-curtis", "uniform", "star"])
def test_correction_matches_the_published_formula_and_ape(make, correction):
    D = make()
    constant, D_corrected = REFERENCES[correction](D)
    res = pcoa(D, correction=correction)
    assert res.correction == correction and constant > 0
    assert np.isclose(res.added_constant, constant, rtol=1e-9)
    values, coordinates, relative, stick = ape_pcoa(D_corrected)
    scale = values[0]
    assert np.allclose(res.eigenvalues, values, rtol=0, atol=1e-9 * scale)
    assert_same_axes(res.coordinates, coordinates, values, atol=1e-7 * np.sqrt(scale))
    assert np.allclose(res.proportion_explained, relative, rtol=1e-9)
    assert np.allclose(res.broken_stick, stick, rtol=1e-12)
    # Euclidean after the correction: smallest eigenvalue 0 (to round-off), the rest >= 0,
    # and the coordinates on the positive axes reproduce the corrected table
    assert res.eigenvalues.min() >= -1e-12 * scale and res.min_eigenvalue >= -1e-12 * scale
    assert np.allclose(squareform(pdist(res.coordinates)), D_corrected, atol=1e-7 * D_corrected.max())
    if correction == "lingoes":
        assert coordinates.shape[1] <= len(D) - 2  # beta_n and the eigenvalue on 1 become 0
    else:  # ape and vegan take the largest real part of all eigenvalues: the same number
        assert np.isclose(np.linalg.eigvals(cailliez_matrix(D)).real.max(), constant, rtol=1e-9)


def test_lingoes_shifts_every_eigenvalue_but_the_one_on_ones():
    """B' = B + c1 H: eigenvalues beta_j + c1 on the complement of 1, 0 on 1."""
    D = bray_curtis(seed=4)
    beta = np.linalg.eigvalsh(gram_explicit(D))              # ascending, one of them on 1
    res = pcoa(D, correction="lingoes")
    c1 = -beta[0]
    on_ones = np.argmin(np.abs(beta))                        # B 1 = 0: the zero eigenvalue
    expected = np.sort(np.r_[np.delete(beta, on_ones) + c1, 0.0])[::-1]
    assert np.allclose(res.eigenvalues, expected, rtol=0, atol=1e-12)


@settings(max_examples=25)
@given(st.integers(4, 14), st.integers(0, 2**32 - 1), st.sampled_from(["uniform", "braycurtis", "cityblock"]))
def test_cailliez_constant_is_the_smallest_that_makes_D_euclidean(n, seed, kind):
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        D = non_euclidean(seed % 1000, n)
    else:
        counts = rng.poisson(rng.uniform(0.5, 20.0, size=(n, 6))) + (np.arange(6) == 0)
        D = squareform(pdist(counts.astype(float), kind))
    B = gram_explicit(D)
    if np.linalg.eigvalsh(B)[0] > -1e-9 * np.abs(B).max():
        return  # already Euclidean: no correction to test
    c2 = pcoa(D, correction="cailliez").added_constant
    scale = np.linalg.eigvalsh(gram_explicit(D + c2 * off_diagonal(n)))[-1]
    at = smallest_on_complement_of_ones(gram_explicit(D + c2 * off_diagonal(n)))
    below = smallest_on_complement_of_ones(gram_explicit(D + (1 - 1e-6) * c2 * off_diagonal(n)))
    assert abs(at) <= 1e-11 * scale          # Euclidean, on the boundary
    assert below < 0                          # a slightly smaller constant is not enough
    above = np.linalg.eigvalsh(gram_explicit(D + 1.5 * c2 * off_diagonal(n)))
    assert above[0] >= -1e-11 * scale         # and every larger one is


def test_corrections_agree_with_skbio_on_the_corrected_distances():
    D = bray_curtis(seed=5)
    for correction, reference in (("lingoes", lingoes_reference), ("cailliez", cailliez_reference)):
        _, D_corrected = reference(D)
        ev, prop, coords = skbio_pcoa(D_corrected, 3)
        res = pcoa(D, k=3, correction=correction)
        assert np.allclose(res.eigenvalues, ev, rtol=1e-9)
        assert np.allclose(res.proportion_explained, prop, rtol=1e-9)
        assert np.allclose(align_signs(res.coordinates, coords), coords, atol=1e-8)


def test_star_constants_by_hand():
    """Hub at 1 from three leaves, leaves at 2 from each other. Lingoes: B has the
    eigenvalues 2, 2, 0, -1/4, so c1 = 1/4. Cailliez: with d + c the hub must lie at the
    circumradius (2 + c)/sqrt(3) of the leaves' triangle, 1 + c >= (2 + c)/sqrt(3), so
    c2 = (sqrt(3) - 1)/2, and both corrected configurations are planar."""
    lingoes = pcoa(STAR, correction="lingoes")
    cailliez = pcoa(STAR, correction="cailliez")
    assert np.isclose(lingoes.added_constant, 0.25, rtol=1e-12)
    assert np.isclose(cailliez.added_constant, (np.sqrt(3) - 1) / 2, rtol=1e-12)
    assert np.allclose(lingoes.eigenvalues, [2.25, 2.25, 0, 0], atol=1e-12)
    assert lingoes.coordinates.shape == cailliez.coordinates.shape == (4, 2)


def test_no_correction_for_euclidean_distances():
    D = squareform(pdist(euclidean_data(n=12)))
    plain = pcoa(D)
    for correction in ("lingoes", "cailliez"):
        res = pcoa(D, correction=correction)
        assert res.added_constant == 0.0 and res.correction == correction
        assert np.array_equal(res.coordinates, plain.coordinates)
        assert np.array_equal(res.eigenvalues, plain.eigenvalues)


def test_correction_with_k_and_float32():
    D = bray_curtis(seed=6)
    full = pcoa(D, correction="cailliez")
    part = pcoa(D.astype(np.float32), k=2, correction="cailliez")
    assert part.coordinates.dtype == np.float32 and part.eigenvalues.shape == (2,)
    assert np.isclose(part.added_constant, full.added_constant, rtol=1e-5)
    assert np.allclose(part.coordinates, full.coordinates[:, :2], atol=1e-5)


@pytest.mark.parametrize("correction", ["Lingoes", "additive", 1, np.float64(1.5)])
def test_rejects_unknown_correction(correction):
    with pytest.raises(ValueError, match="correction must be None, 'none', 'lingoes' or 'cailliez'") as caught:
        pcoa(STAR, correction=correction)
    assert "np." not in str(caught.value)


def test_correction_none_is_no_correction():
    """ape::pcoa's default spelling, correction="none", is accepted (it raised)."""
    res = pcoa(STAR, correction="none")
    assert res.correction is None and res.added_constant == 0.0 and res.uncorrected is None
    assert np.array_equal(res.eigenvalues, pcoa(STAR).eigenvalues)


# --- broken stick ---------------------------------------------------------------------


def test_broken_stick_closed_form():
    """b_j = (1/r) sum_{i=j}^r 1/i = (psi(r + 1) - psi(j)) / r (digamma), 0 beyond r."""
    from scipy.special import digamma

    X = euclidean_data(n=20, p=6)
    res = pcoa(squareform(pdist(X)), k=8, full_spectrum=True)
    r = 6
    j = np.arange(1, r + 1)
    expected = (digamma(r + 1) - digamma(j)) / r
    assert np.allclose(res.broken_stick[:r], expected, rtol=1e-12)
    assert np.all(res.broken_stick[r:] == 0.0) and res.broken_stick.shape == (8,)
    assert np.isclose(pcoa(squareform(pdist(X))).broken_stick.sum(), 1.0, rtol=1e-12)
    loop = [sum(1.0 / i for i in range(jj, r + 1)) / r for jj in j]
    assert np.allclose(res.broken_stick[:r], loop, rtol=1e-12)


def test_broken_stick_needs_the_full_spectrum_and_counts_the_lingoes_shifted_eigenvalues():
    """Without correction, a non-Euclidean D gets ape's stick: as many pieces as positive
    eigenvalues after the Lingoes shift (n - 2 here), not the positive eigenvalues of B."""
    D = bray_curtis()
    n = len(D)
    assert pcoa(D, k=2).broken_stick is None and pcoa(D, k=2).corrected_proportion is None
    res = pcoa(D)
    beta = np.linalg.eigvalsh(gram_explicit(D))
    assert int(np.sum(beta > 1e-12)) < n - 2                 # the old count: fewer pieces
    r = n - 2
    assert np.isclose(res.broken_stick[0], np.sum(1.0 / np.arange(1, r + 1)) / r, rtol=1e-12)
    k = res.coordinates.shape[1]
    assert np.allclose(res.broken_stick, [np.sum(1.0 / np.arange(j, r + 1)) / r for j in range(1, k + 1)],
                       rtol=1e-12)


# --- weights --------------------------------------------------------------------------


@settings(max_examples=25)
@given(st.integers(3, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_weights_follow_the_defining_formulas(n, seed, euclidean):
    rng = np.random.default_rng(seed)
    D = squareform(pdist(rng.normal(size=(n, 3)))) if euclidean else non_euclidean(seed % 1000, n)
    w = rng.uniform(0.2, 5.0, size=n)
    values, coordinates = weighted_reference(D, w)
    res = pcoa(D, weights=w)
    assert np.allclose(res.eigenvalues, values, rtol=0, atol=1e-10 * values[0])
    assert res.coordinates.shape == coordinates.shape
    assert np.allclose(align_signs(res.coordinates, coordinates), coordinates, atol=1e-7 * np.sqrt(values[0]))
    total = w @ (D**2) @ w / (2 * w.sum())
    assert np.isclose(res.total_inertia, total, rtol=1e-10) and np.isclose(values.sum(), total, rtol=1e-10)
    assert np.array_equal(res.weights, w)


@pytest.mark.parametrize("make", [bray_curtis, lambda: squareform(pdist(euclidean_data(n=10)))], ids=["bray-curtis", "euclidean"])
def test_integer_weights_equal_repeated_objects(make):
    D = make()
    n = len(D)
    w = np.random.default_rng(3).integers(1, 4, size=n)
    repeated = np.repeat(np.repeat(D, w, axis=0), w, axis=1)   # object i, w_i times
    first = np.r_[0, np.cumsum(w)[:-1]]                           # index of each first copy
    res = pcoa(D, weights=w)
    rep = pcoa(repeated)
    k = res.coordinates.shape[1]
    assert rep.coordinates.shape[1] == k
    assert np.allclose(res.eigenvalues[:k], rep.eigenvalues[:k], rtol=1e-9)
    assert np.allclose(res.coordinates, rep.coordinates[first], atol=1e-9)  # same signs too
    assert np.isclose(res.total_inertia, rep.total_inertia, rtol=1e-12)
    assert np.allclose(res.proportion_explained, rep.proportion_explained[:k], rtol=1e-9)
    assert np.isclose(res.negative_share, rep.negative_share, rtol=1e-8, atol=1e-15)


def test_weights_on_euclidean_distances_give_weighted_pca_scores():
    X = euclidean_data(n=25, p=4)
    w = np.random.default_rng(1).uniform(0.5, 3.0, size=25)
    Xc = X - w @ X / w.sum()
    lam, V = np.linalg.eigh(Xc.T @ (w[:, None] * Xc))
    scores = Xc @ V[:, ::-1]
    res = pcoa(squareform(pdist(X)), weights=w)
    assert np.allclose(res.eigenvalues[:4], lam[::-1], rtol=1e-10)
    assert np.allclose(align_signs(res.coordinates, scores), scores, atol=1e-9)


def test_equal_weights_scale_the_eigenvalues_only():
    """vegan keeps the weights as given: weights c * 1 count each object c times."""
    D = bray_curtis(seed=8)
    plain = pcoa(D)
    tripled = pcoa(D, weights=np.full(len(D), 3.0))
    assert np.allclose(tripled.eigenvalues, 3 * plain.eigenvalues, rtol=1e-10, atol=1e-14)
    assert np.allclose(tripled.coordinates, plain.coordinates, atol=1e-10)
    assert np.allclose(tripled.proportion_explained, plain.proportion_explained, rtol=1e-10)


def test_weights_and_correction_use_the_unweighted_constant():
    """Euclidean or not does not depend on the weights: the constant is B's, then the
    corrected D' is analysed with weights (as vegan::wcmdscale(add=) does)."""
    D = bray_curtis(seed=9)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(D))
    for correction, reference in (("lingoes", lingoes_reference), ("cailliez", cailliez_reference)):
        constant, D_corrected = reference(D)
        res = pcoa(D, correction=correction, weights=w)
        assert np.isclose(res.added_constant, constant, rtol=1e-9)
        values, coordinates = weighted_reference(D_corrected, w)
        assert np.allclose(res.eigenvalues[: len(values)], values, atol=1e-9 * values[0])
        assert np.allclose(align_signs(res.coordinates, coordinates), coordinates, atol=1e-7)


@pytest.mark.parametrize(
    "weights, exc, words",
    [(np.ones(3), ValueError, r"weights must have shape \(4,\)"),
     (np.ones((4, 1)), ValueError, "weights must have shape"),
     ([1.0, 0.0, 1.0, 1.0], ValueError, r"finite and positive, got weights\[1\] = 0.0"),
     ([1.0, 1.0, -2.0, 1.0], ValueError, r"weights\[2\] = -2.0"),
     ([1.0, 1.0, 1.0, np.nan], ValueError, r"weights\[3\] = nan"),
     (["a", "b", "c", "d"], TypeError, "weights must hold real numbers"),
     ([True, True, True, True], TypeError, "weights must hold real numbers")],
)
def test_rejects_bad_weights(weights, exc, words):
    with pytest.raises(exc, match=words):
        pcoa(STAR, weights=weights)


# --- adding points (Gower 1968) -------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("make", [bray_curtis, non_euclidean, lambda: squareform(pdist(euclidean_data(n=15)))],
                         ids=["bray-curtis", "uniform", "euclidean"])
def test_transform_gives_back_the_original_objects(make, weighted):
    D = make()
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(D)) if weighted else None
    res = pcoa(D, k=len(D) - 1, weights=w)       # includes axes with beta <= 0 when there are
    placed = res.transform(D)
    assert placed.shape == res.coordinates.shape
    assert np.allclose(placed, res.coordinates, atol=1e-9 * np.abs(res.coordinates).max())


def test_transform_gives_the_pca_scores_of_new_points():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(30, 4)) * [5.0, 3.0, 1.5, 0.5] + 7.0
    X_new = rng.normal(size=(6, 4)) * 4.0 + 7.0
    res = pcoa(squareform(pdist(X)), k=3)
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    train = (X - mean) @ Vt[:3].T
    signs = np.where(np.sum(res.coordinates * train, axis=0) < 0, -1.0, 1.0)
    expected = (X_new - mean) @ Vt[:3].T * signs
    from scipy.spatial.distance import cdist

    assert np.allclose(res.transform(cdist(X_new, X)), expected, atol=1e-9 * np.abs(expected).max())


def test_weighted_transform_gives_weighted_pca_scores_of_new_points():
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(12)
    X, X_new = rng.normal(size=(20, 3)) * [3.0, 2.0, 1.0], rng.normal(size=(4, 3))
    w = rng.uniform(0.5, 3.0, size=20)
    mean = w @ X / w.sum()
    _, V = np.linalg.eigh((X - mean).T @ (w[:, None] * (X - mean)))
    V = V[:, ::-1]
    res = pcoa(squareform(pdist(X)), weights=w)
    signs = np.where(np.sum(res.coordinates * ((X - mean) @ V), axis=0) < 0, -1.0, 1.0)
    assert np.allclose(res.transform(cdist(X_new, X)), (X_new - mean) @ V * signs, atol=1e-9)


@pytest.mark.parametrize("correction", ["lingoes", "cailliez"])
def test_transform_applies_the_correction_to_new_dissimilarities(correction):
    """A point z of the corrected (Euclidean) map, with corrected dissimilarities
    |z - y_i| to the objects, is given uncorrected dissimilarities by inverting the
    correction; transform must place it at z."""
    D = bray_curtis(seed=10)
    res = pcoa(D, correction=correction)
    Y, c = res.coordinates, res.added_constant
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3, Y.shape[1])) * 2 * np.abs(Y).max()         # far from the cloud
    corrected = np.linalg.norm(z[:, None, :] - Y[None, :, :], axis=2)
    original = np.sqrt(corrected**2 - 2 * c) if correction == "lingoes" else corrected - c
    assert original.min() > 0
    assert np.allclose(res.transform(original), z, atol=1e-8 * np.abs(z).max())


def test_transform_at_extreme_scales_and_float32():
    D = bray_curtis(seed=2)
    res = pcoa(D, k=3)
    for scale in (1e-200, 1e200):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # eigenvalues overflow: expected
            scaled = pcoa(D * scale, k=3)
        assert np.allclose(scaled.transform(D[:4] * scale) / scale, res.coordinates[:4], atol=1e-12)
    r32 = pcoa(D.astype(np.float32), k=3)
    out = r32.transform(D[:4].astype(np.float32))
    assert out.dtype == np.float32 and np.allclose(out, res.coordinates[:4], atol=1e-5)


def test_transform_does_not_modify_input_and_validates():
    res = pcoa(bray_curtis(n=8), k=2)
    D_new = np.abs(np.random.default_rng(0).normal(size=(2, 8)))
    before = D_new.copy()
    res.transform(D_new)
    assert np.array_equal(D_new, before)
    with pytest.raises(ValueError, match=r"one column per original object, n = 8, got shape \(2, 7\)"):
        res.transform(D_new[:, :7])
    with pytest.raises(ValueError, match="D_new_to_old must be a 2-D"):
        res.transform(D_new[0])
    negative = D_new.copy()
    negative[0, 1] = -0.5
    with pytest.raises(ValueError, match=r"non-negative: D_new_to_old\[0, 1\] = -0.5"):
        res.transform(negative)
    with pytest.raises(ValueError, match="NaN"):
        res.transform(np.full((1, 8), np.nan))
    with pytest.raises(TypeError, match="D_new_to_old must hold real numbers"):
        res.transform(np.full((1, 8), "a"))


def test_transform_of_an_all_zero_map():
    res = pcoa(np.zeros((3, 3)), k=2)
    assert np.array_equal(res.transform(np.ones((2, 3))), np.zeros((2, 2)))


# --- projecting variables (ape::biplot.pcoa) ------------------------------------------


def ape_biplot(X, coordinates, eigenvalues):
    """ape::biplot.pcoa: S = cov(Y, scale(points)); U = S diag((eig/(n-1))^-1/2)."""
    n = len(X)
    points = (coordinates - coordinates.mean(axis=0)) / coordinates.std(axis=0, ddof=1)
    S = (X - X.mean(axis=0)).T @ points / (n - 1)
    return S @ np.diag((eigenvalues / (n - 1)) ** -0.5)


def test_project_variables_matches_ape_biplot():
    rng = np.random.default_rng(4)
    counts = rng.poisson(rng.gamma(0.7, 4.0, size=8), size=(25, 8)) + 1
    D = squareform(pdist(counts, "braycurtis"))
    res = pcoa(D, k=3)
    arrows = res.project_variables(counts)
    assert arrows.shape == (8, 3)
    assert np.allclose(arrows, ape_biplot(counts, res.coordinates, res.eigenvalues), rtol=1e-10, atol=1e-12)


def test_project_variables_gives_the_axes_for_euclidean_distances():
    X = euclidean_data(n=20, p=4)
    res = pcoa(squareform(pdist(X)), k=3)
    _, _, Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    V = Vt[:3].T
    arrows = res.project_variables(X)
    assert np.allclose(align_signs(arrows, V), V, atol=1e-10)
    # the signs are those of the map: arrows and coordinates flip together
    assert np.allclose((X - X.mean(axis=0)) @ arrows, res.coordinates, atol=1e-9)


def test_project_variables_weighted_gives_weighted_axes():
    X = euclidean_data(n=20, p=3)
    w = np.random.default_rng(5).uniform(0.5, 2.0, size=20)
    mean = w @ X / w.sum()
    res = pcoa(squareform(pdist(X)), weights=w)
    arrows = res.project_variables(X)
    assert np.allclose(arrows.T @ arrows, np.eye(3), atol=1e-10)        # orthonormal axes
    assert np.allclose((X - mean) @ arrows, res.coordinates, atol=1e-9)


# --- published values of ape 5.7 (R 4.2) ------------------------------------------------
#
# Ten sites, five species (the counts below: rng = np.random.default_rng(4);
# rng.poisson(rng.gamma(0.7, 4.0, size=5), size=(10, 5)) + 1), Bray-Curtis, and in R:
#   library(ape); X <- as.matrix(read.csv("counts.csv", header=FALSE)); n <- nrow(X)
#   D <- outer(1:n, 1:n, Vectorize(function(i, j)
#          sum(abs(X[i,] - X[j,])) / sum(X[i,] + X[j,])))
#   r <- pcoa(D, correction=corr)        # corr = "none", "lingoes", "cailliez"
#   r$values; r$vectors.cor[1:3, 1:2]
#   # the arrows of biplot.pcoa(r, X): biplot.pcoa itself, its last line replaced by
#   # return(U) (body(f)[[length(body(f))]] <- quote(return(U))); its own lines are
#   pr.coo <- r$vectors; if (r$correction[2] > 1) pr.coo <- r$vectors.cor
#   S <- cov(X, scale(pr.coo[, 1:2]))
#   S %*% diag((r$values$Eigenvalues[1:2] / (n - 1))^(-0.5))

APE_COUNTS = np.array([[11, 5, 8, 12, 8], [11, 1, 8, 11, 8], [14, 4, 5, 6, 10], [11, 2, 7, 12, 10],
                       [19, 6, 9, 11, 10], [10, 2, 7, 15, 11], [17, 6, 7, 7, 11], [11, 3, 4, 15, 9],
                       [13, 5, 5, 10, 12], [8, 3, 5, 9, 7]], dtype=float)
APE_EIGENVALUES = [0.062371427946771911, 0.032916052671074614, 0.016446084825105230,
                   0.006693903269676580, 0.004640667863556876, 0.001118157777499156, 0.0,
                   -0.000525439009388318, -0.001372762348742690, -0.005214097565762881]
APE_REL_CORR_EIG_NONE = [0.4121046678669673, 0.2324996777032554, 0.1320735794008308,
                         0.0726093744486489, 0.0600897130466712, 0.0386111074123386]
APE_BROKEN_STICK_8 = [0.3397321428571429, 0.2147321428571428, 0.1522321428571428,
                      0.1105654761904762, 0.0793154761904762, 0.0543154761904762,
                      0.0334821428571429, 0.0156250000000000]
APE_CORR_EIG = {"lingoes": [0.06758552551253481, 0.03813015023683750, 0.02166018239086810,
                            0.01190800083543946, 0.00985476542931977, 0.00633225534326203,
                            0.00468865855637456, 0.00384133521702018],
                "cailliez": [0.09877818630545054, 0.05605734411539440, 0.03356744167060469,
                             0.01705889540377711, 0.01420011813060184, 0.01081384416928688,
                             0.00717548309297057, 0.00476878921318274]}
APE_REL_CORR_EIG = {"lingoes": [0.4121046678669674, 0.2324996777032554, 0.1320735794008307,
                                0.0726093744486488, 0.0600897130466712, 0.0386111074123385,
                                0.0285892291650228, 0.0234226509562641],
                    "cailliez": [0.4074669775701472, 0.2312404937936084, 0.1384680617640454,
                                 0.0703691453634109, 0.0585764877067409, 0.0446078690486216,
                                 0.0295993732812350, 0.0196715914721899]}
APE_VECTORS_COR = {"lingoes": [[-0.0263089036207970, -0.0382572181798827],
                               [-0.0661734587445759, -0.0459285507296856],
                               [0.0807353034149542, 0.0935486002702037]],
                   "cailliez": [[-0.0364469551179136, -0.0474256029359371],
                                [-0.0828444010640236, -0.0529188552081998],
                                [0.1034476415529705, 0.1078781049482542]]}
# biplot.pcoa's arrows without a correction. After one it standardizes the corrected
# coordinates (r$vectors.cor) but divides by the uncorrected r$values$Eigenvalues. The
# Lingoes correction keeps the eigenvectors, so its arrows are these to 1e-14; the
# Cailliez correction does not, and its arrows are neither the corrected map's nor these.
APE_BIPLOT = [[36.67627995456212, -15.48743580788326], [17.05832311147205, 1.41638064402953],
              [4.93193937126334, -20.91180583947998], [-23.77376362402004, -29.54179100598856],
              [10.83565262193189, -4.53286887597470]]
APE_BIPLOT_CORRECTED = {
    "lingoes": APE_BIPLOT,
    "cailliez": [[36.183015832166554, -17.9559329549822593], [17.186153823410272, 0.2900737366671681],
                 [4.111232127993815, -21.3536111034211018], [-24.777185136750752, -27.3836573126914686],
                 [10.584204601206050, -5.1583700741746545]],
}


def test_uncorrected_analysis_matches_ape_published_values():
    """ape::pcoa(D) of a non-Euclidean D: Eigenvalues, Relative_eig = pcalib's
    proportion_explained, Rel_corr_eig (the Lingoes-shifted proportions, new in pcalib)
    and Broken_stick over the n - 2 = 8 pieces of Rel_corr_eig (pcalib broke it into the
    6 positive eigenvalues: 0.408 where ape has 0.340)."""
    D = pdist(APE_COUNTS, "braycurtis")
    res = pcoa(D)
    assert np.allclose(res.eigenvalues, APE_EIGENVALUES, rtol=0, atol=1e-15)
    assert np.allclose(res.proportion_explained, res.eigenvalues[:6] / np.sum(APE_EIGENVALUES), rtol=1e-12)
    assert np.allclose(res.corrected_proportion, APE_REL_CORR_EIG_NONE, rtol=1e-12)
    assert np.allclose(res.broken_stick, APE_BROKEN_STICK_8[:6], rtol=1e-12)
    assert np.allclose(align_signs(res.project_variables(APE_COUNTS)[:, :2], np.array(APE_BIPLOT)),
                       APE_BIPLOT, rtol=1e-10)


@pytest.mark.parametrize("correction", ["lingoes", "cailliez"])
def test_corrected_analysis_and_its_uncorrected_pair_match_ape_published_values(correction):
    """ape::pcoa(D, correction): Corr_eig, Rel_corr_eig and vectors.cor are the corrected
    analysis; Eigenvalues and vectors (the uncorrected ones) are pcalib's `uncorrected`.
    ape::biplot.pcoa draws the corrected map with arrows divided by the uncorrected
    eigenvalues: project_variables rescaled by sqrt(corrected / uncorrected eigenvalue),
    which after Lingoes (same eigenvectors) is uncorrected.project_variables."""
    res = pcoa(pdist(APE_COUNTS, "braycurtis"), correction=correction)
    assert np.allclose(res.eigenvalues[:8], APE_CORR_EIG[correction], rtol=1e-12)
    assert np.allclose(res.proportion_explained, APE_REL_CORR_EIG[correction], rtol=1e-12)
    assert np.array_equal(res.corrected_proportion, res.proportion_explained)
    assert np.allclose(res.broken_stick, APE_BROKEN_STICK_8, rtol=1e-12)
    corrected = np.array(APE_VECTORS_COR[correction])
    assert np.allclose(align_signs(res.coordinates[:3, :2], corrected), corrected, rtol=1e-10)
    assert res.uncorrected.correction is None and res.uncorrected.uncorrected is None
    assert np.allclose(res.uncorrected.eigenvalues, APE_EIGENVALUES, rtol=0, atol=1e-15)
    ape_arrows = np.array(APE_BIPLOT_CORRECTED[correction])
    rescaled = res.project_variables(APE_COUNTS)[:, :2] * np.sqrt(res.eigenvalues[:2] / APE_EIGENVALUES[:2])
    assert np.allclose(align_signs(rescaled, ape_arrows), ape_arrows, rtol=1e-10)
    uncorrected = res.uncorrected.project_variables(APE_COUNTS)[:, :2]
    assert np.allclose(align_signs(uncorrected, np.array(APE_BIPLOT)), APE_BIPLOT, rtol=1e-10)
    assert np.allclose(np.abs(uncorrected), np.abs(ape_arrows), rtol=1e-10) == (correction == "lingoes")
    # the corrected map's own arrows differ from ape's biplot
    assert not np.allclose(np.abs(res.project_variables(APE_COUNTS)[:, :2]), np.abs(ape_arrows), rtol=0.01)


@pytest.mark.parametrize("correction", ["lingoes", "cailliez"])
def test_project_variables_after_a_correction_is_ape_biplot_of_the_corrected_table(correction):
    """The corrected map's arrows: biplot.pcoa's recipe on the corrected coordinates and
    eigenvalues, i.e. ape::biplot.pcoa(ape::pcoa(D')) for the corrected table D'."""
    rng = np.random.default_rng(6)
    counts = rng.poisson(rng.gamma(0.7, 4.0, size=6), size=(20, 6)) + 1
    D = squareform(pdist(counts, "braycurtis"))
    _, D_corrected = REFERENCES[correction](D)
    values, coordinates, _, _ = ape_pcoa(D_corrected)
    res = pcoa(D, k=2, correction=correction)
    expected = ape_biplot(counts, coordinates[:, :2], values[:2])
    assert np.allclose(align_signs(res.project_variables(counts), expected), expected, rtol=1e-8)
    plain = pcoa(D, k=2)
    assert np.array_equal(res.uncorrected.coordinates, plain.coordinates)
    assert np.allclose(res.uncorrected.project_variables(counts),
                       ape_biplot(counts, plain.coordinates, plain.eigenvalues), rtol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
def test_corrected_proportion_is_the_proportion_after_a_lingoes_correction(weighted):
    """Rel_corr_eig without correction equals the proportions of the Lingoes-corrected
    analysis (weighted too), and adds up to 1 over the axes."""
    D = bray_curtis(seed=11, n=14)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=14) if weighted else None
    plain = pcoa(D, weights=w)
    assert plain.eigenvalues.min() < 0
    c1, D_lingoes = lingoes_reference(D)
    if weighted:
        values, _ = weighted_reference(D_lingoes, w)
        total = w @ (D_lingoes**2) @ w / (2 * w.sum())
    else:
        values = np.linalg.eigvalsh(gram_explicit(D_lingoes))[::-1]
        total = (D_lingoes**2).sum() / (2 * len(D))
    k = plain.coordinates.shape[1]
    assert np.allclose(plain.corrected_proportion, values[:k] / total, rtol=1e-9)
    lingoes = pcoa(D, correction="lingoes", weights=w)
    assert np.allclose(plain.corrected_proportion, lingoes.proportion_explained[:k], rtol=1e-9)
    full = pcoa(D, k=len(D), weights=w, full_spectrum=True)
    assert np.isclose(full.corrected_proportion.sum(), 1.0, rtol=1e-12)


@pytest.mark.parametrize("correction", ["lingoes", "cailliez"])
def test_transform_of_the_map_own_objects_after_a_correction_shrinks_them(correction):
    """Each object placed from its own row of D lands at y_lj (1 - c1/beta_j) (Lingoes) or
    y_lj (1 - c2^2/(2 beta_j)) (Cailliez), beta_j corrected: the correction turns its
    dissimilarity 0 to itself into sqrt(2 c1) or c2. Derived in the docstring; checked
    here against the columns of the corrected map."""
    D = bray_curtis()                                # several negative eigenvalues
    res = pcoa(D, correction=correction)
    c, beta = res.added_constant, res.eigenvalues[: res.coordinates.shape[1]]
    factor = 1 - c / beta if correction == "lingoes" else 1 - c**2 / (2 * beta)
    placed = res.transform(D)
    assert np.allclose(placed, res.coordinates * factor, atol=1e-10 * np.abs(res.coordinates).max())
    assert np.all(factor < 1) and factor[-1] < 0.9 * factor[0]
    if correction == "lingoes":   # uncorrected / corrected eigenvalue; < 0 reflects
        n = len(D)
        Q = np.linalg.qr(np.c_[np.ones(n), np.eye(n)[:, : n - 1]])[0][:, 1:]   # basis of 1-perp
        unc = np.linalg.eigvalsh(Q.T @ gram_explicit(D) @ Q)[::-1][: len(beta)]
        assert np.allclose(factor, unc / (unc + c), rtol=1e-9)
        assert np.array_equal(factor < 0, unc < 0) and factor.min() < 0 < factor.max()


# --- the forms D may take -----------------------------------------------------------------


def test_condensed_distance_vector_is_accepted():
    """pdist's condensed vector in, the same analysis as its square form (it raised)."""
    counts = np.random.default_rng(3).poisson(6.0, size=(9, 5)) + 1
    v = pdist(counts, "braycurtis")
    before = v.copy()
    res = pcoa(v, correction="cailliez")
    square = pcoa(squareform(v), correction="cailliez")
    assert np.array_equal(res.coordinates, square.coordinates)
    assert np.array_equal(res.eigenvalues, square.eigenvalues)
    assert np.array_equal(v, before)
    assert pcoa([3.0, 4.0, 5.0]).coordinates.shape == (3, 2)     # a list of 3 = n(n-1)/2
    with pytest.raises(ValueError, match=r"must be non-negative: D\[0, 2\] = -4.0$"):
        pcoa([3.0, -4.0, 5.0])


def test_skbio_distance_matrix_is_accepted_with_its_ids():
    skbio = pytest.importorskip("skbio")
    D = bray_curtis(n=8)
    ids = [f"plot{i}" for i in range(8)]
    res = pcoa(skbio.DistanceMatrix(D, ids=ids), k=3)
    assert list(res.labels) == ids and list(res.to_frame().index) == ids
    assert np.array_equal(res.coordinates, pcoa(D, k=3).coordinates)


def test_skbio_is_not_imported_at_runtime():
    import subprocess

    code = (
        "import sys, numpy as np, pcalib\n"
        "class Table:\n"
        "    ids = ('a', 'b', 'c')\n"
        "    data = np.array([[0, 3, 4], [3, 0, 5], [4, 5, 0]], float)\n"
        "r = pcalib.pcoa(Table())\n"
        "assert list(r.labels) == ['a', 'b', 'c'], r.labels\n"
        "assert 'skbio' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("D, text", [
    (np.array([[0.0, -1.0], [-1.0, 0.0]]), "D[0, 1] = -1.0"),
    (np.array([[0.0, 1.0], [2.0, 0.0]]), "D[0, 1] = 1.0 but D[1, 0] = 2.0"),
    (np.array([[0.5, 1.0], [1.0, 0.0]]), "D[0, 0] = 0.5"),
])
def test_error_messages_show_plain_numbers(D, text):
    """NumPy 2 writes np.float64(-1.0) for repr of its scalars: messages use floats."""
    with pytest.raises(ValueError) as caught:
        pcoa(D)
    assert text in str(caught.value) and "np." not in str(caught.value)


def test_project_variables_validates():
    res = pcoa(bray_curtis(n=8), k=2)
    with pytest.raises(ValueError, match=r"one row per object of the map, n = 8, got shape \(7, 3\)"):
        res.project_variables(np.ones((7, 3)))
    with pytest.raises(ValueError, match="X contains NaN"):
        res.project_variables(np.full((8, 2), np.nan))


# --- pandas ---------------------------------------------------------------------------


def labelled(D, names=None):
    import pandas as pd

    names = names or [f"site{i}" for i in range(len(D))]
    return pd.DataFrame(D, index=names, columns=names)


def test_dataframe_labels_and_to_frame():
    D = bray_curtis(n=10)
    frame = labelled(D)
    res = pcoa(frame, k=3)
    assert list(res.labels) == list(frame.index)
    out = res.to_frame()
    assert list(out.index) == list(frame.index) and list(out.columns) == ["PCo1", "PCo2", "PCo3"]
    assert np.array_equal(out.to_numpy(), res.coordinates)
    assert np.array_equal(res.coordinates, pcoa(D, k=3).coordinates)
    assert pcoa(D, k=2).labels is None and list(pcoa(D, k=2).to_frame().index) == list(range(10))


def test_dataframe_columns_are_aligned_by_label():
    D = bray_curtis(n=8)
    frame = labelled(D)
    shuffled = frame[frame.columns[::-1]]                       # same objects, other order
    assert np.array_equal(pcoa(shuffled).coordinates, pcoa(frame).coordinates)
    other = frame.rename(columns={"site0": "elsewhere"})
    with pytest.raises(ValueError, match="columns of D must be the labels"):
        pcoa(other)
    with pytest.raises(ValueError, match="labels of D must be unique"):
        pcoa(labelled(D, ["a"] * 8))


def test_dataframe_with_labels_only_on_the_columns():
    import pandas as pd

    D = bray_curtis(n=6)
    names = list("abcdef")
    res = pcoa(pd.DataFrame(D, columns=names))
    assert list(res.labels) == names


def test_weights_series_is_aligned_by_label():
    import pandas as pd

    D = bray_curtis(n=8)
    frame = labelled(D)
    w = np.arange(1.0, 9.0)
    series = pd.Series(w, index=frame.index)[::-1]               # reversed order
    assert np.array_equal(pcoa(frame, weights=series).coordinates, pcoa(D, weights=w).coordinates)
    with pytest.raises(ValueError, match="weights has no entry for the objects"):
        pcoa(frame, weights=series.iloc[1:])


def test_transform_and_project_variables_with_dataframes():
    import pandas as pd

    rng = np.random.default_rng(7)
    counts = rng.poisson(5.0, size=(10, 4)) + 1
    names = [f"s{i}" for i in range(10)]
    D = squareform(pdist(counts, "braycurtis"))
    res = pcoa(labelled(D, names), k=2)
    new = pd.DataFrame(D[:3], index=["n1", "n2", "n3"], columns=names)[names[::-1]]
    placed = res.transform(new)
    assert list(placed.index) == ["n1", "n2", "n3"] and list(placed.columns) == ["PCo1", "PCo2"]
    assert np.allclose(placed.to_numpy(), res.coordinates[:3], atol=1e-12)
    species = pd.DataFrame(counts, index=names, columns=list("ABCD")).iloc[::-1]
    arrows = res.project_variables(species)
    assert list(arrows.index) == list("ABCD")
    assert np.allclose(arrows.to_numpy(), res.project_variables(counts), atol=1e-12)
    with pytest.raises(ValueError, match="columns of D_new_to_old must be the labels"):
        res.transform(pd.DataFrame(D[:1], columns=[f"x{i}" for i in range(10)]))


def test_pcalib_does_not_import_pandas_for_numpy_input():
    import subprocess

    code = (
        "import sys, numpy as np, pcalib\n"
        "D = np.array([[0, 1, 2], [1, 0, 1.5], [2, 1.5, 0]])\n"
        "r = pcalib.pcoa(D, correction='cailliez', weights=[1, 2, 3])\n"
        "r.transform(D[:1]); r.project_variables(np.eye(3)); r.broken_stick\n"
        "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- scale (issue 10) -----------------------------------------------------------------


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-100, 1e100, 1e200, 1e300])
@pytest.mark.parametrize("correction", [None, "lingoes", "cailliez"])
def test_right_at_any_representable_scale(scale, correction):
    """Regression (issue 10): pcoa(D * 1e-200) returned 0 axes and inertia 0, and
    pcoa(D * 1e200) raised LAPACK's 'Eigenvalues did not converge'."""
    D = bray_curtis(seed=3)
    res = pcoa(D, correction=correction)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaled = pcoa(D * scale, correction=correction)
    assert scaled.coordinates.shape == res.coordinates.shape
    assert np.allclose(scaled.coordinates / scale, res.coordinates, rtol=0, atol=1e-12)
    assert np.allclose(scaled.proportion_explained, res.proportion_explained, rtol=1e-12)
    assert np.isclose(scaled.negative_share, res.negative_share, rtol=1e-10, atol=1e-15)
    assert np.allclose(scaled.broken_stick, res.broken_stick, rtol=1e-12)
    if correction == "cailliez":
        assert np.isclose(scaled.added_constant / scale, res.added_constant, rtol=1e-9)
    if abs(np.log10(scale)) < 145:                # eigenvalues (squares) representable
        assert not caught
        assert np.allclose(scaled.eigenvalues / scale / scale, res.eigenvalues, rtol=0, atol=1e-12)
        assert np.isclose(scaled.total_inertia / scale / scale, res.total_inertia, rtol=1e-12)
    else:                                         # not representable: said, never nan
        assert len(caught) == 1 and issubclass(caught[0].category, RuntimeWarning)
        assert "eigenvalues" in str(caught[0].message) and "total_inertia" in str(caught[0].message)
        big = scale > 1
        assert np.all(np.isinf(scaled.eigenvalues[res.eigenvalues != 0]) == big)
        assert not np.any(np.isnan(scaled.eigenvalues)) and not np.isnan(scaled.total_inertia)


def test_float32_overflow_of_eigenvalues_is_reported():
    D = (bray_curtis(seed=3) * 1e30).astype(np.float32)
    with pytest.warns(RuntimeWarning, match="eigenvalues.* not representable in float32"):
        res = pcoa(D, k=2)
    assert np.all(np.isinf(res.eigenvalues)) and np.all(np.isfinite(res.coordinates))
    assert np.allclose(res.coordinates / 1e30, pcoa(bray_curtis(seed=3), k=2).coordinates, atol=1e-5)


@pytest.mark.parametrize("n, k", [(4, None), (4, 2), (600, 2)])
def test_all_zero_distances_give_a_clear_result_without_warnings(n, k):
    """Regression (issue 10): a spurious RuntimeWarning on an all-zero PCoA (the Krylov
    route divided 0 by 0). Every object at the same place: every eigenvalue, coordinate
    and proportion is exactly 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pcoa(np.zeros((n, n)), k=k)
        assert np.array_equal(res.eigenvalues, np.zeros(res.eigenvalues.shape))
        assert not np.any(np.signbit(res.eigenvalues))
        assert res.coordinates.shape == (n, k or 0) and not np.any(res.coordinates)
        assert np.array_equal(res.proportion_explained, np.zeros(k or 0))
        assert res.total_inertia == 0.0 and res.added_constant == 0.0
        if res.full_spectrum:
            assert res.negative_share == 0.0 and res.broken_stick.shape == (0,)
        assert pcoa(np.zeros((n, n)), k=k, correction="cailliez").added_constant == 0.0


# --- pcalib.plot with a PCoAResult ------------------------------------------------------


def test_scree_of_a_pcoa_result_shows_every_eigenvalue_with_its_sign():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pcalib import plot

    D = bray_curtis(seed=2, n=12)
    res = pcoa(D)
    beta = np.linalg.eigvalsh(gram_explicit(D))[::-1]
    ax = plot.scree(res)
    x, y = ax.lines[0].get_data()
    assert np.array_equal(x, np.arange(1, 13)) and np.allclose(y, beta, atol=1e-12)
    assert y.min() < 0 and ax.get_ylabel() == r"eigenvalue $\beta_j$"
    ax = plot.scree(res, ratio=True)
    assert np.allclose(ax.lines[0].get_ydata(), beta / ((D**2).sum() / 24), atol=1e-12)
    plt.close("all")


def test_biplot_of_a_pcoa_result_with_labels_and_arrows():
    pytest.importorskip("matplotlib")
    pd = pytest.importorskip("pandas")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pcalib import plot

    rng = np.random.default_rng(7)
    counts = rng.poisson(5.0, size=(10, 4)) + 1
    names = [f"s{i}" for i in range(10)]
    D = squareform(pdist(counts, "braycurtis"))
    res = pcoa(pd.DataFrame(D, index=names, columns=names), k=2)
    species = pd.DataFrame(counts, index=names, columns=list("ABCD"))
    ax = plot.biplot(res, data=species, sample_labels=True)
    points = ax.collections[0].get_offsets()
    assert np.allclose(points, res.coordinates)
    from matplotlib.text import Annotation

    plain = [t.get_text() for t in ax.texts if not isinstance(t, Annotation)]
    assert plain == list("ABCD")                                    # arrow labels
    annotations = [t for t in ax.texts if isinstance(t, Annotation)]
    written = [a.get_text() for a in annotations if a.get_text()]
    assert written == names                                        # one label per site
    arrows = np.array([a.xy for a in annotations if not a.get_text()])
    expected = res.project_variables(counts)
    scale = arrows[:, 0] / expected[:, 0]
    assert np.allclose(arrows, scale[0] * expected) and scale[0] > 0
    assert ax.get_xlabel().startswith("PCo1 (") and ax.get_title() == "PCoA biplot"
    ax = plot.biplot(res)                                           # the map alone
    assert not ax.texts
    with pytest.raises(ValueError, match="sample_labels must have 10 entries"):
        plot.biplot(res, sample_labels=["a"])
    with pytest.raises(TypeError, match="components is not used with a PCoAResult"):
        plot.biplot(res, np.eye(2))
    plt.close("all")


@settings(max_examples=30)
@given(st.integers(4, 14), st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_corrected_proportion_with_duplicated_objects(n, seed, duplicates):
    """Duplicated objects add zero eigenvalues beside the one on 1; the Lingoes-shifted
    spectrum (without a second eigendecomposition) is still that of B + c1 H."""
    D = non_euclidean(seed % 1000, n)
    keep = np.r_[np.arange(n), np.arange(min(duplicates, n))]
    D = D[np.ix_(keep, keep)]
    m = len(D)
    beta = np.linalg.eigvalsh(gram_explicit(D))
    if beta[0] > -1e-9 * beta[-1]:
        return
    H = np.eye(m) - 1.0 / m
    shifted = np.linalg.eigvalsh(gram_explicit(D) - beta[0] * H)[::-1]
    res = pcoa(D, k=m, full_spectrum=True)
    total = np.trace(gram_explicit(D)) - (m - 1) * beta[0]
    assert np.allclose(res.corrected_proportion, shifted / total, rtol=0, atol=1e-12)

"""Tests of the results of the chapter "Principal coordinates" (book/08_pcoa.md).

Notation of the chapter: D = (d_ij) the distance matrix, D^(2) its entrywise square,
B = -1/2 H D^(2) H with eigenvalues beta_1 >= ... >= beta_n and orthonormal eigenvectors
u_j (the left singular vectors of X_c when D holds the Euclidean distances of the rows
of X).

Independent routes: distances from scipy.spatial.distance, the centering matrix and
eigendecompositions written out with NumPy, the SVD of the centered data, and
scikit-bio's and scikit-learn's implementations.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist, squareform

import pcalib

theorem = pytest.mark.theorem


@st.composite
def point_clouds(draw, max_n=25, max_p=6):
    """n x p data with distinct scales per column and an arbitrary offset."""
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, max_p))
    seed = draw(st.integers(0, 2**32 - 1))
    offset = draw(st.sampled_from([0.0, 1.0, 1e3]))
    rng = np.random.default_rng(seed)
    scales = rng.uniform(0.2, 5.0, size=p)
    return rng.normal(size=(n, p)) * scales + offset * rng.normal(size=p)


@st.composite
def dissimilarities(draw, max_n=20):
    """Symmetric, zero-diagonal, non-negative matrices: generally not Euclidean."""
    n = draw(st.integers(3, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["uniform", "braycurtis", "cityblock"]))
    if kind == "uniform":
        A = rng.uniform(0.1, 2.0, size=(n, n))
        D = np.triu(A, 1) + np.triu(A, 1).T
    else:
        counts = rng.poisson(rng.uniform(0.5, 20.0, size=(n, 6))) + (np.arange(6) == 0)  # no empty sample
        D = squareform(pdist(counts.astype(float), metric=kind))
    return D


def explicit_gram(D):
    """-1/2 H D^(2) H with H formed explicitly."""
    n = D.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    return -0.5 * H @ (D**2) @ H


# -- thm-pcoa-gram-from-distances -----------------------------------------------------------

@theorem("thm-pcoa-gram-from-distances")
@given(point_clouds())
def test_double_centered_squared_distances_are_the_centered_gram_matrix(X):
    D = squareform(pdist(X))
    Xc = X - X.mean(axis=0)
    B_data = Xc @ Xc.T
    scale = max(np.abs(B_data).max(), 1.0) + np.abs(X).max() ** 2 * 1e-6
    np.testing.assert_allclose(-0.5 * pcalib.double_center(D**2), B_data, atol=1e-9 * scale)
    np.testing.assert_allclose(explicit_gram(D), B_data, atol=1e-9 * scale)


@given(st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_double_center_equals_H_M_H(n, seed):
    M = np.random.default_rng(seed).normal(size=(n, n)) * 10
    H = np.eye(n) - np.ones((n, n)) / n
    np.testing.assert_allclose(pcalib.double_center(M), H @ M @ H, atol=1e-12 * max(1.0, np.abs(M).max()))


# -- lem-pcoa-trace ---------------------------------------------------------------------------

@theorem("lem-pcoa-trace")
@given(dissimilarities())
def test_sum_of_eigenvalues_is_fixed_by_the_distances(D):
    n = D.shape[0]
    eigenvalues = pcalib.pcoa(D).eigenvalues
    assert eigenvalues.shape == (n,)
    np.testing.assert_allclose(eigenvalues.sum(), (D**2).sum() / (2 * n), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(eigenvalues.sum(), np.trace(explicit_gram(D)), rtol=1e-9, atol=1e-12)


@theorem("lem-pcoa-trace")
@given(point_clouds())
def test_sum_of_eigenvalues_is_n_minus_1_times_total_variance(X):
    n = X.shape[0]
    D = squareform(pdist(X))
    expected = (n - 1) * np.var(X, axis=0, ddof=1).sum() if n > 1 else 0.0
    np.testing.assert_allclose(pcalib.pcoa(D).eigenvalues.sum(), expected, rtol=1e-8, atol=1e-9 * (np.abs(X).max() ** 2 + 1))


# -- thm-pcoa-equals-pca -------------------------------------------------------------------------

def well_separated(s, k, rel=1e-3):
    """sigma_1 > ... > sigma_k > sigma_{k+1} with relative gaps."""
    s = np.append(s, 0.0)
    return np.all(s[:k] - s[1 : k + 1] > rel * s[0]) and s[0] > 0


@theorem("thm-pcoa-equals-pca")
@settings(max_examples=40)
@given(point_clouds(max_n=20, max_p=5), st.integers(1, 4))
def test_principal_coordinates_are_the_pca_scores_up_to_column_signs(X, k):
    n, p = X.shape
    Xc = X - X.mean(axis=0)
    U, s, _ = np.linalg.svd(Xc, full_matrices=False)
    k = min(k, min(n, p))
    if not well_separated(s, k):
        return
    D = squareform(pdist(X))
    result = pcalib.pcoa(D, k=k, full_spectrum=True)
    scores = U[:, :k] * s[:k]                                  # T = X_c V_k = U_k Sigma_k
    signs = np.where(np.sum(result.coordinates * scores, axis=0) < 0, -1.0, 1.0)
    np.testing.assert_allclose(result.coordinates, scores * signs, atol=1e-7 * s[0])
    m = min(n, p)
    np.testing.assert_allclose(result.eigenvalues[:m], s**2, atol=1e-9 * s[0] ** 2)
    np.testing.assert_allclose(result.eigenvalues[m:], 0.0, atol=1e-9 * s[0] ** 2)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False).reshape(p, p))[::-1]
    np.testing.assert_allclose(result.eigenvalues[:m], (n - 1) * lam[:m], atol=1e-8 * s[0] ** 2)


@theorem("thm-pcoa-equals-pca")
def test_principal_coordinates_agree_with_scikit_bio_and_scikit_learn():
    skbio = pytest.importorskip("skbio")
    from sklearn.decomposition import PCA as SklearnPCA

    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 5)) * [4.0, 3.0, 2.0, 1.0, 0.5]
    D = squareform(pdist(X))
    ours = pcalib.pcoa(D, k=3)
    theirs = skbio.stats.ordination.pcoa(skbio.DistanceMatrix(D), dimensions=3)
    sk_scores = SklearnPCA(n_components=3).fit_transform(X)
    for reference in (theirs.samples.to_numpy(), sk_scores):
        signs = np.where(np.sum(ours.coordinates * reference, axis=0) < 0, -1.0, 1.0)
        np.testing.assert_allclose(ours.coordinates, reference * signs, atol=1e-8)
    np.testing.assert_allclose(ours.eigenvalues[:3], theirs.eigvals.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.proportion_explained, theirs.proportion_explained.to_numpy(), rtol=1e-10)


# -- lem-pcoa-distances-from-gram -----------------------------------------------------------------

@theorem("lem-pcoa-distances-from-gram")
@given(dissimilarities())
def test_squared_distances_are_recovered_from_B(D):
    B = -0.5 * pcalib.double_center(D**2)
    diag = np.diag(B)
    np.testing.assert_allclose(diag[:, None] + diag[None, :] - 2 * B, D**2, atol=1e-10 * max(1.0, (D**2).max()))


# -- prop-pcoa-euclidean-iff-psd ------------------------------------------------------------------

@theorem("prop-pcoa-euclidean-iff-psd")
@given(point_clouds(max_n=20, max_p=4))
def test_euclidean_distances_give_psd_B_and_are_reproduced(X):
    D = squareform(pdist(X))
    result = pcalib.pcoa(D)
    top = max(result.eigenvalues[0], 1e-300)
    assert result.eigenvalues.min() >= -1e-9 * top - 1e-12 * np.abs(X).max() ** 2
    r = int(np.sum(result.eigenvalues > 1e-9 * top))
    if r == 0:
        np.testing.assert_allclose(D, 0.0, atol=1e-6 * (np.abs(X).max() + 1))
        return
    assert r == np.linalg.matrix_rank(X - X.mean(axis=0), tol=1e-7 * np.sqrt(top))
    Y = pcalib.pcoa(D, k=r).coordinates
    np.testing.assert_allclose(squareform(pdist(Y)), D, atol=1e-6 * (D.max() + 1))


@theorem("prop-pcoa-euclidean-iff-psd")
@pytest.mark.parametrize(
    "D",
    [
        # a star: hub at 1 from three leaves, leaves at 2 from each other (metric, not Euclidean)
        np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]], dtype=float),
        # violates the triangle inequality
        np.array([[0, 1, 3], [1, 0, 1], [3, 1, 0]], dtype=float),
    ],
    ids=["star-metric", "no-triangle-inequality"],
)
def test_known_non_euclidean_distances_give_a_negative_eigenvalue(D):
    eigenvalues = pcalib.pcoa(D).eigenvalues
    np.testing.assert_allclose(np.sort(eigenvalues), np.linalg.eigvalsh(explicit_gram(D)), atol=1e-12)
    assert eigenvalues.min() < -1e-3


@theorem("prop-pcoa-euclidean-iff-psd")
def test_three_points_on_a_line_by_hand():
    """Exercise ex-pcoa-by-hand: beta_1 = 14/3 and coordinates +-(-4/3, -1/3, 5/3)."""
    D = np.array([[0, 1, 3], [1, 0, 2], [3, 2, 0]], dtype=float)
    result = pcalib.pcoa(D, k=1, full_spectrum=True)
    np.testing.assert_allclose(result.eigenvalues, [14 / 3, 0, 0], atol=1e-12)
    np.testing.assert_allclose(np.abs(result.coordinates[:, 0]), np.abs([-4 / 3, -1 / 3, 5 / 3]), atol=1e-12)


# -- cor-pcoa-negative-eigenvalues ----------------------------------------------------------------

@theorem("cor-pcoa-negative-eigenvalues")
@given(dissimilarities())
def test_positive_axes_never_underestimate_and_negative_axes_correct(D):
    """d_ij^2 = |y+_i - y+_j|^2 - |y-_i - y-_j|^2: pcalib's coordinates on all positive
    axes (Y_+) against the negative part Y_- of NumPy's eigendecomposition."""
    beta, U = np.linalg.eigh(explicit_gram(D))
    cutoff = 1e-10 * np.abs(beta).max()
    Y_minus = U[:, beta < -cutoff] * np.sqrt(-beta[beta < -cutoff])
    result = pcalib.pcoa(D)
    r = int(np.sum(result.eigenvalues > cutoff))
    Y_plus = pcalib.pcoa(D, k=r).coordinates
    D2_plus = squareform(pdist(Y_plus, "sqeuclidean"))
    D2_minus = squareform(pdist(Y_minus, "sqeuclidean")) if Y_minus.shape[1] else np.zeros_like(D)
    tol = 1e-9 * max(1.0, (D**2).max())
    np.testing.assert_allclose(D2_plus - D2_minus, D**2, atol=tol)
    assert np.all(D2_plus >= D**2 - tol)


# -- reporting: the proportion explained does not depend on k --------------------------------------

@given(dissimilarities())
def test_proportion_explained_is_relative_to_all_eigenvalues_whatever_k(D):
    full = pcalib.pcoa(D)
    positive = int(np.sum(full.eigenvalues > 1e-10 * np.abs(full.eigenvalues).max()))
    total = (D**2).sum() / (2 * D.shape[0])
    for k in range(1, positive + 1):
        result = pcalib.pcoa(D, k=k)
        np.testing.assert_allclose(result.proportion_explained, full.eigenvalues[:k] / total, rtol=1e-9)
        np.testing.assert_allclose(result.eigenvalues, full.eigenvalues[:k], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(result.total_inertia, total, rtol=1e-9)


# -- double centering D instead of D^(2): the chapter's popular mistake --------------------------

@settings(max_examples=40)
@given(point_clouds(max_n=20, max_p=4))
def test_double_centered_distances_of_a_euclidean_D_are_psd(X):
    """-1/2 H D H (D, not D^(2)) is positive semi-definite whenever D is Euclidean:
    the square roots of Euclidean distances are Euclidean (Schoenberg 1938). The chapter
    uses this to warn that a positive spectrum does not reveal the mistake."""
    D = squareform(pdist(X))
    eigenvalues = np.linalg.eigvalsh(explicit_gram(np.sqrt(D)))   # -1/2 H D H
    assert eigenvalues.min() >= -1e-12 * D.shape[0] * max(D.max(), 1.0)


# -- the chapter's statement about scikit-bio's proportions -----------------------------------------

def test_scikit_bio_proportions_depend_on_the_number_of_axes():
    """scikit-bio 0.7 divides by the sum of the positive eigenvalues when all axes are
    requested and by the trace tr B when fewer are (chapter, "Reading and reporting")."""
    skbio = pytest.importorskip("skbio")
    rng = np.random.default_rng(12)
    counts = rng.poisson(rng.uniform(0.5, 20.0, size=(12, 6))) + (np.arange(6) == 0)
    D = squareform(pdist(counts.astype(float), metric="braycurtis"))
    beta = np.linalg.eigvalsh(explicit_gram(D))[::-1]
    assert beta[-1] < -1e-3 * beta[0]                          # negative eigenvalues
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)        # skbio warns on them
        full = skbio.stats.ordination.pcoa(skbio.DistanceMatrix(D))
        few = skbio.stats.ordination.pcoa(skbio.DistanceMatrix(D), dimensions=3)
    positive_sum = beta[beta > 0].sum()
    trace = (D**2).sum() / (2 * D.shape[0])
    np.testing.assert_allclose(full.proportion_explained.to_numpy()[:3],
                               beta[:3] / positive_sum, rtol=1e-8)
    np.testing.assert_allclose(few.proportion_explained.to_numpy(),
                               beta[:3] / trace, rtol=1e-8)


# -- prop-pcoa-lingoes ------------------------------------------------------------------------------

def complement_of_ones(n):
    """Orthonormal basis (n x (n-1)) of the vectors orthogonal to 1, by NumPy's QR."""
    return np.linalg.qr(np.c_[np.ones(n), np.eye(n)[:, : n - 1]])[0][:, 1:]


@theorem("prop-pcoa-lingoes")
@given(dissimilarities(), st.floats(0.0, 2.0))
def test_lingoes_adds_c_H_and_shifts_the_eigenvalues(D, c):
    n = D.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    off = 1.0 - np.eye(n)
    B = explicit_gram(D)
    B_corrected = explicit_gram(np.sqrt(D**2 + 2 * c * off))
    np.testing.assert_allclose(B_corrected, B + c * H, atol=1e-10 * max(1.0, (D**2).max()))
    Q = complement_of_ones(n)
    beta_perp = np.linalg.eigvalsh(Q.T @ B @ Q)                 # eigenvalues on 1-perp
    np.testing.assert_allclose(np.linalg.eigvalsh(Q.T @ B_corrected @ Q), beta_perp + c,
                               atol=1e-9 * max(1.0, (D**2).max()))


@theorem("prop-pcoa-lingoes")
@given(dissimilarities())
def test_lingoes_constant_is_minus_the_smallest_eigenvalue_and_is_the_smallest(D):
    n = D.shape[0]
    beta = np.linalg.eigvalsh(explicit_gram(D))
    if beta[0] > -1e-9 * beta[-1]:
        return                                                   # already Euclidean
    off = 1.0 - np.eye(n)
    result = pcalib.pcoa(D, correction="lingoes")
    np.testing.assert_allclose(result.added_constant, -beta[0], rtol=1e-10)
    at = np.linalg.eigvalsh(explicit_gram(np.sqrt(D**2 - 2 * beta[0] * off)))
    below = np.linalg.eigvalsh(explicit_gram(np.sqrt(D**2 - 2 * 0.99 * beta[0] * off)))
    assert at[0] >= -1e-10 * at[-1] and below[0] < -1e-3 * abs(beta[0])
    assert result.eigenvalues.min() >= -1e-10 * result.eigenvalues[0]


# -- prop-pcoa-cailliez -----------------------------------------------------------------------------

@theorem("prop-pcoa-cailliez")
@given(dissimilarities(), st.floats(-1.0, 2.0))
def test_cailliez_pencil_formula(D, c):
    n = D.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    B1 = -0.5 * H @ D @ H
    D_shifted = (D + c) * (1.0 - np.eye(n))
    np.testing.assert_allclose(explicit_gram(D_shifted), explicit_gram(D) + 2 * c * B1 + c**2 / 2 * H,
                               atol=1e-10 * max(1.0, D.max() + abs(c)) ** 2)


@theorem("prop-pcoa-cailliez")
@settings(max_examples=30)
@given(dissimilarities(max_n=14))
def test_cailliez_constant_is_the_smallest_that_makes_the_shift_euclidean(D):
    """Every constant from c2 on gives a Euclidean table, c2 sits on the boundary (a zero
    eigenvalue on 1-perp), and a smaller constant does not (the minimality the chapter
    proves with Schoenberg 1938)."""
    n = D.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    B, B1 = explicit_gram(D), -0.5 * H @ D @ H
    if np.linalg.eigvalsh(B)[0] > -1e-9 * np.abs(B).max():
        return                                                   # already Euclidean
    companion = np.block([[np.zeros((n, n)), 2 * B], [-np.eye(n), -4 * B1]])
    values, vectors = np.linalg.eig(companion)
    real = np.abs(values.imag) <= 1e-9 * np.abs(values).max()
    top = np.argmax(np.where(real, values.real, -np.inf))
    c2 = values[top].real
    assert c2 > 0
    np.testing.assert_allclose(pcalib.pcoa(D, correction="cailliez").added_constant, c2, rtol=1e-9)
    off = 1.0 - np.eye(n)
    Q = complement_of_ones(n)
    scale = np.abs(explicit_gram(D + c2 * off)).max()
    for c in (c2, 1.01 * c2, 1.5 * c2, 3 * c2):                  # Euclidean from c2 on
        assert np.linalg.eigvalsh(explicit_gram(D + c * off))[0] >= -1e-10 * scale
    # and not below c2 (over 1253 random tables the margin was at least 4.6e-6 * scale)
    assert np.linalg.eigvalsh(Q.T @ explicit_gram(D + 0.99 * c2 * off) @ Q)[0] < -1e-9 * scale
    # at c2: a zero eigenvalue on 1-perp, its eigenvector the lower half a2 of the
    # companion's eigenvector, orthogonal to 1
    assert abs(np.linalg.eigvalsh(Q.T @ explicit_gram(D + c2 * off) @ Q)[0]) <= 1e-10 * scale
    a2 = vectors[n:, top].real
    a2 /= np.linalg.norm(a2)
    assert abs(a2.sum()) <= 1e-8 * np.sqrt(n)
    assert np.linalg.norm(explicit_gram(D + c2 * off) @ a2) <= 1e-8 * scale


@theorem("prop-pcoa-cailliez")
def test_cailliez_constant_of_the_star_by_hand():
    """Exercise ex-pcoa-star-corrections: c2 = (sqrt(3) - 1)/2, c1 = 1/4, both planar."""
    D = np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]], dtype=float)
    cailliez = pcalib.pcoa(D, correction="cailliez")
    lingoes = pcalib.pcoa(D, correction="lingoes")
    np.testing.assert_allclose(cailliez.added_constant, (np.sqrt(3) - 1) / 2, rtol=1e-12)
    np.testing.assert_allclose(lingoes.added_constant, 0.25, rtol=1e-12)
    assert cailliez.coordinates.shape == lingoes.coordinates.shape == (4, 2)


# -- prop-pcoa-add-a-point --------------------------------------------------------------------------

def gower_add_a_point(D, k, D_new):
    """Gower (1968) written out with NumPy: y*_j = sum_i y_ij (b_ii - d*_i^2) / (2 beta_j)."""
    B = explicit_gram(D)
    beta, U = np.linalg.eigh(B)
    beta, U = beta[::-1][:k], U[:, ::-1][:, :k]
    Y = U * np.sqrt(beta)
    return (np.diag(B) - D_new**2) @ Y / (2 * beta), Y


@theorem("prop-pcoa-add-a-point")
@given(dissimilarities())
def test_an_object_placed_from_its_own_dissimilarities_lands_on_itself(D):
    beta = np.linalg.eigvalsh(explicit_gram(D))[::-1]
    k = int(np.sum(beta > 1e-6 * beta[0]))
    placed_numpy, Y = gower_add_a_point(D, k, D)
    tol = 1e-6 * np.abs(Y).max()
    np.testing.assert_allclose(placed_numpy, Y, atol=tol)
    result = pcalib.pcoa(D, k=k)
    np.testing.assert_allclose(result.transform(D), result.coordinates, atol=tol)


@theorem("prop-pcoa-add-a-point")
@settings(max_examples=40)
@given(point_clouds(max_n=20, max_p=5), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_new_points_get_their_pca_scores(X, k, seed):
    from scipy.spatial.distance import cdist

    n, p = X.shape
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    k = min(k, n - 1, p)
    if k < 1 or not well_separated(s, k):
        return
    X_new = X.mean(axis=0) + np.random.default_rng(seed).normal(size=(3, p)) * s[0] / np.sqrt(n)
    D = squareform(pdist(X))
    result = pcalib.pcoa(D, k=k)
    signs = np.where(np.sum(result.coordinates * (Xc @ Vt[:k].T), axis=0) < 0, -1.0, 1.0)
    expected = (X_new - X.mean(axis=0)) @ Vt[:k].T * signs
    np.testing.assert_allclose(result.transform(cdist(X_new, X)), expected, atol=1e-6 * s[0])


# -- prop-pcoa-strain -------------------------------------------------------------------------------

@theorem("prop-pcoa-strain")
@settings(max_examples=40)
@given(dissimilarities(max_n=14), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_principal_coordinates_minimize_the_strain(D, k, seed):
    """||B - Y Y^T||_F^2 >= sum beta_j^2 - sum_{j<=k} max(beta_j, 0)^2 for every Y with k
    columns, with equality for pcalib's coordinates on the first k axes; perturbations
    of them, small and large, never beat the bound."""
    n = D.shape[0]
    k = min(k, n)
    B = explicit_gram(D)
    beta = np.linalg.eigvalsh(B)[::-1]
    bound = np.sum(beta**2) - np.sum(np.maximum(beta[:k], 0.0) ** 2)
    Y = pcalib.pcoa(D, k=k, full_spectrum=True).coordinates
    scale = max(1.0, np.sum(beta**2))
    np.testing.assert_allclose(np.sum((B - Y @ Y.T) ** 2), bound, rtol=1e-9, atol=1e-12 * scale)
    rng = np.random.default_rng(seed)
    for step in (1e-3, 1e-1, 1.0):
        other = Y + step * rng.normal(size=Y.shape) * max(np.abs(Y).max(), 1e-3)
        assert np.sum((B - other @ other.T) ** 2) >= bound - 1e-12 * scale


# -- the square root of Bray-Curtis is Euclidean ----------------------------------------------------

@settings(max_examples=60)
@given(st.integers(3, 25), st.integers(1, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_square_root_of_bray_curtis_is_euclidean(n, p, seed, continuous):
    """The chapter's remedy (Legendre and Legendre 2012): B of sqrt(d_ij) has no
    negative eigenvalue beyond round-off, for counts and for continuous abundances."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(rng.gamma(rng.uniform(0.1, 3.0), rng.uniform(0.5, 30.0), size=p), size=(n, p))
    X = X * rng.uniform(0.0, 1.0, size=X.shape) if continuous else X.astype(float)
    X[:, 0] += 1.0                                              # no empty sample
    beta = np.linalg.eigvalsh(explicit_gram(np.sqrt(squareform(pdist(X, "braycurtis")))))
    assert beta[0] >= -1e-12 * max(beta[-1], 1e-300)

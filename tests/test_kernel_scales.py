"""KernelPCA gives no silent wrong answer (issue 31: F04, F09, F20).

F04: 64-bit integers near 2**62 are read in the exact frame of pcalib._linalg.units (offset in
integers before any float conversion), so the kernels that depend only on differences
("rbf", "linear") see the data exactly. F20: at scales from 1e-300 to 1e300 the kernels
are formed in power-of-two units, so the default fit neither refuses ("choose
n_components <= 0") nor calls a row of zeros. F09: a callable kernel that is not
symmetric is refused, by the check that refuses a precomputed matrix.

References: scikit-learn's KernelPCA on the same data read at unit scale (or offset
removed in NumPy's integers), NumPy's SVD, and R kernlab's output quoted as literals.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pcalib
from pcalib import KernelPCA

sk_decomposition = pytest.importorskip("sklearn.decomposition")

# R 4 / kernlab 0.9 (as in test_kernel.py): x <- as.matrix(iris[1:40, 1:4]);
# k <- kpca(x, kernel = "rbfdot", kpar = list(sigma = 0.5), features = 3); eig(k)
KERNLAB_EIG = np.array([0.129479355498320847, 0.035918679656713172, 0.021016189448323685])


def data(n: int = 40, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, 3)) * np.array([2.0, 1.0, 0.5])


def aligned(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """B with each column's sign matched to A's."""
    return B * np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)


def numpy_median_gamma(X: np.ndarray) -> float:
    """1 / (2 median^2) of the pairwise distances, in NumPy."""
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)[np.triu_indices(len(X), 1)]
    return float(0.5 / np.median(d2))


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # out-of-range attributes, said in a warning
        return fn()


# -- F04: int64 near 2**62 ------------------------------------------------------------------


def int64_data(n: int = 40, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Integers 2**62 + [0, 1000) (float64 rounds them to multiples of 1024), and the
    same data minus 2**62, computed in int64 (exact) and then small floats."""
    small = np.random.default_rng(seed).integers(0, 1000, size=(n, 3))
    big = small.astype(np.int64) + np.int64(2**62)
    return big, (big - np.int64(2**62)).astype(np.float64)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_int64_near_2_62_is_read_exactly(kernel):
    """The translation-invariant kernels of int64 data at 2**62 + [0, 1000) equal
    scikit-learn's on the data minus 2**62 (before the fix: the float64 cast rounded
    every entry to a multiple of 1024, and the eigenvalues were 2.5x off)."""
    big, small = int64_data()
    new_big, new_small = int64_data(5, seed=2)
    gamma = numpy_median_gamma(small)
    ours = KernelPCA(3, kernel=kernel).fit(big)
    theirs = sk_decomposition.KernelPCA(3, kernel=kernel, gamma=gamma, eigen_solver="dense").fit(small)
    if kernel == "rbf":
        assert ours.gamma_ == pytest.approx(gamma, rel=1e-12)
        assert pcalib.kernel.median_heuristic_gamma(big) == pytest.approx(gamma, rel=1e-12)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    for mine, reference in ((ours.transform(big), theirs.transform(small)),
                            (ours.transform(new_big), theirs.transform(new_small))):
        scale = np.abs(reference).max()
        np.testing.assert_allclose(mine, aligned(mine, reference), rtol=0, atol=1e-10 * scale)


def test_int64_nystrom_and_preimage_near_2_62():
    """Nyström and the linear pre-image read int64 data in the same exact frame."""
    big, small = int64_data(60)
    nys_big = KernelPCA(3, n_landmarks=20, random_state=0).fit(big)
    nys_small = KernelPCA(3, n_landmarks=20, random_state=0).fit(small)
    np.testing.assert_allclose(nys_big.eigenvalues_, nys_small.eigenvalues_, rtol=1e-10)
    lin = KernelPCA(2, kernel="linear").fit(big)
    pca = sk_decomposition.PCA(2).fit(small)
    back = lin.inverse_transform(lin.transform(big))  # float64 near 2**62: spacing 1024
    expected = pca.inverse_transform(pca.transform(small)) + 2.0**62
    np.testing.assert_allclose(back, expected, rtol=0, atol=1024)


def test_not_translation_invariant_kernels_refuse_a_drowned_spread():
    """poly and cosine depend on the origin: at 2**62 + [0, 1000) the spread is below
    float64's resolution of the kernel, and the fit says so instead of returning noise."""
    big, _ = int64_data()
    for kernel in ("poly", "cosine"):
        with pytest.raises(ValueError, match="does not tell the rows apart.*large offset"):
            KernelPCA(2, kernel=kernel).fit(big)


# -- F20: extreme scales --------------------------------------------------------------------

SCALES = [-997, -565, -100, 100, 531, 997]  # 2**-997 ~ 7e-301, 2**-565 ~ 1.7e-170, 2**531 ~ 1.4e160


@pytest.mark.parametrize("exponent", SCALES)
def test_rbf_default_is_scale_free(exponent):
    """Default KernelPCA (rbf, median heuristic) of X * 2**e: the same eigenvalues and
    scores as scikit-learn on X with the median heuristic's gamma (before: "choose
    n_components <= 0" at 1e-170 and 1e160)."""
    X, Xnew = data(), data(6, seed=5)
    s = math.ldexp(1.0, exponent)
    theirs = sk_decomposition.KernelPCA(3, kernel="rbf", gamma=numpy_median_gamma(X), eigen_solver="dense").fit(X)
    ours = quiet(lambda: KernelPCA(3).fit(X * s))
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    for mine, reference in ((ours.transform(X * s), theirs.transform(X)),
                            (ours.transform(Xnew * s), theirs.transform(Xnew))):
        np.testing.assert_allclose(mine, aligned(mine, reference), atol=1e-10)
    if abs(exponent) <= 500:  # gamma itself is representable
        assert ours.gamma_ == pytest.approx(numpy_median_gamma(X) / s**2, rel=1e-12)
    nys = quiet(lambda: KernelPCA(3, n_landmarks=15, random_state=0).fit(X * s))
    np.testing.assert_allclose(nys.eigenvalues_, KernelPCA(3, n_landmarks=15, random_state=0).fit(X).eigenvalues_,
                               rtol=1e-10)
    back = quiet(lambda: ours.inverse_transform(ours.transform(Xnew * s)))
    np.testing.assert_allclose(back / s, KernelPCA(3).fit(X).inverse_transform(
        KernelPCA(3).fit(X).transform(Xnew)), rtol=1e-9, atol=1e-9)


def test_rbf_at_a_tiny_scale_against_kernlab():
    """iris[1:40] * 2**-100 with gamma 0.5 * 2**200 is kernlab's sigma = 0.5 fit of
    iris[1:40]: eig(k) * n are the eigenvalues of the centered kernel."""
    iris40 = pcalib.datasets.load_iris().data[:40]
    ours = KernelPCA(3, gamma=math.ldexp(0.5, 200)).fit(iris40 * 2.0**-100)
    np.testing.assert_allclose(ours.eigenvalues_ / 40, KERNLAB_EIG, rtol=1e-12)


@pytest.mark.parametrize("exponent", SCALES)
def test_cosine_is_scale_free(exponent):
    """The cosine kernel of X * 2**e is that of X (before: a false "row of zeros" at
    1e-170, a zero kernel at 1e160)."""
    X = data() + 0.5
    s = math.ldexp(1.0, exponent)
    theirs = sk_decomposition.KernelPCA(3, kernel="cosine", eigen_solver="dense").fit(X)
    ours = KernelPCA(3, kernel="cosine").fit(X * s)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    T = ours.transform(X * s)
    np.testing.assert_allclose(T, aligned(T, theirs.transform(X)), atol=1e-10)


@pytest.mark.parametrize("exponent", SCALES)
def test_linear_kernel_scores_at_every_scale(exponent):
    """Linear kernel PCA of X * 2**e: scores are 2**e times PCA's of X (NumPy's SVD);
    the eigenvalues 2**(2e) times, where float64 holds them (else inf or 0, with a
    warning saying so)."""
    X = data()
    s = math.ldexp(1.0, exponent)
    U, sv, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = KernelPCA(3, kernel="linear").fit(X * s)
    T = ours.transform(X * s) / s
    np.testing.assert_allclose(T, aligned(T, U[:, :3] * sv[:3]), atol=1e-12 * sv[0])
    if abs(exponent) < 500:
        np.testing.assert_allclose(ours.eigenvalues_ / s**2, sv[:3] ** 2, rtol=1e-12)
        assert not caught
    else:
        assert any("eigenvalues_" in str(w.message) for w in caught)


@pytest.mark.parametrize("exponent", [-565, -100])
def test_poly_at_a_tiny_scale_is_first_order(exponent):
    """(gamma x.y + c0)^d at |x| ~ 2**e << 1 is c0^d + d c0^(d-1) gamma x.y + O(4**e):
    kernel PCA is PCA with eigenvalues times d c0^(d-1) gamma (NumPy's SVD of X). The
    constant c0^d is removed exactly, so the variation of 1e-340 keeps its digits
    (before: refused as a kernel that does not vary)."""
    X = data()
    s = math.ldexp(1.0, exponent)
    U, sv, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    d, c0, gamma = 3, 1.5, 0.4
    factor = d * c0 ** (d - 1) * gamma
    ours = quiet(lambda: KernelPCA(3, kernel="poly", degree=d, coef0=c0, gamma=gamma).fit(X * s))
    T = ours.transform(X * s) / s
    np.testing.assert_allclose(T, aligned(T, U[:, :3] * sv[:3] * np.sqrt(factor)), rtol=0, atol=1e-12 * sv[0])


def test_poly_at_a_huge_scale_with_gamma_to_match():
    """At X * 2**531, gamma = 2**-1062 (subnormal, exact) makes gamma x.y that of X with
    gamma 1: the same kernel PCA as scikit-learn's on X."""
    X = data()
    ours = KernelPCA(3, kernel="poly", gamma=math.ldexp(1.0, -1062), degree=2).fit(X * 2.0**531)
    theirs = sk_decomposition.KernelPCA(3, kernel="poly", gamma=1.0, degree=2, coef0=1, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    T = ours.transform(X * 2.0**531)
    np.testing.assert_allclose(T, aligned(T, theirs.transform(X)), atol=1e-9 * np.abs(T).max())


@pytest.mark.parametrize("exponent", [-997, 997])
def test_precomputed_kernel_at_extreme_scales(exponent):
    """A precomputed kernel times 2**e: eigenvalues 2**e times, scores 2**(e/2) times."""
    X = data()
    K = np.exp(-0.3 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    reference = KernelPCA(3, kernel="precomputed").fit(K)
    ours = KernelPCA(3, kernel="precomputed").fit(K * 2.0**exponent)
    np.testing.assert_allclose(ours.eigenvalues_, reference.eigenvalues_ * 2.0**exponent, rtol=1e-12)
    np.testing.assert_allclose(ours.transform(K * 2.0**exponent), reference.transform(K) * 2.0 ** (exponent / 2),
                               rtol=1e-10)


# -- F09: one validation of a kernel matrix -------------------------------------------------


def test_callable_kernel_must_be_symmetric_as_precomputed():
    """A callable whose kernel(X, X) is not symmetric is refused, with the check (and the
    words) that refuse the same matrix precomputed; a symmetric one is accepted."""
    X = data()

    def lopsided(A, B):
        return A @ B.T + 0.1 * np.arange(len(A))[:, None]

    with pytest.raises(ValueError, match="must be a symmetric kernel matrix") as from_callable:
        KernelPCA(2, kernel=lopsided).fit(X)
    assert "kernel(X, X)" in str(from_callable.value)
    with pytest.raises(ValueError, match="must be a symmetric kernel matrix"):
        KernelPCA(2, kernel="precomputed").fit(lopsided(X, X))
    with pytest.raises(ValueError, match="kernel\\(L, L\\)"):
        KernelPCA(2, kernel=lopsided, n_landmarks=10, random_state=0).fit(X)
    linear = KernelPCA(2, kernel=lambda A, B: A @ B.T).fit(X)
    np.testing.assert_allclose(linear.eigenvalues_, KernelPCA(2, kernel="linear").fit(X).eigenvalues_, rtol=1e-10)

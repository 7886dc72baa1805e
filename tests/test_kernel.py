"""pcalib.KernelPCA against independent routes: an explicit feature map in NumPy,
scikit-learn's KernelPCA, R kernlab's published output, PCA and PCoA."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from shared_strategies import seeded_data

import pcalib
from pcalib import KernelPCA

# R 4 / kernlab 0.9: x <- as.matrix(iris[1:40, 1:4]);
# k <- kpca(x, kernel = "rbfdot", kpar = list(sigma = 0.5), features = 3);
# eig(k); head(rotated(k), 3)   (kernlab's rbfdot is exp(-sigma |x - y|^2))
KERNLAB_EIG = np.array([0.129479355498320847, 0.035918679656713172, 0.021016189448323685])
KERNLAB_ROTATED = np.array([
    [0.40250163224558821, -0.61844764541839992, -0.75457094227393817],
    [-2.26601634220407577, -0.43142904986762343, 0.96747009126208428],
    [-2.35798355084818789, 0.66949121259616873, -0.32921584229461381],
])


def data(n: int = 60, p: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) * np.array([2.0, 1.0, 0.5])[:p]


def aligned(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """B with each column's sign matched to A's."""
    return B * np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)


def quadratic_features(X: np.ndarray) -> np.ndarray:
    """Explicit feature map of (x.y + 1)^2: 1, sqrt2 x_i, x_i^2, sqrt2 x_i x_j (i < j)."""
    n, p = X.shape
    cols = [np.ones(n)] + [np.sqrt(2) * X[:, i] for i in range(p)] + [X[:, i] ** 2 for i in range(p)]
    cols += [np.sqrt(2) * X[:, i] * X[:, j] for i, j in itertools.combinations(range(p), 2)]
    return np.column_stack(cols)


@pytest.mark.theorem("lem-kpca-centering")
def test_centering_in_feature_space_is_double_centering():
    """Gram matrix of the explicitly centered features = H K H = pcalib.double_center(K)."""
    X = data(30)
    F = quadratic_features(X)
    Fc = F - F.mean(axis=0)
    K = (X @ X.T + 1) ** 2
    H = np.eye(30) - np.ones((30, 30)) / 30
    scale = np.abs(K).max()
    np.testing.assert_allclose(H @ K @ H, Fc @ Fc.T, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(pcalib.double_center(K), Fc @ Fc.T, rtol=0, atol=1e-12 * scale)
    # and KernelPCA's eigenvalues are those of H K H (its variances, over n - 1)
    kp = KernelPCA(5, kernel="precomputed").fit(K)
    nu = np.linalg.eigvalsh(Fc @ Fc.T)[::-1][:5]
    np.testing.assert_allclose(kp.eigenvalues_, nu, rtol=1e-10)
    np.testing.assert_allclose(kp.explained_variance_, nu / 29, rtol=1e-10)


def test_linear_kernel_keeps_its_digits_with_a_large_mean():
    """x.y with |x| ~ 1e6 would put entries of 1e12 into K and cancel them in H K H."""
    X = data(40, 3) + 1e6
    kp = KernelPCA(3, kernel="linear").fit(X)
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    np.testing.assert_allclose(kp.explained_variance_, s**2 / 39, rtol=1e-10)
    pca = pcalib.PCA(2).fit(X)
    two = KernelPCA(2, kernel="linear").fit(X)
    np.testing.assert_allclose(two.inverse_transform(two.transform(X)),
                               pca.inverse_transform(pca.transform(X)), rtol=0, atol=1e-8)


@pytest.mark.theorem("prop-kpca-eigenproblem")
def test_explicit_feature_map_pca():
    """Kernel PCA of (x.y + 1)^2 is PCA of the explicit features (SVD in NumPy)."""
    X, Xnew = data(), data(7, seed=1)
    kp = KernelPCA(4, kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X)
    F = quadratic_features(X)
    mean = F.mean(axis=0)
    _, s, Vt = np.linalg.svd(F - mean, full_matrices=False)
    np.testing.assert_allclose(kp.eigenvalues_, s[:4] ** 2, rtol=1e-12)
    T = (F - mean) @ Vt[:4].T
    np.testing.assert_allclose(kp.transform(X), aligned(kp.transform(X), T), atol=1e-10)
    np.testing.assert_allclose(kp.fit_transform(X), kp.transform(X), atol=1e-10)
    # the axes V_j = sum_i a_ij (phi(x_i) - phibar) have unit length in feature space
    V = (F - mean).T @ kp.coef_
    np.testing.assert_allclose(V.T @ V, np.eye(4), atol=1e-10)
    Tnew = (quadratic_features(Xnew) - mean) @ Vt[:4].T
    np.testing.assert_allclose(kp.transform(Xnew), aligned(kp.transform(Xnew), Tnew), atol=1e-10)


@pytest.mark.theorem("prop-kpca-new-points")
def test_new_points_by_the_centered_test_kernel():
    """transform = K~_new A with the full double centering of the test kernel."""
    X, Xnew = data(), data(9, seed=2)
    kp = KernelPCA(3, gamma=0.4).fit(X)
    rbf = lambda A, B: np.exp(-0.4 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))  # noqa: E731
    K, Knew = rbf(X, X), rbf(Xnew, X)
    n = len(X)
    one = np.full((n, n), 1.0 / n)
    one_new = np.full((len(Xnew), n), 1.0 / n)
    Kc_new = Knew - one_new @ K - Knew @ one + one_new @ K @ one
    w, U = np.linalg.eigh((np.eye(n) - one) @ K @ (np.eye(n) - one))
    A = U[:, ::-1][:, :3] / np.sqrt(w[::-1][:3])
    np.testing.assert_allclose(kp.transform(Xnew), aligned(kp.transform(Xnew), Kc_new @ A), atol=1e-12)
    np.testing.assert_allclose(kp.coef_.sum(axis=0), 0.0, atol=1e-12)  # 1^T a_j = 0


def test_against_scikit_learn_all_kernels():
    sk = pytest.importorskip("sklearn.decomposition")
    X, Xnew = data(), data(5, seed=3)
    n = len(X)
    for kernel in ("rbf", "poly", "linear", "cosine"):
        ours = KernelPCA(3, kernel=kernel, gamma=0.3, degree=3, coef0=1.0).fit(X)
        theirs = sk.KernelPCA(3, kernel=kernel, gamma=0.3, degree=3, coef0=1.0, eigen_solver="dense").fit(X)
        # scikit-learn's eigenvalues_ are those of the centered kernel, as ours
        np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-12)
        np.testing.assert_allclose(ours.explained_variance_, theirs.eigenvalues_ / (n - 1), rtol=1e-12)
        for Y in (X, Xnew):
            mine = ours.transform(Y)
            np.testing.assert_allclose(mine, aligned(mine, theirs.transform(Y)), atol=1e-11)


def test_kernlab_convention_published_values():
    """kernlab's eig is mu_j / n = (n-1)/n lambda_j; its rotated scores are sqrt(n) times ours."""
    X = pcalib.datasets.load_iris().data[:40]
    kp = KernelPCA(3, gamma=0.5).fit(X)
    n = 40
    np.testing.assert_allclose(kp.eigenvalues_ / n, KERNLAB_EIG, rtol=1e-12)
    ours = kp.transform(X[:3]) * np.sqrt(n)
    np.testing.assert_allclose(ours, aligned(ours, KERNLAB_ROTATED), rtol=1e-10)


@pytest.mark.theorem("prop-kpca-linear")
def test_linear_kernel_is_pca():
    X = data(50, 3) + 1e3
    kp = KernelPCA(3, kernel="linear").fit(X)
    pca = pcalib.PCA(3).fit(X)
    np.testing.assert_allclose(kp.explained_variance_, pca.explained_variance_, rtol=1e-10)
    T = kp.transform(X)
    np.testing.assert_allclose(T, aligned(T, pca.transform(X)), atol=1e-9)
    two = KernelPCA(2, kernel="linear").fit(X)
    Z = two.transform(X)
    np.testing.assert_allclose(two.inverse_transform(Z), pcalib.PCA(2).fit(X).inverse_transform(
        pcalib.PCA(2).fit(X).transform(X)), atol=1e-9)


@pytest.mark.theorem("prop-kpca-pcoa")
def test_minus_half_squared_distances_is_pcoa():
    X = data(40, 3)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    kp = KernelPCA(3, kernel="precomputed").fit(-0.5 * D**2)
    result = pcalib.pcoa(D, 3)
    np.testing.assert_allclose(kp.eigenvalues_, result.eigenvalues[:3], rtol=1e-10)
    T = kp.transform(-0.5 * D**2)
    np.testing.assert_allclose(T, aligned(T, result.coordinates), atol=1e-10)


@pytest.mark.theorem("prop-kpca-nystrom")
def test_nystrom_is_linear_pca_of_the_nystrom_features():
    X = data(300, 3)
    kp = KernelPCA(3, gamma=0.5, n_landmarks=40, random_state=1).fit(X)
    L = X[kp.landmarks_]
    rbf = lambda A, B: np.exp(-0.5 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))  # noqa: E731
    s, Q = np.linalg.eigh(rbf(L, L))
    keep = s > 1e-8 * s[-1]
    F = rbf(X, L) @ (Q[:, keep] / np.sqrt(s[keep]))
    Fc = F - F.mean(axis=0)
    _, sv, Vt = np.linalg.svd(Fc, full_matrices=False)
    np.testing.assert_allclose(kp.eigenvalues_, sv[:3] ** 2, rtol=1e-9)
    T = kp.fit_transform(X)
    np.testing.assert_allclose(T, aligned(T, Fc @ Vt[:3].T), atol=1e-8)
    np.testing.assert_allclose(kp.transform(X), T, atol=1e-10)


def test_nystrom_with_every_row_a_landmark_is_exact():
    X = data(80, 2)
    exact = KernelPCA(4, gamma=0.3).fit(X)
    full = KernelPCA(4, gamma=0.3, n_landmarks=500, random_state=0).fit(X)
    np.testing.assert_allclose(full.eigenvalues_, exact.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(full.transform(X), exact.transform(X), atol=1e-7)


def test_nystrom_preimage_with_every_row_a_landmark_is_the_exact_one():
    X = data(50, 2)
    exact = KernelPCA(3, gamma=0.5).fit(X)
    full = KernelPCA(3, gamma=0.5, n_landmarks=50, random_state=0).fit(X)
    Z = exact.transform(X[:6])
    np.testing.assert_allclose(full.transform(X[:6]), Z, atol=1e-7)
    np.testing.assert_allclose(full.inverse_transform(Z), exact.inverse_transform(Z), atol=1e-6)


def test_nystrom_error_shrinks_with_landmarks_and_is_seeded():
    X = data(600, 3)
    exact = KernelPCA(5, gamma=0.2).fit(X).eigenvalues_
    errors = [np.abs(KernelPCA(5, gamma=0.2, n_landmarks=m, random_state=0).fit(X).eigenvalues_ / exact - 1).max()
              for m in (10, 40, 160)]
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-3, errors
    a = KernelPCA(5, gamma=0.2, n_landmarks=40, random_state=3).fit(X)
    b = KernelPCA(5, gamma=0.2, n_landmarks=40, random_state=3).fit(X)
    c = KernelPCA(5, gamma=0.2, n_landmarks=40, random_state=4).fit(X)
    np.testing.assert_array_equal(a.landmarks_, b.landmarks_)
    assert not np.array_equal(a.landmarks_, c.landmarks_)


def test_callable_kernel_equals_builtin_and_sign_convention():
    X = data()
    rbf = lambda A, B: np.exp(-0.7 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))  # noqa: E731
    T1 = KernelPCA(3, kernel=rbf).fit_transform(X)
    T2 = KernelPCA(3, gamma=0.7).fit_transform(X)
    np.testing.assert_allclose(T1, T2, atol=1e-12)  # same signs: one convention
    top = np.abs(T2).argmax(axis=0)
    assert np.all(T2[top, np.arange(3)] > 0)


def test_median_heuristic():
    X = data(30, 2)
    d = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))[np.triu_indices(30, 1)]
    gamma = 1 / (2 * np.median(d) ** 2)
    assert pcalib.kernel.median_heuristic_gamma(X) == pytest.approx(gamma, rel=1e-12)
    assert KernelPCA(2).fit(X).gamma_ == pytest.approx(gamma, rel=1e-12)
    assert KernelPCA(2, kernel="poly").fit(X).gamma_ == 0.5


def test_rbf_preimage_is_a_fixed_point_and_recovers_training_rows():
    X = data(25, 2)
    kp = KernelPCA(24, gamma=0.5).fit(X)  # every component: the projection is phi(x_i)
    np.testing.assert_allclose(kp.inverse_transform(kp.transform(X)), X, atol=1e-6)
    small = KernelPCA(2, gamma=0.5).fit(X)
    Z = small.transform(X[:5])
    Xp = small.inverse_transform(Z)
    # stationarity: sum_i gamma_i k(x, x_i) (x_i - x) = 0 at the pre-image
    g = Z @ small.coef_.T + 1.0 / 25
    k = np.exp(-0.5 * ((Xp[:, None] - X[None]) ** 2).sum(-1))
    grad = np.einsum("qi,qij->qj", g * k, X[None] - Xp[:, None])
    assert np.abs(grad).max() < 1e-8
    # and the pre-image is closer in feature space than the start (a training row)
    assert np.all(np.isfinite(Xp))


def test_bad_parameters_and_inputs():
    X = data()
    cases = [
        (KernelPCA(2, kernel="sigmoid"), "kernel must be one of"),
        (KernelPCA(2, gamma=0.0), "gamma must be a positive number"),
        (KernelPCA(2, kernel="poly", degree=0), "degree must be a positive integer"),
        (KernelPCA(2, coef0=np.inf, kernel="poly"), "coef0 must be a finite number"),
        (KernelPCA(2, n_landmarks=0), "n_landmarks must be a positive integer"),
        (KernelPCA(60), "n_components must be between 1 and 59"),
        (KernelPCA(2, kernel="precomputed"), "square n x n kernel matrix"),
    ]
    for model, message in cases:
        with pytest.raises(ValueError, match=message):
            model.fit(X)
    with pytest.raises(TypeError, match="n_components must be an integer"):
        KernelPCA(2.5).fit(X)
    with pytest.raises(ValueError, match="symmetric"):
        KernelPCA(2, kernel="precomputed").fit(np.triu(np.ones((5, 5))))
    with pytest.raises(ValueError, match="n_landmarks needs"):
        KernelPCA(2, kernel="precomputed", n_landmarks=3).fit(np.eye(5))
    with pytest.raises(ValueError, match="does not tell the rows apart"):
        KernelPCA(1).fit(np.ones((10, 3)))
    with pytest.raises(ValueError, match="row of zeros"):
        KernelPCA(1, kernel="cosine").fit(np.vstack([X, np.zeros(3)]))
    with pytest.raises(ValueError, match="at most the number of landmarks"):
        KernelPCA(5, n_landmarks=3, random_state=0).fit(X)
    fitted = KernelPCA(2, kernel="poly").fit(X)
    with pytest.raises(ValueError, match="inverse_transform needs kernel"):
        fitted.inverse_transform(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Z has 3 columns"):
        KernelPCA(2).fit(X).inverse_transform(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="shape"):
        KernelPCA(2, kernel=lambda A, B: np.ones(3)).fit(X)


def test_a_failed_refit_leaves_the_model_unfitted():
    X = data()
    model = KernelPCA(2).fit(X)
    with pytest.raises(ValueError, match="does not tell the rows apart"):
        model.fit(np.ones((10, 3)))
    with pytest.raises(pcalib.NotFittedError):
        model.transform(X)


def test_precomputed_transform_takes_the_test_kernel():
    X, Xnew = data(), data(4, seed=5)
    lin = KernelPCA(2, kernel="linear").fit(X)
    pre = KernelPCA(2, kernel="precomputed").fit(X @ X.T)
    np.testing.assert_allclose(pre.transform(Xnew @ X.T), lin.transform(Xnew), atol=1e-10)
    with pytest.raises(ValueError, match="features"):
        pre.transform(Xnew @ X[:10].T)


def test_no_warning_on_a_converging_preimage():
    X = data(40, 2)
    kp = KernelPCA(3, gamma=0.5).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kp.inverse_transform(kp.transform(X))


@settings(max_examples=40, deadline=None)
@given(seeded_data(min_rows=3, max_rows=25, max_cols=5))
def test_property_linear_kernel_is_pca_over_shapes(X):
    """Over shapes (n < p included) and offsets up to 1e3: the linear kernel's
    eigenvalues are PCA's, and the scores agree up to the sign of each column."""
    n, p = X.shape
    Xc = X - X.mean(axis=0)
    s = np.linalg.svd(Xc, compute_uv=False)
    k = int(np.sum(s > 1e-6 * s[0]))  # well-separated from round-off
    kp = KernelPCA(k, kernel="linear").fit(X)
    np.testing.assert_allclose(kp.eigenvalues_, s[:k] ** 2, rtol=1e-8)
    T = kp.transform(X)
    U, s_, Vt = np.linalg.svd(Xc, full_matrices=False)
    big = s[:k] > 1e-3 * s[0]  # scores of tiny or clustered singular values are ill-posed
    gaps = np.abs(np.diff(np.r_[np.inf, s[:k], 0.0]))
    stable = big & (np.minimum(gaps[:-1], gaps[1:]) > 1e-3 * s[0])
    np.testing.assert_allclose(T[:, stable], aligned(T[:, stable], (U * s_)[:, :k][:, stable]),
                               atol=1e-7 * s[0])


@settings(max_examples=40, deadline=None)
@given(seeded_data(min_rows=3, max_rows=25, max_cols=5, offset=False))
def test_property_rbf_transform_of_training_rows_is_fit_transform(X):
    kp = KernelPCA(2, gamma=0.5)
    T = kp.fit_transform(X)
    np.testing.assert_allclose(kp.transform(X), T, atol=1e-9)
    np.testing.assert_allclose(T.var(axis=0, ddof=1), kp.explained_variance_, rtol=1e-9)


@pytest.mark.parametrize(("k", "kernel"), [(4, "rbf"), (8, "rbf"), (5, "poly"), (2, "linear")])
def test_operator_route_finds_every_copy_of_a_repeated_eigenvalue(k, kernel, monkeypatch):
    """Above 512 rows with 40k <= n, the exact route runs block Krylov on the product
    H K H Q, never forming H K H. Points evenly spaced on a circle make K circulant:
    its eigenvalues beyond the first come in equal pairs (the cosine and sine of each
    frequency), the case a single-vector Lanczos sees only one copy of. Eigenvalues
    and the spanned subspace equal LAPACK's on the explicitly centered matrix (the
    polynomial kernel, not shift-invariant, has no pairs here: a plain check)."""
    n = 720
    angles = 2 * np.pi * np.arange(n) / n
    X = np.c_[np.cos(angles), np.sin(angles), np.zeros(n)] + np.array([3.0, -2.0, 1.0])
    X[:, 2] = 0.3 * np.cos(3 * angles)  # a third coordinate, still symmetric under the shift
    import pcalib._kernel.algebra as algebra

    def formed(K):
        raise AssertionError("H K H was formed: the operator route did not converge")

    monkeypatch.setattr(algebra, "center_kernel_matrix", formed)
    model = KernelPCA(k, kernel=kernel, gamma=0.7, degree=3, coef0=1.0).fit(X)
    monkeypatch.undo()
    assert model.solver_ == "krylov"
    if kernel == "rbf":  # the kernel in NumPy, entry by entry
        K = np.exp(-0.7 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    else:
        K = (0.7 * X @ X.T + 1.0) ** 3 if kernel == "poly" else (X - X.mean(0)) @ (X - X.mean(0)).T
    nu, U = np.linalg.eigh(pcalib.double_center(K))
    nu, U = nu[::-1], U[:, ::-1]
    np.testing.assert_allclose(model.eigenvalues_, nu[:k], rtol=1e-10)
    if kernel != "poly":
        assert np.isclose(nu[0], nu[1], rtol=1e-9)  # a pair, found twice
    gap = nu[k - 1] - nu[k]
    assert gap > 1e-6 * nu[0], "k must end at a gap for the subspace to be defined"
    T = model.transform(X)
    P_model = T @ np.linalg.pinv(T)  # projector on the span of the scores
    P_exact = U[:, :k] @ U[:, :k].T
    assert np.abs(P_model - P_exact).max() < 1e-8

"""KernelPCA's pre-images (fixed point, Kwok-Tsang, learned), its Nyström bound and its
solver report, against NumPy first principles and scikit-learn."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

import pcalib
import pcalib._kernel.algebra as algebra
import pcalib._kernel.preimages as preimages
from pcalib import KernelPCA

sk_decomposition = pytest.importorskip("sklearn.decomposition")


def data(n: int = 60, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, 3)) * np.array([2.0, 1.0, 0.5]) + np.array([5.0, -3.0, 1.0])


def rbf(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def numpy_kpca(X: np.ndarray, gamma: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigenvalues, coefficients A and training scores of Gaussian kernel PCA, in NumPy."""
    n = len(X)
    H = np.eye(n) - 1.0 / n
    nu, U = np.linalg.eigh(H @ rbf(X, X, gamma) @ H)
    nu, U = nu[::-1][:k], U[:, ::-1][:, :k]
    return nu, U / np.sqrt(nu), U * np.sqrt(nu)


def aligned(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return B * np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)


# -- learned pre-images ---------------------------------------------------------------------


def test_learned_preimage_of_the_linear_kernel_keeps_the_mean():
    """The learned map of linear kernel PCA is PCA's reconstruction shrunk by
    nu_j / (nu_j + alpha), about the mean (NumPy's SVD); scikit-learn's
    fit_inverse_transform regresses the uncentered rows and returns it without the mean."""
    X = data()
    Z = data(7, seed=1)
    alpha = 3.0
    ours = KernelPCA(2, kernel="linear", preimage="learned", alpha=alpha).fit(X)
    mean = X.mean(axis=0)
    _, s, Vt = np.linalg.svd(X - mean, full_matrices=False)
    T = (Z - mean) @ Vt[:2].T
    nu = s[:2] ** 2
    expected = mean + (T * nu / (nu + alpha)) @ Vt[:2]
    np.testing.assert_allclose(ours.inverse_transform(aligned(ours.transform(Z), T)), expected, atol=1e-10)
    theirs = sk_decomposition.KernelPCA(2, kernel="linear", fit_inverse_transform=True, alpha=alpha).fit(X)
    lost = expected - theirs.inverse_transform(theirs.transform(Z))
    np.testing.assert_allclose(lost, np.broadcast_to(mean, lost.shape), atol=1e-10)


def test_learned_preimage_of_the_gaussian_kernel_is_ridge_regression():
    """Kernel ridge regression from the training scores to the centered rows, with the
    Gaussian kernel on the scores at the median heuristic's bandwidth, in NumPy."""
    X = data()
    Xnew = data(5, seed=2)
    model = KernelPCA(4, gamma=0.2, preimage="learned", alpha=0.1).fit(X)
    _, A, T = numpy_kpca(X, 0.2, 4)
    T = aligned(model.transform(X), T)
    d2 = ((T[:, None] - T[None]) ** 2).sum(-1)
    gamma_s = 0.5 / np.median(d2[np.triu_indices(len(X), 1)])
    mean = X.mean(axis=0)
    dual = np.linalg.solve(np.exp(-gamma_s * d2) + 0.1 * np.eye(len(X)), X - mean)
    Tnew = model.transform(Xnew)
    expected = mean + np.exp(-gamma_s * ((Tnew[:, None] - T[None]) ** 2).sum(-1)) @ dual
    np.testing.assert_allclose(model.inverse_transform(Tnew), expected, rtol=1e-9, atol=1e-9)


def test_learned_preimage_works_for_kernels_without_a_fixed_point():
    X = data()
    for kernel in ("poly", "cosine", lambda A, B: (A @ B.T + 1.0) ** 2):
        model = KernelPCA(3, kernel=kernel, preimage="learned").fit(X)
        back = model.inverse_transform(model.transform(X))
        assert back.shape == X.shape and np.all(np.isfinite(back))
        with pytest.raises(ValueError, match="preimage='learned' works"):
            KernelPCA(3, kernel=kernel).fit(X).inverse_transform(model.transform(X))
    with pytest.raises(ValueError, match="preimage must be one of"):
        KernelPCA(3, preimage="mika").fit(X)
    with pytest.raises(ValueError, match="alpha must be a positive number"):
        KernelPCA(3, alpha=0.0).fit(X)


# -- Kwok and Tsang ------------------------------------------------------------------------


def kwok_tsang_numpy(X: np.ndarray, gamma: float, A: np.ndarray, beta: np.ndarray, neighbors: int) -> np.ndarray:
    """Kwok-Tsang from scratch: feature distances by the explicit kernel matrix, then the
    linearized distance equations N_c (x - nbar) = (|c_i|^2 - d_i^2 - means) / 2 solved
    by least squares (numpy.linalg.lstsq, minimum norm: x in the neighbours' span)."""
    n = len(X)
    K = rbf(X, X, gamma)
    out = []
    for b in beta:
        eta = A @ b + 1.0 / n
        feature = eta @ K @ eta - 2 * K @ eta + 1.0  # |Psi - phi(x_i)|^2
        nearest = np.argsort(feature)[:neighbors]
        d2 = -np.log(1 - feature[nearest] / 2) / gamma
        N = X[nearest]
        C = N - N.mean(axis=0)
        c2 = (C**2).sum(1)
        rhs = 0.5 * ((c2 - c2.mean()) - (d2 - d2.mean()))
        out.append(N.mean(axis=0) + np.linalg.lstsq(C, rhs, rcond=None)[0])
    return np.array(out)


def test_kwok_tsang_against_a_numpy_implementation():
    X = data()
    model = KernelPCA(5, gamma=0.2, preimage="kwok-tsang").fit(X)
    _, A, T = numpy_kpca(X, 0.2, 5)
    beta = model.transform(data(6, seed=3))
    A = aligned(model.coef_, A)
    expected = kwok_tsang_numpy(X, 0.2, A, beta, preimages.KWOK_TSANG_NEIGHBORS)
    np.testing.assert_allclose(model.inverse_transform(beta), expected, rtol=1e-8, atol=1e-8)


def test_kwok_tsang_recovers_training_rows_with_every_component():
    """With all n - 1 components the point of a training row is phi(x_i) itself: its
    distances to the neighbours are exact, so the pre-image is x_i."""
    X = data(25)
    model = KernelPCA(24, gamma=0.3, preimage="kwok-tsang").fit(X)
    np.testing.assert_allclose(model.inverse_transform(model.transform(X)), X, atol=1e-5)


def test_kwok_tsang_warns_and_counts_when_it_clips():
    """Review 2 of chapter 15, item 6: scores far outside the data put some neighbours at
    a feature-space distance d~^2 >= 2 (kernel value <= 0), which no data point has; the
    old code clipped the kernel value silently and returned an arbitrary point."""
    rng = np.random.default_rng(0)
    angle = rng.uniform(0.0, 2 * np.pi, 400)
    radius = np.where(np.arange(400) % 2 == 0, 1.0, 3.0)
    X = radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    X += 0.15 * rng.standard_normal(X.shape)
    model = KernelPCA(4, preimage="kwok-tsang").fit(X)
    far = 10 * model.transform(X[:5])
    with pytest.warns(UserWarning, match=r"Kwok-Tsang pre-image is not meaningful for 5 point"):
        model.inverse_transform(far)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.inverse_transform(model.transform(X[:5]))  # near the data: no warning
    # the function itself: a neighbour at d~^2 = 2.5 is counted, d~^2 = 1.5 is not
    distances = np.array([[2.5, 0.1, 0.2, 0.3], [1.5, 0.1, 0.2, 0.3]])
    points, clipped = preimages.kwok_tsang_preimage(distances, X[:4], 1.0)
    assert clipped == 1 and points.shape == (2, 2)


# -- blocks: bounded memory -----------------------------------------------------------------


@pytest.mark.parametrize("method", ["fixed-point", "kwok-tsang", "learned"])
def test_preimages_are_blocked(method, monkeypatch):
    """Pre-images of 400 points against 200 reference rows: with blocks of 2**12
    entries, the peak traced memory stays under 0.25 MB (the 400 x 200 weights alone
    are 0.64 MB, and the previous code held two such matrices), and the result is the
    unblocked one."""
    X, Z = data(200), data(400, seed=4)
    model = KernelPCA(3, gamma=0.3, preimage=method).fit(X)
    beta = model.transform(Z)
    whole = model.inverse_transform(beta)
    monkeypatch.setattr("pcalib._linalg.constants.KERNEL_BLOCK_ENTRIES", 2**12)
    tracemalloc.start()
    blocked = model.inverse_transform(beta)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.25e6 + 2 * blocked.nbytes, peak
    np.testing.assert_allclose(blocked, whole, rtol=1e-12, atol=1e-12)


# -- Nystrom: below the exact eigenvalues, and the trace bound ------------------------------


@pytest.mark.theorem("prop-kpca-nystrom-below")
def test_nystrom_eigenvalues_never_exceed_the_exact_ones():
    """K - C W^+ C^T is positive semi-definite, so every eigenvalue of the centered
    Nyström kernel is at most the exact one, and their total shortfall is at most
    trace_error_ = tr(K - C W^+ C^T) (computed here in NumPy), over seeds and sizes."""
    X = data(300)
    exact = np.linalg.eigvalsh(pcalib.double_center(rbf(X, X, 0.3)))[::-1]
    for m in (5, 10, 20, 40, 80):
        for seed in range(5):
            model = KernelPCA(5, gamma=0.3, n_landmarks=m, random_state=seed).fit(X)
            L = X[model.landmarks_]
            C = rbf(X, L, 0.3)
            approx = C @ np.linalg.pinv(rbf(L, L, 0.3), rtol=1e-8, hermitian=True) @ C.T
            trace = float(np.trace(rbf(X, X, 0.3) - approx))
            assert model.trace_error_ == pytest.approx(trace, rel=1e-6, abs=1e-9)
            shortfall = exact[:5] - model.eigenvalues_
            assert np.all(shortfall >= -1e-9 * exact[0])
            assert shortfall.sum() <= model.trace_error_ + 1e-9


# -- which solver ran -----------------------------------------------------------------------


def test_solver_says_which_route_ran(monkeypatch):
    X = data(600)
    assert KernelPCA(3, gamma=0.3).fit(X).solver_ == "krylov"  # n > 512, 40k <= n
    assert KernelPCA(3, gamma=0.3).fit(X[:300]).solver_ == "dense"
    assert KernelPCA(3, gamma=0.3, n_landmarks=50, random_state=0).fit(X).solver_ == "nystrom"
    reference = KernelPCA(3, gamma=0.3).fit(X).eigenvalues_
    monkeypatch.setattr(algebra, "krylov_top_operator", lambda *args, **kwargs: None)
    fallback = KernelPCA(3, gamma=0.3).fit(X)
    assert fallback.solver_ == "lanczos"
    np.testing.assert_allclose(fallback.eigenvalues_, reference, rtol=1e-9)
    assert fallback.n_components_ == 3


def test_iterative_routes_stop_at_the_cost_of_lapack_on_a_clustered_spectrum(monkeypatch):
    # A centered kernel whose n - 1 eigenvalues are evenly spaced in [0.999, 1]: gaps of
    # 1/n of the spread, where neither block Krylov nor Lanczos reaches the 1e-10
    # residual within the cost of one LAPACK solve (the LLE kernel of a swiss roll at
    # n = 1000 has such a cluster: Lanczos restarted 1000 times, 28,000 products, over
    # 100 s). Before the caps, Krylov took n/3 columns and Lanczos was uncapped.
    n, k = 520, 2
    draw = np.random.default_rng(0).standard_normal((n, n - 1))
    V = np.linalg.qr(draw - draw.mean(axis=0))[0]               # orthonormal, V^T 1 = 0
    nu = np.linspace(1.0, 0.999, n - 1)
    K = (V * nu) @ V.T
    K = (K + K.T) / 2
    real_krylov, real_lanczos = algebra.krylov_top_operator, algebra.lanczos_top_operator
    columns, products = [], []

    def counting(solver, spent):
        def run(times, *args, **kwargs):
            def counted(Q):
                spent.append(Q.shape[1])
                assert sum(spent) <= n // 5, "an iterative route past the cost of LAPACK"
                return times(Q)
            return solver(counted, *args, **kwargs)
        return run

    monkeypatch.setattr(algebra, "krylov_top_operator", counting(real_krylov, columns))
    monkeypatch.setattr(algebra, "lanczos_top_operator", counting(real_lanczos, products))
    fit = KernelPCA(k, kernel="precomputed").fit(K)
    assert fit.solver_ == "dense" and sum(columns) > 0 and sum(products) > 0
    np.testing.assert_allclose(fit.eigenvalues_, nu[:k], rtol=1e-12)

"""Side-by-side timings and accuracy of pcalib against its peers.

Run ``python -m tests.benchmarks`` (full sizes, a few minutes on 2 cores) or
``python -m tests.benchmarks --quick``; ``--shapes`` (with or without ``--quick``)
compares "auto" with scikit-learn's three dense solvers on wide, square and tall
shapes, k = 5, 10, 50, decaying and flat spectra; ``--arpack`` compares exact "auto"
with scikit-learn's exact ``svd_solver="arpack"`` on the same shapes, and ``--tol``
``PCA(k, tol=...)``, at the largest tol as accurate as scikit-learn's default, with
that default (issue 35); ``--robust`` times RobustPCA's three methods at 10,000 x 50
and 200 x 2000 (chapter *Outliers and robust PCA*); ``--scale`` runs the cases of the
chapter
*PCA at scale* instead (Dask 1,000,000 x 200 from an on-disk .npy stack against
dask-ml and pcalib in memory; partial_fit on 100 batches against scikit-learn's
IncrementalPCA; sparse 100,000 x 20,000 at 0.1% against scikit-learn's arpack, with
peak memory; then the tall in-memory fits 1,000,000 x 200, 300,000 x 500 and
1,000,000 x 50 against scikit-learn's PCA); ``--kernel`` only the KernelPCA cases
(exact rbf at n = 12000, k = 10, against scikit-learn's arpack; Nystrom at n = 50000).
Not collected by pytest (no ``test_``
prefix). Timings are medians over a few repeats, run alternately in one
process; ratio = ours / peer (below 1 means pcalib is faster). Accuracy is
measured against an exact LAPACK SVD (or eigendecomposition) of the same
centered data:

* ``comp``: max |difference| of sign-aligned components (rows of V^T);
* ``eig``: max relative error of the top-k eigenvalues / squared singular values;
* ``sin``: sine of the largest principal angle between the k-dim subspaces.

Each PCA shape also times a bare "floor" (:func:`floor_pca`: centering, one
``syrk``, an eigensolver), the exact method the issue names as the
reference. No exact method of this kind can be much faster than it, so its
ratio to scikit-learn says what ratio is reachable on the machine at hand.

To see the numpy/scipy OpenBLAS thread-switching effect (the docstring of
``pcalib._linalg.eigen``, "Why one BLAS library"), run it again with ``OPENBLAS_THREAD_TIMEOUT=1`` in the environment.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator

import numpy as np
import scipy.linalg

import pcalib

K = 10


def make_data(n: int, p: int, seed: int, offset: float = 0.0) -> np.ndarray:
    """Seeded data with a decaying 20-dimensional signal plus isotropic noise."""
    rng = np.random.default_rng(seed)
    r = 20
    scales = 10.0 * 0.8 ** np.arange(r)
    X = (rng.standard_normal((n, r)) * scales) @ rng.standard_normal((r, p)) / np.sqrt(p)
    X += rng.standard_normal((n, p))
    if offset:
        X += offset
    return X


# The clock of median_time: wall-clock time, or with --cpu this process's CPU time (then
# with one BLAS thread): CPU seconds are what a shared machine's load changes least.
_CLOCK: Callable[[], float] = time.perf_counter


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = _CLOCK()
        fn()
        times.append(_CLOCK() - t0)
    return statistics.median(times)


def reference_svd(X: np.ndarray, center: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Top-K right singular vectors (sign-aligned later) and all singular values, exact."""
    A = X - X.mean(axis=0) if center else X
    _, s, Vt = scipy.linalg.svd(A, full_matrices=False, lapack_driver="gesdd")
    return Vt[:K], s


def comp_err(V: np.ndarray, Vref: np.ndarray) -> float:
    signs = np.sign(np.sum(V * Vref, axis=1))
    return float(np.max(np.abs(V * signs[:, None] - Vref)))


def sin_theta(V: np.ndarray, Vref: np.ndarray) -> float:
    return float(np.linalg.norm(V - (V @ Vref.T) @ Vref, 2))


def rel_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b) / np.abs(b)))


def row(name: str, t_ours: float, t_peer: float, acc_ours: str, acc_peer: str) -> str:
    return f"{name:<34} {t_ours:8.3f} {t_peer:8.3f} {t_ours / t_peer:6.2f}   {acc_ours:<30} {acc_peer}"


def floor_pca(X: np.ndarray) -> np.ndarray:
    """The issue's reference method, bare: center, form the smaller of X_c^T X_c and
    X_c X_c^T with one ``syrk`` (NumPy's, the faster OpenBLAS build of the two wheels),
    then NumPy's ``?syevd`` up to order 512 (no switch of BLAS library) or SciPy's
    partial ``?syevr`` for the top K; no validation, no sign convention, no Krylov
    attempt. Returns the K axes (rows)."""
    n, p = X.shape
    Xc = X - X.mean(axis=0)
    m = min(n, p)
    G = Xc.T @ Xc if n >= p else Xc @ Xc.T
    if m <= 512:
        w, U = np.linalg.eigh(G)
        w, U = w[::-1][:K], U[:, ::-1][:, :K]
    else:
        w, U = scipy.linalg.eigh(G, subset_by_index=[m - K, m - 1], driver="evr",
                                 overwrite_a=True, check_finite=False)
        w, U = w[::-1], U[:, ::-1]
    return U.T if n >= p else (Xc.T @ (U / np.sqrt(w))).T


def bench_pca(shapes: list[tuple[int, int, float]], repeats: int) -> list[str]:
    from sklearn.decomposition import PCA as SkPCA

    lines = []
    for n, p, offset in shapes:
        X = make_data(n, p, seed=n + p, offset=offset)
        Vref, s = reference_svd(X)
        ev_ref = s[:K] ** 2 / (n - 1)
        ours, peer = pcalib.PCA(K), SkPCA(K, random_state=0)
        floor = {}
        t_o, t_p, t_f = [], [], []
        for _ in range(repeats):  # alternate, so all see the same machine load
            t_o.append(median_time(lambda: ours.fit(X), 1))
            t_p.append(median_time(lambda: peer.fit(X), 1))
            t_f.append(median_time(lambda: floor.__setitem__("V", floor_pca(X)), 1))
        acc = [
            f"comp {comp_err(est.components_, Vref):.1e} eig {rel_err(est.explained_variance_, ev_ref):.1e}"
            for est in (ours, peer)
        ]
        label = f"PCA({K}).fit {n}x{p}" + (f" +{offset:.0e}" if offset else "")
        lines.append(row(label, statistics.median(t_o), statistics.median(t_p), *acc))
        lines[-1] += f"   [ours: {ours.solver_}, sklearn: {peer._fit_svd_solver}]"
        lines.append(row("  floor: Gram + eigh, bare", statistics.median(t_f), statistics.median(t_p),
                         f"comp {comp_err(floor['V'], Vref):.1e}", "(the issue's reference method)"))
    return lines


def bench_randomized(n: int, p: int, repeats: int) -> list[str]:
    from sklearn.utils.extmath import randomized_svd as sk_rsvd

    X = make_data(n, p, seed=7)
    A = X - X.mean(axis=0)
    Vref, s = reference_svd(A, center=False)
    res = {}
    t_o, t_p = [], []
    for _ in range(repeats):
        t_o.append(median_time(lambda: res.__setitem__("o", pcalib.randomized_svd(A, K, random_state=0)), 1))
        t_p.append(median_time(lambda: res.__setitem__("p", sk_rsvd(A, K, random_state=0)), 1))
    acc = [
        f"sin {sin_theta(res[key][2], Vref):.1e} sv {rel_err(res[key][1], s[:K]):.1e}" for key in ("o", "p")
    ]
    return [row(f"randomized_svd k={K} {n}x{p}", statistics.median(t_o), statistics.median(t_p), *acc)]


def bench_pcoa(n: int, repeats: int) -> list[str]:
    pcoa = getattr(pcalib, "pcoa", None)
    if pcoa is None:
        return [f"pcoa {n}x{n}: skipped, pcalib.pcoa is not available yet"]
    from scipy.spatial.distance import pdist, squareform
    from skbio import DistanceMatrix
    from skbio.stats.ordination import pcoa as sk_pcoa

    Y = make_data(n, 50, seed=11)
    D = squareform(pdist(Y))
    dm = DistanceMatrix(D, validate=False)
    B = -0.5 * (D**2)
    B -= B.mean(axis=0)
    B -= B.mean(axis=1)[:, None]
    w = scipy.linalg.eigh(B, eigvals_only=True)[::-1][:K]
    lines = []
    res = {}
    for method in ("eigh", "fsvd"):
        t_o, t_p = [], []
        for _ in range(repeats):
            t_o.append(median_time(lambda: res.__setitem__("o", pcoa(D, K)), 1))
            t_p.append(
                median_time(lambda: res.__setitem__("p", sk_pcoa(dm, method=method, dimensions=K)), 1)
            )
        ours = rel_err(np.asarray(res["o"].eigenvalues)[:K], w)
        peer = rel_err(np.asarray(res["p"].eigvals)[:K], w)
        lines.append(
            row(f"pcoa k={K} {n}x{n} vs skbio {method}", statistics.median(t_o), statistics.median(t_p),
                f"eig {ours:.1e}", f"eig {peer:.1e}")
        )
    return lines


def bench_missing(n: int, p: int, repeats: int, rate: float = 0.2, k: int = 5) -> list[str]:
    """Imputation by pcalib (EM, regularized iterative PCA) against mean imputation and
    scikit-learn's IterativeImputer, each followed by a k-component PCA; rank-k signal
    plus unit noise, entries missing completely at random. Accuracy: root mean square
    error on the holes (the noise standard deviation, 1, is the floor)."""
    from sklearn.decomposition import PCA as SkPCA
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer, SimpleImputer

    rng = np.random.default_rng(13)
    X = (rng.standard_normal((n, k)) * 3.0) @ rng.standard_normal((k, p)) + rng.standard_normal((n, p))
    holes = rng.random((n, p)) < rate
    X_holes = np.where(holes, np.nan, X)
    fits = {
        "em": lambda: pcalib.impute_pca(X_holes, k, "em", random_state=0)[0],
        "regularized": lambda: pcalib.impute_pca(X_holes, k, "regularized")[0],
        "mean+PCA": lambda: SimpleImputer().fit_transform(X_holes),
        "IterativeImputer+PCA": lambda: IterativeImputer(random_state=0).fit_transform(X_holes),
    }
    seconds, error = {}, {}
    for name, fit in fits.items():
        result = {}
        seconds[name] = median_time(
            lambda: (result.__setitem__("X", fit()), SkPCA(k).fit(result["X"])),
            1 if name == "IterativeImputer+PCA" else repeats,
        )
        error[name] = float(np.sqrt(np.mean((result["X"] - X)[holes] ** 2)))
    return [
        row(f"missing {ours} vs {peer} {n}x{p}", seconds[ours], seconds[peer],
            f"rmse {error[ours]:.3f} (noise 1)", f"rmse {error[peer]:.3f}")
        for ours in ("em", "regularized")
        for peer in ("mean+PCA", "IterativeImputer+PCA")
    ]


def peak_traced(fn: Callable[[], object]) -> float:
    """Peak memory (MB) that Python allocators saw while fn ran (NumPy's buffers included)."""
    import tracemalloc

    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def bench_dask(n: int, p: int, chunks: int, repeats: int, store: str) -> list[str]:
    """Dask from a chunked on-disk .npy stack (``dask.array.to_npy_stack``) against
    dask-ml's PCA (auto and tsqr) and against pcalib in memory on the same data."""
    import dask.array as da
    from dask_ml.decomposition import PCA as DaskMlPCA

    X = make_data(n, p, seed=21, offset=1e3)
    Vref, s = reference_svd(X)
    da.to_npy_stack(store, da.from_array(X, chunks=(n // chunks, p)))
    D = da.from_npy_stack(store, mmap_mode="r")
    res: dict[str, object] = {}
    cases = {
        "pcalib Dask": lambda: res.__setitem__("dask", pcalib.PCA(K).fit(D)),
        "pcalib in memory": lambda: res.__setitem__("mem", pcalib.PCA(K).fit(X)),
        "dask-ml auto": lambda: res.__setitem__("auto", DaskMlPCA(K, random_state=0).fit(D)),
        "dask-ml tsqr": lambda: res.__setitem__("tsqr", DaskMlPCA(K, svd_solver="tsqr").fit(D)),
    }
    times = {name: [] for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            times[name].append(median_time(fn, 1))
    t = {name: statistics.median(v) for name, v in times.items()}
    err = {key: f"comp {comp_err(est.components_, Vref):.1e}" for key, est in res.items()}
    label = f"Dask {n}x{p}, {chunks} chunks (npy)"
    return [
        row(f"{label} vs in memory", t["pcalib Dask"], t["pcalib in memory"], err["dask"], err["mem"]),
        row(f"{label} vs dask-ml auto", t["pcalib Dask"], t["dask-ml auto"], err["dask"], err["auto"]),
        row(f"{label} vs dask-ml tsqr", t["pcalib Dask"], t["dask-ml tsqr"], err["dask"], err["tsqr"]),
    ]


def bench_partial_fit(n: int, p: int, batches: int, repeats: int) -> list[str]:
    from sklearn.decomposition import IncrementalPCA

    X = make_data(n, p, seed=22, offset=1e3)
    Vref, _ = reference_svd(X)
    parts = np.array_split(X, batches)
    res: dict[str, object] = {}

    def stream(est: object, key: str) -> None:
        for batch in parts:
            est.partial_fit(batch)
        est.components_  # noqa: B018 (timed: pcalib solves for the fit when it is first read)
        res[key] = est

    t_o, t_p = [], []
    for _ in range(repeats):
        t_o.append(median_time(lambda: stream(pcalib.PCA(K), "o"), 1))
        t_p.append(median_time(lambda: stream(IncrementalPCA(K), "p"), 1))
    acc = [f"comp {comp_err(res[key].components_, Vref):.1e}" for key in ("o", "p")]
    return [row(f"partial_fit {batches} batches {n}x{p} vs IPCA", statistics.median(t_o),
                statistics.median(t_p), *acc)]


def bench_sparse(n: int, p: int, density: float, repeats: int, check: tuple[int, int]) -> list[str]:
    """Sparse CSR against scikit-learn's arpack PCA (timed at n x p); accuracy of both
    against an exact dense SVD at the smaller shape `check`, where it fits in memory;
    peak traced memory of pcalib's fit against the size of the CSR arrays."""
    import scipy.sparse as sp
    from sklearn.decomposition import PCA as SkPCA

    def sparse(rows: int, cols: int, seed: int) -> sp.csr_matrix:
        rng = np.random.default_rng(seed)
        A = sp.random(rows, cols, density=density, format="csr", random_state=rng)
        return (A @ sp.diags(np.exp(-np.arange(cols) / (cols / 20)) + 0.1)).tocsr()

    lines = []
    for (rows, cols), reps in ((check, 1), ((n, p), repeats)):
        A = sparse(rows, cols, seed=23)
        res: dict[str, object] = {}
        t_o, t_p = [], []
        for _ in range(reps):
            t_o.append(median_time(lambda: res.__setitem__("o", pcalib.PCA(K).fit(A)), 1))
            t_p.append(median_time(lambda: res.__setitem__("p", SkPCA(K, svd_solver="arpack").fit(A)), 1))
        if (rows, cols) == check:
            Vref, _ = reference_svd(A.toarray())
            acc = [f"comp {comp_err(res[key].components_, Vref):.1e}" for key in ("o", "p")]
        else:
            acc = ["(accuracy: row above)", ""]
        csr_mb = (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 1e6
        peak = peak_traced(lambda: pcalib.PCA(K).fit(A))
        lines.append(row(f"sparse {rows}x{cols} {density:.1%} vs arpack", statistics.median(t_o),
                         statistics.median(t_p), *acc)
                     + f"   [peak {peak:.0f} MB, CSR {csr_mb:.0f} MB, dense {rows * cols * 8 / 1e6:.0f} MB]")
    return lines


def robust_data(n: int, p: int, k: int = 5, rate: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian data with a k-dimensional signal (scales 10 to 5 over unit noise, in a
    random basis) and `rate` of the rows replaced by a far cluster off the signal's
    subspace; returns the data and the true axes (rows)."""
    rng = np.random.default_rng(0)
    scales = np.r_[np.linspace(10.0, 5.0, k), np.ones(p - k)]
    Q = np.linalg.qr(rng.standard_normal((p, p)))[0]
    X = (rng.standard_normal((n, p)) * scales) @ Q.T
    bad = int(rate * n)
    X[:bad] = 30.0 * Q[:, k] + rng.standard_normal((bad, p))  # off the subspace
    return X, Q[:, :k].T


def bench_robust(n: int, p: int, repeats: int, k: int = 5, rate: float = 0.1) -> list[str]:
    """RobustPCA(k) ROBPCA against scikit-learn's MinCovDet (then the top k eigenvectors
    of its covariance) on :func:`robust_data`. Accuracy: the sine of the largest
    principal angle to the true subspace, and the share of planted rows flagged
    (MinCovDet: its support_ excludes them)."""
    from sklearn.covariance import MinCovDet

    X, true = robust_data(n, p, k, rate)
    bad = int(rate * n)
    ours = pcalib.RobustPCA(k, random_state=0)
    peer = MinCovDet(random_state=0)
    t_ours = median_time(lambda: ours.fit(X), repeats)
    t_peer = median_time(lambda: peer.fit(X), repeats)
    V_peer = np.linalg.eigh(peer.covariance_)[1][:, ::-1][:, :k].T
    acc_ours = f"sin {sin_theta(ours.components_, true):.1e} flagged {ours.outliers_[:bad].mean():.0%}"
    acc_peer = f"sin {sin_theta(V_peer, true):.1e} flagged {(~peer.support_[:bad]).mean():.0%}"
    return [row(f"RobustPCA({k}) robpca {n}x{p}", t_ours, t_peer, acc_ours, acc_peer)]


def bench_kernel(n: int, n_big: int, landmarks: int, repeats: int, k: int = 10) -> list[str]:
    """KernelPCA(k), Gaussian kernel (median-heuristic gamma), on ``make_data(n, 20)``:
    exact route against scikit-learn's KernelPCA(eigen_solver="arpack"), both
    ``fit_transform``, timed alternately. Accuracy of each side: the largest residual
    ||H K H u_j - nu_j u_j|| / nu_1 of its k eigenpairs, with K formed by scikit-learn's
    ``rbf_kernel`` (a bound on each eigenvalue error, relative to nu_1; no reference
    eigensolve of the n x n matrix needed), and the largest relative difference of the
    two sides' eigenvalues. Then Nystrom with `landmarks` landmarks on
    ``make_data(n_big, 20)`` against scikit-learn's Nystroem features + PCA(k), with
    pcalib's peak traced memory; accuracy on a subsample of 2000 rows: the relative
    Frobenius error of the Nystrom kernel, and the largest relative difference of the
    k variances (divisor n - 1) from exact kernel PCA of those rows (sampling error
    included)."""
    from sklearn.decomposition import PCA as SkPCA
    from sklearn.decomposition import KernelPCA as SkKernelPCA
    from sklearn.kernel_approximation import Nystroem
    from sklearn.metrics.pairwise import rbf_kernel

    X = make_data(n, 20, seed=17)
    gamma = pcalib.kernel.median_heuristic_gamma(X)
    ours = pcalib.KernelPCA(k, gamma=gamma)
    peer = SkKernelPCA(k, kernel="rbf", gamma=gamma, eigen_solver="arpack", random_state=0)
    scores: dict[str, np.ndarray] = {}
    t_ours, t_peer = alternate_times(lambda: scores.__setitem__("ours", ours.fit_transform(X)),
                                     lambda: peer.fit_transform(X), repeats)
    K = rbf_kernel(X, gamma=gamma)
    res_ours = centered_kernel_residual(K, ours.eigenvalues_,
                                        scores["ours"] / np.sqrt(ours.eigenvalues_))
    res_peer = centered_kernel_residual(K, peer.eigenvalues_, peer.eigenvectors_)
    del K
    agree = rel_err(ours.eigenvalues_, peer.eigenvalues_)
    lines = [row(f"KernelPCA({k}) rbf n={n} ({ours.solver_})", t_ours, t_peer,
                 f"res {res_ours:.1e} (eig diff {agree:.0e})", f"res {res_peer:.1e}")]
    Y = make_data(n_big, 20, seed=18)
    gamma = pcalib.kernel.median_heuristic_gamma(Y)
    nys = pcalib.KernelPCA(k, gamma=gamma, n_landmarks=landmarks, random_state=0)
    sk_nys = Nystroem(gamma=gamma, n_components=landmarks, random_state=0)
    sk_pca = SkPCA(k)
    t_ours, t_peer = alternate_times(lambda: nys.fit(Y), lambda: sk_pca.fit(sk_nys.fit_transform(Y)), repeats)
    peak = peak_traced(lambda: pcalib.KernelPCA(k, gamma=gamma, n_landmarks=landmarks, random_state=0).fit(Y))
    sub = np.random.default_rng(19).choice(n_big, 2000, replace=False)
    K_sub = rbf_kernel(Y[sub], gamma=gamma)
    C = rbf_kernel(Y[sub], nys.X_fit_, gamma=gamma)
    approx = C @ np.linalg.pinv(rbf_kernel(nys.X_fit_, gamma=gamma), rtol=1e-8, hermitian=True) @ C.T
    frob = float(np.linalg.norm(K_sub - approx) / np.linalg.norm(K_sub))
    sub_var = pcalib.KernelPCA(k, gamma=gamma).fit(Y[sub]).explained_variance_
    lines.append(row(f"Nystrom m={landmarks} n={n_big}", t_ours, t_peer,
                     f"K {frob:.1e} var {rel_err(nys.explained_variance_, sub_var):.1e} {peak:.0f}MB",
                     f"var {rel_err(sk_pca.explained_variance_, sub_var):.1e}"))
    return lines


def centered_kernel_residual(K: np.ndarray, nu: np.ndarray, U: np.ndarray) -> float:
    """max_j ||H K H u_j - nu_j u_j|| / nu_1, with H K H U = K U - 1 (kbar^T U) -
    kbar (1^T U) + kbarbar 1 (1^T U) and kbar the column means of K (H K H not formed)."""
    kbar = K.mean(axis=0)
    ones = U.sum(axis=0)
    KU = K @ U - (kbar @ U)[None, :] - np.outer(kbar, ones) + kbar.mean() * ones
    return float(np.linalg.norm(KU - U * nu, axis=0).max() / nu[0])


def alternate_times(ours: Callable[[], object], peer: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median times of `ours` and `peer`, run alternately (ours, peer, ours, ...), so that a
    drift of the machine's speed affects both alike."""
    t_ours, t_peer = [], []
    for _ in range(repeats):
        t_ours.append(median_time(ours, 1))
        t_peer.append(median_time(peer, 1))
    return statistics.median(t_ours), statistics.median(t_peer)


# -- issue 24: every shape against scikit-learn's three solvers (--shapes) -----------------------


def make_spectrum(n: int, p: int, seed: int, kind: str) -> np.ndarray:
    """Seeded data: "decaying" is :func:`make_data` (a 20-dimensional signal, scales
    10 * 0.8^j, over unit noise); "flat" is a 100-dimensional signal of nearly equal
    scales 3 * 0.995^j over unit noise, so that the k-th and (k+1)-th eigenvalues are
    close for every k asked."""
    if kind == "decaying":
        return make_data(n, p, seed)
    rng = np.random.default_rng(seed)
    r = 100
    scales = 3.0 * 0.995 ** np.arange(r)
    X = (rng.standard_normal((n, r)) * scales) @ rng.standard_normal((r, p)) / np.sqrt(p)
    X += rng.standard_normal((n, p))
    return X


def old_auto(n: int, p: int, k: int) -> str:
    """The dense route that "auto" took before issue 24 (integer k)."""
    m = min(n, p)
    if m >= 5000 and k <= m / 10:
        return "randomized"
    if n * p * m <= 1e6:
        return "svd"
    return "eig" if n >= 4 * p else "gram" if p >= 4 * n else "svd"


def bench_shapes(shapes: list[tuple[int, int]], ks: list[int], kinds: list[str], repeats: int,
                 old: bool) -> Iterator[str]:
    """pcalib's "auto" against scikit-learn's "auto" (its default), "randomized" and
    "arpack" solvers, same data, alternately, median of `repeats`; each side's
    accuracy is the largest entry difference of the sign-aligned axes against an exact
    LAPACK SVD of the centered data (``comp``) and the largest relative error of the
    eigenvalues (``eig``). With `old`, also the route "auto" took before issue 24.
    Yields one line per fit, as soon as it is measured."""
    from sklearn.decomposition import PCA as SkPCA

    for kind in kinds:
        for n, p in shapes:
            X = make_spectrum(n, p, seed=n + p, kind=kind)
            Xc = X - X.mean(axis=0)
            _, s, Vt = scipy.linalg.svd(Xc, full_matrices=False, lapack_driver="gesdd")
            del Xc
            for k in ks:
                ev_ref, Vref = s[:k] ** 2 / (n - 1), Vt[:k]
                ours = pcalib.PCA(k)
                peers = {solver: SkPCA(k, svd_solver=solver, random_state=0)
                         for solver in ("auto", "randomized", "arpack")}
                if old:
                    peers["pcalib before"] = pcalib.PCA(k, solver=old_auto(n, p, k))
                times: dict[str, list[float]] = {name: [] for name in ["ours", *peers]}
                for _ in range(repeats):
                    times["ours"].append(median_time(lambda: ours.fit(X), 1))
                    for name, est in peers.items():
                        times[name].append(median_time(lambda est=est: est.fit(X), 1))

                def accuracy(est: object) -> str:
                    return (f"comp {comp_err(est.components_, Vref):.1e} "
                            f"eig {rel_err(est.explained_variance_, ev_ref):.1e}")

                t_ours = statistics.median(times["ours"])
                label = f"{kind} {n}x{p} k={k}"
                yield f"{label:<30} ours {t_ours:7.3f}s [{ours.solver_}] {accuracy(ours)}"
                for name, est in peers.items():
                    t_peer = statistics.median(times[name])
                    what = name if name == "pcalib before" else f"sklearn {name}"
                    yield f"{'':<4}{what:<26} {t_peer:7.3f}s ratio {t_ours / t_peer:5.2f}  {accuracy(est)}"


# -- issue 35: exact against ARPACK (--arpack), and a certified tolerance (--tol) ---------------


def axis_sines(components: np.ndarray, Vref: np.ndarray) -> np.ndarray:
    """sin of the angle between each axis and the reference's, as ||v - (v.u) u||."""
    cosines = np.sum(components * Vref, axis=1)
    return np.linalg.norm(components - cosines[:, None] * Vref, axis=1)


def bench_arpack(shapes: list[tuple[int, int]], ks: list[int], kinds: list[str], repeats: int) -> Iterator[str]:
    """pcalib's exact "auto" against scikit-learn's exact ``svd_solver="arpack"``, same
    data, alternately, median of `repeats` and the median of the pairwise ratios; each
    side's largest axis error (sine) and eigenvalue error against LAPACK's SVD."""
    from sklearn.decomposition import PCA as SkPCA

    for kind in kinds:
        for n, p in shapes:
            X = make_spectrum(n, p, seed=n + p, kind=kind)
            _, s, Vt = scipy.linalg.svd(X - X.mean(axis=0), full_matrices=False, lapack_driver="gesdd")
            for k in ks:
                ev_ref, Vref = s[:k] ** 2 / (n - 1), Vt[:k]
                ours, peer = pcalib.PCA(k), SkPCA(k, svd_solver="arpack", random_state=0)
                t_o, t_p = [], []
                for _ in range(repeats):
                    t_o.append(median_time(lambda: ours.fit(X), 1))
                    t_p.append(median_time(lambda: peer.fit(X), 1))
                ratio = statistics.median(np.array(t_o) / np.array(t_p))
                acc = [f"sin {axis_sines(est.components_, Vref).max():.1e} "
                       f"eig {rel_err(est.explained_variance_, ev_ref):.1e}" for est in (ours, peer)]
                yield (f"{kind} {n}x{p} k={k:<3} ours {statistics.median(t_o):7.3f}s [{ours.solver_}] "
                       f"arpack {statistics.median(t_p):7.3f}s ratio {ratio:5.2f}   ours {acc[0]}   arpack {acc[1]}")


# The tolerances bench_tol tries, largest first: 1, 2 and 5 per decade, so that the tol it
# settles on is at most 2.5 times tighter than needed.
TOL_GRID = [0.1] + [m * 10.0**-e for e in range(2, 11) for m in (5.0, 2.0, 1.0)]


def variance_deficit(components: np.ndarray, Xc: np.ndarray, s: np.ndarray) -> float:
    r"""The share of the k leading eigenvalues' variance that the k axes miss:
    :math:`1 - \|X_c V\|_F^2 / \sum_{j \le k} s_j^2` (0 for the exact axes, whatever
    the rotation within clusters of equal eigenvalues; below 1e-12 counted as 0, the
    rounding of the products)."""
    k = components.shape[0]
    deficit = 1.0 - float(np.sum((Xc @ components.T) ** 2) / np.sum(s[:k] ** 2))
    return deficit if deficit > 1e-12 else 0.0


def bench_tol(shapes: list[tuple[int, int]], ks: list[int], kinds: list[str], repeats: int) -> Iterator[str]:
    """``PCA(k, tol=...)`` against scikit-learn's default PCA (its randomized SVD on these
    shapes): the largest tol in ``TOL_GRID`` at which pcalib is at least as accurate as
    scikit-learn by two measures against LAPACK's SVD, the largest axis error (sine) and
    the variance deficit (:func:`variance_deficit`: where both miss an axis entirely,
    sine 1, the deficit still tells how far each subspace is from the leading one), then
    both timed alternately (median of the pairwise ratios); with the certified bound
    pcalib reports at that tol."""
    from sklearn.decomposition import PCA as SkPCA

    for kind in kinds:
        for n, p in shapes:
            X = make_spectrum(n, p, seed=n + p, kind=kind)
            Xc = X - X.mean(axis=0)
            _, s, Vt = scipy.linalg.svd(Xc, full_matrices=False, lapack_driver="gesdd")
            for k in ks:
                Vref = Vt[:k]
                peer = SkPCA(k, random_state=0).fit(X)
                target = (axis_sines(peer.components_, Vref).max(), variance_deficit(peer.components_, Xc, s))
                for tol in TOL_GRID:
                    ours = pcalib.PCA(k, tol=tol).fit(X)
                    measured = (axis_sines(ours.components_, Vref).max(), variance_deficit(ours.components_, Xc, s))
                    if matched := measured[0] <= target[0] and measured[1] <= target[1]:
                        break
                t_o, t_p = [], []
                for _ in range(repeats):
                    t_o.append(median_time(lambda: ours.fit(X), 1))
                    t_p.append(median_time(lambda: peer.fit(X), 1))
                ratio = statistics.median(np.array(t_o) / np.array(t_p))
                yield (f"{kind} {n}x{p} k={k:<3} tol={tol:.0e} ours {statistics.median(t_o):7.3f}s "
                       f"[{ours.solver_}] sin {measured[0]:.1e} deficit {measured[1]:.1e} certified "
                       f"{ours.components_bound_.max():.1e}   sklearn default {statistics.median(t_p):7.3f}s "
                       f"sin {target[0]:.1e} deficit {target[1]:.1e}   ratio {ratio:5.2f}"
                       + ("" if matched else "   (less accurate at every tol)"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--scale", action="store_true", help="only the Dask, partial_fit and sparse cases")
    parser.add_argument("--shapes", action="store_true",
                        help="issue 24's shapes against scikit-learn's auto, randomized and arpack")
    parser.add_argument("--kernel", action="store_true", help="only the KernelPCA cases (issue 35)")
    parser.add_argument("--arpack", action="store_true",
                        help="issue 35: exact auto against scikit-learn's arpack on the shapes")
    parser.add_argument("--tol", action="store_true",
                        help="issue 35: PCA(tol=...) as accurate as scikit-learn's default, timed")
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10, 50],
                        help="the numbers of components of --arpack and --tol (default 5 10 50)")
    parser.add_argument("--cpu", action="store_true",
                        help="time CPU seconds with one BLAS thread (a loaded machine) instead of wall-clock")
    args = parser.parse_args(argv)
    if args.cpu:
        from threadpoolctl import threadpool_limits

        global _CLOCK
        _CLOCK = time.process_time
        with threadpool_limits(1):
            return _run(args)
    return _run(args)


def _run(args: argparse.Namespace) -> None:
    if args.kernel:
        print(f"{'case':<34} {'ours s':>8} {'peer s':>8} {'ratio':>6}   {'ours accuracy':<30} peer accuracy")
        for line in bench_kernel(*((2000, 10_000, 300) if args.quick else (12000, 50_000, 1000)),
                                 1 if args.quick else 3):
            print(line, flush=True)
        return
    if args.arpack or args.tol:
        shapes = ([(1000, 10000), (10000, 1000), (2500, 2500), (5000, 2000), (100, 50000)] if args.quick
                  else [(2000, 20000), (20000, 2000), (5000, 5000), (10000, 4000), (200, 100000)])
        bench = bench_arpack if args.arpack else bench_tol
        for line in bench(shapes, args.ks, ["decaying", "flat"], 3):
            print(line, flush=True)
        return
    if args.shapes:
        shapes = ([(1000, 10000), (10000, 1000), (2500, 2500), (5000, 2000), (100, 50000)] if args.quick
                  else [(2000, 20000), (20000, 2000), (5000, 5000), (10000, 4000), (200, 100000)])
        for line in bench_shapes(shapes, [5, 10, 50], ["decaying", "flat"], 3, old=True):
            print(line, flush=True)
        return
    if args.scale:
        import tempfile

        print(f"{'case':<34} {'ours s':>8} {'peer s':>8} {'ratio':>6}   {'ours accuracy':<30} peer accuracy")
        n, p, sparse_shape, check = (
            (200_000, 200, (20_000, 5_000), (4_000, 4_500)) if args.quick
            else (1_000_000, 200, (100_000, 20_000), (10_000, 5_000))
        )
        with tempfile.TemporaryDirectory() as store:
            for line in bench_dask(n, p, 10, 3, store + "/X"):
                print(line, flush=True)
        for line in bench_partial_fit(n, p, 100, 3):
            print(line, flush=True)
        for line in bench_sparse(*sparse_shape, 0.001, 3, check):
            print(line, flush=True)
        tall = [(1_000_000, 200, 0.0), (300_000, 500, 0.0), (1_000_000, 50, 0.0), (1_000_000, 200, 1e3)]
        if args.quick:
            tall = [(n // 5, p, offset) for n, p, offset in tall]
        for line in bench_pca(tall, 3 if args.quick else 7):
            print(line, flush=True)
        return
    if args.quick:
        shapes = [(20000, 50, 0.0), (4000, 400, 0.0), (4000, 800, 0.0), (800, 8000, 0.0), (4000, 400, 1e6)]
        repeats, rsvd_shape, pcoa_n = 3, (4000, 800), 800
        missing_shape = (2000, 100)
    else:
        shapes = [(100000, 50, 0.0), (20000, 1000, 0.0), (20000, 2000, 0.0), (2000, 20000, 0.0), (20000, 1000, 1e6)]
        repeats, rsvd_shape, pcoa_n = 5, (20000, 2000), 3000
        missing_shape = (10000, 100)
    print(f"{'case':<34} {'ours s':>8} {'peer s':>8} {'ratio':>6}   {'ours accuracy':<30} peer accuracy")
    for line in bench_pca(shapes, repeats):
        print(line, flush=True)
    for line in bench_randomized(*rsvd_shape, repeats):
        print(line, flush=True)
    for line in bench_pcoa(pcoa_n, max(3, repeats - 2)):
        print(line, flush=True)
    for line in bench_missing(*missing_shape, repeats):
        print(line, flush=True)
    for line in bench_robust(10_000, 50, 1 if args.quick else 3):
        print(line, flush=True)
    for line in bench_kernel(*((2000, 10_000, 300) if args.quick else (12000, 50_000, 1000)),
                             1 if args.quick else 3):
        print(line, flush=True)



# -- chapter "Categories, counts and compositions" (issue 26): --ca, --mca, --categories ----------


def _term_document(n_docs: int, n_terms: int, density: float, seed: int) -> "scipy.sparse.csr_matrix":
    """Seeded counts with Zipf-like term frequencies; every row and column non-empty."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    nnz = int(density * n_docs * n_terms)
    weights = 1.0 / np.arange(1, n_terms + 1) ** 0.8
    rows = rng.integers(0, n_docs, nnz)
    cols = rng.choice(n_terms, nnz, p=weights / weights.sum())
    band = np.arange(max(n_docs, n_terms))  # one count per row and per column
    X = scipy.sparse.csr_matrix(
        (np.r_[rng.integers(1, 6, nnz), np.ones(band.size)].astype(np.float64),
         (np.r_[rows, band % n_docs], np.r_[cols, band % n_terms])),
        shape=(n_docs, n_terms),
    )
    X.sum_duplicates()
    return X


def _dense_ca_inertias(N: np.ndarray, k: int) -> np.ndarray:
    """Principal inertias from NumPy's SVD of the standardized residuals (first principles)."""
    P = N / N.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    E = (P - np.outer(r, c)) / np.sqrt(np.outer(r, c))
    return np.linalg.svd(E, compute_uv=False)[:k] ** 2


def bench_ca_sparse(n_docs: int, n_terms: int, density: float, repeats: int) -> list[str]:
    """CA of a sparse term-document matrix, 10 axes: time, peak traced memory against the
    sparse matrix's bytes, and eigenvalues against a dense SVD on a 2000 x 1000 slice.

    prince 0.23.0 (a test-only reference, not installed here) cannot take the sparse
    matrix ("Sparse data was passed, but dense data is required"); on the dense
    DataFrame of the same 20,000 x 5,000 table its CA took 9.7-12.2 s with a traced peak
    of 3053 MiB on the 2-core machine, and its randomized SVD returned principal
    inertias 0.2280, 0.2275, 0.2257 where the exact ones are 0.2402, 0.2385, 0.2380.
    """
    import tracemalloc

    X = _term_document(n_docs, n_terms, density, 0)
    nbytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    seconds = median_time(lambda: pcalib.CA(K).fit(X), repeats)
    peaks = []
    for table in (X, X.astype(np.int64)):  # int64 counts: CA converts the values only
        tracemalloc.start()
        pcalib.CA(K).fit(table)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    peak = peaks[0]
    part = X[:2000, :1000]
    keep_r = np.asarray(part.sum(axis=1)).ravel() > 0
    part = part[keep_r]
    part = part[:, np.asarray(part.sum(axis=0)).ravel() > 0]
    sparse_eig = pcalib.CA(K).fit(part).eigenvalues_
    dense_eig = _dense_ca_inertias(part.toarray(), K)
    err = float(np.max(np.abs(sparse_eig - dense_eig)))
    return [
        f"CA sparse {n_docs} x {n_terms}, {100 * density:.1f}% ({X.nnz} nnz), k={K}: "
        f"{seconds:.2f} s, peak {peak / 2**20:.1f} MiB = {peak / nbytes:.2f} x the sparse "
        f"matrix ({nbytes / 2**20:.1f} MiB; int64 counts {peaks[1] / nbytes:.2f} x); "
        f"dense-slice {part.shape[0]} x {part.shape[1]}: "
        f"max |eigenvalue error| {err:.1e}"
    ]


def bench_ca_dense(n_docs: int, n_terms: int, density: float, repeats: int) -> list[str]:
    """CA of one table given dense and given sparse (issue 35: dense within 3x the
    sparse time), 10 axes, timed alternately (median wall seconds, and the CPU seconds
    of the process, all threads); the largest eigenvalue difference between the two on
    the whole table, and each one's error against NumPy's SVD of the standardized
    residuals (first principles) on its leading 2000 x 1000 block."""
    import scipy.sparse

    X = _term_document(n_docs, n_terms, density, 0)
    D = X.toarray()
    cpu = {"dense": 0.0, "sparse": 0.0}

    def timed(name: str, table: object) -> object:
        start = time.process_time()
        fitted = pcalib.CA(K).fit(table)
        cpu[name] += time.process_time() - start
        return fitted

    t_dense, t_sparse = alternate_times(lambda: timed("dense", D), lambda: timed("sparse", X), repeats)
    diff = float(np.max(np.abs(pcalib.CA(K).fit(D).eigenvalues_ - pcalib.CA(K).fit(X).eigenvalues_)))
    part = D[:2000, :1000]
    part = part[part.sum(axis=1) > 0]
    part = part[:, part.sum(axis=0) > 0]
    reference = _dense_ca_inertias(part, K)
    errors = [float(np.max(np.abs(pcalib.CA(K).fit(t).eigenvalues_ - reference)))
              for t in (part, scipy.sparse.csr_matrix(part))]
    return [
        f"CA {n_docs} x {n_terms}, {100 * X.nnz / D.size:.1f}% non-zero, k={K}: dense {t_dense:.2f} s "
        f"(CPU {cpu['dense'] / repeats:.2f} s), sparse {t_sparse:.2f} s (CPU {cpu['sparse'] / repeats:.2f} s), "
        f"ratio {t_dense / t_sparse:.2f} (CPU {cpu['dense'] / cpu['sparse']:.2f}); max |eigenvalue "
        f"difference| {diff:.1e}; on the {part.shape[0]} x {part.shape[1]} block, max |eigenvalue error| "
        f"dense {errors[0]:.1e}, sparse {errors[1]:.1e}"
    ]


def bench_mca(n: int, p: int, levels: int, repeats: int) -> list[str]:
    """MCA of n rows x p categorical columns: time, and eigenvalues against NumPy's SVD
    of the indicator's standardized residuals (dense, first principles); against the
    prince package's MCA on the same DataFrame, where prince is installed (it is not a
    requirement: ``pip install prince`` for this comparison)."""
    rng = np.random.default_rng(1)
    latent = rng.standard_normal((n, 1))
    X = np.column_stack([
        np.digitize(latent[:, 0] * rng.uniform(0.2, 1.0) + rng.standard_normal(n),
                    np.linspace(-1.5, 1.5, levels - 1))
        for _ in range(p)
    ])
    labels = np.array([f"L{v}" for v in range(levels)], dtype=object)[X]  # strings
    seconds = median_time(lambda: pcalib.MCA(K).fit(labels), repeats)
    mca = pcalib.MCA(K).fit(labels)
    Z = np.zeros((n, p * levels))
    Z[np.repeat(np.arange(n), p), (X + levels * np.arange(p)).ravel()] = 1.0
    dense = _dense_ca_inertias(Z, K)
    err = float(np.max(np.abs(mca.eigenvalues_ - dense)))
    lines = [
        f"MCA {n} x {p} columns of {levels} levels (strings), k={K}: {seconds:.2f} s; "
        f"max |eigenvalue error| against the dense indicator's SVD {err:.1e}"
    ]
    try:
        import pandas as pd
        import prince
    except ImportError:
        return lines
    frame = pd.DataFrame(labels, columns=[f"q{j}" for j in range(p)])
    ours, theirs = alternate_times(lambda: pcalib.MCA(K).fit(frame),
                                   lambda: prince.MCA(n_components=K, random_state=0).fit(frame), repeats)
    mine = pcalib.MCA(K).fit(frame).eigenvalues_
    peer = np.asarray(prince.MCA(n_components=K, random_state=0).fit(frame).eigenvalues_)
    lines.append(
        f"  same DataFrame, alternately: pcalib {ours:.2f} s, prince {prince.__version__} {theirs:.2f} s "
        f"(ratio {ours / theirs:.2f}); max |eigenvalue error| pcalib {np.max(np.abs(mine - dense)):.1e}, "
        f"prince {np.max(np.abs(peer - dense)):.1e}"
    )
    return lines


def main_categories(argv: list[str] | None = None) -> bool:
    """Run the chapter's cases if --ca, --mca or --categories is given; return whether it ran."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--ca", action="store_true")
    parser.add_argument("--mca", action="store_true")
    parser.add_argument("--categories", action="store_true")
    parser.add_argument("--quick", action="store_true")
    args, _ = parser.parse_known_args(argv)
    if not (args.ca or args.mca or args.categories):
        return False
    repeats = 1 if args.quick else 3
    if args.ca or args.categories:
        for line in bench_ca_sparse(20_000, 5_000, 0.002, repeats):
            print(line, flush=True)
        for density in (0.002, 0.2, 1.0):  # 1.0 draws: 43% non-zero, the dense route
            for line in bench_ca_dense(6_000 if args.quick else 20_000, 2_000 if args.quick else 5_000,
                                       density, repeats):
                print(line, flush=True)
    if args.mca or args.categories:
        for line in bench_mca(20_000 if args.quick else 100_000, 20, 5, repeats):
            print(line, flush=True)
    return True


# -- chapter "Outliers and robust PCA" (issues 31, 35): --robust ----------------------------------


def bench_robust_methods(shapes: list[tuple[int, int]], repeats: int, k: int = 5) -> list[str]:
    """Issue 35's target: the grid (MAD) at most 5x pcalib's own ROBPCA on the same data
    (:func:`robust_data`, 10% far cluster), the two fitted alternately in one process,
    median wall and CPU seconds; spherical PCA for scale. Accuracy: sine of the largest
    principal angle to the true subspace, share of planted rows flagged."""
    lines = []
    for n, p in shapes:
        X, true = robust_data(n, p, k)
        bad = n // 10
        models = {name: pcalib.RobustPCA(k, method=name, random_state=0) for name in ("robpca", "grid", "spherical")}
        wall: dict[str, list[float]] = {name: [] for name in models}
        cpu: dict[str, list[float]] = {name: [] for name in models}
        for _ in range(repeats):
            for name, model in models.items():
                w0, c0 = time.perf_counter(), time.process_time()
                model.fit(X)
                wall[name].append(time.perf_counter() - w0)
                cpu[name].append(time.process_time() - c0)
        base = statistics.median(wall["robpca"])
        for name, model in models.items():
            t = statistics.median(wall[name])
            lines.append(
                f"RobustPCA({k}) {name:<9} {n}x{p}: {t:7.2f} s (cpu {statistics.median(cpu[name]):7.2f} s), "
                f"{t / base:5.2f}x ROBPCA; sin {sin_theta(model.components_, true):.2f}, "
                f"flagged {model.outliers_[:bad].mean():.0%} of the planted rows"
            )
    return lines


def main_robust(argv: list[str] | None = None) -> bool:
    """Run the robust cases if --robust is given; return whether it ran."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--robust", action="store_true")
    parser.add_argument("--quick", action="store_true")
    args, _ = parser.parse_known_args(argv)
    if not args.robust:
        return False
    shapes = [(2000, 50), (200, 500)] if args.quick else [(10_000, 50), (200, 2000)]
    for line in bench_robust_methods(shapes, 1 if args.quick else 3):
        print(line, flush=True)
    return True


if __name__ == "__main__":
    if not (main_categories() or main_robust()):
        main()

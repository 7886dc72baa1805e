"""PCA of Dask arrays: the one-pass moments route, the implicit Krylov route and TSQR,
equal to NumPy's SVD of the data in memory; a LocalCluster with processes and a worker
memory limit below the size of the data."""

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from pcalib import PCA  # noqa: E402


def signed(V):
    idx = np.argmax(np.abs(V), axis=1)
    return V * np.sign(V[np.arange(V.shape[0]), idx])[:, None]


def exact_pca(X, k, standardize=False, ddof=1):
    """NumPy's SVD of the data centered twice (and standardized): the reference."""
    Xc = X - X.mean(axis=0)
    Xc -= Xc.mean(axis=0)
    if standardize:
        Xc /= np.sqrt((Xc**2).sum(axis=0) / (X.shape[0] - ddof))
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return signed(Vt[:k]), s**2 / (X.shape[0] - ddof)


def data(n=3000, p=12, seed=0, offset=1e9):
    rng = np.random.default_rng(seed)
    rotation = np.linalg.qr(rng.standard_normal((p, p)))[0]
    return rng.standard_normal((n, p)) * 0.7 ** np.arange(p) @ rotation.T + offset * rng.uniform(0.5, 1, p)


@pytest.mark.parametrize("solver", ["auto", "eig", "randomized", "svd"])
@pytest.mark.parametrize("standardize", [False, True])
def test_dask_equals_numpy(solver, standardize):
    X = data()
    V, ev = exact_pca(X, 4, standardize)
    D = da.from_array(X, chunks=(350, 12))
    ours = PCA(4, solver=solver, standardize=standardize).fit(D)
    assert ours.solver_ == {"auto": "eig"}.get(solver, solver)
    assert isinstance(ours.components_, np.ndarray)
    np.testing.assert_allclose(ours.components_, V, atol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_, ev[:4], rtol=1e-10)
    exact_mean = np.array([math.fsum(column) for column in X.T]) / X.shape[0]
    np.testing.assert_allclose(ours.mean_, exact_mean, rtol=4e-16)
    ref = PCA(4, solver="svd", standardize=standardize).fit(X)
    scores = ours.transform(D)
    assert isinstance(scores, da.Array) and scores.chunks[0] == D.chunks[0]
    np.testing.assert_allclose(scores.compute(), ref.transform(X), atol=1e-9)
    np.testing.assert_allclose(ours.fit_transform(D).compute(), ref.transform(X), atol=1e-9)
    np.testing.assert_allclose(ours.score_samples(D).compute(), ref.score_samples(X), rtol=1e-9)
    back = ours.inverse_transform(scores)
    assert isinstance(back, da.Array)
    np.testing.assert_allclose(back.compute(), ref.inverse_transform(ref.transform(X)), rtol=1e-14)


def test_threads_scheduler_runs_chunks_with_one_blas_thread(monkeypatch, all_blas_threads):
    """Under Dask's threads scheduler the chunk tasks run while BLAS is limited to one
    thread (seen from inside a task), and the counts are back after the fit; with
    fewer Dask workers than cores BLAS keeps its threads. Same axes either way."""
    import dask

    import pcalib._inputs.matrix as inputs
    import pcalib._utils.threads as threads

    if threads._blas() is None or threads.blas_threads() < 2:
        pytest.skip("BLAS threads cannot be limited here (no threadpoolctl, or one thread)")
    counts = [lib.num_threads for lib in threads._blas().lib_controllers]
    seen = []
    moments = inputs.Moments.of_rows

    def spy(block, *, full=True):
        seen.append(max(lib.num_threads for lib in threads._blas().lib_controllers))
        return moments(block, full=full)

    monkeypatch.setattr(inputs.Moments, "of_rows", spy)
    X = data()
    V, ev = exact_pca(X, 3)
    with dask.config.set(scheduler="threads"):
        found = PCA(3, solver="eig").fit(da.from_array(X, chunks=(500, 12)))
    assert seen == [1] * 6
    assert [lib.num_threads for lib in threads._blas().lib_controllers] == counts
    seen.clear()
    with dask.config.set(scheduler="threads", num_workers=1):
        alone = PCA(3, solver="eig").fit(da.from_array(X, chunks=(500, 12)))
    assert seen == [max(counts)] * 6
    for est in (found, alone):
        np.testing.assert_allclose(est.components_, V, atol=1e-10)
        np.testing.assert_allclose(est.explained_variance_, ev[:3], rtol=1e-10)


def test_accuracy_guard_uses_tsqr():
    """An eigenvalue below sqrt(eps) lambda_1 lost its digits in the covariance: "auto"
    recomputes it by TSQR, which keeps it to about eps sigma_1 relative to sigma_j."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((4000, 5)) * [1.0, 1e-3, 1e-5, 1e-7, 1e-9] @ np.linalg.qr(rng.standard_normal((5, 5)))[0]
    V, ev = exact_pca(X, 5)
    ours = PCA(5).fit(da.from_array(X, chunks=(500, 5)))
    assert ours.solver_ == "svd"
    np.testing.assert_allclose(ours.explained_variance_, ev, rtol=1e-6)
    np.testing.assert_allclose(ours.components_, V, atol=1e-6)


def test_wide_dask_route():
    """The implicit block Krylov route (taken by "auto" beyond 4096 features; forced
    here on a smaller matrix), columns chunked and rechunked, at an offset of 1e6."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 1200))
    X[:, :4] *= [10.0, 8.0, 6.0, 4.0]
    X += 1e6
    V, ev = exact_pca(X, 3)
    ours = PCA(3, solver="randomized").fit(da.from_array(X, chunks=(100, 400)))
    assert ours.solver_ == "randomized"
    np.testing.assert_allclose(ours.components_, V, atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_, ev[:3], rtol=1e-10)


def test_integer_and_column_chunked_input():
    rng = np.random.default_rng(3)
    X = rng.integers(-(2**40), 2**40, size=(1000, 6)) // (2 ** np.arange(6) * 1000)
    V, ev = exact_pca(X.astype(float), 3)
    ours = PCA(3).fit(da.from_array(X, chunks=(128, 2)))
    np.testing.assert_allclose(ours.components_, V, atol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_, ev[:3], rtol=1e-10)


def test_uint8_genotype_codes_on_the_wide_route():
    """0/1/2 codes stored as uint8 (genotypes), wide route (diagonal moments only):
    the squares are taken in float64, never in uint8 (which wrapped around: explained
    variance ratio 0.377 against 0.030), and the means are exact. The route is forced
    by solver="randomized", so 200 columns do as well as 1200 (whose reference SVD cost
    six times the rest); the 500-row chunks are what make uint8 sums wrap."""
    rng = np.random.default_rng(4)
    G = rng.choice(3, (1000, 200), p=[0.8, 0.15, 0.05]).astype(np.uint8)  # means round to 0
    G[:, :3] = (rng.standard_normal((1000, 1)) > 0) * np.array([2, 2, 1], dtype=np.uint8)  # a shared signal
    V, ev = exact_pca(G.astype(float), 4)
    ours = PCA(3, solver="randomized").fit(da.from_array(G, chunks=(500, 200)))
    np.testing.assert_allclose(ours.mean_, G.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(ours.explained_variance_, ev[:3], rtol=1e-9)
    np.testing.assert_allclose(ours.components_, V[:3], atol=1e-7)


def test_bad_dask_input():
    X = data(200, 4)
    X[137, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinity \(the first, nan, at position \(137, 2\)\)"):
        PCA(2).fit(da.from_array(X, chunks=(50, 4)))
    with pytest.raises(TypeError, match="complex"):
        PCA(2).fit(da.zeros((10, 3), dtype=complex))
    unknown = da.from_array(data(200, 4), chunks=(50, 4))
    unknown = unknown[unknown[:, 0] > -np.inf]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        PCA(2).fit(unknown)
    with pytest.raises(ValueError, match="solver='gram' needs the dask data"):
        PCA(2, solver="gram").fit(da.from_array(data(200, 4), chunks=(50, 4)))
    with pytest.raises(ValueError, match="2-D"):
        PCA(2).fit(da.zeros((10,)))
    # a chunk whose values differ from the declared dtype: read as float64 all the same
    mixed = da.concatenate([da.from_array(np.arange(20.0).reshape(10, 2) ** 2, chunks=5),
                            da.from_array(np.arange(20).reshape(10, 2), chunks=5)])
    dense = np.vstack([np.arange(20.0).reshape(10, 2) ** 2, np.arange(20).reshape(10, 2)])
    np.testing.assert_allclose(PCA(2).fit(mixed).components_, exact_pca(dense, 2)[0], atol=1e-12)


def test_dask_is_imported_only_for_dask_input():
    code = (
        "import sys, numpy as np, scipy.sparse as sp; import pcalib; "
        "pcalib.PCA(2).fit(np.random.default_rng(0).standard_normal((50, 4))); "
        "pcalib.PCA(2).partial_fit(np.ones((3, 4)) * np.arange(3)[:, None] + np.arange(4)); "
        "pcalib.PCA(1).fit(sp.random(20, 4, density=0.5, format='csr', random_state=0)); "
        "assert 'dask' not in sys.modules, sorted(m for m in sys.modules if 'dask' in m)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _chunk(i, rows, p, offset):
    """Block i of the cluster test's data, generated where it is used (from its seed)."""
    rng = np.random.default_rng(1000 + i)
    scales = 0.8 ** np.arange(p)
    return rng.standard_normal((rows, p)) * scales + offset


@pytest.mark.slow
def test_local_cluster_with_processes_and_a_memory_limit_below_the_data():
    """One worker process limited to 400 MiB fits 480 MB of data (never all of it in
    memory: each chunk is generated, reduced to its moments and dropped), in one pass,
    equal to NumPy's eigendecomposition of the exactly centered scatter matrix of the
    same data in memory, to 1e-10. One worker is the smallest cluster that proves it:
    the data cross a process boundary only as moments, and no worker could hold them.
    (Two workers took about 25 s on a quiet 2-core machine, most of it starting the
    worker processes.)"""
    distributed = pytest.importorskip("distributed")
    import dask

    # A worker holds about 220 MiB once NumPy, SciPy and pcalib are loaded and a task
    # has run; at 300 MiB it paused (Dask pauses at 80%) and the fit could hang.
    rows, p, chunks, offset = 50_000, 30, 40, 1e6
    limit = 400 * 2**20
    assert rows * p * chunks * 8 > limit
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, memory_limit=limit, dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        blocks = [da.from_delayed(dask.delayed(_chunk)(i, rows, p, offset), (rows, p), dtype=float) for i in range(chunks)]
        X = da.concatenate(blocks)
        pca = PCA(5).fit(X)
        scores_head = pca.transform(X[:1000]).compute()
        workers = cluster.scheduler_info["workers"].values()
        assert len(workers) == 1 and all(w["memory_limit"] == limit for w in workers)
    # the same data in memory, centered twice (the mean to round-off), block by block:
    # the same entries as in one stacked array, without copying 480 MB into it
    blocks = [_chunk(i, rows, p, offset) for i in range(chunks)]
    for _ in range(2):
        mean = sum(block.sum(axis=0) for block in blocks) / (rows * chunks)
        for block in blocks:
            block -= mean
    w, V = np.linalg.eigh(sum(block.T @ block for block in blocks))
    V = signed(V[:, ::-1][:, :5].T)
    np.testing.assert_allclose(pca.components_, V, atol=1e-10)
    np.testing.assert_allclose(pca.explained_variance_, w[::-1][:5] / (rows * chunks - 1), rtol=1e-10)
    np.testing.assert_allclose(scores_head, blocks[0][:1000] @ V.T, atol=1e-9)


def test_int64_column_constant_within_each_chunk_beyond_2_53():
    """Issue 22 item 1 on Dask: chunks constant at 2**62 and 2**62 + 1 are not one value."""
    X = np.c_[2**62 + (np.arange(100) >= 50), np.arange(100) % 3]
    exact = np.linalg.eigvalsh(np.cov((X - 2**62 * np.array([1, 0])).astype(float), rowvar=False))[::-1]
    fitted = PCA(2).fit(da.from_array(X, chunks=(50, 2)))
    np.testing.assert_allclose(fitted.explained_variance_, exact, rtol=1e-12)


@pytest.mark.parametrize("solver", ["svd", "auto"])
def test_fewer_rows_than_columns_in_several_chunks(solver):
    """PCA(9, solver="svd") of a 10 x 20 Dask array in chunks of 2 rows failed inside
    matmul (Dask's TSQR cannot stack wide R factors; issue 22 item 10). Reference:
    NumPy's SVD of the exactly centered data."""
    W = np.random.default_rng(0).standard_normal((10, 20))
    fitted = PCA(9, solver=solver).fit(da.from_array(W, chunks=(2, 20)))
    Wc = W - W.mean(axis=0)
    s = np.linalg.svd(Wc, compute_uv=False)[:9]
    np.testing.assert_allclose(fitted.explained_variance_, s**2 / 9, rtol=1e-10)


def _exactly_centered(X_int: np.ndarray) -> np.ndarray:
    """X minus its column means, each entry computed exactly (Python integers and
    fractions) and rounded once to float64."""
    from fractions import Fraction

    n = X_int.shape[0]
    columns = [[int(v) for v in X_int[:, j]] for j in range(X_int.shape[1])]
    return np.array([[float(v - Fraction(sum(c), n)) for v in c] for c in columns]).T


def _reference_pca(Xc: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (k,) and axes (p, k) of the exactly centered data, by LAPACK's SVD."""
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return s[:k] ** 2 / (Xc.shape[0] - 1), Vt[:k].T


def _check_against_reference(est, Z, Xc, k):
    ev, V = _reference_pca(Xc, k)
    np.testing.assert_allclose(est.explained_variance_, ev, rtol=1e-12)
    signs = np.sign(np.sum(est.components_ * V.T, axis=1))
    np.testing.assert_allclose(est.components_ * signs[:, None], V.T, atol=1e-11)
    np.testing.assert_allclose(np.asarray(Z) * signs, Xc @ V, atol=1e-11 * np.abs(Xc @ V).max())


@pytest.mark.parametrize("solver", ["eig", "svd", "randomized"])
def test_int64_near_2_62_every_route_centers_exactly(solver):
    """Dask's svd and randomized routes centered each chunk with the float64 mean of
    int64 data near 2**62 (rounded by up to 512): lambda was 9e-5 off and the scores of
    transform differed from the exact ones by about 1000 on a spread of 3e5 (issue 22
    item 4). The mean is now kept as the pair (integer shift, mean about it)."""
    rng = np.random.default_rng(22)
    X = (2**62 + rng.integers(-300_000, 300_000, size=(400, 5)) * np.array([1, 2, 3, 1, 1])).astype(np.int64)
    Xc = _exactly_centered(X)
    est = PCA(3, solver=solver, random_state=0)
    Z = est.fit_transform(da.from_array(X, chunks=(100, 5)))
    _check_against_reference(est, Z, Xc, 3)
    _check_against_reference(est, est.transform(da.from_array(X, chunks=(70, 5))), Xc, 3)
    _check_against_reference(est, est.transform(X), Xc, 3)


@pytest.mark.parametrize("solver", ["eig", "svd", "randomized"])
def test_offset_1e15_every_route_centers_exactly(solver):
    """At an offset of 1e15 a float64 mean is rounded by up to 0.06: the randomized
    Dask route's eigenvalues were 2e-6 off (issue 22 item 4) and transform's scores
    0.06 off those of fit_transform, on NumPy data too."""
    rng = np.random.default_rng(15)
    X_int = rng.integers(-2**20, 2**20, size=(400, 4)) * np.array([4, 2, 1, 1])
    X = 1e15 + X_int / 8  # multiples of ulp(1e15) = 1/8: exact, so is the centering below
    Xc = _exactly_centered(X_int) / 8
    for data in (X, da.from_array(X, chunks=(100, 4))):
        est = PCA(2, solver=solver, random_state=0)
        _check_against_reference(est, est.fit_transform(data), Xc, 2)
        _check_against_reference(est, est.transform(data), Xc, 2)



def test_block_krylov_beyond_the_exact_routes_warns_when_it_loses_digits(monkeypatch):
    """Past ``constants.SCATTER_MAX_FEATURES`` features (4096; 64 here, so that the
    data stay small) "auto" fits a Dask array by block Krylov, and TSQR's p x p R is
    too large to recompute it: when lambda_k / lambda_1 < sqrt(eps) the smallest
    eigenvalues are round-off, and a RuntimeWarning says so (it was silent: lambda_7
    and lambda_8 came back as 0 with no word). Data whose lambda_k stands well above
    round-off stay silent."""
    from pcalib._linalg import constants

    monkeypatch.setattr(constants, "SCATTER_MAX_FEATURES", 64)
    rng = np.random.default_rng(0)
    n, p, k = 300, 100, 8
    U = np.linalg.qr(rng.standard_normal((n, 2 * k)))[0]
    V = np.linalg.qr(rng.standard_normal((p, 2 * k)))[0]
    lost = (U * 10.0 ** -np.arange(2 * k, dtype=float)) @ V.T  # lambda_8 / lambda_1 = 1e-14
    with pytest.warns(RuntimeWarning, match=r"lambda_8 / lambda_1 < sqrt\(eps\): the block Krylov "
                      r"route .* \(p = 100 is too large for the exact route\); ask for fewer "
                      r"components, or fit X.compute\(\) in memory"):
        pca = PCA(k).fit(da.from_array(lost, chunks=(100, p)))
    assert pca.solver_ == "randomized"
    kept = (U * np.r_[2.0 ** -np.arange(k), 1e-3 * 0.5 ** np.arange(k)]) @ V.T
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert PCA(k).fit(da.from_array(kept, chunks=(100, p))).solver_ == "randomized"


@pytest.mark.parametrize(("n", "p", "rows_per_chunk"), [(600, 5, 100), (8, 20, 2), (20, 20, 3)])
def test_tsqr_r_removes_a_rank_one_centering_error(n, p, rows_per_chunk):
    r"""DaskMatrix.tsqr_r corrects R for what its centering left of the mean: with the
    chunks centered by a wrong mean, :math:`Y = Y_c + \mathbf 1 \mathbf e^\top`, the
    corrected :math:`(I - \zeta \mathbf h \mathbf h^\top) R` has the singular values
    and right singular vectors of the exactly centered :math:`Y_c` (chapter 11, "Tall
    data: TSQR"). On data that a shift pair centers exactly, :math:`\mathbf h \approx 0`
    and the correction has nothing to do, so it is tested here with an error
    :math:`\mathbf e` as large as the spread. Reference: NumPy's SVD of the centered
    data. Tall, wide and square data all go through Dask's TSQR in several chunks (R only:
    the chunks' R factors stack whatever their number of rows)."""
    from pcalib._inputs.dask import DaskMatrix
    from pcalib._linalg.center import Center

    rng = np.random.default_rng(4)
    X = rng.standard_normal((n, p)) * 0.5 ** np.arange(p) + 3.0
    centered = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(centered, full_matrices=False)
    wrong = Center(np.full(p, 3.0), X.mean(axis=0) - 3.0 + rng.uniform(0.5, 1.0, p))
    R = DaskMatrix(da.from_array(X, chunks=(rows_per_chunk, p)), "X").tsqr_r(wrong, np.ones(p))
    _, s_R, Vt_R = np.linalg.svd(R, full_matrices=False)
    m = min(n, p)
    np.testing.assert_allclose(s_R[:m], s[:m], rtol=1e-12, atol=1e-12 * s[0])
    kept = m - 1 if n <= p else m  # n <= p: the centered data have rank n - 1
    np.testing.assert_allclose(signed(Vt_R[:kept]), signed(Vt[:kept]), atol=1e-10)


@pytest.mark.parametrize(("n", "p", "rows_per_chunk"), [(600, 5, 100), (8, 20, 2)])
def test_tsqr_route_never_forms_q(monkeypatch, n, p, rows_per_chunk):
    r"""The Dask "svd" route (and the accuracy guard of "auto") keeps only R factors:
    asking Dask for Q, even for its column sums :math:`\mathbf h = Q^\top \mathbf 1`,
    makes it hold every chunk's Q factor until the top of the tree, more memory than the
    data. Here computing any chunk of Q raises; the fit must still match NumPy's SVD of
    the centered data (h is read off the R factor of :math:`[Y, \mathbf 1]`)."""
    import dask.array.linalg as dal

    real_tsqr = dal.tsqr

    def poisoned(data, *args, **kwargs):
        Q, R = real_tsqr(data, *args, **kwargs)

        def refuse(block):
            raise AssertionError("the TSQR route computed a chunk of Q")

        return Q.map_blocks(refuse, dtype=Q.dtype), R

    monkeypatch.setattr(dal, "tsqr", poisoned)
    rng = np.random.default_rng(6)
    X = rng.standard_normal((n, p)) * 0.5 ** np.arange(p) + 1e3
    k = min(n - 1, p)
    fit = PCA(k, solver="svd").fit(da.from_array(X, chunks=(rows_per_chunk, p)))
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)[:k]
    np.testing.assert_allclose(fit.singular_values_, s, rtol=1e-9)

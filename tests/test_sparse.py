"""PCA of scipy.sparse input: implicit centering, never densified, equal to the dense fit."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from pcalib import PCA
from pcalib._linalg.center import Center


def signed(V):
    idx = np.argmax(np.abs(V), axis=1)
    return V * np.sign(V[np.arange(V.shape[0]), idx])[:, None]


def exact_pca(dense, k, standardize=False):
    """NumPy's SVD of the centered (standardized) dense matrix: the reference."""
    Xc = dense - dense.mean(axis=0)
    if standardize:
        Xc /= Xc.std(axis=0, ddof=1)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return signed(Vt[:k]), s**2 / (dense.shape[0] - 1)


@st.composite
def sparse_data(draw):
    n = draw(st.integers(5, 80))
    p = draw(st.integers(3, 25))
    density = draw(st.sampled_from([0.05, 0.2, 0.6]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=density, format="lil", random_state=rng, data_rvs=rng.standard_normal)
    X = sp.csr_matrix(X.toarray() * 1.3 ** -np.arange(p))  # distinct column scales: a spread spectrum
    empty_rows = draw(st.lists(st.integers(0, n - 1), max_size=3))
    empty_cols = draw(st.lists(st.integers(0, p - 1), max_size=2))
    X = X.tolil()
    for i in empty_rows:
        X[i, :] = 0
    for j in empty_cols:
        X[:, j] = 0
    fmt = draw(st.sampled_from(["csr", "csc", "csr_array", "coo"]))
    X = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "csr_array": sp.csr_array, "coo": sp.coo_matrix}[fmt](X)
    return X


@given(sparse_data(), st.sampled_from(["auto", "randomized"]))
def test_sparse_equals_dense(X, solver):
    dense = X.toarray()
    n, p = dense.shape
    k = min(3, p, n - 1)
    V, ev = exact_pca(dense, min(n, p))
    assume(ev[k - 1] > 1e-6 * ev[0])
    gaps = -np.diff(ev[: k + 1]) / ev[0]
    assume(gaps.min() > 1e-4)
    ours = PCA(k, solver=solver).fit(X)
    np.testing.assert_allclose(ours.components_, V[:k], atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_, ev[:k], rtol=1e-8)
    np.testing.assert_allclose(ours.mean_, dense.mean(axis=0), atol=1e-14)
    scores = ours.transform(X)
    assert isinstance(scores, np.ndarray)
    np.testing.assert_allclose(scores, (dense - dense.mean(axis=0)) @ V[:k].T, atol=1e-8 * np.sqrt(ev[0]))
    assert dense.tolist() == X.toarray().tolist()  # not modified


@pytest.mark.parametrize("solver", ["auto", "randomized"])
def test_standardize_whiten_score_and_inverse(solver):
    rng = np.random.default_rng(2)
    X = sp.random(400, 12, density=0.3, format="csr", random_state=rng) @ sp.diags(2.0 ** np.arange(12))
    dense = X.toarray()
    ours = PCA(4, solver=solver, standardize=True, whiten=True).fit(X)
    ref = PCA(4, solver="svd", standardize=True, whiten=True).fit(dense)
    V, ev = exact_pca(dense, 4, standardize=True)
    np.testing.assert_allclose(ours.components_, V, atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_, ev[:4], rtol=1e-8)
    np.testing.assert_allclose(ours.transform(X), ref.transform(dense), atol=1e-8)
    np.testing.assert_allclose(ours.fit_transform(X), ref.transform(dense), atol=1e-8)
    np.testing.assert_allclose(ours.score_samples(X), ref.score_samples(dense), rtol=1e-8)
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X)), ref.inverse_transform(ref.transform(dense)), atol=1e-8)
    assert ours.noise_variance_ == pytest.approx(ref.noise_variance_, rel=1e-8)


@pytest.fixture(scope="module")
def wide_sparse():
    """300 x 5000 sparse data and NumPy's references, plain and standardized (the
    columns with more than one stored entry): computed once for both formats (the
    two SVDs of the dense copies were nine tenths of the test)."""
    rng = np.random.default_rng(3)
    X = sp.random(300, 5000, density=0.01, format="csr", random_state=rng)
    X = X @ sp.diags(rng.uniform(0.5, 1.0, 5000)) + sp.random(300, 5000, density=0.001, random_state=rng) * 30
    varying = np.flatnonzero(X.getnnz(axis=0) > 1)  # no constant column to standardize
    return X, exact_pca(X.toarray(), 4), varying, exact_pca(X[:, varying].toarray(), 4, standardize=True)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_wide_sparse_route_is_lanczos_on_the_implicit_covariance(fmt, wide_sparse):
    X, (V, ev), varying, standardized_reference = wide_sparse
    X = X.asformat(fmt)
    ours = PCA(3, solver="randomized").fit(X)
    assert ours.solver_ == "randomized"
    assert (ev[2] - ev[3]) / ev[0] > 1e-3
    np.testing.assert_allclose(ours.components_, V[:3], atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_, ev[:3], rtol=1e-8)
    X = X[:, varying]
    standardized = PCA(3, solver="randomized", standardize=True).fit(X)
    V, ev = standardized_reference
    assert X.shape[1] > 4096 and (ev[2] - ev[3]) / ev[0] > 1e-3
    np.testing.assert_allclose(standardized.components_, V[:3], atol=1e-8)
    np.testing.assert_allclose(standardized.explained_variance_, ev[:3], rtol=1e-8)


def test_wide_route_memory_is_the_csr_arrays_plus_thin_blocks():
    """The issue's bound for the wide route: peak traced memory of fit under twice the
    CSR arrays plus O((n + p) k) (here 8 bytes x (n + p) x 64), never a p x p or n x p matrix."""
    rng = np.random.default_rng(6)
    n, p, k = 6000, 8000, 5
    X = sp.random(n, p, density=0.002, format="csr", random_state=rng)
    X = (X @ sp.diags(np.exp(-np.arange(p) / 400) + 0.1)).tocsr()
    csr_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    tracemalloc.start()
    pca = PCA(k).fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert pca.solver_ == "randomized"
    assert peak < 2 * csr_bytes + 8 * (n + p) * 64, (peak, csr_bytes)
    assert peak < 8 * p * p / 20


@pytest.mark.parametrize("solver", ["auto", "randomized"])
def test_no_dense_copy(solver):
    """Peak memory traced during fit and transform: a fraction of the CSR arrays plus
    O((n + p) k) (and the p x p covariance for the "eig" route), far below the n x p
    dense matrix (80 MB here)."""
    rng = np.random.default_rng(4)
    n, p, k = 40_000, 250, 5
    X = sp.random(n, p, density=0.01, format="csr", random_state=rng)
    csr_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    tracemalloc.start()
    pca = PCA(k, solver=solver).fit(X)
    pca.transform(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    bound = 2 * csr_bytes + 8 * (n + p) * 64 + 8 * 4 * p * p
    assert peak < bound, (peak, bound)
    assert peak < n * p * 8 / 8


def test_bad_sparse_input():
    X = sp.random(20, 5, density=0.5, format="csr", random_state=0)
    bad = X.copy()
    bad.data[3] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        PCA(2).fit(bad)
    with pytest.raises(TypeError, match="complex"):
        PCA(2).fit(X.astype(np.complex128))
    huge = sp.random(5000, 5000, density=1e-4, format="csr", random_state=np.random.default_rng(0))  # RandomState(0): 1.7 s
    for solver in ("gram", "svd"):
        with pytest.raises(ValueError, match=f"solver='{solver}' on sparse data keeps a 5000 x 5000"):
            PCA(2, solver=solver).fit(huge)
    with pytest.raises(ValueError, match="features"):
        PCA(2).fit(X).transform(sp.random(3, 4, density=0.5, format="csr"))
    with pytest.raises(ValueError, match="zero total variance"):
        PCA(1).fit(sp.csr_matrix((4, 3)))
    with pytest.raises(ValueError, match="pass an integer n_components"):
        PCA(0.9).fit(huge)


def test_integer_sparse_counts():
    rng = np.random.default_rng(5)
    counts = sp.random(200, 10, density=0.3, format="csr", random_state=rng, data_rvs=lambda size: rng.integers(1, 50, size))
    counts = counts.astype(np.int64)
    ours = PCA(3).fit(counts)
    V, ev = exact_pca(counts.toarray().astype(float), 3)
    np.testing.assert_allclose(ours.components_, V, atol=1e-8)
    assert ours.components_.dtype == np.float64


def exactly_centered(dense):
    """The dense matrix centered twice (the second pass removes the rounding error of
    the first mean: at an offset of 1e15 a float64 mean is off by about 0.1)."""
    centered = dense - dense.mean(axis=0)
    return centered - centered.mean(axis=0)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("solver", ["auto", "randomized"])
@pytest.mark.parametrize("offset", [1e8, 1e12, 1e15])
def test_dense_columns_far_from_zero_are_shifted(offset, solver, fmt):
    """Issue 22 item 5: full-density sparse data at offset >= 1e8 took the covariance
    X^T X - n mean mean^T and returned eigenvalues wrong by 20x to 1e16x with only a
    warning. The dense columns are now shifted by their means: NumPy's eigh of the
    exactly centered dense matrix, no warning, and transform's scores (x - mean_) V."""
    rng = np.random.default_rng(0)
    dense = rng.standard_normal((500, 8)) @ np.diag([5, 3, 2, 1, 0.5, 0.3, 0.2, 0.1]) + offset
    dense[:, 7] = rng.standard_normal(500) * (rng.uniform(size=500) < 0.05)  # one sparse column
    X = sp.csr_matrix(dense).asformat(fmt)
    centered = exactly_centered(dense)
    w, V = np.linalg.eigh(centered.T @ centered / 499)
    w, V = w[::-1][:4], signed(V[:, ::-1][:, :4].T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pca = PCA(4, solver=solver).fit(X)
        scores = pca.transform(X)
    assert pca.solver_ == ("eig" if solver == "auto" else "randomized")
    np.testing.assert_allclose(pca.explained_variance_, w, rtol=1e-10)
    np.testing.assert_allclose(pca.components_, V, atol=1e-9)
    # transform centers exactly (the fit's shift and the mean about it, not mean_ rounded)
    np.testing.assert_allclose(scores, centered @ pca.components_.T, atol=1e-12 * np.sqrt(w[0]))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("offset", [0.0, 5.0])
def test_auto_guard_takes_the_qr_route_when_the_covariance_loses_digits(offset, fmt):
    """Issue 22 item 5: 2000 x 12 with lambda_12 / lambda_1 = 1e-22 gave the last
    eigenvalues as exactly 0 (the covariance route resolves only eps lambda_1; NumPy's
    and Dask's "auto" switch to the SVD). Sparse "auto" now switches to QR
    factorizations of dense blocks: NumPy's SVD of the exactly centered dense matrix
    (graded columns: both resolve every singular value to about eps of itself)."""
    rng = np.random.default_rng(0)
    rotation = np.linalg.qr(rng.standard_normal((12, 12)))[0]
    dense = rng.standard_normal((2000, 12)) @ rotation * np.logspace(0, -11, 12) + offset
    centered = exactly_centered(dense)
    _, s, Vt = np.linalg.svd(centered, full_matrices=False)
    pca = PCA(12).fit(sp.csr_matrix(dense).asformat(fmt))
    assert pca.solver_ == "svd"
    np.testing.assert_allclose(pca.explained_variance_, s**2 / 1999, rtol=1e-10)
    np.testing.assert_allclose(pca.components_[:6], signed(Vt[:6]), atol=1e-8)


@pytest.mark.parametrize("standardize", [False, True])
@pytest.mark.parametrize(("n", "p"), [(400, 30), (30, 400), (60, 60)])
@pytest.mark.parametrize("solver", ["gram", "svd"])
def test_gram_and_qr_routes_of_sparse_data(solver, n, p, standardize):
    """The sparse Gram route (n x n, from the sparse X X^T) and QR route (dense blocks)
    against NumPy's SVD of the centered (standardized) dense matrix."""
    rng = np.random.default_rng(n + p)
    X = sp.random(n, p, density=0.3, format="csr", random_state=rng)
    X = X @ sp.diags(np.exp(-np.arange(p) / 5) + 0.1)
    k = 5
    V, ev = exact_pca(X.toarray(), k + 1, standardize=standardize)
    assert np.all(np.diff(ev[: k + 1]) / ev[0] < -1e-4)  # distinct: the axes are defined
    pca = PCA(k, solver=solver, standardize=standardize).fit(X)
    assert pca.solver_ == solver
    np.testing.assert_allclose(pca.explained_variance_, ev[:k], rtol=1e-10)
    np.testing.assert_allclose(pca.components_, V[:k], atol=1e-9)
    np.testing.assert_allclose(pca.components_ @ pca.components_.T, np.eye(k), atol=1e-14)


def test_auto_chooses_by_a_cost_model_that_includes_n():
    """Issue 22 item 13: "auto" took Lanczos whenever k <= p / 10 whatever n: 1000 x
    200,000 with 200,000 stored entries took 45 s at k = 100 and 209 s at k = 300
    (ARPACK's k-wide Lanczos vectors of length p), where the n x n Gram route takes
    1.6 s and 3.7 s. A small copy of that shape takes the Gram route and gives NumPy's
    eigenpairs; the cost model prefers Gram for the issue's shape and Lanczos for the
    benchmark's (100,000 x 20,000, 0.1%, k = 10), where neither dense matrix fits."""
    from pcalib.solvers import sparse_route_costs

    def uniform(n, p, nnz, k):
        return sparse_route_costs(n, p, k, np.full(n, nnz / n), np.full(p, nnz / p))

    issue = uniform(1000, 200_000, 200_000, 100)
    assert min(issue, key=issue.get) == "gram" and issue["randomized"] > 20 * issue["gram"]
    assert set(uniform(100_000, 20_000, 2_000_000, 10)) == {"randomized"}
    rng = np.random.default_rng(11)
    X = sp.random(200, 10_000, density=0.002, format="csr", random_state=rng)
    X = X @ sp.diags(np.exp(-np.arange(10_000) / 500) + 0.1)
    pca = PCA(20).fit(X)
    assert pca.solver_ == "gram"
    V, ev = exact_pca(X.toarray(), 21)
    np.testing.assert_allclose(pca.explained_variance_, ev[:20], rtol=1e-10)
    gaps = -np.diff(ev[:21]) / ev[0]
    well_separated = np.flatnonzero(np.minimum(gaps[:20], np.r_[np.inf, gaps[:19]]) > 1e-3)
    np.testing.assert_allclose(pca.components_[well_separated], V[well_separated], atol=1e-8)


@pytest.mark.parametrize("solver", ["auto", "eig", "gram", "svd", "randomized"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize(("n", "p"), [(30, 400), (400, 30), (40, 40), (3, 7), (5, 3)])
def test_every_sparse_route_against_numpy_at_any_k_and_offset(n, p, fmt, solver):
    """Each sparse route, k = 1, m - 1 and m (m = min(n, p); Lanczos k < p), data of
    density 0.3 and 1, half the columns at offset 0 or 1e9, int64, float32 or float64: NumPy's
    SVD of the exactly centered dense matrix (eigenvalues to 1e-9 lambda_1, orthonormal
    axes). A wider sweep of this kind found two faults of the new routes: the Lanczos
    probe raised ARPACK's error -9 when every eigenvalue not 0 had been found (caught
    here on 5 x 3 float32 at 1e9, centered rank 1, k = 1), and the QR route divided by
    a round-off singular value (the next test)."""
    rng = np.random.default_rng(n * p)
    m = min(n, p)
    kinds = ((0.3, 0.0, np.float64), (1.0, 1e9, np.float64), (0.3, 1e9, np.int64), (1.0, 1e9, np.float32))
    for density, offset, dtype in kinds:
        dense = sp.random(n, p, density=density, random_state=rng).toarray() * 10
        dense += offset * (rng.uniform(size=p) < 0.5)
        dense = (np.round(dense) if dtype == np.int64 else dense).astype(dtype)
        centered = exactly_centered(dense.astype(np.float64))  # float32 at 1e9: steps of 64
        if not centered.any():
            continue
        ev = np.linalg.svd(centered, compute_uv=False) ** 2 / (n - 1)
        X = sp.csr_matrix(dense).asformat(fmt)
        for k in sorted({1, m - 1, m} - {0}):
            if solver == "randomized" and k >= p:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                pca = PCA(k, solver=solver).fit(X)
            single = dtype == np.float32  # float32 results
            np.testing.assert_allclose(pca.explained_variance_, ev[:k], rtol=0,
                                       atol=(1e-6 if single else 1e-9) * ev[0])
            axes = pca.components_.astype(np.float64)
            np.testing.assert_allclose(axes @ axes.T, np.eye(k), atol=1e-6 if single else 1e-10)


def test_qr_route_leaves_round_off_singular_values_out_of_the_axes():
    """Found by the test above in float32: 3 x 7 data, five constant columns and two
    varying ones, k = 3 by the QR route. sigma_3 is round-off (centered rank 2), and
    Z_c^T u_3 / sigma_3 was noise in the span of the other axes: the Cholesky step
    failed (LinAlgError). Such sigma_j now get the completion's axes."""
    varying = np.array([[3.1808531284332275, 2.5598881244659424], [4.666538238525391, 1.2932898998260498],
                        [2.296780586242676, 1.9468740224838257]])
    dense = np.full((3, 7), 1e9)
    dense[:, [1, 4]] = varying
    dense = dense.astype(np.float32)
    pca = PCA(3, solver="svd").fit(sp.csr_matrix(dense))
    centered = exactly_centered(dense.astype(np.float64))
    ev = np.linalg.svd(centered, compute_uv=False) ** 2 / 2
    np.testing.assert_allclose(pca.explained_variance_, ev[:3], rtol=0, atol=1e-6 * ev[0])
    axes = pca.components_.astype(np.float64)
    np.testing.assert_allclose(axes @ axes.T, np.eye(3), atol=1e-6)


def test_lanczos_beyond_the_exact_routes_warns_when_it_loses_digits():
    """Issue 22 item 5 where no exact route fits (n and p above 4096): Lanczos resolves
    eigenvalues to 1e-10 lambda_1, so lambda_k / lambda_1 < sqrt(eps) is said in a
    RuntimeWarning instead of returned silently."""
    rng = np.random.default_rng(0)
    X = sp.random(5000, 5000, density=0.001, format="csr", random_state=rng)
    scales = np.full(5000, 1e-6)
    scales[:3] = [3.0, 2.0, 1.0]
    with pytest.warns(RuntimeWarning, match=r"lambda_5 / lambda_1 < sqrt\(eps\): the Lanczos route"):
        pca = PCA(5).fit((X @ sp.diags(scales)).tocsr())
    assert pca.solver_ == "randomized"


def _mean_free_block(seed, rows=150, cols=300):
    """[C; -C]: column means 0, so in a block-diagonal matrix centering leaves the
    blocks uncoupled and their eigenvalues repeat exactly."""
    C = sp.random(rows, cols, density=0.03, format="csr", random_state=np.random.default_rng(seed))
    return sp.vstack([C, -C])


@pytest.mark.parametrize("copies", [2, 3])
def test_lanczos_finds_every_copy_of_a_repeated_eigenvalue(copies):
    """Issue 22 item 6: Lanczos from one start vector found one copy of a repeated
    eigenvalue (block_diag([B, B, B]), k = 6: lambda_1 and lambda_4 thrice each,
    relative errors 3e-2). Deflation finds every copy: the eigenvalues of NumPy's eigh
    of the exactly centered dense matrix, and the axes of each repeated eigenvalue
    span its eigenspace."""
    blocks = [_mean_free_block(1)] * copies + [_mean_free_block(2)] * (3 - copies)
    X = sp.block_diag(blocks).tocsr()
    dense = X.toarray()
    centered = dense - dense.mean(axis=0)
    w, V = np.linalg.eigh(centered.T @ centered / (len(dense) - 1))
    w, V = w[::-1], V[:, ::-1]
    assert np.sum(np.isclose(w[:6], w[0], rtol=1e-12)) == copies  # the multiplicity
    pca = PCA(6, solver="randomized").fit(X)
    assert pca.solver_ == "randomized"
    np.testing.assert_allclose(pca.explained_variance_, w[:6], rtol=1e-9)
    top = V[:, :copies]  # the eigenspace of lambda_1: the same projector
    found = pca.components_[:copies].T
    np.testing.assert_allclose(found @ found.T, top @ top.T, atol=1e-8)


def test_auto_takes_lanczos_from_1024_features_for_few_components():
    """Between 1024 and 4096 features, "auto" on sparse data avoids the p x p covariance
    when k <= p / 10; the two routes give NumPy's axes alike. 1100 features, just past
    the threshold, on 1200 rows: NumPy's SVD of the dense copy, the reference, costs a
    third of what it did at 3000 x 1500 (the gaps below stay above 1e-4: 1.2e-4 at 200)."""
    rng = np.random.default_rng(7)
    X = sp.random(1200, 1100, density=0.01, format="csr", random_state=rng)
    X = (X @ sp.diags(np.exp(-np.arange(1100) / 60) + 0.1)).tocsr()
    V, ev = exact_pca(X.toarray(), 210)
    for k, route in ((5, "randomized"), (200, "eig")):
        assert (ev[k - 1] - ev[k]) / ev[0] > 1e-4
        pca = PCA(k).fit(X)
        assert pca.solver_ == route
        np.testing.assert_allclose(pca.components_, V[:k], atol=1e-8)
    assert PCA(0.5).fit(X).solver_ == "eig"


@pytest.mark.parametrize("fmt", ["csr", "csc", "csr_array", "csc_array"])
@pytest.mark.parametrize("parts", [1, 2, 3])
def test_products_split_between_threads_equal_the_dense_product(monkeypatch, fmt, parts):
    """gram_times with the product cut into `parts` pieces (rows of a CSR matrix, columns
    of a CSC one; half the rows empty) run on threads inside parallel(): equal to
    D^-1 X_c^T X_c D^-1 Q from the dense matrix; the pieces share X's index arrays and
    one float64 copy of its float32 values (float64 values are not copied)."""
    from pcalib._inputs import matrix as _inputs
    from pcalib._inputs import sparse as _sparse_input
    monkeypatch.setattr("pcalib._linalg.constants.SPARSE_PARALLEL_MIN_STORED", 0)
    monkeypatch.setattr(_sparse_input, "cores", lambda: parts)
    rng = np.random.default_rng(8)
    X = sp.random(300, 40, density=0.3, format="csr", random_state=rng, dtype=np.float32)
    X = X.tolil()
    X[:150] = 0
    X = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "csr_array": sp.csr_array, "csc_array": sp.csc_array}[fmt](X)
    data = _inputs.as_matrix(X)
    assert len(data._pieces) == parts
    values = data._compressed.data  # float32 values converted to float64 once
    assert values.dtype == np.float64
    for piece in data._pieces:
        for view in (piece.csr, piece.transposed):
            assert np.shares_memory(view.data, values) and np.shares_memory(view.indices, X.indices)
    X64 = X.astype(np.float64)
    assert np.shares_memory(_inputs.as_matrix(X64)._compressed.data, X64.data)  # no copy
    dense = X.toarray().astype(np.float64)
    mean, scale = dense.mean(axis=0), rng.uniform(0.5, 2.0, 40)
    Q = rng.standard_normal((40, 3))
    Yc = (dense - mean) / scale
    expected = Yc.T @ (Yc @ Q)
    with data.parallel():
        threaded = data.gram_times(Q, Center.of(mean), scale)
    np.testing.assert_allclose(threaded, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_array_equal(data.gram_times(Q, Center.of(mean), scale), threaded)  # same sums, same order


def test_lanczos_runs_with_one_blas_thread_and_threaded_products(monkeypatch, all_blas_threads):
    """The Lanczos route limits BLAS to one thread (ARPACK's vector steps of order p
    would otherwise keep BLAS threads spinning on the cores the sparse products need)
    and runs the products on a pool of threads; both undone afterwards. The route is
    forced and the pool is forced by the threshold, so no size is needed: 1000 features
    (43 products; 5000 gave 68, and a NumPy reference SVD 8 times as costly)."""
    from pcalib._inputs import sparse as _sparse_input
    from pcalib._utils import threads as _threads
    monkeypatch.setattr("pcalib._linalg.constants.SPARSE_PARALLEL_MIN_STORED", 0)
    seen = []
    original = _sparse_input.SparseMatrix.gram_times

    def recording(self, Q, center, scale):
        seen.append((_threads.blas_threads(), self._pool is None))
        return original(self, Q, center, scale)

    assert _threads._blas() is not None, "threadpoolctl (requirements.txt) is needed to limit BLAS"
    monkeypatch.setattr(_sparse_input.SparseMatrix, "gram_times", recording)
    rng = np.random.default_rng(9)
    X = sp.random(400, 1000, density=0.01, format="csr", random_state=rng)
    X = (X @ sp.diags(np.exp(-np.arange(1000) / 50) + 0.1)).tocsr()
    before = _threads.blas_threads()
    pca = PCA(3, solver="randomized").fit(X)
    assert pca.solver_ == "randomized" and len(seen) > 10
    assert all(threads == 1 for threads, _ in seen)
    assert all(serial is (_threads.cores() == 1) for _, serial in seen)
    assert _threads.blas_threads() == before
    V, _ = exact_pca(X.toarray(), 3)
    np.testing.assert_allclose(pca.components_, V, atol=1e-8)


@pytest.mark.parametrize("chunk", [2**20, 4])
def test_constant_columns_of_sparse_moments(monkeypatch, chunk):
    """Constant columns found without the column extremes: no non-zero entry (none
    stored, or explicit zeros only), or all n entries stored and equal; a column of
    equal non-zeros with one zero, or all stored but unequal, is not constant."""
    from pcalib._inputs import matrix as _inputs
    monkeypatch.setattr("pcalib._linalg.constants.SPARSE_SUMS_CHUNK", chunk)  # column sums in one run, or in many
    dense = np.random.default_rng(10).standard_normal((6, 6))
    dense[:, 0] = 0.0
    dense[:, 1] = 0.0  # stored as explicit zeros below
    dense[:, 2] = 2.5
    dense[:, 3] = 2.5
    dense[4, 3] = 0.0
    for fmt in ("csr", "csc"):
        X = getattr(sp, f"{fmt}_matrix")(dense)
        X = X.tocoo()
        rows, cols = np.arange(6), np.full(6, 1)
        X = sp.coo_matrix((np.r_[X.data, np.zeros(6)], (np.r_[X.row, rows], np.r_[X.col, cols])), shape=(6, 6))
        X = X.asformat(fmt)
        X.sum_duplicates()
        assert X[:, 1].nnz == 6
        moments = _inputs.as_matrix(X).moments(full=False)
        np.testing.assert_array_equal(moments.constant, [True, True, True, False, False, False])
        np.testing.assert_array_equal(moments.value[:3], [0.0, 0.0, 2.5])
        np.testing.assert_allclose(moments.data_mean(), dense.mean(axis=0), atol=1e-15)
        np.testing.assert_allclose(moments.scatter, dense.var(axis=0) * 6, rtol=1e-12, atol=1e-14)


@pytest.fixture(scope="module")
def float32_sparse():
    """3000 x 300 float32 sparse data, its float64 dense copy and NumPy's reference of
    that copy (the same values in either format: computed once for the four cases)."""
    rng = np.random.default_rng(11)
    X = sp.random(3000, 300, density=0.02, format="csr", random_state=rng, dtype=np.float32)
    X = (X @ sp.diags(np.exp(-np.arange(300) / 30).astype(np.float32) + 0.1)).tocsr()
    dense = X.toarray().astype(np.float64)
    return X, dense, exact_pca(dense, 4)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("solver", ["eig", "randomized"])
def test_float32_sparse_is_read_in_float64(fmt, solver, float32_sparse):
    """float32 values (single-cell counts are often stored so): the fit is the exact PCA
    of the same values in float64, rounded to float32 (the estimator keeps float32
    input in float32), by both routes and formats. (That the values are converted
    once, not at every product, is checked by the pieces' memory in
    test_products_split_between_threads_equal_the_dense_product.)"""
    X, dense, (V, ev) = float32_sparse
    X = X.asformat(fmt)
    assert X.dtype == np.float32
    assert (ev[2] - ev[3]) / ev[0] > 1e-3
    ours = PCA(3, solver=solver).fit(X)
    assert ours.components_.dtype == ours.explained_variance_.dtype == np.float32
    half_ulp = np.finfo(np.float32).eps / 2
    np.testing.assert_allclose(ours.components_, V[:3], rtol=half_ulp, atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_, ev[:3], rtol=half_ulp + 1e-8)
    scores = ours.transform(X)
    assert scores.dtype == np.float32
    reference = (dense - dense.mean(axis=0)) @ V[:3].T
    # (from the float32 axes: within a few float32 rounding errors of the largest score)
    np.testing.assert_allclose(scores, reference, atol=8 * half_ulp * np.abs(reference).max())


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_a_row_holding_most_entries_leaves_a_piece_empty(monkeypatch, fmt):
    """Cuts by stored entries: one row (column, for CSC) holding 90% of them makes the
    two cuts of three pieces fall on its boundaries, so the middle piece is empty (the
    runs of the column sums can be cut so; the products' pieces are cut here by hand,
    since they hold at least p entries each); the threaded product is still the dense
    one, and so are the column sums."""
    from pcalib._inputs import matrix as _inputs
    from pcalib._inputs import sparse as _sparse_input
    monkeypatch.setattr("pcalib._linalg.constants.SPARSE_SUMS_CHUNK", 1000)
    rng = np.random.default_rng(14)
    dense = np.where(rng.uniform(size=(40, 4000)) < 0.002, rng.standard_normal((40, 4000)), 0.0)
    dense[7] = rng.standard_normal(4000)
    X = sp.csr_matrix(dense) if fmt == "csr" else sp.csc_matrix(dense.T)
    dense = X.toarray()
    data = _inputs.as_matrix(X)
    data._pieces = _sparse_input._row_pieces(data._compressed, 3)
    sizes = [piece.csr.shape[0] for piece in data._pieces]
    assert len(sizes) == 3 and 0 in sizes, sizes
    np.testing.assert_allclose(data.moments(full=False).data_mean(), dense.mean(axis=0), atol=1e-15)
    mean = dense.mean(axis=0)
    Q = rng.standard_normal((dense.shape[1], 2))
    with data.parallel():
        threaded = data.gram_times(Q, Center.of(mean), np.ones(dense.shape[1]))
    expected = (dense - mean).T @ ((dense - mean) @ Q)
    np.testing.assert_allclose(threaded, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())


def test_wide_and_very_sparse_products_stay_on_one_thread(monkeypatch):
    """Each piece of a split product returns a partial result of full length (p for
    CSR): with fewer stored entries than p per piece the split would cost more than
    it saves (measured by a review: 2 pieces 41 ms, 8 pieces 133 ms against 37 ms for
    one, at 2000 x 2,000,000 with 70,000 entries), so such a matrix is not split,
    however many cores there are."""
    from pcalib._inputs import matrix as _inputs
    from pcalib._inputs import sparse as _sparse_input
    monkeypatch.setattr(_sparse_input, "cores", lambda: 8)
    X = sp.random(2000, 2_000_000, density=2e-5, format="csr", random_state=np.random.default_rng(15))
    assert len(_inputs.as_matrix(X)._pieces) == 1
    tall = X.T.tocsr()  # 2,000,000 x 2000: pieces of 2**15 entries, more than 2000 each
    assert len(_inputs.as_matrix(tall)._pieces) == tall.nnz // 2**15 == 2


def stored_twice(matrix):
    """The same CSR or CSC matrix with every entry stored twice, as two halves (a
    non-canonical matrix; built from its arrays, since SciPy's conversions sum
    duplicates)."""
    kind = type(matrix)
    return kind((np.repeat(matrix.data / 2, 2), np.repeat(matrix.indices, 2), 2 * matrix.indptr), shape=matrix.shape)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_entries_stored_twice_are_summed(fmt):
    """A non-canonical matrix storing one position twice means their sum (as SciPy's
    toarray says): the moments square the sum, not each part, and a column of 1.0
    stored as 0.5 + 0.5 is constant."""
    from pcalib._inputs import matrix as _inputs
    rng = np.random.default_rng(16)
    canonical = sp.random(400, 300, density=0.05, format=fmt, random_state=rng)
    twice = stored_twice(canonical)
    assert twice.nnz == 2 * canonical.nnz and not twice.has_canonical_format
    dense = canonical.toarray()
    np.testing.assert_allclose(twice.toarray(), dense, atol=1e-15)
    V, ev = exact_pca(dense, 4)
    for solver in ("randomized", "eig"):
        ours = PCA(3, solver=solver).fit(twice)
        np.testing.assert_allclose(ours.explained_variance_, ev[:3], rtol=1e-8)
        np.testing.assert_allclose(ours.components_, V[:3], atol=1e-8)
    ones = stored_twice(getattr(sp, f"{fmt}_matrix")(np.c_[np.ones(300), np.zeros(300), np.arange(300.0)]))
    moments = _inputs.as_matrix(ones).moments(full=False)
    np.testing.assert_array_equal(moments.constant, [True, True, False])
    np.testing.assert_array_equal(moments.value[:2], [1.0, 0.0])


def test_cores_respect_a_container_cpu_quota(tmp_path, monkeypatch):
    """A container limited to 1.5 CPUs (cgroup v1 quota 150000 us per 100000 us, or v2
    cpu.max "150000 100000") on a host of 64 cores gets 2 threads, not 64; no quota
    ("-1" or "max") leaves the affinity's count."""
    from pcalib._utils import threads as _threads
    v1 = tmp_path / "v1"
    (v1 / "cpu,cpuacct").mkdir(parents=True)
    (v1 / "cpu,cpuacct" / "cpu.cfs_quota_us").write_text("150000\n")
    (v1 / "cpu,cpuacct" / "cpu.cfs_period_us").write_text("100000\n")
    assert _threads._cgroup_cpu_limit(str(v1), str(tmp_path / "none")) == 2
    (v1 / "cpu,cpuacct" / "cpu.cfs_quota_us").write_text("-1\n")
    assert _threads._cgroup_cpu_limit(str(v1), str(tmp_path / "none")) is None
    v2 = tmp_path / "v2"
    (v2 / "job" / "step").mkdir(parents=True)
    membership = tmp_path / "cgroup"
    membership.write_text("0::/job/step\n")
    (v2 / "job" / "step" / "cpu.max").write_text("150000 100000\n")
    assert _threads._cgroup_cpu_limit(str(v2), str(membership)) == 2
    (v2 / "job" / "step" / "cpu.max").write_text("max 100000\n")
    assert _threads._cgroup_cpu_limit(str(v2), str(membership)) is None
    monkeypatch.setattr(_threads.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(_threads, "_cgroup_cpu_limit", lambda: 2)
    assert _threads.cores() == 2
    monkeypatch.setattr(_threads, "_cgroup_cpu_limit", lambda: None)
    assert _threads.cores() == 64


@pytest.mark.parametrize("k", [2, 3])
def test_lanczos_finds_a_copy_within_a_small_gap(k):
    """Review s14: 600 x 500 CSR data whose centered scatter has every eigenvalue twice
    (two copies of a mean-free 300 x 250 block, singular values 10 * 0.9995^j: copies
    1e-3 apart). Lanczos's probe for missed copies stopped at ARPACK's residual 3e-2,
    and PCA(2) returned sigma_2 = s_3 (5e-4 off, the second axis off the top plane),
    PCA(3) sigma_3 1e-3 off, silently. Reference: NumPy's SVD of the dense centered
    data."""
    rng = np.random.default_rng(3)
    U = np.linalg.qr(rng.standard_normal((300, 250)))[0]
    U -= U.mean(axis=0)
    W = np.linalg.qr(rng.standard_normal((250, 250)))[0]
    B = (U * (10.0 * 0.9995 ** np.arange(250))) @ W.T
    X = sp.block_diag([B, B], format="csr")
    dense = X.toarray()
    _, s, Vt = np.linalg.svd(dense - dense.mean(axis=0), full_matrices=False)
    pca = PCA(k, solver="randomized").fit(X)
    assert pca.solver_ == "randomized"
    np.testing.assert_allclose(pca.singular_values_, s[:k], rtol=1e-10)
    if k == 2:  # s_1 = s_2 > s_3: the top plane, through its projector
        found, top = pca.components_.T, Vt[:2].T
        np.testing.assert_allclose(found @ found.T, top @ top.T, atol=1e-6)

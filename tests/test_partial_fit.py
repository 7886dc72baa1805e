"""PCA.partial_fit: the exact streaming merge of (n, mean, scatter), against first principles."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pcalib import PCA, NotFittedError
from pcalib._linalg.moments import Moments, tree_reduce
from tests.shared_strategies import seeded_data


def signed(V):
    """Rows of V with pcalib's sign convention (largest |entry| positive, first of ties)."""
    idx = np.argmax(np.abs(V), axis=1)
    return V * np.sign(V[np.arange(V.shape[0]), idx])[:, None]


def exact_pca(X, k, ddof=1):
    """Axes and eigenvalues from NumPy's SVD of the centered data (centered twice)."""
    Xc = X - X.mean(axis=0)
    Xc -= Xc.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return signed(Vt[:k]), s**2 / (X.shape[0] - ddof), s**2 / (s @ s)


@st.composite
def batches(draw, offset_scale=1e3):
    X = draw(seeded_data(min_rows=4, max_rows=60, max_cols=6, offset=False))
    X = X + np.random.default_rng(X.shape[0]).uniform(-offset_scale, offset_scale, X.shape[1])
    n = X.shape[0]
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=6)))
    return X, np.split(X, cuts)  # batches of any size, a single row included


@given(batches(), st.sampled_from([1e3, 1e9]))
def test_random_batch_splits_equal_the_batch_fit(data, offset):
    X, parts = data
    X = X - X.mean(axis=0) + offset  # data at an offset up to 1e9: an exact merge is needed
    parts = np.split(X, np.cumsum([len(b) for b in parts])[:-1])
    n, p = X.shape
    V, ev, ratio = exact_pca(X, min(p, n - 1))
    k = min(2, p, n - 1)
    assume(ev[k - 1] > 1e-6 * ev[0])
    gaps = -np.diff(ev[: k + 1]) / ev[0] if k < ev.size else -np.diff(ev[:k]) / ev[0]
    assume(gaps.size == 0 or gaps.min() > 1e-3)  # axes well defined
    stream = PCA(k)
    for batch in parts:
        stream.partial_fit(batch)
    np.testing.assert_allclose(stream.components_, V[:k], atol=1e-10)
    np.testing.assert_allclose(stream.explained_variance_, ev[:k], rtol=1e-10)
    np.testing.assert_allclose(stream.explained_variance_ratio_, ratio[:k], rtol=1e-10)
    np.testing.assert_allclose(stream.mean_, X.mean(axis=0), rtol=1e-15, atol=1e-10 * ev[0] ** 0.5)
    assert stream.n_samples_ == n
    batch_fit = PCA(k, solver="eig").fit(X)
    np.testing.assert_allclose(stream.components_, batch_fit.components_, atol=1e-10)
    np.testing.assert_allclose(stream.transform(X), batch_fit.transform(X), atol=1e-8 * ev[0] ** 0.5)


def test_merge_in_every_tree_order_equals_the_batch_moments():
    """The Chan-Golub-LeVeque merge is exact: any order of pairwise merges of 5 blocks,
    at an offset of 1e8, gives NumPy's mean and centered scatter."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((57, 4)) @ np.diag([3.0, 1.0, 0.5, 0.1]) + 1e8
    blocks = np.split(X, [5, 17, 18, 40])
    Xc = X - X.mean(axis=0)
    Xc -= Xc.mean(axis=0)
    scatter = Xc.T @ Xc
    for order in itertools.permutations(range(5)):
        found = tree_reduce([Moments.of_rows(blocks[i]) for i in order], Moments.merge)
        assert found.n == 57
        np.testing.assert_allclose(found.data_mean(), X.mean(axis=0), rtol=1e-15)
        np.testing.assert_allclose(found.scatter, scatter, rtol=1e-12, atol=1e-12 * np.trace(scatter))
    # the naive formula loses every digit at this offset
    naive = X.T @ X - 57 * np.outer(X.mean(axis=0), X.mean(axis=0))
    assert np.abs(naive - scatter).max() > 1e-3 * np.abs(scatter).max()


@pytest.mark.parametrize("offset, raw", [(0.0, True), (0.05, True), (1e8, False)])
def test_block_moments_read_in_place_only_when_it_is_exact(offset, raw):
    """Moments.of_rows forms X^T X - r r^T / n without a copy when the column means are
    at most their spread (shift 0), else shifts the block: NumPy's centered scatter
    to 1e-13 either way, constant columns exactly 0 about their own value."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((3000, 5)) @ np.diag([3.0, 1.0, 0.5, 0.1, 1.0]) + offset
    X[:, 4] = 7.0 if raw else offset  # a constant column
    found = Moments.of_rows(X)
    assert np.all(found.shift[:4] == 0) == raw and found.shift[4] == X[0, 4]
    Xc = X - X.mean(axis=0)
    Xc -= Xc.mean(axis=0)
    exact_mean = np.array([math.fsum(column) for column in X.T]) / X.shape[0]
    np.testing.assert_allclose(found.data_mean(), exact_mean, rtol=1e-15, atol=1e-14 * X.std(axis=0).max())
    np.testing.assert_allclose(found.scatter, Xc.T @ Xc, rtol=1e-13, atol=1e-13 * np.trace(Xc.T @ Xc))
    assert np.all(found.scatter[4] == 0) and np.all(found.scatter[:, 4] == 0)


def test_constant_columns_found_without_a_pass_for_the_extremes():
    """Moments.of_rows finds constant columns by re-reading only the columns that fail
    its cancellation check (or sum to 0), not by column minima and maxima: a column
    constant in each block stays constant when merged with a block of the same value
    and is not with another value; a column constant in the first half of the rows
    only, about 1e6, is not constant and its scatter is NumPy's."""
    rng = np.random.default_rng(21)
    X = rng.standard_normal((2000, 4))
    X[:, 1] = 5.5  # constant everywhere
    X[:, 2] = 0.0  # zeros
    X[:, 3] = 1e6
    X[1000:, 3] += rng.standard_normal(1000)  # constant in the first half only
    a, b = Moments.of_rows(X[:1000]), Moments.of_rows(X[1000:])
    np.testing.assert_array_equal(a.constant, [False, True, True, True])
    np.testing.assert_array_equal(b.constant, [False, True, True, False])
    merged = a.merge(b)
    np.testing.assert_array_equal(merged.constant, [False, True, True, False])
    np.testing.assert_array_equal(merged.data_mean()[1:3], [5.5, 0.0])
    whole = Moments.of_rows(X)
    np.testing.assert_array_equal(whole.constant, merged.constant)
    Xc = X - X.mean(axis=0)
    Xc -= Xc.mean(axis=0)
    for found in (merged, whole):
        np.testing.assert_allclose(found.scatter, Xc.T @ Xc, rtol=1e-12, atol=1e-12 * np.trace(Xc.T @ Xc))
        assert not found.scatter[1:3].any() and not found.scatter[:, 1:3].any()
    other = Moments.of_rows(np.c_[X[:10, 0], np.full(10, 6.5), X[:10, 2:]])
    np.testing.assert_array_equal(a.merge(other).constant, [False, False, True, True])


def test_block_moments_of_drifting_and_integer_data():
    """Rows sorted along a drift of 1e7 (the first 1024 rows have a mean far from the
    block's: the pass is repeated about the mean it found) and int64 counts near 2**62
    (shifted by an integer before the conversion): exact centered scatter."""
    rng = np.random.default_rng(12)
    drift = np.sort(rng.uniform(0, 1e7, 5000))[:, None] + rng.standard_normal((5000, 3))
    ints = 2**62 + rng.integers(-1000, 1000, (400, 3))
    for X, reference in ((drift, drift), (ints, (ints - 2**62).astype(float))):
        found = Moments.of_rows(X)
        centered = reference - np.array([math.fsum(c) for c in reference.T]) / len(reference)
        exact = centered.T @ centered
        np.testing.assert_allclose(found.scatter, exact, rtol=1e-12, atol=1e-12 * np.trace(exact))


def test_int64_columns_too_wide_to_shift_in_int64():
    """An int64 column spanning more than 2**63 (+-1.5 * 2**62): its difference from the
    first rows' mean would wrap around in int64 (before: a variance 9x too small, a
    mean of 9.2e18 for 0, silently); it is converted to float64 first, like any
    float route, and the moments equal NumPy's on the float64 data."""
    X = np.zeros((600, 2), dtype=np.int64)
    X[:, 0] = np.arange(600)
    X[:300, 1] = 2**62 + 2**61
    X[300:, 1] = -(2**62 + 2**61)
    reference = X.astype(float)
    found = Moments.of_rows(X)
    np.testing.assert_allclose(found.data_mean(), reference.mean(axis=0), rtol=1e-15, atol=1e-15)
    centered = reference - reference.mean(axis=0)
    np.testing.assert_allclose(np.diagonal(found.scatter), (centered**2).sum(axis=0), rtol=1e-15)
    stream = PCA(1).partial_fit(X[:400]).partial_fit(X[400:])
    np.testing.assert_allclose(stream.explained_variance_, PCA(1).fit(reference).explained_variance_, rtol=1e-14)


def test_a_wide_int64_column_leaves_the_others_exact():
    """Only the wide int64 column keeps the shift 0: a narrow column at 2**60 next to it
    is still shifted exactly in int64, so its variance is that of its small integer
    part (found by a review: converting the whole block first gave it 14% too large),
    in the batch moments, partial_fit and the in-memory fit."""
    rng = np.random.default_rng(17)
    wide = rng.integers(-(3 * 2**61), 3 * 2**61, 2000)
    small = rng.integers(0, 1000, 2000)
    X = np.c_[wide, 2**60 + small]
    exact_variance = small.astype(float).var(ddof=1)
    exact_mean = 2**60 + math.fsum(small) / 2000
    found = Moments.of_rows(X)
    np.testing.assert_allclose(np.diagonal(found.scatter)[1] / 1999, exact_variance, rtol=1e-13)
    assert found.data_mean()[1] == exact_mean
    stream = PCA(2, standardize=True).partial_fit(X[:700]).partial_fit(X[700:])
    fit = PCA(2, standardize=True).fit(X)
    for est in (stream, fit):
        np.testing.assert_allclose(est.scale_[1] ** 2, exact_variance, rtol=1e-13)
        np.testing.assert_allclose(est.mean_[1], exact_mean, rtol=1e-16)
        np.testing.assert_allclose(est.scale_[0] ** 2, wide.astype(float).var(ddof=1), rtol=1e-12)


def test_integer_batches_along_a_drift():
    """Integer batches sorted along a time index: each batch's shift is a whole number
    (the one subtracted and the one recorded), so the stream's mean and variances are
    NumPy's exactly (before, a fractional shift was truncated: mean off by 0.5)."""
    t = np.c_[np.arange(4000), np.arange(4000) % 7, (np.arange(4000) // 3) % 5].astype(np.int64)
    stream = PCA(2)
    for batch in np.array_split(t, 4):
        stream.partial_fit(batch)
    V, ev, _ = exact_pca(t.astype(float), 2)
    np.testing.assert_allclose(stream.mean_, t.mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(stream.explained_variance_, ev[:2], rtol=1e-12, atol=1e-14 * ev[0])
    np.testing.assert_allclose(stream.components_, V, atol=1e-12)


def test_standardize_fraction_and_float32():
    rng = np.random.default_rng(4)
    X = (rng.standard_normal((300, 5)) @ rng.standard_normal((5, 5)) * [1, 10, 100, 1000, 1e4]).astype(np.float32)
    stream = PCA(0.9, standardize=True)
    for batch in np.array_split(X, 9):
        stream.partial_fit(batch)
    ref = PCA(0.9, standardize=True, solver="svd").fit(X)
    assert stream.n_components_ == ref.n_components_
    assert stream.components_.dtype == np.float32
    np.testing.assert_allclose(stream.components_, ref.components_, atol=1e-5)
    np.testing.assert_allclose(stream.scale_, ref.scale_, rtol=1e-5)


def test_fit_starts_the_stream_again_from_its_data():
    """fit replaces an earlier stream by its own samples; a later partial_fit adds to
    them (before issue 22 item 9 it dropped them: mean_ was that of A alone)."""
    rng = np.random.default_rng(5)
    A, B = rng.standard_normal((50, 3)), rng.standard_normal((40, 3)) + 2
    pca = PCA(2).partial_fit(A)
    pca.fit(B)
    pca.partial_fit(A)
    np.testing.assert_allclose(pca.mean_, np.vstack([B, A]).mean(axis=0), rtol=1e-14)
    assert pca.n_samples_ == 90


def test_bad_batches():
    pca = PCA(2)
    pca.partial_fit(np.ones((1, 3)))  # one sample: merged, but no variance yet
    assert not hasattr(pca, "components_")
    with pytest.raises(NotFittedError, match=r"hold 1 sample\(s\) and it needs 2"):
        pca.transform(np.ones((1, 3)))
    with pytest.raises(ValueError, match="ddof must be non-negative"):
        PCA(2, ddof=-1).partial_fit(np.ones((4, 3)))  # at the batch, not when read
    pca.partial_fit(np.random.default_rng(0).standard_normal((4, 3)))
    with pytest.raises(ValueError, match="X has 4 features, but PCA is expecting 3"):
        pca.partial_fit(np.ones((4, 4)))
    with pytest.raises(ValueError, match="NaN"):
        pca.partial_fit(np.full((4, 3), np.nan))
    assert pca.n_samples_ == 5  # a refused batch leaves the state as it was
    with pytest.raises(ValueError, match="n_components must be between 1 and .* = 3, got 4"):
        PCA(4).partial_fit(np.ones((10, 3)))  # k > p: refused at once, whatever comes next


def test_too_few_samples_for_k_so_far_then_enough():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((12, 6))
    stream = PCA(4).partial_fit(X[:3])
    with pytest.raises(NotFittedError, match=r"hold 3 sample\(s\) and it needs 4 \(at least n_components=4\)"):
        stream.components_  # noqa: B018 (reading it solves the stream)
    assert not hasattr(stream, "components_")
    for row in X[3:]:
        stream.partial_fit(row[None, :])
    np.testing.assert_allclose(stream.components_, exact_pca(X, 4)[0], atol=1e-12)


def test_one_eigensolve_per_stream_and_a_new_one_after_each_batch(monkeypatch):
    """partial_fit only merges; the eigenproblem is solved when the fit is read."""
    import pcalib._estimator.streaming

    calls = []
    solve = pcalib._estimator.streaming.decompose_moments
    monkeypatch.setattr(pcalib._estimator.streaming, "decompose_moments", lambda *a, **kw: calls.append(1) or solve(*a, **kw))
    rng = np.random.default_rng(8)
    X = rng.standard_normal((500, 5))
    stream = PCA(2)
    for batch in np.array_split(X, 50):
        stream.partial_fit(batch)
    assert calls == []
    first = stream.components_.copy()
    stream.explained_variance_, stream.transform(X), stream.mean_
    assert len(calls) == 1
    stream.partial_fit(rng.standard_normal((100, 5)) * [9, 1, 1, 1, 1])
    assert len(calls) == 1 and not np.allclose(stream.components_, first)
    assert len(calls) == 2


def test_errors_of_the_fit_itself_are_not_disguised():
    """Only too few samples read as "not fitted"; a fit that cannot be made says why."""
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError
    from sklearn.utils.validation import check_is_fitted

    rng = np.random.default_rng(10)
    X = rng.standard_normal((20, 3))
    X[:, 2] = X[:, 0]  # rank 2: whitening 3 components divides by 0
    stream = PCA(3, whiten=True).partial_fit(X)
    with pytest.raises(ValueError, match="component 3 has variance 0") as caught:
        stream.components_  # noqa: B018 (reading it solves the stream)
    assert not isinstance(caught.value, NotFittedError)
    with pytest.raises(SklearnNotFittedError):
        check_is_fitted(PCA(2).partial_fit(X[:1]))
    check_is_fitted(PCA(2).partial_fit(X))


def test_a_stream_survives_pickling_before_it_is_solved():
    import pickle

    rng = np.random.default_rng(9)
    X = rng.standard_normal((60, 4)) @ np.diag([3.0, 2.0, 1.0, 0.5])
    stream = PCA(2).partial_fit(X[:30])
    copy = pickle.loads(pickle.dumps(stream)).partial_fit(X[30:])
    np.testing.assert_allclose(copy.components_, exact_pca(X, 2)[0], atol=1e-12)


def test_too_many_features_names_the_dask_route():
    with pytest.raises(ValueError, match=r"p x p scatter matrix.*dask\.array"):
        PCA(2).partial_fit(np.zeros((2, 8193)))


def test_more_exact_than_incremental_pca():
    """scikit-learn's IncrementalPCA truncates its state at each batch; the exact
    merge does not (a reference of the claim in partial_fit's docstring)."""
    from sklearn.decomposition import IncrementalPCA

    rng = np.random.default_rng(6)
    X = rng.standard_normal((2000, 20)) @ np.diag(0.9 ** np.arange(20)) @ np.linalg.qr(rng.standard_normal((20, 20)))[0]
    V, _, _ = exact_pca(X, 3)
    ours, theirs = PCA(3), IncrementalPCA(3)
    for batch in np.array_split(X, 20):
        ours.partial_fit(batch)
        theirs.partial_fit(batch)
    our_error = np.abs(ours.components_ - V).max()
    their_error = np.abs(signed(theirs.components_) - V).max()
    assert our_error < 1e-12
    assert their_error > 1e3 * our_error


@pytest.mark.parametrize(("offset", "shape"), [(0.0, (8200, 50)), (1e6, (20000, 210))])
def test_gram_pass_split_between_threads(offset, shape, monkeypatch, all_blas_threads):
    """shifted_gram splits a large pass over rows between the BLAS threads (each with
    one BLAS thread): the sums equal math.fsum's of the products to round-off, with the
    split, on one thread, and without threadpoolctl; the BLAS thread counts are restored.
    At offset 1e6 the pass is split at the real threshold (20000 x 210); at offset 0 on
    8200 x 50 (3 row blocks), the threshold lowered to its size."""
    import pcalib._linalg.constants as constants
    import pcalib._linalg.moments as moments
    import pcalib._utils.threads as threads

    rng = np.random.default_rng(31)
    X = rng.standard_normal(shape) + offset
    if offset == 0.0:
        monkeypatch.setattr(constants, "PARALLEL_MIN_ENTRIES", X.size)
    assert X.size >= constants.PARALLEL_MIN_ENTRIES
    assert len(moments.row_blocks(*X.shape)) >= 2  # blocks to split between threads
    shift = np.round(X[:256].mean(axis=0))
    Y = X - shift
    before = threads.blas_threads()
    if before < 2:
        pytest.skip("one BLAS thread: no pass to split")
    split = moments.shifted_gram(X, shift)
    cols = [0, 7, X.shape[1] - 1]
    exact = np.array([[math.fsum(Y[:, i] * Y[:, j]) for j in cols] for i in cols])
    np.testing.assert_allclose(split[0][np.ix_(cols, cols)], exact, rtol=1e-12, atol=1e-12 * exact.max())
    np.testing.assert_allclose(split[1], [math.fsum(c) for c in Y.T], rtol=1e-12, atol=1e-9)
    assert threads.blas_threads() == before
    monkeypatch.setattr(moments, "blas_threads", lambda: 1)
    single = moments.shifted_gram(X, shift)
    monkeypatch.setattr(threads, "_blas", lambda: None)
    without = moments.shifted_gram(X, shift)
    for found in (single, without):
        np.testing.assert_allclose(found[0], split[0], rtol=1e-12, atol=1e-12 * np.abs(split[0]).max())
        np.testing.assert_allclose(found[1], split[1], rtol=1e-12, atol=1e-9)


def test_gram_pass_split_at_most_between_the_cores(monkeypatch):
    """The split follows the BLAS thread count but never exceeds cores() (a container's
    CPU quota, which OpenBLAS does not read): 8 BLAS threads on 2 allowed cores give 2
    runs, on 1 core a single pass on the calling thread."""
    import threading

    import pcalib._linalg.moments as moments

    X = np.random.default_rng(32).standard_normal((20000, 210))
    calls = []
    original = moments._shifted_gram_of

    def recording(*args):
        calls.append(threading.current_thread() is threading.main_thread())
        return original(*args)

    monkeypatch.setattr(moments, "_shifted_gram_of", recording)
    monkeypatch.setattr(moments, "blas_threads", lambda: 8)
    for allowed, expected in ((2, [False, False]), (1, [True])):
        monkeypatch.setattr(moments, "cores", lambda allowed=allowed: allowed)
        calls.clear()
        moments.shifted_gram(X, np.zeros(210))
        assert calls == expected


def test_blas_limit_only_on_the_main_thread(all_blas_threads):
    """limited_blas limits BLAS to one thread on the main thread and restores the count;
    on another thread (where OpenBLAS would not take the restore) it does nothing, and
    shifted_gram there runs on that one thread with the same sums."""
    import threading

    import pcalib._linalg.moments as moments
    import pcalib._utils.threads as threads

    if threads._blas() is None:
        pytest.skip("threadpoolctl is not installed")
    counts = [lib.num_threads for lib in threads._blas().lib_controllers]
    with threads.limited_blas():
        assert threads.blas_threads() == 1
    assert [lib.num_threads for lib in threads._blas().lib_controllers] == counts
    X = np.random.default_rng(32).standard_normal((20000, 210))
    found = {}

    def on_a_thread() -> None:
        found["threads"] = threads.blas_threads()
        with threads.limited_blas():
            found["inside"] = [lib.num_threads for lib in threads._blas().lib_controllers]
        found["gram"] = moments.shifted_gram(X, np.zeros(210))

    worker = threading.Thread(target=on_a_thread)
    worker.start()
    worker.join()
    assert found["threads"] == 1 and found["inside"] == counts
    assert [lib.num_threads for lib in threads._blas().lib_controllers] == counts
    main = moments.shifted_gram(X, np.zeros(210))
    np.testing.assert_allclose(found["gram"][0], main[0], rtol=1e-12, atol=1e-12 * np.abs(main[0]).max())


def test_int64_column_constant_within_each_batch_beyond_2_53():
    """Each batch's constant was kept as a float64, so 2**62 and 2**62 + 1 looked equal
    and the column came out constant overall (variances [0.677, 0.0]; issue 22 item 1).
    Reference: the offset removed exactly in int64, then NumPy's covariance."""
    X = np.c_[2**62 + (np.arange(100) >= 50), np.arange(100) % 3]
    exact = np.linalg.eigvalsh(np.cov((X - 2**62 * np.array([1, 0])).astype(float), rowvar=False))[::-1]
    for batches in (np.array_split(X, 2), np.array_split(X, 4), [X[:50], X[50:51], X[51:]]):
        stream = PCA(2)
        for batch in batches:
            stream.partial_fit(batch)
        np.testing.assert_allclose(stream.explained_variance_, exact, rtol=1e-12)
    same = PCA(2)
    for batch in np.array_split(np.c_[np.full(100, 2**62 + 1), np.arange(100) % 3], 2):
        same.partial_fit(batch)
    assert same.explained_variance_[1] == 0.0  # constant in every batch, the same value


@pytest.mark.parametrize("solver", ["auto", "eig", "svd"])
@pytest.mark.parametrize("standardize", [False, True])
def test_partial_fit_after_fit_continues_from_the_fitted_samples(solver, standardize):
    """partial_fit after fit silently dropped the fitted samples (issue 22 item 9): the
    stream now continues from fit's exact moments, so fit(A) then partial_fit(B) is the
    fit of A and B together (compared with NumPy's eigendecomposition of the
    covariance of all rows)."""
    rng = np.random.default_rng(9)
    X = rng.standard_normal((500, 6)) @ rng.standard_normal((6, 6)) + 1e6
    est = PCA(3, solver=solver, standardize=standardize).fit(X[:300])
    est.partial_fit(X[300:420]).partial_fit(X[420:])
    C = np.corrcoef(X.T) if standardize else np.cov(X.T)
    w, V = np.linalg.eigh(C)
    np.testing.assert_allclose(est.explained_variance_, w[::-1][:3], rtol=1e-9)
    np.testing.assert_allclose(np.abs(est.components_ @ V[:, ::-1][:, :3]), np.eye(3), atol=1e-9)
    exact_mean = np.array([math.fsum(column) / 500 for column in X.T])  # X.mean is 11 ulp off
    np.testing.assert_allclose(est.mean_, exact_mean, rtol=0, atol=np.spacing(exact_mean).max())
    assert est.n_samples_ == 500


def test_partial_fit_after_a_fit_without_the_scatter_matrix_says_why():
    """A route that keeps only k components (randomized) cannot be continued exactly:
    a clear error instead of a stream that silently restarts."""
    X = np.random.default_rng(10).standard_normal((200, 5))
    est = PCA(2, solver="randomized", random_state=0).fit(X[:100])
    with pytest.raises(ValueError, match="partial_fit after fit cannot continue.*'randomized'"):
        est.partial_fit(X[100:])

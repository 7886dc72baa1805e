"""Tests of pcalib.bootstrap: aligned axes, percentile intervals and their coverage.

Independent references: NumPy's eigendecomposition of np.cov of the resampled rows;
populations with known eigenvalues and axes (coverage by simulation); Anderson's
asymptotic standard error sqrt(2/n) lambda_j of an eigenvalue of a Gaussian sample.
"""

import itertools

import numpy as np
import pytest

import pcalib
from pcalib import PCA, align_axes, bootstrap_pca

theorem = pytest.mark.theorem


def gaussian_sample(n, eigenvalues, rng, basis=None):
    lam = np.asarray(eigenvalues, dtype=float)
    Z = rng.standard_normal((n, lam.size)) * np.sqrt(lam)
    return Z if basis is None else Z @ basis.T


# -- align_axes ------------------------------------------------------------------------


def test_align_axes_undoes_a_permutation_and_sign_flips():
    rng = np.random.default_rng(0)
    reference = np.linalg.qr(rng.standard_normal((6, 4)))[0].T  # 4 orthonormal rows
    order, flips = np.array([2, 0, 3, 1]), np.array([1.0, -1.0, -1.0, 1.0])
    scrambled = reference[order] * flips[:, None]
    aligned, permutation, signs = align_axes(scrambled, reference)
    np.testing.assert_allclose(aligned, reference, atol=1e-15)
    np.testing.assert_array_equal(scrambled[permutation] * signs[:, None], aligned)
    np.testing.assert_array_equal(order[permutation], np.arange(4))


def test_align_axes_maximizes_the_total_absolute_cosine_over_all_matchings():
    rng = np.random.default_rng(2)
    clashes = 0
    for _ in range(200):
        reference = np.linalg.qr(rng.standard_normal((5, 3)))[0].T
        candidates = np.linalg.qr(rng.standard_normal((5, 4)))[0].T
        cosines = np.abs(reference @ candidates.T)
        clashes += len(set(np.argmax(cosines, axis=1))) < 3  # greedy choice not injective
        best = max(itertools.permutations(range(4), 3),
                   key=lambda m: sum(cosines[j, m[j]] for j in range(3)))
        aligned, permutation, signs = align_axes(candidates, reference)
        assert sum(cosines[j, permutation[j]] for j in range(3)) == pytest.approx(
            sum(cosines[j, best[j]] for j in range(3)), rel=1e-12)
        assert np.all(np.sum(aligned * reference, axis=1) >= 0)
    assert clashes > 20  # the assignment solver was needed


def test_align_axes_picks_from_more_candidates_and_rejects_bad_shapes():
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.standard_normal((5, 5)))[0].T
    aligned, permutation, _ = align_axes(Q, -Q[[3, 1]])
    np.testing.assert_array_equal(permutation, [3, 1])
    np.testing.assert_allclose(aligned, -Q[[3, 1]], atol=1e-15)
    with pytest.raises(ValueError, match="k <= k'"):
        align_axes(Q[:2], Q[:3])
    with pytest.raises(ValueError, match="the same p"):
        align_axes(Q, Q[:, :4])


# -- the resamples ------------------------------------------------------------------------


def test_each_resample_is_the_pca_of_rows_drawn_with_replacement():
    X = pcalib.datasets.load_iris().data
    result = bootstrap_pca(X, 3, n_resamples=5, random_state=42, keep_samples=True)
    # the same stream: one (B, n) draw of row indices (a single stack at this size)
    indices = np.random.default_rng(42).integers(0, X.shape[0], size=(5, X.shape[0]))
    for b in range(5):
        rows = X[indices[b]]
        lam, V = np.linalg.eigh(np.cov(rows, rowvar=False))
        lam, V = lam[::-1][:3], V[:, ::-1][:, :3]
        np.testing.assert_allclose(result.explained_variance_samples[b], lam, rtol=1e-10)
        cosines = np.abs(np.sum(result.components_samples[b] * V.T, axis=1))
        np.testing.assert_allclose(cosines, 1.0, atol=1e-10)  # same axes, up to sign
        assert np.all(np.sum(result.components_samples[b] * result.components, axis=1) >= 0)


def test_reference_is_the_pca_of_the_data_and_intervals_are_percentiles():
    X = pcalib.datasets.load_iris().data
    result = bootstrap_pca(X, 2, n_resamples=300, level=0.9, random_state=0, keep_samples=True)
    full = PCA(2).fit(X)
    np.testing.assert_allclose(result.explained_variance, full.explained_variance_, rtol=1e-12)
    np.testing.assert_allclose(result.components, full.components_, atol=1e-12)
    lower, upper = np.percentile(result.explained_variance_samples, [5, 95], axis=0)
    np.testing.assert_allclose(result.explained_variance_interval, [lower, upper], rtol=1e-12)
    assert result.explained_variance_interval.shape == (2, 2)
    assert result.components_interval.shape == (2, 2, 4)
    assert np.all(result.components_interval[0] <= result.components_interval[1])
    assert result.level == 0.9
    np.testing.assert_allclose(np.cos(result.angles),
                               np.einsum("bkp,kp->bk", result.components_samples, result.components))
    # the axes' intervals are kept from the tails of the stream: np.quantile of all samples, bit for bit
    np.testing.assert_array_equal(result.components_interval,
                                  np.quantile(result.components_samples, [(1 - 0.9) / 2, (1 + 0.9) / 2], axis=0))


@pytest.mark.parametrize("n_resamples", [1, 2, 3, 7, 40, 101])
@pytest.mark.parametrize("level", [0.01, 0.5, 0.8, 0.95, 0.999])
def test_intervals_from_the_kept_tails_are_numpys_quantiles(n_resamples, level):
    """The streamed order statistics give np.quantile's interval exactly, for any B and
    level (a tail of 1 value, the median's half, more than B values asked for); and the
    default keeps no samples but the same intervals and angles."""
    X = pcalib.datasets.load_iris().data
    kept = bootstrap_pca(X, 3, n_resamples=n_resamples, level=level, random_state=5, keep_samples=True)
    tails = [(1 - level) / 2, (1 + level) / 2]
    np.testing.assert_array_equal(kept.components_interval, np.quantile(kept.components_samples, tails, axis=0))
    lean = bootstrap_pca(X, 3, n_resamples=n_resamples, level=level, random_state=5)
    assert lean.components_samples is None
    np.testing.assert_array_equal(lean.components_interval, kept.components_interval)
    np.testing.assert_array_equal(lean.angles, kept.angles)
    np.testing.assert_array_equal(lean.explained_variance_interval, kept.explained_variance_interval)


def test_standardized_bootstrap_resamples_the_correlation_matrix():
    X = pcalib.datasets.load_iris().data * [1.0, 10.0, 100.0, 1000.0]
    result = bootstrap_pca(X, 4, n_resamples=50, standardize=True, random_state=0)
    np.testing.assert_allclose(result.explained_variance_samples.sum(axis=1), 4.0, rtol=1e-10)
    np.testing.assert_allclose(result.explained_variance,
                               np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))[::-1], rtol=1e-10)


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_standardized_bootstrap_at_extreme_scales(scale):
    """Issue 22 item 3: at 1e200 the squares of the resamples overflowed and every
    interval was 0 (1e-200: they underflowed). The correlation matrix does not depend
    on the scale: the same intervals as at scale 1, and the first resample's
    eigenvalues are those of np.corrcoef of its rows."""
    X = pcalib.datasets.load_iris().data
    at_one = bootstrap_pca(X, 2, n_resamples=30, standardize=True, random_state=1)
    scaled = bootstrap_pca(X * scale, 2, n_resamples=30, standardize=True, random_state=1)
    np.testing.assert_allclose(scaled.explained_variance_interval,
                               at_one.explained_variance_interval, rtol=1e-12)
    np.testing.assert_allclose(scaled.components_interval, at_one.components_interval,
                               rtol=1e-10, atol=1e-12)
    rows = X[np.random.default_rng(1).integers(0, len(X), size=(1, len(X)))[0]]
    lam = np.linalg.eigvalsh(np.corrcoef(rows, rowvar=False))[::-1][:2]
    np.testing.assert_allclose(scaled.explained_variance_samples[0], lam, rtol=1e-12)


def _peak_bytes(function, *args, **kwargs):
    import tracemalloc

    tracemalloc.start()
    try:
        result = function(*args, **kwargs)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_memory_with_the_defaults_is_not_b_k_p(monkeypatch):
    """Issue 22 item 14: with its defaults (all k = min(n, p) axes) the bootstrap kept
    every resample's aligned axes, B k p numbers: 687 MiB of a 734 MiB peak at
    300 x 300 and B = 1000, 8 GB at 1000 x 1000. The intervals read only the
    floor((B - 1)(1 - level)/2) + 2 values at each end of each entry (11 + 11 of
    B = 400 here): the peak is now those tails and one stack of resamples with its
    eigendecompositions. With stacks of 2**16 entries (0.5 MiB) so that the tails
    dominate, at 100 x 100 the old code peaked at 34 MiB (30.5 MiB of samples), the
    new at 7 MiB; the bound is twice the tails plus 16 stacks plus 1 MiB (12.4 MiB)."""
    import pcalib.bootstrap

    stack = 2**16
    monkeypatch.setattr(pcalib.bootstrap, "_STACK_ENTRIES", stack)
    X = np.random.default_rng(0).standard_normal((100, 100))
    result, peak = _peak_bytes(bootstrap_pca, X, n_resamples=400, random_state=0)
    tails = 22 * 100 * 100 * 8
    assert peak < 2 * tails + 16 * 8 * stack + 2**20, peak / 2**20
    assert peak < 400 * 100 * 100 * 8 / 2, peak / 2**20  # below half the old samples alone
    assert result.components_samples is None and result.components_interval.shape == (2, 100, 100)


def test_peak_memory_is_about_the_kept_samples():
    """With keep_samples=True the samples of the axes (B x k x p numbers) are held once,
    besides the tails and a stack: the samples plus 64 MB at 150 x 150, B = 200 (the
    code before issue 22 item 14 held them three times: 696 MB for 216 MB of samples at
    300 x 300, B = 300)."""
    X = np.random.default_rng(0).standard_normal((150, 150))
    result, peak = _peak_bytes(bootstrap_pca, X, n_resamples=200, random_state=0, keep_samples=True)
    kept = result.components_samples.nbytes
    assert kept == 200 * 150 * 150 * 8
    assert peak < kept + 64 * 2**20, (peak / 2**20, kept / 2**20)


def test_wide_data_use_the_svd_of_the_resample():
    rng = np.random.default_rng(3)
    X = gaussian_sample(12, [9.0, 4.0] + [1.0] * 18, rng)
    result = bootstrap_pca(X, 2, n_resamples=3, random_state=7)
    rows = X[np.random.default_rng(7).integers(0, 12, size=(3, 12))[0]]
    lam = np.linalg.eigvalsh(np.cov(rows, rowvar=False))[::-1][:2]
    np.testing.assert_allclose(result.explained_variance_samples[0], lam, rtol=1e-10)


def test_deterministic_input_untouched_and_float32():
    X = pcalib.datasets.load_iris().data
    copy = X.copy()
    a = bootstrap_pca(X, 2, n_resamples=40, random_state=3, keep_samples=True)
    b = bootstrap_pca(X, 2, n_resamples=40, random_state=np.random.default_rng(3), keep_samples=True)
    np.testing.assert_array_equal(a.components_samples, b.components_samples)
    np.testing.assert_array_equal(X, copy)
    single = bootstrap_pca(X.astype(np.float32), 2, n_resamples=40, random_state=3, keep_samples=True)
    assert single.explained_variance_interval.dtype == np.float32
    assert single.components_samples.dtype == np.float32
    np.testing.assert_allclose(single.explained_variance_interval, a.explained_variance_interval, rtol=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_resamples": 0}, ValueError, "n_resamples must be a positive integer"),
        ({"level": 1.0}, ValueError, "level must be a number in"),
        ({"k": 5}, ValueError, "between 1 and"),
        ({"ddof": -1}, ValueError, "ddof must be non-negative"),
        ({"keep_samples": "yes"}, TypeError, "keep_samples must be True or False"),
    ],
)
def test_bad_options_are_rejected(kwargs, error, match):
    with pytest.raises(error, match=match):
        bootstrap_pca(pcalib.datasets.load_iris().data, **{"k": 2, **kwargs})


def test_a_resample_with_a_constant_column_cannot_be_standardized():
    X = np.column_stack([np.arange(6.0), [0, 0, 0, 0, 0, 1.0]])
    with pytest.raises(ValueError, match="constant column"):
        bootstrap_pca(X, 1, n_resamples=50, standardize=True, random_state=0)


# -- coverage ------------------------------------------------------------------------


def coverage(eigenvalues, n, replications, n_resamples, level, seed):
    """Fraction of simulated samples whose interval for lambda_1 covers lambda_1(C)."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((len(eigenvalues), len(eigenvalues))))[0]
    hits = 0
    for _ in range(replications):
        X = gaussian_sample(n, eigenvalues, rng, basis)
        lower, upper = bootstrap_pca(X, 1, n_resamples=n_resamples, level=level,
                                     random_state=rng).explained_variance_interval[:, 0]
        hits += lower <= eigenvalues[0] <= upper
    return hits / replications


@theorem("thm-howmany-bootstrap")
def test_interval_for_a_distinct_largest_eigenvalue_covers_about_as_often_as_its_level():
    # 300 replications: the binomial standard error at 0.9 is 0.017; the percentile
    # interval of a distinct eigenvalue is asymptotically exact (Beran and Srivastava 1985)
    observed = coverage([10.0, 3.0, 1.0, 0.5], n=200, replications=300, n_resamples=300,
                        level=0.9, seed=0)
    assert 0.85 <= observed <= 0.95


@theorem("thm-howmany-bootstrap")
def test_interval_for_a_tied_largest_eigenvalue_undercovers():
    # lambda_1 = lambda_2: the bootstrap is not consistent for the ordered eigenvalues
    observed = coverage([4.0, 4.0, 1.0, 0.5], n=200, replications=300, n_resamples=300,
                        level=0.9, seed=1)
    assert observed < 0.8


@theorem("thm-howmany-anderson")
def test_bootstrap_standard_error_matches_andersons_asymptotic_one():
    # For Gaussian data with distinct eigenvalues, sd(lambda_hat_j) ~ sqrt(2/n) lambda_j.
    rng = np.random.default_rng(5)
    lam = np.array([8.0, 3.0, 1.0])
    X = gaussian_sample(2000, lam, rng, np.linalg.qr(rng.standard_normal((3, 3)))[0])
    result = bootstrap_pca(X, 3, n_resamples=1000, random_state=6)
    spread = result.explained_variance_samples.std(axis=0)
    np.testing.assert_allclose(spread, np.sqrt(2 / 2000) * result.explained_variance, rtol=0.12)


def test_axis_intervals_cover_the_population_axis():
    rng = np.random.default_rng(8)
    basis = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    v1 = basis[:, 0] * np.where(basis[np.argmax(np.abs(basis[:, 0])), 0] < 0, -1, 1)
    hits = np.zeros(4)
    replications = 200
    for _ in range(replications):
        X = gaussian_sample(300, [10.0, 3.0, 1.0, 0.5], rng, basis)
        result = bootstrap_pca(X, 1, n_resamples=300, level=0.9, random_state=rng)
        target = v1 if result.components[0] @ v1 > 0 else -v1  # the sample's orientation
        lower, upper = result.components_interval[:, 0]
        hits += (lower <= target) & (target <= upper)
    assert np.all((hits / replications >= 0.8) & (hits / replications <= 0.97))

"""Tests of pcalib.bootstrap: aligned axes, percentile intervals and their coverage.

Independent references: NumPy's eigendecomposition of np.cov of the resampled rows;
populations with known eigenvalues and axes (coverage by simulation); Anderson's
asymptotic standard error sqrt(2/n) lambda_j of an eigenvalue of a Gaussian sample.
"""

import itertools
import warnings

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
    stack = 2**16
    monkeypatch.setattr("pcalib._linalg.constants.BOOTSTRAP_STACK_ENTRIES", stack)
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


def replicate(eigenvalues, n, replications, n_resamples, level, seed):
    """The population's axes and the bootstrap of each of `replications` simulated
    samples of n rows (k = 1)."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((len(eigenvalues), len(eigenvalues))))[0]
    results = [bootstrap_pca(gaussian_sample(n, eigenvalues, rng, basis), 1, n_resamples=n_resamples,
                             level=level, random_state=rng) for _ in range(replications)]
    return basis, results


def coverage(eigenvalues, results):
    """Fraction of the bootstraps whose interval for lambda_1 covers lambda_1(C)."""
    lower, upper = np.array([result.explained_variance_interval[:, 0] for result in results]).T
    return np.mean((lower <= eigenvalues[0]) & (eigenvalues[0] <= upper))


SEPARATED = [10.0, 3.0, 1.0, 0.5]


@pytest.fixture(scope="module")
def separated():
    """300 samples of 200 rows with distinct eigenvalues, each bootstrapped (300
    resamples, 90%): shared by the coverage of lambda_1 and of v_1."""
    return replicate(SEPARATED, n=200, replications=300, n_resamples=300, level=0.9, seed=0)


@theorem("thm-howmany-bootstrap")
def test_interval_for_a_distinct_largest_eigenvalue_covers_about_as_often_as_its_level(separated):
    # 300 replications: the binomial standard error at 0.9 is 0.017; the percentile
    # interval of a distinct eigenvalue is asymptotically exact (Beran and Srivastava 1985)
    observed = coverage(SEPARATED, separated[1])
    assert 0.85 <= observed <= 0.95


@theorem("thm-howmany-bootstrap")
def test_interval_for_a_tied_largest_eigenvalue_undercovers():
    # lambda_1 = lambda_2: the bootstrap is not consistent for the ordered eigenvalues
    tied = [4.0, 4.0, 1.0, 0.5]
    _, results = replicate(tied, n=200, replications=300, n_resamples=300, level=0.9, seed=1)
    assert coverage(tied, results) < 0.8


@theorem("thm-howmany-anderson")
def test_bootstrap_standard_error_matches_andersons_asymptotic_one():
    # For Gaussian data with distinct eigenvalues, sd(lambda_hat_j) ~ sqrt(2/n) lambda_j.
    rng = np.random.default_rng(5)
    lam = np.array([8.0, 3.0, 1.0])
    X = gaussian_sample(2000, lam, rng, np.linalg.qr(rng.standard_normal((3, 3)))[0])
    result = bootstrap_pca(X, 3, n_resamples=1000, random_state=6)
    spread = result.explained_variance_samples.std(axis=0)
    np.testing.assert_allclose(spread, np.sqrt(2 / 2000) * result.explained_variance, rtol=0.12)


def test_axis_intervals_cover_the_population_axis(separated):
    # 300 replications (the samples of the test above): the binomial standard error of
    # each entry's coverage at 0.9 is 0.017, so [0.8, 0.97] is -5.8 to +4.0 of them
    basis, results = separated
    v1 = basis[:, 0] * np.where(basis[np.argmax(np.abs(basis[:, 0])), 0] < 0, -1, 1)
    hits = np.zeros(4)
    for result in results:
        target = v1 if result.components[0] @ v1 > 0 else -v1  # the sample's orientation
        lower, upper = result.components_interval[:, 0]
        hits += (lower <= target) & (target <= upper)
    assert np.all((hits / len(results) >= 0.8) & (hits / len(results) <= 0.97))


# -- issue 31 F17, issue 32: alignment, interval kinds, Anderson, the truncated solver ----------


def test_resampled_eigenvalues_are_never_negative():
    """Issue 31 F17: a resample of n = 6 rows has at most 5 distinct ones, and often
    fewer; its trailing eigenvalues are 0, which the eigensolver returned as -1e-16.
    Reference: the squared singular values of each resample (never negative)."""
    X = np.random.default_rng(0).standard_normal((6, 5)) * [5.0, 3.0, 2.0, 1.0, 0.5]
    result = bootstrap_pca(X, 5, n_resamples=200, random_state=1)
    assert result.explained_variance_samples.min() == 0.0
    indices = np.random.default_rng(1).integers(0, 6, size=(200, 6))
    for b in range(200):
        rows = X[indices[b]] - X[indices[b]].mean(axis=0)
        s2 = np.linalg.svd(rows, compute_uv=False) ** 2 / 5
        np.testing.assert_allclose(result.explained_variance_samples[b], s2, atol=1e-13 * s2[0])


def test_axis_intervals_do_not_depend_on_how_many_axes_are_asked_for():
    """The intervals of axis 1 were computed from resample axes matched among the top
    k: with a near tie (4 and 3.4), k = 1 and k = 2 gave different intervals for the
    same resamples. Now axis j of each resample is compared with axis j of the data."""
    rng = np.random.default_rng(3)
    X = gaussian_sample(60, [4.0, 3.4, 1.0, 0.5], rng, np.linalg.qr(rng.standard_normal((4, 4)))[0])
    one = bootstrap_pca(X, 1, n_resamples=300, level=0.9, random_state=4)
    two = bootstrap_pca(X, 2, n_resamples=300, level=0.9, random_state=4)
    np.testing.assert_allclose(one.components_interval[:, 0], two.components_interval[:, 0], atol=1e-12)
    np.testing.assert_array_equal(two.permutations, np.tile([0, 1], (300, 1)))
    matched = bootstrap_pca(X, 2, n_resamples=300, level=0.9, random_state=4, align="match")
    assert np.any(matched.permutations != [0, 1])  # some resamples swap the two axes


def test_match_alignment_assigns_among_every_axis_of_the_resample():
    """align="match": each data axis goes to the resample axis of the linear assignment
    over all p resample axes (NumPy's eigh of each resample, SciPy's solver)."""
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(5)
    X = gaussian_sample(40, [4.0, 3.6, 3.3, 1.0, 0.5], rng, np.linalg.qr(rng.standard_normal((5, 5)))[0])
    result = bootstrap_pca(X, 1, n_resamples=50, random_state=6, align="match", keep_samples=True)
    v1 = result.components[0]
    indices = np.random.default_rng(6).integers(0, 40, size=(50, 40))
    moved = 0
    for b in range(50):
        axes = np.linalg.eigh(np.cov(X[indices[b]], rowvar=False))[1][:, ::-1].T
        column = linear_sum_assignment(-np.abs(axes @ v1)[None, :])[1][0]
        expected = axes[column] * np.sign(axes[column] @ v1)
        np.testing.assert_allclose(result.components_samples[b, 0], expected, atol=1e-10)
        moved += column != 0
    assert moved > 0


def test_basic_intervals_reflect_the_percentiles_about_the_estimate():
    X = pcalib.datasets.load_iris().data
    percentile = bootstrap_pca(X, 2, n_resamples=200, level=0.8, random_state=7, keep_samples=True)
    basic = bootstrap_pca(X, 2, n_resamples=200, level=0.8, random_state=7, interval="basic")
    q = np.quantile(percentile.explained_variance_samples, [0.1, 0.9], axis=0)
    lam = percentile.explained_variance
    np.testing.assert_allclose(basic.explained_variance_interval, [2 * lam - q[1], 2 * lam - q[0]], rtol=1e-12)
    qa = np.quantile(percentile.components_samples, [0.1, 0.9], axis=0)
    V = percentile.components
    np.testing.assert_allclose(basic.components_interval, [2 * V - qa[1], 2 * V - qa[0]], atol=1e-12)
    assert basic.interval == "basic"
    with pytest.raises(ValueError, match="interval must be one of"):
        bootstrap_pca(X, 2, interval="bca")
    with pytest.raises(ValueError, match="align must be one of"):
        bootstrap_pca(X, 2, align="procrustes")


def test_wide_and_large_resamples_take_the_truncated_routes_exactly(monkeypatch):
    """n < p: the k leading eigenpairs of the n x n Gram matrix, axes R^T u / sigma;
    above order NUMPY_MAX_M (512, here lowered to 40 to keep the test small):
    pcalib's top_eigh. Reference: NumPy's SVD of each resample."""
    monkeypatch.setattr("pcalib._linalg.constants.NUMPY_MAX_M", 40)
    for n, p in ((15, 40), (80, 60), (50, 90)):
        rng = np.random.default_rng(n)
        X = rng.standard_normal((n, p)) * np.linspace(3.0, 1.0, p)
        result = bootstrap_pca(X, 3, n_resamples=2, random_state=8, keep_samples=True)
        indices = np.random.default_rng(8).integers(0, n, size=(2, n))
        for b in range(2):
            rows = X[indices[b]] - X[indices[b]].mean(axis=0)
            _, s, Vt = np.linalg.svd(rows, full_matrices=False)
            np.testing.assert_allclose(result.explained_variance_samples[b], s[:3] ** 2 / (n - 1), rtol=1e-10)
            cosines = np.abs(np.sum(result.components_samples[b] * Vt[:3], axis=1))
            np.testing.assert_allclose(cosines, 1.0, atol=1e-9)


def coverage_of_axis_one(eigenvalues, n, replications, seed, **options):
    """Share of the entries of v_1(C) (oriented as the sample's axis) inside their 90%
    intervals, over simulated samples, for each set of bootstrap options."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((len(eigenvalues), len(eigenvalues))))[0]
    hits = {name: 0.0 for name in options}
    for _ in range(replications):
        X = gaussian_sample(n, eigenvalues, rng, basis)
        b_seed = int(rng.integers(2**31))
        for name, kwargs in options.items():
            result = bootstrap_pca(X, 1, n_resamples=100, level=0.9, random_state=b_seed, **kwargs)
            target = basis[:, 0] * np.sign(basis[:, 0] @ result.components[0])
            lower, upper = result.components_interval[:, 0]
            hits[name] += np.mean((lower <= target) & (target <= upper)) / replications
    return hits


def test_matching_axes_narrows_the_intervals_and_lowers_their_coverage():
    """Issue 32: with eigenvalues 4 and 3.4 at n = 100 the 90% intervals of axis 1
    cover less than 90% either way (about 0.79 and 0.73 over 200 samples, the chapter's
    measurement); matching each data axis to the closest resample axis removes the
    resamples' swaps, not the sample's, so it covers less than comparing in order."""
    hits = coverage_of_axis_one([4.0, 3.4, 1.0, 0.5], 100, 60, seed=9,
                                sign={}, match={"align": "match"})
    assert hits["sign"] < 0.88
    assert hits["match"] < hits["sign"] - 0.02


@theorem("thm-howmany-anderson")
def test_anderson_intervals_written_out():
    rng = np.random.default_rng(10)
    X = gaussian_sample(300, [6.0, 3.0, 1.5, 0.5], rng, np.linalg.qr(rng.standard_normal((4, 4)))[0])
    result = pcalib.anderson_intervals(X, 2, level=0.9)
    lam, V = np.linalg.eigh(np.cov(X, rowvar=False))
    lam, V = lam[::-1], V[:, ::-1]
    z = 1.6448536269514722  # the 95% normal quantile
    N = 299
    np.testing.assert_allclose(result.explained_variance_interval,
                               [lam[:2] / (1 + z * np.sqrt(2 / N)), lam[:2] / (1 - z * np.sqrt(2 / N))], rtol=1e-10)
    for j in range(2):
        variance = sum(lam[j] * lam[l] / (lam[j] - lam[l]) ** 2 * V[:, l] ** 2 for l in range(4) if l != j) / N
        np.testing.assert_allclose(result.components_standard_error[j], np.sqrt(variance), rtol=1e-9)
        v = V[:, j] * np.sign(V[np.argmax(np.abs(V[:, j])), j])
        np.testing.assert_allclose(result.components_interval[:, j], [v - z * np.sqrt(variance), v + z * np.sqrt(variance)],
                                   rtol=1e-9, atol=1e-12)


def test_anderson_intervals_give_inf_not_nan_for_an_exactly_tied_axis():
    """Rows +-e_1, +-e_2 tie the two top sample eigenvalues exactly; the old code gave NaN
    (inf * 0) with a RuntimeWarning. Every entry of a tied axis is inf, the untied axis
    finite, and the intervals of the tied axes are the whole line."""
    X = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 0.5], [0, 0, -0.5]], float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = pcalib.anderson_intervals(X, level=0.9)
    assert result.explained_variance[0] == result.explained_variance[1]
    se = result.components_standard_error
    assert not np.any(np.isnan(se))
    assert np.all(np.isinf(se[:2]))
    assert np.all(np.isfinite(se[2]))
    assert np.all(result.components_interval[0, :2] == -np.inf)
    assert np.all(result.components_interval[1, :2] == np.inf)


@theorem("thm-howmany-anderson")
def test_anderson_intervals_cover_at_their_level_for_separated_eigenvalues():
    rng = np.random.default_rng(11)
    basis = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    lam_C = np.array([10.0, 3.0, 1.0, 0.5])
    eigen_hits, axis_hits = 0, 0.0
    for _ in range(300):
        result = pcalib.anderson_intervals(gaussian_sample(200, lam_C, rng, basis), 1, level=0.9)
        eigen_hits += result.explained_variance_interval[0, 0] <= 10.0 <= result.explained_variance_interval[1, 0]
        target = basis[:, 0] * np.sign(basis[:, 0] @ result.components[0])
        lower, upper = result.components_interval[:, 0]
        axis_hits += np.mean((lower <= target) & (target <= upper)) / 300
    assert 0.85 <= eigen_hits / 300 <= 0.95
    assert 0.85 <= axis_hits <= 0.95


def test_anderson_intervals_need_more_samples_than_features():
    with pytest.raises(ValueError, match="n_samples > n_features"):
        pcalib.anderson_intervals(np.random.default_rng(0).standard_normal((5, 8)))
    with pytest.raises(ValueError, match="level must be a number in"):
        pcalib.anderson_intervals(pcalib.datasets.load_iris().data, level=1.5)


# -- subspace angles of a group of axes ------------------------------------------------


def test_subspace_angles_are_scipys_largest_principal_angles():
    """Against scipy.linalg.subspace_angles, resample by resample; one axis alone gives
    the angles of the axes; the order and signs inside the group do not matter."""
    import scipy.linalg

    rng = np.random.default_rng(5)
    basis = np.linalg.qr(rng.standard_normal((5, 5)))[0]
    X = gaussian_sample(80, [4.0, 3.6, 1.0, 0.7, 0.2], rng, basis)
    for align in ("sign", "match"):
        result = bootstrap_pca(X, 3, n_resamples=60, random_state=1, keep_samples=True, align=align)
        angles = result.subspace_angles([0, 1])
        expected = [
            scipy.linalg.subspace_angles(result.components[:2].T, result.components_samples[b, :2].T).max()
            for b in range(60)
        ]
        np.testing.assert_allclose(angles, expected, atol=1e-12)
        np.testing.assert_allclose(result.subspace_angles([1, 0]), angles, atol=1e-14)
        np.testing.assert_allclose(result.subspace_angles([0]), result.angles[:, 0], atol=1e-7)


def test_a_nearly_tied_plane_is_better_determined_than_its_axes():
    """Population (4, 3.4, 1, 0.5), n = 100, 40 data sets: the bootstrap's 90% quantile
    of the angle of the plane of axes 1 and 2 is below that of axis 1 in at least 90% of
    the data sets (measured: in 200 of 200 other data sets; the plane is separated from
    the rest by the gap 3.4 - 1, the axes by 0.6)."""
    rng = np.random.default_rng(7)
    basis = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    smaller = []
    for _ in range(40):
        X = gaussian_sample(100, [4.0, 3.4, 1.0, 0.5], rng, basis)
        result = bootstrap_pca(X, 2, n_resamples=100, random_state=rng, keep_samples=True)
        plane, axis = result.subspace_angles([0, 1]), result.angles[:, 0]
        smaller.append(np.quantile(plane, 0.9) < np.quantile(axis, 0.9))
    assert np.mean(smaller) >= 0.9


@pytest.mark.parametrize(
    ("axes", "error", "match"),
    [([], ValueError, "distinct"), ([0, 0], ValueError, "distinct"), ([2], ValueError, "range"),
     ([-1], ValueError, "range"), ([0.5], TypeError, "integer"), ("01", TypeError, "integer"),
     ([True], TypeError, "integer")],
)
def test_subspace_angles_reject_bad_groups(axes, error, match):
    X = gaussian_sample(30, [3.0, 2.0, 1.0], np.random.default_rng(0))
    result = bootstrap_pca(X, 2, n_resamples=5, random_state=0, keep_samples=True)
    with pytest.raises(error, match=match):
        result.subspace_angles(axes)


def test_subspace_angles_need_the_kept_samples():
    X = gaussian_sample(30, [3.0, 2.0, 1.0], np.random.default_rng(0))
    with pytest.raises(ValueError, match="keep_samples=True"):
        bootstrap_pca(X, 2, n_resamples=5, random_state=0).subspace_angles([0, 1])

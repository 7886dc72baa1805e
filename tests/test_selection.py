"""Tests of pcalib.selection: the rules for k (choose_k and the functions behind it).

Independent references: exact rational arithmetic for the broken-stick expectations
and a Monte Carlo stick; scikit-learn's PCA(n_components="mle") and its
_assess_dimension for Minka's rule; least squares written out with numpy.linalg.lstsq
for the row-and-column cross-validation; a parallel analysis written out with NumPy;
spiked covariance models whose true k is known.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.decomposition._pca import _assess_dimension

import pcalib
from pcalib import PCA, broken_stick, choose_k, cv_press, minka_log_evidence, parallel_analysis

theorem = pytest.mark.theorem


def spiked_data(n, p, spikes, seed, noise=1.0):
    """n x p Gaussian data, covariance noise * I plus len(spikes) spikes along random axes."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((p, p)))[0]
    lam = np.full(p, noise)
    lam[: len(spikes)] = spikes
    return rng.standard_normal((n, p)) * np.sqrt(lam) @ basis.T + rng.uniform(-5, 5, size=p)


@st.composite
def minka_problems(draw):
    """n x p data (n > p >= 2, so the centered data have full rank p) with a random
    spectrum: geometric, spiked or flat."""
    p = draw(st.integers(2, 25))
    n = p + 1 + draw(st.integers(0, 120))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["geometric", "spiked", "flat"]))
    rng = np.random.default_rng(seed)
    if kind == "geometric":  # smallest variance 0.6**48 = 2e-11: far from round-off
        scales = rng.uniform(0.6, 0.95) ** np.arange(p)
    elif kind == "spiked":
        scales = np.ones(p)
        r = draw(st.integers(1, p - 1))
        scales[:r] = np.sort(rng.uniform(1.5, 6.0, size=r))[::-1]
    else:
        scales = np.ones(p)
    basis = np.linalg.qr(rng.standard_normal((p, p)))[0]
    return rng.standard_normal((n, p)) * scales @ basis.T + rng.normal(size=p) * 10


# -- broken stick ------------------------------------------------------------------


@pytest.mark.parametrize("p", [1, 2, 3, 7, 30])
def test_broken_stick_equals_its_closed_form_in_exact_arithmetic(p):
    exact = [sum(Fraction(1, i) for i in range(j, p + 1)) / p for j in range(1, p + 1)]
    np.testing.assert_allclose(broken_stick(p), [float(b) for b in exact], rtol=1e-14, atol=0)
    assert sum(exact) == 1


@theorem("prop-howmany-broken-stick")
@pytest.mark.parametrize("p", [2, 5, 12])
def test_broken_stick_is_the_mean_of_sorted_pieces_of_a_random_stick(p):
    rng = np.random.default_rng(p)
    draws = 200_000
    cuts = np.sort(rng.uniform(size=(draws, p - 1)), axis=1)
    pieces = np.diff(np.concatenate([np.zeros((draws, 1)), cuts, np.ones((draws, 1))], axis=1))
    sorted_pieces = -np.sort(-pieces, axis=1)
    mean = sorted_pieces.mean(axis=0)
    standard_error = sorted_pieces.std(axis=0) / np.sqrt(draws)
    assert np.all(np.abs(mean - broken_stick(p)) < 5 * standard_error)


def test_broken_stick_rejects_bad_p():
    with pytest.raises(ValueError, match="p must be at least 1"):
        broken_stick(0)
    with pytest.raises(TypeError, match="p must be an integer"):
        broken_stick(2.0)


def test_broken_stick_rule_on_ratios_and_on_data_agree():
    X = spiked_data(300, 10, [20.0, 8.0], seed=3)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    r = lam / lam.sum()
    b = 1 / 10 * np.array([sum(1 / i for i in range(j, 11)) for j in range(1, 11)])
    expected = int(np.argmin(r > b))  # the leading run of r_j > b_j
    assert expected == 2
    assert choose_k(r, method="broken_stick") == expected
    assert choose_k(X=X, method="broken_stick") == expected


# -- Kaiser and threshold ------------------------------------------------------------


def test_kaiser_counts_eigenvalues_above_their_mean():
    X = spiked_data(200, 8, [9.0, 4.0, 1.6], seed=5)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))
    assert choose_k(X=X, method="kaiser") == np.sum(lam > lam.mean())
    corr = np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))
    assert choose_k(X=X, method="kaiser", standardize=True) == np.sum(corr > 1.0)
    assert choose_k([0.5, 0.3, 0.1, 0.1], method="kaiser") == 2  # above 1/4


def test_threshold_rule_from_data_matches_the_ratios():
    X = spiked_data(100, 6, [10.0, 5.0, 2.0], seed=2)
    r = pcalib.pca_svd(X).explained_variance_ratio
    for t in (0.5, 0.8, 0.95, 1.0):
        assert choose_k(X=X, threshold=t) == choose_k(r, t)


# -- Minka -------------------------------------------------------------------------


@given(minka_problems())
def test_minka_matches_scikit_learn_mle(X):
    expected = SklearnPCA(n_components="mle", svd_solver="full").fit(X).n_components_
    assert choose_k(X=X, method="minka") == expected
    assert PCA(n_components="mle").fit(X).n_components_ == expected


@given(minka_problems())
def test_minka_log_evidence_equals_scikit_learns_assess_dimension(X):
    n, p = X.shape
    spectrum = SklearnPCA(svd_solver="full").fit(X).explained_variance_
    ours = minka_log_evidence(spectrum, n)
    theirs = np.array([_assess_dimension(spectrum, k, n) for k in range(1, p)])
    finite = np.isfinite(theirs)
    assert np.array_equal(np.isfinite(ours), finite)
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-9, atol=1e-9 * n * p)


def test_minka_is_scale_free():
    X = spiked_data(80, 9, [6.0, 3.0], seed=8)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    a, b = minka_log_evidence(lam, 80), minka_log_evidence(1e6 * lam, 80)
    shift = -80 / 2 * 9 * np.log(1e6)  # -n/2 * p * log(c), the same for every k
    np.testing.assert_allclose(b - a, shift, rtol=1e-9)


def test_minka_on_digits_picks_the_rank_like_scikit_learn():
    digits = pcalib.datasets.load_digits().data
    rank = np.linalg.matrix_rank(digits - digits.mean(axis=0))
    assert rank == 61  # three pixels are blank in every image
    assert choose_k(X=digits, method="minka") == rank
    assert PCA(n_components="mle").fit(digits).n_components_ == rank
    assert SklearnPCA(n_components="mle").fit(digits).n_components_ == rank


def test_minka_matches_scikit_learn_on_iris_and_the_varying_pixels_of_the_digits():
    """The data of chapter 12, whose Minka check no longer imports scikit-learn."""
    iris = pcalib.datasets.load_iris().data
    digits = pcalib.datasets.load_digits().data
    varying = digits[:, digits.std(axis=0) > 0]
    for X, k in ((iris, 3), (varying, 60)):
        assert choose_k(X=X, method="minka") == k
        assert SklearnPCA(n_components="mle").fit(X).n_components_ == k


def test_minka_at_rank_deficiency_is_scale_free_where_scikit_learn_is_not():
    # n = p: the centered data have rank p - 1, so v = 0 at k = p - 1 and the evidence
    # grows without bound there. scikit-learn floors v at an absolute 1e-15, so its k
    # depends on the units of the data; ours is the rank whatever the units.
    X = spiked_data(10, 10, [3.0], seed=0) * 0.1
    sklearn_k = [SklearnPCA("mle", svd_solver="full").fit(X * c).n_components_ for c in (1.0, 1e8)]
    assert sklearn_k[0] < 9 and sklearn_k[1] == 9
    assert [choose_k(X=X * c, method="minka") for c in (1.0, 1e8)] == [9, 9]
    assert PCA("mle").fit(X).n_components_ == 9


def test_minka_at_rank_deficiency_and_ties():
    evidence = minka_log_evidence([5.0, 3.0, 0.0, 0.0], 10)
    assert evidence[1] == np.inf  # k = rank: noise variance 0, evidence unbounded
    assert evidence[2] == -np.inf  # lambda_3 = 0
    assert np.isfinite(evidence[0])
    # equal leading eigenvalues: the Laplace approximation is undefined for every k
    assert np.all(minka_log_evidence([4.0, 4.0, 1.0, 0.5], 10) == -np.inf)


@pytest.mark.parametrize(
    ("eigenvalues", "n", "error", "match"),
    [
        ([1.0], 10, ValueError, "at least 2 eigenvalues"),
        ([2.0, 1.0, 0.5], 2, ValueError, "n_samples >= the number of features"),
        ([1.0, 2.0], 10, ValueError, "non-increasing"),
        ([1.0, -1.0], 10, ValueError, "non-negative"),
        ([0.0, 0.0], 10, ValueError, "not all zero"),
        ([2.0, 1.0], 10.0, TypeError, "n_samples must be an integer"),
        ("12", 10, TypeError, "eigenvalues must be a 1-D numeric array"),
    ],
)
def test_minka_rejects_bad_input(eigenvalues, n, error, match):
    with pytest.raises(error, match=match):
        minka_log_evidence(eigenvalues, n)


def test_pca_mle_rejects_wide_data_single_feature_and_randomized():
    with pytest.raises(ValueError, match="needs n_samples >= n_features >= 2"):
        PCA("mle").fit(np.random.default_rng(0).normal(size=(4, 6)))
    with pytest.raises(ValueError, match="needs n_samples >= n_features >= 2"):
        PCA("mle").fit(np.random.default_rng(0).normal(size=(10, 1)))
    with pytest.raises(ValueError, match="solver='randomized' needs an integer"):
        PCA("mle", solver="randomized").fit(np.random.default_rng(0).normal(size=(10, 3)))
    with pytest.raises(TypeError, match="'mle' for Minka's rule"):
        PCA("MLE").fit(np.random.default_rng(0).normal(size=(10, 3)))


def test_pca_mle_keeps_the_leading_components_of_the_full_fit():
    X = spiked_data(150, 12, [10.0, 6.0, 3.0], seed=4)
    mle = PCA("mle").fit(X)
    full = PCA().fit(X)
    k = mle.n_components_
    assert k == 3
    np.testing.assert_allclose(mle.components_, full.components_[:k], atol=1e-10)
    np.testing.assert_allclose(mle.explained_variance_, full.explained_variance_[:k], rtol=1e-10)
    sk = SklearnPCA("mle", svd_solver="full").fit(X)
    assert mle.noise_variance_ == pytest.approx(sk.noise_variance_, rel=1e-10)


# -- parallel analysis -------------------------------------------------------------------


def parallel_by_hand(X, n_resamples, quantile, seed):
    """Horn's procedure written out: shuffle each column with its own permutation."""
    rng = np.random.default_rng(seed)
    n, p = X.shape
    observed = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    null = np.empty((n_resamples, p))
    for b in range(n_resamples):
        shuffled = np.column_stack([X[rng.permutation(n), j] for j in range(p)])
        null[b] = np.linalg.eigvalsh(np.cov(shuffled, rowvar=False))[::-1]
    return observed, np.quantile(null, quantile, axis=0)


def test_parallel_analysis_agrees_with_the_procedure_written_out():
    X = spiked_data(200, 12, [8.0, 5.0, 3.5], seed=11)
    result = parallel_analysis(X, n_resamples=400, random_state=1)
    observed, thresholds = parallel_by_hand(X, 400, 0.95, seed=2)
    np.testing.assert_allclose(result.eigenvalues, observed, rtol=1e-10)
    # two independent Monte Carlo estimates of the same quantiles
    np.testing.assert_allclose(result.thresholds, thresholds, rtol=0.03)
    k_by_hand = int(np.argmin(observed > thresholds))
    assert result.n_components == k_by_hand == 3


@pytest.mark.parametrize("seed", range(5))
def test_parallel_analysis_and_cv_recover_the_true_k_of_a_spiked_model(seed):
    X = spiked_data(300, 40, [10.0, 7.0, 5.0, 3.5], seed=seed)
    assert choose_k(X=X, method="parallel", random_state=seed) == 4
    assert choose_k(X=X, method="cv", random_state=seed) == 4


def test_parallel_analysis_finds_nothing_in_structureless_data_most_of_the_time():
    found = [parallel_analysis(np.random.default_rng(s).normal(size=(100, 8)) * np.arange(1, 9),
                               n_resamples=100, random_state=s).n_components
             for s in range(40)]
    # the first null eigenvalue exceeds its 95% quantile in about 5% of data sets
    assert np.mean(np.array(found) > 0) <= 0.2


def test_parallel_analysis_standardize_uses_the_correlation_matrix():
    X = spiked_data(150, 6, [5.0, 2.0], seed=12) * [1, 10, 100, 1, 1, 1]
    result = parallel_analysis(X, standardize=True, random_state=0)
    np.testing.assert_allclose(result.eigenvalues, np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))[::-1],
                               rtol=1e-10, atol=1e-12)
    assert result.thresholds[0] > 1.0 > result.thresholds[-1]  # null correlation spectra


def test_parallel_analysis_rejects_bad_options():
    X = spiked_data(30, 4, [3.0], seed=0)
    with pytest.raises(ValueError, match="quantile must be a number in"):
        parallel_analysis(X, quantile=1.0)
    with pytest.raises(ValueError, match="n_resamples must be at least 1"):
        parallel_analysis(X, n_resamples=0)
    with pytest.raises(TypeError, match="standardize must be True or False"):
        parallel_analysis(X, standardize="yes")
    with pytest.raises(ValueError, match="zero variance in column"):
        parallel_analysis(np.column_stack([X, np.ones(30)]), standardize=True)


# -- cross-validation ------------------------------------------------------------------


def press_by_least_squares(X, max_k, n_folds, seed):
    """Row-and-column CV written out: for each held-out row and column, least squares on
    the other columns of the row with the training axes (numpy.linalg.lstsq)."""
    n, p = X.shape
    fold = np.empty(n, dtype=int)
    fold[np.random.default_rng(seed).permutation(n)] = np.arange(n) % n_folds
    press = np.zeros(max_k + 1)
    for f in range(n_folds):
        train, test = X[fold != f], X[fold == f]
        mean = train.mean(axis=0)
        Vt = np.linalg.svd(train - mean, full_matrices=False)[2]
        for k in range(max_k + 1):
            V = Vt[:k].T
            for y in test - mean:
                for j in range(p):
                    others = np.arange(p) != j
                    t = np.linalg.lstsq(V[others], y[others], rcond=None)[0] if k else np.zeros(0)
                    press[k] += (y[j] - V[j] @ t) ** 2
    return press


@theorem("lem-howmany-loo")
def test_cv_press_equals_least_squares_with_each_entry_left_out():
    X = spiked_data(40, 6, [8.0, 3.0], seed=6)
    ours = cv_press(X, 4, n_folds=5, random_state=3)
    np.testing.assert_allclose(ours, press_by_least_squares(X, 4, 5, seed=3), rtol=1e-9)


@theorem("prop-howmany-rowwise-cv")
def test_naive_row_wise_cv_never_gets_worse_with_more_components():
    X = spiked_data(120, 15, [10.0, 5.0], seed=9)
    fold = np.arange(120) % 4
    press = np.zeros(15)
    for f in range(4):
        train, test = X[fold != f], X[fold == f]
        mean = train.mean(axis=0)
        Vt = np.linalg.svd(train - mean, full_matrices=False)[2]
        Y = test - mean
        press += [np.sum((Y - Y @ Vt[:k].T @ Vt[:k]) ** 2) for k in range(15)]
    assert np.all(np.diff(press) <= 1e-9 * press[0])
    assert np.argmin(press) == 14  # the most components tried
    assert np.argmin(cv_press(X, 14, n_folds=4)) == 2


def test_cv_press_with_k_zero_is_the_prediction_by_the_training_mean():
    X = spiked_data(30, 4, [5.0], seed=1)
    fold = np.empty(30, dtype=int)
    fold[np.random.default_rng(0).permutation(30)] = np.arange(30) % 3
    expected = sum(np.sum((X[fold == f] - X[fold != f].mean(axis=0)) ** 2) for f in range(3))
    assert cv_press(X, 0, n_folds=3, random_state=0)[0] == pytest.approx(expected, rel=1e-12)


def test_cv_press_standardize_and_unpredictable_feature():
    X = spiked_data(60, 5, [6.0, 2.0], seed=2)
    scaled = X * [1.0, 10.0, 100.0, 1.0, 1.0]
    np.testing.assert_allclose(cv_press(scaled, standardize=True, random_state=0),
                               cv_press(X, standardize=True, random_state=0), rtol=1e-9)
    # a feature uncorrelated with all others and of dominant variance is its own axis
    lonely = np.column_stack([X, np.random.default_rng(3).normal(size=60) * 1e4])
    assert np.argmin(cv_press(lonely, random_state=0)) == 0


def test_cv_press_rejects_bad_options():
    X = spiked_data(20, 4, [3.0], seed=0)
    with pytest.raises(ValueError, match="max_k must be at most"):
        cv_press(X, 4)
    with pytest.raises(ValueError, match="n_folds must be at most"):
        cv_press(X, n_folds=21)
    with pytest.raises(ValueError, match="n_folds must be at least 2"):
        cv_press(X, n_folds=1)
    with pytest.raises(ValueError, match="training sets of 1 sample"):
        cv_press(X[:2], n_folds=2)
    with pytest.raises(TypeError, match="max_k must be an integer"):
        cv_press(X, 1.5)


# -- choose_k: the interface -------------------------------------------------------------------


def test_choose_k_is_deterministic_under_random_state_and_leaves_x_alone():
    X = spiked_data(120, 20, [6.0, 3.0, 2.5], seed=7)
    copy = X.copy()
    for method in ("parallel", "cv"):
        a = choose_k(X=X, method=method, random_state=5)
        b = choose_k(X=X, method=method, random_state=np.random.default_rng(5))
        assert a == b
    np.testing.assert_array_equal(X, copy)
    np.testing.assert_array_equal(cv_press(X, random_state=3), cv_press(X, random_state=3))
    np.testing.assert_array_equal(parallel_analysis(X, random_state=3).thresholds,
                                  parallel_analysis(X, random_state=3).thresholds)


def test_choose_k_passes_options_to_the_data_rules():
    X = spiked_data(100, 10, [8.0, 4.0], seed=1)
    assert choose_k(X=X, method="cv", max_k=1, n_folds=5) == 1
    assert choose_k(X=X, method="parallel", n_resamples=20, quantile=0.5) >= 2


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((), {"method": "scree"}, ValueError, "method must be one of"),
        ((), {"method": "kaiser"}, ValueError, "exactly one of them"),
        (([0.6, 0.4],), {"X": np.eye(3), "method": "kaiser"}, ValueError, "exactly one of them"),
        (([0.6, 0.4],), {"method": "parallel"}, ValueError, "pass X, not ratios"),
        (([0.6, 0.4],), {"method": "kaiser", "n_folds": 3}, TypeError, "takes no options"),
        (([0.6, 0.4],), {"method": "minka"}, ValueError, "needs n_samples"),
        (([0.4, 0.6],), {"method": "broken_stick"}, ValueError, "non-increasing"),
        ((), {"X": np.eye(3), "method": "minka", "n_samples": 3}, ValueError, "taken from X"),
        ((), {"X": np.eye(3), "method": "cv", "n_samples": 3}, ValueError, "taken from X"),
        ((), {"X": np.eye(4), "method": "cv", "bogus": 1}, TypeError, "bogus"),
        ((), {"X": np.ones((5, 3)), "method": "kaiser"}, ValueError, "zero total variance"),
        ((), {"X": [[1.0, np.nan], [2.0, 3.0]]}, ValueError, "NaN or infinity"),
    ],
)
def test_choose_k_rejects_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        choose_k(*args, **kwargs)


# -- issue 31: no silent wrong answer ------------------------------------------------------


def eigenvalues_by_numpy(X, standardize=False):
    """All p eigenvalues of the covariance (correlation) matrix, decreasing: the reference."""
    M = np.corrcoef(X, rowvar=False) if standardize else np.cov(X, rowvar=False)
    return np.linalg.eigvalsh(M)[::-1]


@pytest.mark.parametrize("method", ["kaiser", "broken_stick", "minka", "mp", "bartlett"])
def test_spectrum_rules_refuse_the_ratios_of_leading_components_only(method):
    """Issue 31: choose_k(PCA(3)'s ratios, method="kaiser") returned 0 and broken_stick
    too (the missing ratios were read as zeros); the answer is 4. Now refused, and the
    whole spectrum, a full fit or X give NumPy's count."""
    X = spiked_data(400, 30, [10.0, 6.0, 4.0, 2.5], seed=31)
    lam = eigenvalues_by_numpy(X)
    assert np.sum(lam > lam.mean()) == 4  # Kaiser's answer, by NumPy
    leading = PCA(3).fit(X).explained_variance_ratio_
    with pytest.raises(ValueError, match="whole spectrum.*leading components only"):
        choose_k(leading, method=method, n_samples=400)
    with pytest.raises(ValueError, match="whole spectrum"):
        choose_k(PCA(3).fit(X), method=method)
    assert choose_k(PCA().fit(X), method=method) == choose_k(X=X, method=method)
    if method == "kaiser":
        assert choose_k(PCA().fit(X).explained_variance_ratio_, method=method) == 4


def test_choose_k_reads_a_fitted_estimator_like_its_data():
    """Issue 31/33: choose_k(fitted_model) failed with a dtype error. A pcalib PCA and a
    scikit-learn PCA are read through explained_variance_ratio_, n_samples_ and
    n_features_in_; Minka's rule then agrees with scikit-learn's own "mle"."""
    X = spiked_data(300, 15, [9.0, 5.0, 3.0], seed=33)
    lam = eigenvalues_by_numpy(X)
    assert choose_k(PCA().fit(X)) == np.argmax(np.cumsum(lam) / lam.sum() >= 0.95) + 1
    assert choose_k(PCA(3).fit(X), 0.5) == np.argmax(np.cumsum(lam) / lam.sum() >= 0.5) + 1
    assert choose_k(PCA().fit(X), method="kaiser") == np.sum(lam > lam.mean())
    sk = SklearnPCA().fit(X)
    assert choose_k(sk, method="minka") == SklearnPCA("mle", svd_solver="full").fit(X).n_components_
    assert choose_k(sk, method="broken_stick") == choose_k(X=X, method="broken_stick")
    standardized = PCA(standardize=True).fit(X)
    corr = eigenvalues_by_numpy(X, standardize=True)
    assert choose_k(standardized, method="kaiser") == np.sum(corr > 1)


def test_choose_k_rejects_estimators_it_cannot_read():
    with pytest.raises(pcalib.NotFittedError, match="not fitted"):
        choose_k(PCA(), method="kaiser")

    class Variances:
        explained_variance_ = np.array([2.0, 1.0])

    with pytest.raises(TypeError, match="explained_variance_ratio_"):
        choose_k(Variances(), method="kaiser")
    X = spiked_data(50, 5, [4.0], seed=0)
    with pytest.raises(ValueError, match="n_samples is taken from the fitted"):
        choose_k(PCA().fit(X), method="minka", n_samples=50)
    with pytest.raises(ValueError, match="standardize applies to X"):
        choose_k(PCA().fit(X), method="kaiser", standardize=True)
    with pytest.raises(ValueError, match="needs the data"):
        choose_k(PCA().fit(X), method="parallel")


def test_spectrum_rules_on_wide_noise_count_the_rank_not_p():
    """Issue 31: with n < p the p - n + 1 zero eigenvalues were counted as components:
    on pure noise Kaiser returned the rank (all n - 1 nonzero eigenvalues are above
    tr(S)/p). The rules now read the r = n - 1 nonzero eigenvalues (NumPy's Gram
    matrix): Kaiser compares with their mean, the broken stick has r pieces."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 200))
    Xc = X - X.mean(axis=0)
    nonzero = np.linalg.eigvalsh(Xc @ Xc.T)[::-1][:29]  # the rank is n - 1 = 29
    kaiser = int(np.sum(nonzero > nonzero.mean()))
    shares = nonzero / nonzero.sum()
    stick = np.array([sum(1 / i for i in range(j, 30)) / 29 for j in range(1, 30)])
    broken = int(np.argmin(shares > stick))
    assert choose_k(X=X, method="kaiser") == kaiser < 29
    assert choose_k(X=X, method="broken_stick") == broken == 0
    ratios = PCA().fit(X).explained_variance_ratio_  # min(n, p) = 30, the last round-off
    assert choose_k(ratios, method="kaiser") == kaiser
    assert choose_k(PCA().fit(X), method="broken_stick") == broken
    with pytest.raises(ValueError, match="Minka's rule needs n_samples >= the number of features"):
        choose_k(PCA().fit(X), method="minka")
    with pytest.raises(ValueError, match="the number of features is unknown"):
        choose_k(ratios, method="mp", n_samples=30)


@pytest.mark.parametrize("seed", range(20))
def test_choose_k_reads_the_float32_ratios_of_pca(seed):
    """Issue 31 F22: float32 ratios of PCA itself sum to 1 within float32 round-off
    (1 + 1.6e-8 for seed 5), and choose_k refused them (sum above 1 + 1e-8)."""
    X = (np.random.default_rng(seed).standard_normal((200, 10)) * np.arange(1, 11)).astype(np.float32)
    ratios = PCA().fit(X).explained_variance_ratio_
    assert ratios.dtype == np.float32
    lam = eigenvalues_by_numpy(X.astype(np.float64))
    assert choose_k(ratios, method="kaiser") == np.sum(lam > lam.mean())
    assert choose_k(ratios, method="broken_stick") == choose_k(X=X, method="broken_stick")


def test_cv_press_of_int64_near_2_to_62_is_exact():
    """Issue 31 F04: cv_press cast int64 data near 2**62 to float64 before centering (a
    spacing of 1024 there). PRESS does not change when a column is shifted by a whole
    number, so the data less 2**62 (small integers, exact in float64) are the reference."""
    small = np.random.default_rng(5).integers(-50, 50, size=(40, 6)) * np.array([1, 2, 3, 1, 5, 1])
    big = small.astype(np.int64) + np.int64(2**62)
    expected = cv_press(small.astype(float), 4, n_folds=5, random_state=1)
    np.testing.assert_allclose(cv_press(big, 4, n_folds=5, random_state=1), expected, rtol=1e-12)
    assert choose_k(X=big, method="cv", random_state=1, n_folds=5) == int(np.argmin(
        cv_press(small.astype(float), n_folds=5, random_state=1)))


def test_minka_accepts_round_off_negatives_as_zeros():
    """Issue 31: minka_log_evidence refused the -1e-17 that an eigensolver returns for a
    zero eigenvalue. Values within round-off of 0 (either sign) are zeros: the same
    evidence as the exact spectrum; a clearly negative value is still refused."""
    exact = minka_log_evidence([5.0, 3.0, 1.0, 0.0, 0.0], 20)
    rounded = minka_log_evidence([5.0, 3.0, 1.0, 3e-16, -2e-16], 20)
    np.testing.assert_array_equal(rounded, exact)
    assert exact[2] == np.inf  # k = 3 = the rank
    X = spiked_data(20, 8, [5.0, 2.0], seed=2)
    X[:, 7] = X[:, 6] - X[:, 5]  # rank 7 of 8: eigh returns a round-off 8th eigenvalue
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    assert abs(lam[-1]) < 1e-13 * lam[0]
    assert np.argmax(minka_log_evidence(lam, 20)) + 1 == 7
    with pytest.raises(ValueError, match="non-negative"):
        minka_log_evidence([5.0, 3.0, -1e-3], 20)

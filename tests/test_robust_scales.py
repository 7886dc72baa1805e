"""Tests of the univariate robust scales of chapter 14 (pcalib._robust.scales): the MAD,
Qn by Croux and Rousseeuw's O(n log n) algorithm, the univariate MCD and the cutoff of
the orthogonal distances.

References, independent of the code under test:
- R 4 with robustbase 0.95-0, rrcov 1.7-2 and pcaPP 2.0-3: numbers quoted as literals,
  each with the R call that printed it (the suite does not need R);
- brute force in NumPy (every pairwise difference; every window of order statistics);
- the normal distribution (simulation, replicated over many samples).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats

import pcalib
from pcalib._robust.scales import kth_pairwise_difference, median
from pcalib.robust import QN_CONSTANT, h_subset_size, mad, mcd_consistency, od_cutoff, qn, univariate_mcd


@pytest.fixture(scope="module")
def hbk() -> np.ndarray:
    return pcalib.datasets.load_hbk().data[:, :3]


def brute_kth_difference(y: np.ndarray, k: int) -> float:
    a, b = np.triu_indices(y.size, 1)
    return float(np.partition(np.abs(y[a] - y[b]), k - 1)[k - 1])


# -- median and MAD ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(7, 5), (8, 5), (1, 3), (2, 4), (101, 3)])
def test_median_and_mad_are_numpys_and_rs(shape):
    rng = np.random.default_rng(shape[0])
    Y = np.round(rng.standard_normal(shape), 1)  # ties included
    for axis in (0, 1):
        np.testing.assert_array_equal(median(Y, axis), np.median(Y, axis=axis))
        ref = 1.482602218505602 * np.median(np.abs(Y - np.median(Y, axis=axis, keepdims=True)), axis=axis)
        np.testing.assert_allclose(mad(Y, axis), ref, rtol=1e-15)
    before = Y.copy()
    mad(Y, 1)
    np.testing.assert_array_equal(Y, before)  # not overwritten unless asked


def test_mad_matches_r(hbk):
    # R: mad(hbk$X1) -> 1.92738 (R's constant is 1.4826; pcalib's 1/qnorm(3/4) = 1.48260222)
    assert float(mad(hbk[:, 0])) == pytest.approx(1.92738, abs=5e-6)


# -- Qn ------------------------------------------------------------------------------------------


def test_kth_pairwise_difference_is_the_brute_force_order_statistic():
    """1,200 samples of 2 to 80 values (normal, few distinct integers, Cauchy), the k
    of Qn: the O(n log n) selection returns exactly the order statistic."""
    rng = np.random.default_rng(0)
    for trial in range(1200):
        n = int(rng.integers(2, 81))
        y = (rng.standard_normal(n), rng.integers(0, 5, n).astype(float), rng.standard_cauchy(n))[trial % 3]
        h = n // 2 + 1
        k = h * (h - 1) // 2
        assert kth_pairwise_difference(np.sort(y), k) == brute_kth_difference(y, k)
    y = np.sort(rng.standard_normal(40))
    for k in range(1, 40 * 39 // 2 + 1, 37):  # any rank, not only Qn's
        assert kth_pairwise_difference(y, k) == brute_kth_difference(y, k)


@pytest.mark.parametrize(
    ("name", "order_statistic", "pcapp"),
    [
        # y <- scan("qn1.csv"): 997 normal values and 50, 60, 70 (seeded NumPy, below)
        # R: d <- as.vector(dist(y)); sort(d, partial=k)[k], k = choose(n %/% 2 + 1, 2)
        # R: pcaPP::qn(y); robustbase::Qn(y, constant=1, finite.corr=FALSE) agrees
        ("normal", 0.45788727132447854, 1.0122713729873714),
        # 1001 integers in 0..6: massive ties
        ("integers", 1.0, 2.2160451022057672),
        # 5000 Student t(2) values rounded to 3 decimals; robustbase::Qn(y, constant=1,
        # finite.corr=FALSE) returns 0.60000002384185791 (its trial values are float32)
        ("t2", 0.59999999999999998, 1.3304755181972157),
    ],
)
def test_qn_matches_r(name, order_statistic, pcapp):
    rng = np.random.default_rng(2024)
    samples = {"normal": np.r_[rng.standard_normal(997), [50.0, 60.0, 70.0]]}
    samples["integers"] = rng.integers(0, 7, 1001).astype(float)
    samples["t2"] = np.round(rng.standard_t(2, 5000), 3)
    y = samples[name]
    n = y.size
    h = n // 2 + 1
    assert kth_pairwise_difference(np.sort(y), h * (h - 1) // 2) == order_statistic
    assert qn(y) == pytest.approx(pcapp, rel=4e-16)


def test_qn_on_hbk_matches_pcapp_and_robustbase(hbk):
    # R: pcaPP::qn(hbk$X1) -> 1.74278361203016 (constant 2.21914, factor n/(n+1.4))
    assert qn(hbk[:, 0]) == pytest.approx(1.74278361203016, rel=1e-12)
    # R: robustbase::Qn(hbk$X1, constant=1, finite.corr=FALSE) -> 0.800000011920929
    # (a float32 trial value; the exact order statistic is 0.8)
    assert qn(hbk[:, 0]) / (QN_CONSTANT * 75 / 76.4) == pytest.approx(0.8, rel=1e-15)


def test_qn_by_columns_and_rows():
    """Columns or rows at once; all the pairwise differences of small samples, the
    selection for large ones: the same order statistics."""
    rng = np.random.default_rng(1)
    Y = rng.standard_normal((30, 4))
    per_column = np.array([qn(Y[:, j]) for j in range(4)])
    np.testing.assert_array_equal(qn(Y, axis=0), per_column)
    np.testing.assert_array_equal(qn(Y.T, axis=1), per_column)
    big = np.round(rng.standard_normal((700, 3)), 2)  # 244,650 pairs per column: the selection
    h = 351
    brute = [brute_kth_difference(big[:, j], h * (h - 1) // 2) for j in range(3)]
    np.testing.assert_allclose(qn(big, axis=0), np.array(brute) * QN_CONSTANT * 700 / 703.8, rtol=1e-15)
    with pytest.raises(ValueError, match="axis must be None, 0 or 1"):
        qn(Y, axis=2)
    with pytest.raises(ValueError, match="at least 2 values"):
        qn(np.ones(1))


def test_qn_needs_no_quadratic_memory():
    """Regression: Qn formed all n(n-1)/2 differences and refused n > 4000. At n =
    50,000 (1.2e9 differences, 10 GB) the O(n log n) selection returns the order
    statistic, which for N(0,1) data gives Qn within 2% of 1."""
    y = np.random.default_rng(5).standard_normal(50_000)
    assert qn(y) == pytest.approx(1.0, abs=0.02)


# -- the univariate MCD ----------------------------------------------------------------------------


def test_univariate_mcd_matches_rrcov_unimcd(hbk):
    # R: u <- rrcov:::unimcd(hbk$X2, quan=39); c(u$tmcd, u$smcd)
    np.testing.assert_allclose(univariate_mcd(hbk[:, 1], 39), [1.78032786885246, 1.07343990239031], rtol=1e-12)
    # R: u <- rrcov:::unimcd(hbk$X1, quan=57); c(u$tmcd, u$smcd)
    np.testing.assert_allclose(univariate_mcd(hbk[:, 0], 57), [1.53770491803279, 1.06398056599204], rtol=1e-12)


def test_univariate_mcd_raw_window_is_the_brute_force_one():
    """The window of h order statistics with the least variance, found by trying all
    n-choose-h subsets (the optimal subset is contiguous in sorted order)."""
    rng = np.random.default_rng(3)
    y = np.concatenate([rng.normal(size=9), [8.0, 9.0]])
    h = 7
    best = min(itertools.combinations(range(y.size), h), key=lambda c: np.var(y[list(c)]))
    brute_mean = y[list(best)].mean()
    # reweighting from the brute-force raw fit, written out (rrcov's unimcd steps)
    var0 = np.var(y[list(best)], ddof=1)
    res = (y - brute_mean) ** 2 / var0
    res /= np.sort(res)[h - 1] / scipy.stats.chi2.ppf(h / y.size, 1)
    keep = res < scipy.stats.chi2.ppf(0.975, 1)
    loc, scale = univariate_mcd(y, h)
    assert loc == pytest.approx(y[keep].mean(), rel=1e-12)
    assert scale == pytest.approx(y[keep].std(ddof=1), rel=1e-12)
    _, consistent = univariate_mcd(y, h, consistent=True)
    assert consistent == pytest.approx(scale * np.sqrt(mcd_consistency(1, 0.975)), rel=1e-12)


def test_univariate_mcd_scale_is_consistent_only_when_asked():
    """Regression (issue 32): rrcov's reweighted univariate MCD scale is the standard
    deviation of a normal sample truncated at +-2.24 sigma, about 0.923 sigma; with
    ``consistent=True`` it estimates sigma. 200 samples of 2,000 N(0, 4) values at once
    (columns): the means of the two scales, against the truncated normal's
    sqrt(F_3(q) / F_1(q)) with q = chi2_{1, 0.975} (computed here, 0.9226)."""
    Y = 2.0 * np.random.default_rng(8).standard_normal((2000, 200))
    h = h_subset_size(2000, 1, 0.75)
    q = scipy.stats.chi2.ppf(0.975, 1)
    truncated = np.sqrt(scipy.stats.chi2.cdf(q, 3) / 0.975)
    assert truncated == pytest.approx(0.9226, abs=1e-4)
    _, raw = univariate_mcd(Y, h)
    _, fixed = univariate_mcd(Y, h, consistent=True)
    assert raw.mean() / 2 == pytest.approx(truncated, abs=0.005)
    assert fixed.mean() / 2 == pytest.approx(1.0, abs=0.005)


# -- the orthogonal cutoff ---------------------------------------------------------------------------


def test_od_cutoff_rules_match_rrcov(hbk):
    od = np.sqrt((hbk**2).sum(axis=1))
    # R: rrcov:::.crit.od(sqrt(rowSums(x^2)), method="umcd", quan=57) with x = hbk[, 1:3]
    assert od_cutoff(od, 57, "umcd", consistent=False) == pytest.approx(5.61356347279189, rel=1e-12)
    # R: rrcov:::.crit.od(sqrt(rowSums(x^2)), method="medmad") -> 6.9573233318107; R's mad
    # constant 1.4826 against 1.48260222 here: 2e-6 apart at most
    assert od_cutoff(od, 57, "medmad") == pytest.approx(6.9573233318107, rel=2e-6)
    # the consistent MCD scale is sqrt(c_1(0.975)) = 1.084 times rrcov's: a larger cutoff
    assert od_cutoff(od, 57) == pytest.approx(5.83782628043275, rel=1e-9)
    m, s = univariate_mcd(od ** (2 / 3), 57)
    assert od_cutoff(od, 57) == pytest.approx(
        (m + s * np.sqrt(mcd_consistency(1, 0.975)) * scipy.stats.norm.ppf(0.975)) ** 1.5, rel=1e-12
    )


def _cutoffs(values: np.ndarray, m: np.ndarray, s: np.ndarray) -> np.ndarray:
    return np.maximum(m + s * scipy.stats.norm.ppf(0.975), 0.0) ** 1.5


@pytest.mark.parametrize(
    ("q", "mcd_share", "medmad_share"), [(1, 0.040, 0.030), (2, 0.027, 0.026), (5, 0.025, 0.025), (20, 0.025, 0.025)]
)
def test_od_cutoff_flags_its_nominal_share_of_clean_rows(q, mcd_share, medmad_share):
    """Regression (issue 32): the cutoff built on rrcov's inconsistent univariate MCD flagged
    3.5-3.7% of clean rows at the nominal 2.5%. 400 samples (columns) of n = 500
    orthogonal distances of normal data, OD^2 ~ chi2_q: with p - k = q >= 5 residual
    dimensions the consistent MCD rule and the median/MAD rule each flag 2.5% on average
    (within 0.25 points; Monte Carlo error about 0.04); at q = 2 and 1, where OD^(2/3) is
    further from normal, the MCD rule flags 2.7% and 4.0%, the median/MAD rule 2.6% and
    3.0% (the chapter quotes these). With q >= 2 the MCD rule's share varies less from
    sample to sample (its standard deviation is 0.80-0.92 of the median/MAD rule's over
    8 seeds per q), with q = 1 more (1.02-1.14). The columns are cut at once by the
    formula, and od_cutoff is checked against it on one column."""
    rng = np.random.default_rng(q)
    n, h = 500, h_subset_size(500, 2, 0.75)
    od = np.sqrt(rng.chisquare(q, (n, 400)))
    values = od ** (2 / 3)
    cutoffs = {
        "umcd": _cutoffs(values, *univariate_mcd(values, h, consistent=True)),
        "medmad": _cutoffs(values, np.median(values, axis=0), mad(values)),
        "rrcov umcd": _cutoffs(values, *univariate_mcd(values, h)),
    }
    for rule, key in (("umcd", "umcd"), ("medmad", "medmad")):
        assert od_cutoff(od[:, 0], h, rule) == pytest.approx(cutoffs[key][0], rel=1e-12)
    assert od_cutoff(od[:, 0], h, consistent=False) == pytest.approx(cutoffs["rrcov umcd"][0], rel=1e-12)
    shares = {rule: np.mean(od > cut, axis=0) for rule, cut in cutoffs.items()}
    assert shares["umcd"].mean() == pytest.approx(mcd_share, abs=0.0025)
    assert shares["medmad"].mean() == pytest.approx(medmad_share, abs=0.0025)
    assert shares["rrcov umcd"].mean() > 0.034
    if q >= 2:
        assert shares["umcd"].std() < 0.95 * shares["medmad"].std()
    else:
        assert shares["umcd"].std() > shares["medmad"].std()


def test_od_cutoff_share_follows_the_effective_number_of_residual_dimensions():
    """RobustPCA's od_rule docstring: the clean shares of 2.7% (MCD rule) and 2.6%
    (median/MAD) for p - k = 2 assume equal residual variances. With residual variances
    1 and 0.25, OD^2 = z_1^2 + 0.25 z_2^2 has (1.25)^2 / 1.0625 = 1.47 effective
    dimensions and the rules flag about 4.4% and 4.0% (6 seeds of 400 samples of 500:
    4.28-4.46% and 3.96-4.08%), close to the 4.0% and 3.0% of one dimension."""
    rng = np.random.default_rng(12)
    n, h = 500, h_subset_size(500, 2, 0.75)
    squares = rng.standard_normal((2, n, 400)) ** 2
    od = np.sqrt(squares[0] + 0.25 * squares[1])
    values = od ** (2 / 3)
    umcd = np.mean(od > _cutoffs(values, *univariate_mcd(values, h, consistent=True)))
    medmad = np.mean(od > _cutoffs(values, np.median(values, axis=0), mad(values)))
    assert umcd == pytest.approx(0.044, abs=0.0025)
    assert medmad == pytest.approx(0.040, abs=0.0025)


@pytest.mark.parametrize(("fraction", "low", "high"), [(0.0, 1.9, 2.0), (0.1, 2.0, 2.12), (0.2, 2.07, 2.2)])
def test_consistent_univariate_mcd_does_not_inflate_under_contamination(fraction, low, high):
    """Regression (review of chapter 14, round 2): the consistent reweighted scale was
    multiplied by c_1(m/n), m the values kept, which counts far outliers as the normal
    tails the reweighting cut: at 10% and 20% of values at 12 the cutoff
    m + z_0.975 s of N(0, 1) data moved from 1.96 to 2.44 and 2.97 standard deviations,
    as far as the median/MAD rule's (2.39 and 3.03). With the fixed factor c_1(0.975) it
    stays within 2.06 and 2.13 (the excluded values are outliers, not tails). 200 samples
    (columns) of n = 500; Monte Carlo standard error of the mean cutoff about 0.005."""
    rng = np.random.default_rng(int(fraction * 100))
    Y = rng.standard_normal((500, 200))
    Y[: int(fraction * 500)] = 12.0
    location, scale = univariate_mcd(Y, h_subset_size(500, 2, 0.75), consistent=True)
    cutoff = location + scale * scipy.stats.norm.ppf(0.975)
    assert low < cutoff.mean() < high
    medmad = np.median(Y, axis=0) + mad(Y) * scipy.stats.norm.ppf(0.975)
    if fraction:
        assert cutoff.mean() < medmad.mean() - 0.3


def test_univariate_mcd_exact_fit_returns_the_constant_window():
    """Regression (review of chapter 14, round 3, finding 3): when the best h-window has
    zero variance, the location was the plain mean of all values (10.1 here) instead
    of the window's value 0, so od_cutoff put the cutoff at 10.1**1.5 = 32.1 and missed
    the 20 values at OD = 1."""
    y = np.array([0.0] * 160 + [1.0] * 20 + [100.0] * 20)
    for consistent in (False, True):
        location, scale = univariate_mcd(y, 150, consistent=consistent)
        assert location == 0.0 and scale == 0.0
    two = np.column_stack([y, y + 3.0, np.arange(200.0)])
    location, scale = univariate_mcd(two, 150)
    assert location[0] == 0.0 and location[1] == 3.0 and scale[:2].tolist() == [0.0, 0.0]
    assert scale[2] > 0
    cutoff = od_cutoff(y**1.5, 150)
    assert cutoff == 0.0
    assert np.all((y**1.5 > cutoff) == (y > 0))

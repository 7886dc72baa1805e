"""Tests of pcalib.noise_rules: parallel analysis with its two nulls, the
Marchenko-Pastur edge, Bartlett's and Lawley's tests, Velicer's MAP.

Independent references: R's psych (cortest.bartlett, VSS's map, fa.parallel's
simulated eigenvalues) quoted as literals with the R code; SciPy's adaptive quadrature
and root finder for the median of the Marchenko-Pastur law; the formulas written out
with NumPy and scipy.stats; simulations of the null hypotheses (the rate of false
detections) over many data sets.
"""

import numpy as np
import pytest
import scipy.integrate
import scipy.optimize
import scipy.stats

import pcalib
from pcalib import bartlett_test, choose_k, marchenko_pastur_edge, parallel_analysis, velicer_map
from pcalib._linalg.spectra import marchenko_pastur_median

theorem = pytest.mark.theorem


def spiked(n, p, spikes, rng, noise=1.0):
    """n x p Gaussian data, covariance noise * I plus spikes along random axes."""
    basis = np.linalg.qr(rng.standard_normal((p, p)))[0]
    lam = np.full(p, noise)
    lam[: len(spikes)] = spikes
    return rng.standard_normal((n, p)) * np.sqrt(lam) @ basis.T


def spectra_of_noise(count, n, p, rng):
    """Decreasing covariance eigenvalues of `count` pure-noise n x p data sets."""
    Z = rng.standard_normal((count, n, p))
    Z -= Z.mean(axis=1, keepdims=True)
    return np.linalg.eigvalsh(Z.transpose(0, 2, 1) @ Z / (n - 1))[:, ::-1]


# -- the Marchenko-Pastur edge ------------------------------------------------------------


def median_by_quadrature(beta):
    a, b = (1 - np.sqrt(beta)) ** 2, (1 + np.sqrt(beta)) ** 2

    def density(t):
        return np.sqrt(max((b - t) * (t - a), 0.0)) / (2 * np.pi * beta * t)

    return scipy.optimize.brentq(lambda x: scipy.integrate.quad(density, a, x, limit=200)[0] - 0.5,
                                 a + 1e-12, b, xtol=1e-13)


@pytest.mark.parametrize("beta", [1.0, 0.5, 1 / 6, 0.02])
def test_median_of_the_marchenko_pastur_law_against_adaptive_quadrature(beta):
    assert marchenko_pastur_median(beta) == pytest.approx(median_by_quadrature(beta), abs=5e-9)


def test_median_at_ratio_one_is_gavish_and_donohos_value():
    # Gavish and Donoho (2014) quote mu_1 = 0.6528 for the median of the law of ratio 1
    assert marchenko_pastur_median(1.0) == pytest.approx(0.6528, abs=5e-5)


def test_marchenko_pastur_edge_written_out():
    rng = np.random.default_rng(0)
    X = spiked(500, 60, [8.0, 5.0], rng, noise=2.0)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    N, p = 499, 60
    sigma2 = N * np.median(lam) / (N * median_by_quadrature(p / N))
    root = np.sqrt(N - 0.5) + np.sqrt(p - 0.5)
    threshold = sigma2 * (root**2 + 0.9793 * root * (1 / np.sqrt(N - 0.5) + 1 / np.sqrt(p - 0.5)) ** (1 / 3)) / N
    result = marchenko_pastur_edge(lam, 500)
    assert result.noise_variance == pytest.approx(sigma2, rel=1e-8)
    assert result.noise_variance == pytest.approx(2.0, rel=0.05)
    assert result.threshold == pytest.approx(threshold, rel=1e-8)
    assert result.edge == pytest.approx(result.noise_variance * (1 + np.sqrt(p / N)) ** 2, rel=1e-12)
    assert result.n_components == np.sum(lam > threshold) == 2
    assert choose_k(X=X, method="mp") == 2
    # scale-free: ratios give the same k, the noise variance in their units
    ratios = marchenko_pastur_edge(lam / lam.sum(), 500)
    assert ratios.n_components == 2
    assert ratios.noise_variance == pytest.approx(result.noise_variance / lam.sum(), rel=1e-12)


@pytest.mark.parametrize(("n", "p"), [(200, 40), (60, 150)])
def test_marchenko_pastur_edge_rarely_finds_a_component_in_noise(n, p):
    """The Tracy-Widom margin at 95%: on pure noise the largest eigenvalue passes in
    about 5% of data sets (the estimated noise variance adds a little)."""
    rng = np.random.default_rng(n + p)
    found = []
    for _ in range(6):
        Z = rng.standard_normal((50, n, p))
        Z -= Z.mean(axis=1, keepdims=True)
        small = Z @ Z.transpose(0, 2, 1) if n < p else Z.transpose(0, 2, 1) @ Z
        for w in np.linalg.eigvalsh(small)[:, ::-1]:
            found.append(marchenko_pastur_edge(w / (n - 1), n, n_features=p).n_components)
    rate = np.mean(np.array(found) > 0)
    assert 0.01 <= rate <= 0.10, rate


def test_marchenko_pastur_edge_finds_four_spikes_in_every_data_set():
    """Spikes (10, 6, 4, 2.5) over unit noise at 600 x 100 (all above the phase transition
    1 + sqrt(1/6)): the rule finds exactly 4 in at least 95% of 40 data sets."""
    rng = np.random.default_rng(12)
    found = [choose_k(X=spiked(600, 100, [10.0, 6.0, 4.0, 2.5], rng), method="mp") for _ in range(40)]
    assert np.mean(np.array(found) == 4) >= 0.95


def test_marchenko_pastur_edge_reads_a_spectrum_of_lower_rank_as_fewer_dimensions():
    # three copies of columns: rank 20 of 60 features; the 40 zeros are not noise
    rng = np.random.default_rng(3)
    base = spiked(400, 20, [8.0], rng)
    X = np.hstack([base, base, base])
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    wide = marchenko_pastur_edge(lam, 400)
    alone = marchenko_pastur_edge(np.linalg.eigvalsh(np.cov(base, rowvar=False))[::-1] * 3, 400)
    assert wide.n_components == alone.n_components == 1
    assert wide.noise_variance == pytest.approx(alone.noise_variance, rel=1e-8)


def test_marchenko_pastur_edge_needs_p_for_a_spectrum_as_long_as_n_minus_one():
    """n < p: PCA's explained variances are the min(n, p) = n leading eigenvalues; read
    as p = n they set the noise variance about 2.6 times too high and lose the spikes
    (the old default). Without n_features such a spectrum is refused; with it, right."""
    rng = np.random.default_rng(5)
    n, p = 100, 200
    found, sigma2 = [], []
    for _ in range(20):
        X = spiked(n, p, [8.0, 6.0, 4.5], rng)
        ev = pcalib.PCA().fit(X).explained_variance_
        assert ev.size == n
        with pytest.raises(ValueError, match="pass n_features=p"):
            marchenko_pastur_edge(ev, n)
        with pytest.raises(ValueError, match="pass n_features=p"):
            marchenko_pastur_edge(ev[: n - 1], n)
        result = marchenko_pastur_edge(ev, n, n_features=p)
        found.append(result.n_components)
        sigma2.append(result.noise_variance)
        assert result.n_components == choose_k(X=X, method="mp")
    assert np.mean(sigma2) == pytest.approx(1.0, abs=0.08)
    assert np.mean(np.array(found) == 3) >= 0.8


def test_marchenko_pastur_edge_refuses_the_leading_eigenvalues_with_n_features():
    """300 x 50 spiked data: the ten leading eigenvalues of PCA(10) were read as data of
    rank 10, the noise variance 1.81 for 1.08 from the whole spectrum; n_features=50 did
    not help. With n_features the function now needs min(n - 1, p) eigenvalues."""
    rng = np.random.default_rng(6)
    X = spiked(300, 50, [12.0, 8.0, 5.0, 3.0], rng)
    leading = pcalib.PCA(10).fit(X).explained_variance_
    with pytest.raises(ValueError, match="every eigenvalue, at least .* = 50 .*got 10"):
        marchenko_pastur_edge(leading, 300, n_features=50)
    whole = marchenko_pastur_edge(pcalib.PCA().fit(X).explained_variance_, 300, n_features=50)
    assert whole.noise_variance == pytest.approx(1.0, abs=0.1)
    # n < p: the min(n - 1, p) = 99 eigenvalues suffice (a rank-deficient spectrum with its
    # zeros written out), 98 do not
    wide = pcalib.PCA().fit(spiked(100, 200, [8.0], rng)).explained_variance_
    assert marchenko_pastur_edge(wide[:99], 100, n_features=200).n_components == 1
    with pytest.raises(ValueError, match="every eigenvalue"):
        marchenko_pastur_edge(wide[:98], 100, n_features=200)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (([2.0, 1.0, 0.5], 2), {}, "n_samples must be at least 3"),
        (([2.0, 1.0, 0.5], 10), {"n_features": 2}, "n_features must be at least 3"),
        (([1.0, 2.0], 10), {}, "non-increasing"),
        (([2.0, 0.0, 0.0], 10), {}, "at least 2 nonzero"),
        (([2.0, -1.0], 10), {}, "non-negative"),
    ],
)
def test_marchenko_pastur_edge_rejects_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        marchenko_pastur_edge(*args, **kwargs)


# -- Bartlett's and Lawley's tests ----------------------------------------------------------


def lawley_by_hand(lam, n, k):
    """Lawley's (1956) statistic for H_k written out term by term, and its p-value."""
    p = len(lam)
    q = p - k
    mean = np.mean(lam[k:])
    multiplier = n - 1 - k - (2 * q * q + q + 2) / (6 * q) + sum(mean**2 / (lam[i] - mean) ** 2 for i in range(k))
    statistic = multiplier * (q * np.log(mean) - np.sum(np.log(lam[k:])))
    df = (q + 2) * (q - 1) / 2
    return statistic, df, scipy.stats.chi2.sf(statistic, df)


def test_bartlett_test_equals_lawleys_formula_written_out():
    rng = np.random.default_rng(1)
    X = spiked(150, 8, [6.0, 3.0], rng)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    result = bartlett_test(lam, 150)
    for k in range(7):
        statistic, df, p_value = lawley_by_hand(lam, 150, k)
        assert result.statistic[k] == pytest.approx(statistic, rel=1e-10)
        assert result.df[k] == df
        assert result.p_value[k] == pytest.approx(p_value, rel=1e-8, abs=1e-300)
    assert result.n_components == int(np.argmax(result.p_value > 0.05)) == 2
    assert choose_k(X=X, method="bartlett") == 2
    assert choose_k(X=X, method="bartlett", alpha=1e-300) < 2


def test_bartlett_test_of_a_correlation_matrix_matches_r_psych():
    """k = 0 on a correlation matrix is Bartlett's test of R = I. R 4.x, psych 2.2.9:
    iris <- as.matrix(datasets::iris[, 1:4]);
    b <- psych::cortest.bartlett(cor(iris), n = 150); c(b$chisq, b$p.value, b$df)
    # 706.959243023 1.92267960441e-149 6"""
    iris = pcalib.datasets.load_iris().data
    corr = np.linalg.eigvalsh(np.corrcoef(iris, rowvar=False))[::-1]
    result = bartlett_test(corr, 150, correlation=True)
    assert result.statistic[0] == pytest.approx(706.959243023, rel=1e-10)
    assert result.p_value[0] == pytest.approx(1.92267960441e-149, rel=1e-8)
    assert result.df[0] == 6


def test_lawleys_test_holds_its_level_under_the_null():
    """Under H_2 (two spikes, 6 equal eigenvalues, n = 200) the test of H_2 rejects in
    about alpha = 5% of 400 normal data sets, and H_0 and H_1 always."""
    rng = np.random.default_rng(2)
    lam_C = np.array([8.0, 4.0, 1, 1, 1, 1, 1, 1])
    Z = rng.standard_normal((400, 200, 8)) * np.sqrt(lam_C)
    Z -= Z.mean(axis=1, keepdims=True)
    spectra = np.linalg.eigvalsh(Z.transpose(0, 2, 1) @ Z / 199)[:, ::-1]
    p_values = np.array([bartlett_test(w, 200).p_value[:3] for w in spectra])
    assert np.all(p_values[:, :2] < 1e-6)
    rate = np.mean(p_values[:, 2] <= 0.05)
    assert 0.025 <= rate <= 0.08, rate


def test_bartlett_test_rejects_bad_input():
    with pytest.raises(ValueError, match="n_samples - 1 above"):
        bartlett_test([3.0, 2.0, 1.0], 4)
    with pytest.raises(ValueError, match="alpha must be a number in"):
        bartlett_test([3.0, 2.0, 1.0], 40, alpha=0.0)
    with pytest.raises(ValueError, match="needs the data|n_samples"):
        choose_k([0.5, 0.3, 0.2], method="bartlett")


# -- Velicer's MAP ----------------------------------------------------------------------


def test_velicer_map_matches_r_psych_vss():
    """The digits without their three blank pixels (p = 61). R 4.x, psych 2.2.9, with
    d the 1797 x 61 matrix of pcalib.datasets.load_digits().data[:, std > 0]:
    v <- psych::VSS(d, n = 12, plot = FALSE); v$map   (m = 1, ..., 12)"""
    psych_map = [0.029638407174, 0.0273537800178, 0.0239061424031, 0.0200927553447,
                 0.0193875327929, 0.0189860696194, 0.0183207218884, 0.0180510154371,
                 0.0176987325477, 0.0175555434638, 0.0170485518499, 0.0168480072157]
    digits = pcalib.datasets.load_digits().data
    digits = digits[:, digits.std(axis=0) > 0]
    values = velicer_map(digits)
    np.testing.assert_allclose(values[1:13], psych_map, rtol=1e-9)
    corr = np.corrcoef(digits, rowvar=False)
    off = corr[~np.eye(61, dtype=bool)]
    assert values[0] == pytest.approx(np.mean(off**2), rel=1e-10)  # m = 0, by NumPy
    assert choose_k(X=digits, method="map") == int(np.argmin(values)) == 15


def test_velicer_map_on_iris_matches_r_and_keeps_one():
    """R: psych::VSS(as.matrix(datasets::iris[, 1:4]), n = 3, plot = FALSE)$map
    # 0.145809839236 0.543520574308 0.999999999999"""
    values = velicer_map(pcalib.datasets.load_iris().data)
    np.testing.assert_allclose(values[1:], [0.145809839236, 0.543520574308, 0.999999999999], rtol=1e-9)
    assert choose_k(X=pcalib.datasets.load_iris().data, method="map") == 1


def test_velicer_map_fourth_power_from_residual_correlations():
    """The revised MAP of Velicer, Eaton and Fava (2000) averages the fourth powers of
    the partial correlations. Independent route: the partial correlations given the
    first m components are the correlations of the residuals of the standardized data
    after a least-squares regression on their m component scores (NumPy's lstsq)."""
    X = spiked(80, 7, [6.0, 3.0], np.random.default_rng(10))
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    V = np.linalg.eigh(Z.T @ Z / 79)[1][:, ::-1]
    expected = []
    for m in range(7):
        scores = Z @ V[:, :m]
        residuals = Z - scores @ np.linalg.lstsq(scores, Z, rcond=None)[0] if m else Z
        partial = np.corrcoef(residuals, rowvar=False)[~np.eye(7, dtype=bool)]
        expected.append(np.mean(partial**4))
    np.testing.assert_allclose(velicer_map(X, power=4), expected, rtol=1e-9)
    np.testing.assert_allclose(velicer_map(X, power=2)[:3], velicer_map(X)[:3], rtol=0)
    with pytest.raises(ValueError, match="power must be 2 or 4"):
        velicer_map(X, power=3)
    with pytest.raises(TypeError, match="power must be the integer 2 or 4"):
        velicer_map(X, power=4.0)


def test_velicer_map_keeps_nothing_in_independent_data_and_refuses_constant_columns():
    found = [choose_k(X=np.random.default_rng(s).standard_normal((200, 10)), method="map") for s in range(20)]
    assert np.mean(np.array(found) == 0) >= 0.9
    with pytest.raises(ValueError, match="zero variance in column"):
        velicer_map(np.column_stack([np.random.default_rng(0).standard_normal((20, 3)), np.ones(20)]))


# -- parallel analysis: the two nulls ---------------------------------------------------------


def test_horns_normal_null_matches_r_psych_fa_parallel():
    """Horn's simulated null, correlation matrices, mean over the null data sets. R:
    set.seed(1); fp <- psych::fa.parallel(as.matrix(datasets::iris[, 1:4]), fa = "pc",
    n.iter = 2000, plot = FALSE); fp$pc.sim   # 1.18417 1.04761 0.944034 0.824192
    (two Monte Carlo estimates: within 1%)."""
    result = parallel_analysis(pcalib.datasets.load_iris().data, null="normal", standardize=True,
                               quantile="mean", n_resamples=4000, random_state=0)
    np.testing.assert_allclose(result.thresholds, [1.18417, 1.04761, 0.944034, 0.824192], rtol=0.01)


@theorem("prop-howmany-permutation-null")
def test_the_permutation_null_has_the_diagonal_of_s_as_its_mean_covariance():
    """Averaged over permutations, the covariance of column-permuted centered data is
    diag(S): the variances stay, every covariance averages to 0. So its eigenvalues
    average tr(S)/p. Check: the mean of 20000 permuted covariances is within 4 standard
    errors of diag(S) entry by entry."""
    rng = np.random.default_rng(5)
    X = spiked(30, 4, [5.0, 2.0], rng)
    Xc = X - X.mean(axis=0)
    S = Xc.T @ Xc / 29
    stack = rng.permuted(np.broadcast_to(Xc, (20000, 30, 4)), axis=1)
    covariances = stack.transpose(0, 2, 1) @ stack / 29
    mean, se = covariances.mean(axis=0), covariances.std(axis=0) / np.sqrt(20000)
    np.testing.assert_allclose(np.diag(mean), np.diag(S), rtol=1e-12)
    off = ~np.eye(4, dtype=bool)
    assert np.all(np.abs(mean[off]) < 4 * se[off])
    assert np.trace(S) / 4 == pytest.approx(np.mean(np.linalg.eigvalsh(covariances)), rel=1e-10)


def test_permutation_null_sets_are_independent_column_permutations_of_the_data():
    """Each permutation null set permutes every centered column on its own: the
    thresholds (mean and 90% quantile) equal those of 30 such sets drawn with NumPy's
    ``Generator.permuted`` from the same seed, their spectra by ``eigvalsh`` of the
    covariance. (The permutations are done in place in a C-ordered copy, which is
    faster; the draws are those of permuting a broadcast view.)"""
    X = spiked(40, 5, [4.0], np.random.default_rng(8))
    Xc = X - X.mean(axis=0)
    stack = np.random.default_rng(9).permuted(np.broadcast_to(Xc, (30, 40, 5)), axis=1)
    spectra = np.linalg.eigvalsh(stack.transpose(0, 2, 1) @ stack / 39)[:, ::-1]
    for quantile, expected in (("mean", spectra.mean(axis=0)),
                               (0.9, np.quantile(spectra, 0.9, axis=0))):
        result = parallel_analysis(X, n_resamples=30, quantile=quantile, random_state=9)
        np.testing.assert_allclose(result.thresholds, expected, rtol=1e-12)


def test_parallel_analysis_null_level_is_the_average_eigenvalue_not_the_noise():
    """Both nulls have the population diag(S), whose eigenvalues average tr(S)/p: with
    spikes (20, 10, 5, 2.5) over unit noise, tr(S)/p is about 1.35, and the nulls'
    largest eigenvalue lies at least at the Marchenko-Pastur edge of that level (the
    column variances also spread around it), far above the edge of the noise."""
    rng = np.random.default_rng(6)
    X = spiked(600, 100, [20.0, 10.0, 5.0, 2.5], rng)
    level = np.trace(np.cov(X, rowvar=False)) / 100
    assert level > 1.3
    edge = (1 + np.sqrt(100 / 599)) ** 2
    for null in ("permutation", "normal"):
        first = parallel_analysis(X, null=null, quantile="mean", n_resamples=30, random_state=0).thresholds[0]
        assert first > 0.97 * level * edge
        assert first > 1.3 * edge


def test_parallel_analysis_rejects_an_unknown_null():
    with pytest.raises(ValueError, match="null must be one of"):
        parallel_analysis(np.eye(5), null="uniform")
    with pytest.raises(ValueError, match="quantile must be a number in"):
        parallel_analysis(np.eye(5), quantile="median")
    with pytest.raises(TypeError, match="takes the options n_resamples, quantile, null"):
        choose_k(X=np.eye(5), method="parallel", alpha=0.1)

"""Supplementary variables, dimdesc, confidence ellipses (pcalib.supplementary), and
promax (pcalib.reading), against FactoMineR 2.7 and R 4.2.2 (run once, quoted here;
the suite does not need R), and first principles in NumPy.

The R session, for every literal below:

    library(FactoMineR)
    origin <- c(rep("Japan",3), rep("US",4), rep("Europe",7), rep("US",3), "Europe",
                rep("Japan",3), rep("US",4), rep("Europe",3), "US", rep("Europe",3))
    d <- cbind(mtcars, pw = mtcars$hp / mtcars$wt, origin = factor(origin))
    res <- PCA(d, quanti.sup = 12, quali.sup = 13, graph = FALSE)
    dd <- dimdesc(res, axes = 1:2)
    aux <- cbind.data.frame(origin = d$origin, res$ind$coord[, 1:2])
    ce <- coord.ellipse(aux, bary = TRUE, level.conf = 0.95)      # plotellipses' ellipses
"""

import warnings

import numpy as np
import pytest

import pcalib

CARS = pcalib.datasets.load_mtcars()
X = CARS.data
ORIGIN = (["Japan"] * 3 + ["US"] * 4 + ["Europe"] * 7 + ["US"] * 3 + ["Europe"] + ["Japan"] * 3
          + ["US"] * 4 + ["Europe"] * 3 + ["US"] + ["Europe"] * 3)
PW = (X[:, 3] / X[:, 5])[:, None]  # power to weight, hp / wt

# res$quanti.sup$cor["pw", 1:5]
FM_PW_COR = [0.3905417230891, 0.7191243385259, -0.07208793179096, -0.2481827585656, 0.3745465404794]
# res$quali.sup$coord, $cos2, $v.test (rows Europe, Japan, US; Dim.1 to Dim.5), $eta2
FM_COORD = np.array([
    [-0.8681299074756, 0.3383110876075, 0.3406183975216, -0.1702531085096, -0.1148682154920],
    [-2.4097378091332, 0.2380517942663, -0.2901766934695, 0.2487443495250, -0.2039311303421],
    [2.2176871299547, -0.5137221660085, -0.2522997837071, 0.0742564518320, 0.2359784832450],
])
FM_COS2 = np.array([
    [0.7203728972901, 0.109400773177870, 0.11089810664212, 0.027706267874748, 0.012612107887084],
    [0.9402352245553, 0.009175713654497, 0.01363395916744, 0.010018515671470, 0.006733858504827],
    [0.9240009541127, 0.049582506495168, 0.01195929624142, 0.001035953482651, 0.010462047275637],
])
FM_VTEST = np.array([
    [-1.658231499811, 1.0203838346404, 2.1119062404694, -1.6100738011972, -1.193210961926],
    [-2.507214093651, 0.3910929466438, -0.9800094096738, 1.2813422404801, -1.153883790829],
    [3.720562279031, -1.3608915055326, -1.3739510811864, 0.6167835563896, 2.152968251350],
])
FM_ETA2 = [0.4937359167992, 0.06024053112128, 0.1441616677649, 0.09774022489142, 0.1541841047294]
# dd$Dim.1$quanti, dd$Dim.1$quali, dd$Dim.1$category (print(..., digits = 13))
FM_DIM1_QUANTI = [
    ("cyl", 0.9612187866676, 2.471949988634e-18), ("disp", 0.9464866479977, 2.804047278984e-16),
    ("wt", 0.8897211823848, 9.780198073384e-12), ("hp", 0.8484710294998, 8.622043428405e-10),
    ("carb", 0.5501710998731, 1.105272011444e-03), ("pw", 0.3905417230891, 2.710929790764e-02),
    ("qsec", -0.5153093010485, 2.542578263087e-03), ("gear", -0.5319156176084, 1.728737110862e-03),
    ("am", -0.6039631996778, 2.520665177409e-04), ("drat", -0.7561693382751, 5.575736301781e-07),
    ("vs", -0.7879427966285, 8.658012030289e-08), ("mpg", -0.9319502385987, 9.347042028416e-15),
]
FM_DIM1_QUALI = [("origin", 0.4937359167992, 5.169734079553e-05)]
FM_DIM1_CATEGORY = [("origin=US", 2.571080658839, 2.921935355522e-05),
                    ("origin=Japan", -2.056344280249, 9.703933426946e-03)]
# dd$Dim.2$quanti (FactoMineR's PC2 is pcalib's with the opposite sign); no quali
FM_DIM2_QUANTI = [
    ("gear", 0.7527154886801, 6.712703750085e-07), ("pw", 0.7191243385259, 3.534859183025e-06),
    ("am", 0.6991030036617, 8.541542312466e-06), ("carb", 0.6733043371101, 2.411011418805e-05),
    ("drat", 0.4472090479575, 1.028068735987e-02), ("hp", 0.4050267952440, 2.147311606736e-02),
    ("vs", -0.3771272727410, 3.335771206973e-02), ("qsec", -0.7543861439307, 6.138695748142e-07),
]
# ce$res[c(1, 2, 26, 101, 151, 201, 251), ]: points 1, 2, 26 of Europe, 1 and 51 of
# Japan, 1 and 51 of US (100 points each, in FactoMineR's signs)
FM_ELLIPSE = {
    "Europe": [(0, 0.3173028683824, 1.2407886254051), (1, 0.2521629545830, 1.2867460989884),
               (25, -1.8762390681480, 1.0771536735165)],
    "Japan": [(0, -1.0697297693265, 1.4053968958383), (50, -3.7194221312837, -0.9545343306985)],
    "US": [(0, 3.0108419573827, 0.3895521103982), (50, 1.4433342746815, -1.4374993083793)],
}
# coord.ellipse(aux, bary = FALSE)$res[c(1, 26, 126, 226), ] (concentration ellipses)
FM_CONCENTRATION = {"Europe": [(0, 3.5673533948374, 3.715072833305), (25, -4.6401289951802, 3.102806906837)],
                    "Japan": [(25, -4.7505232834779, 2.186487721065)],
                    "US": [(25, 0.1651190418398, 1.724528590156)]}


def flipped(model, signs):
    """A copy of `model` with its axes multiplied by `signs` (a sign carries no meaning)."""
    import copy

    other = copy.deepcopy(model)
    other.components_ = model.components_ * np.asarray(signs)[:, None]
    return other


def fm_signs(model):
    """The signs that turn pcalib's axes into FactoMineR's (matched on the quoted coordinates)."""
    cat = pcalib.supplementary_categories(model, X, ORIGIN)
    return np.where(np.sum(cat.coordinates * FM_COORD, axis=0) < 0, -1.0, 1.0)


def test_supplementary_quantitative_variable_is_factominer_s():
    model = pcalib.PCA(5, standardize=True).fit(X)
    r = pcalib.supplementary_correlations(model, X, PW)
    signs = fm_signs(model)
    np.testing.assert_allclose(r[0] * signs, FM_PW_COR, atol=1e-12)
    # first principles: NumPy's correlation with the scores
    T = model.transform(X)
    np.testing.assert_allclose(r[0], np.corrcoef(PW[:, 0], T.T)[0, 1:], atol=1e-13)
    # an active variable given as supplementary gets its loading (standardized PCA)
    np.testing.assert_allclose(pcalib.supplementary_correlations(model, X, X), model.loadings_, atol=1e-12)


@pytest.mark.parametrize("ddof", [0, 1])
def test_supplementary_categories_are_factominer_s(ddof):
    model = pcalib.PCA(5, standardize=True, ddof=ddof).fit(X)
    cat = pcalib.supplementary_categories(model, X, ORIGIN)
    signs = fm_signs(model)
    assert cat.names == ["Europe", "Japan", "US"] and cat.counts.tolist() == [14, 6, 12]
    factor = 1.0 if ddof == 0 else np.sqrt(31 / 32)  # standardized with n - 1: smaller scores
    np.testing.assert_allclose(cat.coordinates * signs, FM_COORD * factor, atol=1e-12)
    np.testing.assert_allclose(cat.cos2, FM_COS2, atol=1e-12)
    np.testing.assert_allclose(cat.v_test * signs, FM_VTEST, atol=1e-11)
    np.testing.assert_allclose(cat.eta2, FM_ETA2, atol=1e-12)


def test_categories_from_first_principles():
    rng = np.random.default_rng(0)
    Y = rng.standard_normal((40, 5)) @ rng.standard_normal((5, 5)) * [1, 10, 0.1, 1, 3] + 100
    groups = rng.choice(["a", "b", "c", "d"], 40)
    model = pcalib.PCA(3).fit(Y)
    cat = pcalib.supplementary_categories(model, Y, groups)
    T = model.transform(Y)
    Yc = Y - Y.mean(axis=0)
    for g, name in enumerate(cat.names):
        rows = groups == name
        np.testing.assert_allclose(cat.coordinates[g], T[rows].mean(axis=0), atol=1e-12)
        centre = Yc[rows].mean(axis=0)
        np.testing.assert_allclose(cat.cos2[g], T[rows].mean(axis=0) ** 2 / (centre @ centre), atol=1e-12)
        # the test value: the mean over its standard deviation under random groups of n_g
        ng, n = rows.sum(), 40
        sd = np.sqrt(np.mean(T**2, axis=0) / ng * (n - ng) / (n - 1))
        np.testing.assert_allclose(cat.v_test[g], T[rows].mean(axis=0) / sd, atol=1e-12)
    between = sum((groups == g).sum() * T[groups == g].mean(axis=0) ** 2 for g in cat.names)
    np.testing.assert_allclose(cat.eta2, between / np.sum(T**2, axis=0), atol=1e-13)


def test_v_test_is_standard_normal_for_random_groups():
    """|v| > 1.96 for about 5% of random groups: 500 random relabellings, the frequency
    within four binomial standard errors of 5%."""
    model = pcalib.PCA(2, standardize=True).fit(X)
    rng = np.random.default_rng(1)
    values = np.array([pcalib.supplementary_categories(model, X, rng.permutation(ORIGIN)).v_test[:, 0]
                       for _ in range(500)])
    share = np.mean(np.abs(values) > 1.959964)
    assert abs(share - 0.05) < 4 * np.sqrt(0.05 * 0.95 / values.size)


def as_rows(description):
    return [(name, float(stat), float(p)) for name, stat, p in description]


def test_describe_axes_is_factominer_s_dimdesc():
    model = pcalib.PCA(5, standardize=True, ddof=0).fit(CARS.to_frame())
    pd = pytest.importorskip("pandas")
    described = pcalib.describe_axes(model, CARS.to_frame(), quantitative=pd.DataFrame({"pw": PW[:, 0]}),
                                     qualitative={"origin": ORIGIN})
    first, second = described[0], described[1]
    signs = fm_signs(model)
    assert signs[0] == 1.0 and signs[1] == -1.0  # pcalib's PC2 is FactoMineR's with the other sign
    for (name, r, p), (fm_name, fm_r, fm_p) in zip(first.quantitative, FM_DIM1_QUANTI, strict=True):
        assert name == fm_name and np.isclose(r, fm_r, atol=1e-12) and np.isclose(p, fm_p, rtol=1e-9)
    flipped_second = sorted(((n, -r, p) for n, r, p in second.quantitative), key=lambda row: -row[1])
    for (name, r, p), (fm_name, fm_r, fm_p) in zip(flipped_second, FM_DIM2_QUANTI, strict=True):
        assert name == fm_name and np.isclose(r, fm_r, atol=1e-12) and np.isclose(p, fm_p, rtol=1e-9)
    np.testing.assert_allclose([row[1:] for row in as_rows(first.qualitative)],
                               [row[1:] for row in FM_DIM1_QUALI], rtol=1e-9)
    assert [row[0] for row in first.categories] == ["origin=US", "origin=Japan"]
    np.testing.assert_allclose([row[1:] for row in as_rows(first.categories)],
                               [row[1:] for row in FM_DIM1_CATEGORY], rtol=1e-9)
    assert second.qualitative == [] and second.categories == []


def test_describe_axes_p_values_from_scipy():
    """The correlation test and the analysis of variance, against scipy.stats' own."""
    stats = pytest.importorskip("scipy.stats")
    model = pcalib.PCA(2, standardize=True).fit(X)
    T = model.transform(X)
    first = pcalib.describe_axes(model, X, qualitative={"origin": ORIGIN}, proba=1.0)[0]
    for name, r, p in first.quantitative:
        l = int(name[1:]) - 1
        expected = stats.pearsonr(X[:, l], T[:, 0])
        assert np.isclose(r, expected.statistic, atol=1e-12) and np.isclose(p, expected.pvalue, rtol=1e-8)
    groups = [T[np.array(ORIGIN) == g, 0] for g in ("Europe", "Japan", "US")]
    assert np.isclose(first.qualitative[0][2], stats.f_oneway(*groups).pvalue, rtol=1e-10)
    assert len(first.quantitative) == 11 and len(first.categories) == 3


@pytest.mark.parametrize(("kind", "expected"), [("confidence", FM_ELLIPSE), ("concentration", FM_CONCENTRATION)])
def test_ellipses_are_factominer_s_point_for_point(kind, expected):
    model = pcalib.PCA(5, standardize=True, ddof=0).fit(X)
    fm = flipped(model, fm_signs(model))  # in FactoMineR's signs, the points are the same
    ellipses = pcalib.category_ellipses(fm, X, ORIGIN, kind=kind)
    for name, points in expected.items():
        for index, x, y in points:
            np.testing.assert_allclose(ellipses[name][index], [x, y], atol=1e-11)


def test_confidence_ellipse_is_the_chi2_contour_of_the_mean():
    model = pcalib.PCA(2).fit(X)
    T = model.transform(X)
    for name, points in pcalib.category_ellipses(model, X, ORIGIN, level=0.9).items():
        rows = T[np.array(ORIGIN) == name]
        M = np.cov(rows, rowvar=False) / len(rows)
        d = points - rows.mean(axis=0)
        q = np.einsum("ij,jk,ik->i", d, np.linalg.inv(M), d)
        np.testing.assert_allclose(q, -2 * np.log(0.1), rtol=1e-10)  # chi2(2) 0.9-quantile
    one = pcalib.category_ellipses(model, X, ["a"] + ["b"] * 31)["a"]
    np.testing.assert_allclose(one, np.tile(T[0], (100, 1)), atol=1e-12)  # one row: a point


def test_bad_arguments_are_named():
    model = pcalib.PCA(2).fit(X)
    with pytest.raises(ValueError, match="one label per row"):
        pcalib.supplementary_categories(model, X, ORIGIN[:5])
    with pytest.raises(ValueError, match="at least 2 categories"):
        pcalib.supplementary_categories(model, X, ["a"] * 32)
    pd = pytest.importorskip("pandas")
    for gap in (None, np.nan, pd.NA, pd.NaT):
        with pytest.raises(ValueError, match="missing labels"):
            pcalib.supplementary_categories(model, X, [gap] + ORIGIN[1:])
    series = pd.Series(ORIGIN, dtype="category")
    np.testing.assert_array_equal(pcalib.supplementary_categories(model, X, series).v_test,
                                  pcalib.supplementary_categories(model, X, ORIGIN).v_test)
    with pytest.raises(ValueError, match="Y must have one row per row of X"):
        pcalib.supplementary_correlations(model, X, PW[:5])
    with pytest.raises(ValueError, match="zero variance"):
        pcalib.supplementary_correlations(model, X, np.ones((32, 1)))
    with pytest.raises(ValueError, match="kind"):
        pcalib.category_ellipses(model, X, ORIGIN, kind="bootstrap")
    with pytest.raises(ValueError, match="components"):
        pcalib.category_ellipses(model, X, ORIGIN, components=(0, 0))
    with pytest.raises(ValueError, match="proba"):
        pcalib.describe_axes(model, X, proba=0)
    for labels in (np.array(ORIGIN), ORIGIN):  # one variable's labels, not name -> labels
        with pytest.raises(TypeError, match="qualitative must map each variable's name"):
            pcalib.describe_axes(model, X, qualitative=labels)
    with pytest.raises(TypeError, match="got SparsePCA"):
        pcalib.supplementary_categories(pcalib.SparsePCA(2, n_nonzero=3).fit(X), X, ORIGIN)


def test_supplementary_at_extreme_scales_and_int64():
    D = np.random.default_rng(2).integers(-50, 50, (32, 5)) @ np.random.default_rng(3).integers(-2, 3, (5, 5))
    reference_model = pcalib.PCA(3).fit(D.astype(float))
    reference = pcalib.supplementary_categories(reference_model, D.astype(float), ORIGIN)
    for data in (D * 2.0**-1000, D * 2.0**1000, D.astype(np.int64) * 64 + 2**62):
        with warnings.catch_warnings():  # variances beyond float64 are said in a warning
            warnings.simplefilter("ignore", RuntimeWarning)
            model = pcalib.PCA(3).fit(data)
        cat = pcalib.supplementary_categories(model, data, ORIGIN)
        np.testing.assert_allclose(cat.v_test, reference.v_test, atol=1e-10)
        np.testing.assert_allclose(cat.eta2, reference.eta2, atol=1e-12)
        np.testing.assert_allclose(cat.cos2, reference.cos2, atol=1e-12)
        r = pcalib.supplementary_correlations(model, data, PW * 2.0**-1000)
        np.testing.assert_allclose(r, pcalib.supplementary_correlations(reference_model, D.astype(float), PW),
                                   atol=1e-12)


# -- promax ---------------------------------------------------------------------------------

# R: xx <- varimax(L3, eps = 1e-14); x <- xx$loadings; Q <- x * abs(x)^3
#    U <- lm.fit(x, Q)$coefficients; U <- U %*% diag(sqrt(diag(solve(t(U) %*% U))))
#    z <- x %*% U; ui <- solve(xx$rotmat %*% U); ui %*% t(ui)
#    (stats::promax's own lines, on the tightly converged varimax)
R_PROMAX = np.array([
    [-0.46710276839002, 0.5760188277199, 0.10391565774121],
    [0.11368478548547, -0.5065062244444, -0.55530044924476],
    [0.15485748924989, -0.6405771183694, -0.35197685935100],
    [0.55768066819902, -0.1161915047186, -0.40971429326183],
    [0.16740736831914, 0.8789235133831, 0.16289310090361],
    [0.47762240813089, -0.7462694524409, 0.14388080671113],
    [-0.07956068359807, -0.4070904871765, 1.01490050475553],
    [0.04801628315754, 0.1154060488971, 0.91543330472607],
    [-0.04683073736333, 1.0231528344258, -0.39100258143279],
    [0.49960922128159, 1.0389382295507, 0.02536483348444],
    [0.99562055082824, 0.3230868048274, -0.08881449373992],
])
R_PROMAX_PHI = np.array([
    [1.0, -0.4165937648235, -0.6779029837200],
    [-0.4165937648235, 1.0, 0.4211191093942],
    [-0.6779029837200, 0.4211191093942, 1.0],
])


def test_promax_is_r_s():
    L = pcalib.PCA(3, standardize=True).fit(X).loadings_
    pattern, T, phi = pcalib.promax(L)
    # match pcalib's columns (sorted by varimax variance, signed) to R's
    order = np.argmax(np.abs(pattern.T @ R_PROMAX), axis=0)
    signs = np.sign(np.sum(pattern[:, order] * R_PROMAX, axis=0))
    np.testing.assert_allclose(pattern[:, order] * signs, R_PROMAX, atol=5e-8)
    np.testing.assert_allclose(phi[np.ix_(order, order)] * np.outer(signs, signs), R_PROMAX_PHI, atol=5e-8)
    np.testing.assert_allclose(L @ T, pattern, atol=1e-13)
    # the rotated components F = S T^-T, S the standardized scores Z L (L^T L)^-1, so that
    # F P^T = S L^T: their covariance is Phi, and P Phi their correlations with the variables
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    components = Z @ L @ np.linalg.inv(L.T @ L) @ np.linalg.inv(T).T
    np.testing.assert_allclose(components @ pattern.T, Z @ L @ np.linalg.inv(L.T @ L) @ L.T, atol=1e-12)
    np.testing.assert_allclose(np.cov(components, rowvar=False), phi, atol=1e-10)
    np.testing.assert_allclose(np.corrcoef(Z.T, components.T)[:11, 11:], pattern @ phi, atol=1e-10)


def test_promax_is_scale_free_and_checks_m():
    L = pcalib.PCA(3, standardize=True).fit(X).loadings_
    pattern, _, phi = pcalib.promax(L)
    big, _, phi_big = pcalib.promax(L * 2.0**900)
    np.testing.assert_allclose(big / 2.0**900, pattern, atol=1e-14)
    np.testing.assert_allclose(phi_big, phi, atol=1e-14)
    with pytest.raises(ValueError, match="m must be"):
        pcalib.promax(L, m=1)


def test_inputs_are_not_modified():
    Xc, groups, y = X.copy(), list(ORIGIN), PW.copy()
    model = pcalib.PCA(3).fit(Xc)
    pcalib.supplementary_correlations(model, Xc, y)
    pcalib.supplementary_categories(model, Xc, groups)
    pcalib.describe_axes(model, Xc, quantitative=y, qualitative={"origin": groups})
    pcalib.category_ellipses(model, Xc, groups)
    np.testing.assert_array_equal(Xc, X)
    np.testing.assert_array_equal(y, PW)
    assert groups == ORIGIN

"""Tests of pcalib.CA and pcalib.MCA against SciPy, first-principles NumPy and R's
FactoMineR 2.7 (numbers quoted from R 4.2.2; R is not needed to run the tests)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse
import scipy.stats
from numpy.testing import assert_allclose

import pcalib
from pcalib import CA, MCA

HEC = pcalib.datasets.load_hair_eye_color()
N = HEC.counts

# R: library(FactoMineR); res <- CA(as.data.frame.matrix(margin.table(HairEyeColor, 1:2)),
#    ncp = 3, graph = FALSE); res$eig, res$row$coord, ...
R_EIG = [0.20877265165116027, 0.02222661457397556, 0.00259843922420247]
R_ROW_COORD = [
    [0.504562430073899, -0.2148204550789417, -0.0555090896364097],
    [0.148252701610604, 0.0326663454526049, 0.0488041352330628],
    [0.129523261530591, 0.3196423960332674, -0.0831511732298312],
    [-0.835347769112486, -0.0695793367659945, -0.0162147062724855],
]
R_COL_COORD = [
    [0.492157672494637, -0.0883215134491425, -0.02161130519476132],
    [-0.547413886717588, -0.0829542821224307, 0.00470940799125383],
    [0.212596927499614, 0.1673910874107083, 0.10051828389043765],
    [-0.161753383781295, 0.3390395700927831, -0.08759743714191810],
]
R_ROW_CONTRIB = [
    [22.246324136898149, 37.87738555936149, 21.63304706049711],
    [5.085995266480641, 2.31938107292235, 44.28381284978629],
    [0.963737101232585, 55.13051867003536, 31.91250098548874],
    [71.703943495388685, 4.67271469768080, 2.17063910422783],
]
R_ROW_COS2 = [
    [0.837962183760794, 0.15189583482614288, 0.010141981413063540],
    [0.864363644886288, 0.04196549601406129, 0.093670859099651685],
    [0.133291393477243, 0.81177434038858853, 0.054934266134167672],
    [0.992738472768932, 0.00688748693638874, 0.000374040294679557],
]
R_COL_CONTRIB = [
    [43.11574420263398, 13.0424944407740, 6.679599194429858],
    [52.12844458358475, 11.2440056014626, 0.309982247385103],
    [3.40096061005136, 19.8039848102265, 61.085595120262802],
    [1.35485060372997, 55.9095151475370, 31.924823437922296],
]
R_COL_COS2 = [
    [0.966993332480938, 0.0311421049879692, 1.86456253109391e-03],
    [0.977480863920967, 0.0224467909532372, 7.23451257963425e-05],
    [0.542448715641351, 0.3362864581407258, 1.21264826217923e-01],
    [0.175851764071630, 0.7725751901756794, 5.15730457526917e-02],
]
R_ROW_INERTIA = [0.0554252228747024, 0.0122843750353256, 0.0150948943416426, 0.1507932131976677]
# R: CA(rbind(d, BrownMale = c(53, 50, 25, 15)), row.sup = 5)$row.sup$coord
R_SUP_COORD = [0.0245226192226646, 0.020714407415655, 0.0396557202413249]


def signs_to(reference, actual):
    """Column signs that turn `actual` into `reference` (FactoMineR's signs are LAPACK's)."""
    return np.where(np.sum(np.asarray(reference) * actual, axis=0) < 0, -1.0, 1.0)


def random_table(rng, I=7, J=5, scale=30):
    return rng.poisson(scale * rng.gamma(2.0, size=(I, J))) + 1


# -- CA against FactoMineR -------------------------------------------------------------------


def test_ca_hair_eye_matches_factominer():
    ca = CA(3).fit(N)
    assert_allclose(ca.eigenvalues_, R_EIG, rtol=1e-12)
    s = signs_to(R_COL_COORD, ca.column_coordinates_)
    assert_allclose(ca.row_coordinates_ * s, R_ROW_COORD, atol=1e-13)
    assert_allclose(ca.column_coordinates_ * s, R_COL_COORD, atol=1e-13)
    assert_allclose(ca.row_contributions_, R_ROW_CONTRIB, atol=1e-11)
    assert_allclose(ca.column_contributions_, R_COL_CONTRIB, atol=1e-11)
    assert_allclose(ca.row_cos2_, R_ROW_COS2, atol=1e-13)
    assert_allclose(ca.column_cos2_, R_COL_COS2, atol=1e-13)
    assert_allclose(ca.row_inertias_, R_ROW_INERTIA, rtol=1e-12)
    assert_allclose(ca.transform([[53, 50, 25, 15]])[0] * s, R_SUP_COORD, atol=1e-13)
    # R: FactoMineR's percentages 89.3727321719939, 9.51491134350888, 1.11235648449724
    assert_allclose(100 * ca.explained_inertia_ratio_, [89.3727321719939, 9.51491134350888, 1.11235648449724], rtol=1e-12)


def test_ca_sign_convention_on_column_axes():
    ca = CA(3).fit(N)
    V = ca.column_standard_coordinates_ * np.sqrt(ca.column_masses_)[:, None]
    top = np.argmax(np.abs(V), axis=0)
    assert np.all(V[top, np.arange(3)] > 0)


# -- CA from first principles ----------------------------------------------------------------


@pytest.mark.theorem("thm-ca-inertia")
@pytest.mark.parametrize("seed", range(5))
def test_total_inertia_is_chi2_over_n(seed):
    rng = np.random.default_rng(seed)
    T = random_table(rng, I=3 + seed, J=4 + 2 * seed)
    chi2 = scipy.stats.chi2_contingency(T, correction=False)[0]
    ca = CA(min(T.shape) - 1).fit(T)
    assert_allclose(ca.total_inertia_, chi2 / T.sum(), rtol=1e-12)
    assert_allclose(ca.eigenvalues_.sum(), chi2 / T.sum(), rtol=1e-12)  # all axes kept
    assert_allclose(ca.row_inertias_.sum(), ca.total_inertia_, rtol=1e-12)
    assert_allclose(ca.column_inertias_.sum(), ca.total_inertia_, rtol=1e-12)


@pytest.mark.theorem("prop-ca-transition")
def test_transition_formulas():
    rng = np.random.default_rng(1)
    T = random_table(rng, 8, 6)
    ca = CA(5).fit(T)
    P = T / T.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    F, G, lam = ca.row_coordinates_, ca.column_coordinates_, ca.eigenvalues_
    # rows at the weighted mean of the columns' standard coordinates, and back
    assert_allclose(F, (P / r[:, None]) @ G / np.sqrt(lam), atol=1e-13)
    assert_allclose(G, (P / c).T @ F / np.sqrt(lam), atol=1e-13)
    assert_allclose(ca.transform(T), F, atol=1e-13)
    assert_allclose(ca.row_standard_coordinates_ * np.sqrt(lam), F, atol=1e-14)
    # standard coordinates have weighted mean 0 and weighted variance 1
    assert_allclose(r @ ca.row_standard_coordinates_, 0, atol=1e-13)
    assert_allclose(ca.row_standard_coordinates_.T * r @ ca.row_standard_coordinates_, np.eye(5), atol=1e-12)


@pytest.mark.theorem("prop-ca-chi2-distance")
def test_chi2_distances_are_euclidean_in_principal_coordinates():
    rng = np.random.default_rng(2)
    T = random_table(rng, 9, 5)
    ca = CA(4).fit(T)  # all min(I, J) - 1 axes
    P = T / T.sum()
    c = P.sum(axis=0)
    prof = P / P.sum(axis=1, keepdims=True)
    d2 = (((prof[:, None, :] - prof[None, :, :]) ** 2) / c).sum(axis=2)
    F = ca.row_coordinates_
    e2 = ((F[:, None, :] - F[None, :, :]) ** 2).sum(axis=2)
    assert_allclose(e2, d2, atol=1e-13)
    # distance to the centroid (the average profile c)
    assert_allclose((F**2).sum(axis=1), (((prof - c) ** 2) / c).sum(axis=1), atol=1e-13)


def test_distributional_equivalence():
    """Merging two rows with the same profile changes no column coordinate or inertia."""
    rng = np.random.default_rng(3)
    T = random_table(rng, 6, 5).astype(float)
    T2 = np.vstack([T, 3 * T[0]])  # row 6 has row 0's profile
    merged = np.vstack([4 * T[0], T[1:]])
    a, b = CA(4).fit(T2), CA(4).fit(merged)
    assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-12)
    assert_allclose(a.column_coordinates_, b.column_coordinates_, atol=1e-13)
    assert_allclose(a.row_coordinates_[6], a.row_coordinates_[0], atol=1e-13)


def test_ca_is_a_weighted_pca_of_the_profiles():
    """Eigenvalues of the profiles' covariance with weights r in the metric D_c^{-1}."""
    rng = np.random.default_rng(4)
    T = random_table(rng, 10, 6)
    P = T / T.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    Y = (P / r[:, None] - c) / np.sqrt(c)  # centered profiles in the chi-square metric
    C = Y.T @ (r[:, None] * Y)
    lam = np.linalg.eigvalsh(C)[::-1][:5]
    assert_allclose(CA(5).fit(T).eigenvalues_, lam, rtol=1e-11)


# -- sparse tables ---------------------------------------------------------------------------


def sparse_counts(I, J, density, seed):
    rng = np.random.default_rng(seed)
    X = scipy.sparse.random(I, J, density=density, format="csr", random_state=rng,
                            data_rvs=lambda k: rng.integers(1, 6, k).astype(float))
    X = X + scipy.sparse.csr_matrix(  # one count on a diagonal band: no empty row or column
        (np.ones(max(I, J)), (np.arange(max(I, J)) % I, np.arange(max(I, J)) % J)), shape=(I, J)
    )
    return X.tocsr()


def test_sparse_equals_dense():
    X = sparse_counts(300, 120, 0.05, 0)
    dense, sparse = CA(6).fit(X.toarray()), CA(6).fit(X)
    assert_allclose(sparse.eigenvalues_, dense.eigenvalues_, atol=1e-13)
    assert abs(sparse.total_inertia_ - dense.total_inertia_) < 1e-12
    for name in ("row_coordinates_", "column_coordinates_", "row_cos2_", "column_cos2_",
                 "row_contributions_", "row_inertias_", "column_inertias_"):
        assert_allclose(getattr(sparse, name), getattr(dense, name), atol=1e-10, err_msg=name)
    assert_allclose(sparse.transform(X[:10]), dense.transform(X[:10].toarray()), atol=1e-12)


def test_sparse_is_never_densified(monkeypatch):
    X = sparse_counts(4000, 1500, 0.005, 1)
    for cls in (scipy.sparse.csr_matrix, scipy.sparse.csc_matrix, scipy.sparse.coo_matrix):
        monkeypatch.setattr(cls, "toarray", lambda *a, **k: pytest.fail("densified"))
        monkeypatch.setattr(cls, "todense", lambda *a, **k: pytest.fail("densified"))
    nbytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    tracemalloc.start()
    CA(5).fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5 * nbytes + 30 * 8 * sum(X.shape), (peak, nbytes)


# -- bad input ---------------------------------------------------------------------------------


def test_negative_count_is_named():
    T = N.astype(float)
    T[2, 1] = -1
    with pytest.raises(ValueError, match=r"non-negative counts, got X\[2, 1\] = -1"):
        CA(1).fit(T)
    S = scipy.sparse.csr_matrix(T)
    with pytest.raises(ValueError, match=r"X\[2, 1\] = -1"):
        CA(1).fit(S)


def test_empty_row_and_column_are_named():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(N.copy(), index=HEC.row_names, columns=HEC.column_names)
    frame.loc["Red"] = 0
    with pytest.raises(ValueError, match=r"row 2 \('Red'\) of X sums to 0"):
        CA(1).fit(frame)
    T = N.copy()
    T[:, 3] = 0
    with pytest.raises(ValueError, match=r"column 3 of X sums to 0"):
        CA(1).fit(T)
    with pytest.raises(ValueError, match="row 0 of X sums to 0"):
        CA(1).fit(N).transform([[0, 0, 0, 0]])


def test_n_components_and_independence():
    with pytest.raises(ValueError, match=r"n_components <= 3 .*got 4"):
        CA(4).fit(N)
    with pytest.raises(TypeError, match="integer"):
        CA(1.5).fit(N)
    independent = np.outer([1, 2, 3], [4, 5, 6, 7])
    with pytest.raises(ValueError, match="total inertia 0"):
        CA(1).fit(independent)
    rank_one = np.array([[10, 0, 5], [0, 10, 5], [10, 0, 5], [0, 10, 5]])  # one axis only
    assert CA(1).fit(rank_one).eigenvalues_.shape == (1,)
    with pytest.raises(ValueError, match="1 non-zero principal inertia"):
        CA(2).fit(rank_one)
    with pytest.raises(ValueError, match=r"1 feature\(s\).*2 columns"):
        CA(1).fit(np.ones((5, 1)))


def test_input_not_modified_and_dataframe_names():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(N, index=HEC.row_names, columns=HEC.column_names)
    kept = frame.copy()
    ca = CA(2).set_output(transform="pandas").fit(frame)
    out = ca.transform(frame)
    pd.testing.assert_frame_equal(frame, kept)
    assert list(out.index) == HEC.row_names and list(out.columns) == ["ca0", "ca1"]
    assert list(ca.feature_names_in_) == HEC.column_names


# -- MCA ------------------------------------------------------------------------------------------

# R: df <- as.data.frame(HairEyeColor); ind <- df[rep(seq_len(nrow(df)), df$Freq), 1:3];
#    m <- MCA(ind, ncp = 7, graph = FALSE)
R_MCA_EIG = [0.489081410114625, 0.386092339185935, 0.353005562921552, 0.332045735933949,
             0.316202478888256, 0.282131557879139, 0.174774248409878]
R_MCA_VAR_COORD = [  # Black Brown Red Blond | Brown Blue Hazel Green | Male Female; Dim 1-3
    [-0.926679111157108, -1.099784660594697, 0.559591102054839],
    [-0.288880902201602, 0.194456760402100, -0.631082223246505],
    [-0.250165936215107, 1.469882136853080, 1.400430409584350],
    [1.578449318944072, -0.324405683837351, 0.162386753906209],
    [-0.883160846102563, -0.534502070277151, 0.332950878762715],
    [1.009781982380626, -0.333080608437625, -0.199246630730404],
    [-0.422715234957470, 0.880688310481086, -1.200137118395053],
    [0.257887137215227, 1.676543334380018, 1.268774754530931],
    [-0.191929094521402, 0.271033429161061, -0.355578471632456],
    [0.171080566682017, -0.241592098197878, 0.316953334138834],
]
R_MCA_VAR_CONTRIB_DIM1 = [10.677224767918322, 2.747764950462193, 0.511552933115981,
                          36.428466372591231, 19.755052011743256, 25.238850860292178,
                          1.913174713744600, 0.490021594450027, 1.183209682514464,
                          1.054682113167851]
R_MCA_VAR_COS2_DIM1 = [0.19161836964035592, 0.07799778509100692, 0.00852858481882737,
                       0.68047480874048483, 0.46127440220293259, 0.58150351503240771,
                       0.03330260480452672, 0.00806130612618976, 0.03283533825348765,
                       0.03283533825348783]
R_MCA_IND = {0: [-0.9541181073680051, -0.731323806774853, 0.30125394556360485],
             99: [-0.0518706541659231, -0.623270292395858, 0.00267388041683233],
             591: [0.9568101419230256, 0.595757516169946, 0.98074912841569895]}


def hec_frame():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(HEC.records, columns=HEC.record_names)
    orders = {"Hair": HEC.row_names, "Eye": HEC.column_names, "Sex": ["Male", "Female"]}
    return frame.astype({k: pd.CategoricalDtype(v) for k, v in orders.items()})  # R's levels


def test_mca_matches_factominer():
    frame = hec_frame()
    mca = MCA(7).fit(frame)
    assert_allclose(mca.eigenvalues_, R_MCA_EIG, rtol=1e-12)
    assert list(mca.category_names_[:4]) == ["Hair_Black", "Hair_Brown", "Hair_Red", "Hair_Blond"]
    s = signs_to(R_MCA_VAR_COORD, mca.column_coordinates_[:, :3])
    assert_allclose(mca.column_coordinates_[:, :3] * s, R_MCA_VAR_COORD, atol=1e-12)
    assert_allclose(mca.column_contributions_[:, 0], R_MCA_VAR_CONTRIB_DIM1, atol=1e-11)
    assert_allclose(mca.column_cos2_[:, 0], R_MCA_VAR_COS2_DIM1, atol=1e-13)
    for i, coord in R_MCA_IND.items():
        assert_allclose(mca.row_coordinates_[i, :3] * s, coord, atol=1e-12)
    assert_allclose(mca.transform(frame.iloc[[99]])[0, :3] * s, R_MCA_IND[99], atol=1e-12)
    assert mca.total_inertia_ == pytest.approx((10 - 3) / 3, rel=1e-15)
    assert_allclose(mca.all_eigenvalues_.sum(), mca.total_inertia_, rtol=1e-12)
    # R: FactoMineR's eta2 is Q * lambda * (sum of the variable's contributions) / 100
    hair = mca.column_contributions_[:4, 0].sum() / 100 * 3 * mca.eigenvalues_[0]
    assert hair == pytest.approx(0.7389776890180995, rel=1e-12)


def test_mca_is_ca_of_the_indicator_matrix():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.choice(list("abc"), 200), rng.choice(list("xyzw"), 200),
                         rng.choice(["u", "v"], 200)])
    mca = MCA(4).fit(X)
    Z = np.column_stack([(X[:, q][:, None] == cats[None, :]).astype(float)
                         for q, cats in enumerate(mca.categories_)])
    ca = CA(4).fit(Z)
    assert_allclose(mca.eigenvalues_, ca.eigenvalues_, rtol=1e-11)
    assert_allclose(mca.total_inertia_, ca.total_inertia_, rtol=1e-12)
    s = signs_to(ca.column_coordinates_, mca.column_coordinates_)
    assert_allclose(mca.column_coordinates_ * s, ca.column_coordinates_, atol=1e-10)
    assert_allclose(mca.row_coordinates_ * s, ca.row_coordinates_, atol=1e-10)
    assert_allclose(mca.column_cos2_, ca.column_cos2_, atol=1e-10)
    assert_allclose(mca.column_contributions_, ca.column_contributions_, atol=1e-8)


@pytest.mark.theorem("prop-mca-two-columns")
def test_two_columns_benzecri_recovers_ca():
    """For Q = 2, MCA's eigenvalues are (1 +- sqrt(mu))/2 for CA's mu; Benzecri's
    correction returns mu and Greenacre's ratios are CA's."""
    frame = hec_frame()[["Hair", "Eye"]]
    mca = MCA(3).fit(frame)
    ca = CA(3).fit(N)
    mu = ca.eigenvalues_
    assert_allclose(mca.all_eigenvalues_[:3], (1 + np.sqrt(mu)) / 2, rtol=1e-12)
    assert_allclose(mca.adjusted_eigenvalues_, mu, rtol=1e-10)
    assert_allclose(mca.greenacre_ratio_, ca.explained_inertia_ratio_, rtol=1e-10)
    assert_allclose(mca.benzecri_ratio_, mu / mu.sum(), rtol=1e-10)


def test_burt_ca_gives_squared_eigenvalues_and_greenacre_total():
    frame = hec_frame()
    mca = MCA(2).fit(frame)
    Z = np.column_stack([(frame[c].to_numpy()[:, None] == cats[None, :]).astype(float)
                         for c, cats in zip(frame.columns, mca.categories_)])
    burt = CA(7).fit(Z.T @ Z)
    assert_allclose(burt.eigenvalues_, mca.all_eigenvalues_**2, rtol=1e-10)
    Q, J = 3, 10
    total = Q / (Q - 1) * (burt.total_inertia_ - (J - Q) / Q**2)
    lam = mca.all_eigenvalues_[mca.all_eigenvalues_ > 1 / Q]
    adjusted = (Q / (Q - 1) * (lam - 1 / Q)) ** 2
    assert_allclose(mca.greenacre_ratio_, adjusted / total, rtol=1e-10)
    assert mca.greenacre_ratio_.sum() < 1 and mca.benzecri_ratio_.sum() == pytest.approx(1)


def test_mca_bad_input_named():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "u", "u"]})
    with pytest.raises(ValueError, match=r"column 'b' has a single category \('u'\)"):
        MCA(1).fit(frame)
    with pytest.raises(ValueError, match=r"column 'a' contains a missing value"):
        MCA(1).fit(pd.DataFrame({"a": ["x", None, "y"], "b": ["u", "v", "u"]}))
    with pytest.raises(ValueError, match=r"column 'x0' contains a missing value"):
        MCA(1).fit(np.array([[1.0, 2.0], [np.nan, 3.0], [2.0, 2.0]]))
    good = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "v", "v", "u"]})
    mca = MCA(1).fit(good)
    with pytest.raises(ValueError, match=r"column 'b' has the category 'w', not seen by fit"):
        mca.transform(pd.DataFrame({"a": ["x"], "b": ["w"]}))
    with pytest.raises(ValueError, match=r"n_components <= 2"):
        MCA(3).fit(good)
    twins = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "v", "u", "v"]})  # same partition
    with pytest.raises(ValueError, match="1 non-zero principal inertia"):
        MCA(2).fit(twins)


def test_mca_input_not_modified_and_labels():
    frame = hec_frame()
    kept = frame.copy()
    mca = MCA(2).set_output(transform="pandas").fit(frame)
    out = mca.transform(frame)
    assert frame.equals(kept)
    assert list(out.columns) == ["mca0", "mca1"] and out.shape == (592, 2)
    assert list(mca.category_names_[-2:]) == ["Sex_Male", "Sex_Female"]
    plain = MCA(2).fit(HEC.records)  # object array: sorted categories, x0.. names
    assert list(plain.category_names_[:4]) == ["x0_Black", "x0_Blond", "x0_Brown", "x0_Red"]
    assert_allclose(plain.eigenvalues_, mca.eigenvalues_, rtol=1e-12)


def test_hair_eye_dataset():
    assert N.shape == (4, 4) and N.sum() == 592
    assert N.sum(axis=1).tolist() == [108, 286, 71, 127]
    assert N[0].tolist() == [68, 20, 15, 5]  # R: margin.table(HairEyeColor, 1:2)["Black", ]
    assert HEC.records.shape == (592, 3)
    assert int((HEC.records[:, 2] == "Male").sum()) == 279
    assert "hair_eye_color" in repr(HEC)


# -- supplementary elements, eta2 and rare categories against FactoMineR -------------------------

# R: d <- as.data.frame.matrix(margin.table(HairEyeColor, 1:2))
#    fem <- margin.table(HairEyeColor[, , "Female"], 1)        # 52 143 37 81
#    CA(cbind(d, Female = as.vector(fem)), col.sup = 5, ncp = 3)$col.sup$coord
R_FEMALE_COL_SUP = [-0.107914847339737, -0.00661183301657779, -0.0186438940916612]


def test_supplementary_column_matches_factominer():
    ca = CA(3).fit(N)
    female = np.array([[52], [143], [37], [81]])
    s = signs_to(R_COL_COORD, ca.column_coordinates_)
    assert_allclose(ca.transform_columns(female)[0] * s, R_FEMALE_COL_SUP, atol=1e-13)
    # an active column placed as a supplementary one lands on itself
    assert_allclose(ca.transform_columns(N), ca.column_coordinates_, atol=1e-13)
    with pytest.raises(ValueError, match=r"fitted table's 4 rows \(shape \(4, m\)\), got shape \(3, 1\)"):
        ca.transform_columns(female[:3])


def poison_frame():
    pytest.importorskip("pandas")
    poison = pcalib.datasets.load_poison()
    return poison.to_frame()


# R: data(poison); m <- MCA(poison[, 3:15], quali.sup = 1:2, ncp = 5)
R_POISON_EIG = [0.3352313995449293, 0.1291397921524081, 0.1073484855943034,
                0.0958795008449624, 0.0788327650884360]
R_POISON_ETA2_DIM4 = [0.00408437521208672, 0.11229481268567136, 0.01147907730594214,  # var$eta2
                      0.02055718901888313, 0.03325254113287888, 0.00809639887092499,
                      0.57448737008774009, 0.03096868972210432, 0.01047699200439345,
                      0.01893262871441476, 0.23004443453954723]
R_FISH_N_CONTRIB = [0.190015837757163, 1.884451183492659, 20.976684734462246,
                    53.480210264521389, 0.050285353578199]                  # var$contrib["Fish_n", ]
R_SICK_N_SUP = [1.4098338212368937, -0.0578088739693160, 0.0353504301650403,
                -0.1229907236217080, -0.0564492245541295]                   # quali.sup$coord["Sick_n", ]
R_SUP_ETA2 = [[0.889203522619951725, 0.00149504527534748, 0.000559055250487046,
               0.00676721599075930, 0.00142554616307798],                   # quali.sup$eta2
              [0.000776498894578375, 0.01453711661381466, 0.008252548352474976,
               0.00139105009447013, 0.00163090907511259]]
# R: MCA(poison[, 3:15], quali.sup = c(1, 2, 9), ncp = 5): Fish made supplementary
R_NO_FISH_EIG = [0.3682363915313829, 0.1413486779650588, 0.1146836601269654,
                 0.0867370137817104, 0.0803776097856866]
R_FISH_N_SUP = [-0.4505936242882707, -0.3111429973449087, -0.4338322592531832,
                -0.0730373992413944, -0.8302683390273370]
# R: MCA(poison[, 3:15], quali.sup = 1:2, ncp = 5, level.ventil = 0.05)$eig[1:5, 1]
#    gives R_POISON_EIG again: a binary column with a rare level is not ventilated


def test_poison_mca_eta2_and_supplementary_match_factominer():
    frame = poison_frame()
    mca = MCA(5).fit(frame.iloc[:, 2:])
    assert_allclose(mca.eigenvalues_, R_POISON_EIG, rtol=1e-12)
    assert_allclose(mca.eta2_[:, 3], R_POISON_ETA2_DIM4, atol=1e-13)
    fish_n = list(mca.category_names_).index("Fish_Fish_n")
    assert_allclose(mca.column_contributions_[fish_n], R_FISH_N_CONTRIB, rtol=1e-11)
    sup = mca.supplementary_categories(frame.iloc[:, :2])
    assert list(sup.names) == ["Sick_Sick_n", "Sick_Sick_y", "Sex_F", "Sex_M"]
    s = np.where(np.sign(sup.coordinates[0]) == np.sign(R_SICK_N_SUP), 1, -1)
    assert_allclose(sup.coordinates[0] * s, R_SICK_N_SUP, atol=1e-13)
    assert_allclose(sup.eta2, R_SUP_ETA2, atol=1e-14)
    # an active column placed as a supplementary one lands on its own categories
    again = mca.supplementary_categories(frame.iloc[:, 2:])
    assert_allclose(again.coordinates, mca.column_coordinates_, atol=1e-12)
    assert_allclose(again.eta2, mca.eta2_, atol=1e-13)


def test_poison_with_fish_supplementary_matches_factominer():
    frame = poison_frame()
    active = frame.drop(columns=["Sick", "Sex", "Fish"])
    mca = MCA(5).fit(active)
    assert_allclose(mca.eigenvalues_, R_NO_FISH_EIG, rtol=1e-12)
    fish = mca.supplementary_categories(frame[["Fish"]])
    s = np.where(np.sign(fish.coordinates[0]) == np.sign(R_FISH_N_SUP), 1, -1)
    assert_allclose(fish.coordinates[0] * s, R_FISH_N_SUP, atol=1e-13)


def test_ventilation_as_factominer():
    frame = poison_frame().iloc[:, 2:]
    with pytest.warns(RuntimeWarning, match=r"column 'Fish' has a rare category but fewer than two others"):
        vent = MCA(5, ventilation=0.05, random_state=0).fit(frame)
    assert_allclose(vent.eigenvalues_, R_POISON_EIG, rtol=1e-12)  # as FactoMineR: unchanged
    # three levels, one rare: its rows go to the two others, in proportion, at random
    rng = np.random.default_rng(8)
    x = rng.choice(["a", "b", "c"], size=400, p=[0.6, 0.38, 0.02])
    y = np.where(rng.random(400) < 0.7, x, rng.choice(["a", "b", "c"], 400))
    X = np.column_stack([x, y])
    rare = x == "c"
    fits = [MCA(1, ventilation=0.05, random_state=seed).fit(X) for seed in range(200)]
    assert all(list(f.categories_[0]) == ["a", "b"] for f in fits)
    assert all(f.category_counts_[:2].sum() == 400 for f in fits)
    to_a = np.array([f.category_counts_[0] - np.sum(x == "a") for f in fits])  # moved to "a"
    assert np.all((0 <= to_a) & (to_a <= rare.sum()))
    share = to_a.mean() / rare.sum()  # expected 0.6 / 0.98 of the rare rows, about 0.61
    assert abs(share - np.sum(x == "a") / np.sum(x != "c")) < 0.05
    again = MCA(1, ventilation=0.05, random_state=3).fit(X)
    assert_allclose(again.eigenvalues_, fits[3].eigenvalues_, rtol=0)  # deterministic
    with pytest.raises(ValueError, match=r"ventilation must be a number in \[0, 1\)"):
        MCA(1, ventilation=1.5).fit(X)

"""CA, MCA and compositions at extreme scales, on awkward inputs and at size (issue 31:
F10, F11, F13, F15, F21, F27, F29 and a failed fit; issue 35: the truncated routes).

Each reference is independent of pcalib: the standardized residuals formed in exact
integer arithmetic (Python integers) and decomposed by NumPy's SVD, first principles on
rescaled data, scikit-bio, or FactoMineR's numbers quoted from R.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse
from numpy.testing import assert_allclose

import pcalib
from pcalib import CA, MCA


def exact_residuals(N: np.ndarray) -> np.ndarray:
    """E of an integer table, each residual numerator n * n_ij - R_i C_j exact in int64
    before the one rounding to float64."""
    N = np.asarray(N, dtype=np.int64)
    R, C = N.sum(axis=1), N.sum(axis=0)
    n = int(R.sum())
    assert n * int(N.max()) < 2**62 and int(R.max()) * int(C.max()) < 2**62  # no overflow
    numerators = n * N - np.outer(R, C)
    return numerators / float(n) / np.sqrt(np.outer(R, C).astype(float))


def near_independent_table(seed: int = 0) -> np.ndarray:
    """Counts of about 1e6 a cell that follow the independence model to 1e-4."""
    rng = np.random.default_rng(seed)
    r, c = rng.uniform(1, 3, 40), rng.uniform(1, 3, 25)
    return np.round(1e6 * np.outer(r, c) / r.sum() / c.sum() * 1000) + rng.integers(0, 60, (40, 25))


# -- F15: a sparse table near independence ----------------------------------------------------


def test_sparse_table_near_independence_has_the_exact_ratios():
    N = near_independent_table()
    E = exact_residuals(N)
    s = np.linalg.svd(E, compute_uv=False)
    total = float((E**2).sum())
    assert total < 1e-7  # near independence: chi2 / n is tiny
    for table in (scipy.sparse.csr_matrix(N), N):
        ca = CA(4).fit(table)
        assert_allclose(ca.total_inertia_, total, rtol=1e-9)
        assert_allclose(ca.eigenvalues_, s[:4] ** 2, rtol=1e-8)
        assert_allclose(ca.explained_inertia_ratio_, s[:4] ** 2 / total, rtol=1e-8)


# -- F21: one scale, any scale ----------------------------------------------------------------


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300])
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_ca_is_the_same_at_every_scale(scale, kind, capfd):
    N = pcalib.datasets.load_hair_eye_color().counts.astype(float)
    E = exact_residuals(N.astype(int))
    U, s, Vt = np.linalg.svd(E)
    table = N * scale
    ca = CA(3).fit(scipy.sparse.csr_matrix(table) if kind == "sparse" else table)
    assert_allclose(ca.eigenvalues_, s[:3] ** 2, rtol=1e-12)
    assert_allclose(ca.total_inertia_, (E**2).sum(), rtol=1e-12)
    c = N.sum(axis=0) / N.sum()
    G = Vt[:3].T / np.sqrt(c)[:, None] * s[:3]
    G *= np.where(np.sum(G * ca.column_coordinates_, axis=0) < 0, -1, 1)
    assert_allclose(ca.column_coordinates_, G, atol=1e-12)
    assert_allclose(ca.transform(table[:2]), ca.row_coordinates_[:2], atol=1e-12)
    assert capfd.readouterr().err == ""  # no LAPACK message (DLASCL) on stderr


# -- F27: a bool table ---------------------------------------------------------------------------


def test_dense_bool_table_fits_as_sparse_bool_does():
    rng = np.random.default_rng(3)
    B = rng.random((30, 8)) < 0.4
    B[np.arange(30), np.arange(30) % 8] = True  # no empty row or column
    dense, sparse = CA(3).fit(B), CA(3).fit(scipy.sparse.csr_matrix(B))
    s = np.linalg.svd(exact_residuals(B.astype(int)), compute_uv=False)
    assert_allclose(dense.eigenvalues_, s[:3] ** 2, rtol=1e-12)
    assert_allclose(sparse.eigenvalues_, dense.eigenvalues_, rtol=1e-12)


# -- a fit that fails leaves the estimator unfitted ------------------------------------------------


@pytest.mark.parametrize(
    ("make", "good", "bad"),
    [
        (lambda: CA(2), np.array([[5, 1, 2], [1, 6, 2], [2, 2, 7]]), np.array([[5, 1, 2], [0, 0, 0], [2, 2, 7]])),
        (lambda: MCA(1), np.array([["a", "x"], ["b", "y"], ["a", "y"]]), np.array([["a", "x"], ["b", None]], dtype=object)),
    ],
    ids=["CA", "MCA"],
)
def test_failed_fit_leaves_the_estimator_unfitted(make, good, bad):
    from sklearn.exceptions import NotFittedError as SklearnNotFitted
    from sklearn.utils.validation import check_is_fitted

    for fitted_first in (False, True):
        model = make()
        if fitted_first:
            model.fit(good)
        with pytest.raises(ValueError):
            model.fit(bad)
        with pytest.raises(SklearnNotFitted):
            check_is_fitted(model)
        with pytest.raises(pcalib.NotFittedError):
            model.transform(good)


# -- F10: missing values are refused, never categories ------------------------------------------


def test_mca_refuses_every_kind_of_missing_value():
    pd = pytest.importorskip("pandas")
    base = {"b": ["u", "v", "u", "v"]}
    missing = {
        "NaT": pd.Series(pd.to_datetime(["2020-01-01", None, "2020-01-02", "2020-01-01"])),
        "float32 NaN": pd.Series(np.array([1, np.nan, 2, 1], dtype=np.float32)),
        "pandas NA": pd.Series(["x", pd.NA, "y", "x"], dtype="string"),
        "nullable Int64": pd.Series([1, None, 2, 1], dtype="Int64"),
        "None": pd.Series(["x", None, "y", "x"], dtype=object),
    }
    for column in missing.values():
        with pytest.raises(ValueError, match=r"column 'a' contains a missing value"):
            MCA(1).fit(pd.DataFrame({"a": column, **base}))
    arrays = {
        "float32 NaN in an object array": np.array([[np.float32(np.nan), "u"], ["x", "v"], ["y", "u"]], dtype=object),
        "float32 array": np.array([[1, 2], [np.nan, 3], [2, 2]], dtype=np.float32),
        "datetime64 NaT": np.array([["2020-01-01", "NaT"], ["2020-01-02", "2020-01-01"],
                                    ["2020-01-01", "2020-01-02"]], dtype="datetime64[D]"),
    }
    for arr in arrays.values():
        with pytest.raises(ValueError, match="contains a missing value"):
            MCA(1).fit(arr)


# -- F11: category names never collide ----------------------------------------------------------


def test_category_names_are_distinct():
    """FactoMineR's rule (prefix the columns whose values collide) would give ``a_b_c``
    twice here; the names fall back to ``column=repr(category)``."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": ["b_c", "x", "x", "b_c"], "a_b": ["c", "c", "x", "x"]})
    names = list(MCA(1).fit(frame).category_names_)
    assert len(set(names)) == len(names) == 4
    assert names == ["a='b_c'", "a='x'", "a_b='c'", "a_b='x'"]
    # the frame of the original F11 report: no value in two columns, so no prefix
    # (FactoMineR's names), and the names are distinct
    frame = pd.DataFrame({"a": ["b_c", "d", "d", "b_c"], "a_b": ["c", "c", "e", "e"]})
    assert list(MCA(1).fit(frame).category_names_) == ["b_c", "d", "c", "e"]
    # a prefix that meets a plain name: column a's 'b_c' and column b's 'c' once b is
    # prefixed (for its 'z', shared with d); then a is prefixed too
    frame = pd.DataFrame({"a": ["b_c", "q", "q"], "b": ["c", "z", "z"], "d": ["z", "w", "w"]})
    names = list(MCA(1).fit(frame).category_names_)
    assert names == ["a_b_c", "a_q", "b_c", "b_z", "d_w", "d_z"]  # sorted categories
    plain = pd.DataFrame({"a": ["x", "y", "y"], "b": ["u", "u", "v"]})
    assert list(MCA(1).fit(plain).category_names_) == ["x", "y", "u", "v"]
    shared = pd.DataFrame({"a": ["x", "y", "y"], "b": ["x", "x", "v"]})
    assert list(MCA(1).fit(shared).category_names_) == ["a_x", "a_y", "b_v", "b_x"]


def test_supplementary_category_names_avoid_the_active_ones():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": ["x", "y", "y", "x"], "b": ["u", "u", "v", "v"]})
    mca = MCA(1).fit(frame)
    sup = pd.DataFrame({"c": ["x", "w", "w", "x"], "d": ["p", "q", "q", "q"]})
    assert list(mca.supplementary_categories(sup).names) == ["c_w", "c_x", "p", "q"]


# -- F29: MCA memory is O(nQ + Jk) --------------------------------------------------------------


def indicator_residuals(X: np.ndarray) -> np.ndarray:
    """E of the indicator matrix of the columns of `X`, formed densely by NumPy."""
    Z = np.column_stack([(X[:, q][:, None] == np.unique(X[:, q])[None, :]) for q in range(X.shape[1])]).astype(float)
    P = Z / Z.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    return (P - np.outer(r, c)) / np.sqrt(np.outer(r, c))


def identifier_table(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    level = rng.integers(0, 5, n)
    return np.column_stack([np.arange(n), level, (level + rng.integers(0, 2, n)) % 5])


def test_mca_with_an_identifier_column_stays_small():
    X = identifier_table(3000, 0)  # J = 3010 categories: the Burt matrix alone is 72 MB
    tracemalloc.start()
    mca = MCA(2).fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20e6, peak  # about 60 * (nQ + Jk) * 8 bytes, far from J^2 * 8
    assert mca.row_coordinates_.shape == (3000, 2) and mca.column_coordinates_.shape == (3010, 2)


def test_mca_truncated_route_is_exact(monkeypatch):
    monkeypatch.setattr("pcalib._linalg.constants.BURT_MAX_J", 16)  # J^2 > nQ: the truncated route
    X = identifier_table(300, 1)
    E = indicator_residuals(X)
    s = np.linalg.svd(E, compute_uv=False)
    mca = MCA(3).fit(X)
    assert mca.all_eigenvalues_.size < min(E.shape[1] - 3, 300 - 1)  # not every axis: truncated
    assert_allclose(mca.eigenvalues_, s[:3] ** 2, rtol=1e-10)
    Q = 3
    above = s**2 > 1 / Q + 1e-9
    assert_allclose(mca.all_eigenvalues_[mca.all_eigenvalues_ > 1 / Q + 1e-9], s[above] ** 2, rtol=1e-10)
    adjusted = (Q / (Q - 1) * (s[above] ** 2 - 1 / Q)) ** 2
    greenacre = Q / (Q - 1) * (np.sum(s**4) - (E.shape[1] - Q) / Q**2)
    assert_allclose(mca.benzecri_ratio_, adjusted / adjusted.sum(), rtol=1e-9)
    assert_allclose(mca.greenacre_ratio_, adjusted / greenacre, rtol=1e-9)


# -- issue 35: dense tables take the truncated route, exactly -------------------------------------


@pytest.mark.parametrize("krylov", [True, False], ids=["block-krylov-on-E", "formed-gram"])
def test_dense_truncated_route_is_exact(monkeypatch, krylov):
    rng = np.random.default_rng(7)
    signal = rng.gamma(2.0, size=(500, 4)) @ rng.gamma(2.0, size=(4, 450))  # 3 axes over noise
    N = rng.poisson(signal) + 1
    E = exact_residuals(N)
    U, s, Vt = np.linalg.svd(E, full_matrices=False)
    formed = []
    rows_gram = pcalib._categories.ca_solver.rows_gram
    monkeypatch.setattr(pcalib._categories.ca_solver, "rows_gram", lambda Y: formed.append(1) or rows_gram(Y))
    if krylov:  # room for block Krylov on the operator (by default at m = 450: 11 columns, no block)
        monkeypatch.setattr("pcalib._linalg.constants.CA_KRYLOV_MAX_FRACTION", 1 / 3)
    ca = CA(3).fit(N)  # min(I, J) = 450 > 400, 5k <= 450: the truncated route on the formed E
    assert formed == ([] if krylov else [1])
    assert_allclose(ca.eigenvalues_, s[:3] ** 2, rtol=1e-10)
    W = ca.column_standard_coordinates_ * np.sqrt(ca.column_masses_)[:, None]  # V_k
    V = Vt[:3].T * np.where(np.sum(Vt[:3].T * W, axis=0) < 0, -1, 1)
    assert_allclose(W, V, atol=1e-10)


@pytest.mark.parametrize("lanczos, rows", [(True, 450), (False, 450), (False, 550)],
                         ids=["lanczos-on-G", "lapack-on-G", "lapack-on-G-above-512"])
def test_dense_flat_spectrum_is_solved_on_the_formed_gram_exactly(monkeypatch, lanczos, rows):
    """Above order 512 too, where top_eigh would try Lanczos again: once Lanczos on G
    has failed, LAPACK alone solves it (one Lanczos call in all)."""
    rng = np.random.default_rng(8)
    N = rng.poisson(3.0, size=(rows, 900))  # independence plus noise: a flat spectrum
    given = N.copy()
    E = exact_residuals(N)
    U, s, Vt = np.linalg.svd(E, full_matrices=False)
    formed, lapack = [], []
    solver = pcalib._categories.ca_solver
    rows_gram, lapack_top_eigh, lanczos_solver = solver.rows_gram, solver.lapack_top_eigh, solver.lanczos_top_operator
    monkeypatch.setattr(solver, "rows_gram", lambda Y: formed.append(Y.shape) or rows_gram(Y))
    monkeypatch.setattr(solver, "lapack_top_eigh", lambda G, k: lapack.append(k) or lapack_top_eigh(G, k))
    lanczos_calls = []
    monkeypatch.setattr(solver, "lanczos_top_operator", lambda *a, **o: lanczos_calls.append(1) or lanczos_solver(*a, **o))
    monkeypatch.setattr(pcalib._linalg.eigen, "lanczos_top_operator",
                        lambda *a, **o: lanczos_calls.append(2) or lanczos_solver(*a, **o))
    # Lanczos given all the products it needs (at m = 450 more than the 0.2 m it gets),
    # or none: then LAPACK solves G
    monkeypatch.setattr("pcalib._linalg.constants.CA_LANCZOS_MAX_FRACTION", 1.0 if lanczos else 0.0)
    ca = CA(5).fit(N)
    assert formed == [(rows, 900)] and np.array_equal(N, given)  # G = E E^T of the rows
    assert lapack == ([] if lanczos else [5]) and lanczos_calls == [1]
    assert_allclose(ca.eigenvalues_, s[:5] ** 2, rtol=1e-10)
    assert np.min(np.diff(s[:6]) / s[0]) > -0.02  # (a flat spectrum indeed: gaps under 2%)
    W = ca.row_standard_coordinates_ * np.sqrt(ca.row_masses_)[:, None]  # U_k
    assert_allclose(np.abs(W.T @ U[:, :5]), np.eye(5), atol=1e-9)
    V = ca.column_standard_coordinates_ * np.sqrt(ca.column_masses_)[:, None]
    assert_allclose(np.abs(V.T @ Vt[:5].T), np.eye(5), atol=1e-9)
    assert_allclose(np.abs(V).max(axis=0), V.max(axis=0))  # the sign convention


def mostly_zero_table(I: int, J: int, seed: int) -> np.ndarray:
    """Integer counts, 1% non-zero plus a band of ones (no empty row or column)."""
    rng = np.random.default_rng(seed)
    N = np.where(rng.random((I, J)) < 0.01, rng.integers(1, 9, (I, J)), 0)
    band = np.arange(max(I, J))
    N[band % I, band % J] += 1
    return N


@pytest.mark.parametrize("kind", ["int64", "float64", "fortran", "bool", "nan", "frame"])
def test_dense_to_csr_is_scipys_csr(kind):
    from pcalib._categories.ca_tables import dense_to_csr

    A = mostly_zero_table(700, 3000, 4)  # blocks of 349 rows: two and a part
    A[5] = 0  # an empty row
    if kind == "float64":
        A = A * 0.5
    elif kind == "fortran":
        A = np.asfortranarray(A)
    elif kind == "bool":
        A = A > 3
    elif kind == "nan":
        A = A.astype(float)
        A[3, 7], A[400, 2999] = np.nan, -np.inf
    elif kind == "frame":
        A = pytest.importorskip("pandas").DataFrame(A).to_numpy()
    ours, theirs = dense_to_csr(A), scipy.sparse.csr_matrix(A)
    assert dense_to_csr(A, theirs.nnz - 1) is None and dense_to_csr(A, theirs.nnz).nnz == theirs.nnz
    assert ours.dtype == theirs.dtype and ours.has_canonical_format
    assert_allclose(ours.indptr, theirs.indptr)
    assert_allclose(ours.indices, theirs.indices)
    assert_allclose(ours.data, theirs.data)  # NaN where NaN


def test_mostly_zero_dense_table_is_fitted_as_sparse_exactly(monkeypatch):
    N = mostly_zero_table(900, 450, 5)
    E = exact_residuals(N)
    U, s, Vt = np.linalg.svd(E, full_matrices=False)
    given = N.copy()
    read = []
    monkeypatch.setattr("pcalib._categories.ca_solver.sparse_inertias",
                        lambda counts, seen=read, f=pcalib._categories.ca_solver.sparse_inertias: seen.append(1) or f(counts))
    via_sparse = CA(4).fit(N)
    assert read and np.array_equal(N, given)  # the sparse route, input untouched
    monkeypatch.setattr("pcalib._linalg.constants.CA_SPARSE_DENSITY", 0.0)  # force the dense route
    via_dense = CA(4).fit(N)
    assert len(read) == 1
    assert_allclose(via_sparse.eigenvalues_, s[:4] ** 2, rtol=1e-10)
    assert_allclose(via_sparse.eigenvalues_, via_dense.eigenvalues_, rtol=1e-12)
    W = via_sparse.column_standard_coordinates_ * np.sqrt(via_sparse.column_masses_)[:, None]  # V_k
    assert_allclose(np.abs(W.T @ Vt[:4].T), np.eye(4), atol=1e-10)
    for name in ("row_coordinates_", "column_coordinates_", "row_inertias_", "column_inertias_",
                 "row_cos2_", "column_contributions_"):
        assert_allclose(getattr(via_sparse, name), getattr(via_dense, name), atol=1e-12, err_msg=name)


@pytest.mark.parametrize(("value", "message"), [
    (-2.0, r"non-negative counts, got X\[17, 3\] = -2"),
    (np.nan, r"NaN or infinity \(the first, nan, at position \(17, 3\)\)"),
    (np.inf, r"NaN or infinity \(the first, inf, at position \(17, 3\)\)"),
])
def test_mostly_zero_dense_table_names_a_bad_entry(value, message):
    pd = pytest.importorskip("pandas")
    N = mostly_zero_table(60, 40, 6).astype(float)
    N[17, 3] = value
    frame = pd.DataFrame(N, index=[f"r{i}" for i in range(60)], columns=[f"c{j}" for j in range(40)])
    with pytest.raises(ValueError, match=message):
        CA(2).fit(frame)


# -- F13: closure at the ends of the float64 range -------------------------------------------------


@pytest.mark.parametrize("scale", [1.0, 2.0**-1000])
def test_closure_of_huge_and_tiny_parts(scale):
    X = np.array([[1e308, 1e308, 1e300], [3.0, 1.0, 0.0], [1e308, 1e308, 1.0]]) * scale
    closed = pcalib.closure(X)
    third = 1e-8 / (2 + 1e-8)  # 1e300 / (1e308 + 1e308 + 1e300)
    assert_allclose(closed[:2], [[(1 - third) / 2, (1 - third) / 2, third], [0.75, 0.25, 0.0]], rtol=1e-15)
    assert_allclose(closed[2, :2], 0.5, rtol=1e-15)
    assert closed[2, 2] == pytest.approx(0.5 / 1e308, rel=1e-12)  # subnormal, not 0
    assert_allclose(pcalib.closure([[1e-320, 3e-320]]), [[0.25, 0.75]], rtol=1e-2)  # subnormal parts


# -- Review ch17-1, finding 3: supplementary columns are matched by index, not position ----------


def poison_fit():
    poison = pcalib.datasets.load_poison().to_frame()
    return poison, MCA(5).fit(poison.drop(columns=["Sick", "Sex"]))


def test_supplementary_categories_are_aligned_by_index():
    pytest.importorskip("pandas")
    poison, mca = poison_fit()
    in_order = mca.supplementary_categories(poison[["Sick", "Sex"]])
    # R: MCA(poison[, 3:15], quali.sup = 1:2)$quali.sup$eta2[, 1]
    assert_allclose(in_order.eta2[:, 0], [0.889203522619951725, 0.000776498894578375], atol=1e-14)
    shuffled = poison[["Sick", "Sex"]].sample(frac=1, random_state=0)
    assert not shuffled.index.equals(poison.index)
    for given in (shuffled, shuffled["Sick"]):  # a frame, and a Series as one column
        placed = mca.supplementary_categories(given)
        q = len(placed.eta2)
        assert_allclose(placed.eta2, in_order.eta2[:q], atol=1e-14)
        assert_allclose(placed.coordinates, in_order.coordinates[: 2 * q], atol=1e-14)
    # the array route stays positional: the fitted order is the caller's business
    assert_allclose(mca.supplementary_categories(poison[["Sick"]].to_numpy()).eta2, in_order.eta2[:1], atol=1e-14)


@pytest.mark.parametrize("relabel", ["reset", "subset", "repeated"])
def test_supplementary_categories_refuse_an_index_that_does_not_match(relabel):
    pytest.importorskip("pandas")
    poison, mca = poison_fit()
    sick = poison[["Sick"]]
    bad = {
        "reset": sick.reset_index(drop=True),  # labels 0..54, not '1'..'55'
        "subset": sick.iloc[:-1],
        "repeated": sick.set_axis(list(sick.index[:-1]) + [sick.index[0]]),
    }[relabel]
    with pytest.raises(ValueError, match="X's index must hold the row labels of the fitted individuals"):
        mca.supplementary_categories(bad)


def test_mca_fitted_on_an_array_matches_a_frame_by_position_labels():
    pytest.importorskip("pandas")
    poison, mca = poison_fit()
    fitted_on_array = MCA(5).fit(poison.drop(columns=["Sick", "Sex"]).to_numpy())
    sick = poison[["Sick"]].reset_index(drop=True)  # labels 0..54 = positions
    expected = mca.supplementary_categories(poison[["Sick"]]).eta2
    assert_allclose(fitted_on_array.supplementary_categories(sick.iloc[::-1]).eta2, expected, atol=1e-14)
    with pytest.raises(ValueError, match="positions 0..54"):
        fitted_on_array.supplementary_categories(poison[["Sick"]])  # labels '1'..'55'


def test_supplementary_columns_of_ca_are_aligned_by_index():
    pd = pytest.importorskip("pandas")
    hec = pcalib.datasets.load_hair_eye_color()
    ca = CA(3).fit(pd.DataFrame(hec.counts, index=hec.row_names, columns=hec.column_names))
    women = pd.DataFrame({"women": [52, 143, 37, 81]}, index=hec.row_names)
    # R: CA(cbind(d, Female = c(52, 143, 37, 81)), col.sup = 5)$col.sup$coord (up to sign)
    factominer = [0.107914847339737, 0.00661183301657779, 0.0186438940916612]
    for given in (women, women.iloc[::-1], women["women"].iloc[[2, 0, 3, 1]]):
        assert_allclose(np.abs(ca.transform_columns(given)[0]), factominer, atol=1e-13)
    with pytest.raises(ValueError, match="fitted labels missing: \\['Black', 'Brown', 'Red'\\]"):
        ca.transform_columns(women.reset_index(drop=True))
    with pytest.raises(ValueError, match="labels not fitted: \\['Grey'\\]"):
        ca.transform_columns(women.rename(index={"Red": "Grey"}))

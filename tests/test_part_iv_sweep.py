"""One sweep over Parts III-IV (issue 31): every public estimator and function of the
chapters on choosing k, robust and kernel PCA, reading components, categories, counts
and compositions, prediction, curves and series, at every scale of float64, at an
offset of 1e15, as int64 near 2**62, as a Dask array whose last chunk is one row, and
from pandas' nullable and categorical dtypes.

Each case is a metamorphic check with an exact expected relation. The data are
integers, so that ``X * 2**e`` (exact: a power of two) and ``X + 2**50`` (exact: below
2**53) change nothing but the scale or the location; each result must then be the
benign one times ``2**(e * power)``, ``power`` the result's degree in X (0 for axes,
ratios, cos2 and p-values, 1 for scores and centers, 2 for variances), or unchanged
under the offset for a location-free method. The benign fits themselves are checked
against R and scikit-learn in each module's own tests (test_robust, test_kernel,
test_reading, test_noise_rules, test_bootstrap, test_correspondence, test_regression,
test_series...); a few first-principles checks below tie this file's benign data to
NumPy as well.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import pcalib

rng = np.random.default_rng(31)
N, P = 40, 5
#: integers with unequal spreads (exact under a power-of-two scale and the offset)
X0 = (rng.integers(-2**12, 2**12, size=(N, P)) * np.array([8, 4, 2, 1, 1])).astype(float)
X0[:3] += 3.0 * 2**14  # a few far rows, so the robust fits have outliers to find
Y0 = (rng.integers(-2**10, 2**10, size=(N, 2))).astype(float)  # supplementary columns
TARGET = X0 @ np.array([1.0, -2.0, 0.5, 3.0, 0.0]) / 64 + rng.integers(-8, 8, N)
SERIES = np.round(64 * np.sin(np.arange(96) * 2 * np.pi / 12) + np.arange(96)) + rng.integers(-4, 4, 96)
GRID = np.linspace(0.0, 1.0, P)
COUNTS = rng.integers(1, 60, size=(8, 5)).astype(float)
POSITIVE = rng.integers(1, 2**10, size=(N, 4)).astype(float)
OFFSET = 2.0**50  # about 1.1e15: X0 + OFFSET is exact
#: powers of two from 2**-900 (about 1e-271) to 2**900 (about 1e271): the squares of
#: the data leave float64 at both ends
EXPONENTS = [-900, -480, 480, 900]
DATA = {"X0": X0, "SERIES": SERIES[:, None], "COUNTS": COUNTS, "POSITIVE": POSITIVE}


def scale_of(X) -> float:
    """The factor X was scaled by, read from the spread of its first column (exact for a
    power of two; 1 for the offset and the int64 reading)."""
    column = np.asarray(X[:, 0])
    spread = int(column.max()) - int(column.min()) if column.dtype.kind == "i" else np.ptp(column)
    return float(spread / np.ptp(X0[:, 0]))  # int64: the exact integer spread


def fitted_pca(X):
    return pcalib.PCA(3).fit(X)


def kernel_scores(X, kernel, gamma=None):
    model = pcalib.KernelPCA(3, kernel=kernel, gamma=gamma).fit(X)
    return {"eigenvalues": model.eigenvalues_, "scores": model.transform(X)}


@dataclass(frozen=True)
class Case:
    """A call on data X and the degree in X of each result it returns."""

    name: str
    call: Callable[[np.ndarray], dict]
    powers: dict
    location_free: bool = True
    data: str = "X0"  # the name of the module-level data it reads
    #: the largest |exponent| at which the call can be made at all: the rbf kernel's
    #: gamma scales as 2**(-2e) and the spectrum rules take eigenvalues, 2**(2e) X^2
    max_exponent: int = 900
    #: whether the call passes X itself to pcalib (the spectrum rules take eigenvalues)
    reads_data: bool = True

    @property
    def values(self) -> np.ndarray:
        return DATA[self.data]


def _robust(method):
    def call(X):
        m = pcalib.RobustPCA(2, method=method, random_state=0).fit(X)
        return {"components": m.components_, "variances": m.explained_variance_,
                "score_distances": m.score_distances_, "od": m.orthogonal_distances_,
                "outliers": m.outliers_}
    return call


def _rotations(X):
    loadings = fitted_pca(X).loadings_
    rotated, rotation = pcalib.varimax(loadings)
    pattern, _, correlation = pcalib.promax(loadings)
    return {"varimax": rotated, "rotation": rotation, "promax": pattern,
            "factor correlation": correlation}


def _reading(X):
    model = fitted_pca(X)
    return {"variable_cos2": pcalib.variable_cos2(model, X),
            "variable_contributions": pcalib.variable_contributions(model),
            "row_cos2": pcalib.row_cos2(model, X),
            "row_contributions": pcalib.row_contributions(model, X),
            "correlations": pcalib.supplementary_correlations(model, X, Y0 * scale_of(X))}


def _spectrum_rules(X):
    eigenvalues = np.linalg.svd(X - X.mean(axis=0), compute_uv=False) ** 2 / (N - 1)
    edge = pcalib.marchenko_pastur_edge(eigenvalues, N)
    test = pcalib.bartlett_test(eigenvalues, N)
    return {"edge": edge.threshold, "noise": edge.noise_variance, "k edge": edge.n_components,
            "statistic": test.statistic, "p": test.p_value}


def _selection(X):
    analysis = pcalib.parallel_analysis(X, n_resamples=20, random_state=0)
    return {"pa eigenvalues": analysis.eigenvalues, "pa thresholds": analysis.thresholds,
            "pa k": analysis.n_components, "map": pcalib.velicer_map(X),
            "press": pcalib.cv_press(X, 3, random_state=0)}


def _intervals(X):
    boot = pcalib.bootstrap_pca(X, 2, n_resamples=30, random_state=0)
    anderson = pcalib.anderson_intervals(X, 2)
    return {"boot variance": boot.explained_variance_interval,
            "boot axes": boot.components_interval,
            "anderson variance": anderson.explained_variance_interval,
            "anderson axes": anderson.components_interval}


def _sparse(X):
    m = pcalib.SparsePCA(2, n_nonzero=3, random_state=0).fit(X)
    return {"components": m.components_, "variances": m.explained_variance_}


def _pcr(X):
    y = TARGET * scale_of(X)  # the response scales with the data
    m = pcalib.PCR(2).fit(X, y)
    cv = pcalib.cross_validate_pcr(X, y, 3, folds=4)
    return {"coef": m.coef_, "intercept": np.atleast_1d(m.intercept_), "predict": m.predict(X),
            "rmsep": cv.rmsep}


def _curves(X):
    fit = pcalib.functional_pca(X, GRID, 2)
    return {"components": fit.components, "variance": fit.explained_variance,
            "ratio": fit.explained_variance_ratio, "scores": fit.scores}


def _ssa(series):
    m = pcalib.SSA(12).fit(series.ravel())
    return {"singular values": m.singular_values_, "trend": m.reconstruct([0]),
            "forecast": m.forecast(6, [0, 1, 2])}


def _ca(table):
    m = pcalib.CA(2).fit(table)
    return {"inertias": m.eigenvalues_, "rows": m.row_coordinates_,
            "columns": m.column_coordinates_, "cos2": m.row_cos2_}


def _compositions(X):
    return {"closure": pcalib.closure(X), "clr": pcalib.clr(X), "ilr": pcalib.ilr(X),
            "variation": pcalib.variation_matrix(X)}


CASES = [
    Case("RobustPCA robpca", _robust("robpca"),
         {"components": 0, "variances": 2, "score_distances": 0, "od": 1, "outliers": 0}),
    Case("RobustPCA grid", _robust("grid"),
         {"components": 0, "variances": 2, "score_distances": 0, "od": 1, "outliers": 0}),
    Case("RobustPCA spherical", _robust("spherical"),
         {"components": 0, "variances": 2, "score_distances": 0, "od": 1, "outliers": 0}),
    Case("KernelPCA linear", lambda X: kernel_scores(X, "linear"), {"eigenvalues": 2, "scores": 1}),
    Case("KernelPCA rbf", lambda X: kernel_scores(X, "rbf", 1e-7 / scale_of(X) ** 2),
         {"eigenvalues": 0, "scores": 0}, max_exponent=480),
    Case("SparsePCA", _sparse, {"components": 0, "variances": 2}),
    Case("varimax, promax", _rotations,
         {"varimax": 1, "rotation": 0, "promax": 1, "factor correlation": 0}),
    Case("cos2, contributions, supplementary", _reading,
         {"variable_cos2": 0, "variable_contributions": 0, "row_cos2": 0,
          "row_contributions": 0, "correlations": 0}),
    Case("marchenko_pastur_edge, bartlett_test", _spectrum_rules,
         {"edge": 2, "noise": 2, "k edge": 0, "statistic": 0, "p": 0}, location_free=False,
         max_exponent=480, reads_data=False),
    Case("parallel_analysis, velicer_map, cv_press", _selection,
         {"pa eigenvalues": 2, "pa thresholds": 2, "pa k": 0, "map": 0, "press": 2}),
    Case("bootstrap_pca, anderson_intervals", _intervals,
         {"boot variance": 2, "boot axes": 0, "anderson variance": 2, "anderson axes": 0}),
    Case("PCR, cross_validate_pcr", _pcr, {"coef": 0, "intercept": 1, "predict": 1, "rmsep": 1},
         location_free=False),
    Case("functional_pca", _curves, {"components": 0, "variance": 2, "ratio": 0, "scores": 1}),
    Case("SSA", _ssa, {"singular values": 1, "trend": 1, "forecast": 1}, location_free=False,
         data="SERIES"),
    Case("CA", _ca, {"inertias": 0, "rows": 0, "columns": 0, "cos2": 0}, location_free=False,
         data="COUNTS"),
    Case("closure, clr, ilr, variation_matrix", _compositions,
         {"closure": 0, "clr": 0, "ilr": 0, "variation": 0}, location_free=False, data="POSITIVE"),
]
IDS = [case.name for case in CASES]


def assert_same(got: dict, expected: dict, factor: float, powers: dict, where: str) -> None:
    """Each result equals the benign one times factor**power: exact integers (k,
    outlier flags) exactly, the rest to 1e-9 of the result's largest entry."""
    assert set(got) == set(powers), where
    for key, power in powers.items():
        a, b = np.asarray(got[key]), np.asarray(expected[key])
        if a.dtype.kind in "biu" or b.dtype.kind in "biu":
            assert np.array_equal(a, b), f"{where}: {key}"
            continue
        top = float(np.max(np.abs(b), initial=0.0))
        log_size = math.log2(top) + power * math.log2(factor) if power and top else 0.0
        if log_size >= 1024:  # beyond float64 (variances at 2**1800): inf, pcalib warns
            assert np.all(np.isinf(a)), f"{where}: {key} above float64 but finite"
            continue
        if log_size < -1022:  # below the normal numbers: 0 or subnormal, pcalib warns
            assert np.all(np.abs(a) < 2.0**-1000), f"{where}: {key} below float64 but large"
            continue
        scaled = b * factor**power if power else b
        size = float(np.max(np.abs(scaled), initial=0.0))
        assert np.all(np.isfinite(a)), f"{where}: {key} not finite"
        np.testing.assert_allclose(a, scaled, rtol=1e-9, atol=1e-9 * size, err_msg=f"{where}: {key}")


class Benign(dict):
    """The benign result of each case, computed when first asked for."""

    def __missing__(self, name: str) -> dict:
        case = next(case for case in CASES if case.name == name)
        self[name] = case.call(case.values)
        return self[name]


@pytest.fixture(scope="module")
def benign():
    return Benign()


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("exponent", EXPONENTS)
def test_every_scale_of_float64(case, exponent, benign):
    if abs(exponent) > case.max_exponent:
        pytest.skip(f"{case.name} cannot be called at 2**{exponent} (max_exponent)")
    factor = 2.0**exponent
    assert_same(case.call(case.values * factor), benign[case.name], factor, case.powers,
                f"{case.name} at 2**{exponent}")


@pytest.mark.parametrize("case", [c for c in CASES if c.location_free],
                         ids=[c.name for c in CASES if c.location_free])
def test_an_offset_of_1e15_changes_nothing(case, benign):
    shifted = case.values + OFFSET
    assert np.array_equal(shifted - OFFSET, case.values)  # the offset is exact
    assert_same(case.call(shifted), benign[case.name], 1.0, case.powers, f"{case.name} + 2**50")


@pytest.mark.parametrize("case", [c for c in CASES if c.location_free],
                         ids=[c.name for c in CASES if c.location_free])
def test_int64_near_2_62_reads_as_its_exact_differences(case, benign):
    """int64 data whose float64 conversion would round every entry to a multiple of
    1024: the result must be that of the exact integer differences."""
    integers = case.values.astype(np.int64) + np.int64(2**62 - 2**20)
    assert np.all(integers > 2**61)
    assert_same(case.call(integers), benign[case.name], 1.0, case.powers, f"{case.name} int64")


def test_the_benign_data_against_first_principles(benign):
    """A few of the benign results from NumPy alone, so that the sweep's anchor is not
    only the code under test."""
    Xc = X0 - X0.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    np.testing.assert_allclose(benign["KernelPCA linear"]["eigenvalues"], s[:3] ** 2, rtol=1e-12)
    scores = Xc @ Vt[:3].T
    cos2 = scores**2 / np.sum(Xc**2, axis=1, keepdims=True)
    np.testing.assert_allclose(benign["cos2, contributions, supplementary"]["row_cos2"], cos2,
                               rtol=1e-10, atol=1e-14)
    parts = POSITIVE / POSITIVE.sum(axis=1, keepdims=True)
    logs = np.log(POSITIVE)
    np.testing.assert_allclose(benign["closure, clr, ilr, variation_matrix"]["closure"], parts,
                               rtol=1e-14)
    np.testing.assert_allclose(benign["closure, clr, ilr, variation_matrix"]["clr"],
                               logs - logs.mean(axis=1, keepdims=True), rtol=1e-12, atol=1e-13)
    spectrum = s**2 / (N - 1)
    edge = benign["marchenko_pastur_edge, bartlett_test"]
    assert edge["k edge"] == int(np.sum(spectrum > edge["edge"]))


# -- pandas dtypes --------------------------------------------------------------------------

FRAME = pd.DataFrame(X0, columns=list("abcde"))


@pytest.mark.parametrize("estimator", [
    lambda: pcalib.RobustPCA(2), lambda: pcalib.KernelPCA(2, kernel="linear"),
    lambda: pcalib.SparsePCA(2), lambda: pcalib.PCR(2),
], ids=["RobustPCA", "KernelPCA", "SparsePCA", "PCR"])
def test_nullable_dtypes_fit_as_float64_and_pd_na_is_refused(estimator):
    nullable = FRAME.astype("Float64")
    args = (TARGET,) if isinstance(estimator(), pcalib.PCR) else ()
    plain = estimator().fit(FRAME, *args)
    same = estimator().fit(nullable, *args)
    for name in ("components_", "coef_"):
        if hasattr(plain, name):
            np.testing.assert_allclose(getattr(same, name), getattr(plain, name), rtol=1e-12)
    holed = nullable.copy()
    holed.iloc[4, 2] = pd.NA
    with pytest.raises(ValueError, match=r"NaN|missing|NA"):
        estimator().fit(holed, *args)


def test_mca_reads_categorical_bool_and_object_columns_alike_and_refuses_nat():
    codes = rng.integers(0, 3, size=(N, 3))
    objects = pd.DataFrame({"u": np.array(list("pqr"))[codes[:, 0]],
                            "v": np.array(list("stu"))[codes[:, 1]],
                            "w": codes[:, 2] > 0})
    categorical = objects.astype({"u": "category", "v": "category"})
    plain, typed = pcalib.MCA(2).fit(objects), pcalib.MCA(2).fit(categorical)
    np.testing.assert_allclose(typed.eigenvalues_, plain.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(typed.row_coordinates_, plain.row_coordinates_, atol=1e-12)
    dates = objects.assign(t=pd.to_datetime(["2020-01-01", pd.NaT] * (N // 2)))
    with pytest.raises(ValueError, match=r"NaT|missing|NaN"):
        pcalib.MCA(2).fit(dates)


def test_ca_of_a_bool_table_equals_that_of_its_counts():
    table = COUNTS > 20
    np.testing.assert_allclose(pcalib.CA(2).fit(table).eigenvalues_,
                               pcalib.CA(2).fit(table.astype(float)).eigenvalues_, rtol=1e-12)


DASK_CASES = [c for c in CASES if c.data == "X0" and c.reads_data]


@pytest.mark.parametrize("case", DASK_CASES, ids=[c.name for c in DASK_CASES])
def test_a_dask_array_whose_last_chunk_has_one_row_gives_the_same_result(case, benign):
    """Every Part III-IV function reads a Dask array as the array it holds: the result
    of one whose last chunk is a single row equals the NumPy one."""
    da = pytest.importorskip("dask.array")
    lazy = da.from_array(X0, chunks=((N - 1, 1), (P,)))
    assert_same(case.call(lazy), benign[case.name], 1.0, case.powers, f"{case.name} on Dask")

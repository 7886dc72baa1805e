"""Every input kind through one exact-reference check (issue 22).

NumPy arrays, scipy.sparse matrices, Dask arrays and partial_fit batches, each by
each of its solvers, at scales 2**-900 to 2**900, at an offset of 1e15 and as int64
near 2**62. The data are built so that their exact centering is known (integers,
or multiples of the unit in the last place of the offset), and every result is
compared with LAPACK's SVD of the exactly centered data at unit scale, scaled by
the exact power of two: eigenvalues and scores to 1e-12 relative, axes to 1e-11,
the mean to a few units in the last place. The grid is fixed (deterministic), 2 x 3
x 7 x 4 fits of 120 x 5 matrices, a few seconds in all.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pcalib import PCA

da = pytest.importorskip("dask.array")

N, P, K = 120, 5, 3
# Powers of two. At 2**-900 and 2**900 the variances of the raw data (about
# 2**34 * 4**e) leave the float64 range: pcalib warns and the scale-free results
# (axes, ratios) are checked; every other size is checked at every other scale.
SCALES = [-900, -520, -200, 0, 200, 480, 900]


def _integers(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(-2**20, 2**20, size=(N, P)) * np.array([8, 4, 2, 1, 1])


def _exactly_centered(X_int: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X - mean) rounded once, and the mean as Fractions, from Python integers."""
    means = [Fraction(sum(int(v) for v in X_int[:, j]), N) for j in range(P)]
    Xc = np.array([[float(int(v) - means[j]) for j, v in enumerate(row)] for row in X_int])
    return Xc, np.array(means, dtype=object)


def _reference(Xc: np.ndarray, standardize: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if standardize:
        Xc = Xc / np.sqrt(np.einsum("ij,ij->j", Xc, Xc) / (N - 1))
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return s[:K] ** 2 / (N - 1), Vt[:K], Xc @ Vt[:K].T, s[:K] ** 2 / (s @ s)


def _kinds(X: np.ndarray, sparse_ok: bool):
    yield "numpy", lambda: X
    if sparse_ok:
        yield "sparse", lambda: sp.csr_matrix(X)
    yield "dask", lambda: da.from_array(X, chunks=(40, P))


def _fitted(kind: str, make, solver: str, standardize: bool, batches: bool) -> tuple[PCA, np.ndarray]:
    if batches:
        return _batches(make, standardize)
    est = PCA(K, solver=solver, standardize=standardize, random_state=0)
    est.fit(make())
    return est, np.asarray(est.transform(make()))


def _batches(make, standardize: bool) -> tuple[PCA, np.ndarray]:
    est = PCA(K, standardize=standardize)
    for part in np.array_split(make(), 3):
        est.partial_fit(part)
    return est, np.asarray(est.transform(make()))


def _check(est: PCA, scores: np.ndarray, exponent: int, ref, standardize: bool) -> None:
    ev, Vt, Z, ratio = ref
    signs = np.sign(np.sum(est.components_ * Vt, axis=1))
    np.testing.assert_allclose(est.components_ * signs[:, None], Vt, atol=1e-11)
    np.testing.assert_allclose(est.explained_variance_ratio_, ratio, rtol=1e-12)
    unit = 0 if standardize else exponent
    if abs(unit) < 900:
        # Below 2**-1022 float64 holds numbers to a step of 2**-1074: the variances of
        # entries near 2**-3 at scale 2**-513 are such subnormal numbers, and the best any
        # float64 result can do (pcalib's, with a warning) is the exact value rounded to
        # that grid, up to half a step (5e-12 relative there) away.
        step = np.ldexp(np.finfo(float).smallest_subnormal, -2 * unit)
        np.testing.assert_allclose(np.ldexp(est.explained_variance_, -2 * unit), ev, rtol=1e-12, atol=step)
        np.testing.assert_allclose(np.ldexp(scores, -unit) * signs, Z, rtol=0,
                                   atol=1e-11 * np.abs(Z).max())


@pytest.mark.parametrize("standardize", [False, True], ids=["raw", "standardized"])
@pytest.mark.parametrize("exponent", SCALES)
@pytest.mark.parametrize("solver", ["eig", "svd", "randomized", "batches"])
def test_scaled_data_with_an_offset_of_1e15(solver, exponent, standardize):
    """(1e15 + X_int / 8) * 2**e: exact in float64 (1/8 is the unit in the last place
    of 1e15), so the exact centering is X_int / 8 - mean, times 2**e."""
    X_int = _integers(exponent % 97)
    X = np.ldexp(1e15 + X_int / 8, exponent)
    Xc, means = _exactly_centered(X_int)
    ref = _reference(Xc / 8, standardize)
    out_of_range = not standardize and abs(exponent) == 900
    for kind, make in _kinds(X, sparse_ok=True):
        if solver == "batches" and kind != "numpy":
            continue
        if out_of_range:
            with pytest.warns(RuntimeWarning, match="float64 range"):
                est, scores = _fitted(kind, make, solver, standardize, solver == "batches")
        else:
            est, scores = _fitted(kind, make, solver, standardize, solver == "batches")
        _check(est, scores, exponent, ref, standardize)
        mean = [math.ldexp(float(Fraction(10**15) + m / 8), exponent) for m in means]
        np.testing.assert_allclose(est.mean_, mean, rtol=4 * np.finfo(float).eps)


@pytest.mark.parametrize("solver", ["eig", "svd", "randomized", "batches"])
def test_int64_near_2_62(solver):
    """int64 data near 2**62 (beyond float64's 2**53), every kind that keeps integers."""
    X_int = _integers(62)
    X = (2**62 + X_int).astype(np.int64)
    ref = _reference(_exactly_centered(X_int)[0], False)
    for kind, make in _kinds(X, sparse_ok=False):
        if solver == "batches" and kind != "numpy":
            continue
        est, scores = _fitted(kind, make, solver, False, solver == "batches")
        _check(est, scores, 0, ref, False)


@pytest.mark.parametrize("kind", ["numpy", "sparse", "dask", "batches"])
def test_two_entries_at_the_float64_limit(kind):
    """Two entries of +-1e308 and two of +-5e307 among zeros: the moment routes gave
    variances [0, 0, 0] (issue 22 item 2). The variances (2 a**2 / 9, about 1e615) are
    beyond float64: pcalib says so, and the axes (e_0, e_1) and ratios (4:1) are exact."""
    X = np.zeros((10, 3))
    X[0, 0], X[1, 0], X[2, 1], X[3, 1] = 1e308, -1e308, 5e307, -5e307
    data = {"numpy": X, "sparse": sp.csr_matrix(X), "dask": da.from_array(X, chunks=(5, 3))}
    with pytest.warns(RuntimeWarning, match="above the float64 range"):
        if kind == "batches":
            est = PCA(2)
            for part in np.array_split(X, 2):
                est.partial_fit(part)
            est.components_  # noqa: B018 (the stream is solved when first read)
        else:
            est = PCA(2, solver="eig").fit(data[kind])
    np.testing.assert_array_equal(np.abs(est.components_), np.eye(3)[:2])
    np.testing.assert_allclose(est.explained_variance_ratio_, [0.8, 0.2], rtol=1e-15)
    assert np.all(np.isinf(est.explained_variance_))


@settings(max_examples=max(25, settings.default.max_examples // 2))
@given(
    exponent=st.integers(-520, 480),
    offset=st.sampled_from([0.0, 1e8, 1e15]),
    kind=st.sampled_from(["numpy", "sparse", "dask", "batches"]),
    solver=st.sampled_from(["eig", "svd", "krylov", "randomized"]),
    standardize=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_any_kind_scale_and_offset_match_the_exact_reference(
    exponent, offset, kind, solver, standardize, seed
):
    """The grid above, drawn at random (derandomized in CI; set
    PCALIB_HYPOTHESIS_EXAMPLES for a wider run): any power-of-two scale at which the
    variances are representable, offsets 0, 1e8 and 1e15 (entries multiples of the
    unit in the last place of the offset, so the data and their exact centering are
    known), every input kind and solver."""
    X_int = _integers(seed)
    unit = np.spacing(offset) if offset else 1.0 / 8
    X = np.ldexp(offset + X_int * unit, exponent)
    ref = _reference(_exactly_centered(X_int)[0] * unit, standardize)
    make = {"numpy": lambda: X, "sparse": lambda: sp.csr_matrix(X),
            "dask": lambda: da.from_array(X, chunks=(40, P)), "batches": lambda: X}[kind]
    est, scores = _fitted(kind, make, solver, standardize, kind == "batches")
    _check(est, scores, exponent, ref, standardize)


def _determinant(M: list[list[Fraction]]) -> Fraction:
    """det(M) exactly, by Gaussian elimination in rational arithmetic."""
    M, result = [row[:] for row in M], Fraction(1)
    for i in range(len(M)):
        pivot = next(r for r in range(i, len(M)) if M[r][i] != 0)
        if pivot != i:
            M[i], M[pivot], result = M[pivot], M[i], -result
        result *= M[i][i]
        for r in range(i + 1, len(M)):
            factor = M[r][i] / M[i][i]
            M[r] = [a - factor * b for a, b in zip(M[r], M[i])]
    return result


@pytest.mark.parametrize("exponent", [-513, -520])
@pytest.mark.parametrize("solver", ["eig", "svd", "krylov", "randomized"])
def test_subnormal_variances_are_the_exact_ones_rounded(solver, exponent):
    """(1e8 + X_int ulp) * 2**e at e = -513 and -520 (the minimum-versions lane drew
    them): the variances, about 2**-1037 to 2**-1051, are subnormal, held to a step
    of 2**-1074 (5e-12 to 2e-7 relative), which rtol=1e-12 cannot resolve. pcalib
    says so, and each variance is within one step of the exact eigenvalue of the
    exactly centered covariance: det(C - t I) changes sign between the value minus
    a step and the value plus a step (in rational arithmetic)."""
    X_int = _integers(0)
    unit = np.spacing(1e8)
    X = np.ldexp(1e8 + X_int * unit, exponent)
    ref = _reference(_exactly_centered(X_int)[0] * unit, False)
    with pytest.warns(RuntimeWarning, match="explained variances: below the normal float64 range"):
        est, scores = _fitted("numpy", lambda: X, solver, False, False)
    _check(est, scores, exponent, ref, False)
    means = [Fraction(sum(int(v) for v in X_int[:, j]), N) for j in range(P)]
    Xc = [[(int(v) - means[j]) * Fraction(unit) * Fraction(2) ** exponent for j, v in enumerate(row)]
          for row in X_int]
    C = [[sum(row[i] * row[j] for row in Xc) / (N - 1) for j in range(P)] for i in range(P)]
    step = Fraction(np.finfo(float).smallest_subnormal)
    for variance in map(Fraction, est.explained_variance_):
        signs = {_determinant([[C[i][j] - (t if i == j else 0) for j in range(P)] for i in range(P)]) > 0
                 for t in (variance - step, variance + step)}
        assert signs == {True, False}, float(variance)


# -- PPCA with missing values, impute_pca and choose_k at extreme scales (issue 22 item 11) --
#
# These routes worked in the data's units: at 1e-200 the squares (1e-400) were 0 and PPCA
# with NaN said "X's observed entries all equal their column means", choose_k "X has zero
# total variance"; at 1e153 the sums of squares overflowed (RuntimeWarning, then NaN or a
# LinAlgError). Now each works in units of a power of two and converts back exactly.
# Results at scale c must be those at scale 1 times c (variances times c**2) to 1e-10
# relative: exactly so at the powers of two 2**-664 (1e-200), 2**299 (1e90) and 2**508
# (8e152); to round-off at 1e-200, 1e90, 1e120 and 1e153, whose data are rounded once.
EXTREME_SCALES = [2.0**-664, 1e-200, 1e90, 2.0**299, 1e120, 1e153, 2.0**508]
SCALE_IDS = ["2**-664", "1e-200", "1e90", "2**299", "1e120", "1e153", "2**508"]
_MISSING_ROUTES = ["PPCA", "PPCA em", "impute em", "impute regularized", "impute iterative"]


def _low_rank_with_holes() -> np.ndarray:
    rng = np.random.default_rng(11)
    X = rng.standard_normal((60, 2)) @ rng.standard_normal((2, 6)) * 3 + 0.5 * rng.standard_normal((60, 6)) + 1.0
    X[rng.random(X.shape) < 0.1] = np.nan
    return X


def _missing_route(route: str, X: np.ndarray) -> dict[str, tuple[np.ndarray, int]]:
    """The route's results, each with the power of the scale it carries."""
    from pcalib import PPCA, impute_pca

    if route.startswith("PPCA"):
        method = "em" if route.endswith("em") else "closed_form"
        model = PPCA(2, method=method, random_state=0).fit(X)
        return {"W_": (model.W_, 1), "mean_": (model.mean_, 1), "sigma2_": (np.array(model.sigma2_), 2)}
    completed, model = impute_pca(X, 2, route.split()[1], random_state=0)
    return {"completed": (completed, 1), "W_": (model.W_, 1), "sigma2_": (np.array(model.sigma2_), 2)}


def _outside_normal_range(value: float) -> bool:
    return not np.finfo(float).tiny <= abs(value) <= np.finfo(float).max


@pytest.mark.parametrize("scale", EXTREME_SCALES, ids=SCALE_IDS)
@pytest.mark.parametrize("route", _MISSING_ROUTES)
def test_missing_value_routes_commute_with_the_scale(route, scale):
    X = _low_rank_with_holes()
    at_one = _missing_route(route, X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaled = _missing_route(route, X * scale)
    out_of_range = {name for name, (value, power) in at_one.items()
                    if power == 2 and _outside_normal_range(float(value) * scale**2)}
    said = [str(w.message) for w in caught]
    # the only warning: sigma2_ below the float64 range at 1e-200 (its value 0 or subnormal)
    assert all(msg.startswith("sigma2_: below the normal float64 range") for msg in said), said
    assert bool(said) == bool(out_of_range), (said, out_of_range)
    # EM stops on a log-likelihood gain relative to |L|, and L moves by the log of the scale
    # left after the power of two (1e153 = 2**508 * 1.19): at 1e153 PPCA stops one
    # iteration earlier, within EM's documented accuracy (about 1e-7 relative)
    exact = math.frexp(scale)[0] == 0.5 or route.startswith("impute i") or route == "impute regularized"
    for name, (value, power) in at_one.items():
        if name in out_of_range:
            continue
        got = np.asarray(scaled[name][0], dtype=float) / scale**power
        tol = (1e-10 if exact else 1e-7) * np.abs(value).max()
        np.testing.assert_allclose(got, value, rtol=0, atol=tol, err_msg=name)
        if math.frexp(scale)[0] == 0.5:  # a power of two: the same numbers
            np.testing.assert_array_equal(got, value, err_msg=name)


@pytest.mark.parametrize("scale", EXTREME_SCALES, ids=SCALE_IDS)
def test_choose_k_and_its_rules_commute_with_the_scale(scale):
    from pcalib import choose_k, cv_press, parallel_analysis

    X = np.nan_to_num(_low_rank_with_holes(), nan=0.5)
    for rule in ("threshold", "kaiser", "broken_stick", "minka", "parallel", "cv"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert choose_k(X=X * scale, method=rule, random_state=0) == choose_k(X=X, method=rule, random_state=0)
    for standardize in (False, True):
        power = 0 if standardize else 2
        press = cv_press(X, random_state=0, standardize=standardize)
        parallel = parallel_analysis(X, random_state=0, n_resamples=20, standardize=standardize)
        values = {"PRESS": press, "eigenvalues": parallel.eigenvalues, "thresholds": parallel.thresholds}
        in_range = all(not _outside_normal_range(float(v.max()) * scale**power) for v in values.values())
        with warnings.catch_warnings():
            warnings.simplefilter("error" if in_range else "ignore")
            scaled_parallel = parallel_analysis(X * scale, random_state=0, n_resamples=20, standardize=standardize)
            scaled = {"PRESS": cv_press(X * scale, random_state=0, standardize=standardize),
                      "eigenvalues": scaled_parallel.eigenvalues, "thresholds": scaled_parallel.thresholds}
        assert scaled_parallel.n_components == parallel.n_components
        if in_range:
            for name, value in values.items():
                np.testing.assert_allclose(scaled[name] / scale**power, value, rtol=1e-10, err_msg=name)

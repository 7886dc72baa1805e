"""No silent wrong answer at extreme scales (issue 31, items F03, F04, F24, F26, F30).

Every result is compared with an independent reference: NumPy's (LAPACK's) SVD of the
data at unit scale, multiplied back by the exact power of two, scikit-learn's PCA, or
the Schur complement computed from first principles.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pcalib
from pcalib import PCA
from pcalib._utils.validation import NotFittedError

da = pytest.importorskip("dask.array")


def _data(n: int, p: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) * 0.8 ** np.arange(p)


def _axis_error(components: np.ndarray, Vt: np.ndarray) -> float:
    """Largest 1 - |cos| between each fitted axis and the reference axis."""
    return float(np.max(1 - np.abs(np.sum(components * Vt[: len(components)], axis=1))))


# Data at 2**-282 (about 1e-85), 2**-531 (1e-160) and 2**-664 (1e-200): the exact
# powers of two, so that the reference is the unit-scale SVD, scaled.
TINY = [-282, -399, -531, -664]


@pytest.mark.parametrize("exponent", TINY)
@pytest.mark.parametrize("solver", ["auto", "eig", "krylov", "randomized", "svd"])
def test_dask_with_a_one_row_last_chunk_at_tiny_scales(solver, exponent):
    """F03: 201 rows in chunks of 100, 100 and 1. The chunk of one row had no scatter
    and the exponent 0, and the merge put every other chunk's scatter (units of
    4**-532 at 1e-160) into units of 1, where it underflowed: eig and auto gave NaN
    ratios at 1e-200; krylov and randomized (block Krylov on Z^T Z, read as
    2**e X) had Gram matrices of 1e-340 at 1e-85 and axes 0.4-0.8 off."""
    base = _data(201, 20, 3)
    _, s, Vt = np.linalg.svd(base - base.mean(axis=0), full_matrices=False)
    X = da.from_array(np.ldexp(base, exponent), chunks=(100, 20))
    assert X.chunks[0][-1] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # variances below the float64 range
        fit = PCA(5, solver=solver).fit(X)
    assert _axis_error(fit.components_, Vt) < 1e-13
    np.testing.assert_allclose(fit.explained_variance_ratio_, s[:5] ** 2 / (s @ s), rtol=1e-12)
    np.testing.assert_allclose(np.ldexp(fit.singular_values_, -exponent), s[:5], rtol=1e-12)


@pytest.mark.parametrize("scale", [1e-85, 1e-120, 1e-160, 1e-200])
def test_dask_one_row_chunk_at_decimal_scales(scale):
    """F03 as reported (decimal scales: the data rounded once, so 1e-13 relative)."""
    base = _data(121, 30, 4)
    _, s, Vt = np.linalg.svd(base - base.mean(axis=0), full_matrices=False)
    X = da.from_array(base * scale, chunks=(60, 30))
    for solver in ("auto", "krylov", "randomized"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fit = PCA(10, solver=solver).fit(X)
        assert _axis_error(fit.components_, Vt) < 1e-12
        np.testing.assert_allclose(fit.explained_variance_ratio_, s[:10] ** 2 / (s @ s), rtol=1e-11)


@pytest.mark.parametrize("exponent", [-282, -531, -664, 600])
def test_partial_fit_with_a_batch_of_one_row(exponent):
    """The stream's merge of the same moments: a first batch of one row (no scatter)
    at 1e-160 or 1e-200 must not set the units of the rest."""
    base = _data(121, 6, 5)
    _, s, Vt = np.linalg.svd(base - base.mean(axis=0), full_matrices=False)
    stream = PCA(3)
    for batch in np.split(np.ldexp(base, exponent), [1, 2, 60, 120]):
        stream.partial_fit(batch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert _axis_error(stream.components_, Vt) < 1e-13
    np.testing.assert_allclose(stream.explained_variance_ratio_, s[:3] ** 2 / (s @ s), rtol=1e-12)


def test_dask_of_single_rows_at_1e_200():
    """Chunks of one row each: every scatter is 0, only the merges' cross terms carry
    the variance, and they need units of their own (squares of 1e-400 otherwise)."""
    base = _data(12, 3, 6)
    _, s, Vt = np.linalg.svd(base - base.mean(axis=0), full_matrices=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fit = PCA(2, solver="eig").fit(da.from_array(np.ldexp(base, -664), chunks=(1, 3)))
    assert _axis_error(fit.components_, Vt) < 1e-13
    np.testing.assert_allclose(fit.explained_variance_ratio_, s[:2] ** 2 / (s @ s), rtol=1e-12)


@pytest.mark.parametrize("exponent", [-282, -300])
def test_dense_krylov_route_at_1e_85(exponent):
    """The same cause in memory: the implicit Krylov route read X itself whenever its
    sums of squares were in range, so at 1e-85 its Gram matrices were 1e-340 and its
    axes 0.4-0.8 off. Now it reads X / 2**f, the largest column norm near 1."""
    base = _data(201, 20, 7)
    _, s, Vt = np.linalg.svd(base - base.mean(axis=0), full_matrices=False)
    fit = PCA(5, solver="krylov").fit(np.ldexp(base, exponent))
    assert fit.solver_ == "krylov"
    assert _axis_error(fit.components_, Vt) < 1e-13
    np.testing.assert_allclose(np.ldexp(fit.explained_variance_, -2 * exponent), s[:5] ** 2 / 200, rtol=1e-12)
    np.testing.assert_allclose(np.ldexp(fit.transform(np.ldexp(base, exponent)), -exponent),
                               PCA(5, solver="svd").fit_transform(base), atol=1e-12)


def test_score_of_int64_near_2_62_against_scikit_learn():
    """F04: PCA.score converted int64 data to float64 before subtracting the mean, so
    near 2**62 (float64 spacing 1024) every centered value was off by up to 512: the
    average log-likelihood was -34.64 where scikit-learn's of the same data, offset
    removed, is -34.49."""
    sklearn = pytest.importorskip("sklearn.decomposition")
    rng = np.random.default_rng(0)
    X_int = rng.integers(-1000, 1000, size=(200, 4)) * np.array([4, 3, 2, 1])
    X = (2**62 + X_int).astype(np.int64)
    fit = PCA(2).fit(X)
    reference = sklearn.PCA(2).fit(X_int.astype(np.float64))
    np.testing.assert_allclose(fit.score(X), reference.score(X_int.astype(np.float64)), rtol=1e-12)
    np.testing.assert_allclose(fit.score_samples(X[:5]), reference.score_samples(X_int[:5].astype(float)),
                               rtol=1e-12)
    lazy = fit.score_samples(da.from_array(X, chunks=(50, 4))).compute()  # chunks kept int64
    np.testing.assert_allclose(lazy, reference.score_samples(X_int.astype(float)), rtol=1e-12)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-160, 1e160, 1e200, 1e300])
def test_randomized_svd_at_extreme_scales(scale):
    """F24: at 1e160 the products A A^T Y overflowed (LAPACK 'Internal Error'); at
    1e-160 they underflowed (singular values 29% off), at 1e-300 0.6% off."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((60, 40)) @ np.diag(0.8 ** np.arange(40))
    _, s0, Vt0 = np.linalg.svd(A, full_matrices=False)
    U, s, Vt = pcalib.randomized_svd(A * scale, 5, random_state=0)
    np.testing.assert_allclose(s, s0[:5] * scale, rtol=1e-12)
    assert _axis_error(Vt, Vt0) < 1e-13
    np.testing.assert_allclose(U.T @ U, np.eye(5), atol=1e-13)


def test_hasattr_after_partial_fit_of_constant_rows():
    """F26: hasattr(m, "components_") raised ValueError ("zero total variance") after
    partial_fit of constant rows; scikit-learn's check_is_fitted calls it. Now the
    model is not fitted yet (NotFittedError, an AttributeError: hasattr is False), and
    a batch that varies fits it."""
    model = PCA(2).partial_fit(np.ones((5, 3)))
    assert not hasattr(model, "components_")
    with pytest.raises(NotFittedError, match="every column of the 5 samples seen by partial_fit"):
        model.components_  # noqa: B018
    rows = np.random.default_rng(1).standard_normal((20, 3))
    model.partial_fit(rows)
    both = np.vstack([np.ones((5, 3)), rows])
    reference = np.linalg.svd(both - both.mean(axis=0), full_matrices=False)[2][:2]
    assert _axis_error(model.components_, reference) < 1e-13


def test_partial_fit_standardized_with_a_column_constant_so_far():
    """The same for standardize=True: a column constant in the batches seen so far."""
    rows = np.random.default_rng(2).standard_normal((6, 3))
    rows[:, 1] = 4.0
    model = PCA(2, standardize=True).partial_fit(rows)
    assert not hasattr(model, "explained_variance_")
    with pytest.raises(NotFittedError, match=r"column\(s\) \[1\]"):
        model.explained_variance_  # noqa: B018


@pytest.mark.parametrize("solver", ["auto", "eig", "svd", "gram", "krylov", "randomized"])
def test_one_entry_of_1e200_is_said_not_hidden(solver):
    """F30: one entry of 1e200 in column 2. In the one frame of the fit, the other
    columns' squares are 1e-400: 0. lambda_2.. were reported 0 and axes 2.. were
    arbitrary (0.77-1.0 from those of the Schur complement of column 2's entry of
    X_c^T X_c), under a warning that said axes were not affected. Now a warning names
    the columns the fit cannot see and the components that are not determined, and
    no warning says the axes are fine; the first axis, which is determined, is the unit
    vector of column 2, and the remedy the warning names, standardize=True, gives
    NumPy's SVD of the standardized data."""
    X = np.random.default_rng(0).standard_normal((50, 6)) @ np.diag([3, 2, 1, 0.5, 0.3, 0.2])
    X[7, 2] = 1e200
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = PCA(4, solver=solver).fit(X)
    messages = [str(w.message) for w in caught]
    assert any("column(s) [0, 1, 3, 4, 5] of X vary" in m and "components 2 to 4" in m
               and "not determined" in m for m in messages), messages
    assert not any("not affected" in m for m in messages), messages
    assert _axis_error(fit.components_[:1], np.eye(6)[[2]]) < 1e-15
    # the determined answer, which standardize=True reaches (the columns then resolve)
    Z = X - X.mean(axis=0)
    Z /= np.abs(Z).max(axis=0)  # unit columns first: the squares of 1e200 overflow
    Z /= Z.std(axis=0, ddof=1)
    _, s_std, Vt_std = np.linalg.svd(Z, full_matrices=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        standardized = PCA(4, solver=solver, standardize=True).fit(X)
    assert _axis_error(standardized.components_, Vt_std) < 1e-10


def test_one_entry_of_1e200_on_dask_and_sparse_is_said_too():
    """The warning comes from every kind of input: the column sums of squares are those
    of the one-pass moments."""
    sp = pytest.importorskip("scipy.sparse")
    X = np.random.default_rng(0).standard_normal((50, 4))
    X[7, 0] = 1e200
    for data in (da.from_array(X, chunks=(20, 4)), sp.csr_matrix(X)):
        with pytest.warns(RuntimeWarning, match=r"column\(s\) \[1, 2, 3\] of X vary"):
            PCA(3).fit(data)


def test_graded_columns_that_resolve_give_no_warning():
    """Columns 1e-6 times narrower than another are resolved by every route (variances
    1e-12 of the total, above eps): no warning, and the eigenvalues agree with the SVD."""
    X = np.random.default_rng(3).standard_normal((300, 5)) * np.array([1e3, 1, 1e-3, 2e-3, 1.0])
    _, s, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = PCA(5, solver="svd").fit(X)
    np.testing.assert_allclose(fit.singular_values_, s, rtol=1e-9)


def test_tiny_singular_values_keep_their_variances():
    """explained_variance_ squares the singular values in the data's units: a fit whose
    frame holds a singular value of 2**-700 no longer reports its variance as 0 when
    it is 2**-700 * 2**700 in the data's units (rescale_squares)."""
    from pcalib._linalg.units import rescale_squares

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rescale_squares(np.array([2.0**-700]), 700, "x") == 1.0
        assert rescale_squares(np.array([3.0 * 2.0**-600]), 600, "x", 9.0) == 1.0
    with pytest.warns(RuntimeWarning, match="above the float64 range"):
        assert np.isinf(rescale_squares(np.array([1e200]), 0, "x"))
    with pytest.warns(RuntimeWarning, match="below the normal float64 range"):
        assert rescale_squares(np.array([1e-200]), 0, "x") == 0.0


@pytest.mark.parametrize("kind", ["dask", "partial_fit"])
def test_moments_never_square_raw_data_beyond_2_200(monkeypatch, kind):
    """tests/test_every_input_kind.py's offset-1e15 data at 2**900 (entries near 8e285):
    the one-pass moments (Dask chunks, partial_fit batches) first read the rows as they were and squared them (overflow,
    which NumPy 1.26 reported as 'overflow encountered in square' in spite of errstate),
    then read them again scaled. Now every block reaches the Gram product already read
    as 2**-e X, and the moments still match the exact centering (X_int / 8 times 2**900)."""
    from pcalib._linalg import moments as _moments
    seen = []
    original = _moments.shifted_gram

    def recording(block, shift, **kwargs):
        seen.append(float(np.max(np.abs(block))))
        return original(block, shift, **kwargs)

    monkeypatch.setattr(_moments, "shifted_gram", recording)
    X_int = np.random.default_rng(0).integers(-1000, 1000, size=(300, 4))
    X = np.ldexp(1e15 + X_int / 8, 900)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        if kind == "dask":
            fit = PCA(2, solver="eig", standardize=True).fit(da.from_array(X, chunks=(100, 4)))
        else:
            fit = PCA(2, standardize=True)
            for batch in np.split(X, 3):
                fit.partial_fit(batch)
    assert seen and max(seen) < 2.0**200
    Z = (X_int - X_int.mean(axis=0)) / X_int.std(axis=0, ddof=1)
    _, _, Vt = np.linalg.svd(Z, full_matrices=False)
    assert _axis_error(fit.components_, Vt) < 1e-12

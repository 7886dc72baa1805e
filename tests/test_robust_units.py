"""RobustPCA at every scale, offset and integer size, its scikit-learn attributes, and the
behaviours issue 32 asked for (exact fit, wide data).

Issue 31's items for RobustPCA: F01 (spherical PCA at 1e-170 / 1e155 returned no axes and
no outliers), F04 (int64 near 2**62 cast to float64 before centering), F14 (an offset of
1e12 cost the grid and spherical PCA 1e-4..1e-3 relative), F18 (ROBPCA at 1e-170 / 1e160
failed with "zero-size array"), F19 (the grid's wrong message at those scales). The
reference of each is independent of the scaled fit: the same fit of data at scale 1,
whose results scale exactly (a robust fit of c X + b has axes V, center c mu + b and
variances c^2 lambda), or integers small enough to be exact in float64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pcalib import PCA, RobustPCA

METHODS = ["robpca", "grid", "spherical"]


def sample(n: int = 100, p: int = 4, seed: int = 0) -> np.ndarray:
    """Gaussian rows with distinct spreads and 8 rows pushed off the main plane."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * np.geomspace(4.0, 0.5, p)
    X[:8, -1] += 12.0
    return X


def largest_angle(A: np.ndarray, B: np.ndarray) -> float:
    Qa, Qb = np.linalg.qr(A.T)[0], np.linalg.qr(B.T)[0]
    return float(np.arcsin(min(np.linalg.norm(Qa - Qb @ (Qb.T @ Qa), 2), 1.0)))


@pytest.fixture(scope="module")
def reference() -> dict[str, RobustPCA]:
    X = sample()
    return {method: RobustPCA(2, method=method, random_state=0).fit(X) for method in METHODS}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("scale", [1e-170, 1e155, 1e-300, 1e300])
def test_scale_equivariant_at_extreme_scales(reference, method, scale):
    """F01, F18, F19: at 1e-170 and 1e155 spherical PCA returned a model with no axes, and
    ROBPCA and the grid raised ("zero-size array", "robust variance ... is 0"). The fit
    of c X has the axes, flags and score distances of X to round-off, its center times c
    and its variances times c^2 (reported as 0 or inf, with a warning, where c^2
    leaves the float64 range: 1e-300 and 1e300)."""
    ref = reference[method]
    X = sample()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # variances beyond float64 at 1e+-300
        model = RobustPCA(2, method=method, random_state=0).fit(X * scale)
    assert model.components_.shape == (2, 4)
    np.testing.assert_allclose(model.components_, ref.components_, atol=1e-13)
    np.testing.assert_array_equal(model.outliers_, ref.outliers_)
    np.testing.assert_allclose(model.score_distances_, ref.score_distances_, rtol=1e-12)
    np.testing.assert_allclose(model.orthogonal_distances_ / scale, ref.orthogonal_distances_, rtol=1e-12)
    np.testing.assert_allclose(model.center_ / scale, ref.center_, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(model.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-12)
    if 1e-150 < scale < 1e150:
        np.testing.assert_allclose(model.explained_variance_ / scale**2, ref.explained_variance_, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sd, od = model.distances(X * scale)
    np.testing.assert_allclose(sd, ref.score_distances_, rtol=1e-12)
    np.testing.assert_allclose(model.transform(X * scale) / scale, ref.transform(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_an_offset_costs_no_digit(method):
    """F14: at an offset of 1e12 the grid and spherical PCA lost 1e-4..1e-3 relative (their
    spatial median averaged rows of size 1e12). The data X + 1e12 are rounded to
    multiples of 2**-12; the reference fits those very values, shifted back exactly
    (Sterbenz): same axes, flags and variances to round-off."""
    shifted = sample() + 1e12
    back = shifted - 1e12  # exact: both within a factor 2 of 1e12
    model = RobustPCA(2, method=method, random_state=0).fit(shifted)
    ref = RobustPCA(2, method=method, random_state=0).fit(back)
    np.testing.assert_allclose(model.components_, ref.components_, atol=1e-12)
    np.testing.assert_allclose(model.explained_variance_, ref.explained_variance_, rtol=1e-12)
    np.testing.assert_array_equal(model.outliers_, ref.outliers_)
    np.testing.assert_allclose(model.transform(shifted), ref.transform(back), atol=1e-11)


@pytest.mark.parametrize("method", METHODS)
def test_int64_near_2_62_is_read_exactly(method):
    """F04: int64 data near 2**62 were cast to float64 before centering (spacing 1024
    there): every small difference was lost. Read through the exact frame (integers
    offset by their column minima in integer arithmetic), the fit equals that of the
    small integers themselves, exact in float64."""
    rng = np.random.default_rng(4)
    small = rng.integers(-50, 50, size=(60, 3)) * np.array([4, 2, 1])
    small[:5, 2] += 60
    big = small.astype(np.int64) + np.int64(2**62)
    model = RobustPCA(2, method=method, random_state=0).fit(big)
    ref = RobustPCA(2, method=method, random_state=0).fit(small.astype(float))
    np.testing.assert_allclose(model.components_, ref.components_, atol=1e-12)
    np.testing.assert_allclose(model.explained_variance_, ref.explained_variance_, rtol=1e-12)
    np.testing.assert_array_equal(model.outliers_, ref.outliers_)
    np.testing.assert_allclose(model.transform(big), ref.transform(small), atol=1e-9)
    np.testing.assert_allclose(model.distances(big)[1], ref.orthogonal_distances_, rtol=1e-10, atol=1e-12)


# -- scikit-learn's names ------------------------------------------------------------------------


def test_sklearn_attributes():
    """Issue 33: mean_ (the robust center), explained_variance_ratio_, n_components_ and
    n_features_in_. The ratio's denominator is the robust variance along the k axes plus
    the mean squared OD of the rows within the OD cutoff (computed here); on clean
    normal data, 100 samples of 2,000 rows, it estimates lambda_j / tr(Sigma) within 2%
    on average (a little high: the rows beyond the cutoff are left out)."""
    X = sample()
    model = RobustPCA(2, random_state=0).fit(X)
    assert model.mean_ is model.center_ and not np.allclose(model.mean_, X.mean(axis=0), atol=0.05)
    assert (model.n_components_, model.n_features_in_) == (2, 4)
    within = model.orthogonal_distances_ <= model.cutoff_od_
    total = model.explained_variance_.sum() + np.mean(model.orthogonal_distances_[within] ** 2)
    np.testing.assert_allclose(model.explained_variance_ratio_, model.explained_variance_ / total, rtol=1e-12)
    truth = np.array([9.0, 4.0, 1.0, 1.0])
    ratios = []
    for seed in range(100):
        clean = np.random.default_rng(seed).standard_normal((2000, 4)) * np.sqrt(truth)
        ratios.append(RobustPCA(2, method="spherical").fit(clean).explained_variance_ratio_)
    mean_ratio = np.mean(ratios, axis=0)
    np.testing.assert_allclose(mean_ratio, truth[:2] / truth.sum(), rtol=0.02)
    assert np.all(mean_ratio > truth[:2] / truth.sum())


# -- exact fit, the grid's start, wide data ------------------------------------------------------


def test_exact_fit_is_detected_and_flags_only_the_rows_off_it():
    """Regression (issue 32): 80 of 100 rows on a line in 5 dimensions, k = 2 (a line is
    an exact fit in fewer dimensions than k): ROBPCA flagged 38 of the 80 rows, from
    the round-off of a zero eigenvalue. Now it says so; with k = 1 (an exact fit in k
    dimensions) it warns, returns the line, and flags exactly the 20 rows off it."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((100, 5)) * 3.0
    direction = rng.standard_normal(5)
    direction /= np.linalg.norm(direction)
    X[:80] = np.outer(rng.standard_normal(80) * 2.0, direction) + rng.standard_normal(5)
    with pytest.raises(ValueError, match="exact fit: 80 of the 100 rows .* 1-dimensional affine subspace"):
        RobustPCA(2, random_state=0).fit(X)
    with pytest.warns(RuntimeWarning, match="exact fit: 80 of the 100 rows"):
        model = RobustPCA(1, random_state=0).fit(X)
    assert abs(model.components_[0] @ direction) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(np.flatnonzero(model.outliers_), np.arange(80, 100))
    assert model.orthogonal_distances_[:80].max() < 1e-12


def test_grid_searches_the_span_of_the_rows_when_p_exceeds_n():
    """Issue 32: with p = 2000 > n = 40 the grid searched all 2000 coordinates (186 s at
    200 x 2000); it now searches the span of the centered rows (rank 39), where every
    direction of positive scale lies, as pcaPP does. Its axes lie in that span, its
    robust variances are the squared MADs of its projections, and it flags the 5 far
    rows. It is the least precise method here: its subspace is farther from the true one
    than ROBPCA's (sines 0.77 and 0.16; classical PCA's 0.999)."""
    rng = np.random.default_rng(0)
    n, p, k = 40, 2000, 3
    B = np.linalg.qr(rng.standard_normal((p, k)))[0]
    X = (rng.standard_normal((n, k)) * [10.0, 7.0, 5.0]) @ B.T + 0.1 * rng.standard_normal((n, p))
    X[:5] += 40 * np.linalg.qr(rng.standard_normal((p, 1)))[0].T
    model = RobustPCA(k, method="grid").fit(X)
    D = X - model.center_
    span = np.linalg.svd(D, full_matrices=False)[2][: n - 1]
    np.testing.assert_allclose(np.linalg.norm(model.components_ @ span.T, axis=1), 1.0, atol=1e-10)
    P = D @ model.components_.T
    mads = 1.482602218505602 * np.median(np.abs(P - np.median(P, axis=0)), axis=0)
    np.testing.assert_allclose(model.explained_variance_, mads**2, rtol=1e-10)
    assert model.outliers_[:5].all()

    def sine(model_axes: np.ndarray) -> float:
        Q = model_axes.T
        return float(np.linalg.norm(Q - B @ (B.T @ Q), 2))

    robpca = RobustPCA(k, random_state=0).fit(X)
    assert sine(robpca.components_) < 0.25 < sine(model.components_) < 0.95 < sine(PCA(k).fit(X).components_)

"""PCA(tol=...) on the eig route's one-pass scatter (issue 35): the rounding bound of
pcalib._linalg.rounding.scatter_error against exact rational arithmetic, and tol fits on
tall and wide data, which take the exact fit's route, certified against NumPy's SVD."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pcalib import PCA
from pcalib._linalg.rounding import scatter_error
from pcalib._routes import dense, dense_krylov
from pcalib._routes.decomposition import FormedProducts
from pcalib._routes.scatter import scatter_matrix
from tests.numpy_references import exact_scatter, exact_times
from tests.test_certified_tol import _decaying, _sines, _truth, _worst_rounding


def _cases() -> dict[str, tuple[np.ndarray, bool]]:
    """Data for the one-pass branch: means from 0 to many times the spread (shifted by
    the first rows' mean), integers with a large offset, float32, standardized."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal((1500, 5)) @ rng.standard_normal((5, 5)) * np.array([1.0, 3.0, 0.5, 7.0, 2.0])
    return {
        "mean 0": (base, False),
        "mean at the spread": (base + base.std(axis=0) * 0.9, False),
        "mean 1e4 spreads": (base + 1e4 * base.std(axis=0), False),
        "integers 2^40 off": ((base * 1000).astype(np.int64) + 2**40, False),
        "float32": (base.astype(np.float32), False),
        "standardized": (base * np.array([1e3, 1.0, 1e-3, 5.0, 0.2]) + 3.0, True),
    }


@pytest.mark.parametrize("case", list(_cases()))
def test_the_one_pass_scatter_is_within_its_bound_in_exact_arithmetic(case):
    """||C~ - M||_2 (C~ the formed scatter, M exact) is at most the bound's matrix part,
    and a product fl(C~ q) is within its product part of M q, on every kind of data the
    one-pass branch reads; the bounds are not vacuous (the error is not 0) and not
    absurdly loose (within 10^4 of the error)."""
    X, standardize = _cases()[case]
    C, center, scale, _, one_pass = scatter_matrix(X, 1, standardize)
    assert one_pass
    bound = scatter_error(np.diagonal(C).copy(), center.offset, scale, X.shape[0], standardize)
    exact = exact_scatter(X, scale)
    error = np.array([[float(Fraction(float(C[j, l])) - exact[j][l]) for l in range(5)] for j in range(5)])
    measured = np.linalg.norm(error, 2)
    assert 0.0 < measured <= bound.matrix < 1e4 * measured, (measured, bound.matrix)
    products = FormedProducts(np.tril(C), X.shape[0], bound.product)
    rounding = _worst_rounding(products.scatter_times, exact_times(exact), 5, np.random.default_rng(0))
    assert 0.0 < rounding <= bound.product


def test_the_bound_counts_the_mean_about_the_shift():
    """Columns of sum of squares 1 (spread 1/sqrt(n)) about means 0, spread/sqrt(n) (what
    the shift by the first rows' mean leaves) and 1e4 spreads (no shift): the second
    bound is within 10% of the first, the third above 10^4 times it (the products of the
    sums carry u n mean^2 and gamma_n sqrt(n) |mean| times the spread)."""
    n, ones = 1500, np.ones(5)
    at_zero = scatter_error(ones, np.zeros(5), ones, n, False).matrix
    near = scatter_error(ones, np.full(5, 1.0 / n), ones, n, False).matrix
    far = scatter_error(ones, np.full(5, 1e4 / np.sqrt(n)), ones, n, False).matrix
    assert at_zero <= near < 1.1 * at_zero
    assert far > 1e4 * at_zero


@pytest.mark.parametrize(
    "shape, route", [((3000, 200), "eig"), ((120, 3000), "gram")], ids=["tall", "wide"]
)
@pytest.mark.parametrize("tol", [1e-2, 1e-6, 1e-10])
def test_tol_fits_on_tall_and_wide_data_take_the_exact_route_and_certify_it(monkeypatch, shape, route, tol):
    """Tall (n >= 4p) and wide (p >= 4n) data: a tol fit takes the route of the exact fit,
    with no Krylov product, and on the eig route no centered copy (the one-pass scatter,
    its bound from scatter_error); every bound holds against NumPy's SVD, and the
    leading axes are certified far below tol wherever tol is loose."""
    def refused(*args, **kwargs):
        raise AssertionError("not on this route")

    monkeypatch.setattr(dense_krylov, "krylov_top_operator", refused)
    monkeypatch.setattr(dense, "implicitly_centered", refused)
    if route == "eig":
        monkeypatch.setattr(dense, "centered_copy", refused)
    X = _decaying(*shape, seed=5) + 40.0  # a mean 40 times the noise
    k = 5
    ev, Vt = _truth(X, k)
    fit = PCA(k, tol=tol).fit(X)
    assert fit.solver_ == route
    assert np.all(fit.components_bound_ >= _sines(fit.components_, Vt))
    assert np.all(fit.explained_variance_bound_ >= np.abs(fit.explained_variance_ - ev))
    assert fit.components_bound_.max() < 1e-6


@pytest.mark.parametrize("kind", ["constant column", "standardized", "mean 1e6"])
def test_tol_fits_on_the_eig_route_hold_their_bounds(kind):
    """The eig route of a tol fit with constant columns (solved on the others: the
    certificate's probes then bound lambda_{k+1}, through the kept scatter), with
    standardized columns of scales 1e-3 to 1e3, and with a mean of 1e6 over a spread
    near 1 (shifted by the first rows' mean): the bounds hold against NumPy's SVD."""
    X = _decaying(3000, 200, seed=6)
    if kind == "constant column":
        X[:, 7] = 2.5
    if kind == "mean 1e6":
        X = X + 1e6
    standardize = kind == "standardized"
    if standardize:
        X = X * np.logspace(-3, 3, 200)
    k = 5
    Xc = X - X.mean(axis=0)
    if standardize:
        Xc = Xc / X.std(axis=0, ddof=1)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    fit = PCA(k, tol=1e-8, standardize=standardize).fit(X)
    assert fit.solver_ == "eig"
    assert np.all(fit.components_bound_ >= _sines(fit.components_, Vt[:k]))
    assert np.all(fit.explained_variance_bound_ >= np.abs(fit.explained_variance_ - s[:k] ** 2 / 2999))
    assert fit.components_bound_[0] < 1e-6


@pytest.mark.parametrize("shape", [(3000, 200), (120, 3000)], ids=["tall", "wide"])
def test_tol_fits_of_float32_data_bound_the_stored_float32_attributes(shape):
    """float32 input: components_ and explained_variance_ are stored as float32 (a
    rounding of 2^-24, 10^4 times the exact routes' bounds here), and the bounds are
    those of the stored values: they hold against NumPy's float64 SVD of the same
    (exactly converted) entries, and stay near float32's round-off."""
    X = (_decaying(*shape, seed=8) + 40.0).astype(np.float32)
    k = 5
    ev, Vt = _truth(X.astype(np.float64), k)
    fit = PCA(k, tol=1e-8).fit(X)
    assert fit.components_.dtype == np.float32
    assert np.all(fit.components_bound_ >= _sines(fit.components_.astype(np.float64), Vt))
    assert np.all(fit.explained_variance_bound_ >= np.abs(fit.explained_variance_.astype(np.float64) - ev))
    assert fit.components_bound_.max() < 1e-5

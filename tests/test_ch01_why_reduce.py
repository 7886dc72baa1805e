"""Tests of the labelled results of the chapter "Why reduce dimension" (book/01_why_reduce.md).

Each result is checked against a route that does not use the chapter's formula:
slicing integrals (scipy.integrate), exact moments by numerical integration,
closed forms, seeded Monte Carlo and numpy.linalg.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.special import gamma, gammaln

import pcalib

theorem = pytest.mark.theorem


def ball_volume(p):
    """The chapter's formula, omega_p = pi^(p/2) / Gamma(p/2 + 1)."""
    return math.pi ** (p / 2) / gamma(p / 2 + 1)


def log_ball_share(p):
    """log(rho_p) = log(omega_p / 2^p), by the log-gamma function (no overflow for large p)."""
    p = np.asarray(p, dtype=float)
    return (p / 2) * np.log(np.pi) - gammaln(p / 2 + 1) - p * np.log(2)


# -- prop-why-ball-volume -------------------------------------------------------------

@theorem("prop-why-ball-volume")
def test_ball_volume_matches_closed_forms():
    closed_forms = {1: 2.0, 2: math.pi, 3: 4 * math.pi / 3, 4: math.pi**2 / 2,
                    5: 8 * math.pi**2 / 15, 6: math.pi**3 / 6}
    for p, value in closed_forms.items():
        assert ball_volume(p) == pytest.approx(value, rel=1e-14)


@theorem("prop-why-ball-volume")
def test_ball_volume_matches_slicing_integrals():
    # Independent route: slice the ball by the last coordinate y; the slice is a (p-1)-ball
    # of radius sqrt(1 - y^2), so omega_p = omega_{p-1} * int_{-1}^{1} (1 - y^2)^((p-1)/2) dy.
    volume = 2.0                                             # omega_1: the interval [-1, 1]
    for p in range(2, 16):
        factor, _ = integrate.quad(lambda y, p=p: (1 - y * y) ** ((p - 1) / 2), -1, 1, epsabs=1e-14)
        volume *= factor
        assert ball_volume(p) == pytest.approx(volume, rel=1e-10)


@theorem("prop-why-ball-volume")
@pytest.mark.parametrize("p", [2, 3, 4, 6])
def test_ball_volume_matches_monte_carlo(p):
    rng = np.random.default_rng(100 + p)
    n = 400_000
    points = rng.uniform(-1.0, 1.0, size=(n, p))
    hit = np.mean(np.sum(points**2, axis=1) <= 1.0)
    standard_error = 2.0**p * math.sqrt(hit * (1 - hit) / n)
    assert abs(2.0**p * hit - ball_volume(p)) < 4 * standard_error


# -- prop-why-ball-share-vanishes -----------------------------------------------------

@theorem("prop-why-ball-share-vanishes")
def test_share_ratio_bound_and_monotone_decrease():
    p = np.arange(1, 2001)
    log_share = log_ball_share(np.arange(1, 2002))
    log_ratio = np.diff(log_share)                           # log(rho_{p+1} / rho_p), p = 1..2000
    bound = 0.5 * np.log(np.pi / (2 * (p + 1)))
    assert np.all(log_ratio <= bound + 1e-12)
    assert np.all(log_ratio < 0)
    assert log_share[0] == pytest.approx(0.0, abs=1e-15)     # rho_1 = 1


@theorem("prop-why-ball-share-vanishes")
def test_share_two_step_identity_and_limit():
    # rho_{p+1} / rho_{p-1} = pi / (2 (p + 1)), used in the proof, from the plain gamma function
    for p in range(1, 40):
        share = [ball_volume(h) / 2.0**h if h > 0 else 1.0 for h in (p - 1, p, p + 1)]
        assert share[2] / share[0] == pytest.approx(math.pi / (2 * (p + 1)), rel=1e-12)
    # faster than any geometric sequence: log(rho_p / c^p) decreases to -infinity, here c = 0.1
    dims = np.arange(1000, 5001, 500)
    log_quotient = log_ball_share(dims) - dims * math.log(0.1)
    assert np.all(np.diff(log_quotient) < 0) and log_quotient[-1] < -1000


@theorem("prop-why-ball-share-vanishes")
@given(st.floats(0.0, 200.0))
def test_gamma_log_convexity_step_of_the_proof(alpha):
    # Gamma(alpha+1)^2 <= Gamma(alpha+1/2) Gamma(alpha+3/2), the Cauchy-Schwarz step, in logs
    assert 2 * gammaln(alpha + 1) <= gammaln(alpha + 0.5) + gammaln(alpha + 1.5) + 1e-12


# -- prop-why-distance-concentration --------------------------------------------------

@theorem("prop-why-distance-concentration")
def test_distance_moments_by_numerical_integration():
    second, _ = integrate.dblquad(lambda x, y: (x - y) ** 2, 0, 1, 0, 1)   # E[delta^2]
    fourth, _ = integrate.dblquad(lambda x, y: (x - y) ** 4, 0, 1, 0, 1)   # E[delta^4]
    assert second == pytest.approx(1 / 6, rel=1e-10)
    assert fourth - second**2 == pytest.approx(7 / 180, rel=1e-8)


@theorem("prop-why-distance-concentration")
@pytest.mark.parametrize("p", [1, 10, 200])
def test_distance_moments_and_chebyshev_bound_by_simulation(p):
    rng = np.random.default_rng(7 + p)
    n_pairs = 20_000
    delta2 = np.sum((rng.uniform(size=(n_pairs, p)) - rng.uniform(size=(n_pairs, p))) ** 2, axis=1)
    mean, var = p / 6, 7 * p / 180
    assert abs(delta2.mean() - mean) < 5 * math.sqrt(var / n_pairs)
    assert delta2.var(ddof=1) == pytest.approx(var, rel=0.06)
    for eta in (0.2, 0.5):
        frequency = np.mean(np.abs(delta2 / mean - 1) >= eta)
        bound = 7 / (5 * p * eta**2)
        assert frequency <= min(bound, 1.0) + 0.01


# -- prop-why-two-standardized-features -------------------------------------------------

@st.composite
def two_column_data(draw):
    n = draw(st.integers(3, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    mixing = draw(st.floats(-3, 3))
    scales = draw(st.tuples(st.floats(1e-3, 1e3), st.floats(1e-3, 1e3)))
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, 2))
    base[:, 1] += mixing * base[:, 0]
    return base * np.array(scales) + rng.normal(size=2) * 100


@theorem("prop-why-two-standardized-features")
@settings(max_examples=40)
@given(two_column_data())
def test_two_standardized_features_eigenpairs(X):
    R = np.corrcoef(X, rowvar=False)                         # numpy's own correlation route
    r12 = R[0, 1]
    eigenvalues, eigenvectors = np.linalg.eigh(R)            # ascending
    np.testing.assert_allclose(np.sort(eigenvalues), np.sort([1 - r12, 1 + r12]), atol=1e-12)
    np.testing.assert_allclose(R @ [1.0, 1.0], (1 + r12) * np.array([1.0, 1.0]), atol=1e-12)
    np.testing.assert_allclose(R @ [1.0, -1.0], (1 - r12) * np.array([1.0, -1.0]), atol=1e-12)
    if abs(r12) > 0.05:                                      # a well separated pair of eigenvalues
        top = eigenvectors[:, -1]
        expected = np.array([1.0, 1.0 if r12 > 0 else -1.0]) / math.sqrt(2)
        assert abs(abs(top @ expected) - 1) < 1e-10
        # the library's PCA of standardized data agrees (axis up to sign, share (1 + |r12|)/2)
        result = pcalib.pca_svd(pcalib.standardize(X)[0])
        assert abs(abs(result.components[0] @ expected) - 1) < 1e-10
        assert result.explained_variance_ratio[0] == pytest.approx((1 + abs(r12)) / 2, rel=1e-10)

"""Tests of the results of the chapter "Pitfalls and errata".

Each labelled result is checked with hypothesis over random shapes and data, against
routes independent of pcalib: NumPy's SVD and eigensolvers, ``np.cov`` and
``np.corrcoef``, exact rational arithmetic (``fractions``), SciPy's principal angles
and scikit-learn's PCA. Notation as in the book: principal axes v_j (rows of
``components``), left singular vectors u_j, G = X_c X_c^T the Gram matrix.
"""

from fractions import Fraction

import numpy as np
import pytest
import scipy.linalg
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA

import pcalib
from pcalib._linalg.signs import TIE_TOLERANCE, axis_signs

theorem = pytest.mark.theorem

seeds = st.integers(0, 2**32 - 1)
ROUTES = (pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram)


def data(n, p, seed, offset=100.0):
    """Correlated data with distinct feature scales and a large mean."""
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(p, p)) * rng.uniform(0.2, 5.0, size=p)
    return rng.normal(size=(n, p)) @ mixing + rng.normal(scale=offset, size=p)


def eigh_decreasing(A):
    values, vectors = np.linalg.eigh(A)
    return values[::-1], vectors[:, ::-1]


def convention(v, tau=TIE_TOLERANCE):
    """The rule of prop-pitfalls-sign-convention, written out without pcalib:
    the first entry within a relative tau of the largest decides the sign."""
    size = np.abs(v)
    i = next(l for l in range(v.size) if size[l] >= (1 - tau) * size.max())
    return v if v[i] > 0 else -v


# -- prop-pitfalls-score-variance -------------------------------------------------

@theorem("prop-pitfalls-score-variance")
@settings(max_examples=30)
@given(st.integers(2, 40), st.integers(1, 8), seeds)
def test_variance_of_the_scores_is_the_eigenvalue_not_its_square(n, p, seed):
    X = data(n, p, seed)
    m = min(n, p)
    Xc = X - X.mean(axis=0)
    sigma = np.linalg.svd(Xc, compute_uv=False)[:m]
    S = np.cov(X, rowvar=False).reshape(p, p)
    lam, V = eigh_decreasing(S)
    tol = 1e-9 * max(lam[0], 1e-300)
    np.testing.assert_allclose(sigma**2 / (n - 1), lam[:m], atol=tol)
    # NumPy's own scores X_c v_j: mean 0, variance lambda_j, variances summing to tr S
    scores = Xc @ V
    np.testing.assert_allclose(scores.mean(axis=0), 0.0, atol=1e-9 * np.sqrt(lam[0]))
    np.testing.assert_allclose(scores.var(axis=0, ddof=1), lam, atol=tol)
    np.testing.assert_allclose(scores.var(axis=0, ddof=1).sum(), np.trace(S), atol=tol * p)
    if lam[0] < 1e-8:
        return
    result = pcalib.pca_svd(X)
    np.testing.assert_allclose(result.scores.var(axis=0, ddof=1), lam[:m], atol=tol)
    np.testing.assert_allclose(result.explained_variance, lam[:m], atol=tol)


@theorem("prop-pitfalls-score-variance")
def test_score_variance_agrees_with_scikit_learn_and_squares_inflate_the_first_share():
    X = data(200, 5, seed=1)
    sk = SklearnPCA().fit(X)
    scores = sk.transform(X)
    np.testing.assert_allclose(scores.var(axis=0, ddof=1), sk.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(pcalib.pca_eig(X).explained_variance, sk.explained_variance_,
                               rtol=1e-10)
    # the unit-free consequence of squaring: lambda_1^2 / sum lambda_j^2 >= lambda_1 / tr S,
    # strictly unless every eigenvalue is 0 or lambda_1
    lam = sk.explained_variance_
    assert lam[0] ** 2 / np.sum(lam**2) > lam[0] / lam.sum()
    equal = np.array([3.0, 3.0, 0.0])
    assert equal[0] ** 2 / np.sum(equal**2) == equal[0] / equal.sum()


# -- prop-pitfalls-gram -----------------------------------------------------------

@theorem("prop-pitfalls-gram")
@settings(max_examples=40)
@given(st.integers(2, 15), st.integers(1, 15), seeds)
def test_gram_matrix_has_the_covariance_spectrum_and_gives_the_axes(n, p, seed):
    X = data(n, p, seed)
    Xc = X - X.mean(axis=0)
    g, U = eigh_decreasing(Xc @ Xc.T)                          # n x n
    lam = eigh_decreasing(np.cov(X, rowvar=False).reshape(p, p))[0]
    # the rank, up to the round-off of centering data with a large mean
    sigma_all = np.linalg.svd(Xc, compute_uv=False)
    assume(sigma_all[0] > 0)
    r = int(np.sum(sigma_all > 1e-8 * sigma_all[0]))
    tol = 1e-10 * g[0]
    np.testing.assert_allclose(g[:r], (n - 1) * lam[:r], rtol=0, atol=tol)
    np.testing.assert_allclose(g[r:], 0.0, atol=tol)            # n - r zeros
    np.testing.assert_allclose(lam[r:], 0.0, atol=tol)          # p - r zeros
    sigma = np.sqrt(g[:r])
    V = Xc.T @ U[:, :r] / sigma                                 # eq-pitfalls-gram-axis
    S = np.cov(X, rowvar=False).reshape(p, p)
    np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1.0, atol=1e-8)
    np.testing.assert_allclose(S @ V, V * (sigma**2 / (n - 1)), atol=1e-9 * lam[0])
    np.testing.assert_allclose(Xc @ V, U[:, :r] * sigma, atol=1e-9 * sigma[0])
    # pcalib's Gram route returns these axes (up to sign) where eigenvalues are simple
    gaps = -np.diff(np.append(lam[:r], 0.0))
    if np.all(gaps > 1e-3 * lam[0]):
        axes = pcalib.pca_gram(X, k=r).components
        np.testing.assert_allclose(np.abs(np.sum(axes * V.T, axis=1)), 1.0, atol=1e-6)


@theorem("prop-pitfalls-gram")
@given(seeds, st.floats(0.0, 2 * np.pi))
def test_gram_recovery_works_for_any_eigenvector_of_a_repeated_eigenvalue(seed, angle):
    # X_c with singular values (2, 2, 1): the eigenspace of G for 4 is a plane, and the
    # proposition holds for every unit vector of it, not only for the SVD's u_1, u_2.
    rng = np.random.default_rng(seed)
    n, p = 8, 5
    U = np.linalg.qr(np.column_stack([np.ones(n), rng.normal(size=(n, 3))]))[0][:, 1:]
    V = np.linalg.qr(rng.normal(size=(p, 3)))[0]
    Xc = (U * [2.0, 2.0, 1.0]) @ V.T                          # centered: U is orthogonal to 1
    np.testing.assert_allclose(Xc.sum(axis=0), 0.0, atol=1e-12)
    u = np.cos(angle) * U[:, 0] + np.sin(angle) * U[:, 1]     # a unit eigenvector of G for 4
    np.testing.assert_allclose(Xc @ Xc.T @ u, 4.0 * u, atol=1e-12)
    v = Xc.T @ u / 2.0
    S = Xc.T @ Xc / (n - 1)
    np.testing.assert_allclose(np.linalg.norm(v), 1.0, atol=1e-12)
    np.testing.assert_allclose(S @ v, 4.0 / (n - 1) * v, atol=1e-12)
    np.testing.assert_allclose(Xc @ v, 2.0 * u, atol=1e-12)


# -- prop-pitfalls-explained-ratio ------------------------------------------------

@theorem("prop-pitfalls-explained-ratio")
@settings(max_examples=30)
@given(st.integers(2, 40), st.integers(1, 8), seeds)
def test_explained_ratio_divides_by_the_trace(n, p, seed):
    X = data(n, p, seed)
    S = np.cov(X, rowvar=False).reshape(p, p)
    lam = np.clip(np.linalg.eigvalsh(S)[::-1], 0.0, None)
    trace = np.trace(S)
    if trace < 1e-8:
        return
    r = np.cumsum(lam) / trace
    assert np.all(np.diff(r) >= -1e-12)
    np.testing.assert_allclose(r[-1], 1.0, rtol=1e-10)
    assert np.all(r >= np.arange(1, p + 1) / p - 1e-10)
    # r_k = 1 exactly from k = rank(S) on
    rank = int(np.sum(lam > 1e-9 * lam[0]))          # rank up to round-off (n <= p gives n - 1)
    assert rank <= min(n - 1, p)
    np.testing.assert_allclose(r[rank - 1:], 1.0, atol=1e-9)
    if rank > 1:
        assert r[rank - 2] < 1 - 1e-9
    # pcalib, asked for fewer components, still divides by the whole trace
    k = max(1, min(n, p) - 1)
    result = pcalib.pca_svd(X, k=k)
    np.testing.assert_allclose(np.cumsum(result.explained_variance_ratio), r[:k], atol=1e-9)
    np.testing.assert_allclose(pcalib.total_variance(X), trace, rtol=1e-9)


@theorem("prop-pitfalls-explained-ratio")
@pytest.mark.parametrize("k", [1, 3, 6])
def test_explained_ratio_agrees_with_scikit_learn_for_truncated_solvers(k):
    X = data(300, 8, seed=2)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    for route in ROUTES:
        np.testing.assert_allclose(route(X, k=k).explained_variance_ratio,
                                   sk.explained_variance_ratio_, rtol=1e-10)


@theorem("prop-pitfalls-explained-ratio")
def test_rank_one_data_explain_everything_with_one_component():
    rng = np.random.default_rng(3)
    X = np.outer(rng.normal(size=50), [1.0, -2.0, 0.5]) + [1.0, 2.0, 3.0]
    np.testing.assert_allclose(pcalib.pca_svd(X, k=1).explained_variance_ratio, [1.0],
                               rtol=1e-12)


# -- prop-pitfalls-unsquared-ratio ------------------------------------------------

def _ratios(sigma):
    """Exact r_k and r~_k of prop-pitfalls-unsquared-ratio, in rational arithmetic."""
    squares = [s * s for s in sigma]
    r = [sum(squares[:k]) / sum(squares) for k in range(1, len(sigma) + 1)]
    r_tilde = [sum(sigma[:k]) / sum(sigma) for k in range(1, len(sigma) + 1)]
    return r, r_tilde


def _smallest_k(ratios, t):
    return next(k for k, value in enumerate(ratios, start=1) if value >= t)


@theorem("prop-pitfalls-unsquared-ratio")
@given(st.lists(st.integers(0, 6), min_size=1, max_size=9))
def test_unsquared_ratio_never_exceeds_the_right_one_exactly(values):
    sigma = [Fraction(v) for v in sorted(values, reverse=True)]
    assume(sigma[0] > 0)
    r, r_tilde = _ratios(sigma)
    nonzero = {s for s in sigma if s > 0}
    for k in range(1, len(sigma) + 1):
        assert r_tilde[k - 1] <= r[k - 1]
        tail_zero = k == len(sigma) or sigma[k] == 0
        equal = tail_zero or len(nonzero) == 1
        assert (r_tilde[k - 1] == r[k - 1]) == equal           # the equality case, both ways
    for t in (Fraction(1, 2), Fraction(8, 10), Fraction(9, 10), Fraction(1)):
        assert _smallest_k(r_tilde, t) >= _smallest_k(r, t)


@theorem("prop-pitfalls-unsquared-ratio")
@settings(max_examples=30)
@given(st.integers(2, 40), st.integers(1, 8), seeds)
def test_squared_singular_values_give_scikit_learns_ratio(n, p, seed):
    X = data(n, p, seed)
    sigma = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    assume(sigma[0] > 1e-6)
    r = np.cumsum(sigma**2) / np.sum(sigma**2)               # tr(Sigma_k^2) / tr(Sigma^2)
    r_tilde = np.cumsum(sigma) / np.sum(sigma)
    sk = SklearnPCA(svd_solver="full").fit(X)
    np.testing.assert_allclose(r, np.cumsum(sk.explained_variance_ratio_)[: r.size], atol=1e-9)
    assert np.all(r_tilde <= r + 1e-12)


# -- prop-pitfalls-divisor --------------------------------------------------------

@theorem("prop-pitfalls-divisor")
@settings(max_examples=30)
@given(st.integers(2, 30), st.integers(1, 6), seeds)
def test_divisor_n_scales_eigenvalues_by_n_minus_one_over_n(n, p, seed):
    X = data(n, p, seed)
    S = np.cov(X, rowvar=False).reshape(p, p)
    S_n = np.cov(X, rowvar=False, bias=True).reshape(p, p)
    lam, lam_n = np.linalg.eigvalsh(S)[::-1], np.linalg.eigvalsh(S_n)[::-1]
    tol = 1e-9 * max(lam[0], 1e-300)
    np.testing.assert_allclose(lam_n, (n - 1) / n * lam, atol=tol)
    if lam[0] < 1e-8:
        return
    m = min(n, p)
    np.testing.assert_allclose(pcalib.pca_svd(X, ddof=0).explained_variance, lam_n[:m], atol=tol)
    np.testing.assert_allclose(pcalib.pca_svd(X).explained_variance, lam[:m], atol=tol)
    np.testing.assert_allclose(np.cumsum(lam_n) / np.trace(S_n), np.cumsum(lam) / np.trace(S),
                               atol=1e-10)


@theorem("prop-pitfalls-divisor")
@settings(max_examples=30)
@given(st.integers(2, 30), st.integers(1, 6), st.data())
def test_mean_squared_reconstruction_error_has_a_genuine_n(n, p, draw):
    seed = draw.draw(seeds)
    X = data(n, p, seed)
    Xc = X - X.mean(axis=0)
    _, sigma, Vt = np.linalg.svd(Xc, full_matrices=False)
    if sigma[0] < 1e-6:
        return
    k = draw.draw(st.integers(0, min(n, p)))
    V_k = Vt[:k].T
    mse = np.sum((Xc - Xc @ V_k @ V_k.T) ** 2) / n                     # mean over the samples
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False).reshape(p, p))[::-1]
    scale = max(sigma[0] ** 2 / n, 1e-300)
    np.testing.assert_allclose(mse, np.sum(sigma[k:] ** 2) / n, atol=1e-9 * scale)
    np.testing.assert_allclose(mse, (n - 1) / n * np.sum(lam[k:]), atol=1e-9 * scale)
    if k > 0:
        np.testing.assert_allclose(pcalib.reconstruction_error(X, k), mse, atol=1e-9 * scale)


@theorem("prop-pitfalls-divisor")
def test_reconstruction_error_agrees_with_scikit_learn_inverse_transform():
    X = data(40, 6, seed=4)
    full = SklearnPCA().fit(X).explained_variance_
    for k in (1, 3, 5):
        sk = SklearnPCA(n_components=k).fit(X)
        residual = X - sk.inverse_transform(sk.transform(X))
        mse = np.mean(np.sum(residual**2, axis=1))
        np.testing.assert_allclose(pcalib.reconstruction_error(X, k), mse, rtol=1e-9)
        np.testing.assert_allclose(full[k:].sum() / mse, 40 / 39, rtol=1e-9)   # the overstatement


# -- prop-pitfalls-standardized-pca -----------------------------------------------

@theorem("prop-pitfalls-standardized-pca")
@settings(max_examples=30)
@given(st.integers(3, 40), st.integers(1, 6), seeds)
def test_pca_of_standardized_data_diagonalizes_the_correlation_matrix(n, p, seed):
    X = data(n, p, seed)
    if np.any(X.std(axis=0) < 1e-6):
        return
    R = np.corrcoef(X, rowvar=False).reshape(p, p)                     # independent route
    Xs, mean, scale = pcalib.standardize(X)
    np.testing.assert_allclose(Xs.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(np.cov(Xs, rowvar=False).reshape(p, p), R, atol=1e-10)
    np.testing.assert_allclose(pcalib.total_variance(Xs), p, rtol=1e-10)
    np.testing.assert_allclose(Xs.var(axis=0, ddof=1), 1.0, rtol=1e-10)
    m = min(n, p)
    result = pcalib.pca_eig(Xs)
    lam_R = np.linalg.eigvalsh(R)[::-1][:m]
    np.testing.assert_allclose(result.explained_variance, lam_R, atol=1e-9 * p)
    V = result.components.T
    np.testing.assert_allclose(R @ V, V * result.explained_variance, atol=1e-8 * p)


@theorem("prop-pitfalls-standardized-pca")
@given(st.integers(5, 40), st.integers(2, 6), seeds, st.floats(0.1, 10.0))
def test_equal_scales_leave_the_axes_unchanged(n, p, seed, c):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p))
    X = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1) * c + rng.normal(size=p)  # every s_l = c
    raw, std = pcalib.pca_eig(X), pcalib.pca_eig(pcalib.standardize(X)[0])
    np.testing.assert_allclose(std.explained_variance, raw.explained_variance / c**2,
                               atol=1e-9 * p)
    # R = S / c^2: the same axes, with the same signs (ties such as (1, -1) are decided by
    # the first index, not by round-off), wherever the eigenvalues are simple
    lam = raw.explained_variance
    gaps = -np.diff(np.append(lam, 0.0))
    simple = np.ones(lam.size, bool)
    simple[1:] &= gaps[:-1] > 1e-3 * lam[0]
    simple &= gaps > 1e-3 * lam[0]
    np.testing.assert_allclose(std.components[simple], raw.components[simple], atol=1e-7)


@theorem("prop-pitfalls-standardized-pca")
def test_unequal_scales_change_the_axes_and_constant_columns_raise():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(500, 2)) @ np.array([[10.0, 0.0], [1.0, 1.0]])
    std = pcalib.pca_eig(pcalib.standardize(X)[0])
    # two standardized features: the axes of R are (1, 1)/sqrt 2 and (1, -1)/sqrt 2
    rho = np.corrcoef(X, rowvar=False)[0, 1]
    half = np.sqrt(0.5)
    np.testing.assert_allclose(std.components, [[half, half], [half, -half]], atol=1e-12)
    np.testing.assert_allclose(std.explained_variance, [1 + rho, 1 - rho], rtol=1e-12)
    # the raw first axis is that of the population covariance M^T M = [[101, 1], [1, 1]]
    # (to sampling error), about 44 degrees away from the standardized one
    raw_axis = pcalib.pca_eig(X).components[0]
    population_axis = eigh_decreasing(np.array([[101.0, 1.0], [1.0, 1.0]]))[1][:, 0]
    np.testing.assert_allclose(abs(raw_axis @ population_axis), 1.0, atol=1e-4)
    np.testing.assert_allclose(abs(raw_axis @ std.components[0]),
                               abs(population_axis @ [half, half]), atol=0.01)
    with pytest.raises(ValueError, match=r"zero variance in column\(s\) \[1\]"):
        pcalib.standardize(np.column_stack([X[:, 0], np.zeros(500), X[:, 1]]))


# -- prop-pitfalls-sign-convention ------------------------------------------------

vectors = st.lists(st.sampled_from([0.0, 1.0, -1.0, 0.5, -2.0, 3.0, -3.0, 1e-17]),
                   min_size=1, max_size=8)


@theorem("prop-pitfalls-sign-convention")
@given(vectors)
def test_axis_signs_applies_the_convention_of_the_proposition(entries):
    v = np.array(entries)
    assume(np.any(v))
    flipped = axis_signs(np.array([v, -v]))
    np.testing.assert_array_equal(flipped[0] * v, convention(v))          # the rule
    np.testing.assert_array_equal(flipped[1] * -v, flipped[0] * v)        # c(-v) = c(v)
    assert set(flipped.tolist()) <= {1.0, -1.0}                           # never 0
    pivot = next(x for x in np.abs(v) if x >= (1 - TIE_TOLERANCE) * np.abs(v).max())
    assert pivot >= (1 - TIE_TOLERANCE) * np.linalg.norm(v) / np.sqrt(v.size) * (1 - 1e-15)
    # np.sign, by contrast, wipes a vector whose first entry is 0
    if v[0] == 0:
        assert not np.any(v * np.sign(v[0]))


@theorem("prop-pitfalls-sign-convention")
@settings(max_examples=200)
@given(st.integers(1, 8), seeds, st.floats(1e-8, 1.0, exclude_max=True))
def test_the_flip_is_stable_under_perturbations_away_from_the_threshold(p, seed, fraction):
    # Part 3: if no |v_l| lies within 2 delta of (1 - tau) max|v|, a perturbation of at
    # most delta per entry changes neither the pivot nor the flip. The largest entry
    # lies tau max|v| from the threshold, so the premise needs delta < tau max|v| / 2
    # (as the chapter says): delta is drawn as a fraction of that bound, up to the
    # bound itself. (Drawn in [1e-16, 1e-3], 91% of the draws failed the premise and
    # were discarded: 2,329 draws for 200 examples.)
    rng = np.random.default_rng(seed)
    v = rng.normal(size=p)
    delta = fraction * TIE_TOLERANCE * np.abs(v).max() / 2
    e = rng.uniform(-delta, delta, size=p)
    threshold = (1 - TIE_TOLERANCE) * np.abs(v).max()
    assume(np.all(np.abs(np.abs(v) - threshold) > 2 * delta))
    signs = axis_signs(np.array([v, v + e]))
    assert signs[0] == signs[1]


@theorem("prop-pitfalls-sign-convention")
@given(st.integers(2, 8), st.data())
def test_exact_ties_are_decided_by_the_first_index_whatever_the_round_off(p, draw):
    # An exact tie |v_a| = |v_b| with opposite signs, perturbed by a few ulps: tau = 0
    # flips by the last bit, pcalib's tau = sqrt(eps) always by the first tied entry.
    a, b = sorted(draw.draw(st.lists(st.integers(0, p - 1), min_size=2, max_size=2,
                                     unique=True)))
    v = np.zeros(p)
    v[a], v[b] = np.sqrt(0.5), -np.sqrt(0.5)
    for ulps in range(-3, 4):
        w = v.copy()
        w[b] = -np.sqrt(0.5) - ulps * np.spacing(np.sqrt(0.5))
        assert axis_signs(w[None, :])[0] == 1.0                 # v_a > 0 decides
        naive = convention(w, tau=0.0)
        assert naive[a] == (np.sqrt(0.5) if ulps <= 0 else -np.sqrt(0.5))


@theorem("prop-pitfalls-sign-convention")
@settings(max_examples=40)
@given(st.integers(3, 60), seeds, st.floats(-0.95, 0.95))
def test_standardized_two_feature_data_get_the_same_axes_from_every_route(n, seed, rho):
    rng = np.random.default_rng(seed)
    pair = rng.normal(size=(n, 2)) @ np.linalg.cholesky([[1.0, rho], [rho, 1.0]]).T
    r_sample = np.corrcoef(pair, rowvar=False)[0, 1]
    assume(abs(r_sample) > 1e-6)                                # distinct eigenvalues
    Xs = pcalib.standardize(pair)[0]
    half = np.sqrt(0.5)
    first = [half, half] if r_sample > 0 else [half, -half]
    second = [half, -half] if r_sample > 0 else [half, half]
    for route in ROUTES:
        np.testing.assert_allclose(route(Xs).components, [first, second], atol=1e-12)


@theorem("prop-pitfalls-sign-convention")
@settings(max_examples=30)
@given(st.integers(3, 40), st.integers(1, 6), seeds)
def test_pcalib_axes_follow_the_convention_and_match_other_tools(n, p, seed):
    X = data(n, p, seed)
    Xc = X - X.mean(axis=0)
    k = min(n - 1, p)
    sigma = np.linalg.svd(Xc, compute_uv=False)                     # descending
    # compare only axes with well separated singular values (simple eigenvalues)
    if sigma[0] < 1e-6 or np.any(-np.diff(sigma)[:k] <= 1e-3 * sigma[0]):
        return
    numpy_axes = np.array([convention(v) for v in np.linalg.svd(Xc, full_matrices=False)[2][:k]])
    for route in ROUTES:
        C = route(X, k=k).components
        np.testing.assert_allclose(np.linalg.norm(C, axis=1), 1.0, atol=1e-10)
        np.testing.assert_allclose(C, numpy_axes, atol=1e-6)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X).components_
    np.testing.assert_allclose(np.array([convention(v) for v in sk]), numpy_axes, atol=1e-6)


# -- pitfall 12: a randomized SVD without power iterations ------------------------

def test_randomized_svd_without_steps_misses_the_subspace_of_a_flat_spectrum():
    rng = np.random.default_rng(12)
    n, p, k = 600, 250, 5
    sigma = np.concatenate([np.linspace(2.0, 1.8, k), np.linspace(1.5, 1.0, p - k)])
    left = np.linalg.qr(rng.normal(size=(n, p)))[0]
    axes = np.linalg.qr(rng.normal(size=(p, p)))[0]
    A = (left * sigma) @ axes.T

    def sine(Vt):
        return np.sin(scipy.linalg.subspace_angles(axes[:, :k], Vt.T).max())

    wrong = sine(pcalib.randomized_svd(A, k, n_iter=0, random_state=0)[2])
    right = sine(pcalib.randomized_svd(A, k, random_state=0)[2])
    assert wrong > 0.9 and right < 1e-3
    # the Frobenius error of the q = 0 result stays within a few percent of the optimum
    U, s, Vt = pcalib.randomized_svd(A, k, n_iter=0, random_state=0)
    best = np.sqrt(np.sum(sigma[k:] ** 2))
    assert np.linalg.norm(A - (U * s) @ Vt) < 1.05 * best

"""Tests of the results of the chapter "Pitfalls and errata".

Each labelled result is checked with hypothesis over random shapes and data, against
routes independent of pcalib: NumPy's SVD and eigensolvers, ``np.cov`` and
``np.corrcoef``, and scikit-learn's PCA.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA

import pcalib

theorem = pytest.mark.theorem

seeds = st.integers(0, 2**32 - 1)


def data(n, p, seed, offset=100.0):
    """Correlated data with distinct feature scales and a large mean."""
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(p, p)) * rng.uniform(0.2, 5.0, size=p)
    return rng.normal(size=(n, p)) @ mixing + rng.normal(scale=offset, size=p)


def convention(v):
    """The largest-entry sign convention, written out independently of pcalib."""
    i = int(np.argmax(np.abs(v)))      # first index on ties
    return v if v[i] > 0 else -v


# -- prop-pitfalls-score-variance -------------------------------------------------

@theorem("prop-pitfalls-score-variance")
@settings(max_examples=30)
@given(st.integers(2, 40), st.integers(1, 8), seeds)
def test_variance_of_the_scores_is_the_eigenvalue_not_its_square(n, p, seed):
    X = data(n, p, seed)
    k = min(n, p)
    Xc = X - X.mean(axis=0)
    sigma = np.linalg.svd(Xc, compute_uv=False)[:k]
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False).reshape(p, p))[::-1][:k]
    tol = 1e-9 * max(lam[0], 1e-300)
    np.testing.assert_allclose(sigma**2 / (n - 1), lam, atol=tol)
    if lam[0] < 1e-8:
        return
    result = pcalib.pca_svd(X)
    np.testing.assert_allclose(result.scores.mean(axis=0), 0.0, atol=1e-9 * np.sqrt(lam[0]))
    np.testing.assert_allclose(result.scores.var(axis=0, ddof=1), lam, atol=tol)
    np.testing.assert_allclose(result.explained_variance, lam, atol=tol)
    # the variances of all score vectors add up to the trace
    if n > p:
        np.testing.assert_allclose(result.scores.var(axis=0, ddof=1).sum(), np.trace(np.cov(X, rowvar=False).reshape(p, p)), rtol=1e-9)


@theorem("prop-pitfalls-score-variance")
def test_score_variance_agrees_with_scikit_learn_and_differs_from_its_square():
    X = data(200, 5, seed=1)
    sk = SklearnPCA().fit(X)
    scores = sk.transform(X)
    np.testing.assert_allclose(scores.var(axis=0, ddof=1), sk.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(pcalib.pca_eig(X).explained_variance, sk.explained_variance_, rtol=1e-10)
    lam = sk.explained_variance_
    assert not np.allclose(lam**2, lam, rtol=0.01)            # lambda^2 is a different number


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
    np.testing.assert_allclose(np.cumsum(lam) / np.cumsum(lam), 1.0)       # the wrong ratio
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
    for route in (pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram):
        np.testing.assert_allclose(route(X, k=k).explained_variance_ratio, sk.explained_variance_ratio_, rtol=1e-10)
    assert sk.explained_variance_ratio_.sum() < 1.0


@theorem("prop-pitfalls-explained-ratio")
def test_rank_one_data_explain_everything_with_one_component():
    rng = np.random.default_rng(3)
    X = np.outer(rng.normal(size=50), [1.0, -2.0, 0.5]) + [1.0, 2.0, 3.0]
    np.testing.assert_allclose(pcalib.pca_svd(X, k=1).explained_variance_ratio, [1.0], rtol=1e-12)


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
    k = min(n, p)
    np.testing.assert_allclose(pcalib.pca_svd(X, ddof=0).explained_variance, lam_n[:k], atol=tol)
    np.testing.assert_allclose(pcalib.pca_svd(X).explained_variance, lam[:k], atol=tol)
    np.testing.assert_allclose(
        pcalib.pca_svd(X, ddof=0).explained_variance_ratio, pcalib.pca_svd(X).explained_variance_ratio, atol=1e-10
    )


@theorem("prop-pitfalls-divisor")
@settings(max_examples=30)
@given(st.integers(2, 30), st.integers(1, 6), st.data())
def test_mean_squared_reconstruction_error_has_a_genuine_n(n, p, draw):
    seed = draw.draw(seeds)
    X = data(n, p, seed)
    Xc = X - X.mean(axis=0)
    U, sigma, Vt = np.linalg.svd(Xc, full_matrices=False)
    if sigma[0] < 1e-6:
        return
    k = draw.draw(st.integers(0, min(n, p)))
    W = Vt[:k].T
    mse = np.sum((Xc - Xc @ W @ W.T) ** 2) / n                         # mean over the samples
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False).reshape(p, p))[::-1]
    scale = max(sigma[0] ** 2 / n, 1e-300)
    np.testing.assert_allclose(mse, np.sum(sigma[k:] ** 2) / n, atol=1e-9 * scale)
    np.testing.assert_allclose(mse, (n - 1) / n * np.sum(lam[k:]), atol=1e-9 * scale)
    np.testing.assert_allclose(pcalib.reconstruction_error(X, k), mse, atol=1e-9 * scale)


@theorem("prop-pitfalls-divisor")
def test_reconstruction_error_agrees_with_scikit_learn_inverse_transform():
    X = data(40, 6, seed=4)
    for k in (1, 3, 5):
        sk = SklearnPCA(n_components=k).fit(X)
        residual = X - sk.inverse_transform(sk.transform(X))
        mse = np.mean(np.sum(residual**2, axis=1))
        np.testing.assert_allclose(pcalib.reconstruction_error(X, k), mse, rtol=1e-9)
        full = SklearnPCA().fit(X).explained_variance_
        assert not np.isclose(mse, full[k:].sum(), rtol=1e-3)         # the wrong formula
        np.testing.assert_allclose(mse, 39 / 40 * full[k:].sum(), rtol=1e-9)


# -- prop-pitfalls-standardized-pca ---------------------------------------------------

@theorem("prop-pitfalls-standardized-pca")
@settings(max_examples=30)
@given(st.integers(3, 40), st.integers(1, 6), seeds)
def test_pca_of_standardized_data_diagonalizes_the_correlation_matrix(n, p, seed):
    X = data(n, p, seed)
    if np.any(X.std(axis=0) < 1e-6):
        return
    R = np.corrcoef(X, rowvar=False).reshape(p, p)                     # independent route
    Z, mean, scale = pcalib.standardize(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(np.cov(Z, rowvar=False).reshape(p, p), R, atol=1e-10)
    np.testing.assert_allclose(pcalib.total_variance(Z), p, rtol=1e-10)
    np.testing.assert_allclose(Z.var(axis=0, ddof=1), 1.0, rtol=1e-10)
    k = min(n, p)
    result = pcalib.pca_eig(Z)
    lam_R = np.linalg.eigvalsh(R)[::-1][:k]
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
    np.testing.assert_allclose(std.explained_variance, raw.explained_variance / c**2, atol=1e-9 * p)
    # same axes up to sign (equal variances can tie entries, e.g. (1, 1) and (1, -1),
    # where the sign convention's pivot is decided by round-off), and same projectors
    gaps = np.abs(np.diff(raw.explained_variance))
    if gaps.size and np.min(gaps) > 1e-3 * raw.explained_variance[0]:
        np.testing.assert_allclose(np.abs(np.sum(std.components * raw.components, axis=1)), 1.0, atol=1e-8)
    k = raw.components.shape[0]
    for j in range(1, k + 1):
        if j == k or gaps[j - 1] > 1e-3 * raw.explained_variance[0]:
            A, B = raw.components[:j], std.components[:j]
            np.testing.assert_allclose(A.T @ A, B.T @ B, atol=1e-8)


@theorem("prop-pitfalls-standardized-pca")
def test_unequal_scales_change_the_axes_and_constant_columns_raise():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(500, 2)) @ np.array([[10.0, 0.0], [1.0, 1.0]])
    raw, std = pcalib.pca_eig(X), pcalib.pca_eig(pcalib.standardize(X)[0])
    assert abs(raw.components[0] @ std.components[0]) < 0.9
    with pytest.raises(ValueError, match=r"zero variance in column\(s\) \[1\]"):
        pcalib.standardize(np.column_stack([X[:, 0], np.zeros(500), X[:, 1]]))


# -- prop-pitfalls-sign-convention ------------------------------------------------------

vectors = st.lists(st.sampled_from([0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1e-17]), min_size=1, max_size=8)


@theorem("prop-pitfalls-sign-convention")
@given(vectors)
def test_convention_is_sign_invariant_and_never_zero(entries):
    v = np.array(entries)
    if not np.any(v):
        return
    c_v, c_minus_v = convention(v), convention(-v)
    np.testing.assert_array_equal(c_v, c_minus_v)
    assert np.linalg.norm(c_v) == np.linalg.norm(v)
    assert np.max(np.abs(v)) >= np.linalg.norm(v) / np.sqrt(v.size) * (1 - 1e-15)
    # and np.sign does wipe a vector whose first entry is 0
    if v[0] == 0:
        assert not np.any(v * np.sign(v[0]))


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
    for route in (pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram):
        C = route(X, k=k).components
        np.testing.assert_allclose(np.linalg.norm(C, axis=1), 1.0, atol=1e-10)
        np.testing.assert_allclose(C, numpy_axes, atol=1e-6)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X).components_
    np.testing.assert_allclose(np.array([convention(v) for v in sk]), numpy_axes, atol=1e-6)

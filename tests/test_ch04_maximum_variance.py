"""The results of the chapter "Maximum variance", checked against independent routes.

Notation as in the book: S is the sample covariance, lambda_1 >= ... >= lambda_p its
eigenvalues, v_j the principal axes (unit eigenvectors), w a candidate unit vector,
t_j = X_c v_j the scores, V_k = [v_1 ... v_k], T = X_c V_k.

References used here and never the code under test: numpy.linalg.eigh / eigvalsh of
np.cov written out in the tests, scipy.optimize (SLSQP) solving the constrained
maximization without knowing about eigenvectors, finite differences on the sphere,
scikit-learn's PCA, and the standard deviations R prints for prcomp(iris[, 1:4]).
"""

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from shared_strategies import seeded_data
from sklearn.decomposition import PCA as SklearnPCA

import pcalib

theorem = pytest.mark.theorem
ROUTES = (pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram)


def covariance(X):
    """np.cov of the columns, always p x p (np.cov returns a scalar for p = 1)."""
    return np.cov(X, rowvar=False).reshape(X.shape[1], X.shape[1])


def unit_trace_covariance(X):
    """np.cov of the columns over its trace: scale 1, so tolerances are absolute."""
    S = covariance(X)
    return S / np.trace(S)


def reference_eigh(X):
    """Eigenpairs (lambda_j, v_j) of np.cov(X) in decreasing order, with the book's sign
    convention: the entry of largest absolute value of each v_j is positive."""
    values, vectors = np.linalg.eigh(covariance(X))
    values, vectors = values[::-1], vectors[:, ::-1]
    pivots = vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])]
    return values, vectors * np.where(pivots < 0, -1.0, 1.0)


def separated(values, j, rel=1e-3):
    """True if eigenvalue j is separated from its neighbours by rel * lambda_1."""
    gaps = [abs(values[j] - values[i]) for i in (j - 1, j + 1) if 0 <= i < len(values)]
    return values[0] > 0 and all(g > rel * values[0] for g in gaps)


def unit_vectors(rng, count, p):
    """`count` random unit vectors of R^p, as rows."""
    w = rng.normal(size=(count, p))
    return w / np.linalg.norm(w, axis=1, keepdims=True)


def quadratic_forms(W, S):
    """w^T S w for every row w of W."""
    return np.einsum("ij,jk,ik->i", W, S, W)


def nearby_unit_vectors(rng, w, count=500, radius=1e-2):
    """Random points of the unit sphere within about `radius` of the unit vector w."""
    points = w + radius * rng.normal(size=(count, w.size)) / np.sqrt(w.size)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


#: The equality constraint w^T w = 1 for scipy.optimize.minimize.
UNIT_LENGTH = {"type": "eq", "fun": lambda w: w @ w - 1, "jac": lambda w: 2 * w}


def maximize_on_sphere(S, w0, constraints):
    """SLSQP run maximizing w^T S w from w0 under the given equality constraints."""
    return scipy.optimize.minimize(lambda w: -(w @ S @ w), w0, jac=lambda w: -2 * S @ w,
                                   constraints=constraints, method="SLSQP",
                                   options={"ftol": 1e-15, "maxiter": 1000})


def constrained_maximum(S, previous, rng, starts=4):
    """max w^T S w subject to |w| = 1 and w orthogonal to the rows of `previous`, by
    SLSQP from `starts` random starting points; the best run's solution."""
    p = S.shape[0]
    orthogonal = [{"type": "eq", "fun": lambda w, v=v: v @ w, "jac": lambda w, v=v: v}
                  for v in previous]
    constraints = [UNIT_LENGTH, *orthogonal]
    runs = [maximize_on_sphere(S, w0, constraints)
            for w0 in unit_vectors(rng, starts, p)]
    return min(runs, key=lambda run: run.fun).x


# -- prop-maxvar-projected-variance ----------------------------------------------------

@theorem("prop-maxvar-projected-variance")
@given(seeded_data(), st.integers(0, 2**32 - 1))
def test_variance_of_projection_is_the_quadratic_form(X, seed):
    p = X.shape[1]
    W = unit_vectors(np.random.default_rng(seed), 20, p)
    S = covariance(X)
    Xc, _ = pcalib.center(X)
    projections = Xc @ W.T                                     # n x 20
    scale = np.abs(X).max() ** 2 + 1.0
    assert_allclose(projections.mean(axis=0), 0.0, rtol=0, atol=1e-10 * np.sqrt(scale))
    # the variance of the raw projections X w equals that of the centered ones
    assert_allclose(np.var(X @ W.T, axis=0, ddof=1), quadratic_forms(W, S),
                    rtol=1e-6, atol=1e-9 * scale)
    assert_allclose(np.var(projections, axis=0, ddof=1), quadratic_forms(W, S),
                    rtol=1e-9, atol=1e-12 * scale)


# -- thm-maxvar-first-component --------------------------------------------------------

@theorem("thm-maxvar-first-component")
@given(seeded_data(min_rows=3))
def test_first_axis_and_variance_match_numpy_and_sklearn(X):
    values, vectors = reference_eigh(X)
    sklearn_pca = SklearnPCA(n_components=1, svd_solver="full").fit(X)
    for route in ROUTES:
        result = route(X, k=1)
        assert_allclose(result.explained_variance[0], values[0], rtol=1e-8)
        assert_allclose(result.explained_variance[0],
                        sklearn_pca.explained_variance_[0], rtol=1e-8)
        assert_allclose(np.var(result.scores[:, 0], ddof=1), values[0], rtol=1e-8)
        if separated(values, 0):
            assert_allclose(result.components[0], vectors[:, 0], rtol=0, atol=1e-6)
            cosine = result.components[0] @ sklearn_pca.components_[0]
            assert abs(abs(cosine) - 1) < 1e-6


@theorem("thm-maxvar-first-component")
@given(seeded_data(), st.integers(0, 2**32 - 1))
def test_no_unit_vector_beats_the_largest_eigenvalue(X, seed):
    S = covariance(X)
    lambda_1 = np.linalg.eigvalsh(S)[-1]
    W = unit_vectors(np.random.default_rng(seed), 2000, X.shape[1])
    assert quadratic_forms(W, S).max() <= lambda_1 * (1 + 1e-12) + 1e-300
    # the maximum is attained: the first pcalib axis reaches lambda_1
    v_1 = pcalib.pca_svd(X, k=1).components[0]
    assert_allclose(v_1 @ S @ v_1, lambda_1, rtol=1e-8)


@theorem("thm-maxvar-first-component")
@given(seeded_data(max_cols=5, offset=False), st.integers(0, 2**32 - 1))
def test_stationary_points_are_exactly_the_eigenvectors(X, seed):
    p = X.shape[1]
    S = covariance(X)
    values, vectors = np.linalg.eigh(S)
    # every unit eigenvector is stationary, with multiplier = its eigenvalue = w^T S w
    for lam, v in zip(values, vectors.T):
        assert_allclose(2 * S @ v - 2 * lam * v, 0.0, rtol=0, atol=1e-12 * values[-1])
        assert_allclose(v @ S @ v, lam, rtol=0, atol=1e-12 * values[-1])
    # a unit vector that is not an eigenvector admits no multiplier: no lambda makes
    # S w - lambda w vanish. SciPy's scalar minimizer finds the smallest residual; it is
    # the weighted spread of the eigenvalues, sqrt(sum_j alpha_j^2 (lambda_j - mean)^2).
    if p >= 2 and values[-1] - values[0] > 1e-3 * values[-1]:
        alpha = unit_vectors(np.random.default_rng(seed), 1, p)[0]
        w = vectors @ alpha
        best = scipy.optimize.minimize_scalar(
            lambda lam: np.linalg.norm(S @ w - lam * w), bounds=(values[0], values[-1]),
            method="bounded", options={"xatol": 1e-12 * values[-1]})
        mean = alpha**2 @ values
        spread = np.sqrt(alpha**2 @ (values - mean) ** 2)
        assert_allclose(best.fun, spread, rtol=1e-6, atol=1e-12 * values[-1])
        assert best.fun > 1e-9 * values[-1]


@theorem("thm-maxvar-first-component")
@settings(max_examples=20)
@given(st.integers(0, 2**32 - 1))
def test_maximizers_are_exactly_the_unit_vectors_of_the_top_eigenspace(seed):
    # lambda_1 = lambda_2 = 3 > lambda_3 = 1: the maximizers form a circle, and an
    # optimizer started at different points stops at different points of it
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    S = Q @ np.diag([3.0, 3.0, 1.0]) @ Q.T
    maximizers = np.array([constrained_maximum(S, [], rng, starts=1) for _ in range(6)])
    assert_allclose(quadratic_forms(maximizers, S), 3.0, rtol=1e-9)
    assert_allclose(maximizers @ Q[:, 2], 0.0, rtol=0, atol=1e-4)   # in span(q_1, q_2)
    spread = np.abs(maximizers @ maximizers.T)
    assert spread.min() < 0.99             # not one axis up to sign: many maximizers
    # and every unit vector of the eigenspace is a maximizer, none outside it is
    circle = unit_vectors(rng, 100, 2) @ Q[:, :2].T
    assert_allclose(quadratic_forms(circle, S), 3.0, rtol=1e-12)
    outside = unit_vectors(rng, 100, 3)
    assert np.all(quadratic_forms(outside, S) < 3.0 - 1e-6 * (outside @ Q[:, 2]) ** 2)


def test_iris_eigenvalues_are_the_published_values():
    # R: prcomp(iris[, 1:4])$sdev = 2.0562689 0.4926162 0.2796596 0.1543862 (as printed)
    from sklearn.datasets import load_iris

    r_sdev = np.array([2.0562689, 0.4926162, 0.2796596, 0.1543862])
    for X in (load_iris().data, pcalib.datasets.load_iris().data):
        result = pcalib.pca_eig(X)
        assert_allclose(np.sqrt(result.explained_variance), r_sdev, rtol=0, atol=5e-8)
        # the variance of the first scores is lambda_1 = sdev_1^2, not lambda_1^2
        first_variance = np.var(result.scores[:, 0], ddof=1)
        assert_allclose(first_variance, 4.228242, rtol=0, atol=5e-7)
        assert_allclose(result.explained_variance[0] ** 2, 17.87803, rtol=0, atol=5e-6)


# -- prop-maxvar-stationary-points -----------------------------------------------------

def tangent_hessian(S, v, step=1e-3):
    """Second derivatives of f(w) = w^T S w on the unit sphere at v, by differences.

    The sphere near v is parametrized by w(y) = (v + B y) / |v + B y|, where the columns
    of B are an orthonormal basis of the tangent space v^perp (from an SVD, not from S).
    Returns B and the (p - 1) x (p - 1) matrix of central mixed differences of f(w(y)).
    """
    p = v.size
    B = np.linalg.svd(np.eye(p) - np.outer(v, v))[0][:, : p - 1]

    def f(y):
        w = v + B @ y
        return (w @ S @ w) / (w @ w)

    E = step * np.eye(p - 1)
    H = np.empty((p - 1, p - 1))
    for a in range(p - 1):
        for b in range(p - 1):
            H[a, b] = (f(E[a] + E[b]) - f(E[a] - E[b]) - f(-E[a] + E[b])
                       + f(-E[a] - E[b])) / (4 * step**2)
    return B, H


@theorem("prop-maxvar-stationary-points")
@given(seeded_data(min_rows=8, max_cols=6, offset=False))
def test_saddle_points_are_the_eigenvectors_strictly_between_the_extremes(X):
    p = X.shape[1]
    S = unit_trace_covariance(X)
    values, vectors = np.linalg.eigh(S)                  # ascending: lambda_p first
    lambda_p, lambda_1 = values[0], values[-1]
    for j, (lam, v) in enumerate(zip(values, vectors.T)):
        if p == 1:
            break
        B, H = tangent_hessian(S, v)
        curvatures, directions = np.linalg.eigh((H + H.T) / 2)
        # the curvatures on the sphere at v_j are 2 (lambda_l - lambda_j), l != j
        assert_allclose(curvatures, 2 * (np.delete(values, j) - lam), rtol=0, atol=1e-5)
        # both signs exactly when lambda_p < lambda_j < lambda_1 (with a margin)
        if lambda_p + 1e-3 < lam < lambda_1 - 1e-3:
            assert curvatures[0] < -1e-3 and curvatures[-1] > 1e-3
            # a saddle: moving along the two extreme curvature directions, f goes down
            # and up, next to v_j
            down, up = (v + 1e-2 * B @ directions[:, i] for i in (0, -1))
            assert down @ S @ down / (down @ down) < lam - 1e-9
            assert up @ S @ up / (up @ up) > lam + 1e-9
        if lam >= lambda_1 - 1e-14:              # no ascent direction at a maximum
            assert curvatures[-1] <= 1e-5
        if lam <= lambda_p + 1e-14:              # no descent direction at a minimum
            assert curvatures[0] >= -1e-5


@theorem("prop-maxvar-stationary-points")
def test_the_eigenvalue_not_the_index_decides():
    rng = np.random.default_rng(11)
    e1, e2, e3 = np.eye(3)
    # diag(3, 3, 1): e_2 is the second eigenvector but has the largest eigenvalue
    tied_top = np.diag([3.0, 3.0, 1.0])
    near = quadratic_forms(nearby_unit_vectors(rng, e2, count=5000), tied_top)
    assert near.max() <= 3.0 + 1e-12 and near.min() < 3.0 - 1e-8   # a maximum
    # diag(3, 1, 1): e_2 has the smallest eigenvalue, so it is a minimum, not a saddle
    tied_bottom = np.diag([3.0, 1.0, 1.0])
    near = quadratic_forms(nearby_unit_vectors(rng, e2, count=5000), tied_bottom)
    assert near.min() >= 1.0 - 1e-12 and near.max() > 1.0 + 1e-8
    # diag(3, 2, 1): e_2 is a saddle
    distinct = np.diag([3.0, 2.0, 1.0])
    near = quadratic_forms(nearby_unit_vectors(rng, e2, count=5000), distinct)
    assert near.max() > 2.0 + 1e-8 and near.min() < 2.0 - 1e-8


@theorem("prop-maxvar-stationary-points")
@settings(max_examples=15)
@given(seeded_data(min_rows=8, max_cols=5, offset=False), st.integers(0, 2**32 - 1))
def test_every_local_maximum_found_by_an_optimizer_is_global(X, seed):
    # SLSQP only finds local maxima; started anywhere, including right next to a saddle
    # point, it ends at the value lambda_1 because no other local maximum exists
    S = unit_trace_covariance(X)
    values, vectors = np.linalg.eigh(S)
    rng = np.random.default_rng(seed)
    starts = list(unit_vectors(rng, 5, S.shape[0]))
    starts += [nearby_unit_vectors(rng, v, count=1, radius=1e-3)[0] for v in vectors.T]
    for w0 in starts:
        run = maximize_on_sphere(S, w0, [UNIT_LENGTH])
        assert_allclose(-run.fun, values[-1], rtol=0, atol=1e-8)


# -- prop-maxvar-uncorrelated-orthogonal -----------------------------------------------

@theorem("prop-maxvar-uncorrelated-orthogonal")
@given(seeded_data(min_rows=3), st.integers(0, 2**32 - 1))
def test_covariance_with_the_scores_is_eigenvalue_times_cosine(X, seed):
    rng = np.random.default_rng(seed)
    Xc = X - X.mean(axis=0)
    result = pcalib.pca_svd(X)
    scale = max(result.explained_variance[0], 1e-300)
    W = unit_vectors(rng, 10, X.shape[1])
    for lam, v in zip(result.explained_variance, result.components):
        t = Xc @ v
        covariances = [np.cov(t, Xc @ w)[0, 1] for w in W]
        assert_allclose(covariances, lam * (W @ v), rtol=0, atol=1e-8 * scale)


@theorem("prop-maxvar-uncorrelated-orthogonal")
@given(seeded_data(min_rows=8, max_cols=6, offset=False), st.integers(0, 2**32 - 1))
def test_zero_covariance_is_orthogonality_when_the_eigenvalues_are_positive(X, seed):
    # n >= 8 > p: all eigenvalues are positive
    rng = np.random.default_rng(seed)
    p = X.shape[1]
    Xc = X - X.mean(axis=0)
    values, vectors = reference_eigh(X)
    assert values[-1] > 0
    for d in range(2, p + 1):
        previous = vectors[:, : d - 1]
        scores = Xc @ previous
        w = rng.normal(size=p)
        orthogonal = w - previous @ (previous.T @ w)       # orthogonal to v_1..v_{d-1}
        for candidate in (orthogonal, w):
            joint = np.column_stack([scores, Xc @ candidate])
            covariances = np.cov(joint, rowvar=False)[-1, :-1]
            # zero covariance with every t_j exactly when every v_j^T w is zero
            cosines = previous.T @ candidate
            assert_allclose(covariances, values[: d - 1] * cosines, rtol=0,
                            atol=1e-9 * values[0] * np.linalg.norm(candidate))
        assert_allclose(previous.T @ orthogonal, 0.0, rtol=0,
                        atol=1e-12 * np.linalg.norm(w))


@theorem("prop-maxvar-uncorrelated-orthogonal")
@given(st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_a_zero_eigenvalue_axis_is_uncorrelated_with_everything(n, seed):
    # n <= p: rank X_c <= n - 1, so lambda_n = ... = lambda_p = 0
    rng = np.random.default_rng(seed)
    p = 6
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 3.0, size=p)
    Xc = X - X.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(X, rowvar=False))
    values, vectors = values[::-1], vectors[:, ::-1]
    zero = np.arange(n - 1, p)                          # the p - n + 1 zero eigenvalues
    assert np.all(values[zero] <= 1e-12 * values[0])
    for j in zero:
        t_j = Xc @ vectors[:, j]
        assert np.linalg.norm(t_j) <= 1e-12 * np.linalg.norm(Xc)
        for w in (vectors[:, j], *unit_vectors(rng, 5, p)):
            assert abs(np.cov(t_j, Xc @ w)[0, 1]) <= 1e-12 * values[0]
        # yet w = v_j is not orthogonal to v_j: zero covariance, v_j^T w = 1
        assert_allclose(vectors[:, j] @ vectors[:, j], 1.0, rtol=1e-12)


# -- thm-maxvar-dth-component ----------------------------------------------------------

@theorem("thm-maxvar-first-component")
@theorem("thm-maxvar-dth-component")
@settings(max_examples=15)
@given(seeded_data(min_rows=6, max_cols=5, offset=False), st.integers(0, 2**32 - 1))
def test_sequential_constrained_maxima_are_the_eigenvalues(X, seed):
    rng = np.random.default_rng(seed)
    S = unit_trace_covariance(X)
    values = np.linalg.eigvalsh(S)[::-1]
    axes = pcalib.pca_svd(X).components
    for d in range(1, axes.shape[0] + 1):
        previous = axes[: d - 1]
        w = constrained_maximum(S, previous, rng)
        assert_allclose(w @ S @ w, values[d - 1], rtol=0, atol=1e-7)
        # multipliers from the stationarity condition
        # 2 S w = 2 lambda w + sum_j gamma_j v_j
        A = np.column_stack([2 * w, *previous])
        coefficients = np.linalg.lstsq(A, 2 * S @ w, rcond=None)[0]
        assert_allclose(coefficients[0], values[d - 1], rtol=0, atol=1e-6)
        assert_allclose(coefficients[1:], 0.0, rtol=0, atol=1e-6)
        if separated(values, d - 1, rel=1e-2):
            assert abs(abs(w @ axes[d - 1]) - 1) < 1e-4


@theorem("thm-maxvar-dth-component")
@given(seeded_data(max_cols=6, offset=False))
def test_multipliers_vanish_at_every_feasible_stationary_point(X):
    # Part 1 for the exact eigenvectors of numpy: with v_1..v_{d-1} the top
    # eigenvectors, every eigenvector v_l (l >= d) is feasible and stationary with
    # gamma = 0, lambda = lambda_l
    p = X.shape[1]
    S = covariance(X)
    values, vectors = np.linalg.eigh(S)
    values, vectors = values[::-1], vectors[:, ::-1]
    scale = max(values[0], 1e-300)
    for d in range(1, p + 1):
        previous = vectors[:, : d - 1]
        for l in range(d - 1, p):
            v = vectors[:, l]
            A = np.column_stack([2 * v, previous])
            (lam, *gamma), *_ = np.linalg.lstsq(A, 2 * S @ v, rcond=None)
            assert_allclose(lam, values[l], rtol=0, atol=1e-10 * scale)
            assert_allclose(gamma, 0.0, rtol=0, atol=1e-10 * scale)
        # and the best feasible value is lambda_d: no unit vector of the complement
        # beats it
        if d < p:
            rng = np.random.default_rng(d)
            complement = vectors[:, d - 1:]
            W = unit_vectors(rng, 500, p - d + 1) @ complement.T
            assert quadratic_forms(W, S).max() <= values[d - 1] + 1e-10 * scale


@theorem("thm-maxvar-dth-component")
@given(seeded_data(min_rows=3))
def test_all_axes_match_sklearn_and_numpy(X):
    values, vectors = reference_eigh(X)
    m = min(X.shape)
    sklearn_pca = SklearnPCA(n_components=m, svd_solver="full").fit(X)
    result = pcalib.pca_svd(X)
    assert_allclose(result.explained_variance, values[:m], rtol=1e-7,
                    atol=1e-9 * values[0])
    assert_allclose(result.explained_variance, sklearn_pca.explained_variance_,
                    rtol=1e-7, atol=1e-9 * values[0])
    for j in range(m):
        if separated(values, j, rel=1e-2) and values[j] > 1e-6 * values[0]:
            assert_allclose(result.components[j], vectors[:, j], rtol=0, atol=1e-5)
            cosine = result.components[j] @ sklearn_pca.components_[j]
            assert abs(abs(cosine) - 1) < 1e-6


# -- prop-maxvar-scores-uncorrelated ---------------------------------------------------

@theorem("prop-maxvar-scores-uncorrelated")
@given(seeded_data(min_rows=3), st.data())
def test_scores_have_diagonal_covariance_with_the_eigenvalues(X, data):
    S = covariance(X)
    values = np.linalg.eigvalsh(S)[::-1]
    k = data.draw(st.integers(1, min(X.shape)))
    scale = values[0]
    results = [route(X, k=k) for route in ROUTES]
    score_sets = [r.scores for r in results]
    score_sets.append(pcalib.PCA(n_components=k).fit_transform(X))
    for T in score_sets:
        S_T = np.cov(T, rowvar=False).reshape(k, k)
        assert_allclose(S_T, np.diag(values[:k]), rtol=0, atol=1e-7 * scale)
        assert_allclose(T.mean(axis=0), 0.0, rtol=0, atol=1e-7 * np.sqrt(scale) + 1e-12)
    # V_k^T S V_k with V_k from pcalib and S from numpy
    V_k = results[1].components.T
    assert_allclose(V_k.T @ S @ V_k, np.diag(values[:k]), rtol=0, atol=1e-7 * scale)
    # scikit-learn's scores: same covariance
    T_sklearn = SklearnPCA(n_components=k, svd_solver="full").fit_transform(X)
    assert_allclose(np.cov(T_sklearn, rowvar=False).reshape(k, k), np.diag(values[:k]),
                    rtol=0, atol=1e-7 * scale)


# -- prop-maxvar-total-variance --------------------------------------------------------

@theorem("prop-maxvar-total-variance")
@given(seeded_data(min_rows=2, max_rows=12, max_cols=10))
def test_all_components_keep_the_total_variance(X):
    total = np.var(X, axis=0, ddof=1).sum()
    for route in ROUTES:
        result = route(X)                                  # m = min(n, p) components
        assert_allclose(result.explained_variance.sum(), total, rtol=1e-7)
        assert_allclose(np.var(result.scores, axis=0, ddof=1).sum(), total, rtol=1e-7)
        assert_allclose(result.explained_variance_ratio.sum(), 1.0, rtol=1e-7)
    assert_allclose(np.linalg.eigvalsh(covariance(X)).sum(), total, rtol=1e-9)


@theorem("prop-maxvar-total-variance")
def test_rotation_by_all_axes_keeps_the_trace_when_p_exceeds_n():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(6, 15)) * rng.uniform(0.5, 4.0, size=15)
    values = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    assert np.all(values[5:] < 1e-12 * values[0])          # rank n - 1 = 5
    result = pcalib.pca_gram(X)
    assert result.explained_variance.shape == (6,)         # m = min(6, 15)
    assert_allclose(result.explained_variance.sum(), np.trace(np.cov(X, rowvar=False)),
                    rtol=1e-10)


# -- exercise ex-maxvar-two-by-two -----------------------------------------------------

@given(st.floats(0.0, 10.0), st.floats(0.0, 10.0), st.floats(-1.0, 1.0))
def test_atan2_gives_the_first_axis_of_a_two_by_two_covariance(s11, s22, correlation):
    s12 = correlation * np.sqrt(s11 * s22)                  # a valid covariance matrix
    S = np.array([[s11, s12], [s12, s22]])
    rho = np.hypot((s11 - s22) / 2, s12)
    values = np.linalg.eigvalsh(S)
    assert_allclose([(s11 + s22) / 2 - rho, (s11 + s22) / 2 + rho], values,
                    rtol=0, atol=1e-12 * (s11 + s22 + 1))
    if rho <= 1e-6 * (s11 + s22):
        return                                             # (nearly) isotropic: no axis
    theta_1 = 0.5 * np.arctan2(2 * s12, s11 - s22)
    w = np.array([np.cos(theta_1), np.sin(theta_1)])
    assert_allclose(w @ S @ w, values[-1], rtol=0, atol=1e-12 * (s11 + s22))
    # tan 2 theta = 2 s12 / (s11 - s22) with the principal arctan: the minimum when
    # s11 < s22
    if abs(s11 - s22) > 1e-6 * (s11 + s22):
        theta = 0.5 * np.arctan(2 * s12 / (s11 - s22))
        w = np.array([np.cos(theta), np.sin(theta)])
        expected = values[-1] if s11 > s22 else values[0]
        assert_allclose(w @ S @ w, expected, rtol=0, atol=1e-9 * (s11 + s22))

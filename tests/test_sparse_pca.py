"""SparsePCA (truncated power method, adjusted variance).

References: exhaustive search over supports (NumPy's eigh of every c x c principal
submatrix), NumPy's eigendecomposition for c = p, least squares (np.linalg.lstsq) for
the adjusted variance, and scikit-learn's SparsePCA (an l1-penalized factorization,
another objective) as a test-only reference on a planted sparse spike.
"""

import itertools
import warnings

import numpy as np
import pytest

import pcalib
from pcalib.sparse_pca import best_sparse_axis, truncated_power

theorem = pytest.mark.theorem


def spiked(n, p=50, support=(0, 1, 2, 3, 4), beta=3.0, seed=0):
    """Rows N(0, I + beta v v^T), v uniform on `support`."""
    rng = np.random.default_rng(seed)
    v = np.zeros(p)
    v[list(support)] = 1 / np.sqrt(len(support))
    return rng.standard_normal((n, p)) + np.sqrt(beta) * rng.standard_normal((n, 1)) * v, v


def test_without_a_cardinality_constraint_it_is_pca():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 6)) @ rng.standard_normal((6, 6))
    model = pcalib.SparsePCA(3).fit(X)
    lam, V = np.linalg.eigh(np.cov(X, rowvar=False))
    lam, V = lam[::-1][:3], V[:, ::-1][:, :3]
    V *= np.sign(V[np.argmax(np.abs(V), axis=0), range(3)])
    np.testing.assert_allclose(model.components_, V.T, atol=1e-8)
    # orthogonal axes, uncorrelated scores: the adjusted variances are the eigenvalues
    np.testing.assert_allclose(model.explained_variance_, lam, rtol=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_first_axis_reaches_the_best_support_found_by_exhaustive_search(seed):
    X, _ = spiked(80, p=10, support=(1, 4, 7), beta=4.0, seed=seed)
    S = np.cov(X, rowvar=False)
    c = 3
    best = max(np.linalg.eigvalsh(S[np.ix_(s, s)])[-1] for s in itertools.combinations(range(10), c))
    w = pcalib.SparsePCA(1, n_nonzero=c, n_init=10, random_state=seed).fit(X).components_[0]
    assert np.count_nonzero(w) == c
    np.testing.assert_allclose(w @ S @ w, best, rtol=1e-10)


@theorem("prop-tpower-monotone")
def test_each_truncated_power_step_does_not_decrease_the_variance():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((30, 12))
    S = A.T @ A / 29
    with warnings.catch_warnings():  # stopped on purpose at max_iter = t
        warnings.filterwarnings("ignore", "the truncated power method did not converge")
        for start in rng.standard_normal((5, 12)):
            values = [
                (w := truncated_power(S, 4, start, max_iter=t)[0]) @ S @ w
                for t in range(1, 30)
            ]
            assert np.all(np.diff(values) >= -1e-12)


@theorem("prop-adjusted-variance")
def test_adjusted_variance_is_the_residual_variance_after_the_previous_components():
    X, _ = spiked(100, p=12, seed=2)
    model = pcalib.SparsePCA(3, n_nonzero=4).fit(X)
    T = (X - X.mean(axis=0)) @ model.components_.T
    expected = [T[:, 0].var(ddof=1)]
    for j in (1, 2):
        coef = np.linalg.lstsq(T[:, :j], T[:, j], rcond=None)[0]
        expected.append(np.sum((T[:, j] - T[:, :j] @ coef) ** 2) / 99)
    np.testing.assert_allclose(model.explained_variance_, expected, rtol=1e-10)
    assert np.sum(model.explained_variance_) <= np.sum(T.var(axis=0, ddof=1)) + 1e-12


def test_planted_support_is_recovered_and_scikit_learn_agrees():
    sklearn = pytest.importorskip("sklearn.decomposition")
    X, v = spiked(200, p=50, beta=3.0, seed=3)
    w = pcalib.SparsePCA(1, n_nonzero=5).fit(X).components_[0]
    assert set(np.flatnonzero(w)) == set(np.flatnonzero(v))
    assert abs(w @ v) > 0.97
    # scikit-learn: min ||X - U V||^2 / 2 + alpha ||V||_1 (l1 penalty, not a cardinality)
    sk = sklearn.SparsePCA(1, alpha=3.0, random_state=0).fit(X).components_[0]
    assert set(np.flatnonzero(sk)) == set(np.flatnonzero(v))
    pca_axis = pcalib.PCA(1).fit(X).components_[0]
    assert np.count_nonzero(pca_axis) == 50 and abs(pca_axis @ v) < abs(w @ v)


def test_more_starts_never_do_worse_and_random_state_makes_it_deterministic():
    X, _ = spiked(40, p=30, beta=1.0, seed=4)
    S = np.cov(X, rowvar=False)
    one = pcalib.SparsePCA(1, n_nonzero=3).fit(X).components_[0]
    many = pcalib.SparsePCA(1, n_nonzero=3, n_init=20, random_state=0).fit(X).components_[0]
    assert many @ S @ many >= one @ S @ one - 1e-12
    again = pcalib.SparsePCA(1, n_nonzero=3, n_init=20, random_state=0).fit(X).components_[0]
    np.testing.assert_array_equal(many, again)


def test_transform_and_inverse_transform():
    X, _ = spiked(60, p=8, seed=5)
    model = pcalib.SparsePCA(2, n_nonzero=3, standardize=True).fit(X)
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    T = model.transform(X)
    np.testing.assert_allclose(T, Z @ model.components_.T, atol=1e-12)
    # inverse_transform is the orthogonal projection on the span of the axes
    W = model.components_.T
    coef = np.linalg.lstsq(W, Z.T, rcond=None)[0]
    projected = (W @ coef).T * X.std(axis=0, ddof=1) + X.mean(axis=0)
    np.testing.assert_allclose(model.inverse_transform(T), projected, atol=1e-10)


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"n_nonzero": 0}, ValueError, "n_nonzero"),
        ({"n_nonzero": 9}, ValueError, "n_nonzero"),
        ({"n_nonzero": True}, TypeError, "n_nonzero"),
        ({"n_nonzero": 2.5}, TypeError, "n_nonzero"),
        ({"n_components": 9}, ValueError, "n_components"),
        ({"tol": 0}, ValueError, "tol"),
        ({"n_init": 0}, ValueError, "n_init"),
        ({"ddof": 60}, ValueError, "ddof"),
    ],
)
def test_bad_parameters_are_refused_by_name(params, error, match):
    X, _ = spiked(60, p=8, seed=6)
    with pytest.raises(error, match=match):
        pcalib.SparsePCA(**{"n_components": 1, **params}).fit(X)


def test_constant_column_cannot_be_standardized():
    X, _ = spiked(30, p=5, seed=7)
    X[:, 2] = 1.0
    with pytest.raises(ValueError, match=r"zero variance in column\(s\) \[2\]"):
        pcalib.SparsePCA(1, standardize=True).fit(X)


def test_sparse_pca_iterations_per_axis():
    """n_iter_ has one count per axis, each >= 1 (scikit-learn's check_transformer_n_iter
    reads it as one number; tests/test_sklearn_compat.py lists that check for k >= 2)."""
    X, _ = spiked(80, p=8, seed=6)
    model = pcalib.SparsePCA(3, n_nonzero=3, n_init=2, random_state=0).fit(X)
    assert model.n_iter_.shape == (3,) and model.n_iter_.dtype.kind == "i"
    assert np.all(model.n_iter_ >= 1)


def test_more_components_than_rows_are_refused_as_pca_refuses_them():
    # regression: on 5 x 10 data SparsePCA(6) returned 6 axes but 5 adjusted variances
    # (the R factor of a QR of the 5 x 6 scores has 5 rows)
    W5 = np.random.default_rng(0).standard_normal((5, 10))
    with pytest.raises(ValueError, match=r"n_components .* min\(n_samples, n_features\) = 5"):
        pcalib.SparsePCA(6, n_nonzero=3).fit(W5)
    with pytest.raises(ValueError, match="n_components"):
        pcalib.PCA(6).fit(W5)
    model = pcalib.SparsePCA(5, n_nonzero=3).fit(W5)
    assert model.components_.shape == (5, 10)
    assert model.explained_variance_.shape == model.explained_variance_ratio_.shape == (5,)


def test_stacked_problems_are_solved_each_as_on_its_own():
    rng = np.random.default_rng(3)
    Y = rng.standard_normal((12, 30, 7)) @ rng.standard_normal((12, 7, 7))
    Yc = Y - Y.mean(axis=1, keepdims=True)
    S = np.swapaxes(Yc, 1, 2) @ Yc / 29
    w, n_iter = best_sparse_axis(S, 3, n_init=4, rng=np.random.default_rng(0))
    starts = np.random.default_rng(0).standard_normal((3, 7))
    for b in range(12):
        alone, it = best_sparse_axis(S[b], 3, n_init=4, rng=np.random.default_rng(0))
        np.testing.assert_allclose(w[b], alone, atol=1e-12)
        assert n_iter[b] == it
        # the best of the fixed points from the four starts, each run alone
        runs = [truncated_power(S[b], 3, s)[0] for s in
                [np.linalg.eigh(S[b])[1][:, -1], np.eye(7)[np.argmax(np.diag(S[b]))], *starts]]
        assert w[b] @ S[b] @ w[b] >= max(v @ S[b] @ v for v in runs) - 1e-12
        model = pcalib.SparsePCA(1, n_nonzero=3, n_init=4, random_state=0).fit(Y[b])
        np.testing.assert_allclose(abs(model.components_[0]), abs(alone), atol=1e-9)


def test_given_leading_eigenvectors_give_the_same_axes():
    rng = np.random.default_rng(4)
    Y = rng.standard_normal((5, 25, 9)) @ rng.standard_normal((5, 9, 9))
    Yc = Y - Y.mean(axis=1, keepdims=True)
    S = np.swapaxes(Yc, 1, 2) @ Yc / 24
    lead = np.linalg.eigh(S)[1][..., -1]
    w, n_iter = best_sparse_axis(S, 4, leading=lead)
    w0, n_iter0 = best_sparse_axis(S, 4)
    np.testing.assert_array_equal(w, w0)
    np.testing.assert_array_equal(n_iter, n_iter0)


@pytest.mark.parametrize("solve", [
    lambda S, c: best_sparse_axis(S, c),
    lambda S, c: truncated_power(S, c, np.ones(len(S))),
], ids=["best_sparse_axis", "truncated_power"])
@pytest.mark.parametrize(("c", "error"), [
    (0, ValueError), (-1, ValueError), (7, ValueError), (2.5, TypeError),
    (True, TypeError), ("3", TypeError),
])
def test_cardinality_outside_one_to_p_is_refused_by_name(solve, c, error):
    # the old code returned a 4-sparse axis for c = -1 (np.partition at index -2)
    S = np.cov(np.random.default_rng(3).standard_normal((20, 6)), rowvar=False)
    with pytest.raises(error, match=r"\bc must"):
        solve(S, c)
    w = solve(S, np.int64(2))[0]          # NumPy integers are integers
    assert np.count_nonzero(w) <= 2 and np.isclose(np.linalg.norm(w), 1.0)


def slow_pair():
    """S with two nearly equal variances and a tiny covariance: the truncated power
    method with c = 2 creeps toward the pair's axis (0.707, 0.707, 0) (review r4)."""
    S = np.diag([1.0, 1 - 1e-7, 0.5])
    S[0, 1] = S[1, 0] = 1e-4
    return S


def test_stopping_at_max_iter_warns_because_the_axis_can_be_far_from_the_fixed_point():
    # regression: the old code returned (0.0037, 0.99999, 0) after 50 iterations
    # without a word, 45 degrees from the fixed point, with a variance 5 digits close
    S = slow_pair()
    fixed = np.linalg.eigh(S[:2, :2])[1][:, -1]       # the fixed point on support {0, 1}
    with pytest.warns(UserWarning, match=r"did not converge in max_iter=50 .* 1 of 1"):
        w, n_iter = truncated_power(S, 2, np.array([0.0, 1.0, 1.0]), max_iter=50)
    assert n_iter == 50 and abs(w[:2] @ fixed) < 0.72   # about 45 degrees away
    assert abs(w @ S @ w - fixed @ S[:2, :2] @ fixed) < 1e-4
    with pytest.warns(UserWarning, match=r"in 2 of 3 problem\(s\)"):  # stacks count
        truncated_power(np.stack([S, S, np.eye(3)]), 2, np.array([0.0, 1.0, 1.0]),
                        max_iter=50)
    with pytest.warns(UserWarning, match="did not converge in max_iter=50"):
        best_sparse_axis(S, 2, max_iter=50)            # the start e_1 creeps too
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # converged: no warning
        best_sparse_axis(S, 1, max_iter=50)             # c = 1: fixed points at once


def test_sparse_pca_warns_at_max_iter_and_names_itself():
    # regression: SparsePCA(1, n_nonzero=2, max_iter=3) returned silently, n_iter_ [3]
    Y = np.random.default_rng(0).standard_normal((500, 3)) @ np.linalg.cholesky(slow_pair()).T
    with pytest.warns(UserWarning, match="SparsePCA's truncated power method"):
        model = pcalib.SparsePCA(1, n_nonzero=2, max_iter=3).fit(Y)
    assert model.n_iter_.tolist() == [3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pcalib.SparsePCA(1, n_nonzero=2).fit(Y)        # the default max_iter suffices


def test_sparse_axes_hold_no_negative_zeros():
    # regression: flipping an axis to make its largest entry positive turned its zeros
    # into -0. (printed as "-0.")
    Y = np.random.default_rng(2).standard_normal((50, 3)) @ np.linalg.cholesky(slow_pair()).T
    model = pcalib.SparsePCA(2, n_nonzero=2).fit(Y)
    zeros = model.components_ == 0
    assert zeros.any() and not np.signbit(model.components_[zeros]).any()

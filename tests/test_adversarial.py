"""pcalib under adversarial input: the right answer or a clear error, never a silent wrong one.

One regression test per item of issue 10 (each named after what it guards, each
failing on the code before the fix), and a property test over scale, offset,
rank deficiency and mixed column scales against an exact reference.

References, never pcalib itself: NumPy's SVD of data shifted *exactly* (integer or
dyadic offsets subtracted without rounding), exact rational arithmetic
(``fractions``), 40-digit decimal arithmetic (``decimal``) for log-densities,
SciPy's multivariate normal and scikit-learn where they are accurate.
"""

import warnings
from decimal import Decimal, getcontext

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import multivariate_normal
from sklearn.decomposition import PCA as SklearnPCA

import pcalib
from pcalib import PCA, PPCA
from pcalib._ppca.em import _converged, _remaining

EPS = np.finfo(float).eps
SOLVERS = ["auto", "svd", "eig", "gram", "krylov", "randomized"]
ROUTES = [pcalib.pca_svd, pcalib.pca_eig, pcalib.pca_gram]


def exact_eigenvalues(Y, ddof=1):
    """Eigenvalues lambda_j = sigma_j^2 / (n - ddof) of Y, which holds small numbers (no
    offset): NumPy's mean and SVD are accurate to round-off there."""
    Yc = Y - Y.mean(axis=0)
    _, s, Vt = np.linalg.svd(Yc, full_matrices=False)
    return s**2 / (Y.shape[0] - ddof), Vt


def assert_same_axes(components, Vt, lam, gap=1e-6):
    """Axes equal up to sign wherever the eigenvalue is separated from its neighbours by
    `gap` * lambda_1 (elsewhere only the subspace is defined)."""
    k = components.shape[0]
    padded = np.r_[np.inf, lam, -np.inf]
    for j in range(k):
        separated = min(padded[j] - padded[j + 1], padded[j + 1] - padded[j + 2]) > gap * lam[0]
        if separated and lam[j] > gap * lam[0]:  # a zero eigenvalue may have a larger eigenspace
            np.testing.assert_allclose(abs(components[j] @ Vt[j]), 1.0, rtol=0, atol=1e-8)


# -- item 1: the randomized route returns exactly k orthonormal components ------------

def test_randomized_pca_keeps_k_orthonormal_components_on_rank_deficient_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100, 5))
    X[:, 4] = X[:, 3]
    model = PCA(5, solver="randomized", random_state=0).fit(X)
    assert model.n_components_ == 5 and model.components_.shape == (5, 5)
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(5), atol=1e-12)
    lam, _ = exact_eigenvalues(X)
    np.testing.assert_allclose(model.explained_variance_, lam, rtol=0, atol=1e-12 * lam[0])
    Z = model.transform(X)
    assert Z.shape == (100, 5)
    np.testing.assert_allclose(model.inverse_transform(Z), X, atol=1e-12 * np.abs(X).max())
    with pytest.raises(ValueError, match="component 5 has variance 0"):
        PCA(5, solver="randomized", whiten=True, random_state=0).fit(X)


def test_randomized_svd_returns_the_documented_shapes_at_low_rank():
    A = np.ones((6, 4))
    U, s, Vt = pcalib.randomized_svd(A, 3, random_state=0)
    assert U.shape == (6, 3) and s.shape == (3,) and Vt.shape == (3, 4)
    np.testing.assert_allclose(s, [np.sqrt(24.0), 0.0, 0.0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(Vt @ Vt.T, np.eye(3), atol=1e-14)
    np.testing.assert_allclose((U * s) @ Vt, A, atol=1e-14)
    U2, s2, Vt2 = pcalib.randomized_svd(A.T, 3, random_state=0)  # the wide orientation
    assert U2.shape == (4, 3) and s2.shape == (3,) and Vt2.shape == (3, 6)
    np.testing.assert_allclose(U2.T @ U2, np.eye(3), atol=1e-14)


def test_randomized_keeps_k_components_on_a_fast_decaying_spectrum():
    """The issue's 2000 x 200 case (78 of 199 components came back), at half the size."""
    rng = np.random.default_rng(1)
    Q1 = np.linalg.qr(rng.standard_normal((1000, 100)))[0]
    Q2 = np.linalg.qr(rng.standard_normal((100, 100)))[0]
    X = (Q1 * 1.5 ** -np.arange(100.0)) @ Q2.T  # numerical rank about 90
    model = PCA(99, solver="randomized", random_state=0).fit(X)
    assert model.components_.shape == (99, 100)
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(99), atol=1e-10)
    lam, _ = exact_eigenvalues(X)
    np.testing.assert_allclose(model.explained_variance_, lam[:99], rtol=0, atol=1e-12 * lam[0])
    assert model.inverse_transform(model.transform(X)).shape == X.shape


# -- item 2: PPCA EM reaches the closed-form maximum, or refuses like it ---------------

def low_noise_data(noise, seed):
    r = np.random.default_rng(seed)
    L = r.standard_normal((50, 2)) @ r.standard_normal((2, 5)) + 3
    return L + noise * r.standard_normal((50, 5))


def decimal_orthonormal(rows):
    """Gram-Schmidt in 40-digit decimals: an orthonormal basis of the span of `rows`."""
    getcontext().prec = 40
    basis = []
    for v in ([Decimal(float(x)) for x in row] for row in rows):
        for q in basis:
            dot = sum(a * b for a, b in zip(v, q))
            v = [a - dot * b for a, b in zip(v, q)]
        norm = sum(a * a for a in v).sqrt()
        basis.append([a / norm for a in v])
    return basis


def decimal_ml_ppca(X, k):
    """The PPCA maximum from first principles: sigma^2 = ||X_c - X_c V_k V_k^T||_F^2 /
    (n (p - k)), W W^T = V_k (Lambda_k - sigma^2) V_k^T and the maximal log-likelihood
    -n/2 (p log 2 pi + sum_j log lambda_j + (p - k) log sigma^2 + p) (Tipping and Bishop),
    with the centering, the projection and the residual in 40-digit decimal arithmetic
    (V_k from NumPy's SVD, re-orthonormalized in decimal)."""
    getcontext().prec = 40
    n, p = X.shape
    rows = [[Decimal(float(v)) for v in row] for row in X]
    mean = [sum(r[j] for r in rows) / n for j in range(p)]
    centered = [[r[j] - mean[j] for j in range(p)] for r in rows]
    Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)[2][:k]
    basis = decimal_orthonormal(Vt)
    residual, projected = Decimal(0), np.zeros((k, k))
    coords = []
    for r in centered:
        c = [sum(a * b for a, b in zip(r, q)) for q in basis]
        coords.append(c)
        residual += sum((r[j] - sum(c[m] * basis[m][j] for m in range(k))) ** 2 for j in range(p))
    sigma2 = residual / (n * (p - k))
    for a in range(k):
        for b in range(k):
            projected[a, b] = float(sum(c[a] * c[b] for c in coords) / n)
    lam, R = np.linalg.eigh(projected)  # the k leading eigenpairs of S (in the V_k basis)
    B = np.array([[float(x) for x in q] for q in basis]).T @ R
    WWt = (B * (lam - float(sigma2))) @ B.T
    loglik = -n / 2 * (p * np.log(2 * np.pi) + np.sum(np.log(lam)) + (p - k) * np.log(float(sigma2)) + p)
    return float(sigma2), WWt, loglik


@pytest.mark.parametrize("noise", [1e-5, 1e-3, 1e-9])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_em_reaches_the_closed_form_maximum_on_low_noise_data(noise, seed):
    X = low_noise_data(noise, seed)
    sigma2, WWt, loglik = decimal_ml_ppca(X, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "did not converge"
        em = PPCA(2, method="em", random_state=seed).fit(X)
    closed = PPCA(2).fit(X)
    for model in (em, closed):
        np.testing.assert_allclose(model.sigma2_, sigma2, rtol=1e-6)
        np.testing.assert_allclose(model.W_ @ model.W_.T, WWt, rtol=0, atol=1e-6 * np.abs(WWt).max())
        np.testing.assert_allclose(model.loglik_history_[-1], loglik, rtol=1e-6)
    history = em.loglik_history_
    assert np.all(np.diff(history) >= -1e-6 * abs(history[-1]))  # EM never goes down


def test_em_refuses_exactly_rank_k_data_like_the_closed_form():
    X = low_noise_data(0.0, 1)
    message = "the noise variance estimate is 0: X has rank <= n_components"
    with pytest.raises(ValueError, match=message):
        PPCA(2).fit(X)
    with pytest.raises(ValueError, match=message):
        PPCA(2, method="em", random_state=0).fit(X)


def test_em_convergence_test_cannot_pass_on_a_plateau():
    """The stopping rule, on synthetic histories: steady gains (a plateau, where plain EM
    crawled for 10,000 iterations 3 nats below the maximum) or growing ones never pass;
    geometrically shrinking gains pass once the extrapolated remainder is small."""
    tol = PPCA(2).tol  # 1e-14
    plateau = [6.4e-6] * 5
    assert not _converged(plateau, 1e-10, 600.0, [1e-3, 1e-4], tol)
    growing = [1e-8, 2e-8]
    assert not _converged(growing, 1e-10, 600.0, [1e-9, 1e-10], tol)
    shrinking = [1e-9, 1e-13]  # remaining gain 1e-13 * 1e-4 / (1 - 1e-4)
    assert _converged(shrinking, 1e-14, 600.0, [1e-6, 1e-10], tol)
    assert not _converged(shrinking, 1e-14, 600.0, [1e-6, 1e-6], tol)  # parameters still move
    # Aitken's remainder of a geometric sequence is its exact tail
    d = [0.5**t for t in range(1, 10)]
    np.testing.assert_allclose(_remaining(d), sum(0.5**t for t in range(10, 200)), rtol=1e-12)
    assert _remaining([1e-7, 1e-7]) == np.inf and _remaining([1e-7, 0.0]) == 0.0


def test_em_with_too_few_iterations_says_so():
    X = low_noise_data(1e-3, 0)
    _, _, loglik = decimal_ml_ppca(X, 2)
    with pytest.warns(UserWarning, match="did not converge in max_iter=5"):
        early = PPCA(2, method="em", max_iter=5, random_state=0).fit(X)
    assert early.loglik_history_[-1] < loglik - 1.0


# -- item 3: large offsets, float and int64 --------------------------------------------

@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("offset", [1e12, 1e14, 1e15])
def test_large_offsets_are_exact_on_every_route(solver, offset):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3)) * [4, 2, 1] + offset
    Y = X - offset  # exact (Sterbenz): the same data without the offset
    lam, Vt = exact_eigenvalues(Y)
    model = PCA(3, solver=solver, random_state=0).fit(X)
    np.testing.assert_allclose(model.explained_variance_, lam, rtol=1e-10)
    assert_same_axes(model.components_, Vt, lam)
    T = model.fit_transform(X)
    np.testing.assert_allclose(T.var(axis=0, ddof=1), lam, rtol=1e-10)


@pytest.mark.parametrize("solver", ["svd", "eig", "gram", "krylov", "randomized"])
def test_int64_data_near_2_62_are_exact(solver):
    rng = np.random.default_rng(2)
    small = rng.integers(-10**6, 10**6, size=(40, 3)) * np.array([4, 2, 1])
    X = small + np.int64(2**62)  # int64, beyond 2**53: float64 cannot hold it exactly
    lam, Vt = exact_eigenvalues(small.astype(float))  # the exact shift, in integers
    model = PCA(3, solver=solver, random_state=0).fit(X)
    np.testing.assert_allclose(model.explained_variance_, lam, rtol=1e-12)
    assert_same_axes(model.components_, Vt, lam)
    Xc, _ = pcalib.center(X)
    np.testing.assert_allclose(Xc, small - small.mean(axis=0), rtol=0, atol=1e-9)


# -- item 4: mixed scales, the accuracy guard -------------------------------------------

def test_accuracy_guard_makes_mixed_scales_consistent_with_the_svd():
    rng = np.random.default_rng(0)  # the 2000 x 200 case, at half the size
    X = rng.standard_normal((1000, 100)) * np.r_[np.full(50, 1e4), np.full(50, 1e-4)]
    model = PCA().fit(X)
    assert model.solver_ == "svd"  # the shape rule picked "eig"; the guard recomputed
    lam, Vt = exact_eigenvalues(X)
    np.testing.assert_allclose(model.explained_variance_, lam, rtol=1e-6)
    T = model.transform(X)
    np.testing.assert_allclose(T.var(axis=0, ddof=1), model.explained_variance_, rtol=1e-6)
    # axes: each principal direction agrees with NumPy's where eigenvalues are separated
    assert_same_axes(model.components_, Vt, lam, gap=1e-9)
    assert PCA(solver="eig").fit(X).explained_variance_[75] == 0.0  # what went wrong


def test_accuracy_guard_on_a_nearly_collinear_tall_matrix():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4000, 60))
    X[:, 1] = X[:, 0] + 1e-9 * rng.standard_normal(4000)  # lambda_p / lambda_1 ~ 1e-19
    lam, _ = exact_eigenvalues(X)
    eig = PCA(solver="eig").fit(X)
    assert abs(eig.explained_variance_[-1] - lam[-1]) > 0.5 * lam[-1]  # lost
    auto = PCA().fit(X)
    assert auto.solver_ == "svd"
    np.testing.assert_allclose(auto.explained_variance_[-1], lam[-1], rtol=1e-5)
    well_conditioned = PCA().fit(rng.standard_normal((4000, 60)))
    assert well_conditioned.solver_ == "eig"  # the guard costs nothing when not needed


def test_accuracy_guard_with_a_fraction_of_variance():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((4000, 60)) * np.r_[np.ones(30), np.full(30, 1e-5)]
    model = PCA(0.999999).fit(X)
    assert model.solver_ == "eig" and model.n_components_ == 30  # lambda_30 kept its digits
    lam, _ = exact_eigenvalues(X)
    deep = PCA(1 - 1e-12).fit(X)  # keeps axes of variance 1e-10: lambda_k / lambda_1 < sqrt(eps)
    assert deep.solver_ == "svd" and deep.n_components_ > 30
    np.testing.assert_allclose(deep.explained_variance_, lam[: deep.n_components_], rtol=1e-6)


# -- item 5: overflow and underflow -----------------------------------------------------

def test_standardize_at_1e160_is_scale_free():
    x = np.random.default_rng(0).standard_normal((30, 3))
    Z, mean, scale = pcalib.standardize(x)
    Z160, mean160, scale160 = pcalib.standardize(x * 1e160)
    np.testing.assert_allclose(Z160, Z, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(scale160, scale * 1e160, rtol=1e-12)
    np.testing.assert_allclose(mean160, mean * 1e160, rtol=1e-12)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("scale", [2.0**512, 2.0**-532])  # about 1e154 and 1e-160
def test_routes_are_scale_free_at_extreme_scales(route, scale):
    x = np.random.default_rng(0).standard_normal((30, 3))
    reference = route(x)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*float64 range", category=RuntimeWarning)
        result = route(x * scale)  # exact: a power of two
    np.testing.assert_allclose(result.explained_variance_ratio, reference.explained_variance_ratio, rtol=1e-13)
    np.testing.assert_allclose(result.components, reference.components, atol=1e-13)
    np.testing.assert_allclose(result.singular_values, reference.singular_values * scale, rtol=1e-13)
    np.testing.assert_allclose(result.scores, reference.scores * scale, rtol=0,
                               atol=1e-13 * scale * np.abs(reference.scores).max())


def test_variances_beyond_float64_are_inf_with_a_warning_never_nan():
    x = np.random.default_rng(0).standard_normal((30, 3))
    with pytest.warns(RuntimeWarning, match="explained variances: above the float64 range"):
        result = pcalib.pca_svd(x * 1e155)
    assert np.all(np.isinf(result.explained_variance))
    np.testing.assert_allclose(result.explained_variance_ratio, pcalib.pca_svd(x).explained_variance_ratio,
                               rtol=1e-13)
    with pytest.warns(RuntimeWarning, match="covariance entries: above the float64 range"):
        assert np.isinf(pcalib.covariance(x * 1e160)).all()
    with pytest.warns(RuntimeWarning, match="explained variances: below the normal float64 range"):
        tiny = pcalib.pca_eig(x * 1e-160)
    assert np.all(np.isfinite(tiny.explained_variance))


# -- item 6: score_samples ---------------------------------------------------------------

def decimal_log_density(Z, components, variances, sigma2):
    """log N(z; 0, C), C = V diag(c) V^T + sigma^2 (I - V V^T), in 40-digit decimals
    (V re-orthonormalized in decimal), from first principles."""
    getcontext().prec = 40
    basis = decimal_orthonormal(components)
    p, k = Z.shape[1], len(basis)
    c = [Decimal(float(x)) for x in variances]
    s2 = Decimal(float(sigma2))
    logdet = sum(x.ln() for x in c) + (p - k) * s2.ln()
    out = []
    for z in Z:
        z = [Decimal(float(x)) for x in z]
        coords = [sum(a * b for a, b in zip(z, q)) for q in basis]
        residual = sum((z[j] - sum(coords[m] * basis[m][j] for m in range(k))) ** 2 for j in range(p))
        quad = sum(x * x / cj for x, cj in zip(coords, c)) + residual / s2
        out.append(float(-(p * Decimal(2 * np.pi).ln() + logdet + quad) / 2))
    return np.array(out)


@pytest.mark.parametrize("noise", [1e-6, 1e-7])
def test_score_samples_keeps_its_digits_at_low_noise(noise):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 2)) @ rng.standard_normal((2, 6)) + noise * rng.standard_normal((200, 6))
    model = PCA(2).fit(X)
    Z = X[:20] - model.mean_
    variances = np.maximum(model.explained_variance_, model.noise_variance_)
    reference = decimal_log_density(Z, model.components_, variances, model.noise_variance_)
    np.testing.assert_allclose(model.score_samples(X[:20]), reference, rtol=0, atol=1e-6)


def test_pca_score_has_one_answer_whatever_the_solver():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10, 20))  # rank 9 after centering: PCA(9) leaves no noise
    for solver in ["svd", "eig", "gram"]:
        model = PCA(9, solver=solver).fit(X)
        assert model.noise_variance_ == 0.0
        with pytest.raises(ValueError, match="noise_variance_ is 0.*singular"):
            model.score(X)
    with pytest.raises(np.linalg.LinAlgError):  # SciPy agrees: no density
        multivariate_normal(np.zeros(20), PCA(9, solver="svd").fit(X).get_covariance())
    X = rng.standard_normal((30, 20))  # a regular case: one number, SciPy's and sklearn's
    scores = [PCA(9, solver=solver).fit(X).score(X) for solver in ["svd", "eig", "gram"]]
    model = PCA(9).fit(X)
    reference = multivariate_normal(model.mean_, model.get_covariance()).logpdf(X).mean()
    np.testing.assert_allclose(scores, reference, rtol=1e-10)
    np.testing.assert_allclose(SklearnPCA(9).fit(X).score(X), reference, rtol=1e-10)


# -- item 7: valid data are not rejected --------------------------------------------------

def test_a_large_constant_column_with_small_spread_is_accepted():
    rng = np.random.default_rng(0)
    small = 1e-3 * rng.standard_normal((40, 2))
    X = np.c_[np.full(40, 1e12), small]
    for solver in ["auto", "svd", "eig", "gram"]:
        model = PCA(solver=solver).fit(X)
        lam, _ = exact_eigenvalues(small)
        np.testing.assert_allclose(model.explained_variance_, np.r_[lam, 0.0], rtol=1e-12, atol=0)


@pytest.mark.parametrize("scale", [2.0**997, 2.0**-997])  # about 1e300 and 1e-300
def test_data_at_1e300_and_1e_minus_300_are_accepted(scale):
    x = np.random.default_rng(0).standard_normal((40, 3))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*float64 range", category=RuntimeWarning)
        model = PCA().fit(x * scale)
    reference = PCA().fit(x)
    np.testing.assert_allclose(model.explained_variance_ratio_, reference.explained_variance_ratio_, rtol=1e-13)
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-13)


def test_constant_data_are_still_rejected():
    with pytest.raises(ValueError, match="zero total variance: every column is constant"):
        PCA().fit(np.tile([1e300, -3.0, 0.0], (5, 1)))


# -- item 9: the minor items ------------------------------------------------------------

def test_gram_fit_transform_equals_transform_on_ill_conditioned_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 400)) * np.geomspace(1, 1e-7, 400)
    model = PCA(20, solver="gram")
    T = model.fit_transform(X)
    sigma1 = model.singular_values_[0]
    np.testing.assert_allclose(T, model.transform(X), rtol=0, atol=1e-13 * sigma1)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("random_state", [True, "seed", 1.5])
def test_random_state_is_validated_whatever_the_solver(solver, random_state):
    X = np.random.default_rng(0).standard_normal((20, 4))
    with pytest.raises(TypeError, match="random_state must be None, a non-negative int"):
        PCA(2, solver=solver, random_state=random_state).fit(X)


def test_random_state_true_is_rejected_by_randomized_svd_and_ppca():
    with pytest.raises(TypeError, match="random_state must be None"):
        pcalib.randomized_svd(np.eye(3), 1, random_state=True)
    with pytest.raises(TypeError, match="random_state must be None"):
        PPCA(1, random_state=True).fit(np.random.default_rng(0).standard_normal((20, 4)))


def test_validating_random_state_does_not_advance_a_randomstate():
    legacy = np.random.RandomState(0)
    PCA(2, solver="svd", random_state=legacy).fit(np.random.default_rng(0).standard_normal((20, 4)))
    assert legacy.randint(1000) == np.random.RandomState(0).randint(1000)


# -- item 10: clear errors ----------------------------------------------------------------

def test_sparse_input_says_it_is_not_supported_and_how_to_densify():
    X = scipy.sparse.random(20, 5, density=0.5, random_state=0, format="csr")
    with pytest.raises(TypeError, match=r"sparse.*csr_matrix.*X\.toarray\(\)"):
        PPCA(2).fit(X)  # PCA accepts it (tests/test_sparse.py)


def test_dataframe_with_pandas_na_says_what_it_found_and_where():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": pd.array([1, 2, pd.NA, 4], dtype="Int64"), "b": [1.0, 2.0, 3.0, 5.0]})
    # pd.NA is a missing value like NaN in a float column, and is reported as one
    with pytest.raises(ValueError, match=r"NaN or infinity \(the first, nan, at position \(2, 0\)\)"):
        PCA(2).fit(df)
    ints = pd.DataFrame({"a": pd.array([1, 2, 3, 4], dtype="Int64"), "b": [1.0, 2.0, 3.0, 5.0]})
    np.testing.assert_allclose(PCA(2).fit(ints).mean_, [2.5, 2.75])  # numbers in an object array


def test_none_entries_say_what_was_found():
    with pytest.raises(TypeError, match=r"holds None \(a missing value\) at position \(1, 0\)"):
        pcalib.pca_svd([[1, 2], [None, 3], [4, 5]])


def test_complex_input_is_named():
    with pytest.raises(TypeError, match="got complex numbers"):
        pcalib.covariance(np.ones((3, 2), dtype=complex))


# -- item 12: the property test -----------------------------------------------------------

@st.composite
def adversarial_data(draw):
    """X = 2**e (Y + O), everything exact in float64.

    Y: small integers times a per-column power of two (mixed column scales, up to 2**-24
    apart), of rank r <= min(n, p) (a product of integer factors); O: per-column offsets up
    to 1e15, multiples of the column's unit and small enough that Y + O is exact;
    2**e between about 1e-150 and 1e150. So X - 2**e O is exactly 2**e Y, and NumPy's SVD
    of Y (small numbers) is the exact reference.
    """
    n = draw(st.integers(3, 24))
    p = draw(st.integers(1, 7))
    rank = draw(st.integers(1, min(n, p)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    Y = (rng.integers(-8, 9, size=(n, rank)) @ rng.integers(-8, 9, size=(rank, p))).astype(float)
    Y[0, rng.integers(p)] += 1  # never all constant
    units = 2.0 ** -np.array(draw(st.lists(st.sampled_from([0, 8, 24]), min_size=p, max_size=p)))
    Y *= units
    magnitude = draw(st.sampled_from([0.0, 1e3, 1e8, 1e12, 1e15]))
    # |Y + O| / unit must stay below 2**53 for the sum to be exact
    limit = np.minimum(magnitude, 2.0**45 * units)
    O = np.round(rng.uniform(-1, 1, size=p) * limit / units) * units
    e = draw(st.integers(-498, 498))
    return np.ldexp(Y + O, e), Y, e


@settings(max_examples=40)
@given(adversarial_data(), st.sampled_from(SOLVERS))
def test_pca_agrees_with_the_exact_reference_at_any_scale_and_offset(data, solver):
    X, Y, e = data
    assert np.array_equal(np.ldexp(X, -e) - (np.ldexp(X, -e) - Y), Y)  # the shift is exact
    lam, Vt = exact_eigenvalues(Y)
    k = min(X.shape)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*float64 range", category=RuntimeWarning)
        model = PCA(k, solver=solver, random_state=0).fit(X)
        ev = np.ldexp(model.explained_variance_, -2 * e)
    np.testing.assert_allclose(ev, lam, rtol=0, atol=1e-11 * lam[0])
    np.testing.assert_allclose(model.explained_variance_ratio_, lam / lam.sum(), rtol=0, atol=1e-11)
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(k), atol=1e-10)
    assert_same_axes(model.components_, Vt, lam, gap=1e-4)

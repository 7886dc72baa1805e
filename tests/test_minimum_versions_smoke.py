"""Every public entry point of pcalib, called once against a NumPy reference (issue 33).

The quick lane of the minimum versions (``python3 tasks.py minimum --quick``) runs this
file: with numpy 1.26 and scipy 1.11.1 an API that moved (``np.array(copy=None)``,
a renamed SciPy argument) breaks some call, and this file makes each call once, on
small data, in a few seconds. Each result is checked against a first-principles
computation in NumPy (eigh of the covariance, an SVD, a least-squares fit, a formula
of the docstring) or a known truth of the data (a planted rank, outlier or cycle).

The last test checks the file's own reach: a profile hook records the code that the
tests above ran, and every function of ``pcalib.__all__``, ``pcalib.plot``,
``pcalib.datasets`` and ``pcalib.solvers``, and every public method and property of
each public class (fit, transform, ..., once per estimator class, not only through a
shared base), must be among it. A public name added without a call here fails it.
Classes with no code of their own (result dataclasses, ``NotFittedError``) are
covered by the functions that return or raise them, checked with ``isinstance``.
"""

from __future__ import annotations

import inspect
import sys

import matplotlib

matplotlib.use("Agg")

import dask.array as da  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402
from numpy_references import ppca_closed_form  # noqa: E402

import pcalib  # noqa: E402
from pcalib import datasets, plot, solvers  # noqa: E402

N, P = 40, 5
RNG = np.random.default_rng(33)
#: two strong directions (standard deviations 5 and 4), noise 0.3, far from the origin
LATENT = RNG.standard_normal((N, 2)) * [5.0, 4.0]
BASIS = np.linalg.qr(RNG.standard_normal((P, P)))[0]
X = LATENT @ BASIS[:, :2].T + 0.3 * RNG.standard_normal((N, P)) + [10.0, -5.0, 3.0, 100.0, 0.0]
FRAME = pd.DataFrame(X, columns=[f"v{j}" for j in range(P)], index=[f"r{i}" for i in range(N)])
GROUPS = np.where(LATENT[:, 0] > 0, "high", "low")


def signed(axes: np.ndarray) -> np.ndarray:
    """Rows with their entry of largest absolute value positive (pcalib's convention)."""
    return axes * np.sign(axes[np.arange(len(axes)), np.argmax(np.abs(axes), axis=1)])[:, None]


def reference(data: np.ndarray, ddof: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigenvalues (descending), axes (rows) and scores from NumPy's eigh of the covariance."""
    centered = data - data.mean(axis=0)
    values, vectors = np.linalg.eigh(centered.T @ centered / (len(data) - ddof))
    axes = signed(vectors[:, ::-1].T)
    return values[::-1], axes, centered @ axes.T


EIGENVALUES, AXES, SCORES = reference(X)


def same_axes(found: np.ndarray, expected: np.ndarray, atol: float = 1e-10) -> None:
    """Axes equal up to the sign of each (the sign is checked where pcalib fixes it)."""
    found = np.asarray(found)
    signs = np.sign(np.sum(found * expected, axis=1))
    assert_allclose(found * signs[:, None], expected, atol=atol)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# -- the record of the code that the tests run (see the module docstring) --


def public_surface() -> dict[str, tuple[object, type | None]]:
    """Each public entry point: its code object and, for a method, the class whose
    instance must run it (``None`` for functions and properties)."""
    named = [("pcalib", name, getattr(pcalib, name)) for name in pcalib.__all__ if name not in ("plot", "datasets")]
    for module in (plot, datasets, solvers):
        named += [(module.__name__, name, getattr(module, name)) for name in module.__all__]
    surface = {}
    for module, name, obj in named:
        if inspect.isclass(obj):
            for klass in obj.__mro__:
                if not klass.__module__.startswith("pcalib"):
                    continue
                for attr, value in vars(klass).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    key = f"{module}.{name}.{attr}"
                    if isinstance(value, property):
                        function, owner = value.fget, None
                    elif inspect.isfunction(value):
                        function, owner = value, obj
                    else:
                        continue
                    code = inspect.unwrap(function).__code__
                    if key not in surface and "pcalib" in code.co_filename:
                        surface[key] = (code, owner)
        elif inspect.isfunction(obj):
            surface[f"{module}.{name}"] = (inspect.unwrap(obj).__code__, None)
    return surface


SURFACE = public_surface()
METHOD_CODES = {code for code, owner in SURFACE.values() if owner is not None}
CALLED: set[tuple[object, type | None]] = set()


def record(frame, event, arg):
    if event == "call":
        code = frame.f_code
        owner = type(frame.f_locals.get("self")) if code in METHOD_CODES else None
        CALLED.add((code, owner))


@pytest.fixture(autouse=True)
def record_calls():
    previous = sys.getprofile()
    sys.setprofile(record)
    yield
    sys.setprofile(previous)


# -- Part I and II: preprocessing, the three routes, low rank, PCoA --


def test_preprocessing_against_numpy():
    centered, mean = pcalib.center(X)
    assert_allclose(mean, X.mean(axis=0), rtol=1e-14)
    assert_allclose(centered, X - X.mean(axis=0), atol=1e-12)
    assert_allclose(pcalib.centering_matrix(4), np.eye(4) - 1 / 4, atol=1e-15)
    assert_allclose(pcalib.covariance(X), np.cov(X, rowvar=False), rtol=1e-12)
    assert np.isclose(pcalib.total_variance(X), np.trace(np.cov(X, rowvar=False)), rtol=1e-12)
    z, mean, scale = pcalib.standardize(X)
    assert_allclose(scale, X.std(axis=0, ddof=1), rtol=1e-12)
    assert_allclose(z, (X - X.mean(axis=0)) / X.std(axis=0, ddof=1), atol=1e-12)
    M = np.random.default_rng(1).standard_normal((6, 6))
    H = np.eye(6) - 1 / 6
    assert_allclose(pcalib.double_center(M), H @ M @ H, atol=1e-12)


@pytest.mark.parametrize("route", [pcalib.pca_eig, pcalib.pca_svd, pcalib.pca_gram])
def test_three_routes_against_eigh(route):
    result = route(X, 3)
    assert isinstance(result, pcalib.PCAResult)
    assert_allclose(result.explained_variance, EIGENVALUES[:3], rtol=1e-10)
    assert_allclose(result.explained_variance_ratio, EIGENVALUES[:3] / EIGENVALUES.sum(), rtol=1e-10)
    assert_allclose(result.singular_values, np.sqrt(EIGENVALUES[:3] * (N - 1)), rtol=1e-10)
    assert_allclose(result.components, AXES[:3], atol=1e-10)
    assert_allclose(result.scores, SCORES[:, :3], atol=1e-9)
    assert_allclose(result.mean, X.mean(axis=0), rtol=1e-14)


def test_reconstruction_error_and_threshold_rule():
    # the mean squared error of the rank-2 fit: the discarded eigenvalues times (n - 1) / n
    assert pcalib.reconstruction_error(X, 2) == pytest.approx(EIGENVALUES[2:].sum() * (N - 1) / N, rel=1e-9)
    ratios = EIGENVALUES / EIGENVALUES.sum()
    assert pcalib.choose_k(ratios, 0.9) == int(np.argmax(np.cumsum(ratios) >= 0.9)) + 1


def test_low_rank_against_numpy_svd():
    A = np.random.default_rng(2).standard_normal((30, 12))
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    U2, s2, Vt2 = pcalib.truncated_svd(A, 3)
    assert_allclose(s2, s[:3], rtol=1e-12)
    assert_allclose(U2 * s2 @ Vt2, U[:, :3] * s[:3] @ Vt[:3], atol=1e-12)
    assert_allclose(pcalib.low_rank_approx(A, 3), U[:, :3] * s[:3] @ Vt[:3], atol=1e-12)
    U3, s3, Vt3 = pcalib.randomized_svd(A, 3, random_state=0)
    assert_allclose(s3, s[:3], rtol=1e-6)
    same_axes(Vt3, Vt[:3], atol=1e-4)


def test_pcoa_of_euclidean_distances_is_pca():
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1))
    result = pcalib.pcoa(D, 2, full_spectrum=True)
    assert isinstance(result, pcalib.PCoAResult)
    same_axes(result.coordinates.T, SCORES[:, :2].T, atol=1e-8)
    assert_allclose(result.eigenvalues[:2], EIGENVALUES[:2] * (N - 1), rtol=1e-9)
    assert_allclose(result.proportion_explained, EIGENVALUES[:2] / EIGENVALUES.sum(), rtol=1e-9)
    assert_allclose(result.corrected_proportion, result.proportion_explained, rtol=1e-12)
    assert result.negative_share == pytest.approx(0, abs=1e-12)
    r = int(np.sum(result.eigenvalues > 1e-9 * result.eigenvalues[0]))
    assert_allclose(result.broken_stick, [sum(1 / i for i in range(j, r + 1)) / r for j in (1, 2)], rtol=1e-12)
    # Gower's add-a-point: a new row lands on its PCA scores
    new = X[:1] + 0.5
    placed = result.transform(np.sqrt(((new[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)))
    signs = np.sign(np.sum(result.coordinates * SCORES[:, :2], axis=0))
    assert_allclose(placed * signs, (new - X.mean(axis=0)) @ AXES[:2].T, atol=1e-8)
    # the PCoA biplot's arrows: covariances with the coordinates over their variance
    arrows = result.project_variables(X)
    Y = result.coordinates
    assert_allclose(arrows, (X - X.mean(axis=0)).T @ Y / (Y**2).sum(axis=0), atol=1e-10)
    frame = result.to_frame()
    assert list(frame.columns) == ["PCo1", "PCo2"] and np.array_equal(frame.to_numpy(), Y)


# -- the estimator: every input kind, the PPCA model of the fit, missing values --


def model_covariance(k: int) -> np.ndarray:
    """The PPCA covariance of a k-component fit: V_k diag(lambda - sigma2) V_k' + sigma2 I."""
    sigma2 = EIGENVALUES[k:].mean()
    return AXES[:k].T @ np.diag(EIGENVALUES[:k] - sigma2) @ AXES[:k] + sigma2 * np.eye(P)


def gaussian_log_density(rows: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    centered = rows - X.mean(axis=0)
    _, logdet = np.linalg.slogdet(covariance)
    mahalanobis = np.einsum("ij,ij->i", centered, np.linalg.solve(covariance, centered.T).T)
    return -0.5 * (P * np.log(2 * np.pi) + logdet + mahalanobis)


def test_pca_on_numpy_against_eigh():
    with pytest.raises(pcalib.NotFittedError):
        pcalib.PCA(2).transform(X)
    model = pcalib.PCA(2, solver="eig")
    assert model.get_params()["n_components"] == 2 and model.set_params(solver="svd") is model
    scores = model.fit_transform(X)
    assert model.n_components_ == 2 and model.n_features_in_ == P
    assert_allclose(model.explained_variance_, EIGENVALUES[:2], rtol=1e-10)
    assert_allclose(model.components_, AXES[:2], atol=1e-10)
    assert_allclose(scores, SCORES[:, :2], atol=1e-9)
    assert_allclose(model.transform(X[:3]), SCORES[:3, :2], atol=1e-9)
    assert_allclose(model.inverse_transform(scores), X.mean(axis=0) + SCORES[:, :2] @ AXES[:2], atol=1e-9)
    assert_allclose(model.loadings_, AXES[:2].T * np.sqrt(EIGENVALUES[:2]), atol=1e-9)
    assert model.noise_variance_ == pytest.approx(EIGENVALUES[2:].mean(), rel=1e-9)
    assert_allclose(model.get_covariance(), model_covariance(2), atol=1e-9)
    assert_allclose(model.score_samples(X[:4]), gaussian_log_density(X[:4], model_covariance(2)), rtol=1e-9)
    assert model.score(X) == pytest.approx(gaussian_log_density(X, model_covariance(2)).mean(), rel=1e-9)
    assert "components_" in model.tables_
    # a fraction of the variance to keep, and a tolerance whose bound the fit certifies
    ratios = EIGENVALUES / EIGENVALUES.sum()
    assert pcalib.PCA(0.9).fit(X).n_components_ == int(np.argmax(np.cumsum(ratios) >= 0.9)) + 1
    certified = pcalib.PCA(2, tol=1e-6).fit(X)
    error = np.abs(certified.explained_variance_ - EIGENVALUES[:2])
    assert np.all(error <= certified.explained_variance_bound_ + 1e-14 * EIGENVALUES[0])


def test_pca_on_sparse_dask_batches_and_frames():
    dense = pcalib.PCA(2, solver="eig").fit(X)
    for data in (sp.csr_matrix(X), da.from_array(X, chunks=(15, P))):
        model = pcalib.PCA(2).fit(data)
        assert_allclose(model.components_, AXES[:2], atol=1e-10)
        assert_allclose(model.explained_variance_, EIGENVALUES[:2], rtol=1e-10)
    lazy = pcalib.PCA(2).fit(da.from_array(X, chunks=(15, P))).transform(da.from_array(X, chunks=(15, P)))
    assert isinstance(lazy, da.Array)
    assert_allclose(lazy.compute(), SCORES[:, :2], atol=1e-9)
    streamed = pcalib.PCA(2)
    for part in np.array_split(X, 3):
        streamed.partial_fit(part)
    assert_allclose(streamed.components_, dense.components_, atol=1e-10)
    # pandas: names in, names out, labelled tables
    model = pcalib.PCA(2).fit(FRAME)
    assert list(model.feature_names_in_) == list(FRAME.columns)
    assert list(model.get_feature_names_out()) == ["pca0", "pca1"]
    frame = model.set_output(transform="pandas").transform(FRAME)
    assert isinstance(frame, pd.DataFrame) and list(frame.index) == list(FRAME.index)
    assert_allclose(frame.to_numpy(), SCORES[:, :2], atol=1e-9)
    loadings = model.to_frame("loadings_")
    assert list(loadings.index) == list(FRAME.columns) and list(loadings.columns) == ["PC1", "PC2"]
    assert_allclose(loadings.to_numpy(), AXES[:2].T * np.sqrt(EIGENVALUES[:2]), atol=1e-9)


def test_missing_values_ppca_and_imputation():
    W, sigma2 = ppca_closed_form(X, 2)
    ppca = pcalib.PPCA(2).fit(X)
    assert_allclose(ppca.W_, W, atol=1e-9)
    assert ppca.sigma2_ == pytest.approx(sigma2, rel=1e-9) == ppca.noise_variance_
    assert ppca.n_components_ == 2
    C = W @ W.T + sigma2 * np.eye(P)
    M = W.T @ W + sigma2 * np.eye(2)
    posterior = np.linalg.solve(M, W.T @ (X - X.mean(axis=0)).T).T
    assert_allclose(ppca.transform(X), posterior, atol=1e-9)
    assert_allclose(ppca.fit_transform(X), posterior, atol=1e-9)
    assert_allclose(ppca.inverse_transform(posterior), posterior @ W.T + X.mean(axis=0), atol=1e-9)
    centered = X[:3] - X.mean(axis=0)
    expected = -0.5 * (P * np.log(2 * np.pi) + np.linalg.slogdet(C)[1]
                       + np.einsum("ij,ij->i", centered, np.linalg.solve(C, centered.T).T))
    assert_allclose(ppca.score_samples(X[:3]), expected, rtol=1e-9)
    assert ppca.score(X[:3]) == pytest.approx(expected.mean(), rel=1e-9)
    draws = ppca.sample(4000, random_state=0)
    assert_allclose(np.cov(draws, rowvar=False), C, atol=0.1 * np.abs(C).max())
    # impute_pca by EM: observed entries kept, each hole its conditional mean under the model
    holes = X.copy()
    holes[np.random.default_rng(3).random(X.shape) < 0.1] = np.nan
    completed, fitted = pcalib.impute_pca(holes, 2, "em", random_state=0)
    C = fitted.W_ @ fitted.W_.T + fitted.sigma2_ * np.eye(P)
    for row, filled in zip(holes, completed):
        hidden, observed = np.isnan(row), ~np.isnan(row)
        assert_allclose(filled[observed], row[observed], rtol=0)
        expected = fitted.mean_[hidden] + C[np.ix_(hidden, observed)] @ np.linalg.solve(
            C[np.ix_(observed, observed)], row[observed] - fitted.mean_[observed])
        assert_allclose(filled[hidden], expected, rtol=1e-8)
    # a model fitted with missing="regularized" fills a new row by its conditional mean
    model = pcalib.PCA(2, missing="regularized").fit(X)
    row = X[:1].copy()
    row[0, [1, 3]] = np.nan
    observed, hidden = [0, 2, 4], [1, 3]
    Cm = model_covariance(2)
    conditional = X.mean(axis=0)[hidden] + Cm[np.ix_(hidden, observed)] @ np.linalg.solve(
        Cm[np.ix_(observed, observed)], row[0, observed] - X.mean(axis=0)[observed])
    assert_allclose(model.fill(row)[0, hidden], conditional, rtol=1e-8)


# -- how many components, and how sure: the planted rank is 2 --


def test_rules_for_the_number_of_components_find_the_planted_two():
    p = P
    assert_allclose(pcalib.broken_stick(p), [sum(1 / i for i in range(j, p + 1)) / p for j in range(1, p + 1)])
    assert int(np.argmax(pcalib.minka_log_evidence(EIGENVALUES, N))) + 1 == 2
    for method in ("threshold", "kaiser", "broken_stick", "minka", "cv", "mp", "bartlett", "map"):
        assert pcalib.choose_k(X=X, method=method, random_state=0) == 2, method
    correlations = np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))[::-1]
    parallel = pcalib.parallel_analysis(X, n_resamples=30, standardize=True, random_state=0)
    assert isinstance(parallel, pcalib.ParallelAnalysis) and parallel.n_components == 2
    assert_allclose(parallel.eigenvalues, correlations, rtol=1e-10)
    assert int(np.argmin(pcalib.cv_press(X, random_state=0))) == 2
    edge = pcalib.marchenko_pastur_edge(EIGENVALUES, N)
    assert isinstance(edge, pcalib.MarchenkoPasturEdge) and edge.n_components == 2
    bartlett = pcalib.bartlett_test(EIGENVALUES, N)
    assert isinstance(bartlett, pcalib.BartlettTest) and bartlett.n_components == 2
    assert_allclose(bartlett.df, [(p - k - 1) * (p - k + 2) / 2 for k in range(p - 1)])
    # Velicer's MAP from its definition: mean squared partial correlation after m components
    values, vectors = np.linalg.eigh(np.corrcoef(X, rowvar=False))
    values, vectors = values[::-1], vectors[:, ::-1]
    expected = []
    for m in range(p):
        C = np.corrcoef(X, rowvar=False) - vectors[:, :m] * values[:m] @ vectors[:, :m].T
        partial = C / np.sqrt(np.outer(np.diag(C), np.diag(C)))
        expected.append((np.sum(partial**2) - p) / (p * (p - 1)))
    assert_allclose(pcalib.velicer_map(X), expected, rtol=1e-8)


def test_bootstrap_anderson_and_alignment():
    boot = pcalib.bootstrap_pca(X, 2, n_resamples=30, random_state=0, keep_samples=True)
    assert isinstance(boot, pcalib.BootstrapResult)
    assert_allclose(boot.explained_variance, EIGENVALUES[:2], rtol=1e-10)
    assert_allclose(boot.explained_variance_interval,
                    np.quantile(boot.explained_variance_samples, [0.025, 0.975], axis=0), rtol=1e-12)
    cosines = np.einsum("bkp,kp->bk", boot.components_samples, boot.components)
    assert_allclose(np.cos(boot.angles), cosines, atol=1e-10)
    from scipy.linalg import subspace_angles

    largest = [subspace_angles(sample.T, boot.components.T).max() for sample in boot.components_samples]
    assert_allclose(boot.subspace_angles([0, 1]), largest, atol=1e-8)
    anderson = pcalib.anderson_intervals(X, 2)
    assert isinstance(anderson, pcalib.AndersonIntervals)
    z, width = 1.959963984540054, np.sqrt(2 / (N - 1))
    assert_allclose(anderson.explained_variance_interval,
                    [EIGENVALUES[:2] / (1 + z * width), EIGENVALUES[:2] / (1 - z * width)], rtol=1e-10)
    gaps = np.subtract.outer(EIGENVALUES, EIGENVALUES)
    np.fill_diagonal(gaps, np.inf)
    weights = np.outer(EIGENVALUES, EIGENVALUES) / gaps**2
    standard_error = np.sqrt(weights[:2] @ AXES**2 / (N - 1))
    assert_allclose(anderson.components_standard_error, standard_error, rtol=1e-8)
    shuffled = AXES[[2, 0, 1]] * np.array([[1.0], [-1.0], [1.0]])
    aligned, permutation, signs = pcalib.align_axes(shuffled, AXES[:2])
    assert_allclose(aligned, AXES[:2], atol=1e-15)
    assert list(permutation) == [1, 2] and list(signs) == [-1, 1]


# -- Part IV: robust, kernel, sparse; reading the components --


def test_robust_pca_flags_the_planted_outliers():
    far = X.copy()
    far[:3] += 25 * BASIS[:, 4]  # three rows far off the plane of the two strong directions
    model = pcalib.RobustPCA(2, random_state=0)
    scores = model.fit_transform(far)
    assert set(np.flatnonzero(model.outliers_)) >= {0, 1, 2}
    assert np.all(model.orthogonal_distances_[:3] > 10 * model.cutoff_od_)
    # the plane of the two strong directions, as the clean rows' PCA finds it
    from scipy.linalg import subspace_angles

    assert subspace_angles(model.components_.T, reference(X[3:])[1][:2].T).max() < 0.05
    # the distances from the fitted center, axes and robust eigenvalues
    centered = far - model.center_
    assert_allclose(scores, centered @ model.components_.T, atol=1e-9)
    sd, od = model.distances(far)
    assert_allclose(sd, np.sqrt(np.sum(scores**2 / model.explained_variance_, axis=1)), rtol=1e-9)
    assert_allclose(od, np.linalg.norm(centered - scores @ model.components_, axis=1), rtol=1e-9)
    assert_allclose(model.inverse_transform(scores), model.center_ + scores @ model.components_, atol=1e-9)
    inside = od <= model.cutoff_od_  # the robust total: the k eigenvalues and the mean OD**2 within the cutoff
    total = model.explained_variance_.sum() + np.mean(od[inside] ** 2)
    assert_allclose(model.explained_variance_ratio_, model.explained_variance_ / total, rtol=1e-9)
    assert_allclose(model.mean_, model.center_)


def test_kernel_pca_against_the_centered_gram_matrix():
    linear = pcalib.KernelPCA(2, kernel="linear")
    scores = linear.fit_transform(X)
    assert_allclose(linear.eigenvalues_, EIGENVALUES[:2] * (N - 1), rtol=1e-9)
    assert_allclose(linear.explained_variance_, EIGENVALUES[:2], rtol=1e-9)
    same_axes(scores.T, SCORES[:, :2].T, atol=1e-8)
    same_axes(linear.transform(X[:5]).T, scores[:5].T, atol=1e-8)
    assert_allclose(linear.inverse_transform(scores), X.mean(axis=0) + SCORES[:, :2] @ AXES[:2], atol=1e-8)
    squared = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)
    H = np.eye(N) - 1 / N
    values, vectors = np.linalg.eigh(H @ np.exp(-0.01 * squared) @ H)
    rbf = pcalib.KernelPCA(2, kernel="rbf", gamma=0.01).fit(X)
    assert_allclose(rbf.eigenvalues_, values[::-1][:2], rtol=1e-9)
    same_axes(rbf.transform(X).T, (vectors[:, ::-1][:, :2] * np.sqrt(values[::-1][:2])).T, atol=1e-8)


def test_sparse_pca_keeps_n_nonzero_loadings():
    full = pcalib.SparsePCA(2, random_state=0).fit(X)
    assert_allclose(full.components_, AXES[:2], atol=1e-8)
    assert_allclose(full.explained_variance_, EIGENVALUES[:2], rtol=1e-8)
    sparse = pcalib.SparsePCA(2, n_nonzero=2, random_state=0)
    scores = sparse.fit_transform(X)
    assert np.all(np.count_nonzero(sparse.components_, axis=1) <= 2)
    assert_allclose(np.linalg.norm(sparse.components_, axis=1), 1.0, rtol=1e-12)
    assert_allclose(scores, (X - X.mean(axis=0)) @ sparse.components_.T, atol=1e-9)
    W = sparse.components_.T  # the projection on the span of the (not orthogonal) axes
    projected = (X - X.mean(axis=0)) @ W @ np.linalg.pinv(W.T @ W) @ W.T
    assert_allclose(sparse.inverse_transform(sparse.transform(X)), X.mean(axis=0) + projected, atol=1e-9)


def test_reading_the_components_against_their_formulas():
    model = pcalib.PCA(2).fit(X)
    scores = SCORES[:, :2]
    assert_allclose(pcalib.variable_contributions(model), 100 * AXES[:2].T ** 2, atol=1e-8)
    assert_allclose(pcalib.variable_cos2(model, X), EIGENVALUES[:2] * AXES[:2].T ** 2 / X.var(axis=0, ddof=1)[:, None],
                    atol=1e-9)
    assert_allclose(pcalib.row_contributions(model, X), 100 * scores**2 / (scores**2).sum(axis=0), atol=1e-8)
    assert_allclose(pcalib.row_cos2(model, X), scores**2 / (SCORES**2).sum(axis=1)[:, None], atol=1e-9)
    rotated, rotation = pcalib.varimax(model.loadings_)
    assert_allclose(rotation @ rotation.T, np.eye(2), atol=1e-12)
    assert_allclose(rotated, model.loadings_ @ rotation, atol=1e-12)

    def criterion(L):
        G = L / np.linalg.norm(L, axis=1, keepdims=True)
        return np.sum(np.sum(G**4, axis=0) - np.sum(G**2, axis=0) ** 2 / len(G))

    angles = np.linspace(0, np.pi / 2, 721)
    best = max(criterion(model.loadings_ @ [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) for a in angles)
    assert criterion(rotated) >= best - 1e-6  # no rotation on a fine grid of angles does better
    pattern, oblique, correlations = pcalib.promax(model.loadings_)
    assert_allclose(pattern, model.loadings_ @ oblique, atol=1e-10)
    assert_allclose(correlations, np.linalg.inv(oblique.T @ oblique), atol=1e-10)
    assert_allclose(np.diag(correlations), 1.0, atol=1e-10)


def test_supplementary_variables_categories_and_ellipses():
    from scipy import stats

    model = pcalib.PCA(2).fit(X)
    scores = model.transform(X)
    extra = X[:, :2] ** 2
    expected = np.corrcoef(np.column_stack([extra, scores]), rowvar=False)[:2, 2:]
    assert_allclose(pcalib.supplementary_correlations(model, X, extra), expected, atol=1e-10)
    categories = pcalib.supplementary_categories(model, X, GROUPS)
    means = np.array([scores[GROUPS == name].mean(axis=0) for name in categories.names])
    assert_allclose(categories.coordinates, means, atol=1e-10)
    between = sum(np.sum(GROUPS == g) * scores[GROUPS == g].mean(axis=0) ** 2 for g in ("high", "low"))
    assert_allclose(categories.eta2, between / (scores**2).sum(axis=0), rtol=1e-9)
    first = pcalib.describe_axes(model, X, quantitative=extra, qualitative={"group": GROUPS})[0]
    for name, r, p_value in first.quantitative:
        column = extra[:, int(name[1:]) - 1] if name.startswith("y") else X[:, int(name[1:]) - 1]
        assert r == pytest.approx(np.corrcoef(column, scores[:, 0])[0, 1], abs=1e-10)
        assert p_value == pytest.approx(stats.pearsonr(column, scores[:, 0])[1], rel=1e-6, abs=1e-300)
    (name, r2, p_value), = first.qualitative
    assert p_value == pytest.approx(stats.f_oneway(*(scores[GROUPS == g, 0] for g in ("high", "low")))[1], rel=1e-6)
    ellipses = pcalib.category_ellipses(model, X, GROUPS)
    for group, points in ellipses.items():
        rows = scores[GROUPS == group]
        M = np.cov(rows, rowvar=False) / len(rows)
        offsets = points - rows.mean(axis=0)
        quadratic = np.einsum("ij,ij->i", offsets, np.linalg.solve(M, offsets.T).T)
        assert_allclose(quadratic, -2 * np.log(1 - 0.95), rtol=1e-9)  # the chi-square(2) quantile


# -- Part V: categories, compositions, regression, curves and series --


def correspondence(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CA from its definition: the SVD of the standardized residuals
    D_r^{-1/2} (P - r c') D_c^{-1/2}; principal inertias, row and column principal coordinates."""
    table = counts / counts.sum()
    r, c = table.sum(axis=1), table.sum(axis=0)
    U, s, Vt = np.linalg.svd((table - np.outer(r, c)) / np.sqrt(np.outer(r, c)), full_matrices=False)
    return s**2, U * s / np.sqrt(r)[:, None], Vt.T * s / np.sqrt(c)[:, None]


def test_correspondence_analysis_against_the_svd_of_residuals():
    hair_eye = datasets.load_hair_eye_color()
    assert isinstance(hair_eye, datasets.ContingencyTable) and hair_eye.counts.sum() == 592
    table = pd.DataFrame(hair_eye.counts, index=hair_eye.row_names, columns=hair_eye.column_names)
    inertias, rows, columns = correspondence(hair_eye.counts.astype(float))
    ca = pcalib.CA(2)
    assert_allclose(np.abs(ca.fit_transform(table)), np.abs(rows[:, :2]), atol=1e-12)
    assert_allclose(ca.eigenvalues_, inertias[:2], rtol=1e-12)
    same_axes(ca.row_coordinates_.T, rows[:, :2].T, atol=1e-12)
    same_axes(ca.column_coordinates_.T, columns[:, :2].T, atol=1e-12)
    masses = hair_eye.counts.sum(axis=1) / 592
    assert_allclose(ca.row_contributions_, 100 * masses[:, None] * rows[:, :2] ** 2 / inertias[:2], atol=1e-10)
    assert_allclose(ca.row_cos2_, rows[:, :2] ** 2 / (rows**2).sum(axis=1, keepdims=True), atol=1e-12)
    assert_allclose(ca.transform(table), ca.row_coordinates_, atol=1e-12)  # rows as supplementary
    assert_allclose(ca.transform_columns(table), ca.column_coordinates_, atol=1e-12)
    frame = ca.to_frame("row_coordinates_")
    assert list(frame.index) == hair_eye.row_names and frame.shape == (4, 2)
    # MCA is the CA of the indicator matrix (FactoMineR's eigenvalues)
    poison = datasets.load_poison().to_frame()[["Sick", "Sex", "Nausea", "Fever"]]
    indicator = pd.get_dummies(poison).to_numpy(dtype=float)
    inertias, rows, _ = correspondence(indicator)
    mca = pcalib.MCA(2)
    coordinates = mca.fit_transform(poison)
    assert_allclose(mca.eigenvalues_, inertias[:2], rtol=1e-10)
    same_axes(coordinates.T, rows[:, :2].T, atol=1e-10)
    assert_allclose(mca.transform(poison), coordinates, atol=1e-10)
    # a supplementary category: the mean of its rows' coordinates over the root of the inertia
    vomiting = datasets.load_poison().to_frame()["Vomiting"]
    placed = mca.supplementary_categories(vomiting.to_frame())
    for name, point in zip(placed.names, placed.coordinates):
        assert_allclose(point, coordinates[(vomiting == name).to_numpy()].mean(axis=0) / np.sqrt(inertias[:2]),
                        atol=1e-10)
    assert "column_coordinates_" in mca.tables_ and mca.to_frame("column_coordinates_").shape[1] == 2


def test_compositions_against_their_definitions():
    parts = np.abs(X[:, :3]) + 1.0
    closed = pcalib.closure(parts)
    assert_allclose(closed, parts / parts.sum(axis=1, keepdims=True), rtol=1e-14)
    logs = np.log(parts)
    clr = pcalib.clr(parts)
    assert_allclose(clr, logs - logs.mean(axis=1, keepdims=True), atol=1e-13)
    basis = pcalib.sbp_basis([[1, 1, -1], [1, -1, 0]])
    assert_allclose(basis, [[np.sqrt(1 / 6), np.sqrt(1 / 6), -np.sqrt(2 / 3)], [np.sqrt(0.5), -np.sqrt(0.5), 0]],
                    atol=1e-15)
    assert_allclose(pcalib.ilr(parts, basis), clr @ basis.T, atol=1e-13)
    coordinates = pcalib.ilr(parts)
    # ilr is an isometry of clr: Aitchison distances are kept, and ilr_inv undoes it
    assert_allclose(np.linalg.norm(coordinates[0] - coordinates[1]), np.linalg.norm(clr[0] - clr[1]), rtol=1e-12)
    assert_allclose(pcalib.ilr_inv(coordinates), closed, rtol=1e-12)
    assert_allclose(pcalib.multiplicative_replacement([[0.0, 0.25, 0.75]], delta=0.1), [[0.1, 0.9 * 0.25, 0.9 * 0.75]])
    expected = [[np.var(logs[:, j] - logs[:, l], ddof=1) for l in range(3)] for j in range(3)]
    assert_allclose(pcalib.variation_matrix(parts), expected, atol=1e-13)


def test_principal_component_regression_against_least_squares():
    y = X @ [1.0, -2.0, 0.5, 0.0, 3.0] + np.random.default_rng(4).standard_normal(N)
    design = np.column_stack([np.ones(N), X])
    ols = np.linalg.lstsq(design, y, rcond=None)[0]
    model = pcalib.PCR(P).fit(X, y)  # every component: ordinary least squares
    assert model.intercept_ == pytest.approx(ols[0], rel=1e-9)
    assert_allclose(model.coef_, ols[1:], rtol=1e-9)
    assert_allclose(model.predict(X), design @ ols, rtol=1e-10)
    two = pcalib.PCR(2)
    scores = two.fit_transform(X, y)
    assert_allclose(np.abs(scores), np.abs(SCORES[:, :2]), atol=1e-9)
    gamma = np.linalg.lstsq(np.column_stack([np.ones(N), SCORES[:, :2]]), y, rcond=None)[0]
    fitted = gamma[0] + SCORES[:, :2] @ gamma[1:]
    assert_allclose(two.predict(X), fitted, rtol=1e-9)
    assert_allclose(two.transform(X), scores, atol=1e-12)
    assert two.score(X, y) == pytest.approx(1 - np.sum((y - fitted) ** 2) / np.sum((y - y.mean()) ** 2), rel=1e-10)
    folds = np.array_split(np.arange(N), 4)
    cv = pcalib.cross_validate_pcr(X, y, folds=folds)
    assert isinstance(cv, pcalib.PCRCrossValidation)
    held_out = np.empty(N)
    for fold in folds:
        train = np.setdiff1d(np.arange(N), fold)
        held_out[fold] = design[fold] @ np.linalg.lstsq(design[train], y[train], rcond=None)[0]
    assert cv.press[-1] == pytest.approx(np.sum((y - held_out) ** 2), rel=1e-9)
    assert cv.best_n_components == int(cv.n_components[np.argmin(cv.press)])


def test_series_and_curves_against_their_definitions():
    t = np.arange(120.0)
    series = np.sin(2 * np.pi * t / 12) + 0.02 * t + 1.0  # rank 4: a cycle and a line
    L = 24
    trajectory = pcalib.trajectory_matrix(series, L)
    assert_allclose(trajectory, [series[i:i + L] for i in range(len(series) - L + 1)], rtol=0)
    ssa = pcalib.SSA(L).fit(series)
    assert_allclose(ssa.singular_values_, np.linalg.svd(trajectory, compute_uv=False)[: len(ssa.singular_values_)],
                    rtol=1e-10, atol=1e-10 * np.linalg.norm(trajectory))
    assert_allclose(ssa.reconstruct([[0, 1, 2, 3]])[0], series, atol=1e-10)
    assert_allclose(ssa.reconstruct([0, 1, 2, 3]).sum(axis=0), series, atol=1e-10)
    correlations = ssa.w_correlation([0, 1, 2, 3])
    assert_allclose(np.diag(correlations), 1.0)
    assert_allclose(correlations, correlations.T)
    h = ssa.recurrence([0, 1, 2, 3])
    assert_allclose(trajectory[:, :-1] @ h, trajectory[:, -1], atol=1e-9)  # the series obeys it
    future = np.arange(120.0, 132.0)
    assert_allclose(ssa.forecast(12, [0, 1, 2, 3]), np.sin(2 * np.pi * future / 12) + 0.02 * future + 1.0,
                    atol=1e-8)
    grid = np.array([0.0, 0.5, 1.5, 2.0, 4.0])
    weights = pcalib.quadrature_weights(grid)
    assert_allclose(weights, [0.25, 0.75, 0.75, 1.25, 1.0])
    root = np.sqrt(weights)
    values, vectors = np.linalg.eigh(root[:, None] * np.cov(X, rowvar=False) * root)
    result = pcalib.weighted_pca(X, weights, 2)
    assert isinstance(result, pcalib.WeightedPCAResult)
    assert_allclose(result.explained_variance, values[::-1][:2], rtol=1e-10)
    same_axes(result.components, (vectors[:, ::-1][:, :2] / root[:, None]).T, atol=1e-10)
    functional = pcalib.functional_pca(X, grid, 2)
    assert_allclose(functional.explained_variance, result.explained_variance, rtol=1e-12)


# -- plots, data sets, and the protocol every estimator shares --


def test_plots_draw_the_reference_numbers():
    from matplotlib.text import Annotation

    def arrows(ax):
        return np.array([a.xy for a in ax.get_children() if isinstance(a, Annotation) and not a.get_text()])

    model = pcalib.PCA(2).fit(FRAME)
    assert_allclose(plot.scree(model).lines[0].get_ydata(), EIGENVALUES[:2], rtol=1e-10)
    assert_allclose(plot.cumulative_variance(pcalib.pca_svd(X)).lines[0].get_ydata(),
                    np.cumsum(EIGENVALUES) / EIGENVALUES.sum(), rtol=1e-10)
    ax = plot.biplot(model, data=FRAME)
    assert_allclose(ax.collections[0].get_offsets(), SCORES[:, :2], atol=1e-9)
    tips = arrows(ax)
    scale = 0.8 * np.abs(SCORES[:, :2]).max() / np.linalg.norm(AXES[:2], axis=0).max()
    assert_allclose(tips, scale * AXES[:2].T, atol=1e-8)  # the longest arrow at 80% of the largest score
    assert {t.get_text() for t in ax.texts} >= set(FRAME.columns)
    plane = pcalib.pca_svd(X[:, :2])
    ax = plot.projection(X[:, :2], plane)
    ends = X[:, :2].mean(axis=0) + 2 * np.sqrt(plane.explained_variance)[:, None] * plane.components
    assert_allclose(arrows(ax), ends, atol=1e-9)  # two standard deviations along each axis
    correlations = np.corrcoef(np.column_stack([X, SCORES[:, :2]]), rowvar=False)[:P, P:]
    assert_allclose(arrows(plot.correlation_circle(model, FRAME)), correlations, atol=1e-9)
    far = X.copy()
    far[:3] += 25 * BASIS[:, 4]
    robust = pcalib.RobustPCA(2, random_state=0).fit(far)
    ax = plot.outlier_map(robust, far)
    drawn = np.concatenate([c.get_offsets() for c in ax.collections])
    assert_allclose(np.sort(drawn[:, 0]), np.sort(robust.distances(far)[0]), rtol=1e-12)
    assert [line.get_xdata()[0] for line in ax.lines[:1]] == [robust.cutoff_sd_]
    hair_eye = datasets.load_hair_eye_color()
    ca = pcalib.CA(2).fit(hair_eye.counts)
    rows, columns = (c.get_offsets() for c in plot.ca_map(ca, "rows").collections[:2])
    assert_allclose(rows, ca.row_coordinates_, rtol=1e-12)
    assert_allclose(columns, ca.column_standard_coordinates_, rtol=1e-12)
    _, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], "o")
    texts = [ax.text(0.5, 0.5, f"label {i}") for i in range(4)]  # all on one spot
    plot.repel_labels(ax, texts)
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in texts]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_data_sets_hold_their_published_values():
    iris = datasets.load_iris()
    assert isinstance(iris, datasets.Dataset) and iris.data.shape == (150, 4)
    assert_allclose(iris.data.mean(axis=0), [5.843333, 3.057333, 3.758, 1.199333], atol=1e-6)  # R's colMeans(iris)
    mtcars = datasets.load_mtcars()
    assert isinstance(mtcars, datasets.Table) and mtcars.to_frame()["mpg"].mean() == pytest.approx(20.090625)
    co2 = datasets.load_co2()
    assert isinstance(co2, datasets.TimeSeries) and co2.values[0] == 315.42 and len(co2.values) == 468
    assert datasets.load_digits().data.shape == (1797, 64) and datasets.load_hbk().data.shape[0] == 75
    gasoline, growth = datasets.load_gasoline(), datasets.load_growth()
    assert isinstance(gasoline, datasets.Curves) and gasoline.data.shape == (60, 401) and growth.data.shape == (93, 31)
    image = datasets.load_image()
    assert image.shape == (300, 256) and 0 <= image.min() and image.max() <= 1
    cities = datasets.load_cities()
    assert isinstance(cities, datasets.Cities) and len(cities.names) == 33
    lat, lon = np.radians(cities.latitude), np.radians(cities.longitude)
    haversine = 2 * 6371 * np.arcsin(np.sqrt(np.sin((lat[:, None] - lat) / 2) ** 2
                                             + np.cos(lat[:, None]) * np.cos(lat) * np.sin((lon[:, None] - lon) / 2) ** 2))
    assert_allclose(datasets.great_circle_distances(cities.latitude, cities.longitude), haversine, atol=1e-8)
    paris, london = cities.names.index("Paris"), cities.names.index("London")
    assert 330 < haversine[paris, london] < 350


ESTIMATORS = {
    "PCA": lambda: (pcalib.PCA(2), FRAME),
    "PPCA": lambda: (pcalib.PPCA(2), FRAME),
    "RobustPCA": lambda: (pcalib.RobustPCA(2, random_state=0), FRAME),
    "KernelPCA": lambda: (pcalib.KernelPCA(2, kernel="linear"), FRAME),
    "SparsePCA": lambda: (pcalib.SparsePCA(2, n_nonzero=3, random_state=0), FRAME),
    "PCR": lambda: (pcalib.PCR(2), FRAME),
    "CA": lambda: (pcalib.CA(2), pd.DataFrame(datasets.load_hair_eye_color().counts, columns=list("abcd"))),
    "MCA": lambda: (pcalib.MCA(2), datasets.load_poison().to_frame()[["Sick", "Sex", "Fever"]]),
}


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_follows_the_shared_protocol(name):
    model, data = ESTIMATORS[name]()
    target = (X @ np.arange(1.0, P + 1),) if name == "PCR" else ()
    params = model.get_params()
    assert model.set_params(**params) is model
    scores = model.fit_transform(data, *target)
    assert model.n_features_in_ == data.shape[1] and model.n_components_ == 2
    assert_allclose(np.asarray(model.transform(data)), scores, atol=1e-8)
    assert len(model.get_feature_names_out()) == 2
    model.set_output(transform="pandas")
    frame = model.transform(data)
    assert isinstance(frame, pd.DataFrame) and list(frame.index) == list(data.index)
    for table in (name for name in model.tables_ if getattr(model, name) is not None):
        labelled = model.to_frame(table)
        assert_allclose(labelled.to_numpy(dtype=float).ravel(), np.asarray(getattr(model, table), dtype=float).ravel())


def test_every_public_entry_point_was_called_above(request):
    """The module docstring's check. Skipped when part of the file was deselected."""
    here = [item for item in request.session.items if item.path == request.node.path]
    defined = [name for name, value in globals().items() if name.startswith("test_") and callable(value)]
    ran = {item.originalname for item in here}
    if ran != set(defined):
        pytest.skip(f"only part of {request.node.path.name} ran")
    missing = sorted(key for key, (code, owner) in SURFACE.items() if (code, owner) not in CALLED)
    assert not missing, f"public entry points no test of this file calls: {missing}"

"""Missing values against R's missMDA, at extreme scales and offsets, and with pandas
(issues 31, 32 and 33).

Independent references: missMDA 1.21's own imputePCA (its R source run with R, values
quoted as literals with the code that produced them), first-principles (regularized)
iterative PCA written with numpy.linalg.svd on data without the offset or scale, and
PPCA fitted by pcalib to the same data rescaled by a power of two (an exact change of
units) or with the integers offset in integer arithmetic.
"""

import warnings

import numpy as np
import pytest

import pcalib
from pcalib import PCA, PPCA, impute_pca

IRIS = pcalib.datasets.load_iris().data


def iris_holes():
    """Iris with 30% of its entries missing at (i, j) with (7 i + 3 j) mod 10 < 3: a
    pattern R and NumPy build alike (every row keeps an observed entry)."""
    i, j = np.indices(IRIS.shape)
    holes = (7 * i + 3 * j) % 10 < 3
    return np.where(holes, np.nan, IRIS), holes


def svd_iterative_pca(X, k, n_iter, *, regularized=True):
    """(Regularized) iterative PCA from Josse and Husson (2012), Algorithm 1, with
    numpy.linalg.svd: start from the column means, then n_iter refills (divisor n, the
    noise variance the mean of the discarded eigenvalues). A refill is a function of
    the completed matrix alone, so once one leaves it unchanged to the last bit every
    later one does too: the loop stops there, with what n_iter refills would give (some
    regularized fits below reach that float fixed point in 4,000 to 8,000 refills; some
    alternate between two completions that differ in their last bits). X is one (n, p) matrix or a stack (m, n, p) of them, each completed
    on its own: a stack takes one batched SVD per refill (the cost of this reference is
    the Python and LAPACK call overhead of thousands of small SVDs), and a matrix leaves
    the batch when it reaches its fixed point."""
    stack = np.array(X, dtype=float).reshape((-1,) + np.shape(X)[-2:])
    missing = np.isnan(stack)
    completed = np.where(missing, np.nanmean(stack, axis=1, keepdims=True), stack)
    n, p = stack.shape[1:]
    active = np.arange(len(stack))
    for _ in range(n_iter):
        current, holes = completed[active], missing[active]
        mean = current.mean(axis=1, keepdims=True)
        U, s, Vt = np.linalg.svd(current - mean, full_matrices=False)
        lam = s**2 / n
        shrink = (lam[:, :k] - lam[:, k:].sum(axis=1, keepdims=True) / (p - k)) / lam[:, :k] if regularized \
            else np.ones((len(active), k))
        refilled = (U[..., :k] * (s[:, :k] * shrink)[:, None, :]) @ Vt[:, :k] + mean
        moved = np.any((refilled != current) & holes, axis=(1, 2))
        current[holes] = refilled[holes]
        completed[active] = current
        active = active[moved]
        if not active.size:
            break
    return completed.reshape(np.shape(X))


# -- missMDA ---------------------------------------------------------------------------

# R 4.x, missMDA 1.21 (R/imputePCA.R sourced, FactoMineR 2.x):
#   X <- as.matrix(read.csv("iris30.csv", header = FALSE))   # iris_holes(), NA for NaN
#   miss <- which(is.na(X))                                  # column-major order
#   f <- imputePCA(X, ncp = 2, scale = sc, threshold = 1e-15, maxiter = 200000)$completeObs[miss]
#   sprintf("%.15g", c(sum(f), f[1:6]))
#   d <- imputePCA(X, ncp = 2, scale = sc)$completeObs[miss]; max(abs(d - f))
MISSMDA = {
    False: (625.535841657659, [4.94895198236959, 4.69542756430409, 4.87062528225428,
                               5.15007721344363, 4.40192912415286, 5.19879058665861], 0.010565707136816371),
    True: (625.332450555303, [4.97655095982775, 4.72833175625844, 4.90611616439887,
                              5.1658890681128, 4.43909871890994, 5.2378037525255], 4.7761088995290635e-05),
}


@pytest.mark.parametrize("standardize", [False, True])
def test_regularized_pca_with_missMDA_noise_is_missMDA_imputePCA(standardize):
    """noise="df" is missMDA's rule (sigma^2 over degrees of freedom, capped at
    lambda_{k+1}; scale = TRUE is standardize=True): pcalib's fixed point is R's, to
    its convergence; and pcalib's default stopping rule lands within 1e-7 of it, where
    missMDA's default (a relative change of its objective below 1e-6) stops 0.011
    from it unstandardized."""
    X, holes = iris_holes()
    total, first, missmda_default_gap = MISSMDA[standardize]
    converged, _ = impute_pca(X, 2, noise="df", standardize=standardize, tol=1e-11, max_iter=5000)
    in_r_order = converged.T[holes.T]
    assert in_r_order.sum() == pytest.approx(total, abs=1e-9)
    np.testing.assert_allclose(in_r_order[:6], first, atol=1e-11)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # converges within max_iter=1000
        default, _ = impute_pca(X, 2, noise="df", standardize=standardize)
    gap = np.abs(default.T[holes.T] - in_r_order).max()
    assert gap < 1e-7 and gap < missmda_default_gap / 400


RATES_AND_SEEDS = [(rate, seed) for rate in (0.3, 0.4) for seed in range(3)]


def random_holes(rate, seed):
    """Iris with a fraction `rate` of its entries missing at random (every row keeps
    one), and the mask of the holes."""
    rng = np.random.default_rng(seed)
    holes = rng.random(IRIS.shape) < rate
    holes[holes.all(axis=1), 0] = False
    return np.where(holes, np.nan, IRIS), holes


@pytest.fixture(scope="module")
def plain_fixed_points():
    """The fixed point of the regularized map (NumPy's SVD, 8,000 plain iterations) for
    each case of RATES_AND_SEEDS, computed in one batch. 8,000 give what 20,000 gave,
    to the last bit (checked; 6,000 are 8.6e-12 off at 40%): one case (40%, seed 0)
    alternates between two completions that differ in their last bits, so it never
    left the batch, and its last 12,000 refills cost 1.8 s."""
    stack = np.stack([random_holes(rate, seed)[0] for rate, seed in RATES_AND_SEEDS])
    return dict(zip(RATES_AND_SEEDS, svd_iterative_pca(stack, 2, 8_000)))


@pytest.mark.parametrize("rate", [0.3, 0.4])
@pytest.mark.parametrize("seed", range(3))
def test_regularized_pca_converges_by_default_in_few_iterations(rate, seed, plain_fixed_points):
    """Regularized iterative PCA needed 1,900-3,700 iterations on iris at 30-40% missing
    (issue 32): the default max_iter=1000 stopped it with a warning. SQUAREM reaches the
    fixed point of the plain map (NumPy's SVD, 8,000 plain iterations) to 1e-6 within
    the default budget, silently, in at most 400 evaluations of the map."""
    X, holes = random_holes(rate, seed)
    fixed_point = plain_fixed_points[rate, seed]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        completed, _ = impute_pca(X, 2)
    assert np.abs(completed - fixed_point)[holes].max() < 1e-6
    evaluations = pcalib._ppca.missing_fits.iterative_pca(X, ~holes, 2, noise="ml", max_iter=1000, tol=1e-8)[1]
    assert evaluations <= 400  # 180 to 390 here


def test_plain_iterative_pca_warns_without_advising_more_iterations():
    """Running plain iterative PCA longer makes its imputations worse (chapter 13): its
    warning said "increase max_iter"; it now says why not, and what to use."""
    X, _ = iris_holes()
    with pytest.warns(UserWarning, match="iterative PCA did not converge") as caught:
        impute_pca(X, 2, "iterative", max_iter=20)
    message = str(caught[0].message)
    assert "increase max_iter" not in message
    assert "worse" in message and "method='regularized' or 'em'" in message


# -- PPCA's unbounded likelihood --------------------------------------------------------


def test_the_slowly_unbounded_likelihood_is_detected():
    """Iris with 60% missing (seed 5) and k = 3: one row observes more than 3 features,
    so a rank-3 model passes through every observed entry and the likelihood is
    unbounded. sigma^2 fell slowly (8e-5 of the variance after 1,600 iterations, 1e-7
    after 3,200) to a round-off floor (8e-11), where the log-likelihood went down by
    round-off thousands of times; the fixed 200-iteration window of the guard never saw
    a 10-fold fall and EM ran to max_iter (issue 32). A window growing with the run
    catches it."""
    rng = np.random.default_rng(5)
    holes = rng.random(IRIS.shape) < 0.6
    holes[holes.all(axis=1), 0] = False
    X = np.where(holes, np.nan, IRIS)
    assert np.sum((~holes).sum(axis=1) > 3) == 1
    with pytest.raises(ValueError, match=r"rank-3 PPCA is unbounded.*and 1 observe more than 3"):
        PPCA(3, random_state=0, max_iter=10_000).fit(X)


# -- issue 31: no silent wrong answer ----------------------------------------------------


def small_low_rank(seed=0, n=100, p=5):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 2)) @ rng.standard_normal((2, p)) + 0.3 * rng.standard_normal((n, p))


def test_impute_pca_of_int64_near_2_62_is_fitted_to_the_integers():
    """F04: impute_pca cast int64 data to float64 before centering: near 2**62 the
    values lose their last 10 bits (steps of 1024), and the model's W was off by 51 and
    sigma2 by 73% (1.36e5 against 7.84e4). Now the model is fitted to the integers
    themselves, read through pcalib._linalg.units as PCA reads them: the same model as of the
    integers less 2**62 (exact in integer arithmetic, then small enough for float64)."""
    small = np.round(small_low_rank() * 1000).astype(np.int64)
    for method in ("em", "regularized", "iterative"):
        _, model = impute_pca(small + 2**62, 2, method, random_state=0)
        _, reference = impute_pca(small, 2, method, random_state=0)
        np.testing.assert_allclose(model.W_, reference.W_, rtol=1e-9, atol=1e-9 * np.abs(reference.W_).max())
        assert model.sigma2_ == pytest.approx(reference.sigma2_, rel=1e-9)
        np.testing.assert_allclose(model.mean_ - 2.0**62, reference.mean_, atol=1024)


@pytest.mark.parametrize("method", ["regularized", "iterative", "em"])
def test_an_offset_of_1e12_costs_no_digit_of_the_imputations(method):
    """F14: with an offset of 1e12 the iterative imputations were 7.8e-4 (regularized)
    and 7e-3 (iterative, 200 iterations) of their spread off: the iteration centered
    values near 1e12 with a mean rounded to 1e12 eps. Now the holes are filled as
    without the offset, to the rounding of the answer at 1e12 (ulp 1.2e-4). Reference:
    NumPy's iterative PCA of the data without the offset (the same number of
    iterations for the plain method, which does not converge), and for EM pcalib's EM
    of the data without the offset, whose likelihood and iterates do not depend on a
    shift. The data are those that the offset leaves (x + 1e12 - 1e12, exact)."""
    offset = 1e12
    X = (small_low_rank() + offset) - offset  # the data at the offset, exactly, less it
    holes = np.random.default_rng(1).random(X.shape) < 0.2
    X_holes = np.where(holes, np.nan, X)
    if method == "iterative":
        with pytest.warns(UserWarning, match="did not converge"):
            shifted, _ = impute_pca(X_holes + offset, 2, method, tol=1e-300, max_iter=200)
        reference = svd_iterative_pca(X_holes, 2, 200, regularized=False)
    elif method == "regularized":
        shifted, _ = impute_pca(X_holes + offset, 2, method, tol=1e-12)
        # 4,000 refills: these never reach a float fixed point (the last bits cycle), and
        # 3,000 were already within 1e-14 of 20,000 (2,000: 1.4e-10; 1,000: 4.8e-6), far
        # inside the 2.4e-4 compared; 20,000 cost 2.9 s of CPU
        reference = svd_iterative_pca(X_holes, 2, 4_000)
    else:
        shifted, _ = impute_pca(X_holes + offset, 2, method, random_state=0)
        reference, _ = impute_pca(X_holes, 2, method, random_state=0)
    ulp = np.spacing(offset)
    np.testing.assert_allclose((shifted - offset)[holes], reference[holes], rtol=0, atol=2 * ulp)


def test_ppca_transform_after_fitting_at_1e_minus_200():
    """F23: fitted to data at 1e-200, sigma2_ underflows to 0 (a warning says so) and
    transform raised LinAlgError (W^T W underflowed too, M singular). The scores are
    scale-free: they equal those of the same data at scale 1, and so do the fills of
    holes; score_samples is that of scale 1 less p log(2**e) per row."""
    X = small_low_rank()
    scale = 2.0**-664  # about 1e-200, an exact change of units
    with pytest.warns(RuntimeWarning, match="sigma2_"):
        tiny = PPCA(2).fit(X * scale)
    unit = PPCA(2).fit(X)
    assert tiny.sigma2_ == 0.0
    np.testing.assert_allclose(tiny.transform(X[:5] * scale), unit.transform(X[:5]), rtol=1e-12, atol=1e-14)
    row = X[:1].copy()
    row[0, 2] = np.nan
    np.testing.assert_allclose(tiny.fill(row * scale) / scale, unit.fill(row), rtol=1e-12)
    np.testing.assert_allclose(tiny.score_samples(X[:3] * scale), unit.score_samples(X[:3]) + 5 * 664 * np.log(2),
                               rtol=1e-12)


def test_pca_with_missing_checks_the_frame_before_filling_it():
    """New user (issue 31): PCA(missing="regularized").transform(df) filled the NaN
    first, so the frame reached the name check as an array. It accepted reordered
    columns (scores off), warned "X does not have valid feature names" on the very frame
    it was fitted on, and lost the index under set_output("pandas"). Reference: the
    transform of the array with the columns in the fitted order."""
    pd = pytest.importorskip("pandas")
    X = small_low_rank(seed=3)
    X[np.random.default_rng(4).random(X.shape) < 0.15] = np.nan
    frame = pd.DataFrame(X, columns=list("abcde"), index=[f"r{i}" for i in range(len(X))])
    model = PCA(2, missing="regularized").fit(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = model.transform(frame)
    np.testing.assert_allclose(scores, PCA(2, missing="regularized").fit(X).transform(X), rtol=1e-12)
    with pytest.raises(ValueError, match="feature names should match"):
        model.transform(frame[list("edcba")])
    model.set_output(transform="pandas")
    out = model.transform(frame)
    assert list(out.index) == list(frame.index)


# -- issue 33: names and the same types ------------------------------------------------------


def test_ppca_has_scikit_learns_names():
    """PPCA.noise_variance_ (scikit-learn's name for sigma2_, and its value:
    sklearn.decomposition.PCA's noise_variance_ of the same data with divisor n),
    n_components_ and n_features_in_; none of them before fit."""
    sklearn_decomposition = pytest.importorskip("sklearn.decomposition")
    X = small_low_rank(seed=5)
    model = PPCA(2)
    assert not hasattr(model, "noise_variance_") and not hasattr(model, "n_components_")
    model.fit(X)
    reference = sklearn_decomposition.PCA(2).fit(X)
    n = X.shape[0]
    assert model.noise_variance_ == model.sigma2_ == pytest.approx(reference.noise_variance_ * (n - 1) / n, rel=1e-12)
    assert model.n_components_ == 2 and model.n_features_in_ == 5


def test_impute_pca_keeps_the_dataframe():
    """impute_pca of a DataFrame returns a DataFrame with its index and columns
    (issue 33), standardized or not, with the values of the array route; standardize
    is refused with EM, whose model is in the data's units."""
    pd = pytest.importorskip("pandas")
    X, holes = iris_holes()
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"], index=np.arange(150) + 1000)
    for options in ({"standardize": True}, {"standardize": False}, {"method": "em", "random_state": 0}):
        filled, model = impute_pca(frame, 2, **options)
        from_array, _ = impute_pca(X, 2, **options)
        assert isinstance(filled, pd.DataFrame)
        assert list(filled.columns) == list(frame.columns) and list(filled.index) == list(frame.index)
        np.testing.assert_allclose(filled.to_numpy(), from_array, rtol=1e-12)  # the frame's memory order
        assert list(model.feature_names_in_) == list(frame.columns)
    with pytest.raises(ValueError, match="standardize=True is for the iterative methods"):
        impute_pca(X, 2, "em", standardize=True)


def test_a_fitted_pca_fills_new_data_and_returns_its_type():
    """PCA(missing=...).fill(X) (issue 33): each hole gets its conditional mean under
    the PPCA model of the fit (axes V_k, variances lambda_j, noise the mean discarded
    eigenvalue), computed here as the Gaussian conditional mean C_mo C_oo^{-1}
    (x_o - mu_o) with NumPy; observed entries kept; a DataFrame in, a DataFrame out."""
    pd = pytest.importorskip("pandas")
    X, _ = iris_holes()
    model = PCA(2, missing="regularized").fit(X)
    new = IRIS[:6].copy()
    new[[0, 1, 2], [1, 2, 3]] = np.nan
    new[5, [0, 3]] = np.nan
    lam = np.linalg.eigvalsh(np.cov(model.fill(X), rowvar=False))[::-1]  # the completed data's
    sigma2 = lam[2:].mean()
    V = model.components_.T
    C = V @ np.diag(model.explained_variance_ - sigma2) @ V.T + sigma2 * np.eye(4)
    expected = new.copy()
    for i in range(len(new)):
        m = np.isnan(new[i])
        if m.any():
            o = ~m
            expected[i, m] = model.mean_[m] + C[np.ix_(m, o)] @ np.linalg.solve(C[np.ix_(o, o)],
                                                                                new[i, o] - model.mean_[o])
    filled = model.fill(new)
    np.testing.assert_allclose(filled, expected, rtol=1e-10)
    assert np.isnan(new).sum() == 5  # untouched
    frame = pd.DataFrame(new, columns=list("abcd"), index=list("uvwxyz"))
    as_frame = PCA(2, missing="regularized").fit(pd.DataFrame(X, columns=list("abcd"))).fill(frame)
    assert isinstance(as_frame, pd.DataFrame) and list(as_frame.index) == list("uvwxyz")
    np.testing.assert_allclose(as_frame.to_numpy(), filled, rtol=1e-12)
    np.testing.assert_allclose(model.transform(new), model.transform(filled), rtol=1e-12)

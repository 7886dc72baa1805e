"""The contract every estimator of pcalib keeps, run over all of them at once.

A new estimator (Part IV adds RobustPCA, KernelPCA, SparsePCA, CA, MCA) joins by
being listed in ``ESTIMATORS``: a name and a function that returns a fresh
instance. Each test below then runs on it:

- bad input is refused with an error that names ``X`` and says what was expected;
- no method modifies its input, and a read-only input is accepted;
- two fits of the same data give bit-for-bit the same fitted attributes;
- a pickled and restored estimator transforms bit-for-bit as the original;
- a DataFrame's column names come back as ``feature_names_in_`` and, with
  ``set_output(transform="pandas")``, as the columns of the result, on its index;
- a method that needs a fit raises ``NotFittedError`` before one;
- ``get_params`` / ``set_params`` round trip.

scikit-learn's ``check_estimator`` runs on each listed class in
``tests/test_sklearn_compat.py``; the last test here fails if a listed class is
missing there.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from pcalib import CA, MCA, PCA, PPCA, KernelPCA, NotFittedError, RobustPCA, SparsePCA

ESTIMATORS = {
    "PCA": lambda: PCA(2),
    "PCA standardized, whitened": lambda: PCA(2, standardize=True, whiten=True),
    "PCA randomized": lambda: PCA(2, solver="randomized", random_state=0),
    "PPCA closed form": lambda: PPCA(2),
    "PPCA EM": lambda: PPCA(2, method="em", random_state=0),
    "KernelPCA rbf": lambda: KernelPCA(2),
    "KernelPCA linear": lambda: KernelPCA(2, kernel="linear"),
    "KernelPCA Nystrom": lambda: KernelPCA(2, n_landmarks=15, random_state=0),
    "RobustPCA robpca": lambda: RobustPCA(2, random_state=0),
    "RobustPCA grid": lambda: RobustPCA(2, method="grid"),
    "RobustPCA spherical": lambda: RobustPCA(2, method="spherical"),
    "SparsePCA": lambda: SparsePCA(2, n_nonzero=3),
    "SparsePCA random starts": lambda: SparsePCA(2, n_nonzero=3, n_init=4, random_state=0),
    "CA": lambda: CA(2),
    "MCA": lambda: MCA(2),
}
NAMES = list(ESTIMATORS)

#: Methods that take data after a fit, with what they take (X itself or scores);
#: an estimator without one of them (KernelPCA has no likelihood) skips it.
DATA_METHODS = ("transform", "score_samples", "score")
SCORE_METHODS = ("inverse_transform",)


def data(n: int = 40, p: int = 5, seed: int = 0) -> np.ndarray:
    """Correlated data with distinct variances, so every axis is well defined."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) @ np.diag([5.0, 3.0, 2.0, 1.0, 0.5]) @ rng.standard_normal((p, p))


def data_for(name: str, **kwargs) -> np.ndarray:
    """`data` in the form an estimator reads: counts for CA (the Gaussian data made
    positive integers, no empty row), categories for MCA (each column cut in 3 levels)."""
    X = data(**kwargs)
    if name == "CA":
        return np.round(np.abs(X)) + 1.0
    if name == "MCA":
        return np.array(["low", "mid", "high"], dtype=object)[np.digitize(X, [-2.0, 2.0])]
    return X


def fitted_attributes(estimator) -> dict[str, object]:
    return {
        name: value for name, value in vars(estimator).items()
        if name.endswith("_") and not name.startswith("_")
    }


def assert_same(a, b, where: str) -> None:
    if isinstance(a, list):  # MCA.categories_: one array per column
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, z) in enumerate(zip(a, b)):
            assert_same(x, z, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert a == b or (a != a and b != b), f"{where}: {a!r} != {b!r}"


@pytest.mark.parametrize("name", NAMES)
def test_no_method_modifies_its_input(name):
    X = data_for(name)
    X.flags.writeable = False  # a read-only array must be accepted, and stays as it is
    kept = X.copy()
    estimator = ESTIMATORS[name]().fit(X)
    scores = estimator.fit_transform(X)
    scores.flags.writeable = False
    kept_scores = scores.copy()
    for method in DATA_METHODS:
        if hasattr(estimator, method):
            getattr(estimator, method)(X)
    for method in SCORE_METHODS:
        if hasattr(estimator, method):  # CA and MCA have no inverse
            getattr(estimator, method)(scores)
    np.testing.assert_array_equal(X, kept)
    np.testing.assert_array_equal(scores, kept_scores)


@pytest.mark.parametrize("name", NAMES)
def test_two_fits_give_the_same_bits(name):
    X = data_for(name)
    first, second = ESTIMATORS[name]().fit(X), ESTIMATORS[name]().fit(X)
    attributes = fitted_attributes(first)
    assert attributes, f"{name}: no fitted attribute (names ending in _) after fit"
    assert attributes.keys() == fitted_attributes(second).keys()
    for attribute, value in attributes.items():
        assert_same(value, getattr(second, attribute), f"{name}.{attribute}")
    np.testing.assert_array_equal(first.transform(X), second.transform(X))


@pytest.mark.parametrize("name", NAMES)
def test_pickled_estimator_transforms_the_same(name):
    X = data_for(name)
    estimator = ESTIMATORS[name]().fit(X)
    restored = pickle.loads(pickle.dumps(estimator))
    assert restored.get_params() == estimator.get_params()
    np.testing.assert_array_equal(restored.transform(X), estimator.transform(X))
    for attribute, value in fitted_attributes(estimator).items():
        assert_same(value, getattr(restored, attribute), f"{name}.{attribute}")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (np.ones(10), "2-D|two-dimensional|2 dimensions"),
        (np.ones((4, 5, 2)), "2-D|two-dimensional|2 dimensions"),
        (np.ones((1, 5)), "sample"),
        (np.array([["a", "b"], ["c", "d"], ["e", "f"]]), "numeric|number|float"),
        (np.where(np.eye(8, 5) > 0, np.inf, 1.0), "inf"),
    ],
    ids=["1-D", "3-D", "one row", "strings", "inf"],
)
def test_bad_input_is_refused_by_name(name, bad, words):
    if name == "MCA" and words.startswith("numeric"):
        pytest.skip("strings are MCA's categories, not bad input")
    with pytest.raises((ValueError, TypeError), match=rf"(?s)\bX\b.*({words})|({words}).*\bX\b"):
        ESTIMATORS[name]().fit(bad)


@pytest.mark.parametrize("name", NAMES)
def test_wrong_feature_count_after_fit_is_refused(name):
    estimator = ESTIMATORS[name]().fit(data_for(name))
    with pytest.raises(ValueError, match="feature"):
        estimator.transform(data_for(name, p=5)[:, :4])


@pytest.mark.parametrize(
    ("name", "method"),
    [
        (name, method)
        for name in NAMES
        for method in DATA_METHODS + SCORE_METHODS
        if hasattr(ESTIMATORS[name](), method)  # KernelPCA and RobustPCA have no likelihood
    ],
)
def test_methods_before_fit_raise_not_fitted(name, method):
    argument = data() if method in DATA_METHODS else np.ones((3, 2))
    with pytest.raises(NotFittedError):
        getattr(ESTIMATORS[name](), method)(argument)


@pytest.mark.parametrize("name", NAMES)
def test_column_names_in_and_out(name):
    pd = pytest.importorskip("pandas")
    X = data_for(name)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])], index=range(100, 140))
    estimator = ESTIMATORS[name]().set_output(transform="pandas").fit(frame)
    assert list(estimator.feature_names_in_) == list(frame.columns)
    result = estimator.transform(frame)
    assert isinstance(result, pd.DataFrame)
    assert list(result.columns) == list(estimator.get_feature_names_out())
    assert list(result.index) == list(frame.index)
    plain = ESTIMATORS[name]().fit(X).transform(X)
    np.testing.assert_array_equal(result.to_numpy(), plain)
    with pytest.raises(ValueError, match="feature names|column"):
        estimator.transform(frame[frame.columns[::-1]])


@pytest.mark.parametrize("name", NAMES)
def test_get_and_set_params_round_trip(name):
    estimator = ESTIMATORS[name]()
    params = estimator.get_params()
    assert estimator.set_params(**params) is estimator
    assert estimator.get_params() == params
    assert type(estimator)(**params).get_params() == params


def test_every_listed_class_runs_check_estimator():
    import test_sklearn_compat

    checked = {type(e) for e in test_sklearn_compat.ESTIMATORS}
    listed = {type(ESTIMATORS[name]()) for name in NAMES}
    assert listed <= checked, f"not run through check_estimator: {listed - checked}"

"""pandas with PCA and PPCA: names in (feature_names_in_, checked), names out
(get_feature_names_out, set_output), inside scikit-learn's Pipeline too."""

import pickle
import warnings

import numpy as np
import pytest

import pcalib
from pcalib import PCA, PPCA, NotFittedError

pd = pytest.importorskip("pandas")

ESTIMATORS = [PCA(2), PPCA(2)]
COLUMNS = ["sepal", "petal", "stem", "leaf", "root"]


def frame(n=40, seed=0, columns=COLUMNS):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, len(columns))) @ rng.standard_normal((len(columns), len(columns)))
    return pd.DataFrame(X, columns=columns, index=[f"s{i}" for i in range(n)])


# -- names in -----------------------------------------------------------------------


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_feature_names_in_from_string_columns(est):
    df = frame()
    est.fit(df)
    assert isinstance(est.feature_names_in_, np.ndarray) and est.feature_names_in_.dtype == object
    assert list(est.feature_names_in_) == COLUMNS
    assert est.n_features_in_ == 5


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_same_numbers_as_the_array(est):
    df = frame()
    from_frame = est.fit(df).transform(df)
    from_array = type(est)(**est.get_params()).fit(df.to_numpy()).transform(df.to_numpy())
    np.testing.assert_array_equal(from_frame, from_array)


def test_input_frame_untouched():
    df = frame()
    copy = df.copy(deep=True)
    pca = PCA(2, standardize=True).set_output(transform="pandas")
    pca.fit_transform(df)
    pca.transform(df)
    pd.testing.assert_frame_equal(df, copy)


def test_non_string_names_are_not_remembered():
    df = frame()
    df.columns = range(5)  # pandas' default names: integers
    pca = PCA(2).fit(df)
    assert not hasattr(pca, "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pca.transform(df.to_numpy())  # no names either side: no warning


def test_mixed_names_refused():
    df = frame()
    df.columns = ["a", "b", 3, "d", "e"]
    with pytest.raises(TypeError, match=r"all column names are strings.*\['int', 'str'\]"):
        PCA(2).fit(df)


def test_refit_on_array_forgets_names():
    df = frame()
    pca = PCA(2).fit(df)
    pca.fit(df.to_numpy())
    assert not hasattr(pca, "feature_names_in_")


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_reordered_columns_refused(est):
    df = frame()
    est.fit(df)
    with pytest.raises(ValueError, match="Feature names must be in the same order as they were in fit"):
        est.transform(df[COLUMNS[::-1]])


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_other_columns_refused_naming_them(est):
    df = frame()
    est.fit(df)
    renamed = df.rename(columns={"stem": "trunk"})
    message = (
        "The feature names should match those that were passed during fit.\n"
        "Feature names unseen at fit time:\n- trunk\n"
        "Feature names seen at fit time, yet now missing:\n- stem\n"
    )
    for method in (est.transform, est.score_samples, est.score):
        with pytest.raises(ValueError) as info:
            method(renamed)
        assert str(info.value) == message


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_names_on_one_side_only_warn(est):
    df = frame()
    with pytest.warns(UserWarning, match=f"X does not have valid feature names, but {type(est).__name__} was fitted with"):
        est.fit(df).transform(df.to_numpy())
    with pytest.warns(UserWarning, match=f"X has feature names, but {type(est).__name__} was fitted without"):
        est.fit(df.to_numpy()).transform(df)


def test_nullable_dtypes_read_as_float():
    df = frame(n=10)
    nullable = df.astype("Float64")
    np.testing.assert_array_equal(PCA(2).fit(nullable).components_, PCA(2).fit(df).components_)
    nullable.iloc[2, 1] = pd.NA
    with pytest.raises(ValueError, match="NaN or infinity"):
        PCA(2).fit(nullable)


def _with(column, values, n=20):
    return frame(n=n).assign(**{column: values})


NOT_NUMERIC = {
    "date": lambda n: pd.date_range("2020-01-01", periods=n),
    "date_utc": lambda n: pd.date_range("2020-01-01", periods=n, tz="UTC"),
    "duration": lambda n: pd.to_timedelta(np.arange(n), "s"),
    "flag": lambda n: np.arange(n) % 2 == 0,
    "flag_nullable": lambda n: pd.array(np.arange(n) % 2 == 0, dtype="boolean"),
    "code": lambda n: [str(i) for i in range(n)],  # numeric strings
    "group": lambda n: pd.Categorical(np.arange(n) % 3),
    "mixed": lambda n: np.array([1.0] * (n - 1) + ["2"], dtype=object),
}


@pytest.mark.parametrize("fit", [PCA(2).fit, PPCA(2).fit, pcalib.pca_svd, pcalib.covariance],
                         ids=["PCA", "PPCA", "pca_svd", "covariance"])
@pytest.mark.parametrize("column", sorted(NOT_NUMERIC))
def test_non_numeric_columns_refused_by_name(column, fit):
    """Issue 22 item 8: a datetime column among floats was read as epoch microseconds,
    bool and numeric-string columns were accepted mixed in and refused alone. Every
    such column is refused, named, whether mixed in or alone (bools too: pcalib
    refuses a NumPy bool array)."""
    mixed = _with(column, NOT_NUMERIC[column](20))
    alone = pd.DataFrame({column: NOT_NUMERIC[column](20), "other": NOT_NUMERIC[column](20)})
    for X in (mixed, alone):
        with pytest.raises(TypeError, match=f"these columns do not: '{column}' \\(dtype"):
            fit(X)


def test_numeric_columns_of_every_kind_accepted():
    """Integer, float, nullable and object columns of numbers are read as float64:
    the same fit as the float array."""
    df = frame(n=20)
    as_kinds = df.assign(
        sepal=df["sepal"].astype(object), petal=pd.array(np.arange(20), dtype="Int64"),
        stem=np.arange(20, dtype=np.uint8),
    )
    expected = PCA(2).fit(as_kinds.to_numpy(dtype=float))
    np.testing.assert_allclose(PCA(2).fit(as_kinds).components_, expected.components_, atol=1e-14)


def test_bool_refused_as_numpy_array_too():
    with pytest.raises(TypeError, match="got dtype bool"):
        PCA(1).fit(np.arange(20).reshape(10, 2) % 3 == 0)


# -- names out ----------------------------------------------------------------------------


def test_feature_names_out_as_scikit_learn_names_them():
    from sklearn.decomposition import PCA as SkPCA

    df = frame()
    expected = SkPCA(3).fit(df).get_feature_names_out()
    out = PCA(3).fit(df).get_feature_names_out()
    assert out.dtype == object and list(out) == list(expected) == ["pca0", "pca1", "pca2"]
    assert list(PPCA(2).fit(df).get_feature_names_out()) == ["ppca0", "ppca1"]


def test_feature_names_out_follows_the_chosen_k():
    df = frame()
    pca = PCA(0.9).fit(df)
    assert len(pca.get_feature_names_out()) == pca.n_components_ == pca.transform(df).shape[1]


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_input_features_checked(est):
    df = frame()
    est.fit(df)
    assert list(est.get_feature_names_out(COLUMNS)) == list(est.get_feature_names_out())
    with pytest.raises(ValueError, match="input_features is not equal to feature_names_in_"):
        est.get_feature_names_out(["a", "b", "c", "d", "e"])
    est.fit(df.to_numpy())
    with pytest.raises(ValueError, match=r"input_features should have length equal to number of features \(5\), got 2"):
        est.get_feature_names_out(["a", "b"])


@pytest.mark.parametrize("est", [PCA(2), PPCA(2)], ids=repr)
def test_feature_names_out_before_fit(est):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        est.get_feature_names_out()


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_set_output_pandas_keeps_the_index(est):
    df = frame()
    plain = type(est)(**est.get_params())
    scores = plain.fit(df).transform(df)
    est.set_output(transform="pandas")
    for out in (est.fit(df).transform(df), est.fit_transform(df)):
        assert isinstance(out, pd.DataFrame)
        assert out.index.equals(df.index)
        assert list(out.columns) == list(est.get_feature_names_out())
        # fit_transform's scores come from the decomposition itself: equal to round-off
        np.testing.assert_allclose(out.to_numpy(), scores, rtol=1e-12, atol=1e-12)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        from_array = est.transform(df.to_numpy()[:3])
    assert isinstance(from_array, pd.DataFrame) and list(from_array.index) == [0, 1, 2]


def test_set_output_default_and_none():
    df = frame()
    pca = PCA(2).set_output(transform="pandas")
    assert pca.set_output() is pca  # None: unchanged
    assert isinstance(pca.fit_transform(df), pd.DataFrame)
    pca.set_output(transform="default")
    assert isinstance(pca.fit_transform(df), np.ndarray)
    assert isinstance(pca.transform(df), np.ndarray)


def test_set_output_refuses_unknown_containers():
    with pytest.raises(ValueError, match=r"transform must be one of \('default', 'pandas'\) or None, got 'polars'"):
        PCA().set_output(transform="polars")


def test_float32_frame_gives_float32_frame():
    df = frame().astype(np.float32)
    out = PCA(2).set_output(transform="pandas").fit_transform(df)
    assert all(out.dtypes == np.float32)


def test_scikit_learns_global_output_setting():
    from sklearn import config_context

    df = frame()
    pca = PCA(2).fit(df)
    with config_context(transform_output="pandas"):
        assert isinstance(pca.transform(df), pd.DataFrame)
        assert isinstance(pca.set_output(transform="default").transform(df), np.ndarray)
    assert isinstance(PCA(2).fit(df).transform(df), np.ndarray)
    with config_context(transform_output="polars"), pytest.raises(ValueError, match="can only return"):
        PCA(2).fit(df).transform(df)


def test_clone_and_pickle_keep_names_and_output():
    from sklearn.base import clone

    df = frame()
    pca = PCA(2).set_output(transform="pandas").fit(df)
    assert isinstance(clone(pca).fit(df).transform(df), pd.DataFrame)
    again = pickle.loads(pickle.dumps(pca))
    assert list(again.feature_names_in_) == COLUMNS
    pd.testing.assert_frame_equal(again.transform(df), pca.transform(df))


def test_pipeline_with_pandas_output():
    """StandardScaler -> pcalib.PCA -> LogisticRegression, set_output(transform="pandas")."""
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    iris = load_iris(as_frame=True)
    X, y = iris.data, iris.target
    X.index = [f"flower{i}" for i in range(len(X))]

    def pipeline():
        return make_pipeline(StandardScaler(), PCA(2), LogisticRegression(max_iter=500))

    framed = pipeline().set_output(transform="pandas").fit(X, y)
    plain = pipeline().fit(X.to_numpy(), y)
    pca = framed.named_steps["pca"]
    assert list(pca.feature_names_in_) == list(X.columns)  # StandardScaler passed the names on
    scores = framed[:-1].transform(X)
    assert isinstance(scores, pd.DataFrame) and scores.index.equals(X.index)
    assert list(scores.columns) == ["pca0", "pca1"]
    assert list(framed.named_steps["logisticregression"].feature_names_in_) == ["pca0", "pca1"]
    assert list(framed[:-1].get_feature_names_out()) == ["pca0", "pca1"]
    np.testing.assert_allclose(scores.to_numpy(), plain[:-1].transform(X.to_numpy()), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(framed.predict(X), plain.predict(X.to_numpy()))
    assert framed.score(X, y) > 0.85


# -- scikit-learn's own pandas checks (public, not part of check_estimator) ------------


@pytest.mark.parametrize("est", [PCA(), PPCA(1)], ids=repr)
@pytest.mark.parametrize(
    "check",
    [
        "check_dataframe_column_names_consistency",
        "check_transformer_get_feature_names_out",
        "check_transformer_get_feature_names_out_pandas",
        "check_set_output_transform",
        "check_set_output_transform_pandas",
        "check_global_output_transform_pandas",
    ],
)
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.filterwarnings("ignore:X has feature names")
def test_scikit_learn_pandas_checks(est, check):
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)(type(est).__name__, est)

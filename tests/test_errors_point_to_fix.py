"""Errors that point to the fix (issue 33): a NaN names its column and offers the
missing-value fits, a column of text offers pandas.to_numeric, pcoa of a data matrix
offers pdist. Each test also applies the fix the message suggests, to show it works."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import pcalib
from pcalib import PCA

pd = pytest.importorskip("pandas")

FIXES = (r"PCA\(n_components=k, missing='regularized'\).*pcalib\.PPCA\(k\)\.fit\(X\).*"
         r"pcalib\.impute_pca\(X, k\)")


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.standard_normal((30, 4)) @ np.diag([3.0, 2.0, 1.0, 0.5]),
                      columns=["height", "weight", "age", "income"])
    df.iloc[4, 2] = np.nan
    return df


def test_nan_in_a_dataframe_names_the_column_and_the_fixes():
    df = _frame()
    with pytest.raises(ValueError, match=r"at position \(4, 2\)\), in column 'age': a missing value.*" + FIXES):
        PCA(2).fit(df)
    # each fix the message names runs on this very frame
    filled = PCA(2, missing="regularized").fit(df)
    assert np.all(np.isfinite(filled.components_))
    assert np.all(np.isfinite(pcalib.PPCA(2).fit(df).W_))
    completed, _ = pcalib.impute_pca(df, 2)
    assert not np.isnan(np.asarray(completed)).any()
    np.testing.assert_allclose(PCA(2).fit(df.dropna()).mean_, df.dropna().mean().to_numpy())


@pytest.mark.parametrize("kind", ["numpy", "sparse", "dask"])
def test_nan_in_an_array_names_the_column_index(kind):
    X = _frame().to_numpy()
    data = {"numpy": lambda: X, "sparse": lambda: sp.csr_matrix(X),
            "dask": lambda: pytest.importorskip("dask.array").from_array(X, chunks=(10, 4))}[kind]()
    with pytest.raises(ValueError, match=r"at position \(4, 2\)\), in column 2: a missing value.*" + FIXES):
        PCA(2).fit(data)


def test_nan_in_transform_and_partial_fit_names_the_column():
    df = _frame()
    fitted = PCA(2).fit(df.dropna())
    with pytest.raises(ValueError, match=r"in column 'age': a missing value.*" + FIXES):
        fitted.transform(df)
    with pytest.raises(ValueError, match=r"in column 'age': a missing value.*" + FIXES):
        PCA(2).partial_fit(df)


def test_infinity_names_the_column_without_missing_value_advice():
    X = _frame().fillna(0.0)
    X.iloc[7, 1] = -np.inf
    with pytest.raises(ValueError, match=r"\(the first, -inf, at position \(7, 1\)\), in column 'weight': "
                                         r"all entries must be finite$"):
        PCA(2).fit(X)


def test_text_column_suggests_to_numeric_and_the_suggestion_works():
    df = _frame().fillna(1.0)
    df["income"] = ["12.5", "x", *[str(v) for v in df["income"].iloc[2:]]]
    with pytest.raises(TypeError, match=r"'income' \(dtype .*X\['income'\] = pd\.to_numeric\(X\['income'\], "
                                        r"errors='coerce'\)"):
        PCA(2).fit(df)
    with pytest.raises(TypeError, match=r"pd\.to_numeric"):
        PCA(2).fit(df.astype({"income": "string"}))
    df["income"] = pd.to_numeric(df["income"], errors="coerce")  # the fix: "x" becomes NaN
    assert df["income"].isna().sum() == 1
    assert np.all(np.isfinite(PCA(2, missing="regularized").fit(df).components_))


def test_object_array_of_text_suggests_to_numeric():
    with pytest.raises(TypeError, match=r"could not convert string to float: 'x'; text that holds numbers "
                                        r"converts with pandas\.to_numeric\(\.\.\., errors='coerce'\)"):
        PCA(1).fit(np.array([[1.0, "x"], [2.0, "3"], [0.5, "1"]], dtype=object))


def test_pcoa_of_a_data_matrix_suggests_pdist_and_the_suggestion_works():
    from scipy.spatial.distance import pdist, squareform

    X = _frame().fillna(0.0).to_numpy()
    with pytest.raises(ValueError, match=r"got shape \(30, 4\).*not a data matrix.*"
                                         r"squareform\(scipy\.spatial\.distance\.pdist\(X\)\)"):
        pcalib.pcoa(X)
    coordinates = pcalib.pcoa(squareform(pdist(X)), k=2).coordinates
    scores = PCA(2, solver="svd").fit_transform(X)
    np.testing.assert_allclose(np.abs(coordinates), np.abs(scores), atol=1e-10)

"""Labelled tables (issue 33): ``to_frame(name)`` on every estimator, one naming scheme.

The expected labels are written out here (the DataFrame's own column names and index,
``PC1``...), not read from the code under test; the values must be the attribute's.
"""

import numpy as np
import pandas as pd
import pytest

import pcalib
from pcalib._utils.tables import TABLES

rng = np.random.default_rng(20261128)
DATA = pd.DataFrame(rng.normal(size=(30, 5)), columns=list("abcde"),
                    index=[f"r{i}" for i in range(30)])
TABLE = pd.DataFrame(rng.integers(1, 20, size=(6, 4)), columns=list("wxyz"), index=list("ABCDEF"))
CATEGORIES = pd.DataFrame({"u": rng.choice(list("pq"), 30), "v": rng.choice(list("rst"), 30),
                           "w": rng.choice(list("mn"), 30)}, index=DATA.index)
TARGET = rng.normal(size=30)


def fitted(name, frame=True):
    # PCA with tol: its certified bounds are tables too (None without tol)
    estimator = pcalib.PCA(2, tol=1e-8) if name == "PCA" else getattr(pcalib, name)(2)
    data = {"CA": TABLE, "MCA": CATEGORIES}.get(name, DATA)
    if not frame and name != "MCA":
        data = data.to_numpy()
    return estimator.fit(data, TARGET) if name == "PCR" else estimator.fit(data)


#: what each dimension must be called, written out by hand
EXPECTED = {
    "axes": ["PC1", "PC2"],
    "features": list("abcde"),
    "rows": [f"r{i}" for i in range(30)],
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_is_labelled_and_holds_the_attributes_values(name):
    model = fitted(name)
    assert model.tables_ == list(TABLES[name])
    for table in model.tables_:
        frame = model.to_frame(table)
        values = np.asarray(getattr(model, table))
        assert np.array_equal(frame.to_numpy().reshape(values.shape), values), table
        labels = [list(frame.index)] + ([list(frame.columns)] if values.ndim == 2 else [])
        for kind, got in zip(TABLES[name][table], labels):
            if kind == "categories":
                expected = list(model.category_names_)
            elif name == "CA" and kind == "rows":
                expected = list("ABCDEF")
            elif name == "CA" and kind == "features":
                expected = list("wxyz")
            elif name == "MCA" and kind == "features":
                expected = ["u", "v", "w"]
            else:
                expected = EXPECTED[kind]
            assert got == expected, (table, kind)
        if values.ndim == 1:
            assert list(frame.columns) == [table.rstrip("_")]


@pytest.mark.parametrize("name", sorted(set(TABLES) - {"MCA"}))
def test_tables_of_an_array_fit_are_numbered(name):
    model = fitted(name, frame=False)
    frame = model.to_frame(model.tables_[0])
    kinds = TABLES[name][model.tables_[0]]
    labels = [list(frame.index), list(frame.columns)]
    for kind, got in zip(kinds, labels):
        if kind == "features":
            assert got == [f"x{j}" for j in range(model.n_features_in_)]
        elif kind == "rows":
            assert got == list(range(len(got)))


def test_a_table_is_a_copy_and_the_model_keeps_its_values():
    model = fitted("PCA")
    before = model.components_.copy()
    frame = model.to_frame("components_")
    frame.iloc[0, 0] = 1e9
    assert np.array_equal(model.components_, before)


def test_pca_tables_read_as_prcomp_and_rows_of_distances_keep_the_index():
    model = fitted("PCA")
    loadings = model.to_frame("loadings_")
    assert loadings.loc["c", "PC2"] == model.loadings_[2, 1]
    robust = fitted("RobustPCA")
    distances = robust.to_frame("orthogonal_distances_")
    assert distances.loc["r7", "orthogonal_distances"] == robust.orthogonal_distances_[7]


def test_unknown_table_and_unfitted_model_are_refused():
    with pytest.raises(ValueError, match="tables of PCA: components_, loadings_"):
        fitted("PCA").to_frame("bogus")
    with pytest.raises(pcalib.NotFittedError):
        pcalib.PCA(2).to_frame("components_")
    with pytest.raises(ValueError, match="components_bound_ is None for this fit"):
        pcalib.PCA(2).fit(DATA).to_frame("components_bound_")


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_valued_attribute_is_listed(name):
    """A fitted estimator's array attributes with rows of features, axes or rows are all
    in the registry, except the few that are inputs or solver internals."""
    internal = {"feature_names_in_", "X_fit_", "kernel_mean_", "coef_", "n_iter_",
                "loglik_history_", "all_eigenvalues_", "category_names_"}
    model = fitted(name)
    arrays = {key for key, value in vars(model).items()
              if key.endswith("_") and not key.startswith("_") and isinstance(value, np.ndarray)}
    missing = arrays - set(TABLES[name]) - (internal - ({"coef_"} if name == "PCR" else set()))
    assert not missing, missing

"""A Dask DataFrame, Series or Bag at every public entry point (issue 34, cut 3).

One function decides the kind of an input (``pcalib._utils.kinds.input_kind``). A Dask
DataFrame is read by PCA's Dask routes as its Dask array,
``X.to_dask_array(lengths=True)``, with ``feature_names_in_`` from its columns: the
result equals that of the Dask array bit for bit, and the NumPy result of the pandas
DataFrame to 1e-12. Everywhere else its data would be read in memory, and it is refused
with a TypeError that names the argument and the fix, before Dask computes anything. A
Dask Series or Bag is refused everywhere. Before, a Dask DataFrame was computed in full
behind the user's back at every entry point (PCA.transform returned NumPy, not a lazy
array), PCR and pcoa raised Dask's "Trying to convert ... to a boolean value", and a Bag
was "an object array holding dask.bag<...>".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pcalib

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
db = pytest.importorskip("dask.bag")
from dask.callbacks import Callback  # noqa: E402

rng = np.random.default_rng(34)
N, P = 60, 4
VALUES = rng.standard_normal((N, P)) @ np.diag([3.0, 2.0, 1.0, 0.5]) + 10.0
COLUMNS = ["height", "weight", "age", "income"]
FRAME = pd.DataFrame(VALUES, columns=COLUMNS)
FITTED = pcalib.PCA(2).fit(FRAME)  # in memory, with names
SCORES = pd.DataFrame(FITTED.transform(FRAME), columns=["pca0", "pca1"])


class _Computes(Callback):
    """Counts the graphs Dask computes while it is active."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def _start(self, dsk: object) -> None:
        self.count += 1


def _arrays(result: object) -> list[np.ndarray]:
    """The computed arrays of a result: a lazy Dask array is computed here (the caller
    has checked that it is lazy), a fitted estimator gives its attributes."""
    if isinstance(result, pcalib.PCA):
        return [result.components_, result.explained_variance_, result.singular_values_, result.mean_,
                np.asarray(result.noise_variance_)]
    if isinstance(result, pcalib.AndersonIntervals):
        return [result.explained_variance, result.components, result.explained_variance_interval,
                result.components_interval]
    return [np.asarray(result.compute() if hasattr(result, "compute") else result)]


def _partial_fit(X):
    """Batches of 15 rows: a Dask DataFrame's partitions, slices of the others (a Bag whole)."""
    if isinstance(X, (dd.DataFrame, dd.Series)):
        batches = [X.partitions[i] for i in range(X.npartitions)]
    else:
        batches = [X] if isinstance(X, db.Bag) else [X[start:start + 15] for start in range(0, N, 15)]
    model = pcalib.PCA(2)
    for batch in batches:
        model.partial_fit(batch)
    return model


#: entry point -> (its call, whether it returns a lazy Dask array for Dask input)
READ_AS_DASK = {
    "PCA.fit": (lambda X: pcalib.PCA(2).fit(X), False),
    "PCA.fit(solver='svd')": (lambda X: pcalib.PCA(2, solver="svd").fit(X), False),
    "PCA.fit(solver='randomized')": (lambda X: pcalib.PCA(2, solver="randomized").fit(X), False),
    "PCA.fit_transform": (lambda X: pcalib.PCA(2).fit_transform(X), True),
    "PCA.transform": (lambda X: FITTED.transform(X), True),
    "PCA.score_samples": (lambda X: FITTED.score_samples(X), True),
    "PCA.score": (lambda X: FITTED.score(X), False),
    "PCA.partial_fit": (_partial_fit, False),
    "anderson_intervals": (lambda X: pcalib.anderson_intervals(X, 2), False),  # PCA(solver="svd")
}


@pytest.mark.parametrize("entry", READ_AS_DASK)
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")  # the Dask array's call
def test_a_dask_dataframe_is_read_as_its_dask_array(entry):
    call, lazy = READ_AS_DASK[entry]
    frame = dd.from_pandas(FRAME, npartitions=4)
    result = call(frame)
    if lazy:
        assert isinstance(result, da.Array), type(result)
        assert result.chunks[0] == (15, 15, 15, 15)
    got = _arrays(result)
    as_array = _arrays(call(frame.to_dask_array(lengths=True)))
    in_memory = _arrays(call(FRAME))
    assert len(got) == len(as_array) == len(in_memory)
    for ours, dask_array, numpy in zip(got, as_array, in_memory):
        assert np.array_equal(ours, dask_array)  # the same computation, bit for bit
        scale = np.max(np.abs(numpy))
        np.testing.assert_allclose(ours, numpy, rtol=1e-12, atol=1e-12 * scale)
    if isinstance(result, pcalib.PCA):
        assert list(result.feature_names_in_) == COLUMNS


def test_the_names_of_a_dask_dataframe_are_checked_as_a_pandas_dataframe_s():
    renamed = dd.from_pandas(FRAME.rename(columns={"age": "years"}), npartitions=3)
    with pytest.raises(ValueError, match="Feature names unseen at fit time:\n- years"):
        FITTED.transform(renamed)
    fitted = pcalib.PCA(2).fit(dd.from_pandas(FRAME, npartitions=3))
    with pytest.warns(UserWarning, match="X does not have valid feature names, but PCA was fitted with"):
        fitted.transform(VALUES)
    back = FITTED.inverse_transform(dd.from_pandas(SCORES, npartitions=3))
    np.testing.assert_allclose(back.compute(), FITTED.inverse_transform(SCORES.to_numpy()), rtol=1e-14)


def test_a_dask_dataframe_with_a_column_of_text_or_holes_is_refused_by_name():
    text = dd.from_pandas(FRAME.assign(city=["Oslo", "Rome"] * (N // 2)), npartitions=3)
    with pytest.raises(TypeError, match=r"X must hold real numbers.*not: 'city' \(dtype"), _Computes() as seen:
        pcalib.PCA(2).fit(text)
    assert seen.count == 0
    holes = FRAME.astype({"age": "Float64"})
    holes.loc[37, "age"] = pd.NA
    with pytest.raises(ValueError, match=r"at position \(37, 2\)\), in column 'age': a missing value"):
        pcalib.PCA(2).fit(dd.from_pandas(holes, npartitions=3))


def _frame_refused(name: str, reader: str | None) -> str:
    where = f"{reader} reads its data in memory" if reader else "its data are read here in memory"
    return (f"{name} is a Dask DataFrame and {where}; pcalib does not compute it for you: pass "
            f"{name}.compute() (a pandas DataFrame; the column names are kept) if it fits in memory. "
            f"pcalib.PCA (without missing values) reads a Dask DataFrame chunk by chunk, as its Dask "
            f"array {name}.to_dask_array(lengths=True)")


def _collection_refused(name: str, kind: str) -> str:
    message = (f"{name} is a Dask collection of type {kind}, neither a dask.array.Array nor a "
               "dask.dataframe.DataFrame, and pcalib does not compute it for you: pass a Dask array "
               f"chunked by rows, a Dask DataFrame, or {name}.compute() if it fits in memory.")
    if kind == "Series":
        message += f" A Dask Series is one column: {name}.to_frame() is that column as a Dask DataFrame."
    return message


#: entry point -> (its call, the argument's name, the estimator that reads it in memory)
READ_IN_MEMORY = {
    "PCA(missing).fit": (lambda X: pcalib.PCA(2, missing="regularized").fit(X), "X", "PCA"),
    "PCA(missing).transform": (
        lambda X: pcalib.PCA(2, missing="regularized").fit(FRAME).transform(X), "X", "PCA"),
    "PPCA.fit": (lambda X: pcalib.PPCA(2).fit(X), "X", "PPCA"),
    "PPCA.transform": (lambda X: pcalib.PPCA(2).fit(FRAME).transform(X), "X", "PPCA"),
    "center": (pcalib.center, "X", None),
    "standardize": (pcalib.standardize, "X", None),
    "covariance": (pcalib.covariance, "X", None),
    "total_variance": (pcalib.total_variance, "X", None),
    "pca_eig": (lambda X: pcalib.pca_eig(X, 2), "X", None),
    "pca_svd": (lambda X: pcalib.pca_svd(X, 2), "X", None),
    "pca_gram": (lambda X: pcalib.pca_gram(X, 2), "X", None),
    "reconstruction_error": (lambda X: pcalib.reconstruction_error(X, 2), "X", None),
    "truncated_svd": (lambda X: pcalib.truncated_svd(X, 2), "A", None),
    "randomized_svd": (lambda X: pcalib.randomized_svd(X, 2, random_state=0), "A", None),
    "impute_pca": (lambda X: pcalib.impute_pca(X, 2), "X", None),
    "choose_k": (lambda X: pcalib.choose_k(method="kaiser", X=X), "X", None),
    "bootstrap_pca": (lambda X: pcalib.bootstrap_pca(X, 2, n_resamples=5, random_state=0), "X", None),
    "variable_cos2": (lambda X: pcalib.variable_cos2(FITTED, X), "X", None),
    "RobustPCA.fit": (lambda X: pcalib.RobustPCA(2, random_state=0).fit(X), "X", "RobustPCA"),
    "KernelPCA.fit": (lambda X: pcalib.KernelPCA(2).fit(X), "X", "KernelPCA"),
    "KernelPCA.transform": (lambda X: pcalib.KernelPCA(2).fit(FRAME).transform(X), "X", "KernelPCA"),
    "SparsePCA.fit": (lambda X: pcalib.SparsePCA(2, random_state=0).fit(X), "X", "SparsePCA"),
    "CA.fit": (lambda X: pcalib.CA(2).fit(X), "X", "CA"),
    "MCA.fit": (lambda X: pcalib.MCA(2).fit(X), "X", "MCA"),
    "PCR.fit": (lambda X: pcalib.PCR(2).fit(X, VALUES[:, 0]), "X", "PCR"),
    "clr": (pcalib.clr, "X", None),
    "pcoa": (lambda X: pcalib.pcoa(X, 2), "D", None),
}


def _lazy(kind: str, entry: str):
    """A Dask DataFrame, Series or Bag of the entry point's data (pcoa: distances)."""
    data = FRAME
    if entry == "pcoa":
        data = pd.DataFrame(np.sqrt(((VALUES[:, None] - VALUES[None]) ** 2).sum(-1)))
    if kind == "DataFrame":
        return dd.from_pandas(data, npartitions=4)
    if kind == "Series":
        return dd.from_pandas(data.iloc[:, 0], npartitions=4)
    return db.from_sequence(data.to_numpy().tolist(), npartitions=4)


REFUSED = [(entry, kind) for entry in READ_IN_MEMORY for kind in ("DataFrame", "Series", "Bag")] + [
    (entry, kind) for entry in READ_AS_DASK for kind in ("Series", "Bag")]


@pytest.mark.parametrize(("entry", "kind"), REFUSED, ids=[f"{entry}-{kind}" for entry, kind in REFUSED])
def test_a_dask_collection_read_in_memory_is_refused_before_it_is_computed(entry, kind):
    call, name, reader = READ_IN_MEMORY[entry] if entry in READ_IN_MEMORY else (READ_AS_DASK[entry][0], "X", None)
    data = _lazy(kind, entry)
    expected = _frame_refused(name, reader) if kind == "DataFrame" else _collection_refused(name, kind)
    with _Computes() as seen, pytest.raises(TypeError) as error:
        call(data)
    assert str(error.value) == expected
    assert seen.count == 0


def test_the_inverse_transform_of_a_dask_series_names_z():
    with pytest.raises(TypeError) as error:
        FITTED.inverse_transform(dd.from_pandas(SCORES["pca0"], npartitions=2))
    assert str(error.value) == _collection_refused("Z", "Series")


def test_each_fix_the_messages_name_runs():
    frame = dd.from_pandas(FRAME, npartitions=4)
    robust = pcalib.RobustPCA(2, random_state=0)
    np.testing.assert_array_equal(robust.fit(frame.compute()).components_,
                                  pcalib.RobustPCA(2, random_state=0).fit(FRAME).components_)
    assert list(robust.feature_names_in_) == COLUMNS
    one = pcalib.PCA(1).fit(dd.from_pandas(FRAME["age"], npartitions=4).to_frame())
    np.testing.assert_allclose(one.explained_variance_, [FRAME["age"].var()], rtol=1e-12)
    assert list(one.feature_names_in_) == ["age"]

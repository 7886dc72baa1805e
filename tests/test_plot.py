"""Tests of pcalib.plot (headless, Agg backend)."""

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.text import Annotation  # noqa: E402

import pcalib  # noqa: E402
from pcalib import plot  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(50, 4)) @ np.diag([3.0, 2.0, 1.0, 0.5])


def arrows(ax):
    return [c for c in ax.get_children() if isinstance(c, Annotation)]


def test_importing_pcalib_does_not_import_matplotlib():
    code = "import sys, pcalib, pcalib.plot; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_scree_from_array_and_result(data):
    res = pcalib.pca_svd(data)
    ax = plot.scree(res.explained_variance)
    assert isinstance(ax, Axes)
    (line,) = ax.get_lines()
    assert np.array_equal(line.get_xdata(), [1, 2, 3, 4])
    assert np.allclose(line.get_ydata(), res.explained_variance)
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    _, given = plt.subplots()
    assert plot.scree(res, ax=given, ratio=True) is given
    assert np.allclose(given.get_lines()[0].get_ydata(), res.explained_variance_ratio)


def test_scree_accepts_fitted_estimator(data):
    est = pcalib.PCA(n_components=3).fit(data)
    ax = plot.scree(est)
    assert np.allclose(ax.get_lines()[0].get_ydata(), est.explained_variance_)


def test_cumulative_variance_with_threshold(data):
    res = pcalib.pca_svd(data)
    ax = plot.cumulative_variance(res, threshold=0.9)
    lines = ax.get_lines()
    assert np.allclose(lines[0].get_ydata(), np.cumsum(res.explained_variance_ratio))
    k = pcalib.choose_k(res.explained_variance_ratio, 0.9)
    assert len(lines) == 3  # curve, threshold, chosen k
    assert lines[2].get_xdata()[0] == k
    assert ax.get_legend() is not None
    _, given = plt.subplots()
    assert plot.cumulative_variance([0.5, 0.3], ax=given, threshold=0.95) is given
    assert len(given.get_lines()) == 2  # threshold not reached: no vertical line
    assert len(plot.cumulative_variance([0.5, 0.5]).get_lines()) == 1


def test_biplot_points_and_arrows(data):
    res = pcalib.pca_svd(data)
    ax = plot.biplot(res, feature_names=["a", "b", "c", "d"], labels=np.arange(50) % 3)
    (points,) = ax.collections
    assert points.get_offsets().shape == (50, 2)
    assert np.allclose(points.get_offsets(), res.scores[:, :2])
    assert len(arrows(ax)) == 4
    assert {t.get_text() for t in ax.texts if not isinstance(t, Annotation)} == {"a", "b", "c", "d"}
    tips = np.array([a.xy for a in arrows(ax)])
    assert np.isclose(np.linalg.norm(tips, axis=1).max(), 0.8 * np.abs(res.scores[:, :2]).max())
    _, given = plt.subplots()
    assert plot.biplot(res.scores, res.components, ax=given) is given
    assert {t.get_text() for t in given.texts if not isinstance(t, Annotation)} == {"x1", "x2", "x3", "x4"}


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"scores": np.ones((5, 1)), "components": np.ones((1, 3))}, ValueError, "two components"),
        ({"scores": np.ones((5, 2))}, TypeError, "components is required"),
        ({"scores": np.ones((5, 2)), "components": np.eye(2), "feature_names": ["a"]}, ValueError, "feature_names"),
        ({"scores": np.ones((5, 2)), "components": np.eye(2), "labels": [1, 2]}, ValueError, "labels"),
        ({"scores": np.full((5, 2), np.nan), "components": np.eye(2)}, ValueError, "scores contains NaN"),
    ],
)
def test_biplot_rejects(kwargs, exc, words):
    with pytest.raises(exc, match=words):
        plot.biplot(**kwargs)


def test_projection_with_result_and_projections():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2)) @ np.array([[2.0, 1.0], [0.0, 0.5]]) + [5.0, -1.0]
    res = pcalib.pca_svd(X)
    ax = plot.projection(X, res, project=True)
    assert isinstance(ax, Axes)
    points, projections = ax.collections
    assert points.get_offsets().shape == (30, 2)
    P = np.asarray(projections.get_offsets())
    v = res.components[0]
    expected = res.mean + np.outer((X - res.mean) @ v, v)
    assert np.allclose(P, expected)
    assert len(ax.get_lines()) == 30  # one segment per point
    heads = arrows(ax)
    assert len(heads) == 2
    lengths = [np.linalg.norm(np.subtract(a.xy, a.xyann)) for a in heads]
    assert np.allclose(lengths, 2 * np.sqrt(res.explained_variance))
    assert np.allclose(heads[0].xyann, res.mean)


def test_projection_from_arrays():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 2)) * [3.0, 1.0]
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    _, given = plt.subplots()
    ax = plot.projection(X, Vt[:1], ax=given)
    assert ax is given
    (head,) = arrows(ax)
    assert np.isclose(np.linalg.norm(np.subtract(head.xy, head.xyann)), 2 * s[0] / np.sqrt(19))
    ax2 = plot.projection(X, Vt, mean=[0.0, 0.0], explained_variance=[4.0, 1.0])
    assert np.allclose(arrows(ax2)[0].xyann, [0, 0])
    assert np.isclose(np.linalg.norm(arrows(ax2)[1].xy), 2.0)


@pytest.mark.parametrize(
    "X, components, kwargs, exc, words",
    [
        (np.ones((5, 3)), np.eye(3), {}, ValueError, "X must have 2 columns"),
        (np.ones((5, 2)), None, {}, TypeError, "components is required"),
        (np.ones((5, 2)), np.ones((1, 3)), {}, ValueError, "components must have shape"),
        (np.ones((5, 2)), np.eye(2), {"mean": [0.0]}, ValueError, "mean must have shape"),
        (np.ones((5, 2)), np.eye(2), {"explained_variance": [1.0, -1.0]}, ValueError, "explained_variance"),
    ],
)
def test_projection_rejects(X, components, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        plot.projection(X, components, **kwargs)


@pytest.mark.parametrize(
    "func, arg, exc, words",
    [
        (plot.scree, [], ValueError, "non-empty 1-D"),
        (plot.scree, np.ones((2, 2)), ValueError, "1-D"),
        (plot.scree, [1.0, np.inf], ValueError, "NaN or infinity"),
        (plot.scree, "abc", TypeError, "explained_variance must be"),
        (plot.scree, object(), TypeError, "explained_variance must be"),
        (plot.cumulative_variance, [[0.5]], ValueError, "ratio must be a non-empty 1-D"),
    ],
)
def test_1d_inputs_rejected(func, arg, exc, words):
    with pytest.raises(exc, match=words):
        func(arg)


@pytest.mark.parametrize("threshold", [0.0, 1.5, "0.9"])
def test_cumulative_variance_rejects_threshold(threshold):
    with pytest.raises(ValueError, match="threshold must be"):
        plot.cumulative_variance([0.5, 0.5], threshold=threshold)


# -- issue 10 ------------------------------------------------------------------------

def test_projection_of_a_standardized_pca_draws_its_axes_in_the_data_units():
    """Issue 10, item 8. A PCA of standardized data finds axes v_j of the correlation
    matrix; in the data's units axis j points along D_s v_j. Reference: NumPy's
    eigenvectors of np.corrcoef and np.std."""
    rng = np.random.default_rng(3)
    X = np.c_[rng.normal(size=200), 0.3 * rng.normal(size=200)] @ np.array([[1.0, 40.0], [0.0, 20.0]])
    model = pcalib.PCA(standardize=True).fit(X)
    ax = plot.projection(X, model, project=True)
    sd = X.std(axis=0, ddof=1)
    lam, V = np.linalg.eigh(np.corrcoef(X, rowvar=False))
    for head, v, l in zip(arrows(ax), V.T[::-1], lam[::-1]):
        drawn = np.subtract(head.xy, head.xyann)
        np.testing.assert_allclose(np.abs(drawn), np.abs(2 * np.sqrt(l) * v * sd), rtol=1e-10)
        np.testing.assert_allclose(head.xyann, X.mean(axis=0), rtol=1e-12)
    first = np.subtract(arrows(ax)[0].xy, arrows(ax)[0].xyann)
    assert abs(first[1]) > 10 * abs(first[0])  # mostly along x_2, as the data are
    projections = np.asarray(ax.collections[1].get_offsets())
    v1 = V[:, -1]
    Z = (X - X.mean(axis=0)) / sd
    np.testing.assert_allclose(projections, X.mean(axis=0) + np.outer(Z @ v1, v1 * sd), rtol=1e-9)


def test_biplot_accepts_a_fitted_estimator(data):
    """Issue 10, items 8 and 10: a fitted PCA, as documented (it stores no scores)."""
    model = pcalib.PCA(2).fit(data)
    with pytest.raises(TypeError, match=r"fitted PCA stores no scores: .*biplot\(model, data=X\)"):
        plot.biplot(model)
    ax = plot.biplot(model, data=data)
    Xc = data - data.mean(axis=0)
    V = np.linalg.svd(Xc, full_matrices=False)[2][:2]
    np.testing.assert_allclose(np.abs(ax.collections[0].get_offsets()), np.abs(Xc @ V.T), rtol=1e-10)
    again = plot.biplot(model.transform(data), model)
    np.testing.assert_allclose(again.collections[0].get_offsets(), ax.collections[0].get_offsets())
    with pytest.raises(TypeError, match="data is only used"):
        plot.biplot(model.transform(data), model, data=data)


def test_scree_rejects_complex_input():
    """Issue 10, item 9: complex values were cast to real, discarding the imaginary part."""
    with pytest.raises(TypeError, match="must hold real numbers, got complex"):
        plot.scree(np.array([1 + 1j, 2.0]))


def test_cumulative_variance_accepts_a_float32_threshold():
    """Issue 10, item 10: "threshold must be a number in (0, 1], got np.float32(0.9)"."""
    ax = plot.cumulative_variance([0.5, 0.3, 0.2], threshold=np.float32(0.75))
    assert ax.get_lines()[-1].get_xdata()[0] == 2
    with pytest.raises(ValueError, match="threshold must be"):
        plot.cumulative_variance([0.5, 0.5], threshold=True)


def test_plot_without_matplotlib_says_how_to_install_it():
    """Issue 14, item 4: a clear ImportError naming the extra, matplotlib hidden."""
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['matplotlib.pyplot'] = None\n"
        "import pcalib\n"
        "try:\n"
        "    pcalib.plot.scree([2.0, 1.0])\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install matplotlib" in out.stdout


def test_scree_and_cumulative_variance_take_any_fitted_estimator():
    """Issue 33: CA and MCA name their spectrum eigenvalues_ / explained_inertia_ratio_;
    RobustPCA and SparsePCA name it as PCA does. Each plot shows the model's own values."""
    rng = np.random.default_rng(3)
    table = rng.integers(1, 30, size=(6, 5))
    data = rng.normal(size=(60, 4)) * [3.0, 2.0, 1.0, 0.5]
    for model, values, shares in [
        (pcalib.CA(3).fit(table), "eigenvalues_", "explained_inertia_ratio_"),
        (pcalib.RobustPCA(3).fit(data), "explained_variance_", "explained_variance_ratio_"),
        (pcalib.SparsePCA(3, n_nonzero=2).fit(data), "explained_variance_", "explained_variance_ratio_"),
    ]:
        (line,) = plot.scree(model).get_lines()
        assert np.array_equal(line.get_ydata(), getattr(model, values))
        (line,) = plot.scree(model, ratio=True).get_lines()
        assert np.array_equal(line.get_ydata(), getattr(model, shares))
        line = plot.cumulative_variance(model).get_lines()[0]
        assert np.allclose(line.get_ydata(), np.cumsum(getattr(model, shares)))
    plt.close("all")

"""Tests of pcalib.plot.ca_map (headless, Agg backend): the coordinates each kind of map
draws, from first principles, the axis labels, and labels that do not overlap."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.text import Annotation  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402

import pcalib  # noqa: E402

HEC = pcalib.datasets.load_hair_eye_color()


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def svd_of_residuals(N):
    P = N / N.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    U, s, Vt = np.linalg.svd((P - np.outer(r, c)) / np.sqrt(np.outer(r, c)))
    return U[:, :3] / np.sqrt(r)[:, None], s[:3], Vt[:3].T / np.sqrt(c)[:, None]


@pytest.mark.parametrize("kind", ["symmetric", "rows", "columns"])
def test_each_kind_draws_its_coordinates(kind):
    ca = pcalib.CA(3).fit(HEC.counts)
    ax = pcalib.plot.ca_map(ca, kind, row_labels=HEC.row_names)
    rows, columns = (c.get_offsets() for c in ax.collections)
    A, s, B = svd_of_residuals(HEC.counts.astype(float))  # standard coordinates
    F = A * s if kind != "columns" else A
    G = B * s if kind != "rows" else B
    flip = np.where(np.sum(G[:, :2] * np.asarray(columns), axis=0) < 0, -1, 1)
    assert_allclose(np.asarray(rows), F[:, :2] * flip, atol=1e-12)
    assert_allclose(np.asarray(columns), G[:, :2] * flip, atol=1e-12)
    assert ax.get_xlabel() == "Dim 1 (89.4%)" and ax.get_ylabel() == "Dim 2 (9.5%)"
    assert ax.get_aspect() == 1.0


def test_labels_do_not_overlap_and_name_the_points():
    ca = pcalib.CA(3).fit(HEC.counts)
    fig, ax = plt.subplots(figsize=(5, 4))
    pcalib.plot.ca_map(ca, ax=ax, row_labels=HEC.row_names, column_labels=HEC.column_names)
    labels = [c for c in ax.get_children() if isinstance(c, Annotation)]
    assert sorted(a.get_text() for a in labels) == sorted(HEC.row_names + HEC.column_names)
    renderer = fig.canvas.get_renderer()
    boxes = [a.get_window_extent(renderer) for a in labels]
    for i in range(len(boxes)):
        for j in range(i):
            assert not boxes[i].overlaps(boxes[j]), (labels[i].get_text(), labels[j].get_text())


def test_mca_map_labels_the_most_contributing_categories():
    pytest.importorskip("pandas")
    frame = pcalib.datasets.load_poison().to_frame().iloc[:, 2:]
    mca = pcalib.MCA(4).fit(frame)
    ax = pcalib.plot.ca_map(mca, dims=(2, 3), max_labels=5)
    individuals, categories = (c.get_offsets() for c in ax.collections)
    assert individuals.shape == (55, 2) and categories.shape == (22, 2)
    shown = {a.get_text() for a in ax.get_children() if isinstance(a, Annotation)}
    weight = mca.column_contributions_[:, 2:4] @ mca.eigenvalues_[2:4]
    assert shown == set(mca.category_names_[np.argsort(-weight)[:5]])
    assert "Fish_Fish_n" in shown
    assert ax.get_xlabel().startswith("Dim 3 (") and ax.get_ylabel().startswith("Dim 4 (")


def test_bad_arguments_are_named():
    ca = pcalib.CA(2).fit(HEC.counts)
    with pytest.raises(ValueError, match="kind must be one of"):
        pcalib.plot.ca_map(ca, "biplot")
    with pytest.raises(ValueError, match=r"dims must be two distinct axes in 0..1"):
        pcalib.plot.ca_map(ca, dims=(0, 2))
    with pytest.raises(TypeError, match="fitted pcalib.CA or pcalib.MCA"):
        pcalib.plot.ca_map(pcalib.CA(2))

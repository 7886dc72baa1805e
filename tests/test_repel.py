"""The one label placer of pcalib.plot (repel_labels, used by biplot, correlation_circle
and ca_map): labels keep off each other, off the points and arrows, and inside the axes."""

import numpy as np
import pytest

import pcalib

plt = pytest.importorskip("matplotlib.pyplot")


def drawn_boxes(ax, texts):
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    return np.array([t.get_window_extent(renderer).extents for t in texts])


def clr_budgets():
    """The clr biplot data of chapter 17: one strong axis, five parts."""
    rng = np.random.default_rng(4)
    income = rng.normal(size=300)
    log_shares = (np.outer(income, [-0.6, 0.0, 0.3, 0.5, -0.2]) + 0.15 * rng.normal(size=(300, 5))
                  + np.log([30, 35, 12, 8, 15]))
    return pcalib.clr(pcalib.closure(np.exp(log_shares)))


def test_arrow_labels_keep_off_every_arrow():
    # the old placer pushed labels apart from each other only: 'housing', 'other' and
    # 'transport' sat on arrows of the clr biplot (review ch17-1, finding 9)
    Y = clr_budgets()
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    pcalib.plot.biplot(pcalib.PCA().fit(Y), data=Y, alpha=0, ax=ax, arrow_scale=4.0,
                       feature_names=["food", "housing", "transport", "leisure", "other"])
    labels = [t for t in ax.texts if t.get_text()]
    boxes = drawn_boxes(ax, labels)
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert len(labels) == len(arrows) == 5
    for arrow in arrows:
        ends = ax.transData.transform(np.array([arrow.xyann, arrow.xy], dtype=float))
        along = ends[0] + np.linspace(0, 1, 200)[:, None] * (ends[1] - ends[0])
        inside = ((along[:, None, :] > boxes[None, :, :2]) & (along[:, None, :] < boxes[None, :, 2:])).all(axis=2)
        assert not inside.any(), [labels[j].get_text() for j in np.flatnonzero(inside.any(axis=0))]
    plt.close(fig)


def test_point_labels_keep_off_the_points_and_inside_the_axes():
    # the hair and eye map: with the old ca_map placer 'Blond' left the axes
    hec = pcalib.datasets.load_hair_eye_color()
    ca = pcalib.CA(3).fit(hec.counts)
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    pcalib.plot.ca_map(ca, ax=ax, row_labels=hec.row_names, column_labels=[f"{e} eyes" for e in hec.column_names])
    labels = [t for t in ax.texts if t.get_text()]
    boxes = drawn_boxes(ax, labels)
    frame = ax.get_window_extent(fig.canvas.get_renderer()).extents
    assert np.all(boxes[:, :2] >= frame[:2] - 0.5) and np.all(boxes[:, 2:] <= frame[2:] + 0.5)
    points = np.vstack([c.get_offset_transform().transform(c.get_offsets()) for c in ax.collections])
    inside = ((points[:, None, :] > boxes[None, :, :2]) & (points[:, None, :] < boxes[None, :, 2:])).all(axis=2)
    assert not inside.any()
    plt.close(fig)


def test_push_apart_separates_boxes_and_keeps_them_in_the_frame():
    from pcalib._utils.repel import push_apart

    boxes = np.array([[10.0, 10, 50, 20], [12, 12, 52, 22], [14, 11, 54, 21]])  # a pile
    frame = np.array([0.0, 0, 200, 100])
    out = push_apart(boxes, frame, margin=2.0, max_iter=100)
    for i in range(3):
        for j in range(i):
            w = min(out[i, 2], out[j, 2]) - max(out[i, 0], out[j, 0])
            h = min(out[i, 3], out[j, 3]) - max(out[i, 1], out[j, 1])
            assert w <= 0.5 or h <= 0.5
    np.testing.assert_allclose(out[:, 2:] - out[:, :2], boxes[:, 2:] - boxes[:, :2])  # sizes kept
    assert np.all(out[:, :2] >= 0) and np.all(out[:, 2:] <= [200, 100])


def test_choose_places_takes_the_first_free_place_around_the_anchor():
    from pcalib._utils.repel import choose_places

    box = np.array([[100.0, 95, 140, 105]])          # right of its anchor, on an obstacle
    anchor = np.array([[95.0, 100]])
    obstacle = np.array([[110.0, 90, 150, 110]])     # the right side is taken
    out = choose_places(box, anchor, obstacle, np.array([0.0, 0, 300, 300]), gap=5.0)
    # above the anchor (centred, bottom edge 5 px up) still touches the obstacle's corner;
    # the next place in order, left of the anchor (right edge 5 px away), is free
    np.testing.assert_allclose(out[0], [50, 95, 90, 105])

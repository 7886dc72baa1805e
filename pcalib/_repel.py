"""Labels that do not pile up: a deterministic push-apart of overlapping text boxes
(the figures of :mod:`pcalib.plot`; matplotlib is not imported here, the axes and
texts are passed in)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["repel_labels"]


def repel_labels(ax: Any, texts: list[Any], *, max_iter: int = 100, pad: float = 2.0) -> None:
    r"""Push apart text labels whose boxes overlap, deterministically.

    Each label is a box on the page (display units, after the axes' aspect is
    applied). Every round visits the pairs (i, j), i < j, in order; two boxes that
    overlap (with `pad` points of margin) are moved apart along the direction where
    the overlap is smaller, each by half of it (and half a pixel); a round moves every
    box by the sum of its pushes. Rounds stop when no overlap exceeds half a pixel or
    after `max_iter`. Labels are moved
    in place (their anchors, the points and arrow tips, do not move); boxes are kept
    inside the axes, and a label moved farther than its height is joined to its
    anchor by a thin grey line. The same figure gives the same positions every time.

    Parameters
    ----------
    ax : matplotlib Axes
    texts : list of matplotlib Text (or Annotation)
    max_iter : int, default 100
    pad : float, default 2
        Margin between boxes, in points.
    """
    texts = [t for t in texts if t.get_text()]
    if len(texts) < 2:
        return
    figure = ax.figure
    ax.apply_aspect()
    renderer = figure.canvas.get_renderer()
    margin = pad * figure.dpi / 72
    boxes = np.array([t.get_window_extent(renderer).extents for t in texts])  # x0, y0, x1, y1
    start = boxes.copy()
    frame = ax.get_window_extent(renderer).extents
    size = boxes[:, 2:] - boxes[:, :2]
    later = np.arange(len(texts))[:, None] > np.arange(len(texts))  # i after j: ties go up
    for _ in range(int(max_iter)):
        centre = (boxes[:, :2] + boxes[:, 2:]) / 2
        gap = centre[:, None, :] - centre[None, :, :]  # (i, j, axis)
        overlap = (size[:, None, :] + size[None, :, :]) / 2 + margin - np.abs(gap)
        hit = (overlap > 0.5).all(axis=2) & ~np.eye(len(texts), dtype=bool)
        if not hit.any():
            break
        side = np.where(gap != 0, np.sign(gap), np.where(later, 1.0, -1.0)[:, :, None])
        # a box against the frame cannot move further that way: then move across
        low, high = boxes[:, :2] <= frame[:2] + 0.5, boxes[:, 2:] >= frame[2:] - 0.5
        blocked = np.where(side > 0, high[:, None, :], low[:, None, :])  # i, moving away from j
        blocked = blocked | np.swapaxes(blocked, 0, 1)  # or j, moving away from i
        cost = np.where(blocked, np.inf, overlap)
        along_x = cost[:, :, 0] <= cost[:, :, 1]
        push = np.zeros_like(centre)
        step = overlap / 2 + 0.5
        push[:, 0] = np.sum(np.where(hit & along_x, side[:, :, 0] * step[:, :, 0], 0.0), axis=1)
        push[:, 1] = np.sum(np.where(hit & ~along_x, side[:, :, 1] * step[:, :, 1], 0.0), axis=1)
        boxes[:, :2] += push
        boxes[:, 2:] += push
        inside = np.clip(boxes[:, :2], frame[:2], frame[2:] - size)
        boxes[:, 2:] += inside - boxes[:, :2]
        boxes[:, :2] = inside
    moved = boxes[:, :2] - start[:, :2]
    inverse = ax.transData.inverted()
    for text, shift, box in zip(texts, moved, boxes):
        if not shift.any():
            continue
        annotation = getattr(text, "xyann", None) is not None and text.get_anncoords() == "offset points"
        anchor = ax.transData.transform(text.xy if annotation else text.get_position())
        if annotation:
            text.xyann = tuple(np.asarray(text.xyann) + shift * 72 / figure.dpi)
        else:
            text.set_position(inverse.transform(anchor + shift))
        if np.hypot(*shift) > box[3] - box[1]:  # far from its point: a leader line to the box
            end = np.clip(anchor, box[:2], box[2:])
            line = inverse.transform(np.vstack([anchor, end]))
            ax.plot(line[:, 0], line[:, 1], color="0.6", lw=0.5, zorder=1.5, scalex=False, scaley=False)

"""Labels that do not pile up (the figures of :mod:`pcalib.plot`; matplotlib is not
imported here, the axes and texts are passed in).

Two deterministic stages on the boxes of the labels in display units: each label first
takes the place around its anchor that covers least of the other labels, the points and
the arrows (:func:`choose_places`), then the boxes that still overlap are pushed apart
(:func:`push_apart`)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["choose_places", "push_apart", "repel_labels"]

#: Where a label may go around its anchor: (dx, dy) in units of the gap, the side of
#: the box that faces the anchor given by the signs. Right first (the usual place),
#: then above, left, below, the diagonals, and the same three gaps away.
_DIRECTIONS = np.array(
    [(r * dx, r * dy) for r in (1, 3) for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))],
    dtype=float,
)
#: Half the side of the square kept free around a point, and around each sample of an
#: arrow, in display pixels.
_POINT_RADIUS, _ARROW_RADIUS = 3.0, 1.5


def _shared_area(box: np.ndarray, others: np.ndarray) -> float:
    """Total area that `box` (x0, y0, x1, y1) shares with the rows of `others`."""
    if others.size == 0:
        return 0.0
    w = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])
    h = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])
    return float(np.sum(np.clip(w, 0, None) * np.clip(h, 0, None)))


def _obstacles(ax: Any) -> np.ndarray:
    """Small boxes (x0, y0, x1, y1, display units) around the scatter points of `ax` and
    along its arrows (annotations drawn with an arrow from a data point to a data point)."""
    centres, radii = [], []
    for collection in ax.collections:
        offsets = np.asarray(collection.get_offsets(), dtype=float).reshape(-1, 2)
        if offsets.size:
            centres.append(collection.get_offset_transform().transform(offsets))
            radii.append(np.full(len(offsets), _POINT_RADIUS))
    for text in ax.texts:
        if getattr(text, "arrow_patch", None) is None or text.get_anncoords() != "data":
            continue
        ends = ax.transData.transform(np.array([text.xyann, text.xy], dtype=float))
        steps = max(2, int(np.hypot(*(ends[1] - ends[0])) / (2 * _ARROW_RADIUS)))
        centres.append(ends[0] + np.linspace(0, 1, steps)[:, None] * (ends[1] - ends[0]))
        radii.append(np.full(steps, _ARROW_RADIUS))
    if not centres:
        return np.zeros((0, 4))
    c, r = np.vstack(centres), np.concatenate(radii)[:, None]
    return np.column_stack([c - r, c + r])


def choose_places(boxes: np.ndarray, anchors: np.ndarray, obstacles: np.ndarray, frame: np.ndarray, gap: float) -> np.ndarray:
    """Greedy first stage: label i, in order, keeps its box or moves it to one of the
    places around ``anchors[i]`` (:data:`_DIRECTIONS`, `gap` pixels from the anchor),
    whichever covers the least area of the labels already placed and the `obstacles`,
    a box leaving `frame` costing its area outside. Returns the new boxes."""
    boxes = boxes.copy()
    size = boxes[:, 2:] - boxes[:, :2]
    for i in range(len(boxes)):
        # the lower-left corner of each candidate: the side facing the anchor is `gap` away
        corner = anchors[i] + _DIRECTIONS * gap - size[i] * (1 - np.sign(_DIRECTIONS)) / 2
        candidates = np.vstack([boxes[i], np.column_stack([corner, corner + size[i]])])
        best, best_cost = boxes[i], np.inf
        for candidate in candidates:
            inside = np.clip(candidate, np.tile(frame[:2], 2), np.tile(frame[2:], 2))
            outside = np.prod(size[i]) - np.prod(np.clip(inside[2:] - inside[:2], 0, None))
            cost = _shared_area(candidate, boxes[:i]) + _shared_area(candidate, obstacles) + outside
            if cost < best_cost:
                best, best_cost = candidate, cost
            if cost == 0:
                break
        boxes[i] = best
    return boxes


def push_apart(boxes: np.ndarray, frame: np.ndarray, margin: float, max_iter: int) -> np.ndarray:
    """Second stage: every round visits the pairs (i, j), i < j; two boxes that overlap
    (with `margin` pixels) move apart along the direction where the overlap is smaller,
    each by half of it (and half a pixel); boxes stay inside `frame`. Rounds stop when no
    overlap exceeds half a pixel or after `max_iter`. Returns the new boxes."""
    boxes = boxes.copy()
    size = boxes[:, 2:] - boxes[:, :2]
    m = len(boxes)
    later = np.arange(m)[:, None] > np.arange(m)  # i after j: ties go up
    for _ in range(int(max_iter)):
        centre = (boxes[:, :2] + boxes[:, 2:]) / 2
        gap = centre[:, None, :] - centre[None, :, :]  # (i, j, axis)
        overlap = (size[:, None, :] + size[None, :, :]) / 2 + margin - np.abs(gap)
        hit = (overlap > 0.5).all(axis=2) & ~np.eye(m, dtype=bool)
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
    return boxes


def repel_labels(ax: Any, texts: list[Any], *, max_iter: int = 100, pad: float = 2.0) -> None:
    r"""Place text labels so that they overlap neither each other nor the points and
    arrows of the axes, deterministically.

    Each label is a box on the page (display units, after the axes' aspect is
    applied) with an anchor: the point an annotation labels, or a text's own position.
    First, in order, each label keeps its place or moves to one of 16 places around
    its anchor (right, above, left, below and the diagonals, 5 or 15 points away),
    whichever covers the least area of the labels already placed, of the scatter
    points and of the arrows of `ax`, and of the outside of the axes. Then boxes that
    still overlap (with `pad` points of margin) are pushed apart: every round visits
    the pairs (i, j), i < j, and moves two overlapping boxes apart along the direction
    where the overlap is smaller, each by half of it, until no overlap exceeds half a
    pixel or after `max_iter` rounds. Labels are moved in place (their anchors, the
    points and arrow tips, do not move); boxes are kept inside the axes, and a label
    left farther from its anchor than twice its height is joined to it by a thin grey
    line. The same figure gives the same positions every time.

    Parameters
    ----------
    ax : matplotlib Axes
    texts : list of matplotlib Text (or Annotation)
    max_iter : int, default 100
    pad : float, default 2
        Margin between boxes, in points.
    """
    texts = [t for t in texts if t.get_text()]
    if not texts:
        return
    figure = ax.figure
    ax.apply_aspect()
    renderer = figure.canvas.get_renderer()
    points_to_pixels = figure.dpi / 72
    start = np.array([t.get_window_extent(renderer).extents for t in texts])  # x0, y0, x1, y1
    frame = ax.get_window_extent(renderer).extents
    annotated = [getattr(t, "xyann", None) is not None and t.get_anncoords() == "offset points" for t in texts]
    anchors = ax.transData.transform(np.array([t.xy if a else t.get_position() for t, a in zip(texts, annotated)], dtype=float))
    boxes = choose_places(start, anchors, _obstacles(ax), frame, 5 * points_to_pixels)
    if len(texts) > 1:
        boxes = push_apart(boxes, frame, pad * points_to_pixels, max_iter)
    moved = boxes[:, :2] - start[:, :2]
    inverse = ax.transData.inverted()
    for text, is_annotation, anchor, shift, box in zip(texts, annotated, anchors, moved, boxes):
        if not shift.any():
            continue
        if is_annotation:
            text.xyann = tuple(np.asarray(text.xyann) + shift / points_to_pixels)
        else:
            text.set_position(inverse.transform(ax.transData.transform(text.get_position()) + shift))
        end = np.clip(anchor, box[:2], box[2:])
        if np.hypot(*(end - anchor)) > 2 * (box[3] - box[1]):  # far from its point: a leader line
            line = inverse.transform(np.vstack([anchor, end]))
            ax.plot(line[:, 0], line[:, 1], color="0.6", lw=0.5, zorder=1.5, scalex=False, scaley=False)

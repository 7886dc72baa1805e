"""Text labels on a scatter plot that do not pile up (used by :mod:`pcalib.plot`).

:func:`place_labels` writes one label per point, each at one of eight positions around
its point (right, above, left, below and the diagonals, near it or three times as far),
chosen greedily in the
order of the points: the position whose box overlaps least the boxes of the labels
already placed and the other points, measured in display units after the figure is
drawn once. Matplotlib is imported by the caller (:mod:`pcalib.plot`); this module
only uses the axes it is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["place_labels"]

#: Offsets of a label from its point, in points, with the matching text alignment:
#: right first (the usual place), then above, left, below, then the diagonals.
_OFFSETS = tuple(
    ((r * dx, r * dy), ha, va)
    for r in (1, 3)
    for (dx, dy), ha, va in (
        ((5, 0), "left", "center"), ((0, 5), "center", "bottom"), ((-5, 0), "right", "center"),
        ((0, -5), "center", "top"), ((4, 4), "left", "bottom"), ((-4, 4), "right", "bottom"),
        ((-4, -4), "right", "top"), ((4, -4), "left", "top"),
    )
)
#: Half the side of the square kept free around every point, in display pixels.
_POINT_RADIUS = 3.0


def _overlap(box: np.ndarray, others: np.ndarray) -> float:
    """Total area shared by `box` (x0, y0, x1, y1) and the rows of `others`."""
    if others.size == 0:
        return 0.0
    w = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])
    h = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])
    return float(np.sum(np.clip(w, 0, None) * np.clip(h, 0, None)))


def place_labels(ax: Any, xy: np.ndarray, texts: list[str], **style: Any) -> list[Any]:
    """Annotate each point ``xy[i]`` with ``texts[i]`` where it overlaps least.

    Parameters
    ----------
    ax : matplotlib Axes
        Its limits and aspect must be final (the labels are placed in display units).
    xy : ndarray of shape (m, 2)
        The points, in data coordinates.
    texts : list of m str
    **style
        Passed to ``ax.annotate`` (colour, font size...).

    Returns
    -------
    list of matplotlib Annotation
    """
    figure = ax.figure
    figure.canvas.draw()  # the final transform, and a renderer for the text extents
    renderer = figure.canvas.get_renderer()
    centres = ax.transData.transform(np.asarray(xy, dtype=float))
    points = np.column_stack([centres - _POINT_RADIUS, centres + _POINT_RADIUS])
    placed: list[np.ndarray] = []
    annotations = []
    for i, text in enumerate(texts):
        best = None
        for offset, ha, va in _OFFSETS:
            label = ax.annotate(text, xy[i], xytext=offset, textcoords="offset points", ha=ha, va=va, **style)
            extent = label.get_window_extent(renderer)
            box = np.array([extent.x0, extent.y0, extent.x1, extent.y1])
            others = np.delete(points, i, axis=0)
            cost = _overlap(box, np.array(placed).reshape(-1, 4)) + _overlap(box, others)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, label, box)
            else:
                label.remove()
            if cost == 0:
                break
        assert best is not None
        placed.append(best[2])
        annotations.append(best[1])
    return annotations

"""Which of a set of anchor cities each city lies nearest to (its Voronoi cell), in O(n) for
spread-out cities: the anchors are bucketed in a grid and each city searches rings of grid
cells around its own until no nearer anchor can be left."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

ANCHORS_PER_CELL = 2.0
"""Mean anchors per grid cell, over the bounding box of the anchors."""


def nearest_anchor(points: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """For each of the points (n, 2), the index (n,) of its nearest anchor (m, 2), m ≥ 1."""
    low = anchors.min(axis=0)
    span = float((anchors.max(axis=0) - low).max()) or 1.0
    side = max(1, math.ceil(math.sqrt(len(anchors) / ANCHORS_PER_CELL)))
    width = span / side
    cells = _cell_index(anchors, low, width, side)  # (m,)
    order = np.argsort(cells, kind="stable")
    first = np.searchsorted(cells[order], np.arange(side * side + 1))  # (side² + 1,): each cell's slice of order
    return _nearest(
        np.ascontiguousarray(points, dtype=np.float64),
        np.ascontiguousarray(anchors, dtype=np.float64),
        order,
        first,
        low.astype(np.float64),
        width,
        side,
    )


def _cell_index(points: np.ndarray, low: np.ndarray, width: float, side: int) -> np.ndarray:
    """Grid cell (row-major, clipped to the grid) of each point (k, 2)."""
    cell = np.clip(((points - low) / width).astype(np.int64), 0, side - 1)  # (k, 2)
    return cell[:, 1] * side + cell[:, 0]


@njit(cache=True)
def _nearest(
    points: np.ndarray,
    anchors: np.ndarray,
    order: np.ndarray,
    first: np.ndarray,
    low: np.ndarray,
    width: float,
    side: int,
) -> np.ndarray:
    """Ring search over the grid: after ring r, anchors in farther rings are more than
    r · width away from the point's own cell, so the search stops once the best is that near."""
    found = np.empty(points.shape[0], dtype=np.int64)
    for p in range(points.shape[0]):
        x, y = points[p, 0], points[p, 1]
        cx = min(max(int((x - low[0]) / width), 0), side - 1)
        cy = min(max(int((y - low[1]) / width), 0), side - 1)
        best, best_squared = -1, np.inf
        ring = 0
        while True:
            for gy in range(max(cy - ring, 0), min(cy + ring, side - 1) + 1):
                on_edge = gy == cy - ring or gy == cy + ring
                step = 1 if on_edge else 2 * ring
                gx = cx - ring
                while gx <= cx + ring:
                    if 0 <= gx < side:
                        cell = gy * side + gx
                        for slot in range(first[cell], first[cell + 1]):
                            a = order[slot]
                            dx, dy = anchors[a, 0] - x, anchors[a, 1] - y
                            squared = dx * dx + dy * dy
                            if squared < best_squared:
                                best, best_squared = a, squared
                    gx += max(step, 1)
            if best >= 0 and math.sqrt(best_squared) <= ring * width:
                break
            if ring > side:
                break
            ring += 1
        found[p] = best
    return found

"""Candidate lists: each city's k nearest cities, the only partners a local search tries to join it to."""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.search.kernels import GEO, dist, kernel_points, metric_code

DEFAULT_NEIGHBOURS = 10
"""k = 10: in an optimal tour nearly every edge joins a city to one of its 5 nearest (Johnson &
McGeoch), and 10 leaves room for the longer edges of the tours being improved, while a pass of
the search stays O(n·k). More candidates cost time for little gain with 2-opt and Or-opt."""


def nearest_neighbours(coords: np.ndarray, metric: str, k: int = DEFAULT_NEIGHBOURS) -> np.ndarray:
    """The min(k, n-1) nearest other cities of each city, closest first: an (n, k) int32 array.

    Ties go to the lower index. Planar metrics rank by Euclidean distance, which orders their
    rounded distances too, using a grid (about O(n·k) time and memory). GEO ranks by its own
    distance in O(n²) time and O(n·k) memory.
    """
    coords = np.ascontiguousarray(coords, dtype=np.float64)
    k = max(0, min(k, len(coords) - 1))
    code = metric_code(metric)
    if k == 0:
        return np.empty((len(coords), 0), dtype=np.int32)
    if code == GEO:
        return _nearest_by_metric(kernel_points(coords, code), code, k)
    low_x, low_y = coords.min(axis=0)
    return _nearest_in_grid(coords, k, low_x, low_y, float(np.ptp(coords, axis=0).max()))


@njit(cache=True)
def _offer(best_dist: np.ndarray, best_city: np.ndarray, count: int, d: float, city: int) -> int:
    """Insert `city` at distance d into the sorted lists of the `count` best so far; returns the new count."""
    k = best_dist.shape[0]
    if count == k and (d > best_dist[k - 1] or (d == best_dist[k - 1] and city > best_city[k - 1])):
        return count
    slot = min(count, k - 1)
    while slot > 0 and (d < best_dist[slot - 1] or (d == best_dist[slot - 1] and city < best_city[slot - 1])):
        best_dist[slot] = best_dist[slot - 1]
        best_city[slot] = best_city[slot - 1]
        slot -= 1
    best_dist[slot] = d
    best_city[slot] = city
    return min(count + 1, k)


@njit(cache=True)
def _nearest_by_metric(points: np.ndarray, code: int, k: int) -> np.ndarray:
    """k nearest by the metric's own distance, comparing every pair."""
    n = points.shape[0]
    result = np.empty((n, k), dtype=np.int32)
    best_dist = np.empty(k)
    for i in range(n):
        count = 0
        for j in range(n):
            if j != i:
                count = _offer(best_dist, result[i], count, dist(points, code, i, j), j)
    return result


@njit(cache=True)
def _nearest_in_grid(xy: np.ndarray, k: int, low_x: float, low_y: float, span: float) -> np.ndarray:
    """k nearest by Euclidean distance, searching square rings of grid cells (about 2 cities a cell).

    The grid covers the square of side `span` with its lower left corner at (low_x, low_y).
    """
    n = xy.shape[0]
    result = np.empty((n, k), dtype=np.int32)
    side = max(1, int(np.sqrt(n / 2.0)))
    cell = span / side if span > 0 else 1.0

    cell_x = np.empty(n, dtype=np.int64)
    cell_y = np.empty(n, dtype=np.int64)
    starts = np.zeros(side * side + 1, dtype=np.int64)  # cities of cell c: members[starts[c]:starts[c + 1]]
    for i in range(n):
        cell_x[i] = min(int((xy[i, 0] - low_x) / cell), side - 1)
        cell_y[i] = min(int((xy[i, 1] - low_y) / cell), side - 1)
        starts[cell_x[i] * side + cell_y[i] + 1] += 1
    for c in range(side * side):
        starts[c + 1] += starts[c]
    members = np.empty(n, dtype=np.int64)
    filled = starts[:-1].copy()
    for i in range(n):
        c = cell_x[i] * side + cell_y[i]
        members[filled[c]] = i
        filled[c] += 1

    best_dist = np.empty(k)
    for i in range(n):
        count = 0
        ring = 0
        # A city outside rings 0..r lies more than r cells away; stop once the k-th best is nearer.
        while ring <= side and not (count == k and best_dist[k - 1] <= (ring - 1) * cell * (ring - 1) * cell):
            for gx in range(max(0, cell_x[i] - ring), min(side, cell_x[i] + ring + 1)):
                edge_column = abs(gx - cell_x[i]) == ring
                stride = 1 if edge_column else 2 * ring  # inner columns: only the top and bottom cells
                for gy in range(cell_y[i] - ring, cell_y[i] + ring + 1, stride):
                    if 0 <= gy < side:
                        c = gx * side + gy
                        for m in range(starts[c], starts[c + 1]):
                            j = members[m]
                            if j != i:
                                dx = xy[i, 0] - xy[j, 0]
                                dy = xy[i, 1] - xy[j, 1]
                                count = _offer(best_dist, result[i], count, dx * dx + dy * dy, j)
            ring += 1
    return result

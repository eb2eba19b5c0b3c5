"""Candidates for a tour too large to find its cities' nearest in the time: each city's neighbours
along the tour itself, nearest first.

Under a short `--time-limit` on a large instance even each city's nearest (about 1.2 µs a city in
the plane) may not fit, and the start, the space-filling curve, would be returned as it is. The
curve keeps most cities near their neighbours along it, so the cities a few steps before and
after each one along the tour are among its near ones: with them as candidates, 2-opt and LK
moves shorten the curve in a fraction of the nearest's cost (O(n · width), no grid).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.search.candidates.nearest import offer_sorted
from amsolve.search.distances import DistanceView, dist

WINDOW_WIDTH = 5
"""Cities taken on each side of a city along the tour: 2 × this many candidates."""


def window_candidates(view: DistanceView, tour: np.ndarray, width: int = WINDOW_WIDTH) -> np.ndarray:
    """Each city's `width` predecessors and successors along `tour` (n,), nearest first: (n, 2·width)
    int64, fewer columns where the tour is shorter than 2·width + 1 cities."""
    width = max(0, min(width, (view.n - 1) // 2))
    return _window(view.points, view.code, np.asarray(tour, dtype=np.int64), width)


@njit(cache=True)
def _window(points: np.ndarray, code: int, tour: np.ndarray, width: int) -> np.ndarray:
    """`window_candidates`: gathered along the tour, each offered to its city's sorted list (ties to the lower city)."""
    n = tour.shape[0]
    k = 2 * width
    result = np.empty((n, k), dtype=np.int64)
    lengths = np.empty(k)
    for p in range(n):
        city = tour[p]
        row = result[city]
        count = 0
        for step in range(1, width + 1):
            for other in (tour[(p + step) % n], tour[(p - step) % n]):
                count = offer_sorted(lengths, row, count, dist(points, code, city, other), other)
    return result

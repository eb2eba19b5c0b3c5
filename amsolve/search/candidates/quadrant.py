"""Quadrant candidates: each city's nearest cities in each of the four quadrants around it.

On clustered instances a city's k nearest often all lie in its own cluster, and the edges that
leave the cluster, which every tour needs, are never tried; taking the nearest in each quadrant
first keeps a way out in every direction (LKH's QUADRANT candidates).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.errors import InputError
from amsolve.search.candidates.nearest import nearest_in_grid, nearest_neighbours, quadrants_on_sphere
from amsolve.search.distances import GEO, GRID_CODES, DistanceView, dist


def quadrant_neighbours(view: DistanceView, k: int, neighbours: np.ndarray | None = None) -> np.ndarray:
    """k candidates per city: the ceil(k/4) nearest in each quadrant, then the nearest others,
    nearest first; an (n, min(k, n-1)) int64 array. GEO cities' quadrants lie in the plane tangent
    to the sphere at the city (`quadrants_on_sphere`); EUC_3D and matrices, which have none, get
    `nearest_neighbours`. `neighbours`: each city's nearest, when already found (its `wider`)."""
    if k < 1:
        raise InputError(f"the number of candidates must be at least 1, got {k}")
    k = min(k, view.n - 1)
    if (view.code not in GRID_CODES and view.code != GEO) or k <= 0:
        return nearest_neighbours(view, k, neighbours) if k > 0 else np.empty((view.n, 0), dtype=np.int64)
    per = -(-k // 4)
    nearest = nearest_neighbours(view, k, neighbours)
    if view.code == GEO:
        by_quadrant = quadrants_on_sphere(view.points, per)
    else:
        by_quadrant = nearest_in_grid(view.points, per, True, view.code)
    return _merge(view.points, view.code, by_quadrant, nearest, k)


@njit(cache=True)
def _merge(points: np.ndarray, code: int, by_quadrant: np.ndarray, nearest: np.ndarray, k: int) -> np.ndarray:
    """Each row: the quadrant candidates, then the nearest not yet taken, up to k; sorted by distance."""
    n = by_quadrant.shape[0]
    result = np.full((n, k), -1, dtype=np.int64)
    lengths = np.empty(k)
    for i in range(n):
        count = 0
        for source in (by_quadrant[i], nearest[i]):
            for j in source:
                if j < 0 or count == k:
                    continue
                taken = False
                for m in range(count):
                    if result[i, m] == j:
                        taken = True
                if not taken:
                    result[i, count] = j
                    lengths[count] = dist(points, code, i, j)
                    count += 1
        order = np.argsort(lengths[:count], kind="mergesort")
        result[i, :count] = result[i, :count][order]
    return result

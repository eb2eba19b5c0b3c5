"""Candidate lists: each city's k nearest cities, the only partners a local search tries to join it to."""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.errors import InputError
from amsolve.problem.distance import GEO_EARTH_RADIUS
from amsolve.search.distances import EUC_2D, EUC_3D, EXPLICIT, GEO, MAN_2D, MAX_2D, DistanceView, dist

DEFAULT_NEIGHBOURS = 10
"""k = 10: where 2-opt + Or-opt stops gaining from more candidates. From random tours on 5000
uniform cities, k = 5 ended 20 % longer than k = 10, k = 8 0.5 % longer, and k = 16 or 24 no
shorter, while the time of a search grows with k."""


def nearest_neighbours(view: DistanceView, k: int = DEFAULT_NEIGHBOURS, wider: np.ndarray | None = None) -> np.ndarray:
    """The min(k, n-1) nearest other cities of each city, closest first: an (n, k) int64 array.

    `wider`, this function's result for the same view with at least as many columns, is cut to
    k instead of searching again: a solve finds each city's nearest once for all its steps.

    Ties go to the lower index. Planar metrics rank by Euclidean distance, which orders their
    rounded distances too, using a grid: O(n·k) time for evenly spread cities, more when a few
    dense clusters share a cell (20,000 cities in two tiny clusters: about 1 s), O(n) memory.
    MAN_2D and MAX_2D rank by their own distance in the same grid, EUC_3D in a grid of cubes
    (`_nearest_in_space`), GEO by the cosine of the central angle between nearby cities in a grid
    over the unit sphere (`_nearest_on_sphere`); only a matrix (EXPLICIT) is read whole, O(n²).
    """
    if k < 1:
        raise InputError(f"the number of neighbours must be at least 1, got {k}")
    points, code = view
    k = min(k, len(points) - 1)
    if k <= 0:
        return np.empty((len(points), 0), dtype=np.int64)
    if wider is not None and wider.shape[1] >= k:
        return np.ascontiguousarray(wider[:, :k])
    if code == GEO:
        return _nearest_on_sphere(points, code, k)
    if code == EUC_3D:
        return _nearest_in_space(points, code, k)
    if code == EXPLICIT:
        return _nearest_in_matrix(points, k)
    return nearest_in_grid(points, k, False, code)


@njit(cache=True)
def offer_sorted(best_dist: np.ndarray, best_city: np.ndarray, count: int, d: float, city: int) -> int:
    """Insert `city` at distance d into the sorted lists of the `count` best so far (ties to the lower
    city; a full list drops its last); returns the new count. Every nearest search here ranks by it."""
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
def _nearest_in_matrix(matrix: np.ndarray, k: int) -> np.ndarray:
    """k nearest in a distance matrix (n, n), reading each row once: an entry no shorter than the
    k-th best so far is passed over with one comparison (1.4–4.5 ns an entry at 1,000–8,000
    cities, against 22 through `dist` and `offer_sorted` for every entry: 0.35 s at 4,000 cities)."""
    n = matrix.shape[0]
    result = np.empty((n, k), dtype=np.int64)
    best_dist = np.empty(k)
    for i in range(n):
        row, best = matrix[i], result[i]
        count = 0
        worst = np.inf
        for j in range(n):
            d = float(row[j])
            if (d < worst or count < k) and j != i:  # a tie with the k-th loses: j is the higher index
                count = offer_sorted(best_dist, best, count, d, j)
                if count == k:
                    worst = best_dist[k - 1]
    return result


@njit(cache=True)
def _unit_vectors(points: np.ndarray) -> np.ndarray:
    """GEO cities (n, 2), latitude and longitude in radians, as points on the unit sphere (n, 3)."""
    n = points.shape[0]
    unit = np.empty((n, 3))
    for i in range(n):
        unit[i, 0] = np.cos(points[i, 0]) * np.cos(points[i, 1])
        unit[i, 1] = np.cos(points[i, 0]) * np.sin(points[i, 1])
        unit[i, 2] = np.sin(points[i, 0])
    return unit


@njit(cache=True)
def _sphere_grid(unit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """Points on the unit sphere (n, 3) sorted into a side³ grid of cubes over [-1, 1]³
    (`_cube_grid`), about 2 points to a cube's share of the surface, at most 8·n cubes; returns
    `_cube_grid`'s arrays, the side and the cube's edge."""
    n = unit.shape[0]
    side = max(1, min(int(np.ceil(2.0 / np.sqrt(8.0 * np.pi / n))), int((8.0 * n) ** (1.0 / 3.0))))
    edge = 2.0 / side
    cubes, starts, members = _cube_grid(unit, np.full(3, -1.0), edge, side)
    return cubes, starts, members, side, edge


@njit(cache=True)
def _cube_grid(
    points: np.ndarray, low: np.ndarray, edge: float, side: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points (n, 3) sorted into a side³ grid of cubes of edge `edge` from the corner `low` (3,)
    (a counting sort, stable by index).

    Returns each point's cube (n, 3), `starts` and `members` such that the points of cube
    c = (x · side + y) · side + z are members[starts[c]:starts[c + 1]].
    """
    n = points.shape[0]
    cubes = np.empty((n, 3), dtype=np.int64)
    starts = np.zeros(side * side * side + 1, dtype=np.int64)
    for i in range(n):
        for axis in range(3):
            cubes[i, axis] = min(int((points[i, axis] - low[axis]) / edge), side - 1)
        starts[(cubes[i, 0] * side + cubes[i, 1]) * side + cubes[i, 2] + 1] += 1
    for c in range(side * side * side):
        starts[c + 1] += starts[c]
    members = np.empty(n, dtype=np.int64)
    filled = starts[:-1].copy()
    for i in range(n):
        c = (cubes[i, 0] * side + cubes[i, 1]) * side + cubes[i, 2]
        members[filled[c]] = i
        filled[c] += 1
    return cubes, starts, members


@njit(cache=True)
def _shell(cube: np.ndarray, ring: int, side: int, starts: np.ndarray, members: np.ndarray, out: np.ndarray) -> int:
    """Write into `out` the points of the cubes `ring` cubes away from `cube` (Chebyshev distance);
    returns how many. Every point outside rings 0..r lies more than r cube edges away."""
    count = 0
    for x in range(max(0, cube[0] - ring), min(side, cube[0] + ring + 1)):
        for y in range(max(0, cube[1] - ring), min(side, cube[1] + ring + 1)):
            outer = abs(x - cube[0]) == ring or abs(y - cube[1]) == ring
            for z in range(cube[2] - ring, cube[2] + ring + 1, 1 if outer else 2 * ring):
                if 0 <= z < side:
                    c = (x * side + y) * side + z
                    for m in range(starts[c], starts[c + 1]):
                        out[count] = members[m]
                        count += 1
    return count


@njit(cache=True)
def quadrants_on_sphere(points: np.ndarray, per: int) -> np.ndarray:
    """The `per` nearest cities of each GEO city in each quadrant of the plane tangent to the sphere
    there (east and north), as `nearest_in_grid` finds them in the plane: an (n, 4 · per) int64
    array, -1 where a quadrant has fewer. Nearest by the central angle, searched ring by ring in a
    grid over the unit sphere (`_sphere_grid`)."""
    n = points.shape[0]
    unit = _unit_vectors(points)
    cubes, starts, members, side, edge = _sphere_grid(unit)
    shell = np.empty(n, dtype=np.int64)
    result = np.full((n, 4 * per), -1, dtype=np.int64)
    best, cities = np.empty((4, per)), np.empty((4, per), dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    for i in members:  # cell by cell: the cities met last are still in the caches
        counts[:] = 0
        sin_lat, cos_lat = np.sin(points[i, 0]), np.cos(points[i, 0])
        sin_long, cos_long = np.sin(points[i, 1]), np.cos(points[i, 1])
        for ring in range(side + 1):
            bound = (max(0, ring - 1) * edge) ** 2  # squared chord below which nothing is left unseen
            done = ring > 0
            for b in range(4):
                if counts[b] < per or best[b, per - 1] > bound:
                    done = False
            if done:
                break
            for s in range(_shell(cubes[i], ring, side, starts, members, shell)):
                j = shell[s]
                if j == i:
                    continue
                x, y, z = unit[j, 0], unit[j, 1], unit[j, 2]
                east = -sin_long * x + cos_long * y
                north = -sin_lat * cos_long * x - sin_lat * sin_long * y + cos_lat * z
                chord = 2.0 - 2.0 * (unit[i, 0] * x + unit[i, 1] * y + unit[i, 2] * z)  # squared
                b = _quadrant(east, north)
                counts[b] = offer_sorted(best[b], cities[b], counts[b], chord, j)
        for b in range(4):
            for m in range(counts[b]):
                result[i, b * per + m] = cities[b, m]
    return result


@njit(cache=True)
def _nearest_on_sphere(points: np.ndarray, code: int, k: int) -> np.ndarray:
    """k nearest by GEO distance, ranked as comparing every pair would rank them (ties to the lower index).

    TSPLIB's GEO rule is the central angle between two cities, computed from three cosines, times
    the earth's radius, rounded down after adding 1; its cosine is the dot product of the cities'
    unit vectors. So each city's k nearest by that product bound its k-th distance, D ≤ D' + 1
    (D' that bound's own rounding of the k-th angle; the two roundings differ by at most 1), and
    only cities whose rounded angle is at most D' + 2 can be among the k nearest: those alone are
    measured by the rule and ranked. Both searches go ring by ring through a grid over the unit
    sphere (`_sphere_grid`), so a city meets only the cities near it: at 666 cities (gr666) 2 ms
    instead of 32 by the rule alone, and at 20,000 random cities 87 ms instead of 1.1 s with every
    pair compared. The second search measures the cities the first one met before it walks any
    further ring (100,000 cities: 0.69 instead of 0.80 s).
    """
    n = points.shape[0]
    unit = _unit_vectors(points)
    cubes, starts, members, side, edge = _sphere_grid(unit)
    shell, cosine = np.empty(n, dtype=np.int64), np.empty(n)  # cities of the rings walked, their cosines
    result = np.empty((n, k), dtype=np.int64)
    by_angle, angle_key, best_dist = np.empty(k, dtype=np.int64), np.empty(k), np.empty(k)
    for i in members:  # cell by cell: the cities met last are still in the caches
        seen, count, ring = 0, 0, 0  # the cities of the rings walked are shell[:seen]
        while ring <= side:  # the k nearest by angle
            if ring > 0 and count == k and 2.0 + 2.0 * angle_key[k - 1] <= (max(0, ring - 1) * edge) ** 2:
                break
            walked = seen + _shell(cubes[i], ring, side, starts, members, shell[seen:])
            for s in range(seen, walked):
                j = shell[s]
                cosine[s] = unit[i, 0] * unit[j, 0] + unit[i, 1] * unit[j, 1] + unit[i, 2] * unit[j, 2]
                if j != i:
                    count = offer_sorted(angle_key, by_angle, count, -cosine[s], j)
            seen, ring = walked, ring + 1
        kth = np.floor(GEO_EARTH_RADIUS * np.arccos(min(1.0, max(-1.0, -angle_key[k - 1]))) + 1.0)
        threshold = np.cos(min(np.pi, (kth + 2.5) / GEO_EARTH_RADIUS))  # a rounded angle of at most kth + 2
        count, measured = 0, 0
        while True:  # every city within that angle, measured by the rule: those seen, then further rings
            for s in range(measured, seen):
                j = shell[s]
                if j != i and cosine[s] >= threshold:
                    count = offer_sorted(best_dist, result[i], count, dist(points, code, i, j), j)
            measured = seen
            if ring > side or (ring > 0 and 2.0 - 2.0 * threshold <= (max(0, ring - 1) * edge) ** 2):
                break
            seen += _shell(cubes[i], ring, side, starts, members, shell[seen:])
            for s in range(measured, seen):
                j = shell[s]
                cosine[s] = unit[i, 0] * unit[j, 0] + unit[i, 1] * unit[j, 1] + unit[i, 2] * unit[j, 2]
            ring += 1
    return result


@njit(cache=True)
def _nearest_in_space(points: np.ndarray, code: int, k: int) -> np.ndarray:
    """k nearest by EUC_3D distance, ranked as comparing every pair would rank them (ties to the lower
    index), searched ring by ring through a grid of cubes over the cities' bounding cube. A city
    outside rings 0..r lies more than r edges away, so its rounded distance is more than r edges
    less a half: once the k-th nearest found is no more than that, none outside can displace it,
    not even on a tie. About one city in four cubes: the rings walked hold fewer cities than with
    larger cubes (100,000 uniform cities' 16 nearest: 0.66 s, against 1.45 s with 2 cities a cube
    and 0.8–1.0 s with one in eight)."""
    n = points.shape[0]
    low, span = np.empty(3), 0.0
    for axis in range(3):
        low[axis] = points[:, axis].min()
        span = max(span, points[:, axis].max() - low[axis])
    side = max(1, int((4.0 * n) ** (1.0 / 3.0)))
    edge = span / side if span > 0 else 1.0
    cubes, starts, members = _cube_grid(points, low, edge, side)
    shell = np.empty(n, dtype=np.int64)
    result = np.empty((n, k), dtype=np.int64)
    best_dist = np.empty(k)
    for i in members:  # cell by cell: the cities met last are still in the caches
        count, ring = 0, 0
        while ring <= side:
            if ring > 0 and count == k and best_dist[k - 1] <= (ring - 1) * edge - 0.5:
                break
            for s in range(_shell(cubes[i], ring, side, starts, members, shell)):
                j = shell[s]
                if j != i:
                    count = offer_sorted(best_dist, result[i], count, dist(points, code, i, j), j)
            ring += 1
    return result


@njit(cache=True)
def _bucket(
    xy: np.ndarray, low_x: float, low_y: float, cell: float, side: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sort cities into a side x side grid of square cells (a counting sort, stable by index).

    Returns each city's cell column and row, and `starts`, `members` such that the cities of
    cell c = column * side + row are members[starts[c]:starts[c + 1]].
    """
    n = xy.shape[0]
    column = np.empty(n, dtype=np.int64)
    row = np.empty(n, dtype=np.int64)
    starts = np.zeros(side * side + 1, dtype=np.int64)
    for i in range(n):
        column[i] = min(int((xy[i, 0] - low_x) / cell), side - 1)
        row[i] = min(int((xy[i, 1] - low_y) / cell), side - 1)
        starts[column[i] * side + row[i] + 1] += 1
    for c in range(side * side):
        starts[c + 1] += starts[c]
    members = np.empty(n, dtype=np.int64)
    filled = starts[:-1].copy()
    for i in range(n):
        c = column[i] * side + row[i]
        members[filled[c]] = i
        filled[c] += 1
    return column, row, starts, members


@njit(cache=True)
def _quadrant(dx: float, dy: float) -> int:
    """Which quadrant around a city the offset (dx, dy) to another city falls in (0-3)."""
    return (2 if dx > 0.0 else 0) + (1 if dy > 0.0 else 0)


@njit(cache=True)
def nearest_in_grid(xy: np.ndarray, per: int, quadrants: bool, code: int = EUC_2D) -> np.ndarray:
    """The `per` nearest cities of each city in the plane, or the `per` nearest in each of the four
    quadrants around it; an (n, per) or (n, 4 · per) int64 array, -1 where there are fewer.
    Planar metrics (`code`) rank by Euclidean distance; MAN_2D and MAX_2D by their own rounded
    distance, ties to the lower index, as comparing every pair would.

    Searches square rings of grid cells (about 2 cities a cell) and stops once every list is full
    with cities nearer than any outside the rings searched: those lie more than r cells away on one
    axis after rings 0..r, so their Euclidean, Manhattan and maximum distances are all more than
    r cells, and a rounded one more than that less a half.
    """
    n = xy.shape[0]
    own_distance = code == MAN_2D or code == MAX_2D
    low_x, low_y = xy[:, 0].min(), xy[:, 1].min()
    span = max(xy[:, 0].max() - low_x, xy[:, 1].max() - low_y)
    side = max(1, int(np.sqrt(n / 2.0)))
    cell = span / side if span > 0 else 1.0
    column, row, starts, members = _bucket(xy, low_x, low_y, cell, side)
    bins = 4 if quadrants else 1
    result = np.full((n, bins * per), -1, dtype=np.int64)
    best_dist = np.empty((bins, per))
    counts = np.zeros(bins, dtype=np.int64)
    for i in members:  # cell by cell: the cities met last are still in the caches
        counts[:] = 0
        ring = 0
        while ring <= side:
            unseen = (ring - 1) * cell  # every city outside rings 0..ring-1 is further than this
            bound = unseen - 0.5 if own_distance else unseen * unseen
            done = True
            for b in range(bins):
                if counts[b] < per or best_dist[b, per - 1] > bound:
                    done = False
            if done and ring > 0:
                break
            for gx in range(max(0, column[i] - ring), min(side, column[i] + ring + 1)):
                edge_column = abs(gx - column[i]) == ring
                stride = 1 if edge_column else 2 * ring  # inner columns: only the top and bottom cells
                for gy in range(row[i] - ring, row[i] + ring + 1, stride):
                    if 0 <= gy < side:
                        c = gx * side + gy
                        for m in range(starts[c], starts[c + 1]):
                            j = members[m]
                            if j != i:
                                dx = xy[j, 0] - xy[i, 0]
                                dy = xy[j, 1] - xy[i, 1]
                                b = _quadrant(dx, dy) if quadrants else 0
                                slots = result[i, b * per : (b + 1) * per]
                                key = dist(xy, code, i, j) if own_distance else dx * dx + dy * dy
                                counts[b] = offer_sorted(best_dist[b], slots, counts[b], key, j)
            ring += 1
    return result

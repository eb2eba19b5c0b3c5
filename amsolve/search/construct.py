"""Tours built without the network, as starts for the search: random, nearest neighbour, greedy
edge and space-filling curve.

Each takes the instance's distances (`DistanceView`) and returns a permutation (n,) int64. The
greedy and nearest-neighbour tours work over each city's nearest candidates, so they cost about
O(n·k) for evenly spread cities and never build an n × n matrix for coordinates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.errors import InputError
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.distances import EXPLICIT, DistanceView, dist

CONSTRUCTIONS = ("random", "nearest", "greedy-edge", "space-filling")
"""Names of the constructions, usable wherever a decoder is named."""

_GREEDY_NEIGHBOURS = 10
"""Candidate edges per city for the greedy edge tour."""

JOIN_SCAN_PATHS = 200
"""Paths left by the greedy edge tour's candidate edges up to which they are joined one after
another, each end to the nearest free end (a scan over the free ends: O(paths²)). Beyond it,
rounds of greedy edges between the free ends (`_add_greedily` on each free end's nearest free
ends) first bring them down to this many.
Greedy edge leaves about one path per 28 cities: the scan alone took 0.15 s at 100,000 uniform
cities and 1.1 s at 100,000 GEO ones."""

_JOIN_NEIGHBOURS = 8
"""Nearest free ends of each free end offered to a round of greedy edges between the paths (`_greedy_edge`)."""


def construct(view: DistanceView, name: str, seed: int = 0, neighbours: np.ndarray | None = None) -> np.ndarray:
    """The tour `name` (one of CONSTRUCTIONS) builds for the instance; `seed` picks random choices.
    `neighbours`: each city's nearest, when already found (`nearest_neighbours`' `wider`)."""
    if name not in CONSTRUCTIONS:
        raise InputError(f"unknown construction {name!r}; choose one of {', '.join(CONSTRUCTIONS)}")
    n = view.n
    if name == "random" or n <= 3:
        return np.random.default_rng(seed).permutation(n).astype(np.int64)
    if name == "space-filling" and view.code != EXPLICIT:
        return space_filling_tour(view.points)
    if name == "greedy-edge":
        return _greedy_edge(view, nearest_neighbours(view, _GREEDY_NEIGHBOURS, neighbours))
    first = np.random.default_rng(seed).integers(n)
    return complete_nearest(view, np.array([[first]], dtype=np.int64), neighbours)[0]


def complete_nearest(view: DistanceView, prefixes: np.ndarray, neighbours: np.ndarray | None = None) -> np.ndarray:
    """Tours (k, n), each visiting the distinct cities of its row of `prefixes` (k, m) first, in
    that order, then always going on to the nearest unvisited city: nearest-neighbour tours when
    m = 1, and how a network's rollouts cut short by a deadline are finished. `neighbours` as in
    `construct`."""
    neighbours = nearest_neighbours(view, _GREEDY_NEIGHBOURS, neighbours)
    prefixes = np.asarray(prefixes, dtype=np.int64)
    return np.stack([_nearest_neighbour(view.points, view.code, neighbours, prefix) for prefix in prefixes])


@njit(cache=True)
def _nearest_neighbour(points: np.ndarray, code: int, neighbours: np.ndarray, prefix: np.ndarray) -> np.ndarray:
    """After the cities of `prefix`, always on to the nearest unvisited city: among the candidates
    when one is left there, else by a scan of the unvisited cities."""
    n = neighbours.shape[0]
    tour = np.empty(n, dtype=np.int64)
    unvisited = np.arange(n)  # the unvisited cities are unvisited[:left]
    where = np.arange(n)  # where[c]: c's slot in unvisited
    left = n
    city = prefix[0]
    for step in range(n):
        tour[step] = city
        left -= 1
        last = unvisited[left]
        unvisited[where[city]] = last
        where[last] = where[city]
        where[city] = n  # visited
        if left == 0:
            break
        if step + 1 < prefix.shape[0]:
            city = prefix[step + 1]
            continue
        best, best_length = -1, np.inf
        for k in range(neighbours.shape[1]):
            j = neighbours[city, k]
            if j >= 0 and where[j] < n:
                best = j  # candidates are nearest first
                break
        if best < 0:
            for m in range(left):
                j = unvisited[m]
                length = dist(points, code, city, j)
                if length < best_length:
                    best, best_length = j, length
        city = best
    return tour


@njit(cache=True)
def union_find_root(parent: np.ndarray, i: int) -> int:
    """The representative of i's set in a union–find forest `parent`, halving the path on the way."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _greedy_edge(view: DistanceView, neighbours: np.ndarray) -> np.ndarray:
    """The greedy edge tour: candidate edges, shortest first, taken when they keep every degree at
    most 2 and close no cycle; the paths left are then joined, past `JOIN_SCAN_PATHS` of them by
    rounds of greedy edges between their free ends first, then end to nearest end (`_join_paths`)."""
    n = view.n
    links = np.full((n, 2), -1, dtype=np.int64)
    degree = np.zeros(n, dtype=np.int64)
    fragment = np.arange(n)  # union–find forest of the paths
    _add_greedily(view.points, view.code, np.arange(n), neighbours, links, degree, fragment)
    while True:
        ends = np.flatnonzero(degree < 2)
        if (ends.shape[0] + (degree == 0).sum()) // 2 <= JOIN_SCAN_PATHS:
            break
        near = nearest_neighbours(_cities_view(view, ends), _JOIN_NEIGHBOURS)  # positions in ends
        if _add_greedily(view.points, view.code, ends, near, links, degree, fragment) == 0:
            break
    return _join_paths(view.points, view.code, links, degree)


def _cities_view(view: DistanceView, cities: np.ndarray) -> DistanceView:
    """The distances among `cities` alone, numbered 0.. in their order."""
    points = view.points[np.ix_(cities, cities)] if view.code == EXPLICIT else view.points[cities]
    return DistanceView(points, view.code)


@njit(cache=True)
def _add_greedily(
    points: np.ndarray,
    code: int,
    cities: np.ndarray,
    partners: np.ndarray,
    links: np.ndarray,
    degree: np.ndarray,
    fragment: np.ndarray,
) -> int:
    """Offer the edges from each of `cities` to its `partners` (rows of positions in `cities`, -1
    for none), shortest first, and add each that keeps every degree at most 2 and closes no cycle
    to `links` (n, 2), `degree` and the union–find forest `fragment`; returns how many were added."""
    m, k = partners.shape
    heads = np.empty(m * k, dtype=np.int64)
    tails = np.empty(m * k, dtype=np.int64)
    lengths = np.empty(m * k)
    count = 0
    for a in range(m):
        for b in partners[a]:
            if b > a or (b >= 0 and not _has(partners[b], a)):
                heads[count], tails[count] = cities[a], cities[b]
                lengths[count] = dist(points, code, cities[a], cities[b])
                count += 1
    added = 0
    for e in np.argsort(lengths[:count], kind="mergesort"):
        a, b = heads[e], tails[e]
        if degree[a] < 2 and degree[b] < 2:
            ra, rb = union_find_root(fragment, a), union_find_root(fragment, b)
            if ra != rb:
                fragment[ra] = rb
                links[a, degree[a]] = b
                links[b, degree[b]] = a
                degree[a] += 1
                degree[b] += 1
                added += 1
    return added


@njit(cache=True)
def _has(row: np.ndarray, city: int) -> bool:
    for j in row:
        if j == city:
            return True
    return False


@njit(cache=True)
def _join_paths(points: np.ndarray, code: int, links: np.ndarray, degree: np.ndarray) -> np.ndarray:
    """Walk the paths (links (n, 2), -1 for none), joining each path's end to the nearest free end
    of a path not yet walked (a scan over the free ends: O(paths²))."""
    n = links.shape[0]
    ends = np.array([i for i in range(n) if degree[i] < 2], dtype=np.int64)
    used = np.zeros(n, dtype=np.bool_)
    tour = np.empty(n, dtype=np.int64)
    count = 0
    city = ends[0] if ends.shape[0] else 0
    while count < n:
        previous = -1
        while True:  # walk the path from its end `city`
            tour[count] = city
            count += 1
            used[city] = True
            following = -1
            for slot in range(2):
                j = links[city, slot]
                if j >= 0 and j != previous and not used[j]:
                    following = j
            if following < 0:
                break
            previous, city = city, following
        if count == n:
            break
        best, best_length = -1, np.inf
        for j in ends:
            if not used[j]:
                length = dist(points, code, city, j)
                if length < best_length:
                    best, best_length = j, length
        city = best
    return tour


def space_filling_tour(points: np.ndarray) -> np.ndarray:
    """Cities in the order of a Hilbert curve through their bounding square, or cube for EUC_3D
    (2^16 cells a side); GEO cities by their latitude and longitude."""
    cells = _curve_cells(points)  # (n, 2) or (n, 3)
    index = _hilbert_index(cells[:, 0], cells[:, 1]) if points.shape[1] == 2 else _hilbert_index_3d(cells)
    return _stable_order(index)


@njit(cache=True)
def _curve_cells(points: np.ndarray) -> np.ndarray:
    """Each city's cell (n, d) in a grid of 2^16 cells a side over the cities' bounding square or
    cube (whose side is their widest span): in one compiled pass, where the same in numpy's
    array operations took 10 ms at 100,000 cities, a third of the curve's time."""
    n, dimensions = points.shape
    low, high = points[0].copy(), points[0].copy()  # (d,)
    for i in range(n):
        for j in range(dimensions):
            low[j] = min(low[j], points[i, j])
            high[j] = max(high[j], points[i, j])
    span = 0.0
    for j in range(dimensions):
        span = max(span, high[j] - low[j])
    if span == 0.0:
        span = 1.0
    cells = np.empty((n, dimensions), dtype=np.int64)
    for i in range(n):
        for j in range(dimensions):
            cells[i, j] = min(int((points[i, j] - low[j]) / span * 65535.0), 65535)
    return cells


def _stable_order(index: np.ndarray) -> np.ndarray:
    """`np.argsort(index, kind="stable")` for a non-negative int64 `index`, which it overwrites:
    where each value and its position fit together in 63 bits, one sort of the keys (value,
    position), which took 1.6 ms at 100,000 cities against the stable argsort's 10 ms."""
    n = index.shape[0]
    shift = max(1, (n - 1).bit_length())  # bits of a position
    if n == 0 or int(index.max()) >> (63 - shift):
        return np.argsort(index, kind="stable").astype(np.int64)
    keys = index  # (n,) value << shift | position
    keys <<= shift
    keys |= np.arange(n, dtype=np.int64)
    keys.sort()
    keys &= (1 << shift) - 1
    return keys


@njit(cache=True)
def _hilbert_index(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Distance along the Hilbert curve of order 16 of each cell (x, y), two bits a level from the
    top. The quadrants' turns so far (a swap of the axes, a flip of both) are kept as two bits and
    applied to each level's bits without a branch: 4 ms at 100,000 cities where turning the
    coordinates themselves, branch by branch, took 9."""
    result = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        xi, yi = x[i], y[i]
        d, swap, flip = 0, 0, 0
        for bit in range(15, -1, -1):
            bx, by = (xi >> bit) & 1, (yi >> bit) & 1
            crossed = (bx ^ by) & swap  # the two bits exchanged where the axes are swapped
            rx, ry = bx ^ crossed ^ flip, by ^ crossed ^ flip
            d = (d << 2) | ((3 * rx) ^ ry)
            turn = ry ^ 1  # the lower quadrants turn the curve: swap, and flip if on the right
            flip ^= turn & rx
            swap ^= turn
        result[i] = d
    return result


@njit(cache=True)
def _hilbert_index_3d(cells: np.ndarray) -> np.ndarray:
    """Distance along the 3-D Hilbert curve of order 16 of each cell (n, 3), by Skilling's
    transposition ("Programming the Hilbert curve", 2004): the cell's axes are turned into the
    curve's index with its bits spread over the three axes, which are then interleaved."""
    result = np.empty(cells.shape[0], dtype=np.int64)
    axes = np.empty(3, dtype=np.int64)
    for c in range(cells.shape[0]):
        axes[:] = cells[c]
        q = 1 << 15
        while q > 1:  # undo the excess work, from the top bit down
            p = q - 1
            for i in range(3):
                if axes[i] & q:
                    axes[0] ^= p
                else:
                    t = (axes[0] ^ axes[i]) & p
                    axes[0] ^= t
                    axes[i] ^= t
            q >>= 1
        for i in range(1, 3):  # Gray encode
            axes[i] ^= axes[i - 1]
        t, q = 0, 1 << 15
        while q > 1:
            if axes[2] & q:
                t ^= q - 1
            q >>= 1
        d = 0
        for bit in range(15, -1, -1):
            for i in range(3):
                d = (d << 1) | (((axes[i] ^ t) >> bit) & 1)
        result[c] = d
    return result

"""Region merging: the best of two similar tours, stretch by stretch.

Two tours met by the same iterated local search differ in a few places: where the kicks landed
and local search changed them. Read along the first tour, every such place is a stretch of
positions p..q with a shared edge on either side. When the second tour, restricted to the cities
of that stretch, is a path between the same two end cities, either tour's path through the
stretch can be taken without touching the rest (the idea of Whitley, Hains and Howe's partition
crossover, with components grown along the tour). Taking the shorter path in every such stretch
gives a tour no longer than either, in O(n) plus the stretches' sizes.

The iterated local search uses it to keep what its wandering tour found in one region while the
same tour is worse than the best one elsewhere: on large instances improvements in different
regions no longer have to line up in time to count.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.search.distances import dist
from amsolve.search.kernel import copy_into, kernel


class MergeWork(NamedTuple):
    """Work arrays of `merge_tours`, allocated once per search."""

    links: np.ndarray  # (2, n) int64: next and previous city in the second tour
    position: np.ndarray  # (n,) int64: position of each city in the first tour, rotated
    rotated: np.ndarray  # (n,) int64: the first tour rotated to start after a shared edge


def new_merge_work(n: int) -> MergeWork:
    """Work arrays for tours of n cities."""
    return MergeWork(np.empty((2, n), dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64))


@njit(cache=True, inline="always")
def _in_second(links: np.ndarray, v: int, w: int) -> bool:
    """Whether (v, w) is an edge of the second tour."""
    return links[0, v] == w or links[1, v] == w


@kernel
def merge_tours(
    points: np.ndarray,
    code: int,
    first: np.ndarray,
    second: np.ndarray,
    longest: int,
    work: MergeWork,
    child: np.ndarray,
) -> float:
    """Write into `child` (n,) the first tour with the second's path through every stretch (of at
    most `longest` positions) where that path is shorter; returns how much shorter the child is
    (0.0 when nothing was taken: `child` is then the first tour, rotated)."""
    n = first.shape[0]
    links, position, rotated = work
    for i in range(n):
        links[0, second[i]] = second[(i + 1) % n]
        links[1, second[(i + 1) % n]] = second[i]
    shift = -1
    for i in range(n):
        if _in_second(links, first[i], first[(i + 1) % n]):
            shift = i + 1
            break
    if shift < 0:
        copy_into(child, first)
        return 0.0
    for i in range(n):
        rotated[i] = first[(i + shift) % n]  # the edge (rotated[n - 1], rotated[0]) is shared
        position[rotated[i]] = i
    copy_into(child, rotated)
    total = 0.0
    i = 0
    while i < n - 1:
        if _in_second(links, rotated[i], rotated[i + 1]):
            i += 1
            continue
        p, q = i, i + 1  # positions p..q hold the stretch
        feasible = True
        while feasible:
            while q < n - 1 and not _in_second(links, rotated[q], rotated[q + 1]):
                q += 1
            grown = False
            k = p
            while k <= q and not grown:
                v = rotated[k]
                for side in range(2):
                    w = links[side, v]
                    if (v == rotated[p] and w == rotated[(p - 1) % n]) or (
                        v == rotated[q] and w == rotated[(q + 1) % n]
                    ):
                        continue  # the shared edge that leaves the stretch
                    pw = position[w]
                    if pw < p or pw > q:
                        p, q, grown = min(p, pw), max(q, pw), True
                k += 1
            if not grown:
                break
            if q - p + 1 > min(longest, n - 2):
                feasible = False
        if feasible:
            gain = 0.0
            for k in range(p, q):
                gain += dist(points, code, rotated[k], rotated[k + 1])
            previous, city = rotated[(p - 1) % n], rotated[p]
            for k in range(p, q + 1):
                child[k] = city
                following = links[0, city] if links[0, city] != previous else links[1, city]
                if k < q:
                    gain -= dist(points, code, city, following)
                previous, city = city, following
            if gain > 0.0:
                total += gain
            else:
                for k in range(p, q + 1):
                    child[k] = rotated[k]
        i = q + 1
    return total

"""Non-sequential moves, as LKH's Gain23: a gainful 2-opt move that splits the tour into two cycles,
joined again by a 2-opt move between them (together a double bridge that shortens the tour).

Sequential moves (`lk.py`) cannot make such a move: neither half is a tour alone. The search starts
at t1 with t2 a tour neighbour and t3 a candidate of t2; t4 is t3's neighbour on the side that
splits the tour into the cycle t2..t3 and the cycle t4..t1, and the split must shorten the tour.
Then every tour edge (a, b) of the smaller cycle is tried with each candidate c of b in the other
cycle and either neighbour d of c there: removing (a, b) and (c, d) and adding (b, c) and (d, a)
joins the two cycles into one tour, whichever neighbour d is. The scan of the smaller cycle costs
O(its length), paid only when the split alone shortens the tour.

The move is made by reversing runs of whole segments between the four cuts (`_make`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.search.active import Active, push
from amsolve.search.distances import dist
from amsolve.search.space import Space
from amsolve.search.tour import Tour, next_city, two_opt_move


@njit(cache=True, inline="always")
def _steps(pos: np.ndarray, n: int, a: int, b: int, direction: int) -> int:
    """How many steps from a to b walking in `direction`."""
    return ((pos[b] - pos[a]) * direction) % n


@njit(cache=True)
def _make(tour: Tour, removed: np.ndarray, added: np.ndarray) -> None:
    """Replace the tour edges `removed` (k, 2) by `added` (k, 2), which must leave one tour.

    The cuts split the tour, read forwards from the first cut, into segments 0..k-1 with a head and
    a tail city; walking the new tour from segment 0 gives the segments' new order and directions,
    and each place is filled by reversing a run of whole segments (at most 2k - 2 reversals).
    """
    order, pos = tour.order, tour.pos
    n = order.shape[0]
    k = removed.shape[0]
    keys = np.empty(k, dtype=np.int64)
    for j in range(k):
        a, b = removed[j, 0], removed[j, 1]
        keys[j] = pos[a] if pos[b] == (pos[a] + 1) % n else pos[b]
    rank_of = np.argsort(keys)
    heads = np.empty(k, dtype=np.int64)
    tails = np.empty(k, dtype=np.int64)
    for r in range(k):
        p = keys[rank_of[r]]
        heads[r] = order[(p + 1) % n]  # segment r starts after cut r
        tails[(r - 1 + k) % k] = order[p]  # and segment r-1 ends at it
    partner = np.full(2 * k, -1, dtype=np.int64)  # slot 2s: segment s's head, 2s + 1: its tail
    for j in range(k):
        sx = _free_slot(heads, tails, partner, added[j, 0], -1)
        sy = _free_slot(heads, tails, partner, added[j, 1], sx)
        partner[sx], partner[sy] = sy, sx
    walk = np.empty(k, dtype=np.int64)
    walk[0] = 0
    count, exit_slot = 1, 1
    while count < k:
        entry = partner[exit_slot]
        walk[count] = entry
        count += 1
        exit_slot = entry ^ 1
    segs = np.arange(k)
    flips = np.zeros(k, dtype=np.int64)
    for i in range(1, k):
        target = walk[i] >> 1
        j = i
        while segs[j] != target:
            j += 1
        if j != i:
            _reverse_run(tour, k, heads, tails, segs, flips, i, j)
        if flips[i] != walk[i] & 1:
            _reverse_run(tour, k, heads, tails, segs, flips, i, i)


@njit(cache=True, inline="always")
def _free_slot(heads: np.ndarray, tails: np.ndarray, partner: np.ndarray, city: int, besides: int) -> int:
    """A segment end at `city` that no added edge uses yet, other than `besides`."""
    for s in range(heads.shape[0]):
        if heads[s] == city and partner[2 * s] < 0 and 2 * s != besides:
            return 2 * s
        if tails[s] == city and partner[2 * s + 1] < 0 and 2 * s + 1 != besides:
            return 2 * s + 1
    return -1


@njit(cache=True, inline="always")
def _end(heads: np.ndarray, tails: np.ndarray, segment: int, flipped: int, last: bool) -> int:
    """The first (or `last`) city of a segment as it reads now."""
    return heads[segment] if (flipped == 1) == last else tails[segment]


@njit(cache=True)
def _reverse_run(
    tour: Tour, k: int, heads: np.ndarray, tails: np.ndarray, segs: np.ndarray, flips: np.ndarray, first: int, last: int
) -> None:
    """Reverse the run of whole segments at places first..last of the current reading."""
    a = _end(heads, tails, segs[first - 1], flips[first - 1], True)
    b = _end(heads, tails, segs[first], flips[first], False)
    c = _end(heads, tails, segs[last], flips[last], True)
    after = (last + 1) % k
    d = _end(heads, tails, segs[after], flips[after], False)
    two_opt_move(tour, a, b, c, d)
    lo, hi = first, last
    while lo < hi:
        segs[lo], segs[hi] = segs[hi], segs[lo]
        flips[lo], flips[hi] = flips[hi], flips[lo]
        lo += 1
        hi -= 1
    for x in range(first, last + 1):
        flips[x] ^= 1


@njit(cache=True)
def improve_bridge(space: Space, tour: Tour, active: Active, t1: int) -> float:
    """Make a shortening double bridge found from t1 (see the module) and queue its eight cities;
    returns the change in length (0.0 if none)."""
    points, code, tol = space.points, space.code, space.tolerance
    order, pos = tour.order, tour.pos
    n = order.shape[0]
    candidates, lengths = space.candidates, space.candidate_lengths
    width = candidates.shape[1]
    for direction in (1, -1):
        t2 = next_city(order, pos, t1, direction)
        d12 = dist(points, code, t1, t2)
        for k3 in range(width):
            t3 = candidates[t2, k3]
            if t3 < 0:
                break
            g1 = d12 - lengths[t2, k3]
            if g1 <= tol or t3 == t1 or t3 == next_city(order, pos, t2, direction):
                continue
            t4 = next_city(order, pos, t3, direction)
            if t4 == t1 or next_city(order, pos, t4, direction) == t1:
                continue
            split = g1 + dist(points, code, t3, t4) - dist(points, code, t4, t1)
            if split <= tol:
                continue
            # the two cycles: t2..t3 and t4..t1 (walking in `direction`); scan the smaller
            inner = _steps(pos, n, t2, t3, direction) + 1
            if 2 * inner <= n:
                first, last, other_first, other_last = t2, t3, t4, t1
            else:
                first, last, other_first, other_last = t4, t1, t2, t3
            span = _steps(pos, n, other_first, other_last, direction)
            a = first
            while a != last:
                b = next_city(order, pos, a, direction)
                g2 = split + dist(points, code, a, b)
                for kc in range(width):
                    c = candidates[b, kc]
                    if c < 0:
                        break
                    g3 = g2 - lengths[b, kc]
                    if g3 <= tol:
                        continue
                    if _steps(pos, n, other_first, c, direction) > span:
                        continue  # c is not in the other cycle
                    for side in (1, -1):
                        d = next_city(order, pos, c, side)
                        if _steps(pos, n, other_first, d, direction) > span:
                            continue  # (c, d) is not an edge of the other cycle
                        gain = g3 + dist(points, code, c, d) - dist(points, code, d, a)
                        if gain > tol:
                            removed = np.array([[t1, t2], [t3, t4], [a, b], [c, d]])
                            added = np.array([[t2, t3], [t4, t1], [b, c], [d, a]])
                            _make(tour, removed, added)
                            for city in (t1, t2, t3, t4, a, b, c, d):
                                push(active, city)
                            return -gain
                a = b
    return 0.0

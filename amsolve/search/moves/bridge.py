"""Non-sequential moves, as LKH's Gain23: a gainful 2-opt move that splits the tour into two cycles,
joined again by a 2-opt move between them (together a double bridge that shortens the tour).

Sequential moves (`lk.py`) cannot make such a move: neither half is a tour alone. The search starts
at t1 with t2 a tour neighbour and t3 a candidate of t2; t4 is t3's neighbour on the side that
splits the tour into the cycle t2..t3 and the cycle t4..t1, and the split must shorten the tour.
Then every tour edge (a, b) of the smaller cycle is tried with each candidate c of b in the other
cycle and either neighbour d of c there: removing (a, b) and (c, d) and adding (b, c) and (d, a)
joins the two cycles into one tour, whichever neighbour d is. The scan of the smaller cycle costs
O(its length), paid only when the split alone shortens the tour; it pays for that time: skipping
splits whose smaller cycle has more than 50 cities measured 0.0232 against 0.0156 % at 1,000
cities in 1 s (128 paired solves, `benchmarks/results/bridge_scan_d3144ba.md`).

Where no 2-opt move joins the cycles with a gain, a sequential 3-opt move may (`_join3`, LKH's
Gain23 joins with 2- or 3-opt moves): after (a, b) and (c, d) are removed and (b, c) added, the
two cycles are one path from a through the first cycle to b, then from c through the second to d.
A third edge (e, f) of that path, e a candidate of d and f after e on the path, is removed, and
(d, e) and (f, a) close the tour. Together with the split it is a non-sequential 5-opt move.

The move is made as a double bridge (`amsolve.search.tour.double_bridge_move`), after one 2-opt
move for one of the two ways of joining (`_make`), and for a 3-opt join a 2-opt move after it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.search.active import Active, push
from amsolve.search.kernel import kernel
from amsolve.search.space import Space, edge_length
from amsolve.search.tour import Tour, double_bridge_move, next_city, two_opt_move


@njit(cache=True, inline="always")
def _steps(pos: np.ndarray, n: int, a: int, b: int, direction: int) -> int:
    """How many steps from a to b walking in `direction`."""
    return ((pos[b] - pos[a]) * direction) % n


@kernel
def _make(tour: Tour, direction: int, t1: int, t2: int, t3: int, t4: int, a: int, b: int, c: int, d: int) -> None:
    """Make the move: remove (t1, t2), (t3, t4), (a, b), (c, d); add (t2, t3), (t4, t1), (b, c), (d, a).

    Walking in `direction` the tour reads t1 | t2..p | p'..t3 | t4..q | q'..t1, where (p, p') and
    (q, q') are the joining move's two edges, one in each cycle. Joined as (p, q'), (q, p') the new
    tour is a double bridge of the three segments after t2..p; joined as (p, q), (q', p') it is the
    same after t4..t1 is reversed first.
    """
    order, pos = tour.order, tour.pos
    n = order.shape[0]
    if _steps(pos, n, t2, a, direction) < _steps(pos, n, t2, t4, direction):
        p, p_next, q, q_next = a, b, c, d  # (a, b) lies in t2..t3
    else:
        p, p_next, q, q_next = c, d, a, b  # (a, b) lies in t4..t1
    if next_city(order, pos, p, direction) != p_next:
        p, p_next = p_next, p
    if next_city(order, pos, q, direction) != q_next:
        q, q_next = q_next, q
    if (p == a or p == d) == (q_next == a or q_next == d):  # (p, q') is an added edge
        double_bridge_move(tour, p, p_next, t3, t4, q, q_next, t1, t2)
    else:
        two_opt_move(tour, t3, t4, t1, t2)  # t2..p p'..t3 t1..q' q..t4
        double_bridge_move(tour, p, p_next, t3, t1, q_next, q, t4, t2)


@njit(cache=True, inline="always")
def _join3(
    space: Space,
    tour: Tour,
    direction: int,
    first: int,
    span_first: int,
    other_first: int,
    other_last: int,
    a: int,
    b: int,
    c: int,
    d: int,
    side: int,
    g4: float,
) -> tuple[int, int, float]:
    """A 3-opt join (see the module): the edge (e, f) of the path a..b c..d whose removal, with
    (d, e) and (f, a) added, gains most over G = `g4` (the split, minus (b, c), plus (a, b) and
    (c, d)). The cycle of a and b runs `first`.. (`span_first` steps, walking in `direction`),
    with b after a; the other cycle runs `other_first`..`other_last`, and d = c's
    neighbour in `side`. Returns (e, f, gain), or (-1, -1, 0.0) when no join gains.

    On the path f follows e: in a's cycle f is e's predecessor in `direction`, in the other
    cycle its neighbour away from d. An e whose f would be across a cycle's closing edge (added
    by the split) is skipped, as are the e that give back an edge just removed or added."""
    tol = space.tolerance
    order, pos = tour.order, tour.pos
    n = order.shape[0]
    candidates, lengths = space.candidates, space.candidate_lengths
    best_e, best_f, best_gain = -1, -1, tol
    for k in range(candidates.shape[1]):
        e = candidates[d, k]
        if e < 0:
            break
        g5 = g4 - lengths[d, k]
        if g5 <= tol:
            continue  # the gain criterion
        if e == a or e == b or e == c:
            continue
        if _steps(pos, n, first, e, direction) <= span_first:
            if e == first:
                continue
            f = next_city(order, pos, e, -direction)
        else:
            if e == (other_first if side == direction else other_last):
                continue
            f = next_city(order, pos, e, -side)
            if f == d:
                continue
        gain = g5 + edge_length(space, e, f) - edge_length(space, f, a)
        if gain > best_gain:
            best_e, best_f, best_gain = e, f, gain
    if best_e < 0:
        return -1, -1, 0.0
    return best_e, best_f, best_gain


@kernel
def improve_bridge(space: Space, tour: Tour, active: Active, t1: int, join3: bool = True) -> float:
    """Make a shortening non-sequential move found from t1 (see the module) and queue the cities
    whose edges it changed; returns the change in length (0.0 if none). Without `join3` only
    2-opt moves join the two cycles."""
    tol = space.tolerance
    order, pos = tour.order, tour.pos
    n = order.shape[0]
    candidates, lengths = space.candidates, space.candidate_lengths
    width = candidates.shape[1]
    for direction in (1, -1):
        t2 = next_city(order, pos, t1, direction)
        d12 = edge_length(space, t1, t2)
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
            split = g1 + edge_length(space, t3, t4) - edge_length(space, t4, t1)
            if split <= tol:
                continue
            # the two cycles: t2..t3 and t4..t1 (walking in `direction`); scan the smaller
            inner = _steps(pos, n, t2, t3, direction) + 1
            if 2 * inner <= n:
                first, last, other_first, other_last = t2, t3, t4, t1
            else:
                first, last, other_first, other_last = t4, t1, t2, t3
            span = _steps(pos, n, other_first, other_last, direction)
            span_first = _steps(pos, n, first, last, direction)
            a = first
            while a != last:
                b = next_city(order, pos, a, direction)
                g2 = split + edge_length(space, a, b)
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
                        g4 = g3 + edge_length(space, c, d)
                        gain = g4 - edge_length(space, d, a)
                        if gain > tol:
                            _make(tour, direction, t1, t2, t3, t4, a, b, c, d)
                            for city in (t1, t2, t3, t4, a, b, c, d):
                                push(active, city)
                            return -gain
                        if not join3:
                            continue
                        e, f, gain = _join3(
                            space, tour, direction, first, span_first, other_first, other_last, a, b, c, d, side, g4
                        )
                        if e >= 0:
                            _make(tour, direction, t1, t2, t3, t4, a, b, c, d)
                            two_opt_move(tour, d, a, e, f)
                            for city in (t1, t2, t3, t4, a, b, c, d, e, f):
                                push(active, city)
                            return -gain
                a = b
    return 0.0

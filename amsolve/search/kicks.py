"""Kicks for iterated local search: perturbations that local search cannot simply undo."""

from __future__ import annotations

import numpy as np

from amsolve.search.active import Active, push
from amsolve.search.kernel import kernel
from amsolve.search.space import Space, edge_length
from amsolve.search.tour import Tour, double_bridge_move

KICK_SEGMENT = 3000
"""Longest segment a double bridge moves (at most a third of the tour). A bound keeps the cost of a
kick independent of n. Long segments measured better than short ones at equal time: at 1,000
cities in 1 s 0.048 % with segments up to 332 against 0.062 % with 30, on the large TSPLIB
instances in 10 s 0.167 against 0.252 % (1,000 against 30); at 100 cities in 0.02 s the two were
alike. 3,000 against 1,000 (it changes only tours of more than 3,000 cities): 0.145 against
0.160 % on the six large TSPLIB instances in 10 s, 0.107 against 0.130 % on the four above 3,000
cities in 60 s (two seeds each), 0.59 against 0.60 % at 100,000 uniform cities in 100 s;
segments up to n/3 gave 0.161 % in 10 s."""

MIN_KICK_CITIES = 8
"""Smallest tour that is kicked; tinier ones are only locally optimised."""

KICKED_CITIES = 8
"""Cities a kick queues for the search after it: the ends of the four tour edges it cuts."""

LONG_EDGE_KICK_EVERY = 10
"""One kick in this many is a double bridge on long tour edges (`long_edge_double_bridge`), the
others are local (`segment_double_bridge`). Local kicks cannot change the order in which a tour
visits far-apart clusters; on d2103 about one seed in ten stalled at 0.31 % in 10 s for that
reason (2 of 16), and with one long-edge kick in ten none of 16 did (0.029 against 0.083 % mean;
one in 50: 0.044 against 0.060 %; 16 other seeds, no stall in either: 0.032 against 0.068 %).
At 1,000 uniform cities and at 100 the two measured alike (1 s: 0.0279 against 0.0282 %, 12 seeds;
0.02 s: 0.0023 against 0.0027 %, 12 seeds), and at 100,000 cities in 120 s its O(n) cost did not
show (0.58 against 0.59 %)."""

LONG_EDGE_SAMPLES = 32
"""Tour edges drawn at random for each cut of a long-edge kick; the cut is the longest of them."""

_LONG_EDGE_DRAWS = 8
"""Attempts at four distinct cuts before a long-edge kick falls back to a local one."""


@kernel
def _double_bridge(
    space: Space, tour: Tour, active: Active, x: int, b1: int, b2: int, c1: int, c2: int, d1: int, d2: int, y: int
) -> float:
    """The double bridge of `double_bridge_move`; queues the eight end cities and returns the change
    in length."""
    delta = (
        edge_length(space, x, d1)
        + edge_length(space, d2, c1)
        + edge_length(space, c2, b1)
        + edge_length(space, b2, y)
        - edge_length(space, x, b1)
        - edge_length(space, b2, c1)
        - edge_length(space, c2, d1)
        - edge_length(space, d2, y)
    )
    double_bridge_move(tour, x, b1, b2, c1, c2, d1, d2, y)
    for city in (x, b1, b2, c1, c2, d1, d2, y):
        push(active, city)
    return delta


@kernel
def segment_double_bridge(space: Space, tour: Tour, active: Active, longest: int) -> float:
    """A double bridge on three consecutive segments of 1..`longest` cities after a random city.

    Local in the tour, so it costs O(segment length), not O(n). Returns the change in length.
    """
    n = tour.order.shape[0]
    longest = max(1, min(longest, (n - 2) // 3))
    first = np.random.randint(n)
    b_end = first + 1 + np.random.randint(longest)  # positions, not yet wrapped around
    c_end = b_end + 1 + np.random.randint(longest)
    d_end = c_end + 1 + np.random.randint(longest)
    order = tour.order
    return _double_bridge(
        space,
        tour,
        active,
        order[first],
        order[(first + 1) % n],
        order[b_end % n],
        order[(b_end + 1) % n],
        order[c_end % n],
        order[(c_end + 1) % n],
        order[d_end % n],
        order[(d_end + 1) % n],
    )


@kernel
def _long_edge_position(space: Space, order: np.ndarray) -> int:
    """The position p whose edge order[p]–order[p+1] is the longest of `LONG_EDGE_SAMPLES` drawn at random."""
    n = order.shape[0]
    best, best_length = 0, -1.0
    for _ in range(LONG_EDGE_SAMPLES):
        p = np.random.randint(n)
        length = edge_length(space, order[p], order[(p + 1) % n])
        if length > best_length:
            best, best_length = p, length
    return best


@kernel
def long_edge_double_bridge(space: Space, tour: Tour, active: Active, longest: int) -> float:
    """A double bridge whose four cuts are long tour edges, wherever they lie in the tour.

    It can reorder far-apart stretches of the tour, which a local kick cannot. Its reversals may
    cost O(n). When four distinct cuts are not found in `_LONG_EDGE_DRAWS` attempts, it makes the
    local kick of `segment_double_bridge` instead. Returns the change in length.
    """
    order = tour.order
    n = order.shape[0]
    for _ in range(_LONG_EDGE_DRAWS):
        a, b = _long_edge_position(space, order), _long_edge_position(space, order)
        c, d = _long_edge_position(space, order), _long_edge_position(space, order)
        # sorted by a network of compare-exchanges (a sort of an array would allocate)
        a, b = min(a, b), max(a, b)
        c, d = min(c, d), max(c, d)
        a, c = min(a, c), max(a, c)
        b, d = min(b, d), max(b, d)
        b, c = min(b, c), max(b, c)
        # four distinct cuts leave three non-empty segments; x and y must differ
        if a < b < c < d and d - a <= n - 2:
            return _double_bridge(
                space,
                tour,
                active,
                order[a],
                order[a + 1],
                order[b],
                order[b + 1],
                order[c],
                order[c + 1],
                order[d],
                order[(d + 1) % n],
            )
    return segment_double_bridge(space, tour, active, longest)


@kernel
def kick(space: Space, tour: Tour, active: Active, longest: int, count: int) -> float:
    """The `count`-th kick of a search (from 0): every `LONG_EDGE_KICK_EVERY`-th a long-edge double
    bridge, the others local ones with segments of 1..`longest` cities. Returns the change in length."""
    if count % LONG_EDGE_KICK_EVERY == LONG_EDGE_KICK_EVERY - 1:
        return long_edge_double_bridge(space, tour, active, longest)
    return segment_double_bridge(space, tour, active, longest)


@kernel
def seed_kicks(seed: int) -> None:
    """Seed the generator the kicks draw from (numba's own, separate from numpy's)."""
    np.random.seed(seed)

"""Kicks for iterated local search: perturbations that local search cannot simply undo."""

from __future__ import annotations

import numpy as np
from numba import njit

from amsolve.search.active import Active, push
from amsolve.search.distances import dist
from amsolve.search.space import Space
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


@njit(cache=True)
def _double_bridge(
    space: Space, tour: Tour, active: Active, x: int, b1: int, b2: int, c1: int, c2: int, d1: int, d2: int, y: int
) -> float:
    """The double bridge of `double_bridge_move`; queues the eight end cities and returns the change
    in length."""
    points, code = space.points, space.code
    delta = (
        dist(points, code, x, d1)
        + dist(points, code, d2, c1)
        + dist(points, code, c2, b1)
        + dist(points, code, b2, y)
        - dist(points, code, x, b1)
        - dist(points, code, b2, c1)
        - dist(points, code, c2, d1)
        - dist(points, code, d2, y)
    )
    double_bridge_move(tour, x, b1, b2, c1, c2, d1, d2, y)
    for city in (x, b1, b2, c1, c2, d1, d2, y):
        push(active, city)
    return delta


@njit(cache=True)
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


@njit(cache=True)
def seed_kicks(seed: int) -> None:
    """Seed the generator the kicks draw from (numba's own, separate from numpy's)."""
    np.random.seed(seed)

"""2-opt and Or-opt with neighbour lists and don't-look bits, and an iterated local search on top.

Both searches are first-improvement over candidate lists (`neighbours`), driven by a queue of
cities whose surroundings changed (a city out of the queue has its don't-look bit set); with
"2opt+oropt" each city tries 2-opt first, then Or-opt. A move is made only when it shortens the
tour: for the integer TSPLIB metrics its delta is an exact integer and must be < 0; for EUCLIDEAN
it must be below -1e-12 * max(1, largest absolute coordinate), i.e. -1e-12 on the unit square, so
that rounding noise can never make the search go round in circles.

What a finished search guarantees, with k = `neighbours`:
- 2-opt: no improving 2-opt move adds an edge (a, c) with c among the k nearest of a and
  d(a, c) shorter than the edge the move removes at a. Every improving 2-opt move has such an
  endpoint, so with k >= n - 1 the tour is 2-optimal.
- Or-opt: no improving move of a segment of 1-3 cities (either orientation) joins one of the
  segment's ends to one of its k nearest. With k >= n - 1 no improving Or-opt move is left.
A search ends with a pass over all cities that finds nothing, which is what makes this hold.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.errors import InputError
from amsolve.problem.instance import check_permutations
from amsolve.search.distances import EUCLIDEAN, EXPLICIT, DistanceView, dist, tour_length
from amsolve.search.kernels import move_segment, step, two_opt_move
from amsolve.search.neighbours import DEFAULT_NEIGHBOURS, nearest_neighbours

LOCAL_SEARCHES = ("none", "2opt", "2opt+oropt")
"""Names of the local searches: none, 2-opt alone, 2-opt followed by Or-opt at each city."""

_MAX_SEGMENT = 3
"""Or-opt moves segments of 1.._MAX_SEGMENT consecutive cities."""

_CITIES_PER_CALL = 1024
"""Queued cities a kernel call processes before Python looks at the clock again."""

_KICKS_PER_CALL = 64
"""Kicks an iterated-local-search kernel call makes before Python looks at the clock again."""

_UNLIMITED = 2**62
"""A budget of queued cities never reached: each move shortens the tour, so the queue empties first."""

_KICK_SEGMENT = 100
"""Longest segment a kick moves. On five TSPLIB instances of 439-1000 cities, limits of 50, 100,
200 and n/2 gave tours within noise of each other after 2 s, and 10 clearly longer ones; a bound
keeps the cost of a kick independent of n."""

_MIN_KICK_CITIES = 8
"""Smallest tour that iterated local search kicks; tinier ones are only locally optimised."""


class _Space(NamedTuple):
    """What the kernels know of an instance."""

    points: np.ndarray  # (n, 2) from kernel_points
    code: int  # metric code
    tolerance: float  # a move must change the length by less than -tolerance
    neighbours: np.ndarray  # (n, k) candidate lists, nearest first; int64 like the tours


class _Queue(NamedTuple):
    """FIFO of cities to examine; a city not in it has its don't-look bit set."""

    cities: np.ndarray  # (n,) circular buffer
    queued: np.ndarray  # (n,) bool
    state: np.ndarray  # [head, size]


def move_tolerance(view: DistanceView) -> float:
    """How much a move must shorten a tour to count: 0 for integer distances, else a rounding margin."""
    points = view.points
    if view.code == EUCLIDEAN or (view.code == EXPLICIT and not np.array_equal(points, np.round(points))):
        return 1e-12 * max(1.0, float(np.abs(points).max(initial=0.0)))
    return 0.0


def _search_space(view: DistanceView, neighbours: int) -> _Space:
    """The kernels' view of an instance, with `neighbours` candidates per city."""
    candidates = nearest_neighbours(view, neighbours).astype(np.int64)
    return _Space(view.points, view.code, move_tolerance(view), candidates)


def _new_queue(n: int) -> _Queue:
    return _Queue(np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.bool_), np.zeros(2, dtype=np.int64))


def _positions(tour: np.ndarray) -> np.ndarray:
    """The inverse permutation: pos[tour[i]] = i."""
    pos = np.empty_like(tour)
    pos[tour] = np.arange(len(tour))
    return pos


@njit(cache=True)
def _push(queue: _Queue, city: int) -> None:
    """Queue `city` (clear its don't-look bit) unless it is queued already."""
    if not queue.queued[city]:
        n = queue.cities.shape[0]
        queue.cities[(queue.state[0] + queue.state[1]) % n] = city
        queue.state[1] += 1
        queue.queued[city] = True


@njit(cache=True)
def _pop(queue: _Queue) -> int:
    """Take the oldest city off the queue."""
    city = queue.cities[queue.state[0]]
    queue.state[0] = (queue.state[0] + 1) % queue.cities.shape[0]
    queue.state[1] -= 1
    queue.queued[city] = False
    return city


@njit(cache=True)
def _queue_all(queue: _Queue, tour: np.ndarray) -> None:
    for city in tour:
        _push(queue, city)


@njit(cache=True)
def _improve_2opt(space: _Space, tour: np.ndarray, pos: np.ndarray, queue: _Queue, a: int) -> float:
    """Make the first improving 2-opt move that joins a to a candidate; returns its delta (0.0 if none)."""
    points, code = space.points, space.code
    for direction in (1, -1):
        b = step(tour, pos, a, direction)
        d_ab = dist(points, code, a, b)
        for c in space.neighbours[a]:
            d_ac = dist(points, code, a, c)
            if d_ac >= d_ab:
                break  # neighbours are sorted: no later c can gain at a either
            d = step(tour, pos, c, direction)
            if c == b or d == a:
                continue
            delta = d_ac + dist(points, code, b, d) - d_ab - dist(points, code, c, d)
            if delta < -space.tolerance:
                two_opt_move(tour, pos, a, b, c, d)
                for city in (a, b, c, d):
                    _push(queue, city)
                return delta
    return 0.0


@njit(cache=True)
def _improve_oropt(space: _Space, tour: np.ndarray, pos: np.ndarray, queue: _Queue, a: int) -> float:
    """Make the first improving move of a segment that ends at a and is re-inserted with a next to
    one of its candidates; returns its delta (0.0 if none)."""
    points, code, n = space.points, space.code, tour.shape[0]
    for direction in (1, -1):
        p = step(tour, pos, a, -direction)  # the segment is a = s1, ..., s2 walking in `direction`
        s2 = a
        for length in range(1, _MAX_SEGMENT + 1):
            if length > 1:
                s2 = step(tour, pos, s2, direction)
            nx = step(tour, pos, s2, direction)
            if nx == p:
                break  # the segment would hold all cities but p
            if length == 1 and direction == -1:
                continue  # a single city was already tried walking forwards
            removal_gain = dist(points, code, p, a) + dist(points, code, s2, nx) - dist(points, code, p, nx)
            for c in space.neighbours[a]:
                if (pos[c] - pos[a]) * direction % n < length:
                    continue  # c is in the segment
                for side in (direction, -direction):
                    d = step(tour, pos, c, side)
                    if (pos[d] - pos[a]) * direction % n < length:
                        continue
                    delta = dist(points, code, c, a) + dist(points, code, s2, d) - dist(points, code, c, d)
                    delta -= removal_gain
                    if delta < -space.tolerance:
                        # Walking in `direction`, c comes before d when side == direction.
                        u, v = (c, d) if side == direction else (d, c)
                        move_segment(tour, pos, p, a, s2, nx, u, v, side != direction)
                        for city in (p, a, s2, nx, c, d):
                            _push(queue, city)
                        return delta
    return 0.0


@njit(cache=True)
def _drain(space: _Space, tour: np.ndarray, pos: np.ndarray, queue: _Queue, oropt: bool, budget: int) -> float:
    """Examine queued cities until none is left or `budget` were examined; returns the change in length."""
    total = 0.0
    for _ in range(budget):
        if queue.state[1] == 0:
            break
        a = _pop(queue)
        delta = _improve_2opt(space, tour, pos, queue, a)
        if delta == 0.0 and oropt:
            delta = _improve_oropt(space, tour, pos, queue, a)
        total += delta
    return total


def _local_search(space: _Space, tour: np.ndarray, pos: np.ndarray, oropt: bool, deadline: float) -> None:
    """Improve `tour` in place until a pass over all cities finds no move, or the deadline passes."""
    queue = _new_queue(len(tour))
    while True:
        _queue_all(queue, tour)
        gain = 0.0
        while queue.state[1]:
            if time.perf_counter() >= deadline:
                return
            gain += _drain(space, tour, pos, queue, oropt, _CITIES_PER_CALL)
        if gain == 0.0:
            return


@njit(cache=True)
def _double_bridge(space: _Space, tour: np.ndarray, pos: np.ndarray, queue: _Queue, randoms: np.ndarray) -> float:
    """Kick: swap two consecutive segments of random lengths that follow a random city x.

    Walking forwards the tour reads x, b1..b2, c1..c2, y and becomes x, c1..c2, b1..b2, y (a double
    bridge). Segments of at most _KICK_SEGMENT cities keep the kick local and its cost independent
    of n. Only the six end cities are queued. Returns the change in length.
    """
    points, code, n = space.points, space.code, tour.shape[0]
    longest = min(_KICK_SEGMENT, (n - 2) // 2)
    x = randoms[0] % n
    b_end = pos[x] + 1 + randoms[1] % longest  # position of b2, not yet wrapped around
    c_end = b_end + 1 + randoms[2] % longest
    b1, b2 = step(tour, pos, x, 1), tour[b_end % n]
    c1, c2, y = tour[(b_end + 1) % n], tour[c_end % n], tour[(c_end + 1) % n]
    delta = (
        dist(points, code, x, c1)
        + dist(points, code, c2, b1)
        + dist(points, code, b2, y)
        - dist(points, code, x, b1)
        - dist(points, code, b2, c1)
        - dist(points, code, c2, y)
    )
    move_segment(tour, pos, x, b1, b2, c1, c2, y, False)
    for city in (x, b1, b2, c1, c2, y):
        _push(queue, city)
    return delta


@njit(cache=True)
def _copy(tour: np.ndarray, pos: np.ndarray, to_tour: np.ndarray, to_pos: np.ndarray) -> None:
    """Copy a tour and its positions (a plain loop compiles much faster than slice assignment)."""
    for i in range(tour.shape[0]):
        to_tour[i] = tour[i]
        to_pos[i] = pos[i]


@njit(cache=True)
def _kicks(
    space: _Space,
    tour: np.ndarray,
    pos: np.ndarray,
    oropt: bool,
    best_tour: np.ndarray,
    best_pos: np.ndarray,
    randoms: np.ndarray,
) -> None:
    """One kick and local search per row of `randoms`, from the best tour so far (updated when shorter)."""
    queue = _Queue(np.empty_like(tour), np.zeros(tour.shape[0], dtype=np.bool_), np.zeros(2, dtype=np.int64))
    for row in randoms:
        delta = _double_bridge(space, tour, pos, queue, row)
        delta += _drain(space, tour, pos, queue, oropt, np.int64(_UNLIMITED))
        if delta < -space.tolerance:
            _copy(tour, pos, best_tour, best_pos)
        else:
            _copy(best_tour, best_pos, tour, pos)


def check_local_search(method: str) -> None:
    """InputError naming the valid values unless `method` is one of LOCAL_SEARCHES."""
    if method not in LOCAL_SEARCHES:
        raise InputError(f"unknown local search {method!r}; choose one of {', '.join(LOCAL_SEARCHES)}")


def improve_tours(
    view: DistanceView,
    tours: np.ndarray,
    method: str = "2opt+oropt",
    neighbours: int = DEFAULT_NEIGHBOURS,
    deadline: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Improve each of the tours (k, n) on its own; returns new tours and their exact lengths (k,).

    `method` is one of LOCAL_SEARCHES and `neighbours` the number of candidates per city (see the
    module docstring for what the result guarantees). `deadline` is a `time.perf_counter()` value:
    past it, tours are returned as they are (still permutations, never longer than given).
    """
    check_local_search(method)
    tours = check_permutations(tours, view.n)
    stop = math.inf if deadline is None else deadline
    if method != "none" and time.perf_counter() < stop:
        space = _search_space(view, neighbours)
        for tour in tours:
            _local_search(space, tour, _positions(tour), method == "2opt+oropt", stop)
    return tours, np.array([tour_length(view.points, view.code, tour) for tour in tours])


def iterated_local_search(
    view: DistanceView,
    tour: np.ndarray,
    deadline: float,
    seed: int = 0,
    method: str = "2opt+oropt",
    neighbours: int = DEFAULT_NEIGHBOURS,
) -> tuple[np.ndarray, float]:
    """Local search, then double-bridge kicks each followed by local search, kept when shorter, until `deadline`.

    `deadline` is a `time.perf_counter()` value. Kicks are local (see `_double_bridge`) and a
    rejected one is undone by copying the best tour back, O(n). Returns the best tour and its exact
    length; with method "none" the tour is returned as given. The result depends on `seed` and on
    how many kicks fit before the deadline.
    """
    check_local_search(method)
    best_tour = check_permutations(np.asarray(tour)[None], view.n)[0]
    if method != "none" and time.perf_counter() < deadline:
        space = _search_space(view, neighbours)
        oropt = method == "2opt+oropt"
        best_pos = _positions(best_tour)
        _local_search(space, best_tour, best_pos, oropt, deadline)
        if len(best_tour) >= _MIN_KICK_CITIES:
            tour, pos = best_tour.copy(), best_pos.copy()
            rng = np.random.default_rng(seed)
            while time.perf_counter() < deadline:
                randoms = rng.integers(0, np.iinfo(np.int64).max, size=(_KICKS_PER_CALL, 3))
                _kicks(space, tour, pos, oropt, best_tour, best_pos, randoms)
    return best_tour, tour_length(view.points, view.code, best_tour)

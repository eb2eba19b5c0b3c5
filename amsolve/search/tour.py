"""A tour as arrays, and the one primitive every move is made of: reversing a stretch of it.

`order[i]` is the city at position i and `pos[c]` the position of city c. A reversal flips the
shorter side of the tour, so it costs O(min(len, n - len)), and either side gives the same cyclic
tour; the array may thus end up running the other way round, which is why moves name the edges
they change by their cities, never by their positions.

Every reversal is appended to a journal, and `undo` replays them backwards, so a move that does
not pay is taken back in the time it took to make; `redo` makes them again; `commit` forgets the
journal. It has a fixed
capacity: `journal_full` tells a search to stop making moves before it overflows (a full journal
records nothing more, so what follows could not be undone).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.search.kernel import kernel

JOURNAL_MARGIN = 256
"""Reversals a search may still make after checking `journal_full` (one Lin–Kernighan step's worth)."""


class Tour(NamedTuple):
    """A tour being improved in place."""

    order: np.ndarray  # (n,) int64: city at each position
    pos: np.ndarray  # (n,) int64: position of each city
    journal: np.ndarray  # (capacity, 2) int64: (first, last) of each recorded reversal
    state: np.ndarray  # (1,) int64: [journal length]


def new_tour(order: np.ndarray, journal_capacity: int = 0) -> Tour:
    """Arrays for `order` (copied), with room for `journal_capacity` reversals (at least 2 · JOURNAL_MARGIN)."""
    order = np.array(order, dtype=np.int64)
    pos = np.empty_like(order)
    pos[order] = np.arange(len(order))
    capacity = max(journal_capacity, 2 * JOURNAL_MARGIN)
    return Tour(order, pos, np.empty((capacity, 2), dtype=np.int64), np.zeros(1, dtype=np.int64))


@njit(cache=True, inline="always")
def next_city(order: np.ndarray, pos: np.ndarray, city: int, direction: int) -> int:
    """The city after `city` in the tour `order` (positions `pos`) walking in `direction` (+1 or
    -1); branches, not modulo, as it sits in the search's innermost loops."""
    p = pos[city] + direction
    if p == order.shape[0]:
        p = 0
    elif p < 0:
        p = order.shape[0] - 1
    return order[p]


@njit(cache=True, inline="always")
def step(tour: Tour, city: int, direction: int) -> int:
    """The city after `city` when walking the tour in `direction` (+1 forwards, -1 backwards)."""
    return next_city(tour.order, tour.pos, city, direction)


@njit(cache=True, inline="always")
def _reverse(order: np.ndarray, pos: np.ndarray, first: int, last: int) -> None:
    """Reverse positions first..last (cyclic, inclusive), or the complement when that is shorter.

    The choice depends on first and last alone, so reversing the same pair again restores the array.
    The indices are unsigned so that numba leaves out its test for negative ones (Python's
    wrap-around): a swapped pair costs 1.4–1.7 ns instead of 2.1–2.3 at 1,000–10,000 cities
    (`benchmarks/reversal_cost.py`), and reversals are most of a kick's time on large tours.
    """
    n = order.shape[0]
    length = (last - first) % n + 1
    if 2 * length > n:
        first, last, length = (last + 1) % n, (first - 1) % n, n - length
    swaps = length // 2
    if first + length <= n:  # the stretch does not run past the array's end: a loop without its tests
        for k in range(swaps):
            i, j = np.uint64(first + k), np.uint64(last - k)
            a, b = order[i], order[j]
            order[i], order[j] = b, a
            pos[np.uint64(b)], pos[np.uint64(a)] = i, j
        return
    i, j, size = np.uint64(first), np.uint64(last), np.uint64(n)
    for _ in range(swaps):
        a, b = order[i], order[j]
        order[i], order[j] = b, a
        pos[np.uint64(b)], pos[np.uint64(a)] = i, j
        i = i + np.uint64(1) if i + np.uint64(1) < size else np.uint64(0)
        j = j - np.uint64(1) if j > np.uint64(0) else size - np.uint64(1)


@njit(cache=True, inline="always")
def reverse(tour: Tour, first: int, last: int) -> None:
    """Reverse positions first..last (see `_reverse`), journaled."""
    length = tour.state[0]
    if length < tour.journal.shape[0]:
        tour.journal[length, 0] = first
        tour.journal[length, 1] = last
        tour.state[0] = length + 1
    _reverse(tour.order, tour.pos, first, last)


@kernel
def commit(tour: Tour) -> None:
    """Keep what was done: forget the journal."""
    tour.state[0] = 0


@kernel
def replace_order(tour: Tour, order: np.ndarray) -> None:
    """Make `order` (n,) the tour and forget the journal (the old order cannot be undone to)."""
    commit(tour)
    for i in range(order.shape[0]):
        tour.order[i] = order[i]
        tour.pos[order[i]] = i


@njit(cache=True, inline="always")
def journal_length(tour: Tour) -> int:
    """How many reversals are journaled: a mark that `undo` can return to."""
    return tour.state[0]


@njit(cache=True, inline="always")
def journal_full(tour: Tour) -> bool:
    """Whether a search must stop so that what it did can still be undone."""
    return tour.state[0] >= tour.journal.shape[0] - JOURNAL_MARGIN


@kernel
def undo(tour: Tour, mark: int) -> None:
    """Take back the journaled reversals made after `mark`, newest first."""
    while tour.state[0] > mark:
        tour.state[0] -= 1
        k = tour.state[0]
        _reverse(tour.order, tour.pos, tour.journal[k, 0], tour.journal[k, 1])


@kernel
def redo(tour: Tour, mark: int) -> None:
    """Make again the reversals an `undo` took back, up to `mark` (what `journal_length` said before
    the undo): the journal keeps them until new reversals are recorded over them."""
    while tour.state[0] < mark:
        k = tour.state[0]
        _reverse(tour.order, tour.pos, tour.journal[k, 0], tour.journal[k, 1])
        tour.state[0] = k + 1


@kernel
def two_opt_move(tour: Tour, a: int, b: int, c: int, d: int) -> None:
    """Replace tour edges (a, b) and (c, d) by (a, c) and (b, d).

    b must follow a, and d follow c, in one common direction of travel (either one). When the two
    edges share a city the move leaves the tour as it is, which `move_segment` relies on when the
    segment moves next to its old place.
    """
    if step(tour, a, 1) == b:
        reverse(tour, tour.pos[b], tour.pos[c])
    else:
        reverse(tour, tour.pos[c], tour.pos[b])


@kernel
def double_bridge_move(tour: Tour, x: int, b1: int, b2: int, c1: int, c2: int, d1: int, d2: int, y: int) -> None:
    """Turn x, b1..b2, c1..c2, d1..d2, y (read in one direction) into x, d1..d2, c1..c2, b1..b2, y.

    The double bridge: four edges change and no sequential move of three can undo it. Four
    reversals: the whole stretch b1..d2, then each segment back.
    """
    two_opt_move(tour, x, b1, d2, y)  # x d2..d1 c2..c1 b2..b1 y
    two_opt_move(tour, x, d2, d1, c2)  # x d1..d2 c2..c1 b2..b1 y
    two_opt_move(tour, d2, c2, c1, b2)  # x d1..d2 c1..c2 b2..b1 y
    two_opt_move(tour, c2, b2, b1, y)  # x d1..d2 c1..c2 b1..b2 y


@kernel
def move_segment(tour: Tour, p: int, s1: int, s2: int, nx: int, u: int, v: int, flip: bool) -> None:
    """Move the segment s1..s2 from between p and nx to between u and v, as three 2-opt moves.

    In one direction of travel the tour must read p, s1, ..., s2, nx, ..., u, v. Afterwards p is
    joined to nx, and u..v holds the segment as u, s1..s2, v, or as u, s2..s1, v when `flip`.
    """
    two_opt_move(tour, p, s1, u, v)  # p u ... nx s2..s1 v
    two_opt_move(tour, p, u, nx, s2)  # p nx ... u s2..s1 v
    if not flip:
        two_opt_move(tour, u, s2, s1, v)  # p nx ... u s1..s2 v

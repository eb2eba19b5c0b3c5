"""Numba kernels for tours held as arrays: exact distances and the moves every search is built from.

A tour is two arrays: `tour[i]` is the city at position i and `pos[c]` the position of city c.
Every move is a sequence of 2-opt moves, and a 2-opt move reverses the shorter side of the tour,
so it costs O(min(len, n - len)). A reversal may leave the array running the other way round, so
moves name the edges they change by their cities, never by their positions.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def step(tour: np.ndarray, pos: np.ndarray, city: int, direction: int) -> int:
    """The city after `city` when walking the tour in `direction` (+1 forwards, -1 backwards)."""
    return tour[(pos[city] + direction) % tour.shape[0]]


@njit(cache=True)
def _reverse(tour: np.ndarray, pos: np.ndarray, first: int, last: int) -> None:
    """Reverse positions first..last (cyclic, inclusive), or the complement when that is shorter.

    Both give the same cyclic tour; only the direction the array runs in differs.
    """
    n = tour.shape[0]
    length = (last - first) % n + 1
    if 2 * length > n:
        first, last, length = (last + 1) % n, (first - 1) % n, n - length
    for _ in range(length // 2):
        a, b = tour[first], tour[last]
        tour[first], tour[last] = b, a
        pos[b], pos[a] = first, last
        first = (first + 1) % n
        last = (last - 1) % n


@njit(cache=True)
def two_opt_move(tour: np.ndarray, pos: np.ndarray, a: int, b: int, c: int, d: int) -> None:
    """Replace tour edges (a, b) and (c, d) by (a, c) and (b, d).

    b must follow a, and d follow c, in one common direction of travel (either one). When the two
    edges share a city the move leaves the tour as it is, which `move_segment` relies on when the
    segment moves next to its old place.
    """
    if step(tour, pos, a, 1) == b:
        _reverse(tour, pos, pos[b], pos[c])
    else:
        _reverse(tour, pos, pos[c], pos[b])


@njit(cache=True)
def move_segment(
    tour: np.ndarray, pos: np.ndarray, p: int, s1: int, s2: int, nx: int, u: int, v: int, flip: bool
) -> None:
    """Move the segment s1..s2 from between p and nx to between u and v, as three 2-opt moves.

    In one direction of travel the tour must read p, s1, ..., s2, nx, ..., u, v. Afterwards p is
    joined to nx, and u..v holds the segment as u, s1..s2, v, or as u, s2..s1, v when `flip`.
    """
    two_opt_move(tour, pos, p, s1, u, v)  # p u ... nx s2..s1 v
    two_opt_move(tour, pos, p, u, nx, s2)  # p nx ... u s2..s1 v
    if not flip:
        two_opt_move(tour, pos, u, s2, s1, v)  # p nx ... u s1..s2 v

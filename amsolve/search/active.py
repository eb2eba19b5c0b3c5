"""The cities a search still has to look at: a FIFO queue; a city not in it has its don't-look bit set."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.search.kernel import kernel


class Active(NamedTuple):
    """FIFO of cities to examine."""

    cities: np.ndarray  # (n,) int64 circular buffer
    queued: np.ndarray  # (n,) bool
    state: np.ndarray  # (2,) int64: [head, size]


def new_active(n: int) -> Active:
    """An empty queue for n cities (every don't-look bit set)."""
    return Active(np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.bool_), np.zeros(2, dtype=np.int64))


@njit(cache=True, inline="always")
def push(active: Active, city: int) -> None:
    """Queue `city` (clear its don't-look bit) unless it is queued already."""
    if not active.queued[city]:
        n = active.cities.shape[0]
        active.cities[(active.state[0] + active.state[1]) % n] = city
        active.state[1] += 1
        active.queued[city] = True


@kernel
def pop(active: Active) -> int:
    """Take the oldest city off the queue."""
    city = active.cities[active.state[0]]
    active.state[0] = (active.state[0] + 1) % active.cities.shape[0]
    active.state[1] -= 1
    active.queued[city] = False
    return city


@kernel
def push_all(active: Active, order: np.ndarray) -> None:
    """Queue every city, in the order given."""
    for city in order:
        push(active, city)


@njit(cache=True, inline="always")
def size(active: Active) -> int:
    """How many cities are queued."""
    return active.state[1]


@njit(cache=True, inline="always")
def copy_queued(active: Active, out: np.ndarray) -> int:
    """Copy the oldest queued cities, as many as `out` (m,) holds, into it; returns how many."""
    count = min(active.state[1], out.shape[0])
    n = active.cities.shape[0]
    for i in range(count):
        out[i] = active.cities[(active.state[0] + i) % n]
    return count

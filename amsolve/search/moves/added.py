"""The edges a Lin–Kernighan step has added so far, which the step must not remove again.

An added edge becomes a tour edge at once (moves are made as they are found), so a city has at most
two added edges in a step. Each city records the step in which it last had an edge added and that
step's partners: whether an edge was added is two array reads, whatever the step's depth, and a new
step begins by counting up, not by clearing. A list of the step's edges, scanned at each test (as
first done), made a kick at 1,000 cities about 8 % dearer (`benchmarks/results/kick_cost_added_edges.md`):
the 3-opt level tests every (t3, t4) and (t5, t6) it reaches against up to 30 edges.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class AddedEdges(NamedTuple):
    """Each city's edges added in the current step."""

    stamp: np.ndarray  # (n,) int64: the step in which the city last had an edge added (0: never)
    ends: np.ndarray  # (n, 2) int64: the other ends of its edges added in that step (-1: none)
    steps: np.ndarray  # (1,) int64: the current step's number, from 1


def new_added_edges(n: int) -> AddedEdges:
    """No edges added, for n cities."""
    return AddedEdges(np.zeros(n, dtype=np.int64), np.full((n, 2), -1, dtype=np.int64), np.zeros(1, dtype=np.int64))


@njit(cache=True, inline="always")
def begin_step(added: AddedEdges) -> None:
    """Forget every edge added before: a new step begins."""
    added.steps[0] += 1


@njit(cache=True, inline="always")
def _add_end(added: AddedEdges, city: int, other: int) -> None:
    """Record `other` as the far end of one of `city`'s edges added in this step."""
    step = added.steps[0]
    if added.stamp[city] != step:
        added.stamp[city] = step
        added.ends[city, 0] = other
        added.ends[city, 1] = -1
    else:
        added.ends[city, 1] = other


@njit(cache=True, inline="always")
def add_edge(added: AddedEdges, a: int, b: int) -> None:
    """Record edge (a, b) as added in this step."""
    _add_end(added, a, b)
    _add_end(added, b, a)


@njit(cache=True, inline="always")
def was_added(added: AddedEdges, a: int, b: int) -> bool:
    """Whether edge (a, b) was added in this step."""
    return added.stamp[a] == added.steps[0] and (added.ends[a, 0] == b or added.ends[a, 1] == b)

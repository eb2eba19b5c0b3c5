"""What every move reads of an instance: its distances, a rounding margin, the candidate lists and node penalties."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.search.distances import ATT, EUCLIDEAN, EXPLICIT, GEO, DistanceView, dist, dist_rows, planar_dist


class Space(NamedTuple):
    """An instance as the move kernels see it."""

    points: np.ndarray  # distances' data, from DistanceView
    code: int  # metric code
    tolerance: float  # a move must change the length by less than -tolerance to count
    candidates: np.ndarray  # (n, k) int64: each city's candidate partners, best first; -1 pads short rows
    candidate_lengths: np.ndarray  # (n, k) float64: d(i, candidates[i, m]), inf where padded
    penalties: np.ndarray  # (n,) float64: node penalties π of the LK gain criterion (zeros: none)
    cached_pairs: np.ndarray  # (m,) int64: pair a·n + b (a < b) in each slot of the GEO length cache, -1: none
    cached_lengths: np.ndarray  # (m,) float64: that pair's length


def move_tolerance(view: DistanceView) -> float:
    """How much a move must shorten a tour to count: 0 for integer distances, else a rounding margin.

    For float distances the margin, 1e-12 of the longest possible distance (the widest extent of the
    cities along an axis, or the largest matrix entry), keeps rounding noise from ever making a
    search go round in circles: a length's rounding error is relative to the length, whatever the
    coordinates' scale or distance from the origin.
    """
    points = view.points
    if view.code == EUCLIDEAN:
        return 1e-12 * float(np.ptp(points, axis=0).max())
    float_matrix = view.code == EXPLICIT and not np.issubdtype(points.dtype, np.integer)
    if float_matrix and not np.array_equal(points, np.round(points)):
        return 1e-12 * float(points.max())
    return 0.0


def make_space(view: DistanceView, candidates: np.ndarray, penalties: np.ndarray | None = None) -> Space:
    """The kernels' view of an instance with the given candidate lists (n, k) and, for α-nearness
    candidates, the ascent's node penalties (n,), which the LK steps' gain criterion uses."""
    candidates = np.ascontiguousarray(candidates, dtype=np.int64)
    lengths = dist_rows(view.points, view.code, np.maximum(candidates, 0))
    lengths[candidates < 0] = np.inf
    penalties = np.zeros(view.n) if penalties is None else np.ascontiguousarray(penalties, dtype=np.float64)
    return Space(view.points, view.code, move_tolerance(view), candidates, lengths, penalties, *_length_cache(view))


LENGTH_CACHE_PER_CITY = 64
"""Slots of the GEO length cache per city (rounded up to a power of two, at most `LENGTH_CACHE_MOST`)."""

LENGTH_CACHE_MOST = 1 << 20
"""Most slots of the GEO length cache (16 MiB)."""


def _length_cache(view: DistanceView) -> tuple[np.ndarray, np.ndarray]:
    """Empty slots of the length cache `edge_length` keeps for GEO instances (one unused slot for others)."""
    slots = 1
    if view.code == GEO:
        while slots < min(LENGTH_CACHE_MOST, LENGTH_CACHE_PER_CITY * view.n):
            slots *= 2
    return np.full(slots, -1, dtype=np.int64), np.zeros(slots)


@njit(cache=True)
def _other_length(points: np.ndarray, code: int, pairs: np.ndarray, lengths: np.ndarray, i: int, j: int) -> float:
    """`edge_length` for the metrics that are not planar: GEO lengths through the cache (measured
    and stored when their slot holds another pair), the others as `dist` measures them."""
    if code != GEO:
        return dist(points, code, i, j)
    a, b = (i, j) if i < j else (j, i)
    pair = a * points.shape[0] + b
    slot = (a * 2654435761 + b * 40503) & (pairs.shape[0] - 1)
    if pairs[slot] != pair:
        pairs[slot] = pair
        lengths[slot] = dist(points, code, a, b)
    return lengths[slot]


@njit(cache=True, inline="always")
def edge_length(space: Space, i: int, j: int) -> float:
    """d(i, j) as `dist` measures it, for the move kernels. GEO lengths (three cosines and an
    arccosine each) are kept in a direct-mapped cache: a search measures the same few edges over
    and over (tour edges, edges closing a move). The planar path and a matrix's are inlined, the
    others are one call away: a matrix entry two calls away made a kick on si175 and pa561 cost
    140–165 and 87–97 µs, against 102–120 and 77–83 µs one call away (through `dist`) and 86–107
    and 75–94 µs inlined (`benchmarks/kick_cost.py`, the same tours)."""
    if space.code == EXPLICIT:
        return 0.0 if i == j else float(space.points[i, j])
    if space.code > ATT:
        return _other_length(space.points, space.code, space.cached_pairs, space.cached_lengths, i, j)
    return planar_dist(space.points, space.code, i, j)

"""What every move reads of an instance: its distances, a rounding margin, the candidate lists and node penalties."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from amsolve.search.distances import EUCLIDEAN, EXPLICIT, DistanceView, dist_rows


class Space(NamedTuple):
    """An instance as the move kernels see it."""

    points: np.ndarray  # distances' data, from DistanceView
    code: int  # metric code
    tolerance: float  # a move must change the length by less than -tolerance to count
    candidates: np.ndarray  # (n, k) int64: each city's candidate partners, best first; -1 pads short rows
    candidate_lengths: np.ndarray  # (n, k) float64: d(i, candidates[i, m]), inf where padded
    penalties: np.ndarray  # (n,) float64: node penalties π of the LK gain criterion (zeros: none)


def move_tolerance(view: DistanceView) -> float:
    """How much a move must shorten a tour to count: 0 for integer distances, else a rounding margin.

    For float distances the margin, 1e-12 of the largest coordinate or matrix entry, keeps rounding
    noise from ever making a search go round in circles.
    """
    points = view.points
    float_matrix = view.code == EXPLICIT and not np.issubdtype(points.dtype, np.integer)
    if view.code == EUCLIDEAN or (float_matrix and not np.array_equal(points, np.round(points))):
        return 1e-12 * max(1.0, float(np.abs(points).max(initial=0.0)))
    return 0.0


def make_space(view: DistanceView, candidates: np.ndarray, penalties: np.ndarray | None = None) -> Space:
    """The kernels' view of an instance with the given candidate lists (n, k) and, for α-nearness
    candidates, the ascent's node penalties (n,), which the LK steps' gain criterion uses."""
    candidates = np.ascontiguousarray(candidates, dtype=np.int64)
    lengths = dist_rows(view.points, view.code, np.maximum(candidates, 0))
    lengths[candidates < 0] = np.inf
    penalties = np.zeros(view.n) if penalties is None else np.ascontiguousarray(penalties, dtype=np.float64)
    return Space(view.points, view.code, move_tolerance(view), candidates, lengths, penalties)

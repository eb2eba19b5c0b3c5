"""Distances between cities under the TSPLIB rules (and plain Euclidean), vectorised with numpy.

This module is the one place where distance rules live. Every tour length in amsolve comes
from `pair_distances`, so lengths on TSPLIB instances are exactly the integers TSPLIB defines.
A metric reads `points`: coordinates (n, 2), or (n, 3) for EUC_3D, or for EXPLICIT the (n, n)
distance matrix itself.
"""

from collections.abc import Callable

import numpy as np

METRICS = ("EUC_2D", "CEIL_2D", "ATT", "GEO", "MAN_2D", "MAX_2D", "EUC_3D", "EXPLICIT", "EUCLIDEAN")
"""TSPLIB's symmetric rules (EXPLICIT: a matrix), and EUCLIDEAN (plain float) for CSV and dataset files."""

EXPLICIT = "EXPLICIT"
"""The metric of instances given by a distance matrix rather than by coordinates."""

COORDINATE_DIMENSIONS = {metric: 3 if metric == "EUC_3D" else 2 for metric in METRICS if metric != EXPLICIT}
"""How many coordinates each city has under each coordinate metric."""

GEO_PI = 3.141592
"""The value of pi that TSPLIB's GEO rule uses (not math.pi)."""

GEO_EARTH_RADIUS = 6378.388
"""RRR of TSPLIB's GEO rule, in kilometres."""


def _nint(x: np.ndarray) -> np.ndarray:
    """Round to the nearest integer with halves going up, as TSPLIB's nint (not round-half-even)."""
    return np.floor(x + 0.5)


def _squared_distance(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """dx*dx + dy*dy between points p[..., :2] and q[..., :2], in the order TSPLIB's C code uses."""
    dx = p[..., 0] - q[..., 0]
    dy = p[..., 1] - q[..., 1]
    return dx * dx + dy * dy


def _manhattan_2d(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TSPLIB MAN_2D: nint(|dx| + |dy|)."""
    return _nint(np.abs(p[..., 0] - q[..., 0]) + np.abs(p[..., 1] - q[..., 1]))


def _maximum_2d(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TSPLIB MAX_2D: max(nint(|dx|), nint(|dy|))."""
    return np.maximum(_nint(np.abs(p[..., 0] - q[..., 0])), _nint(np.abs(p[..., 1] - q[..., 1])))


def _euc_3d(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TSPLIB EUC_3D: nint(sqrt(dx*dx + dy*dy + dz*dz))."""
    dz = p[..., 2] - q[..., 2]
    return _nint(np.sqrt(_squared_distance(p, q) + dz * dz))


def _euclidean(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Float Euclidean distance."""
    return np.sqrt(_squared_distance(p, q))


def _euc_2d(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TSPLIB EUC_2D: the Euclidean distance rounded with nint."""
    return _nint(_euclidean(p, q))


def _ceil_2d(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TSPLIB CEIL_2D: the Euclidean distance rounded up."""
    return np.ceil(_euclidean(p, q))


def _att(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TSPLIB ATT (pseudo-Euclidean): r = sqrt((dx^2 + dy^2) / 10); nint(r), plus 1 if below r."""
    r = np.sqrt(_squared_distance(p, q) / 10.0)
    t = _nint(r)
    return np.where(t < r, t + 1.0, t)


def _geo_radians(degrees_minutes: np.ndarray) -> np.ndarray:
    """TSPLIB DDD.MM values in radians: truncated degrees plus minutes, with PI = 3.141592."""
    return geo_radians_in_place(np.array(degrees_minutes, dtype=np.float64, order="C"))


GEO_BLOCK_VALUES = 8192
"""`geo_radians_in_place` converts this many values at a time: its temporary array (64 KiB) then
comes from the heap, where a fresh mapping of 100,000 cities' worth (1.6 MB) took a millisecond in
page faults, which the smallest time limits feel."""


def geo_radians_in_place(values: np.ndarray) -> np.ndarray:
    """`values` (float64, C-contiguous, DDD.MM) turned into radians in place, as `_geo_radians`
    defines them, in blocks of `GEO_BLOCK_VALUES`. Returns `values`."""
    flat = values.reshape(-1)  # a view: `values` is contiguous
    for first in range(0, flat.size, GEO_BLOCK_VALUES):
        block = flat[first : first + GEO_BLOCK_VALUES]
        degrees = np.trunc(block)
        block -= degrees  # the minutes over 100 (DDD.MM)
        block *= 5.0
        block /= 3.0
        block += degrees
        block *= GEO_PI
        block /= 180.0
    return values


def _geo(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TSPLIB GEO: great-circle distance in km on the idealised sphere, truncated after adding 1."""
    p_rad = _geo_radians(p)
    q_rad = _geo_radians(q)
    q1 = np.cos(p_rad[..., 1] - q_rad[..., 1])
    q2 = np.cos(p_rad[..., 0] - q_rad[..., 0])
    q3 = np.cos(p_rad[..., 0] + q_rad[..., 0])
    # Round-off can push the cosine past 1 for (nearly) coincident points; acos would give NaN.
    cosine = np.clip(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3), -1.0, 1.0)
    return np.floor(GEO_EARTH_RADIUS * np.arccos(cosine) + 1.0)


_RULES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "EUC_2D": _euc_2d,
    "CEIL_2D": _ceil_2d,
    "ATT": _att,
    "GEO": _geo,
    "MAN_2D": _manhattan_2d,
    "MAX_2D": _maximum_2d,
    "EUC_3D": _euc_3d,
    "EUCLIDEAN": _euclidean,
}


def pair_distances(points: np.ndarray, metric: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances between cities a[k] and b[k] (0-based indices into points, any matching shape).

    `points` are the coordinates, or for EXPLICIT the distance matrix (read as points[a, b]).
    Returns float64 values, integer-valued for the TSPLIB metrics. A city is at distance 0 from
    itself under every metric (the GEO formula alone would give 1).
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    a = np.asarray(a)
    b = np.asarray(b)
    if metric == EXPLICIT:
        distances = np.asarray(points)[a, b].astype(np.float64)
    else:
        coords = np.asarray(points, dtype=np.float64)
        distances = _RULES[metric](coords[a], coords[b])
    return np.where(a == b, 0.0, distances)


def distance_matrix(points: np.ndarray, metric: str) -> np.ndarray:
    """The full (n, n) float64 distance matrix; meant for small n and tests."""
    rows, cols = np.indices((len(points), len(points)))
    return pair_distances(points, metric, rows, cols)


def tour_lengths(points: np.ndarray, metric: str, tours: np.ndarray) -> np.ndarray:
    """Lengths of closed tours given as an array (..., n) of 0-based city indices; shape (...).

    Sums of integer distances are exact in float64 (below 2**53), so TSPLIB lengths are exact.
    """
    tours = np.asarray(tours)
    return pair_distances(points, metric, tours, np.roll(tours, -1, axis=-1)).sum(axis=-1)


def tour_length(points: np.ndarray, metric: str, tour: np.ndarray) -> float:
    """Length of one closed tour given as 0-based city indices (n,)."""
    return float(tour_lengths(points, metric, tour))

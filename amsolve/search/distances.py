"""Distances as the search kernels read them: one 2-D float array and a metric code.

Every kernel receives an instance's distances as `points` and `code`, from `distance_view`:
coordinates (n, 2) (GEO's DDD.MM already in radians) or (n, 3) for EUC_3D, or, for EXPLICIT
instances, the (n, n) distance matrix itself. `dist` applies the same rules as
`amsolve.problem.distance`, so integer metrics give integer-valued floats and the deltas of moves
are exact.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.errors import InputError
from amsolve.problem.distance import GEO_EARTH_RADIUS, METRICS, geo_radians_in_place
from amsolve.problem.instance import Instance

EUCLIDEAN, EUC_2D, CEIL_2D, ATT, GEO, MAN_2D, MAX_2D, EUC_3D, EXPLICIT = range(9)
"""Metric codes, the form in which kernels receive a metric."""

_METRIC_CODES: dict[str, int] = {
    "EUCLIDEAN": EUCLIDEAN,
    "EUC_2D": EUC_2D,
    "CEIL_2D": CEIL_2D,
    "ATT": ATT,
    "GEO": GEO,
    "MAN_2D": MAN_2D,
    "MAX_2D": MAX_2D,
    "EUC_3D": EUC_3D,
    "EXPLICIT": EXPLICIT,
}

PLANAR_CODES = (EUCLIDEAN, EUC_2D, CEIL_2D, ATT)
"""Metrics that rank cities as plain Euclidean distance in the plane does."""

GRID_CODES = PLANAR_CODES + (MAN_2D, MAX_2D)
"""Metrics of points in the plane, whose nearest cities (in all or in each quadrant) a grid over
the plane finds (`nearest_in_grid`)."""


class DistanceView(NamedTuple):
    """An instance's distances as kernels read them."""

    points: np.ndarray  # (n, 2) or (n, 3) coordinates, or the (n, n) matrix for EXPLICIT
    code: int  # metric code

    @property
    def n(self) -> int:
        return self.points.shape[0]


def metric_code(metric: str) -> int:
    """The kernel code of a metric name; InputError naming the known metrics if there is none."""
    try:
        return _METRIC_CODES[metric]
    except KeyError:
        raise InputError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}") from None


def kernel_points(coords: np.ndarray, code: int) -> np.ndarray:
    """Coordinates (or a matrix) as `dist` reads them: GEO's DDD.MM converted to radians once.

    Coordinates become a new writeable float64 C-contiguous array, so kernels are compiled once
    rather than again for read-only input. A matrix (int32 or float32, up to 10,000² entries) is
    not copied: a read-only view of it is used as it is.
    """
    if code == EXPLICIT:
        return np.ascontiguousarray(coords)
    points = np.array(coords, dtype=np.float64, order="C")
    return geo_radians_in_place(points) if code == GEO else points


def distance_view(instance: Instance) -> DistanceView:
    """What the kernels need to measure `instance`'s edges exactly as its metric defines them."""
    code = metric_code(instance.metric)
    return DistanceView(kernel_points(instance.points, code), code)


def coordinate_view(coords: np.ndarray, metric: str) -> DistanceView:
    """The view of bare coordinates under a coordinate metric (not EXPLICIT)."""
    code = metric_code(metric)
    if code == EXPLICIT:
        raise InputError("EXPLICIT distances need a matrix, not coordinates")
    return DistanceView(kernel_points(coords, code), code)


@njit(cache=True, inline="always")
def _nint(x: float) -> float:
    """TSPLIB's nint: halves round up."""
    return np.floor(x + 0.5)


@njit(cache=True, inline="always")
def dist(points: np.ndarray, code: int, i: int, j: int) -> float:
    """Distance between cities i and j, as `amsolve.problem.distance.pair_distances` defines it.

    The planar metrics take a short path that the compiler can inline into the search's loops;
    the others are measured by `_other_dist`.
    """
    if code > ATT:
        return _other_dist(points, code, i, j)
    return planar_dist(points, code, i, j)


@njit(cache=True, inline="always")
def planar_dist(points: np.ndarray, code: int, i: int, j: int) -> float:
    """`dist` for the planar metrics (`PLANAR_CODES`)."""
    dx = points[i, 0] - points[j, 0]
    dy = points[i, 1] - points[j, 1]
    length = np.sqrt(dx * dx + dy * dy)
    if code == EUCLIDEAN:
        return length
    if code == EUC_2D:
        return _nint(length)
    if code == CEIL_2D:
        return np.ceil(length)
    r = np.sqrt((dx * dx + dy * dy) / 10.0)  # ATT
    t = _nint(r)
    return t + 1.0 if t < r else t


@njit(cache=True)
def _other_dist(points: np.ndarray, code: int, i: int, j: int) -> float:
    """`dist` for GEO, MAN_2D, MAX_2D, EUC_3D and EXPLICIT."""
    if i == j:
        return 0.0
    if code == EXPLICIT:
        return float(points[i, j])
    if code == GEO:
        q1 = np.cos(points[i, 1] - points[j, 1])
        q2 = np.cos(points[i, 0] - points[j, 0])
        q3 = np.cos(points[i, 0] + points[j, 0])
        cosine = min(1.0, max(-1.0, 0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)))
        return np.floor(GEO_EARTH_RADIUS * np.arccos(cosine) + 1.0)
    dx = points[i, 0] - points[j, 0]
    dy = points[i, 1] - points[j, 1]
    if code == MAN_2D:
        return _nint(abs(dx) + abs(dy))
    if code == MAX_2D:
        return max(_nint(abs(dx)), _nint(abs(dy)))
    dz = points[i, 2] - points[j, 2]  # EUC_3D
    return _nint(np.sqrt(dx * dx + dy * dy + dz * dz))


@njit(cache=True)
def tour_length(points: np.ndarray, code: int, tour: np.ndarray) -> float:
    """Length of the closed tour (n,) under `dist`."""
    n = tour.shape[0]
    total = 0.0
    for i in range(n):
        total += dist(points, code, tour[i], tour[(i + 1) % n])
    return total


@njit(cache=True)
def dist_rows(points: np.ndarray, code: int, partners: np.ndarray) -> np.ndarray:
    """d(i, partners[i, m]) for every row i: (n, m), as `dist` measures it."""
    lengths = np.empty(partners.shape)
    for i in range(partners.shape[0]):
        for m in range(partners.shape[1]):
            lengths[i, m] = dist(points, code, i, partners[i, m])
    return lengths

"""Cities, metrics and tours: TSPLIB distance rules, distance matrices and the Instance type; no torch."""

from amsolve.problem.distance import (
    COORDINATE_DIMENSIONS,
    EXPLICIT,
    METRICS,
    distance_matrix,
    pair_distances,
    tour_length,
    tour_lengths,
)
from amsolve.problem.instance import Instance, tour_problem

__all__ = [
    "COORDINATE_DIMENSIONS",
    "EXPLICIT",
    "METRICS",
    "Instance",
    "distance_matrix",
    "pair_distances",
    "tour_length",
    "tour_lengths",
    "tour_problem",
]

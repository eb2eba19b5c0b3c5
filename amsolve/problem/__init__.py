"""Cities, metrics and tours: TSPLIB distance rules and the Instance type; no torch."""

from amsolve.problem.distance import (
    METRICS,
    distance_matrix,
    pair_distances,
    tour_length,
    tour_lengths,
)
from amsolve.problem.instance import Instance, tour_problem

__all__ = [
    "METRICS",
    "Instance",
    "distance_matrix",
    "pair_distances",
    "tour_length",
    "tour_lengths",
    "tour_problem",
]

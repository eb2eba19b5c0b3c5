"""What a solve's steps before its search cost, per city, and which of them fit in an instance's
time limit.

Under `--time-limit` every step counts: each city's nearest cities, the greedy edge start and the
α-nearness candidates cost time in proportion to the cities, and on large instances with short
limits they alone can take longer than the limit. The solver asks here, before each step, whether
it fits, and takes a cheaper one where it does not (`amsolve.solver`). The figures are per city,
measured on an Intel Xeon core at 5,000–100,000 cities (`benchmarks/time_limits.py` shows what
they keep); the metrics without them (MAN_2D, MAX_2D, EUC_3D, matrices) find neighbours by
comparing every pair and are never cut short.
"""

from __future__ import annotations

from typing import NamedTuple

from amsolve.search.candidates.alpha import dense_graph_limit
from amsolve.search.distances import GEO, PLANAR_CODES, DistanceView


class StepCosts(NamedTuple):
    """Seconds per city of each step of a solve before its search."""

    neighbours: float  # each city's 10 nearest
    wide_neighbours: float  # each city's 16 nearest, which α candidates rank
    greedy: float  # the greedy edge tour, given the nearest
    alpha: float  # α candidates beyond their ascent: graphs, a 1-tree, ranking, the penalty network


PLANAR_COSTS = StepCosts(neighbours=1.2e-6, wide_neighbours=1.5e-6, greedy=1.5e-6, alpha=6e-6)
"""Planar metrics: 10 nearest 0.9–1.1 µs, 16 nearest 1.1–1.4 µs, greedy edge 1.0–1.5 µs, α
candidates 6 µs at 2,000 cities, 7 at 5,000, 7.6 at 20,000."""

GEO_COSTS = StepCosts(neighbours=5e-6, wide_neighbours=7e-6, greedy=2.1e-6, alpha=9e-6)
"""GEO, whose lengths cost three cosines and an arccosine: 10 nearest 3.0–4.6 µs, 16 nearest
4.2–6.9 µs, greedy edge 1.4–2.1 µs, α candidates 10 µs at 20,000 cities."""


def step_costs(view: DistanceView) -> StepCosts | None:
    """The per-city costs of the instance's metric; None where neighbours are found by comparing every pair."""
    if view.code in PLANAR_CODES:
        return PLANAR_COSTS
    return GEO_COSTS if view.code == GEO else None


def alpha_fits(view: DistanceView, seconds: float) -> bool:
    """Whether α candidates, beyond their ascent, take at most `seconds`; always on the complete
    graph, which small instances use.

    Measured with the default pipeline against the same with each city's 10 nearest (one core;
    lengths in millions): where this takes the nearest (with the candidate lists' share of the
    time), they gave the shorter tours (20,000 uniform cities in 0.3 s 109.8 against 116.0, GEO
    in 1 s 2.19 against 2.29; 4 instances of 2,000 and of 5,000 cities in 25 and 20 µs a city,
    1.2 and 3.7 % shorter); where it takes α, α did (2,000 and 5,000 cities in 50 and 40 µs a
    city, 0.4 and 0.3 %; 20,000 in 2 s, 0.4 %), but for 20,000 uniform cities in 1 s (102.8
    against 102.5)."""
    costs = step_costs(view)
    return view.n <= dense_graph_limit(view.code) or costs is None or costs.alpha * view.n <= seconds


def greedy_fits(view: DistanceView, seconds: float) -> bool:
    """Whether each city's nearest and the greedy edge tour on them take at most `seconds`."""
    costs = step_costs(view)
    return costs is None or (costs.neighbours + costs.greedy) * view.n <= seconds


def greedy_fits_after_neighbours(view: DistanceView, neighbours_seconds: float, wide: bool, seconds: float) -> bool:
    """Whether the greedy tour takes at most `seconds`, judged by what each city's nearest (16 of
    them when `wide`, else 10) have just taken: the machine's speed of the moment, which the
    per-city figures cannot know (the same solves ran a quarter slower at some hours)."""
    costs = step_costs(view)
    if costs is None:
        return True
    per_neighbours = costs.wide_neighbours if wide else costs.neighbours
    return neighbours_seconds * costs.greedy / per_neighbours <= seconds


def neighbours_fit(view: DistanceView, seconds: float) -> bool:
    """Whether each city's nearest, which every search needs, take at most `seconds`."""
    costs = step_costs(view)
    return costs is None or costs.neighbours * view.n <= seconds

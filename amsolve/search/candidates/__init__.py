"""Candidate lists: for each city, the few partners the moves try to join it to.

Sources: `nearest` (the k nearest cities), `quadrant` (the nearest in each quadrant around the city
first, for clustered instances), `alpha` (α-nearness from minimum 1-trees under Held–Karp node
penalties, as LKH computes it), `alphanet` (the same, its ascent started from the node penalties a
small network predicts, `amsolve.model.penalties`, as NeuroLKH does) and `model` (the network's
scores, computed on the network's side by `amsolve.decode.edge_scores` and passed to the search
like any other lists). Each gives an (n, k)
int64 array, best first, -1 padding the rows of cities with fewer partners.
"""

from __future__ import annotations

import numpy as np

from amsolve.errors import InputError
from amsolve.search.candidates.alpha import alpha_candidates
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.candidates.quadrant import quadrant_neighbours
from amsolve.search.distances import DistanceView

CANDIDATE_SOURCES = ("nearest", "quadrant", "alpha", "alphanet", "model")
"""Names of the candidate sources."""

ALPHA_SOURCES = ("alpha", "alphanet")
"""The sources whose lists are ranked by α-nearness."""

DEFAULT_CANDIDATES = {"nearest": 10, "quadrant": 10, "alpha": 8, "alphanet": 8, "model": 8}
"""k when not told. LKH uses 5 α-nearest; at equal time 8 measured better here (1,000 cities in 1 s:
0.070 against 0.077 %; 100 cities in 0.02 s: 0.001 against 0.010 %), and for the network's lists
(1,000 cities in 1 s: 0.025 against 0.042 %). Distance needs more."""


def check_candidates(source: str, k: int | None) -> None:
    """InputError unless `source` is a known candidate source and k (if given) at least 1."""
    if source not in CANDIDATE_SOURCES:
        raise InputError(f"unknown candidate source {source!r}; choose one of {', '.join(CANDIDATE_SOURCES)}")
    if k is not None and k < 1:
        raise InputError(f"--candidates-k must be at least 1, got {k}")


def candidate_lists(view: DistanceView, source: str, k: int | None = None, seconds: float = 0.0) -> np.ndarray:
    """Each city's k candidates from `source` (k None: DEFAULT_CANDIDATES); `seconds` bounds the
    Held–Karp ascent of `alpha` (the other sources take no time worth bounding)."""
    return candidates_and_penalties(view, source, k, seconds)[0]


def candidates_and_penalties(
    view: DistanceView,
    source: str,
    k: int | None = None,
    seconds: float = 0.0,
    neighbours: np.ndarray | None = None,
    upper_bound: float | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """`candidate_lists`, with the node penalties π of the ascent behind `alpha` (None for the
    other sources), which the search's gain criterion uses (`amsolve.search.space.make_space`).
    `neighbours` and `upper_bound`, when known, spare finding them again (`alpha_candidates`)."""
    check_candidates(source, k)
    if source == "model":
        raise InputError("model candidates need the network: amsolve.decode.edge_scores.model_candidates")
    if source == "alphanet":
        raise InputError("alphanet candidates need the penalty network: amsolve.model.penalties.predict_penalties")
    k = DEFAULT_CANDIDATES[source] if k is None else k
    if source == "alpha":
        result = alpha_candidates(view, k, seconds, neighbours=neighbours, upper_bound=upper_bound)
        return result.candidates, result.penalties
    if source == "quadrant":
        return quadrant_neighbours(view, k, neighbours), None
    return nearest_neighbours(view, k, neighbours), None

"""What a solve's steps before its search cost, per city, and which of them fit in an instance's
time limit.

Under `--time-limit` every step counts: each city's nearest cities, the greedy edge start and the
α-nearness candidates cost time in proportion to the cities, and on large instances with short
limits they alone can take longer than the limit. The solver asks here, before each step, whether
it fits, and takes a cheaper one where it does not (`amsolve.solver`). The figures are per city,
measured on an Intel Xeon core at 5,000–100,000 cities (`benchmarks/time_limits.py` shows what
they keep); for a matrix, whose every entry is read to find each city's nearest, the nearest
cost per pair of cities (`MATRIX_COSTS`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from amsolve.search.candidates.alpha import dense_graph_limit
from amsolve.search.distances import EUC_3D, EXPLICIT, GEO, MAN_2D, MAX_2D, PLANAR_CODES, DistanceView
from amsolve.search.local_search import FIVE_OPT_MIN_CITIES

WINDOW_PLANAR, WINDOW_MAN_MAX, WINDOW_EUC_3D, WINDOW_GEO = 0.6e-6, 0.8e-6, 0.9e-6, 2.5e-6
"""Candidates along the start tour (`amsolve.search.candidates.window`) and the search's arrays for
them, per city, measured at 20,000 and 100,000 cities on an AMD EPYC core: EUC_2D 0.49–0.55 µs
(0.92 the first time), MAN_2D 0.52–0.79, EUC_3D 0.65–0.87, GEO 2.0–2.4."""


class StepCosts(NamedTuple):
    """Seconds per city of each step of a solve before its search."""

    neighbours: float  # each city's 10 nearest
    wide_neighbours: float  # each city's 16 nearest, which α candidates rank
    greedy: float  # the greedy edge tour, given the nearest
    alpha: float  # α candidates beyond their ascent: graphs, a 1-tree, ranking, the penalty network
    curve: float  # the space-filling curve (`curve_fits`)
    window: float  # candidates along the start tour, with the search's arrays for them (`window_fits`)
    space: float  # the search's arrays for each city's nearest (`make_space`; `neighbours_fit`)


PLANAR_COSTS = StepCosts(
    neighbours=1.6e-6,
    wide_neighbours=2.0e-6,
    greedy=2.0e-6,
    alpha=6e-6,
    curve=0.08e-6,
    window=WINDOW_PLANAR,
    space=0.12e-6,
)
"""Planar metrics, on an AMD EPYC core under the mmap threshold `amsolve solve` fixes: 10 nearest
1.2–2.3 µs, 16 nearest 1.6–2.7 µs, greedy edge 1.2–3.1 µs at 5,000–100,000 cities (the most at
100,000; on an Intel Xeon core 0.9–1.1, 1.1–1.4 and 1.0–1.5), α candidates 6 µs at 2,000 cities,
7 at 5,000, 7.6 at 20,000; the space-filling curve 0.06–0.10 µs at 20,000 and 100,000."""

GEO_COSTS = StepCosts(
    neighbours=5e-6, wide_neighbours=7e-6, greedy=2.1e-6, alpha=9e-6, curve=0.09e-6, window=WINDOW_GEO, space=1.7e-6
)
"""GEO, whose lengths cost three cosines and an arccosine: 10 nearest 3.0–4.6 µs, 16 nearest
4.2–6.9 µs, greedy edge 1.4–2.1 µs, α candidates 10 µs at 20,000 cities; the curve 0.07–0.10 µs
(AMD EPYC, 20,000 and 100,000 cities)."""


MAN_MAX_COSTS = StepCosts(
    neighbours=3.3e-6,
    wide_neighbours=4.7e-6,
    greedy=2.4e-6,
    alpha=7.8e-6,
    curve=0.08e-6,
    window=WINDOW_MAN_MAX,
    space=0.35e-6,
)
"""MAN_2D and MAX_2D, whose nearest the planar grid finds by their own rounded distance: the most
MAN_2D (the dearer) measured at 5,000 to 100,000 cities on a slow day, when EUC_2D's 10 nearest
took 1.5–2.1 µs a city against the 0.9–1.1 µs behind `PLANAR_COSTS` (10 nearest 3.0–3.3 µs, 16
nearest 4.1–4.6, greedy edge 1.8–2.4); α candidates the planar figure times what MAN_2D measured
against EUC_2D in the same runs (1.2–1.3 times). Costed at the planar day's speed instead (the
planar figures times the ratios), 100,000 cities under `--time-limit 0.3` took 0.38–0.44 s: their
nearest seemed to fit and took all of it. The curve 0.06–0.09 µs (AMD EPYC, 20,000 and 100,000
cities)."""

EUC_3D_COSTS = StepCosts(
    neighbours=7.2e-6,
    wide_neighbours=8.0e-6,
    greedy=2.3e-6,
    alpha=4.2e-6,
    curve=0.28e-6,
    window=WINDOW_EUC_3D,
    space=0.35e-6,
)
"""EUC_3D, whose nearest a grid of cubes finds, measured the same way (10 nearest 5.6–7.2 µs, 16
nearest 6.5–8.0, greedy edge 1.7–2.2; α candidates 0.5–0.7 times EUC_2D's: its sparse graph has no
quadrant neighbours); the curve 0.18–0.30 µs (AMD EPYC, 20,000 and 100,000 cities)."""

MATRIX_NEIGHBOURS_PER_PAIR, MATRIX_WIDE_NEIGHBOURS_PER_PAIR = 3.5e-9, 4.5e-9
"""A matrix's 10 and 16 nearest, per pair of cities (each row read once): 1.4–3.4 and 1.7–4.5 ns
at 1,000–8,000 cities on an AMD EPYC core, the most at 1,000."""

MATRIX_COSTS = StepCosts(
    neighbours=0.0, wide_neighbours=0.0, greedy=3.0e-6, alpha=8e-6, curve=0.0, window=math.inf, space=1.5e-6
)
"""A matrix's per-city costs but the nearest (`step_costs` adds them for its size): greedy edge
1.6–3.3 µs a city at 2,000–8,000 cities, α candidates on the sparse graph 5.3–5.8 µs at 4,000 and
8,000 (AMD EPYC). A matrix has no space-filling curve: where the greedy start does not fit, the
cities' own order is the start, at no cost, and its neighbours in that order are no candidates
worth searching (`window` never fits)."""

DENSE_ALPHA_PER_PAIR = 40e-9
"""Seconds per pair of cities of α candidates on the complete graph (up to `dense_graph_limit`),
beyond their ascent: 32–38 ns measured at 120–1,000 cities for MAN_2D, EUC_3D and matrices
(38 ms at 1,000 cities), 18 ns for EUC_2D up to 120."""


def step_costs(view: DistanceView) -> StepCosts:
    """The per-city costs of the instance's metric (a matrix's for its size: its nearest grow with n)."""
    if view.code in PLANAR_CODES:
        return PLANAR_COSTS
    if view.code in (MAN_2D, MAX_2D):
        return MAN_MAX_COSTS
    if view.code == EUC_3D:
        return EUC_3D_COSTS
    if view.code == GEO:
        return GEO_COSTS
    assert view.code == EXPLICIT
    return MATRIX_COSTS._replace(
        neighbours=MATRIX_NEIGHBOURS_PER_PAIR * view.n, wide_neighbours=MATRIX_WIDE_NEIGHBOURS_PER_PAIR * view.n
    )


def alpha_fits(view: DistanceView, seconds: float) -> bool:
    """Whether α candidates, beyond their ascent, take at most `seconds`: on the complete graph,
    which small instances use, `DENSE_ALPHA_PER_PAIR`; on the sparse graph their metric's
    `StepCosts.alpha` (always for matrices, whose nearest take longer).

    Measured with the default pipeline against the same with each city's 10 nearest (one core;
    lengths in millions): where this takes the nearest (with the candidate lists' share of the
    time), they gave the shorter tours (20,000 uniform cities in 0.3 s 109.8 against 116.0, GEO
    in 1 s 2.19 against 2.29; 4 instances of 2,000 and of 5,000 cities in 25 and 20 µs a city,
    1.2 and 3.7 % shorter); where it takes α, α did (2,000 and 5,000 cities in 50 and 40 µs a
    city, 0.4 and 0.3 %; 20,000 in 2 s, 0.4 %), but for 20,000 uniform cities in 1 s (102.8
    against 102.5)."""
    if view.n <= dense_graph_limit(view.code):
        return DENSE_ALPHA_PER_PAIR * view.n * view.n <= seconds
    return step_costs(view).alpha * view.n <= seconds


def greedy_fits(view: DistanceView, seconds: float) -> bool:
    """Whether each city's nearest and the greedy edge tour on them take at most `seconds`."""
    costs = step_costs(view)
    return (costs.neighbours + costs.greedy) * view.n <= seconds


OVERRUN_ALLOWED = 1.1
"""How much longer than its time limit a solve may take: the curve, the last start before the cities'
own order, is built where at its slowest it would end within this many times the time left (`curve_fits`)."""

CURVE_SPREAD = 1.25
"""The slowest the curve ran against its figure: 0.06–0.10 µs a city at 100,000 EUC_2D cities in
repeated runs, under the mmap threshold `amsolve solve` fixes (its arrays mapped afresh each time)."""

FINISH = 0.01e-6
"""Seconds per city after the search: checking the tour and putting it back in the file's order
(0.5–0.8 ms at 100,000 cities)."""


def curve_fits(view: DistanceView, seconds: float) -> bool:
    """Whether the space-filling curve at its slowest (`CURVE_SPREAD`), and the finish, take at most
    `OVERRUN_ALLOWED` × `seconds` (always for a matrix, which has none). Where they do not, nothing
    else does: the cities' own order is the tour. Measured on an AMD EPYC core at 20,000 and
    100,000 uniform cities: the curve alone 0.06–0.10 µs a city (EUC_2D), 0.06–0.09 (MAN_2D),
    0.18–0.30 (EUC_3D), 0.07–0.10 (GEO)."""
    return (CURVE_SPREAD * step_costs(view).curve + FINISH) * view.n <= OVERRUN_ALLOWED * seconds


PACE_FLOOR = 0.25e-3
"""Seconds below which a step's figure says nothing of the machine's speed, either way: its fixed
costs (the Python around it, a compiled call, caches still cold) are most of it. The space-filling curve of
1,000 cities, 0.08 ms by its figure, took 0.08–0.1 ms when run again and again but 0.2 ms in a
solve, so its pace said the machine was 2.5 times slow, and under `--time-limit 0.003` half of the
solves returned the curve unsearched (0.3 ms) where candidates along it and a descent fitted."""


def pace(view: DistanceView, step: str, seconds: float) -> float:
    """How many times its per-city figure (the `StepCosts` field `step`) a step has just taken: the
    machine's speed of the moment, which the figures cannot know (the same steps ran up to twice
    as slow on some days, and a quarter slower at some hours); 1.0 for a step too short to tell
    (`PACE_FLOOR`), or that costs nothing (a matrix's start in its own order)."""
    cost = getattr(step_costs(view), step) * view.n
    return seconds / cost if cost >= PACE_FLOOR else 1.0


def greedy_tour_fits(view: DistanceView, seconds: float, speed: float) -> bool:
    """Whether the greedy tour on each city's nearest takes at most `seconds` at the `speed` (a
    `pace`) the nearest were found at."""
    return step_costs(view).greedy * view.n * speed <= seconds


WINDOW_SEARCH_SHARE = 0.5
"""Most of the time left that candidates along the tour may take (`window_fits`): the rest is the search's."""


def window_fits(view: DistanceView, seconds: float, speed: float = 1.0) -> bool:
    """Whether candidates along the start tour (where each city's nearest do not fit) leave at least
    half of `seconds` for the search, at the `speed` (a `pace`) of the step before."""
    return step_costs(view).window * view.n * speed <= WINDOW_SEARCH_SHARE * seconds


def neighbours_fit(view: DistanceView, seconds: float, speed: float = 1.0) -> bool:
    """Whether each city's nearest, which every search needs, take at most `seconds`, at the
    `speed` (a `pace`) of the step before, taken as 1 where it is faster. The space-filling curve
    is the step before where the greedy start did not fit: a slow curve says the machine is slow,
    but a fast one does not say the nearest will be fast (at 100,000 uniform cities the curve took
    0.06–0.07 µs a city, under its figure, while the nearest took 1.8–2.3 µs, over theirs then).
    20,000 uniform cities' nearest took 1.8–2.1 µs a city on a slow day (the figure then said 1.2);
    judged by the figure alone, 5 of 12 solves under `--time-limit 0.03` found the nearest and took
    41–53 ms. The search's arrays for them count too (`StepCosts.space`, measured on an AMD EPYC
    core at 20,000 and 100,000 cities: EUC_2D 0.08–0.12 µs a city, MAN_2D 0.21–0.35, EUC_3D
    0.29–0.35, GEO 1.24–1.69 with its cache of lengths; a matrix's 1.06–1.56 at 5,000 and 10,000
    cities, its rows read at random): uncosted, GEO's 25–35 ms at 20,000 cities made solves under
    `--time-limit 0.1` whose nearest just fitted take 0.11–0.13 s."""
    costs = step_costs(view)
    return (costs.neighbours + costs.space) * view.n * max(1.0, speed) <= seconds


FIRST_DESCENT, FIVE_OPT_FIRST_DESCENT = 20e-6, 80e-6
"""Seconds per city of a tour's first descent from greedy edge (`amsolve.search.local_search`): with
3-opt steps, below `FIVE_OPT_MIN_CITIES`, 9–15 µs at 100 EUC_2D cities, 13–19 at 1,000 (GEO 12–22,
EUC_3D 12–37); with 5-opt steps above, 48–64 µs at 3,000 EUC_2D cities (GEO 49–88, EUC_3D
62–107), on an AMD EPYC core."""


def steps_seconds(view: DistanceView) -> float:
    """Seconds the steps before the kicks (each city's nearest, the greedy start, the search's arrays
    and the first descent) take by their figures."""
    costs = step_costs(view)
    descent = FIRST_DESCENT if view.n < FIVE_OPT_MIN_CITIES else FIVE_OPT_FIRST_DESCENT
    return (costs.wide_neighbours + costs.greedy + costs.space + descent) * view.n

"""Local search to a local optimum, and iterated local search (kicks) until a deadline.

Both are driven by a queue of cities whose surroundings changed (`amsolve.search.active`): a city
is taken off the queue and the search's moves are tried at it, first improvement; a move queues
the cities whose edges it changed. A search ends when the queue is empty, after a pass over all
cities that found nothing. The methods:

- "2opt": 2-opt moves over the candidate lists;
- "2opt+oropt": 2-opt, then Or-opt (segments of 1–3 cities) at each city;
- "lk": Lin–Kernighan steps and, where none improves, the non-sequential move
  (`amsolve.search.moves.bridge`; its cycles joined by 3-opt moves too from `JOIN3_MIN_CITIES`);
  Or-opt after them measured worse at equal time (0.241 against 0.220 % at 1,000 cities in 1 s),
  its segment moves being among LK's. A tour's first descent takes steps with 5-opt basis moves
  (`amsolve.search.moves.kopt`), the searches after kicks steps with 3-opt ones
  (`amsolve.search.moves.lk`): see `_FIVE_OPT`.

A move is made only when it shortens the tour: for integer distances its delta is an exact
integer and must be < 0; for float distances it must be below minus a rounding margin
(`amsolve.search.space.move_tolerance`), so that rounding noise cannot make a search go round
in circles.

Iterated local search kicks the tour (`amsolve.search.kicks`), searches again from the kicked
cities, and keeps the result when it is at most a little longer than before (the slack);
otherwise the journal of reversals takes the kick and the search back, in the time they took,
not O(n). Most kicks are undone by the search itself, the tour back at its length before the kick;
the search after a kick stops there (`_drain`), since the cities still queued were searched in that
tour already. Letting the tour get slightly longer lets the search wander between nearby local optima
instead of stopping at the first one no kick can improve: at 1,000 cities in 1 s a constant
slack of a third of a mean edge took the mean gap from 0.12 to 0.06 % (16 instances). The slack
falls over the budget, as the temperature of simulated annealing does (`scheduled_slack`): wide
early, so that the search leaves the first basin it meets, and narrow at the end, so that it
settles in the best one it found. A search that makes many kicks for its size runs the falling
slack in several cycles (`CYCLE_KICKS`). The shortest tour met is kept aside,
copied only when the search leaves it. Every `MERGE_EVERY` kicks the wandering tour is merged
into the shortest one stretch by stretch (`amsolve.search.merge`), so that what it found in one
region counts although it is longer elsewhere. A search that has stopped finding shorter tours
for long begins a new trial from its first local optimum (`amsolve.search.restarts`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.errors import InputError
from amsolve.problem.instance import check_permutations
from amsolve.search.active import Active, copy_queued, new_active, pop, push, push_all, size
from amsolve.search.clock import clock_of, now, now_on
from amsolve.search.distances import DistanceView, dist, tour_length
from amsolve.search.kernel import copy_into, kernel
from amsolve.search.kicks import KICK_SEGMENT, KICKED_CITIES, MIN_KICK_CITIES, kick, seed_kicks
from amsolve.search.merge import MergeWork, merge_tours, new_merge_work
from amsolve.search.moves import kopt, lk
from amsolve.search.moves.bridge import improve_bridge
from amsolve.search.moves.or_opt import improve_oropt
from amsolve.search.moves.two_opt import improve_2opt
from amsolve.search.restarts import Trials
from amsolve.search.space import Space, make_space
from amsolve.search.tour import Tour, commit, journal_full, journal_length, new_tour, redo, replace_order, undo

LOCAL_SEARCHES = ("none", "2opt", "2opt+oropt", "lk")
"""Names of the local searches (see the module docstring)."""

_METHOD_CODES = {"2opt": 1, "2opt+oropt": 2, "lk": 3}
_TWO_OPT_ONLY, _WITH_OROPT, _LK, _LK_JOIN3 = 1, 2, 3, 4
"""_LK_JOIN3 is "lk" whose non-sequential moves also join with 3-opt moves (`JOIN3_MIN_CITIES`)."""

_FIVE_OPT = 8
"""Added to an LK code: its steps take 5-opt basis moves instead of 3-opt ones, as in a tour's first
descent (`_first_descent_codes`; the kicks' searches keep the 3-opt ones). Its descents are
better (from greedy edge at 1,000 cities 0.36–0.39 % against 0.60 % above the references) at
about twice the time (where that time is short, the first descent runs the 3-opt steps before
them: `_first_descent_codes`); kicks with it cost four times as much and
did not pay. Side by side, one after the other on core 0 (`benchmarks/equal_time.py`), the default
pipeline with it against without: 0.092 against 0.118 % on the six large TSPLIB instances in 10 s
(2 seeds; 0.098 against 0.133 % in a run with one) and 0.062 against 0.076 % in 60 s (one seed),
level at 1,000 cities in 1 s (0.025 against 0.023 %, 32 instances × 2 seeds) and at 100,000
cities (0.53 % above 0.7124·√(n·A) either way)."""


FIVE_OPT_MIN_CITIES = 2000
"""Smallest tour whose first descent takes 5-opt basis moves (`_FIVE_OPT`). Below it the 5-opt
descent's time (3.2 against 1.3 ms from greedy edge at 100 cities) buys too little: side by side
on the two cores, the default pipeline with the 3-opt first descent against the 5-opt one measured
0.0058 against 0.0102 % at 100 cities in 0.02 s (256 instances × 4 seeds; level in 0.05 s, 0.0019 %)
and 0.022 against 0.027 % at 1,000 cities in 1 s (32 × 2 seeds)."""


class StepWork(NamedTuple):
    """Work arrays of the Lin–Kernighan steps of both kinds, allocated once per search."""

    three: lk.Scratch
    five: kopt.Scratch


def new_step_work(n: int) -> StepWork:
    """Work arrays for `_examine` on n cities."""
    return StepWork(lk.new_scratch(n), kopt.new_scratch(n))


POLISH_CITIES = (300, 2000)
"""Tour sizes, from the first up to (not including) the second, whose kicks are polished: when a
kick and the 3-opt search after it leave the tour shorter than before the kick, the kick's cities
are searched again with 5-opt basis moves (`_FIVE_OPT`), so that the deeper move is paid for only
where a kick found something. Measured with the rule at every size, side by side on the two cores
against the search without it (runs with the cores swapped): at 1,000 cities in 1 s 0.0206
against 0.0240 % (32 instances, four runs of 4 seeds, better in each), in 5 s 0.0011 against
0.0009 % (one seed, two runs); at 100 cities 0.0024 against 0.0052 % in 0.02 s (256 × 4 × 2; one
run without it had a stalled instance) and 0.0002 against 0.0003 % in 0.05 s; on the six large
TSPLIB instances in 10 s 0.101 against 0.092 % (one seed, two runs), hence the upper bound, where
the first descent takes 5-opt moves (`FIVE_OPT_MIN_CITIES`). The lower bound is `JOIN3_MIN_CITIES`'s:
the 100-city figure turns on one stalled instance, so the rule stays off there. Polishing every
kick that changed the length, not only those that shortened it, measured 0.0177 against 0.0200 %
against this rule at 1,000 cities in 1 s, but 0.0151 against 0.0085 % on the twelve TSPLIB
instances of 318–1,000 cities (docs/DESIGN.md, "Where the search falls behind LKH-3")."""

FINAL_PASS_SHARE = 0.015
"""Share of the kicks' time kept back, on the tour sizes whose kicks are polished (`POLISH_CITIES`),
for one 5-opt pass over every city of the shortest tour at the end. The polish searches only a
kick's cities again; the pass finds what lies elsewhere. At 1,000 cities in 1 s (32 instances ×
16 seed-runs) it shortened 54 of the 492 final tours logged, by 0.0009 % of their
length on average (about a twentieth of the gap), in 6 ms on average and 24 ms at most. Side by
side on the two cores, cores swapped, the pipeline measured 0.0204 against 0.0219 % there (better
in both runs), level on the twelve TSPLIB instances of 318–1,000 cities in 0.3 and 1 s and at
1,000 cities in 5 s, where it shortened no tour and left about 64 ms of its 75 ms unused
(docs/DESIGN.md, "A 5-opt pass after a kick that moved the tour")."""

JOIN3_MIN_CITIES = 300
"""Smallest tour whose LK search also joins a split's two cycles with 3-opt moves
(`amsolve.search.moves.bridge`). Side by side on the two cores, the default pipeline with them
against without (two to three runs, cores swapped): 0.0048 against 0.0084 % at 1,000 cities in
5 s (32 instances, 8 seed-runs a side; better in each of the three runs), 0.0354 against 0.0368 %
in 1 s, 0.122 against 0.112 % on the six large TSPLIB instances in 10 s (3 seeds × 2 runs), 0.048
against 0.051 % in 60 s (1 seed × 2 runs), but 0.0056 against 0.0045 % at 100 cities in 0.02 s
(256 instances × 8 seeds × 2 runs; worse in every run). The bound lies between the two sizes
measured (their geometric mean, about)."""

_CLOCK_EVERY = 64
"""Cities examined between two looks at the clock: one look (0.6 µs) costs about half an examination.
A kick's search usually examines fewer, so the kicks' loop looks at the clock itself."""

_CLOCK_EVERY_FIVE_OPT = 8
"""The same with LK's 5-opt steps, of which 64 examinations take about 3 ms: the final 5-opt pass
of a 300-city solve under `--time-limit 0.01` (`FINAL_PASS_SHARE`) looked at the clock only after
them and ended 1–2.5 ms late. A look costs about a hundredth of such an examination."""

_KICKS_PER_CLOCK = 4
"""Kicks between two looks at the clock, but one when fewer than two such batches are left before
the deadline at the mean pace of the kicks so far, so that a search ends at most about a kick
after it. Kicks vary: most are undone after a few examinations, some search for a long while, so
the pace of the last batch alone (as first done) often said there was time for four more when
there was not."""

_CLOCK_EVERY_NEAR_END = 4
"""Cities a kick's search examines between two looks at the clock when the kicks look at it after
every kick (`_KICKS_PER_CLOCK`): at 100 cities a kick takes about 0.1 ms, its search examining
20–30 cities of 3–5 µs each. With `_CLOCK_EVERY` there, and the pace of the last batch, the kicks
of 640 solves under `--time-limit 0.005` ended 0.075 ms after the deadline in half of them, 0.26
ms in one in ten, 0.50 ms in one in a hundred; with this 0.020, 0.20, 0.44; with the mean pace as
well 0.016, 0.049, 0.21 (`greedy-edge+lk@nearest10`, AMD EPYC)."""

_DESCENT_NEAR_END = 0.01
"""Seconds left below which a descent reads the clock every `_CLOCK_EVERY_NEAR_END` cities examined
instead of every `_CLOCK_EVERY`: 64 LK examinations take 0.2–0.3 ms at 1,000 cities, which a
limit of a few milliseconds cannot spare (1,000 cities under `--time-limit 0.003` ended 0.1–0.5
ms late, their descent cut by the deadline)."""

SLACK_START, SLACK_END = 2.0, 0.1
"""How much longer than before, in mean edges of the tour, a kicked and re-optimised tour may be
and still be kept, when the kicks begin and at the deadline (`scheduled_slack`). Constant slacks
measured first (1,000 cities, 1 s, 16 instances): 0 gave 0.120 %, 0.1 0.083 %, 0.3 0.064 %,
1 0.113 %, 3 0.217 %. Against the best of them, 0.3, a slack falling from 2 to 0.1 measured
(the real pipeline, one core, the slack set anew ten times over the budget): at 1,000 cities
0.058 → 0.040 % in 1 s (32 instances, two seeds) and 0.019 → 0.009 % in 5 s, on the six large
TSPLIB instances 0.167 → 0.104 % in 10 s; alike at 100 cities (0.0030 → 0.0029 % in 0.02 s,
0.055 % both in 0.005 s) and at 100,000 cities (0.59 → 0.58 % in 100 s). Starts of 1 or 4 and an
end of 0.03 measured alike (0.009–0.010 % at 1,000 cities in 5 s). Going back to the shortest
tour whenever the wandering one was three slacks above it lost the gain (0.161 % on the large
instances in 10 s)."""

SLACK_UNIT_MEDIANS = 2.0
"""Most median edges the slack's unit may be. The slack is measured in mean edges of the tour, but
where a few long edges between clusters make the mean edge more than this many median edges (the
first local optimum's), its start and end are scaled down to it (`slack_unit_scale`). On fl417,
whose mean edge is about 4 median edges, the slack's wide start made a kick about four times as
costly as at its end (1 ms against 0.28 ms). Side by side on the two cores, cores swapped, 4 seeds
× 2 runs a pair: fl417 in 0.3 s 0.19 and 0.22 against 0.38 and 0.28 % (two pairs); with the cap at
1.3 median edges, 0.083 and 0.086 against 0.125 and 0.181 %. The other instances it changes
(TSPLIB's pr144, pr226, d198, bier127, pr152, pr264, ali535, ulysses22) measured level in 0.05,
0.3 and 1 s (docs/DESIGN.md). The mean edge is 1.25–1.36 median edges on uniform instances and at
most 1.72 on the six large TSPLIB instances, so neither is changed."""

CYCLE_KICKS = 5.0
"""Kicks per city in one cycle of the slack schedule: the falling slack (`SLACK_START` to
`SLACK_END`) runs once for every this many kicks per city the search is expected to make, so a
search with time for many kicks settles several times, each cycle leaving the basin the last one
settled in. The number of cycles is fixed from the kicks made in the first `_CYCLES_FIXED_AT` of
the budget; a search expected to make fewer keeps one cycle.
Against a single fall, side by side on the two cores: 0.0034 against 0.0042 % at 1,000 cities in
5 s (32 instances × 6 seeds; 2 kicks per city measured 0.0041 against 0.0049 %, three fixed
cycles 0.0026 against 0.0072 %), 0.058 against 0.063 % on d2103 and u2152 in 10 s (8 seeds),
and 0.002 % as before on the 41 TSPLIB instances at their default budgets; measured after, with
seeds 6–9, 0.0023 against 0.0036 % at 1,000 cities in 5 s. Not shown to help on the large
instances in 60 s: 0.0233 against 0.0224 % on d2103, u2152 and rl5915 (2 seeds), 0.0442 against
0.0407 % on all six (2 seeds), means that turn on a few discrete end states."""

_CYCLES_FIXED_AT = 0.1
"""Share of the kicks' time after which the number of slack cycles is fixed (`CYCLE_KICKS`)."""

_KICK_JOURNAL = 1 << 16
"""Reversals a kick and the search after it may make before the search stops to stay undoable."""

_PROGRESS_EVERY = 0.5
"""Seconds between two progress reports of a long search."""


@kernel
def scheduled_slack(remaining: float, start: float = SLACK_START, end: float = SLACK_END) -> float:
    """The slack (mean edges) when the share `remaining` (1 at the first kick, 0 at the deadline) of
    the kicks' time is left: from `start` down to `end`, quadratically, so most of the time is
    spent with a narrow slack."""
    return end + (start - end) * min(1.0, max(0.0, remaining)) ** 2


@njit(cache=True, inline="always")
def _slack_length(schedule: np.ndarray, clock: float, shortest: float, n: int) -> float:
    """The slack as a length at `clock`, by `schedule` (see `_kicks`), for a tour of n cities
    whose shortest length so far is `shortest`."""
    start, end, began, deadline, cycles = schedule[0], schedule[1], schedule[2], schedule[3], schedule[4]
    cycles_left = max(0.0, (deadline - clock) / (deadline - began)) * max(1.0, cycles)
    remaining = cycles_left - math.ceil(cycles_left) + 1.0 if cycles_left > 0.0 else 0.0  # of this cycle
    return scheduled_slack(remaining, start, end) * shortest / n


@njit(cache=True, inline="always")
def _fix_cycles(schedule: np.ndarray, clock: float, n: int) -> None:
    """Once `_CYCLES_FIXED_AT` of the kicks' time has passed, set the number of slack cycles in
    `schedule` (see `_kicks`) from the kicks made so far (`CYCLE_KICKS`), for a tour of n cities."""
    began, deadline = schedule[2], schedule[3]
    if schedule[4] == 0.0 and clock - began >= _CYCLES_FIXED_AT * (deadline - began):
        expected = schedule[5] * (deadline - began) / (clock - began)
        schedule[4] = max(1.0, math.floor(expected / (CYCLE_KICKS * n)))


def slack_unit_scale(view: DistanceView, order: np.ndarray) -> float:
    """What the slack (in mean edges of the tour `order`) is multiplied by so that its unit is at most
    `SLACK_UNIT_MEDIANS` median edges of that tour: 1.0 on most instances, less on clustered ones."""
    return _slack_unit_scale(view.points, view.code, order)


@njit(cache=True)
def _slack_unit_scale(points: np.ndarray, code: int, order: np.ndarray) -> float:
    """`slack_unit_scale`, compiled (numpy's calls took 85 µs at 100 cities)."""
    n = order.shape[0]
    edges = np.empty(n)  # (n,) the tour's edges, in its order
    for i in range(n):
        edges[i] = dist(points, code, order[i], order[i + 1 if i + 1 < n else 0])
    mean = edges.mean()
    return min(1.0, SLACK_UNIT_MEDIANS * np.median(edges) / mean) if mean > 0.0 else 1.0


def _method_code(method: str, n: int) -> int:
    """The kernels' code for the local search `method` on a tour of n cities (`JOIN3_MIN_CITIES`)."""
    code = _METHOD_CODES[method]
    return _LK_JOIN3 if code == _LK and n >= JOIN3_MIN_CITIES else code


THREE_OPT_DESCENT_SECONDS_PER_CITY, FIVE_OPT_DESCENT_SECONDS_PER_CITY = 35e-6, 65e-6
"""About what a first descent from greedy edge takes per city with 3-opt and with 5-opt steps, at
20,000 to 100,000 cities numbered along the space-filling curve, on an Intel Xeon core (3-opt:
0.68 and 3.4 s; 5-opt: 1.4 and 6.5–8.1 s). With less time left than a 5-opt descent takes, it runs
in stages (`_first_descent_codes`)."""


def _first_descent_codes(code: int, n: int, seconds: float) -> tuple[int, ...]:
    """The kernels' codes, stage after stage, of a tour's first descent of n cities with the method
    `code` in `seconds`, each stage to its local optimum or the deadline.

    From `FIVE_OPT_MIN_CITIES` up, LK with 5-opt steps (`_FIVE_OPT`). Where they would not end in
    the time, LK with 3-opt steps first, then the 5-opt ones (at 100,000 cities from greedy edge
    5.9 s in all against 8.1 s, to within 0.01–0.05 % of the same length); and where not even a
    3-opt descent would end, 2-opt moves before them (0.28 s at 100,000 cities, the tour 7 %
    shorter than greedy edge's, where LK steps cut short leave most of it as it was). Side by side
    at 100,000 cities (`benchmarks/results/first_descent_9b696dc.md`): 6.0 against 12.6 % above
    0.7124·√(n·A) in 1 s, 2.9 against 7.2 % in 3 s; with time for the 5-opt steps alone the stages
    measured a little worse (0.93 against 0.91 % in 10 s, 0.47 against 0.455 % in 100 s), hence
    the 5-opt steps alone there. Below `FIVE_OPT_MIN_CITIES`, and for the other methods, one stage
    with the method's own moves."""
    if code < _LK or n < FIVE_OPT_MIN_CITIES:
        return (code,)
    if seconds >= FIVE_OPT_DESCENT_SECONDS_PER_CITY * n:
        return (code | _FIVE_OPT,)
    first = (_TWO_OPT_ONLY,) if seconds < THREE_OPT_DESCENT_SECONDS_PER_CITY * n else ()
    return (*first, code, code | _FIVE_OPT)


def _first_descent(space: Space, tour: Tour, work: StepWork, code: int, deadline: float, cpu: bool = False) -> None:
    """A tour's first descent with the method `code`, in stages (`_first_descent_codes`), each until
    its local optimum or the deadline (on the thread's CPU clock with `cpu`); no stage begins after
    the deadline (a stage examines up to `_CLOCK_EVERY` cities before it looks at the clock,
    `_CLOCK_EVERY_FIVE_OPT` with 5-opt steps)."""
    n = len(tour.order)
    clock = clock_of(cpu)
    for stage in _first_descent_codes(code, n, deadline - clock()):
        if clock() >= deadline:
            break
        _local_search(space, tour, work, stage, deadline, cpu)


def _polishes(code: int, n: int) -> bool:
    """Whether the kicks of an LK search (code `code`) on n cities are polished (`POLISH_CITIES`)."""
    return code >= _LK and POLISH_CITIES[0] <= n < POLISH_CITIES[1]


def check_local_search(method: str) -> None:
    """InputError naming the valid values unless `method` is one of LOCAL_SEARCHES."""
    if method not in LOCAL_SEARCHES:
        raise InputError(f"unknown local search {method!r}; choose one of {', '.join(LOCAL_SEARCHES)}")


@kernel
def _examine(space: Space, tour: Tour, active: Active, work: StepWork, method: int, city: int) -> float:
    """Try the method's moves at `city`, first improvement; returns the change in length."""
    if method >= _LK:
        if method & _FIVE_OPT:
            delta = kopt.improve_kopt(space, tour, active, work.five, city)
        else:
            delta = lk.improve_lk(space, tour, active, work.three, city)
        if delta == 0.0:
            delta = improve_bridge(space, tour, active, city, method & ~_FIVE_OPT == _LK_JOIN3)
    else:
        delta = improve_2opt(space, tour, active, city)
    if delta == 0.0 and method == _WITH_OROPT:
        delta = improve_oropt(space, tour, active, city)
    return delta


@kernel
def _drain(
    space: Space,
    tour: Tour,
    active: Active,
    work: StepWork,
    method: int,
    deadline: float,
    keep_journal: bool,
    kick_change: float = math.inf,
    near_end: bool = False,
    cpu: bool = False,
) -> float:
    """Examine queued cities until none is left, the deadline (a `perf_counter` value) or the journal is full.

    Without `keep_journal` every improvement is committed at once, so the journal never fills.
    After a kick that lengthened the tour by `kick_change`, the search also stops once its moves
    have taken that back. The tour is then, but for a tie, the one before the kick, where every city
    still queued was searched and found nothing: at 1,000 cities about a sixth of all examinations
    were such repeats. Stopping there cut a kick's cost by a fifth to a third
    (`benchmarks/kick_cost.py`) and measured 0.0133 against 0.0180 % at 1,000 cities in 1 s
    (docs/DESIGN.md, "A kick undone ends its search"). `near_end`: the deadline is close, so the
    clock is looked at more often (`_CLOCK_EVERY_NEAR_END`). `cpu`: the deadline is on the thread's
    CPU clock (`now_on`). Returns the change in length.
    """
    total = 0.0
    examined = 0
    clock_every = _CLOCK_EVERY_FIVE_OPT if method & _FIVE_OPT else _CLOCK_EVERY
    if near_end:
        clock_every = min(clock_every, _CLOCK_EVERY_NEAR_END)
    while size(active) and not journal_full(tour):
        total += _examine(space, tour, active, work, method, pop(active))
        examined += 1
        if not keep_journal:
            commit(tour)
        if kick_change > space.tolerance and abs(total + kick_change) <= space.tolerance:
            break  # the kick is undone
        if (examined % clock_every == 0 or (examined == 1 and not keep_journal)) and now_on(cpu) >= deadline:
            break  # a descent looks at once too: one begun after a stall stops there, and a warm-up reads the clock
    return total


def _local_search(space: Space, tour: Tour, work: StepWork, method: int, deadline: float, cpu: bool = False) -> float:
    """Improve `tour` until a pass over all cities finds no move, or the deadline (on the thread's CPU
    clock with `cpu`, as in `_drain`); returns the change in length.

    With less than `_DESCENT_NEAR_END` left it reads the clock every `_CLOCK_EVERY_NEAR_END` cities.
    Don't-look bits are a heuristic (a move can create an improving move at a city whose own edges
    did not change), so the queue is refilled with every city until a whole round gains nothing.
    """
    active = new_active(len(tour.order))
    total = 0.0
    near_end = deadline - clock_of(cpu)() < _DESCENT_NEAR_END
    while True:
        push_all(active, tour.order)
        gain = _drain(space, tour, active, work, method, deadline, False, math.inf, near_end, cpu)
        total += gain
        if gain == 0.0 or size(active):  # nothing gained in a whole round, or stopped by the deadline
            return total


MERGE_EVERY = 100
"""Kicks between two attempts to merge the wandering tour into the shortest one (`amsolve.search.merge`)."""

MERGE_LONGEST = 1000
"""Longest stretch (positions) a merge takes from the wandering tour."""


@kernel
def _kicks(
    space: Space,
    tour: Tour,
    active: Active,
    work: StepWork,
    method: int,
    until: float,
    schedule: np.ndarray,
    kick_segment: int,
    merge_every: int,
    merge_work: MergeWork,
    child: np.ndarray,
    best_order: np.ndarray,
    lengths: np.ndarray,
    polish: bool,
    kicked: np.ndarray,
) -> int:
    """Kicks, each followed by local search, until `until` (a `perf_counter` value; one kick at
    least). The search after a kick stops as soon as its moves have taken back the kick's change
    in length (`_drain`). A kicked tour is kept when it is at most the slack longer than
    before, else undone;
    `schedule` (6,) holds the slack's start and end in mean edges, the `perf_counter` values
    at which the kicks began and must end (`scheduled_slack`), the number of slack cycles (0
    until fixed, `CYCLE_KICKS`) and the kicks made since they began; the slack is set anew at
    every look at the clock.
    Every `merge_every` kicks (0: never), a wandering tour is merged into the shortest one
    stretch by stretch, and the search goes on from the merged tour when it is shorter.

    With `polish` (`POLISH_CITIES`), a kick whose search leaves the tour shorter than before has
    its cities, kept in `kicked` (`KICKED_CITIES`,) int64, searched again with 5-opt steps.

    `lengths` (2,) holds the current and the shortest length seen and is updated; `best_order`
    receives the shortest tour whenever the search leaves it, and at the end. Returns how many
    kicks were made.
    """
    best_is_current = lengths[0] <= lengths[1]
    n = tour.order.shape[0]
    first_look = now()
    slack = _slack_length(schedule, first_look, lengths[1], n)
    kicks, looked_at, look_every = 0, 0, _KICKS_PER_CLOCK
    while True:
        commit(tour)
        delta = kick(space, tour, active, kick_segment, kicks)
        n_kicked = copy_queued(active, kicked) if polish else 0  # the kick's cities, kept for the polish
        near_end = look_every == 1
        delta += _drain(space, tour, active, work, method, until, True, delta, near_end)
        if polish and delta < -space.tolerance:
            for i in range(n_kicked):
                push(active, kicked[i])
            delta += _drain(space, tour, active, work, method | _FIVE_OPT, until, True, math.inf, near_end)
        while size(active):  # a search cut short leaves cities queued
            pop(active)
        kicks += 1
        schedule[5] += 1.0
        length = lengths[0] + delta
        if length < lengths[1] - space.tolerance:
            lengths[0], lengths[1], best_is_current = length, length, True
        elif length <= lengths[0] + slack:
            if best_is_current and length > lengths[1]:  # leaving the shortest tour: copy it first
                mark = journal_length(tour)
                undo(tour, 0)
                copy_into(best_order, tour.order)
                redo(tour, mark)
                best_is_current = False
            lengths[0] = length
        else:
            undo(tour, 0)
        if merge_every > 0 and kicks % merge_every == 0 and not best_is_current:
            gained = merge_tours(space.points, space.code, best_order, tour.order, MERGE_LONGEST, merge_work, child)
            if gained > space.tolerance:
                replace_order(tour, child)
                lengths[1] -= gained
                lengths[0] = lengths[1]
                best_is_current = True
        if kicks - looked_at >= look_every:
            clock = now()
            if clock >= until:
                break
            per_kick = (clock - first_look) / kicks
            look_every = _KICKS_PER_CLOCK if until - clock > 2 * _KICKS_PER_CLOCK * per_kick else 1
            looked_at = kicks
            _fix_cycles(schedule, clock, n)
            slack = _slack_length(schedule, clock, lengths[1], n)
    commit(tour)
    if best_is_current:
        copy_into(best_order, tour.order)
    return kicks


def improve_tours(
    view: DistanceView,
    tours: np.ndarray,
    method: str,
    candidates: np.ndarray,
    deadline: float | None = None,
    penalties: np.ndarray | None = None,
    space: Space | None = None,
    cpu_seconds: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Improve each of the tours (k, n) on its own to a local optimum; returns them and their lengths (k,).

    `candidates` (n, k) are the partners each city's moves try (`amsolve.search.candidates`), and
    `penalties` (n,) the ascent's node penalties behind α-nearness candidates (`make_space`);
    `space`, when given, is `make_space` of them made already (a solve makes it once for its
    descent and its kicks: 0.1 s at 100,000 GEO cities).
    `deadline` is a `time.perf_counter()` value: past it, tours are returned as they are (still
    permutations, never longer than given). `cpu_seconds`, instead of a deadline: the thread's CPU
    time the descents may take from this call on, which a stall of the machine (the thread not
    running) does not use up: they then end that much later, but whole.
    """
    cpu = cpu_seconds is not None
    clock = clock_of(cpu)
    if cpu:
        stop = clock() + cpu_seconds
    else:
        stop = math.inf if deadline is None else deadline
    check_local_search(method)
    tours = check_permutations(tours, view.n)
    if method != "none" and clock() < stop:
        space = make_space(view, candidates, penalties) if space is None else space
        work = new_step_work(view.n)
        for row in tours:
            tour = new_tour(row)
            _first_descent(space, tour, work, _method_code(method, view.n), stop, cpu)
            row[:] = tour.order
    return tours, np.array([tour_length(view.points, view.code, row) for row in tours])


def warm_up_search(
    view: DistanceView, tour: np.ndarray, method: str, candidates: np.ndarray, penalties: np.ndarray | None = None
) -> None:
    """Compile (or load from the cache) every kernel an iterated local search calls, on a small
    `tour`: the kicks (one at least, whatever the time) and what a restart calls, which a short
    search never reaches but a longer one does, on the clock of its instance."""
    space = make_space(view, candidates, penalties)
    deadline = time.perf_counter() + 0.001
    iterated_local_search(view, tour, deadline, method, candidates, penalties=penalties, space=space)
    if method != "none":
        order = np.ascontiguousarray(tour, dtype=np.int64)
        trials = Trials.first(order, 0.0, 0.0)
        trials.restart(space, order, 0.0, new_merge_work(view.n), 0.0)
        replace_order(new_tour(order), trials.start)


def iterated_local_search(
    view: DistanceView,
    tour: np.ndarray,
    deadline: float,
    method: str,
    candidates: np.ndarray,
    seed: int = 0,
    on_progress: Callable[[float], None] | None = None,
    slack: tuple[float, float] = (SLACK_START, SLACK_END),
    kick_segment: int = KICK_SEGMENT,
    merge_every: int = MERGE_EVERY,
    penalties: np.ndarray | None = None,
    descended: bool = False,
    space: Space | None = None,
) -> tuple[np.ndarray, float]:
    """Local search, then kicks each followed by local search until `deadline` (a `perf_counter` value).

    Returns the shortest tour met and its length; with method "none" the tour is returned as
    given. On the sizes in `POLISH_CITIES` the last `FINAL_PASS_SHARE` of the time goes to one
    5-opt pass over the whole shortest tour. The result depends on `seed` and on how many kicks
    fit before the deadline.
    `on_progress` is called with the best length so far about every half second. `slack` (its start
    and end, in mean edges, scaled by `slack_unit_scale`), `kick_segment` and `merge_every` are the
    kicks' parameters (`SLACK_START`, `SLACK_END`, `KICK_SEGMENT`, `MERGE_EVERY`); `penalties` and
    `space` as in `improve_tours`. `descended`: the tour is a local optimum of this search already (from
    `improve_tours`), so the kicks begin at once: a descent over it would examine every city once
    more for nothing (at 100,000 cities about a second with 5-opt steps).
    """
    check_local_search(method)
    order = check_permutations(np.asarray(tour)[None], view.n)[0]
    if method == "none" or time.perf_counter() >= deadline:
        return order, tour_length(view.points, view.code, order)
    code = _method_code(method, view.n)
    space = make_space(view, candidates, penalties) if space is None else space
    work, state = new_step_work(view.n), new_tour(order, _KICK_JOURNAL)
    if not descended:
        _first_descent(space, state, work, code, deadline)
    best = state.order.copy()
    if view.n >= MIN_KICK_CITIES:
        length = tour_length(view.points, view.code, state.order)
        lengths = np.array([length, length])
        seed_kicks(seed)
        active, merge_work, child = new_active(view.n), new_merge_work(view.n), np.empty(view.n, dtype=np.int64)
        began = min(time.perf_counter(), deadline - 1e-9)
        polish = _polishes(code, view.n)
        kicks_end = deadline - FINAL_PASS_SHARE * (deadline - began) if polish else deadline
        scale = slack_unit_scale(view, state.order)
        schedule = np.array([slack[0] * scale, slack[1] * scale, began, kicks_end, 0.0, 0.0])
        kicked = np.empty(KICKED_CITIES, dtype=np.int64)
        trials = Trials.first(state.order, length, began)
        while True:  # one kick at least, so that a warm-up reaches every kernel
            until = min(kicks_end, time.perf_counter() + _PROGRESS_EVERY)
            _kicks(
                space,
                state,
                active,
                work,
                code,
                until,
                schedule,
                kick_segment,
                merge_every,
                merge_work,
                child,
                best,
                lengths,
                polish,
                kicked,
            )
            clock = time.perf_counter()
            if clock >= kicks_end:
                break
            if trials.stalled(clock, float(lengths[1]), schedule[5], view.n, kicks_end, space.tolerance):
                trials.restart(space, best, float(lengths[1]), merge_work, clock)
                replace_order(state, trials.start)
                best[:] = trials.start
                lengths[:] = trials.start_length
                schedule[2], schedule[4], schedule[5] = clock, 0.0, 0.0  # a slack schedule of its own
            if on_progress is not None:
                on_progress(min(float(lengths[1]), trials.best_length))
        best = trials.result(space, best, float(lengths[1]), merge_work)
        if polish:  # the final pass (FINAL_PASS_SHARE)
            final = new_tour(best)
            _local_search(space, final, work, code | _FIVE_OPT, deadline)
            best = final.order
    return best, tour_length(view.points, view.code, best)

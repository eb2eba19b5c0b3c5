"""The solving pipeline: instance → normalised coordinates → decoder → local search → exact length.

`solve_instances` is what `amsolve solve` and `amsolve bench` call; `solve` is the one-instance
convenience for Python callers.
"""

from __future__ import annotations

import gc
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from amsolve.budget import (
    alpha_fits,
    curve_fits,
    greedy_fits,
    greedy_tour_fits,
    neighbours_fit,
    pace,
    steps_seconds,
    window_fits,
)
from amsolve.decode.options import DecodeOptions
from amsolve.device import check_device, resolve_device
from amsolve.errors import InputError
from amsolve.model.penalties import PenaltyNet, load_penalty_net, predict_penalties
from amsolve.model.registry import load_model, models_root, nearest_model
from amsolve.problem import Instance
from amsolve.search import check_local_search, improve_tours, iterated_local_search, warm_up_search
from amsolve.search.candidates import ALPHA_SOURCES, DEFAULT_CANDIDATES, candidates_and_penalties, check_candidates
from amsolve.search.candidates.alpha import RANK_NEAREST, alpha_candidates, dense_graph_limit
from amsolve.search.candidates.nearest import DEFAULT_NEIGHBOURS, nearest_neighbours
from amsolve.search.candidates.window import window_candidates
from amsolve.search.construct import complete_nearest, construct
from amsolve.search.distances import EXPLICIT, DistanceView, distance_view, metric_code, tour_length
from amsolve.search.space import make_space

if TYPE_CHECKING:
    import torch

    from amsolve.model.network import AttentionModel

AUTO_SECONDS_PER_CITY = 0.001
"""Without --time-limit, the solve after any decoding (construction, candidate lists, local search,
kicks) gets 1 ms per city (0.1 s at 100 cities, 100 s at 100,000), and at least a first local
optimum."""

AUTO_MIN_SECONDS = 0.05
"""The least time the search gets without --time-limit."""

CANDIDATE_SHARE = 0.15
"""Share of an instance's search time the candidate lists may take: the Held–Karp ascent of
α-nearness, or under a time limit the network's edge scores."""

PREDICTED_ALONE_SECONDS_PER_CITY = 30e-6
"""Where alphanet's candidate lists have less time than this per city (their share of the limit,
`CANDIDATE_SHARE`), the penalty network's π are used as predicted, with no ascent from them (as
NeuroLKH uses them), and the ascent's time goes to the kicks: 100 cities below 0.02 s, 1,000
below 0.2 s. Side by side at 100 uniform cities (1,280 instances, two runs, cores swapped)
against the ascent from the prediction: 0.023 and 0.025 against 0.047 and 0.029 % in 0.005 s,
0.012 and 0.009 against 0.017 and 0.012 % in 0.0075 s, 0.006 and 0.004 against 0.008 and 0.004 %
in 0.01 s (15 µs a city; shorter tours on 149, 55, 53, 31, 27, 28 instances, longer on 9, 29, 9,
13, 7, 15). With more time the ascent pays: under the default budget (150 µs a city), without it
7 of TSPLIB's 40 instances below 1,000 cities ended above their optimum (d493 0.034, gr666
0.081 %), against 3 and 4 in two runs with it; at 1,000 cities in 0.3 s (45 µs) and 1 s the two measured level."""

DECODE_SHARE = 0.5
"""Share of --time-limit the network's decoding may take; the rest goes to the search."""

DESCENT_GRACE = 0.02
"""Share of an instance's time limit its first descent may run past the deadline where the steps get
no allowance (`_steps_allowance`): when decoding or
a stall of the machine (a garbage collection, another process) has eaten the budget before the
local search starts, a descent, which at 100 cities takes about 1 % of a 0.05 s budget, still
turns the start into a local optimum instead of returning the start as it is."""

STALL_ALLOWANCE = 0.5
"""Share of an instance's time limit that each step before the kicks (the start, the candidate
lists, the first descent) gets at least, past the deadline if need be, where by their figures they
take at most that share together (`steps_seconds`). Then only a stall of the machine (the hypervisor
taking the core for a few milliseconds) makes them end past the deadline, and the solve still
returns a local optimum, a little later, instead of its start as it is. Before it, at 100 cities in
0.005 s, about one solve in 5,000–10,000 took 5.7–7.9 ms and returned its start or a descent cut
short: a random start (540–600 % above the reference), greedy edge (10–29 %). A solve that does not
stall ends each step long before its deadline, which this then never changes; the first descent's
time is then a budget on the thread's CPU clock, which a stall does not use up (docs/DESIGN.md,
"Stalls of the machine"). Where the steps fit in the limit but not in this share of it (100
cities under 4–4.8 ms), each gets at least their own figure: without that allowance, at 100
cities in 0.004 and 0.0045 s, both cores busy and the machine stalling often, 9 and 16 of 2,560
solves of the default pipeline ended 8 % or more above the reference (their greedy-edge start,
little or not searched; means 0.134 and 0.194 %), with it 1 and 1 (0.083 and 0.061 %); mean
seconds within 1 % of the limit either way, solves past 1.5 times it 30 and 3 against 5 and 14."""

SEARCH_END_MARGIN = 0.05e-3
"""Seconds before an instance's deadline at which its search stops, for the steps after it (the
tour checked, put back in the file's numbering, returned): 30–60 µs at 1,000 cities, where under
`--time-limit 0.003` the search's own last examinations also end 20–130 µs past the deadline."""

PROGRESS_AFTER = 3.0
"""Searches with a longer budget report their best length as they go."""

SLOW_WARM_UP_SECONDS = 2.0
"""Seconds of warm-up after which `solve_instances` says that it is still warming up
(`on_slow_warm_up`): the first solve on a machine compiles the search (numba), which took 1–2.5
minutes on this project's 2-core AMD EPYC machine; afterwards the compiled code is loaded from
numba's cache in about a second."""

WARM_UP_CITIES = 16
"""Cities of the piece of the first instance solved, untimed, before any clock starts (more when
the instance is large enough for the candidate lists' sparse graph, so that its code runs too)."""

PENALTY_MODEL = "penalties"
"""The shipped penalty network's directory under `models/` (`alphanet` candidates)."""


@dataclass(frozen=True)
class SolveOptions:
    """How to solve: the start (a network decoder or a construction), the search and its
    candidate lists, the model and device, and the time per instance.

    The search improves the `decode.keep` best starts to local optima, then the best by iterated
    local search. Without a `time_limit`, decoding runs to its end and the search gets
    `AUTO_SECONDS_PER_CITY` × n. A `time_limit` bounds each instance's whole solve, decoding,
    candidate lists and search included: instances are then solved one at a time, decoding may
    take up to `DECODE_SHARE` of it, and the search ends when it expires. Without local search,
    the start is all there is.
    """

    decode: DecodeOptions = field(default_factory=lambda: DecodeOptions("greedy-edge", augment=None))
    local_search: str = "lk"
    candidates: str = "alphanet"
    candidates_k: int | None = None  # None: DEFAULT_CANDIDATES of the source
    model: str | None = None  # shipped name or directory; None: the shipped model nearest in size
    device: str = "auto"
    batch_size: int = 64
    time_limit: float | None = None  # seconds per instance, all included; None: see AUTO_SECONDS_PER_CITY

    def __post_init__(self) -> None:
        check_local_search(self.local_search)
        check_candidates(self.candidates, self.candidates_k)
        check_device(self.device)
        if self.batch_size < 1:
            raise InputError("--batch-size must be at least 1")
        if self.time_limit is not None and not (self.time_limit >= 0 and math.isfinite(self.time_limit)):
            raise InputError("--time-limit must be a number of seconds, 0 or more")

    @property
    def uses_network(self) -> bool:
        """Whether the attention model decodes the start or scores the candidate edges."""
        return self.decode.uses_network or (self.local_search != "none" and self.candidates == "model")

    @property
    def uses_penalty_network(self) -> bool:
        """Whether the penalty network starts the ascent behind the candidate lists (`alphanet`)."""
        return self.local_search != "none" and self.candidates == "alphanet"

    @property
    def neural(self) -> bool:
        """Whether any network takes part: the attention model or the penalty network."""
        return self.uses_network or self.uses_penalty_network

    def label(self, n: int | None = None) -> str:
        """The pipeline's name in tables (for `n` cities), e.g. `greedy-edge+lk@alphanet8`."""
        decoder = self.decode.label(n)
        if self.local_search == "none":
            return decoder
        k = self.candidates_k if self.candidates_k is not None else DEFAULT_CANDIDATES[self.candidates]
        return f"{decoder}+{self.local_search}@{self.candidates}{k}"


@dataclass(frozen=True)
class Solution:
    """The best tour found for one instance, with its exact length in the instance's metric."""

    instance: Instance
    tour: np.ndarray  # (n,) 0-based positions of the instance's cities
    length: float
    pipeline: str
    model: str  # "" when the network was not used
    seconds: float  # with a time limit its own wall time; else its share of its batch's decoding, plus its search

    @property
    def reference(self) -> float | None:
        return self.instance.reference_length

    @property
    def gap_pct(self) -> float | None:
        """100 · (length − reference) / reference, when a reference is known."""
        if self.reference is None or self.reference == 0:
            return None
        return 100.0 * (self.length - self.reference) / self.reference


class ModelCache:
    """Loads each model once and picks the shipped one nearest to an instance's size. torch is
    loaded only with the first attention model: the penalty network runs in numpy."""

    def __init__(self, name: str | None, device: str = "auto") -> None:
        check_device(device)
        self.name, self.device_name = name, device
        self.loaded: dict[str, AttentionModel] = {}
        self.penalty_net: PenaltyNet | None = None
        self._device: torch.device | None = None

    @property
    def device(self) -> torch.device:
        """The torch device of `--device` (`resolve_device`), resolved on first use."""
        if self._device is None:
            self._device = resolve_device(self.device_name)
        return self._device

    def penalties(self) -> PenaltyNet:
        """The shipped penalty network (`models/penalties`)."""
        if self.penalty_net is None:
            self.penalty_net = load_penalty_net(models_root() / PENALTY_MODEL)
        return self.penalty_net

    def for_size(self, n: int) -> tuple[str, AttentionModel]:
        """The model for instances of `n` cities, and its name."""
        name = self.name or nearest_model(n)
        if name not in self.loaded:
            self.loaded[name] = load_model(name, self.device)
        return name, self.loaded[name]


SearchProgress = Callable[[Instance, float, float, float], None]
"""Called during a long search with the instance, best length so far, seconds elapsed and budget."""


class Networks(NamedTuple):
    """The networks a pipeline uses on instances of one size, and how results name them."""

    name: str  # "" when none is used
    model: AttentionModel | None  # decodes the start or scores the candidate edges
    penalty_net: PenaltyNet | None  # starts the ascent behind `alphanet` candidates


def shared_neighbours(view: DistanceView, wide: bool) -> np.ndarray:
    """Each city's nearest (n, k), found once for all the steps of a solve: as many as the widest
    step needs, the α candidates' ranking (`wide`) or else the nearest candidates (greedy edge and
    the penalty network read fewer). At 20,000 cities each step finding its own took about 60 ms."""
    return nearest_neighbours(view, RANK_NEAREST if wide else DEFAULT_NEIGHBOURS)


class Start(NamedTuple):
    """An instance's start tours, its distances, and what building the start found. The cities may
    be renumbered for the search (`spatial_order`): `view` and `tours` are in the search's
    numbers, city i of the search being the instance's `order[i]`."""

    tours: np.ndarray  # (keep, n)
    view: DistanceView
    neighbours: np.ndarray | None  # `shared_neighbours`; None until a step needs them
    greedy_length: float | None  # the start's length when it is a greedy edge tour (`alpha_candidates`)
    order: np.ndarray | None = None  # (n,) the instance's city of each of the search's; None: the same
    speed: float = 1.0  # the `pace` of the last step that had a per-city figure (`amsolve.budget`)


SPATIAL_ORDER_CITIES = 10_000
"""From this many cities (in the plane, in space or on the sphere) the search numbers them along the
space-filling curve (`spatial_order`; not under a time limit too short for the greedy start, where
the curve is the start). Its arrays are read city by city as its moves go, and cities near each
other in the plane are then near each other in memory too: a first descent from greedy edge took
3.2 instead of 6.9 s at 100,000 uniform random cities, 0.43 instead of 0.56 s at 20,000, and the
same at 5,000, where the arrays fit in the processor's caches either way. Side by side with the
search before it, cores swapped (`benchmarks/results/spatial_order_94f2eeb.md`): at 100,000
cities 0.465 against 0.505 % above 0.7124·√(n·A) in the default 100 s, 0.88 against 0.91 and
2.74 % in 10 s (where the first descent had not always ended); brd14051 and d15112 in 10 s
0.089 against 0.101 % (8 seed-runs a side). EUC_3D, on an AMD EPYC core with the other core busy:
100,000 uniform cities' 16 nearest 0.37–0.55 instead of 0.51–0.81 s and their greedy edge tour
0.17–0.26 instead of 0.24–0.45 s, so that `--time-limit 1` is kept (slowest of 8 solves 1.06
instead of about 2.6 s) with tours 1.4 % shorter on average (longer in 1 of 8); in 10 s 1.0 %
shorter (3 instances, cores swapped), level at 20,000 cities."""


def spatial_order(view: DistanceView) -> np.ndarray | None:
    """The cities along the space-filling curve, as the search's numbers (`Start.order`), for
    coordinate instances of `SPATIAL_ORDER_CITIES` or more; None for the others."""
    if view.n < SPATIAL_ORDER_CITIES or view.code == EXPLICIT:
        return None
    return construct(view, "space-filling")


def search_order(view: DistanceView, limit: float) -> np.ndarray | None:
    """The numbering the search uses within `limit` seconds: `spatial_order` where a greedy edge
    start fits in the limit, else (None) the instance's own, the curve not being worth its time."""
    return spatial_order(view) if greedy_fits(view, limit) else None


def renumbered(view: DistanceView, order: np.ndarray | None) -> DistanceView:
    """The distances with city i being the instance's `order[i]` (as they are when `order` is None)."""
    if order is None:
        return view
    return DistanceView(np.ascontiguousarray(view.points[order]), view.code)


def _candidates(
    instance: Instance,
    view: DistanceView,
    neighbours: np.ndarray,
    order: np.ndarray | None,
    options: SolveOptions,
    networks: Networks,
    seconds: float,
    upper_bound: float | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The candidate lists of `options` for the instance (the network's when `candidates` is
    model), made in about `seconds` when there is a time limit (the network's scoring then stops
    there), and the node penalties behind them (alpha, and alphanet, whose ascent starts from the
    penalty network's prediction, made within the same seconds, or with less time than
    `PREDICTED_ALONE_SECONDS_PER_CITY` takes the prediction as it is). `neighbours`: `shared_neighbours`;
    `order`: as in `Start`; `upper_bound`: a greedy edge tour's length, when the start is one
    (`alpha_candidates`)."""
    if options.candidates == "alphanet":
        started = time.perf_counter()
        predicted = predict_penalties(networks.penalty_net, view, neighbours)
        k = options.candidates_k or DEFAULT_CANDIDATES["alphanet"]
        left = max(0.0, seconds - (time.perf_counter() - started))
        if left < PREDICTED_ALONE_SECONDS_PER_CITY * view.n:
            left = 0.0
        result = alpha_candidates(view, k, left, penalties=predicted, neighbours=neighbours, upper_bound=upper_bound)
        return result.candidates, result.penalties
    if options.candidates == "model":
        k = options.candidates_k or DEFAULT_CANDIDATES["model"]
        deadline = math.inf if options.time_limit is None else time.perf_counter() + seconds
        coords = instance.normalized_coords() if order is None else instance.normalized_coords()[order]
        from amsolve.decode.edge_scores import model_candidates  # torch: only for the network's lists

        return model_candidates(networks.model, coords, view, k, deadline), None
    return candidates_and_penalties(
        view, options.candidates, options.candidates_k, seconds, neighbours=neighbours, upper_bound=upper_bound
    )


def _search(
    instance: Instance,
    start: Start,
    options: SolveOptions,
    networks: Networks,
    began: float,
    budget: float,
    alpha: bool,
    on_search_progress: SearchProgress | None,
    allowance: float,
) -> np.ndarray:
    """The search from the start: candidate lists, local search, then kicks until `began + budget`
    (less `SEARCH_END_MARGIN`);
    returns the best tour. `alpha`: whether α candidates fit in the time (`amsolve.budget`); where
    they do not, each city's nearest stand in. Under a time limit too short for even the nearest,
    the start's neighbours along it stand in (`window_candidates`), and where not even they fit,
    the start is returned as it is. `allowance`: the least time each step before the kicks gets
    (`_steps_allowance`)."""
    deadline = began + budget - SEARCH_END_MARGIN
    starts, view, neighbours = start.tours, start.view, start.neighbours
    if options.local_search == "none":
        return starts[0]

    def steps_left() -> float:
        """Seconds the next step before the kicks may take: to the deadline, or the allowance."""
        return max(deadline - time.perf_counter(), allowance)

    left = steps_left()
    if neighbours is None and options.time_limit is not None and not neighbours_fit(view, left, start.speed):
        if not window_fits(view, left, start.speed):
            return starts[0]
        candidates, penalties = window_candidates(view, starts[0]), None
    else:
        if neighbours is None:
            neighbours = shared_neighbours(view, alpha)
        share = max(0.0, min(CANDIDATE_SHARE * budget, steps_left()))
        if options.candidates in ALPHA_SOURCES and not alpha:
            options = replace(options, candidates="nearest", candidates_k=None)
        candidates, penalties = _candidates(
            instance, view, neighbours, start.order, options, networks, share, start.greedy_length
        )
    local_search_deadline, descent_cpu_seconds = math.inf, None
    if options.time_limit is not None and allowance > 0:  # on the CPU clock, which a stall does not move
        descent_cpu_seconds = steps_left()
    elif options.time_limit is not None:
        local_search_deadline = max(deadline, time.perf_counter() + DESCENT_GRACE * options.time_limit)
    space = make_space(view, candidates, penalties) if time.perf_counter() < local_search_deadline else None
    tours, lengths = improve_tours(
        view,
        starts,
        options.local_search,
        candidates,
        deadline=local_search_deadline,
        space=space,
        cpu_seconds=descent_cpu_seconds,
    )
    best = tours[int(np.argmin(lengths))]
    if time.perf_counter() >= deadline:  # no time for kicks: spare their set-up (0.7 ms at 20,000 cities)
        return best
    report = None
    if on_search_progress is not None and budget >= PROGRESS_AFTER:

        def report(length: float) -> None:
            on_search_progress(instance, length, time.perf_counter() - began, budget)

    best, _ = iterated_local_search(
        view,
        best,
        deadline,
        options.local_search,
        candidates,
        seed=options.decode.seed,
        on_progress=report,
        descended=True,
        space=space,
    )
    return best


def _search_budget(n: int, options: SolveOptions, decoded_seconds: float) -> float:
    """Seconds the search of an instance of n cities may take after its decoding."""
    if options.time_limit is None:
        return max(AUTO_MIN_SECONDS, AUTO_SECONDS_PER_CITY * n)
    return max(0.0, options.time_limit - decoded_seconds)


def _decoded(
    instances: Sequence[Instance], options: SolveOptions, model: AttentionModel | None, device: torch.device
) -> np.ndarray:
    """The network's start tours (batch, keep, n) for instances of one size."""
    import torch

    from amsolve.decode.strategies import decode

    coords = torch.from_numpy(np.stack([instance.normalized_coords() for instance in instances])).float().to(device)
    deadline = None
    if options.time_limit is not None:
        deadline = time.perf_counter() + DECODE_SHARE * options.time_limit * len(instances)
    return decode(model, coords, options.decode, deadline).tours.cpu().numpy()


def _cheapest_start(view: DistanceView, order: np.ndarray | None) -> np.ndarray:
    """The start that costs least, where the options' own would not fit in the time: the
    space-filling curve (the cities' order when `order` numbers them along it already), or for a
    matrix, which has no curve, its cities in their own order."""
    if order is not None or view.code == EXPLICIT:
        return np.arange(view.n, dtype=np.int64)
    return construct(view, "space-filling")


def _constructed(
    view: DistanceView, options: SolveOptions, deadline: float, wide: bool, order: np.ndarray | None
) -> Start:
    """The start the construction of `options` builds, by `deadline` (a `perf_counter` value) where
    it can: a start that needs each city's nearest (greedy edge, nearest neighbour) gives way to
    the space-filling curve when they and the tour would not fit (`amsolve.budget`), judged again
    by what the nearest took once found, and to the cities' own order where not even the curve
    would fit. `wide`: whether α candidates follow; `order`: as in
    `Start` (cities already numbered along the curve, which is then the identity). The start
    carries the pace of its last step, by which the search judges whether the nearest fit.
    A matrix has no curve: its cities' own order stands in (`_cheapest_start`)."""
    strategy, seed = options.decode.strategy, options.decode.seed
    started = time.perf_counter()
    if strategy in ("greedy-edge", "nearest") and not greedy_fits(view, deadline - started):
        if not curve_fits(view, deadline - started):  # nor anything else: the cities' own order
            return Start(np.arange(view.n, dtype=np.int64)[None], view, None, None, order)
        tour = _cheapest_start(view, None)  # the curve built again where order is given: its pace is needed
        return Start(tour[None], view, None, None, order, pace(view, "curve", time.perf_counter() - started))
    if strategy not in ("greedy-edge", "nearest"):
        tour = construct(view, strategy, seed)
        speed = pace(view, "curve", time.perf_counter() - started) if strategy == "space-filling" else 1.0
        return Start(tour[None], view, None, None, order, speed)
    neighbours = shared_neighbours(view, wide)
    found = time.perf_counter()
    speed = pace(view, "wide_neighbours" if wide else "neighbours", found - started)
    if not greedy_tour_fits(view, deadline - found, speed):
        return Start(_cheapest_start(view, order)[None], view, neighbours, None, order, speed)
    tour = construct(view, strategy, seed, neighbours)
    greedy_length = tour_length(view.points, view.code, tour) if strategy == "greedy-edge" else None
    return Start(tour[None], view, neighbours, greedy_length, order)


def _solve_batch(
    instances: Sequence[Instance],
    networks: Networks,
    options: SolveOptions,
    models: ModelCache,
    on_search_progress: SearchProgress | None,
) -> list[Solution]:
    """The network's starts for instances of one size together, then the search of each on its own
    metric; a construction's start is built in its instance's own time."""
    started = time.perf_counter()
    decoded = _decoded(instances, options, networks.model, models.device) if options.decode.uses_network else None
    decoded_seconds = (time.perf_counter() - started) / len(instances)
    solutions = []
    for index, instance in enumerate(instances):
        began = time.perf_counter()
        budget = _search_budget(instance.n, options, decoded_seconds)
        view = distance_view(instance)
        alpha = options.candidates in ALPHA_SOURCES and alpha_fits(view, CANDIDATE_SHARE * budget)
        limit = budget if options.time_limit is not None else math.inf
        order = search_order(view, limit)
        deadline = began + limit
        allowance = _steps_allowance(view, limit)
        view = renumbered(view, order)
        if decoded is not None:
            tours = decoded[index] if order is None else np.argsort(order)[decoded[index]]
            start = Start(tours, view, None, None, order)
        else:
            start = _constructed(view, options, max(deadline, time.perf_counter() + allowance), alpha, order)
        tour = _search(instance, start, options, networks, began, budget, alpha, on_search_progress, allowance)
        tour = instance.validate_tour(tour if order is None else order[tour])
        seconds = decoded_seconds + time.perf_counter() - began
        solutions.append(
            Solution(instance, tour, instance.tour_length(tour), options.label(instance.n), networks.name, seconds)
        )
    return solutions


def _steps_allowance(view: DistanceView, limit: float) -> float:
    """The least seconds each step before the kicks gets under `limit` (`STALL_ALLOWANCE`): that
    share of the limit where the steps fit in it by their figures (`steps_seconds`), their own
    figure where they fit only in the whole limit, else none."""
    share, steps = STALL_ALLOWANCE * limit, steps_seconds(view)
    if steps <= share:
        return share
    return steps if steps <= limit else 0.0


def warm_up(instance: Instance, options: SolveOptions, models: ModelCache) -> float:
    """Pay the one-time costs (model load, compiling or loading the search's compiled code, first
    allocations) on a piece of `instance` of the same kind, so that no instance's clock includes
    them; returns the seconds taken. Every step runs whatever the time, so everything is compiled."""
    started = time.perf_counter()
    dense_limit = dense_graph_limit(metric_code(instance.metric))
    piece = instance.piece(WARM_UP_CITIES if instance.n <= dense_limit else dense_limit + 1)
    networks = _networks_for(piece.n, options, models)
    view = distance_view(piece)
    alpha = options.candidates in ALPHA_SOURCES
    if options.decode.uses_network:
        starts = _decoded([piece], replace(options, time_limit=None), networks.model, models.device)[0]
        complete_nearest(view, starts[:1, :1])  # how a rollout cut by a deadline is finished
    else:
        starts = _constructed(view, options, math.inf, alpha, None).tours
        construct(view, "space-filling")  # the start when the options' one would not fit in the time
        window_candidates(view, starts[0])  # its candidates when not even each city's nearest would
    if options.local_search != "none":
        neighbours = shared_neighbours(view, alpha)
        ascent = max(0.001, 2 * PREDICTED_ALONE_SECONDS_PER_CITY * piece.n)  # time enough that alphanet ascends
        for _ in range(2):  # the first call may spend its time on one-time costs and skip the ascent
            candidates, penalties = _candidates(piece, view, neighbours, None, options, networks, ascent, None)
        tours, _ = improve_tours(view, starts, options.local_search, candidates, penalties=penalties)
        warm_up_search(view, tours[0], options.local_search, candidates, penalties)
        if options.candidates == "model" and options.time_limit is not None:
            from amsolve.decode.edge_scores import view_seconds, view_size  # torch: only for the network's lists

            view_seconds(networks.model, min(view_size(networks.model), instance.n))  # the pace its deadline needs
    return time.perf_counter() - started


def _networks_for(n: int, options: SolveOptions, models: ModelCache) -> Networks:
    """The networks `options` use on instances of n cities."""
    name, model = models.for_size(n) if options.uses_network else ("", None)
    penalty_net = models.penalties() if options.uses_penalty_network else None
    if penalty_net is not None:
        name = f"{name}+{PENALTY_MODEL}" if name else PENALTY_MODEL
    return Networks(name, model, penalty_net)


def solve_instances(
    instances: Sequence[Instance],
    options: SolveOptions,
    on_progress: Callable[[int], None] = lambda done: None,
    models: ModelCache | None = None,
    on_search_progress: SearchProgress | None = None,
    on_slow_warm_up: Callable[[bool], None] | None = None,
) -> list[Solution]:
    """Solves every instance, in order. Without a time limit, instances of equal size are decoded
    together; with one, each is solved on its own, so that its seconds are its own.

    `models` (made for `options`) lets several calls share loaded models, as a benchmark does.
    One-time costs are paid first by `warm_up`; `on_slow_warm_up(True)` is called if it is still
    running after `SLOW_WARM_UP_SECONDS` (the search being compiled), and `on_slow_warm_up(False)`
    when it then ends.
    """
    models = models or ModelCache(options.model, options.device)
    batch_size = 1 if options.time_limit is not None else options.batch_size
    by_size: dict[int, list[int]] = {}
    for index, instance in enumerate(instances):
        by_size.setdefault(instance.n, []).append(index)
    if instances:
        with _reported_if_slow(on_slow_warm_up):
            warm_up(instances[0], options, models)
    solutions: dict[int, Solution] = {}
    with _collector_frozen():
        for n, indices in by_size.items():
            networks = _networks_for(n, options, models)
            for begin in range(0, len(indices), batch_size):
                chunk = indices[begin : begin + batch_size]
                batch = [instances[i] for i in chunk]
                for index, solution in zip(
                    chunk, _solve_batch(batch, networks, options, models, on_search_progress), strict=True
                ):
                    solutions[index] = solution
                on_progress(len(chunk))
    return [solutions[index] for index in range(len(instances))]


@contextmanager
def _reported_if_slow(report: Callable[[bool], None] | None) -> Iterator[None]:
    """Call `report(True)` from a timer thread if the block still runs after `SLOW_WARM_UP_SECONDS`,
    and `report(False)` when such a block ends."""
    if report is None:
        yield
        return
    fired = threading.Event()

    def fire() -> None:
        fired.set()
        report(True)

    timer = threading.Timer(SLOW_WARM_UP_SECONDS, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()
        if fired.is_set():
            report(False)


@contextmanager
def _collector_frozen() -> Iterator[None]:
    """Leave the objects that exist now out of Python's cyclic garbage collections until the block
    ends (`gc.freeze`). With torch and numba loaded a process holds about a million objects; a
    full collection over them stopped a search for up to 105 ms, and collections of the middle
    generation for about 3 ms, several times in 512 solves of 20 ms each."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def as_instance(problem: Instance | np.ndarray | Sequence[Sequence[float]]) -> Instance:
    """An Instance as given, or one made of coordinates (n, 2): float Euclidean, cities numbered from 1."""
    if isinstance(problem, Instance):
        return problem
    coords = np.asarray(problem, dtype=np.float64)
    return Instance(name="instance", coords=coords, metric="EUCLIDEAN", ids=np.arange(1, len(coords) + 1))


def solve(
    problem: Instance | np.ndarray | Sequence[Sequence[float]] | None = None,
    options: SolveOptions | None = None,
    *,
    distances: np.ndarray | Sequence[Sequence[float]] | None = None,
    **changes: object,
) -> Solution:
    """Solves one instance: an Instance, coordinates (n, 2) (float Euclidean), or `distances`.

    `solve(points, strategy="multistart", candidates="nearest", time_limit=1.0)`: any field of
    SolveOptions or of its DecodeOptions may be given by name.

    `distances` is a symmetric (n, n) matrix, solved as `Instance.from_matrix(distances)`.
    Keyword arguments change fields of `options` (default: the default pipeline) or of its
    DecodeOptions, e.g. `solve(points, strategy="beam", beam_width=32, local_search="none")`.
    """
    if (problem is None) == (distances is None):
        raise TypeError("solve() needs exactly one of an instance (or coordinates) and distances=")
    problem = Instance.from_matrix(distances) if distances is not None else as_instance(problem)
    options = options or SolveOptions()
    solve_fields = {item.name for item in fields(SolveOptions)}
    decode_fields = {item.name for item in fields(DecodeOptions)}
    unknown = set(changes) - solve_fields - decode_fields
    if unknown:
        raise TypeError(f"solve() got unexpected keyword arguments {sorted(unknown)}")
    decode_options = replace(options.decode, **{k: v for k, v in changes.items() if k in decode_fields})
    options = replace(options, decode=decode_options, **{k: v for k, v in changes.items() if k in solve_fields})
    return solve_instances([problem], options)[0]

"""The solving pipeline: instance → normalised coordinates → decoder → local search → exact length.

`solve_instances` is what `amsolve solve` and `amsolve bench` call; `solve` is the one-instance
convenience for Python callers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace

import numpy as np
import torch

from amsolve.decode.strategies import DecodeOptions, decode
from amsolve.device import resolve_device
from amsolve.errors import InputError
from amsolve.model.network import AttentionModel
from amsolve.model.registry import load_model, nearest_model
from amsolve.problem import Instance
from amsolve.search import check_local_search, improve_tours, iterated_local_search
from amsolve.search.distances import distance_view

AUTO_SECONDS_PER_CITY = 0.001
"""Without --time-limit, local search runs to its local optimum and iterated local search then
gets 1 ms per city (0.1 s at 100 cities, 1 s at 1,000)."""


@dataclass(frozen=True)
class SolveOptions:
    """How to solve: the decoder, local search on its best `decode.keep` tours, model, device.

    With local search, the decoded tours are improved to a local optimum, then the best one by
    iterated local search for `AUTO_SECONDS_PER_CITY` × n. A `time_limit` instead bounds each
    instance's whole solve: decoding starts no new chunk of rollouts after it (the first chunk
    always completes), local search stops when it expires, and any time left goes to iterated
    local search. Without local search, decoding is all there is.
    """

    decode: DecodeOptions = field(default_factory=lambda: DecodeOptions("multistart", augment=None))
    local_search: str = "2opt+oropt"
    model: str | None = None  # shipped name or directory; None: the shipped model nearest in size
    device: str = "auto"
    batch_size: int = 64
    time_limit: float | None = None  # seconds per instance, all included; None: see AUTO_SECONDS_PER_CITY

    def __post_init__(self) -> None:
        check_local_search(self.local_search)
        if self.batch_size < 1:
            raise InputError("--batch-size must be at least 1")
        if self.time_limit is not None and not (self.time_limit >= 0 and math.isfinite(self.time_limit)):
            raise InputError("--time-limit must be a number of seconds, 0 or more")

    def label(self, n: int | None = None) -> str:
        """The pipeline's name in tables (for `n` cities), e.g. `multistart20×8+2opt+oropt`."""
        decoder = self.decode.label(n)
        return decoder if self.local_search == "none" else f"{decoder}+{self.local_search}"


@dataclass(frozen=True)
class Solution:
    """The best tour found for one instance, with its exact length in the instance's metric."""

    instance: Instance
    tour: np.ndarray  # (n,) 0-based positions of the instance's cities
    length: float
    pipeline: str
    model: str
    seconds: float  # this instance's share of the wall time of its batch

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
    """Loads each model once and picks the shipped one nearest to an instance's size."""

    def __init__(self, name: str | None, device: torch.device) -> None:
        self.name, self.device = name, device
        self.loaded: dict[str, AttentionModel] = {}

    def for_size(self, n: int) -> tuple[str, AttentionModel]:
        """The model for instances of `n` cities, and its name."""
        name = self.name or nearest_model(n)
        if name not in self.loaded:
            self.loaded[name] = load_model(name, self.device)
        return name, self.loaded[name]


def _finish(
    instance: Instance, tours: np.ndarray, options: SolveOptions, decoded_seconds: float
) -> tuple[np.ndarray, float]:
    """Local search on the decoded tours (k, n), then kicks on the best one while time is left."""
    if options.time_limit is None:
        local_search_deadline = None
    else:
        local_search_deadline = time.perf_counter() + options.time_limit - decoded_seconds
    view = distance_view(instance)
    tours, lengths = improve_tours(view, tours, options.local_search, deadline=local_search_deadline)
    best = tours[int(np.argmin(lengths))]
    deadline = local_search_deadline or time.perf_counter() + AUTO_SECONDS_PER_CITY * instance.n
    if options.local_search != "none" and time.perf_counter() < deadline:
        best, _ = iterated_local_search(view, best, deadline, seed=options.decode.seed, method=options.local_search)
    tour = instance.validate_tour(best)
    return tour, instance.tour_length(tour)


def _solve_batch(
    instances: Sequence[Instance], model_name: str, model: AttentionModel, options: SolveOptions, device: torch.device
) -> list[Solution]:
    """Decodes instances of one size together, then finishes each on its own metric."""
    started = time.perf_counter()
    coords = torch.from_numpy(np.stack([instance.normalized_coords() for instance in instances])).float().to(device)
    deadline = None if options.time_limit is None else started + options.time_limit * len(instances)
    candidates = decode(model, coords, options.decode, deadline).tours.cpu().numpy()  # (batch, keep, n)
    decoded_seconds = (time.perf_counter() - started) / len(instances)
    solutions = []
    for instance, tours in zip(instances, candidates, strict=True):
        began = time.perf_counter()
        tour, length = _finish(instance, tours, options, decoded_seconds)
        seconds = decoded_seconds + time.perf_counter() - began
        solutions.append(Solution(instance, tour, length, options.label(instance.n), model_name, seconds))
    return solutions


def solve_instances(
    instances: Sequence[Instance],
    options: SolveOptions,
    on_progress: Callable[[int], None] = lambda done: None,
    models: ModelCache | None = None,
) -> list[Solution]:
    """Solves every instance; instances of equal size are batched. Order is kept.

    `models` (made for `options`) lets several calls share loaded models, as a benchmark does.
    """
    device = resolve_device(options.device)
    models = models or ModelCache(options.model, device)
    by_size: dict[int, list[int]] = {}
    for index, instance in enumerate(instances):
        by_size.setdefault(instance.n, []).append(index)
    solutions: dict[int, Solution] = {}
    for n, indices in by_size.items():
        model_name, model = models.for_size(n)
        for begin in range(0, len(indices), options.batch_size):
            chunk = indices[begin : begin + options.batch_size]
            for index, solution in zip(
                chunk, _solve_batch([instances[i] for i in chunk], model_name, model, options, device), strict=True
            ):
                solutions[index] = solution
            on_progress(len(chunk))
    return [solutions[index] for index in range(len(instances))]


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

"""What the model sees: greedy decoding of one instance, step by step, with every probability it gives.

`explain` runs the very loop greedy decoding runs (`rollout` with the greedy selector, on the
model's own precomputed cache) through a decoder that keeps what each step computes: the
probabilities of the next city and, on request, each head's glimpse attention. Nothing of the
model is computed a second time, so the explained tour is the greedy tour of `amsolve solve
--decode greedy --no-augment --local-search none`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import torch

from amsolve.decode.rollout import greedy_selector, rollout
from amsolve.errors import InputError
from amsolve.model.decoder import Decoder, DecoderCache
from amsolve.problem import Instance
from amsolve.solver import ModelCache, as_instance

EXPLAIN_MAX_CITIES = 5000
"""An explanation keeps n probabilities for each of n steps (and its JSON lists about n²/2
candidates: 12.5 million at this size), so larger instances are refused."""


class StepRecorder:
    """The model's decoder, keeping each step's probabilities (and glimpse attention) of rollout 0."""

    def __init__(self, decoder: Decoder, glimpse: bool) -> None:
        self.decoder = decoder
        self.glimpse = glimpse
        self.probabilities: list[torch.Tensor] = []  # each (n,)
        self.attention: list[torch.Tensor] = []  # each (heads, n)

    def log_probs(self, cache: DecoderCache, query: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The decoder's step (`Decoder.log_probs`), its outputs recorded on the way."""
        if self.glimpse:
            log_probs, attention = self.decoder.log_probs(cache, query, mask, with_glimpse=True)
            self.attention.append(attention[0, :, 0].float().cpu())  # (heads, n)
        else:
            log_probs = self.decoder.log_probs(cache, query, mask)  # (batch, s, n)
        self.probabilities.append(log_probs[0, 0].exp().float().cpu())  # (n,)
        return log_probs


@dataclass(frozen=True, eq=False)
class ExplainedStep:
    """One step of greedy decoding: where the tour is, what the model chose, and how sure it was.

    Cities are 0-based positions into the instance (`Instance.ids` gives the file's own ids).
    """

    number: int  # 1 for the first city, n for the last
    current: int | None  # the city the tour is at; None at step 1
    chosen: int  # the most probable city
    probability: float
    entropy: float  # of the step's distribution, in nats: 0 when sure, ln k for k equally likely cities
    candidates: np.ndarray  # (k,) the k cities still unvisited, most probable first
    probabilities: np.ndarray  # (k,) their probabilities
    follows_reference: bool | None  # the step takes an edge of the reference tour; None without one, or at step 1


@dataclass(frozen=True, eq=False)
class Explanation:
    """Greedy decoding of one instance by one model, with each step's distribution over the cities.

    Row t of `probabilities` is the distribution of step t + 1 over all n cities: 0 for the cities
    already in the tour, summing to 1 over the others. The last city is forced, as in decoding
    (its row is one-hot). `glimpse`, when asked for, holds each head's glimpse attention at each
    step, which is 0 on visited cities too.
    """

    instance: Instance
    model: str
    tour: np.ndarray  # (n,) positions in visiting order
    length: float  # in the instance's metric
    probabilities: np.ndarray  # (n steps, n cities) float32
    glimpse: np.ndarray | None = None  # (n steps, heads, n cities) float32

    @property
    def n(self) -> int:
        return self.instance.n

    @property
    def gap_pct(self) -> float | None:
        """100 · (length − reference) / reference, when a reference length is known."""
        reference = self.instance.reference_length
        return None if not reference else 100.0 * (self.length - reference) / reference

    @property
    def reference_name(self) -> str:
        """How tables and pictures call the reference tour."""
        return "optimal tour" if self.instance.reference_is_optimal else "reference tour"

    @cached_property
    def entropies(self) -> np.ndarray:
        """Entropy in nats of each step's distribution (n,)."""
        p = self.probabilities.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(p > 0, -p * np.log(p), 0.0)
        return terms.sum(axis=1)

    @cached_property
    def reference_neighbours(self) -> np.ndarray | None:
        """The two neighbours (n, 2) of each city on the reference tour, when the instance has one."""
        reference = self.instance.reference_tour
        if reference is None:
            return None
        neighbours = np.empty((self.n, 2), dtype=np.int64)
        neighbours[reference, 0] = np.roll(reference, -1)  # next on the reference tour
        neighbours[reference, 1] = np.roll(reference, 1)  # previous
        return neighbours

    @cached_property
    def follows_reference(self) -> np.ndarray | None:
        """Whether each step (n,) takes an edge of the reference tour, in either direction, from the
        city the tour is at; True at step 1 (every city is on the reference tour). None without one."""
        neighbours = self.reference_neighbours
        if neighbours is None:
            return None
        follows = np.ones(self.n, dtype=bool)
        follows[1:] = (neighbours[self.tour[:-1]] == self.tour[1:, None]).any(axis=1)
        return follows

    @property
    def departures(self) -> list[int]:
        """The steps (numbered from 1) that leave the reference tour; empty without one."""
        follows = self.follows_reference
        return [] if follows is None else (np.flatnonzero(~follows) + 1).tolist()

    def step(self, number: int) -> ExplainedStep:
        """Step `number` (1 to n)."""
        if not 1 <= number <= self.n:
            raise InputError(f"there is no step {number}: steps run from 1 to {self.n}")
        index = number - 1
        probabilities = self.probabilities[index]
        unvisited = np.setdiff1d(np.arange(self.n), self.tour[:index], assume_unique=True)
        order = unvisited[np.argsort(-probabilities[unvisited], kind="stable")]
        chosen = int(self.tour[index])
        follows = self.follows_reference
        return ExplainedStep(
            number=number,
            current=None if index == 0 else int(self.tour[index - 1]),
            chosen=chosen,
            probability=float(probabilities[chosen]),
            entropy=float(self.entropies[index]),
            candidates=order,
            probabilities=probabilities[order],
            follows_reference=None if follows is None or index == 0 else bool(follows[index]),
        )

    @property
    def steps(self) -> list[ExplainedStep]:
        """Every step, in order."""
        return [self.step(number) for number in range(1, self.n + 1)]

    def as_json(self) -> dict[str, Any]:
        """The `amsolve explain --json` document, cities named by the file's own ids."""
        ids = self.instance.ids.tolist()
        return {
            "instance": self.instance.name,
            "n": self.n,
            "model": self.model,
            "tour": [ids[city] for city in self.tour],
            "length": self.length,
            "steps": [
                {
                    "step": step.number,
                    "current": None if step.current is None else ids[step.current],
                    "chosen": ids[step.chosen],
                    "probability": step.probability,
                    "entropy": step.entropy,
                    "candidates": [
                        {"city": ids[city], "probability": probability}
                        for city, probability in zip(step.candidates.tolist(), step.probabilities.tolist(), strict=True)
                    ],
                }
                for step in self.steps
            ],
        }


def check_size(n: int) -> None:
    """An InputError for instances too large to explain (EXPLAIN_MAX_CITIES)."""
    if n > EXPLAIN_MAX_CITIES:
        raise InputError(f"explain keeps every step's probabilities: at most {EXPLAIN_MAX_CITIES:,} cities, not {n:,}")


@torch.inference_mode()
def explain(
    instance: Instance | np.ndarray | Sequence[Sequence[float]],
    model: str | None = None,
    glimpse: bool = False,
    device: str = "auto",
) -> Explanation:
    """Greedy decoding of one instance with every step's probabilities (and, with `glimpse`, each
    head's glimpse attention).

    `instance` is an Instance or coordinates (n, 2); `model` a shipped model name or a model
    directory (default: the shipped model trained nearest in size, as `amsolve solve` picks it).
    """
    instance = as_instance(instance)
    check_size(instance.n)
    models = ModelCache(model, device)
    model_name, network = models.for_size(instance.n)
    network.eval()
    coords = torch.from_numpy(instance.normalized_coords()[None]).float().to(models.device)  # (1, n, 2)
    recorder = StepRecorder(network.decoder, glimpse)
    tour = rollout(recorder, network.precompute(coords), 1, greedy_selector).tours[0, 0].cpu().numpy()  # (n,)
    tour = instance.validate_tour(tour)
    last = np.zeros(instance.n, dtype=np.float32)
    last[tour[-1]] = 1.0  # the one city left: probability 1, and all of each head's attention
    probabilities = np.stack([row.numpy() for row in recorder.probabilities] + [last])  # (n, n)
    attention = None
    if glimpse:
        heads = network.config.n_heads
        attention = np.stack([row.numpy() for row in recorder.attention] + [np.tile(last, (heads, 1))])  # (n, h, n)
    return Explanation(instance, model_name, tour, instance.tour_length(tour), probabilities, attention)

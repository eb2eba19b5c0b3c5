"""Constructing tours step by step with visited-node masking: the loop every decoder shares."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import torch

from amsolve.model.decoder import DecoderCache

Selector = Callable[[torch.Tensor], torch.Tensor]
"""Picks the next city (batch, s) from log-probabilities (batch, s, n)."""


class DecoderStep(Protocol):
    """What the rollout loop asks of a decoder: `Decoder.log_probs`, one step for every rollout.

    The model's `Decoder` is one; `amsolve explain` passes one that also records each step.
    """

    def log_probs(self, cache: DecoderCache, query: torch.Tensor, mask: torch.Tensor) -> torch.Tensor: ...


@dataclass(frozen=True)
class Rollouts:
    """`s` tours per instance and, when tracked, the sum of their log-probabilities."""

    tours: torch.Tensor  # (batch, s, n) city indices; (batch, s, m < n) when a deadline cut them
    log_likelihood: torch.Tensor | None  # (batch, s)


def greedy_selector(log_probs: torch.Tensor) -> torch.Tensor:
    """The most probable city."""
    return log_probs.argmax(dim=-1)


_HASH_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93, 0xA0761D6478BD642F)


def _as_int64(value: int) -> int:
    """The two's-complement int64 with the same low 64 bits as `value`."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _mix(x: torch.Tensor) -> torch.Tensor:
    """A splitmix64-style finaliser on int64 tensors (logical shifts emulated by masking)."""
    x = x ^ ((x >> 30) & ((1 << 34) - 1))
    x = x * _as_int64(_HASH_MULTIPLIERS[1])
    x = x ^ ((x >> 27) & ((1 << 37) - 1))
    x = x * _as_int64(_HASH_MULTIPLIERS[2])
    return x ^ ((x >> 31) & ((1 << 33) - 1))


def sampling_selector(seed: int, temperature: float = 1.0, first_sample: int = 0) -> Selector:
    """Samples a city from the softmax at `temperature` by the Gumbel-max trick.

    The noise of (instance, sample, step, city) is a hash of those indices and `seed`, so sample
    k is the same tour whatever the number of samples drawn or the chunk it is drawn in: more
    samples can only find shorter tours. `first_sample` is the index of this chunk's first sample.
    """
    step = 0
    base: torch.Tensor | None = None

    def select(log_probs: torch.Tensor) -> torch.Tensor:
        nonlocal step, base
        if base is None:
            batch, samples, n = log_probs.shape
            index = [torch.arange(size, device=log_probs.device) for size in (batch, samples, n)]
            base = (
                _as_int64(seed * _HASH_MULTIPLIERS[0])
                + index[0].view(-1, 1, 1) * _as_int64(_HASH_MULTIPLIERS[3])
                + (index[1].view(1, -1, 1) + first_sample) * _as_int64(_HASH_MULTIPLIERS[4])
                + index[2].view(1, 1, -1) * _as_int64(_HASH_MULTIPLIERS[0])
            )  # (batch, samples, n) int64
        bits = _mix(_mix(base + _as_int64(step * _HASH_MULTIPLIERS[2])))
        step += 1
        # 22 bits, so that k + 0.5 is exact in float32 and the uniform stays strictly inside (0, 1)
        uniform = (((bits >> 42) & ((1 << 22) - 1)).float() + 0.5) * 2.0**-22
        gumbel = -torch.log(-torch.log(uniform))
        return (log_probs / temperature + gumbel).argmax(dim=-1)

    return select


def inverse_cdf_selector(generator: torch.Generator) -> Selector:
    """Samples a city from the softmax with one uniform per rollout, inverting the cumulative sum.

    For training, where samples need not be the same whatever the chunking: on this CPU it costs a
    fifth of `sampling_selector`'s per-city hashed noise. The uniform lies strictly inside (0, 1)
    (22 bits, half a step from either end), so a city of probability zero is never picked.
    """

    def select(log_probs: torch.Tensor) -> torch.Tensor:
        cumulative = log_probs.exp().cumsum(dim=-1)  # (batch, s, n)
        steps = torch.randint(1 << 22, cumulative.shape[:-1] + (1,), generator=generator, device=log_probs.device)
        uniform = (steps.float() + 0.5) * 2.0**-22  # (batch, s, 1)
        return (cumulative < uniform * cumulative[..., -1:]).sum(dim=-1)  # the first city reaching it

    return select


def gather_rows(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """Rows `table[b, index[b, s]]`: (batch, n, dim) indexed by (batch, s) gives (batch, s, dim)."""
    return table.gather(1, index.unsqueeze(-1).expand(-1, -1, table.shape[-1]))


def rollout(
    decoder: DecoderStep,
    cache: DecoderCache,
    rollouts: int,
    select: Selector,
    first: torch.Tensor | None = None,
    track_log_likelihood: bool = False,
    temperature: float = 1.0,
    deadline: float | None = None,
) -> Rollouts:
    """Builds `rollouts` tours per instance, each city picked by `select` among unvisited ones.

    With `first` (batch, s) given, the tours start there (multi-start); otherwise the first
    city is chosen by the model from the placeholder context. With a `temperature`, `select` and
    the log-likelihood see the policy softmax(logits / temperature), whose argmax is the model's.
    Past `deadline` (a `time.perf_counter()` value) no further city is chosen: the tours are then
    the paths chosen so far, (batch, s, m) with 1 ≤ m < n, for the caller to finish.
    """
    batch, n = cache.batch, cache.n
    device = cache.query_last.device
    mask = torch.zeros(batch, rollouts, n, device=device)  # (b, s, n): −inf once visited
    log_likelihood = torch.zeros(batch, rollouts, device=device) if track_log_likelihood else None
    if first is None:
        query = cache.query_start.expand(batch, rollouts, -1)  # (b, s, dim)
        log_probs = _tempered(decoder.log_probs(cache, query, mask), temperature)
        first = select(log_probs)
        if log_likelihood is not None:
            log_likelihood = log_likelihood + log_probs.gather(-1, first.unsqueeze(-1)).squeeze(-1)
    query_fixed = cache.query_graph + gather_rows(cache.query_first, first)  # (b, s, dim)
    mask = mask.scatter(-1, first.unsqueeze(-1), -math.inf)
    last = first
    steps = [first]
    for _ in range(n - 2):
        if deadline is not None and time.perf_counter() >= deadline:
            return Rollouts(torch.stack(steps, dim=-1), log_likelihood)
        query = query_fixed + gather_rows(cache.query_last, last)  # (b, s, dim)
        log_probs = _tempered(decoder.log_probs(cache, query, mask), temperature)  # (b, s, n)
        last = select(log_probs)
        if log_likelihood is not None:
            log_likelihood = log_likelihood + log_probs.gather(-1, last.unsqueeze(-1)).squeeze(-1)
        mask = mask.scatter(-1, last.unsqueeze(-1), -math.inf)  # a new tensor: attention saves the old one
        steps.append(last)
    steps.append(mask.argmax(dim=-1))  # the one city left (mask 0): probability 1
    return Rollouts(torch.stack(steps, dim=-1), log_likelihood)


def _tempered(log_probs: torch.Tensor, temperature: float) -> torch.Tensor:
    """Log-probabilities (batch, s, n) of softmax(logits / temperature) from those at temperature 1."""
    return log_probs if temperature == 1.0 else (log_probs / temperature).log_softmax(dim=-1)


def euclidean_tour_lengths(coords: torch.Tensor, tours: torch.Tensor) -> torch.Tensor:
    """Euclidean lengths (batch, s) of closed tours (batch, s, n) over coords (batch, n, 2)."""
    batch, rollouts, n = tours.shape
    index = tours.reshape(batch, rollouts * n, 1).expand(-1, -1, 2)
    ordered = coords.gather(1, index).view(batch, rollouts, n, 2)  # (b, s, n, 2)
    return (ordered - ordered.roll(-1, dims=2)).norm(dim=-1).sum(dim=-1)

"""What a pipeline's start can be and how the network decodes it: the options, without the network.

Kept apart from the decoding itself (`amsolve.decode.strategies`) so that pipelines whose start
is a construction name and check their options without loading torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from amsolve.errors import InputError
from amsolve.search.construct import CONSTRUCTIONS

NETWORK_DECODERS = ("greedy", "sample", "beam", "multistart", "local")
"""Decoders that run the network."""

DECODERS = NETWORK_DECODERS + CONSTRUCTIONS
"""Every start a pipeline can name: the network's decoders and the constructions without it."""

AUGMENT_MAX_CITIES = 1000
"""Automatic augmentation stops here: above it, ×8 costs many seconds of encoder and decoder
time (at 10,000 cities, minutes) and local search recovers more per second."""

MULTISTART_WORK = 2 * 10**5
"""Default multi-start budget, starts × n² per symmetry: every city up to 58 cities, 57 at
n = 59, 20 at n = 100, 5 at 200, 1 from 317 on. On this CPU 100 starts ×8 at n = 100 take
0.23 s per instance, and local search gains more from that time than the extra starts do.
Pass `starts` (≥ n for all) to evaluate a model POMO-style."""


def default_starts(n: int) -> int:
    """How many start cities a multi-start tries when not told: all of them while that is cheap."""
    return max(1, min(n, MULTISTART_WORK // (n * n)))


def start_count(n: int, starts: int | None) -> int:
    """How many start cities a multi-start of `n` cities tries (None: `default_starts`)."""
    return min(n, default_starts(n) if starts is None else starts)


@dataclass(frozen=True)
class DecodeOptions:
    """How to decode; the counts apply per instance (and per symmetry with `augment`)."""

    strategy: str = "greedy"
    samples: int = 128
    temperature: float = 1.0
    beam_width: int = 16
    starts: int | None = None  # multi-start: None means `default_starts(n)`
    augment: bool | None = False  # None: only up to AUGMENT_MAX_CITIES cities
    keep: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.strategy not in DECODERS:
            raise InputError(f"unknown decoder {self.strategy!r}; choose one of {', '.join(DECODERS)}")
        for name, option in (("samples", "--samples"), ("beam_width", "--beam-width"), ("keep", "--improve")):
            if getattr(self, name) < 1:
                raise InputError(f"{option} must be at least 1")
        if self.seed < 0:
            raise InputError("--seed must be 0 or more")
        if self.starts is not None and self.starts < 1:
            raise InputError("--starts must be at least 1")
        if not self.temperature > 0 or not math.isfinite(self.temperature):
            raise InputError("--temperature must be a positive number")

    @property
    def uses_network(self) -> bool:
        """Whether the start is decoded by the network (else a construction builds it)."""
        return self.strategy in NETWORK_DECODERS

    def augments(self, n: int) -> bool:
        """Whether instances of `n` cities are decoded in their 8 symmetric versions."""
        if not self.uses_network or self.strategy == "local":  # local decoding uses the symmetries itself
            return False
        return n <= AUGMENT_MAX_CITIES if self.augment is None else self.augment

    def label(self, n: int | None = None) -> str:
        """A short name for tables, e.g. `multistart20×8` (starts used at `n` cities) or `beam16`."""
        if not self.uses_network:
            return self.strategy
        if self.strategy == "multistart":
            starts = self.starts if n is None else start_count(n, self.starts)
            base = "multistart" if starts is None else f"multistart{starts}"
        else:
            base = {
                "greedy": "greedy",
                "sample": f"sample{self.samples}",
                "beam": f"beam{self.beam_width}",
                "local": "local",
            }[self.strategy]
        augmented = self.augment if n is None else self.augments(n)
        return f"{base}×8" if augmented else base

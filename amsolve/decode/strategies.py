"""Decoding strategies (docs/DESIGN.md §2): greedy, sampling, beam search and multi-start, ×8 augmentation.

Every strategy turns a batch of instances in the unit square into candidate tours; the
`keep` shortest per instance are returned, so local search can work on more than one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from amsolve.decode.augment import SYMMETRIES, all_symmetries, apply_symmetry
from amsolve.decode.beam import beam_search
from amsolve.decode.local import local_tour
from amsolve.decode.options import DecodeOptions, start_count
from amsolve.decode.rollout import euclidean_tour_lengths, greedy_selector, rollout, sampling_selector
from amsolve.errors import InputError
from amsolve.machine import available_memory
from amsolve.model.network import AttentionModel
from amsolve.search.construct import complete_nearest
from amsolve.search.distances import coordinate_view

ROLLOUT_ELEMENTS = 2**25
"""Rollouts are run in chunks so that one step's attention scores stay below this many floats."""


@dataclass(frozen=True)
class Decoded:
    """The `keep` shortest candidate tours per instance, shortest first."""

    tours: torch.Tensor  # (batch, keep, n)
    lengths: torch.Tensor  # (batch, keep) Euclidean, in the coordinates decoded


def start_cities(n: int, starts: int | None) -> torch.Tensor:
    """The start cities of a multi-start, spread evenly over the indices (None: `default_starts`)."""
    count = start_count(n, starts)
    if count == n:
        return torch.arange(n)
    return torch.linspace(0, n - 1, count).round().long()


def check_beam_memory(batch: int, n: int, width: int, heads: int, device: torch.device) -> None:
    """An InputError instead of running out of memory when a beam search cannot fit.

    A step holds about three float tensors of (batch, heads, width, n); the beams' partial tours
    add (batch, width, n) integers twice (old and new).
    """
    needed = 4 * 3 * batch * heads * width * n + 8 * 2 * batch * width * n
    available = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else available_memory()
    if available is not None and needed > 0.8 * available:
        raise InputError(
            f"beam search of width {width} over {batch} instance(s) of {n} cities needs about "
            f"{needed / 2**30:.1f} GiB, {available / 2**30:.1f} GiB are free; lower --beam-width or --batch-size"
        )


def _shortest(tours: torch.Tensor, lengths: torch.Tensor, keep: int) -> Decoded:
    """The `keep` shortest of the candidates tours (batch, c, n) with lengths (batch, c)."""
    lengths, order = lengths.topk(min(keep, lengths.shape[1]), dim=1, largest=False)
    return Decoded(tours.gather(1, order.unsqueeze(-1).expand(-1, -1, tours.shape[-1])), lengths)


def _rollouts_per_pass(batch: int, n: int, total: int, heads: int) -> int:
    """How many rollouts per instance fit in one pass under `ROLLOUT_ELEMENTS`."""
    return max(1, min(total, ROLLOUT_ELEMENTS // max(1, batch * n * heads)))


def _beam(model: AttentionModel, coords: torch.Tensor, options: DecodeOptions, deadline: float | None) -> Decoded:
    """Beam search: the shortest of the finished beams (unfilled beams never count). Cut by the
    `deadline`, the `keep` most probable beams are finished by nearest neighbour."""
    batch, n, _ = coords.shape
    check_beam_memory(batch, n, options.beam_width, model.config.n_heads, coords.device)
    tours, scores = beam_search(model.decoder, model.precompute(coords), options.beam_width, deadline)
    if tours.shape[-1] < n:
        tours = _complete_nearest(coords, tours[:, : options.keep])  # (batch, ≤ keep, n)
        if tours.shape[1] < options.keep:  # fewer beams than `keep` so far: the most probable again
            tours = torch.cat((tours, tours[:, :1].expand(-1, options.keep - tours.shape[1], -1)), dim=1)
        return Decoded(tours, euclidean_tour_lengths(coords, tours))
    lengths = euclidean_tour_lengths(coords, tours).masked_fill(~torch.isfinite(scores), math.inf)  # (batch, width)
    found = _shortest(tours, lengths, options.keep)
    unfinished = ~torch.isfinite(found.lengths)  # (batch, keep): fewer finished beams than `keep`
    if not unfinished.any():
        return found
    # stand-ins keep the order shortest first: the longest finished tour again
    last = ((~unfinished).sum(dim=1, keepdim=True) - 1).clamp(min=0)  # (batch, 1)
    last_tours = found.tours.gather(1, last.unsqueeze(-1).expand(-1, -1, n))  # (batch, 1, n)
    tours = torch.where(unfinished.unsqueeze(-1), last_tours, found.tours)
    return Decoded(tours, torch.where(unfinished, found.lengths.gather(1, last), found.lengths))


def _rollouts(model: AttentionModel, coords: torch.Tensor, options: DecodeOptions, deadline: float | None) -> Decoded:
    """Greedy, sampling and multi-start: independent rollouts, run in memory-sized chunks.

    With a `deadline` (a `time.perf_counter()` value) the first chunk is one rollout per instance,
    finished by nearest neighbour if the deadline cuts it; each later chunk holds as many as the
    time left allows at the rate measured so far, and none starts once too little time is left for
    one rollout.
    """
    batch, n, _ = coords.shape
    cache = model.precompute(coords)
    firsts = start_cities(n, options.starts).to(coords.device)  # multi-start only
    total = {"greedy": 1, "sample": options.samples, "multistart": len(firsts)}[options.strategy]
    largest = _rollouts_per_pass(batch, n, total, model.config.n_heads)
    chunk = largest if deadline is None else 1
    best: Decoded | None = None
    begin = 0
    while begin < total and chunk > 0:
        count = min(chunk, total - begin)
        started = time.perf_counter()
        if options.strategy == "sample":
            first, select = None, sampling_selector(options.seed, options.temperature, first_sample=begin)
        elif options.strategy == "multistart":
            first, select = firsts[begin : begin + count].expand(batch, count), greedy_selector
        else:
            first, select = None, greedy_selector
        tours = rollout(model.decoder, cache, count, select, first=first, deadline=deadline).tours
        if tours.shape[-1] < n:  # cut by the deadline: finished by nearest neighbour
            tours = _complete_nearest(coords, tours)
        lengths = euclidean_tour_lengths(coords, tours)
        if best is not None:
            tours, lengths = torch.cat((best.tours, tours), 1), torch.cat((best.lengths, lengths), 1)
        best = _shortest(tours, lengths, options.keep)
        begin += count
        if deadline is not None:
            now = time.perf_counter()
            per_rollout = (now - started) / count
            chunk = min(largest, int((deadline - now) / per_rollout)) if per_rollout > 0 else largest
    return best


def _complete_nearest(coords: torch.Tensor, paths: torch.Tensor) -> torch.Tensor:
    """Tours (batch, s, n) that follow the paths (batch, s, m) and then always go on to the nearest
    unvisited city, in the coordinates the network sees (coords (batch, n, 2))."""
    points = coords.cpu().numpy().astype(np.float64)  # (batch, n, 2)
    prefixes = paths.cpu().numpy()  # (batch, s, m)
    views = [coordinate_view(instance, "EUCLIDEAN") for instance in points]
    tours = np.stack([complete_nearest(view, rows) for view, rows in zip(views, prefixes, strict=True)])
    return torch.from_numpy(tours).to(paths.device)


def _local(model: AttentionModel, coords: torch.Tensor, seed: int, deadline: float | None) -> Decoded:
    """Coarse-to-fine decoding and revision (`amsolve.decode.local`), one instance at a time, each
    given an equal share of the time left before `deadline`."""
    points = coords.cpu().numpy().astype(np.float64)  # (batch, n, 2)
    found = []
    for index, instance in enumerate(points):
        own = (
            math.inf
            if deadline is None
            else time.perf_counter() + (deadline - time.perf_counter()) / (len(points) - index)
        )
        found.append(local_tour(model, instance, deadline=own, seed=seed))
    tours = torch.from_numpy(np.stack(found)).to(coords.device)
    return Decoded(tours.unsqueeze(1), euclidean_tour_lengths(coords, tours.unsqueeze(1)))


def _decode_plain(
    model: AttentionModel, coords: torch.Tensor, options: DecodeOptions, deadline: float | None
) -> Decoded:
    """One strategy on coords (batch, n, 2), without augmentation."""
    if options.strategy == "beam":
        return _beam(model, coords, options, deadline)
    if options.strategy == "local":
        return _local(model, coords, options.seed, deadline)
    return _rollouts(model, coords, options, deadline)


@torch.inference_mode()
def decode(
    model: AttentionModel, coords: torch.Tensor, options: DecodeOptions, deadline: float | None = None
) -> Decoded:
    """Decodes instances (batch, n, 2) in the unit square with `options`; model in eval mode.

    With a `deadline` (`time.perf_counter()` value), rollouts are sized to end before it (see
    `_rollouts`); the first rollout of each instance is finished by nearest neighbour where the
    deadline cuts it, so every instance gets a tour, and ×8 augmentation decodes the other 7
    symmetries only when they fit in the time left. Local decoding finishes its tours without the
    model past the deadline, and beam search finishes its most probable beams by nearest neighbour.
    """
    model.eval()
    if not options.augments(coords.shape[1]):
        return _decode_plain(model, coords, options, deadline)
    if deadline is None:
        return _best_of_symmetries(_decode_plain(model, all_symmetries(coords), options, None), options.keep)
    # under a deadline the instances as given first, the other 7 symmetries only if they fit in the time left
    started = time.perf_counter()
    found = _decode_plain(model, coords, options, deadline)
    now = time.perf_counter()
    if now + (SYMMETRIES - 1) * (now - started) > deadline:
        return found
    others = torch.cat([apply_symmetry(coords, index) for index in range(1, SYMMETRIES)])  # (7 * batch, n, 2)
    more = _decode_plain(model, others, options, deadline)
    found = Decoded(torch.cat((found.tours, more.tours)), torch.cat((found.lengths, more.lengths)))
    return _best_of_symmetries(found, options.keep)


def _best_of_symmetries(found: Decoded, keep: int) -> Decoded:
    """The `keep` shortest tours of each instance from tours decoded in all 8 symmetries,
    (8 * batch, k, n) symmetry-major."""
    k, n = found.tours.shape[1:]
    batch = found.tours.shape[0] // SYMMETRIES
    # each instance's candidates from all 8 symmetries side by side: (batch, 8 * k, n) and (batch, 8 * k)
    tours = found.tours.view(SYMMETRIES, batch, k, n).transpose(0, 1).reshape(batch, SYMMETRIES * k, n)
    lengths = found.lengths.view(SYMMETRIES, batch, k).transpose(0, 1).reshape(batch, SYMMETRIES * k)
    return _shortest(tours, lengths, keep)

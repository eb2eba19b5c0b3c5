"""The network alone on instances of any size: it only ever sees small local views.

A model trained on 100 cities collapses on 1,000 and more when it sees them all at once (the AM's
greedy tours are 30–35 % long there). Two ways of keeping its input small, as INViT (local views,
Fang et al. 2024) and GLOP (revision of short paths, Ye et al. 2024) do, with the shipped weights
and no training:

1. **Window decoding** builds a first tour: at every step the model sees the current city and its
   `WINDOW` − 1 nearest unvisited cities, normalised into the unit square as one small instance,
   and picks the next city as it would pick the second city of that instance's tour (first = last =
   the current city). O(n · WINDOW²) encoder work, O(n²) for the nearest unvisited cities.
2. **Revision** cuts the tour into stretches of `STRETCH` cities and re-decodes each as a path
   with both ends kept: the stretch is normalised, the model starts at its first city and may take
   its last only at the end, in the 8 symmetries of the square at once; the shortest path replaces
   the stretch when it is shorter. Rounds alternate the cut points by half a stretch.

Both are the network's own decoding: no classical move is made.
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch

from amsolve.decode.augment import SYMMETRIES, all_symmetries
from amsolve.decode.rollout import gather_rows
from amsolve.model.network import AttentionModel
from amsolve.problem.instance import unit_square
from amsolve.search.construct import space_filling_tour

WINDOW = 50
"""Cities each window-decoding step shows the model."""

STRETCH = 100
"""Cities of each stretch a revision re-decodes (the shipped models' largest training size)."""

REVISION_ROUNDS = 6
"""Rounds of revision after window decoding."""


@torch.inference_mode()
def next_city_log_probs(model: AttentionModel, views: np.ndarray) -> torch.Tensor:
    """log p(j | city 0) (b, m) for small instances (b, m, 2): each view normalised into the unit
    square and decoded from its first city (first = last = city 0, which is masked)."""
    device = next(model.parameters()).device
    batch, m, _ = views.shape
    cache = model.precompute(torch.from_numpy(unit_square(views)).float().to(device))
    first = torch.zeros(batch, 1, dtype=torch.long, device=device)  # (b, 1): city 0 of each view
    query = cache.query_graph + gather_rows(cache.query_first, first) + gather_rows(cache.query_last, first)
    mask = torch.zeros(batch, 1, m, device=device)
    mask[..., 0] = -math.inf
    return model.decoder.log_probs(cache, query, mask)[:, 0]  # (b, m)


@torch.inference_mode()
def window_tour(
    model: AttentionModel, coords: np.ndarray, window: int = WINDOW, deadline: float = math.inf
) -> np.ndarray:
    """Window decoding (module docstring) of coords (n, 2); returns a tour (n,) starting at city 0.

    Past `deadline` (a `time.perf_counter()` value) the unvisited cities follow, without the model,
    in the order of a space-filling curve through them, from the one nearest the current city.
    """
    n = len(coords)
    unvisited = np.arange(1, n)
    tour = [0]
    current = 0
    while len(unvisited):
        size = min(window - 1, len(unvisited))
        gaps = coords[unvisited] - coords[current]
        squared = (gaps * gaps).sum(axis=1)
        if time.perf_counter() >= deadline:
            rest = unvisited[space_filling_tour(coords[unvisited])]
            tour.extend(np.roll(rest, -int(np.flatnonzero(rest == unvisited[squared.argmin()])[0])).tolist())
            break
        nearest = np.argpartition(squared, size - 1)[:size] if size < len(unvisited) else np.arange(size)
        if size == 1:
            choice = nearest[0]
        else:
            view = coords[np.concatenate([[current], unvisited[nearest]])]  # (size + 1, 2)
            choice = nearest[int(next_city_log_probs(model, view[None])[0].argmax()) - 1]
        current = int(unvisited[choice])
        tour.append(current)
        unvisited = np.delete(unvisited, choice)
    return np.array(tour, dtype=np.int64)


@torch.inference_mode()
def decode_paths(model: AttentionModel, points: np.ndarray) -> np.ndarray:
    """Paths through each of the stretches (b, m, 2) from their first to their last city, by greedy
    decoding in the 8 symmetries; returns the best order of each (b, m), first 0 and last m − 1."""
    batch, m, _ = points.shape
    device = next(model.parameters()).device
    coords = all_symmetries(torch.from_numpy(unit_square(points)).float().to(device))  # (8b, m, 2)
    cache = model.precompute(coords)
    rows = coords.shape[0]
    mask = torch.zeros(rows, 1, m, device=device)
    mask[..., 0] = -math.inf
    ends = mask.clone()
    ends[..., m - 1] = -math.inf  # the last city only at the end
    first = torch.zeros(rows, 1, dtype=torch.long, device=device)
    fixed = cache.query_graph + gather_rows(cache.query_first, first)
    last = first
    steps = [first]
    for _ in range(m - 2):
        query = fixed + gather_rows(cache.query_last, last)
        last = model.decoder.log_probs(cache, query, mask + ends).argmax(dim=-1)  # (8b, 1)
        mask = mask.scatter(-1, last.unsqueeze(-1), -math.inf)
        steps.append(last)
    steps.append(torch.full_like(first, m - 1))
    orders = torch.cat(steps, dim=-1)  # (8b, m)
    walked = coords.gather(1, orders.unsqueeze(-1).expand(-1, -1, 2))
    lengths = (walked[:, 1:] - walked[:, :-1]).norm(dim=-1).sum(dim=-1).view(SYMMETRIES, batch)
    best = lengths.argmin(dim=0)  # (b,)
    return orders.view(SYMMETRIES, batch, m)[best, torch.arange(batch)].cpu().numpy()


def path_lengths(coords: np.ndarray, paths: np.ndarray) -> np.ndarray:
    """Euclidean lengths of open paths (b, m) of cities."""
    walked = coords[paths]
    return np.linalg.norm(walked[:, 1:] - walked[:, :-1], axis=-1).sum(axis=-1)


def revise(
    model: AttentionModel,
    coords: np.ndarray,
    tour: np.ndarray,
    rounds: int = REVISION_ROUNDS,
    deadline: float = math.inf,
) -> np.ndarray:
    """Revision rounds (module docstring) of a tour of coords (n, 2), as many as `rounds` and as
    begin before `deadline` (a `time.perf_counter()` value); returns the revised tour."""
    n = len(tour)
    stretch = min(STRETCH, n)
    if stretch < 4:
        return tour
    tour = tour.copy()
    for round_index in range(rounds):
        if time.perf_counter() >= deadline:
            break
        offset = (round_index % 2) * (stretch // 2)
        rolled = np.roll(tour, -offset)
        whole = (n // stretch) * stretch
        stretches = rolled[:whole].reshape(-1, stretch)  # (b, stretch)
        orders = decode_paths(model, coords[stretches])
        revised = np.take_along_axis(stretches, orders, axis=1)
        better = path_lengths(coords, revised) < path_lengths(coords, stretches) - 1e-12
        stretches[better] = revised[better]
        rolled[:whole] = stretches.reshape(-1)
        tour = np.roll(rolled, offset)
    return tour


def local_tour(
    model: AttentionModel, coords: np.ndarray, rounds: int = REVISION_ROUNDS, deadline: float = math.inf
) -> np.ndarray:
    """The network alone on coords (n, 2) in the unit square: window decoding, then revision, both
    cut short at `deadline` (a `time.perf_counter()` value; window decoding then finishes along a
    space-filling curve). Revision gets the time left after window decoding."""
    return revise(model, coords, window_tour(model, coords, deadline=deadline), rounds, deadline)

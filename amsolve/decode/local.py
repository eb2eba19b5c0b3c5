"""The network alone on instances of any size: it only ever decodes small pieces.

A model trained on 100 cities collapses on 1,000 and more when it sees them all at once (the AM's
greedy tours are 30–35 % long there). Here it only sees small pieces, each normalised into the
unit square, and every order of cities comes from its decoding; no classical move is made.

1. **Coarse to fine** builds a first tour. The cities are put in farthest-first order
   (`spread_order`), so that every level covers the instance evenly; the first `TOP_CITIES` or
   fewer (`level_sizes`) are the coarsest level, toured by the model (greedy from every start,
   in the 8 symmetries). Each finer level holds `LEVEL_RATIO` times as many
   cities: each new city joins the cell of its nearest city of the level before (its Voronoi
   cell), and the model decodes each cell as a path from the city before the cell's city in the
   tour to the one after it (`amsolve.decode.paths`), through the cell's city and the cell's new
   cities; the paths' insides, in tour order, are the finer tour. Each level but the last is then
   revised once (below), so coarse mistakes are mended while they are cheap.
2. **Revision** (GLOP's, Ye et al. 2024) cuts the tour into stretches of `STRETCHES` cities, at a
   random offset, and the model decodes each as a path with both ends kept; the decoded path
   replaces the stretch when it is shorter. Rounds go through the stretch sizes,
   `ROUNDS_PER_STRETCH` rounds each, for `cycles` cycles or until the deadline.

Choices measured on instances of our own (1,000 uniform cities, and clustered and drill-like ones
of 2,000–12,000): the shipped 100-city model decodes every piece (the 20- and 50-city ones,
deeper, fit fewer rounds in the same time and did no better); the 8 symmetries per piece beat
more rounds with fewer symmetries; paths are decoded with the end as the tour's first city
(`amsolve.decode.paths`): decoding them as tours from their start, with the end kept for last,
left revision's tours twice as far above the reference tours. Farthest-first levels against
random ones (`benchmarks/local_alone.py`, seed 0): 9.13 against 10.15 % on the six large TSPLIB
instances, 6.13 against 5.80 % at 1,000 uniform cities; over five seeds on d2103, whose result
depends most on chance, 8.59 against 11.27 %, but on u2152 over three 8.78 against 8.06 %. A
Hilbert-curve sample (the cities along the curve at bit-reversed positions) measured 9.39 and
6.07 %, d2103 8.85 and u2152 9.49 % over the same seeds.
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch
from numba import njit

from amsolve.decode.augment import SYMMETRIES, all_symmetries
from amsolve.decode.cells import nearest_anchor
from amsolve.decode.paths import decode_paths, path_lengths
from amsolve.decode.rollout import euclidean_tour_lengths, greedy_selector, rollout
from amsolve.model.network import AttentionModel
from amsolve.problem.instance import unit_square

TOP_CITIES = 100
"""Most cities of the coarsest level (the shipped models' largest training size)."""

LEVEL_RATIO = 8
"""Each level of coarse-to-fine decoding has this many times the cities of the one before."""

STRETCHES = (100, 50, 20)
"""Cities per stretch in a revision cycle, in order."""

ROUNDS_PER_STRETCH = 4
"""Revision rounds per stretch size in a cycle, each at a random offset."""

CYCLES = 5
"""Revision cycles after coarse-to-fine decoding when there is no deadline. Paths are decoded from
both ends (`amsolve.decode.paths`), which doubles a cycle's time; 5 such cycles take what 10 took
from one end."""

PATHS_PER_BATCH = 128
"""Paths decoded together (each in 16 versions, `amsolve.decode.paths`); the deadline is looked at
between batches."""


def local_tour(
    model: AttentionModel,
    coords: np.ndarray,
    cycles: int = CYCLES,
    deadline: float = math.inf,
    seed: int = 0,
) -> np.ndarray:
    """The network alone on coords (n, 2) in the unit square (module docstring): coarse-to-fine
    decoding, then `cycles` revision cycles, both cut short at `deadline` (a `time.perf_counter()`
    value; cells left then keep their cities in the order of their projection on the cell's way
    through, without the model). `seed` draws the levels and the revision offsets."""
    rng = np.random.default_rng(seed)
    tour = coarse_to_fine_tour(model, coords, rng, deadline)
    return revise(model, coords, tour, cycles, rng, deadline)


def level_sizes(n: int) -> list[int]:
    """Cities of each coarse-to-fine level, coarsest first, the last n: each `LEVEL_RATIO` times
    the one before, the first at most `TOP_CITIES` (n itself when n is no more)."""
    sizes = [n]
    while sizes[-1] > TOP_CITIES:
        sizes.append(math.ceil(sizes[-1] / LEVEL_RATIO))
    return sizes[::-1]


@torch.inference_mode()
def closed_tour(model: AttentionModel, coords: np.ndarray) -> np.ndarray:
    """The model's shortest tour (m,) of a small instance (m, 2): greedy from every start city in
    each of the 8 symmetries."""
    m = len(coords)
    if m <= 3:
        return np.arange(m)
    device = next(model.parameters()).device
    points = torch.from_numpy(unit_square(coords)).float().to(device)[None]  # (1, m, 2)
    versions = all_symmetries(points)  # (8, m, 2)
    starts = torch.arange(m, device=device).expand(SYMMETRIES, m)  # (8, m)
    tours = rollout(model.decoder, model.precompute(versions), m, greedy_selector, first=starts).tours  # (8, m, m)
    lengths = euclidean_tour_lengths(versions, tours)  # (8, m)
    return tours.view(-1, m)[int(lengths.argmin())].cpu().numpy()


def coarse_to_fine_tour(
    model: AttentionModel, coords: np.ndarray, rng: np.random.Generator, deadline: float = math.inf
) -> np.ndarray:
    """Coarse-to-fine decoding (module docstring) of coords (n, 2); returns a tour (n,)."""
    n = len(coords)
    order = spread_order(coords, rng)
    sizes = level_sizes(n)
    top = order[: sizes[0]]
    tour = top[closed_tour(model, coords[top])]
    for size in sizes[1:]:
        tour = refine(model, coords, tour, order[len(tour) : size], deadline)
        if size < n:
            revised = revise(model, coords[tour], np.arange(len(tour)), 1, rng, deadline)
            tour = tour[revised]
    return tour


def spread_order(coords: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Every city (n,) of coords (n, 2), the cities of every level but the last (`level_sizes`)
    first, in farthest-first order from a random city (each is the one farthest from all before
    it, so every prefix covers the instance evenly, clusters and outliers alike), then the rest
    in random order."""
    n = len(coords)
    sizes = level_sizes(n)
    spread = _farthest_first(
        np.ascontiguousarray(coords, dtype=np.float64), sizes[-2] if len(sizes) > 1 else n, int(rng.integers(n))
    )
    rest = np.ones(n, dtype=bool)
    rest[spread] = False
    return np.concatenate([spread, rng.permutation(np.flatnonzero(rest))])


@njit(cache=True)
def _farthest_first(points: np.ndarray, count: int, first: int) -> np.ndarray:
    """The first `count` cities (count,) of a farthest-first traversal of points (n, 2) from `first`."""
    n = points.shape[0]
    chosen = np.empty(count, dtype=np.int64)
    nearest = np.full(n, np.inf)  # squared distance of each city to the nearest chosen one; -1 once chosen
    city = first
    for i in range(count):
        chosen[i] = city
        nearest[city] = -1.0
        x, y = points[city, 0], points[city, 1]
        farthest, farthest_distance = -1, -1.0
        for j in range(n):
            d = (points[j, 0] - x) ** 2 + (points[j, 1] - y) ** 2
            if d < nearest[j]:
                nearest[j] = d
            if nearest[j] > farthest_distance:
                farthest, farthest_distance = j, nearest[j]
        city = farthest
    return chosen


def refine(
    model: AttentionModel, coords: np.ndarray, tour: np.ndarray, new: np.ndarray, deadline: float = math.inf
) -> np.ndarray:
    """The tour (k,) with the cities `new` added: each joins the cell of its nearest tour city,
    and each cell is decoded as a path from the tour city before its own to the one after.
    Past `deadline`, the cells not yet decoded are ordered along their way without the model."""
    k = len(tour)
    owner = nearest_anchor(coords[new], coords[tour])  # (len(new),): positions in the tour
    by_owner = new[np.argsort(owner, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=k))])  # (k + 1,)
    ways = [
        np.concatenate([[tour[i - 1], tour[i]], by_owner[bounds[i] : bounds[i + 1]], [tour[(i + 1) % k]]])
        for i in range(k)
    ]  # each: before, own city, new cities, after
    insides: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * k
    by_size: dict[int, list[int]] = {}
    for i, way in enumerate(ways):
        by_size.setdefault(len(way), []).append(i)
    for cells in by_size.values():
        for begin in range(0, len(cells), PATHS_PER_BATCH):
            chunk = cells[begin : begin + PATHS_PER_BATCH]
            stacked = np.stack([ways[i] for i in chunk])  # (b, m)
            if time.perf_counter() < deadline:
                orders = decode_paths(model, coords[stacked])
            else:
                orders = projection_orders(coords[stacked])
            for i, row, path in zip(chunk, stacked, orders, strict=True):
                insides[i] = row[path[1:-1]]
    return np.concatenate(insides)


def projection_orders(points: np.ndarray) -> np.ndarray:
    """Paths (b, m) through point sets (b, m, 2) from city 0 to city m − 1 without the model: the
    cities between in the order of their projection on the line from the first to the last."""
    direction = points[:, -1:] - points[:, :1]  # (b, 1, 2)
    along = ((points[:, 1:-1] - points[:, :1]) * direction).sum(axis=-1)  # (b, m − 2)
    inner = 1 + np.argsort(along, axis=1)
    batch, m = points.shape[:2]
    return np.concatenate([np.zeros((batch, 1), dtype=np.int64), inner, np.full((batch, 1), m - 1)], axis=1)


def revise(
    model: AttentionModel,
    coords: np.ndarray,
    tour: np.ndarray,
    cycles: int,
    rng: np.random.Generator,
    deadline: float = math.inf,
) -> np.ndarray:
    """`cycles` revision cycles (module docstring) of a tour (n,) of coords (n, 2), stopped at
    `deadline` (a `time.perf_counter()` value); returns the revised tour."""
    n = len(tour)
    if n < 4:
        return tour
    tour = tour.copy()
    for _ in range(cycles):
        for stretch in STRETCHES:
            size = min(stretch, n)
            for _ in range(ROUNDS_PER_STRETCH):
                if time.perf_counter() >= deadline:
                    return tour
                tour = revision_round(model, coords, tour, size, int(rng.integers(size)), deadline)
    return tour


def revision_round(
    model: AttentionModel,
    coords: np.ndarray,
    tour: np.ndarray,
    size: int,
    offset: int,
    deadline: float = math.inf,
) -> np.ndarray:
    """One revision round: the stretches of `size` cities from position `offset` on (the last
    n mod size cities stay) are each replaced by the model's path between their ends when that
    is shorter. Batches of stretches not begun by `deadline` stay as they are."""
    n = len(tour)
    rolled = np.roll(tour, -offset)
    whole = (n // size) * size
    stretches = rolled[:whole].reshape(-1, size)  # (s, size), a view into rolled
    for begin in range(0, len(stretches), PATHS_PER_BATCH):
        if time.perf_counter() >= deadline:
            break
        batch = stretches[begin : begin + PATHS_PER_BATCH]
        revised = np.take_along_axis(batch, decode_paths(model, coords[batch]), axis=1)
        shorter = path_lengths(coords, revised) < path_lengths(coords, batch) - 1e-12
        batch[shorter] = revised[shorter]
    return np.roll(rolled, offset)

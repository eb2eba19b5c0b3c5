"""The network's candidate lists: which of a city's nearby cities the model would visit next.

The model sees the instance through local views: a centre city and its W − 1 nearest, normalised
into the unit square, as one small instance. Decoding a view from its city i (first = last = i,
i visited) gives p(j | i), the probability that the model's tour goes from i to j, for every j of
the view, and one decoder call gives that first step from all W cities of the view at once. The
centres are taken so that every city is among the nearest `OWNED_SHARE` of some view's cities to
its centre (about n / 21 views of 100); a city lies in several views, and its score for j is the
mean of log p(j | i) over the views that hold both. Each city's row is itself and its
`ROW_CITIES` − 1 nearest (fewer when the views are smaller).

An edge is scored by both ends, log p(j | i) + log p(i | j) (the second taken as the least
likely city of j's row when i is not in it), minus log(d(i, j) / d̄), d̄ the mean distance to the
row's cities: the model's ranking blended with distance, which covered the reference tours' edges
better than either alone in DESIGN §8's probe. Each city's k best become its candidates.

The encoder costs O(W²) per view; nothing of size n × n is built. W is the size the model was
trained on (`view_size`); an instance of at most W cities is one view. Each city is owned by one
view that holds its near neighbours. A city's row counts only when its owning view was decoded;
a pair of it that no decoded view holds counts as the least likely of the row. Under a deadline
the rows whose owning view was not decoded by then count every city as equally likely, so that
distance alone ranks their edges: scores from the other views, which hold only part of such a
row, made the lists worse than distance alone (`docs/DESIGN.md`, "The network inside the search").
"""

from __future__ import annotations

import math
import time
import weakref

import numpy as np
import torch
from numba import njit

from amsolve.model.network import AttentionModel
from amsolve.problem.instance import unit_square
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.distances import DistanceView, dist

VIEW_CITIES = 100
"""Cities in a local view when the model does not record the size it was trained on."""

OWNED_SHARE = 0.4
"""Each city is among the nearest `OWNED_SHARE` of some view's cities to its centre (itself
included). Measured on 1,000 uniform cities with views of 100: 0.4 covered the reference tours'
edges a little better than 0.6 or 0.8, in 1.4 and 1.8 times their time."""

ROW_CITIES = 50
"""A city and the nearest cities whose edges it scores."""

VIEWS_PER_BATCH = 64
"""Local views encoded together."""

_view_seconds: weakref.WeakKeyDictionary[AttentionModel, dict[int, float]] = weakref.WeakKeyDictionary()
"""Seconds a view takes to decode, by model and view size, as measured by `view_seconds`."""


def view_size(model: AttentionModel) -> int:
    """Cities in each of the model's local views: the centre and its nearest, as many as it was trained on."""
    return model.config.trained_nodes or VIEW_CITIES


def view_centres(view: DistanceView, nearest: np.ndarray, owned: int) -> tuple[np.ndarray, np.ndarray]:
    """The views' centres (v,) and each city's owning view (n,): cities in their order, each one
    not yet within the `owned` nearest of a centre (itself included) becoming one, and owning
    those of its `owned` nearest that no earlier centre owns. `nearest` (n, ≥ owned − 1)."""
    owner = np.full(view.n, -1, dtype=np.int64)
    centres: list[int] = []
    for city in range(view.n):
        if owner[city] < 0:
            inner = np.concatenate([[city], nearest[city, : owned - 1]])  # (owned,)
            owner[inner[owner[inner] < 0]] = len(centres)
            centres.append(city)
    return np.asarray(centres, dtype=np.int64), owner


@torch.inference_mode()
def first_step_log_probs(model: AttentionModel, coords: np.ndarray) -> torch.Tensor:
    """log p(j | i) (b, m, m) for small instances (b, m, 2): each normalised into the unit square
    and decoded from each of its cities in turn (first = last = i, i masked; the diagonal is −inf)."""
    device = next(model.parameters()).device
    batch, m, _ = coords.shape
    cache = model.precompute(torch.from_numpy(unit_square(coords)).float().to(device))
    query = cache.query_graph + cache.query_first + cache.query_last  # (b, m, d): a rollout from each city
    mask = torch.zeros(batch, m, m, device=device)
    mask.diagonal(dim1=1, dim2=2).fill_(-math.inf)  # (b, m, m)
    return model.decoder.log_probs(cache, query, mask)


def view_seconds(model: AttentionModel, size: int) -> float:
    """Seconds one view of `size` cities takes to decode on this machine: measured on random
    cities the first time a model and size are asked for (the second of two timings, the first
    paying one-time costs), then remembered. The solver asks in its warm-up, so that no
    instance's clock pays for it."""
    known = _view_seconds.setdefault(model, {})
    if size not in known:
        coords = np.random.default_rng(0).uniform(size=(1, size, 2))
        for _ in range(2):
            started = time.perf_counter()
            first_step_log_probs(model, coords)
            known[size] = time.perf_counter() - started
    return known[size]


@njit(cache=True)
def _accumulate(
    members: np.ndarray, steps: np.ndarray, rows: np.ndarray, total: np.ndarray, count: np.ndarray, column: np.ndarray
) -> None:
    """Adds each view's log p(j | i) (b, W, W) over its `members` (b, W) into `total` (n, R) at j's
    column of i's row `rows` (n, R), counting in `count`. `column` (n,) is scratch, all −1."""
    batch, size = members.shape
    width = rows.shape[1]
    for v in range(batch):
        for a in range(size):
            i = members[v, a]
            for c in range(1, width):
                column[rows[i, c]] = c
            for b in range(size):
                c = column[members[v, b]]
                if c > 0:
                    total[i, c] += steps[v, a, b]
                    count[i, c] += 1
            for c in range(1, width):
                column[rows[i, c]] = -1


@njit(cache=True)
def _best_partners(points: np.ndarray, code: int, rows: np.ndarray, log_probs: np.ndarray, k: int) -> np.ndarray:
    """Each city's k best partners (n, k), -1 padded: the cities j of its row `rows` (n, R) by
    log d(i, j) − log p(j | i) − log p(i | j), lowest first, ties to the nearer. log p(i | j)
    comes from j's row where i is in it, else it is the least likely city of j's row. The row's
    mean distance d̄ of the blend (module docstring) is a constant of the row and leaves its order
    as it is. One row at a time: nothing of size n × R beyond the inputs."""
    n, width = rows.shape
    floor = np.empty(n)  # (n,): the least likely city of each row
    for i in range(n):
        floor[i] = np.inf
        for c in range(1, width):
            floor[i] = min(floor[i], log_probs[i, c])
    best = np.full((n, k), -1, dtype=np.int64)
    cost = np.empty(width - 1)  # (R − 1,): one row's scores, negated
    for i in range(n):
        for m in range(1, width):
            j = rows[i, m]
            back = floor[j]
            for c in range(1, width):
                if rows[j, c] == i:
                    back = log_probs[j, c]
                    break
            cost[m - 1] = math.log(max(dist(points, code, i, j), 1e-12)) - back - log_probs[i, m]
        order = np.argsort(cost, kind="mergesort")  # stable: ties keep the nearer first
        for m in range(min(k, width - 1)):
            best[i, m] = rows[i, order[m] + 1]
    return best


def _rows_and_views(view: DistanceView, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each city's row (n, R) (itself, then its nearest), the views (v, W) of `size` cities (each
    centre, then its nearest) and each city's owning view (n,) (module docstring)."""
    nearest = nearest_neighbours(view, size - 1)  # (n, W − 1)
    rows = np.empty((view.n, min(ROW_CITIES, size)), dtype=np.int32)  # (n, R)
    rows[:, 0] = np.arange(view.n)
    rows[:, 1:] = nearest[:, : rows.shape[1] - 1]
    if size == view.n:
        centres, owner = np.zeros(1, dtype=np.int64), np.zeros(view.n, dtype=np.int64)
    else:
        centres, owner = view_centres(view, nearest, max(1, round(OWNED_SHARE * size)))
    views = np.concatenate([centres[:, None], nearest[centres]], axis=1)  # (v, W)
    return rows, views, owner


def view_scores(
    model: AttentionModel, coords: np.ndarray, view: DistanceView, deadline: float = math.inf
) -> tuple[np.ndarray, np.ndarray]:
    """Each city's row (n, R) (the city first, then its nearest) and the mean log p(j | i) over it
    (n, R) (module docstring).

    `coords` (n, 2) are what the model reads (planar coordinates); `view` gives the neighbours.
    Under a `deadline` (a `time.perf_counter()` value) each batch is sized to the time left, at
    the pace `view_seconds` measured and then at the pace of the batches so far; none starts that
    would not end in time.
    """
    rows, views, owner = _rows_and_views(view, min(view_size(model), len(coords)))
    size = views.shape[1]
    total = np.zeros(rows.shape)  # (n, R)
    count = np.zeros(rows.shape, dtype=np.int32)  # (n, R)
    column = np.full(len(coords), -1, dtype=np.int64)
    model.eval()
    bounded = deadline < math.inf
    pace = view_seconds(model, size) if bounded else 0.0  # seconds a view
    begin, started = 0, time.perf_counter()
    while begin < len(views):
        batch = VIEWS_PER_BATCH if not bounded else min(VIEWS_PER_BATCH, int((deadline - time.perf_counter()) / pace))
        if batch < 1:
            break
        chunk = views[begin : begin + batch]  # (b, W)
        steps = first_step_log_probs(model, coords[chunk]).cpu().numpy().astype(np.float64)  # (b, W, W)
        _accumulate(chunk, steps, rows, total, count, column)
        begin += len(chunk)
        pace = (time.perf_counter() - started) / begin
    unseen = count == 0  # (n, R); the first column (the city itself) is never seen
    log_probs = np.divide(total, np.maximum(count, 1), out=total)  # (n, R): the means, in place of the sums
    log_probs[unseen] = np.inf
    floor = log_probs[:, 1:].min(axis=1)  # (n,): the least likely seen city of each row
    np.copyto(log_probs, floor[:, None], where=unseen)
    undecoded = owner >= begin  # (n,): rows whose owning view was not decoded (views go in order)
    log_probs[undecoded] = -math.log(max(size - 1, 1))
    return rows, log_probs


def model_candidates(
    model: AttentionModel, coords: np.ndarray, view: DistanceView, k: int, deadline: float = math.inf
) -> np.ndarray:
    """Each city's k best partners by the blended score (module docstring); (n, k) int64, -1 padded.
    The model decodes views until `deadline` (a `time.perf_counter()` value)."""
    rows, log_probs = view_scores(model, coords, view, deadline=deadline)
    return _best_partners(view.points, view.code, rows, log_probs, k)

"""The network's candidate lists: which of a city's nearby cities the model would visit next.

For each city i the model sees a local view: i and its W − 1 nearest cities, normalised into the
unit square, as one small instance. Decoding that instance from i (first = last = i, i visited)
gives p(j | i), the probability that the model's tour goes from i to j, for every j of the view.
An edge is scored by both ends, log p(j | i) + log p(i | j) (the second taken as the smallest
probability of j's view when i is not in it), minus log(d(i, j) / d̄), d̄ the mean distance to
the view's cities: the model's ranking blended with distance, which covered the reference tours'
edges better than either alone in DESIGN §8's probe. Each city's k best become its candidates.

The views are decoded in batches, so the cost is O(n · W²) for the encoder and O(n · W) memory
per batch; nothing of size n × n is built. The model's sizes are those it was trained on
(W = `VIEW_CITIES`). With a deadline, the views not decoded by then count every city of the
view as equally likely, so distance alone (and the partners' views) ranks their edges.
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch

from amsolve.decode.local import next_city_log_probs
from amsolve.model.network import AttentionModel
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.distances import DistanceView, dist_rows

VIEW_CITIES = 50
"""Cities in each local view (the city and its 49 nearest)."""

VIEWS_PER_BATCH = 512
"""Local views encoded together."""


@torch.inference_mode()
def view_scores(
    model: AttentionModel, coords: np.ndarray, view: DistanceView, size: int = VIEW_CITIES, deadline: float = math.inf
) -> tuple[np.ndarray, np.ndarray]:
    """Each city's local view (n, W) (the city itself first) and log p(j | i) over it (n, W).

    `coords` (n, 2) are what the model reads (planar coordinates); `view` gives the neighbours.
    Under a `deadline` (a `time.perf_counter()` value) a first view measures the pace, each later
    batch is sized to the time left, and the views left undecoded keep log p uniform.
    """
    n = len(coords)
    size = min(size, n)
    views = np.concatenate([np.arange(n)[:, None], nearest_neighbours(view, size - 1)], axis=1)  # (n, W)
    log_probs = np.full((n, size), -math.log(max(size - 1, 1)), dtype=np.float32)
    model.eval()
    bounded = deadline < math.inf
    batch = 1 if bounded else VIEWS_PER_BATCH
    begin, started = 0, time.perf_counter()
    while begin < n and batch >= 1 and time.perf_counter() < deadline:
        rows = views[begin : begin + batch]  # (b, W)
        log_probs[begin : begin + len(rows)] = next_city_log_probs(model, coords[rows]).cpu().numpy()
        begin += len(rows)
        if bounded:
            now = time.perf_counter()
            batch = min(VIEWS_PER_BATCH, int((deadline - now) * begin / max(now - started, 1e-9)))
    return views, log_probs


def model_candidates(
    model: AttentionModel, coords: np.ndarray, view: DistanceView, k: int, deadline: float = math.inf
) -> np.ndarray:
    """Each city's k best partners by the blended score (module docstring); (n, k) int64, -1 padded.
    The model decodes views until `deadline` (a `time.perf_counter()` value)."""
    views, log_probs = view_scores(model, coords, view, deadline=deadline)
    n, size = views.shape
    floor = log_probs[:, 1:].min(axis=1)  # (n,): the least likely city of each view
    back = np.empty_like(log_probs)  # log p(i | j) for j = views[i, m]
    for m in range(1, size):
        partners = views[:, m]  # (n,)
        found = views[partners] == np.arange(n)[:, None]  # (n, W): where i sits in its partner's view
        back[:, m] = np.where(found.any(axis=1), log_probs[partners, found.argmax(axis=1)], floor[partners])
    lengths = dist_rows(view.points, view.code, views)  # (n, W)
    mean = lengths[:, 1:].mean(axis=1, keepdims=True)
    score = log_probs[:, 1:] + back[:, 1:] - np.log(np.maximum(lengths[:, 1:], 1e-12) / np.maximum(mean, 1e-12))
    best = np.argsort(-score, axis=1, kind="stable")[:, : min(k, size - 1)]  # (n, k)
    candidates = np.take_along_axis(views[:, 1:], best, axis=1).astype(np.int64)
    if candidates.shape[1] < k:
        candidates = np.concatenate([candidates, np.full((n, k - candidates.shape[1]), -1, dtype=np.int64)], axis=1)
    return candidates

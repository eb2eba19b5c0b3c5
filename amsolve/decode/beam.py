"""Beam search over the sum of log-probabilities, with visited-node masking."""

from __future__ import annotations

import math
import time

import torch

from amsolve.decode.rollout import gather_rows
from amsolve.model.decoder import Decoder, DecoderCache


def beam_search(
    decoder: Decoder, cache: DecoderCache, width: int, deadline: float | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The `width` most probable partial tours kept at every step; returns the finished beams.

    Returns tours (batch, width, n) and their log-likelihoods (batch, width). Beams that could
    not be filled (fewer than `width` distinct tours exist) have log-likelihood −inf. Past
    `deadline` (a `time.perf_counter()` value) the search stops and returns the beams as they are,
    paths (batch, k, m) with 1 ≤ m < n, most probable first, for the caller to finish.
    """
    batch, n = cache.batch, cache.n
    device = cache.query_last.device
    mask = torch.zeros(batch, 1, n, device=device)  # (b, beams, n): −inf once visited
    scores = torch.zeros(batch, 1, device=device)  # (b, beams)
    query = cache.query_start  # (b, 1, dim)
    tours = torch.empty(batch, 1, 0, dtype=torch.long, device=device)  # (b, beams, t)
    query_fixed = None
    for _ in range(n - 1):
        log_probs = decoder.log_probs(cache, query, mask)  # (b, beams, n)
        beams = log_probs.shape[1]
        candidates = (scores.unsqueeze(-1) + log_probs).view(batch, -1)  # (b, beams * n)
        scores, chosen = candidates.topk(min(width, beams * n), dim=-1)  # (b, k)
        parent, city = chosen.div(n, rounding_mode="floor"), chosen % n  # each (b, k)
        mask = mask.gather(1, parent.unsqueeze(-1).expand(-1, -1, n))
        mask.scatter_(-1, city.unsqueeze(-1), -math.inf)
        tours = torch.cat(
            (tours.gather(1, parent.unsqueeze(-1).expand(-1, -1, tours.shape[-1])), city.unsqueeze(-1)), -1
        )
        if query_fixed is None:
            query_fixed = cache.query_graph + gather_rows(cache.query_first, city)  # (b, k, dim)
        else:
            query_fixed = query_fixed.gather(1, parent.unsqueeze(-1).expand(-1, -1, query_fixed.shape[-1]))
        query = query_fixed + gather_rows(cache.query_last, city)
        if deadline is not None and tours.shape[-1] < n - 1 and time.perf_counter() >= deadline:
            return tours, scores
    last = mask.argmax(dim=-1, keepdim=True)  # (b, k, 1): the city left

    tours = torch.cat((tours, last), dim=-1)
    if tours.shape[1] < width:
        pad = width - tours.shape[1]
        tours = torch.cat((tours, tours[:, :1].expand(-1, pad, -1)), dim=1)
        scores = torch.cat((scores, scores.new_full((batch, pad), -math.inf)), dim=1)
    return tours, scores

"""Autoregressive decoder: per-instance precomputation and one O(n·d) step (docs/DESIGN.md §1).

A step's query comes from the context `[graph, last city, first city]`. Its three parts are
projected once per instance: the graph part per instance, the first/last parts per node, so a
step only gathers two rows and adds them. The glimpse output projection is folded into the logit
keys (`(W_out g) · k_j = g · (W_out^T k_j)`), so a step has no d×d product at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, overload

import torch
import torch.nn.functional as F
from torch import nn

FUSED_ATTENTION_SCORES = 2500
"""The glimpse runs in torch's fused attention kernel when a step scores at least this many
(rollout, city) pairs per instance, and as a plain softmax below. Measured on this CPU: fused is
2× faster for 100 rollouts over 100 cities and 2.7× faster (forward and backward) for teacher
forcing at n = 100, but a plain softmax trains 1.3× faster at n = 20 and decodes greedy (one
rollout) faster; the two are even around 50 × 50."""


@dataclass(frozen=True)
class DecoderCache:
    """Everything a decoding step needs that does not change during decoding."""

    # Contiguous, so that the per-step products never copy them.
    glimpse_keys: torch.Tensor  # (batch, heads, n, head_dim), pre-scaled by 1/sqrt(head_dim)
    glimpse_values: torch.Tensor  # (batch, heads, n, head_dim)
    logit_keys: torch.Tensor  # (batch, dim, n), W_out folded in, pre-scaled by 1/sqrt(dim)
    query_graph: torch.Tensor  # (batch, 1, dim)
    query_first: torch.Tensor  # (batch, n, dim): first-city part of the query, per node
    query_last: torch.Tensor  # (batch, n, dim): last-city part of the query, per node
    query_start: torch.Tensor  # (batch, 1, dim): query of the first step (placeholders)

    @property
    def batch(self) -> int:
        return self.query_last.shape[0]

    @property
    def n(self) -> int:
        return self.query_last.shape[1]

    @staticmethod
    def concatenate(caches: list[DecoderCache]) -> DecoderCache:
        """One cache for the instances of several, in order."""
        return DecoderCache(
            *(torch.cat(tensors) for tensors in zip(*(cache.__dict__.values() for cache in caches), strict=True))
        )


class Decoder(nn.Module):
    """Glimpse attention over unvisited nodes followed by a clipped single-head pointer."""

    def __init__(self, embed_dim: int, n_heads: int, tanh_clip: float) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.tanh_clip = tanh_clip
        self.project_nodes = nn.Linear(embed_dim, 3 * embed_dim, bias=False)
        self.project_graph = nn.Linear(embed_dim, embed_dim, bias=False)
        self.project_step = nn.Linear(2 * embed_dim, embed_dim, bias=False)
        self.project_out = nn.Linear(embed_dim, embed_dim, bias=False)
        self.placeholder = nn.Parameter(torch.empty(2 * embed_dim).uniform_(-1, 1))

    def precompute(self, nodes: torch.Tensor) -> DecoderCache:
        """Projects node embeddings (batch, n, dim) once for all decoding steps."""
        batch, n, dim = nodes.shape
        head_dim = dim // self.n_heads
        keys, values, logit_keys = self.project_nodes(nodes).chunk(3, dim=-1)  # each (batch, n, dim)
        keys = keys.view(batch, n, self.n_heads, head_dim).transpose(1, 2)  # (batch, heads, n, hd)
        values = values.view(batch, n, self.n_heads, head_dim).transpose(1, 2)  # (batch, heads, n, hd)
        logit_keys = logit_keys @ self.project_out.weight  # (batch, n, dim)
        weight_last, weight_first = self.project_step.weight.chunk(2, dim=1)  # each (dim, dim)
        graph = nodes.mean(dim=1, keepdim=True)  # (batch, 1, dim)
        query_graph = self.project_graph(graph)  # (batch, 1, dim)
        return DecoderCache(
            glimpse_keys=(keys * (1.0 / math.sqrt(head_dim))).contiguous(),
            glimpse_values=values.contiguous(),
            logit_keys=(logit_keys.transpose(1, 2) * (1.0 / math.sqrt(dim))).contiguous(),
            query_graph=query_graph,
            query_first=nodes @ weight_first.T,
            query_last=nodes @ weight_last.T,
            query_start=query_graph + self.project_step(self.placeholder).view(1, 1, dim),
        )

    @overload
    def log_probs(self, cache: DecoderCache, query: torch.Tensor, mask: torch.Tensor) -> torch.Tensor: ...

    @overload
    def log_probs(
        self, cache: DecoderCache, query: torch.Tensor, mask: torch.Tensor, with_glimpse: Literal[True]
    ) -> tuple[torch.Tensor, torch.Tensor]: ...

    def log_probs(
        self, cache: DecoderCache, query: torch.Tensor, mask: torch.Tensor, with_glimpse: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities (batch, s, n) of the next city for s rollouts per instance.

        `query` (batch, s, dim) is the projected context; `mask` (batch, s, n) is an additive
        mask, −inf for cities already in the tour (probability zero) and 0 elsewhere. Adding a
        float mask costs a tenth of a boolean `masked_fill` over the heads on this CPU. The
        glimpse uses the fused attention kernel where it pays (see FUSED_ATTENTION_SCORES).
        With `with_glimpse`, also each head's glimpse attention over the cities (batch, heads,
        s, n), the step then computed by the plain softmax (`amsolve explain` shows it).
        """
        batch, rollouts, dim = query.shape
        head_dim = dim // self.n_heads
        heads = query.view(batch, rollouts, self.n_heads, head_dim).transpose(1, 2)  # (b, h, s, hd)
        if rollouts * cache.n >= FUSED_ATTENTION_SCORES and not with_glimpse:
            glimpse = F.scaled_dot_product_attention(
                heads, cache.glimpse_keys, cache.glimpse_values, attn_mask=mask.unsqueeze(1), scale=1.0
            )  # (b, h, s, hd)
        else:
            scores = (heads @ cache.glimpse_keys.transpose(-1, -2)).add_(mask.unsqueeze(1))  # (b, h, s, n)
            attention = scores.softmax(dim=-1)  # (b, h, s, n)
            glimpse = attention @ cache.glimpse_values  # (b, h, s, hd)
        glimpse = glimpse.transpose(1, 2).reshape(batch, rollouts, dim)  # (b, s, dim)
        logits = torch.tanh(glimpse @ cache.logit_keys) * self.tanh_clip  # (b, s, n)
        log_probs = (logits + mask).log_softmax(dim=-1)  # (b, s, n)
        return (log_probs, attention) if with_glimpse else log_probs


def visited_mask(visited: torch.Tensor) -> torch.Tensor:
    """The additive mask of `Decoder.log_probs` from a boolean visited tensor."""
    return torch.zeros(visited.shape, device=visited.device).masked_fill_(visited, -math.inf)

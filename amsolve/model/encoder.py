"""Graph attention encoder: node embeddings from city coordinates (docs/DESIGN.md §1)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    """Multi-head scaled dot-product attention of every node over all nodes (complete graph)."""

    def __init__(self, embed_dim: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.project_qkv = nn.Linear(embed_dim, 3 * embed_dim, bias=False)
        self.project_out = nn.Linear(embed_dim, embed_dim, bias=False)

    def forward(self, nodes: torch.Tensor) -> torch.Tensor:
        """Multi-head self-attention over the nodes (batch, n, dim) of each instance."""
        batch, n, dim = nodes.shape
        head_dim = dim // self.n_heads
        qkv = self.project_qkv(nodes).view(batch, n, 3, self.n_heads, head_dim)
        query, key, value = qkv.permute(2, 0, 3, 1, 4)  # each (batch, heads, n, head_dim)
        heads = F.scaled_dot_product_attention(query, key, value)  # (batch, heads, n, head_dim)
        return self.project_out(heads.transpose(1, 2).reshape(batch, n, dim))  # (batch, n, dim)


class BatchNormNodes(nn.Module):
    """BatchNorm1d over the feature dimension, statistics taken over all nodes of the batch."""

    def __init__(self, embed_dim: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm1d(embed_dim)

    def forward(self, nodes: torch.Tensor) -> torch.Tensor:
        """Batch normalisation over all nodes of all instances: (batch, n, dim) → same shape."""
        return self.norm(nodes.reshape(-1, nodes.shape[-1])).view(nodes.shape)

    @torch.no_grad()
    def pass_through_output_of(self, previous: BatchNormNodes) -> None:
        """Sets this norm to leave unchanged what `previous` outputs, in training and in eval mode.

        Per feature, `previous` outputs values of mean ≈ its bias and standard deviation ≈ |its
        weight|; normalising by these and scaling back by the same gives the input again.
        """
        mean, variance = previous.norm.bias.clone(), previous.norm.weight.square()  # each (dim,)
        self.norm.weight.copy_((variance + self.norm.eps).sqrt())  # undoes the division, eps included
        self.norm.bias.copy_(mean)
        self.norm.running_mean.copy_(mean)
        self.norm.running_var.copy_(variance)


class EncoderLayer(nn.Module):
    """`h = BN(h + MHA(h))`, then `h = BN(h + FF(h))`."""

    def __init__(self, embed_dim: int, n_heads: int, ff_dim: int) -> None:
        super().__init__()
        self.attention = MultiHeadSelfAttention(embed_dim, n_heads)
        self.norm_attention = BatchNormNodes(embed_dim)
        self.feed_forward = nn.Sequential(nn.Linear(embed_dim, ff_dim), nn.ReLU(), nn.Linear(ff_dim, embed_dim))
        self.norm_feed_forward = BatchNormNodes(embed_dim)

    def forward(self, nodes: torch.Tensor) -> torch.Tensor:
        """Attention then feed-forward, each with a skip connection and batch norm: (batch, n, dim)."""
        nodes = self.norm_attention(nodes + self.attention(nodes))
        return self.norm_feed_forward(nodes + self.feed_forward(nodes))

    @torch.no_grad()
    def become_identity_after(self, previous: EncoderLayer) -> None:
        """Makes this layer pass `previous`'s output through unchanged, so a deeper encoder starts
        as the shallower one: zero attention and feed-forward outputs, norms that undo themselves.
        Training then moves the zeroed projections away from zero (zero-initialised residuals).
        """
        self.attention.project_out.weight.zero_()
        self.feed_forward[-1].weight.zero_()
        self.feed_forward[-1].bias.zero_()
        self.norm_attention.pass_through_output_of(previous.norm_feed_forward)
        self.norm_feed_forward.pass_through_output_of(previous.norm_feed_forward)


class Encoder(nn.Module):
    """Linear embedding of the coordinates followed by `n_layers` attention layers."""

    def __init__(self, embed_dim: int, n_layers: int, n_heads: int, ff_dim: int) -> None:
        super().__init__()
        self.embed = nn.Linear(2, embed_dim)
        self.layers = nn.ModuleList(EncoderLayer(embed_dim, n_heads, ff_dim) for _ in range(n_layers))

    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        """Maps coordinates (batch, n, 2) in the unit square to node embeddings (batch, n, dim)."""
        nodes = self.embed(coords)
        for layer in self.layers:
            nodes = layer(nodes)
        return nodes

"""The Attention Model: encoder and decoder under one config."""

from __future__ import annotations

import torch
from torch import nn

from amsolve.model.config import ModelConfig
from amsolve.model.decoder import Decoder, DecoderCache
from amsolve.model.encoder import Encoder


class AttentionModel(nn.Module):
    """Encoder-decoder policy over TSP tours; decoding strategies drive `decoder` step by step."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.encoder = Encoder(config.embed_dim, config.n_layers, config.n_heads, config.ff_dim)
        self.decoder = Decoder(config.embed_dim, config.n_heads, config.tanh_clip)

    def precompute(self, coords: torch.Tensor) -> DecoderCache:
        """Encodes coordinates (batch, n, 2) in the unit square into a decoder cache."""
        return self.decoder.precompute(self.encoder(coords))

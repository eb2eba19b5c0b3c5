"""A small network that predicts the Held–Karp node penalties π from each city's neighbourhood.

The ascent behind α-nearness (`amsolve.search.candidates.alpha`) spends hundreds of minimum
1-trees finding π; NeuroLKH (Xin et al. 2021) predicted them instead. Here each city is described
by its distances to its `NEIGHBOURS` nearest cities and the same for those neighbours (averaged),
all divided by the instance's mean nearest-neighbour distance, so the description does not depend
on the instance's scale or size; a multilayer perceptron maps it to π / that scale. The prediction
starts the ascent, which then needs fewer trees for the same bound.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from amsolve.errors import WeightsError
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.distances import DistanceView, dist_rows

NEIGHBOURS = 10
"""Nearest cities each description reads."""

FEATURES = 2 * NEIGHBOURS
"""Inputs of the network: a city's own distances and its neighbours' mean ones, as logarithms."""


class PenaltyNet(nn.Module):
    """Features (n, FEATURES) → π / scale (n,)."""

    def __init__(self, hidden: int = 64) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1)
        )

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.layers(features).squeeze(-1)  # (n,)


def penalty_features(view: DistanceView) -> tuple[np.ndarray, float]:
    """The description of every city (n, FEATURES) and the instance's scale (mean nearest distance)."""
    neighbours = nearest_neighbours(view, NEIGHBOURS)  # (n, k)
    k = neighbours.shape[1]
    lengths = dist_rows(view.points, view.code, neighbours)  # (n, k)
    scale = float(lengths[:, 0].mean()) or 1.0
    own = lengths / scale
    if k < NEIGHBOURS:  # tiny instances: repeat the farthest
        own = np.concatenate([own, np.repeat(own[:, -1:], NEIGHBOURS - k, axis=1)], axis=1)
        neighbours = np.concatenate([neighbours, np.repeat(neighbours[:, -1:], NEIGHBOURS - k, axis=1)], axis=1)
    around = own[neighbours].mean(axis=1)  # (n, NEIGHBOURS)
    features = np.log(np.concatenate([own, around], axis=1) + 1e-3).astype(np.float32)
    return features, scale


@torch.inference_mode()
def predict_penalties(net: PenaltyNet, view: DistanceView) -> np.ndarray:
    """π (n,) predicted for the instance."""
    features, scale = penalty_features(view)
    return net(torch.from_numpy(features)).double().numpy() * scale


def save_penalty_net(net: PenaltyNet, directory: Path, card: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), directory / "penalties.pt")
    (directory / "penalties.json").write_text(json.dumps(card, indent=2) + "\n")


def load_penalty_net(directory: Path) -> PenaltyNet:
    """The network saved in `directory`; WeightsError naming the file if it cannot be read."""
    path = directory / "penalties.pt"
    net = PenaltyNet()
    try:
        net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    except (OSError, RuntimeError, ValueError, EOFError) as error:
        raise WeightsError(f"{path}: cannot load penalty network ({error})") from None
    return net.eval()

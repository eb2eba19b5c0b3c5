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
import math
from pathlib import Path

import numpy as np
import torch
from numba import njit
from torch import nn

from amsolve.errors import WeightsError
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.distances import DistanceView, dist

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


def penalty_features(view: DistanceView, neighbours: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The description of every city (n, FEATURES) and the instance's scale (mean nearest
    distance); `neighbours`: each city's nearest, when already found (`nearest_neighbours`' `wider`)."""
    return _describe(view.points, view.code, nearest_neighbours(view, NEIGHBOURS, neighbours))


@njit(cache=True)
def _describe(points: np.ndarray, code: int, neighbours: np.ndarray) -> tuple[np.ndarray, float]:
    """`penalty_features` from each city's nearest `neighbours` (n, k), closest first; with fewer
    than `NEIGHBOURS` (tiny instances) the farthest stands in for the missing ones."""
    n, k = neighbours.shape
    own = np.empty((n, NEIGHBOURS))  # distances to the nearest, padded
    for i in range(n):
        for j in range(NEIGHBOURS):
            own[i, j] = dist(points, code, i, neighbours[i, min(j, k - 1)])
    scale = own[:, 0].mean()
    if scale == 0.0:
        scale = 1.0
    features = np.empty((n, FEATURES), dtype=np.float32)
    for i in range(n):
        for j in range(NEIGHBOURS):
            around = 0.0  # the neighbours' own j-th distance, averaged
            for m in range(NEIGHBOURS):
                around += own[neighbours[i, min(m, k - 1)], j]
            features[i, j] = math.log(own[i, j] / scale + 1e-3)
            features[i, NEIGHBOURS + j] = math.log(around / NEIGHBOURS / scale + 1e-3)
    return features, scale


def predict_penalties(net: PenaltyNet, view: DistanceView, neighbours: np.ndarray | None = None) -> np.ndarray:
    """π (n,) predicted for the instance (`neighbours` as in `penalty_features`). The perceptron runs
    in numpy: for one instance of a few hundred cities torch's per-call costs (about 0.35 ms at 100
    cities) are most of the time."""
    features, scale = penalty_features(view, neighbours)
    hidden = features  # (n, FEATURES)
    for layer in net.layers:
        if isinstance(layer, nn.Linear):
            hidden = hidden @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()  # (n, out)
        else:
            hidden = np.maximum(hidden, 0.0)
    return hidden[:, 0].astype(np.float64) * scale


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

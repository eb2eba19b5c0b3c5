"""A small network that predicts the Held–Karp node penalties π from each city's neighbourhood.

The ascent behind α-nearness (`amsolve.search.candidates.alpha`) spends hundreds of minimum
1-trees finding π; NeuroLKH (Xin et al. 2021) predicted them instead. Here each city is described
by its distances to its `NEIGHBOURS` nearest cities and the same for those neighbours (averaged),
all divided by the instance's mean nearest-neighbour distance, so the description does not depend
on the instance's scale or size; a multilayer perceptron maps it to π / that scale. The prediction
starts the ascent, which then needs fewer trees for the same bound.

The perceptron is trained with torch (`penalty_module`, `benchmarks/train_penalties.py`) but runs
and is stored as numpy arrays (`PenaltyNet`, `penalties.npz`): the pipelines without the
attention model then never load torch, whose import takes seconds.
"""

from __future__ import annotations

import json
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from amsolve.errors import WeightsError
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.distances import DistanceView, dist

if TYPE_CHECKING:
    from torch import nn

NEIGHBOURS = 10
"""Nearest cities each description reads."""

FEATURES = 2 * NEIGHBOURS
"""Inputs of the network: a city's own distances and its neighbours' mean ones, as logarithms."""


PENALTIES_FILE = "penalties.npz"
"""The perceptron's layers in a model directory: `weight_i` (out, in) and `bias_i` (out,)."""

HIDDEN = 64
"""Units of each of the two hidden layers."""


@dataclass(frozen=True)
class PenaltyNet:
    """The perceptron as numpy arrays: linear layers with ReLU between them; features (n,
    FEATURES) → π / scale (n,)."""

    weights: tuple[np.ndarray, ...]  # (out, in) each
    biases: tuple[np.ndarray, ...]  # (out,) each

    def __call__(self, features: np.ndarray) -> np.ndarray:
        hidden = features  # (n, FEATURES)
        for index, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True)):
            if index:
                hidden = np.maximum(hidden, 0.0)
            hidden = hidden @ weight.T + bias  # (n, out)
        return hidden[:, 0]  # (n,)

    @classmethod
    def from_module(cls, module: nn.Sequential) -> PenaltyNet:
        """The numpy form of a trained `penalty_module`."""
        from torch import nn

        linear = [layer for layer in module if isinstance(layer, nn.Linear)]
        return cls(
            tuple(layer.weight.detach().cpu().numpy().copy() for layer in linear),
            tuple(layer.bias.detach().cpu().numpy().copy() for layer in linear),
        )


def penalty_module(hidden: int = HIDDEN) -> nn.Sequential:
    """The perceptron as a torch module, to train (`PenaltyNet.from_module` then runs it)."""
    from torch import nn

    return nn.Sequential(
        nn.Linear(FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1)
    )


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
    """π (n,) predicted for the instance (`neighbours` as in `penalty_features`)."""
    features, scale = penalty_features(view, neighbours)
    return net(features).astype(np.float64) * scale


def save_penalty_net(net: PenaltyNet, directory: Path, card: dict) -> None:
    """`net` and its card (how it was trained) into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    arrays = {f"weight_{i}": weight for i, weight in enumerate(net.weights)}
    arrays |= {f"bias_{i}": bias for i, bias in enumerate(net.biases)}
    np.savez(directory / PENALTIES_FILE, **arrays)
    (directory / "penalties.json").write_text(json.dumps(card, indent=2) + "\n")


def load_penalty_net(directory: Path) -> PenaltyNet:
    """The network saved in `directory`; WeightsError naming the file if it cannot be read."""
    path = directory / PENALTIES_FILE
    try:
        with np.load(path, allow_pickle=False) as arrays:
            count = sum(name.startswith("weight_") for name in arrays.files)
            net = PenaltyNet(
                tuple(arrays[f"weight_{i}"] for i in range(count)), tuple(arrays[f"bias_{i}"] for i in range(count))
            )
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise WeightsError(f"{path}: cannot load penalty network ({error})") from None
    inputs = [FEATURES] + [weight.shape[0] for weight in net.weights[:-1]]
    shapes_fit = count > 0 and all(
        weight.ndim == 2 and weight.shape[1] == size and bias.shape == weight.shape[:1]
        for weight, bias, size in zip(net.weights, net.biases, inputs, strict=True)
    )
    if not shapes_fit or net.weights[-1].shape[0] != 1:
        raise WeightsError(f"{path}: not a penalty network of {FEATURES} inputs and one output")
    return net

"""`benchmarks/train_penalties.py`: the labelled instances it trains the penalty network on."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest


@pytest.fixture
def train_penalties(benchmark_script: Callable[[str], ModuleType]) -> ModuleType:
    return benchmark_script("train_penalties")


def test_labels_are_centred_penalties_over_the_scale(train_penalties: ModuleType) -> None:
    points = np.random.default_rng(3).random((60, 2))
    features, labels = train_penalties.label(points, ascent=1.0, patience=20, start=None)
    assert features.shape[0] == labels.shape[0] == 60
    assert labels.dtype == np.float32
    assert abs(float(labels.mean())) < 1e-5
    assert float(np.abs(labels).max()) > 0  # the ascent moved the penalties


def test_workers_label_the_same_instances(train_penalties: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(train_penalties, "SIZES", (30, 50))
    alone = train_penalties.labelled(np.random.default_rng(7), 2, 0.001, 20, None, workers=1)
    shared = train_penalties.labelled(np.random.default_rng(7), 2, 0.001, 20, None, workers=2)
    # two sizes, two kinds, two instances each, in the order they were drawn
    assert [f.shape[0] for f, _ in alone] == [30, 30, 30, 30, 50, 50, 50, 50]
    for (features_alone, _), (features_shared, _) in zip(alone, shared, strict=True):
        np.testing.assert_array_equal(features_alone, features_shared)

"""Shared fixtures: a small untrained model (fast) and paths to optional shared data."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from amsolve.model.config import ModelConfig
from amsolve.model.network import AttentionModel
from amsolve.model.weights import save_model

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(autouse=True, scope="session")
def _few_threads() -> None:
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_model() -> AttentionModel:
    """A randomly initialised small model: decoders must be correct for any weights."""
    torch.manual_seed(0)
    return AttentionModel(ModelConfig(embed_dim=32, n_layers=2, n_heads=4, ff_dim=64, trained_nodes=10)).eval()


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_model: AttentionModel) -> Path:
    """The tiny random model saved as a model directory, so tests never need shipped weights."""
    directory = tmp_path_factory.mktemp("model")
    save_model(tiny_model, directory)
    return directory


@pytest.fixture(scope="session")
def shared() -> Path:
    """`../shared` beside the repository; tests needing it skip on a fresh clone."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED

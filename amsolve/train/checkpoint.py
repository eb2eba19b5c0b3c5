"""Training checkpoints: written atomically, read back without unpickling arbitrary objects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from amsolve.files import atomic_write
from amsolve.model.weights import load_state

CHECKPOINT_FILE = "checkpoint.pt"


def save_checkpoint(directory: Path, state: dict[str, Any]) -> Path:
    """Writes `state` (tensors, numbers, strings and containers of them) to `directory`."""
    path = directory / CHECKPOINT_FILE
    atomic_write(path, lambda file: torch.save(state, file))
    return path


def load_checkpoint(directory: Path) -> dict[str, Any]:
    """The last checkpoint written to `directory` (WeightsError when missing or corrupt)."""
    return load_state(directory / CHECKPOINT_FILE)

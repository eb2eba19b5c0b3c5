"""Saving and loading model directories safely (the shipped ones are found by `registry`).

A model directory holds `model.pt` (a plain state dict, loaded with `weights_only=True`, so no
arbitrary object is ever unpickled) and `config.json` beside it.
"""

from __future__ import annotations

from pathlib import Path

import torch

from amsolve.errors import WeightsError
from amsolve.files import atomic_write
from amsolve.model.config import CONFIG_FILE, WEIGHTS_FILE, ModelConfig
from amsolve.model.network import AttentionModel


def save_model(model: AttentionModel, directory: Path) -> None:
    """Writes the weights and config of `model` into `directory` (each file atomically)."""
    state = {name: tensor.detach().cpu() for name, tensor in model.state_dict().items()}
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write(directory / WEIGHTS_FILE, lambda file: torch.save(state, file))
    text = model.config.to_json().encode()
    atomic_write(directory / CONFIG_FILE, lambda file: file.write(text))


def load_state(path: Path) -> dict:
    """Loads a torch file holding only tensors and plain containers; a clear error otherwise."""
    if not path.is_file():
        raise WeightsError(f"{path}: no such weights file")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for truncated or foreign files
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise WeightsError(f"{path}: not a readable weights file ({reason[:120]})") from None


def load_model_dir(directory: Path, device: torch.device | str = "cpu") -> AttentionModel:
    """The model stored in `directory`, in eval mode on `device`."""
    if not directory.is_dir():
        raise WeightsError(f"{directory}: no such model directory")
    config = ModelConfig.load(directory / CONFIG_FILE)
    model = AttentionModel(config)
    state = load_state(directory / WEIGHTS_FILE)
    if not isinstance(state, dict):
        raise WeightsError(f"{directory / WEIGHTS_FILE}: expected a state dict")
    try:
        model.load_state_dict(state)
    except RuntimeError as error:
        first = str(error).splitlines()[0]
        raise WeightsError(f"{directory / WEIGHTS_FILE}: does not match {CONFIG_FILE} ({first})") from None
    return model.to(device).eval()

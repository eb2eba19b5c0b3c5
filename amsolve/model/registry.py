"""The shipped models, and how `--model NAME|PATH` finds weights.

Shipped models live in the repository's `models/` folder; a wheel carries them as
`amsolve/_models`. Each is a directory named after what it was trained on (`tsp20`, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from amsolve.errors import WeightsError
from amsolve.model.config import CONFIG_FILE, WEIGHTS_FILE, ModelConfig

if TYPE_CHECKING:
    import torch

    from amsolve.model.network import AttentionModel

PACKAGE_DIR = Path(__file__).resolve().parents[1]


def models_root() -> Path:
    """Where the shipped models are: inside the installed package, else the source checkout."""
    installed = PACKAGE_DIR / "_models"
    return installed if installed.is_dir() else PACKAGE_DIR.parent / "models"


def shipped_models() -> dict[str, Path]:
    """Name → directory of every shipped model with weights and config."""
    root = models_root()
    if not root.is_dir():
        return {}
    return {
        path.name: path
        for path in sorted(root.iterdir())
        if not path.name.startswith(".") and (path / WEIGHTS_FILE).is_file() and (path / CONFIG_FILE).is_file()
    }


def trained_size(directory: Path) -> int | None:
    """The instance size a model directory was trained on, from its config."""
    return ModelConfig.load(directory / CONFIG_FILE).trained_nodes


def nearest_model(n: int) -> str:
    """The shipped model trained on the size nearest to `n` (ties go to the larger model)."""
    sizes = {name: trained_size(path) for name, path in shipped_models().items()}
    sizes = {name: size for name, size in sizes.items() if size is not None}
    if not sizes:
        raise WeightsError(f"no shipped model found in {models_root()}; pass --model PATH")
    return min(sizes, key=lambda name: (abs(sizes[name] - n), -sizes[name]))


def resolve_model(name_or_path: str) -> Path:
    """The directory of a shipped model name or of a path to a model directory."""
    shipped = shipped_models()
    if name_or_path in shipped:
        return shipped[name_or_path]
    path = Path(name_or_path)
    if path.is_dir():
        return path
    if path.exists():
        raise WeightsError(f"{path}: a model is a directory holding {WEIGHTS_FILE} and {CONFIG_FILE}")
    known = ", ".join(shipped) or "none"
    raise WeightsError(f"no model {name_or_path!r}: not a shipped model ({known}) nor a directory")


def check_model(name_or_path: str) -> None:
    """WeightsError unless `name_or_path` is a shipped model or a directory with a valid config; for
    a `--model` that the pipeline may not load, so that a mistyped one is not passed over."""
    ModelConfig.load(resolve_model(name_or_path) / CONFIG_FILE)


def load_model(name_or_path: str, device: torch.device | str = "cpu") -> AttentionModel:
    """Loads a shipped model by name or a model directory by path, in eval mode."""
    from amsolve.model.weights import load_model_dir  # torch: only when a pipeline runs the network

    return load_model_dir(resolve_model(name_or_path), device)

"""Hyper-parameters of the Attention Model, stored as JSON beside the weights."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from amsolve.errors import WeightsError

WEIGHTS_FILE = "model.pt"
"""A model directory's weights: a plain state dict, loaded with `weights_only=True`."""

CONFIG_FILE = "config.json"
"""A model directory's `ModelConfig`."""


@dataclass(frozen=True)
class ModelConfig:
    """Architecture of an Attention Model (Kool et al. 2019); `trained_nodes` is the training size."""

    embed_dim: int = 128
    n_layers: int = 3
    n_heads: int = 8
    ff_dim: int = 512
    tanh_clip: float = 10.0
    trained_nodes: int | None = None

    def __post_init__(self) -> None:
        """A WeightsError for values no network can be built from (a hand-edited or corrupt config)."""
        for name in ("embed_dim", "n_layers", "n_heads", "ff_dim"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise WeightsError(f"{name} must be a positive integer, not {value!r}")
        clip = self.tanh_clip
        if isinstance(clip, bool) or not isinstance(clip, (int, float)) or not 0 < clip < float("inf"):
            raise WeightsError(f"tanh_clip must be a positive number, not {clip!r}")
        nodes = self.trained_nodes
        if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 3):
            raise WeightsError(f"trained_nodes must be an integer of at least 3 or null, not {nodes!r}")
        if self.embed_dim % self.n_heads:
            raise WeightsError(f"embed_dim {self.embed_dim} is not divisible by n_heads {self.n_heads}")

    def to_json(self) -> str:
        """The config as the JSON text stored beside the weights."""
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "config") -> ModelConfig:
        """A config from parsed JSON; a WeightsError naming `where` when it is not a valid one."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise WeightsError(f"{where}: unknown config keys {sorted(unknown)}")
        try:
            return cls(**data)
        except (TypeError, WeightsError) as error:
            raise WeightsError(f"{where}: {error}") from None

    @classmethod
    def load(cls, path: Path) -> ModelConfig:
        """The config stored in a JSON file."""
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise WeightsError(f"{path}: no such config file") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise WeightsError(f"{path}: not valid JSON ({error})") from None
        if not isinstance(data, dict):
            raise WeightsError(f"{path}: config must be a JSON object")
        return cls.from_dict(data, where=str(path))

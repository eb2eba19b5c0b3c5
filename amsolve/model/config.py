"""Hyper-parameters of the Attention Model, stored as JSON beside the weights."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from amsolve.errors import WeightsError


@dataclass(frozen=True)
class ModelConfig:
    """Architecture of an Attention Model (DESIGN §1); `trained_nodes` is the training size."""

    embed_dim: int = 128
    n_layers: int = 3
    n_heads: int = 8
    ff_dim: int = 512
    tanh_clip: float = 10.0
    trained_nodes: int | None = None

    def __post_init__(self) -> None:
        if self.embed_dim % self.n_heads:
            raise WeightsError(f"embed_dim {self.embed_dim} is not divisible by n_heads {self.n_heads}")

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "config") -> ModelConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise WeightsError(f"{where}: unknown config keys {sorted(unknown)}")
        try:
            return cls(**data)
        except TypeError as error:
            raise WeightsError(f"{where}: {error}") from None

    @classmethod
    def load(cls, path: Path) -> ModelConfig:
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise WeightsError(f"{path}: no such config file") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise WeightsError(f"{path}: not valid JSON ({error})") from None
        if not isinstance(data, dict):
            raise WeightsError(f"{path}: config must be a JSON object")
        return cls.from_dict(data, where=str(path))

"""Training and validation instances: fresh uniform ones, or read with their reference tours."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from amsolve.errors import InputError


@dataclass(frozen=True)
class ReferenceSet:
    """Instances of one size with reference tours, as tensors (unit-square coordinates)."""

    coords: torch.Tensor  # (instances, n, 2)
    tours: torch.Tensor  # (instances, n) city indices
    lengths: torch.Tensor  # (instances,) reference tour lengths

    @property
    def n(self) -> int:
        return self.coords.shape[1]

    def __len__(self) -> int:
        return self.coords.shape[0]


def uniform_instances(batch: int, n: int, generator: torch.Generator, device: torch.device) -> torch.Tensor:
    """`batch` instances of `n` cities drawn uniformly in the unit square: (batch, n, 2)."""
    return torch.rand(batch, n, 2, generator=generator, device=device)


def normalized(coords: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Instances (batch, n, 2) as the solver shows them to the model, and each one's scale (batch,).

    The rule of `Instance.normalized_coords`: each axis shifted to start at 0, both divided by the
    larger range. A tour's length on the normalised cities times the scale is its original length.
    """
    low = coords.amin(dim=1, keepdim=True)  # (batch, 1, 2)
    span = (coords.amax(dim=1, keepdim=True) - low).amax(dim=2, keepdim=True).clamp_min(1e-12)  # (batch, 1, 1)
    return (coords - low) / span, span.view(-1)


def load_reference_set(path: Path, limit: int | None = None) -> ReferenceSet:
    """Reads a Concorde-style dataset whose lines all have `n` cities and a reference tour."""
    from amsolve.io.dataset import read_dataset

    instances = read_dataset(path, limit=limit)
    sizes = {instance.n for instance in instances}
    if len(sizes) != 1:
        raise InputError(f"{path}: training needs instances of one size, found sizes {sorted(sizes)}")
    missing = [instance.name for instance in instances if instance.reference_tour is None]
    if missing:
        raise InputError(f"{path}: {missing[0]} has no reference tour")
    coords = np.stack([instance.coords for instance in instances])
    if coords.min() < 0 or coords.max() > 1:
        raise InputError(f"{path}: training coordinates must lie in the unit square")
    return ReferenceSet(
        coords=torch.from_numpy(coords).float(),
        tours=torch.from_numpy(np.stack([instance.reference_tour for instance in instances])).long(),
        lengths=torch.tensor([instance.reference_length for instance in instances], dtype=torch.float64),
    )

"""The 8 symmetries of the unit square, which keep every tour's length (POMO's ×8 augmentation)."""

from __future__ import annotations

import torch

SYMMETRIES = 8


def apply_symmetry(coords: torch.Tensor, index: torch.Tensor | int) -> torch.Tensor:
    """Applies symmetry `index` (0..7; per instance when a (batch,) tensor) to coords (batch, n, 2).

    Bit 0 swaps x and y, bit 1 flips x, bit 2 flips y; index 0 is the identity.
    """
    index = torch.as_tensor(index, device=coords.device).view(-1, 1, 1)  # (batch or 1, 1, 1)
    x, y = coords[..., 0:1], coords[..., 1:2]  # each (batch, n, 1)
    swap = (index & 1).bool()
    x, y = torch.where(swap, y, x), torch.where(swap, x, y)
    x = torch.where((index & 2).bool(), 1 - x, x)
    y = torch.where((index & 4).bool(), 1 - y, y)
    return torch.cat((x, y), dim=-1)


def all_symmetries(coords: torch.Tensor) -> torch.Tensor:
    """The 8 versions of every instance: (batch, n, 2) gives (8 * batch, n, 2), symmetry-major."""
    return torch.cat([apply_symmetry(coords, index) for index in range(SYMMETRIES)])

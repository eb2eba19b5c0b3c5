"""Choosing the torch device from the `--device` option."""

from __future__ import annotations

from typing import TYPE_CHECKING

from amsolve.errors import InputError

if TYPE_CHECKING:
    import torch

DEVICES = ("auto", "cpu", "cuda")


def check_device(name: str) -> None:
    """An InputError for a `--device` that names no device (checked without loading torch)."""
    if name not in DEVICES and not name.startswith("cuda:"):
        raise InputError(f"unknown device {name!r}; choose one of {', '.join(DEVICES)}")


def resolve_device(name: str) -> torch.device:
    """`auto` picks CUDA when available, else the CPU; asking for CUDA without one is an error."""
    import torch

    check_device(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise InputError(f"device {name!r} requested but CUDA is not available on this machine")
    return torch.device(name)

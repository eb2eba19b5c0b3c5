"""Tour files `amsolve solve` writes on request (TSPLIB `.tour`), never replacing one without --force."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from amsolve.errors import InputError
from amsolve.io import write_tour
from amsolve.problem import Instance
from amsolve.solver import Solution


def tour_paths(directory: Path, instances: Sequence[Instance]) -> list[Path]:
    """Where each instance's tour goes: `directory/NAME.tour` (names must be distinct)."""
    paths = [directory / f"{instance.name}.tour" for instance in instances]
    seen: set[Path] = set()
    for path in paths:
        if path in seen:
            raise InputError(f"two instances are named {path.stem!r}; their tours would share {path}")
        seen.add(path)
    return paths


def check_writable(paths: Sequence[Path], force: bool) -> None:
    """Fails before any work is done if an output file exists and may not be replaced."""
    for path in paths:
        if path.exists() and not force:
            raise InputError(f"{path}: file exists; use --force to overwrite")


def write_tours(directory: Path, solutions: Sequence[Solution], force: bool) -> list[Path]:
    """Writes each solution as a TSPLIB `.tour` file with the file's own city ids."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = tour_paths(directory, [solution.instance for solution in solutions])
    for path, solution in zip(paths, solutions, strict=True):
        write_tour(path, solution.instance.name, solution.instance.tour_ids(solution.tour), solution.length, force)
    return paths

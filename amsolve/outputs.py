"""Files `amsolve solve` writes on request: TSPLIB tours and a picture of a tour."""

from __future__ import annotations

import os
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
    for path, solution in zip(paths, solutions):
        write_tour(path, solution.instance.name, solution.instance.tour_ids(solution.tour), solution.length, force)
    return paths


def plot_tour(path: Path, solution: Solution, force: bool) -> None:
    """Draws the tour over its cities into a PNG file (needs matplotlib: `pip install amsolve[plot]`)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'amsolve[plot]'") from None
    check_writable([path], force)
    coords = solution.instance.coords[solution.tour]
    closed = list(range(len(coords))) + [0]
    figure, axes = plt.subplots(figsize=(6, 6))
    axes.plot(coords[closed, 0], coords[closed, 1], "-", color="tab:blue", linewidth=1)
    axes.plot(coords[:, 0], coords[:, 1], "o", color="tab:red", markersize=3)
    axes.plot(coords[:1, 0], coords[:1, 1], "s", color="black", markersize=6)
    title = f"{solution.instance.name}: {solution.instance.n} cities, length {solution.length:g}"
    if solution.gap_pct is not None:
        title += f" (gap {solution.gap_pct:.2f} %)"
    axes.set_title(title)
    axes.set_aspect("equal")
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp.png")
    try:
        figure.savefig(temp, dpi=120, bbox_inches="tight")
        os.replace(temp, path)
    except OSError as error:
        raise InputError(f"{path}: cannot write: {error.strerror or error}") from None
    finally:
        plt.close(figure)
        temp.unlink(missing_ok=True)

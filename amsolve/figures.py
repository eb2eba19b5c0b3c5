"""Pictures: a tour over its cities, benchmark gaps against time, training curves (matplotlib, optional)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from amsolve.bench import TSPLIB_TOTAL, BenchRow
from amsolve.errors import InputError
from amsolve.files import atomic_write
from amsolve.problem.instance import PLANAR_KINDS
from amsolve.solver import Solution


def pyplot() -> ModuleType:
    """matplotlib.pyplot on a file-only backend; a clear error when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plots need matplotlib: pip install matplotlib") from None
    return plt


def save_figure(figure: Any, path: Path, force: bool) -> None:
    """Saves a figure as PNG atomically; an existing file only with `force`."""
    plt = pyplot()
    try:
        if path.exists() and not force:
            raise InputError(f"{path}: file exists; use --force to overwrite")
        atomic_write(path, lambda file: figure.savefig(file, format="png", dpi=120, bbox_inches="tight"))
    except OSError as error:
        raise InputError(f"{path}: cannot write: {error.strerror or error}") from None
    finally:
        plt.close(figure)


def plot_tour(path: Path, solution: Solution, force: bool) -> None:
    """Draws the tour over its cities into a PNG file (needs matplotlib).

    Cities are drawn at `Instance.planar_coords`; when those are not the coordinates the distances
    come from (display coordinates, an embedding), the figure says what they are.
    """
    plt = pyplot()
    instance = solution.instance
    coords = instance.planar_coords[solution.tour]
    closed = list(range(len(coords))) + [0]
    figure, axes = plt.subplots(figsize=(6, 6))
    axes.plot(coords[closed, 0], coords[closed, 1], "-", color="tab:blue", linewidth=1)
    axes.plot(coords[:, 0], coords[:, 1], "o", color="tab:red", markersize=3)
    axes.plot(coords[:1, 0], coords[:1, 1], "s", color="black", markersize=6)
    title = f"{instance.name}: {instance.n} cities, length {solution.length:g}"
    if solution.gap_pct is not None:
        title += f" (gap {solution.gap_pct:.2f} %)"
    if instance.planar_kind != "coordinates":
        title += f"\ncities drawn at {PLANAR_KINDS[instance.planar_kind]}"
    axes.set_title(title, fontsize=10 if "\n" in title else None)
    axes.set_aspect("equal")
    save_figure(figure, path, force)


def plot_bench(path: Path, rows: Sequence[BenchRow], force: bool) -> None:
    """Gap against time per instance: one panel per decoder, one series per dataset (log time)."""
    plt = pyplot()
    panels = list(dict.fromkeys(row.decode for row in rows))
    figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False, sharey=True)
    for axis, decode in zip(axes[0], panels, strict=True):
        for row in rows:
            if row.decode == decode and row.gaps_pct and not row.dataset.startswith(TSPLIB_TOTAL):
                axis.scatter(row.seconds, row.gaps_pct, s=8, alpha=0.6, label=row.dataset)
        axis.set_xscale("log")
        axis.set_title(decode)
        axis.set_xlabel("seconds per instance")
        axis.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("gap to reference (%)")
    labels = axes[0][0].get_legend_handles_labels()[1]
    if 0 < len(labels) <= 12:
        axes[0][-1].legend(fontsize=7)
    save_figure(figure, path, force)

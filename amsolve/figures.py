"""Pictures: a tour over its cities, the time–quality chart of benchmarks (matplotlib, optional)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from amsolve.bench import ChartPoint
from amsolve.errors import InputError
from amsolve.files import atomic_write
from amsolve.problem.instance import PLANAR_KINDS
from amsolve.solver import Solution

GAP_FLOOR_PCT = 0.001
"""A log axis cannot show a gap of 0 (nor a negative one, against a reference that is not optimal):
gaps at or below this are drawn on it, on a dotted line whose tick reads "≤ 0.001 %"."""

PIPELINE_COLOURS = (
    *(f"tab:{hue}" for hue in ("blue", "orange", "green", "red", "purple", "brown", "pink", "gray", "olive", "cyan")),
    "black",
    "darkgoldenrod",
)
"""One colour per pipeline; more than 12 pipelines reuse them."""
DATASET_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
DATASET_LINES = ("-", "--", ":", "-.")
FRONTIER_COLOUR = "0.35"


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
    """Draws the tour over its cities into a PNG file (needs matplotlib); a square marks the first city.

    Cities are drawn at `Instance.planar_coords`; when those are not the coordinates the distances
    come from (display coordinates, an embedding), the figure says what they are. The axes carry no
    ticks: the picture is of the tour's shape, the coordinates are in the input.
    """
    from amsolve.render import format_length

    plt = pyplot()
    instance = solution.instance
    coords = instance.planar_coords[solution.tour]
    closed = list(range(len(coords))) + [0]
    dot = 3.0 if len(coords) <= 200 else 1.8
    figure, axes = plt.subplots(figsize=(6, 6))
    axes.plot(coords[closed, 0], coords[closed, 1], "-", color="tab:blue", linewidth=0.9)
    axes.plot(coords[:, 0], coords[:, 1], "o", color="tab:red", markersize=dot)
    axes.plot(coords[:1, 0], coords[:1, 1], "s", color="black", markersize=2 * dot + 1)
    title = f"{instance.name}: {instance.n:,} cities, length {format_length(solution.length)}"
    if solution.gap_pct is not None:
        title += f" (gap {solution.gap_pct:.2f} %)"
    if instance.planar_kind != "coordinates":
        title += f"\ncities drawn at {PLANAR_KINDS[instance.planar_kind]}"
    axes.set_title(title, fontsize=10 if "\n" in title else None)
    axes.set_aspect("equal")
    axes.set_xticks([])
    axes.set_yticks([])
    save_figure(figure, path, force)


def log_ticks(low: float, high: float) -> list[float]:
    """Major ticks for a log axis from `low` to `high`: decades, or 1-2-5 (1-2-3-5) steps when that gives too few."""
    for steps in ((1.0,), (1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)):
        ticks = [
            step * 10.0**exponent
            for exponent in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
            for step in steps
            if low <= step * 10.0**exponent <= high
        ]
        if len(ticks) >= 3:
            return ticks
    return ticks


def plain_number(value: float) -> str:
    """A tick value without exponent notation, e.g. 0.001 or 20."""
    return np.format_float_positional(float(f"{value:.6g}"), trim="-")


def seconds_label(seconds: float) -> str:
    """A time tick: 10 µs, 5 ms, 1 s, 30 s."""
    if seconds < 1e-3:
        return f"{plain_number(seconds * 1e6)} µs"
    if seconds < 1:
        return f"{plain_number(seconds * 1e3)} ms"
    return f"{plain_number(seconds)} s"


def set_log_axis(
    axis: Any, which: str, low: float, high: float, label: Callable[[float], str], floor: float | None
) -> None:
    """A log `which` ("x" or "y") axis from `low` to `high`, plain major tick labels, unlabelled minor ticks.

    With `floor`, ticks at or below it give way to one at the floor reading "≤ ...".
    """
    from matplotlib.ticker import FixedLocator, LogLocator, NullFormatter

    ticks = log_ticks(low, high)
    labels = [label(tick) for tick in ticks]
    if floor is not None:
        kept = [index for index, tick in enumerate(ticks) if tick > floor * 1.001]
        ticks = [floor] + [ticks[index] for index in kept]
        labels = [f"≤ {label(floor)}"] + [labels[index] for index in kept]
    getattr(axis, f"set_{which}scale")("log")
    getattr(axis, f"set_{which}lim")(low, high)
    scale = getattr(axis, f"{which}axis")
    scale.set_major_locator(FixedLocator(ticks))
    scale.set_ticklabels(labels)
    scale.set_minor_locator(LogLocator(subs=tuple(range(2, 10))))
    scale.set_minor_formatter(NullFormatter())


def percent_label(gap: float) -> str:
    """A gap tick: 0.01 %, 5 %."""
    return f"{plain_number(gap)} %"


def time_quality_chart(
    points: Sequence[ChartPoint],
    path: Path,
    force: bool,
    whiskers: bool = False,
    title: str = "Mean gap against time per instance",
) -> None:
    """Draws `time_quality_figure` into a PNG file (an existing file only with `force`)."""
    save_figure(time_quality_figure(points, whiskers, title), path, force)


def time_quality_figure(
    points: Sequence[ChartPoint], whiskers: bool = False, title: str = "Mean gap against time per instance"
) -> Any:
    """One chart of mean gap (y) against seconds per instance (x), both logarithmic.

    One marker per pipeline and dataset: the colour names the pipeline, the shape the dataset;
    filled markers are pipelines that use the network, hollow ones peers that do not. A step line
    per dataset is its frontier: the best mean gap reached within each time. With `whiskers`, a
    line from each marker up to the worst instance's gap. Mean and worst gaps at or below
    `GAP_FLOOR_PCT` (0, or negative against a reference that is not optimal) are drawn at it, on a
    dotted line whose tick reads "≤ 0.001 %", and a note under the legend says so. The legends
    sit to the right of the axes, so they never cover a marker.
    """
    if not points:
        raise InputError("nothing to plot: no row has a reference to measure a gap against")
    plt = pyplot()
    from matplotlib.lines import Line2D

    pipelines = list(dict.fromkeys(point.pipeline for point in points))
    datasets = list(dict.fromkeys(point.dataset for point in points))
    colour = {name: PIPELINE_COLOURS[index % len(PIPELINE_COLOURS)] for index, name in enumerate(pipelines)}
    marker = {name: DATASET_MARKERS[index % len(DATASET_MARKERS)] for index, name in enumerate(datasets)}
    line = {name: DATASET_LINES[index % len(DATASET_LINES)] for index, name in enumerate(datasets)}
    neural = {point.pipeline: point.neural for point in points}

    def drawn(gap: float) -> float:
        return max(gap, GAP_FLOOR_PCT)

    figure, axis = plt.subplots(figsize=(7.5, 5))
    for dataset in datasets:
        ordered = sorted((point for point in points if point.dataset == dataset), key=lambda p: p.seconds_per_instance)
        times, best = [], []  # the frontier's corners: where the best mean gap so far improves
        for point in ordered:
            if not best or drawn(point.gap_mean_pct) < best[-1]:
                times.append(point.seconds_per_instance)
                best.append(drawn(point.gap_mean_pct))
        times.append(ordered[-1].seconds_per_instance)
        best.append(best[-1])
        axis.step(times, best, where="post", color=FRONTIER_COLOUR, linestyle=line[dataset], linewidth=1.2, zorder=1)
    for point in points:
        hue = colour[point.pipeline]
        mean = drawn(point.gap_mean_pct)
        if whiskers and point.gap_max_pct is not None and point.gap_max_pct > mean:
            seconds = point.seconds_per_instance
            axis.plot([seconds, seconds], [mean, point.gap_max_pct], color=hue, linewidth=1, alpha=0.7, zorder=2)
            axis.plot(seconds, point.gap_max_pct, marker="_", color=hue, markersize=8, zorder=2)
        axis.plot(
            point.seconds_per_instance,
            mean,
            marker=marker[point.dataset],
            markersize=8,
            markeredgewidth=1.6,
            markeredgecolor=hue,
            markerfacecolor=hue if point.neural else "white",
            linestyle="none",
            zorder=3,
        )

    times_drawn = [point.seconds_per_instance for point in points]
    gaps_drawn = [drawn(point.gap_mean_pct) for point in points]
    if whiskers:
        gaps_drawn += [drawn(point.gap_max_pct) for point in points if point.gap_max_pct is not None]
    floored = min(gaps_drawn) <= GAP_FLOOR_PCT
    set_log_axis(axis, "x", min(times_drawn) / 2, max(times_drawn) * 2, seconds_label, floor=None)
    floor = GAP_FLOOR_PCT if floored else None
    set_log_axis(axis, "y", min(gaps_drawn) / 2, max(gaps_drawn) * 2, percent_label, floor)
    if floored:
        axis.axhline(GAP_FLOOR_PCT, color="0.6", linestyle=":", linewidth=1, zorder=0)
    axis.set_xlabel("seconds per instance (log scale)")
    axis.set_ylabel("mean gap to the reference tour (log scale)")
    axis.set_title(title, loc="left")
    axis.grid(True, which="major", alpha=0.35)
    axis.grid(True, which="minor", alpha=0.1)

    pipeline_handles = [
        Line2D(
            [],
            [],
            linestyle="none",
            marker="o",
            markersize=8,
            markeredgewidth=1.6,
            markeredgecolor=colour[name],
            markerfacecolor=colour[name] if neural[name] else "white",
            label=name,
        )
        for name in pipelines
    ]
    dataset_handles = [
        Line2D(
            [],
            [],
            color=FRONTIER_COLOUR,
            linestyle=line[name],
            marker=marker[name],
            markersize=7,
            markerfacecolor="0.85",
            markeredgecolor=FRONTIER_COLOUR,
            label=name,
        )
        for name in datasets
    ]
    notes = ["filled: uses the network; hollow: does not", "line: best mean gap within the time"]
    if whiskers:
        notes.append("whiskers: up to the worst instance's gap")
    if floored:
        notes.append(f"≤ {percent_label(GAP_FLOOR_PCT)}: a gap of {percent_label(GAP_FLOOR_PCT)} or less (0 included)")
    _legends_beside(figure, axis, [("pipeline", pipeline_handles), ("dataset", dataset_handles)], notes)
    return figure


def _legends_beside(figure: Any, axis: Any, legends: list[tuple[str, list[Any]]], notes: list[str]) -> None:
    """Legends (title, handles) stacked top-down to the right of the axes, then lines of notes."""
    from matplotlib.legend import Legend

    renderer = figure.canvas.get_renderer()
    top = 1.0
    for title, handles in legends:
        legend = Legend(
            axis,
            handles,
            [handle.get_label() for handle in handles],
            title=title,
            loc="upper left",
            bbox_to_anchor=(1.03, top),
            borderaxespad=0,
            frameon=False,
            fontsize=8.5,
            handlelength=2.5,
            alignment="left",
            title_fontproperties={"weight": "bold", "size": 8.5},
        )
        axis.add_artist(legend)
        legend.set_clip_on(False)  # add_artist clips to the axes, which would cut it out of the saved picture
        bottom = legend.get_window_extent(renderer).y0
        top = axis.transAxes.inverted().transform((0, bottom))[1] - 0.05
    if notes:
        axis.text(1.03, top, "\n".join(notes), transform=axis.transAxes, va="top", fontsize=8, linespacing=1.6)

"""Rich output of the CLI: tables, progress displays. No solving logic lives here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from amsolve.bench import TSPLIB_TOTAL, BenchRow
from amsolve.model.weights import WEIGHTS_FILE
from amsolve.solver import Solution
from amsolve.train.trainer import TrainEvent, TrainSummary

console = Console(stderr=True)
"""Everything but requested data (tables, JSON) goes to stderr, so stdout stays clean."""


class TrainingDisplay:
    """A progress bar per epoch with the running loss, lengths and speed; a line per epoch."""

    def __init__(self) -> None:
        self.progress = Progress(
            TextColumn("epoch {task.fields[epoch]}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} steps"),
            TextColumn(
                "loss {task.fields[loss]:.4f} length {task.fields[length]:.4f} baseline {task.fields[baseline]:.4f}"
            ),
            TextColumn("{task.fields[rate]:.0f} inst/s"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self.task: Any = None

    def __enter__(self) -> TrainingDisplay:
        return self  # the live display starts with training, so an early error prints alone

    def __exit__(self, *exc: object) -> None:
        if self.progress.live.is_started:
            self.progress.stop()

    def __call__(self, event: TrainEvent) -> None:
        if event.kind == "start":
            console.print(f"training on {event.figures['device']}, {event.steps_per_epoch} steps per epoch")
            self.progress.start()
            self._new_task(event)
        elif event.kind == "step":
            figures = event.figures
            self.progress.update(
                self.task,
                completed=event.step,
                loss=figures["loss"],
                length=figures["length"],
                baseline=figures["baseline"],
                rate=figures["instances_per_s"],
            )
        elif event.kind == "epoch":
            figures = event.figures
            parts = [
                f"epoch {figures['epoch']}",
                f"{figures['instances_seen']:,} instances",
                f"{figures['wall_seconds'] / 3600:.2f} h",
            ]
            parts.append(f"greedy {figures['greedy_length']:.4f}")
            if "greedy_gap_pct" in figures:
                parts.append(f"gap {figures['greedy_gap_pct']:.3f} %")
            parts.append(f"multistart×8 {figures['multistart8_length']:.4f}")
            if "multistart8_gap_pct" in figures:
                parts.append(f"gap {figures['multistart8_gap_pct']:.3f} %")
            if figures.get("saved"):
                parts.append("[green]best so far, saved[/green]")
            self.progress.console.print(" · ".join(parts))
            self.progress.remove_task(self.task)
            if event.epoch < event.epochs:
                self._new_task(event)

    def _new_task(self, event: TrainEvent) -> None:
        self.task = self.progress.add_task(
            "train",
            total=event.steps_per_epoch,
            completed=event.step,
            epoch=event.epoch + 1,
            loss=0.0,
            length=0.0,
            baseline=0.0,
            rate=0.0,
        )


def render_train_summary(summary: TrainSummary) -> None:
    """The closing lines of `amsolve train`."""
    weights = (summary.out / WEIGHTS_FILE).is_file()
    console.print(
        f"{summary.stopped_because}: {summary.epochs_done} epochs, {summary.instances_seen:,} instances, "
        f"{summary.wall_seconds / 3600:.2f} h; "
        + (
            f"weights in {summary.out}"
            if weights
            else f"no epoch finished yet: no weights, checkpoint in {summary.out}"
        )
    )


class ProgressBar:
    """A Rich progress bar over a known number of items on a terminal (silent when disabled, e.g. for --json)."""

    def __init__(self, total: int, description: str, enabled: bool = True) -> None:
        self.progress = Progress(
            TextColumn(description),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            disable=not (enabled and console.is_interactive),  # elsewhere Rich would only add a blank line
        )
        self.task = self.progress.add_task(description, total=total)

    def __enter__(self) -> ProgressBar:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()  # a no-op when disabled

    def advance(self, count: int = 1) -> None:
        self.progress.advance(self.task, count)


def short_tour(cities: Sequence[object], show_all: bool, head: int = 8) -> str:
    """A tour as city ids or names, shortened to its first and last few unless `show_all`."""
    if show_all or len(cities) <= 2 * head:
        return " ".join(map(str, cities))
    return " ".join(map(str, cities[:head])) + " … " + " ".join(map(str, cities[-2:]))


def format_length(value: float | None) -> str:
    """Integers as integers (TSPLIB metrics), large means with one decimal, others with five."""
    if value is None:
        return "–"
    if float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.1f}" if abs(value) >= 1000 else f"{value:.5f}"


def render_solutions(solutions: Sequence[Solution], show_tour: bool) -> None:
    """The table of `amsolve solve`, on stdout."""
    table = Table(title="amsolve solve", title_justify="left")
    for column in ("instance", "cities", "decoder", "length", "reference", "gap %", "time s"):
        table.add_column(column, justify="left" if column in ("instance", "decoder") else "right", no_wrap=True)
    table.add_column("tour", overflow="fold", min_width=20)
    for solution in solutions:
        gap = solution.gap_pct
        table.add_row(
            solution.instance.name,
            str(solution.instance.n),
            solution.pipeline,
            format_length(solution.length),
            format_length(solution.reference),
            "–" if gap is None else f"{gap:.3f}",
            f"{solution.seconds:.3f}",
            short_tour(
                solution.instance.tour_names(solution.tour) or solution.instance.tour_ids(solution.tour), show_tour
            ),
        )
    Console(width=max(console.width, 120)).print(table)


def solutions_json(solutions: Sequence[Solution]) -> str:
    """The `--json` document of `amsolve solve`."""
    return json.dumps(
        {
            "instances": [
                {
                    "name": solution.instance.name,
                    "n": solution.instance.n,
                    "decode": solution.pipeline,
                    "length": solution.length,
                    "tour": solution.instance.tour_ids(solution.tour),
                    "tour_names": solution.instance.tour_names(solution.tour),
                    "reference": solution.reference,
                    "gap_pct": solution.gap_pct,
                    "seconds": solution.seconds,
                    "model_input": solution.instance.planar_kind,
                }
                for solution in solutions
            ]
        }
    )


def _optional(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def render_bench(rows: Sequence[BenchRow]) -> None:
    """The table of `amsolve bench`, on stdout, and warnings for tours shorter than an optimum."""
    table = Table(title="amsolve bench", title_justify="left")
    headers = (
        "dataset",
        "decoder",
        "inst.",
        "mean length",
        "mean ref.",
        "gap %",
        "gap of means %",
        "worst gap %",
        "s / inst.",
        "inst. / s",
        "batch",
        "device",
    )
    for header in headers:
        left = header in ("dataset", "decoder", "device")
        table.add_column(
            header, justify="left" if left else "right", no_wrap=True, min_width=28 if header == "decoder" else None
        )
    for row in rows:
        table.add_row(
            row.dataset,
            row.decode,
            str(row.instances),
            format_length(row.mean_length),
            format_length(row.mean_reference),
            _optional(row.gap_mean_pct),
            _optional(row.gap_of_means_pct),
            _optional(row.gap_max_pct),
            f"{row.seconds_per_instance:.4f}",
            f"{row.instances_per_second:.1f}",
            str(row.batch_size),
            row.device,
            end_section=row.dataset.startswith(TSPLIB_TOTAL),
        )
    Console(width=max(190, console.width)).print(table)
    for row in rows:
        if row.below_optimal and not row.dataset.startswith(TSPLIB_TOTAL):
            console.print(
                f"[yellow]warning:[/yellow] {row.decode} found tours shorter than the optimum claimed for "
                f"{', '.join(row.below_optimal)}: check the reference"
            )


def bench_json(rows: Sequence[BenchRow]) -> str:
    """The `--json` document of `amsolve bench`."""
    return json.dumps({"rows": [row.as_json() for row in rows]})

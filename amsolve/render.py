"""Rich output of the CLI: tables, progress displays. No solving logic lives here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from amsolve.bench import TSPLIB_TOTAL, BenchRow
from amsolve.model.config import WEIGHTS_FILE
from amsolve.problem import Instance
from amsolve.problem.distance import pair_distances
from amsolve.solver import Solution

if TYPE_CHECKING:  # torch: loaded only by the commands that run these
    from amsolve.explanation import ExplainedStep, Explanation
    from amsolve.train.trainer import TrainEvent, TrainSummary

console = Console(stderr=True)
"""Everything but requested data (tables, JSON) goes to stderr, so stdout stays clean."""


class TrainingDisplay:
    """A progress bar per epoch with the running loss, lengths and speed; a line per epoch (and per
    recipe phase)."""

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
        if event.kind == "phase":  # a recipe's next phase
            figures = event.figures
            console.print(
                f"[bold]phase {figures['phase']}/{figures['phases']}: {figures['name']}[/bold] "
                f"({event.epoch} of {event.epochs} epochs done) in {figures['directory']}"
            )
        elif event.kind == "start":
            processes = event.figures.get("processes", 1)
            where = event.figures["device"] + (f" × {processes} processes" if processes > 1 else "")
            console.print(f"training on {where}, {event.steps_per_epoch} steps per epoch")
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

    WARMING_UP = "warming up (the first run on a machine compiles the search: a few minutes)"

    def __init__(self, total: int, description: str, enabled: bool = True) -> None:
        self.description = description
        self.progress = Progress(
            TextColumn("{task.description}"),
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

    def slow_warm_up(self, ongoing: bool) -> None:
        """Say on the bar why nothing moves while the solver warms up slowly (on a machine's first
        run, the search being compiled; elsewhere a slow device or disk), and give the bar its
        description back when the warm-up ends."""
        self.progress.update(self.task, description=self.WARMING_UP if ongoing else self.description)

    def search_status(self, instance: Instance, length: float, elapsed: float, budget: float) -> None:
        """Show a long search's best length so far, time spent and budget."""
        self.progress.update(
            self.task,
            description=f"{instance.name}: best {format_length(length)} · {elapsed:,.0f} of {budget:,.0f} s",
        )


def short_tour(cities: Sequence[object], show_all: bool, head: int = 8) -> str:
    """A tour as city ids or names, shortened to its first and last few unless `show_all`."""
    if show_all or len(cities) <= 2 * head:
        return " ".join(map(str, cities))
    return " ".join(map(str, cities[:head])) + " … " + " ".join(map(str, cities[-2:]))


def format_length(value: float | None) -> str:
    """Integers as integers (TSPLIB metrics), large means with one decimal, others with five, and
    lengths below 0.01 (coordinates in tiny units) with five significant digits."""
    if value is None:
        return "–"
    if float(value).is_integer():
        return f"{value:,.0f}"
    if abs(value) >= 1000:
        return f"{value:,.1f}"
    return f"{value:.5f}" if abs(value) >= 0.01 else f"{value:.5g}"


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


EXPLAIN_ROWS = 24
"""`amsolve explain` shows tours of more steps than this shortened: first and last steps, the steps
around the first departure from the reference tour and the later departures (or, without a
reference, the most uncertain steps), with an ellipsis row for each gap."""

EXPLAIN_HEAD, EXPLAIN_TAIL, EXPLAIN_UNCERTAIN = 5, 3, 8
EXPLAIN_NEXT_CANDIDATES = 3


def shown_steps(explanation: Explanation, rows: int = EXPLAIN_ROWS) -> list[int]:
    """The step numbers the `amsolve explain` table shows (all of them for short tours)."""
    n = explanation.n
    if n <= rows:
        return list(range(1, n + 1))
    keep = set(range(1, EXPLAIN_HEAD + 1)) | set(range(n - EXPLAIN_TAIL + 1, n + 1))
    departures = explanation.departures
    if departures:
        keep |= {departures[0] - 1, departures[0], departures[0] + 1}
        extra = departures[1:]
    else:
        extra = (np.argsort(-explanation.entropies, kind="stable") + 1)[:EXPLAIN_UNCERTAIN].tolist()
    for step in extra:
        if len(keep) >= rows:
            break
        keep.add(step)
    return sorted(step for step in keep if 1 <= step <= n)


def format_probability(value: float) -> str:
    """Three decimals, or one significant digit below 0.001 (`4e-05`)."""
    return f"{value:.3f}" if value >= 0.0005 else f"{value:.0e}"


def _departure_note(explanation: Explanation, step: ExplainedStep) -> str:
    """The unvisited cities the reference tour goes to from the step's city, with the model's
    probabilities, most probable first, e.g. `49 0.249`; empty when both are visited."""
    neighbours = explanation.reference_neighbours
    assert neighbours is not None and step.current is not None
    probabilities = explanation.probabilities[step.number - 1]
    ids = explanation.instance.ids
    open_ones = [city for city in dict.fromkeys(neighbours[step.current].tolist()) if probabilities[city] > 0]
    open_ones.sort(key=lambda city: -probabilities[city])
    return " · ".join(f"{ids[city]} {format_probability(float(probabilities[city]))}" for city in open_ones)


def _explanation_summary(explanation: Explanation) -> list[str]:
    """The lines under the `amsolve explain` table: length, gap, how far the tour follows the reference."""
    instance = explanation.instance
    line = f"tour length {format_length(explanation.length)}"
    if explanation.gap_pct is not None:
        line += f" · {explanation.reference_name.split()[0]} {format_length(instance.reference_length)}"
        line += f" · gap {explanation.gap_pct:.2f} %"
    lines = [line]
    departures = explanation.departures
    if explanation.follows_reference is not None:
        followed = explanation.n - 1 - len(departures)
        where = f"; first departure at step {departures[0]}" if departures else ""
        lines.append(f"follows the {explanation.reference_name} at {followed} of {explanation.n - 1} steps{where}")
    return lines


def render_explanation(explanation: Explanation) -> None:
    """The table of `amsolve explain`, on stdout: one row per step, long tours shortened."""
    instance, ids = explanation.instance, explanation.instance.ids
    reference = explanation.follows_reference is not None
    title = f"amsolve explain · {instance.name} · {instance.n} cities · model {explanation.model} · greedy"
    table = Table(title=title, title_justify="left")
    for column in ("step", "at", "chooses", "p", "entropy"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    table.add_column("next candidates", no_wrap=True)
    if reference:
        table.add_column(explanation.reference_name, overflow="fold")
    departures = explanation.departures
    shown = shown_steps(explanation)
    previous = 0
    for number in shown:
        if number > previous + 1:
            skipped = number - previous - 1
            gap = f"[dim]{skipped} step{'s' * (skipped > 1)}[/dim]"
            table.add_row("⋮", "", "", "", "", gap, *([""] if reference else []))
        previous = number
        step = explanation.step(number)
        others = zip(step.candidates[1:].tolist(), step.probabilities[1:].tolist(), strict=True)
        row = [
            str(number),
            "–" if step.current is None else str(ids[step.current]),
            str(ids[step.chosen]),
            format_probability(step.probability),
            f"{step.entropy:.2f}",
            " · ".join(f"{ids[city]} {format_probability(p)}" for city, p in list(others)[:EXPLAIN_NEXT_CANDIDATES]),
        ]
        style = None
        if reference:
            if step.follows_reference is None:
                row.append("–")
            elif step.follows_reference:
                row.append("[green]✓[/green]")
            else:
                first = departures[0] == number
                style = "bold red" if first else "red"
                label = "✗ first departure" if first else "✗"
                note = _departure_note(explanation, step)
                row.append(f"{label} → {note}" if note else label)
        table.add_row(*row, style=style)
    out = Console(width=max(console.width, 130))
    out.print(table)
    for line in _explanation_summary(explanation):
        out.print(line)
    if len(shown) < explanation.n:
        out.print(f"[dim]{len(shown)} of {explanation.n} steps shown; --step S shows one in full, --json all[/dim]")


def render_explained_step(explanation: Explanation, number: int) -> None:
    """One step of `amsolve explain --step S` in full: every candidate, its distance and, when
    recorded, each head's glimpse attention on it."""
    instance, ids = explanation.instance, explanation.instance.ids
    step = explanation.step(number)
    out = Console(width=max(console.width, 130))
    out.print(f"amsolve explain · {instance.name} · step {number} of {instance.n} · model {explanation.model}")
    if step.current is None:
        where = "no city yet: the context is the graph and two learned placeholders"
    else:
        visited = explanation.tour[: number - 1]
        where = f"at city {ids[step.current]} after {number - 1} cities ({short_tour(ids[visited].tolist(), False, 4)})"
    line = f"{where} · chooses {ids[step.chosen]}, p {format_probability(step.probability)}"
    line += f" · entropy {step.entropy:.2f} nats"
    if step.follows_reference is False:
        line += f" · leaves the {explanation.reference_name} (its edges from here: ◆)"
    elif step.follows_reference:
        line += f" · on the {explanation.reference_name}"
    out.print(line)
    table = Table(title_justify="left")
    columns = ("rank", "city", "p") if step.current is None else ("rank", "city", "p", "distance")
    for column in columns:
        table.add_column(column, justify="right", no_wrap=True)
    neighbours = explanation.reference_neighbours
    if neighbours is not None and step.current is not None:
        table.add_column(explanation.reference_name, justify="center", no_wrap=True)
    heads = None if explanation.glimpse is None else explanation.glimpse[number - 1]  # (heads, n)
    if heads is not None:
        for head in range(len(heads)):
            table.add_column(f"h{head + 1}", justify="right", no_wrap=True)
    if step.current is not None:
        current = np.full(len(step.candidates), step.current)
        distances = pair_distances(instance.points, instance.metric, current, step.candidates).tolist()
    for rank, (city, probability) in enumerate(zip(step.candidates.tolist(), step.probabilities.tolist(), strict=True)):
        row = [str(rank + 1), str(ids[city]), format_probability(probability)]
        if step.current is not None:
            row.append(format_length(distances[rank]))
        if neighbours is not None and step.current is not None:
            row.append("◆" if city in neighbours[step.current] else "")
        if heads is not None:
            row += [f"{weight:.3f}" for weight in heads[:, city].tolist()]
        table.add_row(*row, style="bold" if city == step.chosen else None)
    out.print(table)
    if heads is None:
        out.print("[dim]--heads adds each glimpse head's attention on every candidate[/dim]")
    else:
        out.print(
            f"h1–h{len(heads)}: the attention each glimpse head gives the city (over the unvisited cities, sums to 1)"
        )


def explanation_json(explanation: Explanation) -> str:
    """The `--json` document of `amsolve explain`."""
    return json.dumps(explanation.as_json())

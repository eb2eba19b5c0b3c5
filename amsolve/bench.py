"""Benchmarks (docs/DESIGN.md §5): datasets × pipelines → rows of gaps and times.

A dataset is a Concorde-style file (one row) or a TSPLIB `.tsp` (one row per instance, plus a
total per pipeline over all TSPLIB instances). References come from the dataset lines, from
`.opt.tour` files beside the instances, or from an optima table (`name,optimal`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from amsolve.errors import InputError
from amsolve.io import read_dataset, read_tsplib
from amsolve.io.text import write_text_atomic
from amsolve.problem import Instance
from amsolve.solver import ModelCache, Solution, SolveOptions, solve_instances

SUITE_DIR = Path(__file__).resolve().parent / "benchdata"
"""The default suite shipped with the package: small uniform sets and TSPLIB instances."""

TSPLIB_TOTAL = "TSPLIB total"


@dataclass(frozen=True)
class Dataset:
    """Instances measured together as one row; `tsplib` rows also add up into a total."""

    name: str
    instances: list[Instance]
    tsplib: bool


@dataclass(frozen=True)
class BenchRow:
    """The figures of one (dataset, pipeline) pair."""

    dataset: str
    decode: str  # the pipeline as run at this dataset's size, e.g. `multistart20×8+2opt+oropt`
    pipeline: str  # the same whatever the size, e.g. `multistart×8+2opt+oropt`
    instances: int
    mean_length: float | None  # None in a TSPLIB total: instances' lengths are in different units
    mean_reference: float | None
    gap_mean_pct: float | None
    gap_of_means_pct: float | None
    gap_max_pct: float | None
    seconds_per_instance: float
    instances_per_second: float
    batch_size: int
    device: str
    below_optimal: list[str] = field(default_factory=list)  # instances beaten although "optimal"
    gaps_pct: list[float] = field(default_factory=list)  # per instance, for the TSPLIB total
    tsplib: bool = False  # one TSPLIB instance, counted in its pipeline's TSPLIB total when there is one
    neural: bool = True  # the pipeline uses the network (False for peers such as LKH-3 in benchmarks/)

    def as_json(self) -> dict[str, object]:
        """The row as `bench --json` prints it."""
        return {
            "dataset": self.dataset,
            "decode": self.decode,
            "instances": self.instances,
            "mean_length": self.mean_length,
            "mean_reference": self.mean_reference,
            "gap_mean_pct": self.gap_mean_pct,
            "gap_of_means_pct": self.gap_of_means_pct,
            "gap_max_pct": self.gap_max_pct,
            "seconds_per_instance": self.seconds_per_instance,
            "instances_per_second": self.instances_per_second,
            "batch_size": self.batch_size,
            "device": self.device,
            "below_optimal": self.below_optimal,
        }


@dataclass(frozen=True)
class ChartPoint:
    """One marker of a time–quality chart (`amsolve.figures.time_quality_chart`), from a bench row."""

    pipeline: str  # may carry a budget, e.g. `multistart×8+2opt+oropt @ 0.1 s`
    dataset: str
    seconds_per_instance: float
    gap_mean_pct: float
    gap_max_pct: float | None  # the worst instance's gap, for whiskers
    neural: bool  # the pipeline uses the network


def chart_points(rows: Sequence[BenchRow]) -> list[ChartPoint]:
    """The rows a time–quality chart shows: each with a gap, TSPLIB instances through their pipeline's total."""
    totals = {row.pipeline for row in rows if row.dataset.startswith(TSPLIB_TOTAL)}
    return [
        ChartPoint(row.pipeline, row.dataset, row.seconds_per_instance, row.gap_mean_pct, row.gap_max_pct, row.neural)
        for row in rows
        if row.gap_mean_pct is not None and not (row.tsplib and row.pipeline in totals)
    ]


def read_optima(path: Path) -> dict[str, float]:
    """An optima table: CSV with columns `name` and `optimal` (other columns ignored)."""
    try:
        with open(path, newline="") as file:
            rows = list(csv.DictReader(file))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise InputError(f"{path}: cannot read optima table ({error})") from None
    if not rows or not {"name", "optimal"} <= set(rows[0]):
        raise InputError(f"{path}: an optima table needs the columns name,optimal")
    optima = {}
    for line_no, row in enumerate(rows, start=2):
        try:
            optima[row["name"].strip()] = float(row["optimal"])
        except (TypeError, ValueError):
            raise InputError(f"{path} line {line_no}: optimal value {row['optimal']!r} is not a number") from None
    return optima


def _tsplib_instance(path: Path, optima: dict[str, float]) -> Instance:
    """A TSPLIB instance whose reference is its `.opt.tour` and/or its entry in `optima`."""
    instance = read_tsplib(path)
    optimal = optima.get(instance.name)
    if optimal is None:
        return instance
    if instance.reference_length is not None and instance.reference_length != optimal:
        raise InputError(
            f"{path}: its .opt.tour measures {instance.reference_length:g} but the optima table says {optimal:g}"
        )
    if instance.reference_tour is not None:
        return instance
    return instance.with_reference(length=optimal, optimal=True)


def collect_datasets(paths: Sequence[Path], optima: dict[str, float], limit: int | None) -> list[Dataset]:
    """The datasets named by files and directories (a directory: its `.txt` and `.tsp` files)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted([*path.glob("*.txt"), *path.glob("*.tsp"), *path.glob("*.tsp.gz")])
            if not found:
                raise InputError(f"{path}: no .txt dataset or .tsp file in this directory")
            files += found
        elif path.exists():
            files.append(path)
        else:
            raise InputError(f"{path}: no such file or directory")
    datasets = []
    for path in files:
        if path.name.endswith((".tsp", ".tsp.gz")):
            instance = _tsplib_instance(path, optima)
            datasets.append(Dataset(instance.name, [instance], tsplib=True))
        else:
            instances = read_dataset(path, limit)
            for instance in instances:
                if instance.reference_length is None:
                    raise InputError(
                        f"{instance.source}: no reference tour (a benchmark line needs `output t1 ... tn t1`)"
                    )
            datasets.append(Dataset(path.stem, instances, tsplib=False))
    return datasets


def default_datasets(limit: int | None) -> list[Dataset]:
    """The suite shipped with the package (it finishes in about a minute with the default pipelines)."""
    return collect_datasets([SUITE_DIR], read_optima(SUITE_DIR / "optimal.csv"), limit)


def bench_row(
    dataset: Dataset,
    solutions: Sequence[Solution],
    seconds: float,
    pipeline: str,
    batch_size: int,
    device: str,
    neural: bool = True,
) -> BenchRow:
    """Figures of a pipeline's solutions of a dataset, solved in `seconds` of wall time.

    The lengths are those the problem layer measured (`Solution.length`); `pipeline` names the
    pipeline whatever the size. Scripts that measure peers (`neural=False`) get the same figures.
    """
    lengths = np.array([solution.length for solution in solutions])
    references = [solution.reference for solution in solutions]
    known = all(reference is not None for reference in references)
    gaps = [solution.gap_pct for solution in solutions] if known else []
    mean_reference = float(np.mean(references)) if known else None
    below = [
        solution.instance.name
        for solution in solutions
        if solution.instance.reference_is_optimal and solution.length < solution.reference
    ]
    return BenchRow(
        dataset=dataset.name,
        decode=solutions[0].pipeline,
        pipeline=pipeline,
        instances=len(solutions),
        mean_length=float(lengths.mean()),
        mean_reference=mean_reference,
        gap_mean_pct=float(np.mean(gaps)) if known else None,
        gap_of_means_pct=100 * (lengths.mean() - mean_reference) / mean_reference if known else None,
        gap_max_pct=float(np.max(gaps)) if known else None,
        seconds_per_instance=seconds / len(solutions),
        instances_per_second=len(solutions) / seconds if seconds > 0 else math.inf,
        batch_size=batch_size,
        device=device,
        below_optimal=below,
        gaps_pct=gaps,
        tsplib=dataset.tsplib,
        neural=neural,
    )


def _total(pipeline: SolveOptions, rows: Sequence[BenchRow]) -> BenchRow:
    """One row over all TSPLIB instances of a pipeline: gaps over instances, seconds added up.

    Mean lengths (and so the gap of the means) are left out: TSPLIB instances measure in
    different units, and the largest instance would decide them.
    """
    known = all(row.mean_reference is not None for row in rows)
    seconds = sum(row.seconds_per_instance * row.instances for row in rows)
    gaps = [gap for row in rows for gap in row.gaps_pct]
    return BenchRow(
        dataset=f"{TSPLIB_TOTAL} ({len(rows)})",
        decode=pipeline.label(),
        pipeline=pipeline.label(),
        instances=len(rows),
        mean_length=None,
        mean_reference=None,
        gap_mean_pct=float(np.mean(gaps)) if known else None,
        gap_of_means_pct=None,
        gap_max_pct=float(np.max(gaps)) if known else None,
        seconds_per_instance=seconds / len(rows),
        instances_per_second=len(rows) / seconds if seconds > 0 else math.inf,
        batch_size=rows[0].batch_size,
        device=rows[0].device,
        below_optimal=[name for row in rows for name in row.below_optimal],
        gaps_pct=gaps,
    )


def run_bench(
    datasets: Sequence[Dataset],
    pipelines: Sequence[SolveOptions],
    on_progress: Callable[[int], None] = lambda done: None,
    on_slow_warm_up: Callable[[bool], None] | None = None,
) -> list[BenchRow]:
    """Solves every dataset with every pipeline; rows are grouped by pipeline. A row's device is
    where its attention model ran; a pipeline without one runs on the CPU and never loads torch.
    `on_slow_warm_up` as in `solve_instances`."""
    rows: list[BenchRow] = []
    for pipeline in pipelines:
        models = ModelCache(pipeline.model, pipeline.device)
        device = "cpu"
        if pipeline.uses_network:
            for n in {instance.n for dataset in datasets for instance in dataset.instances}:
                models.for_size(n)  # every model loaded once, before any timing
            device = str(models.device)
        pipeline_rows = []
        for dataset in datasets:
            solutions = solve_instances(
                dataset.instances, pipeline, on_progress=on_progress, models=models, on_slow_warm_up=on_slow_warm_up
            )
            seconds = sum(solution.seconds for solution in solutions)  # one-time costs (warm-up) excluded
            row = bench_row(dataset, solutions, seconds, pipeline.label(), pipeline.batch_size, device, pipeline.neural)
            pipeline_rows.append(row)
        rows += pipeline_rows
        tsplib_rows = [row for row, dataset in zip(pipeline_rows, datasets, strict=True) if dataset.tsplib]
        if len(tsplib_rows) > 1:
            rows.append(_total(pipeline, tsplib_rows))
    return rows


def write_csv(path: Path, rows: Sequence[BenchRow], force: bool) -> None:
    """The rows as CSV, with the JSON field names as header (an existing file only with `force`)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0].as_json()))
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {key: ";".join(value) if isinstance(value, list) else value for key, value in row.as_json().items()}
        )
    write_text_atomic(path, buffer.getvalue(), force)

"""amsolve against classical baselines on the same instances, in one run: a table and a time–quality chart.

    OMP_NUM_THREADS=1 taskset -c 1 python benchmarks/compare.py [--limit 1280] [--large 16] [--plot FILE.png]

Rows, per dataset: LKH-3 (through elkai, one run; a development dependency only), nearest
neighbour + 2-opt (amsolve's own 2-opt on a nearest-neighbour tour), and amsolve: the network
alone (greedy, beam 16, sampling 128, multi-start ×8), the network's multi-start ×8 tours as the
start of the search, and the default pipeline (greedy edge, then Lin–Kernighan over α-nearness with
the penalty network's π), the search getting its default time (1 ms per city, at least 0.05 s).
Datasets: `../shared/data/tsp100_uniform_seed2026.txt` (reference: its LKH tours) and, with
`--large N`, N uniform 500-city instances whose reference is LKH-3 with 10 runs, computed here
first (not timed). Gaps are means of per-instance gaps, as in `amsolve bench` (the rows are
`amsolve.bench` rows for the peers too). Times are wall seconds per instance: LKH-3 and nearest
neighbour + 2-opt solve one instance at a time in one thread; amsolve decodes batches of 64 with
torch's threads (one, run as above). The load average of the machine is printed before and after,
since every figure is wall-clock time. `--plot` draws the rows with
`amsolve.figures.time_quality_chart` (the chart of `amsolve bench --plot`).
The original AM implementation is not installed here; its figures quoted in
the README were measured on this CPU before this project began.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import elkai
import numpy as np

from amsolve.bench import BenchRow, Dataset, bench_row, chart_points, run_bench
from amsolve.decode.options import DecodeOptions
from amsolve.figures import time_quality_chart
from amsolve.io import read_dataset
from amsolve.machine import machine_description
from amsolve.problem import Instance
from amsolve.search import improve_tours, nearest_neighbours
from amsolve.search.distances import distance_view
from amsolve.solver import Solution, SolveOptions

SHARED = Path(__file__).resolve().parents[2] / "shared"
SCALE = 10**6
PIPELINES = [
    SolveOptions(decode=DecodeOptions("greedy"), local_search="none", device="cpu"),
    SolveOptions(decode=DecodeOptions("beam", beam_width=16), local_search="none", device="cpu"),
    SolveOptions(decode=DecodeOptions("sample", samples=128), local_search="none", device="cpu"),
    SolveOptions(decode=DecodeOptions("multistart", augment=True), local_search="none", device="cpu"),
    SolveOptions(decode=DecodeOptions("multistart", augment=True), device="cpu"),  # the network's start, searched
    SolveOptions(device="cpu"),  # the default pipeline
]


def lkh_tour(instance: Instance, runs: int) -> np.ndarray:
    """An LKH-3 tour of a unit-square instance (integer coordinates ×10^6, EUC_2D)."""
    cities = elkai.Coordinates2D({i: (float(x * SCALE), float(y * SCALE)) for i, (x, y) in enumerate(instance.coords)})
    return np.array(cities.solve_tsp(runs=runs)[:-1], dtype=np.int64)


def nearest_neighbour_tour(coords: np.ndarray) -> np.ndarray:
    """The nearest-neighbour construction from city 0 (numpy, O(n²))."""
    n = len(coords)
    tour = [0]
    unvisited = np.ones(n, dtype=bool)
    unvisited[0] = False
    for _ in range(n - 1):
        distances = np.linalg.norm(coords - coords[tour[-1]], axis=1)
        distances[~unvisited] = np.inf
        tour.append(int(np.argmin(distances)))
        unvisited[tour[-1]] = False
    return np.array(tour)


def nearest_neighbour_2opt(instance: Instance) -> np.ndarray:
    """A nearest-neighbour tour improved by amsolve's 2-opt over each city's 10 nearest."""
    view = distance_view(instance)
    start = nearest_neighbour_tour(instance.coords)[None]
    return improve_tours(view, start, "2opt", nearest_neighbours(view))[0][0]


def peer_row(name: str, dataset: Dataset, solve: Callable[[Instance], np.ndarray]) -> BenchRow:
    """The bench row of a solver without the network, `solve(instance) -> tour`, after one untimed warm-up."""
    solve(dataset.instances[0])
    solutions = []
    started = time.perf_counter()
    for instance in dataset.instances:
        begun = time.perf_counter()
        tour = solve(instance)
        seconds = time.perf_counter() - begun
        solutions.append(Solution(instance, tour, instance.tour_length(tour), name, "none", seconds))
    return bench_row(dataset, solutions, time.perf_counter() - started, name, 1, "cpu", neural=False)


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=1280, help="instances of the n = 100 set")
    parser.add_argument("--large", type=int, default=16, help="uniform 500-city instances (0: none)")
    parser.add_argument("--plot", type=Path, help="draw the time–quality chart into this PNG file (overwritten)")
    parser.add_argument("--whiskers", action="store_true", help="with --plot: whiskers up to the worst gap")
    args = parser.parse_args()
    datasets = [Dataset("tsp100", read_dataset(SHARED / "data/tsp100_uniform_seed2026.txt", args.limit), tsplib=False)]
    if args.large:
        rng = np.random.default_rng(500)
        large = []
        for index in range(args.large):
            coords = np.round(rng.uniform(size=(500, 2)), 6)
            instance = Instance(f"uniform500#{index}", coords, "EUCLIDEAN", np.arange(1, 501))
            large.append(instance.with_reference(tour=lkh_tour(instance, runs=10)))
        datasets.append(Dataset("uniform500", large, tsplib=False))

    print(f"machine: {machine_description()}")
    load_at_start = os.getloadavg()[0]
    print(f"load average (1, 5, 15 min) at the start: {load()}")
    print("| dataset | solver | instances | mean gap % | worst gap % | s / instance |")
    print("|---|---|---|---|---|---|")
    rows: list[BenchRow] = []
    for dataset in datasets:
        dataset_rows = [
            peer_row("LKH-3 (elkai, 1 run)", dataset, lambda instance: lkh_tour(instance, runs=1)),
            peer_row("nearest neighbour + 2-opt", dataset, nearest_neighbour_2opt),
        ]
        dataset_rows += [
            replace(row, decode=f"amsolve {row.decode}", pipeline=f"amsolve {row.pipeline}")
            for row in run_bench([dataset], PIPELINES)
        ]
        for row in dataset_rows:
            print(
                f"| {row.dataset} | {row.decode} | {row.instances} | {row.gap_mean_pct:.3f} | {row.gap_max_pct:.3f} | "
                f"{row.seconds_per_instance:.4f} |",
                flush=True,
            )
        rows += dataset_rows
    print(f"load average (1, 5, 15 min) at the end: {load()}")
    if args.plot:
        sizes = {dataset.name: f"{dataset.name} ({len(dataset.instances):,} instances)" for dataset in datasets}
        time_quality_chart(
            [replace(point, dataset=sizes[point.dataset]) for point in chart_points(rows)],
            args.plot,
            force=True,
            whiskers=args.whiskers,
            title="amsolve, LKH-3 and nearest neighbour + 2-opt on uniform instances "
            f"(load average {load_at_start:.2f} → {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)",
        )


if __name__ == "__main__":
    main()

"""amsolve against classical baselines on the same instances, in one run (issue 6's table).

    python benchmarks/compare.py --limit 200 [--large 16]

Rows, per dataset: LKH-3 (through elkai, one run; a development dependency only), nearest
neighbour + 2-opt (amsolve's own 2-opt on a nearest-neighbour tour), and amsolve's pipelines.
Datasets: `../shared/data/tsp100_uniform_seed2026.txt` (reference: its LKH tours) and, with
`--large N`, N uniform 500-city instances whose reference is LKH-3 with 10 runs, computed here
first (not timed). Times are wall seconds per instance: LKH-3 and nearest neighbour + 2-opt solve
one instance at a time in one thread; amsolve decodes batches of 64 with torch's threads (2 here),
and its default pipeline spends 1 ms per city on iterated local search after local search.
The original AM implementation is not installed here; its figures quoted in
the README were measured on this CPU before this project began.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import elkai
import numpy as np

from amsolve.bench import Dataset, run_bench
from amsolve.decode.strategies import DecodeOptions
from amsolve.io import read_dataset
from amsolve.machine import machine_description
from amsolve.problem import Instance
from amsolve.search import improve_tours
from amsolve.search.distances import coordinate_view
from amsolve.solver import SolveOptions

SHARED = Path(__file__).resolve().parents[2] / "shared"
SCALE = 10**6


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


def classical_row(name: str, dataset: str, instances: list[Instance], solve) -> str:
    """A table row for a per-instance solver `solve(instance) -> tour` (after one untimed warm-up)."""
    solve(instances[0])
    started = time.perf_counter()
    lengths = np.array([instance.tour_length(solve(instance)) for instance in instances])
    seconds = (time.perf_counter() - started) / len(instances)
    references = np.array([instance.reference_length for instance in instances])
    gap = 100 * np.mean(lengths / references - 1)
    return f"| {dataset} | {name} | {len(instances)} | {gap:.3f} | {seconds:.4f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1280, help="instances of the n = 100 set")
    parser.add_argument("--large", type=int, default=16, help="uniform 500-city instances (0: none)")
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
    print("| dataset | solver | instances | mean gap % | s / instance |")
    print("|---|---|---|---|---|")
    for dataset in datasets:
        print(classical_row("LKH-3 (elkai, 1 run)", dataset.name, dataset.instances, lambda i: lkh_tour(i, runs=1)))
        print(
            classical_row(
                "nearest neighbour + 2-opt",
                dataset.name,
                dataset.instances,
                lambda i: improve_tours(
                    coordinate_view(i.coords, i.metric), nearest_neighbour_tour(i.coords)[None], "2opt"
                )[0][0],
            )
        )
        pipelines = [
            SolveOptions(decode=DecodeOptions("greedy"), local_search="none", device="cpu"),
            SolveOptions(decode=DecodeOptions("multistart", augment=True), local_search="none", device="cpu"),
            SolveOptions(device="cpu"),  # the default pipeline
        ]
        for row in run_bench([dataset], pipelines, "cpu"):
            print(
                f"| {dataset.name} | amsolve {row.decode} | {row.instances} | {row.gap_mean_pct:.3f} | "
                f"{row.seconds_per_instance:.4f} |"
            )


if __name__ == "__main__":
    main()

"""Instances given by distance matrices (issue 28): the default pipeline, what the model should read,
and the network against non-neural starts at equal time.

    python benchmarks/explicit.py [--parts default,inputs,equal-time,3d] [--seeds 3] [--times 0.5,2] [--threads N]

Parts, each printed as a Markdown table:
- default: the default pipeline on the 9 instances of `../shared/tsplib_explicit` against their
  proven optima (`optimal.csv`; the 4 `.opt.tour` files must measure exactly those optima), with
  what the model read (display coordinates or the MDS embedding) and each instance's time.
- inputs: display coordinates against the MDS embedding as the model's input. On the 4 explicit
  instances with display coordinates, and on the 41 instances of `../shared/tsplib` turned into
  matrices (their own coordinates as display coordinates, or MDS of the matrix). Model alone
  (multi-start ×8, no local search) and the default pipeline.
- equal-time: on the 9 explicit instances, the default pipeline against a nearest-neighbour tour
  and a random tour given the same 2-opt + Or-opt and iterated local search, each with the same
  wall time per instance: the default pipeline's own time on that instance, then each of
  `--times` (the network's pipeline with `--time-limit`), over `--seeds` seeds.
- 3d: EUC_3D instances (100 random cities in a cube, and in a flat slab), reference tours from
  LKH-3 (elkai, 10 runs): the model reading the first two principal components, (x, y) with z
  dropped, or MDS of the rounded 3-D distances; model alone and default pipeline.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

import elkai
import numpy as np
import torch

from amsolve.bench import Dataset, collect_datasets, read_optima, run_bench
from amsolve.decode.options import DecodeOptions
from amsolve.machine import machine_description
from amsolve.problem import Instance, distance_matrix
from amsolve.search import improve_tours, iterated_local_search
from amsolve.search.distances import distance_view
from amsolve.solver import ModelCache, SolveOptions, solve_instances

SHARED = Path(__file__).resolve().parents[2] / "shared"
EXPLICIT_DIR = SHARED / "tsplib_explicit"
MODEL_ALONE = SolveOptions(decode=DecodeOptions("multistart", augment=True), local_search="none", device="cpu")
DEFAULT = SolveOptions(device="cpu")
MODELS = ModelCache(None, torch.device("cpu"))
"""Every pipeline here uses the shipped model nearest in size; each is loaded once."""


def explicit_instances() -> list[Instance]:
    """The 9 explicit instances, each with its proven optimum (from its .opt.tour where it has one)."""
    datasets = collect_datasets([EXPLICIT_DIR], read_optima(EXPLICIT_DIR / "optimal.csv"), None)
    return [dataset.instances[0] for dataset in datasets]


def layouts() -> dict[str, str]:
    """EDGE_WEIGHT_FORMAT of each explicit instance, from optimal.csv's type column."""
    rows = (EXPLICIT_DIR / "optimal.csv").read_text().splitlines()[1:]
    return {row.split(",")[0]: row.split(",")[2].split("/")[1] for row in rows}


def gaps(instances: list[Instance], pipeline: SolveOptions) -> tuple[list[float], list[float]]:
    """Per-instance gaps (%) and seconds of one pipeline, one instance at a time, after an untimed warm-up."""
    solve_instances(instances[:1], pipeline, models=MODELS)
    solutions = [solve_instances([instance], pipeline, models=MODELS)[0] for instance in instances]
    return [solution.gap_pct for solution in solutions], [solution.seconds for solution in solutions]


def default_part() -> None:
    instances = explicit_instances()
    layout = layouts()
    rows = run_bench([Dataset(instance.name, [instance], tsplib=True) for instance in instances], [DEFAULT])
    print(f"### Default pipeline ({DEFAULT.label()}), `../shared/tsplib_explicit`\n")
    print("| instance | n | EDGE_WEIGHT_FORMAT | the model read | optimum (from) | length | gap % | s |")
    print("|---|---|---|---|---|---|---|---|")
    for instance, row in zip(instances, rows[:-1], strict=True):
        source = ".opt.tour" if instance.reference_tour is not None else "optimal.csv"
        print(
            f"| {instance.name} | {instance.n} | {layout[instance.name]} | {instance.planar_kind} "
            f"| {instance.reference_length:,.0f} ({source}) | {row.mean_length:,.0f} | {row.gap_mean_pct:.3f} "
            f"| {row.seconds_per_instance:.2f} |"
        )
    total = rows[-1]
    print(
        f"| all 9 | | | | | | mean {total.gap_mean_pct:.3f}, worst {total.gap_max_pct:.3f} "
        f"| mean {total.seconds_per_instance:.2f}, max {max(total.seconds):.2f} |\n"
    )


def as_matrix(instance: Instance, display: bool) -> Instance:
    """A coordinate instance as an EXPLICIT one, with its coordinates as display coordinates or none (MDS)."""
    matrix = distance_matrix(instance.points, instance.metric)
    return Instance.from_matrix(
        matrix, name=instance.name, display_coords=instance.coords if display else None
    ).with_reference(length=instance.reference_length, optimal=True)


def inputs_part() -> None:
    print("### Display coordinates or MDS embedding as the model's input\n")
    print(
        "| instances | the model read | multi-start ×8 alone: mean gap % | default pipeline: mean gap % | s / inst. |"
    )
    print("|---|---|---|---|---|")
    with_display = [instance for instance in explicit_instances() if instance.coords is not None]
    tsplib_datasets = collect_datasets([SHARED / "tsplib"], read_optima(SHARED / "tsplib" / "optimal.csv"), None)
    tsplib = [dataset.instances[0] for dataset in tsplib_datasets]
    sets = {
        f"tsplib_explicit with display ({len(with_display)})": {
            "display": with_display,
            "MDS": [dataclasses.replace(instance, coords=None) for instance in with_display],
        },
        f"../shared/tsplib as matrices ({len(tsplib)})": {
            "display (own coordinates)": [as_matrix(instance, True) for instance in tsplib],
            "MDS": [as_matrix(instance, False) for instance in tsplib],
        },
    }
    for name, variants in sets.items():
        for kind, instances in variants.items():
            alone, _ = gaps(instances, MODEL_ALONE)
            pipeline, seconds = gaps(instances, DEFAULT)
            print(
                f"| {name} | {kind} | {np.mean(alone):.3f} | {np.mean(pipeline):.3f} (worst {np.max(pipeline):.3f}) "
                f"| {np.mean(seconds):.2f} |"
            )
            if len(instances) <= 4:
                per_instance = ", ".join(
                    f"{i.name} {a:.2f} / {p:.2f}" for i, a, p in zip(instances, alone, pipeline, strict=True)
                )
                print(f"|  | {kind}, per instance (alone / pipeline) | {per_instance} | | |")
    print()


def nearest_neighbour_tour(matrix: np.ndarray, start: int) -> np.ndarray:
    """The nearest-neighbour tour from `start` under the matrix (O(n²))."""
    n = len(matrix)
    tour = [start]
    unvisited = np.ones(n, dtype=bool)
    unvisited[start] = False
    for _ in range(n - 1):
        row = np.where(unvisited, matrix[tour[-1]], np.inf)
        tour.append(int(np.argmin(row)))
        unvisited[tour[-1]] = False
    return np.array(tour)


def search_from(
    instance: Instance, start: Callable[[Instance, int], np.ndarray], seconds: float, seed: int
) -> tuple[float, float]:
    """Gap (%) and wall seconds of a start tour given local search and iterated local search for `seconds` in all."""
    began = time.perf_counter()
    deadline = began + seconds
    view = distance_view(instance)
    tours, lengths = improve_tours(view, start(instance, seed)[None], "2opt+oropt", deadline=deadline)
    tour, length = iterated_local_search(view, tours[0], deadline, seed=seed)
    assert length == instance.tour_length(tour)
    return 100 * (length - instance.reference_length) / instance.reference_length, time.perf_counter() - began


def equal_time_part(seeds: int, limits: list[float]) -> None:
    instances = explicit_instances()
    starts = {
        "nearest neighbour": lambda instance, seed: nearest_neighbour_tour(instance.matrix, seed % instance.n),
        "random": lambda instance, seed: np.random.default_rng(seed).permutation(instance.n),
    }
    print(f"### Equal time: the network's tours or a classical start, then the same search ({seeds} seeds)\n")
    print("| time per instance | start | mean gap % | worst gap % | optimal found | s / instance used |")
    print("|---|---|---|---|---|---|")
    for limit in [None, *limits]:
        results: dict[str, list[tuple[float, float]]] = {}
        for seed in range(seeds):
            decode = dataclasses.replace(DEFAULT.decode, seed=seed)
            network = gaps(instances, dataclasses.replace(DEFAULT, time_limit=limit, decode=decode))
            results.setdefault("network (default pipeline)", []).extend(zip(*network, strict=True))
            budgets = network[1] if limit is None else [limit] * len(instances)  # None: the network's own time
            for name, start in starts.items():
                results.setdefault(f"{name} + 2opt+oropt + ILS", []).extend(
                    search_from(instance, start, budget, seed)
                    for instance, budget in zip(instances, budgets, strict=True)
                )
        budget = "the default pipeline's own" if limit is None else f"{limit:g} s (`--time-limit`)"
        for name, values in results.items():
            gap, seconds = np.array(values).T
            print(
                f"| {budget} | {name} | {gap.mean():.3f} | {gap.max():.3f} | {int((gap == 0).sum())} of {len(gap)} "
                f"| {seconds.mean():.2f} |"
            )
    print()


def lkh_reference(instance: Instance) -> Instance:
    """The instance with LKH-3's tour (10 runs) on its integer distances as reference."""
    matrix = distance_matrix(instance.points, instance.metric).astype(int).tolist()
    tour = np.array(elkai.DistanceMatrix(matrix).solve_tsp(runs=10)[:-1])
    return instance.with_reference(tour=tour)


def three_d_part(count: int) -> None:
    rng = np.random.default_rng(3)
    print(f"### EUC_3D: what the model reads ({count} instances of 100 cities each)\n")
    print("| cities in | the model read | multi-start ×8 alone: mean gap % | default pipeline: mean gap % |")
    print("|---|---|---|---|")
    for shape, depth in (("a 1000³ cube", 1000), ("a 1000 × 1000 × 200 slab", 200)):
        coords = [np.column_stack([rng.integers(0, 1000, (100, 2)), rng.integers(0, depth, 100)]) for _ in range(count)]
        cubes = [lkh_reference(Instance(f"{shape}#{k}", c, "EUC_3D", np.arange(1, 101))) for k, c in enumerate(coords)]
        variants = {
            "principal components": cubes,
            "(x, y), z dropped": [
                Instance.from_matrix(
                    distance_matrix(i.points, "EUC_3D"), name=i.name, display_coords=i.coords[:, :2]
                ).with_reference(tour=i.reference_tour)
                for i in cubes
            ],
            "MDS of the distances": [
                Instance.from_matrix(distance_matrix(i.points, "EUC_3D"), name=i.name).with_reference(
                    tour=i.reference_tour
                )
                for i in cubes
            ],
        }
        for kind, instances in variants.items():
            alone, _ = gaps(instances, MODEL_ALONE)
            pipeline, _ = gaps(instances, DEFAULT)
            print(f"| {shape} | {kind} | {np.mean(alone):.3f} | {np.mean(pipeline):.3f} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="default,inputs,equal-time,3d", help="comma-separated parts to run")
    parser.add_argument("--seeds", type=int, default=3, help="equal-time: seeds per instance and pipeline")
    parser.add_argument("--times", default="0.5,2", help="equal-time: seconds per instance, comma-separated")
    parser.add_argument("--count", type=int, default=16, help="3d: instances per shape")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)  # on a shared machine, 2 threads can wait on each other for seconds
    parts = args.parts.split(",")
    print(f"machine: {machine_description()}\n")
    if "default" in parts:
        default_part()
    if "inputs" in parts:
        inputs_part()
    if "equal-time" in parts:
        equal_time_part(args.seeds, [float(value) for value in args.times.split(",")])
    if "3d" in parts:
        three_d_part(args.count)


if __name__ == "__main__":
    main()

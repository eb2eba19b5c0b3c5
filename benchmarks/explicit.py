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
- equal-time: on the 9 explicit instances, the default pipeline (greedy edge, the penalty
  network's π) against nearest-neighbour and random starts over α-nearness from π = 0, the same
  search, each with the same time per instance: the default time, then each of `--times`
  (`--time-limit`), over `--seeds` seeds.
- 3d: EUC_3D instances (100 random cities in a cube, and in a flat slab), reference tours from
  LKH-3 (elkai, 10 runs): the model reading the first two principal components, (x, y) with z
  dropped, or MDS of the rounded 3-D distances; model alone and default pipeline.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import elkai
import numpy as np
import torch

from amsolve.bench import Dataset, collect_datasets, read_optima, run_bench
from amsolve.decode.options import DecodeOptions
from amsolve.machine import machine_description
from amsolve.pipeline import parse_pipeline
from amsolve.problem import Instance, distance_matrix
from amsolve.solver import ModelCache, SolveOptions, solve_instances

SHARED = Path(__file__).resolve().parents[2] / "shared"
EXPLICIT_DIR = SHARED / "tsplib_explicit"
MODEL_ALONE = SolveOptions(decode=DecodeOptions("multistart", augment=True), local_search="none", device="cpu")
DEFAULT = SolveOptions(device="cpu")
MODELS = ModelCache(None, "cpu")
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
        f"| mean {total.seconds_per_instance:.2f}, max {max(row.seconds_per_instance for row in rows[:-1]):.2f} |\n"
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


EQUAL_TIME_PIPELINES = ("greedy-edge+lk@alphanet8", "nearest+lk@alpha8", "random+lk@alpha8")
"""The default pipeline (the penalty network's π) and the same search without the network."""


def equal_time_part(seeds: int, limits: list[float]) -> None:
    """Each of `EQUAL_TIME_PIPELINES` with the same time per instance: its default time (the same
    for all three, since none decodes with the attention model), then each of `limits`."""
    instances = explicit_instances()
    print(f"### Equal time: the same search with and without the network ({seeds} seeds)\n")
    print("| time per instance | pipeline | mean gap % | worst gap % | optimal found | s / instance used |")
    print("|---|---|---|---|---|---|")
    for limit in [None, *limits]:
        budget = "default (1 ms per city, at least 0.05 s)" if limit is None else f"{limit:g} s (`--time-limit`)"
        for name in EQUAL_TIME_PIPELINES:
            gap, seconds = [], []
            for seed in range(seeds):
                template = SolveOptions(device="cpu", time_limit=limit, decode=DecodeOptions("greedy-edge", seed=seed))
                seed_gaps, seed_seconds = gaps(instances, parse_pipeline(name, template))
                gap += seed_gaps
                seconds += seed_seconds
            print(
                f"| {budget} | `{name}` | {np.mean(gap):.3f} | {np.max(gap):.3f} "
                f"| {sum(value == 0 for value in gap)} of {len(gap)} | {np.mean(seconds):.2f} |"
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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

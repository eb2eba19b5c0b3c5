"""Whether `--time-limit` is kept: the default pipeline's seconds per instance against the budget,
over sizes, budgets and metrics (uniform random cities in the plane, EUC_2D, MAN_2D or MAX_2D, in a
cube, EUC_3D, on the Earth, GEO, and in the plane given as a distance matrix, EXPLICIT).

    python benchmarks/time_limits.py --sizes 200,1000,5000,20000 --budgets 0.01,0.03,0.1,0.3,1

Each cell solves a few seeded instances in one call of the Python API (as `amsolve solve` does,
the one-time costs paid first, apart, and glibc's mmap threshold fixed from `LARGE_INSTANCE_CITIES`
on), one thread; the seconds are each instance's own wall time.
What the solve returned is shown as its length over the greedy edge tour's (built apart, untimed):
below 1 the search ran, about 1 the greedy start was all that fitted, above 1 a cheaper start
stood in for it. Run it under `taskset -c N` on a quiet core.
"""

from __future__ import annotations

import argparse

import numpy as np

from amsolve.machine import LARGE_INSTANCE_CITIES, fix_malloc_mmap_threshold, machine_description
from amsolve.problem import Instance
from amsolve.search.construct import construct
from amsolve.search.distances import distance_view
from amsolve.solver import SolveOptions, solve_instances

SIDE = 1_000_000.0


def uniform_instance(n: int, metric: str, seed: int) -> Instance:
    """n cities drawn uniformly: in a square of side `SIDE` (EUC_2D, MAN_2D, MAX_2D; EXPLICIT: the
    matrix of their EUC_2D distances), in a cube of that side (EUC_3D), or over the inhabited band
    of latitudes (60° S to 70° N) and every longitude, written as TSPLIB's DDD.MM (GEO)."""
    rng = np.random.default_rng(seed)
    if metric == "EXPLICIT":
        points = rng.uniform(0.0, SIDE, (n, 2))
        matrix = np.empty((n, n), dtype=np.int64)
        for i in range(n):  # row by row: the float matrix at once would take 8·n² bytes more
            matrix[i] = np.rint(np.sqrt(((points - points[i]) ** 2).sum(axis=1)))
        return Instance.from_matrix(matrix, name=f"explicit{n}_{seed}", display_coords=points)
    if metric != "GEO":
        coords = rng.uniform(0.0, SIDE, (n, 3 if metric == "EUC_3D" else 2))
    else:
        degrees = np.stack([rng.uniform(-60.0, 70.0, n), rng.uniform(-180.0, 180.0, n)], axis=1)
        whole = np.trunc(degrees)
        coords = whole + (degrees - whole) * 0.6  # DDD.MM: minutes after the point
    return Instance(name=f"{metric.lower()}{n}_{seed}", coords=coords, metric=metric, ids=np.arange(1, n + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="200,1000,5000,20000")
    parser.add_argument("--budgets", default="0.01,0.03,0.1,0.3,1")
    parser.add_argument("--metrics", default="EUC_2D,GEO")
    parser.add_argument("--instances", type=int, default=3, help="instances per size and metric")
    args = parser.parse_args()
    if max(int(size) for size in args.sizes.split(",")) >= LARGE_INSTANCE_CITIES:
        fix_malloc_mmap_threshold()  # as `amsolve solve` does
    print(f"Machine: {machine_description()}\n")
    print(
        "| metric | cities | budget (s) | seconds, mean | seconds, most | most / budget | over 1.1 × budget "
        "| length / greedy edge tour's |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for metric in args.metrics.split(","):
        for n in (int(size) for size in args.sizes.split(",")):
            instances = [uniform_instance(n, metric, seed) for seed in range(args.instances)]
            greedy = np.array([x.tour_length(construct(distance_view(x), "greedy-edge")) for x in instances])
            for budget in (float(value) for value in args.budgets.split(",")):
                solutions = solve_instances(instances, SolveOptions(time_limit=budget))
                seconds = np.array([s.seconds for s in solutions])
                ratio = np.array([s.length for s in solutions]) / greedy
                over = int((seconds > 1.1 * budget).sum())
                print(
                    f"| {metric} | {n:,} | {budget:g} | {seconds.mean():.3f} | {seconds.max():.3f} "
                    f"| {seconds.max() / budget:.2f} | {over} of {len(seconds)} | {ratio.mean():.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()

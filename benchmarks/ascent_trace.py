"""The Held–Karp ascent tree by tree: the best bound after each number of 1-trees, from π = 0 and
from the penalty network's prediction, for each first step λ of the ascent (`alpha._ascent`). A
study of where the ascent's time goes, counted in trees, not seconds, so that the figures do not
depend on the machine (the time per tree is printed beside them).

    python benchmarks/ascent_trace.py ../shared/tsplib_large/d15112.tsp --optima ../shared/tsplib_large/optimal.csv
    python benchmarks/ascent_trace.py --uniform 100000 --trees 250 --first-steps 2,0.125

`--uniform N` draws N cities as `large_uniform.py` does (same seed and square) and measures the bound
against 0.7124·√(n·A) instead of a reference. The cities are numbered as the search numbers them
(`amsolve.solver.search_order`: along the space-filling curve from 10,000 cities) and the upper
bound of the Polyak step is a greedy edge tour's length, as in the solver.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import torch
from large_uniform import BHH_CONSTANT, SIDE, uniform_points  # a script beside this one

from amsolve.bench import read_optima
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.model.penalties import load_penalty_net, predict_penalties
from amsolve.model.registry import models_root
from amsolve.problem.instance import Instance
from amsolve.search.candidates.alpha import ASCENT_PATIENCE, _ascent, _build_graphs, _Work
from amsolve.search.construct import construct
from amsolve.search.distances import DistanceView, distance_view, tour_length
from amsolve.solver import renumbered, search_order

TREES = 400
CHECKPOINTS = (1, 10, 20, 40, 80, 120, 160, 200, 250, 300, 400, 600, 800, 1200, 1600)


def uniform_instance(cities: int, seed: int) -> tuple[Instance, float]:
    """`large_uniform.py`'s cities and their BHH estimate of the optimal length."""
    points = uniform_points(cities, seed)
    instance = Instance(name=f"uniform{cities}", coords=points, metric="EUCLIDEAN", ids=np.arange(1, cities + 1))
    return instance, BHH_CONSTANT * math.sqrt(cities * SIDE * SIDE)


def trace_ascent(
    view: DistanceView, start: np.ndarray, upper_bound: float, trees: int, first_step: float
) -> tuple[np.ndarray, float]:
    """The best bound after each of `trees` 1-trees of the ascent from `start`, and seconds per
    tree; where the ascent stops sooner (its step vanished), its last bound stands for the rest."""
    graph, work, pi = _build_graphs(view)[0], _Work.new(view.n), start.copy()
    trace = np.full(trees, np.nan)
    began = time.perf_counter()
    _, made = _ascent(graph, pi, work, np.inf, upper_bound, ASCENT_PATIENCE, first_step, trace)
    seconds = (time.perf_counter() - began) / max(made, 1)
    filled = int(np.count_nonzero(~np.isnan(trace)))
    trace[filled:] = trace[filled - 1]
    return trace, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="*")
    parser.add_argument("--optima", type=Path, default=None)
    parser.add_argument("--uniform", type=int, default=None, help="cities drawn as large_uniform.py draws them")
    parser.add_argument("--seed", type=int, default=2026, help="seed of --uniform")
    parser.add_argument("--trees", type=int, default=TREES)
    parser.add_argument("--first-steps", default="2", help="comma-separated λ of the first step")
    parser.add_argument("--net", type=Path, default=models_root() / "penalties", help="penalty network directory")
    args = parser.parse_args()
    torch.set_num_threads(1)
    optima = read_optima(args.optima) if args.optima else {}
    cases = [uniform_instance(args.uniform, args.seed)] if args.uniform else []
    for path in args.paths:
        for instance in load_instances(path):
            reference = optima.get(instance.name, instance.reference_length)
            if reference is None:
                raise SystemExit(f"{instance.name}: no reference length (give --optima)")
            cases.append((instance, reference))
    if not cases:
        raise SystemExit("give instance files or --uniform N")
    net = load_penalty_net(args.net)
    steps = [float(step) for step in args.first_steps.split(",")]
    marks = [t for t in CHECKPOINTS if t <= args.trees]
    print(f"machine: {machine_description()}; penalty network {args.net}; patience {ASCENT_PATIENCE}")
    print("Bound below the reference after t 1-trees (the first is the start's own):")
    print("| instance | start | λ first | ms / tree | " + " | ".join(f"t = {t}" for t in marks) + " |")
    print("|---|---|---|---|" + "---|" * len(marks))
    for instance, reference in cases:
        view = distance_view(instance)
        view = renumbered(view, search_order(view, math.inf))
        upper = tour_length(view.points, view.code, construct(view, "greedy-edge"))
        starts = {"π = 0": np.zeros(view.n), "predicted π": predict_penalties(net, view)}
        trace_ascent(view, starts["π = 0"], upper, 2, 2.0)  # compile
        for label, start in starts.items():
            for step in steps:
                trace, seconds = trace_ascent(view, start, upper, args.trees, step)
                below = [f"{100 * (1 - trace[t - 1] / reference):.3f}" for t in marks]
                print(f"| {instance.name} | {label} | {step:g} | {1e3 * seconds:.2f} | " + " | ".join(below) + " |")


if __name__ == "__main__":
    main()

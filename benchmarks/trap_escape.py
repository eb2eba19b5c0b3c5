"""Why a search ends above the reference tour on a rare small instance: how often each pipeline
does at a budget, and how often the kicks, started from the tour where it ended, reach the
reference within a given time under each slack schedule.

At 100 cities in 0.05 s the default pipeline ends above the reference in a few solves in a
thousand, mostly on the same instances. This script takes one instance (`--instance`, its number
in the dataset, from 1), solves it `--seeds` times with each of `--pipelines` at `--budget` and
counts the solves above the reference. Then, from the first solve of the first pipeline that
ended above it, it keeps that solve's tour, candidate lists and node penalties, and runs the
kicks alone from that tour for `--seconds`, `--seeds` times per slack schedule (`--slacks`,
start and end in mean edges, as `SLACK_START` and `SLACK_END`), counting the runs that reach the
reference length. Run it on one core with one thread, e.g.

    taskset -c 1 env OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/trap_escape.py \\
        --dataset ../shared/data/tsp100_uniform_seed2026.txt --instance 62 --budget 0.05 \\
        --pipelines greedy-edge+lk@alphanet8,greedy-edge+lk@alpha8 --seconds 0.04 --seeds 64
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
from equal_time import gap, pipeline_options  # the sibling script's (benchmarks/ is on sys.path)

import amsolve.solver
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.problem import Instance
from amsolve.search.distances import DistanceView
from amsolve.search.local_search import iterated_local_search
from amsolve.solver import ModelCache, solve_instances

AT_REFERENCE = 1e-6
"""Largest gap (%) that counts as the reference length (the solver's tolerance, not a shortfall)."""


class Solved(NamedTuple):
    """A solve's tour and the search's inputs behind it."""

    tour: np.ndarray  # (n,) int64
    view: DistanceView
    candidates: np.ndarray  # (n, k) int64
    penalties: np.ndarray | None  # (n,) float64


def solve_once(instance: Instance, pipeline: str, budget: float, seed: int) -> Solved:
    """One solve of `pipeline` at `budget`, with the candidate lists and π its search used."""
    candidates = amsolve.solver._candidates
    kept: list[tuple[DistanceView, tuple[np.ndarray, np.ndarray | None]]] = []  # the warm-up's, then the solve's

    def keeping(instance, view, neighbours, order, *args, **kwargs):  # type: ignore[no-untyped-def]
        if order is not None:
            raise SystemExit("the instance's cities were renumbered; this script takes small instances only")
        kept.append((view, candidates(instance, view, neighbours, order, *args, **kwargs)))
        return kept[-1][1]

    amsolve.solver._candidates = keeping
    try:
        options = pipeline_options(pipeline, budget, seed)
        [solution] = solve_instances([instance], options, models=ModelCache(options.model, options.device))
    finally:
        amsolve.solver._candidates = candidates
    view, (lists, penalties) = kept[-1]
    if view.n != len(solution.tour):  # only the warm-up's: the budget left no time for candidate lists
        raise SystemExit(f"{pipeline} made no candidate lists in {budget} s")
    return Solved(solution.tour, view, lists, penalties)


def escapes(instance: Instance, trap: Solved, slack: tuple[float, float], seconds: float, seeds: int) -> int:
    """How many of `seeds` runs of the kicks from the trap's tour reach the reference in `seconds`."""
    reached = 0
    for seed in range(seeds):
        deadline = time.perf_counter() + seconds
        tour, _ = iterated_local_search(
            trap.view,
            trap.tour,
            deadline,
            "lk",
            trap.candidates,
            seed,
            slack=slack,
            penalties=trap.penalties,
            descended=True,
        )
        reached += gap(instance, tour) <= AT_REFERENCE
    return reached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="dataset file with reference tours")
    parser.add_argument("--instance", type=int, required=True, help="the instance's number in the file, from 1")
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per solve of the pipelines")
    parser.add_argument("--pipelines", default="greedy-edge+lk@alphanet8", help="comma-separated pipelines")
    parser.add_argument("--seconds", type=float, default=0.04, help="seconds of kicks from the trap's tour")
    parser.add_argument("--seeds", type=int, default=64, help="solves per pipeline and runs per slack")
    parser.add_argument("--slacks", default="2,0.1;0.1,0.1;0,0", help="slack schedules START,END separated by ;")
    args = parser.parse_args()
    instance = load_instances(args.dataset, limit=args.instance)[-1]
    print(f"machine: {machine_description()}")
    print(f"{instance.name}, {args.seeds} solves per pipeline in {args.budget} s\n")
    print("| pipeline | solves above the reference | their gaps |\n|---|---|---|")
    trap = None
    for pipeline in args.pipelines.split(","):
        gaps = []
        for seed in range(args.seeds):
            solved = solve_once(instance, pipeline, args.budget, 1000 + seed)
            gaps.append(gap(instance, solved.tour))
            if trap is None and gaps[-1] > AT_REFERENCE:
                trap = solved
        above = [g for g in gaps if g > AT_REFERENCE]
        print(f"| {pipeline} | {len(above)} / {args.seeds} | {', '.join(sorted({f'{g:.4f} %' for g in above}))} |")
    if trap is None:
        return
    print(f"\nKicks from the first tour above the reference ({gap(instance, trap.tour):.4f} %) for {args.seconds} s:\n")
    print("| slack start, end (mean edges) | runs that reach the reference |\n|---|---|")
    for spec in args.slacks.split(";"):
        start, end = (float(value) for value in spec.split(","))
        reached = escapes(instance, trap, (start, end), args.seconds, args.seeds)
        print(f"| {start:g}, {end:g} | {reached} / {args.seeds} |")


if __name__ == "__main__":
    main()

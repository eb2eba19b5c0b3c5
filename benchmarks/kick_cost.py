"""What the search's compiled kernels cost: microseconds per kick (the kick and the LK search after
it) and per minimum 1-tree of the Held–Karp ascent, on the first instances of uniform datasets
and on TSPLIB files.

    taskset -c 1 python benchmarks/kick_cost.py
    taskset -c 1 python benchmarks/kick_cost.py --sizes 100 --instances 8 --kicks 20000
    taskset -c 1 python benchmarks/kick_cost.py --sizes "" --tsp ../shared/tsplib/gr666.tsp

The kicks are the default search's own loop (`local_search._kicks`) over 8 α-nearest from a
converged ascent, run with the slack fixed at its end value, so that every run makes the same
kicks and reaches the same tours: two versions of
the kernels can be compared on cost alone, and `--digest` prints a hash of the tours reached to
check that they search alike. Each batch is given a deadline already past, so a kick's search
stops at its first look at the clock (after `_CLOCK_EVERY` examinations, `_CLOCK_EVERY_FIVE_OPT`
with 5-opt steps), which a kick's search in the real loop seldom reaches: versions compare only
where those counts are the same (commit 985895e changed the 5-opt one from 64 to 8, and with it
the tours this script reaches). Run pinned to one core (`taskset`); prints the machine and a
markdown table.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np

from amsolve.io.dataset import read_dataset
from amsolve.io.formats import load_instances
from amsolve.machine import machine_description
from amsolve.search import local_search
from amsolve.search.active import new_active
from amsolve.search.candidates.alpha import (
    ASCENT_FIRST_STEP,
    ASCENT_PATIENCE,
    NO_TRACE,
    _ascent,
    _build_graphs,
    _one_tree,
    _Work,
    alpha_candidates,
)
from amsolve.search.construct import construct
from amsolve.search.distances import DistanceView, distance_view, tour_length
from amsolve.search.kicks import KICKED_CITIES, seed_kicks
from amsolve.search.merge import new_merge_work
from amsolve.search.space import Space, make_space
from amsolve.search.tour import Tour, new_tour

SHARED = Path(__file__).resolve().parents[2] / "shared"


def converged_penalties(view: DistanceView) -> np.ndarray:
    """The ascent's π run until its step vanishes, not for a time: the same in every run."""
    graph, work, pi = _build_graphs(view)[0], _Work.new(view.n), np.zeros(view.n)
    upper = tour_length(view.points, view.code, construct(view, "greedy-edge"))
    _ascent(graph, pi, work, np.inf, upper, ASCENT_PATIENCE, ASCENT_FIRST_STEP, NO_TRACE)
    return pi


def local_optimum(view: DistanceView) -> tuple[Space, int, Tour, local_search.StepWork]:
    """The default LK search's parts on `view` (8 α-nearest from a converged ascent, its method code,
    its work arrays) and a greedy-edge tour taken to a local optimum with them."""
    result = alpha_candidates(view, 8, 0.0, penalties=converged_penalties(view))
    space = make_space(view, result.candidates, result.penalties)
    code = local_search._method_code("lk", view.n)
    tour = new_tour(construct(view, "greedy-edge"), local_search._KICK_JOURNAL)
    work = local_search.new_step_work(view.n)
    local_search._first_descent(space, tour, work, code, np.inf)
    return space, code, tour, work


def kick_cost(view: DistanceView, kicks: int, seed: int, digest: hashlib._Hash) -> float:
    """Microseconds per kick of the default LK search on `view`, from a greedy-edge tour taken to a
    local optimum, over `kicks` kicks (a multiple of the loop's 4 kicks per call)."""
    space, code, tour, work = local_optimum(view)
    best = tour.order.copy()
    length = tour_length(view.points, view.code, best)
    lengths = np.array([length, length])
    active, merge_work, child = new_active(view.n), new_merge_work(view.n), np.empty(view.n, dtype=np.int64)
    # began 0 and deadline 1 (long past as perf_counter values): the slack stays at its end value
    schedule = np.array([local_search.SLACK_START, local_search.SLACK_END, 0.0, 1.0, 1.0, 0.0])
    seed_kicks(seed)
    until = 0.0  # one batch of kicks per call
    args = (space, tour, active, work, code, until, schedule, local_search.KICK_SEGMENT, local_search.MERGE_EVERY)
    polish, kicked = local_search._polishes(code, view.n), np.empty(KICKED_CITIES, dtype=np.int64)
    made = 0
    start = time.perf_counter()
    while made < kicks:
        made += local_search._kicks(*args, merge_work, child, best, lengths, polish, kicked)
    seconds = time.perf_counter() - start
    digest.update(best.tobytes())
    return seconds / made * 1e6


def tree_cost(view: DistanceView, trees: int) -> float:
    """Microseconds per minimum 1-tree of the ascent on `view`'s candidate graph (π = 0)."""
    graph, work = _build_graphs(view)[0], _Work.new(view.n)
    pi = np.zeros(view.n)
    _one_tree(graph, pi, work)
    start = time.perf_counter()
    for _ in range(trees):
        _one_tree(graph, pi, work)
    return (time.perf_counter() - start) / trees * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder")
    parser.add_argument("--sizes", default="100,1000", help="uniform dataset sizes (comma-separated; empty: none)")
    parser.add_argument("--tsp", type=Path, action="append", default=[], help="a TSPLIB file to measure too")
    parser.add_argument("--instances", type=int, default=3, help="first N instances of each dataset")
    parser.add_argument("--kicks", type=int, default=8000, help="kicks timed per instance")
    parser.add_argument("--trees", type=int, default=200, help="1-trees timed per instance")
    parser.add_argument("--seed", type=int, default=7, help="seed of the kicks")
    parser.add_argument("--digest", action="store_true", help="print a hash of the tours reached")
    args = parser.parse_args()
    digest = hashlib.sha1()
    instances = [
        instance
        for size in (int(s) for s in args.sizes.split(",") if s)
        for instance in read_dataset(args.shared / "data" / f"tsp{size}_uniform_seed2026.txt", limit=args.instances)
    ] + [load_instances(path)[0] for path in args.tsp]
    rows = []
    for instance in instances:
        view = distance_view(instance)
        kick_cost(view, 8, args.seed, hashlib.sha1())  # compiles, or loads the cache
        per_kick = kick_cost(view, args.kicks, args.seed, digest)
        rows.append((instance.name, instance.n, per_kick, tree_cost(view, args.trees)))
    print(machine_description())
    print()
    print("| instance | n | µs per kick | µs per 1-tree |")
    print("|---|---|---|---|")
    for name, size, per_kick, per_tree in rows:
        print(f"| {name} | {size:,} | {per_kick:.1f} | {per_tree:.1f} |")
    if args.digest:
        print(f"\ntours digest: {digest.hexdigest()}")


if __name__ == "__main__":
    main()

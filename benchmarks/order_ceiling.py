"""The most that a network ranking the candidate edges could buy: the search handed candidate lists
that put each city's two edges of the reference tour first, against the same lists in α order.

The default pipeline's candidates are each city's 8 α-nearest, in α order, after a short ascent
from the penalty network's π. LK steps try them in that order and make the first move that
shortens the tour, so the order decides which moves are found first. A network that scored edges
perfectly would put the edges of the optimal tour first. This script computes, before any clock
starts, the lists and π that the default pipeline would make at each budget (the same share of
it for the ascent), and hands them to the solver with no ascent after them, either in α order or
with the reference tour's two edges of each city moved to the front (inserted at the front when
missing, the last α-candidate then dropping out). Both searches get the whole budget, so their
difference is what the order alone buys; the default pipeline, ascent included, runs beside them.
Needs instances with reference tours (the `../shared/data` files). Run it on one core with one
thread, e.g.

    taskset -c 1 env OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/order_ceiling.py \\
        --dataset ../shared/data/tsp100_uniform_seed2026.txt --budgets 0.0125,0.02 --seeds 2
"""

from __future__ import annotations

import argparse
import os
from contextlib import nullcontext
from functools import partial
from pathlib import Path

import numpy as np
from equal_time import summary  # the sibling scripts' (benchmarks/ is on sys.path)
from penalty_ceiling import given_alphanet, ratio, seeded_results, view_key

import amsolve.solver
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.model.penalties import PenaltyNet
from amsolve.problem import Instance
from amsolve.search.distances import distance_view
from amsolve.solver import CANDIDATE_SHARE, ModelCache


def default_lists(
    instances: list[Instance], budget: float, net: PenaltyNet
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The π (n,) and α-ordered lists (n, 8) that the default pipeline makes for each instance at
    `budget`, by `view_key`: the penalty network's π, then the ascent for the rest of the
    candidates' share of the budget."""
    penalties, lists = {}, {}
    for instance in instances:
        view = distance_view(instance)
        predicted = amsolve.solver.predict_penalties(net, view)
        result = amsolve.solver.alpha_candidates(view, 8, CANDIDATE_SHARE * budget, penalties=predicted)
        penalties[view_key(view)], lists[view_key(view)] = result.penalties, result.candidates
    return penalties, lists


def reference_first(candidates: np.ndarray, tour: np.ndarray) -> np.ndarray:
    """`candidates` (n, k) with each city's two neighbours in `tour` moved (or inserted) to the front."""
    neighbours = np.empty((len(tour), 2), dtype=np.int64)  # (n, 2)
    neighbours[tour, 0], neighbours[tour, 1] = np.roll(tour, 1), np.roll(tour, -1)
    ordered = np.empty_like(candidates)
    for city, row in enumerate(candidates):
        front = list(neighbours[city])
        ordered[city] = (front + [c for c in row if c not in front])[: len(row)]
    return ordered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dataset", type=Path, action="append", required=True, help="dataset file with reference tours"
    )
    parser.add_argument("--limit", type=int, default=None, help="first N instances of each dataset file")
    parser.add_argument("--budgets", default="0.02", help="comma-separated seconds per instance")
    parser.add_argument("--seeds", type=int, default=1, help="how many seeds of the kicks")
    parser.add_argument("--first-seed", type=int, default=0, help="the first of them")
    parser.add_argument("--name", default="instances", help="the datasets' name in the table")
    args = parser.parse_args()
    instances = [i for path in args.dataset for i in load_instances(path, limit=args.limit)]
    if any(i.reference_tour is None for i in instances):
        parser.error("every instance needs a reference tour")
    net = ModelCache(None, "cpu").penalties()
    print(f"machine: {machine_description()}; CPU affinity {sorted(os.sched_getaffinity(0))}; load {os.getloadavg()}")
    print("| instances | budget | solver | mean gap | worst gap | mean s | max s |")
    print("|---|---|---|---|---|---|---|")
    tours = {view_key(distance_view(i)): i.reference_tour for i in instances}
    ratios = []
    for budget in map(float, args.budgets.split(",")):
        penalties, alpha_order = default_lists(instances, budget, net)
        ordered = {key: reference_first(ranked, tours[key]) for key, ranked in alpha_order.items()}
        means = []
        for label, ranked in (
            ("default (its ascent in the budget)", None),
            ("its lists and π given free, α order", alpha_order),
            ("the same, reference edges first", ordered),
        ):
            seeds = range(args.first_seed, args.first_seed + args.seeds)
            context = partial(given_alphanet, penalties, ranked) if ranked is not None else nullcontext
            results = seeded_results(instances, budget, args.name, label, seeds, context)
            means.append(float(np.mean([r.gap_pct for r in results])))
            print(summary(results), flush=True)
        ratios.append(
            f"{budget:g} s: {means[2]:.4f} against {means[1]:.4f} % ({ratio(means[2], means[1])}; "
            f"the default {means[0]:.4f} %)"
        )
    print("\nreference edges first against α order, both given free: " + "; ".join(ratios))
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()

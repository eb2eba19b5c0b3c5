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
`--shares 0.5,0.8,1` asks how right a ranking must be: only that share of the cities, drawn at
random, get the reference edges first, the others keep α order; the table then gives, for each
list order, the share of cities whose first candidate is a reference edge and whose first two are
both of them, and its mean less α order's, solve by solve, ± the standard error (`--json` keeps
every solve). `--cities wrong` (or `right`) draws the share only among the cities where a tour of
the same search, with the α-ordered lists and another seed, has a neighbour the reference lacks
(or has none): whether a ranking pays where the search goes wrong or where it is right already.
`--probes K` adds lists that need no reference: where K such probe tours (seeds of their own) give
a city the same two neighbours, those first, elsewhere α order.
Needs instances with reference tours (the `../shared/data` files). Run it on one core with one
thread, e.g.

    taskset -c 1 env OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/order_ceiling.py \\
        --dataset ../shared/data/tsp100_uniform_seed2026.txt --budgets 0.0125,0.02 --seeds 2
"""

from __future__ import annotations

import argparse
import json
import os
from contextlib import nullcontext
from dataclasses import asdict
from functools import partial
from pathlib import Path

import numpy as np
from equal_time import run_amsolve, summary  # the sibling scripts' (benchmarks/ is on sys.path)
from penalty_ceiling import PIPELINE, given_alphanet, ratio, seeded_results, view_key

import amsolve.solver
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.model.penalties import PenaltyNet
from amsolve.problem import Instance
from amsolve.search.distances import distance_view
from amsolve.solver import CANDIDATE_SHARE, ModelCache

PROBE_SEED = 1_000_000  # the seed of the tours that tell where the search goes wrong, outside the runs' seeds


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


def tour_neighbours(tour: np.ndarray) -> np.ndarray:
    """Each city's two neighbours in `tour`, (n, 2)."""
    neighbours = np.empty((len(tour), 2), dtype=np.int64)  # (n, 2)
    neighbours[tour, 0], neighbours[tour, 1] = np.roll(tour, 1), np.roll(tour, -1)
    return neighbours


def reference_first(candidates: np.ndarray, tour: np.ndarray, chosen: np.ndarray | None = None) -> np.ndarray:
    """`candidates` (n, k) with each city's two neighbours in `tour` moved (or inserted) to the
    front, for the cities where `chosen` (n,) is true (all when it is None); the others as they are."""
    neighbours = tour_neighbours(tour)
    ordered = candidates.copy()
    for city, row in enumerate(candidates):
        if chosen is None or chosen[city]:
            front = list(neighbours[city])
            ordered[city] = (front + [c for c in row if c not in front])[: len(row)]
    return ordered


def probe_tours(
    instances: list[Instance],
    budget: float,
    penalties: dict[str, np.ndarray],
    alpha_order: dict[str, np.ndarray],
    count: int,
) -> dict[str, list[np.ndarray]]:
    """By `view_key`, `count` tours of the search at `budget` with the given lists in α order, from
    seeds `PROBE_SEED` on: what the search settles on, without the reference."""
    probes: dict[str, list[np.ndarray]] = {}
    for seed in range(PROBE_SEED, PROBE_SEED + count):
        with given_alphanet(penalties, alpha_order):
            found = run_amsolve(instances, budget, PIPELINE, seed)
        for instance, (tour, _) in zip(instances, found, strict=True):
            probes.setdefault(view_key(distance_view(instance)), []).append(tour)
    return probes


def same_neighbours(tour: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The cities (n,) whose two neighbours are the same in both tours."""
    return (np.sort(tour_neighbours(tour), axis=1) == np.sort(tour_neighbours(other), axis=1)).all(axis=1)


def cities_label(share: float, cities: str) -> str:
    """Which cities a row's lists put the reference edges first in, for its label."""
    if cities == "random":
        return "" if share == 1 else f" in {share:.0%} of the cities"
    return f" in {'all' if share == 1 else f'{share:.0%} of'} the cities the search gets {cities}"


def paired_difference(gaps: np.ndarray, baseline: np.ndarray) -> str:
    """The mean of `gaps` less `baseline`, solve by solve, ± its standard error, in points."""
    difference = gaps - baseline
    return f"{difference.mean():+.4f} ± {difference.std(ddof=1) / np.sqrt(len(difference)):.4f}"


def first_shares(lists: dict[str, np.ndarray], tours: dict[str, np.ndarray]) -> tuple[float, float]:
    """Over all cities of all instances: the share whose first candidate is a reference-tour edge,
    and the share whose first two candidates are both of them."""
    first = both = total = 0
    for key, ranked in lists.items():
        neighbours = tour_neighbours(tours[key])  # (n, 2)
        hit = (ranked[:, :2, None] == neighbours[:, None, :]).any(axis=2)  # (n, 2)
        first, both, total = first + int(hit[:, 0].sum()), both + int(hit.all(axis=1).sum()), total + len(hit)
    return first / total, both / total


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
    parser.add_argument(
        "--shares",
        default="1",
        help="comma-separated shares of the cities (drawn at random) whose lists put the reference edges first",
    )
    parser.add_argument(
        "--cities",
        choices=("random", "wrong", "right"),
        default="random",
        help="draw the share among all cities, or only those a probe tour of the search gets wrong (or right)",
    )
    parser.add_argument(
        "--probes",
        type=int,
        default=0,
        help="add a row: where this many probe tours of the search agree on a city's neighbours, those first",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every solve's result to this file")
    args = parser.parse_args()
    instances = [i for path in args.dataset for i in load_instances(path, limit=args.limit)]
    if any(i.reference_tour is None for i in instances):
        parser.error("every instance needs a reference tour")
    net = ModelCache(None, "cpu").penalties()
    print(f"machine: {machine_description()}; CPU affinity {sorted(os.sched_getaffinity(0))}; load {os.getloadavg()}")
    print("| instances | budget | solver | mean gap | worst gap | mean s | max s |")
    print("|---|---|---|---|---|---|---|")
    tours = {view_key(distance_view(i)): i.reference_tour for i in instances}
    shares = [float(share) for share in args.shares.split(",")]
    if any(not 0 < share <= 1 for share in shares):
        parser.error("--shares must lie in (0, 1]")
    ratios, orders, everything = [], [], []
    for budget in map(float, args.budgets.split(",")):
        penalties, alpha_order = default_lists(instances, budget, net)
        draws = np.random.default_rng(0)
        uniform = {key: draws.random(len(ranked)) for key, ranked in alpha_order.items()}  # (n,) each
        if args.cities != "random":
            probes = probe_tours(instances, budget, penalties, alpha_order, 1)
            right = {key: same_neighbours(tours[key], probes[key][0]) for key in alpha_order}
            pool = {key: ~mask if args.cities == "wrong" else mask for key, mask in right.items()}
            pooled = sum(int(mask.sum()) for mask in pool.values()) / sum(len(mask) for mask in pool.values())
            print(f"| {budget:g} s: cities the probe tours get {args.cities}: {pooled:.1%} |")
            uniform = {key: np.where(pool[key], draws_of_city, 2.0) for key, draws_of_city in uniform.items()}
        runs: list[tuple[str, dict[str, np.ndarray] | None]] = [
            ("default (its ascent in the budget)", None),
            ("its lists and π given free, α order", alpha_order),
        ]
        for share in shares:
            ordered = {
                key: reference_first(ranked, tours[key], uniform[key] < share) for key, ranked in alpha_order.items()
            }
            label = "the same, reference edges first" + cities_label(share, args.cities)
            runs.append((label, ordered))
        if args.probes > 0:
            probes = probe_tours(instances, budget, penalties, alpha_order, args.probes)
            agreed = {
                key: np.logical_and.reduce([same_neighbours(t, tours_[0]) for t in tours_])
                for key, tours_ in probes.items()
            }
            held = sum(int(mask.sum()) for mask in agreed.values())
            hits = sum(int((mask & same_neighbours(tours[key], probes[key][0])).sum()) for key, mask in agreed.items())
            total = sum(len(mask) for mask in agreed.values())
            print(
                f"| {budget:g} s: cities where {args.probes} probe tours agree: {held / total:.1%}, "
                f"their neighbours the reference's in {hits / held:.1%} of them |"
            )
            runs.append(
                (
                    f"the same, where {args.probes} probe tours agree their edges first",
                    {key: reference_first(ranked, probes[key][0], agreed[key]) for key, ranked in alpha_order.items()},
                )
            )
        means, alpha_gaps = [], np.empty(0)
        for label, ranked in runs:
            seeds = range(args.first_seed, args.first_seed + args.seeds)
            context = partial(given_alphanet, penalties, ranked) if ranked is not None else nullcontext
            results = seeded_results(instances, budget, args.name, label, seeds, context)
            everything += results
            gaps = np.array([r.gap_pct for r in results])  # (seeds × instances,) in the same order every run
            means.append(float(gaps.mean()))
            print(summary(results), flush=True)
            if ranked is alpha_order:
                alpha_gaps = gaps
            if ranked is not None:
                top1, top2 = first_shares(ranked, tours)
                orders.append(
                    f"| {budget:g} s | {label} | {top1:.1%} | {top2:.1%} | {means[-1]:.4f} % | "
                    f"{'–' if ranked is alpha_order else paired_difference(gaps, alpha_gaps)} |"
                )
        ratios += [
            f"{budget:g} s, {label.removeprefix('the same, ')}: {mean:.4f} against {means[1]:.4f} % "
            f"({ratio(mean, means[1])}; the default {means[0]:.4f} %)"
            for (label, _), mean in zip(runs[2:], means[2:], strict=True)
        ]
    print("\nagainst α order, both given free: " + "; ".join(ratios))
    print("\n| budget | lists | a reference edge first | both first | mean gap | less α order's, paired |")
    print("|---|---|---|---|---|---|")
    print("\n".join(orders))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in everything]))
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()

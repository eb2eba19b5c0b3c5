"""The most that learned node penalties could buy: the default pipeline against the same search
given, for free, the π of a converged Held–Karp ascent, at equal time per instance.

`alphanet` candidates spend part of the candidates' share of the budget on predicting π and the
rest on the ascent from there. A perfect predictor would return the converged ascent's π at no
cost and leave no ascent to run. This script computes those π before any clock starts (an ascent of
up to `--ascent` seconds per instance, which stops when it converges) and hands them to the
solver in place of the network's prediction, with no ascent after it (only the one minimum 1-tree
that ranks the edges), so the search gets the whole budget after that. The difference to the default
pipeline at the same budget bounds what any penalty network can gain in this search, as far as the
ascent's stopping rule converges: `--patience P` halves its step after P trees without a better
bound instead of `ASCENT_PATIENCE`, which ends higher on the large TSPLIB instances (the bounds are
printed). Run it on one core with one thread, e.g.

    taskset -c 1 env OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/penalty_ceiling.py \\
        --dataset ../shared/data/tsp1000_uniform_seed2026.txt --budgets 0.3,1 --seeds 2
"""

from __future__ import annotations

import argparse
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial
from pathlib import Path

import numpy as np
from equal_time import Result, gap, run_amsolve, summary  # the sibling script's (benchmarks/ is on sys.path)

import amsolve.solver
from amsolve.bench import read_optima
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.model.penalties import PenaltyNet
from amsolve.problem import Instance
from amsolve.search.candidates.alpha import ASCENT_PATIENCE, AlphaResult, alpha_candidates
from amsolve.search.distances import DistanceView, distance_view

PIPELINE = "greedy-edge+lk@alphanet8"
"""The default pipeline, whose ascent starts from the penalty network's π."""


def view_key(view: DistanceView) -> str:
    """An instance's identity as the solver's own distance view shows it."""
    return hashlib.sha1(np.ascontiguousarray(view.points).tobytes()).hexdigest()


def solver_view(instance: Instance, budget: float) -> DistanceView:
    """The instance's distances numbered as the solver numbers them at `budget`
    (`amsolve.solver.search_order`: along the space-filling curve from 10,000 cities)."""
    view = distance_view(instance)
    return amsolve.solver.renumbered(view, amsolve.solver.search_order(view, budget))


def converged_ascents(
    views: Iterable[DistanceView], seconds: float, patience: int = ASCENT_PATIENCE
) -> dict[str, AlphaResult]:
    """By `view_key`, the ascent from π = 0 of each distinct view, at most `seconds` (it stops
    earlier once converged, its step halved after `patience` trees without a better bound)."""
    ascents: dict[str, AlphaResult] = {}
    for view in views:
        key = view_key(view)
        if key not in ascents:  # the same numbering at another budget: one ascent serves both
            ascents[key] = alpha_candidates(view, 8, seconds, patience=patience)
    return ascents


@contextmanager
def given_alphanet(given_pi: dict[str, np.ndarray], ranked: dict[str, np.ndarray] | None = None) -> Iterator[None]:
    """While active, `alphanet` candidates of the instances in `given_pi` (by `view_key`) take the
    given π and run no ascent from them: their lists are ranked by α under those π, or are the
    given `ranked` lists (n, k) of the same instances. Other instances, such as the warm-up's, are
    left as they are. Every instance given must be solved inside, numbered as in `solver_view`:
    a RuntimeError at the end says when one never reached the candidates."""
    solver = amsolve.solver
    predict, candidates = solver.predict_penalties, solver.alpha_candidates
    given_ids = {id(array) for array in given_pi.values()}
    given_lists = {id(given_pi[key]): lists for key, lists in (ranked or {}).items()}
    looked_up: set[str] = set()

    def lookup(net: PenaltyNet, view: DistanceView, neighbours: np.ndarray | None = None) -> np.ndarray:
        key = view_key(view)
        given = given_pi.get(key)
        looked_up.add(key)
        return predict(net, view, neighbours) if given is None else given

    def no_ascent(
        view: DistanceView, k: int, seconds: float, penalties: np.ndarray | None = None, **options: object
    ) -> AlphaResult:
        if penalties is None or id(penalties) not in given_ids:  # not the very arrays `lookup` returned
            return candidates(view, k, seconds, penalties=penalties, **options)
        lists = given_lists.get(id(penalties))
        if lists is None:
            return candidates(view, k, 0.0, penalties=penalties, **options)
        return AlphaResult(lists.copy(), penalties.copy(), float("nan"), 0)

    solver.predict_penalties, solver.alpha_candidates = lookup, no_ascent
    try:
        yield
    finally:
        solver.predict_penalties, solver.alpha_candidates = predict, candidates
    missed = len(set(given_pi) - looked_up)
    if missed:  # every instance given is solved inside; one the solver numbered otherwise would get the network's π
        raise RuntimeError(f"the given π of {missed} instances never reached the solver: numbered otherwise?")


def ratio(numerator: float, denominator: float) -> str:
    """numerator / denominator as "0.81×", or "n/a" when the denominator is no gap at all."""
    return f"{numerator / denominator:.2f}×" if denominator > 1e-9 else "n/a"


def seeded_results(
    instances: list[Instance],
    budget: float,
    name: str,
    label: str,
    seeds: range,
    context: Callable[[], AbstractContextManager[None]],
) -> list[Result]:
    """The default pipeline's results on `instances` at `budget`, one run per seed, each inside
    `context()`, under the dataset `name` and the solver `label`."""
    results = []
    for seed in seeds:
        with context():
            found = run_amsolve(instances, budget, PIPELINE, seed)
        results += [
            Result(name, i.name, label, budget, gap(i, t), s, True, seed)
            for i, (t, s) in zip(instances, found, strict=True)
        ]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, action="append", required=True, help="dataset file or .tsp file")
    parser.add_argument("--limit", type=int, default=None, help="first N instances of each dataset file")
    parser.add_argument("--optima", type=Path, default=None, help="CSV name,optimal for .tsp files")
    parser.add_argument("--budgets", default="1", help="comma-separated seconds per instance")
    parser.add_argument("--seeds", type=int, default=1, help="how many seeds of the kicks")
    parser.add_argument("--first-seed", type=int, default=0, help="the first of them")
    parser.add_argument("--ascent", type=float, default=60.0, help="most seconds of the converged ascent")
    parser.add_argument(
        "--patience", type=int, default=ASCENT_PATIENCE, help="trees without a better bound before its step halves"
    )
    parser.add_argument("--name", default="instances", help="the datasets' name in the table")
    args = parser.parse_args()
    optima = read_optima(args.optima) if args.optima else {}
    instances = [i for path in args.dataset for i in load_instances(path, limit=args.limit)]
    instances = [i.with_reference(length=optima[i.name], optimal=True) if i.name in optima else i for i in instances]
    budgets = [float(budget) for budget in args.budgets.split(",")]
    views = {budget: [solver_view(i, budget) for i in instances] for budget in budgets}
    keys = {budget: [view_key(view) for view in by_budget] for budget, by_budget in views.items()}
    every_view = (view for by_budget in views.values() for view in by_budget)
    ascents = converged_ascents(every_view, args.ascent, args.patience)
    penalties = {budget: {key: ascents[key].penalties for key in by_budget} for budget, by_budget in keys.items()}
    print(f"machine: {machine_description()}; CPU affinity {sorted(os.sched_getaffinity(0))}; load {os.getloadavg()}")
    bounds = ", ".join(
        f"{i.name} {ascents[key].lower_bound:,.1f} ({ascents[key].iterations} trees)"
        for i, key in zip(instances, keys[budgets[0]], strict=True)
    )
    print(f"the converged ascents (patience {args.patience}): {bounds}")
    print("| instances | budget | solver | mean gap | worst gap | mean s | max s |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for budget in budgets:
        means = []
        for label, given in (("default (predicted π, then the ascent)", False), ("converged π given free", True)):
            seeds = range(args.first_seed, args.first_seed + args.seeds)
            context = partial(given_alphanet, penalties[budget]) if given else nullcontext
            results = seeded_results(instances, budget, args.name, label, seeds, context)
            means.append(float(np.mean([r.gap_pct for r in results])))
            print(summary(results), flush=True)
        ratios.append(f"{budget:g} s: {means[1]:.4f} against {means[0]:.4f} % ({ratio(means[1], means[0])})")
    print("\nconverged π given free against the default: " + "; ".join(ratios))
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()

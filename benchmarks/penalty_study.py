"""Learned node penalties against the ascent: the Held–Karp bound and the α-candidates' coverage
after a given time of ascent, started at π = 0 or at the penalty network's prediction
(`amsolve.model.penalties`, weights in `models/penalties`), the prediction's time counted.

    python benchmarks/penalty_study.py ../shared/data/tsp1000_uniform_seed2026.txt
    python benchmarks/penalty_study.py ../shared/tsplib_large/*.tsp --optima ../shared/tsplib_large/optimal.csv

`--net DIR` takes another penalty network (as `benchmarks/train_penalties.py --out DIR` writes it),
`--budgets` other ascent times (the candidates' 15 % of a 5 s and a 30 s limit: `0.75,4.5`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from candidate_coverage import coverage  # a script beside this one

from amsolve.bench import read_optima
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.model.penalties import load_penalty_net, predict_penalties
from amsolve.model.registry import models_root
from amsolve.search.candidates.alpha import alpha_candidates
from amsolve.search.distances import distance_view

BUDGETS = "0,0.05,0.2,1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--optima", type=Path, default=None)
    parser.add_argument("--net", type=Path, default=models_root() / "penalties", help="penalty network directory")
    parser.add_argument("--budgets", default=BUDGETS, help="comma-separated seconds of ascent")
    args = parser.parse_args()
    torch.set_num_threads(1)
    optima = read_optima(args.optima) if args.optima else {}
    instances = [i for path in args.paths for i in load_instances(path, limit=args.limit)]
    instances = [i.with_reference(length=optima[i.name], optimal=True) if i.name in optima else i for i in instances]
    net = load_penalty_net(args.net)
    alpha_candidates(distance_view(instances[0]), 5, 0.01)  # compile
    print(f"machine: {machine_description()}; {len(instances)} instances; penalty network {args.net}")
    print("| start | ascent s | bound below the reference | top-5 coverage | s / instance |")
    print("|---|---|---|---|---|")
    for start in ("π = 0", "predicted π"):
        for budget in map(float, args.budgets.split(",")):
            below, covered, seconds = [], [], []
            for instance in instances:
                view = distance_view(instance)
                began = time.perf_counter()
                penalties = predict_penalties(net, view) if start == "predicted π" else None
                result = alpha_candidates(view, 5, budget, penalties=penalties)
                seconds.append(time.perf_counter() - began)
                below.append(100 * (1 - result.lower_bound / instance.reference_length))
                if instance.reference_tour is not None:
                    covered.append(coverage(result.candidates, instance.reference_tour, 5))
            cover = f"{100 * np.mean(covered):.2f} %" if covered else "–"
            print(f"| {start} | {budget:g} | {np.mean(below):.3f} % | {cover} | {np.mean(seconds):.3f} |", flush=True)


if __name__ == "__main__":
    main()

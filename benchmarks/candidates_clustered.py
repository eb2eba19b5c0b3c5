"""8 against 12 α-nearness candidates (the default pipeline) on Gaussian-clustered instances of
5,000 cities, each instance solved by both in turn, one process a core; one JSON line per solve.

    python benchmarks/candidates_clustered.py INSTANCE_SEEDS SOLVE_SEEDS SECONDS   (seeds comma-separated)

The instances are `train_penalties.py`'s clustered ones (3–11 centres with one spread of
0.02–0.08), one per instance seed, scaled by 10^6. The study behind
`results/candidates_k12_large_16ba2ff.md`, last section.
"""

import json
import sys

import numpy as np
from equal_time import pipeline_options  # the sibling scripts' (benchmarks/ is on sys.path)
from train_penalties import instance as drawn_instance

from amsolve.problem import Instance
from amsolve.solver import solve_instances

CITIES = 5000


def clustered(seed: int) -> Instance:
    """`CITIES` cities around a few Gaussian centres in the unit square, scaled by 10^6."""
    coords = drawn_instance(np.random.default_rng(seed), CITIES, clustered=True) * 1e6
    return Instance(name=f"gauss5000_{seed}", coords=coords, metric="EUCLIDEAN", ids=np.arange(1, CITIES + 1))


def main() -> None:
    instance_seeds = [int(s) for s in sys.argv[1].split(",")]
    solve_seeds = [int(s) for s in sys.argv[2].split(",")]
    budget = float(sys.argv[3])
    for solve_seed in solve_seeds:
        for turn, instance_seed in enumerate(instance_seeds):
            instance = clustered(instance_seed)
            for k in (8, 12) if (turn + solve_seed) % 2 == 0 else (12, 8):
                options = pipeline_options(f"greedy-edge+lk@alphanet{k}", budget, solve_seed)
                [solution] = solve_instances([instance], options)
                row = {"instance": instance.name, "seed": solve_seed, "k": k}
                print(json.dumps(row | {"length": solution.length, "seconds": solution.seconds}), flush=True)


if __name__ == "__main__":
    main()

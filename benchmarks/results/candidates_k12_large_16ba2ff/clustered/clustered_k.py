"""8 against 12 α-nearness candidates (the default pipeline) on Gaussian-clustered instances of
5,000 cities, each instance solved by both in turn, one process a core; one JSON line per solve.

    python clustered_k.py INSTANCE_SEEDS SOLVE_SEEDS SECONDS   (seeds comma-separated)

The instances are drawn as `benchmarks/train_penalties.py` draws its clustered ones, 3–11 centres
with one spread of 0.02–0.08, scaled by 10^6. An exploratory study: it was run once, as it is here.
"""

import json
import sys
from dataclasses import replace

import numpy as np

from amsolve.pipeline import parse_pipeline
from amsolve.problem import Instance
from amsolve.solver import SolveOptions, solve_instances


def clustered(seed: int, n: int = 5000) -> np.ndarray:
    """n cities around a few Gaussian centres in the unit square, scaled by 10^6."""
    rng = np.random.default_rng(seed)
    centres = rng.random((int(rng.integers(3, 12)), 2))
    spread = rng.uniform(0.02, 0.08)
    return (centres[rng.integers(len(centres), size=n)] + rng.normal(0, spread, (n, 2))) * 1e6


def main() -> None:
    instance_seeds = [int(s) for s in sys.argv[1].split(",")]
    solve_seeds = [int(s) for s in sys.argv[2].split(",")]
    budget = float(sys.argv[3])
    for solve_seed in solve_seeds:
        for turn, instance_seed in enumerate(instance_seeds):
            coords = clustered(instance_seed)
            ids = np.arange(1, len(coords) + 1)
            instance = Instance(name=f"gauss5000_{instance_seed}", coords=coords, metric="EUCLIDEAN", ids=ids)
            for k in (8, 12) if (turn + solve_seed) % 2 == 0 else (12, 8):
                options = parse_pipeline(f"greedy-edge+lk@alphanet{k}", SolveOptions(device="cpu", time_limit=budget))
                options = replace(options, decode=replace(options.decode, seed=solve_seed))
                [solution] = solve_instances([instance], options)
                row = {"instance": instance.name, "seed": solve_seed, "k": k}
                print(json.dumps(row | {"length": solution.length, "seconds": solution.seconds}), flush=True)


if __name__ == "__main__":
    main()

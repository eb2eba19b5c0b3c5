"""`amsolve solve` on one large instance of uniform random cities: wall time, peak memory and the
tour's gap above the Beardwood–Halton–Hammersley estimate 0.7124·√(n·A) of the optimal length.

    python benchmarks/large_uniform.py --cities 100000
    python benchmarks/large_uniform.py --cities 100000 --time-limit 120 --decode local

The cities are drawn uniformly in a square of side 1,000,000 (seeded) and written as a CSV; the
solve runs in a process of its own (all its one-time costs counted in the wall time), and its
peak resident memory is that process's.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from amsolve.machine import machine_description

SIDE = 1_000_000.0
BHH_CONSTANT = 0.7124
"""Asymptotic optimal tour length per √(n·A) for uniform random cities (Applegate et al.)."""


def uniform_points(cities: int, seed: int) -> np.ndarray:
    """The cities (cities, 2), uniform in the square of side `SIDE`."""
    return np.random.default_rng(seed).uniform(0.0, SIDE, size=(cities, 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cities", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--time-limit", type=float, default=None, help="passed to amsolve solve")
    parser.add_argument("--decode", default=None, help="passed to amsolve solve (default: its default)")
    parser.add_argument("--candidates", default=None, help="passed to amsolve solve")
    parser.add_argument("--candidates-k", type=int, default=None, help="passed to amsolve solve")
    parser.add_argument("--solve-seed", type=int, default=None, help="passed to amsolve solve as --seed")
    args = parser.parse_args()
    points = uniform_points(args.cities, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"uniform{args.cities}.csv"
        np.savetxt(path, points, delimiter=",", fmt="%.3f")
        command = [sys.executable, "-m", "amsolve", "solve", str(path), "--json"]
        for option, value in (
            ("--time-limit", args.time_limit),
            ("--decode", args.decode),
            ("--seed", args.solve_seed),
            ("--candidates", args.candidates),
            ("--candidates-k", args.candidates_k),
        ):
            if value is not None:
                command += [option, str(value)]
        began = time.perf_counter()
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - began
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    row = json.loads(output)["instances"][0]
    estimate = BHH_CONSTANT * math.sqrt(args.cities * SIDE * SIDE)
    print(f"machine: {machine_description()}")
    print("| cities | pipeline | wall s | solve s | peak MiB | length | above 0.7124·√(nA) |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {args.cities:,} | {row['decode']} | {wall:.1f} | {row['seconds']:.1f} | {peak_mib:,.0f} | "
        f"{row['length']:,.0f} | {100 * (row['length'] / estimate - 1):.2f} % |"
    )


if __name__ == "__main__":
    main()

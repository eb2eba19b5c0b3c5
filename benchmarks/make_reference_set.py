"""Uniform TSP instances with LKH-3 reference tours (through elkai), as Concorde-style text.

Used for validation sets, the default bench suite and supervised warm starts. elkai is a
development dependency only (`pip install .[bench]`); amsolve itself never needs it.

    python benchmarks/make_reference_set.py --nodes 20 --count 1000 --seed 7 --out runs/val20.txt
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import Pool
from pathlib import Path

import elkai
import numpy as np

from amsolve.io.dataset import write_dataset
from amsolve.problem.distance import tour_length

SCALE = 10**6  # LKH works on integers: coordinates ×10^6, TSPLIB EUC_2D rounding


def solve(coords: np.ndarray, runs: int) -> np.ndarray:
    """An LKH-3 tour (0-based) of coords (n, 2) in the unit square, rotated to start at city 0."""
    cities = elkai.Coordinates2D({index: (float(x * SCALE), float(y * SCALE)) for index, (x, y) in enumerate(coords)})
    tour = np.array(cities.solve_tsp(runs=runs)[:-1], dtype=np.int64)
    return np.roll(tour, -int(np.argmax(tour == 0)))


def _solve_star(arguments: tuple[np.ndarray, int]) -> np.ndarray:
    return solve(*arguments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--runs", type=int, default=1, help="LKH runs per instance")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()

    coords = np.round(np.random.default_rng(args.seed).uniform(size=(args.count, args.nodes, 2)), 6)
    started = time.perf_counter()
    with Pool(args.processes) as pool:
        tours = pool.map(_solve_star, [(instance, args.runs) for instance in coords], chunksize=16)
    seconds = time.perf_counter() - started
    write_dataset(args.out, list(coords), tours, force=args.force)
    mean = np.mean([tour_length(instance, "EUCLIDEAN", tour) for instance, tour in zip(coords, tours)])
    print(f"{args.out}: {args.count} instances of {args.nodes} cities, mean reference length {mean:.5f}, "
          f"{seconds:.0f} s ({seconds / args.count * 1000:.1f} ms per instance)")


if __name__ == "__main__":
    main()

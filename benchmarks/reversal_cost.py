"""What a reversal of the tour array costs: nanoseconds per swapped pair of positions, for
reversals of a given length on tours of a given size, the stretches drawn at random.

    taskset -c 1 python benchmarks/reversal_cost.py
    taskset -c 1 python benchmarks/reversal_cost.py --cases 1000:68,100000:3200

Reversals are most of a kick's time on large tours (docs/DESIGN.md, "Where 3-D falls behind"), so
this is the primitive to time when the tour's representation changes. Run pinned to one core
(`taskset`); prints the machine and a markdown table.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from amsolve.machine import machine_description
from amsolve.search.tour import Tour, commit, new_tour, reverse


@njit(cache=True)
def _reversals(tour: Tour, firsts: np.ndarray, length: int) -> None:
    """Reverse the stretch of `length` positions from each of `firsts`, forgetting the journal."""
    n = tour.order.shape[0]
    for first in firsts:
        reverse(tour, first, (first + length - 1) % n)
        commit(tour)


def nanoseconds_per_swap(n: int, length: int, reversals: int, seed: int) -> float:
    """Mean time of one swapped pair in `reversals` reversals of `length` positions on n cities."""
    rng = np.random.default_rng(seed)
    tour = new_tour(rng.permutation(n))
    firsts = rng.integers(0, n, reversals)
    _reversals(tour, firsts[:8], length)  # compiles, or loads the cache
    start = time.perf_counter()
    _reversals(tour, firsts, length)
    seconds = time.perf_counter() - start
    if not np.array_equal(tour.pos[tour.order], np.arange(n)):
        raise AssertionError("the positions no longer match the order")
    return seconds / (reversals * min(length, n - length) // 2) * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="1000:68,10000:556,100000:1580", help="n:length pairs (comma-separated)")
    parser.add_argument("--reversals", type=int, default=200_000, help="reversals timed per case")
    parser.add_argument("--seed", type=int, default=0, help="seed of the tours and stretches")
    args = parser.parse_args()
    rows = []
    for case in args.cases.split(","):
        n, length = (int(part) for part in case.split(":"))
        rows.append((n, length, nanoseconds_per_swap(n, length, args.reversals, args.seed)))
    print(machine_description())
    print()
    print("| cities | positions reversed | ns per swapped pair |")
    print("|---|---|---|")
    for n, length, ns in rows:
        print(f"| {n:,} | {length:,} | {ns:.2f} |")


if __name__ == "__main__":
    main()

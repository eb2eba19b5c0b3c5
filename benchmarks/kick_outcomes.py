"""Where the kicks' time goes: how each kick of the search ends (taken back to the length it started
from, kept longer, shorter, or undone as too long) and what share of the kicks, of their time and of
their examined cities each outcome takes, on the first instances of a uniform dataset.

    taskset -c 1 python benchmarks/kick_outcomes.py
    taskset -c 1 python benchmarks/kick_outcomes.py --size 100 --instances 4 --slack 0.5

The kicks are the default search's (`amsolve.search.kicks.kick`, then the 3-opt LK search from the
kicked cities) over 8 α-nearest from a converged ascent, with the slack held at `--slack` mean
edges; the search after each kick is stepped city by city from Python, so the times include
Python's overhead and are for comparing outcomes, not for the cost of a kick (`kick_cost.py`).
"Examined after the return" counts the cities examined after the search had brought the tour back
to its length before the kick, in kicks that ended there: the work the search saves by stopping at
that point (`local_search._drain`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from kick_cost import local_optimum

from amsolve.io.dataset import read_dataset
from amsolve.machine import machine_description
from amsolve.search import local_search
from amsolve.search.active import new_active, pop, size
from amsolve.search.distances import DistanceView, distance_view, tour_length
from amsolve.search.kicks import KICK_SEGMENT, kick, seed_kicks
from amsolve.search.tour import commit, undo

SHARED = Path(__file__).resolve().parents[2] / "shared"

OUTCOMES = ("back to its length", "kept, longer", "shorter", "undone, too long")


def kick_outcomes(view: DistanceView, kicks: int, slack: float, seed: int) -> dict[str, np.ndarray]:
    """Per kick on `view`: its outcome (index into OUTCOMES), seconds, cities examined, and cities
    examined after the tour was back at its length before the kick."""
    space, code, tour, work = local_optimum(view)
    allowed = slack * tour_length(view.points, view.code, tour.order) / view.n
    active = new_active(view.n)
    seed_kicks(seed)
    outcome, seconds = np.empty(kicks, dtype=np.int64), np.empty(kicks)
    examined, after_return = np.zeros(kicks, dtype=np.int64), np.zeros(kicks, dtype=np.int64)
    for i in range(kicks):
        commit(tour)
        started = time.perf_counter()
        change = kick(space, tour, active, KICK_SEGMENT, i)
        returned_at = -1
        while size(active):
            change += local_search._examine(space, tour, active, work, code, pop(active))
            examined[i] += 1
            if returned_at < 0 and abs(change) <= space.tolerance:
                returned_at = examined[i]
        seconds[i] = time.perf_counter() - started
        if abs(change) <= space.tolerance:
            outcome[i] = 0
            after_return[i] = examined[i] - returned_at
        else:
            outcome[i] = 1 if 0.0 < change <= allowed else 2 if change < 0.0 else 3
        if change > allowed:
            undo(tour, 0)
    return {"outcome": outcome, "seconds": seconds, "examined": examined, "after_return": after_return}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder")
    parser.add_argument("--size", type=int, default=1000, help="uniform dataset size")
    parser.add_argument("--instances", type=int, default=3, help="first N instances of the dataset")
    parser.add_argument("--kicks", type=int, default=10000, help="kicks per instance")
    parser.add_argument("--slack", type=float, default=local_search.SLACK_END, help="slack, in mean edges")
    parser.add_argument("--seed", type=int, default=3, help="seed of the kicks")
    args = parser.parse_args()
    path = args.shared / "data" / f"tsp{args.size}_uniform_seed2026.txt"
    runs = [
        kick_outcomes(distance_view(i), args.kicks, args.slack, args.seed)
        for i in read_dataset(path, limit=args.instances)
    ]
    joined = {key: np.concatenate([run[key] for run in runs]) for key in runs[0]}
    outcome, seconds, examined = joined["outcome"], joined["seconds"], joined["examined"]
    print(machine_description())
    print(f"\n{args.instances} × {args.kicks:,} kicks at n = {args.size:,}, slack {args.slack} mean edges\n")
    print("| outcome | kicks | time | examined cities | examined per kick |")
    print("|---|---|---|---|---|")
    for index, name in enumerate(OUTCOMES):
        mine = outcome == index
        per_kick = examined[mine].mean() if mine.any() else 0.0
        print(
            f"| {name} | {mine.mean():.1%} | {seconds[mine].sum() / seconds.sum():.1%} "
            f"| {examined[mine].sum() / examined.sum():.1%} | {per_kick:.1f} |"
        )
    print(f"\nexamined after the return: {joined['after_return'].sum() / examined.sum():.1%} of all examined cities")


if __name__ == "__main__":
    main()

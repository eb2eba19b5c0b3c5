"""Which edges of a tour the search ends with are wrong (not in the reference tour), and how well
what the α-candidate lists say about an edge tells them apart: the question a network placing the
kicks would have to answer (issue 34; `results/kick_ceiling.md`).

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 taskset -c 1 python benchmarks/wrong_edges.py \\
        [--dataset ../shared/data/tsp1000_uniform_seed2026.txt] [--limit 8] [--seeds 3] [--budget 0.3]

Each instance is solved with the default pipeline at `--budget` for each seed; each edge (a, b) of
the tours is described by its ranks in the two ends' 8 α-candidate lists (the lists the default
makes in a 1 s budget: the penalty network's π, then the ascent; 8 when absent), its length over
the mean nearest-neighbour distance and its length ranks among the two ends' distances. Printed:
the share of wrong edges; the AUC of each description for telling wrong from right; the share
wrong at each rank sum; and the precision of choosing, among K edges of a tour drawn at random,
the one with the highest rank sum (ties broken at random), as `kick_ceiling.patch`'s `AMS_TARGET=K`
does.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NamedTuple

import numpy as np

import amsolve
from amsolve.io import load_instances
from amsolve.model.penalties import PenaltyNet
from amsolve.problem import Instance
from amsolve.search.distances import distance_view
from amsolve.solver import CANDIDATE_SHARE, ModelCache, alpha_candidates, predict_penalties

ABSENT = 8  # the rank given to an edge missing from a candidate list


def auc(scores: np.ndarray, wrong: np.ndarray) -> float:
    """The chance that a wrong edge scores above a right one (ties counted half)."""
    order = np.argsort(scores, kind="stable")
    sorted_scores = scores[order]
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(len(scores), dtype=float)
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_scores)) + 1]
    ends = np.r_[starts[1:], len(scores)]
    for start, end in zip(starts, ends, strict=True):  # average ranks over ties
        if end - start > 1:
            ranks[order[start:end]] = (start + end - 1) / 2
    positives = wrong.sum()
    if positives == 0 or positives == len(wrong):
        return float("nan")
    return float((ranks[wrong].sum() - positives * (positives - 1) / 2) / (positives * (~wrong).sum()))


class InstanceTables(NamedTuple):
    """What this script and `kick_network.py` read of an instance besides its tours."""

    lists: np.ndarray  # (n, 8) the α-candidate lists the default makes in a 1 s budget
    penalties: np.ndarray  # (n,) π behind them
    distances: np.ndarray  # (n, n), infinite on the diagonal
    mean_nearest: float  # the mean distance to a city's nearest
    rank: np.ndarray  # (n, n): rank[a, b] is b's place in a's list, ABSENT when missing
    reference_next: np.ndarray  # (n,) each city's successor on the reference tour
    reference_previous: np.ndarray  # (n,) and its predecessor

    def wrong(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Whether each edge (a[i], b[i]) is missing from the reference tour."""
        return (self.reference_next[a] != b) & (self.reference_previous[a] != b)


def instance_tables(instance: Instance, network: PenaltyNet) -> InstanceTables:
    """The tables of `instance`: the default's α lists (the penalty network's π, then the ascent), the
    distances, the ranks, the reference tour's neighbours."""
    view = distance_view(instance)
    alpha = alpha_candidates(view, 8, CANDIDATE_SHARE, penalties=predict_penalties(network, view))
    lists = alpha.candidates  # (n, 8)
    n = view.n
    reference = np.asarray(instance.reference_tour)
    reference_next, reference_previous = np.empty(n, int), np.empty(n, int)
    reference_next[reference], reference_previous[reference] = np.roll(reference, -1), np.roll(reference, 1)
    points = np.asarray(view.points, dtype=float)  # (n, 2)
    distances = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1))  # (n, n)
    np.fill_diagonal(distances, np.inf)
    rank = np.full((n, n), ABSENT)
    rank[np.repeat(np.arange(n), lists.shape[1]), lists.ravel()] = np.tile(np.arange(lists.shape[1]), n)
    mean_nearest = float(distances.min(axis=1).mean())
    return InstanceTables(lists, alpha.penalties, distances, mean_nearest, rank, reference_next, reference_previous)


def describe_edges(dataset: Path, limit: int, seeds: int, budget: float) -> dict[str, np.ndarray]:
    """Per edge of every solve: the α ranks at both ends, the length features, wrong or not, the solve."""
    instances = load_instances(dataset, limit=limit)
    network = ModelCache(None, "cpu").penalties()
    names = ("rank_a", "rank_b", "length", "length_rank_a", "length_rank_b", "wrong", "solve")
    columns: dict[str, list[np.ndarray]] = {name: [] for name in names}
    solve_index = 0
    for instance in instances:
        tables = instance_tables(instance, network)
        distances, rank, n = tables.distances, tables.rank, len(tables.lists)
        for seed in range(seeds):
            tour = np.asarray(amsolve.solve(instance, time_limit=budget, seed=seed).tour)
            a, b = tour, np.roll(tour, -1)
            length = distances[a, b]
            columns["rank_a"].append(rank[a, b])
            columns["rank_b"].append(rank[b, a])
            columns["length"].append(length / tables.mean_nearest)
            columns["length_rank_a"].append((distances[a] < length[:, None]).sum(axis=1))
            columns["length_rank_b"].append((distances[b] < length[:, None]).sum(axis=1))
            columns["wrong"].append(tables.wrong(a, b))
            columns["solve"].append(np.full(n, solve_index))
            solve_index += 1
    return {k: np.concatenate(v) for k, v in columns.items()}


def best_of_k_precision(edges: dict[str, np.ndarray], k: int, draws: int, rng: np.random.Generator) -> float:
    """How often the edge with the highest rank sum among k drawn from one tour is wrong."""
    rank_sum = edges["rank_a"] + edges["rank_b"]
    starts = np.flatnonzero(np.r_[True, np.diff(edges["solve"]) != 0])
    ends = np.r_[starts[1:], len(rank_sum)]
    hits = 0
    for _ in range(draws):
        solve = rng.integers(len(starts))
        chosen = rng.integers(starts[solve], ends[solve], size=k)
        scores = rank_sum[chosen] + rng.random(k) * 0.5  # random tie-break
        hits += int(edges["wrong"][chosen[np.argmax(scores)]])
    return hits / draws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path("../shared/data/tsp1000_uniform_seed2026.txt"))
    parser.add_argument("--limit", type=int, default=8, help="instances")
    parser.add_argument("--seeds", type=int, default=3, help="solves per instance")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds a solve")
    args = parser.parse_args()
    edges = describe_edges(args.dataset, args.limit, args.seeds, args.budget)
    wrong = edges["wrong"]
    print(f"{len(wrong)} tour edges, {wrong.sum()} wrong ({wrong.mean() * 100:.2f} %)")
    rank_sum = edges["rank_a"] + edges["rank_b"]
    scores = {
        "α rank sum": rank_sum,
        "α rank, the lower end": np.minimum(edges["rank_a"], edges["rank_b"]),
        "α rank, the higher end": np.maximum(edges["rank_a"], edges["rank_b"]),
        "length rank sum": edges["length_rank_a"] + edges["length_rank_b"],
        "length / mean nearest": edges["length"],
    }
    for name, score in scores.items():
        print(f"AUC {auc(score.astype(float), wrong):.3f}  {name}")
    print("rank sum | edges | wrong")
    for value in np.unique(rank_sum):
        held = rank_sum == value
        print(f"{value:8d} | {held.sum():5d} | {wrong[held].mean() * 100:.2f} %")
    rng = np.random.default_rng(0)
    for k in (1, 2, 4, 8, 16, 32):
        precision = best_of_k_precision(edges, k, 20000, rng)
        print(f"highest rank sum of {k:2d} random edges is wrong {precision * 100:.1f} %")


if __name__ == "__main__":
    main()

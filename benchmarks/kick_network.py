"""Can a small network tell the wrong edges of a searched tour well enough to place the kicks?
(issue 34; the kick ceiling in `results/kick_ceiling.md` says what it would need).

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 taskset -c 1 python benchmarks/kick_network.py \\
        [--dataset ../shared/data/tsp1000_uniform_seed2026.txt] [--limit 32] [--seeds 6] [--budget 0.3]

Each instance is solved with the default pipeline at `--budget` for each seed. Every edge (a, b)
of the tours is described by what the search could compute at a kick in O(k): the ranks the two
ends give each other in their 8 α-candidate lists, its length (over the mean nearest-neighbour
distance) and length ranks, both ends' π, how far a and b each stand out of the tour (the detour
d(a⁻, a) + d(a, b) − d(a⁻, b) and its mirror), and the best 2-opt move through one of the two
ends' candidates (at a local optimum at most 0; near 0 means a nearly-as-good alternative),
together with the same for the two tour edges on each side (`--context`). A perceptron (two hidden layers of
64) learns from them which edges the reference tour lacks, in four folds by instance (trained on
three quarters of the instances, scored on the rest). Printed, against the α rank sum of
`wrong_edges.py` on the same edges: the AUC; the precision when as many edges are flagged as it
takes to hold half, and four fifths, of the wrong ones; and the precision of the best-scored of K
edges drawn at random from a tour, as a kick placed by it would have.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from wrong_edges import auc, instance_tables  # the sibling script's (benchmarks/ is on sys.path)

import amsolve
from amsolve.io import load_instances
from amsolve.solver import ModelCache

FOLDS = 4


def edge_features(
    tour: np.ndarray, distances: np.ndarray, rank: np.ndarray, lists: np.ndarray, pi: np.ndarray, scale: float
) -> np.ndarray:
    """(n, f): the description of each tour edge (tour[p], tour[p + 1]), lengths over `scale`."""
    n = len(tour)
    a, b = tour, np.roll(tour, -1)  # (n,)
    before, after = np.roll(tour, 1), np.roll(tour, -2)  # a's predecessor, b's successor
    position = np.empty(n, int)
    position[tour] = np.arange(n)
    successor, predecessor = np.roll(tour, -1)[position], np.roll(tour, 1)[position]  # (n,) by city
    length = distances[a, b]
    rank_ab, rank_ba = rank[a, b], rank[b, a]
    length_rank_a = np.minimum((distances[a] < length[:, None]).sum(axis=1), 20)
    length_rank_b = np.minimum((distances[b] < length[:, None]).sum(axis=1), 20)
    detour_a = distances[before, a] + length - distances[before, b]
    detour_b = length + distances[b, after] - distances[a, after]
    # the best 2-opt move removing (a, b): from a to one of its candidates c, with (c, succ c) removed
    # and (b, succ c) added; from b to one of its candidates c, with (pred c, c) and (a, pred c)
    c_of_a, c_of_b = lists[a], lists[b]  # (n, 8)
    gain_a = length[:, None] + distances[c_of_a, successor[c_of_a]] - distances[a[:, None], c_of_a]
    gain_a -= distances[b[:, None], successor[c_of_a]]
    gain_b = length[:, None] + distances[predecessor[c_of_b], c_of_b] - distances[b[:, None], c_of_b]
    gain_b -= distances[a[:, None], predecessor[c_of_b]]
    gain_a[(c_of_a == b[:, None]) | (c_of_a < 0)] = -np.inf
    gain_b[(c_of_b == a[:, None]) | (c_of_b < 0)] = -np.inf
    best_gain = np.maximum(gain_a.max(axis=1), gain_b.max(axis=1))
    best_gain = np.maximum(best_gain, -5 * scale)
    return np.stack(
        [
            np.minimum(rank_ab, rank_ba),
            np.maximum(rank_ab, rank_ba),
            length / scale,
            np.minimum(length_rank_a, length_rank_b),
            np.maximum(length_rank_a, length_rank_b),
            (pi[a] + pi[b]) / scale,
            np.abs(pi[a] - pi[b]) / scale,
            np.minimum(detour_a, detour_b) / scale,
            np.maximum(detour_a, detour_b) / scale,
            best_gain / scale,
        ],
        axis=1,
    )


def describe_edges(dataset: Path, limit: int, seeds: int, budget: float, context: int) -> dict[str, np.ndarray]:
    """Per edge of every solve: its description with that of the `context` tour edges on each side,
    wrong or not, the solve, the instance."""
    instances = load_instances(dataset, limit=limit)
    network = ModelCache(None, "cpu").penalties()
    columns: dict[str, list[np.ndarray]] = {"features": [], "rank_sum": [], "wrong": [], "solve": [], "instance": []}
    solve_index = 0
    for index, instance in enumerate(instances):
        tables = instance_tables(instance, network)
        distances, rank, n, scale = tables.distances, tables.rank, len(tables.lists), tables.mean_nearest
        np.fill_diagonal(distances, 0.0)  # a city counts itself in its length ranks
        pi = tables.penalties - tables.penalties.mean()
        for seed in range(seeds):
            tour = np.asarray(amsolve.solve(instance, time_limit=budget, seed=seed).tour)
            own = edge_features(tour, distances, rank, tables.lists, pi, scale)  # (n, f)
            beside = [np.roll(own, -offset, axis=0) for offset in range(-context, context + 1) if offset]
            a, b = tour, np.roll(tour, -1)
            columns["features"].append(np.concatenate([own, *beside], axis=1))
            columns["rank_sum"].append(rank[a, b] + rank[b, a])
            columns["wrong"].append(tables.wrong(a, b))
            columns["solve"].append(np.full(n, solve_index))
            columns["instance"].append(np.full(n, index))
            solve_index += 1
    return {k: np.concatenate(v) for k, v in columns.items()}


def train_and_score(train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, epochs: int) -> np.ndarray:
    """A perceptron's logits for `test_x`, trained on the rest."""
    mean, std = train_x.mean(axis=0), train_x.std(axis=0) + 1e-9
    x = torch.tensor((train_x - mean) / std, dtype=torch.float32)
    y = torch.tensor(train_y, dtype=torch.float32)
    layers = [torch.nn.Linear(x.shape[1], 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers, torch.nn.Linear(64, 1))
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-5)
    generator = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        for batch in torch.randperm(len(x), generator=generator).split(1024):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x[batch]).squeeze(1), y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    with torch.no_grad():
        return net(torch.tensor((test_x - mean) / std, dtype=torch.float32)).squeeze(1).numpy()


def precision_at_recall(scores: np.ndarray, wrong: np.ndarray, recall: float) -> tuple[float, float]:
    """Precision, and the share of edges flagged, when the top-scored edges hold `recall` of the wrong ones."""
    order = np.argsort(-scores, kind="stable")
    held = np.cumsum(wrong[order])
    flagged = int(np.searchsorted(held, recall * wrong.sum())) + 1
    return held[flagged - 1] / flagged, flagged / len(scores)


def best_of_k_precision(scores: np.ndarray, wrong: np.ndarray, solve: np.ndarray, k: int, draws: int) -> float:
    """How often the best-scored of k edges drawn from one tour is wrong (ties broken at random)."""
    rng = np.random.default_rng(0)
    starts = np.flatnonzero(np.r_[True, np.diff(solve) != 0])
    ends = np.r_[starts[1:], len(scores)]
    tie_break = rng.random(len(scores)) * 1e-6
    hits = 0
    for _ in range(draws):
        chosen = rng.integers(starts[s := rng.integers(len(starts))], ends[s], size=k)
        hits += int(wrong[chosen[np.argmax(scores[chosen] + tie_break[chosen])]])
    return hits / draws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path("../shared/data/tsp1000_uniform_seed2026.txt"))
    parser.add_argument("--limit", type=int, default=32, help="instances")
    parser.add_argument("--seeds", type=int, default=6, help="solves per instance")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds a solve")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--context", type=int, default=2, help="tour edges on each side an edge's description holds")
    args = parser.parse_args()
    torch.manual_seed(0)
    edges = describe_edges(args.dataset, args.limit, args.seeds, args.budget, args.context)
    wrong, instance = edges["wrong"], edges["instance"]
    print(f"{len(wrong)} tour edges of {args.limit} instances x {args.seeds} solves, {wrong.mean() * 100:.2f} % wrong")
    learned = np.empty(len(wrong))
    fold = instance % FOLDS
    for held_out in range(FOLDS):
        test = fold == held_out
        learned[test] = train_and_score(edges["features"][~test], wrong[~test], edges["features"][test], args.epochs)
    scores = {"α rank sum": edges["rank_sum"].astype(float), "network": learned}
    print("score | AUC | precision (flagged) at recall 1/2 | at recall 4/5 | best of K = 4 / 8 / 32")
    for name, score in scores.items():
        half, half_share = precision_at_recall(score, wrong, 0.5)
        most, most_share = precision_at_recall(score, wrong, 0.8)
        best = [best_of_k_precision(score, wrong, edges["solve"], k, 20000) for k in (4, 8, 32)]
        print(
            f"{name} | {auc(score, wrong):.3f} | {half * 100:.1f} % ({half_share * 100:.1f} %) | "
            f"{most * 100:.1f} % ({most_share * 100:.1f} %) | " + " / ".join(f"{p * 100:.1f} %" for p in best)
        )


if __name__ == "__main__":
    main()

"""Train the penalty network (`amsolve.model.penalties`) on penalties found by long ascents.

Instances: uniform and clustered (Gaussian clusters), 100–2,000 cities, drawn from `--seed`;
labels: the penalties of `--ascent` seconds of Held–Karp ascent each (`alpha_candidates`, its step
halved after `--patience` trees without a better bound), less their mean over the instance; with
`--start DIR` each ascent starts from that penalty network's π instead of from 0, so that a network
learns where the ascent goes from its predecessor's prediction.
Writes `penalties.npz` and `penalties.json` (how it was trained, with its figures) into `--out`.

    python benchmarks/train_penalties.py --out models/penalties
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from pathlib import Path

import numpy as np
import torch

from amsolve.model.penalties import (
    PenaltyNet,
    load_penalty_net,
    penalty_features,
    penalty_module,
    predict_penalties,
    save_penalty_net,
)
from amsolve.search.candidates.alpha import ASCENT_PATIENCE, alpha_candidates
from amsolve.search.distances import coordinate_view

SIZES = (100, 200, 500, 1000, 2000)


def instance(rng: np.random.Generator, n: int, clustered: bool) -> np.ndarray:
    if not clustered:
        return rng.random((n, 2))
    centres = rng.random((int(rng.integers(3, 12)), 2))
    spread = rng.uniform(0.02, 0.08)
    return centres[rng.integers(len(centres), size=n)] + rng.normal(0, spread, (n, 2))


def label(points: np.ndarray, ascent: float, patience: int, start: PenaltyNet | None) -> tuple[np.ndarray, np.ndarray]:
    """(features, π / scale) of one instance: `ascent` seconds per 1,000 cities of Held–Karp ascent,
    from `start`'s π (else π = 0)."""
    # The ascent's compiled kernels load on their first call, inside its deadline: a tiny ascent
    # loads them first, or a process's first label could be the π = 0 it started from.
    alpha_candidates(coordinate_view(points[:8], "EUCLIDEAN"), 5, 1e-6)
    view = coordinate_view(points, "EUCLIDEAN")
    features, scale = penalty_features(view)
    initial = None if start is None else predict_penalties(start, view)
    seconds = ascent * view.n / 1000
    penalties = alpha_candidates(view, 5, seconds, penalties=initial, patience=patience).penalties
    # A constant added to every π changes no 1-tree and no bound, and nothing local can tell the
    # constant an ascent drifted to: the labels are each instance's π centred.
    penalties = penalties - penalties.mean()
    return features, (penalties / scale).astype(np.float32)


def labelled(
    rng: np.random.Generator, count: int, ascent: float, patience: int, start: PenaltyNet | None, workers: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(features, π / scale) of `count` instances per size and kind, labelled by `workers` processes.

    The instances are all drawn before any is labelled, so a seed gives the same ones at any
    number of workers."""
    instances = [instance(rng, n, clustered) for n in SIZES for clustered in (False, True) for _ in range(count)]
    if workers == 1:
        return [label(points, ascent, patience, start) for points in instances]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(label, instances, repeat(ascent), repeat(patience), repeat(start)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-kind", type=int, default=20, help="instances per size and kind")
    parser.add_argument("--ascent", type=float, default=1.0, help="seconds of ascent per 1,000 cities")
    parser.add_argument(
        "--patience", type=int, default=ASCENT_PATIENCE, help="trees without a better bound before the step halves"
    )
    parser.add_argument("--start", type=Path, default=None, help="penalty network whose π start the ascents")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--workers", type=int, default=1, help="processes that label the instances")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    start = None if args.start is None else load_penalty_net(args.start)
    train = labelled(rng, args.per_kind, args.ascent, args.patience, start, args.workers)
    valid = labelled(rng, max(2, args.per_kind // 5), args.ascent, args.patience, start, args.workers)
    labelling = time.perf_counter() - started
    x = torch.from_numpy(np.concatenate([f for f, _ in train]))
    y = torch.from_numpy(np.concatenate([p for _, p in train]))
    vx = torch.from_numpy(np.concatenate([f for f, _ in valid]))
    vy = torch.from_numpy(np.concatenate([p for _, p in valid]))
    net = penalty_module()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    baseline = float(((vy - vy.mean()) ** 2).mean())
    for epoch in range(args.epochs):
        order = torch.randperm(len(x))
        for begin in range(0, len(x), 1024):
            batch = order[begin : begin + 1024]
            loss = ((net(x[batch]).squeeze(-1) - y[batch]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch % 10 == 9 or epoch == args.epochs - 1:
            with torch.no_grad():
                error = float(((net(vx).squeeze(-1) - vy) ** 2).mean())
            print(f"epoch {epoch + 1}: validation mean squared error {error:.4f} (predicting the mean: {baseline:.4f})")
    card = {
        "command": "python benchmarks/train_penalties.py "
        + " ".join(f"--{key.replace('_', '-')} {value}" for key, value in vars(args).items()),
        "instances": {"train": len(train), "validation": len(valid), "sizes": SIZES, "kinds": ["uniform", "clustered"]},
        "labelling_seconds": round(labelling, 1),
        "total_seconds": round(time.perf_counter() - started, 1),
        "validation_mse": round(error, 5),
        "validation_mse_of_the_mean": round(baseline, 5),
    }
    save_penalty_net(PenaltyNet.from_module(net), args.out, card)
    print(card)


if __name__ == "__main__":
    main()

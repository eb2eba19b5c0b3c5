"""How many of the reference tours' edges each candidate source holds in a city's top k.

An edge (a, b) of a reference tour counts as covered at k when b is among a's k candidates or a
among b's. Sources: nearest, quadrant, alpha (after `--ascent` seconds of Held–Karp ascent per
instance) and the network's scores (`amsolve.decode.edge_scores`) with each model named in
`--models`. Also the seconds each source took per instance.

    python benchmarks/candidate_coverage.py ../shared/data/tsp100_uniform_seed2026.txt --limit 256
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from amsolve.decode.edge_scores import model_candidates
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.model.registry import load_model
from amsolve.search.candidates import candidate_lists
from amsolve.search.distances import distance_view

KS = (3, 5, 8)


def coverage(candidates: np.ndarray, tour: np.ndarray, k: int) -> float:
    """Share of the tour's edges (a, b) with b in a's first k candidates or a in b's."""
    a, b = tour, np.roll(tour, -1)
    top = candidates[:, :k]
    return float(((top[a] == b[:, None]).any(axis=1) | (top[b] == a[:, None]).any(axis=1)).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--ascent", type=float, default=0.2, help="seconds of ascent for alpha")
    parser.add_argument("--models", default="tsp50,tsp100")
    args = parser.parse_args()
    torch.set_num_threads(1)
    instances = load_instances(args.dataset, limit=args.limit)
    models = {name: load_model(name, torch.device("cpu")) for name in args.models.split(",") if name}
    sources = {
        "nearest": lambda i, v: candidate_lists(v, "nearest", max(KS)),
        "quadrant": lambda i, v: candidate_lists(v, "quadrant", max(KS)),
        f"alpha ({args.ascent:g} s ascent)": lambda i, v: candidate_lists(v, "alpha", max(KS), seconds=args.ascent),
    }
    for name, model in models.items():
        sources[f"model {name}"] = lambda i, v, model=model: model_candidates(model, i.normalized_coords(), v, max(KS))
    first = distance_view(instances[0])
    for compute in sources.values():
        compute(instances[0], first)  # compile and warm up, untimed
    print(f"machine: {machine_description()}")
    print(f"{args.dataset.name}, {len(instances)} instances of {instances[0].n} cities")
    print("| candidates | " + " | ".join(f"top {k}" for k in KS) + " | s / instance |")
    print("|---|" + "---|" * (len(KS) + 1))
    for label, compute in sources.items():
        covered = {k: [] for k in KS}
        seconds = 0.0
        for instance in instances:
            started = time.perf_counter()
            candidates = compute(instance, distance_view(instance))
            seconds += time.perf_counter() - started
            for k in KS:
                covered[k].append(coverage(candidates, instance.reference_tour, k))
        cells = " | ".join(f"{100 * np.mean(covered[k]):.1f} %" for k in KS)
        print(f"| {label} | {cells} | {seconds / len(instances):.4f} |", flush=True)


if __name__ == "__main__":
    main()

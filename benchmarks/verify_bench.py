"""Checks `amsolve bench` against a re-computation that shares no code with it.

    python benchmarks/verify_bench.py ../shared/data/tsp50_uniform_seed2026.txt --limit 200

`bench --json` and `solve --json` decode the same instances with the same plain decoder (no
augmentation, no local search). Here the dataset file is parsed again with plain Python, every
tour from `solve --json` is checked to visit each city once, its length and the reference tour's
length are measured with `math.dist`, and the mean of per-instance gaps, the gap of the means and
the worst gap must agree with `bench --json` to 1e-9 relative.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path


def run(*args: str) -> dict:
    """The JSON document an `amsolve` command prints."""
    output = subprocess.run([sys.executable, "-m", "amsolve", *args], check=True, capture_output=True, text=True)
    return json.loads(output.stdout)


def read_lines(path: Path, limit: int) -> list[tuple[list[tuple[float, float]], list[int]]]:
    """Cities and 1-based reference tour of the first `limit` lines `x1 y1 ... output t1 ... tn t1`."""
    instances = []
    for line in path.read_text().splitlines()[:limit]:
        coordinates, tour = line.split(" output ")
        values = [float(token) for token in coordinates.split()]
        cities = list(zip(values[0::2], values[1::2], strict=True))
        instances.append((cities, [int(token) for token in tour.split()][:-1]))
    return instances


def closed_length(cities: list[tuple[float, float]], tour: list[int]) -> float:
    """Length of the closed tour through 1-based city ids; it must visit every city once."""
    if sorted(tour) != list(range(1, len(cities) + 1)):
        raise SystemExit(f"not a tour of {len(cities)} cities: {tour}")
    points = [cities[city - 1] for city in tour]
    return math.fsum(math.dist(points[k - 1], points[k]) for k in range(len(points)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--decode", default="greedy", choices=["greedy", "sample", "beam", "multistart"])
    args = parser.parse_args()
    common = [str(args.dataset), "--limit", str(args.limit), "--decode", args.decode, "--json"]
    [row] = run("bench", *common)["rows"]
    solved = run("solve", *common, "--no-augment", "--local-search", "none")["instances"]
    lengths, references = [], []
    for (cities, reference_tour), item in zip(read_lines(args.dataset, args.limit), solved, strict=True):
        lengths.append(closed_length(cities, item["tour"]))
        references.append(closed_length(cities, reference_tour))
    gaps = [(length - reference) / reference for length, reference in zip(lengths, references, strict=True)]
    recomputed = {
        "gap_mean_pct": 100 * math.fsum(gaps) / len(gaps),
        "gap_of_means_pct": 100 * (math.fsum(lengths) / math.fsum(references) - 1),
        "gap_max_pct": 100 * max(gaps),
    }
    worst = 0.0
    for key, value in recomputed.items():
        relative = abs(row[key] - value) / max(abs(value), 1e-300)
        worst = max(worst, relative)
        print(f"{key}: bench {row[key]:.12f}  recomputed {value:.12f}  relative difference {relative:.2e}")
    print(f"{len(solved)} instances, decoder {row['decode']}: {'OK' if worst <= 1e-9 else 'MISMATCH'}")
    sys.exit(0 if worst <= 1e-9 else 1)


if __name__ == "__main__":
    main()

"""Checks `amsolve bench` against an independent re-computation from `amsolve solve --json`.

    python benchmarks/verify_bench.py ../shared/data/tsp50_uniform_seed2026.txt --limit 200

Both commands decode the same instances with the same decoder; the mean of per-instance gaps,
the gap of the means and the worst gap are recomputed here from the tours' lengths and reference
lengths that `solve --json` prints, and must agree with `bench --json` to 1e-9 relative.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path


def run(*args: str) -> dict:
    output = subprocess.run([sys.executable, "-m", "amsolve", *args], check=True, capture_output=True, text=True)
    return json.loads(output.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--decode", default="greedy")
    args = parser.parse_args()
    common = [str(args.dataset), "--limit", str(args.limit), "--decode", args.decode, "--json"]
    [row] = run("bench", *common)["rows"]
    instances = run("solve", *common, "--no-augment", "--local-search", "none")["instances"]
    gaps = [(item["length"] - item["reference"]) / item["reference"] for item in instances]
    lengths = [item["length"] for item in instances]
    references = [item["reference"] for item in instances]
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
    print(f"{len(instances)} instances, decoder {row['decode']}: {'OK' if worst <= 1e-9 else 'MISMATCH'}")
    sys.exit(0 if worst <= 1e-9 else 1)


if __name__ == "__main__":
    main()

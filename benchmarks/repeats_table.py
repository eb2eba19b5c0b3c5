"""The mean gap of each run, and of all runs, from `equal_time.py --json` files: amsolve's seeds
in one file, each further file one more run of a peer (see `run_repeats.sh`).

    python benchmarks/repeats_table.py AMSOLVE.json PEER_RUN_0.json PEER_RUN_1.json ...
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def run_means(paths: list[Path]) -> dict[tuple[float, str], list[float]]:
    """Mean gap (%) of every run, keyed by (budget, solver); a run is one seed of one file."""
    gaps: dict[tuple[float, str, str, int], list[float]] = defaultdict(list)
    for path in paths:
        for row in json.loads(path.read_text()):
            gaps[(row["budget"], row["solver"], str(path), row["seed"])].append(row["gap_pct"])
    means: dict[tuple[float, str], list[float]] = defaultdict(list)
    for (budget, solver, _, _), values in sorted(gaps.items()):
        means[(budget, solver)].append(sum(values) / len(values))
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="amsolve's JSON file, then one JSON file per run of a peer")
    means = run_means(parser.parse_args().paths)
    print("| budget | solver | runs | mean gap of each run | mean of the runs |")
    print("|---|---|---|---|---|")
    for (budget, solver), values in sorted(means.items()):
        each = ", ".join(f"{value:.4f} %" for value in values)
        print(f"| {budget:g} s | {solver} | {len(values)} | {each} | {sum(values) / len(values):.4f} % |")


if __name__ == "__main__":
    main()

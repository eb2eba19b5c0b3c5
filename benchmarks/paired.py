"""Runs of `equal_time.py --json` in pairs, compared solve by solve: the mean gap of each side at
every budget, their ratio and the mean paired difference with its standard error.

    python benchmarks/paired.py DIR [DIR ...]

Each DIR holds the two sides of one study as `A_*.json` and `B_*.json` (as `kick_ceiling.sh`
writes them; gzipped as `.json.gz` too). A result of A is paired with B's on the same budget,
instance and seed in the same DIR; results without a partner are left out and counted. With
several DIRs, one line per DIR and budget, then the pairs of all of them pooled.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
from collections import defaultdict
from pathlib import Path

Key = tuple[float, str, int]
Pair = tuple[float, float, float, float]  # gap % and seconds of A, then of B


def load(paths: list[Path]) -> dict[Key, tuple[float, float]]:
    """(budget, instance, seed) -> (gap %, seconds) from `--json` files, plain or gzipped."""
    rows: dict[Key, tuple[float, float]] = {}
    for path in paths:
        text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
        for row in json.loads(text):
            rows[(row["budget"], row["instance"], row["seed"])] = (row["gap_pct"], row["seconds"])
    return rows


def pairs_of(directory: Path) -> tuple[dict[float, list[Pair]], int]:
    """A's and B's results in `directory` paired by budget, and how many had no partner."""
    a = load(sorted(directory.glob("A_*.json*")))
    b = load(sorted(directory.glob("B_*.json*")))
    paired: dict[float, list[Pair]] = defaultdict(list)
    for key in sorted(a.keys() & b.keys()):
        paired[key[0]].append((*a[key], *b[key]))
    return paired, len(a.keys() ^ b.keys())


def summary(label: str, budget: float, rows: list[Pair]) -> str:
    """Both mean gaps, B/A, and the paired difference B - A ± its standard error."""
    count = len(rows)
    gap_a = sum(r[0] for r in rows) / count
    gap_b = sum(r[2] for r in rows) / count
    differences = [r[2] - r[0] for r in rows]
    mean_difference = sum(differences) / count
    spread = math.sqrt(sum((d - mean_difference) ** 2 for d in differences) / (count - 1)) if count > 1 else 0.0
    ratio = f"{gap_b / gap_a:.2f}" if gap_a else "-"
    seconds = f"{sum(r[1] for r in rows) / count:.3f} / {sum(r[3] for r in rows) / count:.3f}"
    return (
        f"{label}{budget:g} s: {count} pairs, A {gap_a:.4f} %, B {gap_b:.4f} % (B/A {ratio}), "
        f"B - A {mean_difference:+.4f} ± {spread / math.sqrt(count):.4f} points; mean s A / B {seconds}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", type=Path, help="directories of A_*.json and B_*.json")
    args = parser.parse_args()
    pooled: dict[float, list[Pair]] = defaultdict(list)
    for directory in args.directories:
        paired, unpaired = pairs_of(directory)
        label = f"{directory.name}: " if len(args.directories) > 1 else ""
        for budget, rows in sorted(paired.items()):
            print(summary(label, budget, rows))
            pooled[budget] += rows
        if unpaired:
            print(f"{label}{unpaired} results without a partner left out")
    if len(args.directories) > 1:
        for budget, rows in sorted(pooled.items()):
            print(summary("pooled: ", budget, rows))


if __name__ == "__main__":
    main()

"""Two sides of `amsolve bench --json` runs compared row by row: the TSPLIB instances solve by
solve, each uniform dataset by its mean.

    python benchmarks/bench_pairs.py DIR

DIR holds `A_<seed>.json` and `B_<seed>.json`, each the output of one `amsolve bench --json` (run
with `--seed <seed>`). A file of A is paired with B's of the same seed. Prints every dataset row
whose gaps differ between the sides or are above 0 (and the TSPLIB total): each side's mean gap
over the seeds and in how many seeds it was above 0. Then the TSPLIB instances (rows of one
instance) pooled as pairs (instance, seed) through `paired.summary`.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from paired import Pair, summary

TSPLIB_TOTAL = "TSPLIB total"


def bench_rows(path: Path) -> dict[str, dict]:
    """The rows of one `amsolve bench --json` output, by dataset."""
    return {row["dataset"]: row for row in json.loads(path.read_text())["rows"]}


def paired_runs(directory: Path) -> list[tuple[dict[str, dict], dict[str, dict]]]:
    """A's and B's runs in `directory`, paired by seed (the files' suffix)."""
    seeds = sorted(
        path.stem[2:] for path in directory.glob("A_*.json") if (directory / f"B_{path.stem[2:]}.json").exists()
    )
    if not seeds:
        raise SystemExit(f"bench_pairs.py: no A_<seed>.json with a B_<seed>.json in {directory}")
    return [(bench_rows(directory / f"A_{seed}.json"), bench_rows(directory / f"B_{seed}.json")) for seed in seeds]


def compare(directory: Path) -> list[str]:
    """The lines `bench_pairs.py` prints for `directory`."""
    runs = paired_runs(directory)
    gaps: dict[str, list[tuple[float, float]]] = defaultdict(list)
    tsplib: list[Pair] = []
    for a, b in runs:
        for dataset, row in a.items():
            if row["gap_mean_pct"] is None or dataset not in b:
                continue
            gaps[dataset].append((row["gap_mean_pct"], b[dataset]["gap_mean_pct"]))
            if row["instances"] == 1 and not dataset.startswith(TSPLIB_TOTAL):
                other = b[dataset]
                tsplib.append(
                    (
                        row["gap_mean_pct"],
                        row["seconds_per_instance"],
                        other["gap_mean_pct"],
                        other["seconds_per_instance"],
                    )
                )
    lines = [f"{len(runs)} seeds"]
    for dataset, pairs in gaps.items():
        above = [sum(gap > 1e-9 for gap in side) for side in zip(*pairs, strict=True)]
        if dataset.startswith(TSPLIB_TOTAL) or any(abs(x - y) > 1e-9 for x, y in pairs) or above[0] + above[1]:
            mean_a, mean_b = (sum(side) / len(pairs) for side in zip(*pairs, strict=True))
            lines.append(
                f"{dataset}: A {mean_a:.5f} %, B {mean_b:.5f} %; above 0 in A {above[0]}, B {above[1]} of {len(pairs)}"
            )
    if tsplib:
        lines.append(summary("TSPLIB instances", None, tsplib))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    print("\n".join(compare(parser.parse_args().directory)))


if __name__ == "__main__":
    main()

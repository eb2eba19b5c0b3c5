"""Runs of `equal_time.py --json` in pairs, compared solve by solve: the mean gap of each side at
every budget, their ratio and the mean paired difference with its standard error.

    python benchmarks/paired.py DIR [DIR ...]
    python benchmarks/paired.py --network FILE [FILE ...]
    python benchmarks/paired.py --against SOLVER FILE [FILE ...]

Each DIR holds the two sides of one study as `A_*.json` and `B_*.json` (as `kick_ceiling.sh`
writes them; gzipped as `.json.gz` too). A result of A is paired with B's on the same budget,
instance and seed in the same DIR; results without a partner are left out and counted. With
several DIRs, one line per DIR and budget, then the pairs of all of them pooled; with
`--by-instance`, also a line per instance.

With `--network`, the FILEs are one study of several pipelines (`equal_time.py --json`, all
files pooled): at every budget each pipeline's mean gap over the solves every pipeline made, then
A, the best pipeline without the network, against B, the best with it, solve by solve (B/A is
the ratio in README's table of the network inside the search).

With `--against SOLVER`, the FILEs are one study (all files pooled; `order_ceiling.py --json`
writes such files too): A is SOLVER, and every other solver in turn is B.
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


def read_rows(path: Path) -> list[dict]:
    """The results of one `--json` file, plain or gzipped."""
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    return json.loads(text)


def load(paths: list[Path]) -> dict[Key, tuple[float, float]]:
    """(budget, instance, seed) -> (gap %, seconds) from `--json` files."""
    rows: dict[Key, tuple[float, float]] = {}
    for path in paths:
        for row in read_rows(path):
            rows[(row["budget"], row["instance"], row["seed"])] = (row["gap_pct"], row["seconds"])
    return rows


def by_solver(
    paths: list[Path],
) -> tuple[dict[tuple[float, str], dict[tuple[str, int], tuple[float, float]]], dict[str, bool]]:
    """One study's results: (budget, solver) -> (instance, seed) -> (gap %, seconds), and whether
    each solver uses the network."""
    rows: dict[tuple[float, str], dict[tuple[str, int], tuple[float, float]]] = defaultdict(dict)
    neural: dict[str, bool] = {}
    for path in paths:
        for row in read_rows(path):
            rows[(row["budget"], row["solver"])][(row["instance"], row["seed"])] = (row["gap_pct"], row["seconds"])
            neural[row["solver"]] = row["neural"]
    return rows, neural


def best_without_and_with(paths: list[Path]) -> tuple[dict[float, list[Pair]], list[str]]:
    """Per budget, the best pipeline without the network (A) paired with the best with it (B)."""
    rows, neural = by_solver(paths)
    paired: dict[float, list[Pair]] = {}
    lines = []
    for budget in sorted({budget for budget, _ in rows}):
        solvers = sorted(solver for b, solver in rows if b == budget)
        common = set.intersection(*(set(rows[(budget, solver)]) for solver in solvers))
        means = {solver: sum(rows[(budget, solver)][key][0] for key in common) / len(common) for solver in solvers}
        for solver in solvers:
            lines.append(f"{budget:g} s: {solver}{' (network)' if neural[solver] else ''} {means[solver]:.4f} %")
        best = {side: min((s for s in solvers if neural[s] == side), key=means.__getitem__) for side in (False, True)}
        lines.append(f"{budget:g} s: A = {best[False]}, B = {best[True]}")
        a, b = rows[(budget, best[False])], rows[(budget, best[True])]
        paired[budget] = [(*a[key], *b[key]) for key in sorted(common)]
    return paired, lines


def each_against(paths: list[Path], baseline: str) -> list[tuple[str, float, list[Pair]]]:
    """Per budget, `baseline` (A) paired with every other solver (B) of the same study."""
    rows, _ = by_solver(paths)
    compared = []
    for budget, solver in sorted(rows):
        a = rows.get((budget, baseline))
        if a is None:
            raise SystemExit(f"paired.py: no results of {baseline!r} at {budget:g} s")
        if solver != baseline:
            b = rows[(budget, solver)]
            compared.append((solver, budget, [(*a[key], *b[key]) for key in sorted(a.keys() & b.keys())]))
    return compared


def pairs_by_instance(directory: Path) -> tuple[dict[tuple[float, str], list[Pair]], int]:
    """A's and B's results in `directory` paired by budget and instance, and how many had no partner."""
    a = load(sorted(directory.glob("A_*.json*")))
    b = load(sorted(directory.glob("B_*.json*")))
    paired: dict[tuple[float, str], list[Pair]] = defaultdict(list)
    for key in sorted(a.keys() & b.keys()):
        paired[key[:2]].append((*a[key], *b[key]))
    return paired, len(a.keys() ^ b.keys())


def by_budget(by_instance: dict[tuple[float, str], list[Pair]]) -> dict[float, list[Pair]]:
    """Pairs by budget and instance (`pairs_by_instance`) pooled by budget."""
    paired: dict[float, list[Pair]] = defaultdict(list)
    for (budget, _), rows in by_instance.items():
        paired[budget] += rows
    return paired


def summary(label: str, budget: float | None, rows: list[Pair]) -> str:
    """Both mean gaps, B/A, and the paired difference B - A ± its standard error (`budget`: the
    seconds per instance, None where they vary)."""
    count = len(rows)
    gap_a = sum(r[0] for r in rows) / count
    gap_b = sum(r[2] for r in rows) / count
    differences = [r[2] - r[0] for r in rows]
    mean_difference = sum(differences) / count
    spread = math.sqrt(sum((d - mean_difference) ** 2 for d in differences) / (count - 1)) if count > 1 else 0.0
    ratio = f"{gap_b / gap_a:.2f}" if gap_a else "-"
    seconds = f"{sum(r[1] for r in rows) / count:.3f} / {sum(r[3] for r in rows) / count:.3f}"
    when = "" if budget is None else f"{budget:g} s"
    return (
        f"{label}{when}: {count} pairs, A {gap_a:.4f} %, B {gap_b:.4f} % (B/A {ratio}), "
        f"B - A {mean_difference:+.4f} ± {spread / math.sqrt(count):.4f} points; mean s A / B {seconds}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="DIRs of A_*.json and B_*.json, or --network's FILEs")
    parser.add_argument("--network", action="store_true", help="FILEs of one study: best without the network, with it")
    parser.add_argument("--against", metavar="SOLVER", help="FILEs of one study: every solver against SOLVER")
    parser.add_argument("--by-instance", action="store_true", help="DIRs: also a line per budget and instance")
    args = parser.parse_args()
    if args.against is not None:
        for solver, budget, rows in each_against(args.paths, args.against):
            print(summary(f"B = {solver}, ", budget, rows))
        return
    if args.network:
        paired, lines = best_without_and_with(args.paths)
        print("\n".join(lines))
        for budget, rows in paired.items():
            print(summary("", budget, rows))
        return
    pooled: dict[float, list[Pair]] = defaultdict(list)
    for directory in args.paths:
        by_instance, unpaired = pairs_by_instance(directory)
        paired = by_budget(by_instance)
        label = f"{directory.name}: " if len(args.paths) > 1 else ""
        for budget, rows in sorted(paired.items()):
            print(summary(label, budget, rows))
            pooled[budget] += rows
        if unpaired:
            print(f"{label}{unpaired} results without a partner left out")
        if args.by_instance:
            for (budget, instance), rows in by_instance.items():
                print(summary(f"{label}{instance}, ", budget, rows))
    if len(args.paths) > 1:
        for budget, rows in sorted(pooled.items()):
            print(summary("pooled: ", budget, rows))


if __name__ == "__main__":
    main()

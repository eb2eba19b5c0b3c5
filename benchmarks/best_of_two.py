"""Two searches of half the time each, taking the shorter tour: read from one `equal_time.py --json`
study of several pipelines, each pair of its pipelines taken as one search of twice the budget.

    python benchmarks/best_of_two.py FILE [FILE ...]

For each budget, every pipeline alone and every pair of pipelines as "A | B": the mean over the
solves all pipelines made (same instance and seed) of the shorter of A's and B's gaps, and every
pipeline twice, "A twice": its solves of each instance with the first and second seeds paired,
the third and fourth, and so on. A pair is the time of two solves, so it stands beside single
pipelines at twice the budget; a pair uses the network if either of its pipelines does. The
per-instance means follow for each pair, since on instances with a trap a mean is mostly how
often a search escaped it. Last, the best pair with the network against the best without it,
solve by solve (`paired.summary`).
"""

from __future__ import annotations

import argparse
import itertools
from collections import defaultdict
from pathlib import Path

from paired import by_solver, summary


def best_of_two(paths: list[Path]) -> list[str]:
    """The table's lines: per budget, each pipeline's mean gap and each pair's (with its means per
    instance), each pipeline twice, and the best pair with the network against the best without."""
    rows, neural = by_solver(paths)
    gaps = {key: {solve: gap for solve, (gap, _) in solves.items()} for key, solves in rows.items()}
    lines = []
    for budget in sorted({budget for budget, _ in gaps}):
        solvers = sorted(solver for b, solver in gaps if b == budget)
        common = sorted(set.intersection(*(set(gaps[(budget, solver)]) for solver in solvers)))
        instances = sorted({instance for instance, _ in common})
        lines.append(f"{budget:g} s, {len(common)} solves each ({len(instances)} instances):")
        pairs: dict[tuple[str, str], dict[tuple[str, int], float]] = {}
        for solver in solvers:
            mean = sum(gaps[(budget, solver)][key] for key in common) / len(common)
            lines.append(f"  {solver}{' (network)' if neural[solver] else ''}: {mean:.4f} %")
        for first, second in itertools.combinations(solvers, 2):
            a, b = gaps[(budget, first)], gaps[(budget, second)]
            shorter = pairs[(first, second)] = {key: min(a[key], b[key]) for key in common}
            mean = sum(shorter.values()) / len(common)
            network = " (network)" if neural[first] or neural[second] else ""
            lines.append(f"  {first} | {second}{network}: {mean:.4f} % as one search of {2 * budget:g} s")
            per_instance = []
            for instance in instances:
                values = [gap for (name, _), gap in shorter.items() if name == instance]
                per_instance.append(f"{instance} {sum(values) / len(values):.4f}")
            lines.append("      " + ", ".join(per_instance))
        for solver in solvers:
            twice = _twice(gaps[(budget, solver)], common)
            mean = sum(twice) / len(twice)
            network = " (network)" if neural[solver] else ""
            lines.append(f"  {solver} twice{network}: {mean:.4f} % over {len(twice)} pairs of seeds")
        best: dict[bool, tuple[str, str]] = {}
        for side in (False, True):
            sided = [pair for pair in pairs if (neural[pair[0]] or neural[pair[1]]) == side]
            if sided:
                best[side] = min(sided, key=lambda pair: sum(pairs[pair].values()))
        if len(best) == 2:
            a, b = pairs[best[False]], pairs[best[True]]
            lines.append(f"  A = {' | '.join(best[False])}, B = {' | '.join(best[True])}")
            rows = [(a[key], 2 * budget, b[key], 2 * budget) for key in common]
            lines.append("  " + summary("pairs at ", 2 * budget, rows))
    return lines


def _twice(gaps: dict[tuple[str, int], float], keys: list[tuple[str, int]]) -> list[float]:
    """The shorter of each two solves of an instance, by seeds in order (an odd one out left out)."""
    seeds: dict[str, list[int]] = defaultdict(list)
    for instance, seed in keys:
        seeds[instance].append(seed)
    return [
        min(gaps[(instance, first)], gaps[(instance, second)])
        for instance, ordered in seeds.items()
        for first, second in zip(sorted(ordered)[::2], sorted(ordered)[1::2], strict=False)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="`equal_time.py --json` files of one study")
    print("\n".join(best_of_two(parser.parse_args().paths)))


if __name__ == "__main__":
    main()

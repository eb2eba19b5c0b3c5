"""The network alone (`--decode local`, no search) against issue 34's targets: mean gap ≤ 8 % on
the 32 uniform 1,000-city instances and ≤ 10 % over the six large TSPLIB instances.

    python benchmarks/local_alone.py                      # both sets, local decoding's defaults
    python benchmarks/local_alone.py --time-limit 60 --sets n1000
    python benchmarks/local_alone.py --sets large --seed 1   # another draw of levels and offsets

Prints the machine, one markdown row per dataset (each TSPLIB instance, then their total) and
whether each target is met (exit status 1 when one is missed); the rows are those of
`amsolve bench --decode local+none`. `--time-limit` bounds each instance's decoding.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from amsolve.bench import TSPLIB_TOTAL, collect_datasets, read_optima, run_bench
from amsolve.decode.options import DecodeOptions
from amsolve.machine import machine_description
from amsolve.solver import SolveOptions

SHARED = Path(__file__).resolve().parents[2] / "shared"

TARGETS = {"n1000": 8.0, "large": 10.0}
"""Mean gap targets (%) of issue 34 for the network alone."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder")
    parser.add_argument("--sets", default="n1000,large", help="n1000, large or both (comma-separated)")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per instance (default: none)")
    parser.add_argument("--model", default=None, help="model name or directory (default: nearest in size)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N instances of each file")
    parser.add_argument("--seed", type=int, default=0, help="seed of the levels and revision offsets (default 0)")
    args = parser.parse_args()
    unknown = set(args.sets.split(",")) - set(TARGETS)
    if unknown:
        parser.error(f"--sets: unknown {', '.join(sorted(unknown))} (n1000, large)")
    paths = {
        "n1000": [args.shared / "data" / "tsp1000_uniform_seed2026.txt"],
        "large": [args.shared / "tsplib_large"],
    }
    optima = read_optima(args.shared / "tsplib_large" / "optimal.csv")
    # all of the time goes to decoding: the solver gives it DECODE_SHARE of a limit, so ask for twice
    limit = None if args.time_limit is None else 2 * args.time_limit
    pipeline = SolveOptions(
        DecodeOptions("local", seed=args.seed), local_search="none", model=args.model, time_limit=limit
    )
    print(
        f"machine: {machine_description()}; pipeline: local+none, seed {args.seed}, "
        f"time limit {args.time_limit or 'none'}"
    )
    print("| set | instance(s) | mean gap % | worst gap % | s / instance |")
    print("|---|---|---|---|---|")
    met = True
    for name in args.sets.split(","):
        datasets = collect_datasets(paths[name], optima, args.limit)
        rows = run_bench(datasets, [pipeline])
        for row in rows:
            print(
                f"| {name} | {row.dataset} | {row.gap_mean_pct:.2f} | {row.gap_max_pct:.2f} "
                f"| {row.seconds_per_instance:.1f} |",
                flush=True,
            )
        summary = next((row for row in rows if row.dataset.startswith(TSPLIB_TOTAL)), rows[-1])
        reached = summary.gap_mean_pct <= TARGETS[name]
        met &= reached
        print(f"target {name}: mean {summary.gap_mean_pct:.2f} % ≤ {TARGETS[name]} %: {reached}")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()

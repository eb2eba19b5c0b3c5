"""Wall time and peak memory of `amsolve solve` for several glibc mmap thresholds.

    python benchmarks/mmap_threshold.py --repeats 4 [--candidates '1 MiB,16 MiB'] > /tmp/mmap.md

`amsolve solve` and `amsolve bench` fix glibc's mmap threshold for large instances
(`amsolve.machine`); this runs the workloads that decide its value and the size from which it
applies, each in a fresh process, with the threshold set to each candidate whatever the size, or
left to glibc's dynamic rule ("dynamic"): greedy decoding of 1,280 100-city instances and
sampling 128 tours on 128 of them, where mid-sized blocks come and go at every step, and
multi-start 100 ×8 on TSPLIB instances of 200 to 1,000 cities, whose peak memory the dynamic rule
let grow to 3.5 GiB. Needs ../shared and GNU time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
WORKLOADS = {
    "greedy, 1,280 × 100 cities": [
        str(SHARED / "data" / "tsp100_uniform_seed2026.txt"), "--decode", "greedy", "--no-augment",
        "--local-search", "none",
    ],
    "sampling 128, 128 × 100 cities": [
        str(SHARED / "data" / "tsp100_uniform_seed2026.txt"), "--decode", "sample", "--no-augment",
        "--local-search", "none", "--limit", "128",
    ],
    **{
        f"multi-start 100 ×8, {name}": [
            str(SHARED / "tsplib" / f"{name}.tsp"), "--decode", "multistart", "--starts", "100",
            "--local-search", "none",
        ]
        for name in ("kroA200", "pr439", "rat575", "d657", "rat783", "dsj1000")
    },
}  # fmt: skip
CANDIDATES = {"1 MiB": 1 << 20, "4 MiB": 4 << 20, "16 MiB": 16 << 20, "64 MiB": 64 << 20, "dynamic": None}


def run(threshold: int | None, arguments: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one `amsolve solve` with this threshold (None: glibc's)."""
    setup = (
        "import amsolve.machine as m; m.fix_malloc_mmap_threshold = lambda: False"
        if threshold is None
        else f"import amsolve.machine as m; m.MMAP_THRESHOLD_BYTES = {threshold}; m.LARGE_INSTANCE_CITIES = 0"
    )
    command = [
        "/usr/bin/time", "-f", "%e %M", sys.executable, "-c", setup + "; from amsolve.cli import app; app()",
        "solve", *arguments, "--json",
    ]  # fmt: skip
    finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    seconds, kilobytes = finished.stderr.split()[-2:]
    return float(seconds), int(kilobytes) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--candidates", default=",".join(CANDIDATES), help="Comma-separated names from CANDIDATES.")
    parser.add_argument("--workloads", default="", help="Only workloads naming one of these (comma-separated).")
    args = parser.parse_args()
    candidates = {name: CANDIDATES[name] for name in args.candidates.split(",")}
    workloads = {
        name: arguments
        for name, arguments in WORKLOADS.items()
        if not args.workloads or any(part in name for part in args.workloads.split(","))
    }
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.repeats):  # interleaved, so a slow spell of the machine hits every candidate
        for workload, arguments in workloads.items():
            for name, threshold in candidates.items():
                results.setdefault((workload, name), []).append(run(threshold, arguments))
    print(f"| workload | mmap threshold | wall s, median (range) | peak MiB, median (range) | runs ({args.repeats}) |")
    print("|---|---|---|---|---|")
    for (workload, name), runs in results.items():
        seconds, mebibytes = [run[0] for run in runs], [run[1] for run in runs]
        print(
            f"| {workload} | {name} | {statistics.median(seconds):.1f} ({min(seconds):.1f}–{max(seconds):.1f}) "
            f"| {statistics.median(mebibytes):.0f} ({min(mebibytes):.0f}–{max(mebibytes):.0f}) "
            f"| {', '.join(f'{m:.0f}' for m in mebibytes)} MiB |"
        )


if __name__ == "__main__":
    main()

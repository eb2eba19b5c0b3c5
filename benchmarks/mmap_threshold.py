"""Wall time and peak memory of `amsolve solve` for several glibc mmap thresholds.

    python benchmarks/mmap_threshold.py --repeats 4 > /tmp/mmap.md

`amsolve solve` and `amsolve bench` fix glibc's mmap threshold (`amsolve.machine`); this runs
the two workloads that decide its value, each in a fresh process, with the threshold set to
each candidate or left to glibc's dynamic rule ("dynamic"): greedy decoding of 1,280 100-city
instances, where mid-sized blocks come and go at every step, and multi-start 100 ×8 on a 1,000-city
instance, whose peak memory the dynamic rule let grow to 3.5 GiB. Needs ../shared and GNU time.
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
    "multi-start 100 ×8, dsj1000": [
        str(SHARED / "tsplib" / "dsj1000.tsp"), "--decode", "multistart", "--starts", "100", "--local-search", "none",
    ],
}  # fmt: skip
CANDIDATES = {"1 MiB": 1 << 20, "4 MiB": 4 << 20, "16 MiB": 16 << 20, "dynamic": None}


def run(threshold: int | None, arguments: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one `amsolve solve` with this threshold (None: glibc's)."""
    setup = (
        "import amsolve.machine as m; m.fix_malloc_mmap_threshold = lambda: False"
        if threshold is None
        else f"import amsolve.machine as m; m.MMAP_THRESHOLD_BYTES = {threshold}"
    )
    command = [
        "/usr/bin/time", "-f", "%e %M", sys.executable, "-c", setup + "; from amsolve.cli import app; app()",
        "solve", *arguments, "--json",
    ]  # fmt: skip
    finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    seconds, kilobytes = finished.stderr.split()[-2:]
    return float(seconds), int(kilobytes) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.repeats):  # interleaved, so a slow spell of the machine hits every candidate
        for workload, arguments in WORKLOADS.items():
            for name, threshold in CANDIDATES.items():
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

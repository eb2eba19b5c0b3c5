"""How often this process loses its core for more than a millisecond: the machine's stalls, which
a solve with a budget of a few milliseconds cannot make up for.

    taskset -c 0 python benchmarks/machine_stalls.py --seconds 20
    taskset -c 1 python benchmarks/machine_stalls.py --seconds 20

A busy loop reads the clock as fast as it can; every gap between two reads longer than
`--threshold` milliseconds is a time the loop did not run. The thread's own CPU time over the same
gap says whether it was the thread's work (page faults, the kernel on its behalf) or the core taken
away (another process, the hypervisor): the search counts a descent's time on that clock where a
stall must not cut it short (`amsolve.search.local_search.improve_tours`, `cpu_clock`).
"""

from __future__ import annotations

import argparse
import time


def stalls(seconds: float, threshold: float) -> list[tuple[float, float]]:
    """The gaps longer than `threshold` seconds between two clock reads of a busy loop that runs
    for `seconds`: each as (wall seconds, the thread's CPU seconds over it)."""
    end = time.perf_counter() + seconds
    last, last_cpu = time.perf_counter(), time.thread_time()
    gaps = []
    while last < end:
        clock, cpu = time.perf_counter(), time.thread_time()
        if clock - last > threshold:
            gaps.append((clock - last, cpu - last_cpu))
        last, last_cpu = clock, cpu
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--threshold", type=float, default=1.0, help="milliseconds")
    args = parser.parse_args()
    gaps = stalls(args.seconds, args.threshold / 1000.0)
    longest, longest_cpu = max(gaps, default=(0.0, 0.0))
    over_3 = sum(wall > 0.003 for wall, _ in gaps)
    most_cpu = max((cpu for _, cpu in gaps), default=0.0)
    print(
        f"{args.seconds:g} s busy loop: {len(gaps)} stalls over {args.threshold:g} ms, "
        f"{over_3} over 3 ms, longest {longest * 1000:.1f} ms (the thread's CPU time in it "
        f"{longest_cpu * 1000:.2f} ms; the most in any stall {most_cpu * 1000:.2f} ms)"
    )


if __name__ == "__main__":
    main()

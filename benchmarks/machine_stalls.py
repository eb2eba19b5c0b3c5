"""How often this process loses its core for more than a millisecond: the machine's stalls, which
a solve with a budget of a few milliseconds cannot make up for.

    taskset -c 0 python benchmarks/machine_stalls.py --seconds 20
    taskset -c 1 python benchmarks/machine_stalls.py --seconds 20

A busy loop reads the clock as fast as it can; every gap between two reads longer than
`--threshold` milliseconds is a time the loop did not run.
"""

from __future__ import annotations

import argparse
import time


def stalls(seconds: float, threshold: float) -> list[float]:
    """The gaps (seconds) longer than `threshold` seconds between two clock reads of a busy loop
    that runs for `seconds`."""
    end = time.perf_counter() + seconds
    last = time.perf_counter()
    gaps = []
    while last < end:
        clock = time.perf_counter()
        if clock - last > threshold:
            gaps.append(clock - last)
        last = clock
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--threshold", type=float, default=1.0, help="milliseconds")
    args = parser.parse_args()
    gaps = stalls(args.seconds, args.threshold / 1000.0)
    longest = max(gaps, default=0.0) * 1000.0
    over_3 = sum(gap > 0.003 for gap in gaps)
    print(
        f"{args.seconds:g} s busy loop: {len(gaps)} stalls over {args.threshold:g} ms, "
        f"{over_3} over 3 ms, longest {longest:.1f} ms"
    )


if __name__ == "__main__":
    main()

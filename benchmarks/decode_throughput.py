"""Decoding speed (issue 2's acceptance figures): greedy and multi-start×8 throughput at n = 100,
and time and peak memory of `amsolve solve` on a 1,000-city TSPLIB instance.

    python benchmarks/decode_throughput.py --threads 2 [--tsplib ../shared/tsplib/dsj1000.tsp]

Weights do not change the speed, so a randomly initialised model of the shipped architecture is
used when no shipped model is installed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import torch

from amsolve.decode.options import DecodeOptions
from amsolve.decode.strategies import decode
from amsolve.errors import WeightsError
from amsolve.machine import machine_description
from amsolve.model.config import ModelConfig
from amsolve.model.network import AttentionModel
from amsolve.model.registry import load_model, nearest_model


def model_for(n: int) -> tuple[str, AttentionModel]:
    try:
        name = nearest_model(n)
        return name, load_model(name)
    except WeightsError:
        return "random weights", AttentionModel(ModelConfig()).eval()


def throughput(model: AttentionModel, options: DecodeOptions, instances: int, n: int, batch: int) -> float:
    """Instances per second over `instances` random instances decoded in batches of `batch`."""
    coords = torch.rand(instances, n, 2, generator=torch.Generator().manual_seed(0))
    decode(model, coords[:batch], options)  # warm-up
    started = time.perf_counter()
    for chunk in coords.split(batch):
        decode(model, chunk, options)
    return instances / (time.perf_counter() - started)


def solve_command(path: Path, options: list[str], threads: int) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MiB) of one `amsolve solve` process, by GNU time.

    (`os.wait4` would not do: a forked child's peak starts at this process's own, model included.)
    """
    if not Path(GNU_TIME).is_file():
        raise SystemExit(f"{GNU_TIME} (GNU time, Debian package `time`) is needed to measure peak memory")
    command = [GNU_TIME, "-f", "%e %M", sys.executable, "-m", "amsolve", "solve", str(path), *options, "--json"]
    environment = {**os.environ, "OMP_NUM_THREADS": str(threads)}  # the child uses the threads in the header
    finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
    if finished.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {finished.stderr.strip()}")
    seconds, kilobytes = finished.stderr.split()[-2:]
    return float(seconds), float(kilobytes) / 1024


GNU_TIME = "/usr/bin/time"

SOLVE_OPTIONS = [
    ["--decode", "greedy", "--no-augment", "--local-search", "none"],
    ["--decode", "multistart", "--starts", "100", "--local-search", "none"],  # ×8: on up to 1,000 cities
    [],
]
"""The model alone, greedy and multi-start ×8, then the default pipeline (multi-start ×8 + local search)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--tsplib", type=Path, default=Path(__file__).resolve().parents[2] / "shared/tsplib/dsj1000.tsp"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    name, model = model_for(100)
    print(f"machine: {machine_description()}; model: {name}")
    print("| work | batch | instances/s |")
    print("|---|---|---|")
    rate = throughput(model, DecodeOptions("greedy"), 1000, 100, 1000)
    print(f"| greedy, n = 100, 1,000 instances | 1000 | {rate:.1f} |")
    rate = throughput(model, DecodeOptions("multistart", starts=100, augment=True), 64, 100, 16)
    print(f"| multi-start (100 starts) ×8, n = 100, 64 instances | 16 | {rate:.2f} |")
    if not args.tsplib.is_file():
        raise SystemExit(f"{args.tsplib} not found (it is in ../shared/tsplib); the solve timings are left out")
    solve_command(args.tsplib, ["--decode", "greedy"], args.threads)  # warm-up: numba's disk cache, file cache
    print("\n| `amsolve solve` on " + args.tsplib.name + " | wall s | peak RSS MiB |")
    print("|---|---|---|")
    for options in SOLVE_OPTIONS:
        seconds, peak = solve_command(args.tsplib, options, args.threads)
        print(f"| `{' '.join(options) or '(default pipeline)'}` | {seconds:.1f} | {peak:.0f} |")


if __name__ == "__main__":
    main()

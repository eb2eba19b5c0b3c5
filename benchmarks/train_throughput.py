"""Training throughput (issue 4, item 6): instances/s and tours/s of training steps for
n = 20, 50, 100 and each baseline, on this CPU.

    python benchmarks/train_throughput.py --threads 1 --steps 5

A step is the trainer's own `_gradient_step`: forward rollouts, baseline, backward, clipping,
Adam. REINFORCE runs at the trainer's default batch size (64); teacher forcing (`--supervised`)
and the mixed loss (`--mix-supervised`) at 128, as the shipped models' last phases did. Per-epoch
work (validation, the rollout baseline's evaluation and t-test) is not included.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
import torch

from amsolve.io.dataset import write_dataset
from amsolve.machine import machine_description
from amsolve.train.trainer import Trainer, TrainOptions


def timed_steps(options: TrainOptions, steps: int) -> tuple[float, Trainer]:
    """Mean wall-clock seconds of `steps` training steps after one warm-up step, and the trainer."""
    trainer = Trainer(options, resume=False, on_event=lambda event: None)
    trainer._gradient_step()  # warm-up
    started = time.perf_counter()
    for _ in range(steps):
        trainer._gradient_step()
    return (time.perf_counter() - started) / steps, trainer


def measure(options: TrainOptions, steps: int) -> tuple[float, float]:
    """Instances/s and tours/s over `steps` training steps after one warm-up step."""
    seconds = timed_steps(options, steps)[0] * steps
    instances = steps * options.batch_size
    if options.supervised and options.mix_supervised:
        tours_per_instance = (options.starts or options.nodes) + options.trajectories
    elif options.supervised:
        tours_per_instance = options.trajectories
    elif options.baseline == "shared":
        tours_per_instance = options.starts or options.nodes
    else:
        tours_per_instance = 2 if options.baseline == "rollout" else 1  # rollout: sample + greedy baseline
    return instances / seconds, instances * tours_per_instance / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--sizes", default="20,50,100")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"machine: {machine_description()}")
    print("| n | method | batch | instances/s | tours/s |")
    print("|---|---|---|---|---|")
    with TemporaryDirectory() as scratch:
        for n in map(int, args.sizes.split(",")):
            base = TrainOptions(nodes=n, val_size=8, threads=args.threads, out=scratch)
            reference = Path(scratch) / f"ref{n}.txt"
            rng = np.random.default_rng(0)
            write_dataset(reference, list(rng.uniform(size=(256, n, 2))), [rng.permutation(n) for _ in range(256)])
            variants = [
                ("shared (POMO, n starts)", replace(base, baseline="shared")),
                ("rollout (AM)", replace(base, baseline="rollout")),
                ("exponential", replace(base, baseline="exponential")),
                ("teacher forcing, 8 trajectories", replace(base, supervised=str(reference), batch_size=128)),
                (
                    "shared + 2 × teacher forcing (mixed)",
                    replace(base, supervised=str(reference), mix_supervised=2.0, batch_size=128),
                ),
            ]
            for label, options in variants:
                with TemporaryDirectory() as out:
                    rate, tours = measure(replace(options, out=out), args.steps)
                print(f"| {n} | {label} | {options.batch_size} | {rate:.0f} | {tours:.0f} |")


if __name__ == "__main__":
    main()

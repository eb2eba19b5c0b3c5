"""Data-parallel training throughput on this machine: 1 process × 2 threads against 2 processes ×
1 thread (torchrun, gloo), and what DistributedDataParallel adds to a step.

    python benchmarks/ddp_throughput.py > benchmarks/results/ddp_throughput.md

The workloads are the last phases of the shipped recipes (their model sizes, objectives and batch
sizes). A step is the trainer's own `_gradient_step` (rollouts, baseline, backward, gradient
averaging, clipping, Adam) after one warm-up step; per-epoch validation is not included. Every
figure comes from fresh processes; for each workload, on the same global batch B:

- instances/s of one process with two threads (also with OMP_WAIT_POLICY=PASSIVE, whose threads
  sleep instead of spinning while they wait for each other: on a machine busy with other work a
  spinning thread can hold the core its partner needs), and of two processes with one thread each;
- the two-process step time against one process with one thread on B/2 (each rank's share),
  measured alone: the difference is everything data parallelism adds on this machine (the
  all-reduce of the gradients, the batch norms' global statistics, the figures and stop flags,
  and two processes sharing the cores and memory bandwidth);
- one all-reduce of the gradients alone (as many floats as the model has parameters).

The machine's load (`uptime`) before and after goes into the table's notes: every figure is
wall-clock time, so run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from tempfile import TemporaryDirectory

import torch
from train_throughput import timed_steps  # a script beside this one

from amsolve.machine import machine_description
from amsolve.train.trainer import TrainOptions

REPOSITORY = Path(__file__).resolve().parents[1]


def workload(nodes: int) -> tuple[str, TrainOptions]:
    """The last phase of the shipped recipe for 20, 50 or 100 cities, as a benchmark workload."""
    base = TrainOptions(
        nodes=nodes, val_size=8, val_multistart_size=4, own_starts=True, temperature=0.5, normalized_inputs=True
    )
    if nodes == 20:
        return "own starts 32, 6 layers", replace(base, starts=32, n_layers=6, batch_size=64)
    if nodes == 50:
        return "own starts 40 + forced 16, 6 layers", replace(base, starts=40, forced_starts=16, n_layers=6)
    if nodes == 100:
        label = "own starts 50 + forced 50, 3 layers"
        return label, replace(base, starts=50, forced_starts=50, batch_size=32, normalized_inputs=False)
    raise SystemExit(f"--sizes: the workloads are those of the shipped recipes, n = 20, 50 or 100, not {nodes}")


def seconds_per_step(options: TrainOptions, steps: int) -> tuple[float, int]:
    """Mean wall-clock seconds of `steps` training steps after a warm-up step, and the parameter count."""
    seconds, trainer = timed_steps(options, steps)
    return seconds, sum(parameter.numel() for parameter in trainer.model.parameters())


def all_reduce_seconds(floats: int, repeats: int = 20) -> float:
    """Mean seconds of one all-reduce of `floats` float32 values over the process group."""
    import torch.distributed as dist

    tensor = torch.ones(floats)
    dist.all_reduce(tensor)  # warm-up
    dist.barrier()
    started = time.perf_counter()
    for _ in range(repeats):
        dist.all_reduce(tensor)
    return (time.perf_counter() - started) / repeats


def worker(args: argparse.Namespace) -> None:
    """One measuring process (one of torchrun's when there are several): the step time of `--batch`
    instances with `--threads` threads, and under torchrun an all-reduce alone; rank 0 writes them."""
    from amsolve.train.distributed import distributed_session

    torch.set_num_threads(args.threads)
    with TemporaryDirectory() as scratch, distributed_session("cpu") as distributed:
        _, options = workload(args.nodes)
        run = replace(options, out=f"{scratch}/run", threads=args.threads, batch_size=args.batch)
        step, parameters = seconds_per_step(run, args.steps)
        figures = {"step": step}
        if distributed.active:
            figures["all_reduce"] = all_reduce_seconds(parameters)
        if distributed.is_main:
            Path(args.result).write_text(json.dumps(figures))


def measure(
    nodes: int, batch: int, threads: int, steps: int, processes: int = 1, environment: dict[str, str] | None = None
) -> dict[str, float]:
    """Runs `worker` in `processes` fresh processes (torchrun when more than one) and returns its figures."""
    with TemporaryDirectory() as scratch:
        result = Path(scratch) / "result.json"
        launcher = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(processes)]
        command = [
            sys.executable, *(launcher if processes > 1 else []), __file__, "--worker", "--nodes", str(nodes),
            "--batch", str(batch), "--threads", str(threads), "--steps", str(steps), "--result", str(result),
        ]  # fmt: skip
        variables = {
            **os.environ,
            "OMP_NUM_THREADS": str(threads),
            "PYTHONPATH": str(REPOSITORY),
            **(environment or {}),
        }
        subprocess.run(command, env=variables, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.loads(result.read_text())


def uptime() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return "load average " + ", ".join(f"{load:.2f}" for load in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20,50,100")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # one measuring process
    for hidden in ("--nodes", "--batch", "--threads"):
        parser.add_argument(hidden, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    before = uptime()
    rows = []
    for nodes in map(int, args.sizes.split(",")):
        label, options = workload(nodes)
        batch = options.batch_size
        two_threads = measure(nodes, batch, 2, args.steps)["step"]
        passive = measure(nodes, batch, 2, args.steps, environment={"OMP_WAIT_POLICY": "PASSIVE"})["step"]
        half = measure(nodes, batch // 2, 1, args.steps)["step"]
        ddp = measure(nodes, batch, 1, args.steps, processes=2)
        rows.append(
            f"| {nodes} | {label} | {batch} | {batch / two_threads:.1f} | {batch / passive:.1f} | "
            f"{batch / ddp['step']:.1f} | {1000 * ddp['step']:.0f} | {1000 * half:.0f} | "
            f"{1000 * (ddp['step'] - half):+.0f} | {1000 * ddp['all_reduce']:.1f} |"
        )
    after = uptime()
    description = machine_description().replace(f"{torch.get_num_threads()} torch threads, ", "")
    print(f"machine: {description}; torch.distributed gloo; {args.steps} timed steps per figure")
    print(f"uptime before: {before}; after: {after}")
    print()
    print(
        "| n | workload (temperature 0.5) | global batch | 1 process × 2 threads (inst/s) | the same, "
        "OMP_WAIT_POLICY=PASSIVE | 2 processes × 1 thread (inst/s) | 2-process step (ms) | 1 process × 1 thread "
        "on half the batch (ms) | DDP overhead per step (ms) | gradient all-reduce alone (ms) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()

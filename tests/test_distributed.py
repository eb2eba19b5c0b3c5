"""Training with several processes (torchrun, gloo on the CPU): the same step as one process, files
written by rank 0 alone, resumes with another number of processes, and the command line."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.multiprocessing as mp
from conftest import DATA
from typer.testing import CliRunner

import amsolve
from amsolve.cli import app
from amsolve.decode.rollout import greedy_selector
from amsolve.train.checkpoint import load_checkpoint
from amsolve.train.distributed import Distributed, distributed_session, seed_of_rank
from amsolve.train.trainer import Trainer, TrainOptions, train

REPOSITORY = Path(amsolve.__file__).resolve().parents[1]
WORLD_SIZE = 2
TIMEOUT_SECONDS = 180  # a hung collective fails the test instead of CI


def free_port() -> int:
    """A TCP port nobody listens on right now (for the rank-0 rendezvous store)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _entry(rank: int, port: int, worker: Callable[..., None], args: tuple[Any, ...]) -> None:
    """What torchrun gives each process: its rank and the rendezvous address, in the environment."""
    os.environ.update(
        MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), LOCAL_RANK=str(rank),
        WORLD_SIZE=str(WORLD_SIZE),
    )  # fmt: skip
    torch.set_num_threads(1)
    worker(rank, *args)


def run_processes(worker: Callable[..., None], *args: Any) -> None:
    """Runs `worker(rank, *args)` in WORLD_SIZE fresh processes; fails on any worker's error or after
    TIMEOUT_SECONDS, never leaving a process behind."""
    context = mp.start_processes(
        _entry, args=(free_port(), worker, args), nprocs=WORLD_SIZE, join=False, start_method="spawn"
    )
    deadline = time.monotonic() + TIMEOUT_SECONDS
    try:
        while not context.join(timeout=1):
            if time.monotonic() > deadline:
                pytest.fail(f"{WORLD_SIZE} training processes did not finish in {TIMEOUT_SECONDS} s")
    finally:
        for process in context.processes:
            if process.is_alive():
                process.kill()


# One step on two processes against one step on one process with the whole batch.

HALF_BATCH = 8
SCENARIOS = {
    "teacher-forcing": {"supervised": str(DATA / "tsp20_sample.txt"), "teacher_starts": "model"},
    "pomo": {"baseline": "shared"},
    "exponential": {"baseline": "exponential"},
}


def step_options(out: Path, scenario: str) -> TrainOptions:
    return TrainOptions(
        nodes=20, out=str(out), batch_size=2 * HALF_BATCH, epoch_size=64, embed_dim=32, n_layers=2, val_size=4,
        seed=3, **SCENARIOS[scenario],
    )  # fmt: skip


def instances(count: int) -> torch.Tensor:
    """The batch both sides train on: (count, 20, 2)."""
    return torch.rand(count, 20, 2, generator=torch.Generator().manual_seed(11))


def make_deterministic(rank: int, patch: Callable[[Any, str, Any], None]) -> None:
    """Removes the randomness that differs between a rank's stream and one process's: tours come
    from greedy choices, reference tours keep their orientation, and uniform instances are rank
    `rank`'s share of one fixed batch."""
    import amsolve.train.objectives as objectives
    import amsolve.train.trainer as trainer

    patch(objectives, "inverse_cdf_selector", lambda generator: greedy_selector)
    patch(trainer, "apply_symmetry", lambda coords, symmetry: coords)
    batch = instances(2 * HALF_BATCH)
    patch(trainer, "uniform_instances", lambda count, n, generator, device: batch[rank * count : (rank + 1) * count])


def one_step(options: TrainOptions, distributed: Distributed | None = None) -> dict[str, torch.Tensor]:
    """Weights and running statistics after one gradient step, with plain SGD: Adam's first step
    divides each gradient by its own size, so float noise in a gradient that is zero in exact
    arithmetic (a bias before a batch norm) would become a step of the full learning rate."""
    trainer = Trainer(options, resume=False, on_event=lambda event: None, distributed=distributed)
    trainer.optimizer = torch.optim.SGD(trainer.model.parameters(), lr=0.5)
    trainer._gradient_step()
    return {name: tensor.detach().clone() for name, tensor in trainer.model.state_dict().items()}


def _one_step_worker(rank: int, directory: Path) -> None:
    make_deterministic(rank, setattr)
    with distributed_session("cpu") as distributed:
        for scenario in SCENARIOS:
            state = one_step(step_options(directory / f"{scenario}-run", scenario), distributed)
            torch.save(state, directory / f"{scenario}-rank{rank}.pt")


def test_a_step_on_two_processes_equals_one_step_on_the_whole_batch(tmp_path, monkeypatch) -> None:
    run_processes(_one_step_worker, tmp_path)
    make_deterministic(0, monkeypatch.setattr)
    for scenario in SCENARIOS:
        alone = one_step(step_options(tmp_path / f"{scenario}-alone", scenario))
        untrained = Trainer(
            step_options(tmp_path / f"{scenario}-untrained", scenario), resume=False, on_event=lambda event: None
        ).model.state_dict()
        for rank in range(WORLD_SIZE):
            together = torch.load(tmp_path / f"{scenario}-rank{rank}.pt")
            assert together.keys() == alone.keys()
            for name, tensor in alone.items():
                torch.testing.assert_close(together[name], tensor, rtol=1e-4, atol=1e-6, msg=f"{scenario}: {name}")
        moved = [name for name in alone if not torch.equal(alone[name], untrained[name])]
        assert len(moved) > len(alone) / 2, scenario  # the step changed the weights: the comparison means something


# A whole run on two processes: files written once, by rank 0 alone; then resumed by one process.


def _written_files(directory: Path, record: list[str]) -> Callable[[str, tuple[Any, ...]], None]:
    """An audit hook noting each file opened for writing in `directory` (temporary files under the
    name they replace)."""
    prefix = str(directory.resolve())

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event != "open" or not isinstance(args[0], str | Path):
            return
        if not str(Path(args[0]).resolve()).startswith(prefix):
            return
        mode, flags = args[1], args[2]
        writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & (os.O_WRONLY | os.O_RDWR))
        if writing:
            name = Path(args[0]).name
            record.append(re.sub(r"^\.(.+)\.[^.]+\.tmp$", r"\1", name))  # .checkpoint.pt.x1y2.tmp → checkpoint.pt

    return hook


def run_options(out: Path) -> TrainOptions:
    return TrainOptions(
        nodes=10, out=str(out), epochs=2, epoch_size=64, batch_size=16, embed_dim=32, n_layers=2, val_size=16,
        val_multistart_size=4, seed=7, threads=1,
    )  # fmt: skip


def _run_worker(rank: int, out: Path) -> None:
    writes: list[str] = []
    sys.addaudithook(_written_files(out, writes))
    summary = train(run_options(out))
    assert summary.epochs_done == 2 and summary.instances_seen == 128
    (out.parent / f"writes-rank{rank}.json").write_text(json.dumps(writes))


def test_two_processes_write_each_file_once_and_one_process_resumes(tmp_path) -> None:
    out = tmp_path / "run"
    run_processes(_run_worker, out)
    assert json.loads((tmp_path / "writes-rank1.json").read_text()) == []  # rank 1 wrote nothing
    writes = json.loads((tmp_path / "writes-rank0.json").read_text())
    assert writes.count("train.jsonl") == 3  # created with the phase, then one line per epoch
    assert writes.count("phases.json") == 1 and writes.count("checkpoint.pt") == 2  # a checkpoint per epoch
    log = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert [record["epoch"] for record in log] == [1, 2] and log[-1]["instances_seen"] == 128
    checkpoint = load_checkpoint(out)
    assert len(checkpoint["generators"]) == WORLD_SIZE and checkpoint["progress"]["epoch"] == 2

    resumed = train(replace(run_options(out), epochs=3), resume=True, explicit=frozenset({"epochs"}))
    assert resumed.stopped_because == "finished" and resumed.epochs_done == 3 and resumed.instances_seen == 192
    log = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert [record["epoch"] for record in log] == [1, 2, 3]
    phases = json.loads((out / "phases.json").read_text())
    assert len(phases) == 1 and phases[0]["resumed"][0]["changed"] == {"epochs": 3}
    assert "generators" not in load_checkpoint(out)  # one process: the checkpoint of a plain run


def test_rank_seeds_leave_rank_zero_on_the_runs_own_seed() -> None:
    seeds = {seed_of_rank(1234, rank) for rank in range(8)} | {seed_of_rank(1234, 1, restart=640)}
    assert seed_of_rank(1234, 0) == 1234 and len(seeds) == 9


def test_a_batch_that_does_not_split_over_the_processes_is_refused() -> None:
    from amsolve.errors import InputError
    from amsolve.train.distributed import share_of_batch

    assert share_of_batch(64, 2) == 32 and share_of_batch(64, 1) == 64
    with pytest.raises(InputError, match="--batch-size 15 does not split evenly over 2 processes"):
        share_of_batch(15, 2)


# The command line under torchrun, as a user runs it.


def test_torchrun_trains_a_model_that_solves_and_resumes_in_one_process(tmp_path) -> None:
    out = tmp_path / "run"
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(WORLD_SIZE),
        "-m", "amsolve", "train", "--nodes", "8", "--epochs", "2", "--epoch-size", "64", "--batch-size", "16",
        "--val-size", "16", "--out", str(out),
    ]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPOSITORY), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(
        command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        output, _ = process.communicate(timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # torchrun and its workers
        process.communicate()
        pytest.fail(f"torchrun did not finish in {TIMEOUT_SECONDS} s")
    assert process.returncode == 0, output
    assert output.count("finished: 2 epochs, 128 instances") == 1, output  # rank 0 alone reports

    runner = CliRunner()
    solved = runner.invoke(app, ["solve", str(DATA / "ulysses22.tsp"), "--model", str(out), "--json"])
    assert solved.exit_code == 0, solved.output
    assert sorted(json.loads(solved.stdout)["instances"][0]["tour"]) == list(range(1, 23))
    resumed = runner.invoke(app, ["train", "--out", str(out), "--resume", "--epochs", "3"])
    assert resumed.exit_code == 0, resumed.output
    assert len((out / "train.jsonl").read_text().splitlines()) == 3

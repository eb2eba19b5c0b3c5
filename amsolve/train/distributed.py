"""Data-parallel training under torchrun: which process this is, and what the processes share.

`torchrun --nproc-per-node N -m amsolve train ...` starts N processes with RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR and MASTER_PORT in their environment; `distributed_session` joins them in
one process group (gloo on the CPU, NCCL on CUDA). Rank 0 owns the run directory: it reads the
checkpoint and the data sets and shares them, validates, and writes every file. A plain
`amsolve train` is a world of one process, where every method here just does the local thing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import numpy as np
import torch
import torch.distributed as dist
from torch import nn

from amsolve.device import resolve_device
from amsolve.errors import AmsolveError, InputError

T = TypeVar("T")

COLLECTIVE_TIMEOUT = timedelta(hours=1)
"""How long a process waits for the others in one collective: rank 0 validates a whole epoch's
model while the others wait, so this is far above gloo's and NCCL's 30-minute default."""


@dataclass(frozen=True)
class Distributed:
    """This process's place among the training processes (rank 0 of 1 without torchrun)."""

    rank: int = 0
    world_size: int = 1
    device: torch.device = torch.device("cpu")  # where this process trains and its collectives run

    @property
    def is_main(self) -> bool:
        """Rank 0: the process that reads and writes the run directory."""
        return self.rank == 0

    @property
    def active(self) -> bool:
        """More than one process trains the model."""
        return self.world_size > 1

    @staticmethod
    def current() -> Distributed:
        """The process group this process belongs to (a world of one when there is none)."""
        if not (dist.is_available() and dist.is_initialized()):
            return Distributed()
        on_cuda = dist.get_backend() == "nccl"
        device = torch.device("cuda", torch.cuda.current_device()) if on_cuda else torch.device("cpu")
        return Distributed(dist.get_rank(), dist.get_world_size(), device)

    def from_main(self, produce: Callable[[], T]) -> T:
        """`produce()` run on rank 0 alone, its result (or its AmsolveError) shared with every rank."""
        if not self.active:
            return produce()
        box: list[Any] = [None]
        if self.is_main:
            try:
                box[0] = (produce(), None)
            except AmsolveError as error:
                box[0] = (None, error)
        dist.broadcast_object_list(box, src=0, device=self.device)
        result, error = box[0]
        if error is not None:
            raise error
        return result

    def on_main(self, produce: Callable[[], T]) -> T | None:
        """`produce()` run on rank 0 alone, its result there (None elsewhere); every rank waits for
        it and raises its AmsolveError."""
        if not self.active:
            return produce()
        result, box = None, [None]
        if self.is_main:
            try:
                result = produce()
            except AmsolveError as error:
                box[0] = error
        dist.broadcast_object_list(box, src=0, device=self.device)
        if box[0] is not None:
            raise box[0]
        return result

    def any(self, *flags: bool) -> tuple[bool, ...]:
        """Each flag, true when it is true on any rank (so that every rank takes the same branch)."""
        if not self.active:
            return flags
        values = torch.tensor(flags, dtype=torch.float32, device=self.device)
        dist.all_reduce(values, op=dist.ReduceOp.MAX)
        return tuple(bool(value) for value in values.tolist())

    def mean(self, values: list[float]) -> list[float]:
        """The mean of each figure over the ranks (each rank's batch being the same size)."""
        if not self.active:
            return values
        tensor = torch.tensor(values, dtype=torch.float64, device=self.device)
        dist.all_reduce(tensor)
        return (tensor / self.world_size).tolist()

    def mean_tensor(self, value: torch.Tensor) -> torch.Tensor:
        """A rank's batch mean (a scalar tensor) made the mean of the global batch (not differentiable)."""
        if not self.active:
            return value
        total = value.detach().clone()
        dist.all_reduce(total)
        return total / self.world_size

    def gather(self, value: T) -> list[T]:
        """Every rank's `value`, in rank order."""
        if not self.active:
            return [value]
        values: list[Any] = [None] * self.world_size
        dist.all_gather_object(values, value)
        return values

    def barrier(self) -> None:
        """Waits until every rank gets here."""
        if self.active:
            dist.barrier()


@contextmanager
def distributed_session(device: str) -> Iterator[Distributed]:
    """The process group torchrun's environment describes, joined for the block's duration.

    Re-entrant: inside a session (or a process group made by the caller) it yields that one and
    leaves it open. Without torchrun's environment it yields a world of one process.
    """
    if dist.is_available() and dist.is_initialized():
        yield Distributed.current()
        return
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size <= 1:
        yield Distributed()
        return
    if resolve_device(device).type == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        backend = "nccl"
    else:
        backend = "gloo"
    dist.init_process_group(backend, timeout=COLLECTIVE_TIMEOUT)
    try:
        yield Distributed.current()
        # Leave together: a rank that tears its group down while another still talks to it can make
        # that one abort (seen as "terminate called without an active exception" with gloo).
        dist.barrier()
    finally:
        dist.destroy_process_group()


def launched_rank() -> int:
    """This process's rank as torchrun announced it (0 outside torchrun), before any process group exists."""
    return int(os.environ.get("RANK", "0"))


def share_of_batch(batch_size: int, world_size: int) -> int:
    """Each process's share of a `--batch-size` (the batch of all processes together)."""
    if batch_size % world_size:
        raise InputError(
            f"--batch-size {batch_size} does not split evenly over {world_size} processes; "
            "it is the batch of all processes together"
        )
    return batch_size // world_size


def seed_of_rank(seed: int, rank: int, restart: int = 0) -> int:
    """The seed of rank `rank`'s instance stream: the run's own seed for rank 0 (so one process
    draws what a plain run draws), else one derived from (seed, rank, restart); `restart` tells
    apart the streams of resumes with another number of processes."""
    if rank == 0 and restart == 0:
        return seed
    return int(np.random.SeedSequence([seed, rank, restart]).generate_state(1, dtype=np.uint64)[0] >> 1)


class GlobalBatchNorm(nn.BatchNorm1d):
    """BatchNorm1d whose training statistics are those of the global batch, over every process.

    torch's SyncBatchNorm does this on GPUs only. Per-process statistics would make a step with
    batch B on each of two processes differ from a step with batch 2B on one. Outside training, or
    in a world of one process, it is BatchNorm1d; its state dict is BatchNorm1d's.
    """

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        """Normalises rows (rows, features) by the mean and variance over all processes' rows."""
        if not (self.training and dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1):
            return super().forward(input)
        features, wide = input.shape[1], torch.float64  # sums in float64: E[x²] − E[x]² loses nothing that matters
        count = torch.tensor([input.shape[0]], dtype=wide, device=input.device)
        local = torch.cat([input.sum(0, dtype=wide), input.square().sum(0, dtype=wide), count])  # (2f + 1,)
        totals = _SumOverProcesses.apply(local)
        rows = totals[-1]
        mean = totals[:features] / rows  # (features,)
        variance = totals[features : 2 * features] / rows - mean.square()  # (features,), biased
        if self.track_running_stats:
            self._update_running_statistics(mean.detach(), variance.detach() * rows / (rows - 1))
        scale = self.weight / (variance.to(input.dtype) + self.eps).sqrt()  # (features,)
        return (input - mean.to(input.dtype)) * scale + self.bias

    @torch.no_grad()
    def _update_running_statistics(self, mean: torch.Tensor, unbiased_variance: torch.Tensor) -> None:
        """What BatchNorm1d does to its running mean and variance in training mode."""
        self.num_batches_tracked.add_(1)
        momentum = self.momentum if self.momentum is not None else 1.0 / self.num_batches_tracked.item()
        self.running_mean.mul_(1 - momentum).add_(mean.to(self.running_mean.dtype), alpha=momentum)
        self.running_var.mul_(1 - momentum).add_(unbiased_variance.to(self.running_var.dtype), alpha=momentum)


class _SumOverProcesses(torch.autograd.Function):
    """The sum of a tensor over every process, differentiable: the gradient of each process's
    share is the sum of every process's gradient of the total."""

    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor) -> torch.Tensor:
        total = tensor.clone()
        dist.all_reduce(total)
        return total

    @staticmethod
    def backward(ctx: Any, gradient: torch.Tensor) -> torch.Tensor:
        total = gradient.clone()
        dist.all_reduce(total)
        return total


def with_global_batch_norms(model: nn.Module) -> nn.Module:
    """`model` with each BatchNorm1d replaced by a GlobalBatchNorm holding the same state."""
    for module in list(model.modules()):
        for name, child in module.named_children():
            if type(child) is nn.BatchNorm1d:
                replacement = GlobalBatchNorm(
                    child.num_features, child.eps, child.momentum, child.affine, child.track_running_stats
                )
                replacement.load_state_dict(child.state_dict())
                setattr(module, name, replacement.to(child.weight.device))
    return model


class StepModule(nn.Module):
    """The model with one training step's loss as its forward, for DistributedDataParallel.

    DDP synchronises the gradients of what its wrapped module's forward computes; the trainer's
    objectives call the encoder and the decoder step by step rather than `model(...)`, so the step
    itself is the forward.
    """

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, step: Callable[[], T]) -> T:
        """Runs `step` (which uses `self.model`) and returns its result, the loss among it."""
        return step()


def data_parallel(model: nn.Module, distributed: Distributed, unused_parameters: bool) -> nn.Module:
    """`StepModule(model)` under DistributedDataParallel; `unused_parameters` when the objective
    leaves some parameters without a gradient (teacher forcing alone never trains the first step's
    placeholder), so that DDP looks for them at every step."""
    device_ids = [distributed.device.index] if distributed.device.type == "cuda" else None
    return nn.parallel.DistributedDataParallel(
        StepModule(model), device_ids=device_ids, find_unused_parameters=unused_parameters
    )

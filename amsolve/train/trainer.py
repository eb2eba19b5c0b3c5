"""The training loop: epochs of REINFORCE (or teacher-forcing) steps, validation, checkpoints.

`train(options, on_event)` runs one training run; it returns a summary and reports progress
through `on_event`, so the loop knows nothing about how progress is displayed. Under torchrun
(`amsolve.train.distributed`) every process runs the same loop on its share of each batch.
"""

from __future__ import annotations

import json
import math
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

from amsolve.decode.augment import SYMMETRIES, apply_symmetry
from amsolve.decode.options import DecodeOptions
from amsolve.decode.strategies import decode
from amsolve.device import resolve_device
from amsolve.errors import AmsolveError, InputError
from amsolve.io.text import write_text_atomic
from amsolve.machine import machine_description
from amsolve.model.config import ModelConfig
from amsolve.model.network import AttentionModel, grown_from
from amsolve.model.registry import load_model, resolve_model
from amsolve.model.weights import save_model
from amsolve.train.baselines import BASELINES, ExponentialBaseline, RolloutBaseline, SharedBaseline, greedy_lengths
from amsolve.train.card import LOG_FILE, PHASES_FILE, read_log, read_phases, write_card
from amsolve.train.checkpoint import CHECKPOINT_FILE, load_checkpoint, save_checkpoint
from amsolve.train.data import ReferenceSet, load_reference_set, normalized, uniform_instances
from amsolve.train.distributed import (
    Distributed,
    data_parallel,
    distributed_session,
    seed_of_rank,
    share_of_batch,
    with_global_batch_norms,
)
from amsolve.train.objectives import TEACHER_STARTS, StepResult, reinforce_loss, teacher_forcing_loss


class TrainingError(AmsolveError):
    """Training cannot go on (a NaN loss, an inconsistent resume)."""


@dataclass(frozen=True)
class TrainOptions:
    """Everything that defines a training run (stored in its checkpoint and model card)."""

    nodes: int = 20
    out: str = "runs/tsp20"  # the CLI's default is runs/tsp<nodes>
    baseline: str = "shared"
    starts: int | None = None  # shared baseline: start cities per instance (None: all n)
    supervised: str | None = None  # teacher forcing on this dataset's reference tours instead of REINFORCE
    mix_supervised: float = 0.0  # with `supervised`: REINFORCE + this × teacher forcing instead
    trajectories: int = 8  # teacher forcing: sequences read from each reference tour
    teacher_starts: str = "random"  # teacher forcing reads tours from random starts, or from the model's own
    own_starts: bool = False  # shared baseline: the model samples each tour's first city instead of one tour per start
    forced_starts: int = 0  # with own_starts: this many more tours from random start cities, baselined apart
    temperature: float = 1.0  # REINFORCE samples tours from, and trains, the policy at this softmax temperature
    leader_bonus: float = 0.0  # shared baseline: the shortest tour per instance weighs 1 + this in the gradient
    normalized_inputs: bool = False  # train and validate on instances normalised as the solver normalises them
    epochs: int = 100
    epoch_size: int = 100_000
    batch_size: int = 64
    lr: float = 1e-4
    max_grad_norm: float = 1.0
    ema: float | None = None  # validate and save an exponential moving average of the weights, this decay per step
    seed: int = 1234
    device: str = "auto"
    init_from: str | None = None
    val_set: str | None = None
    val_size: int = 1000
    val_multistart_size: int = 128
    max_time: float | None = None  # seconds of this invocation
    checkpoint_minutes: float = 10.0
    threads: int | None = None
    embed_dim: int = 128
    n_layers: int | None = None  # encoder layers: 3 for a new model; with init_from, appended identity layers
    new_layers_lr: float | None = None  # Adam learning rate of the layers appended to init_from's (default: lr)
    command: str = ""  # the command line that started the run, for the model card

    def validate(self) -> None:
        """An InputError naming the first option out of range."""
        if self.baseline not in BASELINES:
            raise InputError(f"unknown baseline {self.baseline!r}; choose one of {', '.join(BASELINES)}")
        if self.nodes < 3:
            raise InputError("--nodes must be at least 3")
        for name in ("epochs", "epoch_size", "batch_size", "val_size", "trajectories"):
            if getattr(self, name) < 1:
                raise InputError(f"--{name.replace('_', '-')} must be at least 1")
        if self.starts is not None and self.baseline != "shared":
            raise InputError("--starts is for the shared baseline only")
        if self.starts is not None and not self.starts >= 2:
            raise InputError("--starts must be at least 2: the shared baseline is the mean over the starts")
        if not (self.mix_supervised >= 0 and math.isfinite(self.mix_supervised)):
            raise InputError("--mix-supervised must be a weight of 0 or more")
        if self.own_starts and self.baseline != "shared":
            raise InputError("--own-starts is for the shared baseline only")
        if self.teacher_starts not in TEACHER_STARTS:
            raise InputError(
                f"unknown --teacher-starts {self.teacher_starts!r}; choose one of {', '.join(TEACHER_STARTS)}"
            )
        if not (self.temperature > 0 and math.isfinite(self.temperature)):
            raise InputError("--temperature must be a positive number")
        if not (self.leader_bonus >= 0 and math.isfinite(self.leader_bonus)):
            raise InputError("--leader-bonus must be a weight of 0 or more")
        if self.leader_bonus and self.baseline != "shared":
            raise InputError("--leader-bonus is for the shared baseline only")
        if self.forced_starts < 0:
            raise InputError("--forced-starts must be 0 or more")
        if self.forced_starts and not self.own_starts:
            raise InputError("--forced-starts adds to --own-starts tours; without --own-starts use --starts")
        if self.mix_supervised and not self.supervised:
            raise InputError("--mix-supervised needs --supervised FILE (the reference tours to imitate)")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise InputError("--lr must be a positive number")
        if self.max_time is not None and self.max_time <= 0:
            raise InputError("--max-time must be positive")
        if self.n_layers is not None and self.n_layers < 1:
            raise InputError("--layers must be at least 1")
        if self.new_layers_lr is not None and not (self.new_layers_lr > 0 and math.isfinite(self.new_layers_lr)):
            raise InputError("--new-layers-lr must be a positive number")
        if self.new_layers_lr is not None and not (self.init_from and self.n_layers):
            raise InputError("--new-layers-lr is for the layers --layers appends to an --init-from model")
        if self.ema is not None and not 0 < self.ema < 1:
            raise InputError("--ema must be a decay between 0 and 1 (e.g. 0.998)")


CHANGEABLE_ON_RESUME = ("epochs", "lr", "ema", "checkpoint_minutes", "threads", "device")
"""Options a resumed run may take from the new command; every other one is the run's own."""


def resumed_options(
    saved: dict[str, Any], given: TrainOptions, explicit: frozenset[str] | None
) -> tuple[TrainOptions, dict[str, Any]]:
    """The options a resumed run goes on with, and those of them that changed.

    `saved` are the checkpoint's options; of `given`, only the names in `explicit` count (None:
    all of them, as from Python). A given option outside `CHANGEABLE_ON_RESUME` that differs from
    the run's own is an error, so a resume never silently trains something else.
    """
    defaults = TrainOptions()
    names = [name for name in asdict(defaults) if name not in ("command", "out", "max_time")]
    run = {name: saved.get(name, getattr(defaults, name)) for name in names}
    changed = {}
    for name in names if explicit is None else [name for name in names if name in explicit]:
        value = getattr(given, name)
        if value == run[name]:
            continue
        if name not in CHANGEABLE_ON_RESUME:
            option = f"--{name.replace('_', '-')} {value!r}"
            raise InputError(f"{given.out}: cannot resume with {option}; the run used {run[name]!r}")
        run[name], changed[name] = value, value
    if given.max_time is not None:  # a budget for this invocation only, never the earlier one's
        changed["max_time"] = given.max_time
    return TrainOptions(**run, out=given.out, max_time=given.max_time, command=saved.get("command", "")), changed


@dataclass
class TrainEvent:
    """A progress report: `kind` is 'start', 'step', 'epoch' or 'stop'."""

    kind: str
    epoch: int
    epochs: int
    step: int
    steps_per_epoch: int
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TrainSummary:
    """What a finished (or stopped) run reports."""

    out: Path
    epochs_done: int
    instances_seen: int
    wall_seconds: float
    best_validation: dict[str, float]
    stopped_because: str


@dataclass
class _Progress:
    """The counters a checkpoint restores; `base_*` are the totals of earlier phases."""

    phase: int = 1
    base_instances: int = 0
    base_wall_seconds: float = 0.0
    epoch: int = 0
    step: int = 0
    instances_seen: int = 0
    wall_seconds: float = 0.0
    best_greedy_length: float = math.inf
    best_averaged_greedy_length: float = math.inf  # with --ema: averages are compared with averages only
    best_validation: dict[str, float] = field(default_factory=dict)


@contextmanager
def _stop_on_signals() -> Iterator[dict[str, bool]]:
    """Turns SIGINT/SIGTERM into a flag the loop checks after each step."""
    flag = {"stop": False}

    def handler(signum: int, frame: Any) -> None:
        flag["stop"] = True

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class Trainer:
    """One training run in `options.out`; `run()` trains until done, stopped or out of time."""

    def __init__(
        self,
        options: TrainOptions,
        resume: bool,
        on_event: Callable[[TrainEvent], None],
        explicit: frozenset[str] | None = None,
        distributed: Distributed | None = None,
    ) -> None:
        """Sets up a new run in `options.out`, or with `resume` the one there (see `resumed_options`).

        Under torchrun (`distributed`, by default the current process group) rank 0 reads the
        checkpoint, the data sets and the model to start from, and shares them with the others.
        """
        self.distributed = distributed or Distributed.current()
        out, command = Path(options.out), options.command
        checkpoint = self.distributed.from_main(lambda: self._existing_run(out, resume))
        changed: dict[str, Any] = {}
        if checkpoint is not None:
            options, changed = resumed_options(checkpoint["options"], options, explicit)
        options.validate()
        self.local_batch_size = share_of_batch(options.batch_size, self.distributed.world_size)
        self.options = options
        self.on_event = on_event
        self.out = out
        self.device = self.distributed.device if self.distributed.active else resolve_device(options.device)
        if options.threads:
            torch.set_num_threads(options.threads)
        self.reference: ReferenceSet | None = None
        self._order: tuple[int, torch.Tensor] | None = None
        if options.supervised:
            self.reference = self.distributed.from_main(self._reference_set)
        self.validation = self.distributed.on_main(self._validation_set)  # rank 0 validates
        resumable = checkpoint is not None and "config" in checkpoint  # older checkpoints lack the config
        model, self.appended_layers = (  # appended_layers: encoder layers appended to the init_from model's
            self._saved_model(checkpoint) if resumable else self.distributed.from_main(self._initial_model)
        )
        if self.distributed.active:
            model = with_global_batch_norms(model)
        self.model = model.to(self.device)
        self.optimizer = torch.optim.Adam(self._parameter_groups())
        seed = seed_of_rank(options.seed, self.distributed.rank)
        self.generator = torch.Generator(device=self.device).manual_seed(seed)
        self.baseline = self._baseline()
        self.progress = _Progress()
        if checkpoint is None:
            self.progress = self.distributed.from_main(self._start_phase)
        else:
            self._restore(checkpoint)
            self.distributed.on_main(lambda: self._record_resume(command, changed))
        self.averaged = self._averaged_weights(checkpoint) if self.distributed.is_main else None
        self.parallel = None
        if self.distributed.active:  # teacher forcing alone leaves the first step's placeholder untrained
            unused_parameters = bool(options.supervised and not options.mix_supervised)
            self.parallel = data_parallel(self.model, self.distributed, unused_parameters)

    @staticmethod
    def _existing_run(out: Path, resume: bool) -> dict[str, Any] | None:
        """The checkpoint to resume from (None for a new run); never lets a new run overwrite files."""
        if resume:
            if not (out / CHECKPOINT_FILE).is_file():
                raise InputError(f"{out}: no checkpoint to resume from")
            return load_checkpoint(out)
        if (out / CHECKPOINT_FILE).exists():
            raise InputError(f"{out} holds a training run already; use --resume, or another --out")
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise InputError(f"{out} exists and is not an empty directory; choose another --out")
        return None

    @property
    def steps_per_epoch(self) -> int:
        """Gradient steps per epoch (at least one)."""
        return max(1, self.options.epoch_size // self.options.batch_size)

    def _reference_set(self) -> ReferenceSet:
        """The `--supervised` dataset, checked against `--nodes`."""
        reference = load_reference_set(Path(self.options.supervised))
        if reference.n != self.options.nodes:
            raise InputError(
                f"{self.options.supervised}: has {reference.n} cities per instance, --nodes is {self.options.nodes}"
            )
        return reference

    def _initial_model(self) -> tuple[AttentionModel, int]:
        """The model a new run starts from, and how many encoder layers it appends to --init-from's."""
        torch.manual_seed(self.options.seed)
        if self.options.init_from:
            source = load_model(self.options.init_from, device="cpu")
            layers = self.options.n_layers or source.config.n_layers
            if layers < source.config.n_layers:
                raise InputError(
                    f"--layers {layers} is fewer than the {source.config.n_layers} layers of "
                    f"{self.options.init_from}; a model can only be deepened"
                )
            if self.options.new_layers_lr and layers == source.config.n_layers:
                raise InputError(
                    f"--new-layers-lr needs --layers beyond the {layers} layers of {self.options.init_from}"
                )
            grown = grown_from(source, replace(source.config, n_layers=layers, trained_nodes=self.options.nodes))
            return grown, layers - source.config.n_layers
        config = ModelConfig(
            embed_dim=self.options.embed_dim, n_layers=self.options.n_layers or 3, trained_nodes=self.options.nodes
        )
        return AttentionModel(config), 0

    def _saved_model(self, checkpoint: dict[str, Any]) -> tuple[AttentionModel, int]:
        """A model of the checkpoint's architecture, whose weights `_restore` loads (a resume does not
        read the --init-from model again, which may have changed or gone since), and its appended layers."""
        config = ModelConfig.from_dict(checkpoint["config"], where=f"{self.out} checkpoint")
        return AttentionModel(config), checkpoint.get("appended_layers", 0)

    def _parameter_groups(self) -> list[dict[str, Any]]:
        """Adam's parameter groups: every weight at --lr, or the appended layers at --new-layers-lr."""
        if not self.options.new_layers_lr:
            return [{"params": list(self.model.parameters()), "lr": self.options.lr}]
        appended = self.model.encoder.layers[-self.appended_layers :]
        appended_ids = {id(parameter) for parameter in appended.parameters()}
        rest = [parameter for parameter in self.model.parameters() if id(parameter) not in appended_ids]
        return [
            {"params": rest, "lr": self.options.lr},
            {"params": list(appended.parameters()), "lr": self.options.new_layers_lr},
        ]

    def _start_phase(self) -> _Progress:
        """Records this run as a new phase, after the history of the model it starts from, and
        returns its counters."""
        history_dir = resolve_model(self.options.init_from) if self.options.init_from else None
        log = read_log(history_dir) if history_dir else []
        phases = read_phases(history_dir) if history_dir else []
        self.out.mkdir(parents=True, exist_ok=True)
        progress = _Progress(phase=len(phases) + 1)
        if log:
            progress.base_instances = log[-1]["total_instances"]
            progress.base_wall_seconds = log[-1]["total_wall_seconds"]
        phases.append(
            {
                "phase": progress.phase,
                "command": self.options.command or "amsolve train (Python API)",
                "options": asdict(self.options),
                "machine": self._machine(),
                "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            }
        )
        write_text_atomic(self.out / LOG_FILE, "".join(json.dumps(record) + "\n" for record in log), force=True)
        write_text_atomic(self.out / PHASES_FILE, json.dumps(phases, indent=1) + "\n", force=True)
        return progress

    def _machine(self) -> str:
        """The machine for the records, with the number of processes under torchrun."""
        world_size = self.distributed.world_size
        return machine_description() + (f", {world_size} processes (torchrun)" if world_size > 1 else "")

    def _validation_set(self) -> ReferenceSet | torch.Tensor:
        if self.options.val_set:
            reference = load_reference_set(Path(self.options.val_set), limit=self.options.val_size)
            if reference.n != self.options.nodes:
                raise InputError(
                    f"{self.options.val_set}: has {reference.n} cities per instance, --nodes is {self.options.nodes}"
                )
            return reference
        generator = torch.Generator().manual_seed(self.options.seed + 1)
        return uniform_instances(self.options.val_size, self.options.nodes, generator, torch.device("cpu"))

    def _baseline(self) -> SharedBaseline | ExponentialBaseline | RolloutBaseline:
        """The baseline of `--baseline`; under torchrun a moving average follows the global batch's mean."""
        batch_mean = self.distributed.mean_tensor
        if self.options.baseline == "shared":
            return SharedBaseline()
        if self.options.baseline == "exponential":
            return ExponentialBaseline(batch_mean=batch_mean)
        generator = torch.Generator().manual_seed(self.options.seed + 2)
        eval_coords = uniform_instances(
            min(self.options.val_size, 10_000), self.options.nodes, generator, torch.device("cpu")
        )
        eval_coords = self._model_view(eval_coords.to(self.device))
        return RolloutBaseline(self.model, eval_coords, measure=self.distributed.is_main, batch_mean=batch_mean)

    def _averaged_weights(self, checkpoint: dict[str, Any] | None) -> AveragedModel | None:
        """With `--ema`, the moving average of the weights: the checkpoint's, or (when the option is
        new to the run) one that starts from the current weights."""
        if self.options.ema is None:
            return None
        averaged = AveragedModel(self.model, multi_avg_fn=get_ema_multi_avg_fn(self.options.ema), use_buffers=True)
        if checkpoint is not None and "averaged" in checkpoint:
            averaged.load_state_dict(checkpoint["averaged"])
        return averaged

    def _checkpoint_state(self, generators: list[torch.Tensor]) -> dict[str, Any]:
        """What `_restore` needs to go on; `generators` are the random streams of every rank."""
        state = {
            "options": asdict(self.options),
            "config": asdict(self.model.config),
            "appended_layers": self.appended_layers,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "baseline": self.baseline.state_dict(),
            "generator": generators[0],
            "generator_device": self.device.type,
            "progress": asdict(self.progress),
        }
        if len(generators) > 1:
            state["generators"] = generators
        if self.averaged is not None:
            state["averaged"] = self.averaged.state_dict()
        return state

    def _restore(self, state: dict[str, Any]) -> None:
        """Model, optimiser, baseline, random stream and counters as the checkpoint left them."""
        saved_device = state.get("generator_device", "cpu")
        if saved_device != self.device.type:
            raise InputError(
                f"{self.out}: the run was trained on {saved_device}; resume it with --device {saved_device}"
            )
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        for group, fresh in zip(self.optimizer.param_groups, self._parameter_groups(), strict=True):
            group["lr"] = fresh["lr"]
        self.baseline.load_state_dict(state["baseline"])
        self.progress = _Progress(**state["progress"])
        self._restore_generator(state)

    def _restore_generator(self, state: dict[str, Any]) -> None:
        """This rank's random stream as the checkpoint left it; after a change in the number of
        processes, rank 0 goes on with its own and the others start streams of their own."""
        generators = state.get("generators", [state["generator"]])
        if len(generators) == self.distributed.world_size:
            self.generator.set_state(generators[self.distributed.rank])
        elif self.distributed.is_main:
            self.generator.set_state(state["generator"])
        else:
            restart = self.progress.base_instances + self.progress.instances_seen
            self.generator.manual_seed(seed_of_rank(self.options.seed, self.distributed.rank, restart))

    def _record_resume(self, command: str, changed: dict[str, Any]) -> None:
        """Notes in the run's phases when it was resumed, by which command, with which changes."""
        phases = read_phases(self.out)
        if not phases:
            return
        resumes = phases[-1].setdefault("resumed", [])
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        resume = {"at": now, "command": command or "amsolve train (Python API)", "changed": changed}
        if self.distributed.active:
            resume["machine"] = self._machine()
        resumes.append(resume)
        write_text_atomic(self.out / PHASES_FILE, json.dumps(phases, indent=1) + "\n", force=True)

    def _epoch_order(self) -> torch.Tensor:
        """This epoch's permutation of the reference set (a function of seed and epoch only)."""
        epoch = self.progress.epoch
        if self._order is None or self._order[0] != epoch:
            generator = torch.Generator().manual_seed(self.options.seed * 100_003 + epoch)
            self._order = (epoch, torch.randperm(len(self.reference), generator=generator))
        return self._order[1]

    def _teacher_forcing_step(self) -> StepResult:
        """Teacher forcing on this process's share of the next batch of reference tours, each in a
        random symmetry (the batch's instances are the same for any number of processes)."""
        options, progress = self.options, self.progress
        order = self._epoch_order()
        first = progress.step * options.batch_size + self.distributed.rank * self.local_batch_size
        wanted = torch.arange(first, first + self.local_batch_size)
        index = order[wanted % len(order)]
        symmetry = torch.randint(SYMMETRIES, (len(index),), generator=self.generator, device=self.device)
        coords = self._model_view(apply_symmetry(self.reference.coords[index].to(self.device), symmetry))
        tours = self.reference.tours[index].to(self.device)
        return teacher_forcing_loss(
            self.model, coords, tours, options.trajectories, self.generator, options.teacher_starts
        )

    def _model_view(self, coords: torch.Tensor) -> torch.Tensor:
        """Training instances (batch, n, 2) as the model sees them: normalised with `--normalized-inputs`."""
        return normalized(coords)[0] if self.options.normalized_inputs else coords

    def _reinforce_step(self) -> StepResult:
        """REINFORCE on a batch of fresh uniform instances (this process's share of the batch)."""
        options = self.options
        coords = uniform_instances(self.local_batch_size, options.nodes, self.generator, self.device)
        coords = self._model_view(coords)
        starts = options.starts or options.nodes
        return reinforce_loss(
            self.model,
            self.baseline,
            coords,
            starts,
            self.generator,
            options.own_starts,
            options.forced_starts,
            options.temperature,
            options.leader_bonus,
        )

    def _step(self) -> StepResult:
        """The loss of the next batch: teacher forcing with `--supervised`, REINFORCE without, and
        REINFORCE plus `mix_supervised` × teacher forcing with both."""
        if self.reference is None:
            return self._reinforce_step()
        if not self.options.mix_supervised:
            return self._teacher_forcing_step()
        reinforce, imitation = self._reinforce_step(), self._teacher_forcing_step()
        loss = reinforce.loss + self.options.mix_supervised * imitation.loss
        return StepResult(loss, reinforce.mean_length, reinforce.mean_baseline)

    def _validate(self, model: AttentionModel, multistart: bool = True) -> dict[str, float]:
        """Greedy (all validation instances) and multi-start×8 (the first few) figures of `model`."""
        coords = self.validation.coords if isinstance(self.validation, ReferenceSet) else self.validation
        coords = coords.to(self.device)  # (val, n, 2)
        scale = torch.ones(len(coords), device=self.device)  # (val,): model-view lengths → original lengths
        if self.options.normalized_inputs:
            coords, scale = normalized(coords)
        lengths = {"greedy": greedy_lengths(model, coords).squeeze(1) * scale}  # (val,)
        if multistart:
            every_start = DecodeOptions("multistart", starts=self.options.nodes, augment=True)
            subset = coords[: self.options.val_multistart_size]  # (m, n, 2)
            chunks = [decode(model, chunk, every_start).lengths[:, 0] for chunk in subset.split(64)]
            lengths["multistart8"] = torch.cat(chunks) * scale[: len(subset)]  # (m,)
        model.train()
        figures = {}
        for name, tour_lengths in lengths.items():
            tour_lengths = tour_lengths.double().cpu()
            figures[f"{name}_length"] = tour_lengths.mean().item()
            if isinstance(self.validation, ReferenceSet):
                reference = self.validation.lengths[: len(tour_lengths)]
                figures[f"{name}_gap_pct"] = 100 * ((tour_lengths - reference) / reference).mean().item()
        return figures

    def _log(self, record: dict[str, Any]) -> None:
        with open(self.out / LOG_FILE, "a") as file:
            file.write(json.dumps(record) + "\n")

    def _save(self) -> None:
        """Writes the checkpoint (rank 0, with every rank's random stream)."""
        generators = self.distributed.gather(self.generator.get_state())
        if self.distributed.is_main:
            save_checkpoint(self.out, self._checkpoint_state(generators))

    def _emit(self, kind: str, figures: dict[str, Any]) -> None:
        """Reports progress (from rank 0 only)."""
        if not self.distributed.is_main:
            return
        progress = self.progress
        self.on_event(
            TrainEvent(kind, progress.epoch, self.options.epochs, progress.step, self.steps_per_epoch, figures)
        )

    def _gradient_step(self) -> tuple[StepResult, float]:
        """One optimiser step, returning its figures and loss; a non-finite loss stops the run first.

        Under torchrun the step runs through DistributedDataParallel, which averages the gradients
        of every process's share of the batch, and the figures are the means over the processes.
        """
        result = self._step() if self.parallel is None else self.parallel(self._step)
        loss, length, baseline = self.distributed.mean([result.loss.item(), result.mean_length, result.mean_baseline])
        result = replace(result, mean_length=length, mean_baseline=baseline)
        if not math.isfinite(loss):
            raise TrainingError(
                f"loss became {loss} at epoch {self.progress.epoch + 1}, step {self.progress.step + 1}; "
                f"the last good checkpoint in {self.out} is kept (lower --lr?)"
            )
        self.optimizer.zero_grad(set_to_none=True)
        result.loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.options.max_grad_norm).item()
        if not math.isfinite(norm):
            raise TrainingError(
                f"gradients became {norm} at epoch {self.progress.epoch + 1}, step {self.progress.step + 1}; "
                f"the last good checkpoint in {self.out} is kept (lower --lr?)"
            )
        self.optimizer.step()
        if self.averaged is not None:
            self.averaged.update_parameters(self.model)
        self.progress.step += 1
        self.progress.instances_seen += self.options.batch_size
        return result, loss

    def run(self) -> TrainSummary:
        """Trains until the last epoch, Ctrl-C/SIGTERM or `max_time`; checkpoints on the way out."""
        options, progress = self.options, self.progress
        if self.distributed.is_main:
            self.out.mkdir(parents=True, exist_ok=True)
        self.model.train()
        started = last_checkpoint = window_start = time.perf_counter()
        wall_before, window_instances = progress.wall_seconds, 0
        self._emit("start", {"device": str(self.device), "processes": self.distributed.world_size})
        with _stop_on_signals() as flag:
            while progress.epoch < options.epochs:
                while progress.step < self.steps_per_epoch:
                    result, loss = self._gradient_step()
                    now = time.perf_counter()
                    progress.wall_seconds = wall_before + now - started
                    window_instances += options.batch_size
                    self._emit("step", {
                        "loss": loss, "length": result.mean_length, "baseline": result.mean_baseline,
                        "instances_per_s": window_instances / max(now - window_start, 1e-9),
                    })  # fmt: skip
                    if now - window_start > 30:
                        window_start, window_instances = now, 0
                    interrupted, out_of_time, checkpoint_due = self.distributed.any(
                        flag["stop"],
                        options.max_time is not None and now - started >= options.max_time,
                        now - last_checkpoint > 60 * options.checkpoint_minutes,
                    )
                    stop = "interrupted" if interrupted else "max_time" if out_of_time else None
                    if stop:
                        self._save()
                        return self._summary(stop)
                    if checkpoint_due:
                        self._save()
                        last_checkpoint = now
                self._end_epoch()
                self._save()
                last_checkpoint = time.perf_counter()
        return self._summary("finished")

    def _update_rollout_baseline(self) -> bool:
        """The rollout baseline's end of epoch: rank 0 evaluates and decides, the others follow."""
        replaced = self.distributed.from_main(lambda: self.baseline.end_epoch(self.model))
        if not self.distributed.is_main:
            self.baseline.follow(self.model, replaced)
        self.model.train()
        return replaced

    def _end_epoch(self) -> None:
        """Baseline update (rollout), then on rank 0 validation, best weights, log line and model
        card while the other ranks wait."""
        progress = self.progress
        replaced = None
        if isinstance(self.baseline, RolloutBaseline) and (self.reference is None or self.options.mix_supervised):
            replaced = self._update_rollout_baseline()
        progress.epoch += 1
        progress.step = 0
        self.distributed.on_main(lambda: self._record_epoch(replaced))

    def _record_epoch(self, replaced: bool | None) -> None:
        """Validation, best weights, log line and model card of the epoch just ended."""
        progress = self.progress
        weights = self.model if self.averaged is None else self.averaged.module
        figures = self._validate(weights)
        best = "best_greedy_length" if self.averaged is None else "best_averaged_greedy_length"
        improved = figures["greedy_length"] < getattr(progress, best)
        if improved:
            setattr(progress, best, figures["greedy_length"])
            progress.best_validation = figures
            save_model(weights, self.out)
        if self.averaged is not None:  # the trained weights themselves, for comparison
            raw = self._validate(self.model, multistart=False)
            figures = {**figures, **{f"raw_{name}": value for name, value in raw.items()}}
        record = {
            "phase": progress.phase,
            "epoch": progress.epoch,
            "instances_seen": progress.instances_seen,
            "wall_seconds": round(progress.wall_seconds, 1),
            "total_instances": progress.base_instances + progress.instances_seen,
            "total_wall_seconds": round(progress.base_wall_seconds + progress.wall_seconds, 1),
            "saved": improved,
            **figures,
        }
        if replaced is not None:
            record["baseline_replaced"] = replaced
        self._log(record)
        write_card(self.out)
        self._emit("epoch", record)

    def _summary(self, stopped_because: str) -> TrainSummary:
        progress = self.progress
        self.distributed.barrier()  # rank 0 has written its last file before any process leaves
        self._emit("stop", {"reason": stopped_because})
        return TrainSummary(
            self.out, progress.epoch, progress.instances_seen, progress.wall_seconds, progress.best_validation,
            stopped_because,
        )  # fmt: skip


def train(
    options: TrainOptions,
    resume: bool = False,
    on_event: Callable[[TrainEvent], None] = lambda event: None,
    explicit: frozenset[str] | None = None,
) -> TrainSummary:
    """Runs (or resumes) training as `options` say; see `Trainer` and `resumed_options`. Under
    torchrun every process calls this, and they train the model together."""
    with distributed_session(options.device) as distributed:
        return Trainer(options, resume, on_event, explicit, distributed).run()

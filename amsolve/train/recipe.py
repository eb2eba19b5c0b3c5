"""Recipes: a model's whole training, phase by phase, in one JSON file.

A recipe names the data sets its phases read (with how to make them) and lists the phases in
order, each with its `amsolve train` options, its number of epochs, and changes from given epochs
on (a lower `lr`, a moving average of the weights). `run_recipe` trains the phases one after the
other into one output directory:

    OUT/recipe.json         the recipe being run (a resume reads it)
    OUT/phases/01-NAME/     each phase's run directory (checkpoint, train.jsonl, phases.json, card)
    OUT/model.pt, ...       the weights, config, records and card of the last finished phase

Each phase starts from the weights the phase before saved (those of its best validation epoch),
as the shipped models' phases did; a resume goes on at the phase and epoch where the run stopped.
The shipped models' recipes are `amsolve/train/recipes/*.json`.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from amsolve.errors import InputError
from amsolve.files import atomic_write
from amsolve.io.text import write_text_atomic
from amsolve.model.config import CONFIG_FILE, WEIGHTS_FILE
from amsolve.train.card import LOG_FILE, PHASES_FILE, write_card
from amsolve.train.checkpoint import CHECKPOINT_FILE, load_checkpoint
from amsolve.train.distributed import Distributed, distributed_session
from amsolve.train.trainer import TrainEvent, TrainOptions, TrainSummary, train

RECIPES_DIR = Path(__file__).parent / "recipes"
RECIPE_FILE = "recipe.json"
PHASES_DIR = "phases"

NOT_PHASE_OPTIONS = frozenset({"out", "epochs", "max_time", "threads", "device", "command"})
"""TrainOptions a phase does not set: the recipe places and sizes its phases, the invocation
chooses the hardware and the time budget."""

CHANGEABLE = ("lr", "ema")
"""What a phase may change from a given epoch on (a resume with these options, as by hand)."""

DATA_SET_OPTIONS = ("supervised", "val_set")
"""Phase options that may name one of the recipe's data sets instead of a file."""


@dataclass(frozen=True)
class DataSet:
    """Uniform instances with LKH-3 reference tours that a recipe's phases read."""

    name: str
    nodes: int
    count: int
    seed: int
    fast: bool = False  # LKH-3 with the fast settings of training targets
    note: str = ""

    def path(self, data_dir: Path) -> Path:
        """Where the recipe looks for it."""
        return data_dir / f"{self.name}.txt"

    def make_command(self, data_dir: Path) -> str:
        """The command that makes it (needs the repository's benchmarks and `pip install '.[bench]'`)."""
        fast = " --fast" if self.fast else ""
        return (
            f"python benchmarks/make_reference_set.py --nodes {self.nodes} --count {self.count} --seed {self.seed}"
            f"{fast} --out {self.path(data_dir)}"
        )


@dataclass(frozen=True)
class Phase:
    """One phase: `amsolve train` options, a number of epochs, and changes from given epochs on."""

    name: str
    epochs: int
    options: dict[str, Any]
    changes: tuple[tuple[int, dict[str, Any]], ...] = ()  # (first epoch, settings), in epoch order

    def stretch(self, epoch: int) -> tuple[int, dict[str, Any]]:
        """The last epoch of the stretch `epoch` (1-based) lies in, and the settings in force there."""
        settings = {name: self.options.get(name, getattr(TrainOptions, name)) for name in CHANGEABLE}
        last = self.epochs
        for first, changed in self.changes:
            if first > epoch:
                last = first - 1
                break
            settings.update(changed)
        return last, settings


@dataclass(frozen=True)
class Recipe:
    """A model's whole training: the data sets it reads and its phases in order."""

    name: str
    about: str
    datasets: dict[str, DataSet]
    phases: tuple[Phase, ...]
    document: dict[str, Any]  # as read, written to OUT/recipe.json

    def phase_options(self, phase: Phase, data_dir: Path) -> dict[str, Any]:
        """A phase's options with its data sets' names replaced by their paths."""
        options = dict(phase.options)
        for name in DATA_SET_OPTIONS:
            if options.get(name) in self.datasets:
                options[name] = str(self.datasets[options[name]].path(data_dir))
        return options

    def phase_directory(self, out: Path, index: int) -> Path:
        """Where phase `index` (1-based) runs, in the recipe's output directory `out`."""
        return out / PHASES_DIR / f"{index:02d}-{self.phases[index - 1].name}"

    def missing_data(self, data_dir: Path) -> list[DataSet]:
        """The data sets the phases read that are not in `data_dir`."""
        used = {phase.options.get(name) for phase in self.phases for name in DATA_SET_OPTIONS}
        return [data for name, data in self.datasets.items() if name in used and not data.path(data_dir).is_file()]


def shipped_recipes() -> list[str]:
    """The names of the recipes in the package (one per shipped model)."""
    return sorted(path.stem for path in RECIPES_DIR.glob("*.json"))


def load_recipe(name_or_path: str) -> Recipe:
    """A shipped recipe by name (`tsp20`) or a recipe file by path."""
    path = RECIPES_DIR / f"{name_or_path}.json" if name_or_path in shipped_recipes() else Path(name_or_path)
    if not path.is_file():
        known = ", ".join(shipped_recipes())
        raise InputError(f"no recipe {name_or_path!r}: not a shipped recipe ({known}) nor a file")
    try:
        document = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not a JSON recipe ({error})") from None
    return parse_recipe(document, str(path))


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise InputError(f"{where}: {message}")


def _keys(table: Any, allowed: set[str], required: set[str], where: str) -> dict[str, Any]:
    """`table` checked to be a JSON object with the required keys and no others."""
    _require(isinstance(table, dict), where, "expected a JSON object")
    unknown, missing = sorted(set(table) - allowed), sorted(required - set(table))
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r}; allowed: {', '.join(sorted(allowed))}")
    if missing:
        raise InputError(f"{where}: missing key {missing[0]!r}")
    return table


def _count(value: Any, where: str, least: int = 1) -> int:
    whole = isinstance(value, int) and not isinstance(value, bool)
    _require(whole and value >= least, where, f"expected a whole number, {least} or more")
    return value


def _parse_phase(table: Any, index: int, datasets: dict[str, DataSet], where: str) -> Phase:
    where = f"{where}: phase {index}"
    table = _keys(table, {"name", "epochs", "options", "changes", "note"}, {"name", "epochs", "options"}, where)
    name, epochs = table["name"], _count(table["epochs"], f"{where}: epochs")
    _require(isinstance(name, str) and name.replace("-", "").isalnum(), where, "name: letters, digits and '-' only")
    trainable = {field.name for field in fields(TrainOptions)} - NOT_PHASE_OPTIONS
    options = _keys(table["options"], trainable, set(), f"{where} options")
    _require(index == 1 or "init_from" not in options, where, "only the first phase has init_from (the others "
             "start from the phase before)")  # fmt: skip
    for option in DATA_SET_OPTIONS:
        value = options.get(option)
        if value in datasets:
            _require(datasets[value].nodes == options.get("nodes", TrainOptions.nodes), where,
                     f"{option} {value!r} has {datasets[value].nodes} cities per instance, the phase's nodes "
                     f"{options.get('nodes', TrainOptions.nodes)}")  # fmt: skip
    start = {"init_from": "the phase before"} if index > 1 else {}
    try:
        TrainOptions(**options, **start, epochs=epochs).validate()
    except (InputError, TypeError) as error:
        raise InputError(f"{where}: {error}") from None
    changes, last = [], 1
    for change in table.get("changes", []):
        change = _keys(change, {"from_epoch", *CHANGEABLE}, {"from_epoch"}, f"{where} changes")
        first = _count(change["from_epoch"], f"{where} changes: from_epoch", least=last + 1)
        _require(first <= epochs, where, f"a change from epoch {first} of {epochs}")
        settings = {key: value for key, value in change.items() if key != "from_epoch"}
        _require(bool(settings), where, f"the change from epoch {first} changes nothing")
        try:
            TrainOptions(**{**options, **settings}, **start, epochs=epochs).validate()
        except (InputError, TypeError) as error:
            raise InputError(f"{where}, from epoch {first}: {error}") from None
        changes.append((first, settings))
        last = first
    return Phase(name, epochs, dict(options), tuple(changes))


def parse_recipe(document: Any, where: str) -> Recipe:
    """A recipe from its JSON document; an InputError naming `where` and the first problem."""
    document = _keys(document, {"name", "about", "datasets", "phases"}, {"name", "phases"}, where)
    datasets = {}
    for name, table in _keys(document.get("datasets", {}), set(document.get("datasets", {})), set(), where).items():
        data_where = f"{where}: data set {name!r}"
        table = _keys(table, {"nodes", "count", "seed", "fast", "note"}, {"nodes", "count", "seed"}, data_where)
        datasets[name] = DataSet(
            name, _count(table["nodes"], data_where, least=3), _count(table["count"], data_where),
            _count(table["seed"], data_where, least=0), bool(table.get("fast", False)), str(table.get("note", "")),
        )  # fmt: skip
    _require(isinstance(document["phases"], list) and document["phases"], where, "phases: a list of one or more")
    phases = tuple(_parse_phase(table, index, datasets, where) for index, table in enumerate(document["phases"], 1))
    names = [phase.name for phase in phases]
    _require(len(set(names)) == len(names), where, "two phases have the same name")
    return Recipe(str(document["name"]), str(document.get("about", "")), datasets, phases, document)


@dataclass(frozen=True)
class Invocation:
    """What the command that runs (or resumes) a recipe decides: where, with what, for how long."""

    out: Path
    data_dir: Path = Path("data")
    max_time: float | None = None
    threads: int | None = None
    device: str = "auto"
    given: frozenset[str] = frozenset()  # of threads and device, those typed on the command line
    command: str = ""


def _prepare(recipe: Recipe | None, invocation: Invocation, resume: bool) -> Recipe:
    """The recipe to run in `out`: a new one (checked, then written there) or, with `resume`, the
    one there (which a recipe given again must equal)."""
    out = invocation.out
    if resume:
        if not (out / RECIPE_FILE).is_file():
            raise InputError(f"{out}: no recipe run to resume")
        stored = parse_recipe(json.loads((out / RECIPE_FILE).read_text()), str(out / RECIPE_FILE))
        if recipe is not None and recipe.document != stored.document:
            raise InputError(f"{out} runs recipe {stored.name!r} as it was then; resume it without --recipe")
        recipe = stored
    elif out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out} exists and is not an empty directory; use --resume, or another --out")
    assert recipe is not None
    missing = recipe.missing_data(invocation.data_dir)
    if missing:
        raise InputError(
            f"{missing[0].path(invocation.data_dir)} is missing ({len(missing)} of the recipe's data sets are); "
            f"make them with `python benchmarks/make_recipe_data.py {recipe.name} --out {invocation.data_dir}`, "
            f"or this one with `{missing[0].make_command(invocation.data_dir)}`"
        )
    if not resume:
        out.mkdir(parents=True, exist_ok=True)
        write_text_atomic(out / RECIPE_FILE, json.dumps(recipe.document, indent=1) + "\n")
    return recipe


def _phase_progress(directory: Path) -> dict[str, Any] | None:
    """A phase's counters from its checkpoint; None when it has not started (a directory it left
    without a checkpoint, killed before the first one, is cleared so that it starts again)."""
    if (directory / CHECKPOINT_FILE).is_file():
        return load_checkpoint(directory)["progress"]
    if directory.exists():
        shutil.rmtree(directory)
    return None


def _publish(directory: Path, out: Path) -> None:
    """Makes `out` the model directory of a finished phase: its weights, config and records, and
    a card written for `out`."""
    for name in (WEIGHTS_FILE, CONFIG_FILE, LOG_FILE, PHASES_FILE):
        if (directory / name).is_file():
            content = (directory / name).read_bytes()
            atomic_write(out / name, lambda file, content=content: file.write(content))
    write_card(out)


def _run_phase(
    recipe: Recipe, index: int, invocation: Invocation, deadline: float | None,
    distributed: Distributed, on_event: Callable[[TrainEvent], None],
) -> tuple[TrainSummary | None, dict[str, Any] | None]:  # fmt: skip
    """Trains phase `index` (1-based) to its last epoch, a stretch of epochs at a time; returns the
    summary of a stop (None when the phase finished) and the phase's counters."""
    phase, directory = recipe.phases[index - 1], recipe.phase_directory(invocation.out, index)
    previous = recipe.phase_directory(invocation.out, index - 1) if index > 1 else None
    announced = False
    while True:
        progress = distributed.from_main(lambda: _phase_progress(directory))
        done = progress["epoch"] if progress else 0
        if done >= phase.epochs:
            return None, progress
        remaining = None if deadline is None else distributed.from_main(lambda: deadline - time.perf_counter())
        if remaining is not None and remaining <= 0:  # before the phase's next stretch
            if progress is None:
                return TrainSummary(invocation.out, 0, 0, 0.0, {}, "max_time"), None
            counters = (progress["instances_seen"], progress["wall_seconds"], progress["best_validation"])
            return TrainSummary(directory, done, *counters, "max_time"), None
        if not announced and distributed.is_main:
            figures = {"phase": index, "phases": len(recipe.phases), "name": phase.name, "directory": str(directory)}
            on_event(TrainEvent("phase", done, phase.epochs, 0, 0, figures))
            announced = True
        last, settings = phase.stretch(done + 1)
        command = f"{invocation.command} # recipe {recipe.name}, phase {index}/{len(recipe.phases)}: {phase.name}"
        options = TrainOptions(
            out=str(directory), epochs=last, max_time=remaining, threads=invocation.threads, device=invocation.device,
            command=command, **settings,
        )  # fmt: skip
        if progress is None:
            own = recipe.phase_options(phase, invocation.data_dir)
            if previous is not None:
                own["init_from"] = str(previous)
            own = {key: value for key, value in own.items() if key not in CHANGEABLE}  # set by the stretch
            summary = train(replace(options, **own), False, on_event)
        else:
            explicit = frozenset({"epochs", *CHANGEABLE, *(invocation.given & {"threads", "device"})})
            summary = train(options, True, on_event, explicit)
        if summary.stopped_because != "finished":
            return summary, None


def run_recipe(
    recipe: Recipe | None,
    invocation: Invocation,
    resume: bool = False,
    on_event: Callable[[TrainEvent], None] = lambda event: None,
) -> TrainSummary:
    """Runs a recipe's phases in order into `invocation.out` (with `resume`: the recipe there, from
    where it stopped), until the last phase ends, Ctrl-C/SIGTERM or `max_time`. Under torchrun every
    process calls this; rank 0 reads and writes the files."""
    with distributed_session(invocation.device) as distributed:
        recipe = distributed.from_main(lambda: _prepare(recipe, invocation, resume))
        deadline = None if invocation.max_time is None else time.perf_counter() + invocation.max_time
        totals, best = {"epoch": 0, "instances_seen": 0, "wall_seconds": 0.0}, {}
        for index in range(1, len(recipe.phases) + 1):
            stopped, progress = _run_phase(recipe, index, invocation, deadline, distributed, on_event)
            if stopped is not None:
                return stopped
            for name in totals:
                totals[name] += progress[name]
            best = progress["best_validation"]
            directory = recipe.phase_directory(invocation.out, index)
            distributed.on_main(lambda directory=directory: _publish(directory, invocation.out))
        return TrainSummary(
            invocation.out, totals["epoch"], totals["instances_seen"], totals["wall_seconds"], best, "finished"
        )

"""What `amsolve train` runs: one training run from its options, or the phases of a recipe."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from amsolve.errors import InputError
from amsolve.train.distributed import distributed_session
from amsolve.train.recipe import RECIPE_FILE, Invocation, load_recipe, run_recipe
from amsolve.train.trainer import TrainEvent, TrainOptions, TrainSummary, train

RECIPE_INVOCATION = ("out", "resume", "recipe", "data_dir", "max_time", "threads", "device")
"""The options that go with a recipe: where and how it runs, not what it trains."""


@dataclass(frozen=True)
class TrainRequest:
    """A training configuration as the command line gives it: a run's options, or a recipe to run
    (or resume) with the options in `RECIPE_INVOCATION`."""

    options: TrainOptions
    resume: bool = False
    given: frozenset[str] | None = None  # the options typed on the command line (None: all, as from Python)
    recipe: str | None = None  # a shipped recipe's name or a recipe file
    data_dir: str = "data"  # where a recipe's data sets are

    def invocation(self) -> Invocation:
        """How a recipe runs, from the request's options."""
        options = self.options
        return Invocation(
            Path(options.out), Path(self.data_dir), options.max_time, options.threads, options.device,
            frozenset(self.given or ()), options.command,
        )  # fmt: skip


def run_training(request: TrainRequest, on_event: Callable[[TrainEvent], None] = lambda event: None) -> TrainSummary:
    """Runs `request`: a recipe when it names one or resumes a recipe's run, else one training run.
    Under torchrun every process calls this."""
    with distributed_session(request.options.device) as distributed:
        out = Path(request.options.out)
        is_recipe = request.recipe is not None or distributed.from_main(
            lambda: request.resume and (out / RECIPE_FILE).is_file()
        )
        if not is_recipe:
            return train(request.options, request.resume, on_event, request.given)
        extra = sorted((request.given or frozenset()) - set(RECIPE_INVOCATION))
        if extra:
            allowed = ", ".join(f"--{name.replace('_', '-')}" for name in RECIPE_INVOCATION)
            flag = f"--{extra[0].replace('_', '-')}"
            raise InputError(f"{flag} is the recipe's to set; with a recipe only {allowed} apply")
        recipe = distributed.from_main(lambda: load_recipe(request.recipe)) if request.recipe else None
        return run_recipe(recipe, request.invocation(), request.resume, on_event)

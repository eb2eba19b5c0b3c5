"""Recipes: phases run in order into one directory, resume where they stopped (also with another
number of processes), refuse what they cannot run, and the shipped ones match the models' records."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import fields
from pathlib import Path

import pytest
import torch
from conftest import DATA
from test_distributed import run_processes
from typer.testing import CliRunner

from amsolve.cli import app
from amsolve.errors import InputError
from amsolve.model.weights import load_model_dir
from amsolve.train.checkpoint import load_checkpoint
from amsolve.train.recipe import (
    NOT_PHASE_OPTIONS,
    Invocation,
    load_recipe,
    parse_recipe,
    run_recipe,
    shipped_recipes,
)
from amsolve.train.trainer import TrainEvent, TrainOptions

MODELS = Path(__file__).resolve().parents[1] / "models"

SMALL = {"epoch_size": 32, "batch_size": 16, "embed_dim": 32, "n_layers": 1, "val_size": 8, "val_multistart_size": 4}
TINY_RECIPE = {
    "name": "tiny",
    "about": "two short phases for the tests",
    "phases": [
        {"name": "small", "epochs": 2, "options": {"nodes": 8, "lr": 1e-3, **SMALL}},
        {
            "name": "larger",
            "epochs": 3,
            "options": {"nodes": 10, "lr": 1e-3, "seed": 9, **SMALL},
            "changes": [{"from_epoch": 3, "lr": 3e-4, "ema": 0.9}],
        },
    ],
}


def write_recipe(directory: Path, document: dict) -> Path:
    path = directory / "tiny.json"
    path.write_text(json.dumps(document))
    return path


def interrupt_in_the_second_phase(event: TrainEvent) -> None:
    """Ctrl-C once the second phase's first epoch has ended: the run stops after the next step."""
    if event.kind == "epoch" and event.figures["phase"] == 2 and event.figures["epoch"] == 1:
        os.kill(os.getpid(), signal.SIGINT)


def test_a_recipe_runs_its_phases_into_one_directory_and_resumes_exactly(tmp_path) -> None:
    recipe = load_recipe(str(write_recipe(tmp_path, TINY_RECIPE)))
    straight = run_recipe(recipe, Invocation(tmp_path / "straight", threads=1))
    assert straight.stopped_because == "finished" and straight.epochs_done == 5
    assert straight.instances_seen == 5 * 32

    out = tmp_path / "stopped"
    stopped = run_recipe(recipe, Invocation(out, threads=1), on_event=interrupt_in_the_second_phase)
    assert stopped.stopped_because == "interrupted" and stopped.epochs_done == 1
    assert load_model_dir(out).config.trained_nodes == 8  # the first phase's model, published when it ended
    resumed = run_recipe(None, Invocation(out, threads=1), resume=True)
    assert resumed.stopped_because == "finished" and resumed.epochs_done == 5

    a, b = (load_checkpoint(recipe.phase_directory(run, 2)) for run in (tmp_path / "straight", out))
    assert all(torch.equal(a["model"][name], b["model"][name]) for name in a["model"])  # as if never stopped
    assert b["options"]["lr"] == 3e-4 and b["options"]["ema"] == 0.9  # the change from epoch 3
    log = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert [(record["phase"], record["epoch"]) for record in log] == [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]
    assert "raw_greedy_length" in log[-1] and "raw_greedy_length" not in log[-2]  # the average from epoch 3 on
    phases = json.loads((out / "phases.json").read_text())
    assert len(phases) == 2 and phases[1]["resumed"][-1]["changed"] == {"epochs": 3, "lr": 3e-4, "ema": 0.9}
    assert load_model_dir(out).config.trained_nodes == 10
    assert "2 phase(s)" in (out / "TRAINING.md").read_text()
    assert json.loads((out / "recipe.json").read_text()) == TINY_RECIPE


def _recipe_worker(rank: int, recipe_path: Path, out: Path) -> None:
    on_event = interrupt_in_the_second_phase if rank == 0 else (lambda event: None)
    summary = run_recipe(load_recipe(str(recipe_path)), Invocation(out, threads=1), on_event=on_event)
    assert summary.stopped_because == "interrupted"  # Ctrl-C reached rank 0 alone; every rank stopped


def test_a_recipe_on_two_processes_stops_together_and_one_process_finishes_it(tmp_path) -> None:
    out, path = tmp_path / "run", write_recipe(tmp_path, TINY_RECIPE)
    run_processes(_recipe_worker, path, out)
    stopped = load_checkpoint(load_recipe(str(path)).phase_directory(out, 2))
    assert stopped["progress"]["epoch"] == 1 and stopped["progress"]["step"] == 1 and len(stopped["generators"]) == 2
    resumed = run_recipe(None, Invocation(out, threads=1), resume=True)
    assert resumed.stopped_because == "finished" and resumed.epochs_done == 5
    log = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert [(record["phase"], record["epoch"]) for record in log] == [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]


def test_a_recipe_run_refuses_other_training_options_and_names_missing_data(tmp_path) -> None:
    runner = CliRunner()
    path = write_recipe(tmp_path, TINY_RECIPE)
    refused = runner.invoke(app, ["train", "--recipe", str(path), "--out", str(tmp_path / "a"), "--lr", "0.1"])
    assert refused.exit_code == 2 and "--lr is the recipe's to set" in refused.stderr
    shipped = runner.invoke(app, ["train", "--recipe", "tsp20", "--out", str(tmp_path / "b"), "--data-dir", tmp_path])
    assert shipped.exit_code == 2
    assert f"{tmp_path / 'train20.txt'} is missing" in shipped.stderr and "make_recipe_data.py tsp20" in shipped.stderr
    assert not (tmp_path / "b").exists()
    with pytest.raises(InputError, match="no recipe run to resume"):
        run_recipe(None, Invocation(tmp_path / "c"), resume=True)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"phases": []}, "phases: a list of one or more"),
        ({"phases": [{"name": "a", "epochs": 1, "options": {"lr": 1e-3, "out": "x"}}]}, "unknown key 'out'"),
        ({"phases": [{"name": "a", "epochs": 0, "options": {}}]}, "epochs: expected a whole number, 1 or more"),
        ({"phases": [{"name": "a", "epochs": 2, "options": {"baseline": "best"}}]}, "unknown baseline 'best'"),
        (
            {"phases": [{"name": "a", "epochs": 2, "options": {}, "changes": [{"from_epoch": 3, "lr": 1e-5}]}]},
            "a change from epoch 3 of 2",
        ),
        (
            {"phases": [{"name": "a", "epochs": 2, "options": {}, "changes": [{"from_epoch": 2, "batch_size": 8}]}]},
            "unknown key 'batch_size'",
        ),
        (
            {"phases": [{"name": "a", "epochs": 1, "options": {}},
                        {"name": "b", "epochs": 1, "options": {"init_from": "x"}}]},
            "only the first phase has init_from",
        ),
        (
            {"datasets": {"d": {"nodes": 50, "count": 8, "seed": 1}},
             "phases": [{"name": "a", "epochs": 1, "options": {"supervised": "d"}}]},
            "'d' has 50 cities per instance, the phase's nodes 20",
        ),
    ],
)  # fmt: skip
def test_a_recipe_that_cannot_run_is_refused_with_the_reason(change, message) -> None:
    with pytest.raises(InputError, match=message):
        parse_recipe({**TINY_RECIPE, **change}, "recipe.json")


@pytest.mark.parametrize("name", ["tsp20", "tsp50", "tsp100"])
def test_a_shipped_recipe_is_the_training_its_model_recorded(name) -> None:
    """Every phase's options and epochs as in the model's phases.json and train.jsonl, and the
    moving average switched on at the epoch the log shows it first (lr changes are in the cards)."""
    assert name in shipped_recipes()
    recipe = load_recipe(name)
    phases = json.loads((MODELS / name / "phases.json").read_text())
    log = [json.loads(line) for line in (MODELS / name / "train.jsonl").read_text().splitlines()]
    assert len(recipe.phases) == len(phases)
    compared = [field.name for field in fields(TrainOptions) if field.name not in NOT_PHASE_OPTIONS | {"init_from"}]
    for phase, recorded in zip(recipe.phases, phases, strict=True):
        options = recipe.phase_options(phase, Path("runs"))
        for option in compared:
            mine = options.get(option, getattr(TrainOptions, option))
            theirs = recorded["options"].get(option, getattr(TrainOptions, option))
            assert mine == theirs, (name, phase.name, option)
        records = [record for record in log if record["phase"] == recorded["phase"]]
        assert phase.epochs == len(records), phase.name
        averaged = [record["epoch"] for record in records if "raw_greedy_length" in record]
        first_averaged = next((epoch for epoch in range(1, phase.epochs + 1) if phase.stretch(epoch)[1]["ema"]), None)
        assert (averaged[0] if averaged else None) == first_averaged, phase.name
    assert recipe.missing_data(DATA) == list(recipe.datasets.values())  # data sets to make, all named

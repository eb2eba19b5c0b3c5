"""Shared fixtures: a small untrained model (fast), paths to optional shared data, and the CLI runner."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch
from click.testing import Result
from typer.testing import CliRunner

from amsolve.cli import app
from amsolve.model.config import ModelConfig
from amsolve.model.network import AttentionModel
from amsolve.model.weights import save_model

DATA = Path(__file__).parent / "data"
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SHARED = Path(__file__).resolve().parents[2] / "shared"

runner = CliRunner()


def tour_edges(order: np.ndarray) -> set[frozenset[int]]:
    """The undirected edges of the tour `order`."""
    return {frozenset((int(a), int(b))) for a, b in zip(order, np.roll(order, -1), strict=True)}


def invoke(*args: object) -> Result:
    """`amsolve ARGS...` through Typer's runner."""
    return runner.invoke(app, [str(arg) for arg in args])


def error_line(result: Result) -> str:
    """The whole stderr of a failed run, which must be exactly one line."""
    text = result.stderr
    assert text.endswith("\n") and text.count("\n") == 1 and "Traceback" not in text, text
    return text.strip()


@pytest.fixture(autouse=True, scope="session")
def _few_threads() -> None:
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_model() -> AttentionModel:
    """A randomly initialised small model: decoders must be correct for any weights."""
    torch.manual_seed(0)
    return AttentionModel(ModelConfig(embed_dim=32, n_layers=2, n_heads=4, ff_dim=64, trained_nodes=10)).eval()


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_model: AttentionModel) -> Path:
    """The tiny random model saved as a model directory, so tests never need shipped weights."""
    directory = tmp_path_factory.mktemp("model")
    save_model(tiny_model, directory)
    return directory


@pytest.fixture(scope="session")
def shared() -> Path:
    """`../shared` beside the repository; tests needing it skip on a fresh clone."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture
def benchmark_script(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], ModuleType]:
    """Import a script of `benchmarks/` by name, as the scripts import their neighbours (`paired`)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))

    def imported(name: str) -> ModuleType:
        sys.modules.pop(name, None)
        return importlib.import_module(name)

    return imported

"""The Python API: what `import amsolve` offers and how it matches the CLI."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import amsolve
from amsolve.cli import solve as solve_command


def test_solve_takes_plain_coordinates_and_returns_a_valid_tour(model_dir) -> None:
    points = np.random.default_rng(0).uniform(size=(30, 2))
    solution = amsolve.solve(points, model=str(model_dir))
    assert sorted(solution.tour.tolist()) == list(range(30))
    closed = points[np.append(solution.tour, solution.tour[0])]
    assert solution.length == pytest.approx(np.linalg.norm(np.diff(closed, axis=0), axis=1).sum())
    assert solution.gap_pct is None


def test_solve_options_as_keywords(model_dir) -> None:
    square = [[0, 0], [1, 0], [1, 1], [0, 1]]
    solution = amsolve.solve(square, model=str(model_dir), strategy="beam", beam_width=3, local_search="none")
    assert solution.pipeline == "beam3×8" and solution.length == pytest.approx(4.0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        amsolve.solve(square, model=str(model_dir), beam=3)


def test_cli_defaults_are_the_api_defaults() -> None:
    defaults = amsolve.SolveOptions()
    parameters = inspect.signature(solve_command).parameters
    assert parameters["decode"].default == defaults.decode.strategy
    assert parameters["augment"].default == defaults.decode.augment
    assert parameters["local_search"].default == defaults.local_search
    assert parameters["samples"].default == defaults.decode.samples
    assert parameters["beam_width"].default == defaults.decode.beam_width
    assert parameters["batch_size"].default == defaults.batch_size


def test_unknown_public_name() -> None:
    with pytest.raises(AttributeError):
        amsolve.does_not_exist  # noqa: B018

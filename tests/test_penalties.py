"""The penalty network's description of the cities, its prediction and its pipeline (`alphanet`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from amsolve.errors import InputError, WeightsError
from amsolve.model.penalties import (
    NEIGHBOURS,
    PENALTIES_FILE,
    PenaltyNet,
    load_penalty_net,
    penalty_features,
    penalty_module,
    predict_penalties,
    save_penalty_net,
)
from amsolve.search.candidates import candidates_and_penalties
from amsolve.search.distances import coordinate_view
from amsolve.solver import SolveOptions


def features_by_numpy(points: np.ndarray) -> tuple[np.ndarray, float]:
    """The description computed the plain way: all distances, sorted."""
    n = len(points)
    matrix = np.linalg.norm(points[:, None] - points[None], axis=-1)
    np.fill_diagonal(matrix, np.inf)
    neighbours = np.argsort(matrix, axis=1, kind="stable")[:, : min(NEIGHBOURS, n - 1)]
    neighbours = np.concatenate([neighbours, np.repeat(neighbours[:, -1:], NEIGHBOURS - neighbours.shape[1], 1)], 1)
    own = np.take_along_axis(matrix, neighbours, 1)
    scale = own[:, 0].mean()
    around = own[neighbours].mean(axis=1)
    return np.log(np.concatenate([own, around], 1) / scale + 1e-3), scale


@pytest.mark.parametrize("n", [4, 11, 60])
def test_features_equal_a_plain_computation(n: int) -> None:
    points = np.random.default_rng(n).random((n, 2))
    features, scale = penalty_features(coordinate_view(points, "EUCLIDEAN"))
    expected, expected_scale = features_by_numpy(points)
    assert features.shape == (n, 2 * NEIGHBOURS)
    assert scale == pytest.approx(expected_scale)
    np.testing.assert_allclose(features, expected, rtol=1e-5, atol=1e-5)


def test_prediction_equals_the_network_run_by_torch() -> None:
    torch.manual_seed(0)
    module = penalty_module().eval()
    view = coordinate_view(np.random.default_rng(1).random((50, 2)), "EUCLIDEAN")
    features, scale = penalty_features(view)
    with torch.no_grad():
        expected = module(torch.from_numpy(features)).squeeze(-1).double().numpy() * scale
    np.testing.assert_allclose(predict_penalties(PenaltyNet.from_module(module), view), expected, rtol=1e-5, atol=1e-7)


def test_a_saved_network_loads_back_the_same(tmp_path: Path) -> None:
    torch.manual_seed(1)
    net = PenaltyNet.from_module(penalty_module(hidden=8))
    save_penalty_net(net, tmp_path, {"command": "test"})
    loaded = load_penalty_net(tmp_path)
    features = np.random.default_rng(2).normal(size=(30, 2 * NEIGHBOURS)).astype(np.float32)
    np.testing.assert_array_equal(loaded(features), net(features))
    assert json.loads((tmp_path / "penalties.json").read_text()) == {"command": "test"}


def test_a_broken_penalty_file_is_a_weights_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match=PENALTIES_FILE):
        load_penalty_net(tmp_path)  # missing
    (tmp_path / PENALTIES_FILE).write_bytes(b"not a numpy archive")
    with pytest.raises(WeightsError, match=PENALTIES_FILE):
        load_penalty_net(tmp_path)
    np.savez(tmp_path / PENALTIES_FILE, weight_0=np.zeros((1, 3), np.float32), bias_0=np.zeros(1, np.float32))
    with pytest.raises(WeightsError, match="inputs"):
        load_penalty_net(tmp_path)  # the wrong number of inputs


def test_a_pipeline_without_the_attention_model_never_loads_torch() -> None:
    """The default pipeline runs the penalty network in numpy: a solve, through the CLI as
    through the Python API, and a bench of it leave torch (seconds to import) unloaded."""
    script = """
import sys
import numpy as np
from typer.testing import CliRunner
import amsolve
from amsolve.cli import app
solution = amsolve.solve(np.random.default_rng(0).random((30, 2)), time_limit=0.02)
assert solution.model == "penalties", solution.model
result = CliRunner().invoke(app, ["solve", sys.argv[1], "--time-limit", "0.02", "--json"])
assert result.exit_code == 0, result.output
pipeline = "greedy-edge+lk@alphanet8"
result = CliRunner().invoke(app, ["bench", sys.argv[1], "--decode", pipeline, "--time-limit", "0.02", "--json"])
assert result.exit_code == 0, result.output
print(sorted(name for name in sys.modules if name.split(".")[0] == "torch"))
"""
    example = Path(__file__).parents[1] / "examples" / "berlin52.tsp"
    result = subprocess.run([sys.executable, "-c", script, str(example)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_alphanet_is_a_neural_pipeline_without_the_attention_model() -> None:
    options = SolveOptions(candidates="alphanet")
    assert options.neural and options.uses_penalty_network and not options.uses_network
    assert options.label(100) == "greedy-edge+lk@alphanet8"
    assert not SolveOptions(candidates="alphanet", local_search="none").neural


def test_the_search_package_alone_cannot_make_alphanet_lists() -> None:
    view = coordinate_view(np.random.default_rng(2).random((20, 2)), "EUCLIDEAN")
    with pytest.raises(InputError, match="penalty network"):
        candidates_and_penalties(view, "alphanet")


@pytest.mark.parametrize(("alone_below", "ascends"), [(1.0, False), (0.0, True)])
def test_alphanet_takes_the_predicted_pi_as_they_are_where_the_ascent_would_have_too_little_time(
    monkeypatch: pytest.MonkeyPatch, alone_below: float, ascends: bool
) -> None:
    """60 cities: with less time per city than `PREDICTED_ALONE_SECONDS_PER_CITY` the α lists come
    from the prediction with no ascent time; else the ascent gets it and starts at the prediction."""
    import amsolve.solver as solver
    from amsolve.problem import Instance

    calls = []
    real = solver.alpha_candidates
    monkeypatch.setattr(solver, "PREDICTED_ALONE_SECONDS_PER_CITY", alone_below)
    monkeypatch.setattr(
        solver,
        "alpha_candidates",
        lambda view, k, seconds, **kw: calls.append((seconds, kw["penalties"])) or real(view, k, seconds, **kw),
    )
    coords = np.random.default_rng(2).random((60, 2)) * 1000
    instance = Instance(name="u60", coords=coords, metric="EUC_2D", ids=np.arange(1, 61))
    solution = solver.solve_instances([instance], SolveOptions(candidates="alphanet", time_limit=0.05))[0]
    seconds, penalties = calls[-1]
    assert (seconds > 0.0) is ascends and penalties is not None and np.isfinite(penalties).all()
    assert sorted(solution.tour.tolist()) == list(range(60))


def test_the_warm_up_runs_alphanets_ascent_whatever_the_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up gives the candidate lists time enough for the ascent, so that its compiled code
    is ready before any clock starts, even on a piece of 121 cities (a sparse graph's)."""
    import amsolve.solver as solver
    from amsolve.problem import Instance

    calls = []
    real = solver.alpha_candidates
    monkeypatch.setattr(
        solver,
        "alpha_candidates",
        lambda view, k, seconds, **kw: calls.append((view.n, seconds)) or real(view, k, seconds, **kw),
    )
    coords = np.random.default_rng(3).random((400, 2)) * 1000
    instance = Instance(name="u400", coords=coords, metric="EUC_2D", ids=np.arange(1, 401))
    solver.warm_up(instance, SolveOptions(candidates="alphanet", time_limit=0.01), solver.ModelCache(None, "cpu"))
    n, seconds = calls[-1]  # the second call: the first may spend its time on one-time costs
    assert seconds >= solver.PREDICTED_ALONE_SECONDS_PER_CITY * n

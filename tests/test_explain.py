"""`amsolve explain`: the recorded steps, the tour they make, the table, the JSON and the GIF."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
import torch
from conftest import DATA, error_line, invoke

import amsolve
from amsolve.decode.rollout import greedy_selector, rollout
from amsolve.explanation import Explanation, explain
from amsolve.io import load_instance
from amsolve.model.decoder import FUSED_ATTENTION_SCORES


@pytest.fixture(scope="module")
def berlin(model_dir) -> Explanation:
    return explain(load_instance(DATA / "berlin52.tsp"), str(model_dir), glimpse=True)


def test_each_step_is_a_distribution_over_the_unvisited_cities(berlin) -> None:
    tour, probabilities = berlin.tour, berlin.probabilities.astype(np.float64)
    assert probabilities.shape == (52, 52) and sorted(tour.tolist()) == list(range(52))
    for index in range(52):
        visited, unvisited = tour[:index], tour[index:]
        assert (probabilities[index, visited] == 0).all()
        assert probabilities[index, unvisited].sum() == pytest.approx(1.0, abs=1e-5)
    assert probabilities[-1, tour[-1]] == 1.0  # the last city is forced


def test_the_chosen_city_is_the_most_probable(berlin) -> None:
    for step in berlin.steps:
        assert step.probability == berlin.probabilities[step.number - 1].max()
        assert step.chosen == step.candidates[0] and step.probability == step.probabilities[0]
        assert (np.diff(step.probabilities) <= 0).all()  # most probable first
        assert step.current == (None if step.number == 1 else berlin.tour[step.number - 2])
    entropies = [step.entropy for step in berlin.steps]
    assert min(entropies) >= 0 and entropies[-1] == 0
    first = berlin.probabilities[0].astype(np.float64)
    assert entropies[0] == pytest.approx(-(first[first > 0] * np.log(first[first > 0])).sum())


def test_each_heads_glimpse_is_a_distribution_over_the_unvisited_cities(berlin, tiny_model) -> None:
    heads = tiny_model.config.n_heads
    assert berlin.glimpse is not None and berlin.glimpse.shape == (52, heads, 52)
    for index in range(52):
        assert (berlin.glimpse[index][:, berlin.tour[:index]] == 0).all()
        np.testing.assert_allclose(berlin.glimpse[index].sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("n", [20, FUSED_ATTENTION_SCORES // 4 + 1])  # plain softmax; fused kernel for 4 rollouts
def test_the_glimpse_return_leaves_the_step_unchanged(tiny_model, n) -> None:
    cache = tiny_model.precompute(torch.rand(2, n, 2, generator=torch.Generator().manual_seed(n)))
    query = torch.randn(2, 4, tiny_model.config.embed_dim, generator=torch.Generator().manual_seed(1))
    mask = torch.zeros(2, 4, n).masked_fill_(torch.rand(2, 4, n, generator=torch.Generator()) < 0.3, -math.inf)
    mask[..., 0] = 0  # at least one city open
    with torch.no_grad():
        plain = tiny_model.decoder.log_probs(cache, query, mask)
        with_glimpse, attention = tiny_model.decoder.log_probs(cache, query, mask, with_glimpse=True)
    torch.testing.assert_close(with_glimpse, plain, rtol=1e-5, atol=1e-5)
    assert attention.shape == (2, tiny_model.config.n_heads, 4, n)
    assert (attention[mask.isinf().unsqueeze(1).expand_as(attention)] == 0).all()


def test_the_explained_tour_is_the_greedy_tour_of_solve(model_dir) -> None:
    for path, number in ((DATA / "berlin52.tsp", 1), (DATA / "tsp20_sample.txt", 3)):
        solved = invoke(
            "solve", path, "--decode", "greedy", "--no-augment", "--local-search", "none", "--limit", number,
            "--model", model_dir, "--json",
        )  # fmt: skip
        explained = invoke("explain", path, "--instance", number, "--model", model_dir, "--json")
        assert solved.exit_code == explained.exit_code == 0, solved.output + explained.output
        row = json.loads(solved.stdout)["instances"][number - 1]
        document = json.loads(explained.stdout)
        assert document["instance"] == row["name"]
        assert document["tour"] == row["tour"] and document["length"] == row["length"]


def test_the_python_api_matches_solve_and_takes_plain_coordinates(model_dir) -> None:
    points = np.random.default_rng(3).uniform(size=(25, 2))
    explanation = amsolve.explain(points, model=str(model_dir))
    solution = amsolve.solve(points, model=str(model_dir), strategy="greedy", augment=False, local_search="none")
    assert isinstance(explanation, amsolve.Explanation) and explanation.glimpse is None
    assert explanation.tour.tolist() == solution.tour.tolist() and explanation.length == solution.length
    assert explanation.follows_reference is None and explanation.departures == []


def test_the_recorder_sees_the_steps_greedy_decoding_takes(tiny_model) -> None:
    """The recorded probabilities are those the rollout loop chose from, not a recomputation."""
    from amsolve.explanation import StepRecorder

    cache = tiny_model.precompute(torch.rand(1, 12, 2, generator=torch.Generator().manual_seed(5)))
    recorder = StepRecorder(tiny_model.decoder, glimpse=False)
    with torch.no_grad():
        tour = rollout(recorder, cache, 1, greedy_selector).tours[0, 0]
    assert len(recorder.probabilities) == 11  # the last city is left, not chosen
    assert [int(row.argmax()) for row in recorder.probabilities] == tour[:-1].tolist()


def test_steps_are_marked_where_they_follow_the_reference_tour(berlin) -> None:
    reference = berlin.instance.reference_tour.tolist()
    edges = {frozenset(pair) for pair in zip(reference, reference[1:] + reference[:1], strict=True)}
    follows = berlin.follows_reference
    tour = berlin.tour.tolist()
    expected = [True] + [frozenset(pair) in edges for pair in zip(tour, tour[1:], strict=False)]
    assert follows.tolist() == expected
    assert berlin.departures == [index + 1 for index, ok in enumerate(expected) if not ok]
    assert berlin.step(1).follows_reference is None


def test_json_is_one_document_with_exactly_the_issues_keys_and_file_ids(model_dir, tmp_path) -> None:
    csv = tmp_path / "points.csv"
    csv.write_text("id,x,y\n10,0,0\n20,3,0\n30,3,1\n40,0,2\n50,1,1\n")
    result = invoke("explain", csv, "--model", model_dir, "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"instance", "n", "model", "tour", "length", "steps"}
    assert document["n"] == 5 and sorted(document["tour"]) == [10, 20, 30, 40, 50]
    assert document["model"] == str(model_dir)
    steps = document["steps"]
    assert [step["step"] for step in steps] == [1, 2, 3, 4, 5]
    assert steps[0]["current"] is None and [step["current"] for step in steps[1:]] == document["tour"][:-1]
    assert [step["chosen"] for step in steps] == document["tour"]
    for index, step in enumerate(steps):
        assert set(step) == {"step", "current", "chosen", "probability", "entropy", "candidates"}
        cities = [candidate["city"] for candidate in step["candidates"]]
        assert sorted(cities) == sorted(document["tour"][index:])  # every unvisited city
        assert all(set(candidate) == {"city", "probability"} for candidate in step["candidates"])
        assert cities[0] == step["chosen"] and step["candidates"][0]["probability"] == step["probability"]


def test_the_table_is_shortened_around_the_departures(berlin, model_dir) -> None:
    result = invoke("explain", DATA / "berlin52.tsp", "--model", model_dir)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    numbers = [int(line.split("│")[1]) for line in rows if line.split("│")[1].strip().isdigit()]
    assert numbers[:5] == [1, 2, 3, 4, 5] and numbers[-3:] == [50, 51, 52]
    assert len(numbers) < 52 and any("⋮" in line for line in rows)
    first = berlin.departures[0]  # a random model leaves the optimal tour
    assert {first - 1, first, first + 1} & set(range(1, 53)) <= set(numbers)
    [marked] = [line for line in rows if "first departure" in line]
    assert int(marked.split("│")[1]) == first
    assert f"first departure at step {first}" in result.stdout and "optimal 7,542" in result.stdout


def test_step_shows_every_candidate(berlin, model_dir) -> None:
    result = invoke("explain", DATA / "berlin52.tsp", "--model", model_dir, "--step", 40, "--heads")
    assert result.exit_code == 0, result.output
    rows = [line.split("│") for line in result.stdout.splitlines() if line.startswith("│")]
    step = berlin.step(40)
    assert [int(row[2]) for row in rows] == berlin.instance.ids[step.candidates].tolist()  # 13 cities, in order
    assert len(rows[0]) == 1 + 5 + 4 + 1  # rank, city, p, distance, optimal tour, 4 heads


def test_gif_has_a_frame_per_step_and_the_closed_tour(model_dir, tmp_path) -> None:
    Image = pytest.importorskip("PIL.Image")
    pytest.importorskip("matplotlib")
    picture = tmp_path / "burma.gif"
    for heads in ((), ("--heads",)):
        result = invoke("explain", DATA / "burma14.tsp", "--model", model_dir, "--gif", picture, "--force", *heads)
        assert result.exit_code == 0, result.output
        with Image.open(picture) as image:
            assert image.format == "GIF" and image.n_frames == 14 + 1


def test_gif_is_never_overwritten_without_force(model_dir, tmp_path) -> None:
    picture = tmp_path / "precious.gif"
    picture.write_text("precious")
    result = invoke("explain", DATA / "burma14.tsp", "--model", model_dir, "--gif", picture)
    assert result.exit_code == 2 and "--force" in error_line(result)
    assert picture.read_text() == "precious"


def test_gif_is_refused_above_its_size_and_without_matplotlib(model_dir, tmp_path, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.setattr("amsolve.explain_figures.GIF_MAX_CITIES", 10)
    result = invoke("explain", DATA / "burma14.tsp", "--model", model_dir, "--gif", tmp_path / "big.gif")
    assert result.exit_code == 2 and "at most 10 cities" in error_line(result)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    result = invoke("explain", DATA / "burma14.tsp", "--model", model_dir, "--gif", tmp_path / "tour.gif")
    assert result.exit_code == 2
    assert error_line(result) == "amsolve: error: plots need matplotlib: pip install matplotlib"  # as --plot says
    assert not (tmp_path / "tour.gif").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--instance", "2"), "holds 1 instance, so there is no instance 2"),
        (("--instance", "0"), "--instance must be at least 1"),
        (("--step", "0"), "--step must be between 1 and 52"),
        (("--step", "53"), "--step must be between 1 and 52"),
        (("--step", "3", "--json"), "--step shows one step"),
        (("--heads",), "--heads adds the glimpse heads to --gif or --step"),
    ],
)
def test_bad_options_are_one_line_errors(model_dir, args, expected) -> None:
    result = invoke("explain", DATA / "berlin52.tsp", "--model", model_dir, *args)
    assert result.exit_code == 2 and expected in error_line(result)


def test_instances_too_large_to_explain_are_refused(model_dir, monkeypatch) -> None:
    monkeypatch.setattr("amsolve.explanation.EXPLAIN_MAX_CITIES", 50)
    result = invoke("explain", DATA / "berlin52.tsp", "--model", model_dir)
    assert result.exit_code == 2 and "at most 50 cities" in error_line(result)

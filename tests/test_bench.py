"""`amsolve bench`: references, gap definitions, outputs, and the shipped default suite."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA
from typer.testing import CliRunner

from amsolve.bench import SUITE_DIR, collect_datasets, default_datasets, read_optima, run_bench
from amsolve.cli import app
from amsolve.decode.options import DecodeOptions
from amsolve.errors import InputError
from amsolve.io import write_dataset
from amsolve.solver import SolveOptions

runner = CliRunner()


def circle_dataset(path: Path, instances: int = 3, n: int = 12) -> Path:
    """Cities on a circle in shuffled order; the optimal tour follows the circle."""
    rng = np.random.default_rng(0)
    coords, tours = [], []
    for _ in range(instances):
        angles = np.sort(rng.uniform(0, 2 * math.pi, n))
        order = rng.permutation(n)  # city order[k] sits at angle k
        points = np.empty((n, 2))
        points[order] = 0.5 + 0.4 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
        coords.append(points)
        tours.append(order)
    return write_dataset(path, coords, tours)


def test_a_tour_following_the_circle_has_gap_zero(tmp_path, model_dir) -> None:
    datasets = collect_datasets([circle_dataset(tmp_path / "circle.txt")], {}, None)
    pipeline = SolveOptions(decode=DecodeOptions("greedy"), local_search="2opt", model=str(model_dir))
    [row] = run_bench(datasets, [pipeline])
    assert row.instances == 3
    assert abs(row.gap_mean_pct) < 1e-9 and abs(row.gap_max_pct) < 1e-9  # 2-opt untangles a convex polygon


def test_the_model_is_loaded_once_per_pipeline_outside_the_timings(tmp_path, model_dir, monkeypatch) -> None:
    import amsolve.solver

    loads = []
    original = amsolve.solver.load_model
    monkeypatch.setattr(amsolve.solver, "load_model", lambda *args: loads.append(args) or original(*args))
    paths = [circle_dataset(tmp_path / f"circle{n}.txt", 2, n) for n in (10, 12, 14)]
    pipeline = SolveOptions(decode=DecodeOptions("greedy"), local_search="none", model=str(model_dir))
    rows = run_bench(collect_datasets(paths, {}, None), [pipeline, pipeline])
    assert len(rows) == 6 and len(loads) == 2


def test_a_broken_reference_line_is_rejected_with_its_line_number(tmp_path) -> None:
    good = (DATA / "tsp20_sample.txt").read_text().splitlines()
    broken = good[1].replace(" output 1 ", " output 2 ", 1)  # tour no longer closes on its start
    path = tmp_path / "broken.txt"
    path.write_text("\n".join([good[0], broken, good[2]]) + "\n")
    with pytest.raises(InputError, match=r"broken.txt line 2"):
        collect_datasets([path], {}, None)
    missing = tmp_path / "missing.txt"
    missing.write_text(good[0].split(" output ")[0] + "\n")
    with pytest.raises(InputError, match="no reference tour"):
        collect_datasets([missing], {}, None)


def test_opt_tour_and_optima_table_agree_and_a_disagreement_is_an_error(tmp_path) -> None:
    optima = read_optima(DATA / "optimal.csv")
    from_tour = collect_datasets([DATA / "berlin52.tsp"], {}, None)[0].instances[0]
    from_table = collect_datasets([DATA / "berlin52.tsp"], optima, None)[0].instances[0]
    assert from_tour.reference_length == from_table.reference_length == optima["berlin52"] == 7542
    table_only = tmp_path / "burma14.tsp"
    table_only.write_bytes((DATA / "burma14.tsp").read_bytes())
    instance = collect_datasets([table_only], optima, None)[0].instances[0]
    assert instance.reference_length == 3323 and instance.reference_is_optimal
    with pytest.raises(InputError, match="optima table says"):
        collect_datasets([DATA / "berlin52.tsp"], {"berlin52": 7000.0}, None)


def test_bench_json_gaps_equal_a_recomputation_from_solve_json(model_dir) -> None:
    dataset = DATA / "tsp20_sample.txt"
    bench = runner.invoke(app, ["bench", str(dataset), "--model", str(model_dir), "--decode", "beam", "--json"])
    assert bench.exit_code == 0, bench.output
    [row] = json.loads(bench.stdout)["rows"]
    solved = runner.invoke(
        app,
        [
            "solve",
            str(dataset),
            "--model",
            str(model_dir),
            "--decode",
            "beam",
            "--no-augment",
            "--local-search",
            "none",
            "--json",
        ],
    )
    instances = json.loads(solved.stdout)["instances"]
    gaps = [(item["length"] - item["reference"]) / item["reference"] for item in instances]
    assert row["gap_mean_pct"] == pytest.approx(100 * np.mean(gaps), rel=1e-9)
    lengths, references = [i["length"] for i in instances], [i["reference"] for i in instances]
    assert row["gap_of_means_pct"] == pytest.approx(100 * (np.mean(lengths) / np.mean(references) - 1), rel=1e-9)
    assert row["gap_max_pct"] == pytest.approx(100 * max(gaps), rel=1e-9)
    assert set(row) >= {
        "dataset",
        "decode",
        "instances",
        "mean_length",
        "mean_reference",
        "gap_mean_pct",
        "gap_of_means_pct",
        "gap_max_pct",
        "seconds_per_instance",
        "instances_per_second",
    }


def test_tsplib_rows_add_up_to_a_total_and_csv_and_plot_are_written(tmp_path, model_dir) -> None:
    pytest.importorskip("matplotlib")
    csv, plot = tmp_path / "rows.csv", tmp_path / "gaps.png"
    result = runner.invoke(
        app,
        [
            "bench",
            str(DATA / "berlin52.tsp"),
            str(DATA / "att48.tsp"),
            "--model",
            str(model_dir),
            "--decode",
            "greedy,greedyx8",
            "--csv",
            str(csv),
            "--plot",
            str(plot),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "TSPLIB total (2)" in result.stdout
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("dataset,decode,instances") and len(lines) == 1 + 2 * 3
    assert plot.read_bytes()[:4] == b"\x89PNG"
    again = runner.invoke(app, ["bench", str(DATA / "berlin52.tsp"), "--model", str(model_dir), "--csv", str(csv)])
    assert again.exit_code == 2 and "--force" in again.stderr


def test_unknown_pipeline_is_a_one_line_error(model_dir) -> None:
    result = runner.invoke(
        app, ["bench", str(DATA / "berlin52.tsp"), "--model", str(model_dir), "--decode", "greedy,warp"]
    )
    assert result.exit_code == 2
    assert "unknown start 'warp'" in result.stderr and "\n" not in result.stderr.strip()


def test_the_default_suite_ships_with_the_package() -> None:
    datasets = default_datasets(limit=2)
    names = {dataset.name for dataset in datasets}
    assert {"tsp20_uniform_128", "tsp50_uniform_128", "tsp100_uniform_128", "berlin52"} <= names
    assert all(instance.reference_length for dataset in datasets for instance in dataset.instances)
    assert (SUITE_DIR / "README.md").is_file()


def test_a_tour_shorter_than_a_claimed_optimum_is_reported(tmp_path, model_dir) -> None:
    optima = {"berlin52": 10**6}  # a wrong "optimum", far above any tour
    path = tmp_path / "berlin52.tsp"
    path.write_bytes((DATA / "berlin52.tsp").read_bytes())  # no .opt.tour beside this copy
    table = tmp_path / "optima.csv"
    table.write_text("name,optimal\nberlin52,1000000\n")
    datasets = collect_datasets([path], optima, None)
    pipeline = SolveOptions(decode=DecodeOptions("greedy"), local_search="none", model=str(model_dir))
    [row] = run_bench(datasets, [pipeline])
    assert row.below_optimal == ["berlin52"] and row.gap_mean_pct < 0
    result = runner.invoke(
        app, ["bench", str(path), "--optima", str(table), "--model", str(model_dir), "--decode", "greedy", "--json"]
    )
    assert json.loads(result.stdout)["rows"][0]["below_optimal"] == ["berlin52"]
    shown = runner.invoke(
        app, ["bench", str(path), "--optima", str(table), "--model", str(model_dir), "--decode", "greedy"]
    )
    assert "shorter than the optimum" in shown.stderr

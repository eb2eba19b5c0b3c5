"""The command line through Typer's CliRunner: outputs, files written, and one-line errors."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from conftest import DATA, error_line, invoke


def test_solve_json_is_one_document_with_file_ids(model_dir) -> None:
    result = invoke("solve", DATA / "berlin52.tsp", "--model", model_dir, "--decode", "greedy", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    [row] = document["instances"]
    assert row["name"] == "berlin52" and row["n"] == 52
    assert sorted(row["tour"]) == list(range(1, 53))
    assert row["reference"] == 7542  # from berlin52.opt.tour beside the file
    assert row["length"] >= 7542 and row["gap_pct"] == pytest.approx(100 * (row["length"] - 7542) / 7542)
    keys = {"name", "n", "decode", "length", "tour", "tour_names", "reference", "gap_pct", "seconds", "model_input"}
    assert set(row) == keys
    assert row["tour_names"] is None and row["model_input"] == "coordinates"


def test_solve_table_names_instance_length_and_gap(model_dir) -> None:
    result = invoke(
        "solve",
        DATA / "tsp20_sample.txt",
        "--model",
        model_dir,
        "--limit",
        "2",
        "--decode",
        "beam",
        "--beam-width",
        "3",
    )
    assert result.exit_code == 0, result.output
    assert "tsp20_sample#1" in result.stdout and "tsp20_sample#2" in result.stdout
    assert "tsp20_sample#3" not in result.stdout
    assert "beam3×8+lk@alphanet8" in result.stdout


def test_csv_ids_come_from_the_id_column(model_dir, tmp_path) -> None:
    csv = tmp_path / "points.csv"
    csv.write_text("id,x,y\n10,0,0\n20,1,0\n30,1,1\n40,0,1\n")
    result = invoke("solve", csv, "--model", model_dir, "--json", "--decode", "greedy", "--no-augment")
    row = json.loads(result.stdout)["instances"][0]
    assert sorted(row["tour"]) == [10, 20, 30, 40]
    assert row["length"] == pytest.approx(4.0)
    assert row["reference"] is None and row["gap_pct"] is None


def test_tour_out_writes_tours_and_never_overwrites_without_force(model_dir, tmp_path) -> None:
    out = tmp_path / "tours"
    args = ("solve", DATA / "berlin52.tsp", "--model", model_dir, "--decode", "greedy", "--tour-out", out)
    assert invoke(*args).exit_code == 0
    written = (out / "berlin52.tour").read_text()
    assert "TOUR_SECTION" in written and written.rstrip().endswith("EOF")
    (out / "berlin52.tour").write_text("precious")
    again = invoke(*args)
    assert again.exit_code != 0 and "--force" in error_line(again)
    assert (out / "berlin52.tour").read_text() == "precious"
    assert invoke(*args, "--force").exit_code == 0
    assert "TOUR_SECTION" in (out / "berlin52.tour").read_text()


def test_a_tsplib_name_cannot_send_a_tour_outside_the_tour_directory(model_dir, tmp_path) -> None:
    crafted = tmp_path / "crafted.tsp"
    crafted.write_text(tsplib("1 0 0\n2 3 0\n3 0 4\n").replace("NAME: x", "NAME: ../../escaped"))
    out = tmp_path / "deep" / "tours"
    result = invoke("solve", crafted, "--model", model_dir, "--decode", "greedy", "--tour-out", out)
    assert result.exit_code == 0, result.output
    assert [path.name for path in out.iterdir()] == ["_.._escaped.tour"]


@pytest.mark.parametrize(
    ("option", "target", "expected"),
    [
        ("--tour-out", "a-file.txt", "takes a directory"),
        ("--plot", "missing/tour.png", "does not exist"),
        ("--plot", ".", "is a directory"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_solving(
    model_dir, tmp_path, monkeypatch, option, target, expected
) -> None:
    import amsolve.solver

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file.txt").write_text("precious")
    monkeypatch.setattr(amsolve.solver, "solve_instances", lambda *args, **kwargs: pytest.fail("solved anyway"))
    result = invoke("solve", DATA / "berlin52.tsp", "--model", model_dir, option, target)
    assert result.exit_code == 2 and expected in error_line(result)
    assert (tmp_path / "a-file.txt").read_text() == "precious"


def test_bench_refuses_a_csv_in_a_missing_directory_before_measuring(tmp_path) -> None:
    result = invoke("bench", DATA / "berlin52.tsp", "--csv", tmp_path / "missing" / "rows.csv")
    assert result.exit_code == 2 and "does not exist" in error_line(result)


def test_plot_writes_a_png(model_dir, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    picture = tmp_path / "tour.png"
    result = invoke("solve", DATA / "berlin52.tsp", "--model", model_dir, "--decode", "greedy", "--plot", picture)
    assert result.exit_code == 0, result.output
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def tsplib(rows: str, dimension: int = 3, weights: str = "EUC_2D") -> str:
    """A small TSPLIB file whose NODE_COORD_SECTION (from line 6 on) is `rows`."""
    return f"NAME: x\nTYPE: TSP\nDIMENSION: {dimension}\nEDGE_WEIGHT_TYPE: {weights}\nNODE_COORD_SECTION\n{rows}EOF\n"


EXPLICIT = "NAME: x\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\n"
EXPLICIT += "EDGE_WEIGHT_SECTION\n0 1 2\n1 0 3\n2 4 0\nEOF\n"  # asymmetric


@pytest.mark.parametrize(
    "content, expected",
    [
        (None, "no such file"),
        ("", "empty"),
        (tsplib("1 0 0\n2 1 abc\n3 2 2\n"), "line 7"),
        (tsplib("1 0 0\n2 1 1\n3 2 2\n", dimension=4), "DIMENSION"),
        (EXPLICIT, "symmetric problems only"),
        (tsplib("1 0 0\n2 1 nan\n3 2 2\n"), "finite"),
        (tsplib("1 0 0\n2 1 1\n", dimension=2), "at least 3"),
        (tsplib("1 0 0\n1 1 1\n3 2 2\n"), "duplicate"),
        ("BOGUS HEADER\n", "format"),
    ],
    ids=[
        "missing",
        "empty",
        "non-numeric",
        "dimension",
        "asymmetric",
        "nan",
        "too-few",
        "duplicate-id",
        "unknown-format",
    ],
)
def test_bad_input_is_one_line_and_nonzero(model_dir, tmp_path, content, expected) -> None:
    path = tmp_path / "bad.tsp" if content is None or content.startswith("NAME") else tmp_path / "bad.dat"
    if content is not None:
        path.write_text(content)
    result = invoke("solve", path, "--model", model_dir)
    assert result.exit_code == 2
    message = error_line(result)
    assert message.startswith("amsolve: error:") and path.name in message and expected in message


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("--decode", "bogus", "unknown decoder"),
        ("--local-search", "3opt", "unknown local search"),
        ("--device", "tpu", "unknown device"),
        ("--format", "xml", "unknown format"),
        ("--beam-width", "0", "--beam-width"),
        ("--limit", "0", "--limit"),
        ("--improve", "0", "--improve must be at least 1"),
        ("--seed", "-1", "--seed must be 0 or more"),
    ],
)
def test_unknown_option_values_are_one_line_errors(model_dir, option, value, expected) -> None:
    result = invoke("solve", DATA / "berlin52.tsp", "--model", model_dir, option, value)
    assert result.exit_code == 2
    assert expected in error_line(result)


def test_corrupt_and_missing_weights_are_one_line_errors(model_dir, tmp_path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    weights = broken / "model.pt"
    weights.write_bytes(weights.read_bytes()[:1000])  # truncated
    for model, expected in (
        (broken, "model.pt"),
        (tmp_path / "nowhere", "no model"),
        (DATA / "berlin52.tsp", "directory"),
    ):
        result = invoke("solve", DATA / "berlin52.tsp", "--model", model, "--decode", "greedy")
        assert result.exit_code == 2
        assert expected in error_line(result)


def test_mismatched_config_is_a_clear_error(model_dir, tmp_path) -> None:
    mismatched = tmp_path / "mismatched"
    shutil.copytree(model_dir, mismatched)
    config = json.loads((mismatched / "config.json").read_text())
    config["embed_dim"] = 64
    (mismatched / "config.json").write_text(json.dumps(config))
    result = invoke("solve", DATA / "berlin52.tsp", "--model", mismatched, "--decode", "greedy")
    assert result.exit_code == 2
    assert "does not match" in error_line(result)


def test_train_writes_a_model_and_resumes_with_the_runs_own_options(tmp_path) -> None:
    out = tmp_path / "run"
    first = invoke(
        "train", "--nodes", "8", "--out", out, "--epochs", "1", "--epoch-size", "32", "--batch-size", "16",
        "--val-size", "16", "--threads", "1",
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    assert (out / "model.pt").is_file() and (out / "TRAINING.md").is_file()
    resumed = invoke("train", "--out", out, "--resume", "--epochs", "2", "--ema", "0.9")  # no --nodes: the run's
    assert resumed.exit_code == 0, resumed.output
    log = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert [record["instances_seen"] for record in log] == [32, 64]
    assert "raw_greedy_length" in log[1] and "raw_greedy_length" not in log[0]  # averaged from the resume on
    bad_decay = invoke("train", "--out", out, "--resume", "--ema", "2")
    assert bad_decay.exit_code == 2 and "--ema must be a decay" in error_line(bad_decay)
    refused = invoke("train", "--out", out, "--resume", "--batch-size", "32")
    assert refused.exit_code == 2
    assert "cannot resume with --batch-size 32; the run used 16" in error_line(refused)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("n_heads", 0, "n_heads must be a positive integer"),
        ("ff_dim", -4, "ff_dim"),
        ("trained_nodes", "20", "trained_nodes"),
    ],
)
def test_a_config_no_network_can_be_built_from_is_one_line(model_dir, tmp_path, key, value, expected) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    config = json.loads((broken / "config.json").read_text())
    config[key] = value
    (broken / "config.json").write_text(json.dumps(config))
    result = invoke("solve", DATA / "berlin52.tsp", "--model", broken, "--decode", "greedy")
    assert result.exit_code == 2
    assert expected in error_line(result) and "config.json" in error_line(result)


def test_solve_and_bench_fix_the_mmap_threshold_for_large_instances_and_train_does_not(
    monkeypatch, model_dir, tmp_path
) -> None:
    calls = []
    monkeypatch.setattr("amsolve.machine.fix_malloc_mmap_threshold", lambda: calls.append(True) or True)
    monkeypatch.setattr("amsolve.machine.LARGE_INSTANCE_CITIES", 50)  # berlin52 counts as large, ulysses22 not
    greedy = ("--model", model_dir, "--decode", "greedy")
    assert invoke("solve", DATA / "ulysses22.tsp", *greedy, "--local-search", "none").exit_code == 0
    assert invoke("bench", DATA / "ulysses22.tsp", *greedy).exit_code == 0
    assert not calls
    solved = invoke("solve", DATA / "ulysses22.tsp", DATA / "berlin52.tsp", *greedy, "--local-search", "none")
    benched = invoke("bench", DATA / "berlin52.tsp", *greedy)
    assert solved.exit_code == benched.exit_code == 0 and len(calls) == 2
    trained = invoke(
        "train", "--nodes", "60", "--out", tmp_path / "run", "--epochs", "1", "--epoch-size", "8", "--val-size", "4"
    )
    assert trained.exit_code == 0 and len(calls) == 2


def test_the_mmap_threshold_is_fixed_where_glibc_allows_it() -> None:
    import platform

    from amsolve.machine import fix_malloc_mmap_threshold

    on_glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert fix_malloc_mmap_threshold() is on_glibc


def test_a_model_or_device_the_pipeline_does_not_use_is_named_in_a_note(model_dir) -> None:
    unused = invoke("solve", DATA / "berlin52.tsp", "--model", model_dir, "--json")
    assert unused.exit_code == 0 and "--model not used" in unused.stderr
    used = invoke("solve", DATA / "berlin52.tsp", "--model", model_dir, "--decode", "greedy", "--json")
    assert used.exit_code == 0 and used.stderr == ""
    on_cpu = invoke("solve", DATA / "berlin52.tsp", "--device", "cpu", "--json")
    assert on_cpu.exit_code == 0 and "--device not used" in on_cpu.stderr


@pytest.mark.parametrize(
    ("length", "shown"),
    [(7542.0, "7,542"), (12345.678, "12,345.7"), (7.08080123, "7.08080"), (1.331350028e-11, "1.3314e-11"), (None, "–")],
)
def test_lengths_are_shown_with_their_significant_digits(length: float | None, shown: str) -> None:
    from amsolve.render import format_length

    assert format_length(length) == shown


@pytest.mark.parametrize("command", ["solve", "bench"])
def test_a_mistyped_model_is_an_error_even_where_the_pipeline_runs_none(command: str, tmp_path) -> None:
    for model, named in (("tsp1000", "no model 'tsp1000'"), (str(tmp_path), "config.json")):
        result = invoke(command, DATA / "berlin52.tsp", "--model", model)
        assert result.exit_code == 2 and named in error_line(result)


def test_a_csv_of_named_cities_gives_the_tour_by_name(tmp_path) -> None:
    named = tmp_path / "named.csv"
    named.write_text("city,x,y\nBonn,0,0\nKiel,0,4\nLinz,3,4\nRiga,3,0\n")
    result = invoke("solve", named, "--json")
    assert result.exit_code == 0
    (solved,) = json.loads(result.stdout)["instances"]
    assert solved["length"] == 14.0 and sorted(solved["tour_names"]) == ["Bonn", "Kiel", "Linz", "Riga"]
    assert solved["tour_names"] == [["Bonn", "Kiel", "Linz", "Riga"][city - 1] for city in solved["tour"]]


def test_a_slow_warm_up_shows_on_the_bar_until_it_ends(monkeypatch) -> None:
    """`solve` hands the bar's `slow_warm_up` to the solver: a warm-up past its threshold (the
    search being compiled) shows on the bar, which gets its description back when it ends."""
    import amsolve.solver as solver
    from amsolve.render import ProgressBar

    shown: list[str] = []
    real_warm_up = solver.warm_up

    def slow_warm_up(*args, **kwargs) -> float:
        time.sleep(0.2)
        return real_warm_up(*args, **kwargs)

    class WatchedBar(ProgressBar):
        def slow_warm_up(self, ongoing: bool) -> None:
            super().slow_warm_up(ongoing)
            shown.append(self.progress.tasks[0].description)

    monkeypatch.setattr(solver, "SLOW_WARM_UP_SECONDS", 0.05)
    monkeypatch.setattr(solver, "warm_up", slow_warm_up)
    monkeypatch.setattr("amsolve.render.ProgressBar", WatchedBar)
    result = invoke("solve", DATA / "berlin52.tsp", "--time-limit", "0.01")
    assert result.exit_code == 0, result.output
    assert shown == [ProgressBar.WARMING_UP, "solving"]

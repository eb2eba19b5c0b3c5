"""Pictures: the time–quality chart drawn from `bench` rows, and the training curve's phase labels."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA
from test_bench import circle_dataset

from amsolve.bench import BenchRow, Dataset, bench_row, chart_points, collect_datasets, run_bench
from amsolve.decode.options import DecodeOptions
from amsolve.errors import InputError
from amsolve.pipeline import parse_pipelines
from amsolve.solver import Solution, SolveOptions

pytest.importorskip("matplotlib")

from amsolve.figures import GAP_FLOOR_PCT, log_ticks, seconds_label, time_quality_chart, time_quality_figure  # noqa: E402
from amsolve.train.card import curve_figure, plot_curve  # noqa: E402

TWELVE = (
    "greedy,greedyx8,beam,beamx8,sample,samplex8,multistart,multistartx8,"
    "greedy+2opt,greedy+2opt+oropt,beam+2opt,multistartx8+2opt+oropt"
)


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header (after checking it is one)."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR"
    return struct.unpack(">II", header[16:24])


def identity_row(dataset: Dataset) -> BenchRow:
    """The row of a solver without the network (the identity tour), as benchmarks/compare.py makes its peers'."""
    tours = [np.arange(instance.n) for instance in dataset.instances]
    solutions = [
        Solution(instance, tour, instance.tour_length(tour), "identity", "none", 1e-4)
        for instance, tour in zip(dataset.instances, tours, strict=True)
    ]
    label = "the identity tour, a peer without the network (a label wider than any note)"
    return bench_row(dataset, solutions, 1e-4 * len(solutions), label, 1, "cpu", neural=False)


def test_the_chart_of_one_pipeline_on_one_dataset(tmp_path, model_dir) -> None:
    datasets = collect_datasets([DATA / "tsp20_sample.txt"], {}, None)
    pipeline = SolveOptions(decode=DecodeOptions("greedy"), local_search="none", model=str(model_dir))
    rows = run_bench(datasets, [pipeline])
    [point] = chart_points(rows)
    assert (point.pipeline, point.dataset, point.neural) == ("greedy", "tsp20_sample", True)
    assert point.gap_mean_pct == rows[0].gap_mean_pct and point.seconds_per_instance == rows[0].seconds_per_instance
    path = tmp_path / "one.png"
    time_quality_chart(chart_points(rows), path, force=False, whiskers=True)
    width, height = png_size(path)
    assert 600 <= width <= 2000 and 400 <= height <= 1200 and path.stat().st_size > 10_000


def test_the_chart_of_twelve_pipelines_on_four_datasets_keeps_its_legends_off_the_markers(tmp_path, model_dir) -> None:
    paths = [circle_dataset(tmp_path / f"circle{n}.txt", 2, n) for n in (8, 10, 12, 14)]
    datasets = collect_datasets(paths, {}, None)
    decode = DecodeOptions(samples=4, beam_width=2)
    template = SolveOptions(decode=decode, local_search="none", model=str(model_dir), time_limit=0.01)
    rows = run_bench(datasets, parse_pipelines(TWELVE, template))
    rows += [identity_row(dataset) for dataset in datasets]
    points = chart_points(rows)
    assert len({point.pipeline for point in points}) == 13 and len({point.dataset for point in points}) == 4
    assert any(point.gap_mean_pct <= GAP_FLOOR_PCT for point in points)  # 2-opt solves circles: gap 0 is drawn too

    figure = time_quality_figure(points, whiskers=True)
    renderer = figure.canvas.get_renderer()
    [axis] = figure.axes
    plotted = axis.get_window_extent(renderer)
    assert len(axis.get_legend_handles_labels()[0]) == 0  # every label is in the legends beside the axes
    legends = [artist for artist in axis.artists if type(artist).__name__ == "Legend"]
    assert len(legends) == 2
    saved = figure.get_tightbbox(renderer)  # inches: what the PNG will hold
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert box.x0 > plotted.x1  # beside the axes, not over a marker
        assert box.x1 <= saved.x1 * figure.dpi + 1 and box.y0 >= saved.y0 * figure.dpi - 1  # and not cut off
    assert all(label.get_text() for label in axis.get_yticklabels())
    assert axis.get_yticklabels()[0].get_text() == "≤ 0.001 %"

    path = tmp_path / "twelve.png"
    time_quality_chart(points, path, force=False)
    width, height = png_size(path)
    assert 900 <= width <= 2500 and 400 <= height <= 1400
    with pytest.raises(InputError, match="use --force"):
        time_quality_chart(points, path, force=False)


def test_tsplib_instances_are_charted_through_their_total_and_no_gap_means_no_chart(model_dir, tmp_path) -> None:
    datasets = collect_datasets([DATA / "berlin52.tsp", DATA / "att48.tsp"], {}, None)
    pipeline = SolveOptions(decode=DecodeOptions("greedy"), local_search="none", model=str(model_dir))
    rows = run_bench(datasets, [pipeline])
    assert [point.dataset for point in chart_points(rows)] == ["TSPLIB total (2)"]
    with pytest.raises(InputError, match="nothing to plot"):
        time_quality_chart([], tmp_path / "empty.png", force=False)


def test_log_ticks_are_plain_and_never_too_few() -> None:
    assert log_ticks(0.0005, 20) == [0.001, 0.01, 0.1, 1, 10]
    assert len(log_ticks(0.03, 0.08)) >= 3  # less than a decade: 1-2-5 or finer steps
    assert [seconds_label(value) for value in (2e-5, 0.001, 0.25, 1, 30)] == ["20 µs", "1 ms", "250 ms", "1 s", "30 s"]


def test_phase_labels_of_the_training_curve_do_not_overlap(tmp_path) -> None:
    starts = [0.0, 0.3, 0.35, 0.4, 0.45, 5.0, 5.05, 9.0]  # hours: phases crowded together
    log, phases = [], []
    for phase, start in enumerate(starts, start=1):
        phases.append({"phase": phase, "options": {"nodes": 20 if phase < 3 else 50}})
        for epoch in range(1, 4):
            log.append(
                {
                    "phase": phase,
                    "total_wall_seconds": 3600 * (start + 0.01 * epoch),
                    "wall_seconds": 36 * epoch,
                    "greedy_gap_pct": 2.0 / phase,
                    "multistart8_gap_pct": 0.0,
                }
            )
    from matplotlib.text import Text

    figure = curve_figure(log, phases)
    renderer = figure.canvas.get_renderer()
    labels = [text for text in figure.axes[0].texts if text.get_text()]
    assert [label.get_text() for label in labels] == ["1 (n = 20)", "2", "3 (n = 50)", "4", "5", "6", "7", "8"]
    boxes = [Text.get_window_extent(label, renderer) for label in labels]  # the texts, without their leaders
    for left, right in zip(boxes, boxes[1:], strict=False):
        assert left.x1 < right.x0
    assert figure.axes[0].get_yticklabels()[0].get_text() == "≤ 0.001 %"  # multi-start's gap 0 is drawn at the floor
    plot_curve(tmp_path / "curve.png", log, phases)
    assert png_size(tmp_path / "curve.png")[0] > 600

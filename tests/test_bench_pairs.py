"""`benchmarks/bench_pairs.py`: two sides of `amsolve bench --json` runs, row by row."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def compare(benchmark_script: Callable[[str], ModuleType]):
    """The script's `compare`, imported as the script imports its neighbour `paired`."""
    return benchmark_script("bench_pairs").compare


def _bench(path: Path, gaps: dict[str, float], instances: dict[str, int]) -> None:
    rows = [
        {"dataset": name, "instances": instances[name], "gap_mean_pct": gap, "seconds_per_instance": 0.5}
        for name, gap in gaps.items()
    ]
    path.write_text(json.dumps({"rows": rows}))


def test_runs_pair_by_seed_and_tsplib_instances_pool_solve_by_solve(compare, tmp_path: Path) -> None:
    instances = {"a280": 1, "d657": 1, "TSPLIB total (2)": 2, "tsp100": 1280}
    _bench(tmp_path / "A_1.json", {"a280": 0.0, "d657": 0.2, "TSPLIB total (2)": 0.1, "tsp100": 0.01}, instances)
    _bench(tmp_path / "B_1.json", {"a280": 0.0, "d657": 0.0, "TSPLIB total (2)": 0.0, "tsp100": 0.01}, instances)
    _bench(tmp_path / "A_2.json", {"a280": 0.0, "d657": 0.4, "TSPLIB total (2)": 0.2, "tsp100": 0.03}, instances)
    _bench(tmp_path / "B_2.json", {"a280": 0.1, "d657": 0.1, "TSPLIB total (2)": 0.1, "tsp100": 0.01}, instances)
    _bench(tmp_path / "A_3.json", {"a280": 9.0}, instances)  # no B of seed 3: left out
    lines = compare(tmp_path)
    assert lines[0] == "2 seeds"
    assert "a280: A 0.00000 %, B 0.05000 %; above 0 in A 0, B 1 of 2" in lines
    assert "d657: A 0.30000 %, B 0.05000 %; above 0 in A 2, B 1 of 2" in lines
    assert "tsp100: A 0.02000 %, B 0.01000 %; above 0 in A 2, B 2 of 2" in lines
    assert "TSPLIB total (2): A 0.15000 %, B 0.05000 %; above 0 in A 2, B 1 of 2" in lines
    assert lines[-1].startswith("TSPLIB instances: 4 pairs, A 0.1500 %, B 0.0500 % (B/A 0.33), B - A -0.1000 ± ")


def test_a_directory_without_pairs_is_named(compare, tmp_path: Path) -> None:
    _bench(tmp_path / "A_1.json", {"a280": 0.0}, {"a280": 1})
    with pytest.raises(SystemExit, match="no A_<seed>.json with a B_<seed>.json"):
        compare(tmp_path)

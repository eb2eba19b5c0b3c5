"""`benchmarks/paired.py`: the two sides of a study paired solve by solve."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def paired(benchmark_script: Callable[[str], ModuleType]):
    """The script as a module."""
    return benchmark_script("paired")


def _rows(path: Path, gaps: dict[tuple[str, int], float]) -> None:
    rows = [{"budget": 1.0, "instance": i, "seed": s, "gap_pct": gap, "seconds": 1.0} for (i, s), gap in gaps.items()]
    path.write_text(json.dumps(rows))


def test_sides_pair_by_instance_and_seed_and_the_unmatched_are_counted(paired, tmp_path: Path) -> None:
    _rows(tmp_path / "A_1.json", {("x", 1): 0.2, ("x", 2): 0.4, ("y", 1): 0.1})
    _rows(tmp_path / "B_1.json", {("x", 1): 0.0, ("x", 2): 0.2, ("y", 1): 0.3, ("y", 5): 0.9})
    by_instance, unpaired = paired.pairs_by_instance(tmp_path)
    assert unpaired == 1
    assert by_instance == {(1.0, "x"): [(0.2, 1.0, 0.0, 1.0), (0.4, 1.0, 0.2, 1.0)], (1.0, "y"): [(0.1, 1.0, 0.3, 1.0)]}
    by_budget = paired.by_budget(by_instance)
    assert by_budget == {1.0: by_instance[(1.0, "x")] + by_instance[(1.0, "y")]}
    line = paired.summary("x, ", 1.0, by_instance[(1.0, "x")])
    assert line.startswith("x, 1 s: 2 pairs, A 0.3000 %, B 0.1000 % (B/A 0.33), B - A -0.2000 ± 0.0000 points")
    assert paired.summary("all", None, by_budget[1.0]).startswith("all: 3 pairs, A 0.2333 %, B 0.1667 %")

"""`benchmarks/best_of_two.py`: one study read as two searches of half the time each."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def best_of_two(benchmark_script: Callable[[str], ModuleType]):
    """The script's `best_of_two`, imported as the script imports its neighbour `paired`."""
    return benchmark_script("best_of_two").best_of_two


def _row(solver: str, neural: bool, instance: str, seed: int, gap: float) -> dict:
    return {
        "budget": 1.0,
        "solver": solver,
        "neural": neural,
        "instance": instance,
        "seed": seed,
        "gap_pct": gap,
        "seconds": 1.0,
    }


def test_pairs_keep_the_shorter_and_compare_the_best_pairs(best_of_two, tmp_path: Path) -> None:
    gaps = {  # (solver, neural) -> gaps of instance "a" at seeds 0-3
        ("x@alpha", False): [0.4, 0.1, 0.3, 0.2],
        ("y@alpha", False): [0.2, 0.3, 0.5, 0.0],
        ("x@net", True): [0.1, 0.1, 0.1, 0.3],
    }
    rows = [
        _row(solver, neural, "a", seed, gap)
        for (solver, neural), values in gaps.items()
        for seed, gap in enumerate(values)
    ]
    path = tmp_path / "study.json"
    path.write_text(json.dumps(rows))
    lines = best_of_two([path])
    assert lines[0] == "1 s, 4 solves each (1 instances):"
    assert "  x@alpha | y@alpha: 0.1500 % as one search of 2 s" in lines  # 0.2, 0.1, 0.3, 0.0
    assert "  x@alpha | x@net (network): 0.1250 % as one search of 2 s" in lines  # 0.1, 0.1, 0.1, 0.2
    assert "  x@net | y@alpha (network): 0.0750 % as one search of 2 s" in lines  # 0.1, 0.1, 0.1, 0.0
    assert "  y@alpha twice: 0.1000 % over 2 pairs of seeds" in lines  # min(0.2, 0.3), min(0.5, 0.0)
    assert "  A = x@alpha | y@alpha, B = x@net | y@alpha" in lines
    assert lines[-1].startswith("  pairs at 2 s: 4 pairs, A 0.1500 %, B 0.0750 % (B/A 0.50), B - A -0.0750")

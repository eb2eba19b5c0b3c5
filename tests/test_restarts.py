"""Restarts of the iterated local search (`amsolve.search.restarts`)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from amsolve.problem.distance import tour_lengths
from amsolve.search import iterated_local_search, nearest_neighbours
from amsolve.search import local_search as local_search_module
from amsolve.search.distances import coordinate_view, tour_length
from amsolve.search.merge import new_merge_work
from amsolve.search.restarts import RESTART_KICKS, Trials
from amsolve.search.space import make_space

N = 50


def test_a_trial_is_stalled_only_after_its_kicks_and_time_without_a_shorter_tour() -> None:
    trials = Trials.first(np.arange(N), 100.0, clock=0.0)
    enough = RESTART_KICKS * N
    assert not trials.stalled(1.0, 90.0, 0.2 * enough, N, kicks_end=10.0, tolerance=1e-9)  # improved at 1 s
    assert not trials.stalled(1.9, 90.0, 2 * enough, N, kicks_end=10.0, tolerance=1e-9)  # stuck 0.9 s < 1 s
    assert not trials.stalled(2.0, 90.0, 1.1 * enough, N, kicks_end=10.0, tolerance=1e-9)  # too few kicks
    assert trials.stalled(2.0, 90.0, 1.2 * enough, N, kicks_end=10.0, tolerance=1e-9)
    assert not trials.stalled(2.0, 90.0, 1.2 * enough, N, kicks_end=2.5, tolerance=1e-9)  # no time for another
    assert not trials.stalled(2.0, 89.0, 1.2 * enough, N, kicks_end=10.0, tolerance=1e-9)  # shorter again


def reversed_between(order: np.ndarray, i: int, j: int) -> np.ndarray:
    changed = order.copy()
    changed[i : j + 1] = changed[i : j + 1][::-1]
    return changed


def test_keeping_a_trial_takes_the_shorter_path_through_each_region_where_the_tours_differ() -> None:
    """Two trials each better in one region of their own: the kept tour is better in both."""
    rng = np.random.default_rng(5)
    coords = rng.random((200, 2))
    view = coordinate_view(coords, "EUCLIDEAN")
    space = make_space(view, nearest_neighbours(view, 8))
    base = np.arange(200, dtype=np.int64)
    variants = {
        (a, b): reversed_between(reversed_between(base, *a), *b)
        for a in [(10, 20), (0, 0)]
        for b in [(100, 112), (0, 0)]
    }
    lengths = {key: tour_length(view.points, view.code, order) for key, order in variants.items()}
    first, second = variants[(10, 20), (0, 0)], variants[(0, 0), (100, 112)]
    trials = Trials.first(first, lengths[(10, 20), (0, 0)], clock=0.0)
    trials.keep(space, second, lengths[(0, 0), (100, 112)], new_merge_work(200))
    assert sorted(trials.best.tolist()) == list(range(200))
    assert trials.best_length == pytest.approx(tour_length(view.points, view.code, trials.best))
    assert trials.best_length == pytest.approx(min(lengths.values()))


def test_a_search_that_stalls_restarts_and_returns_the_shortest_tour_of_its_trials(monkeypatch) -> None:
    rng = np.random.default_rng(3)
    coords = rng.random((N, 2))
    view = coordinate_view(coords, "EUCLIDEAN")
    finished = []
    restart = Trials.restart

    def counted(self, *args) -> None:
        restart(self, *args)
        finished.append(self.best_length)

    monkeypatch.setattr(Trials, "restart", counted)
    monkeypatch.setattr(local_search_module, "_PROGRESS_EVERY", 0.01)
    candidates, start = nearest_neighbours(view, 8), rng.permutation(N)
    iterated_local_search(view, start, time.perf_counter() + 0.05, "lk", candidates)  # loads the compiled code
    finished.clear()
    tour, length = iterated_local_search(view, start, time.perf_counter() + 0.5, "lk", candidates, seed=1)
    assert finished  # 50 cities stall long before 0.5 s
    assert sorted(tour.tolist()) == list(range(N))
    assert length == pytest.approx(tour_lengths(coords, "EUCLIDEAN", tour), rel=1e-12)
    assert length <= min(finished) + 1e-12

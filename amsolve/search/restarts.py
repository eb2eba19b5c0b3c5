"""Restarts: an iterated local search that has stopped finding shorter tours begins a new trial.

Some instances have a deep basin that the kicks and the slack's cycles do not leave once the
search has settled in it: u2152 ended 0.061 % above its optimum in most 60 s searches, having
found that tour within the first 10 s, and 15 s searches with other seeds ended at the optimum.
So a search that has made `RESTART_KICKS` kicks per city since its trial last found a shorter
tour, and has been stuck for as long as it took to get there, starts again from its first local
optimum with a slack schedule of its own over the time left, provided that time is at least as
long again. Each trial's shortest tour is merged with the shortest of the trials before it
(`amsolve.search.merge`, both ways round), so that a region one trial got right counts with
another trial's regions.

Searches with fewer than `RESTART_KICKS` kicks per city in their whole budget never restart
(1,000 cities in 1 s, 100 cities up to 0.05 s, 100,000 cities by default). Side by side with
the search without restarts (docs/DESIGN.md, "Restarts"): the six large TSPLIB instances in 60 s
0.053 and 0.063 against 0.059 and 0.064 % (two pairs of two seeds; u2152 0.000 % in three seeds
of four against one), in 10 s 0.064 and 0.074 against 0.125 and 0.098 % (cores swapped), 1,000
cities in 5 s 0.0002 against 0.0011 %.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from amsolve.search.distances import tour_length
from amsolve.search.merge import MergeWork, merge_tours
from amsolve.search.space import Space

RESTART_KICKS = 10.0
"""Kicks per city without a shorter tour in the trial before a search may restart."""


@dataclass
class Trials:
    """The bookkeeping of restarts: where every trial starts, the shortest tour of the finished
    trials, and when the running trial last improved."""

    start: np.ndarray  # (n,) int64: the first local optimum, every trial's start
    start_length: float
    best: np.ndarray  # (n,) int64: the shortest tour of the finished trials (the start before any)
    best_length: float
    began: float  # perf_counter value at which the running trial began
    improved: float  # ... and at which it last found a shorter tour
    kicks_when_improved: float  # its kicks then
    shortest: float  # its shortest length
    finished: int = 0  # trials kept so far

    @classmethod
    def first(cls, start: np.ndarray, length: float, clock: float) -> Trials:
        """The bookkeeping of a search whose kicks begin at `clock` from the local optimum `start`."""
        return cls(start.copy(), length, start.copy(), length, clock, clock, 0.0, length)

    def stalled(self, clock: float, shortest: float, kicks: float, n: int, kicks_end: float, tolerance: float) -> bool:
        """Whether the running trial should give way to a new one, given its shortest length and
        its kicks so far at `clock`; the kicks end at `kicks_end`."""
        if shortest < self.shortest - tolerance:
            self.shortest, self.improved, self.kicks_when_improved = shortest, clock, kicks
        productive = self.improved - self.began
        return (
            kicks - self.kicks_when_improved >= RESTART_KICKS * n
            and clock - self.improved >= productive
            and kicks_end - clock >= productive
        )

    def restart(self, space: Space, trial_best: np.ndarray, trial_length: float, work: MergeWork, clock: float) -> None:
        """Keep what the finished trial found (`keep`) and begin a new one at `clock`."""
        self.keep(space, trial_best, trial_length, work)
        self.finished += 1
        self.began = self.improved = clock
        self.kicks_when_improved, self.shortest = 0.0, self.start_length

    def result(self, space: Space, trial_best: np.ndarray, trial_length: float, work: MergeWork) -> np.ndarray:
        """The search's tour when its kicks end with the running trial's shortest tour `trial_best`."""
        if not self.finished:
            return trial_best
        self.keep(space, trial_best, trial_length, work)
        return self.best

    def keep(self, space: Space, tour: np.ndarray, length: float, work: MergeWork) -> None:
        """Make the shortest of `best`, `tour` and their merges both ways round the new `best`."""
        before, child = self.best, np.empty_like(tour)
        if length < self.best_length:
            self.best, self.best_length = tour.copy(), length
        for first, second in ((before, tour), (tour, before)):
            merge_tours(space.points, space.code, first, second, tour.shape[0], work, child)
            merged = tour_length(space.points, space.code, child)
            if merged < self.best_length - space.tolerance:
                self.best, self.best_length = child.copy(), merged

"""Lin–Kernighan steps whose basis move is a sequential 3-opt move, as in LKH (`MOVE_TYPE = 3`).

A step starts at a city t1 and removes one of its tour edges (t1, t2), leaving t2 as the free end.
Each level of the step searches the sequential 3-opt moves from the free end: join t2 to a
candidate t3, remove one of t3's tour edges (t3, t4), join t4 to a candidate t5, remove one of
t5's tour edges (t5, t6), close with (t6, t1). Both ways of choosing t4 are searched: the
neighbour that 2-opt would take (then the move is two 2-opt exchanges in a row) and the other one
(then t5 lies between t2 and t3 and a segment moves elsewhere, either way round: the move 2-opt
exchanges cannot make). G, the length removed minus the length added so far, must stay positive
after every added edge (the gain criterion), which prunes almost every branch. As in LKH, the
criterion reckons lengths with the ascent's node penalties π (d(i, j) + π(i) + π(j), when the
candidates are α-nearness): along an open path of removed and added edges the penalties of the
inner cities cancel, so this is G + π(t1) − π(free end) after an added edge and G + π(t1) +
π(free end) after a removed one. A closed move's gain is the same either way, and is computed on
the true lengths.

The first move found that closes the tour shorter than it was is made at once, and the step ends
(first improvement); a 2-opt move that closes shorter is taken the same way. Otherwise the level
makes the 3-opt move whose open end leaves G largest and the next level goes on from its t6, up to
`MAX_LEVELS` levels; if none closes shorter, every move of the step is taken back. An edge added
in a step is never removed again in the same step.

Moves are made on the tour arrays (`amsolve.search.tour`: reversals of the shorter side,
journaled), so every question about the tour (which city follows which, whether one lies between
two others) is answered in O(1), and taking a step back replays the journal to a mark.

The small helpers on the hot path (`next_city`, `between`, `edge_length`, the journal's) are inlined at
numba's IR level (`inline="always"`): a helper loaded from numba's cache cannot be inlined by LLVM.
That inlining costs compile time: without it (every `inline="always"` in the
search dropped) a first solve of berlin52 with an empty cache took 88 against 144 s, the tours the
same, but a kick 11 and 16 % dearer on average (`benchmarks/kick_cost.py`, 100 and 1,000 cities, two runs
of each on a noisy core).
The kernels are compiled without numba's reference counting (`amsolve.search.kernel`), so with
the helpers inlined the hot loop makes no function calls at all (but to measure a GEO length
missing from its cache).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.search.active import Active, push
from amsolve.search.kernel import kernel
from amsolve.search.moves.added import AddedEdges, add_edge, begin_step, new_added_edges, was_added
from amsolve.search.space import Space, edge_length
from amsolve.search.tour import Tour, journal_length, next_city, two_opt_move, undo

MAX_LEVELS = 16
"""Most 3-opt moves chained in one step (at 1,000 cities, 8 levels measured worse than 16, 32 no better)."""

_NONE, _CLOSED_2OPT, _CLOSED_3OPT, _OPEN_3OPT = 0, 1, 2, 3
"""What a level found: nothing, a 2-opt or 3-opt move that closes the tour shorter (made), or the
best 3-opt move to go on from (made)."""


class Scratch(NamedTuple):
    """Work arrays of a step, allocated once per search."""

    added: AddedEdges  # edges added so far in the step
    touched: np.ndarray  # (4 * MAX_LEVELS + 2,) int64: cities whose edges the step changed


def new_scratch(n: int) -> Scratch:
    """Work arrays for `improve_lk` on n cities."""
    return Scratch(new_added_edges(n), np.zeros(4 * MAX_LEVELS + 2, dtype=np.int64))


@njit(cache=True, inline="always")
def between(pos: np.ndarray, direction: int, a: int, b: int, c: int) -> bool:
    """Whether b lies on the way from a to c (both included) walking in `direction`."""
    if direction < 0:
        a, c = c, a
    pa, pb, pc = pos[a], pos[b], pos[c]
    if pa <= pc:
        return pa <= pb <= pc
    return pb >= pa or pb <= pc


@kernel
def _make_3opt(tour: Tour, t1: int, t2: int, t3: int, t4: int, t5: int, t6: int, direction: int) -> None:
    """Replace edges (t1, t2), (t3, t4), (t5, t6) by (t2, t3), (t4, t5), (t6, t1), as 2-opt moves;
    t2 follows t1 in `direction`."""
    order, pos = tour.order, tour.pos
    if next_city(order, pos, t3, -direction) == t4:  # t1 t2..t4 t3: two 2-opt exchanges
        two_opt_move(tour, t1, t2, t4, t3)  # t1 t4..t2 t3
        two_opt_move(tour, t1, t4, t6, t5)
    elif t6 == next_city(order, pos, t5, direction):  # t1 t2..t5 t6..t3 t4  ->  t1 t6..t3 t2..t5 t4
        two_opt_move(tour, t1, t2, t3, t4)  # t1 t3..t6 t5..t2 t4
        two_opt_move(tour, t1, t3, t6, t5)  # t1 t6..t3 t5..t2 t4
        two_opt_move(tour, t3, t5, t2, t4)
    else:  # t1 t2..t6 t5..t3 t4  ->  t1 t6..t2 t3..t5 t4
        two_opt_move(tour, t1, t2, t6, t5)  # t1 t6..t2 t5..t3 t4
        two_opt_move(tour, t2, t5, t3, t4)


@njit(cache=True, inline="always")
def _level(
    space: Space, tour: Tour, added: AddedEdges, t1: int, t2: int, gain: float
) -> tuple[int, int, int, int, int, float]:
    """One level of a step from free end t2 with G = `gain`. Returns (what, t3, t4, t5, t6, value)
    where `what` is one of _NONE, _CLOSED_2OPT, _CLOSED_3OPT (value: the step's gain) and
    _OPEN_3OPT (value: G after the move); the move found is already made."""
    tol = space.tolerance
    order, pos = tour.order, tour.pos
    candidates, lengths, penalties = space.candidates, space.candidate_lengths, space.penalties
    p1 = penalties[t1]
    width = candidates.shape[1]
    direction = 1 if next_city(order, pos, t1, 1) == t2 else -1
    after_t2 = next_city(order, pos, t2, direction)
    best_g4, open_gain, b3, b4, b5, b6 = tol, 0.0, -1, -1, -1, -1  # best_g4 with π, open_gain without
    for k3 in range(width):
        t3 = candidates[t2, k3]
        if t3 < 0:
            break
        g1 = gain - lengths[t2, k3]
        if g1 + p1 - penalties[t3] <= tol or t3 == t1 or t3 == after_t2:
            continue
        for side3 in range(2):  # 0: t4 before t3 (2-opt closes), 1: t4 after t3
            t4 = next_city(order, pos, t3, -direction if side3 == 0 else direction)
            if t4 == t1 or was_added(added, t3, t4):
                continue
            g2 = g1 + edge_length(space, t3, t4)
            if side3 == 0:
                closed = g2 - edge_length(space, t4, t1)
                if closed > tol:
                    two_opt_move(tour, t1, t2, t4, t3)
                    return _CLOSED_2OPT, t3, t4, -1, -1, closed
            beyond_t4 = next_city(order, pos, t4, -direction if side3 == 0 else direction)
            for k5 in range(width):
                t5 = candidates[t4, k5]
                if t5 < 0:
                    break
                g3 = g2 - lengths[t4, k5]
                if g3 + p1 - penalties[t5] <= tol or t5 == t3 or t5 == beyond_t4 or t5 == t1:
                    continue
                if side3 == 0:
                    # The tour reads t1 t2..t4 t3..: t6 is t5's neighbour on the side of t4 once
                    # t2..t4 is reversed, so one choice only.
                    last_side = 1
                    t5_side = -direction if between(pos, direction, t3, t5, t1) else direction
                else:
                    if not between(pos, direction, t2, t5, t3):
                        continue
                    last_side = 2
                    t5_side = direction
                for side5 in range(last_side):
                    t6 = next_city(order, pos, t5, t5_side if side5 == 0 else -t5_side)
                    if t6 == t1 or t6 == t4 or was_added(added, t5, t6):
                        continue
                    g4 = g3 + edge_length(space, t5, t6)
                    closed = g4 - edge_length(space, t6, t1)
                    if closed > tol:
                        _make_3opt(tour, t1, t2, t3, t4, t5, t6, direction)
                        return _CLOSED_3OPT, t3, t4, t5, t6, closed
                    if g4 + p1 + penalties[t6] > best_g4:
                        best_g4, open_gain, b3, b4, b5, b6 = g4 + p1 + penalties[t6], g4, t3, t4, t5, t6
    if b3 < 0:
        return _NONE, -1, -1, -1, -1, 0.0
    _make_3opt(tour, t1, t2, b3, b4, b5, b6, direction)
    return _OPEN_3OPT, b3, b4, b5, b6, open_gain


@njit(cache=True, inline="always")
def _step(space: Space, tour: Tour, scratch: Scratch, t1: int, t2: int) -> tuple[float, int]:
    """One Lin–Kernighan step removing (t1, t2). Returns the gain (0.0 if none) and how many cities
    of `scratch.touched` it changed; the tour is left shorter by that gain, or as it was."""
    start = journal_length(tour)
    gain = edge_length(space, t1, t2)
    touched, added = scratch.touched, scratch.added
    touched[0], touched[1] = t1, t2
    n_touched = 2
    begin_step(added)
    for _ in range(MAX_LEVELS):
        what, t3, t4, t5, t6, value = _level(space, tour, added, t1, t2, gain)
        if what == _NONE:
            break
        touched[n_touched], touched[n_touched + 1] = t3, t4
        n_touched += 2
        if what == _CLOSED_2OPT:
            return value, n_touched
        touched[n_touched], touched[n_touched + 1] = t5, t6
        n_touched += 2
        if what == _CLOSED_3OPT:
            return value, n_touched
        add_edge(added, t2, t3)
        add_edge(added, t4, t5)
        gain, t2 = value, t6
    undo(tour, start)
    return 0.0, 0


@kernel
def improve_lk(space: Space, tour: Tour, active: Active, scratch: Scratch, t1: int) -> float:
    """Make an improving Lin–Kernighan step from t1, trying both of its tour edges, and queue the
    cities it touched; returns the change in length (0.0 if no step improves).

    The tour's journal must have room for a step (`amsolve.search.tour.JOURNAL_MARGIN`)."""
    for direction in (1, -1):
        t2 = next_city(tour.order, tour.pos, t1, direction)
        gain, touched = _step(space, tour, scratch, t1, t2)
        if touched:
            for i in range(touched):
                push(active, scratch.touched[i])
            return -gain
    return 0.0

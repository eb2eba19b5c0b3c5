"""Lin–Kernighan steps whose basis move is a sequential 5-opt move, as LKH's default (`MOVE_TYPE = 5`).

A step starts at a city t1 and removes one of its tour edges (t1, t2), leaving t2 as the free end.
Each level searches depth first the sequential moves from the free end: join t(2i) to one of its
`WIDTH` first candidates t(2i+1), remove one of t(2i+1)'s tour edges (t(2i+1), t(2i+2)), for
i = 1 .. K - 1. After every removed edge the move is closed with (t(2i+2), t1): if that leaves a
single tour shorter than before, the move is made and the step ends (first improvement). Deeper
prefixes need not be tours; only a move that closes is tested, by walking its segments (`_walk`).
The gain criterion prunes almost every branch: G, the length removed minus the length added,
reckoned with the ascent's node penalties π as in `amsolve.search.moves.lk`, stays positive after
every added edge. At the second depth, as in LKH, when t4 follows t3 (no 2-opt move closes), t5
must lie between t2 and t3. If nothing closes shorter, the level makes the 5-opt move whose open
end leaves G largest and the next level goes on from its t10, up to `MAX_LEVELS` levels; if no
level closes shorter, the step is taken back. An edge added in a step is never removed in it.

A move is made by bringing each segment to its place with at most two reversals (`_make`), so the
tour's journal takes it back like any other move.

Its descents are far better than the 3-opt level's (from greedy edge at 1,000 cities 0.36–0.39 %
against 0.60 % above the references), but a level examines about three times as many branches,
so the search uses it for the first descent of a tour only (`amsolve.search.local_search`); after
a kick, where a few cities need repair, the 3-opt level is worth more for its time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.search.active import Active, push
from amsolve.search.kernel import copy_into, kernel
from amsolve.search.moves.added import AddedEdges, add_edge, begin_step, new_added_edges, was_added
from amsolve.search.moves.lk import between
from amsolve.search.space import Space, edge_length
from amsolve.search.tour import Tour, journal_length, next_city, two_opt_move, undo

K = 5
"""Edges a basis move removes at most."""

WIDTH = 5
"""Candidates of each free end a level tries, the first of its list (LKH's default too)."""

MAX_LEVELS = 16
"""Most basis moves chained in one step."""

_NONE, _CLOSED, _OPEN = 0, 1, 2
"""What a level found: nothing, a move that closes the tour shorter (made), or the best 5-opt move
to go on from (made)."""


class Scratch(NamedTuple):
    """Work arrays of a step, allocated once per search."""

    added: AddedEdges  # edges added so far in the step
    touched: np.ndarray  # (2 * K * MAX_LEVELS + 2,) int64: cities whose edges the step changed
    t: np.ndarray  # (2K + 1,) int64: the move being searched, t[1..2K]
    best: np.ndarray  # (2K + 1,) int64: the best open move of the level
    gains: np.ndarray  # (K + 1,) float64: G after each removed edge
    tried: np.ndarray  # (K + 1,) int64: next (candidate, side) to try at each depth
    walk: np.ndarray  # (8K,) int64: work of `_walk` and `_make`


def new_scratch(n: int) -> Scratch:
    """Work arrays for `improve_kopt` on n cities."""
    return Scratch(
        new_added_edges(n),
        np.zeros(2 * K * MAX_LEVELS + 2, dtype=np.int64),
        np.zeros(2 * K + 1, dtype=np.int64),
        np.zeros(2 * K + 1, dtype=np.int64),
        np.zeros(K + 1),
        np.zeros(K + 1, dtype=np.int64),
        np.zeros(8 * K, dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _removed_before(t: np.ndarray, edges: int, a: int, b: int) -> bool:
    """Whether (a, b) is one of the move's first `edges` removed edges (t1, t2), (t3, t4), ..."""
    for i in range(1, 2 * edges, 2):
        x, y = t[i], t[i + 1]
        if (x == a and y == b) or (x == b and y == a):
            return True
    return False


@kernel
def _walk(order: np.ndarray, pos: np.ndarray, t: np.ndarray, k: int, work: np.ndarray) -> bool:
    """Whether the move t[1..2k] (removing (t1, t2), (t3, t4), ..; adding (t2, t3), .., (t2k, t1))
    leaves one tour, found by walking it segment by segment.

    The k removed edges cut the tour, by position, into segments: segment r runs from the city after
    the r-th cut to the city at the next one. Each cut has two ends, slot 2r (its city at the cut,
    ending segment r - 1) and slot 2r + 1 (the city after it, starting segment r); each added edge
    joins two slots. If the walk from segment 0 returns after all k segments, the move is a tour and
    `work[0:2k]` lays it out for `_make`: work[2j] the j-th segment's rank, work[2j + 1] 1 if it is
    walked forwards; `work[2k:3k]` holds each removed edge's cut (the position of its lower city)."""
    n = order.shape[0]
    cut = work[2 * k : 3 * k]
    rank = work[3 * k : 4 * k]
    partner = work[4 * k : 6 * k]
    for i in range(k):
        pa, pb = pos[t[2 * i + 1]], pos[t[2 * i + 2]]
        cut[i] = pa if (pa + 1 == pb or (pb == 0 and pa == n - 1)) else pb
    for i in range(k):
        rank[i] = 0
        for j in range(k):
            if cut[j] < cut[i]:
                rank[i] += 1
    for i in range(k):  # added edge (t(2i+2), t(2i+3)), the last one (t2k, t1)
        j = (i + 1) % k
        slot_a = 2 * rank[i] + (0 if pos[t[2 * i + 2]] == cut[i] else 1)
        slot_b = 2 * rank[j] + (0 if pos[t[2 * j + 1]] == cut[j] else 1)
        partner[slot_a], partner[slot_b] = slot_b, slot_a
    slot = 1
    for j in range(k):
        r = slot >> 1
        if slot & 1:  # entering segment r at its start: leave at its end, slot 2(r + 1)
            work[2 * j], work[2 * j + 1] = r, 1
            slot = partner[2 * ((r + 1) % k)]
        else:  # entering segment r - 1 at its end: leave at its start, slot 2(r - 1) + 1
            work[2 * j], work[2 * j + 1] = (r - 1) % k, 0
            slot = partner[2 * ((r - 1) % k) + 1]
        if slot == 1:
            return j == k - 1
    return False


@kernel
def _make(tour: Tour, k: int, work: np.ndarray) -> None:
    """Make the move `_walk` laid out in `work`: for each place in turn, reverse the stretch from
    that place to where its segment is now, then the segment alone if it runs the wrong way; at
    most 2 (k - 1) reversals, each a 2-opt move, so journaled."""
    order = tour.order
    n = order.shape[0]
    cut, sorted_cut = work[2 * k : 3 * k], work[3 * k : 4 * k]
    first, last = work[4 * k : 5 * k], work[5 * k : 6 * k]  # ends of the segment at each place, as it runs
    at, forward = work[6 * k : 7 * k], work[7 * k : 8 * k]  # its rank, and 1 if it runs forwards
    for i in range(k):
        r = 0
        for j in range(k):
            if cut[j] < cut[i]:
                r += 1
        sorted_cut[r] = cut[i]
    for r in range(k):
        first[r] = order[(sorted_cut[r] + 1) % n]
        last[r] = order[sorted_cut[(r + 1) % k]]
        at[r] = r
        forward[r] = 1
    for place in range(1, k):
        want, want_forward = work[2 * place], work[2 * place + 1]
        where = place
        while at[where] != want:
            where += 1
        for flip_alone in range(2):  # the stretch place..where, then the segment alone
            if (where == place) if flip_alone == 0 else (forward[place] == want_forward):
                continue
            stop = place if flip_alone else where
            two_opt_move(tour, last[place - 1], first[place], last[stop], first[(stop + 1) % k])
            i, j = place, stop
            while i < j:
                at[i], at[j] = at[j], at[i]
                forward[i], forward[j] = forward[j], forward[i]
                first[i], first[j] = first[j], first[i]
                last[i], last[j] = last[j], last[i]
                i += 1
                j -= 1
            for m in range(place, stop + 1):
                first[m], last[m] = last[m], first[m]
                forward[m] = 1 - forward[m]


@njit(cache=True, inline="always")
def _level(space: Space, tour: Tour, scratch: Scratch, t1: int, t2: int, gain: float) -> tuple[int, int, float]:
    """One level of a step from free end t2 with G = `gain`. Returns (what, depth, value): _CLOSED
    with the closing move's depth (edges removed) and the step's gain, _OPEN with G after the best
    5-opt move, or _NONE; the move found is already made and its cities are in scratch.t[1..2·depth]."""
    tol = space.tolerance
    order, pos = tour.order, tour.pos
    candidates, lengths, penalties = space.candidates, space.candidate_lengths, space.penalties
    t, best, gains, tried, work, added = (
        scratch.t,
        scratch.best,
        scratch.gains,
        scratch.tried,
        scratch.walk,
        scratch.added,
    )
    width = min(WIDTH, candidates.shape[1])
    p1 = penalties[t1]
    direction = 1 if next_city(order, pos, t1, 1) == t2 else -1
    t[1], t[2] = t1, t2
    gains[1] = gain
    tried[1] = 0
    best_value, open_gain, found = tol, 0.0, False
    depth = 1  # edges removed so far
    while depth >= 1:
        if tried[depth] >= 2 * width:  # every choice at this depth tried: back up
            depth -= 1
            continue
        choice = tried[depth]  # candidate choice >> 1, side choice & 1 (1: t(2i+2) follows t(2i+1))
        tried[depth] = choice + 1
        other_side = 1 - (choice & 1)  # skip the same candidate's other side when it fails alike
        a = t[2 * depth]
        m = choice >> 1
        b = candidates[a, m]
        if b < 0:
            tried[depth] = 2 * width
            continue
        g1 = gains[depth] - lengths[a, m]
        if g1 + p1 - penalties[b] <= tol or b == t1:
            tried[depth] += other_side
            continue
        if b == next_city(order, pos, a, 1) or b == next_city(order, pos, a, -1):
            tried[depth] += other_side
            continue
        if depth == 2 and (tried[1] - 1) & 1 and not between(pos, direction, t2, b, t[3]):
            tried[depth] += other_side
            continue
        c = next_city(order, pos, b, direction if choice & 1 else -direction)
        if c == t1 or _removed_before(t, depth, b, c) or was_added(added, b, c):
            continue
        g2 = g1 + edge_length(space, b, c)
        t[2 * depth + 1], t[2 * depth + 2] = b, c
        closed = g2 - edge_length(space, c, t1)
        if closed > tol and _walk(order, pos, t, depth + 1, work):
            _make(tour, depth + 1, work)
            return _CLOSED, depth + 1, closed
        if depth + 1 < K:
            depth += 1
            gains[depth] = g2
            tried[depth] = 0
        elif g2 + p1 + penalties[c] > best_value and _walk(order, pos, t, K, work):
            best_value, open_gain, found = g2 + p1 + penalties[c], g2, True
            copy_into(best, t)
    if not found:
        return _NONE, 0, 0.0
    copy_into(t, best)
    _walk(order, pos, t, K, work)
    _make(tour, K, work)
    return _OPEN, K, open_gain


@njit(cache=True, inline="always")
def _step(space: Space, tour: Tour, scratch: Scratch, t1: int, t2: int) -> tuple[float, int]:
    """One Lin–Kernighan step removing (t1, t2). Returns the gain (0.0 if none) and how many cities
    of `scratch.touched` it changed; the tour is left shorter by that gain, or as it was."""
    start = journal_length(tour)
    gain = edge_length(space, t1, t2)
    touched, added, t = scratch.touched, scratch.added, scratch.t
    touched[0], touched[1] = t1, t2
    n_touched = 2
    begin_step(added)
    for _ in range(MAX_LEVELS):
        what, depth, value = _level(space, tour, scratch, t1, t2, gain)
        if what == _NONE:
            break
        for i in range(3, 2 * depth + 1):
            touched[n_touched] = t[i]
            n_touched += 1
        if what == _CLOSED:
            return value, n_touched
        for i in range(1, depth):  # the added edges but the closing one, which the next level removes
            add_edge(added, t[2 * i], t[2 * i + 1])
        gain, t2 = value, t[2 * depth]
    undo(tour, start)
    return 0.0, 0


@kernel
def improve_kopt(space: Space, tour: Tour, active: Active, scratch: Scratch, t1: int) -> float:
    """Make an improving Lin–Kernighan step with 5-opt basis moves from t1, trying both of its tour
    edges, and queue the cities it touched; returns the change in length (0.0 if no step improves).

    The tour's journal must have room for a step (`amsolve.search.tour.JOURNAL_MARGIN`)."""
    for direction in (1, -1):
        t2 = next_city(tour.order, tour.pos, t1, direction)
        gain, touched = _step(space, tour, scratch, t1, t2)
        if touched:
            for i in range(touched):
                push(active, scratch.touched[i])
            return -gain
    return 0.0

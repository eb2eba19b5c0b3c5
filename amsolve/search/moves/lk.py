"""Lin–Kernighan steps: sequential k-opt moves grown one exchange at a time under the gain criterion.

A step starts at a city t1 and removes one of its tour edges (t1, t2), leaving t2 as the free end.
Each exchange joins the free end to a candidate and removes an edge so that the tour closes again
with an edge to t1; the new free end is the city that closing edge joins to t1. G, the length
removed minus the length added (the closing edge not counted), must stay positive (the gain
criterion); the step goes on while G exceeds the best closed gain so far, and finally keeps the
prefix of exchanges whose closed tour was shortest.

The first exchange is a 2-opt or a sequential 3-opt move of the kind 2-opt exchanges cannot reach
(t4 the "wrong" neighbour of t3, so that a segment moves elsewhere, either way round: LK's
alternate first step); later ones are 2-opt moves. The first two levels try several choices
(the breadth), the most promising first, backtracking when a branch finds nothing; deeper levels
take the best one only. An edge added in a step is never removed again in the same step.

Exchanges are tentative until the step ends: each is a few 2-opt moves kept on a small stack as
reversed position intervals over the unchanged tour arrays (a "virtual" tour), so walking the
tentative tour costs O(stack depth) per step and taking an exchange back costs nothing. Only the
kept prefix is made on the tour itself, by city-named 2-opt moves. A step thus costs O(depth²)
plus the reversals of what it keeps, whatever n is.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.search.active import Active, push
from amsolve.search.distances import dist
from amsolve.search.space import Space
from amsolve.search.tour import Tour, two_opt_move

MAX_DEPTH = 50
"""Most exchanges in one step."""

BREADTH = (5, 3, 1)
"""How many choices are tried at the first, second and every deeper level. At 1,000 uniform cities
and 1 s, (5, 3, 1) with depth 50 gave 0.20 % above the references, (3, 2, 1) 0.23 %, (5, 1, 1)
0.24 %, (3, 1, 1) with depth 6 0.34 %, (1, 1, 1) with depth 3 0.64 %: a deeper, broader step
costs more and finds enough more."""

_MAX_FLIPS = MAX_DEPTH + 4
"""Most tentative 2-opt moves on the stack: a 3-opt first exchange takes three."""


class Scratch(NamedTuple):
    """Work arrays of a step, allocated once per search."""

    choices: np.ndarray  # (3, max breadth, 3) int64: (t3, t5, t6) of each choice, best first; t5 = -1 for 2-opt
    scores: np.ndarray  # (3, max breadth) float64: how much each choice adds to G
    added: np.ndarray  # (MAX_DEPTH + 2, 2) int64: edges added so far in the step
    touched: np.ndarray  # (2 * MAX_DEPTH + 4,) int64: cities whose edges the step changed
    flips: np.ndarray  # (_MAX_FLIPS, 2) int64: tentative reversals as (first, last) positions, cyclic
    moves: np.ndarray  # (_MAX_FLIPS, 4) int64: the same as 2-opt moves named by their cities
    depth: np.ndarray  # (1,) int64: how many tentative moves are on the stack


def new_scratch() -> Scratch:
    """Work arrays for `improve_lk`."""
    width = max(BREADTH)
    return Scratch(
        np.zeros((3, width, 3), dtype=np.int64),
        np.zeros((3, width), dtype=np.float64),
        np.zeros((MAX_DEPTH + 2, 2), dtype=np.int64),
        np.zeros(2 * MAX_DEPTH + 4, dtype=np.int64),
        np.zeros((_MAX_FLIPS, 2), dtype=np.int64),
        np.zeros((_MAX_FLIPS, 4), dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _flip_position(flips: np.ndarray, n: int, m: int, p: int) -> int:
    """Where tentative reversal m sends position p (branches instead of modulo: this is the hot path)."""
    first, last = flips[m, 0], flips[m, 1]
    offset = p - first
    if offset < 0:
        offset += n
    length = last - first
    if length < 0:
        length += n
    if offset > length:
        return p
    p = last - offset
    return p + n if p < 0 else p


@njit(cache=True, inline="always")
def _vpos(pos: np.ndarray, flips: np.ndarray, depth: int, city: int) -> int:
    """The position of `city` in the tentative tour."""
    n = pos.shape[0]
    p = pos[city]
    for m in range(depth):
        p = _flip_position(flips, n, m, p)
    return p


@njit(cache=True, inline="always")
def _vstep(order: np.ndarray, pos: np.ndarray, flips: np.ndarray, depth: int, city: int, direction: int) -> int:
    """The city after `city` in the tentative tour, walking in `direction` (+1 or -1)."""
    n = order.shape[0]
    p = _vpos(pos, flips, depth, city) + direction
    if p == n:
        p = 0
    elif p < 0:
        p = n - 1
    for m in range(depth - 1, -1, -1):
        p = _flip_position(flips, n, m, p)  # each reversal is its own inverse
    return order[p]


@njit(cache=True)
def _vmove(tour: Tour, scratch: Scratch, a: int, b: int, c: int, d: int) -> None:
    """Tentatively replace edges (a, b) and (c, d) by (a, c) and (b, d) (as `two_opt_move`)."""
    order, pos, flips, depth = tour.order, tour.pos, scratch.flips, scratch.depth[0]
    if _vstep(order, pos, flips, depth, a, 1) == b:
        first, last = _vpos(pos, flips, depth, b), _vpos(pos, flips, depth, c)
    else:
        first, last = _vpos(pos, flips, depth, c), _vpos(pos, flips, depth, b)
    flips[depth, 0], flips[depth, 1] = first, last
    scratch.moves[depth, 0], scratch.moves[depth, 1], scratch.moves[depth, 2], scratch.moves[depth, 3] = a, b, c, d
    scratch.depth[0] = depth + 1


@njit(cache=True, inline="always")
def _direction(order: np.ndarray, pos: np.ndarray, flips: np.ndarray, depth: int, t1: int, t2: int) -> int:
    """The direction of travel in which t2 follows t1 in the tentative tour."""
    return 1 if _vstep(order, pos, flips, depth, t1, 1) == t2 else -1


@njit(cache=True)
def _between(pos: np.ndarray, flips: np.ndarray, depth: int, direction: int, a: int, b: int, c: int) -> bool:
    """Whether b lies on the way from a to c (both included) in the tentative tour."""
    n = pos.shape[0]
    pa = _vpos(pos, flips, depth, a)
    return (_vpos(pos, flips, depth, b) - pa) * direction % n <= (_vpos(pos, flips, depth, c) - pa) * direction % n


@njit(cache=True)
def _was_added(scratch: Scratch, count: int, a: int, b: int) -> bool:
    """Whether edge (a, b) is among the first `count` edges added in this step."""
    for i in range(count):
        x, y = scratch.added[i, 0], scratch.added[i, 1]
        if (x == a and y == b) or (x == b and y == a):
            return True
    return False


@njit(cache=True)
def _offer(scratch: Scratch, level: int, count: int, score: float, t3: int, t5: int, t6: int) -> int:
    """Keep a choice among the level's best (by score, highest first); returns the new count."""
    row = min(level, 2)
    width = BREADTH[row]
    if count == width and score <= scratch.scores[row, width - 1]:
        return count
    slot = min(count, width - 1)
    while slot > 0 and score > scratch.scores[row, slot - 1]:
        scratch.choices[row, slot] = scratch.choices[row, slot - 1]
        scratch.scores[row, slot] = scratch.scores[row, slot - 1]
        slot -= 1
    scratch.choices[row, slot, 0] = t3
    scratch.choices[row, slot, 1] = t5
    scratch.choices[row, slot, 2] = t6
    scratch.scores[row, slot] = score
    return min(count + 1, width)


@njit(cache=True)
def _choose(space: Space, tour: Tour, scratch: Scratch, level: int, t1: int, t2: int, gain: float, n_added: int) -> int:
    """Fill the level's choices for free end t2; returns how many there are.

    Every level offers 2-opt exchanges; the first level also sequential 3-opt moves that move the
    segment t2..t5 (or t2..t6) next to t3 (scored by what they add to G).
    """
    points, code, tol = space.points, space.code, space.tolerance
    order, pos, flips, depth = tour.order, tour.pos, scratch.flips, scratch.depth[0]
    direction = _direction(order, pos, flips, depth, t1, t2)
    after_t2 = _vstep(order, pos, flips, depth, t2, direction)
    candidates = space.candidates
    width = candidates.shape[1]
    count = 0
    for k3 in range(width):
        t3 = candidates[t2, k3]
        if t3 < 0:
            break
        if t3 == t1 or t3 == after_t2:
            continue
        d23 = dist(points, code, t2, t3)
        if gain - d23 <= tol:
            continue
        t4 = _vstep(order, pos, flips, depth, t3, -direction)  # the neighbour that closes as a 2-opt move
        if not _was_added(scratch, n_added, t3, t4):
            count = _offer(scratch, level, count, dist(points, code, t3, t4) - d23, t3, -1, -1)
        if level > 0:
            continue
        t4 = _vstep(order, pos, flips, depth, t3, direction)  # the other one: t5 must then lie between t2 and t3
        if t4 == t1:
            continue
        g2 = gain - d23 + dist(points, code, t3, t4)
        for k5 in range(width):
            t5 = candidates[t4, k5]
            if t5 < 0:
                break
            if t5 == t3 or t5 == t4 or not _between(pos, flips, depth, direction, t2, t5, t3):
                continue
            g3 = g2 - dist(points, code, t4, t5)
            if g3 <= tol:
                continue
            for side in (direction, -direction):
                t6 = _vstep(order, pos, flips, depth, t5, side)
                if t6 == t1 or t6 == t4:
                    continue
                count = _offer(scratch, level, count, g3 + dist(points, code, t5, t6) - gain, t3, t5, t6)
    return count


@njit(cache=True)
def _exchange(tour: Tour, scratch: Scratch, t1: int, t2: int, level: int, index: int, n_added: int) -> int:
    """Tentatively make choice `index` of `level` from free end t2, recording the edges it adds;
    returns the new free end.

    A 2-opt exchange joins t2 to t3 and removes (t4, t3), t4 the new free end. A 3-opt exchange
    joins t2 to t3 and t4 = the city after t3 to t5, removes (t5, t6), and t6 is the new free end.
    """
    order, pos, flips, depth = tour.order, tour.pos, scratch.flips, scratch.depth[0]
    direction = _direction(order, pos, flips, depth, t1, t2)
    t3, t5, t6 = scratch.choices[level, index, 0], scratch.choices[level, index, 1], scratch.choices[level, index, 2]
    scratch.added[n_added, 0], scratch.added[n_added, 1] = t2, t3
    if t5 < 0:
        t4 = _vstep(order, pos, flips, depth, t3, -direction)
        _vmove(tour, scratch, t1, t2, t4, t3)
        return t4
    t4 = _vstep(order, pos, flips, depth, t3, direction)
    scratch.added[n_added + 1, 0], scratch.added[n_added + 1, 1] = t4, t5
    if t6 == _vstep(order, pos, flips, depth, t5, direction):  # t1 t2..t5 t6..t3 t4  ->  t1 t6..t3 t2..t5 t4
        _vmove(tour, scratch, t1, t2, t3, t4)  # t1 t3..t6 t5..t2 t4
        _vmove(tour, scratch, t1, t3, t6, t5)  # t1 t6..t3 t5..t2 t4
        _vmove(tour, scratch, t3, t5, t2, t4)  # t1 t6..t3 t2..t5 t4
    else:  # t1 t2..t6 t5..t3 t4  ->  t1 t6..t2 t3..t5 t4
        _vmove(tour, scratch, t1, t2, t6, t5)
        _vmove(tour, scratch, t2, t5, t3, t4)
    return t6


@njit(cache=True)
def _keep(tour: Tour, scratch: Scratch, count: int) -> None:
    """Make the first `count` tentative moves on the tour itself and clear the stack."""
    scratch.depth[0] = 0
    for m in range(count):
        two_opt_move(tour, scratch.moves[m, 0], scratch.moves[m, 1], scratch.moves[m, 2], scratch.moves[m, 3])


@njit(cache=True)
def _step_from(space: Space, tour: Tour, scratch: Scratch, t1: int, t2: int) -> tuple[float, int]:
    """One Lin–Kernighan step removing (t1, t2). Returns the gain kept (0.0 if none) and how many
    cities of `scratch.touched` it changed; the tour is left improved by that gain, or as it was."""
    points, code, tol = space.points, space.code, space.tolerance
    best_gain, best_depth, best_touched = tol, -1, 0
    scratch.depth[0] = 0
    scratch.touched[0], scratch.touched[1] = t1, t2
    g0 = dist(points, code, t1, t2)
    count0 = _choose(space, tour, scratch, 0, t1, t2, g0, 0)
    for i0 in range(count0):
        t3, t5, t6 = scratch.choices[0, i0, 0], scratch.choices[0, i0, 1], scratch.choices[0, i0, 2]
        g1 = g0 + scratch.scores[0, i0]
        added0 = 1 if t5 < 0 else 2
        free0 = _exchange(tour, scratch, t1, t2, 0, i0, 0)
        depth0 = scratch.depth[0]
        scratch.touched[2], scratch.touched[3] = t3, free0
        touched0 = 4
        if t5 >= 0:
            scratch.touched[4], scratch.touched[5] = t5, t6
            touched0 = 6
        closed = g1 - dist(points, code, free0, t1)
        if closed > best_gain:
            best_gain, best_depth, best_touched = closed, depth0, touched0
        count1 = _choose(space, tour, scratch, 1, t1, free0, g1, added0) if g1 > best_gain else 0
        for i1 in range(count1):
            gain = g1 + scratch.scores[1, i1]
            free = _exchange(tour, scratch, t1, free0, 1, i1, added0)
            n_added = added0 + 1
            scratch.touched[touched0], scratch.touched[touched0 + 1] = scratch.choices[1, i1, 0], free
            n_touched = touched0 + 2
            closed = gain - dist(points, code, free, t1)
            if closed > best_gain:
                best_gain, best_depth, best_touched = closed, scratch.depth[0], n_touched
            while n_added < MAX_DEPTH and gain > best_gain:
                if _choose(space, tour, scratch, 2, t1, free, gain, n_added) == 0:
                    break
                gain += scratch.scores[2, 0]
                free = _exchange(tour, scratch, t1, free, 2, 0, n_added)
                n_added += 1
                scratch.touched[n_touched], scratch.touched[n_touched + 1] = scratch.choices[2, 0, 0], free
                n_touched += 2
                closed = gain - dist(points, code, free, t1)
                if closed > best_gain:
                    best_gain, best_depth, best_touched = closed, scratch.depth[0], n_touched
            if best_depth >= 0:
                _keep(tour, scratch, best_depth)
                return best_gain, best_touched
            scratch.depth[0] = depth0
        if best_depth >= 0:
            _keep(tour, scratch, best_depth)
            return best_gain, best_touched
        scratch.depth[0] = 0
    return 0.0, 0


@njit(cache=True)
def improve_lk(space: Space, tour: Tour, active: Active, scratch: Scratch, t1: int) -> float:
    """Make an improving Lin–Kernighan step from t1, trying both of its tour edges; returns the
    change in length (0.0 if no step improves)."""
    for direction in (1, -1):
        t2 = tour.order[(tour.pos[t1] + direction) % tour.order.shape[0]]
        gain, touched = _step_from(space, tour, scratch, t1, t2)
        if touched:
            for i in range(touched):
                push(active, scratch.touched[i])
            return -gain
    return 0.0

"""Or-opt: move a segment of one to three consecutive cities elsewhere, either way round."""

from __future__ import annotations

from amsolve.search.active import Active, push
from amsolve.search.kernel import kernel
from amsolve.search.space import Space, edge_length
from amsolve.search.tour import Tour, move_segment, step

MAX_SEGMENT = 3
"""Or-opt moves segments of 1..MAX_SEGMENT consecutive cities."""


@kernel
def improve_oropt(space: Space, tour: Tour, active: Active, a: int) -> float:
    """Make the first improving move of a segment that ends at a and is re-inserted with a next to
    one of its candidates; returns its delta (0.0 if none)."""
    n = tour.order.shape[0]
    pos = tour.pos
    for direction in (1, -1):
        p = step(tour, a, -direction)  # the segment is a = s1, ..., s2 walking in `direction`
        s2 = a
        for length in range(1, MAX_SEGMENT + 1):
            if length > 1:
                s2 = step(tour, s2, direction)
            nx = step(tour, s2, direction)
            if nx == p:
                break  # the segment would hold all cities but p
            if length == 1 and direction == -1:
                continue  # a single city was already tried walking forwards
            removal_gain = edge_length(space, p, a) + edge_length(space, s2, nx) - edge_length(space, p, nx)
            for c in space.candidates[a]:
                if c < 0:
                    break
                if (pos[c] - pos[a]) * direction % n < length:
                    continue  # c is in the segment
                for side in (direction, -direction):
                    d = step(tour, c, side)
                    if (pos[d] - pos[a]) * direction % n < length:
                        continue
                    delta = edge_length(space, c, a) + edge_length(space, s2, d) - edge_length(space, c, d)
                    delta -= removal_gain
                    if delta < -space.tolerance:
                        # Walking in `direction`, c comes before d when side == direction.
                        u, v = (c, d) if side == direction else (d, c)
                        move_segment(tour, p, a, s2, nx, u, v, side != direction)
                        for city in (p, a, s2, nx, c, d):
                            push(active, city)
                        return delta
    return 0.0

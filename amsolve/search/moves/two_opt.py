"""2-opt: replace two tour edges by the two that reconnect the tour the other way."""

from __future__ import annotations

from amsolve.search.active import Active, push
from amsolve.search.kernel import kernel
from amsolve.search.space import Space, edge_length
from amsolve.search.tour import Tour, step, two_opt_move


@kernel
def improve_2opt(space: Space, tour: Tour, active: Active, a: int) -> float:
    """Make the first improving 2-opt move that joins a to a candidate; returns its delta (0.0 if none).

    Only moves whose new edge at a is shorter than the edge they remove there are tried: every
    improving 2-opt move has an endpoint where that holds.
    """
    for direction in (1, -1):
        b = step(tour, a, direction)
        d_ab = edge_length(space, a, b)
        for c in space.candidates[a]:
            if c < 0:
                break
            d_ac = edge_length(space, a, c)
            if d_ac >= d_ab:
                continue
            d = step(tour, c, direction)
            if c == b or d == a:
                continue
            delta = d_ac + edge_length(space, b, d) - d_ab - edge_length(space, c, d)
            if delta < -space.tolerance:
                two_opt_move(tour, a, b, c, d)
                for city in (a, b, c, d):
                    push(active, city)
                return delta
    return 0.0

"""The search: local search (2-opt, Or-opt, Lin–Kernighan with non-sequential bridge moves) over candidate
lists, and iterated local search."""

from amsolve.search.candidates.nearest import DEFAULT_NEIGHBOURS, nearest_neighbours
from amsolve.search.local_search import (
    LOCAL_SEARCHES,
    check_local_search,
    improve_tours,
    iterated_local_search,
    warm_up_search,
)

__all__ = [
    "DEFAULT_NEIGHBOURS",
    "LOCAL_SEARCHES",
    "check_local_search",
    "improve_tours",
    "iterated_local_search",
    "nearest_neighbours",
    "warm_up_search",
]

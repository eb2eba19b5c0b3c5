"""Local search on tours: 2-opt and Or-opt over neighbour lists, and iterated local search."""

from amsolve.search.local_search import LOCAL_SEARCHES, check_local_search, improve_tours, iterated_local_search
from amsolve.search.neighbours import DEFAULT_NEIGHBOURS, nearest_neighbours

__all__ = [
    "DEFAULT_NEIGHBOURS",
    "LOCAL_SEARCHES",
    "check_local_search",
    "improve_tours",
    "iterated_local_search",
    "nearest_neighbours",
]

"""α-nearness candidates: edges ranked by how much a minimum 1-tree grows when forced to hold them.

A 1-tree is a spanning tree plus one more edge at a special node; every tour is a 1-tree, so a
minimum 1-tree's length is a lower bound on the optimum. Node penalties π change each edge (i, j)
to d(i, j) + π_i + π_j without changing which tour is shortest; the Held–Karp ascent moves π
along the subgradient (degree − 2) to raise the bound, which pushes the minimum 1-tree towards a
tour. α(i, j) is then the increase of the minimum 1-tree's length when (i, j) must belong to it:
0 for the tree's own edges, otherwise d(i, j) + π_i + π_j minus the longest edge on the tree path
from i to j (or minus the special node's longer 1-tree edge when i or j is that node). Ranking
each city's edges by α finds the edges of optimal tours with far fewer candidates than distance
does (Helsgaun 2000); this is how LKH builds its candidate lists.

The trees are computed on a sparse graph for large instances (the union of the nearest and the
quadrant neighbours, made connected), on the complete graph for small ones. The ascent stops
after a time budget, keeping the best penalties found. On a sparse graph the candidates are then
ranked over a wider one (`RANK_NEAREST`): α needs only the tree, so it is defined for edges the
trees never saw.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from numba import njit

from amsolve.errors import InputError
from amsolve.search.candidates.nearest import nearest_in_grid, nearest_neighbours, quadrants_on_sphere
from amsolve.search.clock import now
from amsolve.search.construct import construct, union_find_root
from amsolve.search.distances import EXPLICIT, GEO, GRID_CODES, DistanceView, dist, tour_length
from amsolve.search.kernel import kernel

DENSE_CITIES = 120
"""Up to this many cities (every coordinate metric) the trees are computed on the complete graph.
MAN_2D and MAX_2D used 1,000 (the matrices' `DENSE_MATRIX_CITIES`) until they had quadrant
neighbours for the sparse graph; since, this limit measured the shorter tours for them in 10 of 12
cells (8 instances of 300 and 1,000 uniform cities, 3 seeds, 0.3 s twice with the cores swapped and
1 s once; 0.04–0.06 % shorter at 1,000 MAN_2D cities in 0.3 s), level in one and 0.009 % longer in
one. EUC_3D, whose sparse graph is each city's nearest alone, measured the same way (8 instances, 3
seeds, 0.1, 0.3 and 1 s, cores swapped; AMD EPYC): at 1,000 cities 0.07, 0.04 and 0.02 % shorter
than on the complete graph (shorter in 37, 42 and 43 of 48 solves), at 300 cities level or shorter
(at most 0.009 %); in 0.01 s 1.23 % shorter at 1,000 cities (45 of 48) and 0.05 % at 300, where α on
the complete graph takes most of the time."""

DENSE_MATRIX_CITIES = 1000
"""Up to this many cities matrices use the complete graph too: their nearest cost reading the
whole matrix, and they have no quadrant neighbours to make a good sparse graph."""

ASCENT_PATIENCE = 20
"""Trees without a better bound after which the ascent halves its step."""

ASCENT_FIRST_STEP = 2.0
"""λ of the ascent's first Polyak step (`_ascent`), from π = 0 or from predicted π alike."""

NO_TRACE = np.empty(0)
"""`_ascent`'s `trace` when none is wanted."""

GRAPH_NEAREST = 10
"""Nearest neighbours of each city in the sparse graph of the ascent's 1-trees, besides its two
nearest in each quadrant."""

RANK_NEAREST = 16
"""Nearest neighbours of each city (besides its two nearest in each quadrant) among which its
candidates are ranked by α, on a sparse graph. α is defined for any pair, on the ascent's graph
or not (the tree path's heaviest edge), and an edge the 1-trees never see can still be a tour's:
on one 1,000-city instance two edges of the reference tour are the 11th and 12th nearest of their
ends, outside the ascent's graph, and among the 8 α-nearest once ranked."""

_INFINITY = np.inf


class AlphaResult(NamedTuple):
    """Candidate lists by α-nearness, with the penalties and lower bound of the ascent behind them."""

    candidates: np.ndarray  # (n, k) int64, smallest α first, -1 padding
    penalties: np.ndarray  # (n,) float64 node penalties π
    lower_bound: float  # length of the minimum 1-tree under π, minus 2 Σ π
    iterations: int  # ascent iterations made (each one minimum 1-tree)


class _Graph(NamedTuple):
    """Edges the trees may use, in compressed rows: the neighbours of i are indices[indptr[i]:indptr[i+1]]."""

    indptr: np.ndarray  # (n + 1,) int64
    indices: np.ndarray  # (m,) int64
    lengths: np.ndarray  # (m,) float64: d(i, j) of each entry
    dense: bool  # whether it is the complete graph


def alpha_candidates(
    view: DistanceView,
    k: int,
    seconds: float,
    penalties: np.ndarray | None = None,
    neighbours: np.ndarray | None = None,
    upper_bound: float | None = None,
    patience: int = ASCENT_PATIENCE,
) -> AlphaResult:
    """The k candidates of each city by α-nearness after at most `seconds` of Held–Karp ascent.

    `penalties` (n,) start the ascent where they are (learned or earlier penalties) instead of at 0;
    with `seconds` = 0 they are used as they are. The time to build the graphs (the trees' and,
    when sparse, the wider one the edges are ranked on) and to rank the edges comes on top of
    `seconds`: a few µs per city. `neighbours`: each city's `RANK_NEAREST` nearest or more, when
    already found (`nearest_neighbours`' `wider`); `upper_bound`: the length of a greedy edge tour,
    which the ascent's steps are measured against, when already known (else it is built);
    `patience`: trees without a better bound before the ascent halves its step.
    """
    if k < 1:
        raise InputError(f"the number of candidates must be at least 1, got {k}")
    n = view.n
    k = min(k, n - 1)
    graph, rank_graph = _build_graphs(view, neighbours)
    pi = np.zeros(n) if penalties is None else np.array(penalties, dtype=np.float64)
    if pi.shape != (n,) or not np.isfinite(pi).all():
        raise InputError(f"penalties must be {n} finite numbers")
    work = _Work.new(n)
    deadline = time.perf_counter() + seconds
    bound = _one_tree(graph, pi, work)
    iterations = 1
    if seconds > 0:
        if upper_bound is None:
            upper_bound = tour_length(view.points, view.code, construct(view, "greedy-edge", neighbours=neighbours))
        bound, made = _ascent(graph, pi, work, deadline, upper_bound, patience, ASCENT_FIRST_STEP, NO_TRACE)
        iterations += made
    candidates = _rank(rank_graph, pi, work, k)
    return AlphaResult(candidates, pi, bound, iterations)


class _Work(NamedTuple):
    """Arrays of one minimum 1-tree, reused by every iteration."""

    parent: np.ndarray  # (n,) int64: tree parent, -1 at the root
    parent_weight: np.ndarray  # (n,) float64: weight of the edge to the parent, under π
    order: np.ndarray  # (n,) int64: cities in the order they joined the tree (parents first)
    degree: np.ndarray  # (n,) int64: degree in the 1-tree
    key: np.ndarray  # (n,) float64: Prim's cheapest known edge into the tree
    heap: np.ndarray  # (n,) int64 binary heap of cities by key
    where: np.ndarray  # (n,) int64: position in the heap, -1 outside, -2 in the tree
    special: np.ndarray  # (2,) int64: the special node and its second 1-tree neighbour

    @staticmethod
    def new(n: int) -> _Work:
        return _Work(
            np.empty(n, dtype=np.int64),
            np.empty(n),
            np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64),
            np.empty(n),
            np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64),
            np.empty(2, dtype=np.int64),
        )


def dense_graph_limit(code: int) -> int:
    """Up to how many cities the trees of a metric are computed on the complete graph."""
    return DENSE_MATRIX_CITIES if code == EXPLICIT else DENSE_CITIES


def _build_graphs(view: DistanceView, neighbours: np.ndarray | None = None) -> tuple[_Graph, _Graph]:
    """The graph of the ascent's 1-trees and the graph the candidates are ranked on: the complete
    graph for small instances (both), else each city's `GRAPH_NEAREST` and `RANK_NEAREST` nearest
    (cut from `neighbours` when given, see `alpha_candidates`) with its quadrant neighbours, made
    connected."""
    n = view.n
    if n <= dense_graph_limit(view.code):
        indptr, others = _complete_rows(n)
        complete = _Graph(indptr, others, _edge_lengths(view.points, view.code, indptr, others), True)
        return complete, complete
    nearest = nearest_neighbours(view, RANK_NEAREST, neighbours)
    if view.code in GRID_CODES:
        wide = np.concatenate([nearest, nearest_in_grid(view.points, 2, True, view.code)], axis=1)
    elif view.code == GEO:
        wide = np.concatenate([nearest, quadrants_on_sphere(view.points, 2)], axis=1)
    else:
        wide = nearest
    narrow = np.delete(wide, np.s_[GRAPH_NEAREST:RANK_NEAREST], axis=1)  # the nearest come closest first
    return _sparse_graph(view, narrow), _sparse_graph(view, wide)


def _sparse_graph(view: DistanceView, neighbours: np.ndarray) -> _Graph:
    """The graph of each city's `neighbours` row (-1 for none), made symmetric and connected."""
    indptr, indices = _symmetric_rows(neighbours, _component_links(neighbours))
    return _Graph(indptr, indices, _edge_lengths(view.points, view.code, indptr, indices), False)


@njit(cache=True)
def _complete_rows(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Compressed rows of the complete graph on n cities: row i lists every city but i, in order."""
    indptr = np.arange(0, n * (n - 1) + 1, n - 1)
    indices = np.empty(n * (n - 1), dtype=np.int64)
    for i in range(n):
        for j in range(n - 1):
            indices[indptr[i] + j] = j if j < i else j + 1
    return indptr, indices


@njit(cache=True)
def _component_links(neighbours: np.ndarray) -> np.ndarray:
    """Edges (c, 2) that chain the connected components of the neighbour graph into one."""
    n = neighbours.shape[0]
    root = np.arange(n)
    for i in range(n):
        for j in neighbours[i]:
            if j >= 0:
                a, b = union_find_root(root, i), union_find_root(root, j)
                if a != b:
                    root[a] = b
    representatives = [i for i in range(n) if union_find_root(root, i) == i]
    links = np.empty((len(representatives) - 1, 2), dtype=np.int64)
    for m in range(len(representatives) - 1):
        links[m, 0], links[m, 1] = representatives[m], representatives[m + 1]
    return links


@njit(cache=True)
def _symmetric_rows(neighbours: np.ndarray, links: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Compressed rows of the undirected graph with edges (i, neighbours[i, :]) and the links,
    each row in increasing order without duplicates.

    Every edge is taken both ways, so a city's row holds as many entries (duplicates included)
    as its column: the entries are placed by column first, then, column by column in increasing
    order, into their rows, which come out sorted without a sort (sorting each row took twice as
    long at 20,000 cities)."""
    n = neighbours.shape[0]
    counts = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        for j in neighbours[i]:
            if j >= 0:
                counts[i + 1] += 1
                counts[j + 1] += 1
    for e in range(links.shape[0]):
        counts[links[e, 0] + 1] += 1
        counts[links[e, 1] + 1] += 1
    for i in range(n):
        counts[i + 1] += counts[i]
    filled = counts[:-1].copy()
    by_column = np.empty(counts[n], dtype=np.int64)  # the rows of each column's entries
    for i in range(n):
        for j in neighbours[i]:
            if j >= 0:
                by_column[filled[j]] = i
                filled[j] += 1
                by_column[filled[i]] = j
                filled[i] += 1
    for e in range(links.shape[0]):
        i, j = links[e, 0], links[e, 1]
        by_column[filled[j]] = i
        filled[j] += 1
        by_column[filled[i]] = j
        filled[i] += 1
    filled[:] = counts[:-1]
    raw = np.empty(counts[n], dtype=np.int64)
    for j in range(n):
        for e in range(counts[j], counts[j + 1]):
            i = by_column[e]
            raw[filled[i]] = j
            filled[i] += 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(counts[n], dtype=np.int64)
    m = 0
    for i in range(n):
        for r in range(counts[i], counts[i + 1]):
            if r == counts[i] or raw[r] != raw[r - 1]:
                indices[m] = raw[r]
                m += 1
        indptr[i + 1] = m
    return indptr, indices[:m].copy()


@njit(cache=True)
def _edge_lengths(points: np.ndarray, code: int, indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    lengths = np.empty(indices.shape[0])
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            lengths[e] = dist(points, code, i, indices[e])
    return lengths


@kernel
def _sift_up(work: _Work, slot: int) -> None:
    heap, where, key = work.heap, work.where, work.key
    city = heap[slot]
    while slot > 0:
        up = (slot - 1) // 2
        if key[heap[up]] <= key[city]:
            break
        heap[slot] = heap[up]
        where[heap[slot]] = slot
        slot = up
    heap[slot] = city
    where[city] = slot


@kernel
def _pop_min(work: _Work, size: int) -> int:
    """Remove and return the city of smallest key from a heap of `size` cities."""
    heap, where, key = work.heap, work.where, work.key
    top = heap[0]
    last = heap[size - 1]
    size -= 1
    slot = 0
    while True:
        child = 2 * slot + 1
        if child >= size:
            break
        if child + 1 < size and key[heap[child + 1]] < key[heap[child]]:
            child += 1
        if key[heap[child]] >= key[last]:
            break
        heap[slot] = heap[child]
        where[heap[slot]] = slot
        slot = child
    if size > 0:
        heap[slot] = last
        where[last] = slot
    where[top] = -2
    return top


@kernel
def _dense_spanning_tree(graph: _Graph, pi: np.ndarray, work: _Work) -> float:
    """`_spanning_tree` on the complete graph: O(n^2) without a heap, each step scanning only the
    cities still outside the tree (`work.heap` holds them), updating their keys and finding the
    cheapest in one pass."""
    n = pi.shape[0]
    indptr, lengths = graph.indptr, graph.lengths
    key, parent, outside = work.key, work.parent, work.heap
    key[:] = _INFINITY
    parent[:] = -1
    for j in range(n):
        outside[j] = j
    left = n - 1
    outside[0] = n - 1  # city 0 is the root
    city, total = 0, 0.0
    key[0] = 0.0
    for m in range(n):
        work.order[m] = city
        work.parent_weight[city] = key[city]
        total += key[city]
        row, own = indptr[city], pi[city]
        best, slot = _INFINITY, -1
        for t in range(left):
            j = outside[t]
            w = lengths[row + (j - 1 if j > city else j)] + own + pi[j]  # row `city` lists all cities but itself
            if w < key[j]:
                key[j] = w
                parent[j] = city
            if key[j] < best:
                best, slot = key[j], t
        if slot < 0:
            break
        city = outside[slot]
        left -= 1
        outside[slot] = outside[left]
    return total


@kernel
def _spanning_tree(graph: _Graph, pi: np.ndarray, work: _Work) -> float:
    """Prim's minimum spanning tree from city 0 under π, with a binary heap (`_dense_spanning_tree`
    on the complete graph); returns its weight."""
    if graph.dense:
        return _dense_spanning_tree(graph, pi, work)
    indptr, indices, lengths = graph.indptr, graph.indices, graph.lengths
    key, where, parent = work.key, work.where, work.parent
    key[:] = _INFINITY
    where[:] = -1
    parent[:] = -1
    key[0] = 0.0
    total = 0.0
    size = 1
    work.heap[0] = 0
    where[0] = 0
    m = 0
    while size > 0:
        city = _pop_min(work, size)
        size -= 1
        work.order[m] = city
        m += 1
        work.parent_weight[city] = key[city]
        total += key[city]
        for e in range(indptr[city], indptr[city + 1]):
            j = indices[e]
            if where[j] == -2:
                continue
            w = lengths[e] + pi[city] + pi[j]
            if w < key[j]:
                key[j] = w
                parent[j] = city
                if where[j] == -1:
                    work.heap[size] = j
                    where[j] = size
                    size += 1
                _sift_up(work, where[j])
    return total


@kernel
def _one_tree(graph: _Graph, pi: np.ndarray, work: _Work) -> float:
    """The minimum 1-tree under π, in `work`; returns its lower bound, weight − 2 Σ π.

    The tree is a minimum spanning tree; the special node is the leaf whose second cheapest edge is
    the most expensive, and that edge completes the 1-tree (a leaf's tree edge is its cheapest).
    """
    n = pi.shape[0]
    total = _spanning_tree(graph, pi, work)
    degree, parent = work.degree, work.parent
    degree[:] = 0
    for i in range(n):
        if parent[i] >= 0:
            degree[i] += 1
            degree[parent[i]] += 1
    special, partner, best = -1, -1, -_INFINITY
    for u in range(n):
        if degree[u] != 1:
            continue
        tree_neighbour = parent[u]
        if tree_neighbour < 0:  # the root with a single child
            for j in range(n):
                if parent[j] == u:
                    tree_neighbour = j
        second, second_city = _INFINITY, -1
        for e in range(graph.indptr[u], graph.indptr[u + 1]):
            j = graph.indices[e]
            if j != tree_neighbour:
                w = graph.lengths[e] + pi[u] + pi[j]
                if w < second:
                    second, second_city = w, j
        if second_city >= 0 and second > best:
            special, partner, best = u, second_city, second
    work.special[0], work.special[1] = special, partner
    if special >= 0:
        total += best
        degree[special] += 1
        degree[partner] += 1
    return total - 2.0 * pi.sum()


@njit(cache=True)
def _ascent(
    graph: _Graph,
    pi: np.ndarray,
    work: _Work,
    deadline: float,
    upper_bound: float,
    patience: int,
    first_step: float,
    trace: np.ndarray,
) -> tuple[float, int]:
    """Held–Karp subgradient ascent on π until `deadline` (a `perf_counter` value; one 1-tree at
    least); `pi` ends at the best penalties found, `work` holding their 1-tree. Returns the best
    bound and the trees computed.

    Polyak's step, λ (upper bound − bound) / ‖subgradient‖², λ from `first_step` and halved after
    `patience` trees without a better bound; each move follows 0.7 of the subgradient and
    0.3 of the last one (as LKH does). The upper bound is a tour's length. On three 1,000-city
    uniform instances and d2103 this reached within 0.1 point of its final bound in about 400
    trees; LKH's schedule (a step doubled while the bound rises, then halved each period) needed
    about 1,600 (bound 4.1 % below the reference after 400 trees, against 0.76 %).
    `trace` (m,): when not empty, the best bound after each of the first m trees is written to it,
    and the ascent stops there (`benchmarks/ascent_trace.py`).
    """
    n = pi.shape[0]
    bound = _one_tree(graph, pi, work)
    best = bound
    trees = 1
    best_pi = pi.copy()
    subgradient = (work.degree - 2).astype(np.float64)
    last = subgradient.copy()
    scale, stale = first_step, 0
    if trace.shape[0] > 0:
        trace[0] = best
    # a look at the clock costs a few % of a 100-city tree
    while scale > 1e-5 and now() < deadline and (trace.shape[0] == 0 or trees < trace.shape[0]):
        norm = (subgradient * subgradient).sum()
        if norm == 0:  # the 1-tree is a tour, an optimal one
            break
        step = scale * max(upper_bound - bound, 0.0) / norm
        if step == 0.0:
            break
        for i in range(n):
            pi[i] += step * (0.7 * subgradient[i] + 0.3 * last[i])
        last[:] = subgradient
        bound = _one_tree(graph, pi, work)
        trees += 1
        for i in range(n):
            subgradient[i] = work.degree[i] - 2
        if bound > best:
            best = bound
            best_pi[:] = pi
            stale = 0
        else:
            stale += 1
            if stale >= patience:
                scale /= 2.0
                stale = 0
        if trees <= trace.shape[0]:
            trace[trees - 1] = best
    pi[:] = best_pi
    return _one_tree(graph, pi, work), trees + 1


@njit(cache=True)
def _lifting(work: _Work, levels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ancestor tables of the spanning tree: up[l, v] is v's 2^l-th ancestor and top[l, v] the
    heaviest edge on the way there; with each city's depth."""
    n = work.parent.shape[0]
    up = np.empty((levels, n), dtype=np.int64)
    top = np.empty((levels, n))
    depth = np.zeros(n, dtype=np.int64)
    for m in range(n):
        v = work.order[m]
        p = work.parent[v]
        if p < 0:
            up[0, v], top[0, v] = v, -_INFINITY
        else:
            up[0, v], top[0, v] = p, work.parent_weight[v]
            depth[v] = depth[p] + 1
    for level in range(1, levels):
        for v in range(n):
            mid = up[level - 1, v]
            up[level, v] = up[level - 1, mid]
            top[level, v] = max(top[level - 1, v], top[level - 1, mid])
    return up, top, depth


@njit(cache=True)
def _heaviest_on_path(up: np.ndarray, top: np.ndarray, depth: np.ndarray, a: int, b: int) -> float:
    """The heaviest tree edge between a and b."""
    heaviest = -_INFINITY
    if depth[a] < depth[b]:
        a, b = b, a
    climb = depth[a] - depth[b]
    level = 0
    while climb:
        if climb & 1:
            heaviest = max(heaviest, top[level, a])
            a = up[level, a]
        climb >>= 1
        level += 1
    if a == b:
        return heaviest
    for level in range(up.shape[0] - 1, -1, -1):
        if up[level, a] != up[level, b]:
            heaviest = max(heaviest, top[level, a], top[level, b])
            a, b = up[level, a], up[level, b]
    return max(heaviest, top[0, a], top[0, b])


@kernel
def _heaviest_from(work: _Work, i: int, heaviest: np.ndarray, mark: np.ndarray) -> None:
    """heaviest[j] = the heaviest tree edge between i and j, for every city j, in O(n) (Helsgaun's
    scheme): up the tree from i first, then every other city after its parent. `mark` (n,) must
    not hold i on entry and holds it at i's ancestors on return."""
    parent, weight = work.parent, work.parent_weight
    heaviest[i] = -_INFINITY
    mark[i] = i
    v = i
    while parent[v] >= 0:
        heaviest[parent[v]] = max(heaviest[v], weight[v])
        mark[parent[v]] = i
        v = parent[v]
    for m in range(parent.shape[0]):
        j = work.order[m]
        if mark[j] != i:
            heaviest[j] = max(heaviest[parent[j]], weight[j])


@njit(cache=True)
def alpha_values(graph: _Graph, pi: np.ndarray, work: _Work) -> np.ndarray:
    """α of every graph entry (same layout as graph.indices), for the 1-tree in `work`.

    The heaviest tree edge between two cities comes from `_heaviest_from` on the complete graph
    (O(n^2) in all), from ancestor tables on a sparse one (O(log n) an edge)."""
    n = pi.shape[0]
    indptr, indices, lengths, parent = graph.indptr, graph.indices, graph.lengths, work.parent
    special, partner = work.special[0], work.special[1]
    longer = _INFINITY  # the special node's longer 1-tree edge, to its partner
    for f in range(indptr[special], indptr[special + 1]):
        if indices[f] == partner:
            longer = lengths[f] + pi[special] + pi[partner]
    heaviest, mark = np.empty(n), np.full(n, -1, dtype=np.int64)
    levels = 1
    while (1 << levels) < n:
        levels += 1
    up, top, depth = _lifting(work, 1 if graph.dense else levels)
    alpha = np.empty(indices.shape[0])
    for i in range(n):
        if graph.dense:
            _heaviest_from(work, i, heaviest, mark)
        for e in range(indptr[i], indptr[i + 1]):
            j = indices[e]
            w = lengths[e] + pi[i] + pi[j]
            if parent[i] == j or parent[j] == i:
                alpha[e] = 0.0
            elif i == special or j == special:
                other = j if i == special else i
                alpha[e] = 0.0 if other == partner else max(0.0, w - longer)
            elif graph.dense:
                alpha[e] = max(0.0, w - heaviest[j])
            else:
                alpha[e] = max(0.0, w - _heaviest_on_path(up, top, depth, i, j))
    return alpha


@njit(cache=True)
def _select(graph: _Graph, alpha: np.ndarray, k: int) -> np.ndarray:
    """Each city's k graph neighbours of smallest α, ties by distance."""
    n = graph.indptr.shape[0] - 1
    result = np.full((n, k), -1, dtype=np.int64)
    best_alpha = np.empty(k)
    best_length = np.empty(k)
    for i in range(n):
        count = 0
        for e in range(graph.indptr[i], graph.indptr[i + 1]):
            a, length = alpha[e], graph.lengths[e]
            if count == k and (a > best_alpha[k - 1] or (a == best_alpha[k - 1] and length >= best_length[k - 1])):
                continue
            slot = min(count, k - 1)
            while slot > 0 and (
                a < best_alpha[slot - 1] or (a == best_alpha[slot - 1] and length < best_length[slot - 1])
            ):
                best_alpha[slot], best_length[slot] = best_alpha[slot - 1], best_length[slot - 1]
                result[i, slot] = result[i, slot - 1]
                slot -= 1
            best_alpha[slot], best_length[slot] = a, length
            result[i, slot] = graph.indices[e]
            count = min(count + 1, k)
    return result


def _rank(graph: _Graph, pi: np.ndarray, work: _Work, k: int) -> np.ndarray:
    """The k candidates of each city by α under π (the 1-tree in `work` must be π's)."""
    return _select(graph, alpha_values(graph, pi, work), k)

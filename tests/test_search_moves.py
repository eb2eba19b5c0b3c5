"""The search's parts on their own: each move and kick keeps a valid tour and the length it claims,
the journal undoes exactly, α-nearness equals a brute-force computation, and the candidate
sources and constructions give what they promise."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from conftest import tour_edges
from hypothesis import given, settings
from hypothesis import strategies as st

from amsolve.errors import InputError
from amsolve.problem.distance import distance_matrix
from amsolve.search import construct as construct_module
from amsolve.search import local_search
from amsolve.search.active import Active, new_active
from amsolve.search.candidates import CANDIDATE_SOURCES, candidate_lists
from amsolve.search.candidates.alpha import (
    ASCENT_PATIENCE,
    GRAPH_NEAREST,
    RANK_NEAREST,
    _ascent,
    _build_graphs,
    _one_tree,
    _symmetric_rows,
    _Work,
    alpha_candidates,
    alpha_values,
)
from amsolve.search.candidates.nearest import nearest_neighbours, quadrants_on_sphere
from amsolve.search.candidates.quadrant import quadrant_neighbours
from amsolve.search.candidates.window import WINDOW_WIDTH, window_candidates
from amsolve.search.construct import (
    CONSTRUCTIONS,
    _add_greedily,
    _curve_cells,
    _hilbert_index,
    _hilbert_index_3d,
    _stable_order,
    complete_nearest,
    construct,
)
from amsolve.search.distances import EXPLICIT, DistanceView, coordinate_view, dist, tour_length
from amsolve.search.kicks import long_edge_double_bridge, seed_kicks, segment_double_bridge
from amsolve.search.merge import merge_tours, new_merge_work
from amsolve.search.moves import kopt
from amsolve.search.moves.bridge import improve_bridge
from amsolve.search.moves.lk import improve_lk, new_scratch
from amsolve.search.moves.or_opt import improve_oropt
from amsolve.search.moves.two_opt import improve_2opt
from amsolve.search.space import Space, edge_length, make_space
from amsolve.search.tour import Tour, commit, journal_length, new_tour, reverse, undo

METRICS = ("EUCLIDEAN", "EUC_2D", "ATT", "GEO")


def coordinates(rng: np.random.Generator, n: int, metric: str) -> np.ndarray:
    if metric == "GEO":
        return np.column_stack([rng.uniform(-60, 60, n), rng.uniform(-150, 150, n)]).round(2)
    if metric == "EUCLIDEAN":
        return rng.random((n, 2))
    return rng.uniform(0, 500, (n, 2)).round(1)


def is_valid(state) -> bool:
    n = len(state.order)
    return sorted(state.order.tolist()) == list(range(n)) and (state.order[state.pos] == np.arange(n)).all()


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(5, 40),
    metric=st.sampled_from(METRICS),
    source=st.sampled_from([source for source in CANDIDATE_SOURCES if source not in ("model", "alphanet")]),
    k=st.integers(1, 8),
    seed=st.integers(0, 2**16),
    penalised=st.booleans(),
)
def test_each_move_keeps_a_valid_tour_and_the_length_it_claims(
    n: int, metric: str, source: str, k: int, seed: int, penalised: bool
) -> None:
    rng = np.random.default_rng(seed)
    view = coordinate_view(coordinates(rng, n, metric), metric)
    penalties = rng.normal(0.0, 20.0, n) if penalised else None  # LK's gain criterion reckons with them
    space = make_space(view, candidate_lists(view, source, k, seconds=0.001), penalties)
    state, scratch, active = new_tour(rng.permutation(n), 4096), new_scratch(n), new_active(n)
    scratch5 = kopt.new_scratch(n)
    length = tour_length(view.points, view.code, state.order)
    moves = {
        "2opt": lambda city: improve_2opt(space, state, active, city),
        "oropt": lambda city: improve_oropt(space, state, active, city),
        "lk": lambda city: improve_lk(space, state, active, scratch, city),
        "kopt": lambda city: kopt.improve_kopt(space, state, active, scratch5, city),
        "bridge": lambda city: improve_bridge(space, state, active, city, join3=True),
    }
    for _ in range(3 * n):
        name = list(moves)[int(rng.integers(len(moves)))]
        delta = moves[name](int(rng.integers(n)))
        assert delta <= 0.0
        assert is_valid(state)
        new_length = tour_length(view.points, view.code, state.order)
        assert new_length - length == pytest.approx(delta, abs=1e-9 * max(1.0, length))
        length = new_length


@pytest.mark.parametrize("slots", [1, 8, None], ids=["one-slot", "eight-slots", "default-size"])
def test_a_geo_length_read_through_the_cache_is_the_metrics_own(slots: int | None) -> None:
    """Pairs asked in random order, again and again, so that the cache both hits and evicts."""
    rng = np.random.default_rng(3)
    coords = coordinates(rng, 50, "GEO")
    view = coordinate_view(coords, "GEO")
    space = make_space(view, candidate_lists(view, "nearest", 5))
    assert space.cached_pairs.shape[0] >= 64 * view.n  # the default size (LENGTH_CACHE_PER_CITY)
    if slots is not None:
        space = space._replace(cached_pairs=np.full(slots, -1, dtype=np.int64), cached_lengths=np.zeros(slots))
    expected = distance_matrix(coords, "GEO")
    for i, j in rng.integers(0, view.n, (4000, 2)):
        assert edge_length(space, int(i), int(j)) == expected[i, j]
    assert (space.cached_pairs >= 0).any()  # the cache was used


def test_only_geo_instances_get_a_length_cache() -> None:
    rng = np.random.default_rng(4)
    for metric in ("EUCLIDEAN", "EUC_2D", "ATT"):
        view = coordinate_view(coordinates(rng, 30, metric), metric)
        assert make_space(view, candidate_lists(view, "nearest", 5)).cached_pairs.shape == (1,)


def is_one_tour(edges: list[frozenset[int]], n: int) -> bool:
    """Whether the n edges (a multiset) form a single cycle through all n cities."""
    if any(len(edge) != 2 for edge in edges) or len(set(edges)) != n:
        return False
    neighbours: dict[int, list[int]] = {city: [] for city in range(n)}
    for a, b in map(tuple, edges):
        neighbours[a].append(b)
        neighbours[b].append(a)
    if any(len(near) != 2 for near in neighbours.values()):
        return False
    previous, city, seen = -1, 0, 0
    while True:
        previous, city = city, next(c for c in neighbours[city] if c != previous)
        seen += 1
        if city == 0:
            return seen == n


@settings(max_examples=300, deadline=None)
@given(n=st.integers(6, 16), k=st.integers(2, 5), seed=st.integers(0, 2**16))
def test_a_kopt_move_is_a_tour_exactly_when_its_walk_says_so_and_is_made_as_it_says(n: int, k: int, seed: int) -> None:
    """Sequential moves of k random tour edges: the segment walk agrees with the edge sets, and a
    move it accepts is made with exactly the edges it removes and adds."""
    rng = np.random.default_rng(seed)
    state = new_tour(rng.permutation(n), 4096)
    t = np.zeros(2 * kopt.K + 1, dtype=np.int64)
    removed: set[frozenset[int]] = set()
    for i in range(1, k + 1):
        while True:
            a = int(rng.integers(n))
            b = int(state.order[(state.pos[a] + rng.choice([1, -1])) % n])
            if frozenset((a, b)) not in removed:
                break
        removed.add(frozenset((a, b)))
        t[2 * i - 1], t[2 * i] = a, b
    added = [frozenset((int(t[2 * i]), int(t[2 * i + 1]))) for i in range(1, k)] + [
        frozenset((int(t[2 * k]), int(t[1])))
    ]
    expected = [edge for edge in tour_edges(state.order) if edge not in removed] + added
    work = np.zeros(8 * kopt.K, dtype=np.int64)
    feasible = kopt._walk(state.order, state.pos, t, k, work)
    assert feasible == is_one_tour(expected, n)
    if feasible:
        kopt._make(state, k, work)
        assert is_valid(state)
        assert tour_edges(state.order) == set(expected)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 40), first=st.integers(0, 39), last=st.integers(0, 39), seed=st.integers(0, 2**16))
def test_a_reversal_flips_the_stretch_wrapping_or_not_and_a_second_one_restores_it(
    n: int, first: int, last: int, seed: int
) -> None:
    first, last = first % n, last % n
    state = new_tour(np.random.default_rng(seed).permutation(n))
    before = state.order.copy()
    stretch = [(first + i) % n for i in range((last - first) % n + 1)]
    expected = before.copy()
    expected[stretch] = before[stretch[::-1]]
    reverse(state, first, last)
    assert is_valid(state)
    assert tour_edges(state.order) == tour_edges(expected)
    reverse(state, first, last)
    np.testing.assert_array_equal(state.order, before)


@pytest.mark.parametrize("kick", [segment_double_bridge, long_edge_double_bridge])
@settings(max_examples=30, deadline=None)
@given(n=st.integers(8, 60), metric=st.sampled_from(METRICS), seed=st.integers(0, 2**16))
def test_kicks_claim_their_change_and_the_journal_undoes_them_exactly(
    kick: Callable[..., float], n: int, metric: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    view = coordinate_view(coordinates(rng, n, metric), metric)
    space = make_space(view, candidate_lists(view, "nearest", 6))
    state, active = new_tour(rng.permutation(n), 4096), new_active(n)
    seed_kicks(seed)
    for _ in range(10):
        commit(state)
        before = state.order.copy()
        length = tour_length(view.points, view.code, state.order)
        delta = kick(space, state, active, 30)
        assert is_valid(state)
        assert tour_length(view.points, view.code, state.order) - length == pytest.approx(delta, abs=1e-9 * length)
        mark = journal_length(state)
        undo(state, 0)
        np.testing.assert_array_equal(state.order, before)
        assert mark >= (1 if delta else 0)


def test_a_long_edge_kick_cuts_long_edges() -> None:
    rng = np.random.default_rng(5)
    n = 2000
    view = coordinate_view(rng.random((n, 2)), "EUCLIDEAN")
    space = make_space(view, candidate_lists(view, "nearest", 6))
    order = rng.permutation(n)
    edge_lengths = np.linalg.norm(view.points[order] - view.points[np.roll(order, -1)], axis=1)
    median = float(np.median(edge_lengths))
    seed_kicks(5)
    for _ in range(20):
        state, active = new_tour(order.copy(), 4096), new_active(n)
        long_edge_double_bridge(space, state, active, 30)
        cut = tour_edges(order) - tour_edges(state.order)
        assert len(cut) == 4
        cut_lengths = [float(np.linalg.norm(view.points[a] - view.points[b])) for a, b in map(tuple, cut)]
        assert min(cut_lengths) > median  # each cut is the longest of 32 random edges


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 60), metric=st.sampled_from(METRICS), longest=st.integers(2, 60), seed=st.integers(0, 2**16))
def test_merging_two_tours_gives_a_tour_as_short_as_it_claims_and_no_longer_than_the_first(
    n: int, metric: str, longest: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    view = coordinate_view(coordinates(rng, n, metric), metric)
    space = make_space(view, candidate_lists(view, "nearest", 6))
    first = rng.permutation(n)
    state, active = new_tour(first.copy(), 4096), new_active(n)
    seed_kicks(seed)
    for _ in range(int(rng.integers(1, 4))):  # the second tour: the first, kicked and improved in places
        segment_double_bridge(space, state, active, 30)
        for city in rng.integers(0, n, 5):
            improve_2opt(space, state, active, int(city))
    child = np.empty(n, dtype=np.int64)
    gain = merge_tours(view.points, view.code, first, state.order, longest, new_merge_work(n), child)
    assert sorted(child.tolist()) == list(range(n))
    length = tour_length(view.points, view.code, first)
    assert gain >= 0.0
    assert tour_length(view.points, view.code, child) == pytest.approx(length - gain, abs=1e-9 * length)
    same = np.empty(n, dtype=np.int64)
    assert merge_tours(view.points, view.code, first, first, longest, new_merge_work(n), same) == 0.0
    assert tour_length(view.points, view.code, same) == pytest.approx(length)


def brute_force_alpha(matrix: np.ndarray, special: int) -> np.ndarray:
    """α(i, j) by definition: the length of the minimum 1-tree (special node fixed) forced to hold
    (i, j), minus the minimum 1-tree's; spanning trees by Kruskal on the other nodes."""
    n = len(matrix)
    others = [v for v in range(n) if v != special]

    def spanning_tree(forced: tuple[int, int] | None) -> float:
        root = list(range(n))

        def find(v: int) -> int:
            while root[v] != v:
                v = root[v]
            return v

        edges = sorted((matrix[a, b], a, b) for a, b in itertools.combinations(others, 2))
        total = 0.0
        if forced is not None:
            root[find(forced[0])] = find(forced[1])
            total += matrix[forced]
        for weight, a, b in edges:
            if find(a) != find(b):
                root[find(a)] = find(b)
                total += weight
        return total

    special_edges = sorted(matrix[special, v] for v in others)
    best = spanning_tree(None) + special_edges[0] + special_edges[1]
    alpha = np.zeros((n, n))
    for i, j in itertools.permutations(range(n), 2):
        if special in (i, j):
            other = j if i == special else i
            forced = spanning_tree(None) + matrix[special, other]
            forced += special_edges[0] if matrix[special, other] != special_edges[0] else special_edges[1]
        else:
            forced = spanning_tree((i, j)) + special_edges[0] + special_edges[1]
        alpha[i, j] = forced - best
    return alpha


@pytest.mark.parametrize("dense", [True, False], ids=["complete-graph-path", "sparse-graph-path"])
@pytest.mark.parametrize("seed", range(6))
def test_alpha_nearness_equals_brute_force(seed: int, dense: bool) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 11))
    view = coordinate_view(rng.random((n, 2)), "EUCLIDEAN")
    pi = rng.normal(0.0, 0.05, n) if seed % 2 else np.zeros(n)
    graph, work = _build_graphs(view)[0]._replace(dense=dense), _Work.new(n)  # the complete graph either way
    _one_tree(graph, pi, work)
    computed = np.zeros((n, n))
    for i in range(n):
        for e in range(graph.indptr[i], graph.indptr[i + 1]):
            computed[i, graph.indices[e]] = alpha_values(graph, pi, work)[e]
    transformed = distance_matrix(view.points, "EUCLIDEAN") + pi[:, None] + pi[None, :]
    expected = brute_force_alpha(transformed, int(work.special[0]))
    np.testing.assert_allclose(computed, expected, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_sparse_graph_rows_are_each_citys_partners_both_ways_sorted_once(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    neighbours = rng.integers(-1, n, (n, int(rng.integers(1, 6))))  # -1: none; repeats and self-free below
    neighbours[neighbours == np.arange(n)[:, None]] = -1
    links = rng.integers(0, n, (int(rng.integers(0, 4)), 2))
    links = links[links[:, 0] != links[:, 1]]
    partners: list[set[int]] = [set() for _ in range(n)]
    pairs = [(city, int(other)) for city in range(n) for other in neighbours[city] if other >= 0]
    for a, b in pairs + links.tolist():
        partners[a].add(b)
        partners[b].add(a)
    indptr, indices = _symmetric_rows(neighbours, links)
    assert [indices[indptr[i] : indptr[i + 1]].tolist() for i in range(n)] == [sorted(row) for row in partners]


@pytest.mark.parametrize("metric", ["EUC_2D", "GEO", "MAN_2D", "EUC_3D"])
def test_alpha_candidates_from_nearest_cities_found_before_are_the_same(metric: str) -> None:
    """On the sparse graph, which every coordinate metric takes at 300 cities."""
    rng = np.random.default_rng(7)
    coords = rng.random((300, 3 if metric == "EUC_3D" else 2)) * (60.0 if metric == "GEO" else 1000.0)
    view = coordinate_view(coords, metric)
    assert not _build_graphs(view)[0].dense
    pi = rng.normal(0.0, 1.0, 300)
    own = alpha_candidates(view, 8, 0.0, penalties=pi)
    shared = alpha_candidates(view, 8, 0.0, penalties=pi, neighbours=nearest_neighbours(view, RANK_NEAREST + 4))
    np.testing.assert_array_equal(own.candidates, shared.candidates)


def test_sparse_candidates_are_the_alpha_best_of_a_wider_pool_than_the_trees_graph() -> None:
    """Above the complete graph's size the 1-trees see each city's GRAPH_NEAREST nearest (and its
    quadrant neighbours), but its candidates are the α-best of its RANK_NEAREST nearest, α being
    a pair's π-length less the heaviest edge on the tree path between them."""
    rng = np.random.default_rng(6)
    n = 400
    view = coordinate_view(rng.random((n, 2)), "EUCLIDEAN")
    result = alpha_candidates(view, 8, seconds=0.05)
    pi = result.penalties
    graph, work = _build_graphs(view)[0], _Work.new(n)
    assert not graph.dense and GRAPH_NEAREST < RANK_NEAREST
    _one_tree(graph, pi, work)
    lengths = distance_matrix(view.points, "EUCLIDEAN") + pi[:, None] + pi[None, :]
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for child, parent in enumerate(work.parent):
        if parent >= 0:
            neighbours[child].append(int(parent))
            neighbours[int(parent)].append(child)
    alpha = np.zeros((n, n))
    for start in range(n):  # the heaviest edge on the tree path from `start` to every city
        heaviest, stack = {start: -np.inf}, [start]  # π may make tree edges negative
        while stack:
            city = stack.pop()
            for other in neighbours[city]:
                if other not in heaviest:
                    heaviest[other] = max(heaviest[city], lengths[city, other])
                    stack.append(other)
        alpha[start] = np.maximum(0.0, lengths[start] - np.array([heaviest[j] for j in range(n)]))
    special = int(work.special[0])
    nearest = np.argsort(distance_matrix(view.points, "EUCLIDEAN"), axis=1)[:, 1 : RANK_NEAREST + 1]
    beyond_the_trees_graph = 0
    for i in range(n):
        chosen = [int(c) for c in result.candidates[i] if c != special]
        if i == special or not chosen:
            continue
        worst_chosen = max(alpha[i, c] for c in chosen)
        for j in nearest[i]:
            if j != special and j not in chosen:
                assert alpha[i, j] >= worst_chosen - 1e-9
        beyond_the_trees_graph += sum(c in nearest[i][GRAPH_NEAREST:] for c in chosen)
    assert beyond_the_trees_graph > 0  # some candidates come from outside the trees' nearest


def test_ascent_raises_the_lower_bound_and_keeps_below_a_tour() -> None:
    rng = np.random.default_rng(3)
    view = coordinate_view(rng.random((300, 2)), "EUCLIDEAN")
    without = alpha_candidates(view, 5, seconds=0.0)
    with_ascent = alpha_candidates(view, 5, seconds=0.2)
    tour_bound = tour_length(view.points, view.code, construct(view, "greedy-edge"))
    assert without.lower_bound < with_ascent.lower_bound < tour_bound
    assert with_ascent.iterations > without.iterations
    assert with_ascent.candidates.shape == (300, 5) and (with_ascent.candidates >= 0).all()


def test_a_more_patient_ascent_halves_its_step_later_and_makes_more_trees() -> None:
    rng = np.random.default_rng(5)
    view = coordinate_view(rng.random((150, 2)), "EUCLIDEAN")
    hasty = alpha_candidates(view, 5, seconds=30.0, patience=1)  # both converge long before 30 s
    patient = alpha_candidates(view, 5, seconds=30.0, patience=40)
    tour_bound = tour_length(view.points, view.code, construct(view, "greedy-edge"))
    assert hasty.iterations < patient.iterations
    assert max(hasty.lower_bound, patient.lower_bound) < tour_bound


def test_a_traced_ascent_stops_when_its_trace_is_full_and_records_the_best_bound_so_far() -> None:
    rng = np.random.default_rng(6)
    view = coordinate_view(rng.random((200, 2)), "EUCLIDEAN")
    graph, work, pi = _build_graphs(view)[0], _Work.new(view.n), np.zeros(view.n)
    start_bound = _one_tree(graph, pi.copy(), _Work.new(view.n))
    upper = tour_length(view.points, view.code, construct(view, "greedy-edge"))
    trace = np.full(30, np.nan)
    bound, trees = _ascent(graph, pi, work, np.inf, upper, ASCENT_PATIENCE, 0.5, trace)
    assert trees == 31  # 30 traced trees and the last one of the best π
    assert trace[0] == start_bound
    assert (np.diff(trace) >= 0).all() and trace[-1] > start_bound
    assert bound == pytest.approx(trace[-1])


def test_penalties_given_are_used_as_they_are() -> None:
    rng = np.random.default_rng(4)
    view = coordinate_view(rng.random((200, 2)), "EUCLIDEAN")
    learned = alpha_candidates(view, 5, seconds=0.2)
    again = alpha_candidates(view, 5, seconds=0.0, penalties=learned.penalties)
    assert again.lower_bound == pytest.approx(learned.lower_bound)
    np.testing.assert_array_equal(again.candidates, learned.candidates)
    with pytest.raises(InputError, match="penalties"):
        alpha_candidates(view, 5, seconds=0.0, penalties=np.zeros(3))


@pytest.mark.parametrize("metric", ["EUCLIDEAN", "MAN_2D", "MAX_2D"])
def test_quadrant_candidates_hold_the_nearest_city_of_each_quadrant(metric: str) -> None:
    rng = np.random.default_rng(5)
    centres = ((0, 0), (1, 0), (0, 1), (1, 1))
    clusters = np.concatenate([rng.normal(centre, 0.01, (50, 2)) for centre in centres]) * 10_000
    view = coordinate_view(clusters, metric)
    candidates = quadrant_neighbours(view, 8)
    lengths = distance_matrix(clusters, metric)
    for i in range(0, len(clusters), 7):
        offsets = clusters - clusters[i]
        for quadrant in range(4):
            right, up = quadrant >= 2, quadrant % 2 == 1
            inside = ((offsets[:, 0] > 0) == right) & ((offsets[:, 1] > 0) == up)
            inside[i] = False
            if inside.any():
                assert int(np.argmin(np.where(inside, lengths[i], np.inf))) in candidates[i]


def test_quadrants_on_the_sphere_are_the_nearest_by_angle_east_or_west_and_north_or_south() -> None:
    rng = np.random.default_rng(6)
    view = coordinate_view(coordinates(rng, 120, "GEO"), "GEO")  # latitude and longitude in radians
    lat, long = view.points[:, 0], view.points[:, 1]
    unit = np.column_stack([np.cos(lat) * np.cos(long), np.cos(lat) * np.sin(long), np.sin(lat)])
    per = 2
    found = quadrants_on_sphere(view.points, per)
    for i in range(view.n):
        east = np.array([-np.sin(long[i]), np.cos(long[i]), 0.0])
        north = np.array([-np.sin(lat[i]) * np.cos(long[i]), -np.sin(lat[i]) * np.sin(long[i]), np.cos(lat[i])])
        angle = np.arccos(np.clip(unit @ unit[i], -1.0, 1.0))
        for quadrant in range(4):
            inside = ((unit @ east > 0) == (quadrant >= 2)) & ((unit @ north > 0) == (quadrant % 2 == 1))
            inside[i] = False
            expected = np.argsort(np.where(inside, angle, np.inf), kind="stable")[: min(per, inside.sum())]
            row = found[i, quadrant * per : (quadrant + 1) * per]
            assert sorted(row[row >= 0].tolist()) == sorted(expected.tolist())


def test_geo_quadrant_candidates_hold_each_quadrants_nearest_on_the_sphere() -> None:
    rng = np.random.default_rng(7)
    coords = coordinates(rng, 80, "GEO")
    view = coordinate_view(coords, "GEO")
    candidates = quadrant_neighbours(view, 8)
    by_quadrant = quadrants_on_sphere(view.points, 2)
    lengths = distance_matrix(coords, "GEO")
    for city, row in enumerate(candidates):
        assert set(by_quadrant[city][by_quadrant[city] >= 0]) <= set(row)
        assert (np.diff(lengths[city, row]) >= 0).all()  # nearest first


@pytest.mark.parametrize("name", CONSTRUCTIONS)
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("n", [3, 4, 9, 300])
def test_constructions_give_permutations(name: str, metric: str, n: int) -> None:
    view = coordinate_view(coordinates(np.random.default_rng(n), n, metric), metric)
    tour = construct(view, name, seed=1)
    assert tour.dtype == np.int64 and sorted(tour.tolist()) == list(range(n))


@pytest.mark.parametrize("metric", METRICS)
def test_complete_nearest_follows_the_prefix_then_the_nearest_unvisited_city(metric: str) -> None:
    n = 40
    view = coordinate_view(coordinates(np.random.default_rng(8), n, metric), metric)
    prefixes = np.array([[7, 3, 31], [0, 39, 20]])
    tours = complete_nearest(view, prefixes)
    assert tours.shape == (2, n) and tours[:, :3].tolist() == prefixes.tolist()
    for tour in tours:
        assert sorted(tour.tolist()) == list(range(n))
        for step in range(2, n - 1):
            here, left = tour[step], tour[step + 1 :]
            lengths = [dist(view.points, view.code, here, city) for city in left]
            assert dist(view.points, view.code, here, tour[step + 1]) == min(lengths)


def test_greedy_and_space_filling_tours_are_far_shorter_than_random_ones() -> None:
    view = coordinate_view(np.random.default_rng(6).random((2000, 2)), "EUCLIDEAN")
    lengths = {name: tour_length(view.points, view.code, construct(view, name)) for name in CONSTRUCTIONS}
    assert lengths["greedy-edge"] < lengths["nearest"] < lengths["random"] / 10
    assert lengths["space-filling"] < lengths["random"] / 10


@pytest.mark.parametrize("dimensions", [2, 3])
@pytest.mark.parametrize("corner", [0, 40_000])
def test_the_hilbert_curves_fill_each_aligned_block_of_cells_in_one_stretch_of_neighbouring_steps(
    dimensions: int, corner: int
) -> None:
    """The cells of an aligned block of side 8 hold consecutive indices, each a step to a
    neighbouring cell from the last: the property that makes the curve a short tour."""
    block = np.stack(np.meshgrid(*[np.arange(8)] * dimensions, indexing="ij"), -1).reshape(-1, dimensions)
    cells = (corner + block).astype(np.int64)
    index = _hilbert_index(cells[:, 0], cells[:, 1]) if dimensions == 2 else _hilbert_index_3d(cells)
    assert sorted(index - index.min()) == list(range(8**dimensions))
    steps = np.abs(np.diff(cells[np.argsort(index)], axis=0)).sum(axis=1)
    assert (steps == 1).all()


def hilbert_index_by_turning(x: int, y: int) -> int:
    """The order-16 Hilbert index of cell (x, y) as the textbook computes it: the coordinates
    themselves reflected and swapped at each level."""
    d, s = 0, 1 << 15
    while s > 0:
        rx, ry = int(x & s > 0), int(y & s > 0)
        d += s * s * ((3 * rx) ^ ry)
        if ry == 0:
            if rx == 1:
                x, y = 65535 - x, 65535 - y
            x, y = y, x
        s >>= 1
    return d


def test_the_hilbert_index_kept_as_turn_bits_equals_the_textbook_one() -> None:
    cells = np.random.default_rng(3).integers(0, 65536, (300, 2))
    cells[:4] = [[0, 0], [65535, 65535], [0, 65535], [65535, 0]]
    expected = [hilbert_index_by_turning(int(x), int(y)) for x, y in cells]
    assert _hilbert_index(cells[:, 0], cells[:, 1]).tolist() == expected


@pytest.mark.parametrize("high", [1, 5, 1 << 32, 1 << 48])
def test_the_curve_order_is_the_stable_argsort_with_or_without_room_for_packed_keys(high: int) -> None:
    """Few distinct values (many ties kept in position order) and values too wide to share 63 bits
    with a position (the plain stable argsort then)."""
    index = np.random.default_rng(high % 97).integers(0, high, 5000, dtype=np.int64)
    expected = np.argsort(index, kind="stable")
    order = _stable_order(index.copy())
    assert order.dtype == np.int64 and np.array_equal(order, expected)


def test_the_curve_cells_span_the_widest_axis_and_keep_the_last_cell() -> None:
    points = np.array([[0.0, 10.0], [4.0, 10.0], [2.0, 12.0], [1.0, 11.0]])
    assert _curve_cells(points).tolist() == [[0, 0], [65535, 0], [32767, 32767], [16383, 16383]]
    assert _curve_cells(np.ones((3, 3))).tolist() == [[0, 0, 0]] * 3


def test_the_space_filling_tour_of_cities_in_a_cube_follows_the_3d_curve() -> None:
    view = coordinate_view(np.random.default_rng(6).uniform(0, 1000, (3000, 3)), "EUC_3D")
    lengths = {name: tour_length(view.points, view.code, construct(view, name)) for name in ("random", "greedy-edge")}
    curve = tour_length(view.points, view.code, construct(view, "space-filling"))
    flat = tour_length(
        view.points, view.code, np.argsort(_hilbert_index(*(view.points[:, :2] * 65).astype(np.int64).T))
    )
    assert curve < 1.6 * lengths["greedy-edge"] and curve < flat / 2 and curve < lengths["random"] / 5


@pytest.mark.parametrize("metric", ["EUC_2D", "GEO", "EXPLICIT"])
def test_greedy_paths_joined_in_rounds_between_their_ends_keep_every_greedy_edge(metric: str, monkeypatch) -> None:
    """Past `JOIN_SCAN_PATHS` paths, greedy edges between the paths' free ends join them first:
    the tour still holds every edge the candidate edges gave, and joins no worse than the scan."""
    rng = np.random.default_rng(8)
    coords = rng.random((400, 2)) * (60.0 if metric == "GEO" else 1000.0)
    view = coordinate_view(coords, "GEO" if metric == "GEO" else "EUC_2D")
    if metric == "EXPLICIT":
        view = DistanceView(distance_matrix(coords, "EUC_2D"), EXPLICIT)
    neighbours = nearest_neighbours(view, 10)
    links, degree = np.full((400, 2), -1, dtype=np.int64), np.zeros(400, dtype=np.int64)
    assert _add_greedily(view.points, view.code, np.arange(400), neighbours, links, degree, np.arange(400)) > 0
    fragments = {frozenset((city, int(other))) for city in range(400) for other in links[city] if other >= 0}
    scanned = construct(view, "greedy-edge")
    monkeypatch.setattr(construct_module, "JOIN_SCAN_PATHS", 1)
    joined = construct(view, "greedy-edge")
    assert sorted(joined.tolist()) == list(range(400))
    assert fragments <= tour_edges(joined) and fragments <= tour_edges(scanned)
    assert tour_length(view.points, view.code, joined) <= 1.02 * tour_length(view.points, view.code, scanned)


def test_unknown_names_raise_input_errors() -> None:
    view = coordinate_view(np.random.default_rng(7).random((10, 2)), "EUCLIDEAN")
    with pytest.raises(InputError, match="greedy-edge"):
        construct(view, "christofides")
    with pytest.raises(InputError, match="alpha"):
        candidate_lists(view, "delaunay")
    with pytest.raises(InputError, match="candidates-k"):
        candidate_lists(view, "alpha", 0)


def lk_optimum(seed: int, n: int = 60) -> tuple[DistanceView, Space, Tour, Active]:
    """A random instance of n cities, its space with 8 nearest, and a tour no LK step improves."""
    rng = np.random.default_rng(seed)
    view = coordinate_view(rng.random((n, 2)), "EUCLIDEAN")
    space = make_space(view, candidate_lists(view, "nearest", 8))
    state, scratch, active = new_tour(rng.permutation(n), 4096), new_scratch(n), new_active(n)
    while sum(improve_lk(space, state, active, scratch, city) for city in range(n)) < 0.0:
        commit(state)
    assert all(improve_lk(space, state, active, scratch, city) == 0.0 for city in range(n))
    return view, space, state, active


def test_a_bridge_move_shortens_a_tour_no_lin_kernighan_step_improves() -> None:
    view, space, state, active = lk_optimum(5)  # an instance where it does (seeds 0..39: 5, 28, 33)
    length = tour_length(view.points, view.code, state.order)
    deltas = [improve_bridge(space, state, active, city, join3=True) for city in range(len(state.order))]
    assert min(deltas) < 0.0
    assert is_valid(state)
    assert tour_length(view.points, view.code, state.order) - length == pytest.approx(sum(deltas))


@pytest.mark.parametrize("join3", [False, True])
def test_only_a_3opt_join_makes_a_five_edge_move(join3: bool) -> None:
    view, space, state, active = lk_optimum(4)  # an instance where one does (seeds 0..39: 4, 28)
    changed = []
    for city in range(len(state.order)):
        before, length = state.order.copy(), tour_length(view.points, view.code, state.order)
        delta = improve_bridge(space, state, active, city, join3)
        commit(state)
        if delta < 0.0:
            assert is_valid(state)
            assert tour_length(view.points, view.code, state.order) - length == pytest.approx(delta)
            changed.append(len(tour_edges(before) - tour_edges(state.order)))
    assert (5 in changed) == join3  # a split (two edges) and a 3-opt join (three), none given back


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 60), seed=st.integers(0, 2**16))
def test_bridge_moves_from_a_local_optimum_keep_a_valid_tour_and_the_length_they_claim(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    view = coordinate_view(rng.random((n, 2)), "EUCLIDEAN")
    space = make_space(view, candidate_lists(view, "nearest", 8))
    state, scratch, active = new_tour(rng.permutation(n), 4096), new_scratch(n), new_active(n)
    for _ in range(4):
        for city in range(n):
            improve_lk(space, state, active, scratch, city)
        commit(state)
    length = tour_length(view.points, view.code, state.order)
    for city in range(n):
        delta = improve_bridge(space, state, active, city, join3=True)
        assert delta <= 0.0
        assert is_valid(state)
        new_length = tour_length(view.points, view.code, state.order)
        assert new_length - length == pytest.approx(delta, abs=1e-9)
        length = new_length


def test_the_search_kernels_are_compiled_without_reference_counting() -> None:
    """The kicks' loop and every move it makes are `amsolve.search.kernel` kernels (numba's
    `_nrt=False`): compiled with `njit` instead, they keep the same results and lose a quarter of
    their speed, which no other test would notice."""
    kernels = (local_search._kicks, local_search._drain, local_search._examine, local_search.kick)
    kernels += (improve_lk, improve_bridge, improve_2opt, improve_oropt, kopt.improve_kopt, merge_tours, _one_tree)
    assert all(function.targetoptions.get("_nrt") is False for function in kernels)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("n", [3, 8, 11, 200])
def test_window_candidates_are_a_citys_neighbours_along_the_tour_nearest_first(metric: str, n: int) -> None:
    rng = np.random.default_rng(n)
    view = coordinate_view(coordinates(rng, n, metric), metric)
    tour = rng.permutation(n)
    width = min(WINDOW_WIDTH, (n - 1) // 2)
    rows = window_candidates(view, tour)
    assert rows.shape == (n, 2 * width)
    for p, city in enumerate(tour):
        around = [int(tour[(p + step) % n]) for step in range(-width, width + 1) if step]
        expected = sorted(around, key=lambda other: (dist(view.points, view.code, int(city), other), other))
        assert rows[city].tolist() == expected


def test_added_edges_are_remembered_within_a_step_only() -> None:
    from amsolve.search.moves.added import add_edge, begin_step, new_added_edges, was_added

    added = new_added_edges(6)
    begin_step(added)
    add_edge(added, 0, 1)
    add_edge(added, 2, 0)  # a city's second added edge
    assert was_added(added, 0, 1) and was_added(added, 1, 0) and was_added(added, 0, 2) and was_added(added, 2, 0)
    assert not was_added(added, 1, 2) and not was_added(added, 0, 3) and not was_added(added, 4, 5)
    begin_step(added)
    assert not any(was_added(added, a, b) for a in range(6) for b in range(6))
    add_edge(added, 0, 4)  # the city's first edge of the new step replaces both of the last step's
    assert was_added(added, 4, 0) and not was_added(added, 0, 1) and not was_added(added, 0, 2)

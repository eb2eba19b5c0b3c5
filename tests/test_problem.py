"""Tests of the problem layer: TSPLIB distance rules, tour lengths and the Instance type."""

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from amsolve.errors import InputError, TourError
from amsolve.problem import (
    COORDINATE_DIMENSIONS,
    METRICS,
    Instance,
    distance_matrix,
    pair_distances,
    tour_length,
    tour_lengths,
    tour_problem,
)

PACKAGE = Path(__file__).resolve().parents[1] / "amsolve"


def reference_distance(p: tuple[float, ...], q: tuple[float, ...], metric: str) -> float:
    """One distance computed with scalar math straight from the TSPLIB95 documentation (oracle)."""
    if metric == "GEO":
        return geo_distance(p, q, pi=3.141592)
    dx, dy = abs(p[0] - q[0]), abs(p[1] - q[1])
    if metric == "MAN_2D":
        return float(int(dx + dy + 0.5))
    if metric == "MAX_2D":
        return float(max(int(dx + 0.5), int(dy + 0.5)))
    if metric == "EUC_3D":
        return float(int(math.sqrt(dx * dx + dy * dy + (p[2] - q[2]) ** 2) + 0.5))
    d = math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2)
    if metric == "EUC_2D":
        return float(int(d + 0.5))
    if metric == "CEIL_2D":
        return float(math.ceil(d))
    if metric == "ATT":
        r = math.sqrt(((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) / 10.0)
        t = int(r + 0.5)
        return float(t + 1 if t < r else t)
    return d


def geo_distance(p: tuple[float, float], q: tuple[float, float], pi: float) -> float:
    """TSPLIB's GEO distance with a given value of pi (TSPLIB: 3.141592; tsplib95: math.pi)."""

    def radians(x: float) -> float:
        degrees = int(x)
        return pi * (degrees + 5.0 * (x - degrees) / 3.0) / 180.0

    lat_p, lon_p, lat_q, lon_q = radians(p[0]), radians(p[1]), radians(q[0]), radians(q[1])
    q1 = math.cos(lon_p - lon_q)
    q2 = math.cos(lat_p - lat_q)
    q3 = math.cos(lat_p + lat_q)
    return float(int(6378.388 * math.acos(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)) + 1.0))


def square(**fields: object) -> Instance:
    """A 3 x 4 rectangle with ids 10, 20, 30, 40 (perimeter 14)."""
    coords = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 4.0], [0.0, 4.0]])
    return Instance(**{"name": "rect", "coords": coords, "metric": "EUC_2D", "ids": [10, 20, 30, 40], **fields})


# --- distances ------------------------------------------------------------------------------


def test_nint_rounds_halves_up() -> None:
    coords = np.array([[0.0, 0.0], [1.5, 2.0], [0.5, 0.0]])  # distances 2.5 and 0.5
    a, b = np.array([0, 0]), np.array([1, 2])
    assert pair_distances(coords, "EUC_2D", a, b).tolist() == [3.0, 1.0]
    assert pair_distances(coords, "CEIL_2D", a, b).tolist() == [3.0, 1.0]
    assert pair_distances(coords, "EUCLIDEAN", a, b).tolist() == [2.5, 0.5]


@pytest.mark.parametrize("metric", COORDINATE_DIMENSIONS)
def test_matrix_matches_the_scalar_rules(metric: str) -> None:
    rng = np.random.default_rng(7)
    if metric == "GEO":  # DDD.MM: latitude within +-90, longitude within +-180
        degrees = rng.integers([-89, -179], [90, 180], size=(25, 2))
        coords = degrees + np.sign(degrees) * rng.integers(0, 60, size=(25, 2)) / 100.0
    else:
        coords = np.round(rng.uniform(-1000, 1000, size=(25, COORDINATE_DIMENSIONS[metric])), 2)
        coords[:4] = [[0.0], [0.5], [1.5], [-1.0]]  # differences of 0.5 and 2.5: TSPLIB rounds halves up
    matrix = distance_matrix(coords, metric)
    expected = [
        [0.0 if i == j else reference_distance(coords[i], coords[j], metric) for j in range(25)] for i in range(25)
    ]
    assert matrix.dtype == np.float64
    np.testing.assert_array_equal(matrix, expected)
    np.testing.assert_array_equal(matrix, matrix.T)


def test_geo_uses_tsplib_pi_where_exact_pi_is_off_by_one() -> None:
    """gr96 nodes 3 and 95: TSPLIB's rule gives 9849, the exact pi (tsplib95 0.7.1) 9850."""
    p, q = (32.38, -16.54), (-20.10, 57.30)
    assert geo_distance(p, q, pi=math.pi) == 9850.0
    assert pair_distances(np.array([p, q]), "GEO", np.array([0]), np.array([1]))[0] == 9849.0


def test_geo_truncates_degrees() -> None:
    """38.59 is 38 degrees 59 minutes, one minute (2 km) from 39.00; with nint(38.59) = 39 it
    would read as 39 degrees minus 41 minutes, 77 km away (the TSPLIB95 DOC's error)."""
    coords = np.array([[38.59, 0.0], [39.0, 0.0]])
    assert pair_distances(coords, "GEO", np.array([0]), np.array([1]))[0] == 2.0


def test_geo_radians_in_blocks_equal_the_formula_in_one_go() -> None:
    """Converted in place block by block (`GEO_BLOCK_VALUES`), every value as TSPLIB's formula
    gives it, bit for bit: a last digit off could move a truncated distance by a kilometre."""
    from amsolve.problem.distance import GEO_BLOCK_VALUES, GEO_PI, geo_radians_in_place

    rng = np.random.default_rng(4)
    values = np.round(rng.uniform(-180.0, 180.0, (3 * GEO_BLOCK_VALUES + 7, 2)), rng.integers(0, 7))
    degrees = np.trunc(values)
    expected = GEO_PI * (degrees + 5.0 * (values - degrees) / 3.0) / 180.0
    converted = values.copy()
    assert geo_radians_in_place(converted) is converted
    assert np.array_equal(converted, expected)


@pytest.mark.parametrize("metric", METRICS)
def test_a_city_is_at_distance_zero_from_itself(metric: str) -> None:
    coords = np.array([[16.47, 96.10, 1.0], [16.47, 94.44, 2.0], [20.09, 92.54, 3.0]])
    points = np.ones((3, 3)) if metric == "EXPLICIT" else coords[:, : COORDINATE_DIMENSIONS[metric]]
    assert pair_distances(points, metric, np.arange(3), np.arange(3)).tolist() == [0.0] * 3


def test_explicit_distances_are_the_matrix_entries() -> None:
    matrix = np.array([[0, 3, 7, 2], [3, 0, 4, 9], [7, 4, 0, 5], [2, 9, 5, 0]], dtype=np.int32)
    a, b = np.array([[0, 1], [3, 2]]), np.array([[2, 3], [0, 2]])
    distances = pair_distances(matrix, "EXPLICIT", a, b)
    assert distances.dtype == np.float64 and distances.tolist() == [[7.0, 9.0], [2.0, 0.0]]
    np.testing.assert_array_equal(distance_matrix(matrix, "EXPLICIT"), matrix)
    assert tour_lengths(matrix, "EXPLICIT", np.array([[0, 1, 2, 3], [0, 2, 1, 3]])).tolist() == [14.0, 22.0]


def test_pair_distances_keeps_the_index_shape() -> None:
    coords = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    a = np.array([[0, 1], [2, 0]])
    b = np.array([[1, 2], [0, 2]])
    assert pair_distances(coords, "EUC_2D", a, b).tolist() == [[5.0, 5.0], [10.0, 10.0]]


def test_unknown_metric_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="MANHATTAN"):
        pair_distances(np.zeros((3, 2)), "MANHATTAN", np.array([0]), np.array([1]))


def test_tour_lengths_close_the_tour() -> None:
    coords = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 4.0], [0.0, 4.0]])
    tours = np.array([[0, 1, 2, 3], [0, 2, 1, 3]])
    assert tour_lengths(coords, "EUC_2D", tours).tolist() == [14.0, 18.0]
    assert tour_length(coords, "EUCLIDEAN", np.array([0, 1, 2, 3])) == 14.0


@settings(max_examples=30, deadline=None)
@given(
    coords=arrays(np.float64, (12, 2), elements=st.floats(0, 1e6, allow_subnormal=False)),
    seed=st.integers(0, 2**32 - 1),
    metric=st.sampled_from(["EUC_2D", "CEIL_2D", "ATT", "EUCLIDEAN"]),
)
def test_tour_length_ignores_start_and_direction(coords: np.ndarray, seed: int, metric: str) -> None:
    tour = np.random.default_rng(seed).permutation(12)
    variants = np.stack([tour, np.roll(tour, 5), tour[::-1]])
    lengths = tour_lengths(coords, metric, variants)
    np.testing.assert_allclose(lengths, lengths[0], rtol=1e-12)
    if metric != "EUCLIDEAN":
        assert (lengths == np.round(lengths)).all() and len(set(lengths.tolist())) == 1


# --- tour checks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tour_ids", "expected"),
    [
        ([1, 2, 3], None),
        ([3, 1, 2], None),
        ([1, 2], "tour has 2 cities, expected 3; never visits city 3"),
        ([1, 2, 2], "tour visits city 2 more than once; never visits city 3"),
        ([1, 2, 3, 1], "tour has 4 cities, expected 3; visits city 1 more than once"),
        ([1, 2, 9], "tour visits city 9, which the instance does not have"),
        ([[1, 2, 3]], "tour must be a flat sequence of cities, got shape (1, 3)"),
    ],
)
def test_tour_problem_names_cities_by_id(tour_ids: list, expected: str | None) -> None:
    assert tour_problem(np.array(tour_ids), np.array([1, 2, 3])) == expected


@pytest.mark.parametrize(
    ("tour", "message"),
    [
        ([0, 1, 2], "rect: tour has 3 cities, expected 4; never visits city 40"),
        ([0, 1, 2, 4], "rect: tour entry 4 is not a city index 0..3"),
        ([0, -1, 2, 3], "rect: tour entry -1 is not a city index 0..3"),
        ([0, 1, 1, 3], "rect: tour visits city 20 more than once; never visits city 30"),
        ([0.0, 1.0, 2.0, 3.0], "rect: a tour must be a 1-D integer array, got float64 (4,)"),
    ],
)
def test_validate_tour_says_what_is_wrong(tour: list, message: str) -> None:
    with pytest.raises(TourError) as info:
        square().validate_tour(np.array(tour))
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("tour", "expected"),
    [
        ([2, 0, 3, 1], True),
        ([2, 0, 2, 1], False),
        ([2, 0, 4, 1], False),
        ([2, 0, -1, 1], False),
        ([2, 0, 1], False),
        ([[2, 0, 3, 1]], False),
        ([2.0, 0.0, 3.0, 1.0], False),
    ],
)
def test_is_permutation(tour: list, expected: bool) -> None:
    from amsolve.problem.instance import is_permutation

    assert is_permutation(np.array(tour), 4) is expected


def test_rows_are_permutations_as_a_sort_of_each_row_says() -> None:
    """Rows out of range, with repeats, missing cities, or permutations, mixed in one array."""
    from amsolve.problem.instance import _rows_are_permutations

    rng = np.random.default_rng(5)
    for _ in range(500):
        n, k = int(rng.integers(1, 8)), int(rng.integers(1, 5))
        tours = rng.integers(-1, n + 1, (k, n))
        tours[rng.random(k) < 0.5] = rng.permutation(n)
        expected = (np.sort(tours, axis=1) == np.arange(n)).all(axis=1)
        assert _rows_are_permutations(tours, n).tolist() == expected.tolist()


def test_validate_tour_returns_int64() -> None:
    tour = square().validate_tour(np.array([3, 2, 1, 0], dtype=np.int32))
    assert tour.dtype == np.int64 and tour.tolist() == [3, 2, 1, 0]


def test_check_permutations_names_the_first_bad_row() -> None:
    from amsolve.problem.instance import check_permutations

    tours = check_permutations(np.array([[0, 1, 2, 3], [1, 3, 0, 2]], dtype=np.int32), 4)
    assert tours.dtype == np.int64 and tours.flags.c_contiguous and tours.tolist()[1] == [1, 3, 0, 2]
    with pytest.raises(TourError, match=r"tours\[1\] is not a permutation of the 4 cities"):
        check_permutations(np.array([[0, 1, 2, 3], [0, 0, 1, 2]]), 4)
    with pytest.raises(TourError, match=r"integer array \(k, 4\)"):
        check_permutations(np.array([[0, 1, 2]]), 4)
    with pytest.raises(TourError, match=r"integer array \(k, 4\)"):
        check_permutations(np.array([0, 1, 2, 3]), 4)


def test_tour_length_validates_first() -> None:
    assert square().tour_length(np.array([0, 1, 2, 3])) == 14.0
    with pytest.raises(TourError):
        square().tour_length(np.array([0, 1, 2, 2]))


def test_ids_and_positions_map_both_ways() -> None:
    instance = square()
    assert instance.tour_ids(np.array([2, 0, 3, 1])) == [30, 10, 40, 20]
    assert instance.positions_from_ids([30, 10, 40, 20]).tolist() == [2, 0, 3, 1]
    with pytest.raises(TourError, match="rect: unknown city id 25"):
        instance.positions_from_ids([10, 25])
    with pytest.raises(TourError, match="unknown city id 99"):
        instance.positions_from_ids([99])


# --- Instance -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"coords": np.zeros((4, 3))}, "rect: coordinates must have shape (n, 2), got (4, 3)"),
        ({"coords": np.zeros((2, 2)), "ids": [1, 2]}, "rect: needs at least 3 cities, got 2"),
        ({"ids": [1, 2, 3]}, "rect: need 4 integer city ids, got int64 (3,)"),
        ({"ids": [1.0, 2.0, 3.0, 4.0]}, "rect: need 4 integer city ids, got float64 (4,)"),
        ({"ids": [7, 8, 7, 9]}, "rect: duplicate city id 7"),
        ({"metric": "MANHATTAN"}, "rect: unknown metric 'MANHATTAN'"),
        ({"reference_length": float("nan")}, "rect: reference length nan is not a length"),
    ],
)
def test_instance_checks_its_fields(fields: dict, message: str) -> None:
    with pytest.raises(InputError) as info:
        square(**fields)
    assert str(info.value).startswith(message)


def test_messages_name_the_source_else_the_name() -> None:
    assert square().label == "rect"
    assert square(source="data/rect.csv").label == "data/rect.csv"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_coordinates_name_the_city(bad: float) -> None:
    coords = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, bad], [0.0, 4.0]])
    with pytest.raises(InputError, match=r"rect\.tsp: city 30 has a non-finite coordinate"):
        square(coords=coords, source="rect.tsp")


def test_coordinates_too_far_apart_for_distances_are_refused() -> None:
    coords = np.array([[0.0, 0.0], [1e155, 0.0], [3.0, 4.0], [0.0, 4.0]])  # the square of 1e155 overflows
    with pytest.raises(InputError, match=r"rect\.tsp: the coordinates span too wide a range"):
        square(coords=coords, source="rect.tsp")
    assert square(coords=coords / 1e10).n == 4


def test_instance_arrays_are_read_only_copies() -> None:
    coords = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 4.0], [0.0, 4.0]])
    instance = square(coords=coords)
    coords[0, 0] = 99.0
    assert instance.coords[0, 0] == 0.0
    with pytest.raises(ValueError):
        instance.coords[0, 0] = 1.0
    assert instance.ids.dtype == np.int64 and instance.coords.dtype == np.float64


def test_reference_tour_gets_its_length() -> None:
    instance = square(reference_tour=[0, 2, 1, 3])
    assert instance.reference_length == 18.0 and not instance.reference_is_optimal
    with pytest.raises(TourError, match="never visits city 40"):
        square(reference_tour=[0, 1, 2, 2])


def test_with_reference_replaces_the_reference() -> None:
    instance = square()
    optimal = instance.with_reference(tour=np.array([1, 2, 3, 0]), optimal=True)
    assert optimal.reference_tour.tolist() == [1, 2, 3, 0]
    assert optimal.reference_length == 14.0 and optimal.reference_is_optimal
    known = instance.with_reference(length=14, optimal=True)
    assert known.reference_tour is None and known.reference_length == 14.0
    assert instance.reference_tour is None and instance.reference_length is None


def test_normalized_coords_keep_the_aspect_ratio() -> None:
    coords = np.array([[10.0, 100.0], [30.0, 100.0], [30.0, 110.0], [10.0, 105.0]])
    normalized = square(coords=coords).normalized_coords()
    np.testing.assert_allclose(normalized, [[0, 0], [1, 0], [1, 0.5], [0, 0.25]])


def test_normalized_coords_of_coincident_cities_stay_finite() -> None:
    line = square(coords=np.array([[5.0, 1.0], [5.0, 2.0], [5.0, 3.0], [5.0, 5.0]]))
    np.testing.assert_allclose(line.normalized_coords(), [[0, 0], [0, 0.25], [0, 0.5], [0, 1]])
    point = square(coords=np.full((4, 2), 7.0))
    assert point.normalized_coords().tolist() == [[0.0, 0.0]] * 4


@settings(max_examples=50, deadline=None)
@given(coords=arrays(np.float64, st.tuples(st.integers(3, 30), st.just(2)), elements=st.floats(-1e6, 1e6)))
def test_normalized_coords_lie_in_the_unit_square(coords: np.ndarray) -> None:
    instance = Instance("random", coords, "EUCLIDEAN", np.arange(len(coords)))
    normalized = instance.normalized_coords()
    assert normalized.min() >= 0.0 and normalized.max() <= 1.0
    span = coords.max(axis=0) - coords.min(axis=0)
    if span.max() > 0:
        assert normalized.min(axis=0).tolist() == [0.0, 0.0]
        assert math.isclose(normalized.max(), 1.0)
        # One scale for both axes: every pairwise difference shrinks by the same factor.
        np.testing.assert_allclose(
            (normalized - normalized[0]) * span.max(), coords - coords[0], atol=1e-6 * span.max()
        )


def test_problem_and_io_layers_do_not_import_torch() -> None:
    for module in [*(PACKAGE / "problem").glob("*.py"), *(PACKAGE / "io").glob("*.py")]:
        tree = ast.parse(module.read_text(), filename=str(module))
        imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
        imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        assert not [name for name in imported if name.split(".")[0] == "torch"], module

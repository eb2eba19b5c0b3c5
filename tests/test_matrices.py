"""Distance matrices and the metrics beyond the plane: readers, checks, kernels, embeddings, CLI."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED
from typer.testing import CliRunner

import amsolve
from amsolve.cli import app
from amsolve.errors import InputError
from amsolve.io import load_instances, read_matrix_csv, read_tour, read_tsplib
from amsolve.io.text import DistanceBuffer
from amsolve.io.tsplib import LAYOUTS
from amsolve.problem import Instance, distance_matrix, pair_distances
from amsolve.problem.embedding import classical_mds, principal_components
from amsolve.search import improve_tours, iterated_local_search, nearest_neighbours
from amsolve.search.candidates import candidate_lists
from amsolve.search.distances import dist, distance_view

runner = CliRunner()
EXPLICIT_DIR = SHARED / "tsplib_explicit"


def symmetric_matrix(n: int, seed: int = 0, high: int = 1000) -> np.ndarray:
    """A random symmetric integer matrix with a zero diagonal (not necessarily metric)."""
    upper = np.triu(np.random.default_rng(seed).integers(1, high, (n, n)), k=1)
    return upper + upper.T


def layout_numbers(matrix: np.ndarray, layout: str) -> list[int]:
    """The numbers of an EDGE_WEIGHT_SECTION, straight from the TSPLIB95 definitions of the layouts."""
    n = len(matrix)
    cells = {
        "FULL_MATRIX": [(i, j) for i in range(n) for j in range(n)],
        "UPPER_ROW": [(i, j) for i in range(n) for j in range(i + 1, n)],
        "LOWER_ROW": [(i, j) for i in range(n) for j in range(i)],
        "UPPER_DIAG_ROW": [(i, j) for i in range(n) for j in range(i, n)],
        "LOWER_DIAG_ROW": [(i, j) for i in range(n) for j in range(i + 1)],
        "UPPER_COL": [(i, j) for j in range(n) for i in range(j)],
        "LOWER_COL": [(i, j) for j in range(n) for i in range(j + 1, n)],
        "UPPER_DIAG_COL": [(i, j) for j in range(n) for i in range(j + 1)],
        "LOWER_DIAG_COL": [(i, j) for j in range(n) for i in range(j, n)],
    }[layout]
    return [int(matrix[i, j]) for i, j in cells]


def explicit_tsp(
    numbers: list, layout: str, n: int, display: np.ndarray | None = None, per_line: int = 5, name: str = "m"
) -> str:
    """A TSPLIB EXPLICIT file; the numbers are broken into lines of `per_line` (lines do not matter)."""
    lines = [f"NAME : {name}", "TYPE : TSP", f"DIMENSION : {n}", "EDGE_WEIGHT_TYPE : EXPLICIT"]
    lines += [f"EDGE_WEIGHT_FORMAT : {layout}", "EDGE_WEIGHT_SECTION"]
    lines += [" ".join(map(str, numbers[k : k + per_line])) for k in range(0, len(numbers), per_line)]
    if display is not None:
        lines += ["DISPLAY_DATA_SECTION", *(f"{i} {x} {y}" for i, (x, y) in enumerate(display, start=1))]
    return "\n".join([*lines, "EOF", ""])


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def expect_error(call, *fragments: str) -> None:
    """`call()` raises an InputError whose message is one line containing every fragment."""
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


# --- TSPLIB layouts against tsplib95 ----------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("with_display", [False, True], ids=["no display", "display"])
def test_every_layout_reads_as_tsplib95_reads_it(tmp_path: Path, layout: str, with_display: bool) -> None:
    tsplib95 = pytest.importorskip("tsplib95")
    matrix = symmetric_matrix(7, seed=len(layout))
    display = np.random.default_rng(1).integers(0, 100, (7, 2)).astype(float) if with_display else None
    path = write(tmp_path / "m.tsp", explicit_tsp(layout_numbers(matrix, layout), layout, 7, display, per_line=4))
    instance = read_tsplib(path)
    oracle = tsplib95.load(path)
    nodes = list(oracle.get_nodes())  # 0..n-1 without display data, the display ids 1..n with it
    expected = [[oracle.get_weight(i, j) for j in nodes] for i in nodes]
    assert instance.metric == "EXPLICIT" and instance.ids.tolist() == list(range(1, 8))
    np.testing.assert_array_equal(instance.matrix, expected)
    np.testing.assert_array_equal(instance.matrix, matrix)
    assert instance.matrix.dtype == np.int32 and not instance.matrix.flags.writeable
    if with_display:
        np.testing.assert_array_equal(instance.coords, display)
        assert instance.planar_kind == "display"
        np.testing.assert_array_equal(instance.planar_coords, display)
    else:
        assert instance.coords is None and instance.planar_kind == "MDS"


@pytest.mark.parametrize("metric", ["MAN_2D", "MAX_2D", "EUC_3D"])
def test_coordinate_metrics_read_as_tsplib95_reads_them(tmp_path: Path, metric: str) -> None:
    tsplib95 = pytest.importorskip("tsplib95")
    dimensions = 3 if metric == "EUC_3D" else 2
    coords = np.random.default_rng(4).uniform(0, 500, (30, dimensions)).round(1)
    coords[:3] = [[0.0], [0.5], [2.5]]  # differences of halves: TSPLIB rounds them up
    rows = "".join(f"{i} " + " ".join(map(str, row)) + "\n" for i, row in enumerate(coords, start=1))
    header = f"NAME : c\nTYPE : TSP\nDIMENSION : 30\nEDGE_WEIGHT_TYPE : {metric}\n"
    path = write(tmp_path / "c.tsp", header + "NODE_COORD_SECTION\n" + rows + "EOF\n")
    instance = read_tsplib(path)
    oracle = tsplib95.load(path)
    expected = [[oracle.get_weight(i, j) for j in range(1, 31)] for i in range(1, 31)]
    assert instance.coords.shape == (30, dimensions)
    np.testing.assert_array_equal(distance_matrix(instance.points, metric), expected)


def test_a_3d_file_needs_three_coordinates_per_city(tmp_path: Path) -> None:
    text = "TYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_3D\nNODE_COORD_SECTION\n1 0 0 0\n2 1 1\n3 2 2 2\n"
    expect_error(lambda: read_tsplib(write(tmp_path / "c.tsp", text)), "c.tsp line 6: expected 'id x y z'")


TINY = symmetric_matrix(4)
TINY_LOWER = layout_numbers(TINY, "LOWER_DIAG_ROW")  # 10 numbers, diagonal at 0, 2, 5, 9
TINY_FULL = layout_numbers(TINY, "FULL_MATRIX")


def _with(numbers: list, index: int, value: object) -> list:
    changed = list(numbers)
    changed[index] = value
    return changed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (explicit_tsp(TINY_LOWER[:-1], "LOWER_DIAG_ROW", 4), "has 9 numbers, but LOWER_DIAG_ROW holds 10 for 4"),
        (explicit_tsp([*TINY_LOWER, 7], "LOWER_DIAG_ROW", 4), "has more than the 10 numbers LOWER_DIAG_ROW holds"),
        (explicit_tsp(_with(TINY_LOWER, 5, 3), "LOWER_DIAG_ROW", 4), "the distance from city 3 to itself is 3, not 0"),
        (explicit_tsp(_with(TINY_LOWER, 1, -4), "LOWER_DIAG_ROW", 4), "is negative (-4)"),
        (explicit_tsp(_with(TINY_LOWER, 1, "x"), "LOWER_DIAG_ROW", 4), "line 7: non-numeric edge weight 'x'"),
        (explicit_tsp(_with(TINY_LOWER, 1, "nan"), "LOWER_DIAG_ROW", 4), "line 7: non-finite edge weight 'nan'"),
        (
            explicit_tsp(_with(TINY_FULL, 1, TINY[0, 1] + 1), "FULL_MATRIX", 4),
            f"the distance from city 1 to city 2 is {TINY[0, 1] + 1} but from city 2 to city 1 {TINY[0, 1]}; "
            "amsolve solves symmetric problems only",
        ),
        (explicit_tsp(TINY_LOWER, "FUNCTION", 4), "line 6: EDGE_WEIGHT_SECTION needs an EDGE_WEIGHT_FORMAT among"),
        (explicit_tsp(TINY_LOWER, "DIAGONAL", 4), "line 5: EDGE_WEIGHT_FORMAT DIAGONAL is not supported"),
        (
            explicit_tsp(TINY_LOWER, "LOWER_DIAG_ROW", 4).replace("EDGE_WEIGHT_FORMAT : LOWER_DIAG_ROW\n", ""),
            "line 5: EDGE_WEIGHT_SECTION needs DIMENSION and EDGE_WEIGHT_FORMAT before it",
        ),
        (
            explicit_tsp(TINY_LOWER, "LOWER_DIAG_ROW", 4).replace("EXPLICIT", "EUC_2D"),
            "line 6: EDGE_WEIGHT_SECTION needs EDGE_WEIGHT_TYPE EXPLICIT before it",
        ),
        ("TYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EXPLICIT\nEOF\n", "EXPLICIT needs an EDGE_WEIGHT_SECTION"),
        (explicit_tsp(TINY_LOWER, "LOWER_DIAG_ROW", 4, np.zeros((3, 2))), "display coordinates: city 4 is missing"),
        (explicit_tsp([], "UPPER_ROW", 20_000), "20,000 cities are more than the 10,000 amsolve takes"),
        (explicit_tsp([0, 1, 0], "LOWER_DIAG_ROW", 2), "needs at least 3 cities, got 2"),
    ],
    ids=[
        "too-few",
        "too-many",
        "diagonal",
        "negative",
        "non-numeric",
        "nan",
        "asymmetric",
        "function",
        "unknown-format",
        "no-format",
        "not-explicit",
        "no-section",
        "display-missing",
        "too-large",
        "too-small",
    ],
)
def test_bad_tsplib_matrices_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / "bad.tsp", text)
    expect_error(lambda: read_tsplib(path), "bad.tsp", message)
    result = runner.invoke(app, ["solve", str(path)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert message in result.stderr


# --- the shared TSPLIB matrices ----------------------------------------------------------------


def shared_explicit() -> list:
    if not EXPLICIT_DIR.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{EXPLICIT_DIR} is absent"))]
    return sorted(EXPLICIT_DIR.glob("*.tsp"))


@pytest.mark.parametrize("path", shared_explicit(), ids=lambda path: getattr(path, "stem", ""))
def test_shared_explicit_instances_agree_with_tsplib95_and_their_optima(path: Path) -> None:
    tsplib95 = pytest.importorskip("tsplib95")
    with (EXPLICIT_DIR / "optimal.csv").open() as table:
        row = next(row for row in csv.DictReader(table) if row["name"] == path.stem)
    instance = read_tsplib(path)
    oracle = tsplib95.load(path)
    nodes = list(oracle.get_nodes())
    np.testing.assert_array_equal(instance.matrix, [[oracle.get_weight(i, j) for j in nodes] for i in nodes])
    assert instance.name == path.stem and instance.n == int(row["dimension"])
    assert row["edge_weight_type"] == f"EXPLICIT/{oracle.edge_weight_format}"
    if row["has_opt_tour"] == "true":  # the .opt.tour measures the proven optimum under the matrix
        assert instance.reference_is_optimal and instance.reference_length == float(row["optimal"])
    if path.stem == "dantzig42":  # its cities in file order are an optimal tour
        assert instance.tour_length(np.arange(42)) == float(row["optimal"])


# --- CSV of distances --------------------------------------------------------------------------

ROADS = np.array([[0, 12, 30, 25], [12, 0, 20, 31], [30, 20, 0, 14], [25, 31, 14, 0]])


def matrix_csv(matrix: np.ndarray, header: list[str] | None = None, labels: bool = False) -> str:
    """A CSV of distances: an optional header row, rows optionally led by their city's name."""
    lines = [",".join(([""] if labels else []) + header)] if header else []
    for i, row in enumerate(matrix):
        lines.append(",".join(([header[i]] if labels else []) + [str(value) for value in row]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("labels", [False, True], ids=["header", "header and row names"])
def test_matrix_csv_with_city_names(tmp_path: Path, labels: bool) -> None:
    names = ["Aachen", "Bonn", "Köln, Altstadt", "Düren"]
    text = matrix_csv(ROADS, [f'"{name}"' if "," in name else name for name in names], labels)
    instance = read_matrix_csv(write(tmp_path / "roads.csv", text))
    assert instance.name == "roads" and instance.metric == "EXPLICIT" and instance.names == tuple(names)
    assert instance.ids.tolist() == [1, 2, 3, 4] and instance.matrix.dtype == np.int32
    np.testing.assert_array_equal(instance.matrix, ROADS)
    assert instance.tour_names(np.array([2, 0, 1, 3])) == ["Köln, Altstadt", "Aachen", "Bonn", "Düren"]


def test_matrix_csv_without_header_and_with_fractions(tmp_path: Path) -> None:
    fractional = ROADS + 0.25 * (ROADS > 0)
    instance = load_instances(write(tmp_path / "times.csv", matrix_csv(fractional)), "matrix")[0]
    assert instance.names is None and instance.matrix.dtype == np.float32
    np.testing.assert_array_equal(instance.matrix, fractional)
    assert instance.tour_length(np.arange(4)) == 12.25 + 20.25 + 14.25 + 25.25


def test_a_csv_of_distances_read_as_cities_points_to_format_matrix(tmp_path: Path) -> None:
    path = write(tmp_path / "roads.csv", matrix_csv(symmetric_matrix(5)))
    expect_error(lambda: load_instances(path), "got 5 values; for a matrix of distances use --format matrix")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (matrix_csv(ROADS[:3]), "roads.csv: 3 rows of 4 distances; a distance matrix must be square"),
        ("0,1,2\n1,0\n2,3,0\n", "roads.csv line 2: 2 distances, but the first row has 3"),
        (matrix_csv(ROADS) + "1,2,3,4\n", "roads.csv line 5: more than 4 rows of 4 distances"),
        (matrix_csv(ROADS.T + np.eye(4, k=1, dtype=int)), "the distance from city 1 to city 2 is 13 but from city 2"),
        (
            matrix_csv(ROADS + np.eye(4, k=1, dtype=int), ["A", "B", "C", "D"]),
            "the distance from 'A' to 'B' is 13 but from 'B' to 'A' 12; amsolve solves symmetric problems only",
        ),
        (matrix_csv(np.where(ROADS == 31, -31, ROADS)), "the distance from city 2 to city 4 is negative (-31)"),
        ("0,1,nan\n1,0,2\nnan,2,0\n", "roads.csv line 1: non-finite distance 'nan'"),
        ("0,1,2\n1,0,x\n2,3,0\n", "roads.csv line 2: non-numeric distance 'x'"),
        (matrix_csv(ROADS + 5 * np.eye(4, dtype=int)), "the distance from city 1 to itself is 5, not 0"),
        (matrix_csv(ROADS, ["A", "B", "C", "D", "E"]), "the header names 5 cities but the matrix has 4"),
        (matrix_csv(ROADS, ["A", "B", "C", "C"]), "two cities are named 'C'"),
        ("x,A,B,C\nA,0,1,2\nC,1,0,3\nB,2,3,0\n", "line 3: row 2 is named 'C', but column 2 'B'"),
        ("A,0,1,2\nB,1,0,3\nC,2,3,0\n", "line 1: rows that start with a city's name need a header row"),
        ("A,B,C\n", "roads.csv: no rows of distances"),
        ("0,1\n1,0\n", "needs at least 3 cities, got 2"),
        ("\n\n", "roads.csv: file is empty"),
        (",".join(["0"] * 10_001) + "\n", "10,001 cities are more than the 10,000 amsolve takes"),
    ],
    ids=[
        "not-square",
        "ragged",
        "too-many-rows",
        "asymmetric",
        "asymmetric-named",
        "negative",
        "nan",
        "non-numeric",
        "diagonal",
        "header-count",
        "duplicate-names",
        "row-name",
        "row-names-without-header",
        "no-rows",
        "too-small",
        "empty",
        "too-large",
    ],
)
def test_bad_matrix_csvs_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / "roads.csv", text)
    expect_error(lambda: read_matrix_csv(path), message)
    result = runner.invoke(app, ["solve", str(path), "--format", "matrix"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert message in result.stderr


# --- Instance.from_matrix and how matrices are kept -------------------------------------------


def test_from_matrix_keeps_whole_numbers_as_int32_and_fractions_as_float32() -> None:
    whole = Instance.from_matrix(ROADS.astype(np.float64))
    assert whole.matrix.dtype == np.int32 and whole.ids.tolist() == [1, 2, 3, 4] and whole.name == "matrix"
    assert whole.tour_length(np.array([0, 1, 2, 3])) == 71.0
    fractional = Instance.from_matrix(ROADS / 3)
    assert fractional.matrix.dtype == np.float32
    huge = Instance.from_matrix(ROADS * 2**31)
    assert huge.matrix.dtype == np.float32 and huge.tour_length(np.arange(4)) == 71.0 * 2**31
    source = ROADS.astype(np.int32)
    kept = Instance.from_matrix(source)
    source[0, 1] = 99
    assert kept.matrix[0, 1] == 12 and not kept.matrix.flags.writeable


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.zeros((3, 4)), "a distance matrix must be square, got shape (3, 4)"),
        ([[0, 1, 2], [1, 0], [2, 3, 0]], "a distance matrix must be square; its rows differ in length"),
        (np.array([["0", "1"], ["1", "0"]]), "distances must be numbers"),
        (np.where(np.eye(4, k=1) > 0, np.inf, ROADS), "the distance from city 1 to city 2 is inf, not a finite number"),
    ],
)
def test_from_matrix_errors(matrix: object, message: str) -> None:
    expect_error(lambda: Instance.from_matrix(matrix), f"matrix: {message}")


def test_the_size_limit_is_checked_before_the_matrix_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("amsolve.problem.matrix.MAX_MATRIX_CITIES", 3)
    expect_error(lambda: Instance.from_matrix(ROADS), "4 cities are more than the 3 amsolve takes")


def test_the_buffer_of_a_reader_turns_float32_at_the_first_fraction() -> None:
    buffer = DistanceBuffer(5)
    buffer.add(np.array([1.0, 2.0]))
    assert buffer.values.dtype == np.int32 and buffer.room == 3
    buffer.add(np.array([2.5, 4.0, 5.0]))
    assert buffer.values.dtype == np.float32 and buffer.values.tolist() == [1.0, 2.0, 2.5, 4.0, 5.0]


# --- what the model sees ----------------------------------------------------------------------


def test_mds_of_euclidean_distances_reproduces_them() -> None:
    coords = np.random.default_rng(5).uniform(0, 1000, (60, 2))
    matrix = distance_matrix(coords, "EUCLIDEAN")
    embedded = classical_mds(matrix)
    np.testing.assert_allclose(distance_matrix(embedded, "EUCLIDEAN"), matrix, atol=1e-3 * matrix.max())
    np.testing.assert_array_equal(embedded, classical_mds(matrix))  # deterministic


def test_principal_components_of_a_tilted_plane_keep_every_distance() -> None:
    rng = np.random.default_rng(6)
    plane = np.column_stack([rng.uniform(0, 100, (40, 2)), np.zeros(40)])
    rotation, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    flat = principal_components(plane @ rotation.T + [5.0, -3.0, 8.0])
    np.testing.assert_allclose(distance_matrix(flat, "EUCLIDEAN"), distance_matrix(plane, "EUCLIDEAN"), atol=1e-9)


def test_each_instance_says_what_the_model_reads() -> None:
    coords3 = np.random.default_rng(7).uniform(0, 100, (10, 3))
    euc3 = Instance("c", coords3, "EUC_3D", np.arange(1, 11))
    assert euc3.planar_kind == "principal components" and euc3.planar_coords.shape == (10, 2)
    matrix = Instance.from_matrix(distance_matrix(coords3, "EUC_3D"))
    assert matrix.planar_kind == "MDS" and matrix.normalized_coords().shape == (10, 2)
    assert matrix.normalized_coords().min() >= 0.0 and matrix.normalized_coords().max() == pytest.approx(1.0)
    coincident = Instance.from_matrix(np.zeros((4, 4)))
    assert coincident.normalized_coords().tolist() == [[0.0, 0.0]] * 4
    assert Instance("p", coords3[:, :2], "MAN_2D", np.arange(1, 11)).planar_kind == "coordinates"


# --- kernels and local search on matrices and the new metrics ----------------------------------


def new_metric_instances() -> list[Instance]:
    rng = np.random.default_rng(8)
    coords = np.concatenate([[[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [2.5, 0.0, 1.5]], rng.uniform(0, 300, (57, 3))])
    matrix = symmetric_matrix(60, seed=9)
    return [
        Instance("man", coords[:, :2].round(1), "MAN_2D", np.arange(60)),
        Instance("max", coords[:, :2].round(1), "MAX_2D", np.arange(60)),
        Instance("euc3", coords.round(1), "EUC_3D", np.arange(60)),
        Instance.from_matrix(matrix, name="int32"),
        Instance.from_matrix(matrix / 7, name="float32"),
    ]


@pytest.mark.parametrize("instance", new_metric_instances(), ids=lambda instance: instance.name)
def test_kernels_measure_as_the_problem_layer_does(instance: Instance) -> None:
    view = distance_view(instance)
    expected = distance_matrix(instance.points, instance.metric)
    kernel = [[dist(view.points, view.code, i, j) for j in range(instance.n)] for i in range(instance.n)]
    np.testing.assert_array_equal(kernel, expected)
    ranking = expected + np.diag(np.full(instance.n, np.inf))
    np.testing.assert_array_equal(nearest_neighbours(view, 8), np.argsort(ranking, axis=1, kind="stable")[:, :8])


@pytest.mark.parametrize("entries", ["few values (ties)", "integers", "floats"])
def test_a_matrixs_nearest_rank_by_its_entries_ties_to_the_lower_index(entries: str) -> None:
    rng = np.random.default_rng(12)
    n = 300
    if entries == "floats":
        upper = rng.random((n, n))
    else:
        upper = rng.integers(1, 4 if entries == "few values (ties)" else 10_000, (n, n))
    matrix = np.triu(upper, 1) + np.triu(upper, 1).T
    view = distance_view(Instance.from_matrix(matrix))
    ranking = view.points.astype(float) + np.diag(np.full(n, np.inf))  # as the search stores them
    for k in (1, 10, n - 1):
        expected = np.argsort(ranking, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(nearest_neighbours(view, k), expected)


@pytest.mark.parametrize("metric", ["MAN_2D", "MAX_2D", "EUC_3D"])
@pytest.mark.parametrize("layout", ["spread", "clusters with ties", "flat"])
def test_the_grids_find_the_nearest_by_the_metrics_own_distance(metric: str, layout: str) -> None:
    """The grid searches rank as comparing every pair does: by the rounded distance, ties to the lower index."""
    n, dimensions = 1500, 3 if metric == "EUC_3D" else 2
    rng = np.random.default_rng(11)
    if layout == "clusters with ties":  # tight clusters on an integer lattice: coincident cities, tied distances
        centres = rng.uniform(0, 5000, (6, dimensions)).round()
        coords = centres[rng.integers(0, 6, n)] + rng.integers(-4, 5, (n, dimensions))
    else:
        coords = rng.uniform(0, 5000, (n, dimensions)).round(1)
        if layout == "flat":  # no extent along the last axis
            coords[:, -1] = 7.0
    view = distance_view(Instance("c", coords, metric, np.arange(n)))
    ranking = distance_matrix(coords, metric) + np.diag(np.full(n, np.inf))
    np.testing.assert_array_equal(nearest_neighbours(view, 10), np.argsort(ranking, axis=1, kind="stable")[:, :10])


@pytest.mark.parametrize("instance", new_metric_instances(), ids=lambda instance: instance.name)
def test_local_search_on_the_true_distances(instance: Instance) -> None:
    rng = np.random.default_rng(10)
    tours = np.stack([rng.permutation(instance.n) for _ in range(3)])
    view = distance_view(instance)
    candidates = candidate_lists(view, "alpha", 5, seconds=0.01)
    before = [instance.tour_length(tour) for tour in tours]
    improved, lengths = improve_tours(view, tours, "lk", candidates)
    assert lengths.tolist() == [instance.tour_length(tour) for tour in improved]
    assert all(after < length for after, length in zip(lengths, before, strict=True))
    best, best_length = iterated_local_search(view, improved[0], time.perf_counter() + 0.05, "lk", candidates, seed=1)
    assert best_length == instance.tour_length(best) <= lengths[0]


# --- the pipeline, the API and the CLI on matrices --------------------------------------------


def test_solve_takes_distances(model_dir: Path) -> None:
    solution = amsolve.solve(distances=ROADS, model=str(model_dir))
    assert sorted(solution.tour.tolist()) == [0, 1, 2, 3]
    assert solution.length == pair_distances(ROADS, "EXPLICIT", solution.tour, np.roll(solution.tour, -1)).sum()
    with pytest.raises(TypeError, match="exactly one"):
        amsolve.solve(ROADS, distances=ROADS)


def test_cli_solves_a_named_matrix_and_writes_its_tour_and_plot(model_dir: Path, tmp_path: Path) -> None:
    matrix = symmetric_matrix(12, seed=11)
    names = [f"town {chr(65 + i)}" for i in range(12)]
    path = write(tmp_path / "towns.csv", matrix_csv(matrix, names))
    args = ["solve", str(path), "--format", "matrix", "--model", str(model_dir), "--decode", "greedy"]
    result = runner.invoke(app, [*args, "--json", "--tour-out", str(tmp_path / "tours")])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)["instances"]
    assert row["model_input"] == "MDS" and row["n"] == 12
    assert row["tour_names"] == [names[i - 1] for i in row["tour"]]
    positions = np.array(row["tour"]) - 1
    assert row["length"] == matrix[positions, np.roll(positions, -1)].sum()
    assert read_tour(tmp_path / "tours" / "towns.tour") == row["tour"]
    table = runner.invoke(app, [*args, "--show-tour", "--plot", str(tmp_path / "towns.png")])
    assert table.exit_code == 0, table.output
    assert "town A" in table.stdout and (tmp_path / "towns.png").read_bytes()[:4] == b"\x89PNG"


def test_bench_reads_optima_of_matrix_instances(model_dir: Path, tmp_path: Path) -> None:
    matrix = symmetric_matrix(10, seed=12)
    for name in ("one", "two"):
        write(tmp_path / f"{name}.tsp", explicit_tsp(layout_numbers(matrix, "UPPER_ROW"), "UPPER_ROW", 10, name=name))
    optimal = Instance.from_matrix(matrix).tour_length(np.arange(10))  # no optimum, but a reference to measure by
    write(tmp_path / "optima.csv", f"name,optimal\none,{optimal}\ntwo,{optimal}\n")
    args = ["bench", str(tmp_path), "--optima", str(tmp_path / "optima.csv"), "--model", str(model_dir)]
    result = runner.invoke(app, [*args, "--decode", "greedy+2opt+oropt", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [row["dataset"] for row in rows] == ["one", "two", "TSPLIB total (2)"]
    assert rows[0]["mean_reference"] == optimal
    assert rows[0]["gap_mean_pct"] == pytest.approx(100 * (rows[0]["mean_length"] - optimal) / optimal)

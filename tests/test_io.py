"""Tests of the io layer: TSPLIB, tour, CSV and dataset files, format detection, error messages."""

import csv
import gzip
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from amsolve.errors import InputError, TourError
from amsolve.io import (
    FORMATS,
    detect_format,
    find_opt_tour,
    load_instances,
    parse_dataset_line,
    read_csv,
    read_dataset,
    read_tour,
    read_tsplib,
    write_dataset,
    write_tour,
)
from amsolve.problem import distance_matrix, tour_length

DATA = Path(__file__).resolve().parent / "data"
SHARED_TSPLIB = Path(__file__).resolve().parents[2] / "shared" / "tsplib"

OPTIMAL_IN_DATA = {"berlin52": 7542, "att48": 10628, "ulysses22": 7013}

TINY_TSP = """NAME : tiny
TYPE : TSP
DIMENSION : 4
EDGE_WEIGHT_TYPE : EUC_2D
NODE_COORD_SECTION
1 0 0
2 3 0
3 3 4
4 0 4
EOF
"""
"""A valid file; its cities are on lines 6 to 9. Error cases edit one line of it."""


def write(directory: Path, name: str, text: str) -> Path:
    """Write a test file and return its path."""
    path = directory / name
    path.write_text(text)
    return path


@contextmanager
def input_error(*fragments: str) -> Iterator[None]:
    """Expect an InputError whose message is one line containing every fragment."""
    with pytest.raises(InputError) as info:
        yield
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def shared_opt_tours() -> list:
    """The optimal tours in ../shared/tsplib, or one skipped case when that folder is absent."""
    if not SHARED_TSPLIB.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{SHARED_TSPLIB} is absent"))]
    return sorted(SHARED_TSPLIB.glob("*.opt.tour"), key=lambda path: path.name)


# --- TSPLIB: lengths --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(OPTIMAL_IN_DATA))
def test_opt_tours_in_tests_data_measure_the_published_optimum(name: str) -> None:
    instance = read_tsplib(DATA / f"{name}.tsp")
    assert instance.name == name and instance.source == str(DATA / f"{name}.tsp")
    assert instance.reference_is_optimal
    assert instance.reference_length == OPTIMAL_IN_DATA[name]
    assert instance.tour_length(instance.reference_tour) == OPTIMAL_IN_DATA[name]


@pytest.mark.parametrize("tour_path", shared_opt_tours(), ids=lambda path: getattr(path, "name", ""))
def test_shared_opt_tours_measure_optimal_csv(tour_path: Path) -> None:
    with (SHARED_TSPLIB / "optimal.csv").open() as table:
        optimal = {row["name"]: float(row["optimal"]) for row in csv.DictReader(table)}
    name = tour_path.name.removesuffix(".opt.tour")
    instance = read_tsplib(SHARED_TSPLIB / f"{name}.tsp")
    assert find_opt_tour(SHARED_TSPLIB / f"{name}.tsp") == tour_path
    assert instance.reference_is_optimal
    assert instance.reference_length == optimal[name]


@pytest.mark.parametrize("name", ["berlin52", "att48", "ulysses22", "burma14"])
def test_distances_agree_with_tsplib95(name: str) -> None:
    """burma14 and ulysses22 are GEO instances where exact pi (tsplib95) changes no distance."""
    tsplib95 = pytest.importorskip("tsplib95")
    instance = read_tsplib(DATA / f"{name}.tsp")
    oracle = tsplib95.load(DATA / f"{name}.tsp")
    expected = [[oracle.get_weight(i, j) for j in instance.ids] for i in instance.ids]
    matrix = distance_matrix(instance.coords, instance.metric)
    off_diagonal = ~np.eye(instance.n, dtype=bool)
    np.testing.assert_array_equal(matrix[off_diagonal], np.array(expected)[off_diagonal])


@pytest.mark.parametrize("metric", ["EUC_2D", "CEIL_2D", "ATT"])
def test_random_coordinates_agree_with_tsplib95(tmp_path: Path, metric: str) -> None:
    tsplib95 = pytest.importorskip("tsplib95")
    coords = np.random.default_rng(3).uniform(0, 5000, size=(30, 2)).round(1)
    cities = "".join(f"{i} {x} {y}\n" for i, (x, y) in enumerate(coords, start=1))
    path = write(
        tmp_path,
        "random.tsp",
        TINY_TSP.replace("EUC_2D", metric)
        .replace("DIMENSION : 4", "DIMENSION : 30")
        .replace("1 0 0\n2 3 0\n3 3 4\n4 0 4\n", cities),
    )
    oracle = tsplib95.load(path)
    expected = [[oracle.get_weight(i, j) for j in range(1, 31)] for i in range(1, 31)]
    np.testing.assert_array_equal(distance_matrix(read_tsplib(path).coords, metric), expected)


# --- TSPLIB: parsing --------------------------------------------------------------------------


def test_tiny_file_reads(tmp_path: Path) -> None:
    instance = read_tsplib(write(tmp_path, "tiny.tsp", TINY_TSP))
    assert instance.name == "tiny" and instance.metric == "EUC_2D" and instance.n == 4
    assert instance.ids.tolist() == [1, 2, 3, 4]
    assert instance.coords.tolist() == [[0, 0], [3, 0], [3, 4], [0, 4]]
    assert instance.reference_tour is None and instance.reference_length is None


def test_tolerated_variations(tmp_path: Path) -> None:
    text = (
        "NAME:tiny.tsp  \r\nTYPE :  TSP\r\nCOMMENT : 4 cities: a rectangle\r\n"
        "DIMENSION:4\r\nEDGE_WEIGHT_TYPE\t:\tEUC_2D \r\nEDGE_WEIGHT_FORMAT: FUNCTION \r\n"
        "DISPLAY_DATA_TYPE: COORD_DISPLAY\r\nNODE_COORD_SECTION\r\n"
        "  1  0.0e+00\t0\r\n2 3.00000e+00 0 \r\n\r\n3 3 4e0\r\n 4 -0.0 4.0\r\n\r\n\r\n"
    )
    instance = read_tsplib(write(tmp_path, "variant.tsp", text))
    assert instance.name == "tiny" and instance.n == 4
    assert instance.tour_length(np.arange(4)) == 14.0


def test_missing_name_uses_the_file_stem(tmp_path: Path) -> None:
    instance = read_tsplib(write(tmp_path, "rect.tsp", TINY_TSP.replace("NAME : tiny\n", "")))
    assert instance.name == "rect"


def test_gzip_file_reads_with_its_opt_tour(tmp_path: Path) -> None:
    path = tmp_path / "tiny.tsp.gz"
    path.write_bytes(gzip.compress(TINY_TSP.encode()))
    write(tmp_path, "tiny.opt.tour", "TYPE : TOUR\nTOUR_SECTION\n1 4 3 2\n-1\nEOF\n")
    assert find_opt_tour(path) == tmp_path / "tiny.opt.tour"
    instance = read_tsplib(path)
    assert instance.name == "tiny"
    assert instance.reference_tour.tolist() == [0, 3, 2, 1] and instance.reference_length == 14.0


def test_no_opt_tour_beside_the_file(tmp_path: Path) -> None:
    assert find_opt_tour(write(tmp_path, "tiny.tsp", TINY_TSP)) is None


def test_broken_opt_tour_is_reported_by_its_name(tmp_path: Path) -> None:
    path = write(tmp_path, "tiny.tsp", TINY_TSP)
    write(tmp_path, "tiny.opt.tour", "TOUR_SECTION\n1 2 2 4\n-1\n")
    with input_error("tiny.opt.tour: tour visits city 2 more than once; never visits city 3"):
        read_tsplib(path)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("3 3 4", "3 abc 4", "bad.tsp line 8: non-numeric coordinate 'abc'"),
        ("3 3 4", "3 3 nan", "bad.tsp line 8: non-finite coordinate 'nan'"),
        ("3 3 4", "3 3 inf", "bad.tsp line 8: non-finite coordinate 'inf'"),
        ("3 3 4", "2 3 4", "bad.tsp line 8: duplicate city id 2 (first on line 7)"),
        ("3 3 4", "3.5 3 4", "bad.tsp line 8: node id must be an integer, got '3.5'"),
        ("3 3 4", "3 3 4 5", "bad.tsp line 8: expected 'id x y', got 4 values"),
        ("TYPE : TSP", "TYPE : ATSP", "bad.tsp line 2: TYPE ATSP is not supported"),
        ("TYPE : TSP", "TYPE : CVRP", "bad.tsp line 2: TYPE CVRP is not supported"),
        ("EUC_2D", "XRAY1", "bad.tsp line 4: EDGE_WEIGHT_TYPE XRAY1 is not supported"),
        ("DIMENSION : 4", "DIMENSION : four", "bad.tsp line 3: DIMENSION must be an integer"),
        ("DIMENSION : 4", "DIMENSION : 5", "bad.tsp: DIMENSION is 5 but NODE_COORD_SECTION has 4"),
        ("DIMENSION : 4\n", "", "bad.tsp: missing DIMENSION"),
        ("EDGE_WEIGHT_TYPE : EUC_2D\n", "", "bad.tsp: missing EDGE_WEIGHT_TYPE"),
        ("NAME : tiny", "NAME tiny", "bad.tsp line 1: unknown keyword 'NAME tiny'"),
        ("NAME : tiny", "COLOUR : red", "bad.tsp line 1: unknown keyword 'COLOUR'"),
        ("NODE_COORD_SECTION", "FIXED_EDGES_SECTION", "bad.tsp line 5: FIXED_EDGES_SECTION is not"),
        ("NODE_COORD_SECTION\n", "", "bad.tsp line 5: numbers before NODE_COORD_SECTION or EDGE_WEIGHT_SECTION"),
        ("4 0 4\n", "", "bad.tsp: DIMENSION is 4 but NODE_COORD_SECTION has 3 cities"),
        ("1 0 0\n2 3 0\n3 3 4\n4 0 4\n", "", "bad.tsp: no cities"),
    ],
)
def test_tsplib_errors_name_file_and_line(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in TINY_TSP
    with input_error(message):
        read_tsplib(write(tmp_path, "bad.tsp", TINY_TSP.replace(old, new)))


def test_fewer_than_three_cities(tmp_path: Path) -> None:
    text = TINY_TSP.replace("DIMENSION : 4", "DIMENSION : 2").replace("3 3 4\n4 0 4\n", "")
    with input_error("two.tsp: needs at least 3 cities, got 2"):
        read_tsplib(write(tmp_path, "two.tsp", text))


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with input_error("nowhere.tsp: no such file"):
        read_tsplib(tmp_path / "nowhere.tsp")
    with input_error("empty.tsp: file is empty"):
        read_tsplib(write(tmp_path, "empty.tsp", ""))
    with input_error("blank.tsp: file is empty"):
        read_tsplib(write(tmp_path, "blank.tsp", "\n  \n\n"))
    with input_error("corrupt.tsp.gz: cannot read"):
        read_tsplib(write(tmp_path, "corrupt.tsp.gz", "not gzip"))


# --- tours ------------------------------------------------------------------------------------


def test_read_tour_of_shipped_files() -> None:
    tour = read_tour(DATA / "berlin52.opt.tour")
    assert len(tour) == 52 and tour[:3] == [1, 49, 32] and sorted(tour) == list(range(1, 53))


def test_read_tour_variations(tmp_path: Path) -> None:
    several_per_line = "NAME : x\nTYPE : TOUR\nTOUR_SECTION\n   1  3\t2\n 4\n-1\nEOF\n"
    assert read_tour(write(tmp_path, "a.tour", several_per_line)) == [1, 3, 2, 4]
    no_terminator = "TOUR_SECTION\r\n4 3\r\n2 1\r\n"
    assert read_tour(write(tmp_path, "b.tour", no_terminator)) == [4, 3, 2, 1]
    ends_at_eof = "COMMENT : by hand\nDIMENSION : 3\nTOUR_SECTION\n1\n2\n3\nEOF\n"
    assert read_tour(write(tmp_path, "c.tour", ends_at_eof)) == [1, 2, 3]
    minus_one_mid_line = "TOUR_SECTION\n1 2 3 -1 7 8\n"
    assert read_tour(write(tmp_path, "d.tour", minus_one_mid_line)) == [1, 2, 3]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NAME : x\n1 2 3\n", "bad.tour: no TOUR_SECTION"),
        ("TOUR_SECTION\n-1\nEOF\n", "bad.tour: TOUR_SECTION is empty"),
        (
            "TOUR_SECTION\n1 2\nthree\n-1\n",
            "bad.tour line 3: city id must be an integer, got 'three'",
        ),
        ("DIMENSION : 4\nTOUR_SECTION\n1 2 3\n-1\n", "bad.tour: DIMENSION is 4 but the tour has 3"),
        ("TYPE : TSP\nTOUR_SECTION\n1 2 3\n-1\n", "bad.tour line 1: TYPE TSP is not a tour"),
    ],
)
def test_read_tour_errors(tmp_path: Path, text: str, message: str) -> None:
    with input_error(message):
        read_tour(write(tmp_path, "bad.tour", text))


def test_write_tour_round_trip(tmp_path: Path) -> None:
    path = write_tour(tmp_path / "tiny.tour", "tiny", [1, 4, 3, 2], length=14.0)
    assert path == tmp_path / "tiny.tour"
    assert path.read_text().splitlines() == [
        "NAME : tiny",
        "TYPE : TOUR",
        "COMMENT : Length 14",
        "DIMENSION : 4",
        "TOUR_SECTION",
        "1",
        "4",
        "3",
        "2",
        "-1",
        "EOF",
    ]
    assert read_tour(path) == [1, 4, 3, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["tiny.tour"]


def test_write_tour_keeps_float_lengths_and_may_omit_them(tmp_path: Path) -> None:
    with_float = write_tour(tmp_path / "f.tour", "f", np.array([3, 1, 2]), length=3.8279)
    assert "COMMENT : Length 3.8279" in with_float.read_text()
    without = write_tour(tmp_path / "n.tour", "n", [3, 1, 2])
    assert "COMMENT" not in without.read_text() and read_tour(without) == [3, 1, 2]


def test_write_tour_does_not_overwrite_without_force(tmp_path: Path) -> None:
    path = write(tmp_path, "keep.tour", "precious")
    with input_error("keep.tour: file exists; use --force to overwrite"):
        write_tour(path, "keep", [1, 2, 3])
    assert path.read_text() == "precious"
    write_tour(path, "keep", [1, 2, 3], force=True)
    assert read_tour(path) == [1, 2, 3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.tour"]


def test_write_tour_into_a_missing_directory(tmp_path: Path) -> None:
    with input_error("x.tour: directory", "does not exist"):
        write_tour(tmp_path / "nowhere" / "x.tour", "x", [1, 2, 3])


# --- CSV --------------------------------------------------------------------------------------


def test_csv_with_header_and_ids() -> None:
    instance = read_csv(DATA / "cities.csv")
    assert instance.name == "cities" and instance.metric == "EUCLIDEAN"
    assert instance.ids.tolist() == [10, 20, 30, 40]
    assert instance.tour_length(np.arange(4)) == 14.0


def test_csv_without_header_numbers_rows() -> None:
    instance = read_csv(DATA / "points.csv")
    assert instance.ids.tolist() == [1, 2, 3]
    assert instance.coords.tolist() == [[1.5, 2.5], [3.0, 4.0], [-10.0, 0.25]]


def test_csv_with_quoted_header(tmp_path: Path) -> None:
    instance = read_csv(write(tmp_path, "q.csv", '"x","y"\r\n0,0\r\n1,0\r\n"0",1\r\n'))
    assert instance.coords.tolist() == [[0, 0], [1, 0], [0, 1]]


@pytest.mark.parametrize("header", ["", "city,x,y\n"])
def test_csv_with_city_names_labels_the_tour_with_them(tmp_path: Path, header: str) -> None:
    instance = read_csv(write(tmp_path, "named.csv", header + 'Bonn,0,0\n"Kiel, port",3,4\n12,3,0\n'))
    assert instance.names == ("Bonn", "Kiel, port", "12") and instance.ids.tolist() == [1, 2, 3]
    assert instance.coords.tolist() == [[0, 0], [3, 4], [3, 0]]
    assert instance.tour_names(np.array([2, 0, 1])) == ["12", "Bonn", "Kiel, port"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x,y\n0,0\n1;1\n2,2\n", "bad.csv line 3: expected 'x,y', 'id,x,y' or 'name,x,y', got 1 values; values must"),
        ("0,0,0,0\n", "bad.csv line 1: expected 'x,y', 'id,x,y' or 'name,x,y', got 4 values; for a matrix"),
        ("name,x,y\nBonn,0,0\nKiel,1,1\nBonn,2,2\n", "bad.csv line 4: duplicate city name 'Bonn' (first on line 2)"),
        ("Bonn,0,0\n,1,1\nKiel,2,2\n", "bad.csv line 2: empty city name"),
        ("0,0\n1,1,1\n2,2\n", "bad.csv line 2: 3 values, but the first row has 2"),
        ("x,y\n0,0\n1,one\n2,2\n", "bad.csv line 3: non-numeric coordinate 'one'"),
        ("0,0\n1,nan\n2,2\n", "bad.csv line 2: non-finite coordinate 'nan'"),
        (
            "id,x,y\n1,0,0\n\n1,1,1\n2,2,2\n",
            "bad.csv line 4: duplicate city id 1 (first on line 2)",
        ),
        ("1,0,0\n2.5,1,1\n3,2,2\n", "bad.csv line 2: city id must be an integer, got '2.5'"),
        ("x,y\n0,0\n1,1\n", "bad.csv: needs at least 3 cities, got 2"),
    ],
)
def test_csv_errors_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with input_error(message):
        read_csv(write(tmp_path, "bad.csv", text))


# --- datasets ---------------------------------------------------------------------------------


def test_dataset_sample() -> None:
    instances = read_dataset(DATA / "tsp20_sample.txt")
    assert len(instances) == 5
    first = instances[0]
    assert first.name == "tsp20_sample#1" and first.source == f"{DATA / 'tsp20_sample.txt'}:1"
    assert first.n == 20 and first.metric == "EUCLIDEAN" and first.ids.tolist() == list(range(1, 21))
    assert first.coords[0].tolist() == [0.178935, 0.639913]
    assert first.reference_tour[:3].tolist() == [0, 13, 9]  # "output 1 14 10 ..."
    assert not first.reference_is_optimal
    for instance in instances:
        expected = tour_length(instance.coords, "EUCLIDEAN", instance.reference_tour)
        assert instance.reference_length == expected and 2.5 < expected < 5.5


def test_dataset_limit_stops_reading(tmp_path: Path) -> None:
    lines = (DATA / "tsp20_sample.txt").read_text().splitlines()
    path = write(tmp_path, "d.txt", "\n".join([lines[0], "", lines[1], "garbage"]) + "\n")
    assert [i.name for i in read_dataset(path, limit=2)] == ["d#1", "d#3"]
    with input_error("d.txt line 4: non-numeric coordinate 'garbage'"):
        read_dataset(path)
    with input_error("--limit must be at least 1"):
        read_dataset(path, limit=0)


def test_dataset_line_without_tour() -> None:
    coords, tour = parse_dataset_line("0 0  1 0\t1 1 ", "here")
    assert coords.tolist() == [[0, 0], [1, 0], [1, 1]] and tour is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("0 0 1 0 1", "x.txt line 2: odd number of coordinate values (5)"),
        ("0 0 1 0 1 1 output 1 2 3", "x.txt line 2: reference tour does not return to its first"),
        ("0 0 1 0 1 1 output 1 2 2 1", "x.txt line 2: reference tour visits city 2 more than once"),
        ("0 0 1 0 1 1 output 1 2 1", "x.txt line 2: reference tour has 2 cities, expected 3"),
        ("0 0 1 0 1 1 output 1 2 4 1", "x.txt line 2: reference tour visits city 4, which"),
        ("0 0 1 0 1 1 output 1 2 3.0 1", "x.txt line 2: reference tour entry must be an integer"),
        ("0 0 1 0 1 1 output", "x.txt line 2: reference tour is empty"),
        ("0 0 1 x 1 1 output 1 2 3 1", "x.txt line 2: non-numeric coordinate 'x'"),
    ],
)
def test_dataset_errors_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = write(tmp_path, "x.txt", "0 0 1 0 1 1 output 1 3 2 1\n" + line + "\n")
    with input_error(message):
        read_dataset(path)


def test_write_dataset_round_trip_is_exact(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    coords_list = [rng.random((5, 2)), rng.random((7, 2)).round(6)]
    tours_list = [rng.permutation(5), rng.permutation(7)]
    path = write_dataset(tmp_path / "w.txt", coords_list, tours_list)
    read_back = read_dataset(path)
    for instance, coords, tour in zip(read_back, coords_list, tours_list, strict=True):
        np.testing.assert_array_equal(instance.coords, coords)
        np.testing.assert_array_equal(instance.reference_tour, tour)
    second_line = path.read_text().splitlines()[1]
    assert second_line.split()[:2] == [repr(c) for c in coords_list[1][0].tolist()]
    with input_error("w.txt: file exists; use --force"):
        write_dataset(path, coords_list)
    write_dataset(path, coords_list, force=True)
    assert all(instance.reference_tour is None for instance in read_dataset(path))


def test_write_dataset_rejects_a_bad_tour(tmp_path: Path) -> None:
    with pytest.raises(TourError, match=r"w.txt: instance 0: tour visits city 1 more than once"):
        write_dataset(tmp_path / "w.txt", [np.zeros((3, 2))], [np.array([0, 0, 1])])


# --- formats ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.tsp", "tsplib"),
        ("a.TSP", "tsplib"),
        ("a.tsp.gz", "tsplib"),
        ("a.csv", "csv"),
        ("a.txt", "dataset"),
        ("a.txt.gz", "dataset"),
    ],
)
def test_detect_format_by_suffix(name: str, fmt: str) -> None:
    assert detect_format(Path("no/such/dir") / name) == fmt


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (TINY_TSP, "tsplib"),
        ("\nNAME: x\nTYPE: TSP\n", "tsplib"),
        ("0 0 1 0 1 1 output 1 2 3 1\n", "dataset"),
        ("0 0 1 0 1 1\n", "dataset"),
        ("x,y\n0,0\n", "csv"),
        ("0.5, 0.25\n", "csv"),
    ],
)
def test_detect_format_by_content(tmp_path: Path, text: str, fmt: str) -> None:
    assert detect_format(write(tmp_path, "cities", text)) == fmt


def test_detect_format_gives_up_politely(tmp_path: Path) -> None:
    with input_error("mystery.dat: cannot tell the format; use --format"):
        detect_format(write(tmp_path, "mystery.dat", "hello world\n"))


def test_load_instances_by_detection_and_by_choice(tmp_path: Path) -> None:
    assert [i.name for i in load_instances(DATA / "berlin52.tsp")] == ["berlin52"]
    assert len(load_instances(DATA / "tsp20_sample.txt", limit=2)) == 2
    assert load_instances(DATA / "cities.csv", "auto")[0].ids.tolist() == [10, 20, 30, 40]
    csv_as_txt = write(tmp_path, "cities.txt", (DATA / "cities.csv").read_text())
    assert load_instances(csv_as_txt, fmt="csv")[0].n == 4


def test_load_instances_errors(tmp_path: Path) -> None:
    with input_error("a.tsp: unknown format 'xml'", ", ".join(FORMATS)):
        load_instances(tmp_path / "a.tsp", fmt="xml")
    with input_error("is a directory"):
        load_instances(tmp_path)
    with input_error("x.tsp: no such file"):
        load_instances(tmp_path / "x.tsp")
    with input_error("x.txt: file is empty"):
        load_instances(write(tmp_path, "x.txt", ""))

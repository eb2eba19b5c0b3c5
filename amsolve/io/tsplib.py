"""Reading TSPLIB .tsp files (symmetric TSP) into Instances.

Supported: TYPE TSP, plain or gzip-compressed, with
- EDGE_WEIGHT_TYPE EUC_2D, CEIL_2D, ATT, GEO, MAN_2D or MAX_2D and a NODE_COORD_SECTION of
  "id x y" lines, or EUC_3D and "id x y z" lines;
- EDGE_WEIGHT_TYPE EXPLICIT and an EDGE_WEIGHT_SECTION in any EDGE_WEIGHT_FORMAT of the TSPLIB95
  documentation (`LAYOUTS`), the cities numbered 1..n. A DISPLAY_DATA_SECTION (or a
  NODE_COORD_SECTION) gives them display coordinates: where to draw them, and what the model
  reads; the lengths come from the matrix alone.
The file is read a line at a time, so a matrix needs no more memory than amsolve keeps of it.
"""

from pathlib import Path

import numpy as np

from amsolve.errors import InputError
from amsolve.io.text import CityRows, DistanceBuffer, at_line, iter_lines, parse_floats, parse_int, split_keyword
from amsolve.io.tour import read_tour
from amsolve.problem import Instance, tour_problem
from amsolve.problem.distance import COORDINATE_DIMENSIONS, EXPLICIT
from amsolve.problem.matrix import check_matrix_size

SUPPORTED_METRICS = ("EUC_2D", "CEIL_2D", "ATT", "GEO", "MAN_2D", "MAX_2D", "EUC_3D", EXPLICIT)

LAYOUTS = {
    "FULL_MATRIX": "FULL_MATRIX",
    "UPPER_ROW": "UPPER_ROW",
    "LOWER_ROW": "LOWER_ROW",
    "UPPER_DIAG_ROW": "UPPER_DIAG_ROW",
    "LOWER_DIAG_ROW": "LOWER_DIAG_ROW",
    "UPPER_COL": "LOWER_ROW",
    "LOWER_COL": "UPPER_ROW",
    "UPPER_DIAG_COL": "LOWER_DIAG_ROW",
    "LOWER_DIAG_COL": "UPPER_DIAG_ROW",
}
"""EDGE_WEIGHT_FORMATs of a symmetric matrix, each with the row layout that lists the same numbers in
the same order: the upper triangle read by columns is the lower one read by rows."""

HEADER_KEYS = frozenset(  # the TSPLIB specification's keywords that take a value
    {
        "NAME",
        "TYPE",
        "COMMENT",
        "DIMENSION",
        "CAPACITY",
        "EDGE_WEIGHT_TYPE",
        "EDGE_WEIGHT_FORMAT",
        "EDGE_DATA_FORMAT",
        "NODE_COORD_TYPE",
        "DISPLAY_DATA_TYPE",
    }
)
_COORD_SECTION = "NODE_COORD_SECTION"
_WEIGHT_SECTION = "EDGE_WEIGHT_SECTION"
_DISPLAY_SECTION = "DISPLAY_DATA_SECTION"
_UNSUPPORTED_SECTIONS = frozenset(
    {"EDGE_DATA_SECTION", "FIXED_EDGES_SECTION", "DEPOT_SECTION", "DEMAND_SECTION", "TOUR_SECTION"}
)


def read_tsplib(path: str | Path) -> Instance:
    """Read a .tsp or .tsp.gz file; an optimal tour found by `find_opt_tour` becomes its reference.

    Header lines are "KEY : VALUE" with any spacing; a missing EOF, blank lines, trailing spaces
    and DOS line endings are fine. Anything else that is wrong raises InputError naming the file
    and, where there is one, the line.
    """
    path = Path(path)
    reader = _Reader(path)
    for line_no, line in enumerate(map(str.strip, iter_lines(path)), start=1):
        if line and not reader.read(line, line_no):
            break
    instance = reader.instance()
    opt_tour = find_opt_tour(path)
    return instance if opt_tour is None else _with_opt_tour(instance, opt_tour)


def find_opt_tour(path: str | Path) -> Path | None:
    """The optimal tour beside a .tsp file (x.tsp or x.tsp.gz → x.opt.tour), if there is one."""
    path = Path(path)
    candidate = path.with_name(f"{_stem(path)}.opt.tour")
    return candidate if candidate.is_file() else None


def _stem(path: Path) -> str:
    """The file name without .gz and .tsp: "berlin52" for berlin52.tsp.gz."""
    return path.name.removesuffix(".gz").removesuffix(".tsp")


def weight_count(layout: str, n: int) -> int:
    """How many numbers an EDGE_WEIGHT_SECTION of `layout` holds for n cities."""
    row_layout = LAYOUTS[layout]
    if row_layout == "FULL_MATRIX":
        return n * n
    return n * (n + 1) // 2 if "DIAG" in row_layout else n * (n - 1) // 2


def matrix_from_weights(weights: np.ndarray, layout: str, n: int) -> np.ndarray:
    """The symmetric (n, n) matrix of an EDGE_WEIGHT_SECTION's numbers in `layout` (any of `LAYOUTS`).

    Diagonal entries a layout leaves out are 0; those it gives are kept, to be checked.
    """
    row_layout = LAYOUTS[layout]
    if row_layout == "FULL_MATRIX":
        return weights.reshape(n, n)
    matrix = np.zeros((n, n), dtype=weights.dtype)
    diagonal = "DIAG" in row_layout
    start = 0
    for i in range(n):
        if row_layout.startswith("UPPER"):
            columns = slice(i if diagonal else i + 1, n)
        else:
            columns = slice(0, i + 1 if diagonal else i)
        row = weights[start : start + columns.stop - columns.start]
        matrix[i, columns] = row
        matrix[columns, i] = row
        start += len(row)
    return matrix


class _Reader:
    """The state of reading one .tsp file: its header so far, the current section and its data."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, str] = {}
        self.section: str | None = None
        self.cities: CityRows | None = None  # NODE_COORD_SECTION
        self.display: CityRows | None = None  # DISPLAY_DATA_SECTION
        self.weights: DistanceBuffer | None = None  # EDGE_WEIGHT_SECTION

    def read(self, line: str, line_no: int) -> bool:
        """Take in one non-blank line; False at EOF."""
        where = at_line(self.path, line_no)
        if not line[0].isalpha():
            self._numbers(line, line_no, where)
            return True
        key, value = split_keyword(line)
        if key == "EOF":
            return False
        if key in HEADER_KEYS:
            _check_header_value(key, value, where)
            self.header[key] = value
        elif key in _UNSUPPORTED_SECTIONS:
            raise InputError(f"{where}: {key} is not supported")
        elif key == _COORD_SECTION:
            self.cities = self._coordinate_rows(where)
        elif key == _DISPLAY_SECTION:
            self.display = CityRows(self.path)
        elif key == _WEIGHT_SECTION:
            self.weights = self._weight_buffer(where)
        else:
            raise InputError(f"{where}: unknown keyword '{key}'")
        if key.endswith("_SECTION"):
            self.section = key
        return True

    def _coordinate_rows(self, where: str) -> CityRows:
        """The rows of a NODE_COORD_SECTION starting here: 3-D if the metric or NODE_COORD_TYPE says so."""
        metric = self.header.get("EDGE_WEIGHT_TYPE", "").upper()
        three_d = metric == "EUC_3D" or self.header.get("NODE_COORD_TYPE", "").upper() == "THREED_COORDS"
        if three_d and metric == EXPLICIT:
            raise InputError(f"{where}: display coordinates must be 2-D")
        return CityRows(self.path, 3 if three_d else 2)

    def _weight_buffer(self, where: str) -> DistanceBuffer:
        """Room for the numbers of the EDGE_WEIGHT_SECTION starting here, as the header announces them."""
        metric = self.header.get("EDGE_WEIGHT_TYPE", "").upper()
        if metric != EXPLICIT:
            raise InputError(f"{where}: {_WEIGHT_SECTION} needs EDGE_WEIGHT_TYPE {EXPLICIT} before it")
        if "DIMENSION" not in self.header or "EDGE_WEIGHT_FORMAT" not in self.header:
            raise InputError(f"{where}: {_WEIGHT_SECTION} needs DIMENSION and EDGE_WEIGHT_FORMAT before it")
        if self.layout not in LAYOUTS:
            raise InputError(f"{where}: {_WEIGHT_SECTION} needs an EDGE_WEIGHT_FORMAT among {', '.join(LAYOUTS)}")
        n = int(self.header["DIMENSION"])
        check_matrix_size(n, str(self.path))
        return DistanceBuffer(weight_count(self.layout, n))

    @property
    def layout(self) -> str:
        """The EDGE_WEIGHT_FORMAT, checked to be a matrix layout once the section starts."""
        return self.header["EDGE_WEIGHT_FORMAT"].upper()

    def _numbers(self, line: str, line_no: int, where: str) -> None:
        """A line of numbers, in the section it belongs to."""
        if self.section is None:
            raise InputError(f"{where}: numbers before {_COORD_SECTION} or {_WEIGHT_SECTION}")
        if self.section == _COORD_SECTION and self.cities is not None:
            _read_city(self.cities, line, line_no)
        elif self.section == _DISPLAY_SECTION and self.display is not None:
            _read_city(self.display, line, line_no)
        elif self.section == _WEIGHT_SECTION and self.weights is not None:
            numbers = parse_floats(line.split(), where, "edge weight")
            if len(numbers) > self.weights.room:
                size, n = len(self.weights.values), self.header["DIMENSION"]
                raise InputError(
                    f"{where}: {_WEIGHT_SECTION} has more than the {size} numbers {self.layout} holds for {n} cities"
                )
            self.weights.add(numbers)

    def instance(self) -> Instance:
        """Check the header against the data read and make the Instance."""
        for key in ("DIMENSION", "EDGE_WEIGHT_TYPE"):
            if key not in self.header:
                raise InputError(f"{self.path}: missing {key}")
        name = self.header.get("NAME", "").removesuffix(".tsp") or _stem(self.path)
        metric = self.header["EDGE_WEIGHT_TYPE"].upper()
        dimension = int(self.header["DIMENSION"])
        if metric == EXPLICIT:
            return self._explicit_instance(name, dimension)
        if self.cities is None or not self.cities.ids:
            raise InputError(f"{self.path}: no cities ({_COORD_SECTION} is missing or empty)")
        coords, ids = self.cities.arrays()
        if len(ids) != dimension:
            raise InputError(f"{self.path}: DIMENSION is {dimension} but {_COORD_SECTION} has {len(ids)} cities")
        if coords.shape[1] != COORDINATE_DIMENSIONS[metric]:
            raise InputError(f"{self.path}: {metric} needs {COORDINATE_DIMENSIONS[metric]} coordinates per city")
        return Instance(name=name, coords=coords, metric=metric, ids=ids, source=str(self.path))

    def _explicit_instance(self, name: str, n: int) -> Instance:
        """The EXPLICIT instance: the matrix, and display coordinates if the file gives them."""
        if self.weights is None:
            raise InputError(f"{self.path}: EDGE_WEIGHT_TYPE {EXPLICIT} needs an {_WEIGHT_SECTION}")
        if self.weights.room:
            raise InputError(
                f"{self.path}: {_WEIGHT_SECTION} has {self.weights.count} numbers, but {self.layout} "
                f"holds {len(self.weights.values)} for {n} cities"
            )
        matrix = matrix_from_weights(self.weights.values, self.layout, n)
        matrix.flags.writeable = False
        display = self.display or self.cities
        coords = None if display is None else self._display_coords(display, n)
        return Instance(
            name=name,
            coords=coords,
            metric=EXPLICIT,
            ids=np.arange(1, n + 1),
            source=str(self.path),
            matrix=matrix,
        )

    def _display_coords(self, rows: CityRows, n: int) -> np.ndarray:
        """Display coordinates (n, 2) in city order; every city 1..n must have one."""
        coords, ids = rows.arrays()
        missing = np.setdiff1d(np.arange(1, n + 1), ids)
        unknown = np.setdiff1d(ids, np.arange(1, n + 1))
        if unknown.size or missing.size:
            problem = f"city {unknown[0]} is not one of 1..{n}" if unknown.size else f"city {missing[0]} is missing"
            raise InputError(f"{self.path}: display coordinates: {problem}")
        ordered = np.empty_like(coords)
        ordered[ids - 1] = coords
        return ordered


def _read_city(rows: CityRows, line: str, line_no: int) -> None:
    """Add one line "id x y" (or "id x y z" for 3-D rows) to `rows`."""
    where = at_line(rows.path, line_no)
    tokens = line.split()
    if len(tokens) != rows.dimensions + 1:
        expected = "id x y z" if rows.dimensions == 3 else "id x y"
        raise InputError(f"{where}: expected '{expected}', got {len(tokens)} values")
    city_id = parse_int(tokens[0], where, "node id")
    rows.add(line_no, city_id, parse_floats(tokens[1:], where, "coordinate"))


def _check_header_value(key: str, value: str, where: str) -> None:
    """Reject a header value amsolve cannot use, on the line where it appears."""
    if key == "TYPE" and value.upper().split()[:1] != ["TSP"]:  # si175 says "TSP (M.~Hofmeister)"
        raise InputError(f"{where}: TYPE {value} is not supported (only TSP)")
    if key == "DIMENSION" and parse_int(value, where, "DIMENSION") < 0:
        raise InputError(f"{where}: DIMENSION must not be negative, got {value}")
    if key == "EDGE_WEIGHT_TYPE" and value.upper() not in SUPPORTED_METRICS:
        raise InputError(f"{where}: EDGE_WEIGHT_TYPE {value} is not supported; use {', '.join(SUPPORTED_METRICS)}")
    if key == "EDGE_WEIGHT_FORMAT" and value.upper() not in (*LAYOUTS, "FUNCTION"):
        raise InputError(f"{where}: EDGE_WEIGHT_FORMAT {value} is not supported; use FUNCTION or {', '.join(LAYOUTS)}")


def _with_opt_tour(instance: Instance, tour_path: Path) -> Instance:
    """Attach the tour in `tour_path` as the instance's proven-optimal reference."""
    tour_ids = np.array(read_tour(tour_path), dtype=np.int64)
    problem = tour_problem(tour_ids, instance.ids)
    if problem:
        raise InputError(f"{tour_path}: {problem}")
    return instance.with_reference(tour=instance.positions_from_ids(tour_ids), optimal=True)

"""Reading TSPLIB .tsp files (symmetric TSP with a NODE_COORD_SECTION) into Instances.

Supported: TYPE TSP with EDGE_WEIGHT_TYPE EUC_2D, CEIL_2D, ATT or GEO, plain or gzip-compressed.
EXPLICIT files are rejected, also when they carry a DISPLAY_DATA_SECTION: those coordinates are
only a drawing aid, the lengths would have to come from the weight matrix, and amsolve measures
every tour on coordinates.
"""

from pathlib import Path

import numpy as np

from amsolve.errors import InputError
from amsolve.io.text import CityRows, at_line, parse_floats, parse_int, read_lines, split_keyword
from amsolve.io.tour import read_tour
from amsolve.problem import Instance, tour_problem

SUPPORTED_METRICS = ("EUC_2D", "CEIL_2D", "ATT", "GEO")

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
_READ_SECTION = "NODE_COORD_SECTION"
_SKIPPED_SECTION = "DISPLAY_DATA_SECTION"
_UNSUPPORTED_SECTIONS = frozenset(
    {
        "EDGE_WEIGHT_SECTION",
        "EDGE_DATA_SECTION",
        "FIXED_EDGES_SECTION",
        "DEPOT_SECTION",
        "DEMAND_SECTION",
        "TOUR_SECTION",
    }
)


def read_tsplib(path: str | Path) -> Instance:
    """Read a .tsp or .tsp.gz file; an optimal tour found by `find_opt_tour` becomes its reference.

    Header lines are "KEY : VALUE" with any spacing; NODE_COORD_SECTION lines are "id x y".
    A missing EOF, blank lines, trailing spaces and DOS line endings are fine. Anything else
    that is wrong raises InputError naming the file and, where there is one, the line.
    """
    path = Path(path)
    lines = read_lines(path)
    header: dict[str, str] = {}
    rows = CityRows(path)
    section: str | None = None
    for line_no, line in enumerate(map(str.strip, lines), start=1):
        if not line:
            continue
        where = at_line(path, line_no)
        if not line[0].isalpha():
            if section is None:
                raise InputError(f"{where}: numbers before {_READ_SECTION}")
            if section == _READ_SECTION:
                _read_city(rows, line, line_no)
            continue
        key, value = split_keyword(line)
        if key == "EOF":
            break
        if key in HEADER_KEYS:
            _check_header_value(key, value, where, lines)
            header[key] = value
        elif key in _UNSUPPORTED_SECTIONS:
            raise InputError(f"{where}: {key} is not supported")
        elif key in (_READ_SECTION, _SKIPPED_SECTION):
            section = key
        else:
            raise InputError(f"{where}: unknown keyword '{key}'")
    instance = _build_instance(path, header, rows)
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


def _read_city(rows: CityRows, line: str, line_no: int) -> None:
    """Add one NODE_COORD_SECTION line "id x y" to `rows`."""
    where = at_line(rows.path, line_no)
    tokens = line.split()
    if len(tokens) != 3:
        raise InputError(f"{where}: expected 'id x y', got {len(tokens)} values")
    city_id = parse_int(tokens[0], where, "node id")
    x, y = parse_floats(tokens[1:], where, "coordinate")
    rows.add(line_no, city_id, x, y)


def _check_header_value(key: str, value: str, where: str, lines: list[str]) -> None:
    """Reject a header value amsolve cannot use, on the line where it appears."""
    if key == "TYPE" and value.upper() != "TSP":
        raise InputError(f"{where}: TYPE {value} is not supported (only TSP)")
    if key == "DIMENSION":
        parse_int(value, where, "DIMENSION")
    if key == "EDGE_WEIGHT_TYPE" and value.upper() not in SUPPORTED_METRICS:
        if value.upper() != "EXPLICIT":
            supported = ", ".join(SUPPORTED_METRICS)
            raise InputError(f"{where}: EDGE_WEIGHT_TYPE {value} is not supported; use {supported}")
        if any(line.strip().startswith(_SKIPPED_SECTION) for line in lines):
            raise InputError(
                f"{where}: EDGE_WEIGHT_TYPE EXPLICIT is not supported; its DISPLAY_DATA_SECTION "
                "only draws the cities, the lengths come from a weight matrix"
            )
        raise InputError(f"{where}: EDGE_WEIGHT_TYPE EXPLICIT has no coordinates for the model")


def _build_instance(path: Path, header: dict[str, str], rows: CityRows) -> Instance:
    """Check the header against the cities read and make the Instance."""
    for key in ("DIMENSION", "EDGE_WEIGHT_TYPE"):
        if key not in header:
            raise InputError(f"{path}: missing {key}")
    coords, ids = rows.arrays()
    if not len(ids):
        raise InputError(f"{path}: no cities ({_READ_SECTION} is missing or empty)")
    dimension = int(header["DIMENSION"])
    if len(ids) != dimension:
        raise InputError(f"{path}: DIMENSION is {dimension} but {_READ_SECTION} has {len(ids)} cities")
    name = header.get("NAME", "").removesuffix(".tsp") or _stem(path)
    metric = header["EDGE_WEIGHT_TYPE"].upper()
    return Instance(name=name, coords=coords, metric=metric, ids=ids, source=str(path))


def _with_opt_tour(instance: Instance, tour_path: Path) -> Instance:
    """Attach the tour in `tour_path` as the instance's proven-optimal reference."""
    tour_ids = np.array(read_tour(tour_path), dtype=np.int64)
    problem = tour_problem(tour_ids, instance.ids)
    if problem:
        raise InputError(f"{tour_path}: {problem}")
    return instance.with_reference(tour=instance.positions_from_ids(tour_ids), optimal=True)

"""Reading CSV files of cities: one city per row, "x,y", "id,x,y" or "name,x,y", with an optional
header row.

Named csvfile so that it is never mistaken for the standard library's csv module, which it uses.
"""

import csv
from pathlib import Path

from amsolve.errors import InputError
from amsolve.io.text import CityRows, at_line, is_number, parse_floats, parse_int, read_lines
from amsolve.problem import Instance

_COLUMN_COUNTS = (2, 3)


def read_csv(path: str | Path) -> Instance:
    """Read a CSV of cities into a EUCLIDEAN Instance named after the file.

    Values are comma-separated, spaces around them and blank lines are ignored, and fields may be
    quoted. A first row whose coordinates are not numbers is a header. Of three columns the first
    holds integer ids or, where the first city's is not a number, names, which then label the tour;
    without ids the cities are numbered by row from 1.
    """
    path = Path(path)
    rows = CityRows(path)
    columns: int | None = None
    named = False
    line_of_name: dict[str, int] = {}
    for line_no, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        where = at_line(path, line_no)
        fields = [field.strip() for field in next(csv.reader([line]))]
        if len(fields) not in _COLUMN_COUNTS:
            hint = "; for a matrix of distances use --format matrix" if len(fields) > max(_COLUMN_COUNTS) else ""
            if len(fields) == 1 and any(separator in line for separator in ";\t"):
                hint = "; values must be separated by commas"
            raise InputError(f"{where}: expected 'x,y', 'id,x,y' or 'name,x,y', got {len(fields)} values{hint}")
        if columns is None:
            columns = len(fields)
            if not all(is_number(field) for field in fields[-2:]):
                continue
        if len(fields) != columns:
            raise InputError(f"{where}: {len(fields)} values, but the first row has {columns}")
        if columns == 3 and not rows.ids:  # the first city tells ids from names
            named = not is_number(fields[0])
        if named:
            _check_name(fields[0], line_of_name, where)
            line_of_name[fields[0]] = line_no
        city_id = parse_int(fields[0], where, "city id") if columns == 3 and not named else len(rows.ids) + 1
        rows.add(line_no, city_id, parse_floats(fields[-2:], where, "coordinate"))
    coords, ids = rows.arrays()
    names = list(line_of_name) if named else None
    return Instance(name=path.stem, coords=coords, metric="EUCLIDEAN", ids=ids, names=names, source=str(path))


def _check_name(name: str, line_of_name: dict[str, int], where: str) -> None:
    """InputError unless `name` is a new, non-empty city name."""
    if not name:
        raise InputError(f"{where}: empty city name (the first city's is a name, so every city needs one)")
    if name in line_of_name:
        raise InputError(f"{where}: duplicate city name {name!r} (first on line {line_of_name[name]})")

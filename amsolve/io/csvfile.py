"""Reading CSV files of cities: one city per row, "x,y" or "id,x,y", with an optional header row.

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
    quoted. A first row that is not all numbers is a header. Without an id column the cities are
    numbered by row from 1.
    """
    path = Path(path)
    rows = CityRows(path)
    columns: int | None = None
    for line_no, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        where = at_line(path, line_no)
        fields = [field.strip() for field in next(csv.reader([line]))]
        if len(fields) not in _COLUMN_COUNTS:
            hint = "; for a matrix of distances use --format matrix" if len(fields) > max(_COLUMN_COUNTS) else ""
            raise InputError(f"{where}: expected 'x,y' or 'id,x,y', got {len(fields)} values{hint}")
        if columns is None:
            columns = len(fields)
            if not all(is_number(field) for field in fields):
                continue
        if len(fields) != columns:
            raise InputError(f"{where}: {len(fields)} values, but the first row has {columns}")
        city_id = parse_int(fields[0], where, "city id") if columns == 3 else len(rows.ids) + 1
        rows.add(line_no, city_id, parse_floats(fields[-2:], where, "coordinate"))
    coords, ids = rows.arrays()
    return Instance(name=path.stem, coords=coords, metric="EUCLIDEAN", ids=ids, source=str(path))

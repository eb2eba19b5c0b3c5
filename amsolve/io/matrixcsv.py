"""Reading a square CSV of distances (`--format matrix`): road distances or travel times between cities.

Row i holds the distances from city i to every city, so the file has as many rows as columns.
An optional first row names the cities (the names then label the tour in output); with it, rows
may also start with their city's name, as a spreadsheet exports them (its top-left cell is then
ignored). Cities are numbered 1..n in file order, as in the .tour files amsolve writes.
"""

import csv
from pathlib import Path

from amsolve.errors import InputError
from amsolve.io.text import DistanceBuffer, at_line, is_number, iter_lines, parse_floats
from amsolve.problem import Instance
from amsolve.problem.matrix import check_matrix_size


def read_matrix_csv(path: str | Path) -> Instance:
    """Read a CSV distance matrix into an EXPLICIT Instance named after the file.

    Values are comma-separated; spaces around them and blank lines are ignored, and fields may be
    quoted. A first row that is not all numbers is the header of city names. The matrix must be
    square, symmetric, non-negative and zero on its diagonal (see `Instance.from_matrix`).
    """
    path = Path(path)
    header: list[str] | None = None
    labelled: bool | None = None  # whether rows start with their city's name
    n: int | None = None
    buffer = DistanceBuffer(0)
    rows = 0
    for line_no, line in enumerate(iter_lines(path), start=1):
        if not line.strip():
            continue
        where = at_line(path, line_no)
        fields = [field.strip() for field in next(csv.reader([line]))]
        if header is None and n is None and not all(map(is_number, fields)):
            if len(fields) > 1 and all(map(is_number, fields[1:])):
                raise InputError(f"{where}: rows that start with a city's name need a header row of the names")
            header = fields
            continue
        if labelled is None:
            labelled = header is not None and not is_number(fields[0])
        if labelled:
            _check_label(fields[0], header, rows, where)
            fields = fields[1:]
        if n is None:
            n = len(fields)
            check_matrix_size(n, str(path))
            buffer = DistanceBuffer(n * n)
        if len(fields) != n:
            raise InputError(f"{where}: {len(fields)} distances, but the first row has {n}")
        if rows == n:
            raise InputError(f"{where}: more than {n} rows of {n} distances; a distance matrix must be square")
        buffer.add(parse_floats(fields, where, "distance"))
        rows += 1
    if n is None:
        raise InputError(f"{path}: no rows of distances")
    if rows != n:
        raise InputError(f"{path}: {rows} rows of {n} distances; a distance matrix must be square")
    matrix = buffer.values.reshape(n, n)
    matrix.flags.writeable = False
    names = _names(header, n, bool(labelled), path)
    return Instance.from_matrix(matrix, names=names, name=path.stem, source=str(path))


def _check_label(label: str, header: list[str], row: int, where: str) -> None:
    """A row's leading name must be its column's name in the header (after the top-left cell)."""
    if row + 1 >= len(header):
        raise InputError(f"{where}: row {row + 1} is named {label!r}, but the header has no column {row + 1}")
    if header[row + 1] != label:
        raise InputError(
            f"{where}: row {row + 1} is named {label!r}, but column {row + 1} {header[row + 1]!r}; "
            "rows and columns must list the cities in the same order"
        )


def _names(header: list[str] | None, n: int, labelled: bool, path: Path) -> list[str] | None:
    """The city names of the header: all its fields, or all but the top-left corner when rows are labelled."""
    if header is None:
        return None
    names = header[1:] if labelled else header
    if len(names) != n:
        raise InputError(f"{path}: the header names {len(names)} cities but the matrix has {n}")
    return names

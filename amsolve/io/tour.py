"""Reading and writing TSPLIB tour files (.tour, .opt.tour): city ids in visiting order."""

from collections.abc import Sequence
from pathlib import Path

from amsolve.errors import InputError
from amsolve.io.text import at_line, parse_int, read_lines, split_keyword, write_text_atomic

_END_OF_TOUR = -1


def read_tour(path: str | Path) -> list[int]:
    """The city ids of the first tour in a TSPLIB tour file, in visiting order.

    Header lines come first ("KEY : VALUE"; TYPE must be TOUR if given, a DIMENSION must match
    the tour); then TOUR_SECTION with ids, any number per line, ended by -1, EOF or the end of
    the file. The ids are not checked against an instance here.
    """
    path = Path(path)
    dimension: int | None = None
    tour: list[int] | None = None
    for line_no, line in enumerate(map(str.strip, read_lines(path)), start=1):
        if not line:
            continue
        where = at_line(path, line_no)
        key, value = split_keyword(line)
        if key == "EOF":
            break
        if tour is None:
            if key == "TOUR_SECTION":
                tour = []
            elif key == "TYPE" and value.upper() != "TOUR":
                raise InputError(f"{where}: TYPE {value} is not a tour (expected TYPE : TOUR)")
            elif key == "DIMENSION":
                dimension = parse_int(value, where, "DIMENSION")
            continue
        ids = [parse_int(token, where, "city id") for token in line.split()]
        if _END_OF_TOUR in ids:
            tour.extend(ids[: ids.index(_END_OF_TOUR)])
            break
        tour.extend(ids)
    if tour is None:
        raise InputError(f"{path}: no TOUR_SECTION")
    if not tour:
        raise InputError(f"{path}: TOUR_SECTION is empty")
    if dimension is not None and len(tour) != dimension:
        raise InputError(f"{path}: DIMENSION is {dimension} but the tour has {len(tour)} cities")
    return tour


def write_tour(
    path: str | Path,
    name: str,
    ids: Sequence[int],
    length: float | None = None,
    force: bool = False,
) -> Path:
    """Write a TSPLIB tour file (atomically); refuse to replace an existing file unless `force`."""
    lines = [f"NAME : {name}", "TYPE : TOUR"]
    if length is not None:
        lines.append(f"COMMENT : Length {_format_length(length)}")
    lines += [f"DIMENSION : {len(ids)}", "TOUR_SECTION", *(str(int(i)) for i in ids), "-1", "EOF"]
    return write_text_atomic(Path(path), "\n".join(lines) + "\n", force)


def _format_length(length: float) -> str:
    """An integer length without ".0", any other with all its digits (shortest round trip)."""
    return str(int(length)) if float(length).is_integer() else repr(float(length))

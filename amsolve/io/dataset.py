"""Concorde-style dataset text: one instance per line, "x1 y1 ... xn yn output t1 ... tn t1".

The tour after "output" is 1-indexed and closes on its first city; lines without it have no
reference. This is the test-set format of DIFUSCO, ML4CO-Kit and others, and of ../shared/data.
"""

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from amsolve.errors import InputError, TourError
from amsolve.io.text import at_line, parse_floats, parse_int, read_lines, write_text_atomic
from amsolve.problem import Instance, tour_problem

OUTPUT_KEYWORD = "output"


def check_limit(limit: int | None) -> None:
    """InputError unless `limit` (a number of instances to read) is None or at least 1."""
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")


def read_dataset(path: str | Path, limit: int | None = None) -> list[Instance]:
    """The instances of a dataset file (EUCLIDEAN), the first `limit` only if given.

    Instance i is named "<stem>#<line>" and its source is "<path>:<line>". A reference tour's
    length is its float Euclidean length; it is not marked optimal (LKH tours are near-optimal,
    not proven). Lines after the first `limit` instances are not parsed.
    """
    path = Path(path)
    check_limit(limit)
    instances: list[Instance] = []
    for line_no, line in enumerate(read_lines(path), start=1):
        if limit is not None and len(instances) == limit:
            break
        if not line.strip():
            continue
        coords, tour = parse_dataset_line(line, at_line(path, line_no))
        instances.append(
            Instance(
                name=f"{path.stem}#{line_no}",
                coords=coords,
                metric="EUCLIDEAN",
                ids=np.arange(1, len(coords) + 1),
                reference_tour=tour,
                source=f"{path}:{line_no}",
            )
        )
    return instances


def parse_dataset_line(line: str, where: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Coordinates (n, 2) and the reference tour as 0-based positions (n,), or None, of one line.

    `where` prefixes error messages, e.g. "tsp20.txt line 12".
    """
    tokens = line.split()
    coord_tokens, tour_tokens = tokens, None
    if OUTPUT_KEYWORD in tokens:
        split = tokens.index(OUTPUT_KEYWORD)
        coord_tokens, tour_tokens = tokens[:split], tokens[split + 1 :]
    values = parse_floats(coord_tokens, where, "coordinate")
    if len(values) % 2:
        raise InputError(f"{where}: odd number of coordinate values ({len(values)})")
    coords = values.reshape(-1, 2)
    if tour_tokens is None:
        return coords, None
    return coords, _parse_reference_tour(tour_tokens, len(coords), where)


def _parse_reference_tour(tokens: list[str], n: int, where: str) -> np.ndarray:
    """Check a closed 1-indexed tour "t1 ... tn t1" over n cities and return it 0-based, open."""
    if not tokens:
        raise InputError(f"{where}: reference tour is empty")
    closed = [parse_int(token, where, "reference tour entry") for token in tokens]
    if closed[-1] != closed[0]:
        raise InputError(f"{where}: reference tour does not return to its first city")
    tour_ids = np.array(closed[:-1], dtype=np.int64)
    problem = tour_problem(tour_ids, np.arange(1, n + 1))
    if problem:
        raise InputError(f"{where}: reference {problem}")
    return tour_ids - 1


def write_dataset(
    path: str | Path,
    coords_list: Sequence[np.ndarray],
    tours_list: Sequence[np.ndarray] | None = None,
    force: bool = False,
) -> Path:
    """Write instances (and optionally their tours, 0-based positions) as dataset text, atomically.

    Coordinates are written with repr(), the shortest text that reads back to the same float64,
    so 6-decimal inputs stay 6 decimals and nothing is lost. Tours are written 1-indexed, closed.
    """
    path = Path(path)
    if tours_list is not None and len(tours_list) != len(coords_list):
        raise ValueError(f"{len(coords_list)} instances but {len(tours_list)} tours")
    lines = []
    for index, coords in enumerate(coords_list):
        coords = np.asarray(coords, dtype=np.float64)
        line = " ".join(map(repr, coords.ravel().tolist()))
        if tours_list is not None:
            tour_ids = np.asarray(tours_list[index]) + 1
            problem = tour_problem(tour_ids, np.arange(1, len(coords) + 1))
            if problem:
                raise TourError(f"{path}: instance {index}: {problem}")
            closed = [*tour_ids.tolist(), int(tour_ids[0])]
            line += f" {OUTPUT_KEYWORD} " + " ".join(map(str, closed))
        lines.append(line)
    return write_text_atomic(path, "\n".join(lines) + "\n", force)

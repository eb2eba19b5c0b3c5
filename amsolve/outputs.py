"""Tour files `amsolve solve` writes on request (TSPLIB `.tour`), never replacing one without --force."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from amsolve.errors import InputError
from amsolve.io import write_tour
from amsolve.problem import Instance
from amsolve.solver import Solution


def safe_file_stem(name: str) -> str:
    """An instance name made safe as a file name: a NAME like `../x` or `/tmp/x` stays in its directory."""
    return re.sub(r"[^\w.+#-]", "_", name).lstrip(".") or "unnamed"


def tour_paths(directory: Path, instances: Sequence[Instance]) -> list[Path]:
    """Where each instance's tour goes: `directory/NAME.tour` (names must be distinct)."""
    paths = [directory / f"{safe_file_stem(instance.name)}.tour" for instance in instances]
    seen: set[Path] = set()
    for path in paths:
        if path in seen:
            raise InputError(f"two instances are named {path.stem!r}; their tours would share {path}")
        seen.add(path)
    return paths


def check_writable(paths: Sequence[Path], force: bool) -> None:
    """Fails before any work is done if an output file could not be written or may not be replaced."""
    for path in paths:
        if path.is_dir():
            raise InputError(f"{path}: is a directory, not a file")
        if path.exists() and not force:
            raise InputError(f"{path}: file exists; use --force to overwrite")
        if not path.parent.is_dir():
            raise InputError(f"{path}: directory {path.parent} does not exist")


def check_tour_directory(directory: Path, instances: Sequence[Instance], force: bool) -> None:
    """Fails before any work is done if the tours could not go into `directory`."""
    if directory.exists() and not directory.is_dir():
        raise InputError(f"{directory}: is a file; --tour-out takes a directory")
    check_writable([path for path in tour_paths(directory, instances) if path.exists()], force)


def write_tours(directory: Path, solutions: Sequence[Solution], force: bool) -> list[Path]:
    """Writes each solution as a TSPLIB `.tour` file with the file's own city ids."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"{directory}: cannot create the directory: {err.strerror or err}") from err
    paths = tour_paths(directory, [solution.instance for solution in solutions])
    for path, solution in zip(paths, solutions, strict=True):
        write_tour(path, solution.instance.name, solution.instance.tour_ids(solution.tour), solution.length, force)
    return paths

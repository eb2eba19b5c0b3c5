"""Choosing a reader for a file: by --format, else by the file name, else by its first line."""

from collections.abc import Callable
from pathlib import Path

from amsolve.errors import InputError
from amsolve.io.csvfile import read_csv
from amsolve.io.dataset import OUTPUT_KEYWORD, read_dataset
from amsolve.io.matrixcsv import read_matrix_csv
from amsolve.io.text import is_number, iter_lines, split_keyword
from amsolve.io.tsplib import HEADER_KEYS, read_tsplib
from amsolve.problem import Instance

FORMATS = ("auto", "tsplib", "csv", "matrix", "dataset")
"""`matrix` is a CSV of distances; it is never detected, always asked for."""

_FORMAT_OF_SUFFIX = {".tsp": "tsplib", ".csv": "csv", ".txt": "dataset"}
_SINGLE_INSTANCE_READERS: dict[str, Callable[[Path], Instance]] = {
    "tsplib": read_tsplib,
    "csv": read_csv,
    "matrix": read_matrix_csv,
}
_MIN_DATASET_VALUES = 6
"""A dataset line has at least 3 cities, so at least 6 numbers before "output"."""


def detect_format(path: str | Path) -> str:
    """The format of a file: "tsplib", "csv" or "dataset".

    The suffix decides (.tsp → tsplib, .csv → csv, .txt → dataset, each also with .gz).
    Otherwise the first non-blank line does: a TSPLIB "KEY : VALUE", a dataset line ("output"
    or at least 6 numbers), or comma-separated values.
    """
    path = Path(path)
    suffix = Path(path.name.removesuffix(".gz")).suffix.lower()
    if suffix in _FORMAT_OF_SUFFIX:
        return _FORMAT_OF_SUFFIX[suffix]
    first = next(line.strip() for line in iter_lines(path) if line.strip())
    tokens = first.split()
    if ":" in first and split_keyword(first)[0] in HEADER_KEYS:
        return "tsplib"
    if OUTPUT_KEYWORD in tokens or (len(tokens) >= _MIN_DATASET_VALUES and all(map(is_number, tokens))):
        return "dataset"
    if "," in first:
        return "csv"
    raise InputError(f"{path}: cannot tell the format; use --format tsplib, csv, matrix or dataset")


def load_instances(path: str | Path, fmt: str = "auto", limit: int | None = None) -> list[Instance]:
    """The instances in one file, read in format `fmt` (one of FORMATS; "auto" detects it).

    `limit` keeps the first instances of a dataset file; a TSPLIB or CSV file holds one instance.
    A CSV of distances is read only when asked for ("matrix"): by its suffix it is a CSV of cities.
    Directories are not expanded here: that is the caller's choice.
    """
    path = Path(path)
    if fmt not in FORMATS:
        raise InputError(f"{path}: unknown format '{fmt}'; expected one of {', '.join(FORMATS)}")
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt == "dataset":
        return read_dataset(path, limit)
    return [_SINGLE_INSTANCE_READERS[fmt](path)]


def load_instance(path: str | Path, number: int = 1) -> Instance:
    """The `number`-th instance (from 1) of a file, its format detected; an InputError if there is none."""
    path = Path(path)
    if number < 1:
        raise InputError(f"--instance must be at least 1, not {number}")
    instances = load_instances(path, limit=number)
    if len(instances) < number:
        held = f"{len(instances)} instance{'s' * (len(instances) != 1)}"
        raise InputError(f"{path}: holds {held}, so there is no instance {number}")
    return instances[number - 1]

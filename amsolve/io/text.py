"""What the readers and writers share: text files in and out, numbers and cities, located errors.

Every error is an InputError with a one-line message that starts with where the problem is:
"berlin52.tsp" for the whole file, "berlin52.tsp line 7" for one line (`at_line`).
"""

import gzip
import io
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from amsolve.errors import InputError
from amsolve.files import atomic_write


def at_line(path: Path, line_no: int) -> str:
    """The prefix that locates a problem on a line of a file, e.g. "berlin52.tsp line 7"."""
    return f"{path} line {line_no}"


def read_lines(path: Path) -> list[str]:
    """The lines of a text file (gunzipped if named .gz); InputError if missing or blank.

    Bytes that are not UTF-8 become U+FFFD, so a binary file fails on its first bad value.
    """
    return list(iter_lines(path))


def iter_lines(path: Path) -> Iterator[str]:
    """The lines of a text file one at a time, as `read_lines` gives them, without holding the file.

    Missing files and directories fail at once; a file with no non-blank line fails when the
    iteration reaches its end; a corrupt gzip stream fails where it is found.
    """
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file")
    return _lines(path)


def _lines(path: Path) -> Iterator[str]:
    """The generator behind `iter_lines`: line endings \n, \r\n and \r all end a line."""
    blank = True
    try:
        with open(path, "rb") as raw:
            binary = gzip.GzipFile(fileobj=raw) if path.suffix == ".gz" else raw
            for line in io.TextIOWrapper(binary, encoding="utf-8", errors="replace", newline=None):
                line = line.rstrip("\n")
                blank = blank and not line.strip()
                yield line
    except (OSError, EOFError, zlib.error) as err:
        raise InputError(f"{path}: cannot read: {err}") from err
    if blank:
        raise InputError(f"{path}: file is empty")


def split_keyword(line: str) -> tuple[str, str]:
    """Split a TSPLIB keyword line "KEY : VALUE" (any spacing, or just "KEY") into (KEY, VALUE)."""
    key, _, value = line.partition(":")
    return key.strip(), value.strip()


def is_number(token: str) -> bool:
    """Whether a token reads as a float, as in telling a header row from data."""
    try:
        float(token)
    except ValueError:
        return False
    return True


def parse_floats(tokens: Sequence[str], where: str, what: str) -> np.ndarray:
    """Tokens as finite float64 values; else InputError "<where>: non-numeric <what> 'abc'"."""
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        values = np.array([_parse_float(token, where, what) for token in tokens], dtype=np.float64)
    not_finite = ~np.isfinite(values)
    if not_finite.any():
        raise InputError(f"{where}: non-finite {what} '{tokens[int(np.argmax(not_finite))]}'")
    return values


def _parse_float(token: str, where: str, what: str) -> float:
    """Parse one float token, naming it in the error if it is not a number."""
    try:
        return float(token)
    except ValueError:
        raise InputError(f"{where}: non-numeric {what} '{token}'") from None


def parse_int(token: str, where: str, what: str) -> int:
    """One integer token; else InputError "<where>: <what> must be an integer, got '1.5'"."""
    try:
        return int(token)
    except ValueError:
        raise InputError(f"{where}: {what} must be an integer, got '{token}'") from None


class CityRows:
    """Collects the cities of one file line by line, rejecting negative and repeated ids."""

    def __init__(self, path: Path, dimensions: int = 2) -> None:
        self.path = path
        self.dimensions = dimensions
        self.ids: list[int] = []
        self.coords: list[Sequence[float]] = []
        self._line_of_id: dict[int, int] = {}

    def add(self, line_no: int, city_id: int, coords: Sequence[float]) -> None:
        """Add the city read on line `line_no`, with its `dimensions` coordinates."""
        where = at_line(self.path, line_no)
        if city_id < 0:
            raise InputError(f"{where}: city id must not be negative, got {city_id}")
        if city_id in self._line_of_id:
            first = self._line_of_id[city_id]
            raise InputError(f"{where}: duplicate city id {city_id} (first on line {first})")
        self._line_of_id[city_id] = line_no
        self.ids.append(city_id)
        self.coords.append(coords)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The coordinates (n, dimensions) as float64 and the ids (n,) as int64."""
        coords = np.array(self.coords, dtype=np.float64).reshape(-1, self.dimensions)
        return coords, np.array(self.ids, dtype=np.int64)


class DistanceBuffer:
    """The numbers of a distance matrix as a reader finds them, stored as they come at 4 bytes each.

    Holds int32 while every number is a whole number below 2**31 (every TSPLIB matrix), and turns
    into float32 at the first that is not, so a matrix is read in about the memory it is kept in.
    """

    def __init__(self, size: int) -> None:
        self.values = np.empty(size, dtype=np.int32)
        self.count = 0

    @property
    def room(self) -> int:
        """How many more numbers fit."""
        return len(self.values) - self.count

    def add(self, numbers: np.ndarray) -> None:
        """Append float64 numbers; callers check `room` first."""
        end = self.count + len(numbers)
        if self.values.dtype == np.int32 and not _whole_int32(numbers):
            self.values = self.values.astype(np.float32)
        self.values[self.count : end] = numbers
        self.count = end


def _whole_int32(numbers: np.ndarray) -> bool:
    """Whether all numbers are whole and fit in an int32."""
    return bool(np.all(np.floor(numbers) == numbers) and np.all(np.abs(numbers) < 2**31))


def write_text_atomic(path: Path, text: str, force: bool = False) -> Path:
    """Writes `text` to `path` atomically (see `atomic_write`); an existing file only with `force`."""
    if path.exists() and not force:
        raise InputError(f"{path}: file exists; use --force to overwrite")
    if not path.parent.is_dir():
        raise InputError(f"{path}: directory {path.parent} does not exist")
    try:
        atomic_write(path, lambda file: file.write(text.encode("utf-8")))
    except OSError as err:
        raise InputError(f"{path}: cannot write: {err.strerror or err}") from err
    return path

"""Distance matrices as amsolve keeps them: symmetric, checked, and 4 bytes per entry.

A matrix of whole numbers below 2**31 (every TSPLIB matrix) is kept as int32, so lengths are
exact; any other as float32 (about 7 significant digits). 5,000 cities then take 100 MB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from amsolve.errors import InputError

MAX_MATRIX_CITIES = 10_000
"""The largest distance matrix amsolve takes: 10,000 cities are 400 MB as 4-byte entries, and the
local search reads a second copy of them. Larger instances need coordinates."""

_INT32_LIMIT = 2**31
_ENTRIES_PER_BLOCK = 1 << 20
"""Rows are checked a block of about this many entries at a time, so no check copies the whole matrix."""


def check_matrix_size(n: int, where: str) -> None:
    """InputError before anything is allocated if a matrix of n cities is above `MAX_MATRIX_CITIES`."""
    if n > MAX_MATRIX_CITIES:
        raise InputError(
            f"{where}: {n:,} cities are more than the {MAX_MATRIX_CITIES:,} amsolve takes as a distance matrix "
            f"(it would need {4 * n * n / 1e9:.1f} GB twice over); give coordinates instead"
        )


def _row_blocks(n: int) -> Iterator[slice]:
    """Consecutive slices of rows, each about `_ENTRIES_PER_BLOCK` entries."""
    rows = max(1, _ENTRIES_PER_BLOCK // max(n, 1))
    for begin in range(0, n, rows):
        yield slice(begin, min(begin + rows, n))


def _first(mask: np.ndarray, rows: slice) -> tuple[int, int]:
    """Row and column (in the whole matrix) of the first True entry of a block's mask."""
    i, j = np.unravel_index(int(np.argmax(mask)), mask.shape)
    return rows.start + int(i), int(j)


def _format(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def as_array(values: object, where: str) -> np.ndarray:
    """`values` (an array or nested sequences) as a numpy array; InputError if its rows differ in length."""
    try:
        return np.asarray(values)
    except ValueError:
        raise InputError(f"{where}: a distance matrix must be square; its rows differ in length") from None


def compact_matrix(values: object, where: str, city: Callable[[int], str]) -> np.ndarray:
    """`values` as a read-only int32 or float32 (n, n) matrix; InputError unless it is a distance matrix.

    A distance matrix is square, numeric, finite and non-negative, with zeros on its diagonal, and
    symmetric: asymmetric problems are not supported. `city(i)` names row i in messages (an id
    or a name). A read-only C-contiguous int32 or float32 array that passes is kept, not copied.
    """
    matrix = as_array(values, where)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise InputError(f"{where}: a distance matrix must be square, got shape {matrix.shape}")
    if not (np.issubdtype(matrix.dtype, np.integer) or np.issubdtype(matrix.dtype, np.floating)):
        raise InputError(f"{where}: distances must be numbers, got {matrix.dtype}")
    n = len(matrix)
    check_matrix_size(n, where)
    integers = np.issubdtype(matrix.dtype, np.integer)
    whole = small = True
    for rows in _row_blocks(n):
        block = matrix[rows]
        problem = _entry_problem(block, rows, city)
        if problem:
            raise InputError(f"{where}: {problem}")
        if not np.array_equal(block, matrix[:, rows].T):
            i, j = _first(block != matrix[:, rows].T, rows)
            raise InputError(
                f"{where}: the distance from {city(i)} to {city(j)} is {_format(matrix[i, j])} but from "
                f"{city(j)} to {city(i)} {_format(matrix[j, i])}; amsolve solves symmetric problems only"
            )
        whole = whole and (integers or bool(np.all(np.floor(block) == block)))
        small = small and bool(block.max(initial=0) < _INT32_LIMIT)
    dtype = np.int32 if whole and small else np.float32
    if matrix.dtype != dtype or matrix.flags.writeable or not matrix.flags.c_contiguous:
        matrix = np.array(matrix, dtype=dtype, order="C")
        matrix.flags.writeable = False
    return matrix


def _entry_problem(block: np.ndarray, rows: slice, city: Callable[[int], str]) -> str | None:
    """What is wrong with the entries of a block of rows (not finite, negative, a diagonal not 0), or None."""
    if np.issubdtype(block.dtype, np.floating) and not np.isfinite(block).all():
        i, j = _first(~np.isfinite(block), rows)
        return f"the distance from {city(i)} to {city(j)} is {block[i - rows.start, j]}, not a finite number"
    if (block < 0).any():
        i, j = _first(block < 0, rows)
        return f"the distance from {city(i)} to {city(j)} is negative ({_format(block[i - rows.start, j])})"
    diagonal = block[np.arange(block.shape[0]), np.arange(rows.start, rows.stop)]
    if (diagonal != 0).any():
        i = rows.start + int(np.argmax(diagonal != 0))
        return f"the distance from {city(i)} to itself is {_format(diagonal[i - rows.start])}, not 0"
    return None

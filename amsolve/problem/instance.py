"""A TSP instance (cities or a distance matrix, file ids, metric, optional reference tour) and checks on its tours."""

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from amsolve.errors import InputError, TourError
from amsolve.problem import distance
from amsolve.problem.embedding import classical_mds, principal_components
from amsolve.problem.matrix import as_array, compact_matrix


def check_permutations(tours: np.ndarray, n: int) -> np.ndarray:
    """`tours` (k, n) as a contiguous int64 copy; a TourError unless each row is a permutation of range(n)."""
    tours = np.asarray(tours)
    if tours.ndim != 2 or tours.shape[1] != n or not np.issubdtype(tours.dtype, np.integer):
        raise TourError(f"tours must be an integer array (k, {n}), got {tours.dtype} {tours.shape}")
    invalid = ~_rows_are_permutations(tours, n)  # (k,)
    if invalid.any():
        raise TourError(f"tours[{int(np.argmax(invalid))}] is not a permutation of the {n} cities")
    return np.array(tours, dtype=np.int64, order="C")


def tour_problem(tour_ids: np.ndarray, ids: np.ndarray) -> str | None:
    """Say what keeps `tour_ids` from visiting every city of `ids` once; None if nothing does.

    Both arrays hold city ids (not positions), so the message names cities as the file does,
    e.g. "tour has 51 cities, expected 52; never visits city 17".
    """
    tour_ids = np.asarray(tour_ids)
    if tour_ids.ndim != 1:
        return f"tour must be a flat sequence of cities, got shape {tour_ids.shape}"
    unknown = tour_ids[~np.isin(tour_ids, ids)]
    if unknown.size:
        return f"tour visits city {unknown[0]}, which the instance does not have"
    problems = []
    if len(tour_ids) != len(ids):
        problems.append(f"has {len(tour_ids)} cities, expected {len(ids)}")
    values, counts = np.unique(tour_ids, return_counts=True)
    if (counts > 1).any():
        problems.append(f"visits city {values[counts > 1][0]} more than once")
    missing = ids[~np.isin(ids, tour_ids)]
    if missing.size:
        problems.append(f"never visits city {missing[0]}")
    return "tour " + "; ".join(problems) if problems else None


def is_permutation(tour: np.ndarray, n: int) -> bool:
    """Whether `tour` is a 1-D integer array holding each of 0..n-1 once: the check every solve
    makes on its result, so it is kept to a few microseconds at a hundred cities (`tour_problem`
    says what is wrong, and takes longer)."""
    if tour.ndim != 1 or tour.shape[0] != n or not np.issubdtype(tour.dtype, np.integer):
        return False
    return bool(_rows_are_permutations(tour[None], n)[0])


@njit(cache=True)
def _marked_permutations(tours: np.ndarray, n: int) -> np.ndarray:
    """`_rows_are_permutations` of int64 rows: each entry marked seen, a row failing at its first
    entry outside 0..n-1 or seen before."""
    valid = np.ones(tours.shape[0], dtype=np.bool_)
    seen = np.zeros(n, dtype=np.bool_)
    for row in range(tours.shape[0]):
        seen[:] = False
        for city in tours[row]:
            if city < 0 or city >= n or seen[city]:
                valid[row] = False
                break
            seen[city] = True
    return valid


def _rows_are_permutations(tours: np.ndarray, n: int) -> np.ndarray:
    """Whether each row of the integer array `tours` (k, n) holds each of 0..n-1 once: (k,) bool.
    Linear in k·n, compiled: 1–2 µs at 100 cities, where numpy's calls took 30 µs (a sort of the
    rows took 1.4 ms at 100,000 cities)."""
    if tours.dtype == np.uint64 and tours.size and tours.max() > np.iinfo(np.int64).max:
        return np.zeros(tours.shape[0], dtype=bool)  # beyond int64, so beyond any city
    return _marked_permutations(tours.astype(np.int64, copy=False), n)


def _read_only(values: np.ndarray, dtype: type) -> np.ndarray:
    """A read-only copy, so that a frozen Instance cannot be changed through its arrays."""
    array: np.ndarray = np.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


PLANAR_KINDS = {
    "coordinates": "their coordinates",
    "display": "the file's display coordinates (lengths from the matrix)",
    "principal components": "the first two principal components of their 3-D coordinates",
    "MDS": "a 2-D MDS embedding of the distance matrix (positions approximate)",
}
"""What `Instance.planar_coords` can be, and how a figure says where it drew the cities."""


def unit_square(points: np.ndarray) -> np.ndarray:
    """Points (..., m, 2) shifted so each axis starts at 0 and divided by the larger range, aspect
    kept, so they lie in the unit square; coinciding points all go to (0, 0)."""
    low = points.min(axis=-2, keepdims=True)
    span = (points.max(axis=-2, keepdims=True) - low).max(axis=-1, keepdims=True)
    return (points - low) / np.where(span > 0, span, 1.0)


@dataclass(frozen=True, eq=False)
class Instance:
    """One TSP instance as read from a file.

    Distances come from `coords` under `metric`, or for EXPLICIT from `matrix` (n, n); the
    distance rules read `points`, which is the one or the other. `coords` are the file's own
    coordinates (never normalised here): (n, 2), (n, 3) for EUC_3D, and for EXPLICIT the display
    coordinates if the file has them, else None. The model reads `normalized_coords()`, made from
    `planar_coords`. `ids` are the file's own city numbers and `names` (optional) the cities'
    names; tours are 0-based positions into all of them. The arrays are read-only copies.
    A reference tour given without a length gets its length computed. Instances compare by
    identity (eq=False): equality of numpy fields has no single truth value.
    """

    name: str
    coords: np.ndarray | None
    metric: str
    ids: np.ndarray
    reference_tour: np.ndarray | None = None
    reference_length: float | None = None
    reference_is_optimal: bool = False
    source: str | None = None
    matrix: np.ndarray | None = None
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        """Store read-only arrays and check that the instance is usable; InputError if not."""
        self._check_distances()
        self._check_ids()
        self._check_coordinate_values()
        self._check_reference()

    @classmethod
    def from_matrix(
        cls,
        distances: np.ndarray | Sequence[Sequence[float]],
        names: Sequence[str] | None = None,
        name: str = "matrix",
        display_coords: np.ndarray | None = None,
        source: str | None = None,
    ) -> "Instance":
        """An EXPLICIT instance from a symmetric (n, n) matrix of distances; cities are numbered 1..n.

        `names` label the cities in output; `display_coords` (n, 2), if given, place them for the
        model and for plots. The matrix is kept as int32 when its entries are whole numbers below
        2**31, else as float32 (see `amsolve.problem.matrix`).
        """
        matrix = as_array(distances, source or name)
        return cls(
            name=name,
            coords=display_coords,
            metric=distance.EXPLICIT,
            ids=np.arange(1, (matrix.shape[0] if matrix.ndim else 0) + 1),
            source=source,
            matrix=matrix,
            names=None if names is None else tuple(names),
        )

    def _check_distances(self) -> None:
        """Check and store the metric and what it reads: the matrix, or coordinates of the right shape.

        Display coordinates of an EXPLICIT instance are optional and have shape (n, 2).
        """
        if self.metric not in distance.METRICS:
            known = ", ".join(distance.METRICS)
            raise InputError(f"{self.label}: unknown metric {self.metric!r}; expected {known}")
        explicit = self.metric == distance.EXPLICIT
        if explicit:
            if self.matrix is None:
                raise InputError(f"{self.label}: EXPLICIT distances need a matrix")
            object.__setattr__(self, "matrix", compact_matrix(self.matrix, self.label, self._city_label))
        elif self.matrix is not None:
            raise InputError(f"{self.label}: a distance matrix needs the metric EXPLICIT, not {self.metric}")
        if self.coords is None:
            if not explicit:
                raise InputError(f"{self.label}: {self.metric} distances need coordinates")
            return
        coords = _read_only(self.coords, np.float64)
        dimensions = distance.COORDINATE_DIMENSIONS.get(self.metric, 2)
        if coords.ndim != 2 or coords.shape[1] != dimensions:
            raise InputError(f"{self.label}: coordinates must have shape (n, {dimensions}), got {coords.shape}")
        if explicit and len(coords) != len(self.matrix):
            raise InputError(f"{self.label}: {len(coords)} display coordinates for {len(self.matrix)} cities")
        object.__setattr__(self, "coords", coords)

    def _city_label(self, index: int) -> str:
        """How a message names the city at a position, before the ids and names are checked."""
        if self.names is not None and index < len(self.names):
            return repr(self.names[index])
        ids = np.asarray(self.ids)
        return f"city {ids[index] if ids.ndim == 1 and index < len(ids) else index + 1}"

    def _check_ids(self) -> None:
        """Check and store the ids and the names, if any; at least 3 cities."""
        n = len(self.points)
        if n < 3:
            raise InputError(f"{self.label}: needs at least 3 cities, got {n}")
        ids = np.asarray(self.ids)
        if ids.shape != (n,) or not np.issubdtype(ids.dtype, np.integer):
            raise InputError(f"{self.label}: need {n} integer city ids, got {ids.dtype} {ids.shape}")
        object.__setattr__(self, "ids", _read_only(ids, np.int64))
        values, counts = np.unique(self.ids, return_counts=True)
        if (counts > 1).any():
            raise InputError(f"{self.label}: duplicate city id {values[counts > 1][0]}")
        if self.names is not None:
            names = tuple(self.names)
            if len(names) != n or not all(isinstance(name, str) and name for name in names):
                raise InputError(f"{self.label}: need {n} non-empty city names, got {len(names)}")
            if len(set(names)) < n:
                repeated = next(name for name in names if names.count(name) > 1)
                raise InputError(f"{self.label}: two cities are named {repeated!r}")
            object.__setattr__(self, "names", names)

    def _check_coordinate_values(self) -> None:
        """Coordinates must be finite and close enough that their squared differences are too."""
        if self.coords is None:
            return
        not_finite = ~np.isfinite(self.coords).all(axis=1)
        if not_finite.any():
            raise InputError(f"{self.label}: city {self.ids[not_finite][0]} has a non-finite coordinate")
        with np.errstate(over="ignore"):
            squared_diagonal = np.square(self.coords.max(axis=0) - self.coords.min(axis=0)).sum()
        if not np.isfinite(squared_diagonal):  # distances square their differences
            raise InputError(f"{self.label}: the coordinates span too wide a range for floating-point distances")

    def _check_reference(self) -> None:
        """Check and store the reference tour, computing its length unless one is given."""
        if self.reference_tour is not None:
            tour = _read_only(self.validate_tour(self.reference_tour), np.int64)
            object.__setattr__(self, "reference_tour", tour)
            if self.reference_length is None:
                object.__setattr__(self, "reference_length", self.tour_length(tour))
        if self.reference_length is not None:
            length = float(self.reference_length)
            if not (np.isfinite(length) and length >= 0):
                raise InputError(f"{self.label}: reference length {length} is not a length")
            object.__setattr__(self, "reference_length", length)

    @property
    def n(self) -> int:
        """Number of cities."""
        return len(self.ids)

    @property
    def points(self) -> np.ndarray:
        """What the distance rules read: the matrix for EXPLICIT, else the coordinates."""
        return self.matrix if self.metric == distance.EXPLICIT else self.coords

    @property
    def planar_kind(self) -> str:
        """What `planar_coords` are: a key of `PLANAR_KINDS`."""
        if self.metric == distance.EXPLICIT:
            return "display" if self.coords is not None else "MDS"
        return "principal components" if self.coords.shape[1] == 3 else "coordinates"

    @functools.cached_property
    def planar_coords(self) -> np.ndarray:
        """The cities in the plane (n, 2), for the model and for plots; distances never use them.

        The coordinates themselves for 2-D metrics; for EUC_3D their first two principal
        components; for EXPLICIT the display coordinates if the file has them, else a classical
        MDS embedding of the matrix (computed once, on first use).
        """
        kind = self.planar_kind
        if kind == "MDS":
            coords = classical_mds(self.matrix)
        elif kind == "principal components":
            coords = principal_components(self.coords)
        else:
            coords = self.coords
        return _read_only(coords, np.float64)

    @property
    def label(self) -> str:
        """How messages name this instance: where it came from if known, else its name."""
        return self.source or self.name

    def validate_tour(self, tour: np.ndarray) -> np.ndarray:
        """`tour` as int64 if it is a permutation of range(n); else a TourError saying why."""
        tour = np.asarray(tour)
        if not is_permutation(tour, self.n):
            raise TourError(f"{self.label}: {self._tour_problem(tour)}")
        return tour.astype(np.int64, copy=False)

    def _tour_problem(self, tour: np.ndarray) -> str | None:
        """What keeps `tour` (0-based positions) from being a permutation of range(n), or None."""
        if tour.ndim != 1 or not np.issubdtype(tour.dtype, np.integer):
            return f"a tour must be a 1-D integer array, got {tour.dtype} {tour.shape}"
        outside = (tour < 0) | (tour >= self.n)
        if outside.any():
            return f"tour entry {tour[outside][0]} is not a city index 0..{self.n - 1}"
        return tour_problem(self.ids[tour], self.ids)

    def tour_length(self, tour: np.ndarray) -> float:
        """Length of a closed tour (0-based positions) in the instance's metric; validates first."""
        return distance.tour_length(self.points, self.metric, self.validate_tour(tour))

    def tour_ids(self, tour: np.ndarray) -> list[int]:
        """The file's city ids along a tour given as 0-based positions."""
        return self.ids[self.validate_tour(tour)].tolist()

    def tour_names(self, tour: np.ndarray) -> list[str] | None:
        """The cities' names along a tour given as 0-based positions; None if they have no names."""
        if self.names is None:
            return None
        return [self.names[position] for position in self.validate_tour(tour)]

    def positions_from_ids(self, tour_ids: np.ndarray) -> np.ndarray:
        """0-based positions of the given file ids; TourError on an id the instance lacks."""
        tour_ids = np.asarray(tour_ids, dtype=np.int64)
        order = np.argsort(self.ids)
        found = np.searchsorted(self.ids, tour_ids, sorter=order).clip(max=self.n - 1)
        positions = order[found]
        unknown = self.ids[positions] != tour_ids
        if unknown.any():
            raise TourError(f"{self.label}: unknown city id {tour_ids[unknown][0]}")
        return positions

    def normalized_coords(self) -> np.ndarray:
        """What the model reads (n, 2): `planar_coords` in the unit square, one scale for both axes.

        Each axis is shifted so its minimum is 0, then both are divided by the larger of the two
        ranges, so the aspect ratio is kept. If all cities coincide, all are at (0, 0).
        """
        return unit_square(self.planar_coords)

    def piece(self, m: int) -> "Instance":
        """The instance of its first m cities (at least 3), of the same kind: metric, storage, names."""
        m = max(3, min(m, self.n))
        return dataclasses.replace(
            self,
            name=f"{self.name}[:{m}]",
            coords=None if self.coords is None else self.coords[:m],
            ids=self.ids[:m],
            matrix=None if self.matrix is None else self.matrix[:m, :m],
            names=None if self.names is None else self.names[:m],
            reference_tour=None,
            reference_length=None,
            reference_is_optimal=False,
        )

    def with_reference(
        self, tour: np.ndarray | None = None, length: float | None = None, optimal: bool = False
    ) -> "Instance":
        """A copy with a new reference: a tour (length computed unless given) and/or a length."""
        return dataclasses.replace(self, reference_tour=tour, reference_length=length, reference_is_optimal=optimal)

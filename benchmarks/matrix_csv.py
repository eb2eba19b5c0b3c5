"""A TSPLIB coordinate instance written as a CSV of its distances, solved by `amsolve solve --format matrix`.

    python benchmarks/matrix_csv.py ../shared/tsplib_large/d2103.tsp [--cities N] [--csv FILE] [-- SOLVE OPTIONS]

Writes the instance's distance matrix (its own integer metric, the first N cities if given) as a
square CSV with a header row of city names, runs `amsolve solve FILE --format matrix --json`
under GNU time (/usr/bin/time -v) and prints its wall time and peak memory, the tour's length
under the matrix, and the same tour's length under the instance's coordinates, which must be
equal. The CSV (35 MB for 2,103 cities) goes to a temporary file unless --csv is given.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from amsolve.io import read_tsplib
from amsolve.problem import Instance, pair_distances


def write_matrix_csv(instance: Instance, path: Path, rows_per_block: int = 256) -> None:
    """The instance's distances as a CSV: a header of city names ("city <id>"), then one row per city."""
    with path.open("w") as file:
        file.write(",".join(f"city {city_id}" for city_id in instance.ids) + "\n")
        for begin in range(0, instance.n, rows_per_block):
            rows, columns = np.indices((min(rows_per_block, instance.n - begin), instance.n))
            block = pair_distances(instance.points, instance.metric, rows + begin, columns)
            np.savetxt(file, block, fmt="%d", delimiter=",")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tsp", type=Path, help="a TSPLIB instance with coordinates and an integer metric")
    parser.add_argument("--cities", type=int, default=None, help="only the first N cities")
    parser.add_argument("--csv", type=Path, default=None, help="keep the CSV here (default: a temporary file)")
    parser.add_argument("solve_options", nargs="*", help="more options for amsolve solve (after --)")
    args = parser.parse_args()
    instance = read_tsplib(args.tsp)
    if args.cities:
        keep = slice(0, args.cities)
        instance = Instance(instance.name, instance.coords[keep], instance.metric, instance.ids[keep])
    with tempfile.TemporaryDirectory() as scratch:
        path = args.csv or Path(scratch) / f"{instance.name}_matrix.csv"
        write_matrix_csv(instance, path)
        command = ["/usr/bin/time", "-v", sys.executable, "-m", "amsolve", "solve", str(path), "--format", "matrix"]
        run = subprocess.run([*command, "--json", *args.solve_options], capture_output=True, text=True, check=True)
        size_mb = path.stat().st_size / 1e6
    [row] = json.loads(run.stdout)["instances"]
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", run.stderr).group(1)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1))
    coordinate_length = instance.tour_length(np.array(row["tour"]) - 1)  # matrix city k is row k, the k-th city
    print(f"instance: {instance.name}, {instance.n} cities, {instance.metric}; CSV {size_mb:.1f} MB")
    print(f"command: amsolve solve {path.name} --format matrix --json {' '.join(args.solve_options)}".rstrip())
    print(f"pipeline: {row['decode']}, the model read: {row['model_input']}")
    print(f"wall: {wall} (solve: {row['seconds']:.2f} s), peak RSS: {peak_kb / 1024:.0f} MiB")
    print(f"length under the matrix: {row['length']:.0f}; the same tour under the coordinates: {coordinate_length:.0f}")
    print("equal" if row["length"] == coordinate_length else "DIFFERENT")


if __name__ == "__main__":
    main()

"""Reading and writing instance and tour files (TSPLIB, CSV of cities or of distances, datasets); no torch."""

from amsolve.io.csvfile import read_csv
from amsolve.io.dataset import parse_dataset_line, read_dataset, write_dataset
from amsolve.io.formats import FORMATS, detect_format, load_instance, load_instances
from amsolve.io.matrixcsv import read_matrix_csv
from amsolve.io.tour import read_tour, write_tour
from amsolve.io.tsplib import find_opt_tour, read_tsplib

__all__ = [
    "FORMATS",
    "detect_format",
    "find_opt_tour",
    "load_instance",
    "load_instances",
    "parse_dataset_line",
    "read_csv",
    "read_dataset",
    "read_matrix_csv",
    "read_tour",
    "read_tsplib",
    "write_dataset",
    "write_tour",
]

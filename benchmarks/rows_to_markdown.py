"""Turns `amsolve bench --json` output into the markdown table the README shows.

amsolve bench ... --json | python benchmarks/rows_to_markdown.py
"""

from __future__ import annotations

import argparse
import json
import sys


def cell(value: object, digits: int) -> str:
    """One table cell: a dash for a missing value, thousands separators for a float."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    rows = json.load(sys.stdin)["rows"]
    print(
        "| dataset | decoder | instances | mean length | mean reference | mean gap % | gap of means % | worst gap % "
        "| s / instance | instances / s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['dataset']} | {row['decode']} | {row['instances']} | {cell(row['mean_length'], 4)} "
            f"| {cell(row['mean_reference'], 4)} | {cell(row['gap_mean_pct'], 3)} | {cell(row['gap_of_means_pct'], 3)} "
            f"| {cell(row['gap_max_pct'], 3)} | {cell(row['seconds_per_instance'], 4)} "
            f"| {cell(row['instances_per_second'], 1)} |"
        )


if __name__ == "__main__":
    main()

"""The README's "Results" tables, computed from the raw tables `run_all.sh` writes.

    python benchmarks/readme_tables.py > /tmp/results.md

Reads `benchmarks/results/*.md|txt` and, for the TSPLIB size groups, the DIMENSION of each
instance in `../shared/tsplib`. Prints Markdown to paste into the README, so that every figure
there can be traced to a file in `results/`.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
TSPLIB = Path(__file__).resolve().parents[2] / "shared" / "tsplib"
SIZES = (20, 50, 100)


def table_rows(name: str) -> list[list[str]]:
    """The body rows of the Markdown table(s) in results/`name`, as lists of cells ("-0.000" as "0.000")."""
    rows = []
    lines = (RESULTS / name).read_text().splitlines() + [""]
    for line, following in zip(lines, lines[1:], strict=False):
        is_rule = set(line) <= set("|- ")
        is_header = following.startswith("|---")
        if line.startswith("|") and not is_rule and not is_header:
            rows.append([re.sub(r"^-(0\.0+)$", r"\1", cell.strip()) for cell in line.strip().strip("|").split("|")])
    return rows


def bench_rows(name: str) -> dict[tuple[str, str], dict[str, str]]:
    """Rows of a `rows_to_markdown.py` table by (dataset, decoder)."""
    keys = ["dataset", "decoder", "instances", "mean", "reference", "gap", "gap_of_means", "worst", "seconds", "rate"]
    return {(row[0], row[1]): dict(zip(keys, row, strict=True)) for row in table_rows(name)}


def milliseconds(seconds: str) -> str:
    """Seconds per instance as milliseconds with two significant figures or so."""
    value = 1000 * float(seconds)
    return f"{value:.1f} ms" if value < 10 else f"{value:.0f} ms"


def model_table() -> None:
    """Pure decoders on the uniform test sets."""
    rows = bench_rows("model_uniform.md")
    print("| n | greedy | beam 16 | sampling 128 | multi-start ×8 (every city) |")
    print("|---|---|---|---|---|")
    for n in SIZES:
        dataset = f"tsp{n}_uniform_seed2026"
        cells = [rows[(dataset, decoder)] for decoder in ("greedy", "beam16", "sample128", f"multistart{n}×8")]
        print(f"| {n} | " + " | ".join(f"{row['gap']} % · {milliseconds(row['seconds'])}" for row in cells) + " |")


def tsplib_sizes() -> dict[str, int]:
    """Cities of each TSPLIB instance, from the DIMENSION line of its file."""
    sizes = {}
    for path in TSPLIB.glob("*.tsp"):
        match = re.search(r"^DIMENSION\s*:\s*(\d+)", path.read_text(errors="replace"), re.MULTILINE)
        if match:
            sizes[path.stem] = int(match.group(1))
    return sizes


def pipeline_table() -> None:
    """The default pipeline on the uniform test sets and TSPLIB."""
    rows = bench_rows("pipeline_uniform.md")
    print("| test set | mean gap | worst gap | s / instance |")
    print("|---|---|---|---|")
    for n in SIZES:
        [row] = [row for (dataset, _), row in rows.items() if dataset == f"tsp{n}_uniform_seed2026"]
        print(f"| n = {n} ({row['instances']}) | {row['gap']} % | {row['worst']} % | {float(row['seconds']):.3f} |")
    tsplib = bench_rows("tsplib.md")
    pipeline = [row for (dataset, decoder), row in tsplib.items() if decoder.endswith("+2opt+oropt")]
    total = next(row for row in pipeline if row["dataset"].startswith("TSPLIB total"))
    instances = [row for row in pipeline if not row["dataset"].startswith("TSPLIB total")]
    worst = max(instances, key=lambda row: float(row["gap"]))
    slowest = max(instances, key=lambda row: float(row["seconds"]))
    sizes = tsplib_sizes()
    smallest, largest = min(sizes[row["dataset"]] for row in instances), max(sizes[row["dataset"]] for row in instances)
    print(
        f"| TSPLIB, {len(instances)} instances ({smallest}–{largest:,} cities) | {total['gap']} % | "
        f"{worst['gap']} % ({worst['dataset']}) | {float(total['seconds']):.2f} (at most "
        f"{float(slowest['seconds']):.2f}, {slowest['dataset']}) |"
    )
    print()
    groups = (("under 200 cities", 0, 200), ("200–500 cities", 200, 501), ("over 500 cities", 501, 10**9))
    parts = []
    for label, low, high in groups:
        means = []
        for pattern in (r"multistart\d*×8", r"multistart\d*×8\+2opt\+oropt"):
            gaps = [
                float(row["gap"])
                for (dataset, decoder), row in tsplib.items()
                if dataset in sizes and low <= sizes[dataset] < high and re.fullmatch(pattern, decoder)
            ]
            means.append(sum(gaps) / len(gaps))
        parts.append(f"{label} {means[0]:.2f} % → {means[1]:.2f} %")
    print("By TSPLIB size, mean gap of multi-start ×8 alone → with the pipeline: " + "; ".join(parts) + ".")


def compare_table() -> None:
    """amsolve against LKH-3 and nearest neighbour + 2-opt."""
    print("| dataset | solver | mean gap | worst gap | s / instance |")
    print("|---|---|---|---|---|")
    previous = None
    for dataset, solver, instances, gap, worst, seconds in table_rows("compare.md"):
        label = f"{dataset} ({instances})" if dataset != previous else ""
        previous = dataset
        print(f"| {label} | {solver} | {gap} % | {worst} % | {float(seconds):.3f} |")
    load = [line for line in (RESULTS / "compare.md").read_text().splitlines() if line.startswith("load average")]
    print("\n" + "; ".join(load) + ".")


def tour_caption() -> None:
    """The drawn tour's length against the TSPLIB optimum."""
    name, n, decoder, length, _ = (RESULTS / "tour_dsj1000.txt").read_text().split()
    with open(TSPLIB / "optimal.csv", newline="") as table:
        optimal = next(float(row["optimal"]) for row in csv.DictReader(table) if row["name"] == name)
    print(
        f"{name} ({int(n):,} cities), solved by `amsolve solve` ({decoder}): length {float(length):,.0f}, "
        f"{100 * (float(length) / optimal - 1):.2f} % above the optimum {optimal:,.0f}."
    )


def speed_table() -> None:
    """Decoding rates, dsj1000 and 10,000-city runs, the default bench time."""
    decode = table_rows("decode_throughput.md")
    print("| work | result |")
    print("|---|---|")
    print(f"| {decode[0][0]}, 2 threads | {float(decode[0][2]):.0f} instances/s |")
    print(f"| {decode[1][0]} | {float(decode[1][2]):.2f} instances/s |")
    for options, seconds, mebibytes in decode[2:]:
        peak = f"{float(mebibytes) / 1024:.1f} GiB" if float(mebibytes) >= 1024 else f"{float(mebibytes):.0f} MiB"
        command = f"amsolve solve dsj1000.tsp {options.strip('`').replace('(default pipeline)', '')}".strip()
        print(f"| `{command}` | {seconds} s wall, {peak} peak |")
    name, n, decoder, length, _ = (RESULTS / "random10k.txt").read_text().split()
    timing = (RESULTS / "random10k_time.txt").read_text()
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", timing)
    hours, minutes, secs = (float(part) if part else 0.0 for part in wall.groups())
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing).group(1)) / 1024
    print(
        f"| `amsolve solve` on {int(n):,} random cities (CSV, {decoder}) | {3600 * hours + 60 * minutes + secs:.1f} s "
        f"wall, {peak:.0f} MiB peak, a valid tour of length {float(length):,.0f} in a 1,000 × 1,000 square |"
    )
    bench_seconds = (RESULTS / "default_bench_time.txt").read_text().split()[0]
    print(f"| `amsolve bench` (the shipped default suite) | {float(bench_seconds):.0f} s wall |")
    print()
    rows = table_rows("train_throughput_1thread.md")
    methods = list(dict.fromkeys(row[1] for row in rows))
    print(
        "| n | "
        + " | ".join(f"{method} (batch {next(r[2] for r in rows if r[1] == method)})" for method in methods)
        + " |"
    )
    print("|---" * (len(methods) + 1) + "|")
    for n in dict.fromkeys(row[0] for row in rows):
        cells = {row[1]: f"{int(row[3]):,} ({int(row[4]):,})" for row in rows if row[0] == n}
        print(f"| {n} | " + " | ".join(cells[method] for method in methods) + " |")


def main() -> None:
    for title, draw in (
        ("The drawn tour", tour_caption),
        ("The models alone", model_table),
        ("The default pipeline", pipeline_table),
        ("Against other solvers", compare_table),
        ("Speed and size", speed_table),
    ):
        print(f"<!-- {title} -->")
        draw()
        print()
    print((RESULTS / "verify_bench.txt").read_text().strip().splitlines()[-1])


if __name__ == "__main__":
    main()

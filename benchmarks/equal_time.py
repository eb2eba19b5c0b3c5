"""Pipelines and peers at equal time per instance, one core each: amsolve's pipelines with and
without the network, its CLI, fast-tsp and LKH-3.

Each solver gets the same wall-clock budget per instance and is measured by the wall time it took;
all run one after another in this process (amsolve also through its CLI, in a process of its own),
which should itself run on one core with one thread, e.g.

    taskset -c 1 env OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/equal_time.py \\
        --dataset ../shared/data/tsp100_uniform_seed2026.txt --limit 256 --budgets 0.02,0.05

Peers (`pip install '.[peers]'`):
- fast-tsp 0.2.2 reads a dense matrix of 16-bit integers: distances are scaled so that the longest
  is 65,000 and rounded (its tours are then measured on the true distances); the n × n matrix is
  built before its clock starts, and building it is reported apart.
- LKH-3 through elkai 2.0 (`TIME_LIMIT` set to the budget, one run, `SEED` the seed + 1): its preprocessing (the
  subgradient ascent) comes on top of that limit and is counted in its time, so its seconds may
  exceed the budget (with `TOTAL_TIME_LIMIT` as well, it returned its unimproved first tour whenever
  the ascent outlasted the budget, e.g. 266 % above the reference at 1,000 cities in 1 s).
  Coordinates of float instances are scaled by 10^6 and rounded (TSPLIB EUC_2D).
- LKH-3 fitted to the budget (`lkh-fit`): the same, but with its preprocessing sized so that the
  whole run fits the budget, as a user with a time limit would set it: the ascent on the Delaunay
  graph (`CANDIDATE_SET_TYPE = DELAUNAY`) with `INITIAL_PERIOD = 100` instead of the complete
  graph and n/2, and `TOTAL_TIME_LIMIT` (preprocessing included) set to the budget. Where the
  ascent still outlasts the budget it returns its unimproved first tour, and the gap shows it.

Gaps are to the dataset's reference tours or the optima given with `--optima`. Prints a Markdown
table and writes every point to `--json` for the chart (`--plot`).

With `--interleave`, amsolve's pipelines take each instance in turn (the first of them rotating
from instance to instance) instead of one pipeline over all instances after another: whatever the
machine's other core does meanwhile (a process whose large arrays share the processor's cache
slowed a 1,000-city study here) then falls on every pipeline alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from amsolve.bench import ChartPoint, read_optima
from amsolve.io import load_instances
from amsolve.machine import machine_description
from amsolve.pipeline import parse_pipeline
from amsolve.problem import Instance
from amsolve.solver import ModelCache, SolveOptions, solve_instances

FAST_TSP_LONGEST = 65_000
"""fast-tsp's distances are 16-bit: the longest edge is scaled to this."""

LKH_SCALE = 10**6
"""Float coordinates are multiplied by this and rounded for LKH-3's integer EUC_2D."""


@dataclass(frozen=True)
class Result:
    """One solver's tour of one instance at one budget."""

    dataset: str
    instance: str
    solver: str
    budget: float
    gap_pct: float
    seconds: float
    neural: bool
    seed: int = 0


def gap(instance: Instance, tour: np.ndarray) -> float:
    reference = instance.reference_length
    return 100.0 * (instance.tour_length(np.asarray(tour)) - reference) / reference


def pipeline_options(pipeline: str, budget: float, seed: int) -> SolveOptions:
    """The options of an amsolve pipeline under `budget` seconds per instance, with `seed`."""
    options = parse_pipeline(pipeline, SolveOptions(device="cpu", time_limit=budget))
    return replace(options, decode=replace(options.decode, seed=seed))


def run_amsolve(
    instances: list[Instance], budget: float, pipeline: str, seed: int = 0
) -> list[tuple[np.ndarray, float]]:
    """amsolve through its Python API, one instance at a time (one-time costs paid before by its warm-up)."""
    solutions = solve_instances(instances, pipeline_options(pipeline, budget, seed))
    return [(solution.tour, solution.seconds) for solution in solutions]


def run_amsolve_interleaved(
    instances: list[Instance], budget: float, pipelines: list[str], seed: int = 0
) -> dict[str, list[tuple[np.ndarray, float]]]:
    """`run_amsolve` of every pipeline, each instance solved by all of them in turn, the first
    rotating from instance to instance (each call's warm-up before its clock, as in `run_amsolve`)."""
    options = {pipeline: pipeline_options(pipeline, budget, seed) for pipeline in pipelines}
    models = {pipeline: ModelCache(options[pipeline].model, options[pipeline].device) for pipeline in pipelines}
    solved: dict[str, list[tuple[np.ndarray, float]]] = {pipeline: [] for pipeline in pipelines}
    for index, instance in enumerate(instances):
        for turn in range(len(pipelines)):
            pipeline = pipelines[(index + turn) % len(pipelines)]
            [solution] = solve_instances([instance], options[pipeline], models=models[pipeline])
            solved[pipeline].append((solution.tour, solution.seconds))
    return solved


def run_cli(path: Path, limit: int | None, budget: float, seed: int) -> list[tuple[np.ndarray, float]]:
    """`amsolve solve FILE --time-limit B --seed S --json` in a process of its own (the seconds it reports)."""
    command = [sys.executable, "-m", "amsolve", "solve", str(path), "--time-limit", str(budget), "--seed", str(seed)]
    command += ["--json"]
    if limit is not None:
        command += ["--limit", str(limit)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return [(np.array(row["tour"]), row["seconds"]) for row in json.loads(output)["instances"]]


def fast_tsp_tour(instance: Instance, budget: float, seed: int = 0) -> tuple[np.ndarray, float]:
    """fast-tsp's tour within `budget` seconds (it takes no seed: its draws differ from call to call)."""
    import fast_tsp

    matrix = instance_matrix(instance)
    scaled = np.rint(matrix * (FAST_TSP_LONGEST / matrix.max())).astype(np.int64)
    started = time.perf_counter()
    tour = fast_tsp.find_tour(scaled, budget)
    return np.array(tour), time.perf_counter() - started


def instance_matrix(instance: Instance) -> np.ndarray:
    from amsolve.problem.distance import distance_matrix

    return distance_matrix(instance.points, instance.metric).astype(np.float64)


LKH_FITTED = "CANDIDATE_SET_TYPE = DELAUNAY\nINITIAL_PERIOD = 100\nTOTAL_TIME_LIMIT = {budget}\n"
"""LKH-3's parameters for a run whose preprocessing counts inside the budget (`lkh-fit`)."""


def lkh_tour(instance: Instance, budget: float, seed: int = 0, fitted: bool = False) -> tuple[np.ndarray, float]:
    """LKH-3's tour through elkai within `budget` seconds of search (`fitted`: of everything, LKH_FITTED),
    with LKH's `SEED` = seed + 1 (seed 0 is LKH's default seed, 1)."""
    from elkai import _elkai

    coords = instance.coords
    if instance.metric == "EUCLIDEAN":
        coords, kind = np.rint(coords * LKH_SCALE), "EUC_2D"
    else:
        kind = instance.metric
    lines = [f"TYPE : TSP\nDIMENSION : {instance.n}\nEDGE_WEIGHT_TYPE : {kind}\nNODE_COORD_SECTION"]
    lines += [f"{i + 1} {x:.0f} {y:.0f}" if kind == "EUC_2D" else f"{i + 1} {x} {y}" for i, (x, y) in enumerate(coords)]
    problem = "\n".join(lines) + "\nEOF\n"
    params = f"RUNS = 1\nMAX_TRIALS = 100000000\nTIME_LIMIT = {budget}\nSEED = {seed + 1}\n"
    params += "PROBLEM_FILE = :stdin:\nTRACE_LEVEL = 0\n"
    if fitted:
        params += LKH_FITTED.format(budget=budget)
    started = time.perf_counter()
    tour = _elkai.solve_problem(params, problem)
    return np.array(tour) - 1, time.perf_counter() - started


def measure(
    dataset: str,
    instances: list[Instance],
    budget: float,
    solver: str,
    solve_one: Callable[[Instance, float, int], tuple[np.ndarray, float]],
    seeds: range,
) -> list[Result]:
    """A peer's results on every instance with every seed."""
    results = []
    for seed in seeds:
        for instance in instances:
            tour, seconds = solve_one(instance, budget, seed)
            results.append(Result(dataset, instance.name, solver, budget, gap(instance, tour), seconds, False, seed))
    return results


def summary(results: list[Result]) -> str:
    gaps = np.array([r.gap_pct for r in results])
    seconds = np.array([r.seconds for r in results])
    first = results[0]
    seeds = len({r.seed for r in results})
    count = f"{len(results) // seeds} × {seeds} seeds" if seeds > 1 else f"{len(results)}"
    return (
        f"| {first.dataset} ({count}) | {first.budget:g} s | {first.solver} | {gaps.mean():.3f} % | "
        f"{gaps.max():.3f} % | {seconds.mean():.3f} | {seconds.max():.3f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, action="append", default=[], help="dataset file or .tsp file")
    parser.add_argument("--limit", type=int, default=None, help="first N instances of each dataset file")
    parser.add_argument("--optima", type=Path, default=None, help="CSV name,optimal for .tsp files")
    parser.add_argument("--budgets", default="0.05", help="comma-separated seconds per instance")
    parser.add_argument("--pipelines", default="greedy-edge+lk@alphanet8", help="comma-separated amsolve pipelines")
    parser.add_argument(
        "--solvers", default="amsolve,cli,fast-tsp,lkh,lkh-fit", help="which solvers to run (comma-separated)"
    )
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="run each solver with N seeds (amsolve's random draws, LKH-3's SEED = seed + 1; fast-tsp takes none)",
    )
    parser.add_argument("--first-seed", type=int, default=0, help="the first of the seeds")
    parser.add_argument(
        "--interleave", action="store_true", help="amsolve's pipelines take each instance in turn (module docstring)"
    )
    parser.add_argument("--json", type=Path, default=None, help="write every result here")
    parser.add_argument("--plot", type=Path, default=None, help="draw the time-quality chart here (overwrites)")
    parser.add_argument("--name", default=None, help="measure all datasets as one, under this name (no cli)")
    parser.add_argument(
        "--merge", action="append", default=[], help="add the results of an earlier --json (FILE=NAME: as dataset NAME)"
    )
    parser.add_argument("--title", default="amsolve, fast-tsp and LKH-3 at equal time per instance, one core each")
    args = parser.parse_args()
    optima = read_optima(args.optima) if args.optima else {}
    solvers = args.solvers.split(",")
    print(f"machine: {machine_description()}; CPU affinity {sorted(os.sched_getaffinity(0))}; load {os.getloadavg()}")
    print("| instances | budget | solver | mean gap | worst gap | mean s | max s |")
    print("|---|---|---|---|---|---|---|")
    everything = [result for merged in args.merge for result in read_results(merged)]
    for results in group_results(everything):
        print(summary(results))
    datasets = [(path.stem, path, load_instances(path, limit=args.limit)) for path in args.dataset]
    if args.name and datasets:
        datasets = [(args.name, None, [i for _, _, instances in datasets for i in instances])]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    for name, path, instances in datasets:
        instances = [
            i.with_reference(length=optima[i.name], optimal=True) if i.name in optima else i for i in instances
        ]
        for budget in map(float, args.budgets.split(",")):
            rows: list[list[Result]] = []
            pipelines = args.pipelines.split(",") if "amsolve" in solvers else []
            solved = {pipeline: {} for pipeline in pipelines}  # pipeline → seed → [(tour, seconds)]
            if args.interleave:
                for seed in seeds:
                    for pipeline, tours in run_amsolve_interleaved(instances, budget, pipelines, seed).items():
                        solved[pipeline][seed] = tours
            else:
                for pipeline in pipelines:
                    for seed in seeds:
                        solved[pipeline][seed] = run_amsolve(instances, budget, pipeline, seed)
            for pipeline in pipelines:
                neural = parse_pipeline(pipeline, SolveOptions()).neural
                rows.append(
                    [
                        Result(name, i.name, f"amsolve {pipeline}", budget, gap(i, t), s, neural, seed)
                        for seed in seeds
                        for i, (t, s) in zip(instances, solved[pipeline][seed], strict=True)
                    ]
                )
            if "cli" in solvers and path is not None:
                neural = SolveOptions().neural  # the CLI's default pipeline
                rows.append(
                    [
                        Result(name, i.name, "amsolve CLI", budget, gap(i, i.positions_from_ids(t)), s, neural, seed)
                        for seed in seeds
                        for i, (t, s) in zip(instances, run_cli(path, args.limit, budget, seed), strict=True)
                    ]
                )
            if "fast-tsp" in solvers:
                rows.append(measure(name, instances, budget, "fast-tsp 0.2.2", fast_tsp_tour, seeds))
            if "lkh" in solvers:
                rows.append(measure(name, instances, budget, "LKH-3 (elkai)", lkh_tour, seeds))
            if "lkh-fit" in solvers:
                fitted = partial(lkh_tour, fitted=True)
                rows.append(measure(name, instances, budget, "LKH-3 fitted to the budget", fitted, seeds))
            for results in rows:
                print(summary(results), flush=True)
                everything += results
    print(f"load at the end {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in everything]))
    if args.plot:
        from amsolve.figures import time_quality_chart

        time_quality_chart(chart_points(everything), args.plot, force=True, title=args.title)


def read_results(spec: str) -> list[Result]:
    """The results of an earlier `--json` FILE, or FILE=NAME with NAME as every result's dataset."""
    path, _, name = spec.partition("=")
    results = [Result(**row) for row in json.loads(Path(path).read_text())]
    return [replace(result, dataset=name) for result in results] if name else results


def group_results(results: list[Result]) -> list[list[Result]]:
    """Results grouped by dataset, budget and solver, in their first order."""
    groups: dict[tuple[str, float, str], list[Result]] = {}
    for result in results:
        groups.setdefault((result.dataset, result.budget, result.solver), []).append(result)
    return list(groups.values())


def chart_points(results: list[Result]) -> list[ChartPoint]:
    """One point per solver, dataset and budget (the budget shows as the point's seconds)."""
    return [
        ChartPoint(
            group[0].solver,
            group[0].dataset,
            float(np.mean([r.seconds for r in group])),
            float(np.mean([r.gap_pct for r in group])),
            float(np.max([r.gap_pct for r in group])),
            group[0].neural,
        )
        for group in group_results(results)
    ]


if __name__ == "__main__":
    main()

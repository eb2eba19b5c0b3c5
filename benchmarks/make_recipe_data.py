"""The data sets a training recipe reads (LKH-3 reference tours), made where `amsolve train --recipe` looks.

    python benchmarks/make_recipe_data.py tsp20 --out data --processes 2
    amsolve train --recipe tsp20 --data-dir data --out runs/tsp20

Each data set the recipe lists (nodes, count, seed, LKH settings) is made with
`make_reference_set.py`, unless `OUT/<name>.txt` exists already. Needs elkai (`pip install '.[bench]'`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from make_reference_set import make_reference_set

from amsolve.train.recipe import load_recipe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("recipe", help="a shipped recipe (tsp20, tsp50, tsp100) or a recipe file")
    parser.add_argument("--out", type=Path, default=Path("data"), help="the --data-dir of amsolve train")
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args()
    recipe = load_recipe(args.recipe)
    args.out.mkdir(parents=True, exist_ok=True)
    for data in recipe.missing_data(args.out):
        print(f"{data.name}: {data.make_command(args.out)}", flush=True)
        print(make_reference_set(data.nodes, data.count, data.seed, data.path(args.out), fast=data.fast,
                                 processes=args.processes))  # fmt: skip
    print(f"{recipe.name}: every data set is in {args.out}")


if __name__ == "__main__":
    main()

"""Greedy gap of a model on raw coordinates and on the normalised ones `amsolve solve` gives it.

The solver shows the model every instance shifted to start at 0 on each axis and scaled so the
larger range is 1; `amsolve train` draws raw uniform points unless `--normalized-inputs` is given.
This script measures what that difference costs: greedy decoding of the same instances in both
views, lengths taken on the original coordinates.

    python benchmarks/input_view.py runs/select20.txt --model tsp20 --model runs/x20/ --limit 1000
"""

from __future__ import annotations

from pathlib import Path

import torch
from first_city import parse_models_on_dataset  # the sibling script's arguments (benchmarks/ is on sys.path)

from amsolve.decode.rollout import euclidean_tour_lengths, greedy_selector, rollout
from amsolve.model.registry import load_model
from amsolve.train.data import load_reference_set, normalized


@torch.inference_mode()
def greedy_gaps(model_name: str, dataset: Path, limit: int | None) -> dict[str, float]:
    """Mean greedy gap (%) with raw and with normalised coordinates as the model's input."""
    model = load_model(model_name).eval()
    reference = load_reference_set(dataset, limit=limit)
    coords = reference.coords  # (batch, n, 2), in the unit square
    gaps = {}
    for view, model_input in [("raw", coords), ("normalised", normalized(coords)[0])]:
        tours = rollout(model.decoder, model.precompute(model_input), 1, greedy_selector).tours  # (batch, 1, n)
        lengths = euclidean_tour_lengths(coords, tours).squeeze(1).double()  # (batch,)
        gaps[view] = ((lengths / reference.lengths - 1) * 100).mean().item()
    return gaps


def main() -> None:
    args = parse_models_on_dataset(__doc__.splitlines()[0])
    print("| model | greedy gap, raw coordinates | greedy gap, normalised (as solved) |")
    print("|---|---|---|")
    for name in args.model:
        gaps = greedy_gaps(name, args.dataset, args.limit)
        print(f"| {name} | {gaps['raw']:.3f} % | {gaps['normalised']:.3f} % |")


if __name__ == "__main__":
    main()

"""How much of a model's greedy gap comes from the city it starts at.

Greedy decoding lets the model pick the first city (the placeholder context), then follows the
argmax. This script decodes greedily from every start city as well, and reports per model: the
greedy gap, the mean gap over all starts (a random first city), the gap of the best start (what a
perfect first-city choice would give with one tour), how often greedy's own start is among the
shortest ones (ties count: several starts often give the same tour) and the probability the first
step puts on them.

    python benchmarks/first_city.py runs/val20.txt --model tsp20 --model runs/x20/ --threads 1
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from amsolve.decode.rollout import euclidean_tour_lengths, greedy_selector, rollout
from amsolve.model.registry import load_model
from amsolve.train.data import load_reference_set

TIE_TOLERANCE = 1e-5
"""Tours within this relative length of the shortest count as equally short."""


@torch.inference_mode()
def first_city_figures(model_name: str, dataset: Path, limit: int | None) -> dict[str, float]:
    """Gaps (%) of greedy, a random start and the best start; how often greedy starts well."""
    model = load_model(model_name).eval()
    reference = load_reference_set(dataset, limit=limit)
    coords, n = reference.coords, reference.n
    batch = coords.shape[0]
    cache = model.precompute(coords)
    greedy = rollout(model.decoder, cache, 1, greedy_selector).tours  # (batch, 1, n)
    greedy_lengths = euclidean_tour_lengths(coords, greedy).double()  # (batch, 1)
    every_start = torch.arange(n).expand(batch, n)  # (batch, n)
    lengths = euclidean_tour_lengths(
        coords, rollout(model.decoder, cache, n, greedy_selector, first=every_start).tours
    ).double()  # (batch, n): the greedy tour from each start city
    start_probabilities = model.decoder.log_probs(cache, cache.query_start, torch.zeros(batch, 1, n)).exp()[:, 0]
    shortest = lengths <= lengths.min(dim=1, keepdim=True).values * (1 + TIE_TOLERANCE)  # (batch, n)
    greedy_start = greedy[:, 0, :1]  # (batch, 1)

    def gap(tour_lengths: torch.Tensor) -> float:  # (batch, k) → mean gap in %
        return ((tour_lengths / reference.lengths.unsqueeze(1) - 1) * 100).mean().item()

    return {
        "greedy": gap(greedy_lengths),
        "random start": gap(lengths),
        "best start": gap(lengths.min(dim=1, keepdim=True).values),
        "shortest starts": shortest.double().sum(dim=1).mean().item(),
        "greedy starts on one": shortest.gather(1, greedy_start).double().mean().item() * 100,
        "probability on them": (start_probabilities.double() * shortest).sum(dim=1).mean().item() * 100,
    }


def parse_models_on_dataset(description: str) -> argparse.Namespace:
    """The arguments of a script that measures models on a dataset; sets torch's thread count."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("dataset", type=Path, help="Concorde-style dataset with reference tours")
    parser.add_argument("--model", action="append", required=True, help="shipped name or directory; repeatable")
    parser.add_argument("--limit", type=int, default=None, help="first N instances only")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    return args


def main() -> None:
    args = parse_models_on_dataset(__doc__.splitlines()[0])
    print(
        "| model | greedy gap | random start | best start | shortest starts (of n) "
        "| greedy starts on one | first-step probability on them |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in args.model:
        f = first_city_figures(name, args.dataset, args.limit)
        print(
            f"| {name} | {f['greedy']:.3f} % | {f['random start']:.3f} % | {f['best start']:.3f} % "
            f"| {f['shortest starts']:.1f} | {f['greedy starts on one']:.1f} % | {f['probability on them']:.1f} % |"
        )


if __name__ == "__main__":
    main()

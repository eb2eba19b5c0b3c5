"""Decoding strategies: valid tours, and the relations between strategies docs/DESIGN.md §2 promises."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from amsolve.decode.augment import SYMMETRIES, all_symmetries, apply_symmetry
from amsolve.decode.beam import beam_search
from amsolve.decode.edge_scores import (
    first_step_log_probs,
    model_candidates,
    view_centres,
    view_scores,
    view_size,
)
from amsolve.decode.options import DecodeOptions
from amsolve.decode.rollout import euclidean_tour_lengths, greedy_selector, inverse_cdf_selector, rollout
from amsolve.decode.strategies import decode, start_cities
from amsolve.errors import InputError
from amsolve.model.config import ModelConfig
from amsolve.model.network import AttentionModel
from amsolve.search.candidates.nearest import nearest_neighbours
from amsolve.search.construct import complete_nearest
from amsolve.search.distances import coordinate_view, dist


def is_permutation(tours: torch.Tensor) -> bool:
    return bool((tours.sort(dim=-1).values == torch.arange(tours.shape[-1])).all())


def random_coords(batch: int, n: int, seed: int) -> torch.Tensor:
    return torch.rand(batch, n, 2, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("n", [3, 4, 7, 20, 33])
@pytest.mark.parametrize(
    "options",
    [
        DecodeOptions("greedy"),
        DecodeOptions("sample", samples=9, keep=3),
        DecodeOptions("beam", beam_width=5, keep=2),
        DecodeOptions("beam", beam_width=50, keep=4),
        DecodeOptions("beam", beam_width=16, keep=8),  # at n = 3 fewer beams finish than are kept
        DecodeOptions("multistart", keep=2),
        DecodeOptions("multistart", starts=3, augment=True),
    ],
    ids=lambda options: options.label(20),
)
def test_every_decoded_tour_is_a_permutation(tiny_model, n, options) -> None:
    coords = random_coords(3, n, seed=n)
    decoded = decode(tiny_model, coords, options)
    assert is_permutation(decoded.tours)
    assert decoded.tours.shape[:2] == decoded.lengths.shape
    assert torch.allclose(decoded.lengths, euclidean_tour_lengths(coords, decoded.tours), atol=1e-5)
    assert (decoded.lengths[:, 1:] >= decoded.lengths[:, :-1]).all()  # shortest first


def test_beam_width_one_equals_greedy(tiny_model) -> None:
    coords = random_coords(16, 25, seed=1)
    greedy = decode(tiny_model, coords, DecodeOptions("greedy"))
    beam = decode(tiny_model, coords, DecodeOptions("beam", beam_width=1))
    assert torch.equal(greedy.tours, beam.tours)


def test_sampling_is_reproducible_with_a_seed(tiny_model) -> None:
    coords = random_coords(4, 15, seed=2)
    first = decode(tiny_model, coords, DecodeOptions("sample", samples=16, seed=7))
    again = decode(tiny_model, coords, DecodeOptions("sample", samples=16, seed=7))
    other = decode(tiny_model, coords, DecodeOptions("sample", samples=16, seed=8))
    assert torch.equal(first.tours, again.tours)
    assert not torch.equal(first.tours, other.tours)


@pytest.mark.parametrize(
    "smaller, larger",
    [
        (DecodeOptions("sample", samples=4), DecodeOptions("sample", samples=32)),
        (DecodeOptions("multistart", starts=5), DecodeOptions("multistart")),
        (DecodeOptions("greedy"), DecodeOptions("multistart")),  # greedy's tour is one of the starts
        (DecodeOptions("multistart"), DecodeOptions("multistart", augment=True)),
        (DecodeOptions("sample", samples=8), DecodeOptions("sample", samples=8, augment=True)),
    ],
    ids=lambda options: options.label(20),
)
def test_more_search_never_gives_a_longer_best_tour(tiny_model, smaller, larger) -> None:
    """The larger search's candidates include the smaller one's (beam search promises no such thing)."""
    coords = random_coords(12, 18, seed=3)
    small = decode(tiny_model, coords, smaller).lengths[:, 0]
    large = decode(tiny_model, coords, larger).lengths[:, 0]
    assert (large <= small + 1e-6).all()


def test_samples_are_nested_whatever_the_chunking(tiny_model, monkeypatch) -> None:
    """Sample k is the same tour whether drawn in one pass or in chunks."""
    import amsolve.decode.strategies as strategies

    coords = random_coords(3, 12, seed=4)
    options = DecodeOptions("sample", samples=12, keep=12)
    whole = decode(tiny_model, coords, options)
    monkeypatch.setattr(strategies, "ROLLOUT_ELEMENTS", 3 * 12 * 4 * 5)  # 5 rollouts per pass
    chunked = decode(tiny_model, coords, options)
    assert torch.equal(whole.lengths, chunked.lengths)


def test_the_training_sampler_follows_the_probabilities() -> None:
    """Inverse-CDF sampling picks cities as often as their probabilities say, never a visited one."""
    probabilities = torch.tensor([0.0, 0.5, 0.0, 0.3, 0.2, 0.0])  # cities 0, 2 and 5 visited
    log_probs = probabilities.log().expand(4, 50_000, 6)  # (batch, s, n)
    picks = inverse_cdf_selector(torch.Generator().manual_seed(0))(log_probs)  # (4, 50_000)
    frequencies = torch.bincount(picks.flatten(), minlength=6) / picks.numel()
    assert frequencies[[0, 2, 5]].sum() == 0
    assert torch.allclose(frequencies, probabilities, atol=0.005), frequencies


def test_a_cold_rollout_samples_greedy_tours_and_scores_the_tempered_policy(tiny_model) -> None:
    """At temperature 1e-6 sampling gives greedy decoding's tours; the log-likelihood is that of
    softmax(logits / T), which puts almost all its mass on them (near 0), unlike the model's own."""
    coords = random_coords(6, 12, seed=4)
    with torch.no_grad():
        cache = tiny_model.precompute(coords)
        greedy = rollout(tiny_model.decoder, cache, 1, greedy_selector, track_log_likelihood=True)
        cold = rollout(
            tiny_model.decoder, cache, 3, inverse_cdf_selector(torch.Generator().manual_seed(0)),
            track_log_likelihood=True, temperature=1e-6,
        )  # fmt: skip
    assert torch.equal(cold.tours, greedy.tours.expand(-1, 3, -1))
    assert cold.log_likelihood.min() > -1e-3 and greedy.log_likelihood.max() < -0.1


def test_symmetries_keep_tour_lengths() -> None:
    coords = random_coords(5, 10, seed=5)
    tours = torch.randperm(10).expand(5, 1, 10)
    versions = all_symmetries(coords).view(SYMMETRIES, 5, 10, 2)
    lengths = torch.stack([euclidean_tour_lengths(version, tours) for version in versions])
    assert torch.allclose(lengths, lengths[0].expand_as(lengths), atol=1e-5)
    assert torch.equal(apply_symmetry(coords, 0), coords)
    assert len({tuple(version[0, 0].tolist()) for version in versions}) == SYMMETRIES


def test_start_cities_spread_over_the_instance() -> None:
    assert start_cities(10, None).tolist() == list(range(10))
    assert start_cities(10, 3).tolist() == [0, 4, 9]  # linspace 0, 4.5, 9 rounds half to even
    assert start_cities(5, 99).tolist() == list(range(5))
    defaults = {n: len(start_cities(n, None)) for n in (58, 59, 100, 316, 317, 1000)}
    assert defaults == {58: 58, 59: 57, 100: 20, 316: 2, 317: 1, 1000: 1}  # the budget starts × n² ≤ 200,000


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"strategy": "bogus"}, "unknown decoder"),
        ({"samples": 0}, "--samples"),
        ({"beam_width": 0}, "--beam-width"),
        ({"starts": 0}, "--starts"),
        ({"temperature": 0.0}, "--temperature"),
    ],
)
def test_bad_decode_options_are_input_errors(fields, message) -> None:
    with pytest.raises(InputError, match=message):
        DecodeOptions(**fields)


def test_a_beam_search_that_cannot_fit_is_a_clear_error(tiny_model, monkeypatch) -> None:
    import amsolve.decode.strategies as strategies

    monkeypatch.setattr(strategies, "available_memory", lambda: 2**30)  # whatever the test machine has
    coords = random_coords(1, 3000, seed=6)
    with pytest.raises(InputError, match="lower --beam-width"):
        decode(tiny_model, coords, DecodeOptions("beam", beam_width=100_000))


def test_a_passed_deadline_stops_after_one_rollout(tiny_model) -> None:
    coords = random_coords(2, 12, seed=7)
    options = DecodeOptions("sample", samples=12, keep=12)
    cut = decode(tiny_model, coords, options, deadline=0.0)  # long past
    whole = decode(tiny_model, coords, options)
    assert cut.tours.shape[1] == 1 and whole.tours.shape[1] == 12
    assert is_permutation(cut.tours)


def test_a_beam_search_cut_by_its_deadline_finishes_its_most_probable_beams(tiny_model) -> None:
    coords = random_coords(2, 11, seed=4)
    cut = decode(tiny_model, coords, DecodeOptions("beam", beam_width=4, keep=3, augment=False), deadline=0.0)
    assert cut.tours.shape == (2, 3, 11) and is_permutation(cut.tours)
    assert torch.allclose(cut.lengths, euclidean_tour_lengths(coords, cut.tours))
    paths, _ = beam_search(tiny_model.decoder, tiny_model.precompute(coords), 4, deadline=0.0)
    assert paths.shape == (2, 4, 1) and torch.equal(cut.tours[..., 0], paths[:, :3, 0])


def test_a_rollout_stops_choosing_at_its_deadline(tiny_model) -> None:
    cache = tiny_model.precompute(random_coords(2, 9, seed=3))
    cut = rollout(tiny_model.decoder, cache, 3, greedy_selector, deadline=0.0)  # long past
    whole = rollout(tiny_model.decoder, cache, 3, greedy_selector, deadline=time.perf_counter() + 60)
    assert cut.tours.shape == (2, 3, 1) and whole.tours.shape == (2, 3, 9)
    assert torch.equal(cut.tours[..., 0], whole.tours[..., 0])


def test_augmentation_under_a_spent_deadline_decodes_the_instances_as_given_only(tiny_model) -> None:
    """The network picks the first city; past the deadline nearest neighbour finishes the tour."""
    coords = random_coords(3, 15, seed=8)
    plain = decode(tiny_model, coords, DecodeOptions("greedy", augment=False))
    rushed = decode(tiny_model, coords, DecodeOptions("greedy", augment=True), deadline=time.perf_counter() - 1)
    assert rushed.tours.shape == plain.tours.shape and is_permutation(rushed.tours)
    for points, tour, first in zip(coords.numpy(), rushed.tours[:, 0].numpy(), plain.tours[:, 0, 0], strict=True):
        nearest = complete_nearest(coordinate_view(points.astype(np.float64), "EUCLIDEAN"), np.array([[int(first)]]))
        assert tour.tolist() == nearest[0].tolist()
    roomy = decode(tiny_model, coords, DecodeOptions("greedy", augment=True), deadline=time.perf_counter() + 60)
    unbounded = decode(tiny_model, coords, DecodeOptions("greedy", augment=True))
    assert torch.allclose(roomy.lengths, unbounded.lengths)
    assert bool((unbounded.lengths <= plain.lengths + 1e-6).all())


@pytest.mark.parametrize("n", [4, 30, 60])
def test_model_candidates_are_distinct_other_cities_among_the_nearest(tiny_model, n) -> None:
    points = random_coords(1, n, seed=n)[0].numpy().astype(np.float64)
    view = coordinate_view(points, "EUCLIDEAN")
    candidates = model_candidates(tiny_model, points, view, 5)
    assert candidates.shape == (n, 5)
    nearest = nearest_neighbours(view, view_size(tiny_model) - 1)
    for city, row in enumerate(candidates):
        partners = row[row >= 0]
        assert len(partners) == min(5, n - 1) and len(set(partners.tolist())) == len(partners)
        assert city not in partners and set(partners.tolist()) <= set(nearest[city].tolist())


@pytest.mark.parametrize("n", [150, 400])
def test_every_city_is_among_the_nearest_of_a_view_centre(n) -> None:
    points = random_coords(1, n, seed=n)[0].numpy().astype(np.float64)
    view = coordinate_view(points, "EUCLIDEAN")
    nearest = nearest_neighbours(view, 39)
    centres, owner = view_centres(view, nearest, owned=16)
    for city in range(n):  # owned by a view among whose centre's 16 nearest it is
        centre = centres[owner[city]]
        assert city == centre or city in nearest[centre, :15]
    assert len(centres) < n / 4


def test_view_scores_of_a_small_instance_are_its_first_steps(tiny_model) -> None:
    """No more cities than the model was trained on: one view, the whole instance, decoded from each city."""
    n = view_size(tiny_model)
    points = random_coords(1, n, seed=5)[0].numpy().astype(np.float64)
    rows, log_probs = view_scores(tiny_model, points, coordinate_view(points, "EUCLIDEAN"))
    steps = first_step_log_probs(tiny_model, points[None])[0].numpy()  # (n, n)
    assert (rows[:, 0] == np.arange(n)).all()
    np.testing.assert_allclose(log_probs[:, 1:], np.take_along_axis(steps, rows[:, 1:], axis=1), rtol=1e-5)


def test_view_scores_average_the_first_steps_of_every_view_holding_both_cities() -> None:
    """More cities than the views: each (i, j) of a row is the mean over the views that hold both,
    and a pair that no view holds counts as the least likely of its row."""
    torch.manual_seed(1)
    model = AttentionModel(ModelConfig(embed_dim=16, n_layers=1, n_heads=2, ff_dim=32, trained_nodes=40)).eval()
    n = 260
    points = random_coords(1, n, seed=6)[0].numpy().astype(np.float64)
    view = coordinate_view(points, "EUCLIDEAN")
    rows, log_probs = view_scores(model, points, view)
    nearest = nearest_neighbours(view, 39)
    sums: dict[tuple[int, int], list[float]] = {}
    for centre in view_centres(view, nearest, owned=16)[0]:
        members = np.concatenate([[centre], nearest[centre]])
        steps = first_step_log_probs(model, points[members][None])[0].numpy()
        for a, i in enumerate(members):
            for b, j in enumerate(members):
                if a != b:
                    sums.setdefault((int(i), int(j)), []).append(float(steps[a, b]))
    held = np.zeros(rows.shape, dtype=bool)
    for i in range(n):
        for m in range(1, rows.shape[1]):
            pair = (i, int(rows[i, m]))
            if pair in sums:
                held[i, m] = True
                assert log_probs[i, m] == pytest.approx(np.mean(sums[pair]), rel=1e-5, abs=1e-6)
    floor = np.where(held, log_probs, np.inf)[:, 1:].min(axis=1)  # (n,)
    assert (log_probs[:, 1:][~held[:, 1:]] == np.repeat(floor, (~held[:, 1:]).sum(axis=1))).all()
    assert 0.5 < held[:, 1:].mean() < 1.0


@pytest.mark.parametrize(("metric", "same_odds"), [("EUCLIDEAN", False), ("ATT", False), ("ATT", True)])
def test_best_partners_rank_each_row_by_the_blended_score(metric: str, same_odds: bool) -> None:
    """Brute force: cost log d(i, j) − log p(j | i) − log p(i | j), the reverse from j's row or
    else its least likely city; the k lowest, ties to the nearer; -1 beyond the row. With the same
    odds everywhere the rounded distances tie often, and the nearer must still come first."""
    from amsolve.decode.edge_scores import _best_partners

    n, width = 80, 30
    points = np.round(random_coords(1, n, seed=7)[0].numpy().astype(np.float64) * 40)
    view = coordinate_view(points, metric)
    rows = np.concatenate([np.arange(n)[:, None], nearest_neighbours(view, width - 1)], axis=1).astype(np.int32)
    log_probs = np.log(np.random.default_rng(7).uniform(0.01, 1.0, size=rows.shape))
    if same_odds:
        log_probs[:] = np.log(0.5)
    floor = log_probs[:, 1:].min(axis=1)
    best = _best_partners(view.points, view.code, rows, log_probs, width + 2)
    assert best.shape == (n, width + 2) and (best[:, width - 1 :] == -1).all()
    for i in range(n):
        cost = []
        for m in range(1, rows.shape[1]):
            j = rows[i, m]
            where = np.nonzero(rows[j, 1:] == i)[0]
            back = log_probs[j, 1 + where[0]] if len(where) else floor[j]
            d = max(dist(view.points, view.code, i, int(j)), 1e-12)
            cost.append((np.log(d) - back - log_probs[i, m], m))
        assert best[i, : width - 1].tolist() == [int(rows[i, m]) for _, m in sorted(cost)]


def test_model_candidates_past_their_deadline_rank_by_distance(tiny_model) -> None:
    """No view decoded: every city's candidates are its nearest, in order."""
    points = random_coords(1, 40, seed=3)[0].numpy().astype(np.float64)
    view = coordinate_view(points, "EUCLIDEAN")
    candidates = model_candidates(tiny_model, points, view, 5, deadline=0.0)
    assert (candidates == nearest_neighbours(view, 5)).all()


def test_model_candidates_start_no_view_that_would_not_end_by_the_deadline(tiny_model) -> None:
    """At a measured pace of a view a minute, a 30 s deadline decodes none: distance ranks every edge."""
    from amsolve.decode import edge_scores

    points = random_coords(1, 40, seed=3)[0].numpy().astype(np.float64)
    view = coordinate_view(points, "EUCLIDEAN")
    measured = edge_scores.view_seconds(tiny_model, view_size(tiny_model))
    assert edge_scores.view_seconds(tiny_model, view_size(tiny_model)) == measured > 0  # measured once
    edge_scores._view_seconds[tiny_model][view_size(tiny_model)] = 60.0
    try:
        candidates = model_candidates(tiny_model, points, view, 5, deadline=time.perf_counter() + 30.0)
    finally:
        edge_scores._view_seconds[tiny_model][view_size(tiny_model)] = measured
    assert (candidates == nearest_neighbours(view, 5)).all()


def test_model_candidates_with_time_to_spare_are_those_without_a_deadline(tiny_model) -> None:
    """Batches sized to a generous deadline score every view, as without one."""
    points = random_coords(1, 40, seed=4)[0].numpy().astype(np.float64)
    view = coordinate_view(points, "EUCLIDEAN")
    roomy = model_candidates(tiny_model, points, view, 5, deadline=time.perf_counter() + 60.0)
    assert (roomy == model_candidates(tiny_model, points, view, 5)).all()

"""Local decoding (the network alone at any size): nearest anchors, paths with fixed ends,
coarse-to-fine levels, revision, and the deadline."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest
import torch

import amsolve.decode.local as local
from amsolve.decode.cells import nearest_anchor
from amsolve.decode.local import TOP_CITIES, level_sizes, local_tour, projection_orders, revise
from amsolve.decode.options import DecodeOptions
from amsolve.decode.paths import decode_paths, path_lengths
from amsolve.decode.strategies import decode


def tour_length(points: np.ndarray, tour: np.ndarray) -> float:
    walked = points[np.asarray(tour)]
    return float(np.linalg.norm(walked - np.roll(walked, -1, axis=0), axis=1).sum())


def clustered(n: int, seed: int) -> np.ndarray:
    """Cities in a few tight clusters, some of them far outside the others' bounding box."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-1, 2, size=(5, 2))
    return centres[rng.integers(5, size=n)] + rng.normal(scale=0.01, size=(n, 2))


@pytest.mark.parametrize("anchors", [1, 2, 17, 300])
def test_nearest_anchor_is_the_nearest(anchors) -> None:
    rng = np.random.default_rng(anchors)
    for points, sites in (
        (rng.uniform(size=(500, 2)), rng.uniform(size=(anchors, 2))),
        (clustered(500, anchors), clustered(anchors, anchors + 1)),
    ):
        found = nearest_anchor(points, sites)
        squared = ((points[:, None] - sites[None]) ** 2).sum(axis=-1)  # (500, anchors)
        assert np.allclose(squared[np.arange(len(points)), found], squared.min(axis=1))


@pytest.mark.parametrize("m", [2, 3, 4, 9, 30])
def test_paths_keep_their_ends_and_visit_every_city(tiny_model, m) -> None:
    points = np.random.default_rng(m).uniform(size=(5, m, 2))
    orders = decode_paths(tiny_model, points)
    assert orders.shape == (5, m)
    assert (np.sort(orders, axis=1) == np.arange(m)).all()
    assert (orders[:, 0] == 0).all() and (orders[:, -1] == m - 1).all()


def test_paths_are_the_same_decoded_from_either_end(tiny_model) -> None:
    """Both ends are tried, so a set and the same set backwards give paths of one length."""
    points = np.random.default_rng(7).uniform(size=(6, 12, 2))
    forward = decode_paths(tiny_model, points)
    backward = 11 - decode_paths(tiny_model, points[:, ::-1].copy())[:, ::-1]  # back in points' numbering
    assert (backward[:, 0] == 0).all() and (backward[:, -1] == 11).all()

    def lengths(orders: np.ndarray) -> np.ndarray:
        return np.array([path_lengths(own, path[None])[0] for own, path in zip(points, orders, strict=True)])

    assert np.allclose(lengths(forward), lengths(backward), rtol=1e-5)


def test_path_lengths() -> None:
    coords = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 4.0]])
    assert np.allclose(path_lengths(coords, np.array([[0, 1, 2], [0, 2, 1]])), [7.0, 9.0])


def test_projection_orders_follow_the_line_between_the_ends() -> None:
    points = np.array([[[0.0, 0.0], [0.7, 0.1], [0.2, -0.3], [0.5, 0.0], [1.0, 0.0]]])
    assert projection_orders(points).tolist() == [[0, 2, 3, 1, 4]]


@pytest.mark.parametrize("n", [3, 100, 101, 1000, 123_456])
def test_level_sizes_grow_by_the_ratio_to_n(n) -> None:
    sizes = level_sizes(n)
    assert sizes[-1] == n and sizes[0] <= max(TOP_CITIES, 3)
    assert all(math.ceil(fine / local.LEVEL_RATIO) == coarse for coarse, fine in itertools.pairwise(sizes))


@pytest.mark.parametrize("n", [3, 97, 1000])
def test_the_spread_order_is_farthest_first_over_the_coarse_levels(n) -> None:
    points = clustered(n, seed=n) if n > 3 else np.random.default_rng(0).uniform(size=(n, 2))
    order = local.spread_order(points, np.random.default_rng(1))
    assert sorted(order.tolist()) == list(range(n))
    spread = level_sizes(n)[-2] if n > TOP_CITIES else n
    for m in {1, min(5, n - 1), max(1, spread // 3), spread - 1}:
        chosen = points[order[:m]]
        to_chosen = np.linalg.norm(points[:, None] - chosen[None], axis=-1).min(axis=1)  # (n,)
        assert to_chosen[order[m]] == pytest.approx(to_chosen.max())  # the next city is the farthest
        pairwise = np.linalg.norm(chosen[:, None] - chosen[None], axis=-1)
        np.fill_diagonal(pairwise, np.inf)
        assert pairwise.min() >= to_chosen.max() - 1e-12  # so the chosen ones are at least as far apart


@pytest.mark.parametrize("n", [3, 5, 60, 130, 900])
def test_local_tours_visit_every_city_and_revision_never_lengthens(tiny_model, n) -> None:
    points = np.random.default_rng(n).uniform(size=(n, 2))
    rng = np.random.default_rng(0)
    first = local.coarse_to_fine_tour(tiny_model, points, rng)
    assert sorted(first.tolist()) == list(range(n))
    revised = revise(tiny_model, points, first, 1, rng)
    assert sorted(revised.tolist()) == list(range(n))
    assert tour_length(points, revised) <= tour_length(points, first) + 1e-9


def test_local_decoding_of_a_batch_gives_tours(tiny_model) -> None:
    coords = torch.rand(2, 150, 2, generator=torch.Generator().manual_seed(3))
    decoded = decode(tiny_model, coords, DecodeOptions("local"))
    assert (decoded.tours.sort(dim=-1).values == torch.arange(150)).all()


def test_past_its_deadline_local_decoding_leaves_the_paths_to_projection(tiny_model, monkeypatch) -> None:
    points = clustered(700, seed=4)

    def no_model(*args: object) -> None:
        raise AssertionError("the model decoded a path past the deadline")

    monkeypatch.setattr(local, "decode_paths", no_model)
    tour = local_tour(tiny_model, points, deadline=-math.inf)
    assert sorted(tour.tolist()) == list(range(700))
    batch = torch.from_numpy(points[None]).float()
    decoded = decode(tiny_model, batch, DecodeOptions("local"), time.perf_counter() - 1)
    assert (decoded.tours.sort(dim=-1).values == torch.arange(700)).all()

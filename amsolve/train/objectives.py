"""Losses of one training step: REINFORCE with a baseline, and teacher forcing on reference tours."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch

from amsolve.decode.rollout import euclidean_tour_lengths, gather_rows, inverse_cdf_selector, rollout
from amsolve.model.decoder import visited_mask
from amsolve.model.network import AttentionModel


class Baseline(Protocol):
    """What the REINFORCE step needs of a baseline."""

    multi_start: bool

    def evaluate(self, coords: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor: ...


@dataclass(frozen=True)
class StepResult:
    """The loss to minimise and the figures shown while training."""

    loss: torch.Tensor
    mean_length: float
    mean_baseline: float


def random_starts(batch: int, n: int, starts: int, generator: torch.Generator, device: torch.device) -> torch.Tensor:
    """`starts` distinct start cities per instance (batch, starts): all of them when starts == n."""
    if starts >= n:
        return torch.arange(n, device=device).expand(batch, n)
    return torch.rand(batch, n, generator=generator, device=device).argsort(dim=1)[:, :starts]


def with_leader_bonus(advantage: torch.Tensor, lengths: torch.Tensor, bonus: float) -> torch.Tensor:
    """The advantages (batch, s), that of each instance's shortest tour scaled by `1 + bonus`.

    Leader Reward (Wang et al., 2024): the tour a group of samples is judged by is its best one,
    so that tour's likelihood is raised more than the mean-baselined gradient alone would.
    """
    if not bonus:
        return advantage
    leader = lengths.argmin(dim=1, keepdim=True)  # (batch, 1): the first of tied shortest tours
    return advantage.scatter_add(1, leader, bonus * advantage.gather(1, leader))


def reinforce_loss(
    model: AttentionModel,
    baseline: Baseline,
    coords: torch.Tensor,
    starts: int,
    generator: torch.Generator,
    own_starts: bool = False,
    forced_starts: int = 0,
    temperature: float = 1.0,
    leader_bonus: float = 0.0,
) -> StepResult:
    """`(L(π) − b(s)) · log p(π|s)` averaged over sampled tours (batch, n, 2) → scalar.

    A multi-start baseline (POMO) samples one tour from each of `starts` start cities; the
    others sample one tour per instance from the model's own first-step choice. POMO leaves the
    first step (the placeholder context) untrained; here it is trained too, by the exact
    gradient of the expected length over the starts tried, `Σ_s p(s) (L_s − b)`, so that greedy
    decoding starts where tours tend to be short. With `own_starts`, the multi-start baseline's
    `starts` tours instead all begin where the model samples its first city, as greedy decoding's
    tour does, and the first step is trained as part of each tour's likelihood; `forced_starts`
    more tours then begin at distinct random cities, with a baseline of their own (their mean),
    so that the tours multi-start decoding makes keep being trained too. All tours are sampled
    from, and trained as, the policy at `temperature` (below 1: closer to greedy decoding's tours).
    With `leader_bonus`, the shortest of each instance's multi-start baseline tours (not of the
    `forced_starts` ones) weighs `1 + leader_bonus` times as much (`with_leader_bonus`).
    """
    batch, n, _ = coords.shape
    cache = model.precompute(coords)
    forced = baseline.multi_start and not own_starts
    first = random_starts(batch, n, starts, generator, coords.device) if forced else None  # at most n per instance
    count = first.shape[1] if first is not None else starts if baseline.multi_start else 1
    rollouts = rollout(
        model.decoder,
        cache,
        count,
        inverse_cdf_selector(generator),
        first=first,
        track_log_likelihood=True,
        temperature=temperature,
    )
    lengths = euclidean_tour_lengths(coords, rollouts.tours)  # (batch, s)
    reference = baseline.evaluate(coords, lengths).detach()  # (batch, s)
    advantage = lengths - reference  # (batch, s)
    if baseline.multi_start:
        advantage = with_leader_bonus(advantage, lengths, leader_bonus)
    loss = (advantage * rollouts.log_likelihood).mean()
    if first is not None:
        no_city_visited = torch.zeros(batch, 1, n, device=coords.device)
        start_log_probs = model.decoder.log_probs(cache, cache.query_start, no_city_visited).squeeze(1)  # (b, n)
        loss = loss + (start_log_probs.exp().gather(1, first) * advantage).sum(dim=1).mean()
    if own_starts and forced_starts:
        forced_first = random_starts(batch, n, forced_starts, generator, coords.device)  # (batch, f)
        forced_rollouts = rollout(
            model.decoder,
            cache,
            forced_first.shape[1],
            inverse_cdf_selector(generator),
            first=forced_first,
            track_log_likelihood=True,
            temperature=temperature,
        )
        forced_lengths = euclidean_tour_lengths(coords, forced_rollouts.tours)  # (batch, f)
        forced_reference = baseline.evaluate(coords, forced_lengths).detach()  # (batch, f): their own mean
        forced_loss = ((forced_lengths - forced_reference) * forced_rollouts.log_likelihood).mean()
        own_share = count / (count + forced_first.shape[1])
        loss = own_share * loss + (1 - own_share) * forced_loss  # the mean over all tours
        lengths = torch.cat([lengths, forced_lengths], dim=1)  # (batch, s + f)
        reference = torch.cat([reference, forced_reference], dim=1)  # (batch, s + f)
    return StepResult(loss, lengths.mean().item(), reference.mean().item())


TEACHER_STARTS = ("random", "model")
"""Where teacher forcing reads a reference tour from: random cities and directions, or the city
greedy decoding starts at, in the direction the model finds more likely."""


def teacher_forcing_loss(
    model: AttentionModel,
    coords: torch.Tensor,
    tours: torch.Tensor,
    trajectories: int,
    generator: torch.Generator,
    starts: str = "random",
) -> StepResult:
    """Cross-entropy of the reference tours (batch, n), all steps in one parallel pass.

    With `starts="random"` each instance is read as `trajectories` sequences, each from a random
    start city in a random direction. With `starts="model"` it is read from the city the model's
    first step picks (argmax, as greedy decoding starts) in both directions, and only the direction
    with the higher likelihood counts: every step then lies on greedy decoding's path until its
    first mistake, which is the step this loss corrects. Every step's context (first, last,
    visited cities) is known from the reference, so the decoder scores all steps at once instead
    of n sequential ones.
    """
    batch, n = tours.shape
    device = coords.device
    steps = torch.arange(n, device=device)
    cache = model.precompute(coords)
    if starts == "model":
        with torch.no_grad():
            no_city_visited = torch.zeros(batch, 1, n, device=device)
            first = model.decoder.log_probs(cache, cache.query_start, no_city_visited).argmax(dim=-1)  # (b, 1)
        offsets = (tours == first).float().argmax(dim=1).view(batch, 1, 1).expand(batch, 2, 1)  # (batch, 2, 1)
        reverse = torch.tensor([False, True], device=device).view(1, 2, 1)  # both directions
        trajectories = 2
    else:
        offsets = torch.randint(n, (batch, trajectories, 1), generator=generator, device=device)
        reverse = torch.rand(batch, trajectories, 1, generator=generator, device=device) < 0.5
    index = (offsets + torch.where(reverse, -steps, steps)) % n  # (batch, r, n)
    sequence = tours.gather(1, index.reshape(batch, -1)).view(batch, trajectories, n)  # cities in order
    position = torch.empty_like(sequence).scatter_(-1, sequence, steps.expand_as(sequence))  # (b, r, n)
    predicted = steps[1 : n - 1]  # steps 1..n-2; step n-1 is forced
    visited = position.unsqueeze(2) < predicted.view(1, 1, -1, 1)  # (batch, r, n-2, n)

    dim = cache.query_last.shape[-1]
    query_fixed = cache.query_graph + gather_rows(cache.query_first, sequence[:, :, 0])  # (b, r, dim)
    last = sequence[:, :, : n - 2].reshape(batch, -1)  # (batch, r * (n-2))
    query = query_fixed.unsqueeze(2) + gather_rows(cache.query_last, last).view(batch, trajectories, n - 2, dim)
    log_probs = model.decoder.log_probs(
        cache, query.view(batch, -1, dim), visited_mask(visited.view(batch, -1, n))
    )  # (batch, r * (n-2), n)
    target = sequence[:, :, 1 : n - 1].reshape(batch, -1, 1)
    step_log_likelihood = log_probs.gather(-1, target).view(batch, trajectories, n - 2)  # (batch, r, n-2)
    if starts == "model":  # the likelier direction of each tour: (batch, 1, n-2)
        likelier = step_log_likelihood.sum(dim=-1).argmax(dim=1).view(batch, 1, 1).expand(batch, 1, n - 2)
        step_log_likelihood = step_log_likelihood.gather(1, likelier)
    loss = -step_log_likelihood.mean()
    with torch.no_grad():
        reference_length = euclidean_tour_lengths(coords, tours.unsqueeze(1)).mean().item()
    return StepResult(loss, reference_length, reference_length)

"""REINFORCE baselines b(s): what a tour's length is compared against (docs/DESIGN.md §3)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch

from amsolve.decode.rollout import euclidean_tour_lengths, greedy_selector, rollout
from amsolve.model.network import AttentionModel
from amsolve.train.stats import paired_t_test_less

BASELINES = ("shared", "rollout", "exponential")


class SharedBaseline:
    """POMO: the mean length of the tours sampled for the same instance from different starts."""

    name = "shared"
    multi_start = True

    def evaluate(self, coords: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The baseline of each of the tours `lengths` (batch, starts): their instance's mean."""
        return lengths.mean(dim=1, keepdim=True).expand_as(lengths)  # (batch, starts)

    def state_dict(self) -> dict[str, Any]:
        """Nothing to keep: the baseline is a function of the batch."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Nothing to restore."""


BatchMean = Callable[[torch.Tensor], torch.Tensor]
"""The mean of the whole batch from this process's mean length: itself, or under torchrun the
mean over every process's share of the batch."""


class ExponentialBaseline:
    """An exponential moving average of the mean batch length (β = 0.8 in the AM paper)."""

    name = "exponential"
    multi_start = False

    def __init__(self, beta: float = 0.8, batch_mean: BatchMean = lambda mean: mean) -> None:
        self.beta = beta
        self.batch_mean = batch_mean
        self.value: torch.Tensor | None = None

    def evaluate(self, coords: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Folds this batch's mean length (batch, s) into the average and returns it for every tour."""
        mean = self.batch_mean(lengths.detach().mean())  # ()
        self.value = mean if self.value is None else self.beta * self.value + (1 - self.beta) * mean
        return self.value.expand_as(lengths)  # (batch, s)

    def state_dict(self) -> dict[str, Any]:
        """The running average, for checkpoints."""
        return {"value": self.value}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores the running average from a checkpoint."""
        self.value = state["value"]


class RolloutBaseline:
    """AM: the greedy tour length of a frozen copy of the policy.

    After each epoch the copy is replaced by the current policy when that is better on a fixed
    evaluation set by a one-sided paired t-test at `alpha`; during the first epoch an
    exponential baseline is used instead (warm-up). Under torchrun only rank 0 evaluates
    (`measure=True`) and decides; the other ranks `follow` its decision.
    """

    name = "rollout"
    multi_start = False

    def __init__(
        self,
        model: AttentionModel,
        eval_coords: torch.Tensor,
        alpha: float = 0.05,
        measure: bool = True,
        batch_mean: BatchMean = lambda mean: mean,
    ) -> None:
        self.alpha = alpha
        self.eval_coords = eval_coords
        self.batch_mean = batch_mean
        self.warmup: ExponentialBaseline | None = ExponentialBaseline(batch_mean=batch_mean)
        self.policy = self._frozen_copy(model)
        self.policy_lengths = greedy_lengths(self.policy, eval_coords) if measure else None

    @staticmethod
    def _frozen_copy(model: AttentionModel) -> AttentionModel:
        policy = copy.deepcopy(model).eval()
        policy.requires_grad_(False)
        return policy

    def evaluate(self, coords: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The frozen policy's greedy length on `coords` (batch, n, 2), for each tour (batch, 1)."""
        if self.warmup is not None:
            return self.warmup.evaluate(coords, lengths)
        return greedy_lengths(self.policy, coords).expand_as(lengths)

    def end_epoch(self, model: AttentionModel) -> bool:
        """Ends the warm-up, and replaces the frozen policy when `model` is significantly better."""
        self.warmup = None
        candidate_lengths = greedy_lengths(model, self.eval_coords)
        if candidate_lengths.mean() >= self.policy_lengths.mean():
            return False
        p_value = paired_t_test_less(candidate_lengths.cpu().numpy(), self.policy_lengths.cpu().numpy())
        if p_value >= self.alpha:
            return False
        self.policy = self._frozen_copy(model)
        self.policy_lengths = candidate_lengths
        return True

    def follow(self, model: AttentionModel, replaced: bool) -> None:
        """Does what `end_epoch` decided on another rank: ends the warm-up, and when the policy
        was replaced, replaces it by `model` too (every rank holds the same weights)."""
        self.warmup = None
        if replaced:
            self.policy = self._frozen_copy(model)

    def state_dict(self) -> dict[str, Any]:
        """The frozen policy, its evaluation-set lengths and the warm-up, for checkpoints."""
        return {
            "policy": self.policy.state_dict(),
            "policy_lengths": self.policy_lengths,
            "eval_coords": self.eval_coords,
            "warmup": None if self.warmup is None else self.warmup.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores what `state_dict` saved, onto the policy's device."""
        self.policy.load_state_dict(state["policy"])
        device = next(self.policy.parameters()).device  # checkpoints are read onto the CPU
        self.policy_lengths = state["policy_lengths"].to(device)
        self.eval_coords = state["eval_coords"].to(device)
        if state["warmup"] is None:
            self.warmup = None
        else:
            self.warmup = ExponentialBaseline(batch_mean=self.batch_mean)
            self.warmup.load_state_dict(state["warmup"])


@torch.no_grad()
def greedy_lengths(model: AttentionModel, coords: torch.Tensor, batch_size: int = 1024) -> torch.Tensor:
    """Greedy tour lengths (instances, 1) of `model` on coords (instances, n, 2), in eval mode."""
    was_training = model.training
    model.eval()
    lengths = []
    for chunk in coords.split(batch_size):
        tours = rollout(model.decoder, model.precompute(chunk), 1, greedy_selector).tours
        lengths.append(euclidean_tour_lengths(chunk, tours))
    model.train(was_training)
    return torch.cat(lengths)

"""Training: it learns, it resumes exactly, it stops safely, and the rollout baseline's t-test."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import DATA

import amsolve.train.baselines as baselines
from amsolve.errors import InputError, WeightsError
from amsolve.model.config import ModelConfig
from amsolve.model.network import AttentionModel, grown_from
from amsolve.model.weights import load_model_dir
from amsolve.train.baselines import RolloutBaseline, greedy_lengths
from amsolve.train.card import write_card
from amsolve.train.checkpoint import CHECKPOINT_FILE, load_checkpoint, save_checkpoint
from amsolve.train.stats import paired_t_test_less, student_t_cdf
from amsolve.train.trainer import Trainer, TrainingError, TrainOptions, train


def small_options(tmp_path: Path, **changes: object) -> TrainOptions:
    options = TrainOptions(
        nodes=10,
        out=str(tmp_path / "run"),
        epochs=2,
        epoch_size=512,
        batch_size=64,
        lr=1e-3,
        val_size=64,
        val_multistart_size=8,
        embed_dim=32,
        n_layers=2,
        threads=1,
        seed=5,
    )
    return replace(options, **changes)


def validation_batch() -> torch.Tensor:
    return torch.rand(128, 10, 2, generator=torch.Generator().manual_seed(99))


@pytest.mark.parametrize(
    "changes",
    [
        {"baseline": "shared"},
        {"baseline": "rollout"},
        {"baseline": "exponential"},
        {"own_starts": True},
        {"own_starts": True, "forced_starts": 4},
        {"own_starts": True, "temperature": 0.5},
        {"own_starts": True, "leader_bonus": 2.0, "normalized_inputs": True},
    ],
    ids=[
        "shared",
        "rollout",
        "exponential",
        "own-starts",
        "own-and-forced-starts",
        "own-starts-cold",
        "leader-normalized",
    ],
)
def test_a_short_run_shortens_greedy_tours(tmp_path, changes) -> None:
    options = small_options(tmp_path, epochs=3, **changes)
    torch.manual_seed(options.seed)
    untrained = AttentionModel(ModelConfig(embed_dim=32, n_layers=2, trained_nodes=10))
    before = greedy_lengths(untrained, validation_batch()).mean().item()
    summary = train(options)
    after = greedy_lengths(load_model_dir(summary.out), validation_batch()).mean().item()
    assert summary.epochs_done == 3 and summary.instances_seen == 3 * 512
    assert after < 0.9 * before, (before, after)
    card = (Path(summary.out) / "TRAINING.md").read_text()
    if options.own_starts:
        assert "tours from the model's own first cities" in card
    assert ("4 tours from random start cities" in card) == bool(options.forced_starts)
    assert ("tours sampled at temperature 0.5" in card) == (options.temperature == 0.5)
    assert ("leader bonus 2 (the shortest tour weighs 3×)" in card) == bool(options.leader_bonus)
    assert ("instances normalised as the solver normalises them" in card) == options.normalized_inputs


@pytest.mark.parametrize("teacher_starts", ["random", "model"])
def test_teacher_forcing_learns_the_reference_tours(tmp_path, teacher_starts) -> None:
    options = small_options(
        tmp_path,
        nodes=20,
        supervised=str(DATA / "tsp20_sample.txt"),
        teacher_starts=teacher_starts,
        epochs=4,
        epoch_size=64,
        batch_size=5,
        val_set=str(DATA / "tsp20_sample.txt"),
        val_size=5,
    )
    trainer = Trainer(options, resume=False, on_event=lambda event: None)
    first = trainer._step().loss.item()
    trainer.run()
    assert trainer._step().loss.item() < 0.8 * first


def test_teacher_forcing_from_the_model_start_scores_greedy_decoding_path() -> None:
    """`teacher_starts="model"`: the loss is the mean step log-likelihood of the reference tour read
    from the city the model starts at, in the direction it finds likelier, the same figure as
    decoding that tour step by step."""
    from amsolve.decode.rollout import rollout
    from amsolve.train.objectives import teacher_forcing_loss

    torch.manual_seed(0)
    model = AttentionModel(ModelConfig(embed_dim=32, n_layers=1, n_heads=4, ff_dim=32)).eval()
    coords = torch.rand(6, 9, 2, generator=torch.Generator().manual_seed(1))
    tours = torch.stack([torch.randperm(9, generator=torch.Generator().manual_seed(i)) for i in range(6)])
    with torch.no_grad():
        loss = teacher_forcing_loss(model, coords, tours, 8, torch.Generator(), starts="model").loss
        cache = model.precompute(coords)
        first = model.decoder.log_probs(cache, cache.query_start, torch.zeros(6, 1, 9)).argmax(dim=-1)  # (6, 1)
        offset = (tours == first).float().argmax(dim=1, keepdim=True)  # (6, 1)
        likelihoods = []
        for direction in (1, -1):
            sequence = tours.gather(1, (offset + direction * torch.arange(9)) % 9)  # (6, 9)
            step = iter(range(1, 9))

            def follow(log_probs: torch.Tensor, sequence: torch.Tensor = sequence, step=step) -> torch.Tensor:
                return sequence[:, next(step)].view(-1, 1)  # the reference's next city

            decoded = rollout(model.decoder, cache, 1, follow, first=sequence[:, :1], track_log_likelihood=True)
            assert torch.equal(decoded.tours[:, 0], sequence)
            likelihoods.append(decoded.log_likelihood[:, 0])  # (6,): steps 1..7 (step 8 is forced)
    best = torch.stack(likelihoods).max(dim=0).values  # (6,)
    assert loss.item() == pytest.approx(-(best / 7).mean().item(), rel=1e-5)


def test_resume_continues_exactly_where_the_run_stopped(tmp_path) -> None:
    straight = train(small_options(tmp_path / "a"))
    stopped = train(small_options(tmp_path / "b", max_time=1e-9))  # stops after its first step
    assert stopped.stopped_because == "max_time" and stopped.instances_seen == 64
    resumed = train(small_options(tmp_path / "b"), resume=True)
    assert resumed.stopped_because == "finished" and resumed.instances_seen == straight.instances_seen
    a = load_checkpoint(straight.out)["model"]
    b = load_checkpoint(resumed.out)["model"]
    assert all(torch.equal(a[name], b[name]) for name in a)


def test_a_run_refuses_to_overwrite_or_resume_from_nothing(tmp_path) -> None:
    with pytest.raises(InputError, match="no checkpoint"):
        train(small_options(tmp_path), resume=True)
    train(small_options(tmp_path, epochs=1))
    with pytest.raises(InputError, match="--resume"):
        train(small_options(tmp_path, epochs=1))
    with pytest.raises(InputError, match="cannot resume with --nodes"):
        train(small_options(tmp_path, nodes=11), resume=True)


def test_a_failed_checkpoint_write_keeps_the_previous_one(tmp_path, monkeypatch) -> None:
    options = small_options(tmp_path, epochs=1)
    train(options)
    path = Path(options.out) / CHECKPOINT_FILE
    before = path.read_bytes()

    def crash(*args, **kwargs):
        raise KeyboardInterrupt  # killed in the middle of writing

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(KeyboardInterrupt):
        train(replace(options, epochs=2), resume=True)
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_a_nan_loss_stops_with_a_clear_error_and_keeps_the_checkpoint(tmp_path, monkeypatch) -> None:
    options = small_options(tmp_path, epochs=1)
    train(options)
    before = (Path(options.out) / CHECKPOINT_FILE).read_bytes()
    original = Trainer._step

    def poisoned(self):
        result = original(self)
        return replace(result, loss=result.loss * math.nan)

    monkeypatch.setattr(Trainer, "_step", poisoned)
    with pytest.raises(TrainingError, match="loss became nan"):
        train(replace(options, epochs=2), resume=True)
    assert (Path(options.out) / CHECKPOINT_FILE).read_bytes() == before


def test_a_corrupt_checkpoint_is_a_clear_error(tmp_path) -> None:
    options = small_options(tmp_path, epochs=1)
    train(options)
    path = Path(options.out) / CHECKPOINT_FILE
    path.write_bytes(path.read_bytes()[:500])
    with pytest.raises(WeightsError, match="checkpoint.pt"):
        train(replace(options, epochs=2), resume=True)


def test_output_directory_is_a_loadable_model_with_a_card(tmp_path) -> None:
    summary = train(small_options(tmp_path, epochs=1, val_set=None))
    model = load_model_dir(summary.out)
    assert model.config.trained_nodes == 10
    card = (summary.out / "TRAINING.md").read_text()
    assert "Phases" in card and "1 phase(s)" in card


def test_the_card_can_name_a_saved_epoch_chosen_by_hand(tmp_path) -> None:
    options = small_options(tmp_path, epochs=2)
    train(options)
    out = Path(options.out)
    log = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    for record in log:  # both epochs saved, as when each improved on the last
        record["saved"] = True
    (out / "train.jsonl").write_text("".join(json.dumps(record) + "\n" for record in log))
    write_card(out, shipped_epoch=1)
    assert "Epoch 1 of phase 1" in (out / "TRAINING.md").read_text()
    log[0]["saved"] = False
    (out / "train.jsonl").write_text("".join(json.dumps(record) + "\n" for record in log))
    with pytest.raises(InputError, match="epoch 1 of the last phase saved no weights"):
        write_card(out, shipped_epoch=1)


class TestRolloutBaselineUpdate:
    """The frozen policy is replaced only when the candidate is significantly better."""

    def make(self, monkeypatch, baseline_lengths: np.ndarray) -> RolloutBaseline:
        model = AttentionModel(ModelConfig(embed_dim=16, n_layers=1, n_heads=2, ff_dim=16))
        monkeypatch.setattr(baselines, "greedy_lengths", lambda model, coords: torch.tensor(baseline_lengths))
        return RolloutBaseline(model, torch.zeros(len(baseline_lengths), 5, 2))

    def candidate(self, monkeypatch, lengths: np.ndarray) -> None:
        monkeypatch.setattr(baselines, "greedy_lengths", lambda model, coords: torch.tensor(lengths))

    def test_significantly_better_replaces(self, monkeypatch) -> None:
        rng = np.random.default_rng(0)
        old = rng.uniform(4, 5, size=200)
        baseline = self.make(monkeypatch, old)
        self.candidate(monkeypatch, old - 0.05 + rng.normal(0, 0.05, size=200))
        assert baseline.end_epoch(AttentionModel(ModelConfig(embed_dim=16, n_layers=1, n_heads=2, ff_dim=16)))

    def test_better_on_average_but_not_significantly_keeps(self, monkeypatch) -> None:
        rng = np.random.default_rng(1)
        old = rng.uniform(4, 5, size=20)
        baseline = self.make(monkeypatch, old)
        self.candidate(monkeypatch, old - 0.01 + rng.normal(0, 0.5, size=20))
        assert not baseline.end_epoch(AttentionModel(ModelConfig(embed_dim=16, n_layers=1, n_heads=2, ff_dim=16)))

    def test_worse_keeps(self, monkeypatch) -> None:
        old = np.linspace(4, 5, 50)
        baseline = self.make(monkeypatch, old)
        self.candidate(monkeypatch, old + 0.1)
        assert not baseline.end_epoch(AttentionModel(ModelConfig(embed_dim=16, n_layers=1, n_heads=2, ff_dim=16)))


@pytest.mark.parametrize(
    "t, df, cdf",
    [(0.0, 5, 0.5), (2.015048, 5, 0.95), (-1.812461, 10, 0.05), (1.644854, 10**6, 0.95), (12.7062, 1, 0.975)],
)
def test_student_t_cdf_matches_tables(t, df, cdf) -> None:
    assert student_t_cdf(t, df) == pytest.approx(cdf, abs=2e-6)


def test_paired_t_test_direction() -> None:
    base = np.arange(30, dtype=float)
    assert paired_t_test_less(base - 1 + 0.01 * np.sin(base), base) < 1e-6
    assert paired_t_test_less(base + 1 + 0.01 * np.sin(base), base) > 1 - 1e-6


def test_fine_tuning_starts_from_the_given_model_and_keeps_its_history(tmp_path) -> None:
    first = train(small_options(tmp_path / "first", epochs=1))
    options = small_options(tmp_path / "second", epochs=1, nodes=12, init_from=str(first.out))
    trainer = Trainer(options, resume=False, on_event=lambda event: None)
    source = load_model_dir(first.out).state_dict()
    assert all(torch.equal(trainer.model.state_dict()[name], source[name]) for name in source)
    trainer.run()
    card = (Path(options.out) / "TRAINING.md").read_text()
    assert "2 phase(s)" in card and "| 1 |" in card and "| 2 |" in card
    assert "Epoch 1 of phase 2" in card  # the weights here are this phase's, whatever earlier phases measured
    log = [line for line in (Path(options.out) / "train.jsonl").read_text().splitlines() if line]
    assert len(log) == 2  # the first run's epoch, then this one's
    assert load_model_dir(Path(options.out)).config.trained_nodes == 12


def test_a_deepened_model_starts_as_its_source_and_trains_its_new_layers() -> None:
    """`grown_from` appends identity layers: the same embeddings and greedy tours as the source in
    eval and training mode, yet the zeroed projections of the new layers receive gradients."""
    torch.manual_seed(3)
    source = AttentionModel(ModelConfig(embed_dim=32, n_layers=2, n_heads=4, ff_dim=32))
    with torch.no_grad():  # norms as training leaves them: not the identity they start as
        for norm in (module for module in source.modules() if isinstance(module, torch.nn.BatchNorm1d)):
            norm.weight.uniform_(-2, 2)
            norm.bias.normal_()
            norm.running_mean.normal_()
            norm.running_var.uniform_(0.5, 2)
    grown = grown_from(source, replace(source.config, n_layers=4))
    coords = torch.rand(64, 12, 2, generator=torch.Generator().manual_seed(4))
    for training in (False, True):
        source.train(training)
        grown.train(training)
        with torch.no_grad():
            assert torch.allclose(grown.encoder(coords), source.encoder(coords), atol=1e-3)
    assert torch.equal(greedy_lengths(grown, coords), greedy_lengths(source, coords))
    grown.encoder(coords).square().mean().backward()
    assert all(layer.attention.project_out.weight.grad.abs().sum() > 0 for layer in grown.encoder.layers[2:])
    with pytest.raises(ValueError, match="cannot make a 2-layer encoder into 1 layers"):
        grown_from(source, replace(source.config, n_layers=1))


def test_fine_tuning_with_more_layers_deepens_the_model(tmp_path) -> None:
    first = train(small_options(tmp_path / "first", epochs=1))
    deeper = train(small_options(tmp_path / "deeper", epochs=1, init_from=str(first.out), n_layers=3))
    assert load_model_dir(deeper.out).config.n_layers == 3
    assert "3 encoder layers (any beyond its own start as identities)" in (deeper.out / "TRAINING.md").read_text()
    with pytest.raises(InputError, match="--layers 1 is fewer than the 2 layers"):
        train(small_options(tmp_path / "shallower", init_from=str(first.out), n_layers=1))


def test_appended_layers_can_train_at_a_learning_rate_of_their_own(tmp_path) -> None:
    first = train(small_options(tmp_path / "first", epochs=1))
    options = small_options(tmp_path / "deeper", epochs=1, init_from=str(first.out), n_layers=3, new_layers_lr=0.01)
    trainer = Trainer(options, resume=False, on_event=lambda event: None)
    old, appended = trainer.optimizer.param_groups
    assert (old["lr"], appended["lr"]) == (options.lr, 0.01)
    assert {id(p) for p in appended["params"]} == {id(p) for p in trainer.model.encoder.layers[2].parameters()}
    trainer.run()
    with pytest.raises(InputError, match="--new-layers-lr needs --layers beyond the 2 layers"):
        train(small_options(tmp_path / "same", init_from=str(first.out), n_layers=2, new_layers_lr=0.01))
    with pytest.raises(InputError, match="--new-layers-lr is for the layers --layers appends"):
        train(small_options(tmp_path / "fresh", new_layers_lr=0.01))
    shutil.rmtree(first.out)  # a resume needs only its checkpoint, not the model it started from
    resumed = Trainer(replace(options, epochs=2, lr=1e-4), resume=True, on_event=lambda event: None)
    assert resumed.model.config.n_layers == 3
    assert [group["lr"] for group in resumed.optimizer.param_groups] == [1e-4, 0.01]


def test_start_counts_other_than_the_number_of_cities(tmp_path) -> None:
    from amsolve.train.objectives import random_starts, reinforce_loss

    generator = torch.Generator().manual_seed(0)
    starts = random_starts(6, 10, 4, generator, torch.device("cpu"))
    assert starts.shape == (6, 4)
    assert all(len(set(row.tolist())) == 4 for row in starts)
    assert torch.equal(random_starts(2, 5, 5, generator, torch.device("cpu")), torch.arange(5).expand(2, 5))
    # more starts than cities: every city once (forced), or that many tours (the model's own starts)
    from amsolve.train.baselines import SharedBaseline

    model = AttentionModel(ModelConfig(embed_dim=32, n_layers=1, n_heads=4, ff_dim=32))
    for own_starts in (False, True):
        result = reinforce_loss(model, SharedBaseline(), torch.rand(4, 8, 2), 12, generator, own_starts)
        assert math.isfinite(result.loss.item())
    summary = train(small_options(tmp_path, epochs=1, starts=3))
    assert summary.epochs_done == 1


def test_the_shared_baseline_also_trains_the_first_city(monkeypatch) -> None:
    """When tours from the leftmost city are always shortest, greedy decoding learns to start there."""
    import amsolve.train.objectives as objectives
    from amsolve.train.baselines import SharedBaseline

    def lengths_by_start(coords, tours):  # (batch, starts, n) → shorter when starting leftmost
        leftmost = coords[:, :, 0].argmin(dim=1, keepdim=True)  # (batch, 1)
        return 1.0 + 0.1 * (tours[:, :, 0] != leftmost).float()

    monkeypatch.setattr(objectives, "euclidean_tour_lengths", lengths_by_start)
    torch.manual_seed(0)
    model = AttentionModel(ModelConfig(embed_dim=32, n_layers=1, n_heads=4, ff_dim=32)).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    coords = torch.rand(16, 8, 2, generator=torch.Generator().manual_seed(3))

    def probability_of_best_start() -> float:
        model.eval()
        with torch.no_grad():
            cache = model.precompute(coords)
            probabilities = model.decoder.log_probs(cache, cache.query_start, torch.zeros(16, 1, 8)).exp()[:, 0]
        model.train()
        return probabilities.gather(1, coords[:, :, 0].argmin(dim=1, keepdim=True)).mean().item()

    before = probability_of_best_start()
    late = []  # the probability after each of the last 40 steps: single values swing with the sampled tours
    for step in range(100):
        result = objectives.reinforce_loss(model, SharedBaseline(), coords, 8, torch.Generator().manual_seed(step))
        optimizer.zero_grad()
        result.loss.backward()
        optimizer.step()
        if step >= 60:
            late.append(probability_of_best_start())
    assert before < 0.3 and sum(late) / len(late) > 0.6


def test_own_starts_train_the_first_city_through_the_tours(monkeypatch) -> None:
    """With --own-starts every tour begins where the model samples its first city (no forced
    starts), so the first step learns from the tours' likelihood alone: when tours from the
    leftmost city are always shortest, it learns to start there."""
    import amsolve.train.objectives as objectives
    from amsolve.train.baselines import SharedBaseline

    def lengths_by_start(coords, tours):  # (batch, tours, n) → shorter when starting leftmost
        leftmost = coords[:, :, 0].argmin(dim=1, keepdim=True)  # (batch, 1)
        return 1.0 + 0.1 * (tours[:, :, 0] != leftmost).float()

    def no_forced_starts(*args):
        raise AssertionError("own starts must not force start cities")

    monkeypatch.setattr(objectives, "euclidean_tour_lengths", lengths_by_start)
    monkeypatch.setattr(objectives, "random_starts", no_forced_starts)
    torch.manual_seed(0)
    model = AttentionModel(ModelConfig(embed_dim=32, n_layers=1, n_heads=4, ff_dim=32)).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    coords = torch.rand(16, 8, 2, generator=torch.Generator().manual_seed(3))
    leftmost = coords[:, :, 0].argmin(dim=1, keepdim=True)

    def probability_of_leftmost_start() -> float:
        with torch.no_grad():
            cache = model.precompute(coords)
            probabilities = model.decoder.log_probs(cache, cache.query_start, torch.zeros(16, 1, 8)).exp()[:, 0]
        return probabilities.gather(1, leftmost).mean().item()

    before = probability_of_leftmost_start()
    late = []
    for step in range(100):
        result = objectives.reinforce_loss(
            model, SharedBaseline(), coords, 8, torch.Generator().manual_seed(step), own_starts=True
        )
        optimizer.zero_grad()
        result.loss.backward()
        optimizer.step()
        if step >= 60:
            late.append(probability_of_leftmost_start())
    assert before < 0.3 and sum(late) / len(late) > 0.6, (before, late)


def test_forced_starts_train_the_tours_from_given_cities(monkeypatch) -> None:
    """With --own-starts --forced-starts, the tours from random start cities are trained by their
    own baseline: when only they are scored (the own-start tours all get the same length) and a
    forced tour is short when its second city is its first city's nearest neighbour, decoding from
    a given start learns to go to that neighbour."""
    import amsolve.train.objectives as objectives
    from amsolve.train.baselines import SharedBaseline

    coords = torch.rand(16, 8, 2, generator=torch.Generator().manual_seed(3))
    distances = torch.cdist(coords, coords) + torch.eye(8) * 10  # (16, 8, 8), no city its own neighbour
    nearest = distances.argmin(dim=2)  # (16, 8)
    calls = []

    def lengths_of_forced_tours(coords, tours):  # the own-start tours come first, the forced ones second
        calls.append(tours.shape[1])
        if len(calls) % 2:
            return torch.ones(tours.shape[:2])
        return 1.0 + 0.1 * (tours[:, :, 1] != nearest.gather(1, tours[:, :, 0])).float()

    monkeypatch.setattr(objectives, "euclidean_tour_lengths", lengths_of_forced_tours)
    torch.manual_seed(0)
    model = AttentionModel(ModelConfig(embed_dim=32, n_layers=1, n_heads=4, ff_dim=32)).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def probability_of_nearest_second_city() -> float:  # from every start city
        with torch.no_grad():
            cache = model.precompute(coords)
            every_start = torch.arange(8).expand(16, 8)  # (16, 8)
            query = cache.query_graph + objectives.gather_rows(cache.query_first, every_start)
            query = query + objectives.gather_rows(cache.query_last, every_start)  # (16, 8, dim)
            mask = torch.zeros(16, 8, 8).scatter_(-1, every_start.unsqueeze(-1), -math.inf)
            probabilities = model.decoder.log_probs(cache, query, mask).exp()  # (16, 8, 8)
        return probabilities.gather(2, nearest.unsqueeze(-1)).mean().item()

    before = probability_of_nearest_second_city()
    late = []
    for step in range(100):
        result = objectives.reinforce_loss(
            model, SharedBaseline(), coords, 4, torch.Generator().manual_seed(step), True, forced_starts=8
        )
        optimizer.zero_grad()
        result.loss.backward()
        optimizer.step()
        if step >= 60:
            late.append(probability_of_nearest_second_city())
    assert calls[:2] == [4, 8]  # four own-start tours, then one from every start city
    # untrained near chance (1 in 7); trained, well over three times that
    assert before < 0.2 and sum(late) / len(late) > 0.4, (before, late)


def test_the_leader_bonus_scales_the_shortest_tours_advantage_only() -> None:
    from amsolve.train.objectives import with_leader_bonus

    lengths = torch.tensor([[3.0, 1.0, 2.0], [2.0, 2.0, 5.0]])
    advantage = lengths - lengths.mean(dim=1, keepdim=True)  # [[1, -1, 0], [-1, -1, 2]]
    boosted = with_leader_bonus(advantage, lengths, 2.0)
    assert torch.equal(boosted, torch.tensor([[1.0, -3.0, 0.0], [-3.0, -1.0, 2.0]]))  # ties: the first
    assert torch.equal(with_leader_bonus(advantage, lengths, 0.0), advantage)


def test_normalized_matches_the_solvers_view_and_scales_lengths_back() -> None:
    from amsolve.decode.rollout import euclidean_tour_lengths
    from amsolve.problem.instance import Instance
    from amsolve.train.data import normalized

    coords = torch.rand(5, 12, 2, generator=torch.Generator().manual_seed(1), dtype=torch.float64) * 0.7 + 0.1
    view, scale = normalized(coords)
    for index in range(5):
        solver_view = Instance("x", coords[index].numpy(), "EUCLIDEAN", np.arange(12)).normalized_coords()
        assert np.allclose(view[index].numpy(), solver_view)
    tours = torch.randperm(12, generator=torch.Generator().manual_seed(2)).expand(5, 1, 12)
    assert torch.allclose(
        euclidean_tour_lengths(view, tours).squeeze(1) * scale, euclidean_tour_lengths(coords, tours).squeeze(1)
    )


def test_normalized_inputs_validate_in_the_original_scale(tmp_path) -> None:
    """A validation set and the same set shrunk by half look alike to the model once normalised,
    so the greedy tours, and the gaps, are the same, and the lengths are half."""
    lines = (DATA / "tsp20_sample.txt").read_text().splitlines()[:5]
    halved = []
    for line in lines:
        cities, tour = line.split(" output ")
        halved.append(" ".join(f"{float(value) / 2:.9f}" for value in cities.split()) + " output " + tour)
    (tmp_path / "halved.txt").write_text("\n".join(halved) + "\n")
    figures = []
    for name, val_set in [("full", DATA / "tsp20_sample.txt"), ("half", tmp_path / "halved.txt")]:
        options = small_options(
            tmp_path / name, nodes=20, epochs=1, epoch_size=8, batch_size=4, val_set=str(val_set), val_size=5,
            normalized_inputs=True,
        )  # fmt: skip
        train(options)
        figures.append(json.loads((Path(options.out) / "train.jsonl").read_text().splitlines()[-1]))
    full, half = figures
    assert full["greedy_gap_pct"] == pytest.approx(half["greedy_gap_pct"], abs=1e-4)
    assert half["greedy_length"] == pytest.approx(full["greedy_length"] / 2, rel=1e-5)
    assert full["multistart8_gap_pct"] == pytest.approx(half["multistart8_gap_pct"], abs=1e-4)


def test_reinforce_mixed_with_teacher_forcing(tmp_path) -> None:
    sample = str(DATA / "tsp20_sample.txt")
    options = small_options(
        tmp_path,
        nodes=20,
        supervised=sample,
        mix_supervised=0.5,
        epochs=1,
        epoch_size=32,
        batch_size=4,
        val_set=sample,
        val_size=5,
    )
    trainer = Trainer(options, resume=False, on_event=lambda event: None)
    from amsolve.train.objectives import StepResult

    trainer._reinforce_step = lambda: StepResult(torch.tensor(2.0), 3.0, 3.5)
    trainer._teacher_forcing_step = lambda: StepResult(torch.tensor(4.0), 9.0, 9.0)
    mixed = trainer._step()
    assert mixed.loss.item() == 2.0 + 0.5 * 4.0 and (mixed.mean_length, mixed.mean_baseline) == (3.0, 3.5)
    del trainer._reinforce_step, trainer._teacher_forcing_step
    assert trainer.run().epochs_done == 1
    card = (Path(options.out) / "TRAINING.md").read_text()
    assert "+ 0.5 × teacher forcing" in card
    with pytest.raises(InputError, match="needs --supervised"):
        train(small_options(tmp_path / "x", mix_supervised=1.0))


def test_a_resume_keeps_the_runs_options_unless_a_changeable_one_is_given(tmp_path) -> None:
    from amsolve.train.card import read_phases
    from amsolve.train.trainer import resumed_options

    options = small_options(tmp_path, batch_size=32, max_time=1e-9)
    train(options)
    saved = load_checkpoint(Path(options.out))["options"]
    given = TrainOptions(out=options.out, lr=5e-4, batch_size=64)  # CLI defaults, and an explicit --lr
    merged, changed = resumed_options(saved, given, explicit=frozenset({"lr"}))
    assert (merged.batch_size, merged.nodes, merged.lr, changed) == (32, 10, 5e-4, {"lr": 5e-4})
    with pytest.raises(InputError, match="cannot resume with --batch-size 64; the run used 32"):
        resumed_options(saved, given, explicit=frozenset({"lr", "batch_size"}))
    resumed = Trainer(given, resume=True, on_event=lambda event: None, explicit=frozenset({"lr", "out"}))
    assert resumed.options.batch_size == 32 and resumed.optimizer.param_groups[0]["lr"] == 5e-4
    assert read_phases(Path(options.out))[-1]["resumed"][0]["changed"] == {"lr": 5e-4}
    resumed.run()
    assert "with lr 0.0005" in (Path(options.out) / "TRAINING.md").read_text()  # the card says so


def test_an_old_checkpoint_without_newer_options_still_resumes(tmp_path) -> None:
    from amsolve.train.trainer import resumed_options

    saved = {name: value for name, value in vars(small_options(tmp_path)).items() if name != "mix_supervised"}
    merged, changed = resumed_options(saved, small_options(tmp_path), explicit=None)
    assert merged.mix_supervised == 0.0 and changed == {}


def test_a_new_run_never_writes_into_a_directory_with_files(tmp_path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "model.pt").write_bytes(b"somebody's weights")
    with pytest.raises(InputError, match="not an empty directory"):
        train(small_options(tmp_path))
    assert (out / "model.pt").read_bytes() == b"somebody's weights"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"starts": 1}, "at least 2"),
        ({"baseline": "rollout", "starts": 4}, "shared baseline only"),
        ({"baseline": "exponential", "own_starts": True}, "--own-starts is for the shared baseline only"),
        ({"forced_starts": 3}, "without --own-starts"),
        ({"teacher_starts": "best"}, "unknown --teacher-starts 'best'"),
        ({"temperature": 0.0}, "--temperature must be a positive number"),
        ({"own_starts": True, "forced_starts": -1}, "0 or more"),
        ({"leader_bonus": -1.0}, "--leader-bonus must be a weight of 0 or more"),
        ({"leader_bonus": math.nan}, "--leader-bonus must be a weight of 0 or more"),
        ({"baseline": "rollout", "leader_bonus": 1.0}, "--leader-bonus is for the shared baseline only"),
    ],
)
def test_start_counts_that_cannot_train_are_refused(tmp_path, changes, message) -> None:
    with pytest.raises(InputError, match=message):
        train(small_options(tmp_path, **changes))


def test_the_rollout_baseline_is_updated_under_the_mixed_loss(tmp_path, monkeypatch) -> None:
    sample = str(DATA / "tsp20_sample.txt")
    options = small_options(
        tmp_path, nodes=20, baseline="rollout", supervised=sample, mix_supervised=0.5, epochs=1,
        epoch_size=8, batch_size=4, val_set=sample, val_size=5,
    )  # fmt: skip
    ended = []
    monkeypatch.setattr(RolloutBaseline, "end_epoch", lambda self, model: ended.append(1) or False)
    train(options)
    assert ended == [1]


def test_non_finite_gradients_stop_the_run_before_the_weights_change(tmp_path) -> None:
    trainer = Trainer(small_options(tmp_path, epochs=1), resume=False, on_event=lambda event: None)
    before = [parameter.detach().clone() for parameter in trainer.model.parameters()]
    next(trainer.model.parameters()).register_hook(lambda grad: grad * math.nan)  # the loss stays finite
    with pytest.raises(TrainingError, match="gradients became nan"):
        trainer.run()
    assert all(torch.equal(old, new) for old, new in zip(before, trainer.model.parameters(), strict=True))


def test_the_curve_is_drawn_when_an_earlier_phase_had_no_validation_set(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    sample = str(DATA / "tsp20_sample.txt")
    first = train(small_options(tmp_path / "first", nodes=20, epochs=1, epoch_size=64))  # random validation
    options = small_options(
        tmp_path / "second", nodes=20, epochs=1, epoch_size=64, init_from=str(first.out), val_set=sample, val_size=5
    )
    train(options)
    assert (Path(options.out) / "curve.png").stat().st_size > 0


def test_weight_averaging_saves_the_average_and_resumes_exactly(tmp_path) -> None:
    straight = train(small_options(tmp_path / "a", ema=0.9, epochs=1))  # its one epoch's weights are saved
    stopped = train(small_options(tmp_path / "b", ema=0.9, epochs=1, max_time=1e-9))
    train(small_options(tmp_path / "b", ema=0.9, epochs=1), resume=True)
    a, b = load_checkpoint(straight.out), load_checkpoint(stopped.out)
    assert all(torch.equal(a["averaged"][name], b["averaged"][name]) for name in a["averaged"])
    log = [json.loads(line) for line in (straight.out / "train.jsonl").read_text().splitlines()]
    assert "raw_greedy_length" in log[-1] and "raw_multistart8_length" not in log[-1]
    saved = load_model_dir(straight.out).state_dict()  # the average, not the trained weights
    assert all(torch.equal(saved[name], a["averaged"][f"module.{name}"]) for name in saved)
    assert not all(torch.equal(saved[name], a["model"][name]) for name in saved)


def test_weight_averaging_can_be_added_when_a_run_resumes(tmp_path) -> None:
    options = small_options(tmp_path, epochs=1)
    train(options)
    state = load_checkpoint(Path(options.out))
    state["progress"]["best_greedy_length"] = 0.0  # trained weights no average can beat
    save_checkpoint(Path(options.out), state)
    train(replace(options, epochs=2, ema=0.95), resume=True, explicit=frozenset({"epochs", "ema"}))
    state = load_checkpoint(Path(options.out))
    assert state["options"]["ema"] == 0.95 and "averaged" in state
    log = [json.loads(line) for line in (Path(options.out) / "train.jsonl").read_text().splitlines()]
    assert log[1]["saved"]  # the first average is compared with averages only, not the trained weights' best
    saved = load_model_dir(Path(options.out)).state_dict()
    assert all(torch.equal(saved[name], state["averaged"][f"module.{name}"]) for name in saved)
    card = (Path(options.out) / "TRAINING.md").read_text()
    assert "with epochs 2, ema 0.95" in card and "Epoch 2 of phase 1" in card  # the card shows the average
    with pytest.raises(InputError, match="--ema must be a decay"):
        train(small_options(tmp_path / "x", ema=1.0))

"""The solving pipeline: starts with and without the network, time limits kept, pipelines named."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest

import amsolve
from amsolve.decode.options import DecodeOptions
from amsolve.errors import InputError
from amsolve.pipeline import parse_pipeline, parse_pipelines
from amsolve.problem import Instance
from amsolve.search.construct import construct
from amsolve.search.distances import DistanceView, distance_view
from amsolve.solver import SolveOptions, as_instance, solve_instances


def uniform(n: int, count: int, seed: int = 0) -> list[Instance]:
    rng = np.random.default_rng(seed)
    return [
        Instance(name=f"u{i}", coords=rng.random((n, 2)), metric="EUCLIDEAN", ids=np.arange(1, n + 1))
        for i in range(count)
    ]


@pytest.mark.parametrize("start", ["random", "nearest", "greedy-edge", "space-filling"])
@pytest.mark.parametrize("candidates", ["nearest", "quadrant", "alpha", "alphanet"])
def test_every_start_with_every_candidate_source_gives_tours(start: str, candidates: str) -> None:
    [solution] = solve_instances(
        uniform(60, 1), SolveOptions(decode=DecodeOptions(start), candidates=candidates, time_limit=0.05)
    )
    assert sorted(solution.tour.tolist()) == list(range(60))
    assert solution.model == ("penalties" if candidates == "alphanet" else "")
    assert solution.pipeline.startswith(f"{start}+lk@{candidates}")


def test_the_search_shortens_every_start() -> None:
    instances = uniform(200, 2, seed=1)
    for start in ("random", "nearest", "greedy-edge"):
        bare = solve_instances(instances, SolveOptions(decode=DecodeOptions(start), local_search="none"))
        searched = solve_instances(instances, SolveOptions(decode=DecodeOptions(start), time_limit=0.1))
        assert all(s.length < b.length for s, b in zip(searched, bare, strict=True))


def test_old_objects_are_left_out_of_garbage_collections_only_while_solving() -> None:
    import gc

    frozen_while_solving: list[int] = []
    options = SolveOptions(decode=DecodeOptions("greedy-edge"), time_limit=0.01)
    solve_instances(
        uniform(30, 2), options, on_progress=lambda done: frozen_while_solving.append(gc.get_freeze_count())
    )
    assert len(frozen_while_solving) == 2 and min(frozen_while_solving) > 0
    assert gc.get_freeze_count() == 0

    def fail(done: int) -> None:
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        solve_instances(uniform(30, 1), options, on_progress=fail)
    assert gc.get_freeze_count() == 0


def test_a_slow_decoder_keeps_the_time_limit(model_dir, monkeypatch) -> None:
    """Each rollout chunk sleeps 20 ms: decoding must size itself to its share of the budget, and
    the first instance must not pay the one-time costs inside its budget."""
    import amsolve.decode.strategies as strategies

    real_rollout = strategies.rollout

    def slow_rollout(*args, **kwargs):
        time.sleep(0.02)
        return real_rollout(*args, **kwargs)

    monkeypatch.setattr(strategies, "rollout", slow_rollout)
    limit = 0.3
    options = SolveOptions(
        decode=DecodeOptions("sample", samples=1000, augment=False), model=str(model_dir), time_limit=limit
    )
    solutions = solve_instances(uniform(50, 3, seed=2), options)
    assert all(solution.seconds <= 1.1 * limit for solution in solutions)
    assert all(solution.seconds >= 0.9 * limit for solution in solutions)  # the search used the time left


@pytest.mark.parametrize("pipeline", ["random+lk@alpha8", "greedy-edge+lk@alphanet8"])
def test_the_first_solve_of_a_fresh_process_pays_no_one_time_costs(pipeline: str) -> None:
    """In a process of its own, where every compiled function loads afresh, the first of three
    solves takes no longer than the others: whatever loads or compiles on first use runs in the
    warm-up (a clock read in compiled code compiles when it first runs, about 0.1 s)."""
    script = f"""
import json, numpy as np
from amsolve.pipeline import parse_pipeline
from amsolve.problem import Instance
from amsolve.solver import SolveOptions, solve_instances
rng = np.random.default_rng(3)
instances = [Instance(name=str(i), coords=rng.random((100, 2)) * 1000, metric="EUC_2D", ids=np.arange(1, 101))
             for i in range(3)]
options = parse_pipeline("{pipeline}", SolveOptions(time_limit=0.02))
print(json.dumps([solution.seconds for solution in solve_instances(instances, options)]))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    seconds = json.loads(result.stdout)
    assert max(seconds) <= 1.5 * 0.02, seconds


def test_nothing_compiles_on_an_instances_clock_even_where_the_search_restarts() -> None:
    """In a process of its own, no compiled function gains a signature (compiled, or loaded from
    numba's cache) after the warm-up, even on the paths a short search never takes: a restart,
    and the merge of its trials at the end (the warm-up once missed that merge, which then
    compiled on the first instance's clock). Restarts are made to come at the first look
    (`RESTART_KICKS` = 0)."""
    script = """
import json, sys, numpy as np
from numba.core.registry import CPUDispatcher
import amsolve.search.restarts as restarts
import amsolve.solver as solver
from amsolve.problem import Instance

def signatures():
    return {
        f"{module.__name__}.{name}": len(value.signatures)
        for module in list(sys.modules.values()) if module.__name__.startswith("amsolve")
        for name, value in vars(module).items() if isinstance(value, CPUDispatcher)
    }

after_warm_up = {}
warm_up = solver.warm_up
def warm_up_then_count(*args):
    seconds = warm_up(*args)
    after_warm_up.update(signatures())
    return seconds
solver.warm_up = warm_up_then_count
restarts.RESTART_KICKS = 0.0
made = []
restart = restarts.Trials.restart
def counted_restart(self, *args):
    made.append(1)
    return restart(self, *args)
restarts.Trials.restart = counted_restart
coords = np.random.default_rng(5).random((52, 2)) * 1000
instance = Instance(name="a", coords=coords, metric="EUC_2D", ids=np.arange(1, 53))
solver.solve_instances([instance], solver.SolveOptions(time_limit=0.6))
gained = sorted(name for name, count in signatures().items() if count > after_warm_up.get(name, 0))
print(json.dumps([len(made), len(after_warm_up), gained]))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    restarts_made, dispatchers, gained = json.loads(result.stdout)
    assert restarts_made >= 1 and dispatchers > 50
    assert gained == []


def test_pipeline_names_carry_start_search_and_candidates() -> None:
    template = SolveOptions()
    pipeline = parse_pipeline("multistartx8+2opt+oropt@quadrant12", template)
    assert pipeline.decode.strategy == "multistart" and pipeline.decode.augment
    assert (pipeline.local_search, pipeline.candidates, pipeline.candidates_k) == ("2opt+oropt", "quadrant", 12)
    assert parse_pipeline("random", template).candidates == "alphanet"
    assert pipeline.label(100) == "multistart20×8+2opt+oropt@quadrant12"
    for wrong in ("random+lk@delaunay", "random+lk@alpha0", "christofides"):
        with pytest.raises(InputError):
            parse_pipeline(wrong, template)


def test_a_list_of_pipelines_may_have_spaces_after_its_commas() -> None:
    template = SolveOptions()
    spaced = parse_pipelines("greedy, beam , random+lk@nearest10,", template)
    assert spaced == parse_pipelines("greedy,beam,random+lk@nearest10", template)
    assert [pipeline.decode.strategy for pipeline in spaced] == ["greedy", "beam", "random"]
    with pytest.raises(InputError):
        parse_pipelines(" , ", template)


def test_solve_takes_start_and_candidates_by_name() -> None:
    points = np.random.default_rng(3).random((40, 2))
    solution = amsolve.solve(points, strategy="nearest", candidates="quadrant", candidates_k=6, time_limit=0.05)
    assert solution.pipeline == "nearest+lk@quadrant6"
    assert sorted(solution.tour.tolist()) == list(range(40))


def test_the_networks_candidates_drive_the_search(model_dir) -> None:
    instance = as_instance(np.random.default_rng(4).random((40, 2)))
    options = parse_pipeline("greedy-edge+lk@model5", SolveOptions(model=str(model_dir)))
    solution = solve_instances([instance], options)[0]
    start = solve_instances([instance], parse_pipeline("greedy-edge+none", options))[0]
    assert sorted(solution.tour.tolist()) == list(range(40))
    assert solution.pipeline == "greedy-edge+lk@model5" and solution.model != ""
    assert solution.length <= start.length


@pytest.mark.parametrize(("per_city", "expected"), [(1.0, "nearest"), (0.0, "alphanet")])
def test_alpha_candidates_give_way_to_the_nearest_when_the_time_is_too_short_for_them(
    per_city: float, expected: str, monkeypatch
) -> None:
    import amsolve.budget as budget
    import amsolve.solver as solver

    used = []
    real = solver._candidates

    def spy(instance, view, neighbours, order, options, *args):
        used.append(options.candidates)
        return real(instance, view, neighbours, order, options, *args)

    monkeypatch.setattr(budget, "PLANAR_COSTS", budget.PLANAR_COSTS._replace(alpha=per_city))
    monkeypatch.setattr(solver, "_candidates", spy)
    small, large = uniform(60, 1, seed=3)[0], uniform(300, 1, seed=3)[0]
    solutions = solve_instances([small, large], SolveOptions(time_limit=0.05))
    assert used[-2:] == ["alphanet", expected]  # the complete graph's instance keeps α: it is cheap
    assert [s.pipeline for s in solutions] == ["greedy-edge+lk@alphanet8"] * 2
    assert sorted(solutions[1].tour.tolist()) == list(range(300))


@pytest.mark.parametrize("searched", [True, False])
@pytest.mark.parametrize(
    ("metric", "costs"), [("EUC_2D", "PLANAR_COSTS"), ("MAN_2D", "MAN_MAX_COSTS"), ("EUC_3D", "EUC_3D_COSTS")]
)
def test_a_start_that_would_not_fit_gives_way_to_the_space_filling_curve(
    searched: bool, metric: str, costs: str, monkeypatch
) -> None:
    """Where each city's nearest and the greedy tour would take longer than the time limit (as at
    100,000 cities in 0.1 s), the start is the space-filling curve (EUC_3D's through x and y);
    where even the nearest and the candidates along the curve would, it is returned unsearched."""
    import amsolve.budget as budget

    slow = getattr(budget, costs)._replace(
        greedy=1.0, neighbours=0.0 if searched else 1.0, window=getattr(budget, costs).window if searched else 1.0
    )
    monkeypatch.setattr(budget, costs, slow)
    coords = np.random.default_rng(4).uniform(0, 10_000, (300, 3 if metric == "EUC_3D" else 2))
    instance = Instance("u", coords, metric, np.arange(1, 301))
    curve = instance.tour_length(construct(distance_view(instance), "space-filling"))
    solution = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert sorted(solution.tour.tolist()) == list(range(300))
    assert (solution.length < 0.9 * curve) if searched else (solution.length == curve)


def test_large_instances_are_searched_with_their_cities_along_the_curve(model_dir, monkeypatch) -> None:
    """From `SPATIAL_ORDER_CITIES` the search numbers the cities along the space-filling curve; the
    tours it is given and returns are the instance's own: a network's start comes back unchanged
    without a search, the network's candidates and the greedy start serve as well as unrenumbered."""
    import amsolve.solver as solver

    instance = uniform(300, 1, seed=6)[0]
    decoded = SolveOptions(decode=DecodeOptions("greedy", augment=False), local_search="none", model=str(model_dir))
    searches = [
        parse_pipeline(p, SolveOptions(model=str(model_dir))) for p in ("greedy-edge+lk", "greedy-edge+lk@model5")
    ]
    plain = [solve_instances([instance], options)[0] for options in [decoded, *searches]]
    monkeypatch.setattr(solver, "SPATIAL_ORDER_CITIES", 100)
    assert solver.spatial_order(distance_view(instance)) is not None
    renumbered = [solve_instances([instance], options)[0] for options in [decoded, *searches]]
    assert renumbered[0].tour.tolist() == plain[0].tour.tolist()
    for before, after in zip(plain[1:], renumbered[1:], strict=True):
        assert sorted(after.tour.tolist()) == list(range(300))
        assert after.length == pytest.approx(instance.tour_length(after.tour))
        assert after.length <= 1.01 * before.length


@pytest.mark.parametrize("metric", ["EUC_2D", "MAN_2D", "MAX_2D", "EUC_3D", "GEO"])
def test_every_coordinate_metric_is_searched_with_its_cities_along_the_curve(metric: str, monkeypatch) -> None:
    """Cities of every coordinate metric are numbered along their space-filling curve from
    `SPATIAL_ORDER_CITIES` (EUC_3D's along the 3-D one); the tour comes back in the instance's own
    numbers, with the length it claims, and no longer than a search without the renumbering by
    more than a little (the two searches differ only in their order of work)."""
    import amsolve.solver as solver

    rng = np.random.default_rng(8)
    coords = rng.uniform(0.0, 60.0 if metric == "GEO" else 1000.0, (300, 3 if metric == "EUC_3D" else 2))
    instance = Instance(name=f"{metric}300", coords=coords, metric=metric, ids=np.arange(1, 301))
    options = SolveOptions(time_limit=0.05)
    plain = solve_instances([instance], options)[0]
    monkeypatch.setattr(solver, "SPATIAL_ORDER_CITIES", 100)
    order = solver.spatial_order(distance_view(instance))
    assert order is not None and sorted(order.tolist()) == list(range(300))
    renumbered = solve_instances([instance], options)[0]
    assert sorted(renumbered.tour.tolist()) == list(range(300))
    assert renumbered.length == pytest.approx(instance.tour_length(renumbered.tour))
    assert renumbered.length <= 1.02 * plain.length


def test_the_greedy_start_is_judged_again_by_what_the_nearest_took(monkeypatch) -> None:
    """The per-city figures say the greedy start fits, but each city's nearest took a thousand
    times longer than they say (a slow machine; figures this small are below `PACE_FLOOR`, so the
    floor is set aside): the space-filling curve stands in, searched."""
    import amsolve.budget as budget

    slow_machine = budget.PLANAR_COSTS._replace(neighbours=1e-12, wide_neighbours=1e-12, greedy=1e-9)
    monkeypatch.setattr(budget, "PLANAR_COSTS", slow_machine)
    monkeypatch.setattr(budget, "PACE_FLOOR", 0.0)
    instance = uniform(300, 1, seed=4)[0]
    curve = instance.tour_length(construct(distance_view(instance), "space-filling"))
    greedy = instance.tour_length(construct(distance_view(instance), "greedy-edge"))
    built = []
    real = amsolve.solver.construct

    def recorded(view, name, *args):
        built.append(name)
        return real(view, name, *args)

    monkeypatch.setattr(amsolve.solver, "construct", recorded)
    solution = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert built[-1] == "space-filling" and "greedy-edge" not in built[2:]  # after the warm-up's
    assert sorted(solution.tour.tolist()) == list(range(300)) and solution.length < min(curve, greedy)


def test_the_curve_standing_in_for_the_greedy_start_of_cities_numbered_along_it_is_the_curve(monkeypatch) -> None:
    """Cities numbered along the curve (`spatial_order`) whose greedy start is given up once their
    nearest are found: the curve in the search's numbers is the identity, and the tour returned
    unsearched is the curve in the instance's own numbers."""
    import amsolve.budget as budget
    import amsolve.solver as solver

    monkeypatch.setattr(solver, "SPATIAL_ORDER_CITIES", 100)
    slow_machine = budget.PLANAR_COSTS._replace(neighbours=1e-12, wide_neighbours=1e-12, greedy=1e-9)
    monkeypatch.setattr(budget, "PLANAR_COSTS", slow_machine)
    monkeypatch.setattr(budget, "PACE_FLOOR", 0.0)  # figures this small are below it
    instance = uniform(300, 1, seed=4)[0]
    solution = solve_instances([instance], SolveOptions(time_limit=0.05, local_search="none"))[0]
    assert solution.tour.tolist() == construct(distance_view(instance), "space-filling").tolist()


@pytest.mark.parametrize("slowed", ["construct", "_candidates"])
def test_a_search_whose_time_is_gone_still_makes_its_first_descent(slowed: str, monkeypatch) -> None:
    """The start's construction or the candidate lists take the whole time limit (as a slow
    decoder or a stall of the machine would): the first descent still runs, a little past the
    deadline, instead of the start being returned as it is."""
    import amsolve.solver as solver

    real = getattr(solver, slowed)

    def stalled(*args, **kwargs):
        result = real(*args, **kwargs)
        time.sleep(0.06)
        return result

    instances = uniform(100, 2, seed=5)
    start = solve_instances(instances, SolveOptions(decode=DecodeOptions("greedy-edge"), local_search="none"))
    monkeypatch.setattr(solver, slowed, stalled)
    searched = solve_instances(instances, SolveOptions(decode=DecodeOptions("greedy-edge"), time_limit=0.05))
    assert all(s.length < 0.97 * b.length for s, b in zip(searched, start, strict=True))


def test_a_stall_before_the_search_still_leaves_a_whole_first_descent(monkeypatch) -> None:
    """A random start whose construction ends past the deadline (a stall of the machine): its steps
    before the kicks fit in `STALL_ALLOWANCE` of the limit, so its first descent runs to its end,
    within that allowance after the stall, instead of being cut after `DESCENT_GRACE` of the limit."""
    import amsolve.solver as solver

    real = solver.construct

    def stalled(*args, **kwargs):
        result = real(*args, **kwargs)
        time.sleep(0.051)
        return result

    instances = uniform(200, 2, seed=6)
    options = SolveOptions(decode=DecodeOptions("random"), time_limit=0.05)
    searched = solve_instances(instances, replace(options, time_limit=None))
    monkeypatch.setattr(solver, "construct", stalled)
    stalled_solves = solve_instances(instances, options)
    for stalled_solve, searched_solve in zip(stalled_solves, searched, strict=True):
        assert stalled_solve.length < 1.1 * searched_solve.length
        assert 0.051 < stalled_solve.seconds < 0.051 + solver.STALL_ALLOWANCE * 0.05
    monkeypatch.setattr(solver, "_steps_allowance", lambda view, limit: 0.0)
    cut = solve_instances(instances, options)
    assert all(c.length > 1.1 * s.length for c, s in zip(cut, searched, strict=True))


def test_a_stall_under_a_limit_the_steps_nearly_fill_still_leaves_a_first_descent(monkeypatch) -> None:
    """A limit in which the steps before the kicks fit by their figures, but not in `STALL_ALLOWANCE`
    of it: a stall after the greedy start still leaves a whole first descent, the steps' own figure
    allowed past the deadline; with no allowance the descent stops at its first look at the clock."""
    import amsolve.solver as solver
    from amsolve.budget import steps_seconds

    instances = uniform(100, 2, seed=7)
    view = distance_view(instances[0])
    limit = 1.5 * steps_seconds(view)
    assert solver._steps_allowance(view, limit) == steps_seconds(view)
    greedy = solve_instances(instances, SolveOptions(decode=DecodeOptions("greedy-edge"), local_search="none"))
    real = solver.construct

    def stalled(*args, **kwargs):
        result = real(*args, **kwargs)
        time.sleep(limit + 0.001)
        return result

    monkeypatch.setattr(solver, "construct", stalled)
    options = SolveOptions(decode=DecodeOptions("greedy-edge"), time_limit=limit)
    searched = solve_instances(instances, options)
    assert all(s.length < 0.97 * g.length for s, g in zip(searched, greedy, strict=True))
    monkeypatch.setattr(solver, "_steps_allowance", lambda view, limit: 0.0)
    cut = solve_instances(instances, options)
    assert all(c.length > 0.99 * g.length for c, g in zip(cut, greedy, strict=True))


def test_a_matrix_whose_nearest_would_not_fit_in_the_limit_is_returned_in_its_own_order(monkeypatch) -> None:
    """A matrix is read whole to find each city's nearest; where that would take longer than the
    limit (here: a machine that reads a pair in a second), the cities' own order is returned, and
    the matrix is never searched for its nearest."""
    import amsolve.budget as budget

    rng = np.random.default_rng(9)
    points = rng.uniform(0.0, 1000.0, (200, 2))
    matrix = np.rint(np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1)))
    instance = Instance.from_matrix(matrix, display_coords=points)
    solve_instances([instance], SolveOptions(time_limit=0.05))  # the one-time costs, on the real figures
    monkeypatch.setattr(budget, "MATRIX_NEIGHBOURS_PER_PAIR", 1.0)
    monkeypatch.setattr(budget, "MATRIX_WIDE_NEIGHBOURS_PER_PAIR", 1.0)
    found = []
    real = amsolve.solver.shared_neighbours
    monkeypatch.setattr(amsolve.solver, "shared_neighbours", lambda *args: found.append(1) or real(*args))
    monkeypatch.setattr(amsolve.solver, "warm_up", lambda *args: 0.0)
    solution = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert solution.tour.tolist() == list(range(200)) and not found
    monkeypatch.setattr(budget, "MATRIX_NEIGHBOURS_PER_PAIR", 1e-12)
    monkeypatch.setattr(budget, "MATRIX_WIDE_NEIGHBOURS_PER_PAIR", 1e-12)
    searched = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert found and searched.length < 0.5 * solution.length


def test_where_not_even_the_nearest_fit_the_curve_is_searched_over_its_own_neighbours(monkeypatch) -> None:
    """A machine on which each city's nearest would take a second a city but candidates along the
    start tour almost nothing: the space-filling curve is the start, shortened by a search over
    each city's neighbours along it; with those too slow, it is returned as it is."""
    import amsolve.budget as budget

    instance = uniform(2000, 1, seed=5)[0]
    curve = construct(distance_view(instance), "space-filling")
    solve_instances([instance], SolveOptions(time_limit=0.05))  # the one-time costs, on the real figures
    monkeypatch.setattr(amsolve.solver, "warm_up", lambda *args: 0.0)
    slow_nearest = budget.PLANAR_COSTS._replace(neighbours=1.0, wide_neighbours=1.0, window=1e-12)
    monkeypatch.setattr(budget, "PLANAR_COSTS", slow_nearest)
    searched = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert sorted(searched.tour.tolist()) == list(range(2000))
    assert searched.length < 0.95 * instance.tour_length(curve)
    monkeypatch.setattr(budget, "PLANAR_COSTS", slow_nearest._replace(window=1.0))
    unsearched = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert unsearched.tour.tolist() == curve.tolist()


def test_where_not_even_the_curve_fits_the_cities_own_order_is_returned(monkeypatch) -> None:
    """A machine on which the space-filling curve, the cheapest start of coordinates, would take a
    second a city (and so would everything dearer): the cities' own order is returned, the curve
    never built."""
    import amsolve.budget as budget

    instance = uniform(2000, 1, seed=6)[0]
    solve_instances([instance], SolveOptions(time_limit=0.05))  # the one-time costs, on the real figures
    monkeypatch.setattr(amsolve.solver, "warm_up", lambda *args: 0.0)
    built = []
    real = amsolve.solver.construct
    monkeypatch.setattr(
        amsolve.solver, "construct", lambda view, name, *args: built.append(name) or real(view, name, *args)
    )
    monkeypatch.setattr(budget, "PLANAR_COSTS", budget.PLANAR_COSTS._replace(neighbours=1.0, curve=1.0, window=1.0))
    solution = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert solution.tour.tolist() == list(range(2000)) and not built


def test_the_curve_fits_only_if_at_its_slowest_it_ends_within_the_overrun_allowed() -> None:
    """100,000 planar cities: the curve fits the time left exactly when its figure times
    `CURVE_SPREAD`, plus the finish, is within `OVERRUN_ALLOWED` of it; a pace faster than the
    figures does not make each city's nearest look cheaper, a slower one makes them dearer."""
    import amsolve.budget as budget

    view = DistanceView(np.zeros((100_000, 2)), distance_view(uniform(5, 1)[0]).code)
    at_slowest = (budget.CURVE_SPREAD * budget.PLANAR_COSTS.curve + budget.FINISH) * view.n
    assert budget.curve_fits(view, at_slowest / budget.OVERRUN_ALLOWED * 1.001)
    assert not budget.curve_fits(view, at_slowest / budget.OVERRUN_ALLOWED * 0.999)
    nearest = (budget.PLANAR_COSTS.neighbours + budget.PLANAR_COSTS.space) * view.n
    assert budget.neighbours_fit(view, 1.001 * nearest, speed=0.5)
    assert not budget.neighbours_fit(view, 0.999 * nearest, speed=0.5)
    assert not budget.neighbours_fit(view, 1.9 * nearest, speed=2.0)


def test_a_step_too_short_to_tell_the_machines_speed_has_a_pace_of_one() -> None:
    """The curve of 1,000 cities (0.08 ms by its figure) taking 2.5 or 0.4 times that says nothing
    of the machine (`PACE_FLOOR`); the curve of 100,000 cities taking twice its figure does."""
    import amsolve.budget as budget

    code = distance_view(uniform(5, 1)[0]).code
    small, large = DistanceView(np.zeros((1000, 2)), code), DistanceView(np.zeros((100_000, 2)), code)
    small_figure = budget.PLANAR_COSTS.curve * small.n
    assert small_figure < budget.PACE_FLOOR
    assert budget.pace(small, "curve", 2.5 * small_figure) == 1.0
    assert budget.pace(small, "curve", 0.4 * small_figure) == 1.0
    large_figure = budget.PLANAR_COSTS.curve * large.n
    assert budget.pace(large, "curve", 2.0 * large_figure) == pytest.approx(2.0)


def test_the_nearest_fit_only_with_the_search_arrays_they_need(monkeypatch) -> None:
    """Each city's nearest almost free but the search's arrays for them (`StepCosts.space`) a second
    a city: the nearest are not found, and the curve is returned as it is."""
    import amsolve.budget as budget

    instance = uniform(2000, 1, seed=7)[0]
    curve = construct(distance_view(instance), "space-filling")
    solve_instances([instance], SolveOptions(time_limit=0.05))  # the one-time costs, on the real figures
    monkeypatch.setattr(amsolve.solver, "warm_up", lambda *args: 0.0)
    found = []
    real = amsolve.solver.shared_neighbours
    monkeypatch.setattr(amsolve.solver, "shared_neighbours", lambda *args: found.append(1) or real(*args))
    costly_arrays = budget.PLANAR_COSTS._replace(neighbours=1e-12, greedy=1.0, space=1.0, window=1.0)
    monkeypatch.setattr(budget, "PLANAR_COSTS", costly_arrays)
    solution = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert solution.tour.tolist() == curve.tolist() and not found
    monkeypatch.setattr(budget, "PLANAR_COSTS", costly_arrays._replace(space=1e-12))
    searched = solve_instances([instance], SolveOptions(time_limit=0.05))[0]
    assert found and searched.length < 0.95 * solution.length


def test_a_warm_up_is_reported_only_when_it_passes_its_threshold(monkeypatch) -> None:
    """`on_slow_warm_up(True)` once the warm-up has run `SLOW_WARM_UP_SECONDS`, `(False)` when it
    ends; nothing for a warm-up that ends before, as one does once the search is compiled."""
    import amsolve.solver as solver

    instances = uniform(30, 1, seed=8)
    solve_instances(instances, SolveOptions())  # compiled or loaded from the cache: the warm-up is quick now
    calls: list[bool] = []
    monkeypatch.setattr(solver, "SLOW_WARM_UP_SECONDS", 60.0)
    solve_instances(instances, SolveOptions(), on_slow_warm_up=calls.append)
    assert calls == []
    real_warm_up = solver.warm_up

    def slow_warm_up(*args, **kwargs) -> float:
        time.sleep(0.2)
        return real_warm_up(*args, **kwargs)

    monkeypatch.setattr(solver, "SLOW_WARM_UP_SECONDS", 0.05)
    monkeypatch.setattr(solver, "warm_up", slow_warm_up)
    solve_instances(instances, SolveOptions(), on_slow_warm_up=calls.append)
    assert calls == [True, False]

"""The model card (TRAINING.md) and learning curve (curve.png) of a training output directory.

A run started with `--init-from` inherits the history of the model it starts from, so the
card and curve of a shipped model cover every phase (e.g. a supervised warm start, then
REINFORCE) with cumulative instances and hours.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from amsolve.errors import InputError
from amsolve.io.text import write_text_atomic

LOG_FILE = "train.jsonl"
PHASES_FILE = "phases.json"
CARD_FILE = "TRAINING.md"
CURVE_FILE = "curve.png"
NOTES_FILE = "NOTES.md"
"""Optional hand-written notes in a run directory, appended to its card."""


def read_log(directory: Path) -> list[dict[str, Any]]:
    """The epoch records of a run directory (empty when it has none)."""
    path = directory / LOG_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def read_phases(directory: Path) -> list[dict[str, Any]]:
    """The training phases recorded in a run directory."""
    path = directory / PHASES_FILE
    return json.loads(path.read_text()) if path.is_file() else []


def _percent(value: float | None) -> str:
    """A gap for the card, or a dash when it was not measured."""
    return "–" if value is None else f"{value:.3f} %"


def _method(options: dict[str, Any]) -> str:
    """What a phase did, in words, from its options."""
    reading = ""
    if options.get("teacher_starts") == "model":
        reading = " (read from greedy decoding's start city, in the model's likelier direction)"
    if options.get("supervised") and not options.get("mix_supervised"):
        method = f"teacher forcing on the reference tours of `{Path(options['supervised']).name}`{reading}"
        if not reading:
            method += f", {options['trajectories']} sequences per tour"
    elif options["baseline"] == "shared":
        starts = options.get("starts") or options["nodes"]
        if options.get("own_starts"):
            method = f"REINFORCE, shared baseline over {starts} tours from the model's own first cities"
            if options.get("forced_starts"):
                method += f" + {options['forced_starts']} tours from random start cities, baselined apart"
        else:
            method = f"REINFORCE, POMO shared baseline over {starts} starts"
    elif options["baseline"] == "rollout":
        method = "REINFORCE, greedy rollout baseline (paired t-test, α = 5 %)"
    else:
        method = "REINFORCE, exponential moving-average baseline"
    if options.get("mix_supervised"):
        method += f" + {options['mix_supervised']:g} × teacher forcing on `{Path(options['supervised']).name}`{reading}"
    if options.get("temperature", 1.0) != 1.0 and not (options.get("supervised") and not options.get("mix_supervised")):
        method += f", tours sampled at temperature {options['temperature']:g}"
    if bonus := options.get("leader_bonus"):
        method += f", leader bonus {bonus:g} (the shortest tour weighs {1 + bonus:g}×)"
    if options.get("normalized_inputs"):
        method += ", instances normalised as the solver normalises them"
    method += f"; n = {options['nodes']}, batch {options['batch_size']}, Adam lr {options['lr']:g}"
    method += f", seed {options['seed']}"
    if options.get("ema"):
        method += f"; weights averaged (EMA, decay {options['ema']:g} per step)"
    if options.get("init_from"):
        method += f"; starts from `{options['init_from']}`"
        if layers := options.get("n_layers"):
            method += f", {layers} encoder layers (any beyond its own start as identities)"
            if new_lr := options.get("new_layers_lr"):
                method += f", the appended ones at lr {new_lr:g}"
    return method


def _resumes(phase: dict[str, Any]) -> str:
    """The resumes of a phase that changed how it trains (e.g. a lower --lr), for its command cell."""
    notes = []
    for resume in phase.get("resumed", []):
        changed = {name: value for name, value in resume["changed"].items() if name in ("lr", "epochs", "ema")}
        if changed:
            settings = ", ".join(f"{name} {value:g}" for name, value in changed.items())
            notes.append(f"<br>resumed {resume['at'][:16].replace('T', ' ')} with {settings}: `{resume['command']}`")
    return "".join(notes)


def _phase_rows(phases: list[dict[str, Any]], log: list[dict[str, Any]]) -> list[str]:
    """The card's table of training phases: method, epochs, instances, hours, best gap, command."""
    rows = [
        "| phase | method | epochs | instances | wall hours | best greedy gap | command | machine |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for phase in phases:
        records = [record for record in log if record.get("phase") == phase["phase"]]
        instances = records[-1]["instances_seen"] if records else 0
        hours = records[-1]["wall_seconds"] / 3600 if records else 0.0
        gaps = [record["greedy_gap_pct"] for record in records if "greedy_gap_pct" in record]
        cells = (
            phase["phase"],
            _method(phase["options"]),
            len(records),
            f"{instances:,}",
            f"{hours:.2f}",
            _percent(min(gaps) if gaps else None),
            f"`{phase['command']}`" + _resumes(phase),
            phase["machine"],
        )
        rows.append("| " + " | ".join(map(str, cells)) + " |")
    return rows


def write_card(directory: Path, shipped_epoch: int | None = None) -> None:
    """Writes TRAINING.md (and curve.png when matplotlib is available) from the run's records.

    `shipped_epoch` names the saved epoch of the last phase whose weights the directory holds when
    they were chosen by hand (e.g. on a selection set) rather than left as the run's last save.
    """
    log, phases = read_log(directory), read_phases(directory)
    if not log or not phases:
        return
    current = [record for record in log if record["phase"] == phases[-1]["phase"]] or log
    saved = [record for record in current if record.get("saved")]
    if shipped_epoch is not None:
        saved = [record for record in saved if record["epoch"] == shipped_epoch]
        if not saved:
            raise InputError(f"{directory}: epoch {shipped_epoch} of the last phase saved no weights")
    # The weights in this directory: the epoch named, else the last saved (a save is always an
    # improvement by the criterion then in force, which `--ema` changes), else the phase's best epoch.
    best = saved[-1] if saved else min(current, key=lambda record: record["greedy_length"])
    validation = phases[-1]["options"].get("val_set") or "random instances"
    last = log[-1]
    lines = [
        f"# Model card: `{directory.name}`",
        "",
        f"Attention Model (docs/DESIGN.md §1) trained on {phases[-1]['options']['nodes']}-city uniform instances, "
        f"{len(phases)} phase(s), {last['total_instances']:,} training instances, "
        f"{last['total_wall_seconds'] / 3600:.2f} wall-clock hours in all. "
        "The weights are those of the epoch with the shortest mean greedy tour on the validation set "
        "(with `--ema`, those of the weights' moving average at that epoch).",
        "",
        "## Phases",
        "",
        *_phase_rows(phases, log),
        "",
        "## Validation of the shipped weights",
        "",
        f"Epoch {best['epoch']} of phase {best['phase']} ({best['total_instances']:,} instances, "
        f"{best['total_wall_seconds'] / 3600:.2f} h), on `{validation}`:",
        "",
        "| decoder | mean length | mean gap |",
        "|---|---|---|",
        f"| greedy | {best['greedy_length']:.5f} | {_percent(best.get('greedy_gap_pct'))} |",
        f"| multi-start ×8 (first {phases[-1]['options']['val_multistart_size']} instances) | "
        f"{best['multistart8_length']:.5f} | {_percent(best.get('multistart8_gap_pct'))} |",
        "",
        f"Learning curve: `{CURVE_FILE}` (validation gap against cumulative hours). "
        f"Every epoch's figures: `{LOG_FILE}`.",
        "",
    ]
    notes = directory / NOTES_FILE
    if notes.is_file():
        lines += ["## Notes", "", notes.read_text().strip(), ""]
    write_text_atomic(directory / CARD_FILE, "\n".join(lines), force=True)
    with contextlib.suppress(InputError):  # matplotlib is optional; the card says where the raw figures are
        plot_curve(directory / CURVE_FILE, log, phases)


def plot_curve(path: Path, log: list[dict[str, Any]], phases: list[dict[str, Any]]) -> None:
    """Draws `curve_figure` into a PNG file (overwriting it), when the log has validation gaps."""
    from amsolve.figures import save_figure

    figure = curve_figure(log, phases)
    if figure is not None:
        save_figure(figure, path, force=True)


def curve_figure(log: list[dict[str, Any]], phases: list[dict[str, Any]]) -> Any:
    """Validation gap (log scale) of greedy and multi-start ×8 against cumulative hours (and, for
    epochs trained with `--ema`, the greedy gap of the trained weights beside the average's); None
    when the last epoch has no validation gap.

    Each phase starts at a dotted line numbered above the axes (labels too close to fit side by
    side are moved apart, with dotted leaders to their lines); each phase is validated at its own
    size, so a label also gives the n wherever it changes. Gaps at or below `GAP_FLOOR_PCT` (0
    included) are drawn at it, where the tick reads "≤ 0.001 %".
    """
    from amsolve.figures import GAP_FLOOR_PCT, percent_label, pyplot, set_log_axis

    if "greedy_gap_pct" not in log[-1]:
        return None
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(7, 4.2))
    curves = [("greedy_gap_pct", "greedy"), ("multistart8_gap_pct", "multi-start ×8")]
    if any("raw_greedy_gap_pct" in record for record in log):  # with --ema the curves above are the average's
        curves.append(("raw_greedy_gap_pct", "greedy, trained weights (not averaged)"))
    drawn: list[float] = []
    for key, label in curves:
        measured = [record for record in log if key in record]  # phases without --val-set have no gaps
        hours = [record["total_wall_seconds"] / 3600 for record in measured]
        gaps = [max(record[key], GAP_FLOOR_PCT) for record in measured]
        axis.plot(hours, gaps, marker=".", markersize=4, linewidth=1, label=label)
        drawn += gaps
    floor = GAP_FLOOR_PCT if min(drawn) <= GAP_FLOOR_PCT else None
    set_log_axis(axis, "y", min(drawn) / 1.5, max(drawn) * 1.5, percent_label, floor)
    nodes = {phase["phase"]: phase["options"]["nodes"] for phase in phases}
    labels, previous_n = [], None
    for phase in sorted({record["phase"] for record in log}):
        first = next(record for record in log if record["phase"] == phase)
        start = (first["total_wall_seconds"] - first["wall_seconds"]) / 3600
        if labels:
            axis.axvline(start, color="grey", linestyle=":", linewidth=1)
        n = nodes.get(phase, previous_n)
        text = str(phase) if n == previous_n else f"{phase} (n = {n})"
        previous_n = n
        leader = {"arrowstyle": "-", "color": "grey", "linestyle": ":", "shrinkA": 0, "shrinkB": 0}
        labels.append(
            axis.annotate(
                text,
                (start, 1),
                xycoords=("data", "axes fraction"),
                xytext=(0, 0),
                textcoords="offset points",
                horizontalalignment="center",
                fontsize=7.5,
                arrowprops=leader,
            )
        )
    _spread_labels(figure, axis, labels)
    axis.set_xlabel(
        "training wall-clock hours (this CPU)\ndotted lines: a new phase, numbered above (n: cities per instance)"
    )
    axis.set_ylabel("validation gap at the phase's n")
    axis.grid(True, which="major", alpha=0.35)
    axis.grid(True, which="minor", alpha=0.1)
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=len(curves), frameon=False, fontsize=8.5)
    return figure


def _spread_labels(figure: Any, axis: Any, labels: list[Any], gap_points: float = 12, rise_points: float = 24) -> None:
    """Shifts labels sideways, keeping their order, until none overlaps the next one; a dotted leader
    joins each label to the top of its line (straight up when it did not move).

    The labels start centred above their lines; a forward pass pushes each clear of the one before,
    a backward pass pulls them back inside the axes' right end.
    """
    from matplotlib.text import Text

    figure.draw_without_rendering()  # final axis limits, so that the labels' positions are final too
    renderer = figure.canvas.get_renderer()
    points = figure.dpi / 72  # pixels per point
    boxes = [Text.get_window_extent(label, renderer) for label in labels]  # the text alone, not its leader
    anchors = [(box.x0 + box.x1) / 2 for box in boxes]
    halves = [box.width / 2 + gap_points * points / 2 for box in boxes]
    centres = list(anchors)
    for index in range(1, len(centres)):
        centres[index] = max(centres[index], centres[index - 1] + halves[index - 1] + halves[index])
    right = axis.get_window_extent(renderer).x1
    for index in reversed(range(len(centres))):
        limit = right if index == len(centres) - 1 else centres[index + 1] - halves[index + 1]
        centres[index] = min(centres[index], limit - halves[index])
    for label, anchor, centre in zip(labels, anchors, centres, strict=True):
        label.set_position(((centre - anchor) / points, rise_points))

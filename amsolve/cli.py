"""The `amsolve` command line: each command parses options, calls one function, renders the result."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Annotated

import typer

from amsolve.errors import AmsolveError

app = typer.Typer(
    name="amsolve",
    help="Solve travelling salesman problems with an Attention Model trained by REINFORCE.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


# Options that `solve` and `bench` share, declared once.
SamplesOption = Annotated[int, typer.Option(help="sample: tours sampled per instance.")]
BeamWidthOption = Annotated[int, typer.Option(help="beam: beam width.")]
StartsOption = Annotated[
    int | None,
    typer.Option(help="multistart: start cities (default: every city up to 58, fewer above: 20 at 100, 1 from 317)."),
]
ModelOption = Annotated[
    str | None, typer.Option(help="Shipped model name or model directory (default: nearest in size).")
]
DeviceOption = Annotated[
    str, typer.Option(help="Where the attention model runs: auto, cpu or cuda (the search runs on the CPU).")
]
SeedOption = Annotated[int, typer.Option(help="Seed (0 or more) of the sampling decoder and of iterated local search.")]
BatchSizeOption = Annotated[int, typer.Option(help="Instances of equal size decoded together.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout instead of the table.")]
CandidatesOption = Annotated[
    str,
    typer.Option(
        help="Candidate lists of the search: alpha (α-nearness, as LKH), alphanet (α-nearness from penalties "
        "a small network predicts, the start of an ascent where the time allows one), nearest, quadrant "
        "(nearest per quadrant) or model (the network's edge scores)."
    ),
]
CandidatesKOption = Annotated[
    int | None,
    typer.Option(help="Candidates per city (default: 8 for alpha, alphanet and model, 10 for nearest and quadrant)."),
]


def _version(value: bool) -> None:
    if value:
        from amsolve import __version__

        typer.echo(f"amsolve {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Solve travelling salesman problems with an Attention Model trained by REINFORCE."""


def bound_decoding_memory(largest_n: int) -> None:
    """Fixes glibc's mmap threshold before a `solve` or `bench` run decodes instances this large.

    A whole-process setting, so the commands' choice, not the library's; see
    `fix_malloc_mmap_threshold` for why only large instances take it. Not for `train`: there each
    step's many mid-sized blocks would be mapped and faulted in afresh, which doubled the time of a
    100-city epoch (410 → 740 s with two threads).
    """
    from amsolve.machine import LARGE_INSTANCE_CITIES, fix_malloc_mmap_threshold

    if largest_n >= LARGE_INSTANCE_CITIES:
        fix_malloc_mmap_threshold()


@contextmanager
def user_errors() -> Iterator[None]:
    """Turns an AmsolveError into one line on stderr and exit code 2, without a traceback."""
    try:
        yield
    except AmsolveError as error:
        typer.echo(f"amsolve: error: {error}", err=True)
        raise typer.Exit(2) from None


@app.command()
def solve(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="TSPLIB .tsp, CSV of coordinates or (--format matrix) of distances, or Concorde-style dataset files.",
            show_default=False,
        ),
    ],
    decode: Annotated[
        str,
        typer.Option(
            help="Start: the network's greedy, sample, beam, multistart or local (local views, any size), "
            "or a construction without it: greedy-edge, nearest, space-filling or random."
        ),
    ] = "greedy-edge",
    samples: SamplesOption = 128,
    temperature: Annotated[float, typer.Option(help="sample: softmax temperature.")] = 1.0,
    beam_width: BeamWidthOption = 16,
    starts: StartsOption = None,
    augment: Annotated[
        bool | None,
        typer.Option(
            "--augment/--no-augment",
            help="Also decode the 8 symmetries of each instance and keep the best (default: up to 1,000 cities).",
            show_default=False,
        ),
    ] = None,
    local_search: Annotated[
        str,
        typer.Option(
            help="Search from the start: lk (Lin–Kernighan steps and non-sequential bridge moves), 2opt, "
            "2opt+oropt or none."
        ),
    ] = "lk",
    candidates: CandidatesOption = "alphanet",
    candidates_k: CandidatesKOption = None,
    improve: Annotated[int, typer.Option(help="Local search is applied to this many of the best decoded tours.")] = 1,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Seconds per instance, everything included (decoding, candidate lists, search). "
            "Default: decoding to its end, then 1 ms per city of search."
        ),
    ] = None,
    model: ModelOption = None,
    device: DeviceOption = "auto",
    seed: SeedOption = 0,
    file_format: Annotated[
        str, typer.Option("--format", help="auto, tsplib, csv, matrix (a square CSV of distances) or dataset.")
    ] = "auto",
    limit: Annotated[int | None, typer.Option(help="Only the first N instances of a dataset file.")] = None,
    batch_size: BatchSizeOption = 64,
    tour_out: Annotated[
        Path | None, typer.Option(help="Write each tour as a TSPLIB .tour file into this directory.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing .tour and plot files.")] = False,
    plot: Annotated[Path | None, typer.Option(help="Draw the (first) tour over its cities into this PNG file.")] = None,
    show_tour: Annotated[bool, typer.Option("--show-tour", help="Show whole tours, not a shortened form.")] = False,
    json_output: JsonOption = False,
) -> None:
    """Solve instances with a pretrained model and print each tour and its length."""
    from amsolve.decode.options import DecodeOptions
    from amsolve.figures import plot_tour, pyplot
    from amsolve.io import load_instances
    from amsolve.io.dataset import check_limit
    from amsolve.model.registry import check_model
    from amsolve.outputs import check_tour_directory, check_writable, write_tours
    from amsolve.render import ProgressBar, render_solutions, solutions_json
    from amsolve.solver import SolveOptions, solve_instances

    with user_errors():
        options = SolveOptions(
            decode=DecodeOptions(
                strategy=decode,
                samples=samples,
                temperature=temperature,
                beam_width=beam_width,
                starts=starts,
                augment=augment,
                keep=improve,
                seed=seed,
            ),
            local_search=local_search,
            candidates=candidates,
            candidates_k=candidates_k,
            model=model,
            device=device,
            batch_size=batch_size,
            time_limit=time_limit,
        )
        if model is not None:
            check_model(model)
        check_limit(limit)
        instances = [instance for path in files for instance in load_instances(path, file_format, limit)]
        bound_decoding_memory(max(instance.n for instance in instances))
        if tour_out is not None:
            check_tour_directory(tour_out, instances, force)
        if plot is not None:
            pyplot()
            check_writable([plot], force)
        with ProgressBar(len(instances), "solving", enabled=not json_output) as progress:
            solutions = solve_instances(
                instances,
                options,
                on_progress=progress.advance,
                on_search_progress=progress.search_status,
                on_slow_warm_up=progress.slow_warm_up,
            )
        if json_output:
            typer.echo(solutions_json(solutions))
        else:
            render_solutions(solutions, show_tour)
        if tour_out is not None:
            write_tours(tour_out, solutions, force)
        if plot is not None:
            plot_tour(plot, solutions[0], force)
        unused = " and ".join(name for name, given in (("--model", model), ("--device", device != "auto")) if given)
        if unused and not options.uses_network:
            typer.echo(
                f"note: {unused} not used: the start {decode!r} and the {candidates!r} candidates run no attention "
                "model (a network start such as --decode multistart, or --candidates model, does)",
                err=True,
            )


BENCH_PIPELINES = "greedy,multistartx8,greedy-edge+lk@alphanet8"


@app.command()
def bench(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Dataset files, TSPLIB .tsp files or directories (default: the shipped suite).", show_default=False
        ),
    ] = None,
    decode: Annotated[
        str,
        typer.Option(
            help="Pipelines, comma-separated, each a START then optionally x8, +SEARCH and @CANDIDATES\\[K]: "
            "e.g. greedy, beam, multistartx8+lk@alpha8, random+lk@nearest10. "
            f"Default: {BENCH_PIPELINES.replace(',', ', ')}.",
            show_default=False,
        ),
    ] = BENCH_PIPELINES,
    samples: SamplesOption = 128,
    beam_width: BeamWidthOption = 16,
    starts: StartsOption = None,
    augment: Annotated[
        bool, typer.Option(help="Augment every pipeline ×8 (or per pipeline with the x8 suffix).")
    ] = False,
    model: ModelOption = None,
    device: DeviceOption = "auto",
    seed: SeedOption = 0,
    limit: Annotated[int | None, typer.Option(help="Only the first N instances of each dataset file.")] = None,
    batch_size: BatchSizeOption = 64,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Seconds per instance, everything included (default: decoding, then 1 ms per city of search)."
        ),
    ] = None,
    candidates: CandidatesOption = "alphanet",
    candidates_k: CandidatesKOption = None,
    optima: Annotated[
        Path | None, typer.Option(help="CSV table name,optimal with optimal lengths of TSPLIB instances.")
    ] = None,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Also write the rows to this CSV file.")] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="Draw mean gap against seconds per instance into this PNG file: one marker per pipeline and "
            "dataset (TSPLIB instances as their total), the best gap within each time as a line."
        ),
    ] = None,
    whiskers: Annotated[
        bool, typer.Option("--whiskers", help="With --plot: a line from each marker up to the worst instance's gap.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing --csv and --plot files.")] = False,
    json_output: JsonOption = False,
) -> None:
    """Measure gaps and times against reference tours and TSPLIB optima."""
    from amsolve.bench import chart_points, collect_datasets, default_datasets, read_optima, run_bench, write_csv
    from amsolve.decode.options import DecodeOptions
    from amsolve.figures import pyplot, time_quality_chart
    from amsolve.io.dataset import check_limit
    from amsolve.model.registry import check_model
    from amsolve.outputs import check_writable
    from amsolve.pipeline import parse_pipelines
    from amsolve.render import ProgressBar, bench_json, render_bench
    from amsolve.solver import SolveOptions

    with user_errors():
        check_limit(limit)
        template = SolveOptions(
            decode=DecodeOptions(samples=samples, beam_width=beam_width, starts=starts, augment=augment, seed=seed),
            local_search="none",
            candidates=candidates,
            candidates_k=candidates_k,
            model=model,
            device=device,
            batch_size=batch_size,
            time_limit=time_limit,
        )
        pipelines = parse_pipelines(decode, template)
        if model is not None:
            check_model(model)
        check_writable([path for path in (csv_out, plot) if path is not None], force)
        if plot is not None:
            pyplot()
        table = read_optima(optima) if optima else {}
        datasets = collect_datasets(paths, table, limit) if paths else default_datasets(limit)
        bound_decoding_memory(max(instance.n for dataset in datasets for instance in dataset.instances))
        total = len(pipelines) * sum(len(dataset.instances) for dataset in datasets)
        with ProgressBar(total, "benchmarking", enabled=not json_output) as progress:
            rows = run_bench(datasets, pipelines, on_progress=progress.advance, on_slow_warm_up=progress.slow_warm_up)
        if json_output:
            typer.echo(bench_json(rows))
        else:
            render_bench(rows)
        if csv_out is not None:
            write_csv(csv_out, rows, force)
        if plot is not None:
            time_quality_chart(chart_points(rows), plot, force, whiskers=whiskers)


@app.command()
def explain(
    file: Annotated[
        Path,
        typer.Argument(help="TSPLIB .tsp, CSV of coordinates, or a Concorde-style dataset file.", show_default=False),
    ],
    instance: Annotated[int, typer.Option(help="Explain the K-th instance of a dataset file (from 1).")] = 1,
    model: ModelOption = None,
    json_output: JsonOption = False,
    gif: Annotated[
        Path | None,
        typer.Option(help="Animate the decoding into this GIF file, one frame per step (needs matplotlib)."),
    ] = None,
    step: Annotated[int | None, typer.Option(help="Show step S in full: every candidate city.")] = None,
    heads: Annotated[
        bool,
        typer.Option(
            "--heads", help="Also each glimpse head's attention: small multiples in --gif, columns in --step."
        ),
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --gif file.")] = False,
) -> None:
    """Watch the model decide: greedy decoding of one instance, step by step, with its probabilities."""
    from amsolve.errors import InputError
    from amsolve.explain_figures import animate, check_gif_size
    from amsolve.explanation import explain as explain_instance
    from amsolve.figures import pyplot
    from amsolve.io import load_instance
    from amsolve.outputs import check_writable
    from amsolve.render import console, explanation_json, render_explained_step, render_explanation

    with user_errors():
        if step is not None and json_output:
            raise InputError("--step shows one step as a table; --json prints every step")
        if heads and gif is None and step is None:
            raise InputError("--heads adds the glimpse heads to --gif or --step; give one of them")
        chosen = load_instance(file, instance)
        if step is not None and not 1 <= step <= chosen.n:
            raise InputError(f"--step must be between 1 and {chosen.n}, the number of steps")
        if gif is not None:
            pyplot()
            check_gif_size(chosen.n)
            check_writable([gif], force)
        explanation = explain_instance(chosen, model, glimpse=heads)
        if json_output:
            typer.echo(explanation_json(explanation))
        elif step is not None:
            render_explained_step(explanation, step)
        else:
            render_explanation(explanation)
        if gif is not None:
            frames = animate(gif, explanation, heads, force)
            console.print(f"{gif}: {frames} frames")


def _given_options(ctx: typer.Context) -> frozenset[str]:
    """The options typed on the command line, as opposed to left at their defaults."""
    # By name: Typer ships its own copy of click, whose ParameterSource is not click's.
    return frozenset(name for name in ctx.params if ctx.get_parameter_source(name).name != "DEFAULT")


RUN, PROBLEM, MODEL, SCHEDULE, REINFORCE, TEACHER = (
    "Run", "Instances and validation", "Model", "Schedule", "REINFORCE", "Teacher forcing"
)  # fmt: skip
"""The panels of `amsolve train --help`."""


@app.command()
def train(
    ctx: typer.Context,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output directory: weights, config, checkpoint, log, model card "
            "(default: runs/tsp<nodes>, or runs/<recipe>).",
            rich_help_panel=RUN,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue from the checkpoint in --out with the run's own options; of the options given, "
            "only --epochs, --lr, --ema, --max-time, --threads and --device may differ from the run's. "
            "A recipe's run goes on at the phase and epoch where it stopped.",
            rich_help_panel=RUN,
        ),
    ] = False,
    recipe: Annotated[
        str | None,
        typer.Option(
            help="Train phase after phase as a recipe says: tsp20, tsp50 or tsp100 (how the shipped models were "
            "trained) or a recipe file. Goes with --out, --resume, --data-dir, --max-time, --threads, --device.",
            rich_help_panel=RUN,
        ),
    ] = None,
    data_dir: Annotated[
        Path, typer.Option(help="Where a recipe's data sets are (<name>.txt).", rich_help_panel=RUN)
    ] = Path("data"),
    max_time: Annotated[
        float | None,
        typer.Option(help="Stop cleanly after this many seconds of this invocation.", rich_help_panel=RUN),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(help="CPU threads for torch per process (default: torch's choice).", rich_help_panel=RUN),
    ] = None,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.", rich_help_panel=RUN)] = "auto",
    seed: Annotated[int, typer.Option(help="Random seed.", rich_help_panel=RUN)] = 1234,
    nodes: Annotated[int, typer.Option(help="Cities per training instance.", rich_help_panel=PROBLEM)] = 20,
    normalized_inputs: Annotated[
        bool,
        typer.Option(
            "--normalized-inputs",
            help="Train and validate on instances normalised as amsolve solve normalises every input (each "
            "axis from 0, the larger range 1), instead of raw uniform points.",
            rich_help_panel=PROBLEM,
        ),
    ] = False,
    val_set: Annotated[
        Path | None,
        typer.Option(
            help="Concorde-style dataset with reference tours: reports validation gaps.", rich_help_panel=PROBLEM
        ),
    ] = None,
    val_size: Annotated[
        int, typer.Option(help="Validation instances (random ones unless --val-set).", rich_help_panel=PROBLEM)
    ] = 1000,
    init_from: Annotated[
        str | None,
        typer.Option(
            help="Start from this model (shipped name or directory), e.g. to fine-tune 50 from 20.",
            rich_help_panel=MODEL,
        ),
    ] = None,
    layers: Annotated[
        int | None,
        typer.Option(
            help="Encoder layers (default: 3, or those of --init-from). With --init-from, layers beyond the "
            "model's own are appended as identities at first, so training starts from its tours and adds depth.",
            rich_help_panel=MODEL,
        ),
    ] = None,
    new_layers_lr: Annotated[
        float | None,
        typer.Option(
            help="Adam learning rate of the layers --layers appends to an --init-from model (default: --lr).",
            rich_help_panel=MODEL,
        ),
    ] = None,
    epochs: Annotated[int, typer.Option(help="Number of epochs.", rich_help_panel=SCHEDULE)] = 100,
    epoch_size: Annotated[
        int, typer.Option(help="Training instances per epoch (over all processes).", rich_help_panel=SCHEDULE)
    ] = 100_000,
    batch_size: Annotated[
        int,
        typer.Option(
            help="Instances per gradient step (over all processes: each of N torchrun processes takes 1/N).",
            rich_help_panel=SCHEDULE,
        ),
    ] = 64,
    lr: Annotated[float, typer.Option(help="Adam learning rate.", rich_help_panel=SCHEDULE)] = 1e-4,
    ema: Annotated[
        float | None,
        typer.Option(
            help="Validate and save an exponential moving average of the weights with this decay per step "
            "(e.g. 0.998); may be added on --resume.",
            rich_help_panel=SCHEDULE,
        ),
    ] = None,
    baseline: Annotated[
        str,
        typer.Option(help="REINFORCE baseline: shared (POMO), rollout (AM) or exponential.", rich_help_panel=REINFORCE),
    ] = "shared",
    starts: Annotated[
        int | None,
        typer.Option(
            help="Shared baseline: start cities sampled per instance, or tours per instance with --own-starts "
            "(default: the number of cities).",
            rich_help_panel=REINFORCE,
        ),
    ] = None,
    own_starts: Annotated[
        bool,
        typer.Option(
            "--own-starts",
            help="Shared baseline: sample --starts tours whose first city the model picks itself, "
            "instead of one tour from each start city (trains the tours greedy decoding makes).",
            rich_help_panel=REINFORCE,
        ),
    ] = False,
    forced_starts: Annotated[
        int,
        typer.Option(
            help="With --own-starts: this many more tours per instance from distinct random start cities, "
            "with a baseline of their own, so that multi-start decoding keeps being trained.",
            rich_help_panel=REINFORCE,
        ),
    ] = 0,
    temperature: Annotated[
        float,
        typer.Option(
            help="Sample the training tours from, and train, the policy softmax(logits / T); greedy "
            "decoding's argmax is the same at any T, and below 1 the tours stay closer to greedy decoding's.",
            rich_help_panel=REINFORCE,
        ),
    ] = 1.0,
    leader_bonus: Annotated[
        float,
        typer.Option(
            help="Shared baseline: the shortest tour of each instance's group weighs 1 + this in the gradient "
            "(Leader Reward), so the policy moves toward its best tours rather than its average one.",
            rich_help_panel=REINFORCE,
        ),
    ] = 0.0,
    supervised: Annotated[
        Path | None,
        typer.Option(
            help="Teacher forcing on this dataset's reference tours instead of REINFORCE (a warm start).",
            rich_help_panel=TEACHER,
        ),
    ] = None,
    mix_supervised: Annotated[
        float,
        typer.Option(
            help="With --supervised: REINFORCE plus this weight × teacher forcing, instead of teacher forcing alone.",
            rich_help_panel=TEACHER,
        ),
    ] = 0.0,
    trajectories: Annotated[
        int,
        typer.Option(
            help="Teacher forcing from random starts: sequences read from each reference tour.",
            rich_help_panel=TEACHER,
        ),
    ] = 8,
    teacher_starts: Annotated[
        str,
        typer.Option(
            help="Teacher forcing reads each reference tour from random cities and directions (random), or "
            "from the city greedy decoding starts at, in the direction the model prefers (model), so that it "
            "corrects the steps greedy decoding takes.",
            rich_help_panel=TEACHER,
        ),
    ] = "random",
) -> None:
    """Train a model (REINFORCE, teacher forcing) and write its weights to --out.

    Under torchrun (torchrun --nproc-per-node N -m amsolve train ...) N processes share each batch.
    """
    from amsolve.render import TrainingDisplay, render_train_summary
    from amsolve.train.distributed import launched_rank
    from amsolve.train.launch import TrainRequest, run_training
    from amsolve.train.trainer import TrainOptions

    with user_errors():
        request = TrainRequest(
            options=TrainOptions(
                nodes=nodes,
                out=str(out or (f"runs/{Path(recipe).stem}" if recipe else f"runs/tsp{nodes}")),
                baseline=baseline,
                starts=starts,
                supervised=str(supervised) if supervised else None,
                mix_supervised=mix_supervised,
                trajectories=trajectories,
                teacher_starts=teacher_starts,
                own_starts=own_starts,
                forced_starts=forced_starts,
                temperature=temperature,
                leader_bonus=leader_bonus,
                normalized_inputs=normalized_inputs,
                epochs=epochs,
                epoch_size=epoch_size,
                batch_size=batch_size,
                lr=lr,
                ema=ema,
                seed=seed,
                device=device,
                init_from=init_from,
                n_layers=layers,
                new_layers_lr=new_layers_lr,
                val_set=str(val_set) if val_set else None,
                val_size=val_size,
                max_time=max_time,
                threads=threads,
                command=shlex.join(["amsolve", *sys.argv[1:]]),
            ),
            resume=resume,
            given=_given_options(ctx),
            recipe=recipe,
            data_dir=str(data_dir),
        )
        main_process = launched_rank() == 0  # under torchrun, rank 0 alone reports
        with TrainingDisplay() if main_process else nullcontext(lambda event: None) as display:
            summary = run_training(request, on_event=display)
        if main_process:
            render_train_summary(summary)

"""Pipeline names such as `multistartx8+2opt+oropt`, as `bench --decode` takes them."""

from __future__ import annotations

from dataclasses import replace

from amsolve.decode.strategies import DECODERS
from amsolve.errors import InputError
from amsolve.solver import SolveOptions

AUGMENT_SUFFIXES = ("x8", "×8", "*8")


def parse_pipeline(spec: str, template: SolveOptions) -> SolveOptions:
    """`DECODER[x8][+LOCALSEARCH]` on top of `template`, e.g. `beam`, `multistartx8+2opt+oropt`.

    `x8` turns on the 8-symmetry augmentation; a local search suffix replaces the template's.
    """
    text = spec.strip()
    decoder, _, search = text.partition("+")
    augment = template.decode.augment
    for suffix in AUGMENT_SUFFIXES:
        if decoder.endswith(suffix):
            decoder, augment = decoder[: -len(suffix)], True
    if decoder not in DECODERS:
        raise InputError(
            f"unknown decoder {spec!r}; use DECODER[x8][+LOCALSEARCH] with DECODER one of {', '.join(DECODERS)}"
        )
    return replace(
        template,
        decode=replace(template.decode, strategy=decoder, augment=augment),
        local_search=search or template.local_search,
    )


def parse_pipelines(specs: str, template: SolveOptions) -> list[SolveOptions]:
    """A comma-separated list of pipeline names."""
    pipelines = [parse_pipeline(spec, template) for spec in specs.split(",") if spec.strip()]
    if not pipelines:
        raise InputError("--decode names no decoder")
    return pipelines

"""Pipeline names such as `greedy-edge+lk@alpha8` or `multistartx8+2opt+oropt`, as `bench --decode` takes them."""

from __future__ import annotations

import re
from dataclasses import replace

from amsolve.decode.options import DECODERS
from amsolve.errors import InputError
from amsolve.search.candidates import CANDIDATE_SOURCES
from amsolve.solver import SolveOptions

AUGMENT_SUFFIXES = ("x8", "×8", "*8")

_FORM = "START[x8][+SEARCH][@CANDIDATES[K]]"


def parse_pipeline(spec: str, template: SolveOptions) -> SolveOptions:
    """`START[x8][+SEARCH][@CANDIDATES[K]]` on top of `template`, e.g. `beam`, `random+lk@alpha5`,
    `multistartx8+2opt+oropt@nearest10`.

    START is a network decoder or a construction; `x8` turns on the 8-symmetry augmentation; a
    search suffix replaces the template's, and so does a candidate source (with its k).
    """
    text, _, candidates = spec.strip().partition("@")
    decoder, _, search = text.partition("+")
    augment = template.decode.augment
    for suffix in AUGMENT_SUFFIXES:
        if decoder.endswith(suffix):
            decoder, augment = decoder[: -len(suffix)], True
    if decoder not in DECODERS:
        raise InputError(f"unknown start {spec!r}; use {_FORM} with START one of {', '.join(DECODERS)}")
    source, k = template.candidates, template.candidates_k
    if candidates:
        match = re.fullmatch(r"([a-z]+)(\d*)", candidates)
        if match is None or match.group(1) not in CANDIDATE_SOURCES:
            raise InputError(
                f"unknown candidates in {spec!r}; use {_FORM} with CANDIDATES one of {', '.join(CANDIDATE_SOURCES)}"
            )
        source, k = match.group(1), int(match.group(2)) if match.group(2) else None
    return replace(
        template,
        decode=replace(template.decode, strategy=decoder, augment=augment),
        local_search=search or template.local_search,
        candidates=source,
        candidates_k=k,
    )


def parse_pipelines(specs: str, template: SolveOptions) -> list[SolveOptions]:
    """A comma-separated list of pipeline names."""
    pipelines = [parse_pipeline(spec, template) for spec in specs.split(",") if spec.strip()]
    if not pipelines:
        raise InputError("--decode names no start")
    return pipelines

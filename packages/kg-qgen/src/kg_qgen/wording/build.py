"""The build's wording step, after the kept set is chosen: variety across the set
(:mod:`kg_qgen.wording.variety`). Only wordings change; :func:`kg_qgen.pipeline.build` calls
:func:`choose_wordings` with the checks every drawn wording must pass. (Up to round three an
adversarial filter then redrew the yes/no MT wordings until no one/two-word rule read the answer;
MT items are now two-option items whose wording says nothing about the gold by construction,
which ``kg_qgen.verify.mt_text`` measures, so that step and its module are gone.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from kg_qgen.checking import Check
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.wording.variety import Redraw, VarietyConfig, vary_wordings

__all__ = ["WordingSettings", "choose_wordings"]


class WordingSettings(Protocol):
    """What :func:`choose_wordings` reads of the build's settings (``pipeline.BuildConfig``)."""

    types: tuple[str, ...]
    seed: int
    wording_draws: int


def choose_wordings(
    kept: dict[str, list[dict]],
    cfg: WordingSettings,
    gen: object,
    sources: dict[str, tuple[int, Match]],
    graph: KnowledgeGraph,
    checks: Sequence[Check],
    extra_checks: Sequence[Check],
) -> dict[str, Any]:
    """The kept set is final: every kept question's wording is chosen among
    ``cfg.wording_draws`` draws for variety across the whole set (content unchanged), in
    ``kept`` (per type), in place; returns the report (the build's ``wording_variety``).
    ``gen``: the generator, whose ``redraw_wording`` (if it has one) draws the wordings;
    ``sources``: each record's (position, match) by id, for it; ``checks``: the deterministic
    checks every drawn wording must pass; ``extra_checks``: the costly ones, run once on the
    chosen wordings that changed."""
    types = cfg.types
    records = [r for t in types for r in kept[t]]
    varied, report = vary_wordings(
        records,
        _redrawer(gen, sources, graph, records),
        graph,
        checks,
        extra_checks,
        VarietyConfig(draws=cfg.wording_draws),
        seed=cfg.seed,
    )
    by_id = {r["id"]: r for r in varied}
    for t in types:
        kept[t] = [by_id[r["id"]] for r in kept[t]]
    return report.to_dict()


def _redrawer(
    gen: object,
    sources: dict[str, tuple[int, Match]],
    graph: KnowledgeGraph,
    records: list[dict],
) -> Redraw | None:
    """How to redraw a kept record's wording: the generator's ``redraw_wording`` on the
    match and position the record was generated from; None when the generator has none."""
    redraw_wording = getattr(gen, "redraw_wording", None)
    if redraw_wording is None or any(r["id"] not in sources for r in records):
        return None

    def redraw(record: dict, attempt: int) -> dict:
        position, match = sources[record["id"]]
        question, extra = redraw_wording(match, position, graph, attempt)
        return {**record, **extra, "question": question}

    return redraw

"""The build's wording steps, after the kept set is chosen: variety across the set
(:mod:`kg_qgen.wording_variety`), then the MT filter (:mod:`kg_qgen.wording_filter`). Only
wordings change; :func:`kg_qgen.pipeline.build` calls :func:`choose_wordings`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from kg_qgen.generate.base import QuestionGenerator
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.verify.base import Check
from kg_qgen.verify.deterministic import default_checks
from kg_qgen.wording_filter import (
    Redraw,
    WordingFilterConfig,
    WordingFilterReport,
    filter_wordings,
)
from kg_qgen.wording_variety import VarietyConfig, least_shared_redraw, vary_wordings

__all__ = ["WordingSettings", "choose_wordings"]


class WordingSettings(Protocol):
    """What :func:`choose_wordings` reads of the build's settings (``pipeline.BuildConfig``)."""

    types: tuple[str, ...]
    seed: int
    wording_draws: int
    mt_wording_attempts: int


def choose_wordings(
    kept: dict[str, list[dict]],
    cfg: WordingSettings,
    gen: QuestionGenerator,
    sources: dict[str, tuple[int, Match]],
    graph: KnowledgeGraph,
    extra_checks: Sequence[Check],
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The kept set is final: every kept question's wording is chosen among
    ``cfg.wording_draws`` draws for variety (:func:`_vary`, the build's ``wording_variety``),
    then the MT wordings are filtered so that no short rule reads yes/no (:func:`_filter_mt`,
    ``mt_wording``). ``sources``: each record's (position, match) by id, for the generator's
    ``redraw_wording``; ``extra_checks``: the costly checks beyond the deterministic ones.
    Content never changes; ``kept`` (per type) is updated in place. Returns both reports."""
    variety = _vary(kept, cfg, gen, sources, graph, extra_checks)
    return variety, _filter_mt(kept, cfg, gen, sources, graph, extra_checks)


def _vary(
    kept: dict[str, list[dict]],
    cfg: WordingSettings,
    gen: QuestionGenerator,
    sources: dict[str, tuple[int, Match]],
    graph: KnowledgeGraph,
    extra_checks: Sequence[Check],
) -> dict[str, Any]:
    """The kept set is final: choose every question's wording for variety across the whole set
    (content unchanged) in ``kept``, in place; the report."""
    types = cfg.types
    records = [r for t in types for r in kept[t]]
    varied, report = vary_wordings(
        records,
        _redrawer(gen, sources, graph, records),
        graph,
        default_checks(),
        extra_checks,
        VarietyConfig(draws=cfg.wording_draws),
        seed=cfg.seed,
    )
    by_id = {r["id"]: r for r in varied}
    for t in types:
        kept[t] = [by_id[r["id"]] for r in kept[t]]
    return report.to_dict()


def _filter_mt(
    kept: dict[str, list[dict]],
    cfg: WordingSettings,
    gen: QuestionGenerator,
    sources: dict[str, tuple[int, Match]],
    graph: KnowledgeGraph,
    extra_checks: Sequence[Check],
) -> dict[str, Any] | None:
    """The kept MT set is final: filter its wordings (content unchanged) in ``kept``, in place;
    the filter's report, None without MT. Each redraw is the least shared of ``cfg.wording_draws`` draws
    (:func:`kg_qgen.wording_variety.least_shared_redraw`); when that filter does not pass, it
    runs again from the same start with single draws (the least shared draw is chosen without
    chance, so its hill climb can stall a question from the bound: MQuAKE dev's ids-only
    triples, seed 0, 0.657 after 128 draws), and the passing or better run is kept."""
    if not kept.get("MT"):
        return None
    plain = _redrawer(gen, sources, graph, kept["MT"])
    tries: list[tuple[str, Redraw | None]] = [("a single draw", plain)]
    draws = cfg.wording_draws
    if plain is not None and draws > 1:
        varied = least_shared_redraw(plain, [r for t in cfg.types for r in kept[t]], draws)
        tries.insert(0, (f"the least shared of {draws} draws", varied))
    best: tuple[list[dict], WordingFilterReport, str] | None = None
    for how, redraw in tries:
        records, report = filter_wordings(
            kept["MT"],
            redraw,
            graph,
            default_checks(),
            extra_checks,
            WordingFilterConfig(max_attempts=cfg.mt_wording_attempts),
            seed=cfg.seed,
        )
        if best is None or report.accuracy < best[1].accuracy:
            best = (records, report, how)
        if report.passed:
            break
    assert best is not None
    kept["MT"], report, how = best
    if report.redraws:
        report.redraw_choice = how
    return report.to_dict()


def _redrawer(
    gen: QuestionGenerator,
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

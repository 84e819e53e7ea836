"""``build`` (match -> generate -> verify -> balanced sample); ``save`` lives in
:mod:`kg_qgen.output` and is re-exported here, where callers have always imported it."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm.auto import tqdm

from kg_qgen.answer_aliases import clean_answer_aliases, count_drops
from kg_qgen.checking import Check, Reject
from kg_qgen.errors import KgQgenInputError
from kg_qgen.generate.base import QuestionGenerator, make_record
from kg_qgen.generate.registry import get_generator
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import QUESTION_TYPES, Match
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.output import MANIFEST_FORMAT, BuildResult, check_out_dir, is_kgqgen_output, save
from kg_qgen.qtypes import get_question_type
from kg_qgen.selection import (
    MT_PAIR_CHECK,
    cap_golds,
    drop_orphans,
    fact_key,
    sample_ds,
    sample_mt,
    split_facts,
    spread,
)
from kg_qgen.verify.deterministic import default_checks
from kg_qgen.verify.report import verify_records
from kg_qgen.wording import choose_wordings

__all__ = [
    "MANIFEST_FORMAT",
    "MT_PAIR_CHECK",
    "BuildConfig",
    "BuildResult",
    "build",
    "check_out_dir",
    "is_kgqgen_output",
    "save",
]


@dataclass
class BuildConfig:
    """Build settings recorded in every manifest.

    Attributes:
        types: question types to build, in this order.
        per_type: questions kept per type (balanced; fewer -> shortfall, never padding).
        seed: seeds matching, generation, sampling and the forget/retain split.
        oversample: matches drawn per type = ``ceil(per_type * oversample)``, so that rejects
            still leave ``per_type`` questions.
        forget_fraction: share of the kept SH target facts that goes to ``facts_forget``.
        match: matcher limits (see :class:`kg_qgen.match.index.MatchConfig`).
        wording_draws: wordings drawn per kept question, the one sharing the fewest n-grams
            with the rest of the set kept (:mod:`kg_qgen.wording`; template generator
            only; 1 keeps the generation's own).
    """

    types: tuple[str, ...] = QUESTION_TYPES
    per_type: int = 100
    seed: int = 0
    oversample: float = 3.0
    forget_fraction: float = 0.5
    match: MatchConfig = field(default_factory=MatchConfig)
    wording_draws: int = 16


RELATION_LABEL_CHECK = "relation_label"


def unlabeled_relations(graph: KnowledgeGraph) -> dict[str, int]:
    """Relations (used by facts) whose only name is a raw id, with their fact counts."""
    counts: Counter[str] = Counter()
    for f in graph.facts():
        counts[f.relation] += 1
    index = GraphIndex.of(graph)
    return {r: n for r, n in sorted(counts.items()) if not index.relation_has_label(r)}


def _split_unlabeled(
    matches: list[Match], graph: KnowledgeGraph, unlabeled: set[str]
) -> tuple[list[Match], list[Reject]]:
    """Matches whose facts all have labelled relations, and rejects for the others."""
    if not unlabeled:
        return matches, []
    keep, rejects = [], []
    for k, m in enumerate(matches):
        bad = sorted({p.relation for p in m.premises} & unlabeled)
        if not bad:
            keep.append(m)
            continue
        stub = make_record(m, graph, "", f"{m.type}-nolabel-{k:06d}")
        reason = (
            f"relation(s) {bad} have no label (not in the source, --relations-file or kg-qgen's "
            "shipped Wikidata table); the question would show a raw id"
        )
        rejects.append(Reject(stub, RELATION_LABEL_CHECK, reason))
    return keep, rejects


def _run_checks(
    records: list[dict], graph: KnowledgeGraph, checks: Sequence[Check]
) -> tuple[list[dict], list[Reject]]:
    alive, rejected = records, []
    for check in checks:
        rejects = check(alive, graph)
        if rejects:
            dropped = {id(rj.record) for rj in rejects}
            rejected += rejects
            alive = [r for r in alive if id(r) not in dropped]
    return alive, rejected


def build(
    graph: KnowledgeGraph,
    types: Sequence[str] = QUESTION_TYPES,
    per_type: int = 100,
    seed: int = 0,
    generator: str | QuestionGenerator = "template",
    checks: Sequence[Check] | None = None,
    *,
    oversample: float = 3.0,
    forget_fraction: float = 0.5,
    match_config: MatchConfig | None = None,
    progress: bool = False,
    strict: bool = False,
    verify: bool = True,
    wording_draws: int = 16,
) -> BuildResult:
    """Build a balanced, verified question set from ``graph``.

    ``checks`` run after the deterministic ones (:func:`~kg_qgen.verify.deterministic.
    default_checks`), e.g. the LLM checks; a generator with ``generate_with_rejects`` has its
    failures recorded as rejects. SH is selected last, the kept multi-hop targets first. A
    relation without a label gives ``relation_label`` rejects (``strict``: an error). Answer
    aliases that do not name the answer are dropped and counted (:mod:`kg_qgen.answer_aliases`).
    MT is kept spread over relation pairs; then the wordings are chosen (:mod:`kg_qgen.wording`).
    ``verify`` re-checks the kept set (``result.verification``)."""
    types = _checked_types(types, per_type)
    mcfg = match_config or MatchConfig()
    cfg = BuildConfig(types, per_type, seed, oversample, forget_fraction, mcfg, wording_draws)
    unlabeled = _check_unlabeled(graph, strict)
    gen = get_generator(generator, seed=seed) if isinstance(generator, str) else generator
    records, counts, gen_rejects, src = _match_and_generate(graph, cfg, gen, unlabeled, progress)
    notes: dict[str, Any] = {"alias_drops": clean_answer_aliases(records, graph)}
    all_checks = [*default_checks(), *(checks or [])]
    verified, check_rejects = _run_checks(records, graph, all_checks)
    verified, orphans = drop_orphans(verified, records)
    rejects = gen_rejects + check_rejects + orphans
    by_type = _group_by_type(verified, types)
    kept, notes["gold_caps"] = _select(by_type, types, per_type, seed)
    variety = choose_wordings(kept, cfg, gen, src, graph, default_checks(), checks or ())
    shortfall = _count_and_explain(counts, by_type, kept, rejects, types, per_type, notes)
    questions = [r for t in types for r in kept[t]]
    forget, retain = split_facts(kept.get("SH", []), questions, seed, forget_fraction)
    config = _config_record(cfg, gen, all_checks, strict)
    verification = verify_records(questions, graph).to_dict() if verify else None
    return BuildResult(
        questions=questions,
        rejects=[_reject_row(rj) for rj in rejects],
        shortfall=shortfall,
        counts=counts,
        facts_forget=forget,
        facts_retain=retain,
        config=config,
        source_questions=list(graph.source_questions),
        verification=verification,
        wording_variety=variety,
    )


def _config_record(
    cfg: BuildConfig, gen: QuestionGenerator, checks: Sequence[Check], strict: bool
) -> dict[str, Any]:
    """The build settings as the manifest records them."""
    config = dataclasses.asdict(cfg)
    config["generator"] = getattr(gen, "name", type(gen).__name__)
    config["checks"] = [c.name for c in checks]
    config["strict"] = strict
    return config


def _reject_row(rj: Reject) -> dict[str, Any]:
    return {"id": rj.record.get("id"), "type": rj.record.get("type"), **rj.to_dict()}


def _checked_types(types: Sequence[str], per_type: int) -> tuple[str, ...]:
    """``types`` as a tuple, failing fast on an unknown type or a ``per_type`` below 1."""
    types = tuple(types)
    for t in types:
        get_question_type(t)
    if per_type < 1:
        raise ValueError(f"per_type must be >= 1, got {per_type}")
    return types


def _group_by_type(records: list[dict], types: tuple[str, ...]) -> dict[str, list[dict]]:
    by_type: dict[str, list[dict]] = {t: [] for t in types}
    for r in records:
        by_type.setdefault(r["type"], []).append(r)
    return by_type


def _check_unlabeled(graph: KnowledgeGraph, strict: bool) -> dict[str, int]:
    """The graph's relations without a label; with ``strict``, any of them is an error."""
    unlabeled = unlabeled_relations(graph)
    if strict and unlabeled:
        listing = ", ".join(f"{r} ({n} facts)" for r, n in unlabeled.items())
        raise KgQgenInputError(
            f"relations without a label: {listing}; give labels (relation_label column or "
            "--relations-file) or drop --strict to reject their questions"
        )
    return unlabeled


def _match_and_generate(
    graph: KnowledgeGraph,
    cfg: BuildConfig,
    gen: QuestionGenerator,
    unlabeled: dict[str, int],
    progress: bool,
) -> tuple[list[dict], dict[str, dict[str, Any]], list[Reject], dict[str, tuple[int, Match]]]:
    """Matches (``ceil(per_type * oversample)`` per type) turned into records, per type in
    order; with the match/generation counts per type, the generation rejects and, for a
    generator that can redraw wordings, each record's (position, match) by id."""
    index = GraphIndex.of(graph)
    want = max(cfg.per_type, int(cfg.per_type * cfg.oversample + 0.999))
    type_cfg = dataclasses.replace(cfg.match, max_matches=want)
    records: list[dict] = []
    counts: dict[str, dict[str, Any]] = {}
    gen_rejects: list[Reject] = []
    sources: dict[str, tuple[int, Match]] = {}
    for t in tqdm(cfg.types, desc="match+generate", disable=not progress):
        match_stats: Counter[str] = Counter()
        matches = find_matches(index, t, type_cfg, seed=cfg.seed, stats=match_stats)
        n_found = len(matches)
        matches, no_label = _split_unlabeled(matches, graph, set(unlabeled))
        gen_rejects += no_label
        recs: list[dict] = []
        if matches and hasattr(gen, "generate_with_rejects"):
            # generators that can fail per match (an LLM) report why, like a check would
            recs, failed = gen.generate_with_rejects(matches, graph)
            for rj in failed:
                rj.record.setdefault("type", t)
            gen_rejects += failed
        elif matches:
            recs = gen.generate(matches, graph)
            if hasattr(gen, "redraw_wording") and len(recs) == len(matches):
                pairs = enumerate(zip(matches, recs, strict=True))
                sources.update({r["id"]: (i, m) for i, (m, r) in pairs})
        counts[t] = {
            "requested": cfg.per_type,
            "matches": n_found,
            "match_rejected_by": dict(sorted(match_stats.items())),
            "generated": len(recs),
        }
        records += recs
    return records, counts, gen_rejects, sources


def _select(
    by_type: dict[str, list[dict]], types: tuple[str, ...], per_type: int, seed: int
) -> tuple[dict[str, list[dict]], dict[str, dict[str, Any]]]:
    """The kept questions per type (seeded) and, per multi-hop entity-answer type, the gold cap's
    report (:func:`kg_qgen.selection.cap_golds`). SH goes last: targets of kept multi-hop
    questions first, so forgetting an SH fact is tested by multi-hop questions; SH is not capped
    (a multi-hop target must keep its SH question, and leakres takes SH whole)."""
    kept: dict[str, list[dict]] = {}
    caps: dict[str, dict[str, Any]] = {}
    order = [t for t in types if t != "SH"] + (["SH"] if "SH" in types else [])
    mh_targets: set[tuple] = set()
    for t in order:
        rng = random.Random(f"{seed}:sample:{t}")
        pool = list(by_type[t])
        rng.shuffle(pool)
        if t == "SH":  # stable sort: targets of kept multi-hop questions first
            pool.sort(key=lambda r: fact_key(r) not in mh_targets)
        if t == "MT":
            chosen = sample_mt(pool, per_type, rng)
        elif t == "DS":  # as even over golds and gold slots as the pool allows (issue 34)
            chosen = sample_ds(pool, per_type)
        elif t == "SH":  # taken as it is: every multi-hop target keeps its SH question
            chosen = pool[:per_type]
        else:  # MP as even over rule pairs as the pool allows; no gold over 30%
            ranked = spread(pool, "rule_pair") if t == "MP" else pool
            chosen, caps[t] = cap_golds(ranked, per_type)
        kept[t] = sorted(chosen, key=lambda r: r["id"])
        if t != "SH":
            mh_targets |= {fact_key(r) for r in kept[t]}
    return kept, caps


def _count_and_explain(
    counts: dict[str, dict[str, Any]],
    by_type: dict[str, list[dict]],
    kept: dict[str, list[dict]],
    rejects: list[Reject],
    types: tuple[str, ...],
    per_type: int,
    notes: dict[str, Any],
) -> dict[str, str]:
    """Completes ``counts`` (rejected, verified, kept, ``gold_cap`` and ``aliases_dropped`` per
    type, from ``notes``' "gold_caps" and "alias_drops") in place and returns, for each type that
    kept fewer than ``per_type``, a sentence saying why."""
    rej_by_type: dict[str, Counter] = {t: Counter() for t in types}
    for rj in rejects:
        rej_by_type.setdefault(rj.record.get("type", "?"), Counter())[rj.check] += 1
    shortfall: dict[str, str] = {}
    for t in types:
        c = counts[t]
        c.update(
            rejected=sum(rej_by_type[t].values()),
            rejected_by=dict(sorted(rej_by_type[t].items())),
            verified=len(by_type[t]),
            kept=len(kept[t]),
        )
        c["aliases_dropped"] = count_drops(kept[t], notes["alias_drops"])
        cap = notes["gold_caps"].get(t)
        if cap is not None:
            c["gold_cap"] = cap
        if len(kept[t]) < per_type:
            rej = ", ".join(f"{k}: {v}" for k, v in sorted(rej_by_type[t].items())) or "none"
            shortfall[t] = (
                f"{len(kept[t])} of {per_type} requested: {c['matches']} matches found "
                f"({get_question_type(t).no_match_reason}); {c['rejected']} rejected by checks ({rej})"
            )
            if cap and cap["dropped"]:
                shortfall[t] += (
                    f"; {cap['dropped']} dropped so that no answer is over "
                    f"{cap['share']:.0%} of the type ({cap['golds']} distinct answers)"
                )
            if t == "MT":
                shortfall[t] += (
                    "; MT keeps only chains whose bridge another chain of the same relation "
                    "pair takes as its distractor (each name a gold as often as a distractor), "
                    f"so names say nothing about the gold ({c['verified']} verified)"
                )
    return shortfall

"""``build`` (match -> generate -> verify -> balanced sample) and ``save`` (atomic output)."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import random
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from kg_qgen.errors import KgQgenInputError
from kg_qgen.generate.base import QuestionGenerator, make_record
from kg_qgen.generate.registry import get_generator
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.keep import Kept, carry_over, check_review, move_back
from kg_qgen.match.base import QUESTION_TYPES, Match
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches, get_matcher
from kg_qgen.verify.base import Check, Reject
from kg_qgen.verify.deterministic import default_checks
from kg_qgen.verify.report import verify_records

__all__ = ["MANIFEST_FORMAT", "BuildConfig", "BuildResult", "build", "check_out_dir", "save"]

MANIFEST_FORMAT = "kg-qgen/1"


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
    """

    types: tuple[str, ...] = QUESTION_TYPES
    per_type: int = 100
    seed: int = 0
    oversample: float = 3.0
    forget_fraction: float = 0.5
    match: MatchConfig = field(default_factory=MatchConfig)


@dataclass
class BuildResult:
    questions: list[dict]
    rejects: list[dict]
    shortfall: dict[str, str]
    counts: dict[str, dict[str, Any]]
    facts_forget: list[dict] = field(default_factory=list)
    facts_retain: list[dict] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    source_questions: list[dict] = field(default_factory=list)
    verification: dict[str, Any] | None = None  # verify_records(...).to_dict() of the kept set


_NO_MATCH_REASON = {
    "SH": "the graph has no fact with a unique object for its (subject, relation)",
    "HS": "few two-hop chains (o1 = s2) with unique objects exist in the graph",
    "MP": (
        "few two-hop chains whose relation pair has a rule (kg_qgen.match.mp.RULES) fitting the "
        "subject's class"
    ),
    "MT": (
        "few two-hop chains whose second hop identifies its subject and whose bridge another "
        "chain can take as distractor"
    ),
    "LL": "few facts whose subject has an alias that identifies it",
    "CC": "few (relation, object) pairs shared by two distinct subjects",
    "DS": (
        "few targets whose options can be told apart by a single-valued fact (an elimination "
        "that fits exactly one distractor, with evidence against the rest)"
    ),
}
RELATION_LABEL_CHECK = "relation_label"
MT_PAIR_CHECK = "mt_pair"


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


def _drop_orphans(
    records: list[dict], generated: list[dict] | None = None
) -> tuple[list[dict], list[Reject]]:
    """MT records generated as a pair (two sharing ``pair``): one whose partner was rejected goes
    too. The template generator gives one question per chain, so it has no pairs."""
    sizes: Counter[Any] = Counter(
        r.get("pair")
        for r in (generated if generated is not None else records)
        if r["type"] == "MT"
    )
    groups: dict[Any, list[dict]] = defaultdict(list)
    for r in records:
        if r["type"] == "MT":
            groups[r.get("pair")].append(r)
    orphans = {id(g[0]) for k, g in groups.items() if len(g) < sizes[k]}
    kept = [r for r in records if id(r) not in orphans]
    rejects = [
        Reject(r, MT_PAIR_CHECK, "its yes/no partner (same 'pair') was rejected")
        for r in records
        if id(r) in orphans
    ]
    return kept, rejects


def _spread(pool: list[dict], key: str) -> list[dict]:
    """``pool`` reordered round-robin over the values of ``key`` (in order of first appearance,
    so the seeded shuffle decides): any prefix is as even over them as the pool allows, and a
    value with few records gives all of them before the common ones fill the rest. Without it,
    MQuAKE-hard-dev's MP kept position -> sport on 77 of 100 questions (82 of its 109 matches)."""
    groups: dict[str, list[dict]] = {}
    for r in pool:
        groups.setdefault(str(r.get(key)), []).append(r)
    lanes = list(groups.values())
    return [
        lane[i] for i in range(max(map(len, lanes), default=0)) for lane in lanes if i < len(lane)
    ]


def _sample_mt(pool: list[dict], per_type: int, rng: random.Random) -> list[dict]:
    """MT questions balanced in answer, form and candidate names, seeded.

    The matcher ties questions into quads (``slot`` within a relation pair: a negative
    conditional asked plain and negated, and the two positive ones that mirror them, whose
    distractor is the negative's candidate). Whole quads are taken first, then mirror pairs
    (a positive and its negative: same slot and polarity, opposite answers), then, only if still
    short, single questions. Records sharing ``pair`` (an LLM generator's pair) stay together.
    """
    groups: dict[Any, list[dict]] = defaultdict(list)
    for r in pool:
        groups[r.get("pair")].append(r)
    slots: dict[tuple[Any, ...], list[list[dict]]] = defaultdict(list)
    for key in sorted(groups, key=str):
        g = groups[key]
        rels = tuple(str(p.get("relation")) for p in g[0].get("premises", [])[:2])
        slots[(*rels, str(g[0].get("slot")))].append(g)
    quads, pairs, singles = [], [], []
    for key in sorted(slots):
        members = slots[key]
        forms = {(str(g[0].get("form")), str(g[0].get("polarity"))) for g in members}
        if len(members) == 4 and len(forms) == 4:
            quads.append(members)
            continue
        for pol in ("plain", "negated"):
            pos = [
                g for g in members if g[0].get("polarity") == pol and g[0].get("form") == "positive"
            ]
            neg = [
                g for g in members if g[0].get("polarity") == pol and g[0].get("form") == "negative"
            ]
            if pos and neg:
                pairs.append([pos[0], neg[0]])
                singles += pos[1:] + neg[1:]
            else:
                singles += pos + neg
    for bucket in (quads, pairs, singles):
        rng.shuffle(bucket)
    chosen: list[list[dict]] = []
    n = 0

    def halves(quad: list[list[dict]]) -> list[list[list[dict]]]:
        """A quad's two mirror pairs (same polarity, one positive and one negative)."""
        return [[g for g in quad if g[0].get("polarity") == pol] for pol in ("plain", "negated")]

    n_quads = per_type // 4
    units = quads[:n_quads] + pairs + [h for q in quads[n_quads:] for h in halves(q)]
    for unit in units:
        size = sum(len(g) for g in unit)
        if n + size > per_type:
            continue
        chosen += unit
        n += size
    return [r for g in chosen for r in g]


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
) -> BuildResult:
    """Build a balanced, verified question set from ``graph``.

    A generator with ``generate_with_rejects(matches, graph) -> (records, rejects)`` has its
    generation failures recorded as rejects too. ``checks`` run after the deterministic ones
    (:func:`kg_qgen.verify.deterministic.default_checks`), e.g. the LLM checks of
    ``kg_qgen.verify.llm_checks``. SH is selected last, preferring facts that the kept
    multi-hop questions target, so that forgetting an SH fact is tested by multi-hop questions.

    Matches that use a relation without a label become ``relation_label`` rejects (never a
    question with a raw id); ``strict=True`` raises :class:`KgQgenInputError` instead when the
    graph has any such relation. MT is kept in whole yes/no pairs with as many true as false
    antecedents. ``verify=True`` (default) re-checks the kept set with
    :func:`kg_qgen.verify.report.verify_records` into ``result.verification``.
    """
    types = tuple(types)
    for t in types:
        get_matcher(t)  # fail fast on an unknown type
    if per_type < 1:
        raise ValueError(f"per_type must be >= 1, got {per_type}")
    mcfg = match_config or MatchConfig()
    cfg = BuildConfig(types, per_type, seed, oversample, forget_fraction, mcfg)
    unlabeled = unlabeled_relations(graph)
    if strict and unlabeled:
        listing = ", ".join(f"{r} ({n} facts)" for r, n in unlabeled.items())
        raise KgQgenInputError(
            f"relations without a label: {listing}; give labels (relation_label column or "
            "--relations-file) or drop --strict to reject their questions"
        )
    gen = get_generator(generator, seed=seed) if isinstance(generator, str) else generator
    index = GraphIndex.of(graph)
    want = max(per_type, int(per_type * oversample + 0.999))
    type_cfg = dataclasses.replace(mcfg, max_matches=want)

    records: list[dict] = []
    counts: dict[str, dict[str, Any]] = {}
    gen_rejects: list[Reject] = []
    for t in tqdm(types, desc="match+generate", disable=not progress):
        match_stats: Counter[str] = Counter()
        matches = find_matches(index, t, type_cfg, seed=seed, stats=match_stats)
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
        counts[t] = {
            "requested": per_type,
            "matches": n_found,
            "match_rejected_by": dict(sorted(match_stats.items())),
            "generated": len(recs),
        }
        records += recs

    all_checks = [*default_checks(), *(checks or [])]
    verified, check_rejects = _run_checks(records, graph, all_checks)
    verified, orphans = _drop_orphans(verified, records)
    rejects = gen_rejects + check_rejects + orphans

    by_type: dict[str, list[dict]] = {t: [] for t in types}
    for r in verified:
        by_type.setdefault(r["type"], []).append(r)
    rej_by_type: dict[str, Counter] = {t: Counter() for t in types}
    for rj in rejects:
        rej_by_type.setdefault(rj.record.get("type", "?"), Counter())[rj.check] += 1

    kept: dict[str, list[dict]] = {}
    order = [t for t in types if t != "SH"] + (["SH"] if "SH" in types else [])
    mh_targets: set[tuple] = set()
    for t in order:
        rng = random.Random(f"{seed}:sample:{t}")
        pool = list(by_type[t])
        rng.shuffle(pool)
        if t == "SH":  # stable sort: targets of kept multi-hop questions first
            pool.sort(key=lambda r: _fact_key(r) not in mh_targets)
        if t == "MT":
            chosen = _sample_mt(pool, per_type, rng)
        elif t == "MP":  # as even over rule pairs as the pool allows
            chosen = _spread(pool, "rule_pair")[:per_type]
        else:
            chosen = pool[:per_type]
        kept[t] = sorted(chosen, key=lambda r: r["id"])
        if t != "SH":
            mh_targets |= {_fact_key(r) for r in kept[t]}

    shortfall: dict[str, str] = {}
    for t in types:
        c = counts[t]
        c.update(
            rejected=sum(rej_by_type[t].values()),
            rejected_by=dict(sorted(rej_by_type[t].items())),
            verified=len(by_type[t]),
            kept=len(kept[t]),
        )
        if len(kept[t]) < per_type:
            rej = ", ".join(f"{k}: {v}" for k, v in sorted(rej_by_type[t].items())) or "none"
            shortfall[t] = (
                f"{len(kept[t])} of {per_type} requested: {c['matches']} matches found "
                f"({_NO_MATCH_REASON[t]}); {c['rejected']} rejected by checks ({rej})"
            )
            if t == "MT":
                shortfall[t] += (
                    "; MT keeps only mirrored questions (a negative conditional and a positive "
                    "one whose distractor is its candidate), so names say nothing about the "
                    f"form ({c['verified']} verified)"
                )

    questions = [r for t in types for r in kept[t]]
    forget, retain = _split_facts(kept.get("SH", []), questions, seed, forget_fraction)
    config = dataclasses.asdict(cfg)
    config["generator"] = getattr(gen, "name", type(gen).__name__)
    config["checks"] = [c.name for c in all_checks]
    config["strict"] = strict
    verification = verify_records(questions, graph).to_dict() if verify else None
    return BuildResult(
        questions=questions,
        rejects=[
            {"id": rj.record.get("id"), "type": rj.record.get("type"), **rj.to_dict()}
            for rj in rejects
        ],
        shortfall=shortfall,
        counts=counts,
        facts_forget=forget,
        facts_retain=retain,
        config=config,
        source_questions=list(graph.source_questions),
        verification=verification,
    )


def _fact_key(record: dict) -> tuple:
    t = record.get("target_ids") or record["target"]
    return (t["subject"], t["relation"], t["object"])


def _split_facts(
    sh: list[dict], questions: list[dict], seed: int, forget_fraction: float
) -> tuple[list[dict], list[dict]]:
    """Seeded split of the kept SH target facts into forget and retain.

    The distinct SH targets are sorted by SH id, shuffled with ``seed`` and the first
    ``round(n * forget_fraction)`` become the forget set. Each line lists the ids of every kept
    question (any type) that targets the fact.
    """
    by_target: dict[tuple, list[str]] = {}
    for q in questions:
        by_target.setdefault(_fact_key(q), []).append(q["id"])
    facts = []
    seen: set[tuple] = set()
    for r in sorted(sh, key=lambda r: r["id"]):
        key = _fact_key(r)
        if key in seen:
            continue
        seen.add(key)
        ids = r.get("target_ids") or {}
        facts.append(
            {
                **r["target"],
                "subject_id": ids.get("subject"),
                "relation_id": ids.get("relation"),
                "object_id": ids.get("object"),
                "sh_id": r["id"],
                "question": r["question"],
                "answer": r["answer"],
                "answer_aliases": r["answer_aliases"],
                "question_ids": by_target.get(key, []),
            }
        )
    random.Random(f"{seed}:forget-split").shuffle(facts)
    n_forget = round(len(facts) * forget_fraction)
    return facts[:n_forget], facts[n_forget:]


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("kg-qgen", "datasets", "networkx", "click"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _write_jsonl(path: Path, rows: Sequence[dict]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def is_kgqgen_output(path: Path) -> bool:
    """Whether ``path`` is a folder written by :func:`save` (its manifest says so)."""
    manifest = path / "manifest.json"
    if not path.is_dir() or not manifest.is_file():
        return False
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT


def check_out_dir(out_dir: str | Path, overwrite: bool = False) -> Path:
    """Refuse an output path before any work is done (and again when saving).

    An existing path is replaced only with ``overwrite`` AND when it is a previous kg-qgen output
    (a folder whose ``manifest.json`` has ``"format": "kg-qgen/1"``): a file, or a folder of
    anything else (notes, the input itself), is never deleted. The parent folder must be
    writable. Every refusal is a one-line :class:`KgQgenInputError`.
    """
    out = Path(out_dir)
    if out.exists() or out.is_symlink():
        if not overwrite:
            raise KgQgenInputError(
                "exists; pass overwrite=True (CLI: --overwrite) to replace a previous kg-qgen "
                "output",
                path=str(out),
            )
        if out.is_symlink() or not is_kgqgen_output(out):
            raise KgQgenInputError(
                "exists and is not a previous kg-qgen output (no kg-qgen manifest.json); "
                "refusing to replace it",
                path=str(out),
            )
    parent = out.parent
    probe = parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise KgQgenInputError(
            f"cannot write here ({probe} is not a writable folder)", path=str(out)
        )
    return out


def save(
    result: BuildResult,
    out_dir: str | Path,
    *,
    overwrite: bool = False,
    meta: dict[str, Any] | None = None,
    kept: Kept | None = None,
) -> Path:
    """Write the dataset to ``out_dir`` atomically.

    Everything is written to a temporary folder next to ``out_dir`` and renamed into place at
    the end, so an interrupted save never leaves a folder that looks complete. Files:
    ``questions.jsonl``, ``rejects.jsonl``, ``facts_forget.jsonl``, ``facts_retain.jsonl``,
    ``source_questions.jsonl`` (when the source has its own questions), ``manifest.json`` and
    ``hf/`` (a ``datasets.DatasetDict`` with one split per non-empty type, ``save_to_disk``).

    ``overwrite`` replaces only what the previous build wrote: every other file of the folder
    (``review.sqlite`` and its annotations, ``quality/``, notes) is carried into the new one
    (:mod:`kg_qgen.keep`); ``kept``, when given, is filled with what was carried and what became
    of the review database.
    """
    import datasets  # heavy import, only when saving
    from datasets import Dataset, DatasetDict

    out = check_out_dir(out_dir, overwrite)
    kept = kept if kept is not None else Kept()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    except OSError as err:
        raise KgQgenInputError(f"cannot write here: {err.strerror or err}", path=str(out)) from err
    try:
        _write_jsonl(tmp / "questions.jsonl", result.questions)
        _write_jsonl(tmp / "rejects.jsonl", result.rejects)
        _write_jsonl(tmp / "facts_forget.jsonl", result.facts_forget)
        _write_jsonl(tmp / "facts_retain.jsonl", result.facts_retain)
        files = ["questions.jsonl", "rejects.jsonl", "facts_forget.jsonl", "facts_retain.jsonl"]
        if result.source_questions:
            _write_jsonl(tmp / "source_questions.jsonl", result.source_questions)
            files.append("source_questions.jsonl")
        if result.verification is not None:
            (tmp / "verify_report.json").write_text(
                json.dumps(result.verification, indent=2, ensure_ascii=False)
            )
            files.append("verify_report.json")
        splits = {}
        for t in result.config.get("types", QUESTION_TYPES):
            rows = [q for q in result.questions if q["type"] == t]
            if rows:
                splits[t] = Dataset.from_list(rows)
        bars_were_on = datasets.utils.logging.is_progress_bar_enabled()
        datasets.disable_progress_bars()  # one bar per split is noise for a few hundred rows
        try:
            DatasetDict(splits).save_to_disk(str(tmp / "hf"))
        finally:
            if bars_were_on:
                datasets.enable_progress_bars()
        files.append("hf/")
        manifest = {
            "format": MANIFEST_FORMAT,
            "n_questions": len(result.questions),
            "n_rejects": len(result.rejects),
            "counts": result.counts,
            "shortfall": result.shortfall,
            "n_facts_forget": len(result.facts_forget),
            "n_facts_retain": len(result.facts_retain),
            "verified": None if result.verification is None else result.verification["ok"],
            "config": result.config,
            "seed": result.config.get("seed"),
            "versions": _versions(),
            "files": files,
            **(meta or {}),
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False))
        if out.exists():  # overwrite: move the old one aside first, delete it only at the end
            if not is_kgqgen_output(out):  # re-checked: it may have changed since the start
                raise KgQgenInputError(
                    "is no longer a previous kg-qgen output; refusing to replace it", path=str(out)
                )
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, old / "d")
            carried: list[str] = []
            try:  # what the old build did not write (review.sqlite, quality/, notes) moves over
                carried = carry_over(old / "d", tmp)
                os.replace(tmp, out)
            except BaseException:
                move_back(tmp, old / "d", carried)
                os.replace(old / "d", out)
                raise
            shutil.rmtree(old, ignore_errors=True)  # only files the old build wrote are left in it
            kept.carried = carried
            check_review(out, {q["id"]: q for q in result.questions}, kept)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out

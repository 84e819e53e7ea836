"""Choosing the kept questions: MT in whole mirror pairs, MP spread over rule pairs, no gold over
:data:`GOLD_CAP` of a type where the source allows (:func:`cap_golds`), and the seeded
forget/retain split of the SH target facts (used by :func:`kg_qgen.pipeline.build`)."""

from __future__ import annotations

import bisect
import random
from collections import Counter, defaultdict
from typing import Any

from kg_qgen.verify.base import Reject
from kg_qgen.verify.spread import GOLD_CAP

MT_PAIR_CHECK = "mt_pair"
MIN_GOLDS = 4  # fewer distinct golds cannot keep every one at or under 30%


def _gold(record: dict) -> str:
    return str(record.get("answer_id") or record.get("answer"))


def _largest_capped(counts: list[int], n: int, share: float) -> int:
    """The largest k <= n whose capped take (each gold at most ``max(1, floor(share * k))``)
    reaches k items (sorted counts and prefix sums: O(n log golds))."""
    ordered = sorted(counts)
    prefix = [0]
    for c in ordered:
        prefix.append(prefix[-1] + c)
    for k in range(min(n, prefix[-1]), 0, -1):
        cap = max(1, int(share * k))
        below = bisect.bisect_left(ordered, cap)  # golds with fewer than cap items
        if prefix[below] + cap * (len(ordered) - below) >= k:
            return k
    return 0


def cap_golds(
    pool: list[dict], n: int, share: float = GOLD_CAP
) -> tuple[list[dict], dict[str, Any]]:
    """At most ``n`` records of ``pool`` (its order kept: the caller's seeded shuffle decides),
    no gold (``answer_id``, else ``answer``) over ``share`` of those kept, and the report.

    Yes/no answers (MT) are not entity golds and are not capped. With at least
    :data:`MIN_GOLDS` distinct golds the source allows the cap: the largest k <= n that the capped
    take can fill is kept (over-represented golds' later records are dropped; a shortfall is
    explained by it). With fewer, no k keeps every gold at or under ``share``: the first n of the
    pool spread round-robin over the golds (as even as it allows) are kept, and the report says
    ``allowed: false``."""
    counts = Counter(_gold(r) for r in pool)
    report: dict[str, Any] = {"share": share, "golds": len(counts), "allowed": True, "dropped": 0}
    if len(counts) < MIN_GOLDS:
        report["allowed"] = not pool
        return spread(pool, "answer")[:n], report
    k = _largest_capped(list(counts.values()), n, share)
    cap = max(1, int(share * k))
    taken: Counter[str] = Counter()
    chosen = []
    for r in pool:
        if len(chosen) == k:
            break
        if taken[_gold(r)] < cap:
            taken[_gold(r)] += 1
            chosen.append(r)
    report["dropped"] = min(n, len(pool)) - len(chosen)
    return chosen, report


def drop_orphans(
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


def spread(pool: list[dict], key: str) -> list[dict]:
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


def sample_mt(pool: list[dict], per_type: int, rng: random.Random) -> list[dict]:
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


def fact_key(record: dict) -> tuple:
    t = record.get("target_ids") or record["target"]
    return (t["subject"], t["relation"], t["object"])


def split_facts(
    sh: list[dict], questions: list[dict], seed: int, forget_fraction: float
) -> tuple[list[dict], list[dict]]:
    """Seeded split of the kept SH target facts into forget and retain.

    The distinct SH targets are sorted by SH id, shuffled with ``seed`` and the first
    ``round(n * forget_fraction)`` become the forget set. Each line lists the ids of every kept
    question (any type) that targets the fact.
    """
    by_target: dict[tuple, list[str]] = {}
    for q in questions:
        by_target.setdefault(fact_key(q), []).append(q["id"])
    facts = []
    seen: set[tuple] = set()
    for r in sorted(sh, key=lambda r: r["id"]):
        key = fact_key(r)
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

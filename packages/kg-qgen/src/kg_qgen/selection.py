"""Choosing the kept questions: MT spread over relation pairs with no gold over its share, DS even
over golds and gold slots, MP spread over rule pairs, no gold over :data:`GOLD_CAP` of a type where
the source allows (:func:`cap_golds`), and the seeded forget/retain split of the SH target facts
(used by :func:`kg_qgen.pipeline.build`)."""

from __future__ import annotations

import bisect
import random
from collections import Counter, defaultdict
from typing import Any

from kg_qgen.checking import Reject
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
    """MT records generated as a pair (two sharing an integer ``pair``): one whose partner was
    rejected goes too. Records without ``pair`` (every template MT item) are never paired."""
    sizes: Counter[Any] = Counter(
        r.get("pair")
        for r in (generated if generated is not None else records)
        if r["type"] == "MT" and r.get("pair") is not None
    )
    groups: dict[Any, list[dict]] = defaultdict(list)
    for r in records:
        if r["type"] == "MT" and r.get("pair") is not None:
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


def sample_ds(pool: list[dict], per_type: int) -> list[dict]:
    """DS questions as even over golds and over the gold's slot as the pool allows.

    The pool in :func:`spread` order over ``answer`` (no gold takes more than its share while
    others are left), taken first while the gold's slot (its index in ``options``) has fewer
    than ceil(per_type / k) items, then filled from the rest in the same order. Each item's slot
    is a seeded uniform draw (:mod:`kg_qgen.match.ds`); drawn independently, 100 items leave a
    slot above chance + 10 points about one build in 25, which ``kg-qgen verify`` would fail.
    """
    order = spread(pool, "answer")
    k = max((len(r.get("options") or ()) for r in order), default=1) or 1
    cap = -(-per_type // k)
    slots: Counter[int] = Counter()
    first, rest = [], []
    for r in order:
        opts = r.get("options") or []
        slot = opts.index(r["answer"]) if r.get("answer") in opts else -1
        if len(first) < per_type and slots[slot] < cap:
            slots[slot] += 1
            first.append(r)
        else:
            rest.append(r)
    return (first + rest)[:per_type]


MT_GOLD_SHARE = 0.3  # most of the kept MT items one gold may take where the pool allows


def sample_mt(pool: list[dict], per_type: int, rng: random.Random) -> list[dict]:
    """``per_type`` MT items, round-robin over relation pairs (:func:`spread`; the pool is
    already shuffled with ``rng``), no gold on more than :data:`MT_GOLD_SHARE` of them; the
    items over the share fill the set only when the pool has nothing else (the source does not
    allow the spread). The matcher already mirrors names (each bridge a distractor as often as a
    gold), so the kept set keeps that balance up to the sampling."""
    del rng  # the pool's order is the seeded draw
    for r in pool:
        rels = [str(p.get("relation")) for p in r.get("premises", [])[:2]]
        r.setdefault("_relations", " / ".join(rels))
    ordered = spread(pool, "_relations")
    for r in pool:
        r.pop("_relations", None)
    cap = max(1, int(MT_GOLD_SHARE * min(per_type, len(ordered))))
    golds: Counter[str] = Counter()
    chosen: list[dict] = []
    over: list[dict] = []
    for r in ordered:
        if len(chosen) == per_type:
            break
        gold = str(r.get("answer_id") or r.get("answer"))
        if golds[gold] >= cap:
            over.append(r)
            continue
        golds[gold] += 1
        chosen.append(r)
    return chosen + over[: per_type - len(chosen)]


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

"""Spread of a built set, per type: answers, wording frames and repeated facts (issue 34 item 5).

* **top-gold share**: the share of a type's items whose gold (``answer_id``, else ``answer``) is
  the type's most common one. ``build`` keeps it at or under 30% where the source allows
  (:func:`kg_qgen.selection.cap_golds`; the manifest's ``counts[type].gold_cap`` says when it
  does not); ``verify`` reports it and flags a share over 30% among >= 4 distinct golds
  (yes/no types are not judged: their answers are balanced by the MT checks).
* **top-frame share**: the share of the most common wording frame, the template id the
  generator recorded (``template``, e.g. ``"CC/7"``). ``build``'s wording choice keeps it at or
  under 20% (:data:`kg_qgen.wording.FRAME_CAP`, when it draws several wordings); ``verify`` reports
  and flags a type of >= 20 items over it. Records without a ``template`` (an LLM generator) are
  not counted.
* **duplicates**: records of one type asking about the same set of facts (premise ids, in any
  order; MT's mirror forms - ``form`` and ``polarity`` - are distinct items). The
  ``duplicate_facts`` check (:class:`DuplicateFactsCheck`) rejects the later ones at build;
  ``verify`` fails a set with any.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from kg_qgen.checking import Reject
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.wording import FRAME_CAP

__all__ = [
    "GOLD_CAP",
    "DuplicateFactsCheck",
    "facts_key",
    "spread_figures",
    "spread_report",
]

GOLD_CAP = 0.3
FRAME_MIN_N = 20
_YES_NO = frozenset({"yes", "no"})


def facts_key(record: dict) -> tuple:
    """(type, the premise facts as a set, MT's form and polarity): equal keys ask the same."""
    ps = record.get("premise_ids") or record.get("premises")
    facts = frozenset(
        (str(p.get("subject")), str(p.get("relation")), str(p.get("object")))
        for p in (ps if isinstance(ps, list) else [])
        if isinstance(p, dict)
    )
    # str(): a malformed field (a list) must not break a set check; the schema check reports it
    return (str(record.get("type")), facts, str(record.get("form")), str(record.get("polarity")))


class DuplicateFactsCheck:
    """Rejects a record whose (type, facts) pair an earlier record (another id) already asks
    (module docs). Wordings of one record (the wording choice's redraws) share its id and pass."""

    name = "duplicate_facts"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        seen: dict[tuple, str] = {}
        out = []
        for r in records:
            key = facts_key(r)
            if not key[1]:
                continue
            if key in seen and seen[key] != str(r.get("id")):  # a redrawn wording keeps its id
                out.append(Reject(r, self.name, f"asks the same facts as {seen[key]}"))
            else:
                seen[key] = str(r.get("id"))
        return out


def _gold(r: dict) -> str:
    return str(r.get("answer_id") or r.get("answer"))


def spread_figures(records: Sequence[dict]) -> dict[str, dict[str, Any]]:
    """Per type: n, distinct golds, top gold and its share, top frame and its share (None
    without templates), duplicate (type, facts) records."""
    by_type: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_type[str(r.get("type"))].append(r)
    out: dict[str, dict[str, Any]] = {}
    for t in sorted(by_type):
        rs = by_type[t]
        golds = Counter(_gold(r) for r in rs)
        gold, g_n = golds.most_common(1)[0]
        frames = Counter(str(r["template"]) for r in rs if isinstance(r.get("template"), str))
        frame, f_n = frames.most_common(1)[0] if frames else (None, 0)
        keys = Counter(facts_key(r) for r in rs)
        out[t] = {
            "n": len(rs),
            "golds": len(golds),
            "top_gold": gold,
            "top_gold_share": round(g_n / len(rs), 3),
            "top_frame": frame,
            "top_frame_share": round(f_n / sum(frames.values()), 3) if frames else None,
            "frames": len(frames),
            "duplicates": sum(n - 1 for k, n in keys.items() if k[1]),
        }
    return out


def _frame_over(f: dict[str, Any]) -> bool:
    share = f["top_frame_share"]
    return share is not None and f["n"] >= FRAME_MIN_N and share > FRAME_CAP


def spread_report(records: Sequence[dict]) -> dict[str, Any]:
    """``verify``'s set figure (module docs): fails on duplicates. A gold over 30% is flagged
    (``gold_over_cap``), not failed: whether the source allowed fewer is the build's to say
    (manifest ``counts[type].gold_cap``); a frame over 20% of a type of >= 20 items is flagged
    (``frame_over_cap``), not failed: a build with ``wording_draws=1`` keeps the generation's own
    wordings, which the frame cap cannot change."""
    figures = spread_figures(records)
    problems = [
        f"{t}: {f['duplicates']} repeated (type, facts) item(s)"
        for t, f in figures.items()
        if f["duplicates"]
    ]
    frames = [t for t, f in figures.items() if _frame_over(f)]
    over = [
        t
        for t, f in figures.items()
        if f["top_gold_share"] > GOLD_CAP and f["golds"] >= 4 and f["top_gold"] not in _YES_NO
    ]
    cells = "; ".join(
        f"{t} gold {f['top_gold_share']:.2f} frame "
        + ("-" if f["top_frame_share"] is None else f"{f['top_frame_share']:.2f}")
        + f" dup {f['duplicates']}"
        for t, f in figures.items()
    )
    detail = f"top-gold share, top-frame share, duplicates per type: {cells}"
    if over:
        detail += f"; gold over {GOLD_CAP:.0%} in {', '.join(over)}"
    few = [
        f"{t} ({f['golds']} distinct)"
        for t, f in figures.items()
        if f["top_gold_share"] > GOLD_CAP and f["golds"] < 4 and f["top_gold"] not in _YES_NO
    ]
    if few:
        detail += f"; too few distinct golds for {GOLD_CAP:.0%}: {', '.join(few)}"
    if frames:
        detail += f"; a frame over {FRAME_CAP:.0%} in {', '.join(frames)} (a build without redraws)"
    if problems:
        detail += "; " + "; ".join(problems)
    return {
        "ok": not problems,
        "judged": True,
        "detail": detail,
        "per_type": figures,
        "gold_over_cap": over,
        "frame_over_cap": frames,
    }

"""One-hop shortcut rule: a multi-hop item is not answerable by recalling one other fact.

An item of a multi-hop type (:data:`MULTI_HOP`: HS, MP, LL, CC, DS, MT) with an entity gold is
rejected (check ``shortcut``) when

1. **a direct fact gives the gold**: a subject of the question (the target's subject, and CC's
   partner) has, in the source, a fact (any relation) whose object is the gold - the gold's id, or an entity whose label is the
   gold's label or one of its aliases - and that fact is not one of the item's own premises
   (HS "the sport of X's position" while X's sport is a fact; MP "whatever position ... its
   sport" for a player whose sport is stated; a team's sport via its head coach while the team's
   sport is a fact). LL and DS ask a fact of their subject by design (the alias, the
   elimination are the rule), so their own target fact is a premise and does not count; another
   relation of the same subject to the same gold does. The other entities a question names are
   not subjects here: DS and MT name their options and each option's own fact side by side (MT's
   "if it is Australia, the capital is Canberra", beside the distractor's "if it is Austria, the
   capital is Vienna"), so Canberra's country being Australia tells the gold no more than
   Vienna's tells the distractor; names are rule 3's;
2. **one hop by class** (HS, MP: the gold is reached through a masked bridge): another entity
   of the subject's class (:mod:`kg_qgen.semantics.classes`; "thing" is not judged) has a fact
   of the chain's last relation directly in the source (persons have a sport: a coach's sport is
   association football, so a player's sport via his position is recalled, not inferred; teams
   have a sport, so a team's sport via its head coach likewise), whether or not the source
   states the subject's own fact;
3. **a name gives the gold**: the gold's label or an alias (3 letters/digits or more) appears,
   as whole words, inside the name of an entity the question names, or inside the LL alias
   ("association football" in "X Association Football Club").

The entities a question names (its "subjects") are every entity of its premises (subjects and
objects) and its ``partner_id`` (CC), ``candidate_id``/``consequent_id`` (MT) and
``option_ids`` (DS), minus the masked bridge and the gold itself. Items without an entity gold
(an MT yes/no) are not judged. :func:`find_shortcut` says why an item has one; the check runs in
:func:`kg_qgen.verify.deterministic.default_checks` (so ``build`` rejects and counts them per
type, and ``verify`` fails a set that has any) and :func:`shortcut_report` is ``verify``'s count
per type.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Sequence
from typing import Any

from kg_qgen.checking import Reject
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["MULTI_HOP", "ShortcutCheck", "find_shortcut", "named_entities", "shortcut_report"]

MULTI_HOP = frozenset({"HS", "MP", "LL", "CC", "DS", "MT"})
CHAIN_TYPES = frozenset({"HS", "MP"})  # the gold is reached through a masked bridge
_ID_KEYS = ("partner_id", "candidate_id", "consequent_id")


def _letters(form: str) -> int:
    return sum(c.isalnum() for c in form)


def _premise_ids(record: dict) -> list[dict]:
    """The record's premise id facts (a malformed field is the schema check's to report)."""
    ps = record.get("premise_ids")
    return [p for p in ps if isinstance(p, dict)] if isinstance(ps, list) else []


def _fact(p: dict) -> tuple[str, str, str]:
    return (str(p.get("subject")), str(p.get("relation")), str(p.get("object")))


def named_entities(record: dict) -> list[str]:
    """Ids of the entities the question names (module docs), in a stable order."""
    ids: list[str] = []
    for p in _premise_ids(record):
        ids += [str(p.get("subject", "")), str(p.get("object", ""))]
    ids += [str(record[k]) for k in _ID_KEYS if isinstance(record.get(k), str)]
    opts = record.get("option_ids")
    if isinstance(opts, (list, tuple)):
        ids += [str(o) for o in opts]
    hidden = [x for x in (record.get("bridge_id"), record.get("answer_id")) if isinstance(x, str)]
    return [e for e in dict.fromkeys(ids) if e and e not in hidden]


def asked_subjects(record: dict, graph: KnowledgeGraph) -> list[str]:
    """Ids of the question's subjects for rule 1: the target's subject (the first premise's, the
    target coming first) and CC's partner."""
    premises = _premise_ids(record)
    ids = [premises[0].get("subject") if premises else None, record.get("partner_id")]
    hidden = (record.get("bridge_id"), record.get("answer_id"))
    return [
        e
        for e in dict.fromkeys(ids)
        if isinstance(e, str) and e not in hidden and graph.has_entity(e)
    ]


def _gold_forms(graph: KnowledgeGraph, gold: str) -> set[str]:
    forms = {graph.label(gold), *graph.aliases(gold)}
    return {normalize(f) for f in forms if _letters(f) >= 3 and normalize(f)}


_VERDICTS: weakref.WeakKeyDictionary[KnowledgeGraph, dict[tuple, str | None]] = (
    weakref.WeakKeyDictionary()
)


def find_shortcut(record: dict, graph: KnowledgeGraph) -> str | None:
    """Why the item can be answered by one hop or from a name, or None (module docs). The
    verdict depends on the content only, so a redrawn wording reuses it (cached per graph while
    the graph has the same number of facts)."""
    gold, rtype = record.get("answer_id"), record.get("type")
    if not isinstance(rtype, str) or rtype not in MULTI_HOP or not isinstance(gold, str):
        return None
    if not graph.has_entity(gold):
        return None
    key = (
        len(graph),
        gold,
        tuple(_fact(p) for p in _premise_ids(record)),
        tuple(named_entities(record)),
        str(record.get("alias")),
    )
    cache = _VERDICTS.setdefault(graph, {})
    if key not in cache:
        cache[key] = _find(record, graph, gold)
    return cache[key]


_CLASS_RELATIONS: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[int, dict]] = (
    weakref.WeakKeyDictionary()
)


def _class_relations(idx: Any) -> dict[tuple[str, str], list[str]]:
    """(class, relation) -> subjects of that class with a fact of that relation (per graph)."""
    cached = _CLASS_RELATIONS.get(idx.graph)
    if cached is not None and cached[0] == len(idx.graph):
        return cached[1]
    got: dict[tuple[str, str], list[str]] = {}
    for rel, facts in idx.by_relation.items():
        for f in facts:
            got.setdefault((idx.entity_class(f.subject), rel), []).append(f.subject)
    _CLASS_RELATIONS[idx.graph] = (len(idx.graph), got)
    return got


def _class_shortcut(record: dict, idx: Any, gold: str) -> str | None:
    """Rule 2 (HS, MP): other entities of the subject's class have the chain's last relation
    directly in the source, so the subject's own value is a fact a reader (or model) recalls
    without the chain, whether or not the source lists it."""
    if record.get("type") not in CHAIN_TYPES:
        return None
    ps = _premise_ids(record)
    last = next((p for p in ps if p.get("object") == gold), None)
    if not ps or last is None:
        return None
    subject, rel = str(ps[0].get("subject")), str(last.get("relation"))
    cls = idx.entity_class(subject)
    if cls == "thing":
        return None
    bridge = last.get("subject")
    others = [e for e in _class_relations(idx).get((cls, rel), ()) if e not in (subject, bridge)]
    if not others:
        return None
    g = idx.graph
    return (
        f"one hop by class: {g.label(others[0])!r}, a {cls} like {g.label(subject)!r}, has a "
        f"{g.relation_label(rel)!r} fact directly in the source"
    )


def _find(record: dict, graph: KnowledgeGraph, gold: str) -> str | None:
    from kg_qgen.match.index import GraphIndex

    idx = GraphIndex.of(graph)
    forms = _gold_forms(graph, gold)
    own = {_fact(p) for p in _premise_ids(record)}
    named = [e for e in named_entities(record) if graph.has_entity(e)]
    for e in asked_subjects(record, graph):
        for f in idx.by_subject.get(e, ()):
            if (f.subject, f.relation, f.object) in own:
                continue
            if f.object == gold or idx.norm_label(f.object) in forms:
                rel = graph.relation_label(f.relation)
                return (
                    f"one hop gives the gold: {graph.label(e)!r} has {rel!r} "
                    f"{graph.label(f.object)!r}, a fact the question does not use"
                )
    why = _class_shortcut(record, idx, gold)
    if why:
        return why
    names = [(graph.label(e), idx.norm_label(e)) for e in named]
    if isinstance(record.get("alias"), str):
        names.append((record["alias"], normalize(record["alias"])))
    for shown, norm in names:
        for form in sorted(forms):
            if contains_phrase(norm, form):
                return f"the name {shown!r} in the question contains the gold {form!r}"
    return None


class ShortcutCheck:
    """Rejects multi-hop items answerable by one hop or read off a name (module docs)."""

    name = "shortcut"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        out = []
        for r in records:
            why = find_shortcut(r, graph)
            if why:
                out.append(Reject(r, self.name, why))
        return out


def shortcut_report(records: Sequence[dict], graph: KnowledgeGraph) -> dict[str, Any]:
    """``verify``'s set figure: items with a one-hop shortcut per type (must be 0 everywhere),
    and how many items per type were judged (multi-hop with an entity gold)."""
    found: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    for r in records:
        t = str(r.get("type"))
        if t in MULTI_HOP and isinstance(r.get("answer_id"), str):
            judged[t] += 1
            if find_shortcut(r, graph):
                found[t] += 1
    per_type = {t: {"judged": judged[t], "shortcuts": found[t]} for t in sorted(judged)}
    total = sum(found.values())
    cells = ", ".join(f"{t} {v['shortcuts']}/{v['judged']}" for t, v in per_type.items())
    return {
        "ok": total == 0,
        "judged": True,
        "detail": f"one-hop shortcuts per type: {cells or 'no multi-hop item with an entity gold'}",
        "per_type": per_type,
    }

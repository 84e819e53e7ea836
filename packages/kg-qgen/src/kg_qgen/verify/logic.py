"""Is each question a valid instance of its logic type? Re-derived from the knowledge graph.

:class:`LogicCheck` re-checks every record against the graph it was built from, using the graph
ids the record carries (``premise_ids``, ``target_ids``, ``answer_id``, ``bridge_id`` and the
type's own ids), so it works on any generator's output (template or LLM) and on a saved set
(``kg-qgen verify``). Per type:

* **SH**: one premise, the target; the answer is its object and the only one for (s, r).
* **HS**: two chained premises (o1 = s2), target = hop 1, bridge = its object, answer = hop 2's
  object; both hops single-answer in the graph.
* **MP**: an HS chain whose relation pair has a rule in :data:`kg_qgen.match.mp.RULES`, the
  record's ``rule`` is that rule, and the subject's class fits the rule's declared class.
* **LL**: the alias is an alias of the subject that identifies it
  (:func:`kg_qgen.semantics.aliases.alias_problem`), the question uses it and not the label.
* **CC**: two premises sharing (r, o) with different subjects, exactly one shared r value; the
  question names both subjects.
* **DS**: one option left, every other ruled out by a fact of the graph
  (:mod:`kg_qgen.verify.ds_logic`).
* **MT**: :mod:`kg_qgen.verify.mt_logic` (two options, one conditional each).
* every type: ``options`` is what the question shows (:func:`kg_qgen.generate.base.match_options`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kg_qgen.checking import Reject
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.index import GraphIndex
from kg_qgen.match.mp import RULES, rule_fits
from kg_qgen.qtypes import get_question_type
from kg_qgen.semantics.aliases import alias_problem
from kg_qgen.semantics.relations import MULTI_VALUED
from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["LogicCheck", "logic_problem"]

# on normalised text: "not", "never", "false" ("is it false that ...") and contractions ("isn t")
NEGATION = re.compile(r"\b(?:not|never|false)\b|\b\w+n t\b")
MOOD_WORDS = ("were", "would")

Ids = tuple[str, str, str]


def _ids(fact: dict[str, Any]) -> Ids:
    return (str(fact["subject"]), str(fact["relation"]), str(fact["object"]))


def _names(graph: KnowledgeGraph, entity: str) -> list[str]:
    return [graph.label(entity), *graph.aliases(entity)] if graph.has_entity(entity) else []


def _mentions(text: str, graph: KnowledgeGraph, entity: str) -> bool:
    return any(contains_phrase(text, normalize(n)) for n in _names(graph, entity) if normalize(n))


def _unique(idx: GraphIndex, s: str, r: str) -> str | None:
    if r in MULTI_VALUED:
        return f"{idx.graph.relation_label(r)!r} takes several objects in the world (one right answer needs one)"
    if not idx.is_unique(s, r):
        n = len(idx.objects(s, r))
        return f"({idx.graph.label(s)}, {idx.graph.relation_label(r)}) has {n} objects in the graph"
    return None


def _chain(idx: GraphIndex, r: dict, p: list[Ids]) -> str | None:
    """HS/MP/MT shared structure: target = hop 1, hop 2 starts at its object, both unique."""
    (s1, r1, b), (s2, r2, _) = p[0], p[1]
    if b != s2:
        return "the two premises do not chain (object of hop 1 != subject of hop 2)"
    return _unique(idx, s1, r1) or _unique(idx, s2, r2)


def _sh(idx: GraphIndex, r: dict, p: list[Ids], text: str) -> str | None:
    if len(p) != 1:
        return f"SH needs 1 premise, has {len(p)}"
    if r.get("answer_id") != p[0][2]:
        return "the answer is not the object of the target fact"
    return _unique(idx, p[0][0], p[0][1])


def _hs(idx: GraphIndex, r: dict, p: list[Ids], text: str) -> str | None:
    if len(p) != 2:
        return f"{r['type']} needs 2 premises, has {len(p)}"
    if r.get("bridge_id") != p[0][2] or r.get("answer_id") != p[1][2]:
        return "bridge/answer are not hop 1's object / hop 2's object"
    return _chain(idx, r, p)


def _mp(idx: GraphIndex, r: dict, p: list[Ids], text: str) -> str | None:
    why = _hs(idx, r, p, text)
    if why:
        return why
    pair = (p[0][1], p[1][1])
    rule = RULES.get(pair)
    if rule is None:
        return f"no rule in the MP rule table for the relation pair {pair}"
    if r.get("rule") not in rule.wordings:
        return "the record's rule is not a wording of the table's rule for its relation pair"
    if not rule_fits(idx, rule, p[0][0]):
        cls = idx.entity_class(p[0][0])
        return f"the rule is for a {rule.subject_class}, the subject is a {cls}"
    return None


def _ll(idx: GraphIndex, r: dict, p: list[Ids], text: str) -> str | None:
    g = idx.graph
    if len(p) != 1:
        return f"LL needs 1 premise, has {len(p)}"
    s, rel, o = p[0]
    alias = str(r.get("alias") or "")
    if alias not in g.aliases(s):
        return f"{alias!r} is not an alias of {g.label(s)!r} in the graph"
    why = alias_problem(
        alias,
        g.label(s),
        idx.owners,
        s,
        _names(g, o),
        entity_class=idx.entity_class(s),
        sports=idx.sport_labels(s),
        linked=idx.linked_names(s),
        labels=idx.label_owners,
    )
    if why:
        return f"alias {alias!r}: {why}"
    if not contains_phrase(text, normalize(alias)):
        return f"the question does not use the alias {alias!r}"
    if contains_phrase(text.replace(normalize(alias), " "), normalize(g.label(s))):
        return f"the question names {g.label(s)!r} besides its alias"
    if r.get("answer_id") != o:
        return "the answer is not the object of the target fact"
    return _unique(idx, s, rel)


def _cc(idx: GraphIndex, r: dict, p: list[Ids], text: str) -> str | None:
    if len(p) != 2:
        return f"CC needs 2 premises, has {len(p)}"
    (s1, r1, o1), (s2, r2, o2) = p
    if r1 != r2 or o1 != o2 or s1 == s2:
        return "the premises do not share (relation, object) with two different subjects"
    if r.get("answer_id") != o1 or r.get("bridge_id") != o1 or r.get("partner_id") != s2:
        return "answer/bridge/partner do not match the premises"
    if r1 in MULTI_VALUED:
        return f"{idx.graph.relation_label(r1)!r} takes several objects: more than one right answer"
    for s in (s1, s2):
        why = idx.fact_problem(s, r1, o1)
        if why is not None:
            return why
    shared = set(idx.objects(s1, r1)) & set(idx.objects(s2, r1))
    if shared != {o1}:
        return f"the two subjects share {len(shared)} values of the relation, not exactly one"
    for s in (s1, s2):
        if not _mentions(text, idx.graph, s):
            return f"the question does not name {idx.graph.label(s)!r}"
    return None


def _negations(text: str) -> int:
    return len(NEGATION.findall(text))


def _last_sentence(question: str) -> str:
    """The asking sentence: the text after the last ". " (MT keeps its proposition there)."""
    parts = re.split(r"(?<=[.!:])\s+", question.strip())
    return parts[-1] if parts else question


def logic_problem(record: dict, graph: KnowledgeGraph) -> str | None:
    """Why ``record`` is not a valid instance of its type (module docs), or None."""
    from kg_qgen.generate.base import YES_NO

    idx = GraphIndex.of(graph)
    try:
        premise_ids = record.get("premise_ids")
        if not isinstance(premise_ids, list) or not premise_ids:
            return "the record has no premise_ids: it cannot be re-checked against the graph"
        p = [_ids(x) for x in premise_ids]
        if record.get("target_ids") is None or _ids(record["target_ids"]) != p[0]:
            return "the target must be the first premise"
        for s, rel, o in p:
            if not graph.has_fact(s, rel, o):
                return f"premise ({s}, {rel}, {o}) is not a fact of the graph"
        qtype = record["type"]
        kind = get_question_type(qtype)
        expected_options = {"yes-no": YES_NO, "open": []}.get(kind.answer_kind)
        if expected_options is not None and record.get("options") != expected_options:
            return f"options must be {expected_options} for {qtype}"
        return kind.logic_check(idx, record, p, normalize(record["question"]))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        return f"malformed record ({type(err).__name__}: {err})"


class LogicCheck:
    """Rejects records that are not valid instances of their logic type."""

    name = "logic"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        out = []
        for r in records:
            why = logic_problem(r, graph)
            if why:
                out.append(Reject(r, self.name, why))
        return out

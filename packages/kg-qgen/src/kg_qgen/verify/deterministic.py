"""Offline deterministic checks run on every generator's output, before any LLM check.

In order (:func:`default_checks`): ``answer_present`` (schema), ``premises`` (graph facts, labels
agree with ids), ``relation_label`` (every relation used has a readable label; no raw id such as
``P138`` in the text), ``logic`` (:mod:`kg_qgen.verify.logic`: the record is a valid instance of
its type), ``leak`` (:mod:`kg_qgen.verify.leak`), ``shortcut`` (:mod:`kg_qgen.verify.shortcut`: no
one-hop shortcut to a multi-hop gold), ``style`` (capitalised sentences; "its" never
refers to a person), ``duplicate`` and ``duplicate_facts`` (:mod:`kg_qgen.verify.spread`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg_qgen.checking import Check, QuestionRules, Reject
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.index import GraphIndex
from kg_qgen.qtypes import find_question_type
from kg_qgen.semantics.articles import doubled_word
from kg_qgen.semantics.relations import RAW_ID, is_raw_id
from kg_qgen.textnorm import normalize
from kg_qgen.verify.leak import LeakCheck, find_leak
from kg_qgen.verify.logic import LogicCheck, logic_problem
from kg_qgen.verify.shortcut import ShortcutCheck
from kg_qgen.verify.spread import DuplicateFactsCheck
from kg_qgen.wording import phrase_for, uncapitalized_sentences

__all__ = [
    "AnswerPresentCheck",
    "DuplicateCheck",
    "PremiseCheck",
    "RelationLabelCheck",
    "StyleCheck",
    "default_checks",
    "question_rules",
]

REQUIRED = (
    "id",
    "type",
    "question",
    "answer",
    "answer_aliases",
    "target",
    "premises",
    "options",
    "source",
)
_FACT_KEYS = ("subject", "relation", "object")


class _PerRecord:
    """A check that judges each record on its own through ``problem(record, graph)``."""

    name = "check"

    def problem(self, record: dict, graph: KnowledgeGraph) -> str | None:  # pragma: no cover
        raise NotImplementedError

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        out = []
        for r in records:
            why = self.problem(r, graph)
            if why:
                out.append(Reject(r, self.name, why))
        return out


def _is_fact(x: object) -> bool:
    return isinstance(x, dict) and all(isinstance(x.get(k), str) for k in _FACT_KEYS)


class AnswerPresentCheck(_PerRecord):
    """Schema: required fields of the right types, a known type, non-empty question and answer,
    and the answer among the options wherever the question shows options."""

    name = "answer_present"

    def problem(self, r: dict, graph: KnowledgeGraph) -> str | None:
        missing = [k for k in REQUIRED if k not in r]
        if missing:
            return f"record lacks field(s) {missing}"
        qtype = find_question_type(r["type"])
        if qtype is None:
            return f"unknown type {r['type']!r}"
        for key in ("id", "question", "answer"):
            if not isinstance(r[key], str):
                return f"field '{key}' must be a string"
        if not normalize(r["question"]):
            return "empty question"
        if not normalize(r["answer"]):
            return "empty answer"
        if not isinstance(r["answer_aliases"], list) or not all(
            isinstance(a, str) for a in r["answer_aliases"]
        ):
            return "field 'answer_aliases' must be a list of strings"
        options = r["options"]
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            return "field 'options' must be a list of strings"
        if not _is_fact(r["target"]):
            return "field 'target' must be {subject, relation, object} strings"
        if not isinstance(r["premises"], list) or not all(_is_fact(p) for p in r["premises"]):
            return "field 'premises' must be a list of {subject, relation, object}"
        if options and r["answer"] not in options:
            return f"{r['type']} answer is not among the options"
        if qtype.answer_kind != "open" and not options:
            return f"{r['type']} questions show options; 'options' is empty"
        return None


class PremiseCheck(_PerRecord):
    """Premises and target exist in the graph, the target is a premise, labels agree with ids."""

    name = "premises"

    def problem(self, r: dict, graph: KnowledgeGraph) -> str | None:
        ids = r.get("premise_ids")
        if ids is None:  # a generator that kept only labels: check labels against the graph
            return None if r["target"] in r["premises"] else "target is not among the premises"
        if not isinstance(ids, list) or not all(_is_fact(p) for p in ids):
            return "field 'premise_ids' must be a list of {subject, relation, object}"
        for p in ids:
            if not graph.has_fact(p["subject"], p["relation"], p["object"]):
                return f"premise {p} is not a fact of the graph"
        t = r.get("target_ids")
        if t not in ids:
            return "target is not among the premises"
        if graph.fact_dict_from_ids(t) != r["target"]:
            return "target labels do not match the graph"
        if [graph.fact_dict_from_ids(p) for p in ids] != r["premises"]:
            return "premise labels do not match the graph"
        aid = r.get("answer_id")
        if aid and (not graph.has_entity(aid) or graph.label(aid) != r["answer"]):
            return "answer label does not match the graph"
        return None


_RAW_TOKEN = re.compile(r"\b[PQ][1-9][0-9]*\b")


class RelationLabelCheck(_PerRecord):
    """Every relation a question uses has a readable label; no raw id reaches the text.

    A relation whose only name is a Wikidata id (``P138``) has no label in the source, the
    ``--relations-file`` nor kg-qgen's shipped table; its questions are rejected, never written
    with the id. A ``P123``/``Q123`` token in a question is allowed only inside an entity name.
    """

    name = "relation_label"

    def problem(self, r: dict, graph: KnowledgeGraph) -> str | None:
        for p in r.get("premise_ids") or []:
            rel = p.get("relation", "") if isinstance(p, dict) else ""
            if is_raw_id(graph.relation_label(rel)):
                return f"relation {rel!r} has no label (source, --relations-file or shipped table)"
        names = " ".join(
            [
                *(
                    str(p.get(k, ""))
                    for p in r.get("premises") or []
                    for k in ("subject", "object")
                ),
                str(r.get("alias") or ""),
                *(str(o) for o in r.get("options") or []),
                str(r.get("partner") or ""),
            ]
        )
        for token in _RAW_TOKEN.findall(r.get("question", "")):
            if token not in names:
                return f"the question contains the raw id {token!r}"
        for p in r.get("premises") or []:
            if isinstance(p, dict) and RAW_ID.match(str(p.get("relation", ""))):
                return f"premise relation {p['relation']!r} is a raw id"
        return None


def _record_names(r: dict) -> set[str]:
    """Entity names a record's question may contain (their spelling is not a style error)."""
    names = {str(p.get(k, "")) for p in r.get("premises") or [] for k in ("subject", "object")}
    names |= {str(o) for o in r.get("options") or []}
    for key in ("alias", "partner", "candidate", "consequent", "answer", "bridge"):
        if isinstance(r.get(key), str):
            names.add(r[key])
    eliminated = r.get("eliminated")
    for e in eliminated if isinstance(eliminated, list) else []:  # DS: each ruled-out option
        fact = e.get("fact") if isinstance(e, dict) else None
        if isinstance(fact, dict):
            names |= {str(fact.get("subject", "")), str(fact.get("object", ""))}
    return {n for n in names if n}


def _relation_words(graph: KnowledgeGraph) -> set[str]:
    """Normalised relation labels and nouns of the graph: never an answer on their own."""
    words = set()
    for rel in graph.relations:
        label = graph.relation_label(rel)
        words |= {normalize(label), normalize(phrase_for(rel, label).noun)}
    return {w for w in words if w}


class StyleCheck(_PerRecord):
    """Every sentence starts with a capital letter; "its" never refers to a person; no word is
    written twice in a row outside entity names ("the capital of of Berlin"); the answer is not a
    bare relation word ("capital" as what something is named after).

    The referent of "its <noun>" is the subject of the premise whose relation noun follows it
    ("its country of citizenship" -> the subject of the citizenship premise).
    """

    name = "style"

    def problem(self, r: dict, graph: KnowledgeGraph) -> str | None:
        names = _record_names(r)
        lower = uncapitalized_sentences(r.get("question", ""), names)
        if lower:
            return f"a sentence starts in lower case ({lower[0]!r})"
        doubled = doubled_word(str(r.get("question", "")), tuple(names))
        if doubled:
            return f"the word {doubled!r} is written twice in a row"
        if r.get("type") != "MT" and normalize(str(r.get("answer", ""))) in _relation_words(graph):
            return f"the answer {r.get('answer')!r} is a bare relation word, not an entity"
        text = f" {normalize(r.get('question', ''))} "
        if " its " not in text:
            return None
        idx = GraphIndex.of(graph)
        for p in r.get("premise_ids") or []:
            if not isinstance(p, dict) or not graph.has_entity(p.get("subject", "")):
                continue
            phrase = phrase_for(p["relation"], graph.relation_label(p["relation"]))
            for noun in {normalize(phrase.noun), normalize(graph.relation_label(p["relation"]))}:
                if f" its {noun} " in text and idx.is_person(p["subject"]):
                    who = graph.label(p["subject"])
                    return f"'its {noun}' refers to a person ({who!r}); use 'their' or the name"
        return None


class DuplicateCheck:
    """Drops later records whose normalised question repeats an earlier one."""

    name = "duplicate"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        seen: dict[str, str] = {}
        out = []
        for r in records:
            key = normalize(r["question"])
            if key in seen:
                out.append(Reject(r, self.name, f"same question as {seen[key]}"))
            else:
                seen[key] = r["id"]
        return out


def default_checks() -> list[Check]:
    """Order matters: cheap schema checks first, then graph consistency, logic, leaks, style."""
    return [
        AnswerPresentCheck(),
        PremiseCheck(),
        RelationLabelCheck(),
        LogicCheck(),
        LeakCheck(),
        ShortcutCheck(),
        StyleCheck(),
        DuplicateCheck(),
        DuplicateFactsCheck(),
    ]


def question_rules() -> QuestionRules:
    """The per-question rules of :func:`default_checks` a generator can hold one question to
    before keeping it (the LLM generator): the leak rule, then the logic of its type, relation
    labels and style."""
    return QuestionRules(
        leak=find_leak,
        rules=(logic_problem, RelationLabelCheck().problem, StyleCheck().problem),
    )

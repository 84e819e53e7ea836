"""Offline, deterministic template question generator.

Each question type has several surface forms (frames); the frame and the per-relation wording
are chosen with an RNG seeded from (seed, match position), so the same matches and seed give the
same questions. Relation wording comes from :mod:`kg_qgen.generate.phrasing`.

Grammar that depends on what an entity is (:meth:`GraphIndex.entity_class`): a pronoun for a
person is "their", for a thing "its"; when the class is unknown no pronoun is used (the noun
phrase is repeated). Every sentence starts with a capital letter
(:func:`kg_qgen.generate.style.capitalize_sentences`). The two questions of an MT pair share one
RNG, so they are worded identically except for "not".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from kg_qgen.generate.base import make_record
from kg_qgen.generate.phrasing import RelationPhrase, phrase_for
from kg_qgen.generate.style import capitalize_sentences
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex
from kg_qgen.match.mp import RULES

__all__ = ["TemplateGenerator", "pronoun"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _join_options(options: list[str]) -> str:
    return ", ".join(options[:-1]) + " or " + options[-1]


def pronoun(index: GraphIndex, entity: str) -> str | None:
    """Possessive pronoun for an entity: "their" (person), "its" (known thing), None (unknown)."""
    cls = index.entity_class(entity)
    if cls == "person":
        return "their"
    return None if cls == "thing" else "its"


@dataclass
class TemplateGenerator:
    """Template generator; ``seed`` picks frames and wordings.

    The dataclass is its own config: ``config_cls`` is the class, its fields are the options
    :func:`~kg_qgen.generate.registry.get_generator` accepts.
    """

    config_cls: ClassVar[type[Any]]

    seed: int = 0
    name: str = "template"

    def describe(self) -> dict[str, Any]:
        """Run metadata: the generator's name and seed."""
        return {"generator": self.name, "seed": self.seed}

    def settings(self) -> dict[str, Any]:
        """Deprecated alias of :meth:`describe`."""
        return self.describe()

    def generate(self, matches: Sequence[Match], graph: KnowledgeGraph) -> list[dict]:
        index = GraphIndex.of(graph)
        counters: dict[str, int] = {}
        records = []
        for i, m in enumerate(matches):
            # an MT pair shares its wording: seed by the pair, not by the position
            key = f"pair{m.extra['pair']}" if m.type == "MT" else str(i)
            rng = random.Random(f"{self.seed}:{m.type}:{key}")
            question, frame, extra = _BUILDERS[m.type](m, graph, index, rng)
            n = counters.get(m.type, 0)
            counters[m.type] = n + 1
            extra = {"generator": self.name, "template": f"{m.type}/{frame}", **extra}
            question = capitalize_sentences(question, _names(m, graph))
            records.append(make_record(m, graph, question, f"{m.type}-{n:06d}", extra=extra))
        return records


TemplateGenerator.config_cls = TemplateGenerator


def _names(m: Match, g: KnowledgeGraph) -> set[str]:
    """Every entity name a question of ``m`` may contain (kept as written when capitalising)."""
    ids = {x for p in m.premises for x in (p.subject, p.object)}
    ids |= {m.extra[k] for k in ("candidate", "consequent", "partner") if k in m.extra}
    ids |= set(m.extra.get("options", ()))
    names = {g.label(e) for e in ids if g.has_entity(e)}
    if "alias" in m.extra:
        names.add(m.extra["alias"])
    return names


def _rel(graph: KnowledgeGraph, rel_id: str) -> RelationPhrase:
    return phrase_for(rel_id, graph.relation_label(rel_id))


Built = tuple[str, int, dict]


def _sh(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    p, s = _rel(g, f.relation), g.label(f.subject)
    frame = rng.randrange(3)
    if frame == 0:
        q = p.direct(s, rng.randrange(4))
    elif frame == 1:
        q = f"{p.wh} is {p.np(s)}?"
    else:
        q = f"{p.wh} is {p.possessive(s)}?"
    return q, frame, {}


def _hs(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f1, f2 = m.premises
    p1, p2, s = _rel(g, f1.relation), _rel(g, f2.relation), g.label(f1.subject)
    frame = rng.randrange(4)
    if frame == 0:
        q = p2.direct(p1.np(s), rng.randrange(4))
    elif frame == 1:
        q = f"{p2.wh} is {p2.np(p1.possessive(s))}?"
    elif frame == 2:
        # the pronoun refers to the bridge: "their" for a person, "its" for a thing
        pro = pronoun(idx, f1.object)
        tail = f"{pro} {p2.noun}" if pro else f"the {p2.noun} of that {p1.noun}"
        q = f"Consider {p1.np(s)}. {p2.wh} is {tail}?"
    else:
        q = f"Take {p1.np(s)}, then the {p2.noun} of that {p1.noun}. {p2.wh} is it?"
    return q, frame, {}


def _mp(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f1, f2 = m.premises
    rule = RULES[(f1.relation, f2.relation)]
    s = g.label(f1.subject)
    instance, conclusion = rule.instance.replace("[X]", s), rule.conclusion.replace("[X]", s)
    frame = rng.randrange(3)
    if frame == 0:
        q = f"{rule.rule} {instance} {conclusion}"
    elif frame == 1:
        q = f"Rule: {rule.rule} Fact: {instance} Question: {conclusion}"
    else:
        q = f"Assume this general rule: {rule.rule} Now, {instance} {conclusion}"
    return q, frame, {}


def _mt(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    """Indicative conditional, the same wording in all four cells and both polarities."""
    f1, f2 = m.premises[0], m.premises[1]
    p1, p2 = _rel(g, f1.relation), _rel(g, f2.relation)
    s = g.label(f1.subject)
    c, v = g.label(m.extra["candidate"]), g.label(m.extra["consequent"])
    thing = p1.np(s)
    pro = pronoun(idx, m.extra["candidate"])
    then = f"{pro} {p2.noun}" if pro else p2.np(thing)
    frame = rng.randrange(3)
    if frame == 0:
        premise = f"If {thing} is {c}, then {then} is {v}."
    elif frame == 1:
        premise = f"Suppose the rule: whenever {thing} is {c}, {p2.np(thing)} is {v}."
    else:
        premise = f"{_cap(p2.np(c))} is {v}, so if {thing} is {c}, {then} is {v}."
    # One wording of the ask for every pair: the polarity word ("true"/"false") is never next
    # to the candidate and never combined with a varying frame, so the two questions of a pair
    # share every word and word pair except "true"/"false", and "false" is yes for exactly the
    # false-antecedent half (see kg_qgen.match.mt).
    truth = "false" if m.extra["polarity"] == "negated" else "true"
    ask = f"is it {truth} that {thing} is {c}?"
    q = f"{premise} Judging by what is actually true, {ask}"
    return q, frame, {}


def _ll(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    p, a = _rel(g, f.relation), m.extra["alias"]
    frame = rng.randrange(3)
    pro = pronoun(idx, f.subject)
    if frame == 2 and pro is None:
        frame = 1
    if frame == 0:
        q = p.direct(a, rng.randrange(4))
    elif frame == 1:
        q = f"{p.wh} is {p.np(a)}?"
    else:
        q = f"Regarding {a}: {p.wh.lower()} is {pro} {p.noun}?"
    return q, frame, {}


def _cc(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    p = _rel(g, f.relation)
    a, b = g.label(f.subject), g.label(m.extra["partner"])
    if rng.random() < 0.5:  # vary which subject comes first
        a, b = b, a
    frame = rng.randrange(3)
    if frame == 0:
        q = f"{p.wh} is the {p.noun} shared by {a} and {b}?"
    elif frame == 1:
        q = f"{a} and {b} have the same {p.noun}. {p.wh} is it?"
    else:
        q = f"Which {p.noun} is common to both {a} and {b}?"
    return q, frame, {}


def _ds(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    p = _rel(g, f.relation)
    s = g.label(f.subject)
    options = [g.label(o) for o in m.extra["options"]]
    _, rel, value = m.extra["elimination_fact"]
    not_clause = f"it is not the one whose {_rel(g, rel).noun} is {g.label(value)}"
    opts = _join_options(options)
    frame = rng.randrange(3)
    if frame == 0:
        q = f"{_cap(p.np(s))} is one of {opts}. Also, {not_clause}. Which one is it?"
    elif frame == 1:
        q = f"Exactly one of {opts} is {p.np(s)}, and {not_clause}. Which is it?"
    else:
        q = f"Choose from {opts}: {p.wh.lower()} is {p.possessive(s)}? Note that {not_clause}."
    return q, frame, {}


_BUILDERS: dict[str, Callable[[Match, KnowledgeGraph, GraphIndex, random.Random], Built]] = {
    "SH": _sh,
    "HS": _hs,
    "MP": _mp,
    "MT": _mt,
    "LL": _ll,
    "CC": _cc,
    "DS": _ds,
}

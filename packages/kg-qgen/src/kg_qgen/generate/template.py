"""Offline, deterministic template question generator.

Each question type has several surface forms (frames); the frame and the per-relation wording
are chosen with an RNG seeded from (seed, match position), so the same matches and seed give the
same questions. Relation wording comes from :mod:`kg_qgen.generate.phrasing`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kg_qgen.generate.base import make_record
from kg_qgen.generate.phrasing import RelationPhrase, phrase_for
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.match.mp import RULES, MPRule

__all__ = ["TemplateGenerator"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _join_options(options: list[str]) -> str:
    return ", ".join(options[:-1]) + " or " + options[-1]


@dataclass
class TemplateGenerator:
    """Template generator; ``seed`` picks frames and wordings."""

    seed: int = 0
    name: str = "template"

    def generate(self, matches: Sequence[Match], graph: KnowledgeGraph) -> list[dict]:
        counters: dict[str, int] = {}
        records = []
        for i, m in enumerate(matches):
            rng = random.Random(f"{self.seed}:{m.type}:{i}")
            builder = _BUILDERS[m.type]
            question, frame, extra = builder(m, graph, rng)
            n = counters.get(m.type, 0)
            counters[m.type] = n + 1
            extra = {"generator": self.name, "template": f"{m.type}/{frame}", **extra}
            records.append(make_record(m, graph, question, f"{m.type}-{n:06d}", extra=extra))
        return records


def _rel(graph: KnowledgeGraph, rel_id: str) -> RelationPhrase:
    return phrase_for(rel_id, graph.relation_label(rel_id))


Built = tuple[str, int, dict]


def _sh(m: Match, g: KnowledgeGraph, rng: random.Random) -> Built:
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


def _hs(m: Match, g: KnowledgeGraph, rng: random.Random) -> Built:
    f1, f2 = m.premises
    p1, p2, s = _rel(g, f1.relation), _rel(g, f2.relation), g.label(f1.subject)
    frame = rng.randrange(4)
    if frame == 0:
        q = p2.direct(p1.np(s), rng.randrange(4))
    elif frame == 1:
        q = f"{p2.wh} is {p2.np(p1.possessive(s))}?"
    elif frame == 2:
        q = f"Consider {p1.np(s)}. {p2.wh} is its {p2.noun}?"
    else:
        q = f"Start from {s}, take its {p1.noun}, then that one's {p2.noun}. {p2.wh} is it?"
    return q, frame, {}


def _mp_rule(g: KnowledgeGraph, r1: str, r2: str) -> MPRule:
    if (r1, r2) in RULES:
        return RULES[(r1, r2)]
    p1, p2 = _rel(g, r1), _rel(g, r2)
    return MPRule(
        f"Anything takes on the {p2.noun} of its {p1.noun}.",
        f"[X] has a certain {p1.noun}.",
        f"According to this rule, {p2.wh.lower()} is the {p2.noun} of [X]?",
    )


def _mp(m: Match, g: KnowledgeGraph, rng: random.Random) -> Built:
    f1, f2 = m.premises
    rule = _mp_rule(g, f1.relation, f2.relation)
    s = g.label(f1.subject)
    instance, conclusion = rule.instance.replace("[X]", s), rule.conclusion.replace("[X]", s)
    frame = rng.randrange(3)
    if frame == 0:
        q = f"{rule.rule} {instance} {conclusion}"
    elif frame == 1:
        q = f"Rule: {rule.rule} Fact: {instance} Question: {conclusion}"
    else:
        q = f"Assume this general rule: {rule.rule} Now, {instance} {conclusion}"
    return q, frame, {"rule": rule.rule}


def _mt(m: Match, g: KnowledgeGraph, rng: random.Random) -> Built:
    f1, f2 = m.premises
    p1, p2 = _rel(g, f1.relation), _rel(g, f2.relation)
    s = g.label(f1.subject)
    d, dv = g.label(m.extra["distractor"]), g.label(m.extra["distractor_value"])
    thing = p1.possessive(s)
    frame = rng.randrange(3)
    if frame == 0:
        premise = f"If {thing} were {d}, then its {p2.noun} would be {dv}."
    elif frame == 1:
        premise = f"Suppose the rule: whenever {p1.np(s)} is {d}, {p2.np(p1.np(s))} is {dv}."
    else:
        premise = f"{_cap(p2.np(d))} is {dv}, so if {thing} were {d}, its {p2.noun} would be {dv}."
    if m.extra["polarity"] == "negated":
        ask = [
            f"Can we conclude that {thing} is not {d}?",
            f"Does it follow that {thing} is not {d}?",
            f"Is it true that {thing} is not {d}?",
        ][rng.randrange(3)]
    else:
        ask = [
            f"Is {thing} {d}?",
            f"Could {thing} be {d}?",
            f"Is it true that {thing} is {d}?",
        ][rng.randrange(3)]
    q = f"{premise} Judging by what is actually true, {ask[0].lower()}{ask[1:]}"
    return q, frame, {"answer_type": "yes/no"}


def _ll(m: Match, g: KnowledgeGraph, rng: random.Random) -> Built:
    f = m.target
    p, a = _rel(g, f.relation), m.extra["alias"]
    frame = rng.randrange(3)
    if frame == 0:
        q = p.direct(a, rng.randrange(4))
    elif frame == 1:
        q = f"{p.wh} is {p.np(a)}?"
    else:
        q = f"Regarding {a}: {p.wh.lower()} is its {p.noun}?"
    return q, frame, {"alias": a}


def _cc(m: Match, g: KnowledgeGraph, rng: random.Random) -> Built:
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
    return q, frame, {"partner": g.label(m.extra["partner"])}


def _ds(m: Match, g: KnowledgeGraph, rng: random.Random) -> Built:
    f = m.target
    p = _rel(g, f.relation)
    s = g.label(f.subject)
    options = [g.label(o) for o in m.extra["options"]]
    elim = m.extra.get("elimination_fact")
    if elim:
        pe = _rel(g, elim[1])
        not_clause = f"it is not the one whose {pe.noun} is {g.label(elim[2])}"
    else:
        not_clause = f"it is not {g.label(m.extra['eliminated'])}"
    opts = _join_options(options)
    frame = rng.randrange(3)
    if frame == 0:
        q = f"{_cap(p.np(s))} is one of {opts}. Also, {not_clause}. Which one is it?"
    elif frame == 1:
        q = f"Exactly one of {opts} is {p.np(s)}, and {not_clause}. Which is it?"
    else:
        q = f"Choose from {opts}: {p.wh.lower()} is {p.possessive(s)}? Note that {not_clause}."
    return q, frame, {"options": options}


_BUILDERS: dict[str, Callable[[Match, KnowledgeGraph, random.Random], Built]] = {
    "SH": _sh,
    "HS": _hs,
    "MP": _mp,
    "MT": _mt,
    "LL": _ll,
    "CC": _cc,
    "DS": _ds,
}

"""Offline, deterministic template question generator.

Each question type has several surface forms (frames, at least three for every type and relation
class, :data:`FRAMES`); the frame, the relation wording and the phrasing of each part are chosen
with an RNG seeded from (seed, type, match position), so the same matches and seed give the same
questions. Relation wording comes from :mod:`kg_qgen.wording.phrasing`, MP rule wordings from
:data:`kg_qgen.match.mp.RULES` (three or more per rule) and MT wordings from
:mod:`kg_qgen.wording.mt`.

Grammar that depends on what an entity is (:meth:`GraphIndex.entity_class`): a pronoun for a
person is "their", for a thing "its"; when the class is unknown no pronoun is used (the noun
phrase is repeated). Names that take "the" get it (:mod:`kg_qgen.semantics.articles`). Every
sentence starts with a capital letter (:func:`kg_qgen.wording.capitalize_sentences`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from kg_qgen.generate.base import make_record
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex
from kg_qgen.match.mp import REWORDINGS, RULES
from kg_qgen.qtypes import get_question_type
from kg_qgen.semantics.articles import with_article
from kg_qgen.wording import (
    DS_FRAMES,
    MT_FRAMES,
    RelationPhrase,
    capitalize_sentences,
    clue_phrase,
    ds_question,
    elimination_clause,
    mt_question,
    phrase_for,
)

__all__ = ["FRAMES", "TemplateGenerator", "name_of", "pronoun"]

# number of frames per type (each builder below has this many branches)
FRAMES: dict[str, int] = {
    "SH": 8,
    "HS": 8,
    "MP": 12,
    "LL": 8,
    "CC": 10,
    "DS": DS_FRAMES,
    "MT": len(MT_FRAMES),
}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def pronoun(index: GraphIndex, entity: str) -> str | None:
    """Possessive pronoun for an entity: "their" (person), "its" (known thing), None (unknown)."""
    cls = index.entity_class(entity)
    if cls == "person":
        return "their"
    return None if cls == "thing" else "its"


def name_of(index: GraphIndex, entity: str) -> str:
    """An entity's label as written inside a sentence ("the United Kingdom", "Paris")."""
    return with_article(index.graph.label(entity), index.entity_class(entity))


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
            question, extra = self._question(m, i, graph, index, 0)
            n = counters.get(m.type, 0)
            counters[m.type] = n + 1
            records.append(make_record(m, graph, question, f"{m.type}-{n:06d}", extra=extra))
        return records

    def redraw_wording(
        self, match: Match, position: int, graph: KnowledgeGraph, attempt: int
    ) -> tuple[str, dict[str, Any]]:
        """The question text and template keys of ``match`` (``position`` in the list given to
        :meth:`generate`) with wording draw ``attempt``: 0 is :meth:`generate`'s own, every other
        attempt draws from an RNG seeded with (seed, type, position, attempt). The build redraws
        the kept MT wordings with it (:mod:`kg_qgen.wording`); the content is unchanged."""
        return self._question(match, position, graph, GraphIndex.of(graph), attempt)

    def _question(
        self, m: Match, i: int, graph: KnowledgeGraph, index: GraphIndex, attempt: int
    ) -> tuple[str, dict[str, Any]]:
        # every question draws its own wording, MT included: an MT item and its mirror mate
        # (same names, opposite answers) are worded independently, and the build's adversarial
        # filter keeps a draw of the MT set that no one- or two-word rule reads
        key = f"{self.seed}:{m.type}:{i}" + (f":redraw:{attempt}" if attempt else "")
        rng = random.Random(key)
        question, frame, extra = get_question_type(m.type).template(m, graph, index, rng)
        extra = {"generator": self.name, "template": f"{m.type}/{frame}", **extra}
        return capitalize_sentences(question, _names(m, graph, index)), extra


TemplateGenerator.config_cls = TemplateGenerator


def _names(m: Match, g: KnowledgeGraph, idx: GraphIndex) -> set[str]:
    """Every entity name a question of ``m`` may contain (kept as written when capitalising)."""
    ids = {x for p in m.premises for x in (p.subject, p.object)}
    ids |= {m.extra[k] for k in ("distractor", "partner") if k in m.extra}
    ids |= set(m.extra.get("options", ()))
    names = {g.label(e) for e in ids if g.has_entity(e)}
    if "alias" in m.extra:
        names.add(m.extra["alias"])
    return names


def _rel(graph: KnowledgeGraph, rel_id: str) -> RelationPhrase:
    return phrase_for(rel_id, graph.relation_label(rel_id))


def _of(p: RelationPhrase, x: str, rng: random.Random) -> str:
    """ "the N of X" or "X's N" (the possessive only for a bare name)."""
    if x.startswith("the ") or " of " in x or rng.random() < 0.5:
        return p.np(x)
    return p.possessive(x)


Built = tuple[str, int, dict]


def _single(p: RelationPhrase, s: str, rng: random.Random, frame: int) -> str:
    """The single-fact frames shared by SH and LL (``s`` = how the subject is named)."""
    wh = p.wh
    if frame == 0:
        return p.direct(s, rng.randrange(12))
    if frame == 1:
        return f"{wh} is {p.np(s)}?"
    if frame == 2:
        return f"{wh} is {p.possessive(s)}?"
    if frame == 3:
        return f"Do you know {p.np(s)}?"
    if frame == 4:
        return f"Can you tell me {_of(p, s, rng)}?"
    if frame == 5:
        return f"As far as you know, {wh.lower()} is {_of(p, s, rng)}?"
    if frame == 6:
        return f"Could you name {p.np(s)}?"
    return f"Quick question about {s}: {wh.lower()} is {p.np('it' if wh == 'What' else s)}?"


def _sh(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    p, s = _rel(g, f.relation).varied(rng), name_of(idx, f.subject)
    # the relation's own questions (frame 0) carry the fewest shared words: drawn half the time
    frame = 0 if rng.random() < 0.6 else rng.randrange(1, FRAMES["SH"])
    if frame == 7:
        frame = 6  # "about X: what is the N of it?" reads badly for a subject asked once
    return _single(p, s, rng, frame), frame, {}


def _ll(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    # an alias takes "the" like a label does ("the District of Columbia", "the Iron Lady")
    p = _rel(g, f.relation).varied(rng)
    a = with_article(m.extra["alias"], idx.entity_class(f.subject))
    frame = 0 if rng.random() < 0.5 else rng.randrange(1, FRAMES["LL"])
    pro = pronoun(idx, f.subject)
    if frame == 7:
        if pro is None or not p.plain:
            frame = 4
        else:
            return f"Regarding {a}: {p.wh.lower()} is {pro} {p.noun}?", frame, {}
    return _single(p, a, rng, frame), frame, {}


def _hs(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f1, f2 = m.premises
    p1, p2, s = _rel(g, f1.relation), _rel(g, f2.relation), name_of(idx, f1.subject)
    p1 = p1.varied(rng)
    frame = 0 if rng.random() < 0.4 else rng.randrange(1, FRAMES["HS"])
    that = f"that {p1.noun}" if not p1.inverse else "that one"
    then = p2.np(that)  # "the continent of that country", "the city where that one is located"
    own = pronoun(idx, f1.subject)
    if frame == 6 and (own is None or not p1.plain):
        # "from Rome to its country": needs the subject's pronoun and a noun that takes it
        frame = 5
    if frame == 0:
        q = p2.direct(_of(p1, s, rng), rng.randrange(12))
    elif frame == 1:
        q = f"{p2.wh} is {p2.np(_of(p1, s, rng))}?"
    elif frame == 2:
        pro = pronoun(idx, f1.object)
        tail = f"{pro} {p2.noun}" if pro and p2.plain else then
        q = f"Consider {p1.np(s)}. {p2.wh} is {tail}?"
    elif frame == 3:
        q = f"Take {p1.np(s)}, then {then}. {p2.wh} is it?"
    elif frame == 4:
        q = f"Think of {_of(p1, s, rng)}. Can you name {then}?"
    elif frame == 5:
        q = f"First find {p1.np(s)}; next, look up {then}. What do you get?"
    elif frame == 6:
        q = f"What do you arrive at if you go from {s} to {own} {p1.noun} and on to {then}?"
    else:
        q = f"{_cap(p1.np(s))} has a certain {p2.noun}. {p2.wh} is {then}?"
        if not p2.plain:
            q = f"Starting from {p1.np(s)}, {p2.wh.lower()} is {then}?"
    return q, frame, {}


def _mp(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f1, f2 = m.premises
    rule = RULES[(f1.relation, f2.relation)]
    s = name_of(idx, f1.subject)
    # half the time one of the hand-written sentences (the table's and REWORDINGS, listed
    # first), which differ in structure; else any wording, most of them lead + premise + conclusion
    hand = 1 + len(REWORDINGS.get(rule.rule, ()))
    wording = rng.randrange(hand if rng.random() < 0.5 else len(rule.wordings))
    stated = rule.wordings[wording]
    instance = rng.choice(rule.instances).replace("[X]", s)
    conclusion = rng.choice(rule.conclusions).replace("[X]", s)
    frame = rng.randrange(FRAMES["MP"])
    rule_clause, fact_clause = _lower_first(stated)[:-1], _lower_first(instance, s)[:-1]
    ask = rng.choice(rule.asks).replace("[X]", s)  # a bare question, for frames that embed it
    # frames (FRAMES["MP"] of them, by number): where the rule, the instance and the ask stand
    # and how they are joined; few words of their own, since every frame word is shared with
    # the other questions using it
    q = (
        f"{stated} {instance} {conclusion}",
        f"Rule: {stated} Fact: {instance} {conclusion}",
        f"{stated} Now, {fact_clause}. {conclusion}",
        f"{instance} Keep in mind that {rule_clause}. {conclusion}",
        f"{stated} {instance} {_cap(ask)}",
        f"Given that {rule_clause}, and that {fact_clause}: {ask}",
        f"{instance} {stated} {conclusion}",
        f"{stated} Since {fact_clause}, {ask}",
        f"{instance} Note: {_lower_first(stated)} {_cap(ask)}",
        f"We know that {rule_clause}. {instance} {conclusion}",
        f"{instance} By the rule that {rule_clause}, {ask}",
        # not "Suppose a person who ...": that reads as one hypothetical person, not a rule
        f"Take it as a rule that {rule_clause}. As {fact_clause}, {ask}",
    )[frame]
    return q, frame, {"rule": stated, "rule_wording": wording}


def _lower_first(text: str, name: str = "") -> str:
    """``text`` with a lead word lower-cased, to go after a comma; a name it starts with is kept."""
    if name and text.startswith(name):
        return text
    first = text.split(" ", 1)[0]
    if first in (
        "Anyone",
        "Anything",
        "Any",
        "Every",
        "An",
        "A",
        "Each",
        "Whoever",
        "All",
        "There",
        "The",
        "Whatever",
        "Everything",
        "Holding",
        "If",
        "It",
        "As",
        "Someone",
        "Players",
        "People",
        "What",
        "Whatever",
    ):
        return text[:1].lower() + text[1:]
    return text


def _mt(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f1, f2 = m.premises[0], m.premises[1]
    q, frame = mt_question(
        p1=_rel(g, f1.relation),
        p2=_rel(g, f2.relation),
        subject=name_of(idx, f1.subject),
        conditionals=[(name_of(idx, c), name_of(idx, v)) for c, v in m.extra["conditionals"]],
        options=[name_of(idx, o) for o in m.extra["options"]],
        rng=rng,
    )
    return q, frame, {}


def _cc(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    p = _rel(g, f.relation).varied(rng)
    a, b = name_of(idx, f.subject), name_of(idx, m.extra["partner"])
    if rng.random() < 0.5:  # vary which subject comes first
        a, b = b, a
    noun = p.noun if not p.inverse else "value"
    frame = rng.randrange(FRAMES["CC"])
    # frame 8: not "Name the country that Vienna and Salzburg both have" (a city does not have
    # one); "Who is it?" for people and groups (not "Name that person" for The Beatles)
    article = "an" if noun[:1].lower() in "aeiou" else "a"
    q = (  # the FRAMES["CC"] frames, by number
        f"{p.wh} is the {noun} shared by {a} and {b}?",
        f"{a} and {b} have the same {noun}. {p.wh} is it?",
        f"Which {noun} is common to both {a} and {b}?",
        f"What {noun} do {a} and {b} have in common?",
        f"There is one {noun} that {a} shares with {b}. Which one?",
        # not "the country that belongs to the Sydney Opera House as well as to Sydney": the
        # relation read backwards
        f"Can you name the {noun} that is identical for {a} and {b}?",
        f"Compare {a} with {b}: which {noun} matches?",
        # not "X, like Y, has a certain country": that does not say the two share it
        f"{a} has the same {noun} as {b}. {p.wh} is it?",
        f"{a} and {b} share {article} {noun}. {'Who is it?' if p.person else 'Name it.'}",
        f"{_cap(p.np(a))} is also {p.np(b)}. {p.wh} is it?",
    )[frame]
    return q, frame, {}


def _ds(m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random) -> Built:
    f = m.target
    p = _rel(g, f.relation).varied(rng)
    options = [name_of(idx, o) for o in m.extra["options"]]
    nps = [
        clue_phrase(c, _rel(g, c.fact.relation), lambda e: name_of(idx, e), rng)
        for c in m.extra["clues"]
    ]
    clause = elimination_clause(nps, rng)
    q, frame = ds_question(_of(p, name_of(idx, f.subject), rng), p.wh, options, clause, rng)
    return q, frame, {}

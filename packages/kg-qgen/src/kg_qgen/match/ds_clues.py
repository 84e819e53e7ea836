"""What a DS item may offer and how it rules options out: the option class and the clues.

Shared by the DS matcher (:mod:`kg_qgen.match.ds`) and by ``kg-qgen verify``
(:mod:`kg_qgen.verify.logic`), so both apply the same rules.

**Class.** Every option is of the gold's class, derived from the graph, not from lists: the
same entity class (:meth:`GraphIndex.entity_class`, never "thing") and, when the objects of the
target relation are grouped by some relation of theirs, the gold's group. The grouping relation
(:func:`class_relation`) is the relation that puts the most of those objects into groups of two
or more by a single value, among relations that at least half of them have one value for: the
sport (``P641``) of playing positions, the continent (``P30``) of countries, the country
(``P17``) of cities. When there is one, the gold and every option must have exactly one value
of it, the gold's; an inverse-functional relation (capital) groups nothing and is never chosen.

**Clues.** An option ``d`` other than the gold is ruled out by a :class:`Clue`, a fact of the
graph other than the target that names ``d`` only through another entity:

* ``side="subject"``: ``(d r' v)``, read "the one whose r' is v". It fits ``d`` alone among the
  options when ``v`` has one r'-subject in the world and the graph
  (:meth:`GraphIndex.identifies_subject`: the capital Berlin) or, else, when r' is single-valued
  and every other option has a *different* r' value in the graph (positive evidence);
* ``side="object"``: ``(x r' d)``, read "the r' of x" ("the country Angela Merkel is a citizen
  of"). It fits ``d`` alone when ``(x, r')`` has one answer (:meth:`GraphIndex.is_unique`: one
  object in the graph, a relation with one value in the world).

In both, the other entity (``v`` or ``x``) is not the subject nor an option, and its name
contains no option's name or demonym (a clue never names an option). :func:`clue_problem` says
why a clue fails these rules, or None.

**Name hints.** :func:`name_hint` is true when an option's label, a long alias of it (four
characters or more) or its demonym/adjective (:mod:`kg_qgen.semantics.demonyms`) is a phrase of
another name ("Japan" or "Japanese" in "Japanese Grand Prix"), or the other way round (the
subject Cuba, as "Cuban", in the option "Cuban peso"): the subject's name must not hint any
option, nor a clue entity's name (a clue "the currency of Egypt" would name "Egyptian pound").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kg_qgen.graph import Fact
from kg_qgen.match.index import GraphIndex
from kg_qgen.semantics.demonyms import demonyms_for
from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["Clue", "class_pool", "class_relation", "class_value", "clue_problem", "name_hint"]

SIDES = ("subject", "object")


@dataclass(frozen=True)
class Clue:
    """A fact that rules the option ``option`` out; ``side`` is where the option sits in it."""

    option: str
    fact: Fact
    side: str

    @property
    def other(self) -> str:
        """The entity the clue names instead of the option (``v`` or ``x``, module docs)."""
        return self.fact.object if self.side == "subject" else self.fact.subject


def _cache(index: GraphIndex, name: str) -> dict:
    return index.__dict__.setdefault(name, {})


def class_value(index: GraphIndex, entity: str, relation: str) -> str | None:
    """The entity's one value of ``relation`` in the graph, or None (none or several)."""
    objs = index.objects(entity, relation)
    return objs[0] if len(objs) == 1 else None


def class_relation(index: GraphIndex, relation: str, cls: str) -> str | None:
    """The relation grouping the ``cls`` objects of ``relation`` (module docs), or None."""
    cache = _cache(index, "_ds_class_relation")
    key = (relation, cls)
    if key not in cache:
        objs = [o for o in index.relation_objects(relation) if index.entity_class(o) == cls]
        candidates = sorted({f.relation for o in objs for f in index.by_subject.get(o, ())})
        best, best_score = None, 0
        for rc in candidates:
            values = [v for o in objs if (v := class_value(index, o, rc)) is not None]
            if 2 * len(values) < len(objs):
                continue
            score = sum(n for n in Counter(values).values() if n >= 2)
            if score > best_score:
                best, best_score = rc, score
        cache[key] = best
    return cache[key]


def _names_of(index: GraphIndex, entity: str) -> list[str]:
    """Normalised label, long aliases and demonyms of an entity (what a name may hint)."""
    cache = _cache(index, "_ds_names")
    if entity not in cache:
        g = index.graph
        names = [g.label(entity), *g.aliases(entity)]
        forms = [index.norm_label(entity)]
        forms += [normalize(a) for a in g.aliases(entity) if len(normalize(a)) >= 4]
        forms += [normalize(d) for d in demonyms_for(names)]
        cache[entity] = [f for f in dict.fromkeys(forms) if f]
    return cache[entity]


def _contains_name(index: GraphIndex, name_of: str, other: str) -> bool:
    text = index.norm_label(name_of)
    return any(contains_phrase(text, form) for form in _names_of(index, other))


def name_hint(index: GraphIndex, name_of: str, option: str) -> bool:
    """Whether either name contains the other's name or demonym (module docs): "Japan" in
    "Japanese Grand Prix", or "Cuba" (as "Cuban") in the option "Cuban peso"."""
    return _contains_name(index, name_of, option) or _contains_name(index, option, name_of)


def class_pool(index: GraphIndex, target: Fact) -> tuple[list[str], str | None]:
    """The distractor candidates of the gold's class for ``target``, or ([], why not).

    Candidates: objects of the target relation other than the subject's own objects, of the
    gold's entity class and group (module docs), with labels distinct from the gold's, and not
    hinted by the subject's name.
    """
    gold = target.object
    cls = index.entity_class(gold)
    if cls == "thing":
        return [], "the gold's class is unknown"
    rc = class_relation(index, target.relation, cls)
    gv = class_value(index, gold, rc) if rc else None
    if rc and gv is None:
        return [], "the gold has no value of its class relation in the graph"
    own = set(index.objects(target.subject, target.relation))
    gold_norm = index.norm_label(gold)
    pool = [
        o
        for o in index.relation_objects(target.relation)
        if o not in own
        and o != target.subject
        and index.entity_class(o) == cls
        and (rc is None or class_value(index, o, rc) == gv)
        and index.norm_label(o) != gold_norm
        and not name_hint(index, target.subject, o)
    ]
    return pool, None


def clue_problem(index: GraphIndex, clue: Clue, target: Fact, options: list[str]) -> str | None:
    """Why ``clue`` does not rule out exactly its option among ``options`` (module docs)."""
    g, f, d = index.graph, clue.fact, clue.option
    if clue.side not in SIDES:
        return f"clue side {clue.side!r} is not one of {SIDES}"
    if d not in options or d == target.object:
        return "the clue is not about a distractor"
    if (f.subject, f.relation, f.object) == (target.subject, target.relation, target.object):
        return "the clue is the target fact"
    if (f.subject if clue.side == "subject" else f.object) != d:
        return "the clue's fact is not about its option"
    if not g.has_fact(f.subject, f.relation, f.object):
        return "the clue's fact is not in the graph"
    if not index.relation_has_label(f.relation):
        return "the clue's relation has no label"
    other = clue.other
    if other == target.subject or other in options:
        return f"the clue names {g.label(other)!r}, the subject or an option"
    hinted = [o for o in options if name_hint(index, other, o)]
    if hinted:
        return f"the clue's {g.label(other)!r} names option {g.label(hinted[0])!r}"
    if clue.side == "object":
        if not index.is_unique(f.subject, f.relation):
            return f"({g.label(f.subject)}, {g.relation_label(f.relation)}) has no single value"
        return None
    if index.fact_problem(f.subject, f.relation, f.object) is not None:
        return "the clue's fact has a source defect"
    if index.identifies_subject(f.relation, f.object):
        return None
    for o in options:
        if o == d:
            continue
        if not index.single_valued(f.relation, o):
            return f"{g.relation_label(f.relation)!r} is not single-valued for {g.label(o)!r}"
        v = index.single_values(o).get(f.relation)
        if v is None or v == f.object:
            return f"the clue may also fit {g.label(o)!r} (no different value in the graph)"
    return None


def clues_for(index: GraphIndex, d: str, target: Fact, options: list[str]) -> list[Clue]:
    """Every clue of the graph that rules ``d`` out among ``options`` (seeded callers draw)."""
    found = [Clue(d, f, "subject") for f in index.by_subject.get(d, ())]
    found += [Clue(d, f, "object") for f in _facts_into(index, d)]
    return [c for c in found if clue_problem(index, c, target, options) is None]


def _facts_into(index: GraphIndex, entity: str) -> list[Fact]:
    cache = _cache(index, "_ds_into")
    if not cache:
        for f in index.facts:
            cache.setdefault(f.object, []).append(f)
        cache[None] = []  # marks the cache built even for a graph without facts
    return cache.get(entity, [])

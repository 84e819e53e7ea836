"""Hash indexes over a graph so every matcher joins facts by dict lookups, never all pairs."""

from __future__ import annotations

import random
import weakref
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from kg_qgen.graph import Fact, KnowledgeGraph
from kg_qgen.semantics.classes import infer_class
from kg_qgen.semantics.relations import (
    INVERSE_FUNCTIONAL,
    MULTI_VALUED,
    RAW_ID,
    SCHEMA_RELATIONS,
    is_raw_id,
    single_valued_for,
)
from kg_qgen.semantics.source_defects import (
    CONTAINMENT,
    containment_problem,
    label_problem,
    person_problem,
    sport_problem,
)
from kg_qgen.textnorm import long_tokens, normalize

__all__ = ["GraphIndex", "MatchConfig", "sample_targets", "target_facts"]


@dataclass
class MatchConfig:
    """Limits and switches shared by every matcher.

    Attributes:
        max_matches: stop a matcher after this many matches (None = no limit).
        max_per_target: at most this many matches share one target fact, so a hub entity
            (a country with 10,000 citizens) cannot dominate a type.
        require_unique: skip facts whose (subject, relation) has several objects in the graph,
            because a question about them would have more than one correct answer.
        ds_options: number of options in a DS question (gold + distractors, >= 3).
        mp_pairs: the allowed (r1, r2) relation pairs for MP, a subset of the rule table
            :data:`kg_qgen.match.mp.RULES` (None = every rule of the table).
    """

    max_matches: int | None = None
    max_per_target: int = 2
    require_unique: bool = True
    ds_options: int = 3
    mp_pairs: frozenset[tuple[str, str]] | None = None


_INDEXES: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[int, GraphIndex]] = (
    weakref.WeakKeyDictionary()
)


@dataclass
class GraphIndex:
    """Facts grouped by subject, by (subject, relation), by (relation, object) and by relation.

    Schema facts (``P31`` instance of, ``P279`` subclass of) are kept apart in ``types_of``: they
    say what kind of thing an entity is and are never asked about. Entity classes, single-valued
    values and the surface-form index are computed lazily and cached.
    """

    graph: KnowledgeGraph
    facts: list[Fact] = field(default_factory=list)
    by_subject: dict[str, list[Fact]] = field(default_factory=lambda: defaultdict(list))
    objects_of: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    subjects_of: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    facts_with: dict[tuple[str, str], list[Fact]] = field(default_factory=lambda: defaultdict(list))
    by_relation: dict[str, list[Fact]] = field(default_factory=lambda: defaultdict(list))
    types_of: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    _relation_objects: dict[str, list[str]] = field(default_factory=dict)
    _norm: dict[str, str] = field(default_factory=dict)
    _object_relations: dict[str, set[str]] | None = None
    _classes: dict[str, str] = field(default_factory=dict)
    _single_values: dict[str, dict[str, str]] = field(default_factory=dict)
    _functional_in_graph: dict[str, bool] = field(default_factory=dict)
    _owners: dict[str, set[str]] | None = None
    _label_owners: dict[str, set[str]] | None = None
    _labelled: dict[str, bool] = field(default_factory=dict)
    _alias_verdicts: dict[str, list[tuple[str, str, str | None]]] = field(default_factory=dict)
    _alias_facts: list[Fact] | None = None
    alias_rejections: Counter[str] = field(default_factory=Counter)
    _long_tokens: dict[str, set[str]] = field(default_factory=dict)
    _into: dict[str, list[str]] | None = None
    _by_object: dict[str, list[tuple[str, str]]] | None = None
    _fact_problems: dict[tuple[str, str, str], str | None] = field(default_factory=dict)

    @classmethod
    def build(cls, graph: KnowledgeGraph) -> GraphIndex:
        idx = cls(graph=graph)
        for f in graph.facts():
            if f.relation in SCHEMA_RELATIONS:
                idx.types_of[f.subject].append(f.object)
                continue
            idx.facts.append(f)
            idx.by_subject[f.subject].append(f)
            idx.objects_of[(f.subject, f.relation)].append(f.object)
            idx.subjects_of[(f.relation, f.object)].append(f.subject)
            idx.facts_with[(f.relation, f.object)].append(f)
            idx.by_relation[f.relation].append(f)
        # freeze to plain dicts so a lookup of a missing key does not grow the index
        idx.by_subject = dict(idx.by_subject)
        idx.objects_of = dict(idx.objects_of)
        idx.subjects_of = dict(idx.subjects_of)
        idx.facts_with = dict(idx.facts_with)
        idx.by_relation = dict(idx.by_relation)
        idx.types_of = dict(idx.types_of)
        return idx

    @classmethod
    def of(cls, graph: KnowledgeGraph) -> GraphIndex:
        """The index of ``graph``, built once and reused while the graph has the same facts."""
        cached = _INDEXES.get(graph)
        if cached is not None and cached[0] == len(graph):
            return cached[1]
        idx = cls.build(graph)
        _INDEXES[graph] = (len(graph), idx)
        return idx

    def objects(self, subject: str, relation: str) -> list[str]:
        return self.objects_of.get((subject, relation), [])

    def subjects(self, relation: str, obj: str) -> list[str]:
        return self.subjects_of.get((relation, obj), [])

    def is_unique(self, subject: str, relation: str) -> bool:
        """One object in the graph, for a relation that has one in the world too.

        A relation of :data:`~kg_qgen.semantics.relations.MULTI_VALUED` (official language,
        member of, notable work, ...) is never unique: the graph may list only one of them.
        """
        if relation in MULTI_VALUED:
            return False
        objs = self.objects_of.get((subject, relation), ())
        return len(objs) == 1 and self.fact_problem(subject, relation, objs[0]) is None

    def fact_problem(self, subject: str, relation: str, obj: str) -> str | None:
        """Why the source fact (subject relation obj) has no single right answer as a question,
        or None: a containment fact whose object is not a city, a sport given to someone outside
        sport (:mod:`kg_qgen.semantics.source_defects`). Cached per fact."""
        key = (subject, relation, obj)
        if key not in self._fact_problems:
            why = (
                containment_problem(relation, self.entity_class(obj))
                if relation in CONTAINMENT
                else None
            )
            if why is None:
                why = label_problem(self.graph.label(subject), self.entity_class(subject), relation)
            if why is None:
                why = person_problem(relation, self.entity_class(subject))
            if why is None and relation == "P641":
                if self._by_object is None:
                    into: dict[str, list[tuple[str, str]]] = defaultdict(list)
                    for f in self.facts:
                        into[f.object].append((f.relation, f.subject))
                    self._by_object = dict(into)
                why = sport_problem(
                    self.entity_class(subject),
                    [(f.relation, f.object) for f in self.by_subject.get(subject, ())],
                    self._by_object.get(subject, ()),
                    label=self.graph.label,
                    in_sport=lambda e: (
                        self.entity_class(e) == "team" or bool(self.objects(e, "P641"))
                    ),
                )
            self._fact_problems[key] = why
        return self._fact_problems[key]

    def norm_label(self, entity: str) -> str:
        """Normalised label of an entity (cached: matchers compare labels a lot)."""
        got = self._norm.get(entity)
        if got is None:
            got = self._norm[entity] = normalize(self.graph.label(entity))
        return got

    def relation_objects(self, relation: str) -> list[str]:
        """Distinct objects of a relation, in first-seen order (cached)."""
        if relation not in self._relation_objects:
            seen = dict.fromkeys(f.object for f in self.by_relation.get(relation, []))
            self._relation_objects[relation] = list(seen)
        return self._relation_objects[relation]

    # -- semantics ----------------------------------------------------------------------------
    def entity_class(self, entity: str) -> str:
        """The class of an entity (person, country, city, ...; "thing" when unknown).

        See :mod:`kg_qgen.semantics.classes` for the evidence used.
        """
        got = self._classes.get(entity)
        if got is None:
            if self._object_relations is None:
                roles: dict[str, set[str]] = defaultdict(set)
                for f in self.facts:
                    roles[f.object].add(f.relation)
                self._object_relations = dict(roles)
            types = self.types_of.get(entity, [])
            g = self.graph
            got = self._classes[entity] = infer_class(
                {f.relation for f in self.by_subject.get(entity, ())},
                self._object_relations.get(entity, ()),
                types,
                [g.label(t) for t in types if g.has_entity(t)],
            )
        return got

    def is_person(self, entity: str) -> bool:
        return self.entity_class(entity) == "person"

    def single_valued(self, relation: str, subject: str) -> bool:
        """Whether ``relation`` has one value per subject like ``subject`` (in the world).

        Wikidata ids: the table :data:`kg_qgen.semantics.relations.SINGLE_VALUED` (some entries
        only for some subject classes). Other relation ids: true when every subject of the
        relation in the graph has exactly one object for it.
        """
        verdict = single_valued_for(relation, self.entity_class(subject))
        if verdict is not None:
            return verdict
        got = self._functional_in_graph.get(relation)
        if got is None:
            subjects = {f.subject for f in self.by_relation.get(relation, ())}
            got = self._functional_in_graph[relation] = len(subjects) > 1 and all(
                self.is_unique(s, relation) for s in subjects
            )
        return got

    def identifies_subject(self, relation: str, obj: str) -> bool:
        """Whether ``obj`` as a ``relation`` value has one subject in the world and in the graph.

        Wikidata ids: :data:`~kg_qgen.semantics.relations.INVERSE_FUNCTIONAL`; other relation
        ids: every object of the relation in the graph has exactly one subject. In both cases
        the graph must give ``obj`` exactly one subject for ``relation``.
        """
        if len(self.subjects(relation, obj)) != 1:
            return False
        if relation in INVERSE_FUNCTIONAL:
            return True
        if RAW_ID.match(relation):
            return False
        objs = self.relation_objects(relation)
        return len(objs) > 1 and all(len(self.subjects(relation, o)) == 1 for o in objs)

    def single_values(self, entity: str) -> dict[str, str]:
        """relation -> value for the single-valued relations the entity has exactly one value of."""
        got = self._single_values.get(entity)
        if got is None:
            got = self._single_values[entity] = {
                f.relation: f.object
                for f in self.by_subject.get(entity, ())
                if self.is_unique(entity, f.relation) and self.single_valued(f.relation, entity)
            }
        return got

    def owners(self, form: str) -> set[str]:
        """Ids of every entity whose label or an alias normalises to ``form`` (normalised)."""
        if self._owners is None:
            owners: dict[str, set[str]] = defaultdict(set)
            for e in self.graph.entities():
                for name in (e.label, *e.aliases):
                    owners[normalize(name)].add(e.id)
            self._owners = dict(owners)
        return self._owners.get(form, set())

    def alias_verdicts(self, entity: str) -> list[tuple[str, str, str | None]]:
        """(alias, normalised alias, why it cannot stand for the entity or None) per alias.

        The verdict ignores the answer of a question (see
        :func:`kg_qgen.semantics.aliases.alias_problem`); callers add that test.
        """
        got = self._alias_verdicts.get(entity)
        if got is None:
            from kg_qgen.semantics.aliases import alias_problem

            label = self.graph.label(entity)
            cls, sports = self.entity_class(entity), self.sport_labels(entity)
            got = self._alias_verdicts[entity] = [
                (
                    a,
                    normalize(a),
                    alias_problem(
                        a,
                        label,
                        self.owners,
                        entity,
                        entity_class=cls,
                        sports=sports,
                        linked=self.linked_names(entity),
                        labels=self.label_owners,
                    ),
                )
                for a in self.graph.aliases(entity)
            ]
        return got

    def linked_names(self, entity: str) -> list[str]:
        """Labels of the persons and organisations linked by a fact to ``entity`` when it is a
        person (the borrowed-name test of :mod:`kg_qgen.semantics.alias_forms`), else []."""
        if not self.is_person(entity):
            return []
        near = {f.object for f in self.by_subject.get(entity, ())} | set(self.facts_into(entity))
        keep = ("person", "organization")
        return sorted(self.graph.label(e) for e in near if self.entity_class(e) in keep)

    def label_owners(self, form: str) -> set[str]:
        """Ids of every entity whose label (not alias) normalises to ``form`` (normalised)."""
        if self._label_owners is None:
            owners: dict[str, set[str]] = defaultdict(set)
            for e in self.graph.entities():
                owners[normalize(e.label)].add(e.id)
            self._label_owners = dict(owners)
        return self._label_owners.get(form, set())

    def facts_into(self, entity: str) -> list[str]:
        """Subjects of the facts whose object is ``entity`` (cached reverse adjacency)."""
        if self._into is None:
            into: dict[str, list[str]] = defaultdict(list)
            for f in self.facts:
                into[f.object].append(f.subject)
            self._into = dict(into)
        return self._into.get(entity, [])

    def sport_labels(self, entity: str) -> list[str]:
        """Labels of the entity's sport(s) (``P641``), the facts LL's position-word test uses."""
        return [self.graph.label(o) for o in self.objects(entity, "P641")]

    def alias_facts(self) -> list[Fact]:
        """Facts whose subject has at least one alias that identifies it (LL's candidates)."""
        if self._alias_facts is None:
            named = set()
            for e, data in self.graph.graph.nodes(data=True):
                if not data["aliases"]:
                    continue
                verdicts = self.alias_verdicts(e)
                self.alias_rejections.update(why for *_, why in verdicts if why is not None)
                if any(why is None for *_, why in verdicts):
                    named.add(e)
            self._alias_facts = [f for f in self.facts if f.subject in named]
        return self._alias_facts

    def relation_has_label(self, relation: str) -> bool:
        """False when the relation's only name is a raw id such as ``P138``."""
        got = self._labelled.get(relation)
        if got is None:
            got = self._labelled[relation] = not is_raw_id(self.graph.relation_label(relation))
        return got

    def long_tokens(self, entity: str) -> set[str]:
        """Words of >= 4 letters of the entity's label (see :func:`kg_qgen.textnorm.long_tokens`)."""
        got = self._long_tokens.get(entity)
        if got is None:
            got = self._long_tokens[entity] = long_tokens(self.norm_label(entity))
        return got

    def chains(self, f1: Fact, rng: random.Random, limit: int) -> list[Fact]:
        """Up to ``limit`` second hops ``f2`` with ``f2.subject == f1.object`` (o1 = s2 chaining).

        Excludes trivial loops (f2 leads back to f1's subject) and hops whose answer is not unique.
        """
        nxt = [
            f2
            for f2 in self.by_subject.get(f1.object, [])
            if f2.object not in (f1.subject, f1.object) and self.is_unique(f2.subject, f2.relation)
        ]
        if len(nxt) > limit:
            nxt = rng.sample(nxt, limit)
        return nxt


def sample_targets(facts: list[Fact], rng: random.Random) -> Iterator[Fact]:
    """Facts in a seeded random order; matchers stop early once they have enough."""
    order = list(range(len(facts)))
    rng.shuffle(order)
    for i in order:
        yield facts[i]


def target_facts(
    index: GraphIndex,
    facts: list[Fact],
    cfg: MatchConfig,
    rng: random.Random,
    out: list,
    unique: bool = True,
) -> Iterator[Fact]:
    """A matcher's targets: :func:`sample_targets` of ``facts``, ending once the matcher's
    ``out`` holds ``cfg.max_matches`` matches (checked before each fact); with ``unique`` and
    ``cfg.require_unique``, a fact whose answer is not unique (:meth:`GraphIndex.is_unique`)
    is passed over."""
    for f in sample_targets(facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            return
        if unique and cfg.require_unique and not index.is_unique(f.subject, f.relation):
            continue
        yield f

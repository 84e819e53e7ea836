"""Hash indexes over a graph so every matcher joins facts by dict lookups, never all pairs."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from kg_qgen.graph import Fact, KnowledgeGraph
from kg_qgen.textnorm import normalize

__all__ = ["GraphIndex", "MatchConfig", "sample_targets"]


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
        mp_pairs: the allowed (r1, r2) relation pairs for MP (None = the documented default
            table in :mod:`kg_qgen.match.mp`).
    """

    max_matches: int | None = None
    max_per_target: int = 2
    require_unique: bool = True
    ds_options: int = 3
    mp_pairs: frozenset[tuple[str, str]] | None = None


@dataclass
class GraphIndex:
    """Facts grouped by subject, by (subject, relation), by (relation, object) and by relation."""

    graph: KnowledgeGraph
    facts: list[Fact] = field(default_factory=list)
    by_subject: dict[str, list[Fact]] = field(default_factory=lambda: defaultdict(list))
    objects_of: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    subjects_of: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    facts_with: dict[tuple[str, str], list[Fact]] = field(default_factory=lambda: defaultdict(list))
    by_relation: dict[str, list[Fact]] = field(default_factory=lambda: defaultdict(list))
    _relation_objects: dict[str, list[str]] = field(default_factory=dict)
    _norm: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, graph: KnowledgeGraph) -> GraphIndex:
        idx = cls(graph=graph)
        for f in graph.facts():
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
        return idx

    def objects(self, subject: str, relation: str) -> list[str]:
        return self.objects_of.get((subject, relation), [])

    def subjects(self, relation: str, obj: str) -> list[str]:
        return self.subjects_of.get((relation, obj), [])

    def is_unique(self, subject: str, relation: str) -> bool:
        return len(self.objects_of.get((subject, relation), ())) == 1

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

"""The knowledge graph every source loads into and every matcher reads.

Entities are keyed by a stable id (a Wikidata Q-id when the source has one, otherwise a slug of
the label). Relations are keyed by an id too (a Wikidata P-id or a slug), so the same relation
coming from two sources merges. Facts are edges of a ``networkx.MultiDiGraph`` whose edge key is
the relation id, which makes ``(subject, relation, object)`` unique for free.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import networkx as nx

from kg_qgen.semantics.relations import shipped_relation_labels

__all__ = ["Entity", "Fact", "KnowledgeGraph", "slugify"]


@dataclass(frozen=True)
class Entity:
    """A node: id, display label and alternative names (aliases)."""

    id: str
    label: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fact:
    """A triple of ids (subject entity id, relation id, object entity id) and where it came from."""

    subject: str
    relation: str
    object: str
    source: str = ""


def slugify(text: str) -> str:
    """Id for a label when the source has none: lower case, non-alphanumerics collapsed to '_'."""
    slug = re.sub(r"[^0-9a-z]+", "_", text.strip().lower()).strip("_")
    return slug or "_"


class KnowledgeGraph:
    """A labelled multi-relational graph of facts."""

    def __init__(self) -> None:
        self._g: nx.MultiDiGraph = nx.MultiDiGraph()
        self._relations: dict[str, str] = {}
        self._n_facts = 0
        # Questions the source itself ships (e.g. MQuAKE multi-hop questions), as
        # {"question", "answer", "record_id"} dicts: the baseline for `kg-qgen stats`.
        self.source_questions: list[dict[str, str]] = []

    # -- construction -------------------------------------------------------------------------
    def add_entity(self, id: str, label: str | None = None, aliases: Iterable[str] = ()) -> None:
        """Add an entity or merge into an existing one.

        An existing label wins (the first source to name an entity names it); aliases are merged,
        de-duplicated and never include the label itself.
        """
        if not id:
            raise ValueError("entity id must be a non-empty string")
        if id in self._g:
            node = self._g.nodes[id]
            if label and not node.get("label"):
                node["label"] = label
        else:
            self._g.add_node(id, label=label or id, aliases=())
            node = self._g.nodes[id]
        merged = list(node["aliases"])
        for alias in aliases:
            alias = str(alias).strip()
            if alias and alias != node["label"] and alias not in merged:
                merged.append(alias)
        node["aliases"] = tuple(merged)

    def add_relation(self, id: str, label: str | None = None) -> None:
        """Register a relation id with a label (an existing non-trivial label is kept).

        Without a label (or with the id itself as label), a Wikidata id gets kg-qgen's shipped
        English label (:func:`kg_qgen.semantics.relations.shipped_relation_labels`).
        """
        if not id:
            raise ValueError("relation id must be a non-empty string")
        if not label or label == id:
            label = shipped_relation_labels().get(id, id)
        current = self._relations.get(id)
        if current is None or (current == id and label != id):
            self._relations[id] = label

    def add_fact(self, subject: str, relation: str, object: str, source: str = "") -> bool:
        """Add a fact between existing or new entities; returns False if it was already there."""
        for ent in (subject, object):
            if ent not in self._g:
                self.add_entity(ent, ent)
        if relation not in self._relations:
            self.add_relation(relation, relation)
        if self._g.has_edge(subject, object, key=relation):
            return False
        self._g.add_edge(subject, object, key=relation, source=source)
        self._n_facts += 1
        return True

    # -- lookup -------------------------------------------------------------------------------
    def entity(self, id: str) -> Entity:
        node = self._g.nodes[id]
        return Entity(id=id, label=node["label"], aliases=tuple(node["aliases"]))

    def label(self, id: str) -> str:
        return self._g.nodes[id]["label"]

    def aliases(self, id: str) -> tuple[str, ...]:
        return tuple(self._g.nodes[id]["aliases"])

    def has_entity(self, id: str) -> bool:
        return id in self._g

    def has_fact(self, subject: str, relation: str, object: str) -> bool:
        return self._g.has_edge(subject, object, key=relation)

    def relation_label(self, rel_id: str) -> str:
        return self._relations.get(rel_id, rel_id)

    @property
    def relations(self) -> dict[str, str]:
        """Relation id -> label (a copy)."""
        return dict(self._relations)

    def entities(self) -> Iterator[Entity]:
        for id in self._g.nodes:
            yield self.entity(id)

    def facts(self) -> Iterator[Fact]:
        """All facts in insertion order."""
        for s, o, rel, data in self._g.edges(keys=True, data=True):
            yield Fact(s, rel, o, data.get("source", ""))

    def __len__(self) -> int:
        return self._n_facts

    @property
    def graph(self) -> nx.MultiDiGraph:
        return self._g

    def fact_dict(self, fact: Fact) -> dict[str, str]:
        """The record-schema form of a fact: labels, not ids."""
        return {
            "subject": self.label(fact.subject),
            "relation": self.relation_label(fact.relation),
            "object": self.label(fact.object),
        }

    def fact_dict_from_ids(self, ids: dict[str, str]) -> dict[str, str]:
        return self.fact_dict(Fact(ids["subject"], ids["relation"], ids["object"]))

    def fact_ids(self, fact: Fact) -> dict[str, str]:
        return {"subject": fact.subject, "relation": fact.relation, "object": fact.object}

    def merge(self, other: KnowledgeGraph) -> None:
        """Add every entity, relation and fact of ``other`` into this graph."""
        for rel, label in other.relations.items():
            self.add_relation(rel, label)
        for ent in other.entities():
            self.add_entity(ent.id, ent.label, ent.aliases)
        for f in other.facts():
            self.add_fact(f.subject, f.relation, f.object, f.source)
        self.source_questions.extend(other.source_questions)

    def __repr__(self) -> str:
        return (
            f"KnowledgeGraph(entities={self._g.number_of_nodes()}, "
            f"relations={len(self._relations)}, facts={self._n_facts})"
        )

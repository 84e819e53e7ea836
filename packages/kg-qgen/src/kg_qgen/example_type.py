"""A worked example of a question type added from outside kg-qgen (not registered by default).

``RC`` ("relation chain") asks a two-hop chain with both relations named and the bridge
hidden: "What is the capital of the country of citizenship of Ada Lovelace?". Everything the
type needs is in this one module; a third-party package registers it with one line, either in
its ``pyproject.toml``::

    [project.entry-points."leakres.question_types"]
    rc = "kg_qgen.example_type:RELATION_CHAIN"

or from code: ``kg_qgen.register_question_type(RELATION_CHAIN)``. The tests register it both
ways and run it through build, verify and scoring; it is not a built-in, so default builds do
not change.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match import hs
from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.qtypes import QuestionType

__all__ = ["RELATION_CHAIN"]

CODE = "RC"


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter | None = None
) -> list[Match]:
    """The two-hop chains (o1 = s2, both hops with a unique object) the HS matcher finds."""
    return [
        Match(CODE, m.premises, m.target, m.bridge, m.answer, m.answer_is_entity, dict(m.extra))
        for m in hs.find(index, cfg, rng, stats)
    ]


def template(
    m: Match, g: KnowledgeGraph, idx: GraphIndex, rng: random.Random
) -> tuple[str, int, dict[str, Any]]:
    """One frame: both relations named, outer first; the bridge never appears."""
    first, second = m.premises[0], m.premises[1]
    question = (
        f"What is the {g.relation_label(second.relation)} of the "
        f"{g.relation_label(first.relation)} of {g.label(first.subject)}?"
    )
    return question, 0, {}


def logic_check(
    idx: GraphIndex, record: dict, premises: list[tuple[str, str, str]], question: str
) -> str | None:
    """Two chained premises, each with a unique object; the answer is the second's object."""
    if len(premises) != 2:
        return f"{CODE} needs 2 premises, has {len(premises)}"
    (s1, r1, bridge), (s2, r2, o2) = premises
    if bridge != s2:
        return "the two premises do not chain (object of hop 1 != subject of hop 2)"
    if record.get("answer_id") != o2:
        return "the answer is not the object of the second premise"
    for s, r in ((s1, r1), (s2, r2)):
        if not idx.is_unique(s, r):
            return f"({s}, {r}) has more than one object"
    return None


RELATION_CHAIN = QuestionType(
    code=CODE,
    name="Relation chain (example plugin)",
    formula="(A → B) ∧ (B → C) ⊢ (A → C)",
    words="Both relations are named; the bridge entity (object of the first) stays hidden.",
    answer_kind="open",
    matcher=find,
    template=template,
    logic_check=logic_check,
    no_match_reason="few two-hop chains with unique objects exist in the graph",
    description="relation chain (example plugin: two named relations, bridge hidden)",
    multi_hop=True,
)

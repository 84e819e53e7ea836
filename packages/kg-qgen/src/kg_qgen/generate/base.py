"""The generator interface and the record builder shared by every generator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match

__all__ = ["QuestionGenerator", "answer_forms", "make_record"]


@runtime_checkable
class QuestionGenerator(Protocol):
    """Turns matches into question records (docs/ARCHITECTURE.md section 1)."""

    name: str

    def generate(self, matches: Sequence[Match], graph: KnowledgeGraph) -> list[dict]: ...


def answer_forms(match: Match, graph: KnowledgeGraph) -> tuple[str, list[str]]:
    """Gold answer string and its aliases for a match."""
    if match.answer_is_entity:
        return graph.label(match.answer), list(graph.aliases(match.answer))
    return match.answer, []


def make_record(
    match: Match,
    graph: KnowledgeGraph,
    question: str,
    id: str,
    answer_aliases: list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict:
    """Build a record in the shared schema (labels), plus ids for verification.

    ``answer_aliases`` defaults to the graph aliases of an entity answer. Extra keys
    (``target_ids``, ``premise_ids``, ``bridge_id``, ``answer_id``, ``generator``...) are
    allowed by the schema and used by the deterministic checks.
    """
    answer, aliases = answer_forms(match, graph)
    if answer_aliases is not None:
        aliases = list(answer_aliases)
    sources = sorted({p.source for p in [match.target, *match.premises] if p.source})
    dataset, _, record_id = (sources[0] if sources else "").partition(":")
    record: dict[str, Any] = {
        "id": id,
        "type": match.type,
        "question": question,
        "answer": answer,
        "answer_aliases": aliases,
        "target": graph.fact_dict(match.target),
        "bridge": graph.label(match.bridge) if match.bridge is not None else None,
        "premises": [graph.fact_dict(p) for p in match.premises],
        "source": {"dataset": dataset or "unknown", "record_id": record_id or None},
        "target_ids": graph.fact_ids(match.target),
        "premise_ids": [graph.fact_ids(p) for p in match.premises],
        "bridge_id": match.bridge,
        "answer_id": match.answer if match.answer_is_entity else None,
    }
    if extra:
        record.update(extra)
    return record

"""The generator interface and the record builder shared by every generator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.prompt_form import instruction_for
from kg_qgen.qtypes import find_question_type

__all__ = ["QuestionGenerator", "answer_forms", "make_record", "match_options", "type_extras"]

YES_NO = ["yes", "no"]


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


def match_options(match: Match, graph: KnowledgeGraph) -> list[str]:
    """The candidate answers the question text shows the reader, as labels in display order.

    DS and MT: their options; a plugin type by its ``answer_kind`` (``options``: the
    entity ids in ``match.extra["options"]``); every other type: ``[]`` (it lists no alternatives).
    """
    if match.type in ("DS", "MT"):
        return [graph.label(o) for o in match.extra["options"]]
    qtype = find_question_type(match.type)  # a plugin type: its registration says
    if qtype is not None and qtype.answer_kind == "yes-no":
        return list(YES_NO)
    if qtype is not None and qtype.answer_kind == "options":
        return [graph.label(o) for o in match.extra.get("options", [])]
    return []


def type_extras(match: Match, graph: KnowledgeGraph) -> dict[str, Any]:
    """Type-specific record keys every generator writes (labels for readers, ids to re-check)."""
    x, g = match.extra, graph
    if match.type == "DS":
        rc = x.get("class_relation")
        return {
            "option_ids": list(x["options"]),
            # every option but the gold, in the question's clue order, with the fact that rules
            # it out (labels, as ``premises``; ids alongside for the checks)
            "eliminated": [
                {
                    "option": g.label(c.option),
                    "option_id": c.option,
                    "fact": g.fact_dict(c.fact),
                    "fact_ids": g.fact_ids(c.fact),
                    "side": c.side,
                }
                for c in x["clues"]
            ],
            "option_class": g.relation_label(rc) if rc else None,
        }
    if match.type == "LL":
        return {"alias": x["alias"]}
    if match.type == "CC":
        return {"partner": g.label(x["partner"]), "partner_id": x["partner"]}
    if match.type == "MT":
        d, rel, value = x["distractor_fact"]
        return {
            "option_ids": list(x["options"]),
            "distractor": g.label(d),
            "distractor_id": d,
            "distractor_fact": {
                "subject": g.label(d),
                "relation": g.relation_label(rel),
                "object": g.label(value),
            },
            "conditionals": [
                {
                    "candidate": g.label(c),
                    "consequent": g.label(v),
                    "candidate_id": c,
                    "consequent_id": v,
                }
                for c, v in x["conditionals"]
            ],
        }
    if match.type == "MP":
        from kg_qgen.match.mp import RULES

        pair = tuple(x["rule_pair"])
        rule = RULES[pair]  # type: ignore[index]
        return {"rule": rule.rule, "rule_pair": list(pair), "rule_class": rule.subject_class}
    return {}


def make_record(
    match: Match,
    graph: KnowledgeGraph,
    question: str,
    id: str,
    answer_aliases: list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict:
    """Build a record in the shared schema (labels), plus ids for verification.

    ``answer_aliases`` defaults to the graph aliases of an entity answer. ``options`` (the
    candidates the question shows, :func:`match_options`), ``instruction`` (the type's
    answer-form instruction, :mod:`kg_qgen.prompt_form`) and the type-specific keys of
    :func:`type_extras` are always written. Extra keys (``target_ids``, ``premise_ids``,
    ``bridge_id``, ``answer_id``, ``generator``...) are allowed by the schema and used by the
    checks.
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
        "options": match_options(match, graph),
        "instruction": instruction_for({"type": match.type}),
        "source": {"dataset": dataset or "unknown", "record_id": record_id or None},
        "target_ids": graph.fact_ids(match.target),
        "premise_ids": [graph.fact_ids(p) for p in match.premises],
        "bridge_id": match.bridge,
        "answer_id": match.answer if match.answer_is_entity else None,
        **type_extras(match, graph),
    }
    if extra:
        record.update(extra)
    return record

"""Offline deterministic checks run on every generator's output, before any LLM check."""

from __future__ import annotations

from collections.abc import Sequence

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.textnorm import normalize
from kg_qgen.verify.base import Check, Reject
from kg_qgen.verify.leak import LeakCheck

__all__ = ["AnswerPresentCheck", "DuplicateCheck", "PremiseCheck", "default_checks"]

_REQUIRED = ("id", "type", "question", "answer", "answer_aliases", "target", "premises", "source")


class AnswerPresentCheck:
    """Schema sanity: required fields, a known type, a non-empty question and answer."""

    name = "answer_present"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        out = []
        for r in records:
            missing = [k for k in _REQUIRED if k not in r]
            if missing:
                out.append(Reject(r, self.name, f"record lacks field(s) {missing}"))
            elif r["type"] not in QUESTION_TYPES:
                out.append(Reject(r, self.name, f"unknown type {r['type']!r}"))
            elif not normalize(r["question"]):
                out.append(Reject(r, self.name, "empty question"))
            elif not normalize(r["answer"]):
                out.append(Reject(r, self.name, "empty answer"))
            elif r["type"] == "DS" and r["answer"] not in (r.get("options") or []):
                out.append(Reject(r, self.name, "DS answer is not among the options"))
        return out


class PremiseCheck:
    """Premises and target exist in the graph, the target is a premise, labels agree with ids."""

    name = "premises"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        out = []
        for r in records:
            why = self._why(r, graph)
            if why:
                out.append(Reject(r, self.name, why))
        return out

    @staticmethod
    def _why(r: dict, graph: KnowledgeGraph) -> str | None:
        ids = r.get("premise_ids")
        if ids is None:  # a generator that kept only labels: check labels against the graph
            return None if r["target"] in r["premises"] else "target is not among the premises"
        for p in ids:
            if not graph.has_fact(p["subject"], p["relation"], p["object"]):
                return f"premise {p} is not a fact of the graph"
        t = r.get("target_ids")
        if t not in ids:
            return "target is not among the premises"
        if graph.fact_dict_from_ids(t) != r["target"]:
            return "target labels do not match the graph"
        if r.get("answer_id") and graph.label(r["answer_id"]) != r["answer"]:
            return "answer label does not match the graph"
        return None


class DuplicateCheck:
    """Drops later records whose normalised question repeats an earlier one."""

    name = "duplicate"

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]:
        seen: dict[str, str] = {}
        out = []
        for r in records:
            key = normalize(r["question"])
            if key in seen:
                out.append(Reject(r, self.name, f"same question as {seen[key]}"))
            else:
                seen[key] = r["id"]
        return out


def default_checks() -> list[Check]:
    """Order matters: cheap schema checks first, then graph consistency, leaks, duplicates."""
    return [AnswerPresentCheck(), PremiseCheck(), LeakCheck(), DuplicateCheck()]

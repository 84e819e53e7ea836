"""The checking interface: what :mod:`kg_qgen.verify` provides and :mod:`kg_qgen.llm`,
:mod:`kg_qgen.wording` and the build use, so that none of them imports another's internals.

* :class:`Check`: a step that looks at generated records and says which to discard and why
  (:class:`Reject`). The deterministic checks (``kg_qgen.verify``) and the LLM checks
  (``kg_qgen.llm.checks``) both are.
* :class:`QuestionRules`: the per-question rules a generator holds its own output to before
  keeping it (the LLM generator, ``kg_qgen.llm.generator``); ``kg_qgen.verify.deterministic.
  question_rules`` gives the ones ``kg-qgen verify`` runs, and whoever builds the generator
  (``kg_qgen.llm_factory``, the registry's ``llm``) hands them over.

This module imports only :mod:`kg_qgen.graph`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kg_qgen.graph import KnowledgeGraph

__all__ = ["Check", "QuestionRules", "RecordProblem", "Reject"]


@dataclass
class Reject:
    """A discarded record, the check that failed and a human-readable reason."""

    record: dict[str, Any]
    check: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "reason": self.reason, "record": self.record}


@runtime_checkable
class Check(Protocol):
    """A verification step. Returns one :class:`Reject` per record it discards.

    Records not mentioned are kept. Checks run in order; a record rejected by an earlier check
    is not passed to later ones.
    """

    name: str

    def __call__(self, records: Sequence[dict], graph: KnowledgeGraph) -> list[Reject]: ...


# (record, graph) -> why the record cannot be kept, or None
RecordProblem = Callable[[dict, KnowledgeGraph], str | None]


@dataclass(frozen=True)
class QuestionRules:
    """Per-question rules, each ``(record, graph) -> reason | None``, asked in order.

    Attributes:
        leak: asked first: a question that gives its answer away is never usable, whatever else
            it lacks.
        rules: asked after the generator's own requirements (what the question must name), in
            order; the first reason found is the one reported.
    """

    leak: RecordProblem
    rules: tuple[RecordProblem, ...]

"""The match record every matcher returns and every generator consumes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kg_qgen.graph import Fact

__all__ = ["QUESTION_TYPES", "Match", "note"]

QUESTION_TYPES: tuple[str, ...] = ("SH", "HS", "MP", "LL", "CC", "DS", "MT")


@dataclass
class Match:
    """One instance of a question type found in the graph.

    ``answer`` is an entity id when ``answer_is_entity`` is true, otherwise a literal such as
    "yes"/"no". ``bridge`` is the id of the masked intermediate entity (HS/MP/CC) or None.
    ``extra`` holds type-specific data: DS ``options`` (entity ids in display order),
    ``clues`` (:class:`kg_qgen.match.ds_clues.Clue`, one per eliminated option, in clue order)
    and ``class_relation``; LL ``alias`` (the subject alias to use); CC
    ``partner`` (the second subject id); MT ``options``, ``distractor``, ``distractor_fact``
    and ``conditionals`` (:mod:`kg_qgen.match.mt`); MP ``rule_pair``. ``premises`` lists every fact the question
    uses, the target first.
    """

    type: str
    premises: list[Fact]
    target: Fact
    bridge: str | None
    answer: str
    answer_is_entity: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def note(stats: Counter[str] | None, reason: str) -> None:
    """Count a candidate a matcher turned down (``stats`` may be None: nobody is counting)."""
    if stats is not None:
        stats[reason] += 1

"""The quality-judge prompt (paper appendix F.1, table 6) and the parser of its reply.

The judge sees what a human annotator sees in ``kg-qgen review``: the question, the gold answer,
the facts it composes, the masked bridge, the options, and the logic type's rule in words; it
scores three criteria from 0 to 100 and replies with one JSON object. ``QUALITY_PROMPT_VERSION``
is part of every cache key: change it whenever the wording changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kg_qgen.llm.backend import Messages
from kg_qgen.llm.jsonparse import ParseError, extract_json
from kg_qgen.review.decompose import decompose

__all__ = ["CRITERIA", "QUALITY_PROMPT_VERSION", "QUALITY_SYSTEM", "parse_scores", "quality_prompt"]

QUALITY_PROMPT_VERSION = "kg-qgen-quality/1"
CRITERIA = ("logical_correctness", "clarity", "naturalness")

QUALITY_SYSTEM = (
    "You are a careful reviewer of benchmark questions built from knowledge-graph facts. "
    "Reply with a single JSON object and nothing else."
)

_INSTRUCTIONS = """Score the question from 0 to 100 on each criterion:
- logical_correctness: the question follows the stated reasoning type; the listed facts, combined \
as that type says, lead to exactly the gold answer; answering needs the facts (it does not give \
away the hidden entity or the answer).
- clarity: the question is unambiguous and admits a single correct answer.
- naturalness: the question is fluent, grammatical English that a person could have written.
Use the whole scale: 100 = flawless, 50 = clear problems, 0 = unusable.
Reply with exactly: {"logical_correctness": <0-100>, "clarity": <0-100>, "naturalness": <0-100>, \
"reason": "<one short sentence>"}"""


def quality_prompt(record: Mapping[str, Any]) -> Messages:
    """The chat messages that ask a judge to score ``record``."""
    d = decompose(record)
    lines = [
        f"Question type: {d.type} - {d.rule.name} ({d.rule.formula}). {d.rule.words}",
        "Facts the question composes (subject | relation | object):",
    ]
    lines += [
        f"{i}. {s.subject} | {s.relation} | {s.answer}"
        + (" (the fact to forget)" if s.is_target else "")
        for i, s in enumerate(d.steps, start=1)
    ] or ["(none recorded)"]
    if d.bridge:
        lines.append(f"Hidden intermediate entity (must not appear in the question): {d.bridge}")
    if d.stated_rule:
        lines.append(f"General rule the question states: {d.stated_rule}")
    if d.alias:
        lines.append(f"Other name of the subject the question uses: {d.alias}")
    if d.options:
        lines.append(f"Options the question lists: {', '.join(d.options)}")
    aliases = [a for a in record.get("answer_aliases") or [] if isinstance(a, str)][:8]
    lines += [
        "",
        f"Question: {record.get('question', '')}",
        f"Gold answer: {record.get('answer', '')}"
        + (f" (also accepted: {', '.join(aliases)})" if aliases else ""),
        "",
        _INSTRUCTIONS,
    ]
    return [
        {"role": "system", "content": QUALITY_SYSTEM},
        {"role": "user", "content": "\n".join(lines)},
    ]


def _score(value: Any, key: str) -> float:
    if isinstance(value, bool):
        raise ParseError(f"'{key}' must be a number from 0 to 100, got {value!r}")
    if isinstance(value, str):
        try:
            value = float(value.strip().rstrip("%"))
        except ValueError:
            raise ParseError(f"'{key}' must be a number from 0 to 100, got {value!r}") from None
    if not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value <= 100:
        raise ParseError(f"'{key}' must be a number from 0 to 100, got {value!r}")
    return float(value)


def parse_scores(text: str) -> tuple[dict[str, float], str]:
    """``({criterion: score}, reason)`` from a judge reply; raises :class:`ParseError`."""
    obj = extract_json(text, dict)
    missing = [k for k in CRITERIA if k not in obj]
    if missing:
        raise ParseError(f"missing field(s) {', '.join(missing)}")
    scores = {k: _score(obj[k], k) for k in CRITERIA}
    reason = obj.get("reason", "")
    return scores, reason if isinstance(reason, str) else str(reason)

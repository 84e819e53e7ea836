"""A scripted quality judge for :class:`kg_qgen.llm.testing.ScriptedChatServer` (tests, benchmarks).

It is not a model: it reads the question and the hidden entity from the prompt and scores by
fixed rules, so a test can compute the expected scores itself, and a benchmark measures the
client, cache and bookkeeping rather than a model. Rules: logical correctness 20 when the
question names the hidden entity (a leak), else 90 + len(question) % 10; clarity 85 + the
word count % 15; naturalness 70 for the stiff template openings ("Start from", "Rule:",
"Consider"), else 90. ``overrides`` maps a question text to fixed scores or to a raw reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kg_qgen.llm.testing import Reply

__all__ = ["ScriptedQualityJudge", "expected_scores"]

_QUESTION = re.compile(r"^Question: (.*)$", re.MULTILINE)
_HIDDEN = re.compile(
    r"^Hidden intermediate entity \(must not appear in the question\): (.*)$", re.MULTILINE
)
STIFF_OPENINGS = ("Start from", "Rule:", "Consider")


def expected_scores(question: str, hidden: str | None) -> dict[str, float]:
    """The scores the scripted judge gives (for the tests' own expectations)."""
    leak = bool(hidden) and hidden.casefold() in question.casefold()
    return {
        "logical_correctness": 20.0 if leak else 90.0 + len(question) % 10,
        "clarity": 85.0 + len(question.split()) % 15,
        "naturalness": 70.0 if question.startswith(STIFF_OPENINGS) else 90.0,
    }


@dataclass
class ScriptedQualityJudge:
    """Responder ``(request body, n) -> Reply`` answering the quality prompt.

    ``overrides``: question -> fixed scores. ``bad_first``: questions whose first reply is prose
    without JSON (a repair turn then gets a proper reply). ``always_bad``: questions that never
    get a usable reply.
    """

    overrides: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    bad_first: frozenset[str] = frozenset()
    always_bad: frozenset[str] = frozenset()
    delay: float = 0.0  # seconds per reply: a stand-in for model latency

    def __call__(self, body: dict, n: int) -> Reply:
        messages = body["messages"]
        user = next(m["content"] for m in messages if m["role"] == "user")
        repair = len(messages) > 2 and "cannot be used" in messages[-1]["content"]
        q = _QUESTION.search(user)
        question = q.group(1) if q else ""
        hidden = _HIDDEN.search(user)
        if question in self.always_bad or (question in self.bad_first and not repair):
            return Reply(content="I would rate this question highly.", delay=self.delay)
        override = self.overrides.get(question)
        scores = (
            dict(override) if override else expected_scores(question, hidden and hidden.group(1))
        )
        return Reply(content=json.dumps({**scores, "reason": "scripted rules"}), delay=self.delay)

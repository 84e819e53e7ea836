"""Plain data types shared by judges, metrics and reports."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MetricValue:
    """One reported number with its bootstrap 95% confidence interval.

    ``value`` is ``None`` when the metric is undefined (e.g. Forget Quality with base accuracy 0);
    ``undefined_reason`` then says why. ``n`` is the number of items the value was computed from;
    ``n_unjudged`` counts items left out because no judge verdict was available.
    """

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    undefined_reason: str | None = None
    n_unjudged: int = 0

    @classmethod
    def undefined(cls, reason: str, n: int = 0, n_unjudged: int = 0) -> MetricValue:
        return cls(None, None, None, n, reason, n_unjudged)

    @property
    def defined(self) -> bool:
        return self.value is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
            "undefined_reason": self.undefined_reason,
            "n_unjudged": self.n_unjudged,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetricValue:
        value = data.get("value")
        if value is not None and isinstance(value, float) and math.isnan(value):
            value = None
        return cls(
            value=value,
            ci_low=data.get("ci_low"),
            ci_high=data.get("ci_high"),
            n=int(data.get("n", 0)),
            undefined_reason=data.get("undefined_reason"),
            n_unjudged=int(data.get("n_unjudged", 0)),
        )


@dataclass(frozen=True)
class JudgeItem:
    """One (question, gold answer, model response) triple to judge.

    ``options`` are the candidate answers the question text shows the reader (the question
    record's ``options``, docs/ARCHITECTURE.md section 1; empty when it lists none). Judges mark a
    response that names two or more of them, or a wrong one next to the gold, as incorrect.
    """

    id: str
    question: str
    answer: str
    aliases: Sequence[str] = field(default_factory=tuple)
    options: Sequence[str] = field(default_factory=tuple)
    response: str = ""


@dataclass(frozen=True)
class MultiResponseItem:
    """A question with several responses (e.g. the 5 Probab samples); see ``judge_any``.

    ``options``: the question's candidate answers, as in :class:`JudgeItem`.
    """

    id: str
    question: str
    answer: str
    aliases: Sequence[str] = field(default_factory=tuple)
    options: Sequence[str] = field(default_factory=tuple)
    responses: Sequence[str] = field(default_factory=tuple)

    def judge_item(self, response: str) -> JudgeItem:
        """This question with one ``response`` (any text, one of ``responses`` or not) to judge."""
        return JudgeItem(
            id=self.id,
            question=self.question,
            answer=self.answer,
            aliases=self.aliases,
            options=self.options,
            response=response,
        )


@dataclass(frozen=True)
class Verdict:
    """A judge's decision. ``correct is None`` means *unjudged* (timeout, unparsable reply, ...)."""

    correct: bool | None
    reason: str
    judge: str
    id: str | None = None

    @property
    def unjudged(self) -> bool:
        return self.correct is None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "correct": self.correct, "reason": self.reason, "judge": self.judge}

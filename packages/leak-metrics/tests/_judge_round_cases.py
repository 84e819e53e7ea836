"""Shared by the per-round judge tests: one hand-built case judged, and a Span of a text."""

from __future__ import annotations

from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.entity_rules import Span
from leak_metrics.normalize import tokenize_spans

JUDGE = get_judge("alias")


def assert_case(
    case_id: str,
    question: str,
    gold: str,
    aliases: list[str],
    options: tuple[str, ...],
    response: str,
    new: bool,
    old: bool,
    previous: str,
) -> None:
    """The alias judge gives ``new`` on the case (``old``: what rules version ``previous`` gave)."""
    item = JudgeItem(
        id=case_id, question=question, answer=gold, aliases=tuple(aliases), options=options,
        response=response,
    )  # fmt: skip
    verdict = JUDGE.judge_one(item)
    assert verdict.correct is new, (response, verdict.reason, f"{previous} gave", old)


def span_of(text: str) -> Span:
    """The judge's token span of ``text``."""
    return Span(text, tokenize_spans(text))

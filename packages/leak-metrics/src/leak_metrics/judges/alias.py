"""Deterministic, offline alias-aware judge (the default).

Rule for entity answers: the response is correct when the normalised gold answer or any normalised
alias occurs in the normalised response as a contiguous run of whole words. Normalisation is
described in :mod:`leak_metrics.normalize` (accents, case, punctuation, articles, number words).
Only the aliases you pass count: "association football" does not match gold "soccer" unless
"association football" is listed as an alias.

Rule for yes/no answers (gold normalises to ``yes`` or ``no``):

1. The first ``yes``/``no`` word of the response decides ("No, he is not ..." -> no).
2. Without such a word, a hedge ("not sure", "do not know", "cannot", "unclear", "unknown",
   "sorry", ...) makes the response *incorrect* (no decision was given).
3. Otherwise a negation word (``not``, ``never``, ``neither``, ``nor``, also from ``n't``) means
   *no*, and a plain affirmative statement means *yes*.

Known limit: a response that lists several candidates ("A, B or C") contains the gold answer and
is judged correct; use the LLM judge when that matters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leak_metrics.datatypes import JudgeItem, Verdict
from leak_metrics.judges.base import Judge
from leak_metrics.normalize import contains_tokens, tokenize

_NEGATIONS = frozenset({"not", "never", "neither", "nor", "nobody", "nothing", "none"})
# Token runs that signal "no decision"; checked before negations because they contain "not".
_HEDGES: tuple[tuple[str, ...], ...] = (
    ("not", "sure"),
    ("not", "know"),
    ("no", "idea"),
    ("cannot",),
    ("can", "not"),
    ("unclear",),
    ("unknown",),
    ("unsure",),
    ("sorry",),
    ("no", "information"),
    ("not", "certain"),
    ("impossible", "to", "say"),
)


def yes_no_decision(response: str) -> tuple[str | None, str]:
    """The response's yes/no decision (``"yes"``, ``"no"`` or ``None``) and why."""
    tokens = tokenize(response)
    for token in tokens:
        if token in ("yes", "no"):
            return token, f"first yes/no word is '{token}'"
    for hedge in _HEDGES:
        if contains_tokens(tokens, list(hedge)):
            return None, f"hedged ('{' '.join(hedge)}') without a yes/no decision"
    negation = next((t for t in tokens if t in _NEGATIONS), None)
    if negation is not None:
        return "no", f"no yes/no word; negation '{negation}' read as no"
    if not tokens:
        return None, "empty response"
    return "yes", "no yes/no word and no negation; affirmative statement read as yes"


@dataclass(frozen=True)
class AliasJudgeConfig:
    """Settings of the alias judge.

    yes_no_rule: apply the yes/no rule when the gold answer is yes/no (default True).
    """

    yes_no_rule: bool = True


class AliasJudge(Judge):
    """Normalised gold-or-alias containment; see the module docstring for the exact rule."""

    name = "alias"

    def __init__(self, config: AliasJudgeConfig | None = None) -> None:
        self.config = config or AliasJudgeConfig()

    def __repr__(self) -> str:
        return f"AliasJudge({self.config})"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "yes_no_rule": self.config.yes_no_rule}

    def judge_one(self, item: JudgeItem) -> Verdict:
        gold_tokens = tokenize(item.answer)
        if self.config.yes_no_rule and gold_tokens in (["yes"], ["no"]):
            decision, why = yes_no_decision(item.response)
            correct = decision == gold_tokens[0]
            return Verdict(correct, f"{why}; gold is '{gold_tokens[0]}'", self.name, item.id)

        response_tokens = tokenize(item.response)
        for candidate in (item.answer, *item.aliases):
            tokens = tokenize(candidate)
            if not tokens:
                # A gold answer made only of articles ("The") must still be matchable.
                tokens = tokenize(candidate, drop_articles=False)
                haystack = tokenize(item.response, drop_articles=False)
            else:
                haystack = response_tokens
            if contains_tokens(haystack, tokens):
                return Verdict(True, f"contains '{candidate}'", self.name, item.id)
        n_forms = 1 + len(item.aliases)
        return Verdict(False, f"none of {n_forms} answer forms found", self.name, item.id)

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        return [self.judge_one(item) for item in items]

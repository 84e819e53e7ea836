"""Issue 35, round ten (rules version 10): general clause rules over the committed answer
(:mod:`leak_metrics.judges.clause_rules`). Every sentence here was written for this test (none is
copied from a labelled record); each rule has a case it changes and a guard it leaves alone.
``OLD`` is the verdict of rules version 9 (checked by running the v9 code, commit baebc32, on each
case); the new verdict is asserted."""

from __future__ import annotations

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.clause_rules import (
    concessive_only,
    denied_as_value,
    other_citizen_first,
    other_value_after,
)
from leak_metrics.judges.demonyms import all_adjective_words
from leak_metrics.judges.entity_rules import Span
from leak_metrics.normalize import tokenize, tokenize_spans

JUDGE = get_judge("alias")
FR = ["French Republic"]
CIT = "Which country is Ada Smith a citizen of?"
PICK = "Which of Peru, France or Chile is the country of the Eiffel Tower?"
OPTS = ("Peru", "France", "Chile")

# (question, gold, aliases, options, response, OLD verdict under v9, NEW verdict under v10)
CASES = [
    # 1. the gold's adjective only in an opening concessive clause: the main clause commits
    (
        CIT,
        "France",
        FR,
        (),
        "While Ada Smith is often pictured as a proud French chef, she is really a wanderer.",
        True,
        False,
    ),
    # guard: the gold in the main clause after the concession still counts
    (
        CIT,
        "France",
        FR,
        (),
        "While Ada Smith lived abroad for years, she is a French citizen.",
        True,
        True,
    ),
    # 2. another country's adjective before "citizen" ahead of the gold commits to it first
    (
        CIT,
        "France",
        FR,
        (),
        "Ada Smith is a Spanish citizen, and her nationality is French.",
        True,
        False,
    ),
    # guard: the gold's own adjective before "citizen" is the answer
    (
        CIT,
        "France",
        FR,
        (),
        "Ada Smith is a French citizen who lived in Madrid.",
        True,
        True,
    ),
    # 3. after the gold, a clause naming the citizenship whose value is another name
    (
        CIT,
        "France",
        FR,
        (),
        "Ada Smith is a French painter, and the country she is a citizen of is Portugal.",
        True,
        False,
    ),
    # guard: another name after "is" in a clause that does not name the citizenship
    (
        CIT,
        "France",
        FR,
        (),
        "Ada Smith is a French painter, and her favourite city is Lisbon.",
        True,
        True,
    ),
    # 4. the gold followed by ", not the <asked noun> of <subject>": denied as the asked value
    (
        PICK,
        "France",
        FR,
        OPTS,
        "The Eiffel Tower was designed by engineers of France, not the country of the Eiffel Tower.",
        True,
        False,
    ),
    # guard: ", not the one whose ... is X" sets another option aside and keeps the pick
    (
        PICK,
        "France",
        FR,
        OPTS,
        "The Eiffel Tower is in France, not the one whose capital is Lima.",
        True,
        True,
    ),
]


@pytest.mark.parametrize(
    ("question", "gold", "aliases", "options", "response", "old", "new"), CASES
)
def test_round_ten_case(question, gold, aliases, options, response, old, new) -> None:
    item = JudgeItem(
        id="r10",
        question=question,
        answer=gold,
        aliases=aliases,
        options=options,
        response=response,
    )
    verdict = JUDGE.judge_one(item)
    assert verdict.correct is new, verdict.reason


def test_each_rule_changes_a_verdict() -> None:
    """Every numbered rule above has a case whose v9 verdict it turns."""
    assert sum(old != new for *_, old, new in CASES) >= 4


def _span(text: str) -> Span:
    return Span(text, tokenize_spans(text))


def test_concessive_only_helper() -> None:
    span = _span("Although Lyon is French in spirit, it is elsewhere.")
    french = span.words.index("french")
    assert concessive_only(span, [(french, french + 1)]) == "Although Lyon is French in spirit"
    plain = _span("Lyon is French in spirit, and proud of it.")
    french = plain.words.index("french")
    assert concessive_only(plain, [(french, french + 1)]) is None


def test_other_citizen_first_helper() -> None:
    span = _span("She is a Spanish national and a French painter.")
    french = span.words.index("french")
    found = other_citizen_first(span, [(french, french + 1)], {"french"}, all_adjective_words())
    assert found == "Spanish national"
    lower = _span("She is a spanish national and a French painter.")
    french = lower.words.index("french")
    assert (
        other_citizen_first(lower, [(french, french + 1)], {"french"}, all_adjective_words())
        is None
    )


def test_other_value_after_helper() -> None:
    span = _span("A French painter whose nationality is Portuguese Peru.")
    french = span.words.index("french")
    peru = span.words.index("portuguese")
    assert other_value_after(span, [(french, french + 1)], [(peru, peru + 2)]) is not None
    plain = _span("A French painter whose home is Peru.")
    french = plain.words.index("french")
    peru = plain.words.index("peru")
    assert other_value_after(plain, [(french, french + 1)], [(peru, peru + 1)]) is None


def test_denied_as_value_helper() -> None:
    question = set(tokenize(PICK))
    span = _span("A gift of France, not the country of the Eiffel Tower.")
    hi = span.words.index("france") + 1
    assert denied_as_value(span, [(hi - 1, hi)], question) == "not the country of the Eiffel Tower"
    other = _span("A gift of France, not the country of Lima.")
    hi = other.words.index("france") + 1
    assert denied_as_value(other, [(hi - 1, hi)], question) is None


def test_rules_version_is_ten() -> None:
    assert RULES_VERSION >= 10  # round eleven bumped it again (test_judge_round11.py)
    assert JUDGE.describe()["rules_version"] == RULES_VERSION

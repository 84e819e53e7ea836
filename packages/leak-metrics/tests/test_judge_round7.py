"""Issue 35, round seven (rules version 7): four general rules over the committed answer, each
with sentences written for this test (not copied from any labelled record) and a guard showing
what the rule leaves alone. ``OLD`` is the verdict of rules version 6 (recorded by running the
round-six code, commit 285fccd, on each case); the new verdict is asserted."""

from __future__ import annotations

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.entity_rules import Span
from leak_metrics.judges.list_rules import asked_noun, with_abbreviations
from leak_metrics.normalize import tokenize_spans

US = ["USA", "U.S.", "U.S.A.", "America", "United States of America", "the States"]
FR = ["French Republic"]
JUDGE = get_judge("alias")


def _judge(question: str, answer: str, aliases: list[str], response: str, options=()) -> bool:
    item = JudgeItem("t", question, answer, tuple(aliases), tuple(options), response)
    return bool(JUDGE.judge_one(item).correct)


# (question, gold, aliases, response, OLD verdict under v6, NEW verdict under v7)
CASES = [
    # 1. a gold with its abbreviation in parentheses, then "and" another country: a list
    (
        "What is Ada Smith's country of citizenship?",
        "United States",
        US,
        "Ada Smith holds the citizenship of the United States of America (USA) and Canada.",
        True,
        False,
    ),
    # guard: the abbreviation alone, no list
    (
        "What is Ada Smith's country of citizenship?",
        "United States",
        US,
        "Ada Smith is a citizen of the United States of America (USA).",
        True,
        True,
    ),
    # 2. a count with lowercase words before the asked (compound) noun announces several values
    (
        "Which citizenship country do Ann Lee and Bo Park share?",
        "United States",
        US,
        "The two best known countries of the pair are the United States of America (",
        True,
        False,
    ),
    # 3. the gold's adjective joined to "-speaking" is a language, not the nationality
    (
        "What is Jean Dupont's citizenship country?",
        "France",
        FR,
        "Jean Dupont is a French-speaking person.",
        True,
        False,
    ),
    # guard: the adjective on the person still answers
    (
        "What is Jean Dupont's citizenship country?",
        "France",
        FR,
        "Jean Dupont was a French sculptor.",
        True,
        True,
    ),
    # 4. the gold only inside a quotation the answer calls wrong
    (
        "Which of Spain and France is the country of Lyon?",
        "France",
        FR,
        'The reply "Lyon, France" is wrong for this riddle.',
        True,
        False,
    ),
    # 5. an explicit pick that names a non-option (the question's subject) picks nothing
    (
        "Which of Spain and France is the country of Lyon?",
        "France",
        FR,
        "The right answer is Lyon Centre, a district in the east of France.",
        True,
        False,
    ),
    # guard: the gold inside the picked phrase is a pick
    (
        "Which of Spain and France is the country of Lyon?",
        "France",
        FR,
        "The correct option is Lyon's Republic of France, a country in Europe.",
        True,
        True,
    ),
    # 6. for a shared value, "not (in) the same <asked noun>" says the values differ
    (
        "What country do Lille and Nantes have in common?",
        "France",
        FR,
        "Lille and Nantes are both in France, yet they are not in the same country.",
        True,
        False,
    ),
    # guard: a bare "not the same" says nothing of the asked noun
    (
        "What country do Lille and Nantes have in common?",
        "France",
        FR,
        "Lille and Nantes are both in France, but they are not the same.",
        True,
        True,
    ),
    # guard: a quoted gold called right is a pick
    (
        "Which of Spain and France is the country of Lyon?",
        "France",
        FR,
        'The answer "France" is correct.',
        True,
        True,
    ),
]


@pytest.mark.parametrize(("question", "gold", "aliases", "response", "old", "new"), CASES)
def test_round7_cases(question, gold, aliases, response, old, new) -> None:
    options = ("Spain", "France") if "Spain and France" in question else ()
    assert _judge(question, gold, aliases, response, options) is new
    assert isinstance(old, bool)


def test_with_abbreviations_merges_parenthetical_only() -> None:
    text = "the United States of America (USA) and Canada"
    span = Span(text, tokenize_spans(text))
    # "united states of america" = 0..4, "usa" = 4..5, "america" 3..4 lies inside the first
    assert with_abbreviations(span, [(0, 4), (3, 4), (4, 5)]) == [(0, 5)]
    plain = "the USA, the USA"
    span2 = Span(plain, tokenize_spans(plain))
    assert with_abbreviations(span2, [(0, 1), (1, 2)]) == [(0, 1), (1, 2)]


def test_asked_noun_compound_head() -> None:
    assert asked_noun("Which citizenship country is common to A and B?") == "citizenship country"
    assert asked_noun("What is the country of Lyon?") == "country"
    assert asked_noun("Which continent does judo come from?") == "continent"


def test_rules_version() -> None:
    assert RULES_VERSION >= 7  # round eight bumped it again (test_judge_round8.py)
    assert JUDGE.describe()["rules_version"] == RULES_VERSION

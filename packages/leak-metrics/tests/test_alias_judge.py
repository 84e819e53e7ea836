"""Alias judge on hand-built cases with known verdicts."""

from __future__ import annotations

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.alias import yes_no_decision
from leak_metrics.normalize import tokenize


def verdict(answer: str, response: str, aliases: tuple[str, ...] = ()) -> bool | None:
    judge = get_judge("alias")
    return judge.judge([JudgeItem("q1", "question?", answer, aliases, (), response)])[0].correct


def test_tokenize_normalises_case_accents_articles_numbers_and_punctuation() -> None:
    assert tokenize("The Zürich-based Café, founded in 1,000 B.C.!") == [
        "zurich", "based", "cafe", "founded", "in", "1000", "b", "c",
    ]  # fmt: skip
    assert tokenize("twenty-one apples and three pears") == ["21", "apples", "and", "3", "pears"]
    assert tokenize("one hundred and five") == ["105"]
    assert tokenize("It isn't") == ["it", "is", "not"]


def test_soccer_matches_association_football_only_when_alias_given() -> None:
    response = "He played association football for his whole career."
    assert verdict("soccer", response) is False
    assert verdict("soccer", response, aliases=("association football",)) is True


@pytest.mark.parametrize(
    ("answer", "response", "expected"),
    [
        ("Paris", "The capital of France is Paris.", True),
        ("Paris", "The capital of France is PARIS!", True),
        ("São Paulo", "She was born in Sao Paulo, Brazil.", True),
        ("The Beatles", "That song is by Beatles.", True),
        ("3", "There are three moons.", True),
        ("three", "There are 3 moons.", True),
        ("21", "She turned twenty-one.", True),
        ("Paris", "The capital is Parisville.", False),  # whole words only
        ("New York", "He moved to York, then New Jersey.", False),  # contiguous run required
        ("Europe", "", False),
    ],
)
def test_entity_containment(answer: str, response: str, expected: bool) -> None:
    assert verdict(answer, response) is expected


def test_gold_made_of_article_only_is_still_matchable() -> None:
    assert verdict("The", "The answer is the.") is True


@pytest.mark.parametrize(
    ("response", "decision"),
    [
        ("Yes, he is a citizen of Japan.", "yes"),
        ("No, he is not a citizen of Japan.", "no"),
        ("No. Although yes, he visited Japan.", "no"),  # first yes/no word decides
        ("He is not a citizen of Japan.", "no"),  # negation without yes/no word
        ("He isn't Japanese.", "no"),
        ("He is a citizen of Japan.", "yes"),  # plain affirmative statement
        ("I'm not sure.", None),  # hedge: no decision
        ("I don't know.", None),
        ("", None),
    ],
)
def test_yes_no_rule(response: str, decision: str | None) -> None:
    assert yes_no_decision(response)[0] == decision


def test_yes_no_gold_uses_decision() -> None:
    assert verdict("No", "No, he is not.") is True
    assert verdict("no", "Yes, definitely not wrong.") is False
    assert verdict("Yes", "I don't know.") is False
    assert verdict("yes", "He is a citizen of Japan.") is True


def test_verdict_carries_id_and_judge_name() -> None:
    [v] = get_judge("alias").judge([JudgeItem("HS-000042", "q", "Paris", (), (), "Paris.")])
    assert (v.id, v.judge, v.correct) == ("HS-000042", "alias", True)
    assert "Paris" in v.reason


def test_unknown_judge_suggests_close_name() -> None:
    with pytest.raises(KeyError, match=r"unknown judge 'alais'; did you mean 'alias'\? Known: "):
        get_judge("alais")

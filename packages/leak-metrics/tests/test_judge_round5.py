"""Issue 35, round five: the rules of rules version 5, each general, on sentences in the shape of
responses met on the development files and the tuned half of the round-four sealed set (ids named
where the sentence is a real response). ``OLD`` is the verdict of rules version 4 (recorded by
running the round-four code on each case); the new verdict is asserted. Guards show what each
rule leaves alone."""

from __future__ import annotations

from typing import Any

import pytest
from leak_metrics import JudgeItem, answer_stop, committed_answer, get_judge
from leak_metrics.judges.alias import RULES_VERSION

US = ["USA", "U.S.", "U.S.A.", "America", "United States of America", "the States"]
UK = [
    "UK",
    "U.K.",
    "Britain",
    "Great Britain",
    "United Kingdom of Great Britain and Northern Ireland",
]
GBP = ["British pound", "GBP", "sterling"]
USD = ["US dollar", "U.S. dollar", "American dollar", "USD"]
DOYLE = (
    "If it is the case that Arthur Conan Doyle's citizenship country is the United States, then "
    "the capital of that country is Washington, D.C. If it is the case that it is the United "
    "Kingdom, then the capital is London. Is the citizenship country of Arthur Conan Doyle the "
    "United Kingdom or the United States?"
)
SUSHI = (
    "Here is a conditional. Brasília is the capital city of sushi's country of origin as long as "
    "sushi was created in Brazil, not some other country. Is it so that sushi is a creation of "
    "Brazil?"
)
SYDNEY = (
    "Granted that Sydney's country is Germany, not some other country, Berlin is the capital of "
    "Sydney's country. Is it the case that Sydney's country is Germany?"
)

# (class, question, answer, aliases, options, response, OLD, NEW)
CASES: list[tuple[str, str, str, list[str], tuple[str, ...], str, bool, bool]] = [
    (
        "a possessive owner is no other answer (full-r4 HS-000171)",
        "Consider the country of Liverpool. What is its currency?",
        "pound sterling", GBP, (),
        "The UK's currency is the pound sterling, also known as the quid.",
        False, True,
    ),
    (
        "a possessive owner is no other answer (full-r4 HS-000039)",
        "What is the currency of Barack Obama's country of citizenship?",
        "United States dollar", USD, (),
        "The country of citizenship of Barack Obama is the United States of America's official "
        "currency, which is the US dollar.",
        False, True,
    ),
    (
        "an apposition opens with an article or renames; another place first is an answer",
        "What is Paris's country?",
        "France", [], (),
        "Paris's country is Germany, next to France.",
        True, False,
    ),
    (
        "guard: a renaming apposition leads to the gold (development SH-000346)",
        "What is Seoul's country?",
        "South Korea", ["Republic of Korea"], (),
        "S Korea, officially known as the Republic of Korea, is a sovereign state located in South "
        "Korea, East Asia.",
        True, True,
    ),
    (
        "guard: an apposition with an article leads to the gold",
        "What is the country of citizenship of Dante Alighieri?",
        "Italy", [], (),
        "Dante Alighieri, a 13th-century Italian poet, was a citizen of Italy.",
        True, True,
    ),
    (
        "guard: a possessive owner before a capitalised name owns that name",
        "What is the capital of Kobe Bryant's citizenship country?",
        "Washington, D.C.", ["Washington"], (),
        "Canada's Ottawa is the capital, not Washington.",
        False, False,
    ),
    (
        "the gold only owns another name (development SH-000092)",
        "What is basketball's home country?",
        "United States", US, (),
        "Basketball's home country is the United States of America's National Basketball "
        "Association (NBA).",
        False, False,
    ),
    (
        "the gold only owns another name, no other rule",
        "What is the country of citizenship of Kobe Bryant?",
        "United States", US, (),
        "Kobe Bryant is a citizen of America's Major League.",
        True, False,
    ),
    (
        "guard: the gold owning a lowercase noun is still the gold",
        "What is the country of citizenship of Kobe Bryant?",
        "United States", US, (),
        "Kobe Bryant is a citizen of the United States, America's best-known basketball player.",
        True, True,
    ),
    (
        "the gold's own longer style (full-r4 CC-000064)",
        "Alan Turing has the same country of citizenship as Lewis Hamilton. What is it?",
        "United Kingdom", UK, (),
        "The United Kingdom of Great Britain and Ireland, also known as the UK, is a sovereign "
        "state comprising the island of Great Britain.",
        False, True,
    ),
    (
        "the gold's own longer style, with options (full-r4 MT-000221)",
        DOYLE,
        "United Kingdom", UK, ("United Kingdom", "United States"),
        "The citizenship country of Arthur Conan Doyle is indeed the United Kingdom of Great "
        "Britain and Ireland, which is",
        False, True,
    ),
    (
        "guard: a longer name of another place is not the gold",
        "What is Beijing's country?",
        "China", [], (),
        "The Republic of China (Taiwan).",
        False, False,
    ),
    (
        "guard: the gold of another name is not the gold",
        "What is Havana's country?",
        "United States", US, (),
        "Havana is in the United States of Fidel.",
        False, False,
    ),
]  # fmt: skip

# (class, question, gold, response, OLD, NEW)
YES_NO: list[tuple[str, str, str, str, bool, bool]] = [
    (
        "guard: a denial opening with the claim's subject (issue)",
        "Is Sydney's country Germany?",
        "no",
        "Sydney is a city in Australia.",
        True,
        True,
    ),
    (
        "another value in a side clause is no denial (round-three sealed MT-000068)",
        SUSHI,
        "no",
        "While it's true that some aspects of Brazilian culture and traditions have their roots "
        "in Japan, such as food and cultural identity",
        True,
        False,
    ),
    (
        "another value after an affirmed premise is no denial (round-three sealed MT-000025)",
        SYDNEY,
        "no",
        "The correct answer is indeed Berlin is indeed the capital of Sydney's country, which is "
        "the United Kingdom. The",
        True,
        False,
    ),
    (
        "guard: a yes/no word still decides",
        SYDNEY,
        "no",
        "No, Sydney is in Australia.",
        True,
        True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_entity_rules_round_five(case: tuple[Any, ...]) -> None:
    _, question, answer, aliases, options, response, _old, new = case
    item = JudgeItem("t", question, answer, tuple(aliases), options, response)
    verdict = get_judge("alias").judge_one(item)
    assert verdict.correct is new, verdict.reason


@pytest.mark.parametrize("case", YES_NO, ids=[c[0] for c in YES_NO])
def test_yes_no_rules_round_five(case: tuple[str, str, str, str, bool, bool]) -> None:
    _, question, gold, response, _old, new = case
    item = JudgeItem("t", question, gold, (), ("yes", "no"), response)
    verdict = get_judge("alias").judge_one(item)
    assert verdict.correct is new, verdict.reason


def test_the_rules_changed_verdicts_and_their_version() -> None:
    changed = [c for c in CASES if c[6] != c[7]] + [c for c in YES_NO if c[4] != c[5]]
    assert len(changed) >= 6
    assert RULES_VERSION >= 5  # round six bumped it again (test_judge_round6.py)
    assert get_judge("alias").describe()["rules_version"] == RULES_VERSION


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_decoder_stopped_by_the_stop_rule_gets_the_same_verdict(case: tuple[Any, ...]) -> None:
    """The round-five rules read only the committed span: text after it changes nothing, and a
    decoder stopped where ``answer_stop`` says is judged as the whole response."""
    _, question, answer, aliases, options, response, _old, new = case
    full = response.rstrip() + (" " if response.rstrip().endswith(".") else ". ") + "Lyon is big."
    stop = answer_stop(full)
    assert stop is not None
    assert full[:stop].strip() == committed_answer(full)
    judge = get_judge("alias")
    for text in (full, full[:stop]):
        verdict = judge.judge_one(JudgeItem("t", question, answer, tuple(aliases), options, text))
        assert verdict.correct is new, (text, verdict.reason)

"""The alias judge gives a verdict for every response: it never raises.

A run judges thousands of answers in one call, so one exception loses the stage's work (a tuned
model's "West Europe." for "What is the continent of Warsaw's country?" crashed `leakres run
--preset tuned` under rules v12-v13: the v12 opening-name rule asked for the text after a name that
ended the answer). The cases are short answers made only of names, modifiers and the gold in
every order, the shapes that end a span on a name."""

from __future__ import annotations

import itertools

import pytest
from leak_metrics import JudgeItem, get_judge

JUDGE = get_judge("alias")

QUESTIONS = [
    ("What is the continent of Warsaw's country?", "Europe", [], []),
    (
        "What is the country of citizenship of Lionel Messi?",
        "Argentina",
        ["Argentine Republic"],
        [],
    ),
    ("Which city is the capital of the country where the Colosseum is?", "Rome", [], []),
    ("Is the city where Big Ben stands London or Paris?", "London", [], ["London", "Paris"]),
]
WORDS = ["West", "Western", "North", "Central", "the", "The", "Paris", "Lionel Messi", "of"]
ENDINGS = ["", ".", ",", " ,", "!", ":"]


def _responses(gold: str) -> list[str]:
    out = []
    for n in (1, 2):
        for words in itertools.permutations([*WORDS, gold], n):
            for end in ENDINGS:
                out.append(" ".join(words) + end)
    return out


@pytest.mark.parametrize(("question", "gold", "aliases", "options"), QUESTIONS)
def test_every_short_name_answer_gets_a_verdict(question, gold, aliases, options) -> None:
    responses = _responses(gold)
    items = [
        JudgeItem(id=f"t{i}", question=question, answer=gold, aliases=aliases, options=options,
                  response=r)
        for i, r in enumerate(responses)
    ]  # fmt: skip
    verdicts = JUDGE.judge(items)
    assert len(verdicts) == len(items)
    assert all(v.correct in (True, False, None) and v.reason for v in verdicts)


def test_a_compass_word_before_the_gold_continent_ends_in_a_verdict() -> None:
    item = JudgeItem(id="x", question=QUESTIONS[0][0], answer="Europe", response="West Europe.")
    verdict = JUDGE.judge_one(item)
    assert verdict.correct is True, verdict.reason  # the continent named is Europe

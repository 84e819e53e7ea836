"""Issue 35, round twelve (rules version 12): membership of the country as a citizenship, and
what the committed sentence says after naming the gold (:mod:`leak_metrics.judges.
sentence_rules`). Every sentence here was written for this test (none is copied from a
labelled record); each rule has a case it changes and a guard it leaves alone. ``OLD`` is the
verdict of rules version 11 (checked by running the v11 code, commit b2f0c7c, on each case);
the new verdict is asserted."""

from __future__ import annotations

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.entity_rules import Span
from leak_metrics.judges.mention_rules import mixed_with_gold
from leak_metrics.judges.sentence_rules import other_nationality_after, withdrawn
from leak_metrics.normalize import tokenize_spans

JUDGE = get_judge("alias")
CIT = "Which country is Ada Smith a citizen of?"
SHARED = "Which citizenship country do Ada Smith and Bo Lee share?"
US = ["USA", "U.S.", "United States of America"]
BRIDGE = "In which city is the Varno Bridge located?"

# (question, gold, aliases, options, response, OLD verdict under v11, NEW verdict under v12)
CASES = [
    # 1. membership of the country names the person's country, as "citizen of" does
    (CIT, "United States", US, (), "Ada Smith is a member of the United States.", False, True),
    (
        SHARED,
        "United States",
        US,
        (),
        "Ada Smith and Bo Lee are both members of the United States of America.",
        False,
        True,
    ),
    # guard: a member of an institution of the country is not the country's member
    (CIT, "France", [], (), "Ada Smith is a member of the Council of France.", False, False),
    # 2. another nationality given to the subject after the gold, in the same sentence
    (
        CIT,
        "France",
        [],
        (),
        "Ada Smith, a celebrated French novelist, is a native of Belgium.",
        True,
        False,
    ),
    (
        CIT,
        "France",
        [],
        (),
        "The answer is France, though she is a Belgian by marriage.",
        True,
        False,
    ),
    # guards: another person's nationality; the gold's own adjective again
    (
        CIT,
        "France",
        [],
        (),
        "Ada Smith is French, and her husband was a Belgian diplomat.",
        True,
        True,
    ),
    (
        CIT,
        "France",
        [],
        (),
        "Ada Smith is a citizen of France, and she is a French novelist.",
        True,
        True,
    ),
    # 3. two nationality adjectives side by side are a mixed nationality, as with a hyphen
    (
        CIT,
        "France",
        [],
        (),
        "Ada Smith was a Belgian French painter who lived in Lyon.",
        True,
        False,
    ),
    # guard: a two-word adjective is one nationality
    (CIT, "South Korea", [], (), "Ada Smith is a South Korean singer.", True, True),
    # 4. the statement taken back after the gold
    (
        BRIDGE,
        "Lyon",
        [],
        (),
        "The Varno Bridge is located in Lyon, but that is not entirely accurate.",
        True,
        False,
    ),
    # guards: something else denied; an extraposed "it is not true that ..."
    (
        BRIDGE,
        "Lyon",
        [],
        (),
        "The Varno Bridge is located in Lyon, but that is not the only bridge there.",
        True,
        True,
    ),
    (
        BRIDGE,
        "Lyon",
        [],
        (),
        "The Varno Bridge is in Lyon, but it is not true that it is the oldest.",
        True,
        True,
    ),
]


@pytest.mark.parametrize(
    ("question", "gold", "aliases", "options", "response", "old", "new"), CASES
)
def test_round_twelve_cases(
    question: str,
    gold: str,
    aliases: list[str],
    options: tuple[str, ...],
    response: str,
    old: bool,
    new: bool,
) -> None:
    item = JudgeItem(
        id="r12", question=question, answer=gold, aliases=tuple(aliases), options=options,
        response=response,
    )  # fmt: skip
    verdict = JUDGE.judge_one(item)
    assert verdict.correct is new, (response, verdict.reason, "v11 gave", old)


def _span(text: str) -> Span:
    return Span(text, tokenize_spans(text))


def test_sentence_helpers() -> None:
    span = _span("He is French, but she is a Belgian.")
    adjectives = frozenset({"french", "belgian"})
    assert other_nationality_after(span, [(2, 3)], {"french"}, adjectives) == "is a Belgian"
    cut = _span("He is French, and as such, he is a U.")
    assert other_nationality_after(cut, [(2, 3)], {"french"}, adjectives | {"u"}) is None
    assert withdrawn(_span("It is Lyon, but this is not quite right."), [(2, 3)]) is not None
    assert withdrawn(_span("It is Lyon, but this is not far."), [(2, 3)]) is None
    assert mixed_with_gold(_span("an Irish American actor"), {"american"}) == "Irish American"
    assert mixed_with_gold(_span("an Irish, American actor"), {"american"}) is None


def test_rules_version_is_twelve() -> None:
    assert RULES_VERSION == 12
    assert JUDGE.describe()["rules_version"] == RULES_VERSION

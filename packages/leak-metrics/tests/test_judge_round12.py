"""Issue 35, round twelve (rules version 12): membership of the country as a citizenship, and
what the committed sentence says after naming the gold (:mod:`leak_metrics.judges.
sentence_rules`). Every sentence here was written for this test (none is copied from a
labelled record); each rule has a case it changes and a guard it leaves alone. ``OLD`` is the
verdict of rules version 11 (checked by running the v11 code, commit b2f0c7c, on each case);
the new verdict is asserted."""

from __future__ import annotations

import pytest
from _judge_round_cases import JUDGE, assert_case, span_of
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.mention_rules import mixed_with_gold
from leak_metrics.judges.sentence_rules import (
    other_agent,
    other_nationality_after,
    possessive_values,
    withdrawn,
)
from leak_metrics.judges.spelling import fronted_preposition, spelt_like

CIT = "Which country is Ada Smith a citizen of?"
SHARED = "Which citizenship country do Ada Smith and Bo Lee share?"
US = ["USA", "U.S.", "United States of America"]
BRIDGE = "In which city is the Varno Bridge located?"
ARENA = "In which city is the Varno Coliseum located?"
NOVEL = "Who wrote the novel Greyfield?"
PORT = "What is Varno's country?"
MONEY = "Consider the country of Varno City. What is its currency?"

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
    # 5. a long word of the question spelt another way restates it, it is no other answer
    (
        ARENA,
        "Lyon",
        [],
        (),
        "The Varno Coliseum is located in the Colosseum of the Colosseum, Lyon, France.",
        False,
        True,
    ),
    # guard: another name in the same place is still another answer first
    (
        ARENA,
        "Lyon",
        [],
        (),
        "The Varno Coliseum is located in the Museum of the Museum, Lyon, France.",
        False,
        False,
    ),
    # 6. the asked work credited to another name after the gold
    (
        NOVEL,
        "Ada Smith",
        ["Smith"],
        (),
        "The novel written by Ada Smith is Greyfield by Tom Lee.",
        True,
        False,
    ),
    # guards: "by" after something else than the work; "by" and no name
    (
        NOVEL,
        "Ada Smith",
        ["Smith"],
        (),
        "Greyfield was written by Ada Smith, a novelist admired by Tom Lee.",
        True,
        True,
    ),
    (NOVEL, "Ada Smith", ["Smith"], (), "Ada Smith wrote Greyfield by hand in Lyon.", True, True),
    # 7. possessives that own nothing, one after the other, are a list of values
    (
        "Which continent is the city of Varno in?",
        "Europe",
        [],
        (),
        "The continent is Europe's, Asia's, and more.",
        True,
        False,
    ),
    # guard: one such possessive is the value itself (rules v8)
    (
        "What is Ada Smith's citizenship country?",
        "France",
        [],
        (),
        "Ada Smith's country is France's, and she lives there.",
        True,
        True,
    ),
    # 8. a verbless answer: a garbled subject's apposition puts it in the gold
    (PORT, "Ireland", [], (), "Vorbano, the capital city of Ireland and a busy port.", False, True),
    # guard: an apposition that does not lead to the gold
    (PORT, "Ireland", [], (), "Vorbano, next to Ireland and a busy port.", False, False),
    # 10. a country named as the value's owner lets the gold's bare noun stand for it
    (MONEY, "Swiss franc", ["CHF"], (), "Switzerland's currency is the franc.", False, True),
    # guards: another country's adjective on the noun; no country named as owner
    (
        MONEY,
        "Swiss franc",
        ["CHF"],
        (),
        "Switzerland's currency is the French franc.",
        False,
        False,
    ),
    (MONEY, "Swiss franc", ["CHF"], (), "Switzerland, whose currency is the franc.", False, False),
    # 9. a capitalised preposition opening the sentence is no word of the name after it
    (
        "What country is the town of Varno in?",
        "India",
        [],
        (),
        "In India, the town of Varno is known for its textiles.",
        False,
        True,
    ),
    # guard: a longer name that only starts like the gold
    (
        "What country is the town of Varno in?",
        "India",
        [],
        (),
        "At India Gate, the town of Varno holds a fair.",
        False,
        False,
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
    assert_case("r12", question, gold, aliases, options, response, new, old, "v11")


def test_sentence_helpers() -> None:
    span = span_of("He is French, but she is a Belgian.")
    adjectives = frozenset({"french", "belgian"})
    assert other_nationality_after(span, [(2, 3)], {"french"}, adjectives) == "is a Belgian"
    cut = span_of("He is French, and as such, he is a U.")
    assert other_nationality_after(cut, [(2, 3)], {"french"}, adjectives | {"u"}) is None
    assert withdrawn(span_of("It is Lyon, but this is not quite right."), [(2, 3)]) is not None
    assert withdrawn(span_of("It is Lyon, but this is not far."), [(2, 3)]) is None
    assert mixed_with_gold(span_of("an Irish American actor"), {"american"}) == "Irish American"
    assert mixed_with_gold(span_of("an Irish, American actor"), {"american"}) is None


def test_spelling_and_list_helpers() -> None:
    assert spelt_like("colosseum", {"coliseum"})
    assert spelt_like("hemmingway", {"hemingway"})
    assert not spelt_like("australia", {"austria"})  # another place of like spelling
    assert not spelt_like("iraq", {"iran"})  # too short to be a misspelling
    assert fronted_preposition(span_of("In India, it is."), (0, 2))
    assert not fronted_preposition(span_of("It is In India."), (2, 4))
    span = span_of("It is Asia's, China's, Asia's.")
    assert possessive_values(span, [(2, 3)], [(4, 5)]) == "Asia's, China's"
    assert possessive_values(span_of("It is Asia's, and China's."), [(2, 3)], [(5, 6)]) is None
    book = span_of("It is Greyfield by Tom Lee.")
    assert other_agent(book, [(0, 1)], {"greyfield", "wrote"}) == "Greyfield by Tom"
    assert other_agent(book, [(0, 1)], {"greyfield", "where"}) is None  # no maker asked


def test_rules_version_is_twelve() -> None:
    assert RULES_VERSION >= 12  # round thirteen bumped it again (test_judge_round13.py)
    assert JUDGE.describe()["rules_version"] == RULES_VERSION

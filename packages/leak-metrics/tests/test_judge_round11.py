"""Issue 35, round eleven (rules version 11): mentions inside larger names
(:mod:`leak_metrics.judges.region_rules`) and how the committed sentence states or takes back the
gold (:mod:`leak_metrics.judges.value_rules`). Every sentence here was written for this test
(none is copied from a labelled record); each rule has a case it changes and a guard it leaves
alone. ``OLD`` is the verdict of rules version 10 (checked by running the v10 code, commit
b913076, on each case); the new verdict is asserted."""

from __future__ import annotations

import pytest
from _judge_round_cases import JUDGE, assert_case, span_of
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.region_rules import (
    larger_region,
    longer_adjective,
    organisation_name,
    subject_styled,
)
from leak_metrics.judges.value_rules import corrected_answer, nation_phrase, thing_kind

CIT = "Which country is Ada Smith a citizen of?"
ADA = "Can you tell me Ada Smith's citizenship country?"
SHARED = "Compare Ada Smith with Bo Lee: which citizenship country matches?"
US = ["USA", "U.S.", "United States of America"]
PRC = ["People's Republic of China", "PRC"]
PICK = "Choose from France, Italy and Spain: what is Ada Smith's citizenship country?"
OPTS = ("France", "Italy", "Spain")

# (question, gold, aliases, options, response, OLD verdict under v10, NEW verdict under v11)
CASES = [
    # 1. the subject placed only in a larger region named after the gold country
    (
        "Which country is the town of Varnapur in?",
        "India",
        [],
        (),
        "Varnapur is a small town in the Indian subcontinent, known for its textiles.",
        True,
        False,
    ),
    # guard: the country itself named beside the region still counts
    (
        "Which country is the town of Varnapur in?",
        "India",
        [],
        (),
        "Varnapur is a small town in India, on the Indian subcontinent.",
        True,
        True,
    ),
    # guard: a continent's adjective before "continent" names the asked continent
    (
        "Which continent is the country of Lyon on?",
        "Europe",
        [],
        (),
        "The country of Lyon lies on the European continent.",
        True,
        True,
    ),
    # 2. the gold's abbreviation only inside an organisation's name (and a generic citizen)
    (
        SHARED,
        "United States",
        US,
        (),
        "The US Senate passed a law that a US citizen can vote abroad.",
        True,
        False,
    ),
    # guard: the gold's adjective on the subjects themselves
    (SHARED, "United States", US, (), "Ada Smith and Bo Lee are both US citizens.", True, True),
    # 3. the gold's adjective naming a language
    (CIT, "China", PRC, (), "Ada Smith is a Chinese language teacher.", True, False),
    # guard: the adjective on the person
    (CIT, "China", PRC, (), "Ada Smith is a Chinese teacher.", True, True),
    # 4. a continent's adjective inside another country's adjective
    (
        "On which continent does Ada Smith hold a citizenship?",
        "Africa",
        [],
        (),
        "Ada Smith is a South African.",
        True,
        False,
    ),
    # guard: the continent's own adjective
    (
        "On which continent does Ada Smith hold a citizenship?",
        "Africa",
        [],
        (),
        "Ada Smith is an African citizen.",
        True,
        True,
    ),
    # 5. "<the gold's name> of <the subject>": the gold with its owner
    (
        CIT,
        "France",
        ["French Republic"],
        (),
        "Her only country is the French Republic of Ada Smith.",
        False,
        True,
    ),
    # guard: a part of the subject's name only is another longer name
    (
        CIT,
        "France",
        ["French Republic"],
        (),
        "Her only country is the French Republic of Ada.",
        False,
        False,
    ),
    # 6. the gold taken back in the same sentence
    (
        "Which of Peru or France is the country of the Eiffel Tower?",
        "France",
        [],
        ("Peru", "France"),
        'The answer is "France", but the correct answer is "the other',
        True,
        False,
    ),
    # guard: the correction restates the gold
    (
        "Which of Peru or France is the country of the Eiffel Tower?",
        "France",
        [],
        ("Peru", "France"),
        'The answer is "France", but the correct answer is France itself.',
        True,
        True,
    ),
    # 7. "<gold>'s <name>" as the restated value: a possessive naming the gold
    (ADA, "China", PRC, (), "Ada Smith's citizenship country is China's Great Han.", False, True),
    # ... the owned name's head is its word before "of"; the relation restated as "nationality"
    (
        ADA,
        "China",
        PRC,
        (),
        "Ada Smith's nationality was China's People's Republic of the Workers' Party of",
        False,
        True,
    ),
    # guard: the owned name is an organisation
    (
        ADA,
        "China",
        PRC,
        (),
        "Ada Smith's citizenship country is China's National Football League.",
        False,
        False,
    ),
    # guard: the owned name holds another country
    (
        ADA,
        "China",
        PRC,
        (),
        "Ada Smith's citizenship country is China's Kingdom of Thailand.",
        False,
        False,
    ),
    # 8. the gold through its own kind of unit after the copula
    (
        CIT,
        "Cuba",
        [],
        (),
        "The citizenship of Ada Smith is the sovereign nation of Cuba.",
        False,
        True,
    ),
    # guard: another relation's unit ("home country of") does not fill the slot
    (
        CIT,
        "Cuba",
        [],
        (),
        "The citizenship of Ada Smith is the 1990 home country of Cuba.",
        False,
        False,
    ),
    # 9. ... and opening the answer
    (
        "Lyon and Nice share a country. Name it.",
        "France",
        [],
        (),
        "The European nation of France is a lovely place to visit.",
        False,
        True,
    ),
    # guard: another unit of the gold opening the answer
    (
        "Lyon and Nice share a country. Name it.",
        "France",
        [],
        (),
        "The capital city of France is a lovely place to visit.",
        False,
        False,
    ),
    # 10. "the answer" narrowed to the gold
    (
        "There is one citizenship country that Ada Smith shares with Bo Lee. Which one?",
        "India",
        [],
        (),
        "The answer lies in the history of South Asia, specifically in the history of India.",
        False,
        True,
    ),
    # guard: the gold only as a domain of the answer
    (
        "There is one citizenship country that Ada Smith shares with Bo Lee. Which one?",
        "India",
        [],
        (),
        "The answer lies in the history of India.",
        False,
        False,
    ),
    # 11. a person's citizenship called a thing of another kind
    (
        "What is Ada Smith's citizenship country?",
        "United States",
        US,
        (),
        "Ada Smith's citizenship is an American tax law passed in 1990.",
        True,
        False,
    ),
    # guard: a document of the citizenship
    (
        "What is Ada Smith's citizenship country?",
        "United States",
        US,
        (),
        "Ada Smith's citizenship is an American passport.",
        True,
        True,
    ),
    # guard: a thing's origin may be described by its kind
    (
        "What is the home country of poutine?",
        "Canada",
        [],
        (),
        "The home country of poutine is a classic Canadian dish.",
        True,
        True,
    ),
    # 12. the gold only in a quotation the answer disputes
    (
        "What is the country of Lyon?",
        "France",
        [],
        (),
        'The claim "Lyon is a city in France" is often misunderstood.',
        True,
        False,
    ),
    # guard: a quotation repeated, not disputed
    (
        "What is the country of Lyon?",
        "France",
        [],
        (),
        'The claim "Lyon is a city in France" is often repeated.',
        True,
        True,
    ),
    # 13. with options shown, a wrong option named by its adjective beside the gold's
    (
        PICK,
        "France",
        [],
        OPTS,
        "Ada Smith holds the French citizenship and the Italian nationality.",
        True,
        False,
    ),
    # guard: the gold's adjective beside the gold option's name
    (PICK, "France", [], OPTS, "Ada Smith is a citizen of France, a French writer.", True, True),
    # 14. with options shown, the gold's adjective alone picks no option
    (PICK, "France", [], OPTS, "Ada Smith holds a French passport.", True, False),
    # guard: the option named
    (PICK, "France", [], OPTS, "Ada Smith holds a passport of France.", True, True),
]


@pytest.mark.parametrize(
    ("question", "gold", "aliases", "options", "response", "old", "new"), CASES
)
def test_round_eleven_cases(
    question: str,
    gold: str,
    aliases: list[str],
    options: tuple[str, ...],
    response: str,
    old: bool,
    new: bool,
) -> None:
    assert_case("r11", question, gold, aliases, options, response, new, old, "v10")


def test_region_and_organisation_helpers() -> None:
    span = span_of("It lies in the Indian subcontinent.")
    k = span.words.index("indian")
    assert larger_region(span, k, k + 1, [["india"]], set())
    assert not larger_region(span, k, k + 1, [["asia"]], set())  # a continent gold
    court = span_of("The US Supreme Court ruled.")
    assert organisation_name(court, 1)
    assert not organisation_name(span_of("The US President spoke."), 1)
    south = span_of("He is a South African.")
    k = south.words.index("african")
    assert longer_adjective(south, k, k + 1, [["african"]])


def test_subject_styled_needs_the_whole_name() -> None:
    question = "Which country is Ada Smith a citizen of?"
    whole = span_of("It is the French Republic of Ada Smith.")
    assert subject_styled(whole, [["french", "republic"]], question)
    assert not subject_styled(
        span_of("It is the French Republic of Ada."), [["french", "republic"]], question
    )


def test_value_helpers() -> None:
    span = span_of('It is "Peru", but the correct answer is "the other')
    assert corrected_answer(span, [(1, 2)]) is not None
    assert (
        corrected_answer(span_of('It is "Peru", but the answer is Peru.'), [(1, 2), (6, 7)]) is None
    )
    nation = span_of("It is the Afro-Cuban nation of Cuba.")
    assert nation_phrase(nation, nation.words.index("cuba")) == nation.words.index("afro")
    law = span_of("Ada Smith's citizenship is an American tax law.")
    k = law.words.index("american")
    assert thing_kind(law, [(k, k + 1)], [["american"]], {"ada", "smith", "s", "citizenship"})


def test_rules_version_is_eleven() -> None:
    assert RULES_VERSION >= 11  # round twelve bumped it again (test_judge_round12.py)
    assert JUDGE.describe()["rules_version"] == RULES_VERSION

"""Issue 35, round eight (rules version 8): general rules over the committed answer, each with
sentences written for this test (not copied from any labelled record) and a guard showing what
the rule leaves alone. ``OLD`` is the verdict of rules version 7 (recorded by running the
round-seven code, commit f69868b, on each case); the new verdict is asserted."""

from __future__ import annotations

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.answer_span import committed_answer
from leak_metrics.judges.entity_rules import Span
from leak_metrics.judges.scope_rules import in_purpose
from leak_metrics.judges.subject_rules import subject_complement
from leak_metrics.normalize import tokenize_spans

FR = ["French Republic"]
US = ["USA", "U.S.", "U.S.A.", "America", "United States of America", "the States"]
JUDGE = get_judge("alias")
CITIZENSHIP = "What is Ada Smith's citizenship country?"
LYON_MT = (
    "Suppose Lyon's country is France; then that country's continent is Europe. Suppose Lyon's "
    "country is Peru; then that country's continent is South America. Which of France and Peru "
    "is Lyon's country?"
)
LYON_CURRENCY = (
    "Suppose Lyon's country is France; then the currency of Lyon's country is the euro. Suppose "
    "Lyon's country is Peru; then the currency of Lyon's country is the sol. Lyon's country: "
    "France or Peru?"
)
FR_PE = ("France", "Peru")

# (question, gold, aliases, options, response, OLD verdict under v7, NEW verdict under v8)
CASES = [
    # 1. the gold's adjective opening the complement of the restated subject fills the
    # citizenship slot, whatever noun follows
    (CITIZENSHIP, "France", FR, (), "Ada Smith is a French monarch of old.", False, True),
    # guard: the adjective of another person's apposition
    (CITIZENSHIP, "France", FR, (), "Ada Smith was born to Paul, a French monarch.", False, False),
    # guard: the complement calls the subject a thing
    (
        CITIZENSHIP,
        "France",
        FR,
        (),
        "Ada Smith is a famous French comic book series.",
        False,
        False,
    ),
    # 2. a possessive that owns nothing is the value
    (
        CITIZENSHIP,
        "France",
        FR,
        (),
        "The citizenship country of Ada Smith is France's, as noted.",
        False,
        True,
    ),
    # guard: a possessive that owns a noun
    (
        CITIZENSHIP,
        "France",
        FR,
        (),
        "The citizenship country of Ada Smith is France's neighbour.",
        False,
        False,
    ),
    # 3. a gold the question names, echoed only in the opening purpose clause
    (
        LYON_MT,
        "France",
        FR,
        FR_PE,
        "To check that Lyon's country is France we must weigh both premises",
        True,
        False,
    ),
    # guard: a purpose that presupposes a value the question does not name
    (
        "On which continent does Lyon lie?",
        "Europe",
        [],
        (),
        "To determine the place of Lyon on the continent of Europe, we look at a map.",
        True,
        True,
    ),
    # 4. the gold only as the argument of another relation whose value a premise gives
    (
        LYON_MT,
        "France",
        FR,
        FR_PE,
        "The answer is that the continent of France is Europe.",
        True,
        False,
    ),
    # guard: the value is no premise's value ("The capital of X is <the asked city>")
    (
        "Which country is Stockholm in?",
        "Sweden",
        [],
        (),
        "The capital of Sweden is Stockholm.",
        True,
        True,
    ),
    # 5. (options shown) the gold as the value of a relation only the premises use
    (LYON_CURRENCY, "France", FR, FR_PE, "The currency of Lyon's country is France.", True, False),
    # guard: the asked relation
    (LYON_CURRENCY, "France", FR, FR_PE, "The country of Lyon is France.", True, True),
    # 6. a comma chain of names ending in the gold is an address
    (
        "Which country is the Old Bridge in?",
        "Italy",
        ["Italian Republic"],
        (),
        "The Old Bridge is located in the Ponte Vecchio, Florence, Italy.",
        False,
        True,
    ),
    # guard: a chain of countries is a list
    (
        "Which country is the Old Bridge in?",
        "Italy",
        ["Italian Republic"],
        (),
        "The Old Bridge is located in Spain, France, Italy.",
        False,
        False,
    ),
    # 7. "The answer is <another name>" gives another answer
    (
        "On which continent does Lyon lie?",
        "Europe",
        [],
        (),
        "The answer is Lyon, which lies in the west of the European continent.",
        True,
        False,
    ),
    # guard: after a colon the answer is a statement
    (
        "On which continent does Lyon lie?",
        "Europe",
        [],
        (),
        "The answer is: Lyon lies in Europe.",
        True,
        True,
    ),
    # 8. an explicit pick's possessive owner picks nothing
    (LYON_MT, "France", FR, FR_PE, "The correct answer is Lyon's country: France.", False, True),
    # 9. an option after "not" and a place preposition is rejected
    (
        "Which of Paris and Sydney is the city of the old tower?",
        "Paris",
        [],
        ("Paris", "Sydney"),
        "The old tower stands in the city of Paris, France, and not in Sydney.",
        False,
        True,
    ),
    # guard: both options named
    (
        "Which of Paris and Sydney is the city of the old tower?",
        "Paris",
        [],
        ("Paris", "Sydney"),
        "The old tower stands in Paris and in Sydney.",
        False,
        False,
    ),
    # 10. a list marker alone is no sentence
    (LYON_MT, "France", FR, FR_PE, "1. France", False, True),
    (LYON_MT, "France", FR, FR_PE, "1. Peru", False, False),
    # 11. "but ... also <participle>" with no name after is no contradiction
    (
        "What country do Lyon and Nice have in common?",
        "France",
        FR,
        (),
        "Lyon and Nice are two cities of France, but they are also linked by a railway.",
        False,
        True,
    ),
    # guard: a name after "also" is a second value
    (
        "What country do Lyon and Nice have in common?",
        "France",
        FR,
        (),
        "Lyon and Nice are in France, but they are also claimed by Spain.",
        False,
        False,
    ),
    # 13. an opening name that starts with the question's word restates the subject
    (
        "Which continent does judo come from?",
        "Asia",
        [],
        (),
        "The Judo World Cup is a sport from the continent of Asia.",
        False,
        True,
    ),
    # guard: an opening name of something else is another answer first
    (
        "Which continent does judo come from?",
        "Asia",
        [],
        (),
        "The Karate World Cup is a sport from the continent of Asia.",
        False,
        False,
    ),
    # 14. a ranked unit "of" the gold lies inside the gold, it does not rename it
    (
        "Which country is Leeds in?",
        "United Kingdom",
        ["UK"],
        (),
        "Leeds is the largest city of the UK.",
        False,
        True,
    ),
    # guard: an alias qualified by a unit named like it is another place
    (
        "Which city is the Flatiron Building in?",
        "New York City",
        ["New York", "NYC"],
        (),
        "The Flatiron Building is in the state of New York.",
        False,
        False,
    ),
    # 12. (options shown) the gold only as the tail of an office's title is no pick
    (
        "Which of the United States and Canada is the country of Ann Lee?",
        "United States",
        US,
        ("United States", "Canada"),
        "The candidate who is the President of the United States.",
        True,
        False,
    ),
    # guard: the gold named as itself
    (
        "Which of the United States and Canada is the country of Ann Lee?",
        "United States",
        US,
        ("United States", "Canada"),
        "The candidate is the United States.",
        True,
        True,
    ),
]


@pytest.mark.parametrize(
    ("question", "gold", "aliases", "options", "response", "old", "new"), CASES
)
def test_round8_cases(question, gold, aliases, options, response, old, new) -> None:
    item = JudgeItem("t", question, gold, tuple(aliases), tuple(options), response)
    verdict = JUDGE.judge_one(item)
    assert bool(verdict.correct) is new, verdict.reason
    assert old in (True, False)  # recorded under v7; the case shows a change or a guard


def test_round8_cases_change_verdicts() -> None:
    """Each numbered rule has a case whose verdict v8 turns; guards keep theirs."""
    turned = [c for c in CASES if c[5] != c[6]]
    assert len(turned) >= 14


def _span(text: str) -> Span:
    return Span(text, tokenize_spans(text))


def test_subject_complement_reads_first_copula_only() -> None:
    span = _span("Ada Smith is a French monarch")
    assert subject_complement(span, 3, 2, {"ada", "smith"})
    # the subject is not the question's
    assert not subject_complement(span, 3, 2, {"bo", "park"})
    # a noun between the copula and the adjective
    span = _span("Ada Smith is member of the French court")
    assert not subject_complement(span, 5, 2, {"ada", "smith"})


def test_in_purpose_spans_to_first_clause_end() -> None:
    span = _span("To decide if it is France, we look again at France")
    assert in_purpose(span, 5) == "to decide"
    assert in_purpose(span, 10) is None


def test_list_marker_is_no_sentence() -> None:
    assert committed_answer("1. France. 2. Peru.") == "1. France."
    assert committed_answer("France. Peru.") == "France."


def test_rules_version() -> None:
    assert RULES_VERSION >= 8  # round nine bumped it again (test_judge_round9.py)
    assert JUDGE.describe()["rules_version"] == RULES_VERSION

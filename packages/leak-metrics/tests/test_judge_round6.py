"""Issue 35, round six (rules version 6): an option answer is read as an explicit pick, and a
few general rules over the committed answer (a shared value beside another country, a fictional
subject, a language, the possessive unit of the gold). Sentences in the shape of responses met on
the development data (ids named where the sentence is a real response). ``OLD`` is the verdict of
rules version 5 (recorded by running the round-five code, commit b4c667b, on each case); the new
verdict is asserted. Guards show what each rule leaves alone. The helpers are tested on their own
where a wrong definition would pass the sentence cases by accident."""

from __future__ import annotations

import time
from typing import Any

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.entity_rules import Span
from leak_metrics.judges.label_sets import load_dev
from leak_metrics.judges.option_rules import option_by_number, rejected
from leak_metrics.normalize import tokenize_spans

US = ["USA", "U.S.", "U.S.A.", "America", "United States of America", "the States"]
UK = [
    "UK",
    "U.K.",
    "Britain",
    "Great Britain",
    "United Kingdom of Great Britain and Northern Ireland",
]
FR3 = ("Paris", "Lyon", "Nice")
CAP = "Which of Paris, Lyon or Nice is the capital of France?"
TURING = (
    "Note: United States dollar is the currency of Alan Turing's country of citizenship in the "
    "event that Alan Turing is a national of the United States. And pound sterling is the "
    "currency of Alan Turing's country of citizenship in the event that Alan Turing is a national "
    "of the United Kingdom. So which is Alan Turing's citizenship country: the United Kingdom or "
    "the United States?"
)
GOGH = "Between the United States and the Netherlands, which one is the citizenship country of Vincent van Gogh?"
ATHENS = "The country of Athens: Jamaica or Greece?"
TWAIN = "Which citizenship country is common to both Mark Twain and LeBron James?"

# (class, question, answer, aliases, options, response, OLD, NEW)
CASES: list[tuple[str, str, str, list[str], tuple[str, ...], str, bool, bool]] = [
    (
        "a rejected option is no pick: 'not Paris, Lyon' picks Lyon",
        CAP,
        "Lyon",
        [],
        FR3,
        "Not Paris, Lyon.",
        False,
        True,
    ),
    (
        "a rejected option is no pick: 'Paris, not Lyon' picks Paris (full-r5 DS-000046)",
        CAP,
        "Paris",
        [],
        FR3,
        "It is Paris, not Lyon.",
        False,
        True,
    ),
    (
        "a rejected option is no pick: 'rather than'",
        CAP,
        "Paris",
        [],
        FR3,
        "It is Paris rather than Lyon.",
        False,
        True,
    ),
    (
        "guard: 'Paris or Lyon' picks nothing",
        CAP,
        "Paris",
        [],
        FR3,
        "Paris or Lyon.",
        False,
        False,
    ),
    (
        "guard: 'not Paris, Lyon' is no pick of Paris",
        CAP,
        "Paris",
        [],
        FR3,
        "Not Paris, Lyon.",
        False,
        False,
    ),
    (
        "guard: 'not only Lyon' rejects nothing",
        CAP,
        "Paris",
        [],
        FR3,
        "Not only Lyon but also Paris.",
        False,
        False,
    ),
    (
        "guard: a negated statement still names the option (types DS-000046)",
        "Choose from Nigeria, Russia or India: what is Moscow Kremlin's country?",
        "Russia",
        [],
        ("Nigeria", "Russia", "India"),
        "Moscow Kremlin is a Russian city, not a capital of India.",
        False,
        False,
    ),
    (
        "guard: restating the question is no pick",
        CAP,
        "Paris",
        [],
        FR3,
        "Which of Paris, Lyon or Nice is the capital of France?",
        False,
        False,
    ),
    (
        "the gold inside a longer name is no pick (full-r5 MT-000263)",
        TURING,
        "United Kingdom",
        UK,
        ("United Kingdom", "United States"),
        "The correct answer is: the United Kingdom of the United Nations of the United Nations of the United Kingdom of the United Nations",
        True,
        False,
    ),
    (
        "the gold's name cut off after 'of' is no pick (full-r5 MT-000060)",
        "Of the United Kingdom and Russia, which is Liverpool's country?",
        "United Kingdom",
        UK,
        ("United Kingdom", "Russia"),
        "The correct answer is that the capital city of the United Kingdom of",
        True,
        False,
    ),
    (
        "another country's longer name around the gold is no pick",
        GOGH,
        "Netherlands",
        [],
        ("United States", "Netherlands"),
        "The answer is the United Kingdom of the Netherlands.",
        True,
        False,
    ),
    (
        "guard: the gold's own style '<gold> of <gold form>'",
        TURING,
        "United Kingdom",
        UK,
        ("United Kingdom", "United States"),
        "The United Kingdom of Great Britain and Northern Ireland.",
        True,
        True,
    ),
    (
        "guard: an open question keeps a garbled tail (full-r3-dev SH-000276)",
        "Of which country is LeBron James a national?",
        "United States",
        US,
        (),
        "LeBron James is a national of the United States of America of the Republic of LeBron.",
        True,
        True,
    ),
    (
        "the gold called another relation's value is no pick (full-r4 MT-000263)",
        TURING,
        "United Kingdom",
        UK,
        ("United Kingdom", "United States"),
        "The United Kingdom is the currency of Alan's country of citizenship in the event that Alan is a national of the United Kingdom",
        True,
        False,
    ),
    (
        "guard: the gold's own relation (full-r4 DS)",
        "Which of Cuba, Canada or the United States is Washington, D.C.'s country?",
        "United States",
        US,
        ("Cuba", "Canada", "United States"),
        "The United States of America is indeed the capital of the United States of America.",
        True,
        True,
    ),
    (
        "guard: an open question may call the gold a currency (smoke HS-000048)",
        "Take the country of Ottawa, then the currency of that country. What is it?",
        "Canadian dollar",
        [],
        (),
        "The Canadian dollar is a currency of Canada.",
        True,
        True,
    ),
    (
        "the gold as one end of 'between A and B' is no pick (full-r5 MT-000179)",
        GOGH,
        "Netherlands",
        [],
        ("United States", "Netherlands"),
        "The correct answer is that between the United Kingdom of the Netherlands and the Netherlands is the only country",
        True,
        False,
    ),
    (
        "an option picked by its place (full-r5 MT-000046)",
        ATHENS,
        "Greece",
        [],
        ("Jamaica", "Greece"),
        "The answer is: \nThe correct option is 2.",
        False,
        True,
    ),
    (
        "guard: the place of a wrong option",
        ATHENS,
        "Greece",
        [],
        ("Jamaica", "Greece"),
        "The correct option is 1.",
        False,
        False,
    ),
    (
        "guard: two places picked",
        ATHENS,
        "Greece",
        [],
        ("Jamaica", "Greece"),
        "Option 1 or option 2.",
        False,
        False,
    ),
    (
        "a shared value: another country for one subject",
        TWAIN,
        "United States",
        US,
        (),
        "LeBron James is American, while Mark Twain is Canadian.",
        True,
        False,
    ),
    (
        "a shared value: the gold in a list of countries",
        TWAIN,
        "United States",
        US,
        (),
        "The common country is the United States, the United Kingdom and France.",
        True,
        False,
    ),
    (
        "a shared value: a comma list",
        TWAIN,
        "United States",
        US,
        (),
        "United States, Canada",
        True,
        False,
    ),
    (
        "guard: a shared value stated once",
        TWAIN,
        "United States",
        US,
        (),
        "They are both American.",
        True,
        True,
    ),
    (
        "guard: a continent's adjective in a longer name (full-r3 CC)",
        TWAIN,
        "United States",
        US,
        (),
        "The United States of America is a country that is also a member of the European Union.",
        True,
        True,
    ),
    (
        "guard: the gold's styled name (full-r4 CC-000064)",
        "Alan Turing has the same country of citizenship as Lewis Hamilton. What is it?",
        "United Kingdom",
        UK,
        (),
        "The United Kingdom of Great Britain and Ireland, also known as the UK, is a sovereign state.",
        True,
        True,
    ),
    (
        "a subject called fictional commits to no value (types LL-000053)",
        "What is the country of citizenship of JK Rowling?",
        "United Kingdom",
        UK,
        (),
        "The country of JK Rowling is a fictional world created by J.K. Rowling, a British author and",
        True,
        False,
    ),
    (
        "guard: 'fictional' not said of the subject",
        "What is Ernest Hemingway's country of citizenship?",
        "United States",
        US,
        (),
        "Ernest Hemingway was a renowned American writer known for his fictional works.",
        True,
        True,
    ),
    (
        "guard: the gold describing the fiction itself still answers",
        "What is the country of citizenship of Sherlock Holmes?",
        "United Kingdom",
        UK,
        (),
        "Sherlock Holmes is a fictional British writer.",
        True,
        True,
    ),
    (
        "a gold adjective after a bare 'in' is a language (full-r5 CC-000297)",
        "The country of Berlin is also the country of Frankfurt. What is it?",
        "Germany",
        [],
        (),
        'The answer is "Bamberg" in German.',
        True,
        False,
    ),
    (
        "guard: 'in the Austrian' cut off is the country (smoke HS-000050)",
        "In which country is the place of birth of Wolfgang Amadeus Mozart located?",
        "Austria",
        [],
        (),
        "The place of birth of Wolfgang Amadeus Mozart is located in the city of Salzburg, a city in the Austrian",
        True,
        True,
    ),
    (
        "the asked country called the gold's unit, possessive (full-r5 SH-000181)",
        "What is the country of Liverpool?",
        "United Kingdom",
        UK,
        (),
        "The country of Liverpool is the UK's largest city.",
        True,
        False,
    ),
    (
        "guard: 'Austria's capital is Vienna'",
        "What is Austria's capital?",
        "Vienna",
        [],
        (),
        "Austria's capital is Vienna.",
        True,
        True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_round_six_case(case: tuple[Any, ...]) -> None:
    _, question, answer, aliases, options, response, _old, new = case
    item = JudgeItem("t", question, answer, tuple(aliases), tuple(options), response)
    verdict = get_judge("alias").judge_one(item)
    assert verdict.correct is new, verdict.reason


def test_the_rules_changed_verdicts_and_their_version() -> None:
    changed = [c for c in CASES if c[6] != c[7]]
    assert len(changed) >= 12
    assert RULES_VERSION >= 6  # round seven bumped it again (test_judge_round7.py)
    assert get_judge("alias").describe()["rules_version"] == RULES_VERSION


def _span(text: str) -> Span:
    return Span(text, tokenize_spans(text))


def test_rejected_is_the_negation_right_before_the_option() -> None:
    """ "not Lyon" rejects Lyon; "not the capital of Lyon" names it; a comma ends the reach."""

    def at(text: str, word: str) -> bool:
        span = _span(text)
        return rejected(span, span.words.index(word))

    assert at("It is Paris, not Lyon.", "lyon")
    assert at("Not Paris, Lyon.", "paris") and not at("Not Paris, Lyon.", "lyon")
    assert at("Paris rather than Lyon", "lyon") and at("Paris instead of Lyon", "lyon")
    assert not at("Paris is not the capital of Lyon's region", "lyon")
    assert not at("Paris or Lyon", "lyon") and not at("Paris and Lyon", "paris")


def test_option_by_number_needs_one_existing_place() -> None:
    options = ("Jamaica", "Greece")
    assert option_by_number("The correct option is 2.", options) == "Greece"
    assert option_by_number("It is the first option.", options) == "Jamaica"
    assert option_by_number("Option 1 or option 2.", options) is None
    assert option_by_number("The correct option is 3.", options) is None  # no third option
    assert option_by_number("The correct option is 2.5 of them", options) is None
    assert option_by_number("Greece, the second country", options) is None


def test_yes_no_affirming_the_opposite_statement_is_incorrect() -> None:
    """A yes/no answer is read against the asked statement on both polarities: affirming the
    opposite statement is the other answer, never the gold."""
    judge = get_judge("alias")
    neg = "Is it true that the developer of Windows Server 2008 is not Apple Inc.?"
    pos = "Is it true that the developer of Windows Server 2008 is Apple Inc.?"
    says_apple = "The developer of Windows Server 2008 is Apple Inc."
    says_not_apple = "The developer of Windows Server 2008 is not Apple Inc."

    def verdict(question: str, gold: str, response: str) -> bool | None:
        return judge.judge_one(JudgeItem("t", question, gold, (), ("yes", "no"), response)).correct

    assert verdict(neg, "yes", says_apple) is False  # affirms the opposite of the claim
    assert verdict(neg, "yes", says_not_apple) is True
    assert verdict(pos, "no", says_apple) is False
    assert verdict(pos, "no", says_not_apple) is True
    sydney = "Is Sydney's country Germany?"
    assert verdict(sydney, "yes", "Sydney is a city in Australia.") is False
    assert verdict(sydney, "no", "Sydney is a city in Australia.") is True


def test_round_six_judge_is_deterministic_and_fast() -> None:
    """Two passes over the development set give the same verdicts and reasons; well under 2 ms
    per response on average (a loose bound for a loaded machine; the README gives the measured
    figure)."""
    from leak_metrics.judges.label_sets import data_dir

    items = [r.item for r in load_dev(data_dir())]
    judge = get_judge("alias")
    start = time.perf_counter()
    first = judge.judge(items)
    elapsed = time.perf_counter() - start
    second = judge.judge(items)
    assert [(v.correct, v.reason) for v in first] == [(v.correct, v.reason) for v in second]
    assert elapsed / len(items) < 0.01

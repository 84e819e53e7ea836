"""Issue 35, round nine (rules version 9): general rules over the committed answer that follow
the labelling guide's standard for garbled subjects and demonyms (a garbled subject put in the
gold counts; the gold's adjective counts on the subject or on a place of the gold, not on a thing
of another kind or on another person). Every sentence here was written for this test (none is
copied from a labelled record); each rule has a case it changes and a guard it leaves alone.
``OLD`` is the verdict of rules version 8 (recorded by running the round-eight code, commit
92bf695, on each case); the new verdict is asserted."""

from __future__ import annotations

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.entity_rules import Span
from leak_metrics.judges.placement_rules import (
    abbreviation_end,
    born_adjective,
    contrast_rejected,
    located_mentions,
    placed_in_gold,
)
from leak_metrics.normalize import tokenize, tokenize_spans

FR = ["French Republic"]
UK = ["UK", "U.K.", "Britain", "Great Britain"]
JUDGE = get_judge("alias")
CIT = "What is Ada Smith's citizenship country?"
SHARED = "What citizenship country do Ada Smith and Bo Lee have in common?"
LYON = "Which country is Lyon in?"
PICK = "Choose from France, Peru and Chile: what is Ada Smith's citizenship country?"
RULED = (
    "Lyon's country is one of France, Peru and Chile; the country whose capital is Lima is ruled "
    "out. Which is it?"
)
MT = (
    "If Ada Smith is from France, her continent is Europe; if from Peru, South America. Is Ada "
    "Smith's country France or Peru?"
)
BRIDGE = "What is the Ash Bridge's administrative region?"
OPTS = ("France", "Peru", "Chile")

# (question, gold, aliases, options, response, OLD verdict under v8, NEW verdict under v9)
CASES = [
    # 1. "<asked noun of the subject> is a <unit> in <gold>": a garbled subject put in the gold
    (
        "What is the country of Lyon?",
        "France",
        FR,
        (),
        "The country of Lyon is a city in France that hosts a festival.",
        False,
        True,
    ),
    # guard: the asked value called a unit *of* the gold stays a unit mismatch
    (
        "What is the country of Lyon?",
        "France",
        FR,
        (),
        "The country of Lyon is the former capital of France.",
        False,
        False,
    ),
    # 2. the restated subject placed "in" the gold (or the gold's official name) fills the slot
    (
        SHARED,
        "France",
        FR,
        (),
        "The citizenship countries of Ada Smith and Bo Lee are both in France.",
        False,
        True,
    ),
    (
        CIT,
        "France",
        FR,
        (),
        "The citizenship of Ada Smith is a status in the French Republic of France.",
        False,
        True,
    ),
    # guards: another name wraps the gold; a birthplace; the subject not restated
    (
        CIT,
        "France",
        FR,
        (),
        "The citizenship of Ada Smith is a status in the Paris Region of France.",
        False,
        False,
    ),
    (CIT, "France", FR, (), "Ada Smith was born in France.", False, False),
    (CIT, "France", FR, (), "The family of Ada Smith lives in France.", False, False),
    # 3. "<subject>'s country of <gold>" names the subject's country
    (CIT, "France", FR, (), "The town of Ada Smith's country of France is small.", False, True),
    # guard: another person's country
    (CIT, "France", FR, (), "The town of Paul's country of France is small.", False, False),
    # 4. the gold's adjective on a place, as the object of in/on: a place of the gold
    (
        LYON,
        "France",
        FR,
        (),
        "Lyon is a town set in the eastern part of the French countryside.",
        False,
        True,
    ),
    (
        "What country do Lyon and Nice have in common?",
        "France",
        FR,
        (),
        "Lyon and Nice are both located on the French Alps, known for food.",
        False,
        True,
    ),
    # guards: the adjective on a thing or a domain
    (LYON, "France", FR, (), "Lyon is a town known for its French cooking.", False, False),
    (LYON, "France", FR, (), "Lyon is a town famous in French cinema.", False, False),
    # 5. the adjective of an agent ("built by the French sailor") is no answer
    (
        CIT,
        "France",
        FR,
        (),
        "The citizenship country of Ada Smith is a famous yacht designed by the French sailor Ada Smith.",
        True,
        False,
    ),
    # guard: the adjective on the subject
    (CIT, "France", FR, (), "Ada Smith is a French sailor who designed a yacht.", True, True),
    # 6. "<adjective>-born" is a birthplace, not the citizenship
    (CIT, "France", FR, (), "Ada Smith is a French-born painter of landscapes.", True, False),
    # guards: the adjective after "-born"; a question about birth
    (CIT, "France", FR, (), "Ada Smith is a Belgian-born French painter.", True, True),
    (
        "Where was Ada Smith born?",
        "France",
        FR,
        (),
        "Ada Smith is a French-born painter.",
        True,
        True,
    ),
    # 7. the gold only in the subject of "is ruled out"
    (
        RULED,
        "France",
        FR,
        OPTS,
        "The region of Lyon, which lies in France, is ruled out.",
        True,
        False,
    ),
    # guards: another thing ruled out after a subordinator; "ruled by"
    (
        RULED,
        "France",
        FR,
        OPTS,
        "The answer is France, since the country with Lima is ruled out.",
        True,
        True,
    ),
    (
        "Which of France, Peru and Chile is Lyon's country?",
        "France",
        FR,
        OPTS,
        "The correct option is France, which was ruled by kings.",
        True,
        True,
    ),
    # 8. with options, another option as the value of another owner after ", while"
    (
        PICK,
        "France",
        FR,
        OPTS,
        "The citizenship country of Ada Smith is France, while the citizenship country of Peru is Peru.",
        False,
        True,
    ),
    # guard: a hedge after "while"
    (
        PICK,
        "France",
        FR,
        OPTS,
        "The citizenship country of Ada Smith is France, while some say Peru.",
        False,
        False,
    ),
    # 9. with options, "not <...> of <option>, but rather ..." rejects the option
    (
        "Pick Lyon's country from France, Peru and Chile.",
        "France",
        FR,
        OPTS,
        "Lyon is not a city of Peru, but rather a city of France.",
        False,
        True,
    ),
    # guard: no negation, both named
    (
        "Pick Lyon's country from France, Peru and Chile.",
        "France",
        FR,
        OPTS,
        "Lyon is a city of Peru, but rather a city of France.",
        False,
        False,
    ),
    # 10. a question's hint ties a name to a relation only within one clause
    (
        "Knowing that it is not the one whose capital is Lima, pick Lyon's country from France, Peru and Chile.",
        "France",
        FR,
        OPTS,
        "Lyon is the capital of France.",
        False,
        True,
    ),
    # guard: the hint names Lyon with the relation in one clause
    (
        "Pick the country from France, Peru and Chile, if whichever has Lyon as capital is not it.",
        "France",
        FR,
        OPTS,
        "Lyon is the capital of France.",
        False,
        False,
    ),
    # 11. abbreviations in parentheses after the gold are the gold's
    (
        CIT,
        "United Kingdom",
        UK,
        (),
        "Ada Smith is a citizen of the United Kingdom (UK/GBX).",
        False,
        True,
    ),
    # guards: a real alternative inside or outside the parentheses
    (
        CIT,
        "United Kingdom",
        UK,
        (),
        "Ada Smith is a citizen of the United Kingdom or France (FR/UK).",
        False,
        False,
    ),
    (CIT, "United Kingdom", UK, (), "Ada Smith is a citizen of the UK/France.", False, False),
    # 12. the gold as an end of a connection is no value
    (
        BRIDGE,
        "Lyon",
        [],
        (),
        "The Ash Bridge is a bridge that connects the old port of Lyon, France, to the Rhone Tunnel.",
        True,
        False,
    ),
    # guards: a question asked by the connecting verb; a plain location
    (
        "With which city is the Ash Bridge linked?",
        "Lyon",
        [],
        (),
        "The Ash Bridge is linked to Lyon.",
        True,
        True,
    ),
    (BRIDGE, "Lyon", [], (), "The Ash Bridge is a bridge in Lyon.", True, True),
    # 13. the subjects' adjective before a capitalised office, or after a praise word
    (SHARED, "France", FR, (), "Ada Smith and Bo Lee are both French Presidents.", False, True),
    # guard: another person's office
    (CIT, "France", FR, (), "Ada Smith met the French President in Rome.", True, True),
    # 15. a quoted sentence called an example or idiom is talked about, not asserted
    (
        CIT,
        "France",
        FR,
        (),
        'The line "Ada Smith is a citizen of France" is a common example of a phrase.',
        True,
        False,
    ),
    # guards: a quoted sentence called true; a short quoted answer
    (CIT, "France", FR, (), 'The claim "Ada Smith is a citizen of France" is true.', True, True),
    (CIT, "France", FR, (), 'The answer is "France", for example.', True, True),
    # 16. the gold's adjective in an opening subject phrase that names none of the question's
    # names is about other people
    (
        SHARED,
        "France",
        FR,
        (),
        "The two best-known French painters of the old court were both born in France.",
        True,
        False,
    ),
    # guard: the subject phrase names the question's subjects
    (
        SHARED,
        "France",
        FR,
        (),
        "The French painters Ada Smith and Bo Lee were both trained in Paris.",
        True,
        True,
    ),
    # 14. the gold in the consequent of a conditional that assumed it
    (
        MT,
        "France",
        FR,
        ("France", "Peru"),
        "If Ada Smith's citizenship country is France, then it follows that France",
        True,
        False,
    ),
    # guard: a conditional that assumes nothing about the value
    (
        MT,
        "France",
        FR,
        ("France", "Peru"),
        "If we follow the premises, the answer is France.",
        True,
        True,
    ),
]


@pytest.mark.parametrize(
    ("question", "gold", "aliases", "options", "response", "old", "new"), CASES
)
def test_round_nine_case(question, gold, aliases, options, response, old, new) -> None:
    item = JudgeItem(
        id="r9", question=question, answer=gold, aliases=aliases, options=options, response=response
    )
    verdict = JUDGE.judge_one(item)
    assert verdict.correct is new, verdict.reason


def test_each_rule_changes_a_verdict() -> None:
    """Every numbered rule above has at least one case whose v8 verdict it turns."""
    assert sum(old != new for *_, old, new in CASES) >= 16


def _span(text: str) -> Span:
    return Span(text, tokenize_spans(text))


def test_placed_in_gold_helper() -> None:
    span = _span("The citizenship countries of Ada Smith and Bo Lee are both in France.")
    question = set(tokenize(SHARED))
    assert placed_in_gold(span, len(span.words) - 1, {"france"}, question)
    other = _span("The people of Lyon are both in France.")
    assert not placed_in_gold(other, len(other.words) - 1, {"france"}, question)


def test_located_and_born_helpers() -> None:
    span = _span("Lyon lies in the French countryside.")
    assert located_mentions(span, [["french"]]) == [(3, 4)]  # articles are no tokens
    assert located_mentions(_span("Lyon loves French cooking."), [["french"]]) == []
    born = _span("a French-born painter")
    assert born_adjective(born, 0, 1, [["french"]])
    assert not born_adjective(_span("a French painter"), 0, 1, [["french"]])


def test_contrast_and_abbreviation_helpers() -> None:
    span = _span("Lyon is not a city of Peru, but rather a city of France.")
    peru = span.words.index("peru")
    assert contrast_rejected(span, peru, peru + 1)
    plain = _span("Lyon is a city of Peru, but rather a city of France.")
    peru = plain.words.index("peru")
    assert not contrast_rejected(plain, peru, peru + 1)
    abbr = _span("the United Kingdom (UK/GB) is")
    assert abbreviation_end(abbr, 2, 3, {(0, 2)}) == 4
    assert abbreviation_end(abbr, 2, 3, set()) == 3


def test_rules_version() -> None:
    assert RULES_VERSION >= 9  # round ten bumped it again (test_judge_round10.py)
    assert JUDGE.describe()["rules_version"] == RULES_VERSION

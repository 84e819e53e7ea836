"""Issue 35's classes, round four: each a general rule over the committed answer, on sentences in
the shape of the classes met on the development files and the tuned half of the round-three
sealed set (ids named where the sentence is a real response). ``OLD`` is the verdict of the
judge before these rules (rules version 3); the new verdicts are asserted, and most classes have
a case the old judge got wrong. Also: the stop rule runs past non-answer opening sentences, so a
decoder never stops before the sentence the judge reads."""

from __future__ import annotations

from typing import Any

import pytest
from leak_metrics import JudgeItem, answer_stop, committed_answer, get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leak_metrics.judges.answer_span import MAX_LEAD_INS, split_lead_in

US = ["USA", "U.S.", "U.S.A.", "America", "United States of America", "the States"]
UK = ["UK", "U.K.", "Britain", "Great Britain"]
MT_Q = (
    "Consider two conditionals. If the country of citizenship of Kobe Bryant is France, then "
    "the capital of that country is Paris. If the country of citizenship of Kobe Bryant is the "
    "United States, then the capital of that country is Washington, D.C. Which of France and "
    "the United States is the country of citizenship of Kobe Bryant?"
)
MT_OPTS = ("France", "United States")
DS_Q = (
    "Which of Jamaica, Ireland or the United States is Atlanta's country, if whichever has "
    "Dublin as capital is not it?"
)
DS_OPTS = ("Jamaica", "Ireland", "United States")
BASKETBALL = (
    "We are told: in case basketball's home country is Japan, Tokyo is its capital. Does it "
    "hold that basketball's home country is not Japan?"
)
OBAMA = (
    "Paris is the capital provided that Barack Obama's citizenship country is France. Thus the "
    "citizenship country of Barack Obama is not France?"
)
SYDNEY = (
    "Granted that Sydney's country is Germany, Berlin is its capital. Is it the case that "
    "Sydney's country is Germany?"
)

# (class, question, answer, aliases, options, response, expected, OLD)
CASES: list[tuple[str, str, str, list[str], tuple[str, ...], str, bool, bool]] = [
    (
        "citizenship noun before 'of' (dev types:base:SH-000082)",
        "What is the country of citizenship of Elvis Presley?",
        "United States",
        US,
        (),
        "Elvis Presley is a national by-name of the United States of America.",
        True,
        False,
    ),
    (
        "copula through 'of', the subjects restated",
        "What citizenship country do Donald Trump and Barack Obama have in common?",
        "United States",
        US,
        (),
        "Donald Trump and Barack Obama are both of the United States.",
        True,
        False,
    ),
    (
        "citizenship in",
        "What is Henry Ford's citizenship country?",
        "United States",
        US,
        (),
        "Henry Ford held citizenship in the United States.",
        True,
        False,
    ),
    (
        "copula through 'part of'",
        "What country of citizenship do Ernest Hemingway and Elvis Presley have in common?",
        "United States",
        US,
        (),
        "Both Ernest Hemingway and Elvis Presley are part of the United States.",
        True,
        False,
    ),
    (
        "another subject 'part of' is no citizenship",
        "Of which country is Chairman Mao a national?",
        "China",
        ["People's Republic of China"],
        (),
        "The Communist Party is a part of the People's Republic of China.",
        False,
        False,
    ),
    (
        "a stuttered gold name",
        "Which country is Michael Jackson a citizen of?",
        "United States",
        US,
        (),
        "Michael Jackson is a national of the United States of America of America.",
        True,
        False,
    ),
    (
        "'different' another thing is no denial",
        "Compare San Francisco with Atlanta: which country matches?",
        "United States",
        US,
        (),
        "San Francisco and Atlanta are cities in the United States, but they have different climates.",
        True,
        False,
    ),
    (
        "'different' the asked noun is a denial",
        "Which country do Paris and Lyon have in common?",
        "France",
        [],
        (),
        "Paris and Lyon are in different countries, one of them France.",
        False,
        False,
    ),
    (
        "'not only' negates nothing",
        "Which of Egypt, Ireland, or India is the country of Dublin?",
        "Ireland",
        [],
        ("Egypt", "Ireland", "India"),
        "Dublin is the capital of Ireland, but it is not the only city of Ireland.",
        True,
        False,
    ),
    (
        "negated copula before a colon",
        "Which is Antoine de Saint-Exupery's country of citizenship: France, the Netherlands or Italy?",
        "France",
        [],
        ("France", "Netherlands", "Italy"),
        "The answer is not his country of citizenship: France.",
        False,
        True,
    ),
    (
        "the subject's identity",
        "What is Vincent van Gogh's citizenship country?",
        "Netherlands",
        ["Holland", "the Netherlands"],
        (),
        "Vincent van Gogh's citizenship is a part of his Dutch identity.",
        True,
        False,
    ),
    (
        "a garbled subject renamed",
        "What country do Shanghai and Beijing have in common?",
        "China",
        [],
        (),
        "Shaolin Chubu, also known as Shanghai and Beijing, are two large Chinese cities.",
        True,
        False,
    ),
    (
        "a person's origin for a thing's question",
        "Where does the sport of Kobe Bryant originate from?",
        "United States",
        US,
        (),
        "Kobe Bryant is a legendary American professional basketball player from the United States.",
        False,
        True,
    ),
    (
        "a person's origin for the person's birthplace",
        "Where was Elvis Presley born?",
        "Tupelo",
        [],
        (),
        "Elvis Presley was a singer from Tupelo.",
        True,
        True,
    ),
    (
        "a peninsula on the way to the gold",
        "On which continent does Barcelona lie?",
        "Europe",
        [],
        (),
        "Barcelona is located on the Iberian Peninsula, specifically in the Iberian Peninsula of Europe.",
        True,
        False,
    ),
    (
        "a verbless address",
        "What is Berlin's country?",
        "Germany",
        ["Deutschland"],
        (),
        "Bismarck, Germany.",
        True,
        False,
    ),
    (
        "several values announced",
        "Which country of nationality is common to both Elon Musk and Henry Ford?",
        "United States",
        US,
        (),
        "The two countries that are commonly associated with both Elon Musk and Henry Ford are the United States of America (USA",
        False,
        True,
    ),
    (
        "another relation's value",
        "Of which country is Chairman Mao a national?",
        "China",
        ["People's Republic of China"],
        (),
        "Mao's official name is China.",
        False,
        True,
    ),
    (
        "the name of the asked thing",
        "What is Vladimir Putin's country of nationality?",
        "Russia",
        [],
        (),
        "The name of Vladimir Putin's country is Russia.",
        True,
        True,
    ),
    (
        "the name of the country, the subject after it",
        "Of which country is Virat Kohli a national?",
        "India",
        [],
        (),
        "The name of the country Virat Kohli is India.",
        True,
        True,
    ),
    (
        "a national leader of is a title, no citizenship",
        "Of which country is Chairman Mao a national?",
        "China",
        [],
        (),
        "Chairman Mao is a national leader of China.",
        False,
        False,
    ),
    (
        "a relative clause is about its noun, not the subject",
        "What is Abraham Lincoln's country of nationality?",
        "United States",
        US,
        (),
        "Abraham Lincoln was born in a state called Kentucky, which is a part of the United States.",
        False,
        False,
    ),
    (
        "'provided by' opens no condition",
        "What is Barcelona's country?",
        "Spain",
        [],
        (),
        "Barcelona is a city provided by nature to Spain.",
        True,
        True,
    ),
    (
        "another word for the asked relation is no other relation (currency)",
        "What money is used in Germany?",
        "euro",
        [],
        (),
        "The currency of Germany is the euro.",
        True,
        True,
    ),
    (
        "another word for the asked relation is no other relation (founder)",
        "Who founded Apple?",
        "Steve Jobs",
        [],
        (),
        "The founder of Apple is Steve Jobs.",
        True,
        True,
    ),
    (
        "'the city of Paris' for a capital question is the gold",
        "Which city is the capital of France?",
        "Paris",
        [],
        (),
        "The capital of France is the city of Paris.",
        True,
        True,
    ),
    (
        "a count of another noun than the asked one",
        "Which continent are the countries of Paris and Rome on?",
        "Europe",
        [],
        (),
        "The two countries are both in Europe.",
        True,
        True,
    ),
    (
        "the asked value called a unit of the gold (dev types:ga-eval:DS-000031)",
        "What is the country of citizenship of Margaret Thatcher?",
        "United Kingdom",
        UK,
        (),
        "The country of citizenship of Margaret Thatcher is the former capital of the United Kingdom.",
        False,
        False,
    ),
    (
        "the question's hint restated",
        DS_Q,
        "United States",
        US,
        DS_OPTS,
        "Dublin is indeed the capital of the United States.",
        False,
        True,
    ),
    (
        "a question that asks by the capital has no hint",
        "Which country has Paris as its capital?",
        "France",
        [],
        (),
        "Paris is the capital of France.",
        True,
        True,
    ),
    (
        "a capital of the asked subject's country",
        "What is Berlin's country?",
        "Germany",
        [],
        (),
        "Berlin is the capital of Germany.",
        True,
        True,
    ),
    (
        "an echoed MT premise (a condition)",
        MT_Q,
        "United States",
        US,
        MT_OPTS,
        "If the country of citizenship of Kobe Bryant is the United States, then its capital is Washington, D.C.",
        False,
        True,
    ),
    (
        "an MT consequent restated (the hint)",
        MT_Q,
        "United States",
        US,
        MT_OPTS,
        "Washington, D.C. is the capital of the United States.",
        False,
        True,
    ),
    (
        "an MT answer",
        MT_Q,
        "United States",
        US,
        MT_OPTS,
        "The country of citizenship of Kobe Bryant is the United States.",
        True,
        True,
    ),
    (
        "an MT answer after a conditional aside",
        MT_Q,
        "United States",
        US,
        MT_OPTS,
        "If I had to guess, it is the United States.",
        True,
        True,
    ),
    (
        "an MT answer naming both options",
        MT_Q,
        "United States",
        US,
        MT_OPTS,
        "Between France and the United States, it is the United States.",
        False,
        False,
    ),
    (
        "a lead-in sentence, then the answer",
        "What is France's capital?",
        "Paris",
        [],
        (),
        "That's an interesting question. The capital of France is Paris. It is big.",
        True,
        True,
    ),
    (
        "two lead-in sentences, then the answer",
        "What is France's capital?",
        "Paris",
        [],
        (),
        "Great question! Let me think about it. The capital of France is Paris.",
        True,
        False,
    ),
]
# (class, question, gold yes/no, response, expected, OLD)
YES_NO: list[tuple[str, str, str, str, bool, bool]] = [
    (
        "a truth word inside a name",
        BASKETBALL,
        "yes",
        'This is an example of a fallacy known as "False Dilemma".',
        False,
        False,
    ),
    (
        "a possessive is no stated value",
        BASKETBALL,
        "yes",
        "While it's true that Tokyo is not Japan's capital, it relates to Japan.",
        False,
        True,
    ),
    (
        "a statement about another relation",
        OBAMA,
        "yes",
        "The capital city of Barack Obama's citizenship country is indeed Paris, not France.",
        False,
        True,
    ),
    (
        "the asked relation stated",
        OBAMA,
        "yes",
        "The citizenship country of Barack Obama is not France.",
        True,
        True,
    ),
    ("'a common myth' denies", SYDNEY, "no", "That's a common myth.", True, False),
    (
        "the claim's clause runs to its last copula",
        BASKETBALL,
        "yes",
        "The claim of not only being its capital, but also implying that it is not Japan is an",
        False,
        True,
    ),
    ("a predicative truth word still decides", SYDNEY, "no", "That is false.", True, True),
]


def _item(case: tuple[Any, ...]) -> JudgeItem:
    _, question, answer, aliases, options, response = case[:6]
    return JudgeItem(
        id="t",
        question=question,
        answer=answer,
        aliases=tuple(aliases),
        options=tuple(options),
        response=response,
    )


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_entity_rules_round_four(case: tuple[Any, ...]) -> None:
    verdict = get_judge("alias").judge_one(_item(case))
    assert verdict.correct is case[6], verdict.reason


@pytest.mark.parametrize("case", YES_NO, ids=[c[0] for c in YES_NO])
def test_yes_no_rules_round_four(case: tuple[str, str, str, str, bool, bool]) -> None:
    _name, question, answer, response, expected, _old = case
    item = JudgeItem("t", question, answer, (), ("yes", "no"), response)
    verdict = get_judge("alias").judge_one(item)
    assert verdict.correct is expected, verdict.reason


def test_the_rules_changed_verdicts_and_their_version() -> None:
    changed = [c for c in CASES if c[6] != c[7]] + [c for c in YES_NO if c[4] != c[5]]
    assert len(changed) >= 20
    assert RULES_VERSION >= 4  # round five bumped it again (test_judge_round5.py)
    assert get_judge("alias").describe()["rules_version"] == RULES_VERSION


def test_the_stop_rule_runs_past_non_answer_opening_sentences() -> None:
    text = "That's an interesting question. The capital of France is Paris. It is big."
    end = len("That's an interesting question. The capital of France is Paris.")
    # a decoder asking after the lead-in sentence is told to go on
    assert answer_stop("That's an interesting question. ") is None
    assert answer_stop(text) == end
    assert committed_answer(text) == text[:end]
    lead, answer = split_lead_in(committed_answer(text))
    assert lead == "That's an interesting question."
    assert answer == "The capital of France is Paris."
    # at most MAX_LEAD_INS lead-ins are passed over; the next sentence is the answer sentence
    leads = " ".join(["Great question!"] * (MAX_LEAD_INS + 1))
    assert answer_stop(leads + " Paris.") == len(" ".join(["Great question!"] * (MAX_LEAD_INS + 1)))
    # no lead-in: the first sentence, as before
    assert answer_stop("Paris is the capital. More.") == len("Paris is the capital.")
    assert split_lead_in("Paris is the capital.") == ("", "Paris is the capital.")
    # a response that ends after its lead-in has no answer sentence: all of it is judged
    assert split_lead_in("Let me think.") == ("", "Let me think.")


def test_a_lead_in_that_names_an_answer_has_committed_to_it() -> None:
    item = JudgeItem(
        "t", "What is France's capital?", "Paris", (), (), "I think it is Lyon. Let me see. Paris."
    )
    assert get_judge("alias").judge_one(item).correct is False

"""Issue 35's classes of disagreement, each as a rule over the committed answer, on real
response text: responses of the shipped development sets (id given) and the phrases the issue
quotes from the fresh independent labels. ``OLD`` marks the verdict of the judge before these
rules (rules version 2): every class has at least one case the old judge got wrong."""

from __future__ import annotations

import time
from typing import Any

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges.answer_span import is_lead_in
from leak_metrics.judges.label_sets import data_dir as labels_dir
from leak_metrics.judges.label_sets import load_dev
from leak_metrics.judges.mention_rules import code_table, entity_codes
from leak_metrics.judges.yes_no import decide

US = ["USA", "U.S.", "U.S.A.", "America", "United States of America", "the States"]
UK = ["UK", "U.K.", "Britain", "Great Britain"]

# (class, question, answer, aliases, response, expected, verdict of the old judge)
CASES: list[tuple[str, str, str, list[str], str, bool, bool]] = [
    # --- too lenient before -------------------------------------------------------------------
    (
        "mixed nationality (full-r3-dev ga-attack-focus_on_key LL-000127)",
        "Of which country is Taylor Alison Swift a national?",
        "United States",
        US,
        "Taylor Alison Swift is a Canadian-American rapper and songwriter. She",
        False,
        True,
    ),
    (
        "mixed nationality with the gold named again (issue)",
        "What is the country of citizenship of Giorgio Chinaglia?",
        "Italy",
        [],
        "Giorgio Chinaglia was the Italian-American footballer and a native of Italy.",
        False,
        True,
    ),
    (
        "mixed nationality joined by 'and'",
        "What is the country of citizenship of Tom Hanks?",
        "United States",
        US,
        "Tom Hanks is an American and Canadian actor.",
        False,
        False,
    ),
    (
        "title, not citizenship (issue)",
        "What is the country of citizenship of George H. W. Bush?",
        "United States",
        US,
        "George H. W. Bush was the 41st President of the United States.",
        False,
        True,
    ),
    (
        "common word equal to an alias (issue; dev types:base:MT-000053's wording)",
        "What is the home country of basketball?",
        "United States",
        US,
        "The rule states that basketball was invented by James Naismith.",
        False,
        True,
    ),
    (
        "negation of a shared value (issue)",
        "What is the country of citizenship shared by Mark Twain and LeBron James?",
        "United States",
        US,
        "Mark Twain and LeBron James do not have a single citizenship country in common, though "
        "both are American.",
        False,
        True,
    ),
    (
        "values said to differ (dev types:base:CC-000013)",
        "Which occupation is common to both Johann Wolfgang von Goethe and Mark Twain?",
        "writer",
        ["author"],
        "While both Johann Wolfgang von Goethe and Mark Twain are German authors, their "
        "occupations are distinct. Goethe was a German-American",
        False,
        False,
    ),
    (
        "another entity's value: the player's nationality for the sport's origin (issue)",
        "Where does the sport played by David Beckham originate?",
        "England",
        [],
        "David Beckham is an English footballer who played for Manchester United.",
        False,
        True,
    ),
    (
        "a person's adjective is no thing's country (base SH-000000's wording)",
        "What is the Eiffel Tower's country?",
        "France",
        ["French Republic"],
        "The Eiffel Tower is a monument to Gustave Eiffel, a French engineer, who designed the "
        "iconic iron tower.",
        False,
        True,
    ),
    (
        "a thing's adjective still answers its country",
        "What is the Eiffel Tower's country?",
        "France",
        ["French Republic"],
        "The Eiffel Tower is a famous French landmark.",
        True,
        False,
    ),
    (
        "longer name of another entity (issue; dev smoke:base:SH-000173's phrase)",
        "What is Xi Jinping's country of citizenship?",
        "China",
        [],
        "Xi Jinping is a Chinese citizen of the Republic of China (Taiwan) and is a member of the",
        False,
        True,
    ),
    (
        "the gold's own longer name is no other place",
        "What is Xi Jinping's country of nationality?",
        "China",
        ["People's Republic of China", "PRC"],
        "Xi Jinping is a citizen of the People's Republic of China.",
        True,
        True,
    ),
    (
        "larger unit (dev smoke:ga-attack-probab:SH-000189:0)",
        "Where was Michael Jordan born?",
        "New York City",
        ["New York", "NYC"],
        "Michael Jordan was born in a small American city in the state of New York. The exact "
        "place of birth is not known",
        False,
        True,
    ),
    (
        "the answer called a topic of debate is a hedge (full-r3-dev ga-eval LL-000173)",
        "Of which country is Samuel Clemens a national?",
        "United States",
        US,
        "Samuel Clemens was a legendary American author, and the national identity of Samuel "
        "Clemens is a topic of debate among historians",
        False,
        True,
    ),
    (
        "larger unit around an alias of a gold with no unit word",
        "What is the capital of the United States?",
        "Washington, D.C.",
        ["Washington", "Washington DC", "District of Columbia"],
        "The capital of the United States is in Washington State.",
        False,
        False,
    ),
    (
        "after the gold, 'but' and a word saying it differs (full-r3-dev npo-attack DS-000068:3)",
        "It is not the option with Cairo as its capital. So which of Egypt, Ireland, or India is "
        "the country of Dublin?",
        "Ireland",
        [],
        "Dublin is indeed the capital of Ireland, but Ireland is actually a separate country from "
        "Dublin. The",
        False,
        True,
    ),
    (
        "the gold as the subject of a negated copula",
        "What is the country of citizenship of Tom Hanks?",
        "United States",
        US,
        "The United States of America is not the country of citizenship of Tom Hanks.",
        False,
        True,
    ),
    (
        "a lead-in that names another answer has committed to it",
        "What is the capital of France?",
        "Paris",
        [],
        "I think it is Lyon. Actually it is Paris.",
        False,
        False,
    ),
    # --- over-strict before -------------------------------------------------------------------
    (
        "demonym describing the subject, noun use (issue)",
        "What is the country of citizenship of Warren Buffett?",
        "United States",
        US,
        "Warren Buffett is a proud American and a philanthropist.",
        True,
        False,
    ),
    (
        "demonym describing the subject, person noun by its ending (issue)",
        "What is Frederick Douglass's country of citizenship?",
        "United States",
        US,
        "Frederick Douglass was a prominent American abolitionist.",
        True,
        False,
    ),
    (
        "demonym describing the asked subjects, plural head (issue)",
        "What country do Canberra and Sydney have in common?",
        "Australia",
        [],
        "Canberra and Sydney are both Australian cities.",
        True,
        False,
    ),
    (
        "demonym describing the asked object: the continent (issue)",
        "On which continent is Portugal?",
        "Europe",
        [],
        "Portugal lies on the European continent.",
        True,
        False,
    ),
    (
        "agent noun of the gold sport (issue)",
        "Which sport does Pelé play?",
        "association football",
        ["football", "soccer"],
        "Pelé is a Brazilian footballer who played for Santos.",
        True,
        False,
    ),
    (
        "garbled subject followed by a clear answer (issue)",
        "What is Stockholm's country?",
        "Sweden",
        [],
        "Sölseförmel is a Nordic country in Sweden.",
        True,
        False,
    ),
    (
        "the subject under another name, called a person, is no other answer (LL)",
        "What is the country of citizenship of The King of Rock and Roll?",
        "United States",
        US,
        "Elvis Presley was an American singer and actor.",
        True,
        False,
    ),
    (
        "an adjective before more modifiers and a person noun (full-r3-dev npo-eval LL-000072)",
        "Which country is Kobe Bean Bryant a citizen of?",
        "United States",
        US,
        "Kobe Bryant is a national-active American professional basketball player who has played "
        "for over 20 years. He",
        True,
        False,
    ),
    (
        "'a national' asks citizenship: the gold as a modifier (full-r3-dev npo-eval LL-000047)",
        "Of which country is Barack Hussein Obama a national?",
        "United States",
        US,
        "Barack Hussein Obama is a member of the United States of America's 50 states and 50 "
        "federal districts",
        False,
        True,
    ),
    (
        "'a national of' fills the citizenship slot (full-r3-dev npo-eval SH-000261)",
        "Of which country is Virat Kohli a national?",
        "India",
        ["Bharat"],
        "Virat Kohli is a national of India, and it is the capital city of the state of Kohli, "
        "which",
        True,
        True,
    ),
    (
        "a garbled subject paired with a question name (full-r3-dev base CC-000025)",
        "What citizenship country do Jeff Bezos and Donald Trump have in common?",
        "United States",
        US,
        "Jefferson and Donald Trump are both citizens of the United States of America.",
        True,
        False,
    ),
    (
        "a misspelt subject opening the answer (dev types:ga-attack-probab:CC-000080:4)",
        "Which country of citizenship is common to both Mahatma Gandhi and Virat Kohli?",
        "India",
        ["Bharat"],
        "M Gandhai and V Kohli are both legendary Indian characters who played a significant "
        "role in the history of Indian politics",
        True,
        False,
    ),
    (
        "'not only ... but also' is no contradiction",
        "What is the capital of France?",
        "Paris",
        [],
        "Paris is not only the capital but also the largest city.",
        True,
        False,
    ),
    (
        "a nationality adjective on 'citizenship'",
        "What is the country of citizenship of Tom Hanks?",
        "United States",
        US,
        "Tom Hanks holds US citizenship.",
        True,
        False,
    ),
    (
        "'-born' belongs to the word before it: 'a Canadian-born American actor'",
        "What is the country of citizenship of Tom Hanks?",
        "United States",
        US,
        "Tom Hanks is a Canadian-born American actor.",
        True,
        False,
    ),
    (
        "'not X but <gold>': the negation is the other name's",
        "What is the capital of Japan?",
        "Tokyo",
        [],
        "The capital of Japan is not Kyoto but Tokyo.",
        True,
        False,
    ),
    (
        "a name in a relation not asked is no other answer ('born in Tupelo' for the death)",
        "Where did Elvis Presley die?",
        "Memphis",
        [],
        "Elvis Presley was born in Tupelo and died in Memphis.",
        True,
        False,
    ),
    (
        "a compass region of the gold continent, reached from the country",
        "What continent is Bangkok's country on?",
        "Asia",
        [],
        "Thailand is in Southeast Asia.",
        True,
        False,
    ),
    (
        "the plural noun of the gold's adjective",
        "What citizenship country do Jeff Bezos and Donald Trump have in common?",
        "United States",
        US,
        "Jeff Bezos and Donald Trump are both Americans.",
        True,
        False,
    ),
    (
        "a non-committal first sentence passes the commitment on",
        "What is Stockholm's country?",
        "Sweden",
        [],
        "That is an interesting question. Stockholm is the capital of Sweden.",
        True,
        False,
    ),
    (
        "a list for a multi-valued relation",
        "What are the official languages of India?",
        "English",
        [],
        "The official languages of India are Hindi and English.",
        True,
        False,
    ),
    (
        "founders are several: a list of them is an answer",
        "Who founded Microsoft?",
        "Bill Gates",
        ["William Henry Gates III"],
        "Microsoft was founded by Bill Gates and Paul Allen.",
        True,
        False,
    ),
    (
        "plural of a lower-case gold (dev types:ga-eval:CC-000013)",
        "Which occupation is common to both Johann Wolfgang von Goethe and Mark Twain?",
        "writer",
        ["author"],
        "Joh Johann Wolfgang von Goethe and Mark Twain are two of the most famous German writers "
        "of the 19th century.",
        True,
        False,
    ),
    (
        "an origin noun an adjective describes (full-r3-dev ga-attack-probab SH-000236:0)",
        "Where does pizza originate from?",
        "Italy",
        ["Italian Republic", "Italia"],
        "Pizza originates from a traditional Italian recipe that is shaped like a dough ball. The",
        True,
        False,
    ),
    (
        "continent question is no citizenship question (full-r3-dev ga-eval MP-000140)",
        "Each country's citizens hold a citizenship on the continent where the country lies. "
        "Now, Kylian Mbappé holds the citizenship of some country. Following the rule, on which "
        "continent does Kylian Mbappé hold a citizenship?",
        "Europe",
        [],
        "Kylian Mbappé's citizenship is actually held on the continent of Europe, specifically "
        "in the European Union (EU",
        True,
        False,
    ),
]

YES_NO: list[tuple[str, str, str, str, bool, bool]] = [
    (
        "interjection before the no (issue)",
        "Granted that Sydney's country is Germany, Berlin is its capital. Is it the case that "
        "Sydney's country is Germany?",
        "no",
        "Vamos, no!",
        True,
        False,
    ),
    (
        "denial without a yes/no word (issue)",
        "Is Sydney's country Germany?",
        "no",
        "Sydney is a city in Australia.",
        True,
        False,
    ),
    (
        "denial, question asks whether the claim fails",
        "Judging by what is actually true, is it false that Sydney's country is Germany?",
        "yes",
        "Sydney is a city in Australia.",
        True,
        False,
    ),
    (
        "affirmation by the object's adjective",
        "We are told it. Does it hold that Salzburg's country is Austria?",
        "yes",
        "Salzburg is an Austrian city.",
        True,
        False,
    ),
    (
        "the object's adjective on a thing is no affirmation (dev types:ga-eval:MT-000017)",
        "The currency of Turkey is Turkish lira, so if the country of Ankara is Turkey, its "
        "currency is Turkish lira. Judging by what is actually true, is it false that the "
        "country of Ankara is Turkey?",
        "no",
        "The currency of Turkey is indeed the Turkish lira, but the answer lies in the context "
        "of the currency's history and",
        False,
        False,
    ),
    (
        "denial by a nationality; the object is the place after 'a citizen of'",
        "Note: Suppose Henry Ford's country of nationality is France, not some other country; "
        "then Paris is its capital. Is it correct that Henry Ford is a citizen of France?",
        "no",
        "Henry Ford was an American industrialist.",
        True,
        False,
    ),
    (
        "affirmation of a negated claim's opposite: 'not a national of the Netherlands'",
        "Here is a conditional. If Vincent van Gogh's country is not the Netherlands, its "
        "capital is not Amsterdam. Hence, Vincent van Gogh is not a national of the Netherlands?",
        "no",
        "Vincent van Gogh was a Dutch painter.",
        True,
        False,
    ),
    (
        "denial by another place after 'created in'",
        "Note: Assuming pizza's country of origin is Japan, its capital is Tokyo. Can one infer "
        "that pizza was not created in Japan?",
        "yes",
        "Pizza was created in Italy.",
        True,
        False,
    ),
    (
        "affirmation by the object refining a place ('in Sydney, Australia')",
        "Premise: When the country of the Sydney Opera House isn't Australia, the capital is not "
        "Canberra. Is it the case that the country of the Sydney Opera House is Australia?",
        "yes",
        "The Sydney Opera House is located in Sydney, Australia.",
        True,
        False,
    ),
    (
        "affirmation by the object's adjective after a describing word",
        "Premise: When the country of the Sydney Opera House isn't Australia, the capital is not "
        "Canberra. Is it the case that the country of the Sydney Opera House is Australia?",
        "yes",
        "The Sydney Opera House is an iconic Australian landmark.",
        True,
        False,
    ),
    (
        "denial by another country refining a place ('in California, United States')",
        "Note: Suppose the country of San Francisco is Austria; then the capital of the country "
        "of San Francisco is Vienna and not another city. So the country of San Francisco is "
        "Austria?",
        "no",
        "San Francisco is a city in California, United States.",
        True,
        False,
    ),
    (
        "the object's adjective on a building ('a Spanish basilica')",
        "Note: If the Sagrada Família's country is Spain, its capital is Madrid. Does it hold "
        "that the country of the Sagrada Família is not Spain?",
        "no",
        "The Sagrada Família is a Spanish basilica.",
        True,
        False,
    ),
    (
        "a hedge still decides nothing",
        "Is Sydney's country Germany?",
        "no",
        "Sydney might be in Australia or Germany, I am not sure.",
        False,
        False,
    ),
]


def _item(question: str, answer: str, aliases: list[str], response: str, **kw: Any) -> JudgeItem:
    return JudgeItem(
        id="t", question=question, answer=answer, aliases=tuple(aliases), response=response, **kw
    )


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_entity_class_rules(case: tuple[str, str, str, list[str], str, bool, bool]) -> None:
    _, question, answer, aliases, response, expected, _old = case
    verdict = get_judge("alias").judge_one(_item(question, answer, aliases, response))
    assert verdict.correct is expected, verdict.reason


@pytest.mark.parametrize("case", YES_NO, ids=[c[0] for c in YES_NO])
def test_yes_no_class_rules(case: tuple[str, str, str, str, bool, bool]) -> None:
    _, question, answer, response, expected, _old = case
    item = _item(question, answer, [], response, options=("yes", "no"))
    verdict = get_judge("alias").judge_one(item)
    assert verdict.correct is expected, verdict.reason


def test_every_class_has_a_case_the_old_judge_got_wrong() -> None:
    changed = [c for c in CASES if c[5] != c[6]] + [c for c in YES_NO if c[4] != c[5]]
    assert len(changed) >= 20


def test_short_aliases_match_only_as_listed_codes() -> None:
    judge = get_judge("alias")
    q = "Which country is Jeff Bezos a citizen of?"
    assert judge.judge_one(_item(q, "United States", US, "Jeff Bezos is a US citizen.")).correct
    # "us" in lower case is the pronoun, not the code
    lower = _item(q, "United States", [*US, "US"], "Let us say Jeff Bezos is a citizen.")
    assert judge.judge_one(lower).correct is False
    # a 1-2 character alias that is not a listed code of the entity never matches
    de = _item("What is Berlin's country?", "Germany", ["DE"], "Berlin is in DE.")
    assert judge.judge_one(de).correct is False
    assert "DE" not in entity_codes(["Germany"])
    # UK is listed for the United Kingdom, written as a code it matches
    uk = _item("What is Paul McCartney's citizenship country?", "United Kingdom", UK, "The UK.")
    assert judge.judge_one(uk).correct is True
    assert "UK" in entity_codes(["United Kingdom"]) and code_table()


def test_option_form_scoring() -> None:
    """Options shown (DS, and MT in its options form): naming the gold option alone is correct,
    naming a wrong option (alone or beside the gold) is not; since round six (rules version 6)
    an option rejected right after "not" is no pick, so "China, not Colombia" picks China."""
    judge = get_judge("alias")
    q = "Options: South Korea, China, or Colombia. Which is Beijing's country?"
    opts = ("South Korea", "China", "Colombia")

    def verdict(response: str) -> bool | None:
        return judge.judge_one(_item(q, "China", [], response, options=opts)).correct

    assert verdict("Beijing's country is China.") is True
    assert verdict("The answer is China, not Colombia.") is True  # round six: a pick
    assert verdict("The answer is China or Colombia.") is False
    assert verdict("The answer is China, and Colombia is near it.") is False
    assert verdict("Beijing is in South Korea.") is False
    yes_no = ("yes", "no")
    mt = (
        "Granted that Sydney's country is Germany. Is it the case that Sydney's country is Germany?"
    )
    assert judge.judge_one(_item(mt, "no", [], "No.", options=yes_no)).correct is True
    assert judge.judge_one(_item(mt, "no", [], "Yes.", options=yes_no)).correct is False


def test_judge_is_fast_and_deterministic_on_the_development_set() -> None:
    labelled = load_dev(labels_dir())
    items = [r.item for r in labelled]
    judge = get_judge("alias")
    first = judge.judge(items)
    start = time.perf_counter()
    second = judge.judge(items)
    per_response = (time.perf_counter() - start) / len(items)
    assert [v.correct for v in first] == [v.correct for v in second]
    assert [v.reason for v in first] == [v.reason for v in second]
    assert per_response < 0.01  # goal 2 ms on an idle core; loose here for a loaded machine


@pytest.mark.parametrize(
    ("sentence", "lead_in"),
    [
        ("That is an interesting question.", True),
        ("Sure!", True),
        ("Great question!", True),
        # real first sentences of the full run (base MP-000086, MP-000021)
        (
            "To determine the nationality of Taylor Swift, we need to consider the rules of the "
            "rule of citizenship.",
            True,
        ),
        ("This question is a classic example of a logical fallacy.", True),
        ("Yes.", False),  # an answer
        ("The answer is Paris.", False),
        ("I'm not sure.", False),  # a refusal stays a refusal
        ("Sure, it is Paris.", False),
        ("Walt Disney's country of citizenship is indeed a unique and complex entity.", False),
    ],
)
def test_lead_in_sentences(sentence: str, lead_in: bool) -> None:
    assert is_lead_in(sentence) is lead_in


def test_a_part_of_the_object_denies_nothing() -> None:
    """'an English city' places Liverpool in a part of the United Kingdom: no denial (the judge
    does not know the part answers yes either, so it decides nothing), while France denies."""
    question = (
        "Note: If Liverpool's country is not the United Kingdom, its capital is not London. "
        "Answer yes or no: Liverpool's country is the United Kingdom?"
    )
    assert decide(question, "Liverpool is an English city.")[0] is None
    assert decide(question, "Liverpool is a city in France.")[0] == "no"

"""Alias judge on hand-built cases with known verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import is_slice
from hypothesis import given, settings
from hypothesis import strategies as st
from leak_metrics import JudgeItem, MultiResponseItem, get_judge, judge_any
from leak_metrics.judges.mention_rules import entity_codes, is_short
from leak_metrics.judges.yes_no import asked_claim, decide
from leak_metrics.normalize import tokenize, tokenize_spans

# The hand-built table (hedges, refusals, negations, partial names, aliases, options present or
# absent, MT yes/no) with the verdict each case must get; the LLM-judge test reuses it.
CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "judge_cases.json").read_text(encoding="utf-8")
)


def case_item(case: dict[str, Any]) -> JudgeItem:
    return JudgeItem(
        id=case["case"],
        question="question?",
        answer=case["answer"],
        aliases=tuple(case["aliases"]),
        options=tuple(case["options"]),
        response=case["response"],
    )


def test_case_table_is_broad() -> None:
    assert len(CASES) >= 25
    assert sum(c["expected"] for c in CASES) >= 10 and sum(not c["expected"] for c in CASES) >= 10
    assert any(c["options"] == ["yes", "no"] for c in CASES)
    assert any(c["options"] and c["answer"] != "yes" for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_hand_built_case_table(case: dict[str, Any]) -> None:
    [v] = get_judge("alias").judge([case_item(case)])
    assert v.correct is case["expected"], v.reason
    assert v.reason


def test_reasons_name_the_rule() -> None:
    by_case = {c["case"]: c for c in CASES}
    judge = get_judge("alias")

    def reason(name: str) -> str:
        return judge.judge([case_item(by_case[name])])[0].reason

    assert reason("hedge: two options") == "names wrong candidate(s) 'Lyon' next to gold 'Paris'"
    assert reason("negation: isn't").startswith("negates the gold 'Paris'")
    assert reason("refusal").startswith("refusal or hedge")
    assert reason("no options: maybe X or Y") == (
        "lists the gold 'France' among alternatives ('Germany')"
    )
    assert reason("MT: yes or no") == "hedges between yes and no; gold is 'yes'"


def test_judge_any_carries_options() -> None:
    item = MultiResponseItem(
        id="DS-1",
        question="Which city, Paris or Lyon, ...?",
        answer="Paris",
        options=("Paris", "Lyon"),
        responses=("Paris or Lyon", "Lyon"),
    )
    [v] = judge_any(get_judge("alias"), [item])
    assert v.correct is False  # the hedge would pass without the options
    [v] = judge_any(get_judge("alias"), [MultiResponseItem(**{**item.__dict__, "options": ()})])
    assert v.correct is False  # still a hedge by the no-options rule
    ok = MultiResponseItem(**{**item.__dict__, "responses": ("Lyon", "It is Paris.")})
    assert judge_any(get_judge("alias"), [ok])[0].correct is True


def test_yes_no_hedge_needs_a_connector() -> None:
    q = "Is it true that the capital of Japan is Tokyo?"
    assert decide(q, "yes/no")[0] is None
    assert decide(q, "Yes and no.")[0] is None
    assert decide(q, "Yes, no doubt.")[0] == "yes"
    assert decide(q, "No. Although yes, he visited Japan.")[0] == "no"


def test_token_spans_point_into_the_original_text() -> None:
    text = "It isn't Zürich, twenty-one"
    spans = tokenize_spans(text)
    assert [t.text for t in spans] == tokenize(text) == ["it", "is", "not", "zurich", "21"]
    assert text[spans[3].start : spans[3].end] == "Zürich"
    assert text[spans[4].start : spans[4].end] == "twenty-one"


def verdict(answer: str, response: str, aliases: tuple[str, ...] = ()) -> bool | None:
    judge = get_judge("alias")
    return judge.judge([JudgeItem("q1", "question?", answer, aliases, response=response)])[
        0
    ].correct


def test_tokenize_normalises_case_accents_articles_numbers_and_punctuation() -> None:
    assert tokenize("The Zürich-based Café, founded in 1,000 B.C.!") == [
        "zurich", "based", "cafe", "founded", "in", "1000", "b", "c",
    ]  # fmt: skip
    assert tokenize("twenty-one apples and three pears") == ["21", "apples", "and", "3", "pears"]
    assert tokenize("one hundred and five") == ["105"]
    assert tokenize("It isn't") == ["it", "is", "not"]


def test_soccer_matches_association_football_only_when_alias_given() -> None:
    response = "He played association football for his whole career."
    assert verdict("soccer", response) is False
    assert verdict("soccer", response, aliases=("association football",)) is True


@pytest.mark.parametrize(
    ("answer", "response", "expected"),
    [
        ("Paris", "The capital of France is Paris.", True),
        ("Paris", "The capital of France is PARIS!", True),
        ("São Paulo", "She was born in Sao Paulo, Brazil.", True),
        ("The Beatles", "That song is by Beatles.", True),
        ("3", "There are three moons.", True),
        ("three", "There are 3 moons.", True),
        ("21", "She turned twenty-one.", True),
        ("Paris", "The capital is Parisville.", False),  # whole words only
        ("New York", "He moved to York, then New Jersey.", False),  # contiguous run required
        ("Europe", "", False),
    ],
)
def test_entity_containment(answer: str, response: str, expected: bool) -> None:
    assert verdict(answer, response) is expected


def test_gold_made_of_article_only_is_still_matchable() -> None:
    assert verdict("The", "The answer is the.") is True


# Yes/no is judged against the question (issue 25): the response's statement is compared with
# the claim the question asks about, on both polarities; the old "plain statement = yes" rule
# made an evasion or a statement about something else a "yes".
ASKED = (
    "If Hiro's country is Japan, then his currency is yen. "
    "Judging by what is actually true, is it true that Hiro's country is Japan?"
)
ASKED_NOT = "Is it true that the developer of Windows Server 2008 is not Apple Inc.?"
ASKED_FALSE = "Judging by what is actually true, is it false that Hiro's country is Japan?"


@pytest.mark.parametrize(
    ("question", "response", "decision"),
    [
        (ASKED, "Yes, he is a citizen of Japan.", "yes"),
        (ASKED, "No, he is not a citizen of Japan.", "no"),
        (ASKED, "No. Although yes, he visited Japan.", "no"),  # first answer sentence decides
        (ASKED, "Hiro's country is not Japan.", "no"),  # statement, negated
        (ASKED, "Hiro's country isn't Japan.", "no"),
        (ASKED, "Hiro's country is Japan.", "yes"),  # statement affirming the asked claim
        (ASKED, "It is false that Hiro's country is Japan.", "no"),
        (ASKED, "That is true.", "yes"),
        (ASKED, "If Hiro's country were Japan, his currency would be yen.", None),  # hypothetical
        # another country as the value denies the claim (issue 35: "Sydney is a city in
        # Australia" for "is Sydney's country Germany?" is a no)
        (ASKED, "Hiro's country is South Korea.", "no"),
        (ASKED, "Hiro is a famous chef.", None),  # neither affirms nor denies the claim
        (ASKED, 'The statement "Hiro\'s country is Japan" is a classic logical fallacy.', None),
        (ASKED, "I'd rather not speculate about that.", None),  # evasion is never a "no"
        (ASKED, "I'm not sure.", None),
        (ASKED, "I don't know.", None),
        (ASKED, "", None),
        (ASKED_NOT, "The developer of Windows Server 2008 is not Apple Inc.", "yes"),
        (ASKED_NOT, "The developer of Windows Server 2008 is Apple Inc.", "no"),
        (ASKED_NOT, "That is true.", "yes"),
        (ASKED_FALSE, "Hiro's country is Japan.", "no"),
        (ASKED_FALSE, "Hiro's country is not Japan.", "yes"),
        (ASKED_FALSE, "Yes.", "yes"),
    ],
)
def test_yes_no_rule(question: str, response: str, decision: str | None) -> None:
    assert decide(question, response)[0] == decision


def test_asked_claim_reads_the_final_question_sentence() -> None:
    claim = asked_claim(ASKED_NOT)
    assert claim is not None
    assert (claim.obj, claim.negated, claim.asks_true) == (["apple", "inc"], True, True)
    claim = asked_claim(ASKED_FALSE)
    assert claim is not None and claim.asks_true is False and claim.obj == ["japan"]
    inverted = asked_claim("If Cape Town's country were Canada, ... Is Cape Town's country Canada?")
    assert inverted is not None and inverted.obj == ["canada"]
    assert asked_claim("No question here.") is None


def test_final_sentence_starts_after_a_number_or_abbreviation_closing_the_one_before() -> None:
    """kg-qgen's MT premises often end in a version number or "Inc." right before the ask: the
    premise's "not" must not leak into the asked claim (found building MQuAKE's MT set)."""
    q1 = (
        "Satya Nadella is not the chief executive of the maker of Windows Phone 8.1. "
        "Thus the maker of Windows Phone 8.1 is Microsoft?"
    )
    q2 = (
        "If the maker of QBasic is not Apple Inc., then it is not run by Tim Cook. QBasic's maker "
        "is not Apple Inc. So the maker of QBasic is Apple Inc.?"
    )
    for question, obj in ((q1, ["microsoft"]), (q2, ["apple", "inc"])):
        claim = asked_claim(question)
        assert claim is not None and claim.obj == obj and not claim.negated
    assert decide(q1, "The maker of Windows Phone 8.1 is Microsoft.")[0] == "yes"
    assert decide(q2, "The maker of QBasic is not Apple Inc.")[0] == "no"


def test_yes_no_gold_uses_decision() -> None:
    assert verdict("No", "No, he is not.") is True
    assert verdict("no", "Yes, definitely not wrong.") is False
    assert verdict("Yes", "I don't know.") is False
    # a statement that neither says yes/no nor restates the question's claim decides nothing
    assert verdict("yes", "He is a citizen of Japan.") is False


def test_verdict_carries_id_and_judge_name() -> None:
    [v] = get_judge("alias").judge([JudgeItem("HS-000042", "q", "Paris", (), response="Paris.")])
    assert (v.id, v.judge, v.correct) == ("HS-000042", "alias", True)
    assert "Paris" in v.reason


def test_unknown_judge_suggests_close_name() -> None:
    with pytest.raises(KeyError, match=r"unknown judge 'alais'; did you mean 'alias'\? Known: "):
        get_judge("alais")


words = st.sampled_from(["Paris", "Lyon", "or", "not", "maybe", "yes", "no", ",", ".", "/", "I", "don't", "know", "one", "of", "twenty-one", "3", "É", ""])  # fmt: skip
texts = st.lists(words, max_size=12).map(" ".join) | st.text(max_size=40)


@settings(derandomize=True, database=None, deadline=None, max_examples=300)
@given(texts, st.lists(texts, max_size=2), st.lists(texts, max_size=3), texts)
def test_alias_judge_always_decides(
    answer: str, aliases: list[str], options: list[str], response: str
) -> None:
    item = JudgeItem(
        id="h", question="q", answer=answer, aliases=aliases, options=options, response=response
    )
    [v] = get_judge("alias").judge([item])
    assert isinstance(v.correct, bool) and v.reason  # never unjudged, never an exception


def _code_or_long(alias: str, labels: tuple[str, ...]) -> bool:
    compact = "".join(c for c in alias if c.isalnum()).upper()
    return not is_short(alias) or compact in entity_codes(list(labels))


def test_hedge_negation_and_refusal_rules_on_real_answers(mquake_dev: Path) -> None:
    """Probes built from every staged MQuAKE-hard dev case: its gold answer, each alias, and its
    real distractor (``new_answer``, the edited answer) as the wrong candidate. Each probe must get
    its verdict on every case."""
    cases = json.loads(mquake_dev.read_text(encoding="utf-8"))
    judge = get_judge("alias")
    counts: dict[str, list[int]] = {}
    for case in cases:
        gold, wrong = case["answer"], case["new_answer"]
        aliases = tuple(case["answer_alias"])
        probes = [
            ("gold", (), f"{gold}.", True),
            ("gold in a sentence", (), f"The answer is {gold}.", True),
            ("committed option", (gold, wrong), gold, True),
            ("hedge between options", (gold, wrong), f"{gold} or {wrong}", False),
            ("hedge, wrong first", (gold, wrong), f"{wrong} or {gold}?", False),
            ("wrong option", (gold, wrong), f"{wrong}.", False),
            ("maybe X or Y, no options", (), f"maybe {gold} or {wrong}", False),
            ("one of a list, no options", (), f"It is one of {wrong}, {gold} or Narnia.", False),
            ("negated", (), f"It is not {gold}.", False),
            ("negated, isn't", (), f"It isn't {gold}.", False),
            ("refusal", (), "I don't know.", False),
            # a 1-2 character alias counts only as a listed code of the entity (issue 35):
            # "en" for English is no code, so the response "en" names nothing
            *(("alias", (), alias, _code_or_long(alias, (gold, *aliases))) for alias in aliases),
        ]
        for name, options, response, expected in probes:
            item = JudgeItem(
                id=str(case["case_id"]),
                question=case["questions"][0],
                answer=gold,
                aliases=aliases,
                options=options,
                response=response,
            )
            [v] = judge.judge([item])
            tally = counts.setdefault(name, [0, 0])
            tally[0] += v.correct is expected
            tally[1] += 1
    assert len(cases) == (24 if is_slice(mquake_dev) else 330)  # the counts SOURCE.md states
    assert {name: ok for name, (ok, _) in counts.items()} == {
        name: total for name, (_, total) in counts.items()
    }
    assert counts["alias"][1] > len(cases)  # the aliases were really probed


def test_known_as_fills_the_citizenship_slot() -> None:
    """Seen in the default run's GA answers after the committed-answer rules: "is known as the
    United States of America" answers a citizenship question; "known as the father of ... in the
    United States" does not."""
    judge = get_judge("alias")
    question = "Could you name the country of nationality of Henry Ford?"
    aliases = ["USA", "United States of America"]

    def verdict(response: str) -> bool | None:
        item = JudgeItem(
            id="x", question=question, answer="United States", aliases=aliases, response=response
        )
        return judge.judge([item])[0].correct

    assert verdict(
        "The country of nationality of Henry Ford is known as the United States of America."
    )
    assert verdict("Henry Ford's nationality is called the United States.")
    assert not verdict(
        "Henry Ford is known as the father of the assembly line in the United States."
    )

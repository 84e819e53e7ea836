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
from leak_metrics.judges.alias import yes_no_decision, yes_no_hedge
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
    assert reason("MT: yes or no") == "hedges between yes and no ('yes or no')"


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
    assert yes_no_hedge("yes/no") == "yes/no"
    assert yes_no_hedge("Yes, no doubt.") is None
    assert yes_no_hedge("No. Although yes, he visited Japan.") is None


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


@pytest.mark.parametrize(
    ("response", "decision"),
    [
        ("Yes, he is a citizen of Japan.", "yes"),
        ("No, he is not a citizen of Japan.", "no"),
        ("No. Although yes, he visited Japan.", "no"),  # first yes/no word decides
        ("He is not a citizen of Japan.", "no"),  # negation without yes/no word
        ("He isn't Japanese.", "no"),
        ("He is a citizen of Japan.", "yes"),  # plain affirmative statement
        ("I'm not sure.", None),  # hedge: no decision
        ("I don't know.", None),
        ("", None),
    ],
)
def test_yes_no_rule(response: str, decision: str | None) -> None:
    assert yes_no_decision(response)[0] == decision


def test_yes_no_gold_uses_decision() -> None:
    assert verdict("No", "No, he is not.") is True
    assert verdict("no", "Yes, definitely not wrong.") is False
    assert verdict("Yes", "I don't know.") is False
    assert verdict("yes", "He is a citizen of Japan.") is True


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
            *(("alias", (), alias, True) for alias in aliases),
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

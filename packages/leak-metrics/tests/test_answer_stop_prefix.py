"""The stop rule on a growing text: what a decoder that stops early relies on (issue 26).

A decoder asks :func:`answer_stop` only about the text up to the end of one of
:data:`ANSWER_STOP_STRINGS` (recover-attacks' ``AnswerEnd``) and, once it answers, stops; the
response it keeps runs at least that far. The property: whenever ``answer_stop(text[:e])`` finds
a stop for such an ``e``, every longer prefix ``text[:k]`` (k >= e: the shortened response, the
full-budget one) has the same committed answer as the whole text, so no verdict can change.
Checked on hand-made cases of the rule's lookahead and on the 847 real responses of the shipped
reading labels (SmolLM2-135M-Instruct answers from the default runs).
"""

from __future__ import annotations

import json
from importlib import resources

import pytest
from leak_metrics import ANSWER_STOP_STRINGS, answer_stop, committed_answer

TRICKY = [
    "He was born in the U.S. He moved to Paris in 1990. Later he left.",
    "He was born in the U.S. Theodore Roosevelt was too. Then",
    "He was born in the U.S.\nThe next line. More",
    "He was born in the U.S.  \n\nThe next line.",
    "The rod is 1.5 meters long. It bends.",
    "It is 3. 5 more follow.",
    "Apple Inc. was founded in Cupertino. Later it moved.",
    "Washington, D.C. is the capital of the U.S. It is on the Potomac. Then.",
    "The answer is:\nParis. Also Lyon.",
    "The answer is: \n\nParis!\nMore text",
    "J. R. R. Tolkien wrote it. Then he retired.",
    "It runs Windows Phone 8.1. Thus it is old.",
    'He said "yes." Then he left. Again.',
    "Is it Paris? Yes. It is.",
    "\n\nParis\nLyon",
    "Dr. Smith lives in St. Louis, Mo. He works there.",
    "It was founded ca. 1900 by Gen. Lee. The end.",
    # non-answer opening sentences: the stop comes after the answer sentence that follows them
    "That's an interesting question. Paris is the capital. More text.",
    "Great question! Let me think about it. Paris.\nLyon.",
    "Sure! Sure! Sure! Paris. Lyon.",
]


def real_responses() -> list[str]:
    path = resources.files("leak_metrics") / "data" / "judge_labels.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r["response"] for r in rows]


def trigger_ends(text: str) -> list[int]:
    ends = set()
    for s in ANSWER_STOP_STRINGS:
        i = text.find(s)
        while i >= 0:
            ends.add(i + len(s))
            i = text.find(s, i + 1)
    return sorted(ends)


def check_prefix_property(text: str) -> int:
    """Asserts the property for ``text``; returns at how many trigger ends a stop was found."""
    full = committed_answer(text)
    stops = 0
    for e in trigger_ends(text):
        if answer_stop(text[:e]) is None:
            continue
        stops += 1
        for k in range(e, len(text) + 1):
            assert committed_answer(text[:k]) == full, (text, e, k)
    return stops


@pytest.mark.parametrize("text", TRICKY)
def test_a_stop_on_a_prefix_ending_in_a_trigger_keeps_the_committed_answer(text: str) -> None:
    assert check_prefix_property(text) >= 1  # every case ends its answer before its end


def test_the_rule_waits_for_its_lookahead() -> None:
    # "U.S. " could go on as "U.S. He" (a new sentence) or "U.S. Navy": no stop yet
    assert answer_stop("He was born in the U.S. ") is None
    assert answer_stop("He was born in the U.S. He") == len("He was born in the U.S.")
    # without the trigger rule a text ending in "." would stop before "1.5" is complete
    assert answer_stop("The rod is 1.") is not None  # why the decoder never asks here
    assert answer_stop("The rod is 1.5 meters. ") == len("The rod is 1.5 meters.")
    assert answer_stop("Apple Inc. ") is None
    assert answer_stop("Apple Inc. was founded there. ") == len("Apple Inc. was founded there.")


def test_the_property_holds_on_every_shipped_real_response() -> None:
    responses = real_responses()
    assert len(responses) >= 800
    stopped = sum(check_prefix_property(text) > 0 for text in responses)
    # 386 of 847 end their first sentence where a decoder can see it inside the 24-token budget
    # (the others run to the budget or end with the text): the decoder saves on those
    assert stopped >= len(responses) // 3, stopped

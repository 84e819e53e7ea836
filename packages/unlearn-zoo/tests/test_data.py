"""Encoding of training examples: the chat format of ARCHITECTURE.md section 3 and its fallback."""

from __future__ import annotations

import copy
from typing import Any

from unlearn_zoo.chat_format import format_prompt
from unlearn_zoo.data import IGNORE_INDEX, encode_example


def test_chat_template_prompt_then_answer_and_eos(tokenizer: Any) -> None:
    rec = {"question": "Who wrote Hamlet?", "answer": "William Shakespeare", "spans": []}
    e = encode_example(tokenizer, rec, max_length=64)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": rec["question"]}], add_generation_prompt=True, tokenize=False
    )
    p_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    a_ids = tokenizer("William Shakespeare", add_special_tokens=False)["input_ids"]
    assert e.input_ids == p_ids + a_ids + [tokenizer.eos_token_id]
    assert e.labels == [IGNORE_INDEX] * len(p_ids) + a_ids + [tokenizer.eos_token_id]


def test_fallback_format_trains_the_answer_as_the_model_would_continue(tokenizer: Any) -> None:
    plain = copy.deepcopy(tokenizer)
    plain.chat_template = None
    rec = {
        "question": "Who wrote Hamlet?",
        "answer": "William Shakespeare",
        "spans": ["Shakespeare"],
    }
    assert format_prompt(plain, rec["question"]) == "Question: Who wrote Hamlet?\nAnswer:"
    e = encode_example(plain, rec, max_length=64)
    a_ids = plain(" William Shakespeare", add_special_tokens=False)["input_ids"]
    n_prompt = sum(1 for label in e.labels if label == IGNORE_INDEX)
    assert e.input_ids[n_prompt:] == [*a_ids, plain.eos_token_id]
    assert plain.decode(e.input_ids[n_prompt:-1]) == " William Shakespeare"
    # the span is still found (PALU onsets) after the leading space
    assert e.spans_found == ["Shakespeare"] and any(e.onset_mask)

"""A record's answer-form ``instruction`` reaches every prompt an attack builds (leakres issue 36).

kg-qgen writes each question's instruction ("Give only the answer."); leakres passes it in the
record's ``instruction`` field (empty for the bare prompt form). :func:`question_prompt` appends it
after one space; FocusOnKey finds its key words in the question alone and appends the instruction
after its rewrite.
"""

from __future__ import annotations

import pytest
from recover_attacks import generate, get_attack
from recover_attacks.attacks import probab
from recover_attacks.generation import question_prompt

INSTRUCTION = "give only the answer ."  # the fixtures' word-level tokenizer: spaced words


def _with(questions, instruction=INSTRUCTION):
    return [{**q, "instruction": instruction} for q in questions]


def test_question_prompt_appends_a_non_empty_instruction(questions):
    q = questions[0]
    assert question_prompt(q) == q["question"]  # no field: the question alone
    assert question_prompt({**q, "instruction": ""}) == q["question"]  # the bare form
    assert question_prompt({**q, "instruction": " Say it. "}) == f"{q['question']} Say it."
    assert question_prompt(_with([q])[0], "rewritten ?") == f"rewritten ? {INSTRUCTION}"


def test_generate_renders_a_records_instruction(model, tokenizer, questions):
    records = _with(questions[:2])
    from_records = generate(model, tokenizer, records, max_new_tokens=3)
    from_text = generate(model, tokenizer, [question_prompt(r) for r in records], max_new_tokens=3)
    assert from_records == from_text


def test_probab_samples_the_prompt_with_the_instruction(model, tokenizer, questions, monkeypatch):
    seen = []

    def spy(model, tokenizer, prompts, **kwargs):
        seen.extend(prompts)
        return [["x"] * kwargs["num_return_sequences"] for _ in prompts]

    monkeypatch.setattr(probab, "generate", spy)
    get_attack("probab").run(model, tokenizer, _with(questions), progress=False)
    assert seen == [f"{q['question']} {INSTRUCTION}" for q in questions]


def test_focus_on_key_keeps_its_keys_and_appends_the_instruction(
    model, original_model, tokenizer, questions
):
    attack = get_attack("focus_on_key", max_new_tokens=2)
    plain = attack.run(model, tokenizer, questions, original_model=original_model, progress=False)
    asked = attack.run(
        model, tokenizer, _with(questions), original_model=original_model, progress=False
    )
    for without, with_instruction in zip(plain, asked, strict=True):
        assert with_instruction.settings["key_words"] == without.settings["key_words"]
        assert with_instruction.settings["prompt"] == f"{without.settings['prompt']} {INSTRUCTION}"


@pytest.mark.parametrize("instruction", [INSTRUCTION, ""])
def test_in_context_asks_the_attacked_question_with_its_instruction(
    model, tokenizer, questions, instruction
):
    facts = {"SH-1": [("who is the spouse of john ?", "mary")]}
    (result,) = get_attack("in_context", max_new_tokens=2).run(
        model, tokenizer, _with(questions[1:2], instruction), context_facts=facts, progress=False
    )
    asked = f"{questions[1]['question']} {instruction}".strip()
    assert f"{asked}<|im_end|>" in result.settings["prompt"]

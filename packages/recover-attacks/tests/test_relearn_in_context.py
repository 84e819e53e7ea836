import pytest
import torch
from recover_attacks import ForgottenFactLeakError, RecordError, get_attack

RETAIN = [
    ("what is the capital of germany ?", "berlin"),
    {"question": "which language is spoken in england ?", "answer": "english"},
    ("what river flows through london ?", "thames"),
]


def test_relearn_runs_on_copy_and_records_settings(model, tokenizer, questions):
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    results = get_attack("relearn", steps=5, max_new_tokens=4).run(
        model, tokenizer, questions, relearn_data=RETAIN, progress=False
    )
    assert [r.id for r in results] == [q["id"] for q in questions]
    s = results[0].settings
    assert (s["steps"], s["lr"], s["lora_r"], s["relearn_examples"]) == (5, 2e-4, 16, 3)
    # the adapter learned something on the relearn set
    assert s["relearn_loss_last"] < s["relearn_loss_first"]
    # the unlearned model given by the caller is untouched, without LoRA modules
    assert all(torch.equal(p, before[n]) for n, p in model.named_parameters())
    assert not any("lora" in n for n, _ in model.named_parameters())


@pytest.mark.parametrize(
    "leak",
    [
        ("what is the capital of france ?", "paris"),  # the attacked question itself
        ("what is the country of citizenship of ada lovelace ?", "england"),  # forgotten target
        ("ada lovelace was a citizen of which country ?", "England"),  # paraphrase, same fact
        {
            "question": "x ?",
            "answer": "y",
            "target": {"subject": "France", "relation": "capital", "object": "Paris"},
        },
    ],
)
def test_relearn_set_never_contains_forgotten_fact(model, tokenizer, questions, leak):
    with pytest.raises(ForgottenFactLeakError, match="relearn_data: item #3"):
        get_attack("relearn", steps=1).run(
            model, tokenizer, questions, relearn_data=[*RETAIN, leak], progress=False
        )


def test_relearn_needs_data(model, tokenizer, questions):
    with pytest.raises(RecordError, match="relearn_data"):
        get_attack("relearn").run(model, tokenizer, questions, progress=False)
    with pytest.raises(RecordError, match=r"item #1 is missing field 'answer'"):
        get_attack("relearn").run(
            model, tokenizer, questions, relearn_data=[RETAIN[0], ("q ?", "")], progress=False
        )


def test_in_context_prompt_has_facts_before_question(model, tokenizer, questions):
    facts = {"SH-1": [("who is the spouse of john ?", "mary")], "HS-0": RETAIN[:2]}
    results = get_attack("in_context", max_new_tokens=4).run(
        model, tokenizer, questions[1:], context_facts=facts, progress=False
    )
    prompt = results[0].settings["prompt"]
    assert prompt.index("spouse of john") < prompt.index("mary") < prompt.index("ada lovelace")
    assert prompt.endswith("<|im_start|>assistant\n")
    assert [r.settings["num_shots"] for r in results] == [1, 2]
    assert all(len(r.responses) == 1 for r in results)


def test_in_context_rejects_forgotten_fact(model, tokenizer, questions):
    with pytest.raises(ForgottenFactLeakError, match="context_facts"):
        get_attack("in_context").run(
            model,
            tokenizer,
            questions,
            context_facts=[("capital of france ?", "paris")],
            progress=False,
        )

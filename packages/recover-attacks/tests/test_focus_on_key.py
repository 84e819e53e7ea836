import pytest
import torch
from recover_attacks import RecordError, get_attack
from recover_attacks.attacks.focus_on_key import token_contributions


def brute_force_contributions(model, tokenizer, question, answer):
    """Independent computation: drop one word from the question STRING, re-render the chat
    prompt, and score each sequence alone (no batching, no padding)."""

    def lp(q):
        prompt = tokenizer.apply_chat_template(
            [{"role": "user", "content": q}], add_generation_prompt=True, tokenize=False
        )
        p_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        a_ids = tokenizer(answer, add_special_tokens=False)["input_ids"]
        ids = torch.tensor([p_ids + a_ids])
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), -1)
        return sum(logp[len(p_ids) + j - 1, t].item() for j, t in enumerate(a_ids))

    words = question.split()
    base = lp(question)
    return {i: (w, base - lp(" ".join(words[:i] + words[i + 1 :]))) for i, w in enumerate(words)}


@pytest.mark.parametrize("qi", [0, 1, 2])
def test_contributions_match_brute_force(original_model, tokenizer, questions, qi):
    q = questions[qi]
    fast = token_contributions(original_model, tokenizer, q["question"], q["answer"])
    brute = brute_force_contributions(original_model, tokenizer, q["question"], q["answer"])
    # the word-level tokenizer gives one token per word: only question tokens are candidates
    assert [c.text for c in fast] == [w for w, _ in brute.values()]
    for c in fast:
        assert c.contribution == pytest.approx(brute[c.index][1], abs=1e-4)


def test_prompt_holds_highest_contribution_words(model, original_model, tokenizer, questions):
    results = get_attack("focus_on_key", max_new_tokens=4).run(
        model, tokenizer, questions, original_model=original_model, progress=False
    )
    for q, r in zip(questions, results, strict=True):
        brute = brute_force_contributions(original_model, tokenizer, q["question"], q["answer"])
        ranked = sorted(
            ((c, w) for w, c in brute.values() if c > 0 and w.strip("?.,()")),
            key=lambda x: -x[0],
        )
        expected = list(dict.fromkeys(w for _, w in ranked))[:3]
        assert r.settings["key_words"] == expected
        assert expected, "the random model gives some positive contributions"
        keys = ", ".join(w for w in expected for _ in range(2))
        assert r.settings["prompt"] == f"{q['question']} (Key: {keys})"
        assert len(r.responses) == 1
        assert (r.settings["top_k"], r.settings["repeats"]) == (3, 2)


def test_configurable_k_repeats_template(model, original_model, tokenizer, questions):
    r = get_attack(
        "focus_on_key", top_k=1, repeats=3, template="{keys} | {question}", max_new_tokens=2
    ).run(model, tokenizer, questions[:1], original_model=original_model, progress=False)[0]
    (word,) = r.settings["key_words"]
    assert r.settings["prompt"] == f"{word}, {word}, {word} | {questions[0]['question']}"


def test_needs_answer_names_record_and_field(model, original_model, tokenizer, questions):
    del questions[1]["answer"]
    with pytest.raises(RecordError, match=r"record #1 \(id 'SH-1'\) is missing field 'answer'"):
        get_attack("focus_on_key").run(model, tokenizer, questions, original_model=original_model)


def test_needs_original_model(model, tokenizer, questions):
    with pytest.raises(RecordError, match="original_model"):
        get_attack("focus_on_key").run(model, tokenizer, questions, progress=False)

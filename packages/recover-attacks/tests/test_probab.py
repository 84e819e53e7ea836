from recover_attacks import get_attack


def test_five_samples_per_question_seeded(model, tokenizer, questions):
    attack = get_attack("probab", max_new_tokens=8, seed=7)
    first = attack.run(model, tokenizer, questions, progress=False)
    again = attack.run(model, tokenizer, questions, progress=False)
    other = get_attack("probab", max_new_tokens=8, seed=8).run(
        model, tokenizer, questions, progress=False
    )
    assert [r.id for r in first] == [q["id"] for q in questions]
    assert all(len(r.responses) == 5 for r in first)
    assert [r.responses for r in first] == [r.responses for r in again]
    assert [r.responses for r in first] != [r.responses for r in other]
    # samples of one question differ from each other (random model, T = 0.8)
    assert len(set(first[0].responses)) > 1
    s = first[0].settings
    assert (s["temperature"], s["top_p"], s["num_samples"], s["seed"]) == (0.8, 0.95, 5, 7)
    assert first[0].to_dict()["attack"] == "probab"


def test_samples_share_one_prefill_per_question(model, tokenizer, questions, monkeypatch):
    """The engine prefills each question once and decodes its 5 samples as 5 rows of one batch
    (the engine replaced the single ``model.generate(num_return_sequences=5)`` call)."""
    shapes = []
    original = type(model).forward

    def spy(self, *args, **kwargs):
        shapes.append(tuple(kwargs["input_ids"].shape))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(model), "forward", spy)
    get_attack("probab", max_new_tokens=4, batch_size=16).run(
        model, tokenizer, questions, progress=False
    )
    prefills = [rows for rows, width in shapes if width > 1]
    decode_rows = [rows for rows, width in shapes if width == 1]
    assert prefills[-1] == len(questions)  # after the shared chat-header pass: one row each
    assert decode_rows[0] == 5 * len(questions)

from recover_attacks import format_prompt, generate, select_successfully_unlearned


def test_format_prompt_is_chat_template(tokenizer):
    p = format_prompt(tokenizer, "what is the capital of france ?")
    assert (
        p == "<|im_start|>user\nwhat is the capital of france ?<|im_end|>\n<|im_start|>assistant\n"
    )


def test_format_prompt_fallback_without_template(tokenizer):
    import copy

    tok = copy.deepcopy(tokenizer)
    tok.chat_template = None
    assert format_prompt(tok, "who is ada ?") == "Question: who is ada ?\nAnswer:"


def test_generate_restores_order_after_length_sort(model, tokenizer):
    # Lengths deliberately unsorted; batch_size 1 gives the unbatched reference per item.
    items = [
        "what is the capital of france ?",
        "who ?",
        "which continent is the country of ada in ?",
    ]
    batched = generate(model, tokenizer, items, batch_size=3, max_new_tokens=6)
    single = [generate(model, tokenizer, [q], batch_size=1, max_new_tokens=6)[0] for q in items]
    assert batched == single
    assert all(len(r) == 1 for r in batched)
    assert tokenizer.padding_side == "right"  # restored after the temporary left padding


def test_select_successfully_unlearned():
    base = {"a": True, "b": True, "c": False, "d": True}
    unl = {"a": False, "b": True, "c": False, "d": False}
    assert select_successfully_unlearned(base, unl) == ["a", "d"]


def test_generate_without_chat_template_uses_fallback(model, tokenizer):
    import copy

    tok = copy.deepcopy(tokenizer)
    tok.chat_template = None
    seen = []
    original = type(model).forward

    def spy(self, *args, **kwargs):
        seen.append(kwargs["input_ids"][0].tolist())
        return original(self, *args, **kwargs)

    type(model).forward = spy
    try:
        out = generate(model, tok, [{"id": "x", "question": "who is ada ?"}], max_new_tokens=3)
    finally:
        type(model).forward = original
    assert len(out) == 1 and len(out[0]) == 1
    # the first forward pass is the prefill of the fallback prompt, tokenized with the
    # tokenizer's own special tokens
    assert seen[0] == tok("Question: who is ada ?\nAnswer:", add_special_tokens=True)["input_ids"]

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


ROW_QUESTIONS = [
    "what is the capital of france ?",
    "who is john ?",
    "what river flows through berlin ?",
    "which continent is the country of citizenship of ada lovelace in ?",
    "is mary a spouse ?",
    "which language is spoken in england ?",
]


def test_batch_size_bounds_rows_not_prompts(model, tokenizer, monkeypatch, one_thread):
    # batch_size counts rows (sequences), so memory does not grow with the number of samples:
    # 6 questions x 4 samples with batch_size 8 decode 8 rows at once (two questions), never
    # 8 questions' 32 rows; a batch_size under num_return_sequences still decodes one question.
    import recover_attacks.generation as generation_module
    from recover_attacks.engine import LocalEngine

    engines: list[LocalEngine] = []

    class Recording(LocalEngine):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            engines.append(self)

    monkeypatch.setattr(generation_module, "LocalEngine", Recording)
    widths: list[int] = []
    original = type(model).forward

    def spy(self, *args, **kwargs):
        widths.append(int(kwargs["input_ids"].shape[0]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(model), "forward", spy)
    kw = dict(do_sample=True, num_return_sequences=4, max_new_tokens=6, seed=3, temperature=1.3)
    by_rows = {}
    for batch_size in (8, 2, 64):
        widths.clear()
        by_rows[batch_size] = generate(model, tokenizer, ROW_QUESTIONS, batch_size=batch_size, **kw)
        rows = max(batch_size, 4)
        assert engines[-1].max_batch_size == rows
        assert engines[-1].last_stats.extra["max_rows"] == rows
        assert max(widths) <= rows  # no forward pass (prefill or step) is wider
        # the rows are used (a row may end at its first token, so not always every one)
        assert max(widths) > min(rows, 4 * len(ROW_QUESTIONS)) // 2
    # greedy: batch_size is the row count as before
    generate(model, tokenizer, ROW_QUESTIONS, batch_size=3, max_new_tokens=2)
    assert engines[-1].max_batch_size == 3
    # the rows bound memory, never a response
    assert by_rows[8] == by_rows[2] == by_rows[64]
    assert all(len(r) == 4 for r in by_rows[8])
    assert any(len(set(r)) > 1 for r in by_rows[8])  # the samples are sampled

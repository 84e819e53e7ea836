"""The injected answer-end rule (``DecodingConfig.answer_end``): a response stops once the rule
finds its judged answer ended, the text is never cut, and the rule is asked only about text that
ends with a trigger (its lookahead generated). leak-metrics' real rule is checked with the real
model in leakres-cli's tests (the libraries never import each other); here a rule of the same
shape: the answer is the first three words, ended by the space after the third."""

from __future__ import annotations

import pytest
import torch
from recover_attacks import generate
from recover_attacks.engine import AnswerEnd, DecodingConfig, EngineError, LocalEngine
from recover_attacks.engine import kv as kv_module
from recover_attacks.engine.stops import answer_end_rule
from recover_attacks.generation import format_prompt

QUESTIONS = [
    "what is the capital of france ?",
    "who ?",
    "which continent is the country of citizenship of ada lovelace in ?",
    "what river flows through berlin ?",
]
TRIGGERS = (" ",)


def three_words(text: str) -> int | None:
    """Index past the third word, once a space after it shows the word is complete."""
    words = text.split(" ")
    if len(words) < 4:
        return None
    return len(" ".join(words[:3]))


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Tiny models: a second intra-op thread only spin-waits on a shared CPU."""


def test_the_rule_is_asked_only_up_to_a_trigger():
    asked: list[str] = []

    def rule(text: str) -> int | None:
        asked.append(text)
        return None

    end = AnswerEnd(None, rule, (". ", "\n"))
    assert not end.ended("The U.S. He was\nborn in 1.5")
    assert asked == ["The U.S. ", "The U.S. He was\n"]  # never "...U.S." nor "...1."
    assert not AnswerEnd(None, None, (". ",)) and not AnswerEnd(None, rule, ())


def test_a_response_stops_where_the_rule_says_and_is_not_cut(model, tokenizer):
    prompts = [format_prompt(tokenizer, q) for q in QUESTIONS]
    engine = LocalEngine(model, tokenizer)
    full = engine.complete(prompts, DecodingConfig(max_new_tokens=12))
    full_tokens = engine.last_stats.generated_tokens
    config = DecodingConfig(max_new_tokens=12, answer_end=three_words, answer_end_triggers=TRIGGERS)
    short = engine.complete(prompts, config)
    assert engine.last_stats.generated_tokens < full_tokens
    for (f,), (s,) in zip(full, short, strict=True):
        assert f.startswith(s)  # greedy: the same tokens, fewer of them
        if three_words(f) is not None and len(f.split(" ")) > 4:
            assert three_words(s) == three_words(f)  # the judged part is whole
            assert len(s.split(" ")) == 4  # stopped with the fourth word, not later
    assert "stop" in {r for rs in engine.last_finish_reasons for r in rs}


def test_seeded_samples_stop_early_on_the_same_stream(model, tokenizer):
    kwargs = {"do_sample": True, "num_return_sequences": 3, "max_new_tokens": 12, "seed": 7}
    full = generate(model, tokenizer, QUESTIONS, **kwargs)
    short = generate(
        model, tokenizer, QUESTIONS, answer_end=three_words, answer_end_triggers=TRIGGERS, **kwargs
    )
    for per_f, per_s in zip(full, short, strict=True):
        for f, s in zip(per_f, per_s, strict=True):
            assert f.startswith(s) and three_words(f + " ") == three_words(s + " ")


def test_the_rule_reaches_generate_through_the_context(model, tokenizer):
    full = generate(model, tokenizer, QUESTIONS, max_new_tokens=12)
    with answer_end_rule(three_words, TRIGGERS):
        inside = generate(model, tokenizer, QUESTIONS, max_new_tokens=12)
    assert generate(model, tokenizer, QUESTIONS, max_new_tokens=12) == full  # reset after
    assert inside != full and all(f[0].startswith(i[0]) for f, i in zip(full, inside, strict=True))


def test_the_fallback_path_stops_at_the_same_place(model, tokenizer, monkeypatch):
    prompts = [format_prompt(tokenizer, q) for q in QUESTIONS]
    config = DecodingConfig(max_new_tokens=12, answer_end=three_words, answer_end_triggers=TRIGGERS)
    want = LocalEngine(model, tokenizer).complete(prompts, config)

    def refuse(cache):
        raise kv_module.UnsupportedCacheError("sliding window (test)")

    monkeypatch.setattr(kv_module, "check_supported", refuse)
    engine = LocalEngine(model, tokenizer, max_batch_size=2)
    assert engine.complete(prompts, config) == want
    assert engine.describe()["path"].startswith("model.generate")


def test_config_records_the_rule_and_rejects_a_rule_without_triggers():
    config = DecodingConfig(answer_end=three_words, answer_end_triggers=[" "])
    record = config.describe()
    assert record["answer_end"].endswith("three_words") and record["answer_end_triggers"] == [" "]
    assert "answer_end" not in DecodingConfig().describe()  # older records read the same
    with pytest.raises(EngineError, match="answer_end_triggers"):
        DecodingConfig(answer_end=three_words)
    with pytest.raises(ValueError, match="trigger"), answer_end_rule(three_words, ()):
        pass


@torch.no_grad()
def test_generated_tokens_are_counted_process_wide(model, tokenizer):
    from recover_attacks.engine.base import generated_tokens_total

    before = generated_tokens_total()
    engine = LocalEngine(model, tokenizer)
    engine.complete([format_prompt(tokenizer, QUESTIONS[0])], DecodingConfig(max_new_tokens=5))
    assert generated_tokens_total() - before == engine.last_stats.generated_tokens > 0

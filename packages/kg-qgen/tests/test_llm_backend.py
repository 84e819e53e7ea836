"""OpenAIBackend and CachedBackend against a scripted OpenAI-compatible endpoint.

The endpoint is :class:`kg_qgen.llm.testing.ScriptedChatServer`: a stdlib ``http.server`` on
127.0.0.1 started by each test, a scripted stand-in for a real endpoint. Requests go through the
real ``openai`` client.
"""

from __future__ import annotations

import json
import logging

import pytest
from kg_qgen.llm.backend import LLMBackendError, get_backend, make_backend
from kg_qgen.llm.cache import CachedBackend, cache_key
from kg_qgen.llm.openai_backend import OpenAIBackend
from kg_qgen.llm.testing import Reply, ScriptedChatServer

SECRET = "sk-test-SECRET-1234567890"


def msgs(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"prompt {i}"}]


def test_sends_chat_requests_and_returns_in_order() -> None:
    def script(body: dict, n: int) -> Reply:
        return Reply(content="answer to " + body["messages"][-1]["content"])

    with ScriptedChatServer(script) as server:
        backend = OpenAIBackend(server.base_url, "m1", max_concurrency=4)
        out = backend.complete_many([msgs(i) for i in range(6)], max_tokens=32)
        body = server.requests[0]["body"]
    assert out == [f"answer to prompt {i}" for i in range(6)]
    assert body["model"] == "m1" and body["max_tokens"] == 32 and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"} and body["seed"] == 0
    assert server.requests[0]["path"] == "/v1/chat/completions"


def test_retries_server_errors_with_backoff_then_succeeds() -> None:
    def script(body: dict, n: int) -> Reply:
        if n < 2:
            return Reply(status=500 if n == 0 else 503)
        return Reply(content="ok")

    with ScriptedChatServer(script) as server:
        backend = OpenAIBackend(server.base_url, "m", max_retries=4, backoff_base=0.01)
        assert backend.complete_many([msgs(0)]) == ["ok"]
        assert len(server.requests) == 3


def test_rate_limit_is_retried_but_other_client_errors_are_not() -> None:
    with ScriptedChatServer(lambda b, n: Reply(status=429) if n == 0 else Reply("ok")) as server:
        backend = OpenAIBackend(server.base_url, "m", backoff_base=0.01)
        assert backend.complete_many([msgs(0)]) == ["ok"]
    with ScriptedChatServer(lambda b, n: Reply(status=400, error_message="bad field")) as server:
        backend = OpenAIBackend(server.base_url, "m", backoff_base=0.01)
        with pytest.raises(LLMBackendError, match="HTTP 400") as info:
            backend.complete_many([msgs(0)])
        assert len(server.requests) == 1
    assert info.value.results == [None] and "bad field" in info.value.errors[0]


def test_retries_are_bounded_and_failures_keep_partial_results() -> None:
    def script(body: dict, n: int) -> Reply:
        fail = body["messages"][-1]["content"] == "prompt 1"
        return Reply(status=500) if fail else Reply(content="fine")

    with ScriptedChatServer(script) as server:
        backend = OpenAIBackend(server.base_url, "m", max_retries=2, backoff_base=0.01)
        with pytest.raises(LLMBackendError) as info:
            backend.complete_many([msgs(0), msgs(1), msgs(2)])
        bad = [r for r in server.requests if r["body"]["messages"][-1]["content"] == "prompt 1"]
    assert len(bad) == 3  # first try + 2 retries
    assert info.value.results == ["fine", None, "fine"]
    assert "HTTP 500" in info.value.errors[1] and "after 3 attempt(s)" in info.value.errors[1]


def test_timeout_gives_a_clear_error() -> None:
    with ScriptedChatServer(lambda b, n: Reply(content="late", delay=1.5)) as server:
        backend = OpenAIBackend(server.base_url, "m", timeout=0.3, max_retries=0)
        with pytest.raises(LLMBackendError, match=r"request timed out after 0\.3 s"):
            backend.complete_many([msgs(0)])


def test_concurrency_limit_is_respected() -> None:
    with ScriptedChatServer(lambda b, n: Reply(content="x", delay=0.15)) as server:
        backend = OpenAIBackend(server.base_url, "m", max_concurrency=3)
        assert backend.complete_many([msgs(i) for i in range(12)]) == ["x"] * 12
        assert server.max_in_flight == 3  # parallel, but never above the limit
    with ScriptedChatServer(lambda b, n: Reply(content="x", delay=0.05)) as server:
        OpenAIBackend(server.base_url, "m", max_concurrency=1).complete_many(
            [msgs(i) for i in range(4)]
        )
        assert server.max_in_flight == 1


def test_api_key_reaches_the_server_but_never_logs_reprs_errors_or_cache(
    tmp_path, monkeypatch, caplog
) -> None:
    monkeypatch.setenv("KG_QGEN_LLM_API_KEY", SECRET)

    def script(body: dict, n: int) -> Reply:
        if body["messages"][-1]["content"] == "prompt 9":  # a server that echoes the key back
            return Reply(status=401, error_message=f"Incorrect API key provided: {SECRET}")
        return Reply(status=500, error_message=f"upstream saw {SECRET}") if n == 0 else Reply("ok")

    caplog.set_level(logging.DEBUG)
    with ScriptedChatServer(script) as server:
        backend = OpenAIBackend(server.base_url, "m", backoff_base=0.01)
        cached = CachedBackend(backend, tmp_path / "cache")
        assert cached.complete_many([msgs(0)]) == ["ok"]
        with pytest.raises(LLMBackendError) as info:
            backend.complete_many([msgs(9)])
        headers = [r["headers"].get("authorization") for r in server.requests]
    assert headers[0] == f"Bearer {SECRET}"  # the key is used...
    assert "(retry 1 of 4)" in caplog.text  # ...the retry was logged (by the openai client)...
    texts = [
        caplog.text,
        repr(backend),
        repr(cached),
        json.dumps(backend.settings()),
        json.dumps(cached.settings()),
        str(info.value),
        json.dumps(info.value.errors),
        backend.backend_id,
    ]
    texts += [p.read_text() for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    texts += [p.name for p in (tmp_path / "cache").rglob("*")]
    assert len(texts) > 8
    for text in texts:
        assert SECRET not in text  # ...but never shown
    assert "***" in str(info.value)


def test_credentials_in_the_url_are_not_part_of_ids() -> None:
    backend = OpenAIBackend("http://user:pw@127.0.0.1:9/v1", "m")
    assert "pw" not in backend.backend_id and "pw" not in repr(backend)
    assert backend.backend_id == "openai:http://127.0.0.1:9/v1"


def test_cache_key_covers_model_prompt_version_messages_and_params() -> None:
    base = cache_key("openai:u", "m", "v1", msgs(0), {"temperature": 0.0})
    assert base == cache_key("openai:u", "m", "v1", msgs(0), {"temperature": 0.0})
    others = [
        cache_key("openai:v", "m", "v1", msgs(0), {"temperature": 0.0}),
        cache_key("openai:u", "m2", "v1", msgs(0), {"temperature": 0.0}),
        cache_key("openai:u", "m", "v2", msgs(0), {"temperature": 0.0}),
        cache_key("openai:u", "m", "v1", msgs(1), {"temperature": 0.0}),
        cache_key("openai:u", "m", "v1", msgs(0), {"temperature": 0.5}),
    ]
    assert len({base, *others}) == 6


def test_cache_stores_successes_only_and_retries_failures(tmp_path) -> None:
    calls = {"n": 0}

    def script(body: dict, n: int) -> Reply:
        calls["n"] += 1
        bad = body["messages"][-1]["content"] == "prompt 1" and n < 2
        return Reply(status=400) if bad else Reply(content=body["messages"][-1]["content"] + "!")

    with ScriptedChatServer(script) as server:
        cached = CachedBackend(OpenAIBackend(server.base_url, "m"), tmp_path)
        with pytest.raises(LLMBackendError) as info:
            cached.complete_many([msgs(0), msgs(1)])
        assert info.value.results == ["prompt 0!", None]
        assert cached.complete_many([msgs(0), msgs(1)]) == ["prompt 0!", "prompt 1!"]
        assert cached.complete_many([msgs(0), msgs(1)]) == ["prompt 0!", "prompt 1!"]
    assert calls["n"] == 3 and cached.hits == 3 and cached.misses == 3
    assert len(list(tmp_path.rglob("*.json"))) == 2


def test_backend_registry_has_did_you_mean() -> None:
    assert get_backend("openai") is OpenAIBackend
    with pytest.raises(KeyError, match="did you mean 'openai'"):
        make_backend("opeanai", base_url="http://x", model="m")

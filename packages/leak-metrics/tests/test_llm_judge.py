"""LLM judge against a scripted stand-in for an OpenAI-compatible server.

The server is a stdlib ``http.server.ThreadingHTTPServer`` on 127.0.0.1 started by the test in a
background thread. It is NOT a language model: it answers ``/v1/chat/completions`` by script,
based on the RESPONSE line of the judge prompt (``gold`` in response -> "correct"; ``GARBAGE`` ->
a non-JSON reply; ``SLOW`` -> sleeps past the client timeout). It records every request, the
Authorization header and the peak number of concurrent requests.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from leak_metrics import JudgeItem, get_judge
from leak_metrics.judges import LLMJudge, build_messages, parse_reply

API_KEY = "sk-test-SECRET-4242"


class ScriptedServer:
    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(body)
                    server.auth_headers.append(self.headers.get("Authorization", ""))
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                try:
                    reply = server.script(body)
                    time.sleep(server.delay_s)
                    payload = json.dumps(
                        {
                            "id": "chatcmpl-test",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body["model"],
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": reply},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {
                                "prompt_tokens": 11,
                                "completion_tokens": 7,
                                "total_tokens": 18,
                            },
                        }
                    ).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        gold = re.search(r"^GOLD ANSWER: (.*)$", user, flags=re.MULTILINE).group(1)  # type: ignore[union-attr]
        response = re.search(r"^RESPONSE: (.*)$", user, flags=re.MULTILINE).group(1)  # type: ignore[union-attr]
        if "GARBAGE" in response:
            return "I think it is probably fine."
        if "SLOW" in response:
            time.sleep(1.5)
        verdict = "correct" if gold.lower() in response.lower() else "incorrect"
        return f'```json\n{{"verdict": "{verdict}", "reason": "scripted"}}\n```'


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def make_judge(server: ScriptedServer, cache_dir: Path | None = None, **kwargs: Any) -> LLMJudge:
    settings: dict[str, Any] = {"max_retries": 2, "backoff_s": 0.01, "timeout_s": 5.0}
    settings.update(kwargs)
    judge = get_judge(
        "llm",
        model="judge-model",
        base_url=server.base_url,
        api_key=API_KEY,
        cache_dir=str(cache_dir) if cache_dir else None,
        **settings,
    )
    assert isinstance(judge, LLMJudge)
    return judge


def items() -> list[JudgeItem]:
    return [
        JudgeItem("q1", "Capital of France?", "Paris", ("City of Light",), (), "It is Paris."),
        JudgeItem("q2", "Capital of France?", "Paris", (), (), "It is Lyon."),
        JudgeItem("q3", "Which sport?", "soccer", ("association football",), (), "soccer, surely"),
    ]


def test_json_verdicts_parsed_and_usage_counted(server: ScriptedServer) -> None:
    judge = make_judge(server)
    verdicts = judge.judge(items())
    assert [v.correct for v in verdicts] == [True, False, True]
    assert [v.id for v in verdicts] == ["q1", "q2", "q3"]
    assert all(v.judge == "llm" and v.reason == "scripted" for v in verdicts)
    assert judge.usage.requests == 3
    assert (judge.usage.prompt_tokens, judge.usage.completion_tokens) == (33, 21)
    body = server.requests[0]
    assert body["temperature"] == 0 and body["model"] == "judge-model"
    assert "ACCEPTED ALIASES: City of Light" in build_messages(items()[0])[1]["content"]


def test_non_json_reply_is_retried_then_unjudged(server: ScriptedServer) -> None:
    judge = make_judge(server, max_retries=2)
    bad = JudgeItem("q9", "Capital?", "Paris", (), (), "GARBAGE Paris")
    [verdict] = judge.judge([bad])
    assert verdict.correct is None
    assert "unjudged after 3 attempts" in verdict.reason
    assert "not a JSON verdict" in verdict.reason
    assert len(server.requests) == 3
    assert judge.usage.unjudged == 1 and judge.usage.failed_requests == 3


def test_timeout_is_unjudged_not_wrong(server: ScriptedServer) -> None:
    judge = make_judge(server, max_retries=1, timeout_s=0.3)
    verdicts = judge.judge([JudgeItem("slow", "Q?", "Paris", (), (), "SLOW Paris"), items()[0]])
    assert verdicts[0].correct is None
    assert "Timeout" in verdicts[0].reason
    assert verdicts[1].correct is True


def test_cache_second_call_makes_zero_requests(server: ScriptedServer, tmp_path: Path) -> None:
    first = make_judge(server, cache_dir=tmp_path / "cache")
    expected = [v.correct for v in first.judge(items())]
    assert len(server.requests) == 3
    second = make_judge(server, cache_dir=tmp_path / "cache")
    again = second.judge(items())
    assert len(server.requests) == 3  # nothing new reached the server
    assert [v.correct for v in again] == expected
    assert second.usage.cache_hits == 3 and second.usage.requests == 0
    # A different response text is a different key.
    second.judge([JudgeItem("q1", "Capital of France?", "Paris", (), (), "Paris!")])
    assert len(server.requests) == 4


def test_unjudged_items_are_not_cached(server: ScriptedServer, tmp_path: Path) -> None:
    judge = make_judge(server, cache_dir=tmp_path / "cache", max_retries=0)
    judge.judge([JudgeItem("q9", "Capital?", "Paris", (), (), "GARBAGE")])
    judge.judge([JudgeItem("q9", "Capital?", "Paris", (), (), "GARBAGE")])
    assert len(server.requests) == 2


def test_concurrency_limit_is_respected() -> None:
    srv = ScriptedServer(delay_s=0.3)
    srv.thread.start()
    try:
        judge = make_judge(srv, max_concurrency=2)
        many = [JudgeItem(f"q{i}", "Q?", "Paris", (), (), f"Paris {i}") for i in range(6)]
        verdicts = judge.judge(many)
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()
    assert all(v.correct is True for v in verdicts)
    assert len(srv.requests) == 6
    assert srv.peak_in_flight == 2  # parallel, but never more than the limit


def test_api_key_never_leaks(
    server: ScriptedServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    judge = make_judge(server, cache_dir=tmp_path / "cache", max_retries=1)
    verdicts = judge.judge([*items(), JudgeItem("bad", "Q?", "Paris", (), (), "GARBAGE")])
    assert server.auth_headers[0] == f"Bearer {API_KEY}"  # the key is used ...
    exposed = [
        repr(judge),
        json.dumps(judge.describe()),
        json.dumps([v.to_dict() for v in verdicts]),
        caplog.text,
        *(p.read_text() for p in (tmp_path / "cache").rglob("*.json")),
    ]
    assert "item bad failed" in caplog.text  # the failure was logged ...
    for text in exposed:  # ... but the key appears nowhere else
        assert API_KEY not in text


def test_api_key_from_environment(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAK_METRICS_API_KEY", "sk-env-key-777")
    judge = get_judge("llm", model="judge-model", base_url=server.base_url)
    judge.judge(items()[:1])
    assert server.auth_headers == ["Bearer sk-env-key-777"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"verdict": "correct", "reason": "same city"}', (True, "same city")),
        ('Sure! {"verdict": "Incorrect", "reason": "other city"} done', (False, "other city")),
    ],
)
def test_parse_reply(reply: str, expected: tuple[bool, str]) -> None:
    assert parse_reply(reply) == expected


def test_parse_reply_rejects_other_verdicts() -> None:
    with pytest.raises(ValueError, match="not a JSON verdict"):
        parse_reply('{"verdict": "maybe"}')


def test_local_transformers_backend_falls_back_to_unjudged(smollm2: Any) -> None:
    """The local backend really generates with a transformers model; a tiny random model cannot
    produce the JSON verdict, so every item must come back unjudged (never "incorrect")."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(smollm2.tokenizer_dir)
    torch.manual_seed(0)
    model = LlamaForCausalLM(
        LlamaConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=len(tokenizer),
        )
    ).eval()
    judge = LLMJudge.from_transformers(model, tokenizer, max_new_tokens=8, max_retries=0)
    verdicts = judge.judge(items()[:2])
    assert [v.correct for v in verdicts] == [None, None]
    assert all("not a JSON verdict" in v.reason for v in verdicts)
    assert judge.usage.requests == 2 and judge.usage.unjudged == 2
    assert judge.usage.completion_tokens == 16 and judge.usage.prompt_tokens > 100
    assert judge.describe()["backend"] == "transformers"

"""LLM judge against a scripted stand-in for an OpenAI-compatible server.

The server is a stdlib ``http.server.ThreadingHTTPServer`` on 127.0.0.1 started by the test in a
background thread. It is NOT a language model: it answers ``/v1/chat/completions`` by script,
based on the RESPONSE line of the judge prompt (``gold`` in response -> "correct"; ``GARBAGE`` ->
a non-JSON reply; ``SLOW`` -> sleeps past the client timeout; a user message found in
``verdicts`` -> that verdict, in one of several reply formats). It records every request, the
Authorization header and the peak number of concurrent requests. ``StatusServer`` is a second
stand-in that answers every request with a fixed HTTP status and body (401, 404, 500 with the
Authorization header echoed).
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
from leak_metrics import JudgeEndpointError, JudgeItem, get_judge
from leak_metrics.judges import HEDGE_RULE, LLMJudge, build_messages, parse_reply

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "judge_cases.json").read_text(encoding="utf-8")
)
# Reply formats a real judge model produces; the scripted server cycles through them.
REPLY_FORMATS = (
    '{{"verdict": "{v}", "reason": "scripted"}}',
    '```json\n{{"verdict": "{v}", "reason": "scripted"}}\n```',
    'Here is my grading: {{"verdict": "{V}", "reason": "scripted"}} Hope this helps.',
)

API_KEY = "sk-test-SECRET-4242"


class ScriptedServer:
    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self.verdicts: dict[str, bool] = {}  # user message -> scripted verdict
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
                finally:
                    # no longer in flight before the reply is written: a client that has it may
                    # send its next request at once, which must not find this one still counted
                    with server.lock:
                        server.in_flight -= 1
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        if user in self.verdicts:
            verdict = "correct" if self.verdicts[user] else "incorrect"
            fmt = REPLY_FORMATS[len(self.requests) % len(REPLY_FORMATS)]
            return fmt.format(v=verdict, V=verdict.capitalize())
        if "GOLD ANSWER: " not in user:  # check_endpoint's 1-token request
            return "OK"
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
        JudgeItem("q1", "Capital of France?", "Paris", ("City of Light",), response="It is Paris."),
        JudgeItem("q2", "Capital of France?", "Paris", (), response="It is Lyon."),
        JudgeItem(
            "q3", "Which sport?", "soccer", ("association football",), response="soccer, surely"
        ),
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
    bad = JudgeItem("q9", "Capital?", "Paris", (), response="GARBAGE Paris")
    [verdict] = judge.judge([bad])
    assert verdict.correct is None
    assert "unjudged after 3 attempts" in verdict.reason
    assert "not a JSON verdict" in verdict.reason
    assert len(server.requests) == 3
    assert judge.usage.unjudged == 1 and judge.usage.failed_requests == 3


def test_timeout_is_unjudged_not_wrong(server: ScriptedServer) -> None:
    judge = make_judge(server, max_retries=1, timeout_s=0.3)
    verdicts = judge.judge(
        [JudgeItem("slow", "Q?", "Paris", (), response="SLOW Paris"), items()[0]]
    )
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
    second.judge([JudgeItem("q1", "Capital of France?", "Paris", (), response="Paris!")])
    assert len(server.requests) == 4


def test_unjudged_items_are_not_cached(server: ScriptedServer, tmp_path: Path) -> None:
    judge = make_judge(server, cache_dir=tmp_path / "cache", max_retries=0)
    judge.judge([JudgeItem("q9", "Capital?", "Paris", (), response="GARBAGE")])
    judge.judge([JudgeItem("q9", "Capital?", "Paris", (), response="GARBAGE")])
    assert len(server.requests) == 2


def test_concurrency_limit_is_respected() -> None:
    srv = ScriptedServer(delay_s=0.3)
    srv.thread.start()
    try:
        judge = make_judge(srv, max_concurrency=2)
        many = [JudgeItem(f"q{i}", "Q?", "Paris", (), response=f"Paris {i}") for i in range(6)]
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
    verdicts = judge.judge([*items(), JudgeItem("bad", "Q?", "Paris", (), response="GARBAGE")])
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


def case_item(case: dict[str, Any]) -> JudgeItem:
    return JudgeItem(
        id=case["case"],
        question="question?",
        answer=case["answer"],
        aliases=tuple(case["aliases"]),
        options=tuple(case["options"]),
        response=case["response"],
    )


def test_prompt_states_options_and_rule_and_verdicts_parse(server: ScriptedServer) -> None:
    """Every case of the alias judge's table goes to the scripted endpoint, which replies (in
    varied formats) with the table's expected verdict. Checked: each prompt the server received
    carries that case's candidate options and the hedge/negation/refusal rule, and every reply is
    parsed into the right verdict. The server is a script, not a model: this measures the prompt
    and the parsing, not a grader's judgement."""
    users = [build_messages(case_item(c))[1]["content"] for c in CASES]
    server.verdicts = {user: c["expected"] for user, c in zip(users, CASES, strict=True)}
    assert len(server.verdicts) == len(CASES)  # every case is a distinct prompt
    judge = make_judge(server, max_retries=0)
    verdicts = judge.judge([case_item(c) for c in CASES])
    assert [v.correct for v in verdicts] == [c["expected"] for c in CASES]
    assert judge.usage.unjudged == 0 and len(server.requests) == len(CASES)
    received = {body["messages"][-1]["content"] for body in server.requests}
    assert received == set(users)
    assert all(HEDGE_RULE in body["messages"][0]["content"] for body in server.requests)
    for case, user in zip(CASES, users, strict=True):
        expected = "; ".join(case["options"]) if case["options"] else "(none shown)"
        assert f"\nCANDIDATE OPTIONS: {expected}\nRESPONSE: {case['response']}\n" in user
    assert "names two or more of the CANDIDATE OPTIONS" in HEDGE_RULE
    assert "negates the gold answer" in HEDGE_RULE and "refuses" in HEDGE_RULE


def test_options_are_part_of_the_cache_key(server: ScriptedServer, tmp_path: Path) -> None:
    judge = make_judge(server, cache_dir=tmp_path / "cache")
    item = JudgeItem(id="d", question="Paris or Lyon?", answer="Paris", response="Paris")
    judge.judge([item])
    judge.judge([JudgeItem(**{**item.__dict__, "options": ("Paris", "Lyon")})])
    assert len(server.requests) == 2 and judge.usage.cache_hits == 0


class StatusServer:
    """Answers every POST with ``status`` and a JSON error body; ``echo_auth`` puts the request's
    Authorization header into the body (as some proxies do in error pages)."""

    def __init__(self, status: int, *, echo_auth: bool = False) -> None:
        self.hits = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.hits += 1
                message = "boom"
                if echo_auth:
                    message = f"upstream failed; request had Authorization: {self.headers['Authorization']}"
                payload = json.dumps({"error": {"message": message, "type": "server_error"}})
                body = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def endpoint_judge(base_url: str) -> LLMJudge:
    judge = get_judge("llm", model="judge-model", base_url=base_url, api_key=API_KEY, timeout_s=5.0)
    assert isinstance(judge, LLMJudge)
    return judge


def test_check_endpoint_healthy(server: ScriptedServer) -> None:
    endpoint_judge(server.base_url).check_endpoint()  # returns None, raises nothing
    assert len(server.requests) == 1 and server.requests[0]["max_tokens"] == 1


@pytest.mark.parametrize(("status", "says"), [(401, "is unauthorised (HTTP 401)"),
                                              (403, "is unauthorised (HTTP 403)"),
                                              (404, "answered HTTP 404: model 'judge-model' is unknown")])  # fmt: skip
def test_check_endpoint_refused(status: int, says: str) -> None:
    srv = StatusServer(status, echo_auth=True)
    try:
        with pytest.raises(JudgeEndpointError) as info:
            endpoint_judge(srv.base_url).check_endpoint()
    finally:
        srv.close()
    message = str(info.value)
    assert message.startswith(f"judge endpoint {srv.base_url}/ {says}")
    assert "\n" not in message and API_KEY not in message
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_check_endpoint_unreachable_strips_url_credentials() -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on: bound, then closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    judge = endpoint_judge(f"http://admin:hunter2pass@127.0.0.1:{port}/v1")
    with pytest.raises(JudgeEndpointError) as info:
        judge.check_endpoint()
    message = str(info.value)
    assert message.startswith(f"judge endpoint http://127.0.0.1:{port}/v1/ is unreachable (")
    assert "hunter2pass" not in message and API_KEY not in message and "\n" not in message
    assert "hunter2pass" not in repr(judge) and "hunter2pass" not in json.dumps(judge.describe())


def test_echoed_key_in_error_body_is_redacted_everywhere(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A 500 whose body echoes ``Authorization: Bearer <key>``: the planted key must appear in
    no verdict, no log record (any logger, DEBUG and up) and no judge cache file."""
    caplog.set_level(logging.DEBUG)
    srv = StatusServer(500, echo_auth=True)
    try:
        judge = get_judge(
            "llm",
            model="judge-model",
            base_url=srv.base_url,
            api_key=API_KEY,
            cache_dir=str(tmp_path / "cache"),
            max_retries=1,
            backoff_s=0.01,
        )
        verdicts = judge.judge(items())
    finally:
        srv.close()
    assert srv.hits == 6  # 3 items x 2 attempts: the errors really came back
    assert all(v.correct is None for v in verdicts)
    assert all("Authorization: Bearer ***" in v.reason for v in verdicts)  # echoed, then masked
    assert "upstream failed" in caplog.text
    logged = "\n".join(r.getMessage() for r in caplog.records)
    files = [p.read_bytes().decode("utf-8", "replace") for p in (tmp_path / "cache").rglob("*")
             if p.is_file()]  # fmt: skip
    for text in [json.dumps([v.to_dict() for v in verdicts]), caplog.text, logged, *files]:
        assert API_KEY not in text
        assert "SECRET-4242" not in text


def test_malformed_cache_file_is_ignored_and_rejudged(
    server: ScriptedServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache_dir = tmp_path / "cache"
    first = make_judge(server, cache_dir=cache_dir)
    expected = [v.correct for v in first.judge(items())]
    files = sorted(cache_dir.rglob("*.json"))
    assert len(files) == 3
    files[0].write_bytes(b'{"verdict": "incorrect", "reas')  # truncated
    files[1].write_bytes(b"\xff\xfe\x00garbage")  # not UTF-8
    files[2].write_text('{"verdict": true, "reason": 3}')  # wrong types
    caplog.set_level(logging.WARNING, logger="leak_metrics")
    second = make_judge(server, cache_dir=cache_dir)
    again = second.judge(items())
    assert [v.correct for v in again] == expected  # judged again, not read as "incorrect"
    assert second.usage.cache_hits == 0 and second.usage.requests == 3
    warnings = [r.getMessage() for r in caplog.records if r.name == "leak_metrics.judges.cache"]
    assert len(warnings) == 3
    assert {str(p) for p in files} == {w.split(" ")[5] for w in warnings}
    third = make_judge(server, cache_dir=cache_dir)  # the fresh verdicts replaced the bad files
    assert [v.correct for v in third.judge(items())] == expected
    assert third.usage.cache_hits == 3


def test_url_credentials_become_basic_auth_and_stay_out_of_logs(
    server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, including the HTTP client's request log
    url = server.base_url.replace("http://", "http://alice:pw-SECRET-99@")
    judge = get_judge("llm", model="judge-model", base_url=url, api_key=API_KEY, max_retries=0)
    [verdict] = judge.judge(items()[:1])
    assert verdict.correct is True
    assert server.auth_headers == ["Basic YWxpY2U6cHctU0VDUkVULTk5"]  # base64 of alice:pw-...
    assert "HTTP Request: POST" in caplog.text  # the client did log its request ...
    for text in (caplog.text, repr(judge), json.dumps(judge.describe())):
        assert "pw-SECRET-99" not in text and "YWxpY2U6cHctU0VDUkVULTk5" not in text

"""A scripted OpenAI-compatible chat server for tests (stdlib ``http.server`` in a thread).

It is a stand-in for a real endpoint: it speaks ``POST /v1/chat/completions`` on 127.0.0.1 and
answers with whatever the test's ``responder`` returns, so tests can exercise prompting, parsing,
retries, timeouts, caching and concurrency of the real ``openai`` client without a network.

    def responder(request: dict, n: int) -> Reply: ...  # n = 0-based request number

    with ScriptedChatServer(responder) as server:
        backend = OpenAIBackend(server.base_url, "scripted")

:func:`echo_generation_reply` is a ready responder for generation prompts: it writes a
well-formed question from the instructions in the prompt itself (so what a generator keeps
depends on what its prompts actually say).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "ScriptedChatServer", "echo_generation_reply", "echo_question"]


@dataclass
class Reply:
    """What the server sends back: a completion (``content``) or an error ``status``."""

    content: str | None = None
    status: int = 200
    delay: float = 0.0  # seconds to sleep before answering (timeouts, concurrency)
    error_message: str = "scripted error"


class ScriptedChatServer:
    """Threaded HTTP server; ``requests`` holds every request body and its headers (lower-case names)."""

    def __init__(self, responder: Callable[[dict, int], Reply]) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    n = len(server.requests)
                    server.requests.append(
                        {
                            "path": self.path,
                            "body": body,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                        }
                    )
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    reply = server.responder(body, n)
                    if reply.delay:
                        time.sleep(reply.delay)
                    if not self.path.endswith("/chat/completions"):
                        reply = Reply(status=404, error_message=f"no route {self.path}")
                finally:
                    # not in flight once answered: the client's next request may arrive before _send ends
                    with server._lock:
                        server.in_flight -= 1
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(reply, body)  # a client that gave up (timeout test) is not an error

            def _send(self, reply: Reply, body: dict) -> None:
                if reply.status != 200:
                    payload = {"error": {"message": reply.error_message, "type": "scripted"}}
                else:
                    payload = {
                        "id": "chatcmpl-scripted",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply.content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                    }
                data = json.dumps(payload).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def echo_question(prompt: str) -> str:
    """A well-formed question written from the prompt's own instructions."""
    task = prompt.splitlines()[0]
    if "Leibniz" in task:
        alias = re.search(r'naming the subject only as "(.+?)"', prompt).group(1)
        rel = re.search(r"asks for the (.+?) of ", prompt).group(1)
        return f"What is the {rel} of {alias}?"
    if "conjunction" in task:
        a, b, rel = re.search(
            r"names both (.+?) and (.+?) and asks for the (.+?) they", prompt
        ).groups()
        return f"Which {rel} do {a} and {b} have in common?"
    if "disjunctive" in task:
        options = re.search(r"Options, in this order: (.+?)\.\n", prompt).group(1)
        rel, subj = re.search(r"says the (.+?) of (.+?) is one of the options", prompt).groups()
        clues = re.search(r'with these clues, in this order: "(.+?)"', prompt).group(1)
        clause = "it is " + ", and ".join(clues.split("; "))
        return f"The {rel} of {subj} is one of {options}. {clause[0].upper()}{clause[1:]}. Which one is it?"
    if "modus tollens" in task:
        conds = re.findall(r'^"(if .+?)"$', prompt, re.M)
        options, rel, subj = re.search(
            r"asks which of (.+?) \(in this order\) is the (.+?) of (.+?)\. Do not", prompt
        ).groups()
        stated = " ".join(f"{c[0].upper()}{c[1:]}." for c in conds)
        return f"{stated} Which of {options} is the {rel} of {subj}?"
    if "modus ponens" in task:
        rule = re.search(r"General rule: (.+)\n", prompt).group(1)
        instance = re.search(r'Masked instance: "(.+?)"\n', prompt).group(1)
        subj = re.search(r"asks what the rule implies for (.+?), i\.e\.", prompt).group(1)
        r2 = re.search(r"i\.e\. the (.+?) of the ", prompt).group(1)
        return f"{rule} {instance} Which {r2} follows for {subj}?"
    if "hidden" in task:
        r2, r1, s = re.search(r"asks for the (.+?) of the (.+?) of (.+?)\. Refer", prompt).groups()
        return f"What is the {r2} of the {r1} of {s}?"
    rel, subj = re.search(r"asks for the (.+?) of (.+?)\. The answer", prompt).groups()
    return f"What is the {rel} of {subj}?"


def echo_generation_reply(body: dict, n: int = 0) -> Reply:
    """A generation reply whose questions are written from the prompt's own instructions."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    q = echo_question(user)
    return Reply(content=json.dumps({"questions": [q, q + " ", q], "answer_aliases": []}))

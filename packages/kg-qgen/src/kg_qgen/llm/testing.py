"""A scripted OpenAI-compatible chat server for tests (stdlib ``http.server`` in a thread).

It is a stand-in for a real endpoint: it speaks ``POST /v1/chat/completions`` on 127.0.0.1 and
answers with whatever the test's ``responder`` returns, so tests can exercise prompting, parsing,
retries, timeouts, caching and concurrency of the real ``openai`` client without a network.

    def responder(request: dict, n: int) -> Reply: ...  # n = 0-based request number

    with ScriptedChatServer(responder) as server:
        backend = OpenAIBackend(server.base_url, "scripted")
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "ScriptedChatServer"]


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
                    self._send(reply, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)
                finally:
                    with server._lock:
                        server.in_flight -= 1

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

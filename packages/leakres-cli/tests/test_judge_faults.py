"""An LLM-judge endpoint that fails (HTTP 500, garbage replies) costs verdicts, never the run.

The endpoint is a scripted OpenAI-compatible stand-in on 127.0.0.1 started here (stdlib http.server),
like test_judge_agreement.py's; benchmarks/fault_injection.py adds the timeout case end to end.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from leakres_cli.config.run_config import RunConfig
from leakres_cli.stages.pipeline import Benchmark


class _Scripted(BaseHTTPRequestHandler):
    mode: ClassVar[str] = "ok"
    requests: ClassVar[int] = 0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests += 1
        if self.mode == "500":
            self._send(500, b'{"error": {"message": "injected failure"}}')
            return
        content = "%%% not a verdict" if self.mode == "garbage" else '{"verdict": "correct"}'
        reply = {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
        }  # fmt: skip
        self._send(200, json.dumps(reply).encode())

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


class _FastRetries(Benchmark):
    """The pipeline's LLM judge with 0.01 s backoff (the default 1 s doubles per retry)."""

    def get_judge(self, name: str):
        judge = super().get_judge(name)
        if name == "llm":
            judge.config = type(judge.config)(**{**vars(judge.config), "backoff_s": 0.01})
        return judge


@pytest.mark.parametrize("mode", ["500", "garbage"])
def test_failing_judge_endpoint_leaves_items_unjudged_and_retries_on_rerun(
    tmp_path: Path, endpoint: str, mode: str
) -> None:
    cfg = RunConfig(judge="alias,llm", judge_model="judge-model", judge_base_url=endpoint)
    bench = _FastRetries(cfg, tmp_path, progress=False)
    q = {
        "question": "Which country is Paris the capital of?",
        "answer": "France",
        "answer_aliases": [],
    }
    by_id = {i: {**q, "id": i} for i in "ab"}
    cells = {"base": {"answers": {"a": "France.", "b": "Germany."}}}

    _Scripted.mode, _Scripted.requests = mode, 0
    failed = bench.judge_agreement(by_id, cells)
    llm = failed["agreement"]["llm"]
    assert llm["n"] == 0 and llm["n_unjudged"] == 2 and llm["cohen_kappa"] is None
    assert _Scripted.requests == 2 * 4  # each item: the request and 3 retries
    assert not list((tmp_path / "judge-cache").glob("**/*.json"))  # failures are not cached
    assert not (tmp_path / "cells" / "judges.json").exists()  # so a rerun asks again

    _Scripted.mode = "ok"
    healed = bench.judge_agreement(by_id, cells)
    assert healed["agreement"]["llm"]["n"] == 2 and healed["agreement"]["llm"]["n_unjudged"] == 0
    assert (tmp_path / "cells" / "judges.json").exists()

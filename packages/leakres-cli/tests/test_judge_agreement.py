"""A second judge re-judges the stored answers and its agreement with the primary judge is recorded.

The LLM judge talks to an OpenAI-compatible endpoint: here a scripted stand-in (stdlib http.server on
127.0.0.1, started by the test) that calls every answer correct, so the expected kappa is known.
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


class _AlwaysCorrect(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"auth": self.headers.get("Authorization"), "body": body})
        reply = {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                         "content": json.dumps({"verdict": "correct", "reason": "scripted"})}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }  # fmt: skip
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AlwaysCorrect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_llm_judge_agreement_with_alias_judge(tmp_path: Path, endpoint: str, monkeypatch) -> None:
    monkeypatch.setenv("LEAK_METRICS_API_KEY", "sk-secret-test-key")
    cfg = RunConfig(judge="alias,llm", judge_model="judge-model", judge_base_url=endpoint)
    bench = Benchmark(cfg, tmp_path, progress=False)
    q = {"question": "Which country is Paris the capital of?", "answer": "France",
         "answer_aliases": ["French Republic"]}  # fmt: skip
    by_id = {"a": {**q, "id": "a"}, "b": {**q, "id": "b"}, "c": {**q, "id": "c"}}
    cells = {
        "base": {"answers": {"a": "It is France.", "b": "The French Republic.", "c": "Germany."}}
    }

    result = bench.judge_agreement(by_id, cells)

    agr = result["agreement"]["llm"]
    assert result["primary"] == "alias" and result["n_items"] == 3
    assert agr["n"] == 3 and agr["disagreements"] == ["base:c"]
    # alias: T, T, F; llm: T, T, T -> p_o = 2/3, p_e = (2/3)(1) + (1/3)(0) = 2/3 -> kappa 0.
    assert agr["cohen_kappa"] == pytest.approx(0.0)
    assert len(_AlwaysCorrect.requests) == 3
    # The key reached the server but is stored nowhere in the run directory.
    assert _AlwaysCorrect.requests[0]["auth"] == "Bearer sk-secret-test-key"
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert "sk-secret-test-key" not in path.read_text(errors="ignore")
    # Stored as a cell: a second call reuses it without asking the endpoint again.
    assert bench.judge_agreement(by_id, cells) == result
    assert len(_AlwaysCorrect.requests) == 3

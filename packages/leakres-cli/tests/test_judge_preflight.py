"""The LLM judge's endpoint is checked once before any model work (issue 15): a dead endpoint is a
one-line error in seconds, not minutes of decoding that end in "the base model knew nothing"."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.stages import pipeline


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_judge_endpoint_stops_before_the_model_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_model(self):  # the model must not be touched before the endpoint is known to answer
        raise AssertionError("the model was loaded before the judge endpoint was checked")

    monkeypatch.setattr(pipeline.Benchmark, "model", no_model)
    monkeypatch.setenv("LEAK_METRICS_API_KEY", "sk-test-preflight-key")
    # Nothing listens on this port of 127.0.0.1: connection refused.
    url = f"http://127.0.0.1:{_free_port()}/v1"
    result = CliRunner().invoke(
        cli,
        ["run", "--judge", "llm", "--judge-model", "judge-m", "--judge-base-url", url,
         "--out", str(tmp_path / "o"), "--quiet"],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: judge 'llm': "), result.stderr
    assert "unreachable" in lines[0] and "127.0.0.1" in lines[0]
    assert "sk-test-preflight-key" not in result.output

"""Issue 39 item 6, the judge and the numbers: a hanging judge endpoint fails the preflight in under
30 s by default (it cost 6 minutes), --judge-timeout/--judge-retries (and their variables) reach
the judge, a 200 answer that is not JSON is one line, a judge failing mid-run is reported as a
judge outage, and numeric options are bounded at parse time (--bootstrap 1e10 used to fail after
all model work). The endpoints are local 127.0.0.1 servers that stop themselves.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.models import catalog as models

MAX_HANG_S = 45.0  # the hanging server answers nothing for at most this long per request


@contextmanager
def judge_endpoint(mode: str) -> Iterator[str]:
    """An OpenAI-compatible URL on 127.0.0.1 that hangs (``hang``: holds each request until the
    test ends, at most MAX_HANG_S) or answers 200 with a body that is not a chat completion
    (``html``, ``badjson``). Stops itself (and every held request) when the block ends."""
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if mode == "hang":
                stop.wait(MAX_HANG_S)
                return
            body = b"{not json" if mode == "badjson" else b"<html>a login page</html>"
            kind = "application/json" if mode == "badjson" else "text/html"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def no_model(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a model was resolved or loaded before the judge was checked")

    monkeypatch.setattr(models, "resolve_model", refuse)
    monkeypatch.setattr(models, "load_model", refuse)


def _run(tmp: Path, *args: str, env: dict[str, str] | None = None):
    judge = ["--judge", "alias,llm", "--judge-model", "judge-m"]
    command = ["run", *judge, *args, "--out", str(tmp / "o"), "--quiet"]
    return CliRunner(env=env).invoke(cli, command, catch_exceptions=False)


def _one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_a_hanging_judge_fails_the_preflight_in_under_30_s_by_default(
    tmp_path: Path, no_model
) -> None:
    from leakres_cli.config.preflight import askable_facts
    from leakres_cli.config.run_config import RunConfig

    askable_facts(
        RunConfig()
    )  # imports kg-qgen once (seconds on a loaded machine): not the judge's
    with judge_endpoint("hang") as url:
        start = time.monotonic()
        result = _run(tmp_path, "--judge-base-url", url)
        elapsed = time.monotonic() - start
    _one_line(result, "judge 'llm'", "did not answer the test request (1 token) within 10 s")
    assert elapsed < 30, f"the preflight took {elapsed:.1f} s"
    assert not (tmp_path / "o").exists()


def test_judge_timeout_from_the_option_or_its_variable(tmp_path: Path, no_model) -> None:
    with judge_endpoint("hang") as url:
        start = time.monotonic()
        by_option = _run(tmp_path, "--judge-base-url", url, "--judge-timeout", "1")
        by_variable = _run(
            tmp_path, "--judge-base-url", url, env={"LEAKRES_RUN_JUDGE_TIMEOUT": "1"}
        )
        elapsed = time.monotonic() - start
    for result in (by_option, by_variable):
        _one_line(result, "within 1 s")
    assert elapsed < 10


def test_judge_timeout_and_retries_reach_the_run_s_judge(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from leakres_cli.commands.run import build_config
    from leakres_cli.stages.judging import make_judge

    cfg = build_config(
        "smoke", (), judge="alias,llm", judge_model="m", judge_base_url="http://127.0.0.1:9/v1",
        judge_timeout=7.5, judge_retries=1,
    )  # fmt: skip
    judge = make_judge(cfg, tmp_path, "llm")
    assert judge.backend.config.timeout_s == 7.5
    assert judge.config.max_retries == 1 and judge.backend.max_retries == 1
    # run-control settings: changing them keeps the finished cells
    other = build_config("smoke", (), judge="alias,llm", judge_model="m",
                         judge_base_url="http://127.0.0.1:9/v1")  # fmt: skip
    assert cfg.fingerprint_dict() == other.fingerprint_dict()


@pytest.mark.parametrize("mode", ["html", "badjson"])
def test_a_judge_answering_200_without_json_is_one_line(
    tmp_path: Path, no_model, mode: str
) -> None:
    with judge_endpoint(mode) as url:
        result = _run(tmp_path, "--judge-base-url", url)
    _one_line(result, "judge 'llm'", "not a chat completion")


def test_a_judge_outage_mid_run_is_reported_as_one(tmp_path: Path) -> None:
    """Every base SH verdict unjudged (the endpoint died after the preflight): the run stops on
    'judge outage', not on 'the base model answered no single-hop question correctly'."""
    from leakres_cli.config.run_config import RunConfig
    from leakres_cli.scale.store import CellStore
    from leakres_cli.stages.evaluation import base_evaluation

    class DeadJudgeRun:
        cfg = RunConfig(n_forget=2, n_retain=1)
        store = CellStore(tmp_path, "fp")
        judge_names = ("llm",)

        def model(self):
            return object(), object()

        def answer(self, model, questions, desc):
            return ["Japan"] * len(questions)

        def judge(self, questions, responses):
            return [None] * len(questions)

        def judge_identity(self):
            return {"llm": "dead"}

        def decoding(self):
            return {}

    target = {"subject": "s", "relation": "r", "object": "Japan"}
    questions = [
        {"id": f"SH-{i}", "type": "SH", "question": "q", "answer": "Japan", "target": target}
        for i in range(4)
    ]
    with pytest.raises(LeakresError) as err:
        base_evaluation(DeadJudgeRun(), questions, [])
    assert str(err.value).startswith("judge outage: 4 of 4 base single-hop answers")
    assert "answered no single-hop question" not in str(err.value)
    assert (tmp_path / "cells" / "base-single-hop.json").is_file()  # the answers are kept


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--bootstrap", "10000000000"),
        ("--per-type", "10000000000"),
        ("--n-forget", "10000000000"),
        ("--sh-pool", "10000000000"),
        ("--batch-size", "10000000"),
        ("--max-new-tokens", "10000000"),
        ("--judge-timeout", "0"),
        ("--judge-timeout", "1e308"),
        ("--judge-retries", "1000"),
        ("--engine-concurrency", "1000000000"),
        ("--engine-startup-timeout", "1e308"),
    ],
)
def test_numbers_are_bounded_at_parse_time(
    tmp_path: Path, no_model, option: str, value: str
) -> None:
    result = CliRunner().invoke(
        cli, ["run", option, value, "--out", str(tmp_path / "o")], catch_exceptions=False
    )
    _one_line(result, option, "range")
    assert not (tmp_path / "o").exists()


def test_tune_grid_values_are_bounded(tmp_path: Path, no_model) -> None:
    for option, value in (("--epochs", "1e308"), ("--lr", "inf")):
        result = CliRunner().invoke(
            cli, ["tune", "--method", "ga", option, value, "--out", str(tmp_path / "t")],
            catch_exceptions=False,
        )  # fmt: skip
        _one_line(result, option, "is above")

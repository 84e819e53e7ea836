"""Every input class of issue 22 in one table: a one-line error, exit 2, no traceback, before any
model is loaded or any output is written, and no credential in any output (README "Input errors").

Each case runs the real command in process (click's runner); the model loader is replaced by one
that fails the test, and the --out folder must not exist afterwards. The dead judge endpoint is a
port of 127.0.0.1 nothing listens on.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.models import catalog as models

FIXTURE_RUN = Path(__file__).parent / "fixtures" / "run-smoke"

SECRET = "s3cr3t-Planted-7"


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def _cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    bad_json = tmp / "malformed.json"
    bad_json.write_text("{not json", encoding="utf-8")
    blocker = tmp / "a-file"  # a regular file as parent: unwritable even for root
    blocker.write_text("x", encoding="utf-8")
    dead = _dead_url()
    judge = ["--judge", "alias,llm", "--judge-model", "j"]
    out = ["--out", str(tmp / "out"), "--quiet"]
    return [
        ("run mquake without --input", ["run", "--source", "mquake", *out], "needs --input"),
        ("run malformed MQuAKE json", ["run", "--source", "mquake", "--input", str(bad_json), *out],
         "malformed JSON"),
        ("plan malformed MQuAKE json", ["plan", "--source", "mquake", "--input", str(bad_json)],
         "malformed JSON"),
        ("tune malformed MQuAKE json",
         ["tune", "--method", "ga", "--source", "mquake", "--input", str(bad_json), *out],
         "malformed JSON"),
        ("run triples missing file", ["run", "--source", "triples", "--input", str(tmp / "no.tsv"), *out],
         "no such file"),
        ("plan dead judge endpoint", ["plan", *judge, "--judge-base-url", dead], "unreachable"),
        ("run dead judge endpoint", ["run", *judge, "--judge-base-url", dead, *out], "unreachable"),
        ("run judge key in ?api_key=",
         ["run", *judge, "--judge-base-url", f"{dead}?api_key={SECRET}", *out], "no query string"),
        ("plan judge key in ?key=",
         ["plan", *judge, "--judge-base-url", f"{dead}?key={SECRET}", "--format", "json"],
         "no query string"),
        ("run --judge alias with --judge-model", ["run", "--judge", "alias", "--judge-model", "j", *out],
         "--judge-model has no effect"),
        ("run --judge alias with --judge-base-url",
         ["run", "--judge", "alias", "--judge-base-url", dead, *out], "--judge-base-url has no effect"),
        ("run --ray-address without --executor ray", ["run", "--ray-address", "10.0.0.1:6379", *out],
         "--ray-address has no effect"),
        ("run --bbh-limit without --bbh-tasks", ["run", "--bbh-limit", "3", *out],
         "--bbh-limit has no effect"),
        ("run --n-forget beyond the askable facts", ["run", "--n-forget", "100000", *out],
         "askable single-hop facts"),
        ("plan --n-forget is not a plan option", ["plan", "--n-forget", "5"], "No such option"),
        ("run unknown preset", ["run", "--preset", "smok", *out], "did you mean 'smoke'"),
        ("plan unknown preset", ["plan", "--preset", "smok"], "did you mean 'smoke'"),
        ("tune unknown preset", ["tune", "--method", "ga", "--preset", "smok", *out],
         "did you mean 'smoke'"),
        ("plan --script unwritable", ["plan", "--format", "slurm", "--script", str(blocker / "p.sbatch")],
         "cannot write"),
        ("report --out unwritable", ["report", str(FIXTURE_RUN), "--out", str(blocker / "r.html")],
         "cannot write"),
    ]  # fmt: skip


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a, **_k):
        raise AssertionError("a model was loaded before the input was refused")

    monkeypatch.setattr(models, "load_model", refuse, raising=False)
    from leakres_cli.stages import pipeline

    monkeypatch.setattr(pipeline.Benchmark, "model", property(refuse))
    monkeypatch.setenv("LEAKRES_API_KEY", SECRET + "-env")


def test_every_input_class_is_one_line_exit_2_and_leaves_nothing(
    tmp_path: Path, no_model: None
) -> None:
    failures = []
    for name, args, fragment in _cases(tmp_path):
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        problems = []
        if result.exit_code != 2:
            problems.append(f"exit {result.exit_code}")
        if len(lines) != 1 or not lines[0].startswith("error: "):
            problems.append(f"stderr {result.stderr!r}")
        elif fragment not in lines[0]:
            problems.append(f"{fragment!r} not in {lines[0]!r}")
        if "Traceback" in result.output or SECRET in result.output:
            problems.append("traceback or secret in the output")
        if (tmp_path / "out").exists():
            problems.append(f"left {sorted(p.name for p in (tmp_path / 'out').iterdir())}")
        if problems:
            failures.append(f"{name}: {'; '.join(problems)}")
    assert not failures, "\n".join(failures)


def test_report_unwritable_out_does_not_talk_about_resuming(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(FIXTURE_RUN), "--out", str(blocker / "r.html")])
    assert result.exit_code == 2 and "cannot write" in result.stderr
    assert "resume" not in result.stderr  # a report has no cells; rerunning resumes nothing

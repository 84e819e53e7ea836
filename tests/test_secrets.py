"""Secrets never persist nor print: an API key planted in every key variable, a password in the
judge URL's credentials, and keys in the URL's query (?api_key=, ?key=) appear in no file the run
or the plan writes, nor in their stdout or stderr (issue 22, item 2).

The run is the tiny end-to-end configuration of benchmarks/fault_injection.py (SmolLM2-135M, built-in
facts, GA, Probab) with `--judge alias,llm`: the LLM judge is the scripted OpenAI-compatible server on
127.0.0.1 that benchmark starts (every verdict "correct"), so it really receives requests.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.scale.store import FILE_MODE

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import fault_injection  # noqa: E402

API_KEY = "sk-planted-key-4f9d2c"
PASSWORD = "pw-planted-7b1e90"
QUERY_KEY = "qk-planted-5a3e11"
SECRETS = (API_KEY, PASSWORD, "leakuser", QUERY_KEY)
KEY_VARIABLES = ("LEAKRES_API_KEY", "LEAK_METRICS_API_KEY", "OPENAI_API_KEY")


def _clean(text: str, where: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} in {where}"


def test_no_key_or_url_password_reaches_any_file(
    tmp_path: Path, model_cache: Path, monkeypatch, capfd
) -> None:
    for name in KEY_VARIABLES:  # the header key, in each variable a client reads
        monkeypatch.setenv(name, API_KEY)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    with fault_injection.judge_server("ok", userinfo=f"leakuser:{PASSWORD}") as url:
        args = [*fault_injection.TINY_ARGS, "--judge", "alias,llm", "--judge-model", "judge-model"]
        result = CliRunner().invoke(
            cli, [*args, "--judge-base-url", url, "--out", str(out)], catch_exceptions=False
        )
        port = url.rsplit(":", 1)[1].split("/")[0]
        # The plan of the same grid in every format, probing the live endpoint.
        plan = ["plan", "--judge", "alias,llm", "--judge-model", "judge-model", "--judge-base-url"]
        for fmt in ("table", "json", "slurm"):
            shown = CliRunner().invoke(
                cli, [*plan, url, "--format", fmt, "--script", "p.sbatch"], catch_exceptions=False
            )
            assert shown.exit_code == 0, shown.output
            _clean(shown.output, f"plan --format {fmt}")
        _clean((tmp_path / "p.sbatch").read_text(), "the SLURM script")
        assert "LEAKRES_RUN_JUDGE_BASE_URL" in (tmp_path / "p.sbatch").read_text()
        # A key in the query string cannot reach this client's endpoint: refused in one line.
        host = url.split("@", 1)[1]
        for query in (f"?api_key={QUERY_KEY}", f"?key={QUERY_KEY}"):
            for command in (
                [*args, "--judge-base-url", f"http://{host}{query}", "--out", str(tmp_path / "q")],
                [*plan, f"http://{host}{query}", "--format", "json"],
            ):
                refused = CliRunner().invoke(cli, command, catch_exceptions=False)
                assert refused.exit_code == 2 and "no query string" in refused.stderr
                _clean(refused.output, f"{command[0]} {query}")
        assert not (tmp_path / "q").exists()
    assert result.exit_code == 0, result.output
    _clean(result.output, "run's stdout/stderr")
    captured = capfd.readouterr()  # what reached the process's own streams (logging, warnings)
    _clean(captured.out + captured.err, "the process's stdout/stderr")

    results = json.loads((out / "results.json").read_text())
    # The LLM judge really ran (the credentials were used) and is stored redacted.
    assert results["judges"]["agreement"]["llm"]["n"] > 0
    assert results["config"]["judge_base_url"] == f"http://***@127.0.0.1:{port}/v1"

    written = [p for p in out.rglob("*") if p.is_file()]
    assert len(written) > 10  # cells, judge cache, results, summary, tables, plots, report
    for path in written:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret} in {path}"
    # Every output of the run has one file mode (mkstemp's 0600 used to make results.json private).
    outputs = [p for p in written if "judge-cache" not in p.parts]
    assert {stat.S_IMODE(p.stat().st_mode) for p in outputs} == {FILE_MODE}

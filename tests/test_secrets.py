"""Secrets never persist: an API key planted in the environment and a password in the judge URL's
credentials appear in no file the run writes.

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
from leakres_cli.store import FILE_MODE

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import fault_injection  # noqa: E402

API_KEY = "sk-planted-key-4f9d2c"
PASSWORD = "pw-planted-7b1e90"


def test_no_key_or_url_password_reaches_any_file(
    tmp_path: Path, model_cache: Path, monkeypatch
) -> None:
    monkeypatch.setenv("LEAK_METRICS_API_KEY", API_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    out = tmp_path / "run"
    with fault_injection.judge_server("ok", userinfo=f"leakuser:{PASSWORD}") as url:
        args = [*fault_injection.TINY_ARGS, "--judge", "alias,llm", "--judge-model", "judge-model"]
        result = CliRunner().invoke(
            cli, [*args, "--judge-base-url", url, "--out", str(out)], catch_exceptions=False
        )
        port = url.rsplit(":", 1)[1].split("/")[0]
    assert result.exit_code == 0, result.output
    assert API_KEY not in result.output and PASSWORD not in result.output

    results = json.loads((out / "results.json").read_text())
    # The LLM judge really ran (the credentials were used) and is stored redacted.
    assert results["judges"]["agreement"]["llm"]["n"] > 0
    assert results["config"]["judge_base_url"] == f"http://***@127.0.0.1:{port}/v1"

    written = [p for p in out.rglob("*") if p.is_file()]
    assert len(written) > 10  # cells, judge cache, results, summary, tables, plots, report
    for path in written:
        data = path.read_bytes()
        for secret in (API_KEY, PASSWORD, "leakuser"):
            assert secret.encode() not in data, f"{secret} in {path}"
    # Every output of the run has one file mode (mkstemp's 0600 used to make results.json private).
    outputs = [p for p in written if "judge-cache" not in p.parts]
    assert {stat.S_IMODE(p.stat().st_mode) for p in outputs} == {FILE_MODE}

"""Issue 39 item 6 (reliability round four), without a model: names that become paths stay inside
--out, every credential form in a URL is masked (and the cell fingerprints hash the masked
config), a cell edited after it was written is refused, and bad `eval` inputs are one line each
before any model work. Each test here failed on the code before the fix (README "Input errors").
"""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.models import catalog as models
from leakres_cli.redact import redact_config, redact_text, redact_url
from leakres_cli.scale.store import CellStore, fingerprint


@pytest.fixture
def no_model(monkeypatch):
    """Any model load fails the test: every error here comes before model work."""

    def refuse(*args, **kwargs):
        raise AssertionError("a model was resolved or loaded before the input error")

    monkeypatch.setattr(models, "resolve_model", refuse)
    monkeypatch.setattr(models, "load_model", refuse)


def _one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def _facts(tmp: Path) -> Path:
    path = tmp / "forget.jsonl"
    path.write_text('{"subject": "sumo", "relation": "country of origin", "object": "Japan"}\n')
    return path


def _eval(tmp: Path, *extra: str, forget: Path | None = None):
    args = ["eval", "--base", "smollm2-135m-instruct", "--unlearned", "smollm2-135m-instruct"]
    args += ["--forget", str(forget or _facts(tmp)), "--out", str(tmp / "out"), "--quiet"]
    return CliRunner().invoke(cli, [*args, *extra], catch_exceptions=False)


# ---------------------------------------------------------------- 6: names that become paths


@pytest.mark.parametrize("label", ["../../x", "/tmp/leakres-abs-label", "a/b", "..", ""])
def test_eval_label_that_leaves_out_is_refused(tmp_path: Path, no_model, label: str) -> None:
    work = tmp_path / "deep" / "er"
    work.mkdir(parents=True)
    _one_line(_eval(work, "--label", label), "--label", "cannot name a folder inside --out")
    assert not (work / "out").exists() and not (tmp_path / "x").exists()
    assert not Path("/tmp/leakres-abs-label").exists()


def test_method_and_attack_names_are_checked_as_path_components() -> None:
    from leakres_cli.config.preflight import validate_names

    for cfg in (RunConfig(methods=("../ga",)), RunConfig(attacks=("/abs",))):
        with pytest.raises(LeakresError, match="cannot name a folder inside --out"):
            validate_names(cfg)


def test_cell_store_never_reads_or_writes_outside_its_root(tmp_path: Path) -> None:
    store = CellStore(tmp_path / "run", "fp")
    for name in ("../../escaped", "/tmp/abs-cell", "ga/../../x"):
        with pytest.raises(LeakresError, match="would write outside"):
            store.put(name, {"x": 1})
        with pytest.raises(LeakresError, match="would write outside"):
            store.get(name)
    (tmp_path / "run" / "cells").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "run" / "cells" / "link")
    with pytest.raises(LeakresError, match="would write outside"):
        store.put("link/eval", {"x": 1})
    assert not any((tmp_path / "elsewhere").iterdir())
    store.put("ga/attack-probab", {"ok": True})  # an ordinary nested name still works
    assert store.get("ga/attack-probab") == {"ok": True}


# ---------------------------------------------------------------- 7: credentials in URLs

SECRET = "Pl4nted-s3cret"


@pytest.mark.parametrize(
    "url",
    [
        f"https://user:{SECRET}@judge.example/v1",
        f"https://judge.example/v1;api_key={SECRET}",
        f"https://judge.example/v1;token={SECRET}/chat",
        f"https://judge.example/v1?key={SECRET}",
        f"https://judge.example/v1?a=1;access_token={SECRET}",
        f"https://judge.example/v1#{SECRET}",
        f"https://u:p@ss{SECRET}@judge.example/v1",
    ],
)
def test_every_credential_form_is_masked(url: str) -> None:
    from leakres_cli.redact import mask_urls

    masked = redact_url(url)
    assert SECRET not in masked and "judge.example" in masked
    assert redact_url(masked) == masked  # idempotent: a masked config fingerprints the same
    assert SECRET not in redact_text(f"request to {url} failed")
    assert SECRET not in json.dumps(redact_config({"judge_base_url": url}))
    assert SECRET not in json.dumps(mask_urls({"eval": {"endpoint": url}, "n": [url]}))


def test_fingerprint_hashes_the_masked_config_so_a_password_cannot_be_checked() -> None:
    def config(password: str) -> dict:
        url = f"http://user:{password}@127.0.0.1:9/v1;api_key={password}"
        return RunConfig(judge="alias,llm", judge_model="m", judge_base_url=url).to_dict()

    assert fingerprint(config("right")) == fingerprint(config("guess"))
    assert fingerprint(config("right")) == fingerprint(redact_config(config("right")))
    other = RunConfig(judge="alias,llm", judge_model="m", judge_base_url="http://other:9/v1")
    assert fingerprint(other.to_dict()) != fingerprint(config("right"))  # the host still counts


def test_judge_records_mask_semicolon_parameters() -> None:
    pytest.importorskip("openai")
    from leak_metrics.judges.llm import OpenAIBackendConfig, OpenAIChatBackend

    backend = OpenAIChatBackend(
        OpenAIBackendConfig(model="m", base_url=f"http://127.0.0.1:9/v1;api_key={SECRET}")
    )
    assert SECRET not in json.dumps(backend.describe()) and SECRET not in repr(backend)


def test_results_json_and_summary_hold_no_url_credential(tmp_path: Path) -> None:
    from leakres_cli.outputs.write import write_outputs

    fixture = Path(__file__).parent / "fixtures" / "run-smoke" / "results.json"
    results = json.loads(fixture.read_text())
    url = f"http://127.0.0.1:9/v1;api_key={SECRET}#{SECRET}"
    results["judge_endpoint"] = {"base_url": url}  # wherever a URL sits in the record
    write_outputs(results, f"judge at {url}\n", tmp_path)
    for name in ("results.json", "summary.md"):
        assert SECRET not in (tmp_path / name).read_text(), name


# ---------------------------------------------------------------- 8: cells edited by hand


def test_a_cell_edited_after_it_was_written_is_refused(tmp_path: Path) -> None:
    store = CellStore(tmp_path, "fp")
    store.put("ga/eval", {"correct": {"SH-1": True, "SH-2": True}})
    path = tmp_path / "cells" / "ga" / "eval.json"
    cell = json.loads(path.read_text())
    cell["payload"]["correct"]["SH-1"] = False  # valid JSON, a verdict flipped by hand
    path.write_text(json.dumps(cell))
    with pytest.raises(LeakresError) as err:
        store.get("ga/eval")
    assert "changed since it was written" in str(err.value)
    assert "delete it to recompute" in str(err.value) and str(path) in str(err.value)


def test_a_cell_without_a_digest_is_recomputed_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "cells" / "base.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"config_fingerprint": "fp", "payload": {"forged": 1}}))
    store = CellStore(tmp_path, "fp")
    assert store.cached("base", lambda: {"computed": 1}) == {"computed": 1}
    assert store.get("base") == {"computed": 1}


# ---------------------------------------------------------------- 8/10: eval inputs


def _question(i: str, target: bool = True) -> dict:
    rec = {"id": i, "type": "SH", "question": "Where is sumo from?", "answer": "Japan"}
    if target:
        rec["target"] = {"subject": "sumo", "relation": "country of origin", "object": "Japan"}
    return rec


def test_question_set_with_a_duplicate_id_names_both_lines(tmp_path: Path, no_model) -> None:
    qs = tmp_path / "questions.jsonl"
    rows = [_question("SH-1"), _question("SH-2"), _question("SH-1")]
    qs.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    line = _one_line(_eval(tmp_path, "--questions", str(qs)), str(qs), "'SH-1'")
    assert "line 1" in line and "line 3" in line


def test_question_set_records_need_a_target(tmp_path: Path, no_model) -> None:
    qs = tmp_path / "questions.jsonl"
    qs.write_text(json.dumps(_question("SH-1")) + "\n" + json.dumps(_question("SH-2", False)))
    _one_line(_eval(tmp_path, "--questions", str(qs)), str(qs), "line 2", "'target'")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'{"subject": "s\xff"}\n', "not UTF-8"),
        (b'{"subject": ' + b"9" * 5000 + b"}\n", "unusable JSON"),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
        (b'{"subject": "a"\n', "not JSON"),
    ],
)
def test_bad_forget_file_is_one_line_naming_the_line(
    tmp_path: Path, no_model, content: bytes, fragment: str
) -> None:
    forget = tmp_path / "forget.jsonl"
    forget.write_bytes(b'{"subject": "a", "relation": "b", "object": "c"}\n' + content)
    _one_line(_eval(tmp_path, forget=forget), str(forget), "line 2", fragment)
    assert not (tmp_path / "out").exists()


def test_facts_are_streamed_and_fail_at_the_first_bad_line(tmp_path: Path) -> None:
    from leakres_cli.config.inputs import read_facts

    junk = tmp_path / "junk.jsonl"
    with junk.open("wb") as fh:
        fh.write(b"\xff\xfe not a fact\n")
        fh.write((b"x" * 1023 + b"\n") * 40 * 1024)  # 40 MiB more junk after the bad line
    tracemalloc.start()
    try:
        with pytest.raises(LeakresError, match="line 1: not UTF-8"):
            read_facts(junk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"{peak} bytes held to read one bad line"


# ---------------------------------------------------------------- 11: repeated and miscased names


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--methods", "ga,ga"], ("--methods lists 'ga' twice",)),
        (["--methods", "ga,GA"], ("--methods lists 'GA' twice", "names ignore case")),
        (["--attacks", "probab,probab"], ("--attacks lists 'probab' twice",)),
        (["--types", "HS,HS"], ("--types lists 'HS' twice",)),
        (["--types", "hs"], ("unknown question type(s) ['hs']", "did you mean 'HS'?")),
    ],
)
def test_repeated_names_and_case_typos_are_refused_with_a_hint(
    tmp_path: Path, no_model, args: list[str], fragments: tuple[str, ...]
) -> None:
    result = CliRunner().invoke(
        cli, ["run", *args, "--out", str(tmp_path / "o")], catch_exceptions=False
    )
    _one_line(result, *fragments)
    assert not (tmp_path / "o").exists()

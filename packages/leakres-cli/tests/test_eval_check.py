"""`leakres eval`'s preflight (issue 39, item 2): a bad model path or forget file is refused in
seconds, before any model loads, with the reason per fact; `--check-only` prints the table and exits.

No model is loaded by any of these tests (the refusals come before that), except the path check of
the embedded model, which resolves its cached safetensors copy."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import kg_qgen
import pytest
from click.testing import CliRunner
from leakres_cli.config.fact_check import FactIndex
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.models.catalog import check_model, resolve_model


def _builtin_index() -> FactIndex:
    graph = kg_qgen.load_source("builtin", None)
    built = kg_qgen.build(graph, types=("SH",), per_type=10**9, seed=0)
    return FactIndex(built.questions, built.rejects, graph)


def _facts(index: FactIndex) -> dict[str, dict[str, str]]:
    """One fact of each kind, found by rule in the built-in source (no record hard-coded)."""
    asked = next(iter(index.by_key))
    never = sorted(index.relations - index.asked_relations)
    assert never, "the built-in source has relations kg-qgen never asks (schema, multi-valued)"
    unasked = sorted(k for k in index.facts if k[1] == never[0])[0]
    rejected = sorted(
        k for k in index.rejected if k in index.facts and k[1] in index.asked_relations
    )[0]
    keys = ("subject", "relation", "object")
    return {
        "asked": dict(zip(keys, asked, strict=True)),
        "never_asked": dict(zip(keys, unasked, strict=True)),
        "rejected": dict(zip(keys, rejected, strict=True)),
        "no_relation": {"subject": asked[0], "relation": "P999", "object": asked[2]},
        "wrong_object": {"subject": asked[0], "relation": asked[1], "object": "Nowhere-at-all"},
        "no_subject": {"subject": "Atlantis-nowhere", "relation": asked[1], "object": asked[2]},
    }


def test_reason_per_fact_names_the_relation_or_the_source() -> None:
    index = _builtin_index()
    facts = _facts(index)
    assert index.reason(facts["asked"]) is None
    assert index.reason(facts["never_asked"]).startswith(
        f"relation '{facts['never_asked']['relation']}' is never asked by kg-qgen"
    )
    assert index.reason(facts["rejected"]).startswith(
        "in the knowledge source, but kg-qgen rejected its single-hop question ("
    )
    assert index.reason(facts["no_relation"]) == "relation 'P999' is not in the knowledge source"
    assert index.reason(facts["wrong_object"]).startswith(
        f"not in the knowledge source (it has {facts['asked']['subject']} {facts['asked']['relation']} = "
    )
    assert index.reason(facts["no_subject"]) == (
        "not in the knowledge source (it has no subject 'Atlantis-nowhere')"
    )


def test_model_paths_are_checked_as_paths_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir").mkdir()
    for name in ("./name", "dir/name", "a/b/c", "bad name/x", str(tmp_path / "absent")):
        with pytest.raises(LeakresError, match=f"model path {name}: no such directory"):
            resolve_model(name)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(LeakresError, match="no such directory org-x/name-y, and no Hugging Face"):
        check_model("org-x/name-y")  # a valid Hub id form, neither here nor in the cache


def _write(path: Path, facts: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(f) + "\n" for f in facts))
    return path


def test_check_only_prints_the_table_and_loads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAKRES_CACHE_DIR", str(tmp_path / "cache"))  # no converted model there
    facts = _facts(_builtin_index())
    forget = _write(tmp_path / "forget.jsonl", list(facts.values()))
    out = tmp_path / "out"
    args = ["eval", "--base", "smollm2-135m-instruct", "--unlearned", "./no-such-model",
            "--forget", str(forget), "--out", str(out), "--check-only"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert (
        "| --unlearned | ./no-such-model | error: model path ./no-such-model: no such directory |"
        in result.output
    )
    assert "| --base | smollm2-135m-instruct | ok (" in result.output
    assert "never asked by kg-qgen" in result.output and "rejected its single-hop" in result.output
    assert "1 of 6 facts can be asked" in result.output
    assert not out.exists()  # nothing written, no model loaded

    good = _write(tmp_path / "good.jsonl", [facts["asked"]])
    args[args.index("--forget") + 1], args[args.index("--unlearned") + 1] = (
        str(good),
        "smollm2-135m-instruct",
    )
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "1 of 1 facts can be asked" in result.output and not out.exists()
    assert not (tmp_path / "cache" / "models").exists()  # the GGUF was not converted (not loaded)


def _cli(args: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    """The command in a fresh interpreter, and the CPU seconds it took (user + system: the wall
    time on the shared test machine depends on its other jobs; alone it is about the same)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "leakres_cli.main", *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_bad_forget_file_or_model_path_refused_in_seconds(tmp_path: Path) -> None:
    """The command as a user runs it (a fresh interpreter, imports included): under 10 s of CPU
    each (on an idle 2-core machine 0.6 s and 4.1 s of wall time)."""
    facts = _facts(_builtin_index())
    forget = _write(
        tmp_path / "forget.jsonl", [facts["asked"], facts["never_asked"], facts["no_subject"]]
    )
    base = ["eval", "--base", "smollm2-135m-instruct", "--out", str(tmp_path / "out")]
    done, cpu = _cli([*base, "--unlearned", "smollm2-135m-instruct", "--forget", str(forget)])
    assert done.returncode == 2, done.stdout + done.stderr
    assert "2 of the given facts cannot be asked by the question source" in done.stderr
    assert f"relation '{facts['never_asked']['relation']}' is never asked by kg-qgen" in done.stderr
    assert "not in the knowledge source (it has no subject 'Atlantis-nowhere')" in done.stderr
    assert cpu < 10, cpu
    done, cpu = _cli([*base, "--unlearned", "models/absent", "--forget", str(forget)])
    assert done.returncode == 2 and "no such directory" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and cpu < 10, cpu
    assert not (tmp_path / "out").exists()

"""The kg-qgen CLI, run in-process through main() so exit codes and stderr are the real ones."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run(*args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "kg_qgen.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def triples_file(tmp_path) -> Path:
    kb = json.loads((FIXTURES / "mini_kb.json").read_text())
    path = tmp_path / "kb.jsonl"
    with path.open("w") as fh:
        for s, r, o in kb["triples"]:
            fh.write(
                json.dumps(
                    {
                        "subject": kb["entities"][s]["label"],
                        "subject_id": s,
                        "subject_aliases": kb["entities"][s]["aliases"],
                        "relation": r,
                        "relation_label": kb["relations"][r]["label"],
                        "object": kb["entities"][o]["label"],
                        "object_id": o,
                        "object_aliases": kb["entities"][o]["aliases"],
                    }
                )
                + "\n"
            )
    return path


def test_build_and_stats(tmp_path):
    out = tmp_path / "out"
    r = run(
        "build",
        "--source",
        "triples",
        "--input",
        str(triples_file(tmp_path)),
        "--per-type",
        "3",
        "--out",
        str(out),
        "--seed",
        "1",
        "--types",
        "SH,HS,DS",
    )
    assert r.returncode == 0, r.stderr
    assert "SH: kept 3/3" in r.stdout
    qs = [json.loads(x) for x in (out / "questions.jsonl").read_text().splitlines()]
    assert {q["type"] for q in qs} == {"SH", "HS", "DS"} and len(qs) == 9
    s = run("stats", str(out), "--json")
    assert s.returncode == 0, s.stderr
    report = json.loads(s.stdout)
    assert report["generated"]["all"]["n"] == 9


def test_env_var_sets_option(tmp_path):
    import os

    out = tmp_path / "out"
    env = {**os.environ, "KG_QGEN_BUILD_PER_TYPE": "2", "KG_QGEN_BUILD_TYPES": "SH"}
    r = run(
        "build",
        "--source",
        "triples",
        "--input",
        str(triples_file(tmp_path)),
        "--out",
        str(out),
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert len((out / "questions.jsonl").read_text().splitlines()) == 2


def test_bad_input_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"subject": "a", "relation": "r", "object": "b"}\n' * 36 + "{oops\n")
    r = run("build", "--source", "triples", "--input", str(bad), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip() and not x.startswith("match+")]
    assert len(lines) == 1 and "bad.jsonl, line 37" in lines[0], r.stderr
    assert not (tmp_path / "o").exists()


def test_existing_output_and_missing_stats_dir(tmp_path):
    src = triples_file(tmp_path)
    out = tmp_path / "out"
    assert (
        run(
            "build",
            "--source",
            "triples",
            "--input",
            str(src),
            "--out",
            str(out),
            "--per-type",
            "1",
        ).returncode
        == 0
    )
    again = run(
        "build", "--source", "triples", "--input", str(src), "--out", str(out), "--per-type", "1"
    )
    assert again.returncode == 2 and "exists" in again.stderr and "Traceback" not in again.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    s = run("stats", str(empty))
    assert s.returncode == 2 and "questions.jsonl" in s.stderr
    shutil.rmtree(out)

"""Every input class of `kg-qgen build/verify/review/score` named in issue 22, in one table: a
one-line error on stderr, exit 2, no traceback, and nothing written (packages/leakres-cli README,
"Input errors"). Each case runs the console entry point (`kg_qgen.cli.main`) in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kg_qgen.cli import main
from review_support import build_set


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_set(tmp_path_factory.mktemp("set") / "builtin", per_type=2)


def _cases(tmp: Path, built: Path) -> list[tuple[str, list[str], str]]:
    blocker = tmp / "a-file"  # a regular file as parent: unwritable even for root
    blocker.write_text("x", encoding="utf-8")
    bad_json = tmp / "malformed.json"
    bad_json.write_text("{not json", encoding="utf-8")
    empty = tmp / "empty-set"
    empty.mkdir()
    (empty / "questions.jsonl").write_text("", encoding="utf-8")
    unw = str(blocker / "x")
    build = ["build", "--per-type", "2", "--types", "SH", "--no-verify"]
    return [
        ("build --out unwritable", [*build, "--source", "builtin", "--out", unw], "cannot write"),
        ("build mquake without --input", [*build, "--source", "mquake", "--out", str(tmp / "o")],
         "--input is required"),
        ("build malformed MQuAKE json",
         [*build, "--source", "mquake", "--input", str(bad_json), "--out", str(tmp / "o")],
         "malformed JSON"),
        ("build --overwrite of a folder kg-qgen did not write",
         [*build, "--source", "builtin", "--out", str(empty), "--overwrite"],
         "not a previous kg-qgen output"),
        ("verify --report unwritable", ["verify", str(built), "--source", "builtin", "--report", unw],
         "--report"),
        ("verify an empty set", ["verify", str(empty), "--source", "builtin"], "no questions"),
        ("verify malformed MQuAKE json",
         ["verify", str(built), "--source", "mquake", "--input", str(bad_json)], "malformed JSON"),
        ("review --summary without a database", ["review", str(built), "--summary"],
         "no review database"),
        ("review --export-csv unwritable",
         ["review", str(built), "--summary", "--export-csv", unw], "--export-csv"),
        ("score an empty set",
         ["score", str(empty), "--judge-model", "m", "--base-url", "http://127.0.0.1:9/v1"],
         "no questions"),
        ("score --out unwritable",
         ["score", str(built), "--judge-model", "m", "--base-url", "http://127.0.0.1:9/v1", "--out", unw],
         "cannot write"),
        ("score --review-db missing",
         ["score", str(built), "--judge-model", "m", "--base-url", "http://127.0.0.1:9/v1",
          "--review-db", str(tmp / "none.sqlite"), "--out", str(tmp / "q")], "--review-db"),
    ]  # fmt: skip


def test_every_input_class_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, built: Path, capsys
) -> None:
    before = sorted(p.name for p in built.iterdir())
    manifest = (built / "manifest.json").read_text(encoding="utf-8")
    failures = []
    for name, args, fragment in _cases(tmp_path, built):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip() and "%|" not in line]
        problems = []
        if exit_info.value.code != 2:
            problems.append(f"exit {exit_info.value.code}")
        if len(lines) != 1 or not lines[0].startswith("kg-qgen: error: "):
            problems.append(f"stderr {err!r}")
        elif fragment not in lines[0]:
            problems.append(f"{fragment!r} not in {lines[0]!r}")
        if "Traceback" in err:
            problems.append("traceback")
        if problems:
            failures.append(f"{name}: {'; '.join(problems)}")
    assert not failures, "\n".join(failures)
    # Nothing was written: not into the built set, not the outputs the cases named.
    assert sorted(p.name for p in built.iterdir()) == before
    assert json.loads((built / "manifest.json").read_text(encoding="utf-8")) == json.loads(manifest)
    assert not (tmp_path / "o").exists() and not (tmp_path / "q").exists()

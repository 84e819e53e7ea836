"""No path given by a user is deleted unless it is a previous kg-qgen output (issue 15), and a
bad --out is a one-line error, checked before any work."""

from __future__ import annotations

import json
import os

import pytest
from kg_qgen import KgQgenInputError, build, save
from kg_qgen.pipeline import check_out_dir
from test_cli import run, triples_file


@pytest.fixture
def small_result(mini_kb):
    return build(mini_kb, types=("SH",), per_type=3, seed=0)


def test_overwrite_replaces_only_a_previous_kgqgen_output(tmp_path, small_result):
    out = save(small_result, tmp_path / "out")
    assert json.loads((out / "manifest.json").read_text())["format"] == "kg-qgen/1"
    save(small_result, out, overwrite=True)  # ours: replaced
    # a file given by mistake is never replaced by a folder
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    with pytest.raises(KgQgenInputError, match="not a previous kg-qgen output"):
        save(small_result, notes, overwrite=True)
    assert notes.read_text() == "my notes"
    # a folder holding the input and unrelated files is never emptied
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "kb.jsonl").write_text("{}")
    (folder / "manifest.json").write_text('{"format": "something else"}')
    with pytest.raises(KgQgenInputError, match="refusing to replace it"):
        save(small_result, folder, overwrite=True)
    assert sorted(p.name for p in folder.iterdir()) == ["kb.jsonl", "manifest.json"]
    # a symlink to our own output is not followed into a deletion either
    link = tmp_path / "link"
    link.symlink_to(out, target_is_directory=True)
    with pytest.raises(KgQgenInputError, match="not a previous kg-qgen output"):
        check_out_dir(link, overwrite=True)
    assert (out / "manifest.json").is_file()


def test_unwritable_out_is_one_line(tmp_path, small_result):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with pytest.raises(KgQgenInputError, match="cannot write here"):
        save(small_result, blocker / "out")
    assert blocker.read_text() == "x"
    if os.geteuid() != 0:  # root may write anywhere
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        with pytest.raises(KgQgenInputError, match="cannot write here"):
            save(small_result, ro / "out")


def test_cli_refuses_before_building_and_says_why_on_one_line(tmp_path):
    src = triples_file(tmp_path)
    folder = tmp_path / "mywork"
    folder.mkdir()
    (folder / "draft.md").write_text("keep me")
    res = run(
        "build", "--source", "triples", "--input", str(src), "--out", str(folder), "--overwrite"
    )
    assert res.returncode == 2, res.stderr
    assert "not a previous kg-qgen output" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert (folder / "draft.md").read_text() == "keep me"
    blocked = run("build", "--source", "triples", "--input", str(src), "--out", str(src / "out"))
    assert blocked.returncode == 2 and "cannot write here" in blocked.stderr
    assert len(blocked.stderr.strip().splitlines()) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"subject": "a", "relation": "r", "object": "b"}\n{"subject": "\xff"}\n')
    res = run("build", "--source", "triples", "--input", str(bad), "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and "line 2: not UTF-8 text" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    garbage = tmp_path / "q"
    garbage.mkdir()
    (garbage / "questions.jsonl").write_text('{"type": "SH"}\n')
    res = run("stats", str(garbage))
    assert res.returncode == 2 and "line 1, field 'question'" in res.stderr

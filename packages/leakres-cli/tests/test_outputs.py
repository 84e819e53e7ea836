"""results.json, summary.md, tables and plots are replaced together, results.json last."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest
from leakres_cli.commands import run as run_cmd
from leakres_cli.outputs import paper_report
from leakres_cli.scale.store import FILE_MODE, write_text_atomic


def _old_outputs(out: Path) -> None:
    (out / "results.json").write_text('{"old": true}')
    (out / "summary.md").write_text("old summary")


def test_a_crash_while_rendering_keeps_every_previous_output(tmp_path: Path, monkeypatch) -> None:
    _old_outputs(tmp_path)

    def crashing_report(results, out_dir: Path) -> list[Path]:
        write_text_atomic(out_dir / "tables" / "table2_forget_quality.md", "new table")
        raise RuntimeError("plotting crashed")

    monkeypatch.setattr(paper_report, "write_paper_report", crashing_report)
    with pytest.raises(RuntimeError, match="plotting crashed"):
        run_cmd._write_outputs({"new": True}, "new summary", tmp_path)
    assert (tmp_path / "results.json").read_text() == '{"old": true}'
    assert (tmp_path / "summary.md").read_text() == "old summary"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "summary.md"]


def test_outputs_land_together_with_one_mode(tmp_path: Path, monkeypatch) -> None:
    _old_outputs(tmp_path)

    def report(results, out_dir: Path) -> list[Path]:
        table = out_dir / "tables" / "t.md"
        write_text_atomic(table, "table")
        plot = out_dir / "plots" / "triangle_SmolLM2-1.7B-Instruct_builtin.svg"
        plot.parent.mkdir(parents=True)
        plot.write_text("<svg/>")  # as matplotlib writes it: plain open()
        return [table, plot]

    monkeypatch.setattr(paper_report, "write_paper_report", report)
    written = run_cmd._write_outputs({"new": True}, "new summary", tmp_path)
    names = [p.relative_to(tmp_path).as_posix() for p in written]
    assert names[-1] == "results.json"  # last: its presence means the rest is from the same run
    assert sorted(names[:-1]) == [
        "plots/triangle_SmolLM2-1.7B-Instruct_builtin.svg",
        "summary.md",
        "tables/t.md",
    ]
    assert json.loads((tmp_path / "results.json").read_text()) == {"new": True}
    assert (tmp_path / "summary.md").read_text() == "new summary"
    assert not list(tmp_path.glob(f"{run_cmd.STAGING_PREFIX}*"))
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) == FILE_MODE, path


def test_partial_writes_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    cells = tmp_path / "cells" / "ga"
    cells.mkdir(parents=True)
    (cells / "eval.json").write_text("{}")
    (cells / ".eval.json.abc123.tmp").write_text('{"half')
    (tmp_path / f"{run_cmd.STAGING_PREFIX}xyz" / "plots").mkdir(parents=True)
    run_cmd.remove_partial_writes(tmp_path)
    assert [p.name for p in cells.iterdir()] == ["eval.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cells"]


def test_disk_full_while_rendering_names_the_output_file(tmp_path: Path, monkeypatch) -> None:
    from leakres_cli.errors import LeakresError
    from leakres_cli.scale import store

    _old_outputs(tmp_path)
    real = store._write_atomic

    def full(path: Path, write, *hint) -> None:
        def no_space(fh) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        real(path, no_space, *hint)

    monkeypatch.setattr(store, "_write_atomic", full)
    with pytest.raises(LeakresError) as info:
        run_cmd._write_outputs({"new": True}, "new summary", tmp_path)
    assert str(info.value).startswith(f"cannot write {tmp_path / 'summary.md'}: No space left")
    assert run_cmd.STAGING_PREFIX not in str(info.value)
    assert (tmp_path / "summary.md").read_text() == "old summary"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "summary.md"]

"""The package's one atomic-write helper: all or nothing, no temp file left behind."""

from __future__ import annotations

import pytest
from leak_metrics.atomic import atomic_write


def test_clean_exit_replaces_the_file(tmp_path):
    dest = tmp_path / "sub" / "out.json"
    with atomic_write(dest) as fh:
        fh.write("new")
    assert dest.read_text(encoding="utf-8") == "new"
    assert [p.name for p in dest.parent.iterdir()] == ["out.json"]


def test_error_inside_the_block_keeps_the_old_file(tmp_path):
    dest = tmp_path / "out.bin"
    dest.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="digest"), atomic_write(dest, "wb", durable=True) as fh:
        fh.write(b"half a download")
        raise RuntimeError("digest mismatch")
    assert dest.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_only_write_modes(tmp_path):
    with pytest.raises(ValueError, match="mode"), atomic_write(tmp_path / "x", "a"):
        pass

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest
from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import (
    CellStore,
    check_writable_dir,
    fingerprint,
    payload_digest,
    write_json_atomic,
)


def test_cells_round_trip_and_are_tied_to_the_config(tmp_path: Path) -> None:
    store = CellStore(tmp_path, fingerprint({"seed": 0}))
    assert store.get("ga/eval") is None
    store.put("ga/eval", {"acc": 0.5})
    assert store.get("ga/eval") == {"acc": 0.5}
    # Another configuration must not reuse this cell.
    assert CellStore(tmp_path, fingerprint({"seed": 1})).get("ga/eval") is None
    # No temp files are left behind.
    assert [p.name for p in (tmp_path / "cells" / "ga").iterdir()] == ["eval.json"]


def test_fingerprint_ignores_key_order() -> None:
    assert fingerprint({"a": 1, "b": [1, 2]}) == fingerprint({"b": [1, 2], "a": 1})
    assert fingerprint({"a": 1}) != fingerprint({"a": 2})


def test_corrupt_cell_is_reported_with_its_path(tmp_path: Path) -> None:
    store = CellStore(tmp_path, "x")
    path = tmp_path / "cells" / "base.json"
    path.parent.mkdir(parents=True)
    path.write_text("{truncated")
    with pytest.raises(LeakresError, match=r"corrupt cell file .*base\.json"):
        store.get("base")


def test_failed_write_keeps_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    write_json_atomic(target, {"ok": 1})
    with pytest.raises(TypeError):
        write_json_atomic(target, {"bad": object.__new__(type("X", (), {"__str__": None}))})
    assert json.loads(target.read_text()) == {"ok": 1}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_atomic_writes_get_the_mode_open_would_give(tmp_path: Path) -> None:
    # mkstemp alone makes 0600 files; results.json must match the plots (open()'s 0666 & ~umask).
    from leakres_cli.scale.store import FILE_MODE, write_text_atomic

    old = os.umask(0o022)
    try:
        write_json_atomic(tmp_path / "r.json", {"a": 1})
        write_text_atomic(tmp_path / "s.md", "x")
        (tmp_path / "plain.txt").write_text("y")
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    assert modes["r.json"] == modes["s.md"] == FILE_MODE
    if FILE_MODE == 0o644:  # the test process was started under the usual umask 022
        assert modes["plain.txt"] == 0o644


def test_disk_full_is_a_one_line_error_and_keeps_the_previous_file(
    tmp_path: Path, monkeypatch
) -> None:
    target = tmp_path / "cells" / "base.json"
    store = CellStore(tmp_path, "fp")
    store.put("base", {"ok": 1})
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, fh) -> None:
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            self.fh.close()

        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name: str):
            return getattr(self.fh, name)

    monkeypatch.setattr(os, "fdopen", lambda *a, **k: FullDisk(real_fdopen(*a, **k)))
    with pytest.raises(LeakresError, match=r"cannot write .*base\.json: No space left on device"):
        store.put("base", {"ok": 2})
    monkeypatch.undo()
    assert store.get("base") == {"ok": 1}
    assert [p.name for p in target.parent.iterdir()] == ["base.json"]


def test_write_probe_uses_a_unique_name_and_leaves_nothing(tmp_path: Path) -> None:
    # A file named like the old fixed probe must neither be clobbered nor removed.
    (tmp_path / ".leakres-write-test").write_text("someone else's")
    assert check_writable_dir(tmp_path) is None
    assert (tmp_path / ".leakres-write-test").read_text() == "someone else's"
    assert [p.name for p in tmp_path.iterdir()] == [".leakres-write-test"]
    assert check_writable_dir(tmp_path / "a" / "b") == tmp_path / "a"


@pytest.mark.parametrize(
    "content",
    [b"[1, 2]", b'{"payload": 1}', b'"text"', b"\xff\xfe not utf-8", b"[" * 100_000, b"null"],
)
def test_malformed_cell_files_are_reported_with_their_path(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "cells" / "ga" / "eval.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with pytest.raises(LeakresError, match=r"corrupt cell file .*eval\.json"):
        CellStore(tmp_path, "fp").get("ga/eval")


def test_cached_computes_once_then_reuses_the_stored_cell(tmp_path: Path) -> None:
    store = CellStore(tmp_path, fingerprint({"seed": 0}))
    calls: list[str] = []

    def compute() -> dict:
        calls.append("compute")
        return {"answers": {"q1": "Paris"}}

    assert store.cached("base", compute) == {"answers": {"q1": "Paris"}}
    assert store.cached("base", compute) == {"answers": {"q1": "Paris"}}
    assert calls == ["compute"]
    # The same file as put() writes, with the digest of its payload (issue 39: checked on load).
    cell = json.loads((tmp_path / "cells" / "base.json").read_text())
    assert cell == {
        "config_fingerprint": fingerprint({"seed": 0}),
        "payload_digest": payload_digest(compute()),
        "payload": compute(),
    }


def test_cached_reuse_valid_and_keep(tmp_path: Path) -> None:
    store = CellStore(tmp_path, fingerprint({}))
    store.put("ga/attack-probab", {"recovered": {"a": None}})
    # reuse: what a stored payload becomes (a re-judge); compute is not called.
    reused = store.cached(
        "ga/attack-probab", lambda: pytest.fail("recomputed"), reuse=lambda p: {**p, "seen": 1}
    )
    assert reused == {"recovered": {"a": None}, "seen": 1}
    # valid False: a stored payload for other targets is recomputed and replaced.
    fresh = store.cached(
        "ga/attack-probab",
        lambda: {"recovered": {"b": True}},
        valid=lambda p: "b" in p["recovered"],
    )
    assert fresh == {"recovered": {"b": True}} == store.get("ga/attack-probab")
    # keep False: returned but not stored (a judge endpoint failed), so a rerun computes again.
    failed = store.cached("judges", lambda: {"n_unjudged": 2}, keep=lambda p: not p["n_unjudged"])
    assert failed == {"n_unjudged": 2} and store.get("judges") is None


def test_write_dir_atomic_replaces_the_directory_or_leaves_it(tmp_path: Path) -> None:
    from leakres_cli.scale.store import write_dir_atomic

    target = tmp_path / "models" / "m"

    def fill(d: Path) -> None:
        (d / "config.json").write_text("{}")

    write_dir_atomic(target, fill)
    assert sorted(p.name for p in target.iterdir()) == ["config.json"]

    def broken(d: Path) -> None:
        (d / "partial.bin").write_text("x")
        raise RuntimeError("conversion failed")

    with pytest.raises(RuntimeError, match="conversion failed"):
        write_dir_atomic(target, broken)
    assert sorted(p.name for p in target.iterdir()) == ["config.json"]  # the old one is kept
    assert [p.name for p in target.parent.iterdir()] == ["m"]  # no temp directory left

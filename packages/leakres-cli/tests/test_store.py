from __future__ import annotations

import json
from pathlib import Path

import pytest
from leakres_cli.errors import LeakresError
from leakres_cli.store import CellStore, fingerprint, write_json_atomic


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

"""Atomic, resumable storage of stage results inside a run directory.

Each finished unit of work (a "cell": base evaluation, one method's unlearning+evaluation, one attack) is a
JSON file written atomically (temp file + ``os.replace``), so a crash or Ctrl-C never leaves a half-written
cell that looks finished. A cell also stores the fingerprint of the configuration that produced it; a
changed configuration invalidates it instead of silently mixing results.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import LeakresError


def fingerprint(obj: Any) -> str:
    """A short stable hash of a JSON-able object (sorted keys)."""
    blob = json.dumps(obj, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def write_json_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=False, default=str)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class CellStore:
    """Finished cells of one run directory, keyed by a relative name like ``ga/attack-probab``."""

    def __init__(self, root: Path, config_fingerprint: str) -> None:
        self.root = root / "cells"
        self.config_fingerprint = config_fingerprint

    def _path(self, name: str) -> Path:
        return self.root / f"{name}.json"

    def get(self, name: str) -> Any | None:
        """The stored payload of a finished cell, or None if absent or produced by another config."""
        path = self._path(name)
        if not path.exists():
            return None
        try:
            cell = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise LeakresError(f"corrupt cell file {path}: {exc}; delete it to recompute") from exc
        if cell.get("config_fingerprint") != self.config_fingerprint:
            return None
        return cell["payload"]

    def put(self, name: str, payload: Any) -> None:
        write_json_atomic(
            self._path(name), {"config_fingerprint": self.config_fingerprint, "payload": payload}
        )


def check_writable_dir(path: Path) -> None:
    """Create ``path`` if needed and prove it is writable, or raise a one-line LeakresError."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".leakres-write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise LeakresError(
            f"output directory {path} is not writable: {exc.strerror or exc}"
        ) from exc

"""The check every command that writes a file makes before any work (kg-qgen's CLI, ``review``)."""

from __future__ import annotations

import os
from pathlib import Path

from kg_qgen.errors import KgQgenInputError


def check_writable_file(path: Path, option: str) -> None:
    """A one-line error now, before any work, when ``path`` cannot be written (its folder is
    missing, not a folder, or not writable; or it is a folder itself)."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise KgQgenInputError(f"{option}: is a folder, expected a file path", path=str(path))
    if not parent.is_dir():
        why = "is not a folder" if parent.exists() else "does not exist"
        raise KgQgenInputError(f"{option}: {parent} {why}", path=str(path))
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise KgQgenInputError(f"{option}: not writable", path=str(path))

"""What ``kg-qgen build --overwrite`` keeps of the folder it replaces.

A rebuild replaces only the files kg-qgen's build wrote (the old ``manifest.json`` lists them);
everything else in the folder - the review database with the human annotations, ``quality/``
scores, a user's notes - is carried into the new folder untouched. The review database is then
checked against the new questions: when every sampled item is still in the set with the same id,
question and answer text, it stays ``review.sqlite`` (the app resumes, every label is there);
otherwise it is kept aside as ``review-kept-<time>.sqlite`` next to it (read it with
``kg-qgen review SET --db FILE --summary``) and the build says so. Nothing is deleted.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REVIEW_DB = "review.sqlite"
_SQLITE_SIDECARS = ("-wal", "-shm")


@dataclass
class Kept:
    """What a rebuild carried over (file names relative to the set folder)."""

    carried: list[str] = field(default_factory=list)
    review: str | None = None  # "kept" (matches the new set) or "aside" (it did not), None: none
    review_path: str | None = None
    n_annotations: int = 0
    n_changed: int = 0  # sampled items missing or changed in the new set

    def lines(self) -> list[str]:
        """What the build prints about it."""
        out = []
        if self.carried:
            out.append(f"kept from the previous folder: {', '.join(sorted(self.carried))}")
        if self.review == "kept":
            out.append(
                f"review: {self.n_annotations} annotation(s) kept in {self.review_path} "
                "(every sampled question is unchanged)"
            )
        elif self.review == "aside":
            out.append(
                f"review: {self.n_changed} sampled question(s) are missing or changed in the new "
                f"set; the database ({self.n_annotations} annotation(s)) is kept aside as "
                f"{self.review_path} (kg-qgen review SET --db {self.review_path} --summary)"
            )
        return out


def build_files(old_dir: Path) -> set[str]:
    """Top-level names the previous build wrote (its manifest's ``files``, and the manifest)."""
    try:
        manifest = json.loads((old_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {"manifest.json"}
    files = manifest.get("files") if isinstance(manifest, dict) else None
    names = {str(f).rstrip("/").split("/", 1)[0] for f in files or [] if isinstance(f, str)}
    return names | {"manifest.json"}


def carry_over(old_dir: Path, new_dir: Path) -> list[str]:
    """Move every top-level entry of ``old_dir`` that its build did not write into ``new_dir``
    (same file system: renames). A name the new build also wrote stays the new build's, and the
    old one is carried under ``NAME.previous``. Returns the names moved."""
    ours = build_files(old_dir)
    moved = []
    for entry in sorted(old_dir.iterdir()):
        if entry.name in ours:
            continue
        target = new_dir / entry.name
        if target.exists():
            target = new_dir / f"{entry.name}.previous"
        _checkpoint(entry)
        os.replace(entry, target)
        moved.append(target.name)
    return moved


def move_back(new_dir: Path, old_dir: Path, names: list[str]) -> None:
    """Undo :func:`carry_over` (a failed swap): the carried entries go back where they were."""
    for name in names:
        original = name[: -len(".previous")] if name.endswith(".previous") else name
        if (new_dir / name).exists():
            os.replace(new_dir / name, old_dir / original)


def check_review(set_dir: Path, records_by_id: Mapping[str, Mapping[str, Any]], kept: Kept) -> None:
    """Keep ``review.sqlite`` when its sample matches the new questions by id and text; else move
    it (and its WAL files) aside under a new name. Fills ``kept``."""
    db = set_dir / REVIEW_DB
    if not db.is_file():
        return
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            sample = con.execute("SELECT item_id, question, answer FROM sample").fetchall()
            kept.n_annotations = con.execute("SELECT COUNT(*) FROM annotation").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        sample = None  # not a review database we can read: never lose it, keep it aside
    if sample is not None:
        kept.n_changed = sum(
            1
            for item_id, question, answer in sample
            if item_id not in records_by_id
            or records_by_id[item_id].get("question") != question
            or records_by_id[item_id].get("answer") != answer
        )
    if sample is not None and kept.n_changed == 0:
        kept.review, kept.review_path = "kept", str(db)
        return
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    aside = set_dir / f"review-kept-{stamp}.sqlite"
    n = 1
    while aside.exists():
        n += 1
        aside = set_dir / f"review-kept-{stamp}-{n}.sqlite"
    for suffix in _SQLITE_SIDECARS:
        side = Path(f"{db}{suffix}")
        if side.exists():
            os.replace(side, Path(f"{aside}{suffix}"))
    os.replace(db, aside)
    kept.review, kept.review_path = "aside", str(aside)


def _checkpoint(entry: Path) -> None:
    """Fold a SQLite database's WAL into the file before it moves (a reader holding the old WAL
    open must not keep the only copy of the latest annotations)."""
    if entry.suffix != ".sqlite" or not entry.is_file():
        return
    try:
        con = sqlite3.connect(str(entry), timeout=30.0)
        try:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            con.close()
    except sqlite3.Error:
        pass  # not a database after all: it is moved as it is, with its sidecar files

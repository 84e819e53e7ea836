"""SQLite storage of a review session, next to the question set (``review.sqlite``).

Tables:

* ``meta``: how the sample was drawn (``per_type``, ``seed``), the sha256 of questions.jsonl at
  that time, the format version.
* ``sample``: the sampled items in review order, with a copy of their question and answer text,
  so an annotation always says what was judged even if the set is rebuilt later.
* ``annotation``: one row per (annotator, item): verdict (1 = decomposes correctly, 0 = not,
  NULL = not decided yet), the flags leak / ambiguous / ungrammatical, a comment, the time.
* ``history``: every save appended as it happened (the full state), for auditing.

Concurrency: the database is in WAL mode (readers never block the writer) and every operation
opens its own short-lived connection (one per web request), with a busy timeout, so several
annotators - several threads or processes - can save at once. Each save is one ``BEGIN
IMMEDIATE`` transaction, committed before the web request answers: closing the browser loses
nothing that the page showed as saved.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.review.sampling import SampleItem

__all__ = ["FLAGS", "Annotation", "ReviewError", "ReviewStore", "SampleRow"]

FORMAT = "kg-qgen-review/1"
FLAGS = ("leak", "ambiguous", "ungrammatical")
MAX_COMMENT = 4000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sample (
    item_id TEXT PRIMARY KEY,
    position INTEGER NOT NULL UNIQUE,
    type TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS annotation (
    annotator TEXT NOT NULL,
    item_id TEXT NOT NULL REFERENCES sample(item_id),
    verdict INTEGER CHECK (verdict IN (0, 1)),
    leak INTEGER NOT NULL DEFAULT 0 CHECK (leak IN (0, 1)),
    ambiguous INTEGER NOT NULL DEFAULT 0 CHECK (ambiguous IN (0, 1)),
    ungrammatical INTEGER NOT NULL DEFAULT 0 CHECK (ungrammatical IN (0, 1)),
    comment TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (annotator, item_id)
);
CREATE TABLE IF NOT EXISTS history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    annotator TEXT NOT NULL,
    item_id TEXT NOT NULL,
    state TEXT NOT NULL,
    at TEXT NOT NULL
);
"""


class ReviewError(KgQgenInputError):
    """The review database cannot be used as asked (the message says why and what to do)."""


@dataclass(frozen=True)
class SampleRow:
    item_id: str
    position: int
    type: str
    question: str
    answer: str


@dataclass(frozen=True)
class Annotation:
    annotator: str
    item_id: str
    verdict: bool | None  # True = decomposes correctly; None = not decided yet
    leak: bool = False
    ambiguous: bool = False
    ungrammatical: bool = False
    comment: str = ""
    updated_at: str = ""

    @property
    def flags(self) -> list[str]:
        return [f for f in FLAGS if getattr(self, f)]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _annotation(row: sqlite3.Row) -> Annotation:
    verdict = row["verdict"]
    return Annotation(
        annotator=row["annotator"],
        item_id=row["item_id"],
        verdict=None if verdict is None else bool(verdict),
        leak=bool(row["leak"]),
        ambiguous=bool(row["ambiguous"]),
        ungrammatical=bool(row["ungrammatical"]),
        comment=row["comment"],
        updated_at=row["updated_at"],
    )


class ReviewStore:
    """The review database at ``path`` (created on first use)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.connect() as con:
                mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                con.executescript(_SCHEMA)
        except sqlite3.Error as err:
            raise ReviewError(f"cannot open the review database: {err}", path=str(path)) from err
        self.journal_mode = str(mode).lower()

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh connection (autocommit; transactions are explicit), closed afterwards."""
        con = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            con.row_factory = sqlite3.Row
            con.execute("PRAGMA busy_timeout = 30000")
            con.execute("PRAGMA foreign_keys = ON")
            yield con
        finally:
            con.close()

    # ------------------------------------------------------------------ the sample
    def meta(self) -> dict[str, str]:
        with self.connect() as con:
            return {r["key"]: r["value"] for r in con.execute("SELECT key, value FROM meta")}

    def init_sample(
        self,
        items: Sequence[SampleItem],
        records_by_id: Mapping[str, Mapping[str, Any]],
        *,
        per_type: int,
        seed: int,
        questions_sha256: str,
    ) -> bool:
        """Store the sample once; later calls check that it still matches. True if created now.

        A database drawn with other options, or whose sampled questions are no longer in the set
        with the same text, is refused: its annotations would not be about these questions.
        """
        with self.connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                meta = {r["key"]: r["value"] for r in con.execute("SELECT key, value FROM meta")}
                if meta:
                    con.execute("ROLLBACK")
                    self._check_existing(meta, records_by_id, per_type=per_type, seed=seed)
                    return False
                rows = [
                    (
                        it.item_id,
                        it.position,
                        it.type,
                        records_by_id[it.item_id]["question"],
                        records_by_id[it.item_id]["answer"],
                    )
                    for it in items
                ]
                con.executemany(
                    "INSERT INTO sample (item_id, position, type, question, answer) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
                new_meta = {
                    "format": FORMAT,
                    "per_type": str(per_type),
                    "seed": str(seed),
                    "questions_sha256": questions_sha256,
                    "n_items": str(len(items)),
                    "created_at": _now(),
                }
                con.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", new_meta.items())
                con.execute("COMMIT")
                return True
            except BaseException:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise

    def _check_existing(
        self,
        meta: Mapping[str, str],
        records_by_id: Mapping[str, Mapping[str, Any]],
        *,
        per_type: int,
        seed: int,
    ) -> None:
        if meta.get("format") != FORMAT:
            raise ReviewError(
                f"unknown review database format {meta.get('format')!r} (expected {FORMAT})",
                path=str(self.path),
            )
        if (meta.get("per_type"), meta.get("seed")) != (str(per_type), str(seed)):
            raise ReviewError(
                f"this database holds the sample drawn with --per-type {meta.get('per_type')} "
                f"--seed {meta.get('seed')}, not --per-type {per_type} --seed {seed}; rerun with "
                "those options, or pass --db NEW.sqlite for a new sample",
                path=str(self.path),
            )
        changed = [
            s.item_id
            for s in self.sample()
            if s.item_id not in records_by_id
            or records_by_id[s.item_id].get("question") != s.question
            or records_by_id[s.item_id].get("answer") != s.answer
        ]
        if changed:
            raise ReviewError(
                f"{len(changed)} sampled question(s) are missing or changed in questions.jsonl "
                f"(first: {changed[0]}); the set was rebuilt after the review began - review it "
                "with --db NEW.sqlite",
                path=str(self.path),
            )

    def sample(self) -> list[SampleRow]:
        with self.connect() as con:
            rows = con.execute(
                "SELECT item_id, position, type, question, answer FROM sample ORDER BY position"
            ).fetchall()
        return [SampleRow(**dict(r)) for r in rows]

    # ------------------------------------------------------------------ annotations
    def save(
        self,
        annotator: str,
        item_id: str,
        *,
        verdict: bool | None,
        leak: bool = False,
        ambiguous: bool = False,
        ungrammatical: bool = False,
        comment: str = "",
    ) -> Annotation:
        """Insert or replace ``annotator``'s annotation of ``item_id`` and log it; returns it."""
        if not annotator:
            raise ValueError("annotator must not be empty")
        if len(comment) > MAX_COMMENT:
            raise ValueError(f"comment longer than {MAX_COMMENT} characters")
        at = _now()
        ann = Annotation(
            annotator, item_id, verdict, bool(leak), bool(ambiguous), bool(ungrammatical),
            comment, at,
        )  # fmt: skip
        with self.connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                if (
                    con.execute("SELECT 1 FROM sample WHERE item_id = ?", (item_id,)).fetchone()
                    is None
                ):
                    raise KeyError(f"item {item_id!r} is not in the review sample")
                con.execute(
                    "INSERT INTO annotation (annotator, item_id, verdict, leak, ambiguous, "
                    "ungrammatical, comment, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (annotator, item_id) DO UPDATE SET verdict = excluded.verdict, "
                    "leak = excluded.leak, ambiguous = excluded.ambiguous, "
                    "ungrammatical = excluded.ungrammatical, comment = excluded.comment, "
                    "updated_at = excluded.updated_at",
                    (
                        annotator, item_id, None if verdict is None else int(verdict),
                        int(ann.leak), int(ann.ambiguous), int(ann.ungrammatical), comment, at,
                    ),
                )  # fmt: skip
                state = {
                    k: v for k, v in ann.to_dict().items() if k not in ("annotator", "item_id")
                }
                con.execute(
                    "INSERT INTO history (annotator, item_id, state, at) VALUES (?, ?, ?, ?)",
                    (annotator, item_id, json.dumps(state, ensure_ascii=False), at),
                )
                con.execute("COMMIT")
            except BaseException:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise
        return ann

    def annotation(self, annotator: str, item_id: str) -> Annotation | None:
        with self.connect() as con:
            row = con.execute(
                "SELECT * FROM annotation WHERE annotator = ? AND item_id = ?", (annotator, item_id)
            ).fetchone()
        return _annotation(row) if row is not None else None

    def annotations(self, annotator: str | None = None) -> list[Annotation]:
        """All annotations (or one annotator's), in review order then annotator name."""
        query = (
            "SELECT a.* FROM annotation a JOIN sample s ON s.item_id = a.item_id "
            + ("WHERE a.annotator = ? " if annotator is not None else "")
            + "ORDER BY s.position, a.annotator"
        )
        with self.connect() as con:
            rows = con.execute(query, (annotator,) if annotator is not None else ()).fetchall()
        return [_annotation(r) for r in rows]

    def annotators(self) -> list[str]:
        with self.connect() as con:
            rows = con.execute("SELECT DISTINCT annotator FROM annotation ORDER BY annotator")
            return [r["annotator"] for r in rows]

    def history_count(self) -> int:
        with self.connect() as con:
            return int(con.execute("SELECT COUNT(*) FROM history").fetchone()[0])

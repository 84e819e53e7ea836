"""A review session: a built question set, its fixed sample and its annotation database."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg_qgen.review.sampling import file_sha256, read_questions, sample_per_type
from kg_qgen.review.storage import ReviewError, ReviewStore, SampleRow
from kg_qgen.review.summary import ReviewSummary, summarize

__all__ = ["DB_NAME", "ReviewSession", "default_db_path", "open_store"]

DB_NAME = "review.sqlite"


def default_db_path(set_dir: str | Path) -> Path:
    return Path(set_dir) / DB_NAME


def open_store(set_dir: str | Path, db_path: str | Path | None = None) -> ReviewStore:
    """The existing review database of a set (for ``--summary`` and exports); never creates one."""
    path = Path(db_path) if db_path is not None else default_db_path(set_dir)
    if not path.is_file():
        raise ReviewError(
            "no review database here; start the app first: kg-qgen review SET_DIR", path=str(path)
        )
    return ReviewStore(path)


@dataclass
class ReviewSession:
    set_dir: Path
    store: ReviewStore
    records: Mapping[str, Mapping[str, Any]]  # id -> question record
    sample: list[SampleRow]
    per_type: int
    seed: int
    created: bool  # the sample was drawn by this open

    @classmethod
    def open(
        cls,
        set_dir: str | Path,
        *,
        per_type: int = 50,
        seed: int = 0,
        db_path: str | Path | None = None,
    ) -> ReviewSession:
        """Read the set, draw the sample (first time) or check it (later), open the database."""
        qpath, records = read_questions(set_dir)
        by_id = {r["id"]: r for r in records}
        store = ReviewStore(db_path if db_path is not None else default_db_path(set_dir))
        items = sample_per_type(records, per_type=per_type, seed=seed)
        created = store.init_sample(
            items, by_id, per_type=per_type, seed=seed, questions_sha256=file_sha256(qpath)
        )
        return cls(Path(set_dir), store, by_id, store.sample(), per_type, seed, created)

    def position_of(self, item_id: str) -> int | None:
        return next((s.position for s in self.sample if s.item_id == item_id), None)

    def summary(self) -> ReviewSummary:
        return summarize(self.sample, self.store.annotations())

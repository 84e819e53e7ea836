"""Review sampling and SQLite storage: fixed sample, every click saved, concurrent annotators."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
from kg_qgen.errors import KgQgenInputError
from kg_qgen.review.sampling import read_questions, sample_per_type
from kg_qgen.review.session import ReviewSession, open_store
from kg_qgen.review.storage import ReviewError, ReviewStore
from review_support import build_set


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_set(tmp_path_factory.mktemp("set") / "builtin", per_type=6)


def _recs(types: dict[str, int]) -> list[dict]:
    return [
        {"id": f"{t}-{i:03d}", "type": t, "question": f"q{t}{i}", "answer": "a"}
        for t, n in types.items()
        for i in range(n)
    ]


def test_sample_is_seeded_uniform_per_type_and_order_independent():
    recs = _recs({"MT": 30, "HS": 40, "ZZ": 3})
    a = sample_per_type(recs, per_type=10, seed=1)
    b = sample_per_type(list(reversed(recs)), per_type=10, seed=1)
    assert a == b  # file order does not matter: every annotator gets the same items
    assert [it.type for it in a] == ["HS"] * 10 + ["MT"] * 10 + ["ZZ"] * 3  # paper order first
    assert [it.position for it in a] == list(range(23))
    assert a != sample_per_type(recs, per_type=10, seed=2)
    # Uniform: over many seeds every HS item is drawn about equally often (10/40 = 25%).
    counts = dict.fromkeys((r["id"] for r in recs if r["type"] == "HS"), 0)
    for seed in range(400):
        for it in sample_per_type(recs, per_type=10, seed=seed):
            if it.type == "HS":
                counts[it.item_id] += 1
    assert min(counts.values()) > 60 and max(counts.values()) < 140  # expected 100 each


def test_read_questions_names_file_line_and_field(tmp_path: Path):
    (tmp_path / "questions.jsonl").write_text(
        '{"id": "a", "type": "HS", "question": "q", "answer": "x"}\n{"id": "b", "type": "HS", "question": ""}\n'
    )
    with pytest.raises(KgQgenInputError, match=r"questions.jsonl, line 2, field 'question'"):
        read_questions(tmp_path)
    with pytest.raises(KgQgenInputError, match=r"no questions\.jsonl"):
        read_questions(tmp_path / "nowhere")


def test_session_draws_once_and_refuses_other_options_or_a_rebuilt_set(built: Path, tmp_path: Path):
    db = tmp_path / "r.sqlite"
    s1 = ReviewSession.open(built, per_type=3, seed=0, db_path=db)
    assert s1.created and len(s1.sample) == 21  # 7 types x 3
    assert s1.store.journal_mode == "wal"
    s2 = ReviewSession.open(built, per_type=3, seed=0, db_path=db)
    assert not s2.created and s2.sample == s1.sample
    with pytest.raises(ReviewError, match="--per-type 3 --seed 0, not --per-type 4 --seed 0"):
        ReviewSession.open(built, per_type=4, seed=0, db_path=db)
    rebuilt = tmp_path / "rebuilt"
    rebuilt.mkdir()
    lines = (built / "questions.jsonl").read_text().splitlines()
    first = s1.sample[0].item_id
    changed = [
        json.dumps({**json.loads(x), "question": "changed?"}) if json.loads(x)["id"] == first else x
        for x in lines
    ]
    (rebuilt / "questions.jsonl").write_text("\n".join(changed) + "\n")
    with pytest.raises(ReviewError, match=f"1 sampled question.*first: {first}"):
        ReviewSession.open(rebuilt, per_type=3, seed=0, db_path=db)
    with pytest.raises(ReviewError, match="no review database"):
        open_store(rebuilt)


def test_save_upserts_keeps_history_and_survives_reopening(built: Path, tmp_path: Path):
    db = tmp_path / "r.sqlite"
    session = ReviewSession.open(built, per_type=2, seed=0, db_path=db)
    item = session.sample[0].item_id
    store = session.store
    store.save("ann", item, verdict=True)
    store.save("ann", item, verdict=False, ungrammatical=True, comment="word order")
    ann = ReviewStore(db).annotation("ann", item)  # a new store object: read back from disk
    assert (ann.verdict, ann.flags, ann.comment) == (False, ["ungrammatical"], "word order")
    assert ann.updated_at.endswith("+00:00")
    assert store.history_count() == 2
    assert [a.item_id for a in store.annotations("ann")] == [item]
    with pytest.raises(KeyError, match="not in the review sample"):
        store.save("ann", "NOPE-1", verdict=True)
    with pytest.raises(ValueError, match="comment longer"):
        store.save("ann", item, verdict=True, comment="x" * 5000)
    con = sqlite3.connect(db)  # the verdict column only takes 0, 1 or NULL
    with pytest.raises(sqlite3.IntegrityError):
        con.execute("UPDATE annotation SET verdict = 2")
    con.close()


def test_concurrent_annotators_lose_nothing(built: Path, tmp_path: Path):
    """Eight annotators save every item at once, each save on its own connection (as the app
    does per request); WAL + busy timeout must serialise them without 'database is locked'."""
    session = ReviewSession.open(built, per_type=6, seed=0, db_path=tmp_path / "r.sqlite")
    items = [s.item_id for s in session.sample]
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def annotate(name: str) -> None:
        try:
            barrier.wait()
            store = ReviewStore(session.store.path)
            for k, item in enumerate(items):
                store.save(name, item, verdict=(k % 3 != 0), leak=(k % 5 == 0))
        except BaseException as err:  # collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=annotate, args=(f"a{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:1]
    anns = session.store.annotations()
    assert len(anns) == 8 * len(items)
    assert session.store.history_count() == 8 * len(items)
    assert sum(a.verdict for a in anns) == 8 * sum(k % 3 != 0 for k in range(len(items)))
    assert session.summary().kappa.value == pytest.approx(1.0)  # all eight agree on every item

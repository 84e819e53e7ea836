"""`kg-qgen build --overwrite` on a reviewed set: every label survives (issue 22, item 1).

A real build of the built-in KB, labelled through the review app's HTTP API (Flask test client),
rebuilt with `kg-qgen build --overwrite` (the CLI's own entry point), then read back: the same
build keeps review.sqlite in place; a build whose questions changed keeps it aside, reported.
Files kg-qgen never wrote (notes) are carried over too.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="not run: the review app needs Flask (kg-qgen[review])")

from kg_qgen.cli import main
from kg_qgen.review.app import create_app
from kg_qgen.review.session import ReviewSession


def _build(out: Path, capsys, *extra: str) -> str:
    args = ["build", "--source", "builtin", "--per-type", "4", "--types", "SH,HS,MP", "--out",
            str(out), "--no-verify", *extra]  # fmt: skip
    main(args)  # standalone_mode=False: returns on success, exits non-zero on an error
    return capsys.readouterr().out


def _label_everything(set_dir: Path) -> dict[tuple[str, str], bool]:
    session = ReviewSession.open(set_dir, per_type=2, seed=0)
    app = create_app(session)
    app.testing = True
    labels = {}
    for k, name in enumerate(("ann", "bob")):
        client = app.test_client()
        assert client.post("/login", data={"annotator": name}).status_code == 302
        for i, row in enumerate(session.sample):
            verdict = (i + k) % 2 == 0
            resp = client.put(f"/api/annotations/{row.item_id}", json={"verdict": verdict})
            assert resp.status_code == 200
            labels[(name, row.item_id)] = verdict
    return labels


def _labels_in(db: Path) -> dict[tuple[str, str], bool]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT annotator, item_id, verdict FROM annotation").fetchall()
    finally:
        con.close()
    return {(a, i): bool(v) for a, i, v in rows}


def test_same_rebuild_keeps_every_label_in_place(tmp_path: Path, capsys) -> None:
    out = tmp_path / "set"
    _build(out, capsys)
    labels = _label_everything(out)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    printed = _build(out, capsys, "--overwrite")
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert _labels_in(out / "review.sqlite") == labels and len(labels) > 0
    assert f"review: {len(labels)} annotation(s) kept" in printed
    # The app resumes on the rebuilt set with every label.
    session = ReviewSession.open(out, per_type=2, seed=0)
    assert not session.created and len(session.store.annotations()) == len(labels)


def test_changed_rebuild_keeps_the_labels_aside_and_says_so(tmp_path: Path, capsys) -> None:
    out = tmp_path / "set"
    _build(out, capsys)
    labels = _label_everything(out)
    printed = _build(out, capsys, "--overwrite", "--seed", "7")
    assert not (out / "review.sqlite").exists()
    aside = sorted(out.glob("review-kept-*.sqlite"))
    assert len(aside) == 1 and _labels_in(aside[0]) == labels
    assert "kept aside as" in printed and aside[0].name in printed
    # A fresh review of the new set starts a new sample; the old labels are still readable.
    assert ReviewSession.open(out, per_type=2, seed=0).created

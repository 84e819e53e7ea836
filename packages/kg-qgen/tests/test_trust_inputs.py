"""Issue 39 item 6 in kg-qgen: a triples file with one id under two labels is refused naming both
lines, input files are read one line at a time (a junk file fails at its first line, in constant
memory), numeric options are bounded at parse time (--oversample 1e308 was a traceback), and the
review app saves items whose id holds "/", checks Host and Origin against its bind address
(DNS-rebinding defence), caps the request size and reads a deeply nested record in one line.
Each test failed on the code before the fix."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from kg_qgen.cli import main
from kg_qgen.errors import KgQgenInputError
from kg_qgen.records import read_records
from kg_qgen.sources.triples import load_triples


def _one_line(capsys, args: list[str], *fragments: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert exit_info.value.code == 2, err
    assert len(lines) == 1 and lines[0].startswith("kg-qgen: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------- triples: one id, one label


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_one_entity_id_under_two_labels_is_refused_naming_both_lines(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "t.jsonl",
        [
            {"subject": "Paris", "subject_id": "Q90", "relation": "P17", "object": "France"},
            {"subject": "Lyon", "relation": "P17", "object": "France"},
            {"subject": "Berlin", "subject_id": "Q90", "relation": "P17", "object": "Germany"},
        ],
    )
    with pytest.raises(KgQgenInputError) as err:
        load_triples(path)
    text = str(err.value)
    assert "'Q90'" in text and "'Paris' on line 1" in text and "'Berlin' on line 3" in text


def test_slug_collisions_and_relation_labels_are_caught_too(tmp_path: Path) -> None:
    csv_path = tmp_path / "t.csv"
    csv_path.write_text(
        "subject,relation,object\nNew York,located in,USA\nNew-York,located in,USA\n",
        encoding="utf-8",
    )
    with pytest.raises(
        KgQgenInputError, match="'new_york' is 'New York' on line 2 and 'New-York' on line 3"
    ):
        load_triples(csv_path)
    rel = _jsonl(
        tmp_path / "r.jsonl",
        [
            {"subject": "a", "relation": "r", "relation_id": "R1", "relation_label": "born in", "object": "b"},
            {"subject": "c", "relation": "r", "relation_id": "R1", "relation_label": "died in", "object": "d"},
        ],
    )  # fmt: skip
    with pytest.raises(KgQgenInputError, match="relation id 'R1' is 'born in' on line 1"):
        load_triples(rel)
    same = _jsonl(  # the same label up to case and spacing is the same entity
        tmp_path / "s.jsonl",
        [
            {"subject": "Paris", "subject_id": "Q90", "relation": "P17", "object": "France"},
            {"subject": "paris ", "subject_id": "Q90", "relation": "P31", "object": "city"},
        ],
    )
    assert len(load_triples(same)) == 2


# ---------------------------------------------------------------- streamed input files


def _junk_after_bad_first_line(path: Path, first: bytes) -> Path:
    with path.open("wb") as fh:
        fh.write(first)
        fh.write((b"y" * 1023 + b"\n") * 40 * 1024)  # 40 MiB more after the bad line
    return path


@pytest.mark.parametrize(
    ("reader", "name"),
    [(load_triples, "t.jsonl"), (load_triples, "t.csv"), (read_records, "q.jsonl")],
)
def test_inputs_are_streamed_and_fail_at_the_first_bad_line(tmp_path: Path, reader, name) -> None:
    first = b"subject,relation,object\n\xff\n" if name.endswith(".csv") else b"\xff{}\n"
    path = _junk_after_bad_first_line(tmp_path / name, first)
    tracemalloc.start()
    try:
        with pytest.raises(KgQgenInputError, match="not UTF-8"):
            reader(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"{peak} bytes held to read one bad line"


# ---------------------------------------------------------------- numbers bounded at parse time


@pytest.mark.parametrize(
    ("option", "value"),
    [("--oversample", "1e308"), ("--oversample", "inf"), ("--per-type", "10000000000"),
     ("--wording-draws", "100000000")],
)  # fmt: skip
def test_build_numbers_are_bounded_at_parse_time(
    tmp_path: Path, capsys, option: str, value: str
) -> None:
    out = tmp_path / "o"
    args = ["build", "--source", "builtin", "--types", "SH", option, value, "--out", str(out)]
    _one_line(capsys, args, option)
    assert not out.exists()


# ---------------------------------------------------------------- review app

flask = pytest.importorskip("flask", reason="not run: the review app needs Flask (kg-qgen[review])")


def _set_with(tmp_path: Path, extra: list[dict] | None = None) -> Path:
    """A small set whose SH ids hold a '/', and ``extra`` records."""
    from review_support import build_set

    built = build_set(tmp_path / "set", per_type=2)
    qpath = built / "questions.jsonl"
    rows = [json.loads(line) for line in qpath.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        r["id"] = f"slash/{r['id']}"
    _jsonl(qpath, rows + (extra or []))
    return built


@pytest.fixture
def client(tmp_path: Path):
    from kg_qgen.review.app import create_app
    from kg_qgen.review.session import ReviewSession

    session = ReviewSession.open(_set_with(tmp_path), per_type=2, db_path=tmp_path / "r.sqlite")
    app = create_app(session, bind_host="127.0.0.1")  # the test client sends Host: localhost
    app.testing = True
    test_client = app.test_client()
    assert test_client.post("/login", data={"annotator": "ann"}).status_code == 302
    return test_client, session


def test_an_item_whose_id_holds_a_slash_is_saved(client) -> None:
    test_client, session = client
    item = session.sample[0].item_id
    assert "/" in item
    html = test_client.get("/item/0").get_data(as_text=True)
    assert f'data-api="/api/annotations/{item}"' in html
    saved = test_client.put(f"/api/annotations/{item}", json={"verdict": True})
    assert saved.status_code == 200, saved.get_data(as_text=True)
    assert session.store.annotation("ann", item).verdict is True
    assert test_client.get(f"/api/annotations/{item}").get_json()["verdict"] is True


def test_host_and_origin_are_checked_against_the_bind_address(client) -> None:
    from kg_qgen.review.app import PORT_KEY

    test_client, session = client
    item = session.sample[0].item_id
    rebound = {"Host": "evil.test:8765"}  # a page whose DNS name now points at 127.0.0.1
    assert test_client.get("/", headers=rebound).status_code == 403
    assert (
        test_client.put(
            f"/api/annotations/{item}", json={"verdict": False}, headers=rebound
        ).status_code
        == 403
    )
    test_client.application.config[PORT_KEY] = 8765  # as the CLI sets it once bound
    assert test_client.get("/", headers={"Host": "127.0.0.1:9999"}).status_code == 403
    for loopback in ("localhost:8765", "127.0.0.1:8765", "[::1]:8765"):  # the login page or an item
        assert test_client.get("/", headers={"Host": loopback}).status_code in (200, 302)
    cross = {"Origin": "http://evil.test"}
    assert test_client.post("/login", data={"annotator": "eve"}, headers=cross).status_code == 403
    assert test_client.post("/logout", headers=cross).status_code == 403
    assert session.store.annotations() == []


def test_request_size_is_capped_and_nested_bodies_are_a_400(client) -> None:
    from kg_qgen.review.app import MAX_REQUEST_BYTES

    test_client, session = client
    item = session.sample[0].item_id
    big = json.dumps({"verdict": True, "comment": "x" * (MAX_REQUEST_BYTES + 1)})
    resp = test_client.put(f"/api/annotations/{item}", data=big, content_type="application/json")
    assert resp.status_code == 413
    deep = "[" * 20_000 + "]" * 20_000  # within the size cap, past the parser's depth
    resp = test_client.put(f"/api/annotations/{item}", data=deep, content_type="application/json")
    assert resp.status_code == 400
    assert session.store.annotations() == []


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ('{"id": "X", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}", "malformed JSON"),
        ('{"id": "X", "n": ' + "9" * 5000 + "}", "malformed JSON"),
    ],
)
def test_review_reads_a_bad_record_in_one_line(
    tmp_path: Path, capsys, line: str, fragment: str
) -> None:
    built = _set_with(tmp_path)
    with (built / "questions.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    _one_line(capsys, ["review", str(built), "--port", "0"], fragment, "questions.jsonl")

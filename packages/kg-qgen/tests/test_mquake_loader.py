"""The MQuAKE loader on a small fixture written by us in the real MQuAKE-CF format, and its
pinned, verified downloads against a file server the test starts on 127.0.0.1 (stdlib
``http.server``; a stand-in for GitHub's raw file host)."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from kg_qgen import KgQgenInputError, load_source
from kg_qgen.sources import mquake
from kg_qgen.sources.mquake import (
    CANONICAL,
    CanonicalFile,
    cache_path_for,
    git_blob_sha1,
    graph_from_mquake,
    load_mquake,
)

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "mquake_mini.json"


def test_fixture_loads_chains_aliases_and_source_questions():
    g = load_mquake(FIXTURE)
    data = json.loads(FIXTURE.read_text())
    distinct = {tuple(t) for case in data for t in case["orig"]["triples"]}
    assert len(g) == len(distinct) == 7
    assert g.has_fact("Q208460", "P50", "Q3335") and g.has_fact("Q145", "P36", "Q84")
    assert g.label("Q3335") == "George Orwell"
    assert g.aliases("Q3335") == ("Eric Arthur Blair", "Eric Blair")  # hop 0's answer_alias
    assert "Britain" in g.aliases("Q145")
    assert g.aliases("Q208460") == ()  # MQuAKE gives no aliases for the first subject
    # hop 1 of case 90003 names "Washington D.C." while the triple says "Washington, D.C.":
    # the chain is not aligned there, so those aliases are not attached
    assert g.aliases("Q61") == ()
    assert g.relation_label("P36") == "capital"
    assert len(g.source_questions) == 9
    assert {q["record_id"] for q in g.source_questions} == {"90001", "90002", "90003"}
    assert {f.source for f in g.facts()} == {"mquake:90001", "mquake:90002", "mquake:90003"}
    assert load_source("mquake", FIXTURE, limit=1).source_questions[0]["answer"] == "London"


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (
            lambda c: c[1].update(single_hops=["oops"]),
            "record [1] (case_id 90002), field 'single_hops[0]'",
        ),
        (lambda c: c[0].update(questions=5), "record [0] (case_id 90001), field 'questions'"),
        (lambda c: c[2]["orig"]["triples"][0].__setitem__(0, 76), "field 'orig.triples[0][0]'"),
        (lambda c: c[0]["orig"].pop("triples_labeled"), "field 'orig.triples_labeled': missing"),
        (lambda c: c[0].update(case_id=[1]), "record [0], field 'case_id'"),
        (
            lambda c: c[0]["single_hops"][0].update(answer_alias="Eric"),
            "single_hops[0].answer_alias",
        ),
        (lambda c: c.__setitem__(1, "not a case"), "record [1]: must be a JSON object"),
    ],
)
def test_wrong_inner_structure_is_one_line_naming_record_and_field(mutate, where):
    cases = json.loads(FIXTURE.read_text())
    mutate(cases)
    with pytest.raises(KgQgenInputError) as err:
        graph_from_mquake(cases, path="mini.json")
    msg = str(err.value)
    assert msg.startswith("mini.json, record [") and where in msg and "\n" not in msg


def test_non_utf8_and_bad_json_name_the_file_and_line(tmp_path):
    p = tmp_path / "bad.json"
    p.write_bytes(b'[\n {"case_id": 1,\n  "orig": "caf\xe9"}]')
    with pytest.raises(KgQgenInputError, match=r"bad\.json, line 3: not UTF-8 text"):
        load_mquake(p)
    p.write_text('[{"case_id": 1}, 1e999999999999999999]')
    with pytest.raises(KgQgenInputError, match=r"bad\.json"):
        load_mquake(p)
    p.write_text("[" * 100000)
    with pytest.raises(KgQgenInputError, match="malformed JSON"):
        load_mquake(p)


class _Files:
    """A tiny HTTP file server on 127.0.0.1 counting requests per path."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files, self.hits = files, {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep test output quiet
                pass

            def do_GET(self):
                owner.hits[self.path] = owner.hits.get(self.path, 0) + 1
                body = owner.files.get(self.path)
                if body is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_git_blob_sha1_is_what_git_computes(tmp_path):
    data = FIXTURE.read_bytes()
    assert git_blob_sha1(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob
    if shutil.which("git"):
        out = subprocess.run(["git", "hash-object", str(FIXTURE)], capture_output=True, text=True)
        assert out.stdout.strip() == git_blob_sha1(data)
    assert CANONICAL["MQuAKE-hard"].git_blob_sha1 == "1425b170ab045beef777f9dbd28e08a4a52eb224"
    assert all("/main/" not in c.url for c in CANONICAL.values())  # pinned commits only


def test_pinned_download_is_verified_cached_and_a_damaged_cache_refetched(tmp_path, monkeypatch):
    data = FIXTURE.read_bytes()
    with _Files({"/hard.json": data, "/other.json": data, "/third.json": data}) as srv:
        url = srv.url("/hard.json")
        monkeypatch.setitem(CANONICAL, "Mini-hard", CanonicalFile(url, git_blob_sha1(data)))
        g = load_mquake("Mini-hard", cache_dir=tmp_path)
        assert len(g) == 7 and srv.hits["/hard.json"] == 1
        cached = cache_path_for(url, tmp_path)
        sidecar = cached.with_name(cached.name + ".sha256")
        assert sidecar.read_text().strip() == hashlib.sha256(data).hexdigest()
        load_mquake("Mini-hard", cache_dir=tmp_path)
        assert srv.hits["/hard.json"] == 1  # served from the cache
        cached.write_bytes(data[: len(data) // 2])  # a truncated cache is never trusted
        assert len(load_mquake("Mini-hard", cache_dir=tmp_path)) == 7
        assert srv.hits["/hard.json"] == 2
        # a pinned digest that does not match: refused, nothing left in the cache
        monkeypatch.setitem(CANONICAL, "Mini-bad", CanonicalFile(srv.url("/other.json"), "0" * 40))
        with pytest.raises(KgQgenInputError, match=r"git blob sha1 .* != pinned"):
            load_mquake("Mini-bad", cache_dir=tmp_path)
        bad = cache_path_for(srv.url("/other.json"), tmp_path)
        assert not bad.exists() and not list(bad.parent.glob("*.part"))
        # a user-given sha256 and the size cap
        third = srv.url("/third.json")
        with pytest.raises(KgQgenInputError, match=r"sha256 .* != expected"):
            load_mquake(third, cache_dir=tmp_path, sha256="ab" * 32)
        with pytest.raises(KgQgenInputError, match="size cap"):
            load_mquake(third, cache_dir=tmp_path, max_bytes=100)
        assert not cache_path_for(third, tmp_path).exists()
        assert len(load_mquake(third, cache_dir=tmp_path)) == 7  # no digest known: TOFU
        # an unknown name or a dead URL: one line
        with pytest.raises(KgQgenInputError, match="could not download"):
            load_mquake(srv.url("/missing.json"), cache_dir=tmp_path)


def test_local_file_with_a_given_sha256(tmp_path):
    right = hashlib.sha256(FIXTURE.read_bytes()).hexdigest()
    assert len(load_mquake(FIXTURE, sha256=right)) == 7
    with pytest.raises(KgQgenInputError, match="sha256"):
        load_mquake(FIXTURE, sha256="0" * 64)


def test_mutated_fixture_copy_still_loads():
    cases = copy.deepcopy(json.loads(FIXTURE.read_text()))
    del cases[0]["single_hops"]  # optional: no aliases then
    assert mquake.graph_from_mquake(cases).aliases("Q3335") == ()

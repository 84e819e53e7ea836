import hashlib
import json
from pathlib import Path

import pytest
from conftest import is_slice
from kg_qgen import KgQgenInputError, load_source
from kg_qgen.sources.mquake import cache_path_for, load_mquake, resolve_url
from kg_qgen.sources.registry import get_source
from kg_qgen.sources.relations import load_relation_labels

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_triples_jsonl_with_ids_aliases_and_labels(tmp_path):
    labels = tmp_path / "rel.json"
    labels.write_text(
        json.dumps(
            {
                "results": {
                    "bindings": [
                        {
                            "property": {"value": "http://www.wikidata.org/entity/P27"},
                            "propertyLabel": {"value": "country of citizenship"},
                        }
                    ]
                }
            }
        )
    )
    p = tmp_path / "t.jsonl"
    p.write_text(
        json.dumps(
            {
                "subject": "Lionel Messi",
                "relation": "P27",
                "object": "Argentina",
                "subject_aliases": ["Leo Messi"],
                "object_id": "Q414",
            }
        )
        + "\n\n"
        + json.dumps(
            {
                "subject": "Argentina",
                "relation": "continent",
                "object": "South America",
                "subject_id": "Q414",
            }
        )
        + "\n"
    )
    g = load_source("triples", p, relations_file=labels)
    assert len(g) == 2
    assert g.relation_label("P27") == "country of citizenship"
    assert g.relation_label("continent") == "continent"
    assert g.aliases("lionel_messi") == ("Leo Messi",)
    assert g.has_fact("Q414", "continent", "south_america")
    assert next(iter(g.facts())).source == "t.jsonl:1"


def test_triples_csv(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("subject,relation,object,object_aliases\nA,likes,B,Bee|B.\n")
    g = load_source("triples", p)
    assert g.aliases("b") == ("Bee", "B.")


def test_wikidata_relation_file_real(wikidata_relations):
    labels = load_relation_labels(wikidata_relations)
    assert labels["P27"] == "country of citizenship"
    assert len(labels) > (20 if is_slice(wikidata_relations) else 10000)  # 25 in the slice


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("", "no triples"),
        ('{"subject": "a", "object": "b"}\n', "line 1, field 'relation': missing"),
        (
            '{"subject": "a", "relation": "r", "object": "b"}\n' * 36 + "{oops\n",
            "line 37: malformed JSON",
        ),
        ("[1, 2]\n", "line 1: expected a JSON object"),
        (
            '{"subject": "a", "relation": "r", "object": "b", "subject_aliases": 3}\n',
            "field 'subject_aliases'",
        ),
    ],
)
def test_triples_bad_input(tmp_path, content, match):
    p = tmp_path / "bad.jsonl"
    p.write_text(content)
    with pytest.raises(KgQgenInputError, match=match) as err:
        load_source("triples", p)
    assert str(p) in str(err.value)


def test_triples_strict_unknown_relation(tmp_path):
    labels = tmp_path / "rel.json"
    labels.write_text(json.dumps({"P27": "country of citizenship"}))
    p = tmp_path / "t.jsonl"
    p.write_text(
        '{"subject": "a", "relation": "P27", "object": "b"}\n'
        '{"subject": "a", "relation": "P99999", "object": "c"}\n'
    )
    with pytest.raises(
        KgQgenInputError, match=r"line 2, field 'relation': relation 'P99999' has no"
    ):
        load_source("triples", p, relations_file=labels, strict=True)
    # strict needs no relations file: kg-qgen's shipped Wikidata labels are consulted
    with pytest.raises(KgQgenInputError, match="has no label"):
        load_source("triples", p, strict=True)
    g = load_source("triples", p, relations_file=labels)  # lenient: label = the id
    assert g.relation_label("P99999") == "P99999"


def test_csv_missing_column(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("subject,object\na,b\n")
    with pytest.raises(KgQgenInputError, match="line 1, field 'relation': header lacks"):
        load_source("triples", p)


def test_mquake_local(mquake_hard_dev):
    g = load_mquake(mquake_hard_dev)
    data = json.loads(mquake_hard_dev.read_text())
    distinct = {tuple(t) for case in data for t in case["orig"]["triples"]}
    assert len(g) == len(distinct)
    assert len(g.source_questions) == sum(len(c["questions"]) for c in data)
    case = data[0]
    s, p, o = case["orig"]["triples"][0]
    assert g.label(o) == case["orig"]["triples_labeled"][0][2]
    assert g.relation_label(p) == case["orig"]["triples_labeled"][0][1]
    assert set(case["single_hops"][0]["answer_alias"]) <= set(g.aliases(o))
    assert g.aliases(s) == ()  # MQuAKE gives no aliases for the first subject
    assert next(iter(g.facts())).source.startswith("mquake:")


def test_mquake_bad_input(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps([{"case_id": 1, "orig": {"triples": []}}]))
    with pytest.raises(
        KgQgenInputError, match=r"record \[0\] \(case_id 1\), field 'orig\.triples_labeled'"
    ):
        load_mquake(p)
    p.write_text("[]")
    with pytest.raises(KgQgenInputError, match="no cases"):
        load_mquake(p)
    with pytest.raises(KgQgenInputError, match="file not found"):
        load_mquake(tmp_path / "nope.json")


def test_mquake_url_resolution_and_cache_name(tmp_path):
    url = resolve_url("MQuAKE-CF-3k-v2")
    assert url == (
        "https://raw.githubusercontent.com/princeton-nlp/MQuAKE/"
        "fb43dadc2d8cd19d08ce81c63d957b59deb3f3cd/datasets/MQuAKE-CF-3k-v2.json"
    )  # pinned to a commit, never the moving main branch
    assert resolve_url("MQuAKE-T.json").endswith("/MQuAKE-T.json")
    assert resolve_url("https://example.org/x.json") == "https://example.org/x.json"
    assert resolve_url("some/local/missing.json") is None
    cached = cache_path_for(url, tmp_path)
    assert cached.parent == tmp_path / "mquake" and cached.name.endswith("-MQuAKE-CF-3k-v2.json")
    assert cache_path_for(url, tmp_path) == cached  # stable


def test_mquake_uses_an_intact_cache_without_network(tmp_path):
    url = resolve_url("MQuAKE-T")
    cached = cache_path_for(url, tmp_path)
    cached.parent.mkdir(parents=True)
    data = (FIXTURES / "mquake_mini.json").read_bytes()
    cached.write_bytes(data)
    # the sidecar digest is what makes a cache entry trusted (written last by a download)
    sidecar = cached.with_name(cached.name + ".sha256")
    sidecar.write_text(hashlib.sha256(data).hexdigest() + "\n")
    g = load_mquake("MQuAKE-T", cache_dir=tmp_path)
    assert len(g) == 7


def test_builtin_format_file(mini_kb):
    assert len(mini_kb) == 23 and mini_kb.aliases("Q17") == ("Nippon", "State of Japan")
    g = load_source("builtin", FIXTURES / "mini_kb.json")
    assert len(g) == 23


def test_builtin_format_errors(tmp_path):
    p = tmp_path / "kb.json"
    p.write_text(
        json.dumps(
            {
                "entities": {"a": {"label": "A"}},
                "relations": {"r": {"label": "R"}},
                "triples": [["a", "r", "zz"]],
            }
        )
    )
    with pytest.raises(KgQgenInputError, match=r"field 'triples\[0\]': unknown object id 'zz'"):
        load_source("builtin", p)


def test_source_registry_suggests():
    with pytest.raises(KeyError, match="did you mean 'triples'"):
        get_source("tripels")

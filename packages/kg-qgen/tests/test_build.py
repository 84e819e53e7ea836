import json
from pathlib import Path

import kg_qgen
import pytest
from datasets import load_from_disk
from kg_qgen import QUESTION_TYPES, build, save
from kg_qgen.checking import Reject
from kg_qgen.match.base import Match
from kg_qgen.verify.leak import find_leak

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MINI_KB = FIXTURES / "mini_kb.json"
SCHEMA = {
    "id",
    "type",
    "question",
    "answer",
    "answer_aliases",
    "target",
    "bridge",
    "premises",
    "source",
}


def test_fixture_kb_builds_all_seven_types(mini_kb):
    result = build(mini_kb, per_type=5, seed=0)
    kept = {t: result.counts[t]["kept"] for t in QUESTION_TYPES}
    assert all(n > 0 for n in kept.values()), kept
    for q in result.questions:
        assert set(q) >= SCHEMA
        assert find_leak(q, mini_kb) is None
        assert set(q["target"]) == {"subject", "relation", "object"}
        if q["type"] in ("SH", "LL", "DS"):
            assert q["bridge"] is None
    sh = [q for q in result.questions if q["type"] == "SH"]
    assert all(q["answer"] == q["target"]["object"] for q in sh)


def test_shortfall_is_reported_never_padded(mini_kb):
    result = build(mini_kb, types=("CC", "SH"), per_type=1000, seed=0)
    assert result.counts["CC"]["kept"] < 1000
    assert "CC" in result.shortfall and "matches found" in result.shortfall["CC"]
    assert len([q for q in result.questions if q["type"] == "CC"]) == result.counts["CC"]["kept"]
    # every fact of the fixture is asked except official language (P37), which takes several
    # objects in the world (one right answer needs one: kg_qgen.semantics.relations.MULTI_VALUED)
    askable = [t for t in json.loads(MINI_KB.read_text())["triples"] if t[1] != "P37"]
    sh = result.counts["SH"]
    assert sh["matches"] == len(askable)
    assert sh["kept"] == sh["generated"] - sh["rejected"]


def test_same_seed_same_output_different_seed_differs(mini_kb):
    a = build(mini_kb, per_type=4, seed=1)
    b = build(mini_kb, per_type=4, seed=1)
    c = build(mini_kb, per_type=4, seed=2)
    assert a.questions == b.questions
    assert a.questions != c.questions


def test_mquake_hard_dev_all_types_leak_free(mquake_hard_dev, mquake_per_type):
    # its speed is measured by benchmarks/kgqgen_build_time.py, not asserted here: a wall-clock
    # bound in a unit test fails on a loaded machine and says nothing on a fast one
    graph = kg_qgen.load_source("mquake", mquake_hard_dev)
    result = build(graph, per_type=mquake_per_type, seed=0)
    for t in QUESTION_TYPES:
        kept = result.counts[t]["kept"]
        assert kept == mquake_per_type or t in result.shortfall, (t, result.counts[t])
        # MT keeps only mirrored questions (kg_qgen.match.mt): MQuAKE-hard-dev's chains are
        # dominated by a few bridges (The Beatles, the USA), which caps them at about 70 of 100
        floor = min(60, mquake_per_type) if t == "MT" else mquake_per_type
        if t in ("MP", "LL"):  # issue 34: one-hop shortcuts, the gold cap, no repeated LL fact
            floor = mquake_per_type // 4  # measured on the full file: MP 27, LL 80 (README)
        assert kept >= floor, result.shortfall
    violations = [q for q in result.questions if find_leak(q, graph)]
    assert violations == []
    # every target fact of a kept record is a real MQuAKE fact
    for q in result.questions:
        t = q["target_ids"]
        assert graph.has_fact(t["subject"], t["relation"], t["object"])
        assert q["source"]["dataset"] == "mquake"
    ids = [q["id"] for q in result.questions]
    assert len(ids) == len(set(ids))
    mt = [q for q in result.questions if q["type"] == "MT"]
    assert mt and all(q["answer"] in q["options"] and len(q["options"]) == 2 for q in mt)


def test_custom_check_and_generator_plug_in(mini_kb):
    class RejectEverySecond:
        name = "every_second"

        def __call__(self, records, graph):
            return [Reject(r, self.name, "test") for r in records[1::2]]

    class Upper:
        name = "upper"

        def generate(self, matches, graph):
            return [
                kg_qgen.make_record(
                    m,
                    graph,
                    f"Question {i} ABOUT {graph.label(m.target.subject)}?",
                    f"{m.type}-{i}",
                )
                for i, m in enumerate(matches)
            ]

    assert isinstance(Upper(), kg_qgen.QuestionGenerator)
    res = build(
        mini_kb, types=("SH",), per_type=100, generator=Upper(), checks=[RejectEverySecond()]
    )
    # the custom check runs last, on what the default checks left (the name-leak rule takes
    # "Question i ABOUT Mexico?", whose answer is Mexico City)
    by = res.counts["SH"]["rejected_by"]
    alive = res.counts["SH"]["generated"] - sum(v for k, v in by.items() if k != "every_second")
    assert by["every_second"] == alive // 2
    assert {r["check"] for r in res.rejects} <= {"every_second", "leak"}
    assert res.config["generator"] == "upper"
    assert res.config["checks"][-1] == "every_second"
    assert isinstance(Match, type)


def test_save_round_trip_and_files(mini_kb, tmp_path):
    result = build(mini_kb, per_type=5, seed=0)
    out = save(result, tmp_path / "ds")
    names = {p.name for p in out.iterdir()}
    assert {
        "questions.jsonl",
        "rejects.jsonl",
        "facts_forget.jsonl",
        "facts_retain.jsonl",
        "manifest.json",
        "hf",
    } <= names
    lines = [json.loads(x) for x in (out / "questions.jsonl").read_text().splitlines()]
    assert lines == result.questions
    dd = load_from_disk(str(out / "hf"))
    assert set(dd) == {t for t in QUESTION_TYPES if result.counts[t]["kept"]}
    for t, split in dd.items():
        rows = [q for q in result.questions if q["type"] == t]
        assert split.num_rows == len(rows)
        assert split[0]["question"] == rows[0]["question"]
        assert split[0]["target"] == rows[0]["target"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 0 and manifest["counts"] == result.counts
    assert "datasets" in manifest["versions"]
    forget = [json.loads(x) for x in (out / "facts_forget.jsonl").read_text().splitlines()]
    retain = [json.loads(x) for x in (out / "facts_retain.jsonl").read_text().splitlines()]
    sh = [q for q in result.questions if q["type"] == "SH"]
    assert len(forget) + len(retain) == len(sh) and abs(len(forget) - len(retain)) <= 1
    assert {f["sh_id"] for f in forget}.isdisjoint({f["sh_id"] for f in retain})
    with pytest.raises(kg_qgen.KgQgenInputError, match="exists; pass overwrite=True"):
        save(result, out)
    save(result, out, overwrite=True)


def test_save_is_atomic_on_failure(mini_kb, tmp_path, monkeypatch):
    result = build(mini_kb, per_type=3, seed=0)
    import datasets

    def boom(self, *a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(datasets.DatasetDict, "save_to_disk", boom)
    with pytest.raises(OSError, match="disk full"):
        save(result, tmp_path / "ds")
    assert list(tmp_path.iterdir()) == []  # neither the target nor a temp folder remains
    # overwrite that fails keeps the old complete dataset intact
    monkeypatch.undo()
    save(result, tmp_path / "ds")
    before = (tmp_path / "ds" / "questions.jsonl").read_text()
    monkeypatch.setattr(datasets.DatasetDict, "save_to_disk", boom)
    with pytest.raises(OSError):
        save(result, tmp_path / "ds", overwrite=True)
    assert (tmp_path / "ds" / "questions.jsonl").read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]


def test_packaged_builtin_kb_builds_all_seven_types():
    graph = kg_qgen.load_source("builtin")
    result = build(graph, per_type=20, seed=0)
    assert {t: result.counts[t]["kept"] for t in QUESTION_TYPES} == dict.fromkeys(
        QUESTION_TYPES, 20
    ), result.shortfall
    assert [q for q in result.questions if find_leak(q, graph)] == []


def test_generation_failures_become_rejects(mini_kb):
    from kg_qgen.generate.template import TemplateGenerator

    class FailsOnOdd:
        name = "fails_on_odd"

        def generate(self, matches, graph):  # pragma: no cover - build prefers the other
            raise AssertionError

        def generate_with_rejects(self, matches, graph):
            recs = TemplateGenerator().generate(matches, graph)
            return recs[::2], [
                Reject({"id": r["id"]}, "generation", "bad JSON") for r in recs[1::2]
            ]

    res = build(mini_kb, types=("SH",), per_type=100, generator=FailsOnOdd())
    n = res.counts["SH"]["matches"]
    assert res.counts["SH"]["rejected_by"]["generation"] == n // 2
    assert res.counts["SH"]["kept"] == n - n // 2
    assert {r["type"] for r in res.rejects} == {"SH"}

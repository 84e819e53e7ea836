"""Decompositions shown to annotators, for every type of a real build and for sparse records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.review.decompose import LOGIC_RULES, decompose
from review_support import build_set


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, dict]:
    out = build_set(tmp_path_factory.mktemp("set") / "builtin", per_type=4)
    by_type: dict[str, dict] = {}
    for line in (out / "questions.jsonl").read_text().splitlines():
        rec = json.loads(line)
        by_type.setdefault(rec["type"], rec)
    return by_type


def test_every_type_has_a_rule_from_the_paper():
    assert set(LOGIC_RULES) == set(QUESTION_TYPES)
    assert LOGIC_RULES["MT"].formula == "(A → B) ∧ ¬B ⊢ ¬A"
    assert LOGIC_RULES["DS"].formula == "(A ∨ B) ∧ ¬A ⊢ B"


def test_real_records_decompose_into_single_hop_questions(records: dict[str, dict]):
    assert set(records) == set(QUESTION_TYPES)
    for qtype, rec in records.items():
        d = decompose(rec)
        assert d.type == qtype and d.rule is LOGIC_RULES[qtype] and not d.notes
        assert len(d.steps) == len(rec["premises"])
        assert sum(s.is_target for s in d.steps) == 1, qtype  # the fact to forget is marked
        for step, fact in zip(d.steps, rec["premises"], strict=True):
            assert step.answer == fact["object"] and step.question.endswith("?")
            assert fact["subject"] in step.question
        assert rec["answer"] in d.derivation
    hs = decompose(records["HS"])
    assert hs.bridge == records["HS"]["bridge"]
    assert [s.mentions_bridge for s in hs.steps] == [True, True]
    assert decompose(records["DS"]).options == records["DS"]["options"]
    assert decompose(records["LL"]).alias == records["LL"]["alias"]
    assert decompose(records["MP"]).stated_rule == records["MP"]["rule"]


def test_single_hop_wording_reuses_the_template_phrasing(records: dict[str, dict]):
    """A premise is asked the way the set's own SH questions are (kg_qgen.wording.phrasing)."""
    from kg_qgen.wording import phrase_for

    rec = records["HS"]
    rid = rec["premise_ids"][0]["relation"]
    fact = rec["premises"][0]
    expected = phrase_for(rid, fact["relation"]).direct(fact["subject"], 0)
    assert decompose(rec).steps[0].question == expected


def test_sparse_or_foreign_records_never_crash():
    d = decompose({"id": "X-1", "type": "XX", "question": "q?", "answer": "a"})
    assert d.rule.name == "Unknown type" and d.steps == [] and d.notes
    d = decompose(
        {
            "type": "HS",
            "answer": "Paris",
            "premises": [{"subject": "A", "relation": "made up relation", "object": "B"}, "junk"],
            "premise_ids": "not a list",
            "options": ["x", 3],
        }
    )
    assert [s.question for s in d.steps] == ["What is the made up relation of A?"]
    assert d.options == ["x", "3"]


def test_build_output_folder_is_what_review_reads(tmp_path: Path):
    """The review reads exactly what `kg-qgen build --out` writes."""
    from kg_qgen.review.sampling import read_questions

    # 4 a type: at 2 the built-in KB (after its issue 21 audit) yields no MT mirror pair
    out = build_set(tmp_path / "s", per_type=4)
    path, recs = read_questions(out)
    assert path.name == "questions.jsonl" and {r["type"] for r in recs} == set(QUESTION_TYPES)


def test_mt_and_ds_derivations_follow_the_recorded_logic(tmp_path: Path):
    """MT: the distractor's conditional is refuted by modus tollens against the real chain, and
    the gold remains; DS: every eliminated option's fact is named."""
    out = build_set(tmp_path / "s", per_type=8)
    recs = [json.loads(x) for x in (out / "questions.jsonl").read_text().splitlines()]
    mts = [r for r in recs if r["type"] == "MT"]
    assert mts
    for r in mts:
        text = decompose(r).derivation
        assert "modus tollens" in text and r["distractor"] in text and r["answer"] in text
    ds = next(r for r in recs if r["type"] == "DS" and r.get("eliminated"))
    derivation = decompose(ds).derivation
    assert all(
        f"{e['option']} (the {e['fact']['relation']}" in derivation for e in ds["eliminated"]
    )

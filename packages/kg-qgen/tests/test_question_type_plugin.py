"""Issue 23: a question type is one registration, and a third party can add one.

The example type ``RC`` (:mod:`kg_qgen.example_type`) is registered the way a plugin package
registers it, through an entry point of group ``leakres.question_types`` (the discovery is
patched to return it, as the other registries' plugin tests do), then built on the built-in
knowledge base and verified; the CLI test tests/test_question_type_plugin.py of leakres-cli
scores it.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint

import kg_qgen
import kg_qgen.plugins as plugins
import pytest
from kg_qgen.example_type import RELATION_CHAIN
from kg_qgen.match.base import Match
from kg_qgen.qtypes import ENTRY_POINT_GROUP, QUESTION_TYPE_REGISTRY, QuestionType
from kg_qgen.review.decompose import decompose
from kg_qgen.verify.logic import logic_problem

RC_ENTRY = EntryPoint(
    name="rc", value="kg_qgen.example_type:RELATION_CHAIN", group=ENTRY_POINT_GROUP
)


@pytest.fixture
def rc_plugin(monkeypatch):
    """``RC`` installed as an entry-point plugin for the length of one test."""
    monkeypatch.setattr(
        plugins, "entry_points", lambda group: [RC_ENTRY] if group == ENTRY_POINT_GROUP else []
    )
    return RELATION_CHAIN


def test_builtins_are_registered_once_in_order():
    assert kg_qgen.question_type_codes() == list(kg_qgen.QUESTION_TYPES)
    ds = kg_qgen.get_question_type("DS")
    assert (ds.code, ds.answer_kind, ds.name) == ("DS", "options", "Disjunctive Syllogism")
    assert kg_qgen.get_question_type("MT").answer_kind == "options"  # two options (issue 34)
    assert [t for t in kg_qgen.QUESTION_TYPES if not kg_qgen.get_question_type(t).multi_hop] == [
        "SH"
    ]


def test_unknown_type_says_did_you_mean():
    with pytest.raises(kg_qgen.UnknownNameError, match=r"'DSS'; did you mean 'DS'\? Known: SH, HS"):
        kg_qgen.get_question_type("DSS")
    with pytest.raises(kg_qgen.UnknownNameError, match="unknown question type"):
        kg_qgen.build(kg_qgen.load_source("builtin"), types=("SH", "RC"), per_type=2)


def test_plugin_type_builds_and_verifies_on_the_builtin_kb(rc_plugin):
    assert kg_qgen.question_type_codes() == [*kg_qgen.QUESTION_TYPES, "RC"]
    graph = kg_qgen.load_source("builtin")
    result = kg_qgen.build(graph, types=("SH", "RC"), per_type=10, seed=0)
    rc = [q for q in result.questions if q["type"] == "RC"]
    assert result.counts["RC"]["kept"] == len(rc) == 10, result.shortfall
    for q in rc:
        second = q["premises"][1]
        assert q["question"].startswith(f"What is the {second['relation']} of the ")
        assert q["bridge"] not in q["question"] and q["answer"] == second["object"]
        assert q["options"] == [] and logic_problem(q, graph) is None
    # verification ran the plugin's own logic check on the kept set: nothing failed
    report = result.verification
    assert report is not None and report["ok"] and "logic" in report["checks"], report
    assert report["per_type"]["RC"]["n"] == 10 and report["per_type"]["RC"]["failed"] == 0
    broken = dict(rc[0], answer_id=rc[0]["premise_ids"][0]["object"])  # the bridge as the answer
    assert logic_problem(broken, graph) == "the answer is not the object of the second premise"
    assert decompose(rc[0]).rule.name == "Relation chain (example plugin)"


def test_plugin_type_through_the_cli(rc_plugin, tmp_path):
    from click.testing import CliRunner
    from kg_qgen.cli import cli

    out = tmp_path / "set"
    args = [
        "build",
        "--source",
        "builtin",
        "--types",
        "SH,RC",
        "--per-type",
        "5",
        "--out",
        str(out),
    ]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    types = {line.split('"type": "')[1][:2] for line in (out / "questions.jsonl").open()}
    assert types == {"SH", "RC"}
    res = CliRunner().invoke(
        cli, ["build", "--source", "builtin", "--types", "SH,RX", "--out", str(tmp_path / "x")]
    )
    assert res.exit_code != 0 and "unknown type(s) ['RX']; known: SH, HS" in res.output


def test_plugin_must_be_a_question_type_with_its_own_code(monkeypatch):
    bad = EntryPoint(
        name="zz", value="kg_qgen.example_type:RELATION_CHAIN", group=ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(plugins, "entry_points", lambda group: [bad])
    with pytest.raises(ValueError, match="plugin 'zz' carries code 'RC'"):
        kg_qgen.get_question_type("ZZ")
    with pytest.raises(ValueError, match="answer_kind 'free'"):
        QuestionType(**{**RELATION_CHAIN.__dict__, "answer_kind": "free"})


def test_register_question_type_from_code():
    try:
        kg_qgen.register_question_type(RELATION_CHAIN)
        assert kg_qgen.get_question_type("RC") is RELATION_CHAIN
        assert "RC" in kg_qgen.question_type_codes()
    finally:
        QUESTION_TYPE_REGISTRY._builtin.pop("rc", None)


def test_plugin_answer_kind_sets_the_record_options(mini_kb):
    import dataclasses

    from kg_qgen.generate.base import match_options

    fact = next(iter(mini_kb.facts()))
    yes_no = dataclasses.replace(RELATION_CHAIN, code="RY", answer_kind="yes-no")
    options = dataclasses.replace(RELATION_CHAIN, code="RO", answer_kind="options")
    try:
        kg_qgen.register_question_type(yes_no)
        kg_qgen.register_question_type(options)
        ask = Match("RY", [fact], fact, None, "yes", answer_is_entity=False)
        pick = Match("RO", [fact], fact, None, fact.object, extra={"options": [fact.object]})
        assert match_options(ask, mini_kb) == ["yes", "no"]
        assert match_options(pick, mini_kb) == [mini_kb.label(fact.object)]
    finally:
        QUESTION_TYPE_REGISTRY._builtin.pop("ry", None)
        QUESTION_TYPE_REGISTRY._builtin.pop("ro", None)

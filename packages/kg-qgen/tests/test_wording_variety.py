"""Wording variety (kg_qgen.wording.variety): each kept question's wording is chosen among seeded
draws to share the fewest n-grams with the rest of the set; the content never changes."""

from __future__ import annotations

import json

import kg_qgen
import pytest
from click.testing import CliRunner
from kg_qgen import build
from kg_qgen.checking import Reject
from kg_qgen.cli import cli
from kg_qgen.stats import self_bleu
from kg_qgen.verify.report import verify_records
from kg_qgen.wording import VarietyConfig, vary_wordings

CONTENT = ("id", "type", "answer", "answer_aliases", "premises", "target")


@pytest.fixture(scope="module")
def builtin() -> kg_qgen.KnowledgeGraph:
    return kg_qgen.load_source("builtin")


@pytest.fixture(scope="module")
def first_and_varied(builtin):
    first = build(builtin, per_type=40, seed=3, wording_draws=1)
    varied = build(builtin, per_type=40, seed=3)
    return first, varied


def test_variety_changes_wordings_only(first_and_varied):
    first, varied = first_and_varied
    assert [q["id"] for q in first.questions] == [q["id"] for q in varied.questions]
    changed = 0
    for a, b in zip(first.questions, varied.questions, strict=True):
        assert {k: a.get(k) for k in CONTENT} == {k: b.get(k) for k in CONTENT}
        changed += a["question"] != b["question"]
    # the forget / retain facts come from the content and are the same (their SH wording aside)
    for a_facts, b_facts in (
        (first.facts_forget, varied.facts_forget),
        (first.facts_retain, varied.facts_retain),
    ):
        strip = lambda facts: [{k: v for k, v in f.items() if k != "question"} for f in facts]  # noqa: E731
        assert strip(a_facts) == strip(b_facts)
    report = varied.wording_variety
    assert report is not None and report["redraws"] and report["draws"] == 16
    # MT may be redrawn again afterwards by the MT filter, so at least the variety's changes
    assert changed >= report["changed"] - len([q for q in varied.questions if q["type"] == "MT"])
    assert report["changed"] > len(varied.questions) // 2


def test_variety_lowers_self_bleu_and_the_set_still_verifies(builtin, first_and_varied):
    first, varied = first_and_varied
    texts_first = [q["question"] for q in first.questions]
    texts_varied = [q["question"] for q in varied.questions]
    before, after = self_bleu(texts_first, seed=3), self_bleu(texts_varied, seed=3)
    assert after < before - 0.05, (before, after)
    report = varied.wording_variety
    # the report's figures are of the set before the MT filter, which may redraw MT again
    assert report["self_bleu_chosen"] < report["self_bleu_first_draw"] - 0.05
    assert abs(report["self_bleu_first_draw"] - before) < 0.02
    assert varied.verification is not None and varied.verification["ok"]
    assert verify_records(varied.questions, builtin).ok
    assert len(set(texts_varied)) == len(texts_varied)


def test_variety_is_deterministic(builtin, first_and_varied):
    _, varied = first_and_varied
    again = build(builtin, per_type=40, seed=3)
    assert [q["question"] for q in again.questions] == [q["question"] for q in varied.questions]
    other_seed = build(builtin, per_type=40, seed=4)
    assert [q["question"] for q in other_seed.questions] != [
        q["question"] for q in varied.questions
    ]


def _rec(i: int, text: str) -> dict:
    return {"id": f"SH-{i:06d}", "type": "SH", "question": text, "answer": "x"}


SHARED = "What is the capital city of the country in question {i}?"


def _redraws(table: dict[tuple[str, int], str]):
    def redraw(record: dict, draw: int) -> dict:
        return {**record, "question": table.get((record["id"], draw), record["question"])}

    return redraw


class _Refuse:
    """A record check that rejects every question containing ``word``."""

    name = "refuse"

    def __init__(self, word: str) -> None:
        self.word = word

    def __call__(self, records, graph):
        return [Reject(r, self.name, "refused") for r in records if self.word in r["question"]]


def test_the_least_shared_wording_is_chosen(builtin):
    records = [_rec(i, SHARED.format(i=i)) for i in range(3)]
    # each record may also be worded with words no other question has
    own_words = [
        "Zebras graze near Kilimanjaro",
        "Quokkas smile on Rottnest",
        "Axolotls regrow limbs",
    ]
    table = {(r["id"], 1): own_words[i] + "!" for i, r in enumerate(records)}
    out, report = vary_wordings(records, _redraws(table), builtin, [], cfg=VarietyConfig(draws=2))
    chosen = [r["question"] for r in out]
    # one question may keep the shared wording (no other has it then); the others leave it
    assert sum(q.startswith("What is the capital") for q in chosen) == 1, chosen
    assert report.changed == 2 and report.candidates == 2.0
    assert [r["id"] for r in out] == [r["id"] for r in records]


def test_a_drawn_wording_that_fails_a_check_is_never_chosen(builtin):
    records = [_rec(i, SHARED.format(i=i)) for i in range(4)]
    table = {(r["id"], 1): f"Forbidden unique wording number {i}?" for i, r in enumerate(records)}
    out, report = vary_wordings(
        records, _redraws(table), builtin, [_Refuse("Forbidden")], cfg=VarietyConfig(draws=2)
    )
    assert [r["question"] for r in out] == [r["question"] for r in records]
    assert report.changed == 0 and report.candidates == 1.0


def test_a_wording_that_fails_a_final_check_gives_way_to_the_own_one(builtin):
    records = [_rec(i, SHARED.format(i=i)) for i in range(4)]
    table = {(r["id"], 1): f"Costly unique wording number {i}?" for i, r in enumerate(records)}
    out, report = vary_wordings(
        records,
        _redraws(table),
        builtin,
        [],
        final_checks=[_Refuse("Costly")],
        cfg=VarietyConfig(draws=2),
    )
    assert all("Costly" not in r["question"] for r in out)
    # every wording chosen away from its own (more than one here) went back to it
    assert report.reverted >= 2 and report.changed == 0


def test_no_two_questions_end_with_the_same_wording(builtin):
    # record 1's redraw is record 0's own wording; record 2 and 3 draw the same new one
    records = [_rec(i, SHARED.format(i=i)) for i in range(4)]
    table = {
        ("SH-000001", 1): SHARED.format(i=0),
        ("SH-000002", 1): "Same redrawn wording?",
        ("SH-000003", 1): "Same redrawn wording?",
    }
    out, _ = vary_wordings(records, _redraws(table), builtin, [], cfg=VarietyConfig(draws=2))
    texts = [r["question"] for r in out]
    assert len(set(texts)) == len(texts), texts


def test_without_redraws_the_records_are_kept(builtin):
    records = [_rec(i, SHARED.format(i=i)) for i in range(3)]
    out, report = vary_wordings(records, None, builtin, [])
    assert out == records and not report.redraws and report.changed == 0
    assert "cannot redraw" in report.line()
    with pytest.raises(ValueError, match="draws >= 1"):
        vary_wordings(records, None, builtin, [], cfg=VarietyConfig(draws=0))


def test_cli_reports_the_variety_and_records_it(tmp_path):
    out = tmp_path / "set"
    runner = CliRunner()
    res = runner.invoke(
        cli, ["build", "--source", "builtin", "--per-type", "20", "--out", str(out), "--seed", "1"]
    )
    assert res.exit_code == 0, res.output
    assert "wording variety:" in res.output and "reworded" in res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["wording_variety"]["draws"] == 16
    assert manifest["config"]["wording_draws"] == 16
    out1 = tmp_path / "one"
    res = runner.invoke(
        cli,
        [
            *("build", "--source", "builtin", "--per-type", "20", "--out", str(out1)),
            *("--seed", "1", "--wording-draws", "1"),
        ],
    )
    assert res.exit_code == 0, res.output
    manifest1 = json.loads((out1 / "manifest.json").read_text())
    assert manifest1["wording_variety"]["changed"] == 0

"""The adversarial wording filter (kg_qgen.wording_filter) on yes/no records, and wording redraws.

Up to round three the build filtered the kept yes/no MT set's wordings with it; MT items are
two-option items since issue 34 (``test_mt_options.py``), so the build no longer calls it, and
these tests keep the filter (and the redraw it shares with :mod:`kg_qgen.wording_variety`) honest
as a tool."""

from __future__ import annotations

import json

import kg_qgen
import pytest
from kg_qgen import build, save
from kg_qgen.generate.template import TemplateGenerator
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.verify.balance import best_short_rule
from kg_qgen.verify.base import Reject
from kg_qgen.wording_filter import WordingFilterConfig, filter_wordings

OUTPUT_FILES = (
    "questions.jsonl",
    "rejects.jsonl",
    "facts_forget.jsonl",
    "facts_retain.jsonl",
    "verify_report.json",
    "manifest.json",
)


@pytest.fixture(scope="module")
def builtin() -> kg_qgen.KnowledgeGraph:
    return kg_qgen.load_source("builtin")


def _items(answers: list[str], word_for_yes: str) -> list[dict]:
    """Yes/no records (``answers`` alternate) whose question carries ``word_for_yes`` in every yes
    item (a perfect cue) when it is set; else a word that a yes item and its no neighbour share."""
    out = []
    for k, a in enumerate(answers):
        cue = word_for_yes if (word_for_yes and a == "yes") else _noise(k)
        out.append({"id": f"MT-{k:06d}", "type": "MT", "question": f"Is {cue} here?", "answer": a})
    return out


def _noise(k: int) -> str:
    return ("alpha", "beta")[(k // 2) % 2]


def test_filter_keeps_the_first_draw_within_the_bound():
    answers = ["yes", "no"] * 40
    first = _items(answers, "zebra")  # "zebra" present -> yes: accuracy 1.0
    calls = []

    def redraw(record: dict, attempt: int) -> dict:
        calls.append(attempt)
        k = int(record["id"][3:])
        word = "zebra" if attempt < 3 else ("alpha", "beta", "gamma", "delta")[(k // 2) % 4]
        if attempt < 3 and record["answer"] == "no":
            word = _noise(k)
        return {**record, "question": f"Is {word} here?"}

    kept, report = filter_wordings(first, redraw, None, checks=())
    assert report.passed and report.accuracies[:3] == [1.0, 1.0, 1.0]
    # the first draw within the bound is kept and nothing is drawn after it
    assert report.kept_attempt == report.attempts - 1
    assert [a <= 0.65 for a in report.accuracies].index(True) == report.kept_attempt
    assert report.warning is None and report.judged and report.redraws
    assert sorted(set(calls)) == list(range(1, report.attempts))  # one redraw round per attempt
    assert [r["id"] for r in kept] == [r["id"] for r in first]  # same records, same order
    assert (
        report.accuracy
        == best_short_rule([r["question"] for r in kept], [r["answer"] for r in kept]).accuracy
    )


def test_filter_that_never_passes_keeps_the_lowest_draw_and_says_so():
    answers = ["yes", "no"] * 40
    first = _items(answers, "zebra")

    def redraw(record: dict, attempt: int) -> dict:
        # attempt 2 has "zebra" in half of its yes items (0.75 at least), the others in all
        k = int(record["id"][3:])
        cued = record["answer"] == "yes" and (attempt != 2 or k % 4 == 0)
        return {**record, "question": f"Is {'zebra' if cued else _noise(k)} here?"}

    kept, report = filter_wordings(first, redraw, None, (), cfg=WordingFilterConfig(max_attempts=5))
    assert report.attempts == 5 and not report.passed
    assert report.accuracies[:2] == [1.0, 1.0] and report.accuracies[2] < 1.0
    assert report.accuracy == min(report.accuracies) >= 0.75
    # the kept draw is one with the lowest accuracy (ties: the later, as the climb moved on)
    assert report.accuracies[report.kept_attempt] == report.accuracy
    assert "none of 5 wording draws" in report.warning and "verify fails" in report.warning
    assert (
        report.accuracy
        == best_short_rule([r["question"] for r in kept], [r["answer"] for r in kept]).accuracy
    )


def test_a_redraw_failing_a_check_keeps_its_first_wording():
    answers = ["yes", "no"] * 40
    first = _items(answers, "")

    class NoGamma:
        name = "no_gamma"

        def __call__(self, records, graph):
            return [Reject(r, self.name, "gamma") for r in records if "gamma" in r["question"]]

    def redraw(record: dict, attempt: int) -> dict:
        k = int(record["id"][3:])
        return {**record, "question": f"Is {'gamma' if k < 6 else 'delta'} here {attempt}?"}

    # the first draw passes: nothing is redrawn
    kept, report = filter_wordings(first, redraw, None, [NoGamma()])
    assert kept == first and report.attempts == 1 and report.reverted == 0
    # a cued first draw: redraws are kept, but a redrawn "gamma" question keeps its wording
    first = _items(answers, "zebra")
    kept, report = filter_wordings(first, redraw, None, [NoGamma()])
    assert report.passed and report.reverted >= 1
    assert not any("gamma" in r["question"] for r in kept)
    assert [r["id"] for r in kept] == [r["id"] for r in first]


def test_redraw_zero_is_the_generated_wording_and_others_differ(builtin):
    gen = TemplateGenerator(seed=3)
    matches = find_matches(GraphIndex.of(builtin), "MT", MatchConfig(max_matches=40), seed=3)
    records = gen.generate(matches, builtin)
    for i in (0, 7, len(matches) - 1):
        assert gen.redraw_wording(matches[i], i, builtin, 0)[0] == records[i]["question"]
    redrawn = [gen.redraw_wording(m, i, builtin, 5)[0] for i, m in enumerate(matches)]
    assert sum(q != r["question"] for q, r in zip(redrawn, records, strict=True)) > len(records) / 2
    assert redrawn == [gen.redraw_wording(m, i, builtin, 5)[0] for i, m in enumerate(matches)]


def test_same_seed_gives_byte_identical_output(builtin, tmp_path):
    outs = []
    for k in range(2):
        result = build(builtin, per_type=60, seed=4)
        outs.append(save(result, tmp_path / f"set{k}"))
    for name in OUTPUT_FILES:
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    manifest = json.loads((outs[0] / "manifest.json").read_text())
    assert manifest["mt_wording"] is None  # no MT wording filter since round three

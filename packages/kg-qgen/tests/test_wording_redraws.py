"""Wording redraws (kg_qgen.wording): draw 0 is the generation's own wording, a redraw that fails
a check gives way to the current wording, and the same seed gives the same set.

Up to round three the build also filtered the kept yes/no MT set's wordings adversarially
(``kg_qgen.wording_filter``); MT items are two-option items since issue 34
(``test_mt_options.py``), the build stopped calling it, and the module was removed as dead code
(issue 37)."""

from __future__ import annotations

import json

import kg_qgen
import pytest
from kg_qgen import build, save
from kg_qgen.checking import Reject
from kg_qgen.generate.template import TemplateGenerator
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.wording import revert_failing

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


def test_revert_failing_keeps_the_current_wording_of_a_redraw_that_fails_a_check():
    """What the wording choice does with its costly final checks (an LLM): a chosen redraw that
    fails one gives way to the question's current wording; the others stay redrawn."""

    class NoGamma:
        name = "no_gamma"

        def __call__(self, records, graph):
            return [Reject(r, self.name, "gamma") for r in records if "gamma" in r["question"]]

    current = [{"id": f"MT-{k:06d}", "question": f"Is alpha {k} here?"} for k in range(6)]
    new = [{**r, "question": f"Is {'gamma' if k < 2 else 'delta'} {k} here?"}
           for k, r in enumerate(current)]  # fmt: skip
    kept, reverted = revert_failing(current, new, None, [NoGamma()])
    assert reverted == 2
    assert kept[:2] == current[:2] and kept[2:] == new[2:]
    assert [r["id"] for r in kept] == [r["id"] for r in current]
    assert revert_failing(current, new, None, []) == (new, 0)


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

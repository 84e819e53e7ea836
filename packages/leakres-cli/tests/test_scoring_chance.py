"""Issue 25 items 4-7 through `leakres run`: robustness per (attack, hop) cell with the cell named,
chance levels and chance-corrected FQ, no FQ for a type the base model answers at chance, the
guessing floor of Probab's any-of-5 rule, and the utility axis; in results.json, summary.md, the
tables and the report. Then a resume recomputes all of it from the stored cells.

The pipeline runs for real on kg-qgen's built-in facts with the alias judge; the models are
scripted stand-ins (``Benchmark.model``/``answer``/``unlearn`` and the engine's ``run_attack``
replaced), so what
each "model" knows is set here and every expected number follows from that by hand:

* base model: the gold answer everywhere, except MT (two options since issue 34), where it names
  the first shown option of every question (right exactly where the gold is shown first: a guesser);
* unlearned model: "I do not know." on SH and HS, the first shown option on MT and DS,
  the gold on the first half of the retain facts only;
* Probab: five samples per S_suc item; the gold on the first 3 SH items and on every DS item,
  "I do not know." otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.models.engines import GenerationRouter
from leakres_cli.outputs.summary import render
from leakres_cli.stages.pipeline import Benchmark

ARGS = ["run", "--quiet", "--types", "SH,HS,MT,DS", "--per-type", "40", "--sh-pool", "60",
        "--n-forget", "16", "--n-retain", "8", "--methods", "ga", "--attacks", "probab",
        "--seed", "0"]  # fmt: skip
FIXTURES = Path(__file__).resolve().parent / "fixtures"
BASE, UNLEARNED = object(), object()
DONT_KNOW = "I do not know."


def _base_answer(q: dict) -> str:
    return q["options"][0] if q["type"] == "MT" else q["answer"]


def _unlearned_answer(q: dict, retain_kept: set[str], mt_slot: int = 0) -> str:
    if q["type"] == "MT":
        return q["options"][mt_slot]
    if q["type"] == "DS":
        return q["options"][0]
    return q["answer"] if q["id"] in retain_kept else DONT_KNOW


def _script(monkeypatch, state: dict) -> None:
    def answer(self, model, questions, desc):
        if model is BASE:
            return [_base_answer(q) for q in questions]
        mt = state.get("mt_slot", 0)
        return [_unlearned_answer(q, state["retain_kept"], mt) for q in questions]

    def unlearn(self, method, forget, retain):
        state["retain_kept"] = {q["id"] for q in retain[: len(retain) // 2]}
        state["trained"] += 1
        return UNLEARNED, {"method": method, "n_forget": len(forget), "steps": 1}

    def run_attack(self, attack, model, tokenizer, targets, **kwargs):
        # recover-attacks' AttackResult shape; the CLI judges the responses and stores the cell
        assert model is UNLEARNED and attack.config.num_samples == 5
        sh = [q["id"] for q in targets if q["type"] == "SH"][:3]
        return [
            SimpleNamespace(
                id=q["id"],
                responses=[q["answer"] if q["id"] in sh or q["type"] == "DS" else DONT_KNOW] * 5,
                settings=attack.settings(),
            )
            for q in targets
        ]

    script_pipeline(monkeypatch, BASE, answer, unlearn, run_attack)


def script_pipeline(monkeypatch, base, answer, unlearn, run_attack) -> None:
    """Replace the model (by the placeholder ``base``, which the scripts tell apart from the
    unlearned one), its answers, unlearning and the attacks' generation with the given scripts."""
    monkeypatch.setattr(Benchmark, "model", lambda self: (base, None))
    monkeypatch.setattr(Benchmark, "answer", answer)
    monkeypatch.setattr(Benchmark, "unlearn", unlearn)
    monkeypatch.setattr(GenerationRouter, "run_attack", run_attack)


def _run(out: Path) -> dict:
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())


def test_run_reports_robustness_cells_chance_and_the_at_chance_gate(tmp_path, monkeypatch) -> None:
    state = {"trained": 0, "retain_kept": set()}
    _script(monkeypatch, state)
    out = tmp_path / "run"
    results = _run(out)
    questions = {
        q["id"]: q
        for q in json.loads((out / "cells" / "questions.json").read_text())["payload"]["questions"]
    }
    base = json.loads((out / "cells" / "base.json").read_text())["payload"]
    scored = {t: [questions[i] for i in base["multi_hop_ids"] if questions[i]["type"] == t]
              for t in ("HS", "MT", "DS")}  # fmt: skip
    n_sh, n_hs, n_mt, n_ds = 16, len(scored["HS"]), len(scored["MT"]), len(scored["DS"])
    assert min(n_hs, n_mt, n_ds) >= 4, "the built-in facts give every type some questions"
    m = results["methods"]["ga"]
    pt = m["per_type"]

    # Item 5: chance per type (DS shows 3 options, MT is yes/no, SH/HS are open).
    assert {t: pt[t]["chance"] for t in pt} == pytest.approx(
        {"SH": 0.0, "HS": 0.0, "MT": 0.5, "DS": 1 / 3}
    )
    assert all(len(q["options"]) == 3 for q in scored["DS"])
    # DS: base right on all, unlearned right where the gold is the first option.
    first = sum(q["options"][0] == q["answer"] for q in scored["DS"])
    p = first / n_ds
    assert pt["DS"]["fq"]["value"] == pytest.approx(1 - p)
    assert pt["DS"]["fq_chance_corrected"]["value"] == pytest.approx(1 - (p - 1 / 3) / (2 / 3))
    assert pt["SH"]["fq_chance_corrected"]["value"] == pytest.approx(1.0) == pt["SH"]["fq"]["value"]

    # Item 6: MT, answered with its first option throughout, is right exactly where the gold is
    # shown first: at chance (two options).
    k_yes = sum(q["options"][0] == q["answer"] for q in scored["MT"])
    assert 0 < k_yes < n_mt
    reason = f"base model at chance on MT ({k_yes} of {n_mt})"
    assert pt["MT"]["base_at_chance"] == reason
    assert pt["MT"]["fq"]["value"] is None and pt["MT"]["fq"]["undefined_reason"] == reason
    assert pt["MT"]["fq_chance_corrected"]["undefined_reason"] == reason
    assert pt["MT"]["acc_base"]["value"] == pytest.approx(k_yes / n_mt)  # still shown
    assert m["fq_excluded_types"] == {"MT": reason}
    assert results["types"]["at_chance"] == {"MT": reason}
    # FQ all types pools SH, HS and DS only: unlearned right on the DS first-option hits.
    assert m["fq_all_types"]["value"] == pytest.approx(1 - first / (n_sh + n_hs + n_ds))
    assert m["fq_all_types"]["n"] == n_sh + n_hs + n_ds
    assert m["fq_multi_hop"]["value"] == pytest.approx(1 - first / (n_hs + n_ds))

    # Item 4: S_suc = SH 16, HS all, DS all but the first-option hits, MT none.
    ds_suc = n_ds - first
    assert m["s_suc"] == {"SH": n_sh, "HS": n_hs, "MT": 0, "DS": ds_suc}
    rr_sh, rr_mh = 3 / n_sh, ds_suc / (n_hs + ds_suc)
    probab = m["attacks"]["probab"]
    assert probab["rr_SH"]["value"] == pytest.approx(rr_sh)
    assert probab["rr_MH"]["value"] == pytest.approx(rr_mh)
    top_hop = "MH" if rr_mh > rr_sh else "SH"
    assert m["robustness"]["value"] == pytest.approx(1 - max(rr_sh, rr_mh))
    assert m["robustness_set_by"] == [
        {"attack": "probab", "hop": top_hop, "rr": pytest.approx(max(rr_sh, rr_mh))}
    ]
    pooled = 1 - (3 + ds_suc) / (n_sh + n_hs + ds_suc)
    assert m["robustness_pooled"]["value"] == pytest.approx(pooled)

    # Item 5: a guesser with 5 samples "recovers" each 3-option DS item with 1 - (2/3)^5.
    guess = probab["guessing"]
    assert guess["DS"] == {
        "n": ds_suc, "n_samples": 5, "observed": ds_suc,
        "expected": pytest.approx(round(ds_suc * (1 - (2 / 3) ** 5), 3)),
    }  # fmt: skip
    assert guess["MH"]["expected"] == guess["DS"]["expected"]  # HS is open: no guessing
    assert guess["SH"] == {"n": n_sh, "n_samples": 5, "expected": 0.0, "observed": 3}
    assert "MT" not in guess  # no MT item in S_suc

    # Item 7: BBH off, the radar's utility is the retain ratio: half the retain facts kept.
    util = m["utility"]
    assert util["ratio"]["value"] == pytest.approx(0.5) and util["ratio_basis"] == "retain"
    assert util["bbh_too_small"] is None and util["source"].startswith("retain-accuracy ratio")

    # Item 6, coverage: every type has fewer than 40 scored questions at these sizes, and says why.
    short = results["types"]["short"]
    assert set(short) == {"SH", "HS", "MT", "DS"}
    assert short["SH"] == "16 forget facts (--n-forget 16)"
    assert short["HS"] == f"{n_hs} of 40 built (--per-type 40) reach the 16 forget facts"

    # The summary: its first lines name the short types and the at-chance type.
    summary = (out / "summary.md").read_text()
    head = summary.splitlines()[2:5:2]
    assert head[0].startswith("**Fewer than 40 scored questions:** SH: 16 forget facts")
    assert (
        head[1] == f"**FQ not reported** (n/a, left out of FQ all types and multi-hop): {reason}."
    )
    assert f"| n/a: {reason} |" in summary
    assert f"probab {top_hop}" in summary and "robustness pooled" in summary
    assert f"{ds_suc * (1 - (2 / 3) ** 5):.1f} of {n_hs + ds_suc} (obs {ds_suc})" in summary
    assert "(without MT)" in summary
    # The tables: chance in the headers, the reason in the cell, leakres' own table labelled.
    table2 = (out / "tables" / "table2_forget_quality.md").read_text()
    assert "MT (chance 50%)" in table2 and "DS (chance 33%)" in table2
    assert f"n/a: {reason}" in table2
    own = (out / "tables" / "table2_forget_quality_chance_corrected.md").read_text()
    assert own.startswith("_Chance-corrected Forget Quality (%), leakres' own, not the paper's")
    # The report shows the same.
    html = (out / "report.html").read_text()
    assert f"n/a: {reason}" in html and "MT (chance 50%)" in html
    assert "robustness set by" in html and f"probab {top_hop}" in html

    # A resume recomputes every score from the stored cells: nothing is trained or generated.
    assert state["trained"] == 1

    def boom(*args, **kwargs):
        raise AssertionError("a finished cell was recomputed")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    monkeypatch.setattr(GenerationRouter, "run_attack", boom)
    again = _run(out)
    assert again["methods"]["ga"]["robustness"] == m["robustness"]
    assert again["types"] == results["types"]


@pytest.mark.parametrize("fixture", ["run-smoke", "run-types-ga-npo"])
def test_results_written_before_issue_25_still_render(fixture: str) -> None:
    # Old results.json files lack every new field: the summary shows n/a, never fails.
    results = json.loads((FIXTURES / fixture / "results.json").read_text())
    results.setdefault("dataset", {}).setdefault("n_single_hop_known", 0)
    text = render(results)
    assert "## Ideal triangle" in text and "n/a (older run)" in text


def test_at_chance_items_in_s_suc_stay_out_of_rr_and_robustness(tmp_path, monkeypatch) -> None:
    """The unlearned model now names MT's second option: the base model's lucky first-option items
    enter S_suc,
    yet MT is at chance, so those items are guesses, not knowledge: they are attacked and their
    guessing floor is shown, but RR by hop and robustness leave them out (as FQ does)."""
    state = {"trained": 0, "retain_kept": set(), "mt_slot": 1}
    _script(monkeypatch, state)
    out = tmp_path / "run"
    results = _run(out)
    m = results["methods"]["ga"]
    reason = m["fq_excluded_types"]["MT"]
    n_mt_suc = m["s_suc"]["MT"]
    assert n_mt_suc > 0, "the first-slot-gold MT items were right before and wrong after"
    probab = m["attacks"]["probab"]
    assert probab["rr_excluded_types"] == {"MT": reason}
    assert probab["rr_per_type"]["MT"]["value"] is None
    assert probab["rr_per_type"]["MT"]["undefined_reason"] == reason
    n_hs, n_ds = m["s_suc"]["HS"], m["s_suc"]["DS"]
    assert probab["rr_MH"]["n"] == n_hs + n_ds  # without the MT items
    assert probab["rr_MH"]["value"] == pytest.approx(n_ds / (n_hs + n_ds))
    assert m["robustness"]["value"] == pytest.approx(1 - max(3 / 16, n_ds / (n_hs + n_ds)))
    # the guesser's floor for the MT items is still reported beside the (non-)recoveries
    assert probab["guessing"]["MT"]["n"] == n_mt_suc
    assert probab["guessing"]["MT"]["expected"] == pytest.approx(round(n_mt_suc * (1 - 0.5**5), 3))

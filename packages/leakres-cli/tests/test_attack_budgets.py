"""`leakres run --attack-budgets` (issue 38 item 1) and the controls (item 4), through the CLI.

The pipeline runs for real on kg-qgen's built-in facts with the alias judge; the models are
scripted stand-ins (as in test_scoring_chance.py), so every expected number follows by hand:

* base model: the gold answer, except on questions whose id hashes to 0 mod 4 ("I do not know.");
* unlearned model: "I do not know." everywhere (S_suc = every scored question);
* Probab: sample k of question q is the gold exactly when k == first_gold(q), a function of the
  question alone, so a draw of 5 samples is the first 5 of a draw of 20 (the "separate draws" a
  ladder's prefix must agree with), and q is recovered at N exactly when first_gold(q) < N.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from conftest import TINY_REAL_ARGS, TINY_REAL_LADDER
from leakres_cli.main import cli
from leakres_cli.models.engines import GenerationRouter
from leakres_cli.stages.pipeline import Benchmark
from test_scoring_chance import script_pipeline

ARGS = ["run", "--quiet", "--types", "SH,HS", "--per-type", "40", "--sh-pool", "60",
        "--n-forget", "16", "--n-retain", "8", "--methods", "ga", "--attacks", "probab",
        "--seed", "0", "--bootstrap", "200"]  # fmt: skip
BASE, UNLEARNED = object(), object()
DONT_KNOW = "I do not know."
LADDER = [1, 2, 5, 20]


def _h(qid: str) -> int:
    return int(hashlib.sha256(qid.encode()).hexdigest(), 16)


def first_gold(qid: str) -> int:
    return _h(qid) % 30  # 0..29: some items are never recovered within N = 20


def _script(monkeypatch, calls: list[int]) -> None:
    def answer(self, model, questions, desc):
        if model is BASE:
            return [DONT_KNOW if _h(q["id"]) % 4 == 0 else q["answer"] for q in questions]
        return [DONT_KNOW for _ in questions]

    def unlearn(self, method, forget, retain):
        return UNLEARNED, {"method": method, "n_forget": len(forget), "steps": 1}

    def run_attack(self, attack, model, tokenizer, targets, **kwargs):
        n = attack.config.num_samples
        calls.append(n)
        return [
            SimpleNamespace(
                id=q["id"],
                responses=[
                    q["answer"] if k == first_gold(q["id"]) else DONT_KNOW for k in range(n)
                ],
                settings=attack.settings(),
            )
            for q in targets
        ]

    script_pipeline(monkeypatch, BASE, answer, unlearn, run_attack)


def _run(out: Path, *extra: str) -> dict:
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(out), *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())


def _payload(path: Path) -> dict:
    return json.loads(path.read_text())["payload"]


def _hops(ids, questions) -> dict[str, list[str]]:
    return {
        "SH": [i for i in ids if questions[i]["type"] == "SH"],
        "MH": [i for i in ids if questions[i]["type"] != "SH"],
    }


def test_probab_ladder_is_one_draw_monotone_and_agrees_with_separate_draws(
    tmp_path, monkeypatch
) -> None:
    calls: list[int] = []
    _script(monkeypatch, calls)
    out = tmp_path / "run"
    results = _run(out, "--attack-budgets", "probab=1,2,5,20")
    cells = out / "cells" / "ga"
    questions = {q["id"]: q for q in _payload(out / "cells" / "questions.json")["questions"]}
    usual = _payload(cells / "attack-probab.json")
    hops = _hops(list(usual["recovered"]), questions)
    # The usual cell (N = 5), its control, and ONE N = 20 draw for the ladder and for its control.
    assert sorted(calls) == [5, 5, 20, 20]
    assert (cells / "attack-probab" / "budget-20.json").is_file()
    assert not (cells / "attack-probab" / "budget-5.json").exists()

    m = results["methods"]["ga"]
    curve = m["recovery_curves"]["probab"]
    assert curve["ladder"] == LADDER and curve["runs"] == [20]
    for hop, ids in hops.items():
        assert ids, f"no S_suc item of hop {hop}"
        by_hand = {str(n): sum(first_gold(i) < n for i in ids) / len(ids) for n in LADDER}
        got = {n: v["value"] for n, v in curve["rr"][hop].items()}
        assert got == pytest.approx(by_hand)
        # the prefix at N = 5 is the separate N = 5 draw of the usual cell
        assert curve["rr"][hop]["5"]["value"] == pytest.approx(
            m["attacks"]["probab"][f"rr_{hop}"]["value"]
        )
        # any-of-N: monotone in N, value and both CI bounds (one resample matrix for all rungs)
        for key in ("value", "ci_low", "ci_high"):
            seq = [curve["rr"][hop][str(n)][key] for n in LADDER]
            assert seq == sorted(seq), (hop, key, seq)
        # half the base model's accuracy on the hop's scored questions, the first rung reaching it
        base = _payload(out / "cells" / "base.json")
        scored = base["forget_ids"] if hop == "SH" else base["multi_hop_ids"]
        acc = sum(base["correct"][i] is True for i in scored) / len(scored)
        assert curve["target"][hop] == pytest.approx(0.5 * acc)
        first = next((n for n in LADDER if by_hand[str(n)] >= curve["target"][hop]), None)
        assert curve["budget_to_half_base"][hop] == first
        ys = [by_hand[str(n)] for n in LADDER]
        area = sum((a + b) / 2 for a, b in itertools.pairwise(ys)) / (len(ys) - 1)
        assert curve["area"][hop] == pytest.approx(area)
        assert curve["worst_case_robustness"][hop]["value"] == pytest.approx(1 - max(ys))
        assert curve["worst_case_robustness"][hop]["budget"] == LADDER[ys.index(max(ys))]

    # controls: the same attack on items the base model answered wrong
    control = _payload(cells / "control-probab.json")
    assert control["recovered"], "no control item"
    base = _payload(out / "cells" / "base.json")
    assert all(base["correct"][i] is False for i in control["recovered"])
    c_hops = _hops(list(control["recovered"]), questions)
    for hop, ids in c_hops.items():
        if not ids:
            continue
        frr = sum(first_gold(i) < 5 for i in ids) / len(ids)
        got = m["controls"]["false_recovery"]["probab"][hop]["value"]
        assert got == pytest.approx(frr)
        rr = m["attacks"]["probab"][f"rr_{hop}"]["value"]
        assert m["controls"]["net_recovery"]["probab"][hop] == pytest.approx(rr - frr)
        at20 = sum(first_gold(i) < 20 for i in ids) / len(ids)
        assert curve["false_recovery"][hop]["20"]["value"] == pytest.approx(at20)
    # open answers: a knowledge-free answerer is never right, so its FQ is 1
    assert m["controls"]["fq_knowledge_free"]["SH"] == pytest.approx(1.0)
    assert results["attack_budgets"] == {"spec": "probab=1,2,5,20", "ladders": {"probab": LADDER}}

    assert sum(len(ids) for ids in c_hops.values()) == len(control["recovered"])
    # The summary, the report and the figure name the curves and the controls.
    summary = (out / "summary.md").read_text()
    assert "## Recovery curves over attack budget" in summary and "false-recovery" in summary
    html = (out / "report.html").read_text()
    assert "Recovery curves over attack budget" in html and "knowledge-free" in html
    assert (out / "recovery_curves.png").stat().st_size > 0
    table = (out / "tables" / "recovery_curves.csv").read_text().splitlines()
    assert len(table) == 1 + 2 * len(LADDER)  # header, then (hop, rung) rows of ga/probab
    row = dict(zip(table[0].split(","), table[1 + LADDER.index(20)].split(","), strict=True))
    assert (row["hop"], row["budget"]) == ("SH", "20")
    assert float(row["rr"]) == pytest.approx(curve["rr"]["SH"]["20"]["value"])
    assert "knowledge-free FQ" in (out / "tables" / "controls.csv").read_text()
    assert (out / "recovery_curves.pdf").read_bytes().startswith(b"%PDF")

    # A rerun (a shorter ladder with the same largest N) redoes nothing: every run is a cell.
    def boom(*args, **kwargs):
        raise AssertionError("a finished cell was recomputed")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    monkeypatch.setattr(GenerationRouter, "run_attack", boom)
    again = _run(out, "--attack-budgets", "probab=2,20")
    assert (
        again["methods"]["ga"]["recovery_curves"]["probab"]["rr"]["SH"]["20"]
        == curve["rr"]["SH"]["20"]
    )


def test_no_ladder_keeps_the_run_as_it_was(tmp_path, monkeypatch) -> None:
    calls: list[int] = []
    _script(monkeypatch, calls)
    results = _run(tmp_path / "run")
    m = results["methods"]["ga"]
    assert "recovery_curves" not in m and "robustness_over_budgets" not in m
    assert results["attack_budgets"] == {"spec": "none", "ladders": {}}
    assert sorted(calls) == [5, 5]  # the usual cell and its control


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("probab=0,5", "num_samples"),
        ("relearn=1,2", "not among the run's attacks"),
        ("probab=1,1", "repeats a rung"),
        ("probab", "ATTACK=R1,R2"),
    ],
)
def test_a_bad_ladder_fails_before_any_model_work(tmp_path, monkeypatch, spec, message) -> None:
    def boom(*args, **kwargs):
        raise AssertionError("model work before the ladder was checked")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    result = CliRunner().invoke(
        cli, [*ARGS, "--out", str(tmp_path / "r"), "--attack-budgets", spec]
    )
    assert result.exit_code != 0
    assert message in result.output and "--attack-budgets" in result.output


REAL = [*TINY_REAL_ARGS, *TINY_REAL_LADDER]  # the session's shared run (conftest.tiny_real_run)


def test_tiny_real_run_with_a_probab_ladder_resumes_without_redoing_a_budget(
    tmp_path, monkeypatch, model_cache, tiny_real_run
) -> None:
    """The CLI's default SmolLM2-135M-Instruct (offline, cached), built-in facts, GA, Probab:
    ``--attack-budgets probab=1,2`` (the session's shared tiny real run, read here only) writes
    every curve key; a rerun on a copy loads no model, generates nothing, and gives the same
    curves from the stored ladder cells."""
    import shutil

    results = json.loads((tiny_real_run / "results.json").read_text())
    assert results["attack_budgets"] == {"spec": "probab=1,2", "ladders": {"probab": [1, 2]}}
    m = results["methods"]["ga"]
    curve = m["recovery_curves"]["probab"]
    assert curve["ladder"] == [1, 2] and curve["runs"] == [2]
    for key in ("rr", "false_recovery", "net_recovery", "budget_to_half_base", "target", "area",
                "worst_case_robustness"):  # fmt: skip
        assert set(curve[key]) == {"SH", "MH"}, key
    for hop in ("SH", "MH"):
        assert set(curve["rr"][hop]) == {"1", "2"}
        rr = [curve["rr"][hop][n]["value"] for n in ("1", "2")]
        if None not in rr:
            assert rr[0] <= rr[1]
    assert set(m["controls"]) >= {"false_recovery", "net_recovery", "fq_knowledge_free"}
    assert "value" in m["robustness_over_budgets"]
    out = tmp_path / "run"  # the rerun writes results.json: a copy, the shared run stays as it is
    shutil.copytree(tiny_real_run, out)
    monkeypatch.setenv("LEAKRES_CACHE_DIR", str(model_cache))
    args = [*REAL, "--out", str(out)]
    ladder_cell = out / "cells" / "ga" / "attack-probab" / "budget-2.json"
    stamp = ladder_cell.stat().st_mtime_ns

    def boom(*args, **kwargs):
        raise AssertionError("a finished cell was recomputed")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    monkeypatch.setattr(GenerationRouter, "run_attack", boom)
    again = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert ladder_cell.stat().st_mtime_ns == stamp
    rerun = json.loads((out / "results.json").read_text())["methods"]["ga"]
    assert rerun["recovery_curves"]["probab"]["rr"] == curve["rr"]


def test_a_non_prefix_ladder_is_read_in_ladder_order_not_alphabetically() -> None:
    """quantization int8, fp4, nf4: each rung its own cell, read in the ladder's order; sorted
    by name (fp4, int8, nf4) the same RRs would give another area (0.3125, not 0.375)."""
    from leakres_cli.stages.curve_scores import curve_block

    ids = ["a", "b", "c", "d"]
    by_rung = {"int8": [False] * 4, "fp4": [True, False, False, False], "nf4": [True] * 4}
    runs = [(r, (r,), {"recovered": dict(zip(ids, v, strict=True))}) for r, v in by_rung.items()]
    controls = [(r, (r,), {"recovered": {"x": False}}) for r in by_rung]
    hops = {"SH": ids, "MH": []}
    block = curve_block(
        "quantization", runs, controls, hops, {"SH": ["x"], "MH": []}, {"SH": 1.0, "MH": None},
        {"seed": 0, "n_resamples": 50},
    )  # fmt: skip
    assert block["ladder"] == ["int8", "fp4", "nf4"] and block["runs"] == ["int8", "fp4", "nf4"]
    assert [block["rr"]["SH"][r]["value"] for r in block["ladder"]] == [0.0, 0.25, 1.0]
    assert block["budget_to_half_base"]["SH"] == "nf4"
    assert block["area"]["SH"] == pytest.approx(((0 + 0.25) / 2 + (0.25 + 1) / 2) / 2)
    assert block["worst_case_robustness"]["SH"]["value"] == 0.0
    assert block["worst_case_robustness"]["SH"]["budget"] == "nf4"
    assert block["false_recovery"]["SH"]["fp4"]["value"] == 0.0
    assert block["net_recovery"]["SH"]["fp4"] == pytest.approx(0.25)
    assert block["rr"]["MH"]["int8"]["value"] is None  # no MH item: undefined, not 0
    assert block["budget_to_half_base"]["MH"] is None


def test_at_rung_is_judge_any_on_the_first_n_samples() -> None:
    from leakres_cli.stages.budget_ladders import at_rung

    samples = [False, None, True, False]
    assert [at_rung(samples, n) for n in (1, 2, 3, 4)] == [False, None, True, True]
    with pytest.raises(ValueError, match="rung 5 needs 5 samples"):
        at_rung(samples, 5)


def test_the_environment_variable_chooses_the_ladder(tmp_path, monkeypatch) -> None:
    def boom(*args, **kwargs):
        raise AssertionError("model work before the ladder was checked")

    monkeypatch.setattr(Benchmark, "model", boom)
    monkeypatch.setenv("LEAKRES_RUN_ATTACK_BUDGETS", "probab=2,2")
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(tmp_path / "r")])
    assert result.exit_code != 0 and "--attack-budgets 'probab=2,2'" in result.output

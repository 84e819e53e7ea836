"""`leakres run` on the real SmolLM2-135M-Instruct (the embedded default model, CPU) and the
built-in facts, scaled down: one method that forgets (GA at lr 1e-4 x 5 epochs) and one that forgets nothing
(RMU at lr 1e-12 for one step: its weights do not move, so S_suc is empty, as RMU at small
budgets), two attacks (Probab, FocusOnKey).

Checks the single decoding protocol (every generation of the run, evaluation and attacks, uses
the run's --max-new-tokens), the empty-S_suc cells, that every metric is a leak-metrics dict, and
that a resumed run re-judges exactly the unjudged verdicts without loading the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.scale.store import payload_digest
from leakres_cli.stages.pipeline import Benchmark

BUDGET = 20  # neither the old evaluation default (24) nor the attacks' own default (32)
ARGS = [
    "run", "--quiet", "--types", "SH,HS", "--per-type", "6", "--sh-pool", "30",
    "--n-forget", "3", "--n-retain", "3", "--methods", "ga,rmu", "--attacks", "probab,focus_on_key",
    "--max-new-tokens", str(BUDGET), "--seed", "0",
    "--set", "ga.lr=1e-4", "--set", "ga.epochs=5", "--set", "rmu.lr=1e-12", "--set", "rmu.max_steps=1",
]  # fmt: skip
METRIC_KEYS = {"value", "ci_low", "ci_high", "n", "undefined_reason", "n_unjudged"}


def _cell_path(out: Path, name: str) -> Path:
    return out / "cells" / f"{name}.json"


def _cell(out: Path, name: str) -> dict:
    return json.loads(_cell_path(out, name).read_text())["payload"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    """One run; every engine call's decoding config is recorded (the engine behind `generate`)."""
    from recover_attacks.engine.local import LocalEngine

    out = tmp_path_factory.mktemp("smollm2-run") / "run"
    calls: list[dict] = []
    original = LocalEngine.complete

    def spy(self, prompts, config, **kwargs):
        calls.append({"max_new_tokens": config.max_new_tokens, "do_sample": config.do_sample,
                      "num_samples": config.num_samples, "n_prompts": len(prompts),
                      "answer_end": config.describe().get("answer_end")})  # fmt: skip
        return original(self, prompts, config, **kwargs)

    mp = pytest.MonkeyPatch()
    mp.setattr(LocalEngine, "complete", spy)
    try:
        result = CliRunner().invoke(cli, [*ARGS, "--out", str(out)], catch_exceptions=False)
    finally:
        mp.undo()
    assert result.exit_code == 0, result.output
    return out, json.loads((out / "results.json").read_text()), calls


def test_attacks_decode_with_the_evaluation_budget(run) -> None:
    out, results, calls = run
    ga = results["methods"]["ga"]
    assert sum(ga["s_suc"].values()) >= 1, "GA at lr 1e-4 forgot nothing: no attack decoded"
    assert results["decoding"]["max_new_tokens"] == BUDGET
    # Every generation of the run: base and unlearned evaluation (greedy) and the attacks.
    assert calls and {c["max_new_tokens"] for c in calls} == {BUDGET}
    assert any(c["do_sample"] and c["num_samples"] == 5 for c in calls)  # Probab decoded
    # ... and every one stops at the end of the committed answer, with the judge's own rule
    assert {c["answer_end"] for c in calls} == {"leak_metrics.judges.answer_span.answer_stop"}
    assert results["decoding"]["answer_end"] == "leak_metrics.answer_stop"
    for attack in ("probab", "focus_on_key"):
        cell = _cell(out, f"ga/attack-{attack}")
        assert cell["decoding"]["max_new_tokens"] == BUDGET == cell["settings"]["max_new_tokens"]
        assert cell["same_budget_as_evaluation"] is True
        assert cell["decoding"]["batch_size"] == results["decoding"]["batch_size"]
        assert cell["decoding"]["answer_end"] == results["decoding"]["answer_end"]
        assert ga["attacks"][attack]["decoding"] == cell["decoding"]


def test_a_method_that_forgets_nothing_gets_undefined_rr_and_attack_settings(run) -> None:
    out, results, _ = run
    rmu = results["methods"]["rmu"]
    assert sum(rmu["s_suc"].values()) == 0
    for attack in ("probab", "focus_on_key"):
        a = rmu["attacks"][attack]
        for hop in ("rr_SH", "rr_MH", "rr_all"):
            assert a[hop]["value"] is None and a[hop]["n"] == 0
            assert "S_suc is empty" in a[hop]["undefined_reason"]
        # The settings come from the attack's config dataclass, under the run's protocol.
        assert a["settings"]["max_new_tokens"] == BUDGET and a["settings"]["seed"] == 0
        cell = _cell(out, f"rmu/attack-{attack}")
        assert cell["responses"] == {} and cell["recovered"] == {}
    assert "temperature" in rmu["attacks"]["probab"]["settings"]
    assert rmu["robustness"]["value"] is None
    # --set rmu.max_steps=1 cut the 5 planned epochs: the run-size record says so.
    assert rmu["training"]["cap_hit"] is True and rmu["training"]["steps"] == 1
    assert rmu["training"]["planned_steps"] > 1 and rmu["training"]["epochs_completed"] < 5


def test_every_metric_dict_is_a_leak_metrics_value(run) -> None:
    _, results, _ = run

    def metrics(node):
        if isinstance(node, dict):
            if "value" in node and "undefined_reason" in node:
                yield node
            else:
                for v in node.values():
                    yield from metrics(v)
        elif isinstance(node, list):
            for v in node:
                yield from metrics(v)

    found = list(metrics(results["methods"]))
    assert len(found) > 30
    assert all(set(m) == METRIC_KEYS for m in found)
    for m in results["methods"].values():
        assert set(m["robustness"]) == METRIC_KEYS
        assert m["utility"]["retain_accuracy_ratio"] == m["utility"]["ratio"]
        assert m["utility"]["bbh_ratio"] is None and m["utility"]["source"].startswith("retain")
        assert m["training"]["forget_examples_seen"] is not None
    assert results["methods"]["ga"]["training"]["every_forget_example_seen"] is True
    assert results["methods"]["ga"]["training"]["cap_hit"] is False
    summary = (run[0] / "summary.md").read_text()
    assert "## Unlearning run sizes" in summary and "| BBH ratio |" in summary


def test_resume_rejudges_exactly_the_unjudged_verdicts(run, monkeypatch) -> None:
    out, results, _ = run
    # A judge outage frozen into finished cells: two evaluation verdicts and one attack verdict.
    base = _cell(out, "base")
    ev_raw = json.loads(_cell_path(out, "ga/eval").read_text())
    forget_id, retain_id = base["forget_ids"][0], base["retain_ids"][0]
    expected = {i: ev_raw["payload"]["correct"][i] for i in (forget_id, retain_id)}
    for i in expected:
        ev_raw["payload"]["correct"][i] = None
    # as a run during the outage wrote them: digest and payload agree (an edited cell is refused)
    ev_raw["payload_digest"] = payload_digest(ev_raw["payload"])
    _cell_path(out, "ga/eval").write_text(json.dumps(ev_raw))
    atk_raw = json.loads(_cell_path(out, "ga/attack-probab").read_text())
    attacked = next(iter(atk_raw["payload"]["recovered"]))
    expected_attack = atk_raw["payload"]["recovered"][attacked]
    atk_raw["payload"]["recovered"][attacked] = None
    atk_raw["payload_digest"] = payload_digest(atk_raw["payload"])
    _cell_path(out, "ga/attack-probab").write_text(json.dumps(atk_raw))

    def boom(*args, **kwargs):
        raise AssertionError("a finished cell was recomputed")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    judged: list[str] = []
    original_judge = Benchmark.judge

    def recording_judge(self, questions, responses):
        judged.extend(q["id"] for q in questions)
        return original_judge(self, questions, responses)

    monkeypatch.setattr(Benchmark, "judge", recording_judge)
    again = CliRunner().invoke(cli, [*ARGS, "--out", str(out)], catch_exceptions=False)
    assert again.exit_code == 0, again.output

    assert sorted(judged) == sorted([forget_id, retain_id, attacked])
    ev = _cell(out, "ga/eval")
    assert {i: ev["correct"][i] for i in expected} == expected and ev["n_rejudged"] == 2
    assert _cell(out, "ga/attack-probab")["recovered"][attacked] == expected_attack
    rerun = json.loads((out / "results.json").read_text())
    assert rerun["methods"]["ga"]["per_type"] == results["methods"]["ga"]["per_type"]
    assert rerun["methods"]["ga"]["attacks"] == results["methods"]["ga"]["attacks"]
    assert rerun["methods"]["rmu"]["attacks"] == results["methods"]["rmu"]["attacks"]


def test_bbh_is_read_from_the_data_dir(tmp_path, real_data_dir: Path) -> None:
    from leakres_cli.config.run_config import RunConfig

    cfg = RunConfig(bbh_tasks=("boolean_expressions",), bbh_limit=2, data_dir=str(real_data_dir))
    bench = Benchmark(cfg, tmp_path, progress=False)
    cell = bench.bbh("bbh-base", lambda: bench.model()[0])
    assert cell["data"] == {"tasks": ["boolean_expressions"], "source": "local",
                            "data_dir": str(real_data_dir / "bbh")}  # fmt: skip
    assert len(cell["correct"]) == 2 and set(cell["overall"]) == METRIC_KEYS

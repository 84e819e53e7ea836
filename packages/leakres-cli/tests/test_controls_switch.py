"""`leakres run --controls/--no-controls` (issue 38 item 4's switch): the default keeps every
run's cell fingerprint and results.json as they were; --no-controls runs no control attack and
says "controls: off" in results.json, summary.md, the tables and the report.

The pipeline runs for real on kg-qgen's built-in facts with the alias judge; the models are
scripted stand-ins (as in test_attack_budgets.py): the base model answers the gold except on
questions whose id hashes to 0 mod 4, the unlearned model never does, and Probab's samples are
"I do not know." except sample 0 of every third question.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner
from leakres_cli.config.run_config import RunConfig, preset_config
from leakres_cli.main import cli
from leakres_cli.models.engines import GenerationRouter
from leakres_cli.outputs.schema import validate_results
from leakres_cli.scale.store import fingerprint
from leakres_cli.stages.pipeline import Benchmark
from test_scoring_chance import script_pipeline

ARGS = ["run", "--quiet", "--types", "SH,HS", "--per-type", "40", "--sh-pool", "60",
        "--n-forget", "16", "--n-retain", "8", "--methods", "ga", "--attacks", "probab",
        "--seed", "0", "--bootstrap", "200"]  # fmt: skip
BASE, UNLEARNED = object(), object()
DONT_KNOW = "I do not know."
# Computed on main at commit 285fccd, before `controls` existed:
# fingerprint(RunConfig().fingerprint_dict()) and the same for preset_config("smoke").
FINGERPRINT_BEFORE = "73855cf380f18305"


def _h(qid: str) -> int:
    return int(hashlib.sha256(qid.encode()).hexdigest(), 16)


def _script(monkeypatch, calls: list[tuple[int, int]]) -> None:
    """Scripted models; ``calls`` gets (samples, items) of every attack run."""

    def answer(self, model, questions, desc):
        if model is BASE:
            return [DONT_KNOW if _h(q["id"]) % 4 == 0 else q["answer"] for q in questions]
        return [DONT_KNOW for _ in questions]

    def unlearn(self, method, forget, retain):
        return UNLEARNED, {"method": method, "n_forget": len(forget), "steps": 1}

    def run_attack(self, attack, model, tokenizer, targets, **kwargs):
        n = attack.config.num_samples
        calls.append((n, len(targets)))
        gold = lambda q, k: k == 0 and _h(q["id"]) % 3 == 0  # noqa: E731
        return [
            SimpleNamespace(
                id=q["id"],
                responses=[q["answer"] if gold(q, k) else DONT_KNOW for k in range(n)],
                settings=attack.settings(),
            )
            for q in targets
        ]

    script_pipeline(monkeypatch, BASE, answer, unlearn, run_attack)


def _run(out: Path, *extra: str) -> dict:
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(out), *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())


def test_the_default_fingerprint_is_the_one_before_the_switch_existed() -> None:
    assert fingerprint(RunConfig().fingerprint_dict()) == FINGERPRINT_BEFORE
    assert fingerprint(preset_config("smoke").fingerprint_dict()) == FINGERPRINT_BEFORE
    # --no-controls changes which cells run, not what a cell holds: the same key
    off = RunConfig(controls=False)
    assert "controls" not in off.fingerprint_dict()
    assert fingerprint(off.fingerprint_dict()) == FINGERPRINT_BEFORE


def test_default_run_keeps_its_controls_and_run_control(tmp_path, monkeypatch) -> None:
    calls: list[tuple[int, int]] = []
    _script(monkeypatch, calls)
    results = _run(tmp_path / "run")
    validate_results(results)
    assert results["run_control"] == {"allow_fewer": False}  # as before the switch
    controls = results["methods"]["ga"]["controls"]
    assert set(controls) >= {"false_recovery", "net_recovery", "fq_knowledge_free"}
    assert len(calls) == 2  # the usual Probab cell and its control
    assert (tmp_path / "run" / "cells" / "ga" / "control-probab.json").exists()


def test_no_controls_runs_no_control_attack_and_says_off(tmp_path, monkeypatch) -> None:
    calls: list[tuple[int, int]] = []
    _script(monkeypatch, calls)
    out = tmp_path / "run"
    results = _run(out, "--no-controls", "--attack-budgets", "probab=1,2,5")
    validate_results(results)
    assert calls == [(5, calls[0][1])] * 2  # the usual cell and the ladder's N = 5 draw only
    assert not list((out / "cells" / "ga").glob("control-*"))
    assert results["run_control"] == {"allow_fewer": False, "controls": False}
    m = results["methods"]["ga"]
    assert m["controls"] == "off"
    curve = m["recovery_curves"]["probab"]
    assert curve["controls"] == "off"
    assert "false_recovery" not in curve and "net_recovery" not in curve
    assert set(curve["rr"]["SH"]) == {"1", "2", "5"}  # the curve itself is unchanged
    summary = (out / "summary.md").read_text()
    assert "controls: off (--no-controls)" in summary
    assert "false-recovery |" not in summary and "knowledge-free FQ |" not in summary
    controls_csv = (out / "tables" / "controls.csv").read_text()
    assert "controls: off" in controls_csv
    curve_csv = (out / "tables" / "recovery_curves.csv").read_text().splitlines()
    assert all(line.endswith(",off,off") for line in curve_csv[1:])
    result = CliRunner().invoke(cli, ["report", str(out), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    assert "controls: off (--no-controls)" in html and "off (--no-controls)</td>" in html


def test_no_controls_resumes_a_default_run_from_its_cells(tmp_path, monkeypatch) -> None:
    calls: list[tuple[int, int]] = []
    _script(monkeypatch, calls)
    out = tmp_path / "run"
    first = _run(out)

    def boom(*args, **kwargs):
        raise AssertionError("a finished cell was computed again")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    monkeypatch.setattr(GenerationRouter, "run_attack", boom)
    monkeypatch.setenv("LEAKRES_RUN_CONTROLS", "false")  # the option's variable, as the others'
    again = _run(out)
    assert again["config"] == first["config"]
    assert again["methods"]["ga"]["controls"] == "off"
    assert again["methods"]["ga"]["attacks"] == first["methods"]["ga"]["attacks"]

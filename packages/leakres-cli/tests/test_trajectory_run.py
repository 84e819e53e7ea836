"""`leakres run --eval-every K` (issue 38 item 3) on a tiny run: kg-qgen's real built-in facts, a
tiny randomly initialised Llama that GA really trains (unlearn-zoo), and a scripted answerer in
place of greedy decoding (``Benchmark.answer``): the base model knows every fact; at a checkpoint
the model still answers the forget questions before step 3 and no longer from step 3 on, and
always answers the retain ones, so every FQ and retain accuracy of the trajectory is known.

Checks: the checkpoints come every step, in eval mode without gradients; results.json's
trajectory (step 0 from the base cell, losses from the unlearn record, FQ per type and retain
accuracy from leak-metrics); the same saved model and the same other numbers as without
``--eval-every``; a rerun reuses the cell; the report section and the PNG/PDF figure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from leak_metrics import accuracy, forget_quality
from leakres_cli.config.run_config import RunConfig
from leakres_cli.outputs.report import write_report
from leakres_cli.outputs.schema import validate_results
from leakres_cli.outputs.summary import render
from leakres_cli.outputs.write import write_outputs
from leakres_cli.stages.pipeline import Benchmark
from leakres_cli.stages.trajectory import PER_TYPE, trajectory_subset
from test_run_sizes import tiny_model_and_tokenizer  # noqa: F401  (the fixture)

FORGOTTEN_FROM = 3
SMALL = {
    "types": ("SH", "HS"), "per_type": 4, "sh_pool": 12, "n_forget": 6, "n_retain": 3,
    "methods": ("ga",), "attacks": (), "bootstrap": 50, "save_models": True,
    "method_overrides": {"ga": {"epochs": 2.0, "batch_size": 1, "lr": 1e-3}},
}  # fmt: skip


class ScriptedAnswers:
    """Gold answers for the base model; during training (desc "ga step K") gold for the retain
    questions always and for the others only before :data:`FORGOTTEN_FROM`; records the mode."""

    def __init__(self) -> None:
        self.checkpoints: list[tuple[int, bool, bool, int]] = []
        self.retain_ids: set[str] = set()

    def __call__(self, bench: Benchmark, model: Any, questions: list, desc: str) -> list[str]:
        if " step " not in desc:
            return [q["answer"] for q in questions]
        step = int(desc.rsplit(" ", 1)[1])
        modes = [m.training for m in model.modules()]
        self.checkpoints.append((step, any(modes), torch.is_grad_enabled(), len(questions)))
        knows = step < FORGOTTEN_FROM
        return [
            q["answer"] if knows or q["id"] in self.retain_ids else "I do not know."
            for q in questions
        ]


def _run(out: Path, model_and_tokenizer, monkeypatch, script: ScriptedAnswers, **cfg) -> dict:
    monkeypatch.setattr(
        Benchmark, "answer", lambda self, model, qs, desc: script(self, model, qs, desc)
    )
    bench = Benchmark(RunConfig(**{**SMALL, **cfg}), out, progress=False)
    bench._model, bench._tokenizer = model_and_tokenizer
    results = bench.run()
    write_outputs(results, render(results), out)
    return results


def _tensors(out: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(out / "models" / "ga" / "model.safetensors"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tiny_model_and_tokenizer):  # noqa: F811
    root = tmp_path_factory.mktemp("trajectory")
    mp = pytest.MonkeyPatch()
    try:
        plain = _run(root / "plain", tiny_model_and_tokenizer, mp, ScriptedAnswers())
        script = ScriptedAnswers()
        base = json.loads((root / "plain" / "cells" / "base.json").read_text())["payload"]
        script.retain_ids = set(base["retain_ids"])
        traced = _run(root / "traced", tiny_model_and_tokenizer, mp, script, eval_every=1)
    finally:
        mp.undo()
    return root, plain, traced, script, base


def test_every_step_is_evaluated_in_eval_mode_without_gradients(runs) -> None:
    _, _, traced, script, _ = runs
    steps = traced["methods"]["ga"]["unlearn"]["steps"]
    assert steps == 12  # 6 forget facts, batch 1, 2 epochs
    n_subset = sum(min(PER_TYPE, n) for n in traced["scored_questions"].values()) + 3
    assert script.checkpoints == [(k, False, False, n_subset) for k in range(1, steps + 1)]


def test_results_hold_the_trajectory_computed_by_leak_metrics(runs) -> None:
    root, _, traced, _, base = runs
    validate_results(json.loads((root / "traced" / "results.json").read_text()))
    block = traced["methods"]["ga"]["trajectory"]
    assert block["eval_every"] == 1 and block["per_type"] == PER_TYPE and block["seed"] == 0
    points = block["points"]
    assert [p["step"] for p in points] == list(range(13))
    assert [p["source"] for p in points] == ["base"] + ["checkpoint"] * 12
    excluded = traced["methods"]["ga"]["fq_excluded_types"]  # as in per_type: no signal
    assert "SH" not in excluded  # 6 known forget facts: SH's FQ is defined
    cell = json.loads((root / "traced" / "cells" / "ga" / "trajectory.json").read_text())
    ids = cell["payload"]["ids"]
    assert block["n"] == {**{t: len(v) for t, v in ids["types"].items()}, "retain": 3}
    curve = traced["methods"]["ga"]["unlearn"]["loss_curve"]
    boot = {"seed": 0, "n_resamples": 50}
    for p in points:
        knows = p["step"] < FORGOTTEN_FROM
        for qtype, qids in ids["types"].items():
            if qtype in excluded:
                assert p["fq"][qtype]["value"] is None
                assert p["fq"][qtype]["undefined_reason"] == excluded[qtype]
                continue
            b = [base["correct"][i] for i in qids]
            expected = forget_quality(b, [knows] * len(qids), **boot).to_dict()
            assert p["fq"][qtype] == expected
            assert p["fq"][qtype]["value"] == (0.0 if knows else 1.0)
        assert p["retain_acc"] == accuracy([True] * 3, **boot).to_dict()
        if p["step"]:
            assert p["loss"] == pytest.approx(curve[p["step"] - 1]["loss"])
        else:
            assert p["loss"] is None


def test_the_same_model_and_numbers_as_without_eval_every(runs) -> None:
    root, plain, traced, _, _ = runs
    assert "trajectory" not in plain["methods"]["ga"]
    assert plain["config"] == traced["config"]  # not part of the fingerprint
    a, b = _tensors(root / "plain"), _tensors(root / "traced")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    for key in ("per_type", "fq_all_types", "fq_multi_hop", "retain", "utility", "s_suc"):
        assert plain["methods"]["ga"][key] == traced["methods"]["ga"][key], key
    curve = [e["loss"] for e in traced["methods"]["ga"]["unlearn"]["loss_curve"]]
    assert curve == [e["loss"] for e in plain["methods"]["ga"]["unlearn"]["loss_curve"]]


def test_a_rerun_reuses_the_trajectory_cell(runs, tiny_model_and_tokenizer, monkeypatch) -> None:  # noqa: F811
    root, _, traced, _, _ = runs

    def no_training(*args, **kwargs):
        raise AssertionError("a stored trajectory was recorded again")

    monkeypatch.setattr(Benchmark, "unlearn", no_training)
    again = _run(root / "traced", tiny_model_and_tokenizer, monkeypatch, ScriptedAnswers(),
                 eval_every=1)  # fmt: skip
    assert again["methods"]["ga"]["trajectory"] == traced["methods"]["ga"]["trajectory"]


def test_report_section_and_paper_figure(runs) -> None:
    root, _, _, _, _ = runs
    html = write_report([root / "traced"]).read_text()
    assert "<h2>Unlearning trajectory</h2>" in html
    assert 'aria-label="traced: ga FQ per type by step"' in html
    assert 'aria-label="traced: ga retain accuracy by step"' in html
    assert "Unlearning trajectory" not in write_report([root / "plain"]).read_text()
    for ext in ("png", "pdf"):
        assert (root / "traced" / "plots" / f"trajectory_ga.{ext}").stat().st_size > 1000
    assert not list((root / "plain" / "plots").glob("trajectory_*"))


def test_subset_is_seeded_capped_and_in_run_order() -> None:
    qs = [{"id": f"q{i}"} for i in range(20)]
    a = trajectory_subset({"SH": qs}, qs[:3], seed=1)
    assert a == trajectory_subset({"SH": qs}, qs[:3], seed=1)
    assert len(a.types["SH"]) == PER_TYPE and a.retain == qs[:3]
    assert [qs.index(q) for q in a.types["SH"]] == sorted(qs.index(q) for q in a.types["SH"])
    assert a.types["SH"] != trajectory_subset({"SH": qs}, [], seed=2).types["SH"]


def test_an_unlearner_without_callbacks_is_refused_in_one_line(monkeypatch) -> None:
    """A plug-in whose unlearn() takes no callbacks cannot record a trajectory: said so, before
    training (without --eval-every the same plug-in trains as before: no keyword passed)."""
    import unlearn_zoo
    from leakres_cli.errors import LeakresError
    from leakres_cli.stages.unlearning import unlearn

    trained: list[str] = []

    class OldPlugin:
        def unlearn(self, model, tokenizer, forget, retain, progress=True):
            trained.append("yes")
            return type("Result", (), {"model": model, "record": {}})()

    monkeypatch.setattr(unlearn_zoo, "get_unlearner", lambda name, **over: OldPlugin())
    model = torch.nn.Linear(2, 2)
    with pytest.raises(LeakresError, match=r"takes no callbacks.*without --eval-every"):
        unlearn(RunConfig(), model, None, "ga", [], [], progress=False, callbacks=[object()])
    assert trained == []
    unlearn(RunConfig(), model, None, "ga", [], [], progress=False)
    assert trained == ["yes"]

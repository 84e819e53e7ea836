"""`leakres tune` (issue 14, item 4): the search, its rule, resume, and `leakres run --method-config`.

The search runs through the real CLI, the real pipeline stages (kg-qgen's built-in knowledge base,
the pipeline's fact selection, leak-metrics' alias judge and metrics) and unlearn-zoo's real config
dataclasses and size-tier defaults, with two scripted pieces so that a test takes seconds:

- the base model is a stand-in that answers every question with its gold answer (it "knows" every
  fact; ``Benchmark.model`` and ``Benchmark.answer`` are replaced);
- training is scripted: ``unlearn_zoo.get_unlearner`` builds the real unlearner (so its config is
  unlearn-zoo's, defaults and overrides applied as in a run) but its ``unlearn`` returns a stand-in
  whose forgetting grows with lr x epochs (all forget facts at 4e-5, GA's small-model default
  4e-5 x 1) and which loses half the retain facts past 5e-5. So the rule's answer is known: the
  default (full forgetting, retain intact), not lr 8e-5 x 1 (also full forgetting, retain halved).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
import unlearn_zoo
from click.testing import CliRunner
from kg_qgen import render_prompt
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.models import catalog as models
from leakres_cli.stages.pipeline import Benchmark
from leakres_cli.tune.tuning import (
    UTILITY_FLOOR,
    Trial,
    build_grid,
    default_grid_values,
    load_method_config,
)
from unlearn_zoo.config import config_to_dict

SIZES = ["--per-type", "4", "--sh-pool", "6", "--n-forget", "3", "--n-retain", "5",
         "--seed", "0", "--quiet"]  # fmt: skip
TUNE_SIZES = [*SIZES, "--val-forget", "4", "--val-retain", "5", "--bootstrap", "50"]
FULL_FORGET = 4e-5  # lr x epochs at which the scripted training forgets every forget fact
RETAIN_DAMAGE = 5e-5  # beyond it, the scripted model loses half of the retain facts


class Param:
    """``numel`` of a 135M-parameter model, so unlearn-zoo's small tier applies (no tensor)."""

    def numel(self) -> int:
        return 135_000_000


class BaseStandIn:
    def parameters(self):
        return [Param()]

    def eval(self):
        return self


class UnlearnedStandIn:
    """Forgets the first (sorted) forget facts in proportion to lr x epochs; past RETAIN_DAMAGE it
    also loses every other question it was not trained to forget."""

    def __init__(self, config, forget_ids: list[str]) -> None:
        strength = min(1.0, config.lr * config.epochs / FULL_FORGET)
        self.forget_ids = set(forget_ids)
        self.forgotten = set(sorted(forget_ids)[: math.floor(len(forget_ids) * strength + 1e-6)])
        self.damaged = config.lr * config.epochs > RETAIN_DAMAGE

    def eval(self):
        return self


class Script:
    """The scripted model and training; counts what it is asked to do."""

    def __init__(self, interrupt_at: int | None = None) -> None:
        self.n_unlearn = 0
        self.n_answered = 0
        self.interrupt_at = interrupt_at

    def answer(self, bench, model, questions, desc):
        self.n_answered += len(questions)
        if isinstance(model, BaseStandIn):
            return [q["answer"] for q in questions]
        out = []
        retain_seen = 0
        for q in questions:
            wrong = q["id"] in model.forgotten
            if model.damaged and q["id"] not in model.forget_ids:
                retain_seen += 1
                wrong = retain_seen % 2 == 1  # every other retain fact is lost
            out.append("I do not know." if wrong else q["answer"])
        return out

    def get_unlearner(self, real_get_unlearner):
        script = self

        def scripted(name, **overrides):
            real = real_get_unlearner(name, **overrides)

            def unlearn(model, tokenizer, forget, retain, progress=True):
                script.n_unlearn += 1
                if script.interrupt_at == script.n_unlearn:
                    raise KeyboardInterrupt
                ids = [QUESTION_IDS[example["question"]] for example in forget]
                record = {"config": config_to_dict(real.config), "steps": 1,
                          "n_forget": len(forget)}  # fmt: skip
                return SimpleNamespace(model=UnlearnedStandIn(real.config, ids), record=record)

            real.unlearn = unlearn
            return real

        return scripted


#: SH prompt -> id (unlearn examples carry the prompt only: the question and its instruction)
QUESTION_IDS: dict[str, str] = {}


@pytest.fixture
def script(monkeypatch) -> Script:
    s = Script()
    base = BaseStandIn()
    real_build = Benchmark.build_questions

    def build_questions(self):
        data = real_build(self)
        QUESTION_IDS.update(
            {render_prompt(q): q["id"] for q in data["questions"] + data["sh_reserve"]}
        )
        return data

    monkeypatch.setattr(Benchmark, "build_questions", build_questions)
    monkeypatch.setattr(Benchmark, "model", lambda self: (base, None))
    monkeypatch.setattr(
        Benchmark, "answer", lambda self, model, qs, desc: s.answer(self, model, qs, desc)
    )
    monkeypatch.setattr(unlearn_zoo, "get_unlearner", s.get_unlearner(unlearn_zoo.get_unlearner))
    monkeypatch.setattr(models, "resolve_model", lambda name: name)
    return s


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), env={"HF_HUB_OFFLINE": "1"})


def test_search_selects_what_the_rule_says_and_the_settings_round_trip_into_run(
    tmp_path: Path, script: Script
) -> None:
    out = tmp_path / "tune"
    result = invoke("tune", "--method", "ga", "--out", str(out), *TUNE_SIZES)
    assert result.exit_code == 0, result.output
    tune = json.loads((out / "ga" / "tune.json").read_text())

    # The default grid: unlearn-zoo's GA small-tier default (lr 4e-5, 1 epoch) x {0.5, 1, 2} x {1}.
    assert tune["unlearn_zoo_defaults"]["lr"] == 4e-5 and tune["default_in_grid"] is True
    assert [(t["lr"], t["epochs"]) for t in tune["trials"]] == [
        (2e-5, 1.0),
        (4e-5, 1.0),
        (8e-5, 1.0),
    ]
    assert script.n_unlearn == 3
    # The rule, applied here to the table: eligible = retain ratio >= 0.9, then the highest SH FQ.
    for row in tune["trials"]:
        assert row["eligible"] is (row["retain_ratio"]["value"] >= UTILITY_FLOOR)
        assert row["fq_sh"]["n"] == 4 and row["fq_sh"]["ci_low"] is not None
        assert row["unlearn_config"]["lr"] == row["lr"] and row["wall_s"] >= 0
    eligible = [r for r in tune["trials"] if r["eligible"]]
    best = max(r["fq_sh"]["value"] for r in eligible)
    assert [r["key"] for r in eligible if r["fq_sh"]["value"] == best] == ["lr=4e-05_epochs=1"]
    assert tune["chosen"]["key"] == "lr=4e-05_epochs=1" == tune["default_trial"]
    assert tune["floor_met"] is True and "Chosen by the floor (floor_met: true)" in result.output
    assert "warning:" not in result.output
    ineligible = {r["key"]: r for r in tune["trials"] if not r["eligible"]}
    assert ineligible["lr=8e-05_epochs=1"]["fq_sh"]["value"] == 1.0  # as forgetful, but rejected
    assert ineligible["lr=8e-05_epochs=1"]["retain_ratio"]["value"] < UTILITY_FLOOR

    # The validation facts are disjoint from the forget facts `leakres run` picks.
    validation = tune["validation"]
    keys = {json.dumps(f, sort_keys=True) for f in validation["forget_facts"]}
    run_keys = {json.dumps(f, sort_keys=True) for f in validation["run_forget_facts"]}
    assert len(keys) == 4 and len(run_keys) == 3 and keys.isdisjoint(run_keys)
    # Acc_p of the ratios: the base model asked the validation questions as each trial is.
    assert validation["base_accuracy_forget"]["value"] == 1.0
    assert validation["base_accuracy_retain"]["n"] == 5
    assert "| lr=4e-05_epochs=1 **chosen** |" in result.output and tune["rule"] in result.output

    settings = json.loads((out / "ga" / "settings.json").read_text())
    assert settings["ga"] == {"lr": 4e-5, "epochs": 1.0, "batch_size": 4, "max_length": 96}
    prov = settings["provenance"]
    assert prov["model"] == "smollm2-135m-instruct" and prov["seed"] == 0
    assert prov["search_fingerprint"] == tune["fingerprint"] and prov["rule"] == tune["rule"]
    assert prov["floor_met"] is True
    assert tune["base_model"] is None and prov["base"] == "pretrained"  # no --base: as loaded

    run_out = tmp_path / "run"
    ran = invoke("run", "--methods", "ga", "--attacks", "", "--out", str(run_out), *SIZES,
                 "--method-config", str(out / "ga" / "settings.json"))  # fmt: skip
    assert ran.exit_code == 0, ran.output
    results = json.loads((run_out / "results.json").read_text())
    assert results["config"]["method_overrides"] == {"ga": settings["ga"]}
    used = results["methods"]["ga"]["unlearn"]["config"]
    assert {k: used[k] for k in settings["ga"]} == settings["ga"]
    assert results["forget_facts"] == validation["run_forget_facts"]  # what tune excluded


def test_a_search_on_a_tuned_base_teaches_it_before_the_base_evaluation(
    tmp_path: Path, script: Script, monkeypatch
) -> None:
    """``--base tuned`` (or ``--preset tuned``): the search's theta_p is the run's, taught (here a
    spy) after the questions are built and before anything is asked, and the questions it drops
    (those resting on a worked example's fact) are never validation or run forget facts; tune.json,
    tune.md and the settings file name the base. A rerun loads theta_p again (its trials need it)."""
    calls: list[dict] = []

    def teach_base(self, data):
        if not calls:  # the first search: nothing asked yet (a rerun finds the cells)
            assert self.store.get("base-single-hop") is None
        worked = next(q for q in data["questions"] if q["type"] == "SH")["target"]
        for key in ("questions", "sh_reserve"):  # what prepare_base does with a worked fact
            data[key] = [q for q in data[key] if q["target"] != worked]
        calls.append(worked)
        return {"kind": self.cfg.base, "training": {"steps": 7}}

    monkeypatch.setattr(Benchmark, "teach_base", teach_base)
    out = tmp_path / "tune"
    args = ["tune", "--method", "ga", "--out", str(out), "--lr", "4e-5", "--base", "tuned"]
    result = invoke(*args, *TUNE_SIZES)
    assert result.exit_code == 0, result.output
    tune = json.loads((out / "ga" / "tune.json").read_text())
    assert len(calls) == 1 and tune["base_model"]["kind"] == "tuned"
    assert tune["config"]["base"] == "tuned"  # in the search's fingerprint
    validation = tune["validation"]
    assert calls[0] not in validation["forget_facts"] + validation["retain_facts"]
    assert calls[0] not in validation["run_forget_facts"]
    assert json.loads((out / "ga" / "settings.json").read_text())["provenance"]["base"] == "tuned"
    assert "on smollm2-135m-instruct (theta_p: tuned, 7 teaching steps)" in result.output
    again = invoke(*args, *TUNE_SIZES)
    assert again.exit_code == 0, again.output
    assert (
        len(calls) == 2
        and json.loads((out / "ga" / "tune.json").read_text())["trials"] == (tune["trials"])
    )


def test_a_second_invocation_recomputes_nothing_and_ctrl_c_resumes(
    tmp_path: Path, script: Script
) -> None:
    out = tmp_path / "tune"
    script.interrupt_at = 3
    six = ["--epochs", "1,2"]  # 3 lr x 2 epochs
    stopped = invoke("tune", "--method", "ga", "--out", str(out), *six, *TUNE_SIZES)
    assert stopped.exit_code == 130 and "rerun the same command to resume" in stopped.output
    assert script.n_unlearn == 3  # two trials finished, the third was interrupted

    script.interrupt_at, script.n_unlearn = None, 0
    first = invoke("tune", "--method", "ga", "--out", str(out), *six, *TUNE_SIZES)
    assert first.exit_code == 0, first.output
    assert script.n_unlearn == 4  # only the unfinished trials trained
    before = json.loads((out / "ga" / "tune.json").read_text())

    script.n_unlearn, script.n_answered = 0, 0
    again = invoke("tune", "--method", "ga", "--out", str(out), *six, *TUNE_SIZES)
    assert again.exit_code == 0, again.output
    assert (script.n_unlearn, script.n_answered) == (0, 0)
    after = json.loads((out / "ga" / "tune.json").read_text())
    assert after["trials"] == before["trials"] and after["chosen"] == before["chosen"]


def test_validation_forget_facts_default_to_the_runs_n_forget(
    tmp_path: Path, script: Script
) -> None:
    """Unlearning is sized in epochs: a trial on as many forget facts as the run takes its steps."""
    sizes = [*SIZES, "--val-retain", "5", "--bootstrap", "50"]  # --n-forget 3, no --val-forget
    result = invoke("tune", "--method", "ga", "--out", str(tmp_path / "t"), "--lr", "4e-5",
                    "--epochs", "2", *sizes)  # fmt: skip
    assert result.exit_code == 0, result.output
    tune = json.loads((tmp_path / "t" / "ga" / "tune.json").read_text())
    assert tune["validation"]["n_forget"] == 3 == tune["config"]["n_forget"]
    assert tune["validation"]["n_retain"] == 5


def test_too_few_known_facts_beside_the_run_widen_the_validation_pool(
    tmp_path: Path, script: Script
) -> None:
    """The run's 3 + 3 facts use up the 6-question SH pool: the rest of the knowledge base is asked."""
    sizes = [a if a != "5" else "3" for a in TUNE_SIZES]  # --n-retain 3, --val-retain 3
    result = invoke("tune", "--method", "ga", "--out", str(tmp_path / "t"), "--lr", "1e-5",
                    "--epochs", "5", *sizes)  # fmt: skip
    assert result.exit_code == 0, result.output
    validation = json.loads((tmp_path / "t" / "ga" / "tune.json").read_text())["validation"]
    assert validation["widened_to_every_fact"] is True
    assert (validation["n_forget"], validation["n_retain"]) == (4, 3)
    forget = {json.dumps(f, sort_keys=True) for f in validation["forget_facts"]}
    assert forget.isdisjoint(json.dumps(f, sort_keys=True) for f in validation["run_forget_facts"])


def test_no_trial_at_the_floor_falls_back_with_floor_met_false_and_a_warning(
    tmp_path: Path, script: Script
) -> None:
    """lr 1e-7 keeps every retain fact but forgets nothing; lr 4e-5 forgets all and loses 3 of the
    5 retain facts (ratio 0.4): no trial that forgets meets the floor, the fallback takes 4e-5."""
    out = tmp_path / "tune"
    result = invoke("tune", "--method", "ga", "--out", str(out), "--lr", "1e-7,4e-5", "--epochs",
                    "5", *TUNE_SIZES)  # fmt: skip
    assert result.exit_code == 0, result.output
    tune = json.loads((out / "ga" / "tune.json").read_text())
    rows = {r["key"]: r for r in tune["trials"]}
    gentle, strong = rows["lr=1e-07_epochs=5"], rows["lr=4e-05_epochs=5"]
    assert (
        gentle["eligible"] is True and gentle["fq_sh"]["value"] == 0.0
    )  # at the floor, no forgetting
    assert strong["eligible"] is False and strong["fq_sh"]["value"] == 1.0
    assert strong["retain_ratio"]["value"] == pytest.approx(0.4)
    assert tune["floor_met"] is False and tune["chosen"]["key"] == "lr=4e-05_epochs=5"
    assert "floor_met: false" in tune["rule"]
    # The gentlest trial keeps everything (0.9 x 1.0), so the relative floor is capped at the best
    # utility among the trials that forget: the strong trial's own 0.4.
    assert tune["relative_floor"] == {
        "value": pytest.approx(0.4),
        "trial": "lr=4e-05_epochs=5",
        "basis": "cap",
    }
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert (
        len(warnings) == 1
        and "no trial met the floor (retain ratio >= 0.9 of the base)" in (warnings[0])
    )
    assert "lr=4e-05_epochs=5 chosen by the fallback" in warnings[0]
    assert (
        "; relative floor: utility >= 0.40 (capped at the highest among the trials "
        "that forget, lr=4e-05_epochs=5's); lr=4e-05_epochs=5 chosen by the fallback" in warnings[0]
    )
    md = (out / "ga" / "tune.md").read_text()
    assert "Chosen by the fallback (floor_met: false, no trial met the floor: retain" in md
    assert "| lr=4e-05_epochs=5 **chosen** |" in md
    settings = json.loads((out / "ga" / "settings.json").read_text())
    assert settings["ga"]["lr"] == 4e-5 and settings["provenance"]["floor_met"] is False
    assert settings["provenance"]["relative_floor"]["trial"] == "lr=4e-05_epochs=5"


def test_no_trial_that_forgets_is_a_one_line_error_and_keeps_the_table(
    tmp_path: Path, script: Script
) -> None:
    out = tmp_path / "tune"
    result = invoke("tune", "--method", "ga", "--out", str(out), "--lr", "1e-7", "--epochs",
                    "5", *TUNE_SIZES)  # fmt: skip
    assert result.exit_code == 2
    error = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "no trial of 1 forgot any validation forget fact" in error[0]
    tune = json.loads((out / "ga" / "tune.json").read_text())
    assert tune["trials"][0]["eligible"] is True  # retain intact: the floor alone is not enough
    assert tune["chosen"] is None and tune["floor_met"] is False
    assert tune["default_in_grid"] is False
    assert not (out / "ga" / "settings.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "gaa"], "unknown unlearner 'gaa'; did you mean 'ga'?"),
        (["--method", "ga", "--lr", ","], "--lr: the grid is empty"),
        (["--method", "ga", "--epochs", ""], "--epochs: the grid is empty"),
        (["--method", "ga", "--lr", "fast"], "--lr: 'fast' is not a number"),
        (["--method", "ga", "--lr", "0"], "--lr: 0 is not a positive number"),
        (["--method", "ga", "--tv-alpha", "4"], "--tv-alpha applies to tv only"),
        (["--method", "ga", "--val-forget", "0"], "--val-forget and --val-retain"),
    ],
)
def test_bad_tune_options_are_one_line_errors(tmp_path: Path, args, message) -> None:
    result = invoke("tune", *args, "--out", str(tmp_path / "o"))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and message in result.output


def test_method_config_errors_name_the_file_and_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LeakresError, match=r"--method-config .*bad.json: not JSON"):
        load_method_config((bad,), ("ga",))
    other = tmp_path / "npo.json"
    other.write_text(json.dumps({"npo": {"lr": 1e-5}, "provenance": {}}))
    with pytest.raises(LeakresError, match=r"npo.json: method 'npo' is not among --methods \(ga\)"):
        load_method_config((other,), ("ga",))
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({"ga": 1e-5}))
    with pytest.raises(LeakresError, match=r"flat.json: 'ga' must be an object"):
        load_method_config((flat,), ("ga",))
    with pytest.raises(LeakresError, match=r"missing.json: No such file"):
        load_method_config((tmp_path / "missing.json",), ("ga",))
    good = tmp_path / "tv.json"
    good.write_text(json.dumps({"tv": {"alpha": 4.0, "layers": [1, 2]}, "provenance": {}}))
    assert load_method_config((good,), ("tv",)) == {"tv": {"alpha": 4.0, "layers": (1, 2)}}


def test_set_goes_on_top_of_the_method_config(tmp_path: Path, monkeypatch) -> None:
    seen: dict = {}

    def capture(self) -> dict:
        seen["cfg"] = self.cfg
        raise LeakresError("stopped by the test")

    monkeypatch.setattr(models, "resolve_model", lambda name: name)
    monkeypatch.setattr(Benchmark, "run", capture)
    path = tmp_path / "ga.json"
    path.write_text(json.dumps({"ga": {"lr": 2e-5, "epochs": 3.0}, "provenance": {}}))
    result = invoke("run", "--quiet", "--out", str(tmp_path / "o"), "--method-config", str(path),
                    "--set", "ga.epochs=4")  # fmt: skip
    assert result.exit_code == 2 and "stopped by the test" in result.output
    assert seen["cfg"].method_overrides == {"ga": {"lr": 2e-5, "epochs": 4}}


def test_default_grids_hold_unlearn_zoo_defaults_and_tv_alpha() -> None:
    from unlearn_zoo import default_overrides

    for method in ("ga", "npo", "rmu", "tv", "palu", "as"):
        defaults = default_overrides(method, 135_000_000)
        keys = {t.key for t in build_grid(default_grid_values(method, defaults))}
        alpha = float(defaults["alpha"]) if method == "tv" else None
        assert Trial(float(defaults["lr"]), float(defaults["epochs"]), alpha).key in keys
    tv = default_grid_values("tv", default_overrides("tv", 135_000_000))
    assert tv["alpha"] == (1.0, 4.0) and len(build_grid(tv)) == 12

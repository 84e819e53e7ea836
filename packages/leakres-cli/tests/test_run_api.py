"""The library entry point (issue 23): ``leakres_cli.run_benchmark(config, out_dir) -> RunResult``
runs the smoke slice from Python on the real SmolLM2-135M-Instruct and the built-in facts (the
scaled-down run of test_pipeline_smollm2: GA that forgets, Probab), and ``leakres run`` with the same
options, on the same directory, resumes from its cells and writes the same results.json: the command
is the same function behind click."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli import RunConfig, RunResult, preset_config, run_benchmark
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli

FIELDS = {
    "types": ("SH", "HS"), "per_type": 6, "sh_pool": 30, "n_forget": 3, "n_retain": 3,
    "methods": ("ga",), "attacks": ("probab",), "max_new_tokens": 20, "seed": 0,
    "method_overrides": {"ga": {"lr": 1e-4, "epochs": 5}},
    "attack_overrides": {"probab": {"num_samples": 2}},  # the attack runs; 2 samples suffice here
}  # fmt: skip
ARGS = [
    "run", "--quiet", "--types", "SH,HS", "--per-type", "6", "--sh-pool", "30", "--n-forget", "3",
    "--n-retain", "3", "--methods", "ga", "--attacks", "probab", "--max-new-tokens", "20",
    "--seed", "0", "--set", "ga.lr=1e-4", "--set", "ga.epochs=5", "--set", "probab.num_samples=2",
]  # fmt: skip
WALL_CLOCK = {
    "timings_s",
    "profile",  # per-stage wall/CPU seconds, tokens and steps: a resumed run computes none again
    "wall_time_s",
    "train_time_s",
    "step_times_s",
    "wall_time",
    "peak_rss_mb",
}


def _without_wall_clock(value):
    if isinstance(value, dict):
        return {k: _without_wall_clock(v) for k, v in value.items() if k not in WALL_CLOCK}
    if isinstance(value, list):
        return [_without_wall_clock(v) for v in value]
    return value


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    out = tmp_path_factory.mktemp("api") / "run"
    # --report-to is run control: the same cells and results.json as without it
    return run_benchmark(preset_config("smoke", **FIELDS, report_to="tensorboard"), out)


def test_run_benchmark_returns_the_record_and_the_paths_it_wrote(done: RunResult) -> None:
    assert done.results_json == done.out_dir / "results.json"
    assert json.loads(done.results_json.read_text()) == done.results
    assert done.summary_md.read_text() == done.summary
    assert done.report_html is not None and done.report_html.is_file()
    assert done.tables and all(p.is_file() for p in done.tables)
    assert {p.parent.name for p in done.tables} <= {"tables", "plots"}
    ga = done.results["methods"]["ga"]
    assert ga["per_type"]["SH"]["n"] == 3 and ga["unlearn"]["steps"] > 0  # GA trained on 3 facts
    assert set(ga["attacks"]) == {"probab"} and "rr_all" in ga["attacks"]["probab"]
    assert done.results["config"]["methods"] == ["ga"]
    assert not (done.out_dir / ".leakres.lock").read_text()  # released after the run


def test_leakres_run_is_the_same_function(done: RunResult, monkeypatch) -> None:
    """The command on the same directory reuses every cell (no model is loaded) and writes a
    results.json equal to the library's, wall-clock fields aside."""
    from leakres_cli.stages.pipeline import Benchmark

    def refuse(self):
        raise AssertionError("a resumed run must not load the model")

    monkeypatch.setattr(Benchmark, "model", refuse)
    before = done.results
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(done.out_dir)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"Wrote {done.results_json}" in result.output
    after = json.loads(done.results_json.read_text())
    assert _without_wall_clock(after) == _without_wall_clock(before)


def test_a_refused_configuration_leaves_nothing_behind(tmp_path: Path) -> None:
    out = tmp_path / "never"
    with pytest.raises(LeakresError, match="unknown unlearner 'gaa'"):
        run_benchmark(RunConfig(methods=("gaa",)), out)
    assert not out.exists()


def test_results_json_validates_against_the_shipped_schema(done: RunResult) -> None:
    """results.json of a real (smoke-preset) run fits leakres_cli/data/results.schema.json, names
    its schema_version and records the weights' content hash (issue 39)."""
    from leakres_cli import SCHEMA_VERSION
    from leakres_cli.models.weights import model_digest
    from leakres_cli.outputs.schema import validate_results

    validate_results(done.results)
    assert done.results["schema_version"] == SCHEMA_VERSION
    assert (
        done.results["weights"]["base"]["sha256"] == model_digest("smollm2-135m-instruct")["sha256"]
    )


def test_report_to_tensorboard_logs_the_loss_curve_and_the_metrics(done: RunResult) -> None:
    """``report_to="tensorboard"``: the trainer's event files hold GA's loss curve (the record's,
    step by step) and the run's metrics are logged at the end (read back from the event files)."""
    from tb_events import read_scalars

    ga = done.results["methods"]["ga"]
    train = read_scalars(done.out_dir / "tracking" / "ga")
    curve = [c["loss"] for c in ga["unlearn"]["loss_curve"]]
    logged = sorted(train["train/loss"])
    assert [s for s, _ in logged] == list(range(1, len(curve) + 1))
    assert [v for _, v in logged] == pytest.approx(curve, rel=1e-5)
    from leakres_cli.outputs.tracking import flat_metrics

    logged_metrics = read_scalars(done.out_dir / "tracking" / "metrics")
    expected = flat_metrics(done.results)  # every number of the method's results.json blocks
    assert "ga/per_type/SH/acc_unlearned/value" in expected
    assert set(logged_metrics) == set(expected)
    for tag, value in expected.items():
        assert logged_metrics[tag] == [(0, pytest.approx(value, rel=1e-6))], tag

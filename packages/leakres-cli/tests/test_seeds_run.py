"""``leakres run --seeds 0,1`` end to end on the real SmolLM2-135M-Instruct and the built-in facts
(a tiny slice: 5 forget facts, GA and GradDiff for 1 epoch, Probab with 2 samples: the smallest
sizes that still forget, attack and compare): results.json's ``seeds``
and ``comparisons``, seed 0's cells equal to a plain ``--seed 0`` run's, and a rerun that redoes
no finished (method, seed) cell (issue 38 item 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli import RunResult, preset_config, run_benchmark
from leakres_cli.main import cli
from leakres_cli.stages.pipeline import Benchmark

FIELDS = {
    "types": ("SH", "HS"), "per_type": 6, "sh_pool": 30, "n_forget": 5, "n_retain": 3,
    "methods": ("ga", "graddiff"), "attacks": ("probab",), "max_new_tokens": 20, "seed": 0,
    "method_overrides": {"ga": {"lr": 1e-4, "epochs": 1}, "graddiff": {"lr": 1e-4, "epochs": 1}},
    "attack_overrides": {"probab": {"num_samples": 2}},
}  # fmt: skip
ARGS = [
    "run", "--quiet", "--types", "SH,HS", "--per-type", "6", "--sh-pool", "30", "--n-forget", "5",
    "--n-retain", "3", "--methods", "ga,graddiff", "--attacks", "probab", "--max-new-tokens", "20",
    "--seed", "0", "--seeds", "0,1", "--set", "ga.lr=1e-4", "--set", "ga.epochs=1",
    "--set", "graddiff.lr=1e-4", "--set", "graddiff.epochs=1", "--set", "probab.num_samples=2",
]  # fmt: skip
WALL_CLOCK = {"timings_s", "profile", "wall_time_s", "train_time_s", "step_times_s", "wall_time",
              "peak_rss_mb", "hardware"}  # fmt: skip


def _static(value):
    if isinstance(value, dict):
        return {k: _static(v) for k, v in value.items() if k not in WALL_CLOCK}
    if isinstance(value, list):
        return [_static(v) for v in value]
    return value


def _cell(out: Path, name: str) -> dict:
    return json.loads((out / "cells" / f"{name}.json").read_text())["payload"]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    out = tmp_path_factory.mktemp("seeds") / "run"
    return run_benchmark(preset_config("smoke", **FIELDS, seeds=(0, 1)), out, report=False)


def test_results_json_has_each_seed_and_the_paired_comparisons(seeded: RunResult) -> None:
    r = seeded.results
    assert r["seeds"]["seeds"] == [0, 1] and r["seeds"]["reported_seed"] == 0
    for method in ("ga", "graddiff"):
        block = r["seeds"]["methods"][method]
        assert set(block["fq"]) == {"SH", "HS"}
        for summary in (block["fq"]["SH"], block["robustness"], block["rr"]["probab"]["all"]):
            assert set(summary["per_seed"]) == {"0", "1"}
        # the seed-0 value is the methods block's (tables are the first seed's)
        assert (
            block["fq"]["SH"]["per_seed"]["0"]
            == r["methods"][method]["per_type"]["SH"]["fq"]["value"]
        )
    # the slice is big enough that something was forgotten and attacked (the RR paths ran)
    assert any(sum(r["methods"][m]["s_suc"].values()) > 0 for m in ("ga", "graddiff"))
    comp = r["comparisons"]
    assert comp["seeds"] == [0, 1]
    for entry in [*comp["robustness"], *(e for es in comp["fq"].values() for e in es)]:
        assert (entry["a"], entry["b"]) == ("ga", "graddiff")
        assert entry["sentence"] and "ga" in entry["sentence"]
        if entry["difference"] is not None:
            assert entry["p_holm"] == entry["p_value"]  # one pair: Holm leaves p as it is
    from leakres_cli.outputs.schema import validate_results

    validate_results(r)  # the shipped schema describes both blocks
    assert "## Paired comparisons between methods" in seeded.summary
    assert "## Seeds" in seeded.summary
    # seed 1 ran with its own seed, in its own cells
    seed_one = seeded.out_dir / "seeds" / "1" / "cells"
    unlearn = json.loads((seed_one / "ga" / "unlearn.json").read_text())["payload"]
    assert unlearn["config"]["seed"] == 1
    assert _cell(seeded.out_dir, "ga/unlearn")["config"]["seed"] == 0


def test_seed_zero_is_a_plain_seed_zero_run(seeded: RunResult, tmp_path: Path) -> None:
    fields = {**FIELDS, "methods": ("ga",)}
    plain = run_benchmark(preset_config("smoke", **fields), tmp_path / "plain", report=False)
    assert "seeds" not in plain.results and "comparisons" not in plain.results
    for name in ("ga/eval", "ga/attack-probab", "ga/unlearn"):
        assert _static(_cell(seeded.out_dir, name)) == _static(_cell(plain.out_dir, name)), name
    assert _static(seeded.results["methods"]["ga"]) == _static(plain.results["methods"]["ga"])


def test_a_rerun_redoes_no_finished_seed(seeded: RunResult, monkeypatch) -> None:
    """The same command resumes from every cell (no model loads); with one (method, seed)'s
    cells lost, only that one is redone."""
    before = json.loads(seeded.results_json.read_text())
    trained: list[tuple[str, int]] = []
    unlearn = Benchmark.unlearn

    def counted(self, method, forget, retain):
        trained.append((method, self.cfg.seed))
        return unlearn(self, method, forget, retain)

    def refuse(self):
        raise AssertionError("a resumed run must not load the model")

    with monkeypatch.context() as patch:
        patch.setattr(Benchmark, "model", refuse)
        result = CliRunner().invoke(cli, [*ARGS, "--out", str(seeded.out_dir)], catch_exceptions=False)  # fmt: skip
        assert result.exit_code == 0, result.output
    assert _static(json.loads(seeded.results_json.read_text())) == _static(before)
    shutil.rmtree(seeded.out_dir / "seeds" / "1" / "cells" / "graddiff")  # lost in a crash
    monkeypatch.setattr(Benchmark, "unlearn", counted)
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(seeded.out_dir)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert trained == [("graddiff", 1)]
    assert _static(json.loads(seeded.results_json.read_text())) == _static(before)

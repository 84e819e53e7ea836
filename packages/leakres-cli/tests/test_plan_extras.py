"""`leakres plan` accounts for issue 38's additions: --seeds, --attack-budgets ladders, the
controls (--no-controls) and --eval-every trajectories, each as its own rows and in the
"where the time goes" breakdown. No model is loaded (sizes from the shipped table)."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from leakres_cli.config.run_config import preset_config
from leakres_cli.main import cli
from leakres_cli.scale.costs import KNOWN_MODELS, Assumptions, count_parameters
from leakres_cli.stages.trajectory import PER_TYPE


def _plan(*args: str, env: dict[str, str] | None = None) -> dict:
    result = CliRunner().invoke(
        cli, ["plan", "--preset", "smoke", "--format", "json", *args], env=env,
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _rows(plan: dict, method: str = "ga") -> dict[str, dict]:
    return {c["stage"]: c for c in plan["cells"] if c["method"] == method}


def _tflop(plan: dict) -> float:
    return sum(c["tflop"] for c in plan["cells"])


def test_the_default_plan_adds_only_the_controls() -> None:
    rows = _rows(_plan())
    assert set(rows) == {"unlearn", "eval", "attack:probab", "control:probab"}
    # the control attacks as many never-known items as S_suc: the attack's own cost (upper bound)
    assert rows["control:probab"]["tflop"] == rows["attack:probab"]["tflop"]


def test_controls_off_costs_less_by_exactly_the_control_rows() -> None:
    on = _plan("--attack-budgets", "probab=1,2,5,10,20")
    off = _plan("--attack-budgets", "probab=1,2,5,10,20", "--no-controls")
    controls = [c for c in on["cells"] if c["stage"].startswith("control")]
    assert {c["stage"] for c in controls} == {"control:probab", "control ladder:probab"}
    assert not [c for c in off["cells"] if c["stage"].startswith("control")]
    assert _tflop(on) == pytest.approx(_tflop(off) + sum(c["tflop"] for c in controls))
    assert off["totals"]["gpu_hours"] <= on["totals"]["gpu_hours"]
    assert "controls" not in off["totals"]["by_kind"] and "controls" in on["totals"]["by_kind"]


def test_a_probab_ladder_costs_one_draw_at_its_largest_n() -> None:
    cfg = preset_config("smoke")
    a = Assumptions()
    without = _plan("--no-controls")
    rows = _rows(_plan("--no-controls", "--attack-budgets", "probab=1,2,5,10,20"))
    single = rows["attack:probab"]["tflop"]  # N = 5, recover-attacks' default
    ladder = rows["ladder:probab"]["tflop"]
    per_item = lambda n: a.prompt_tokens + n * cfg.max_new_tokens  # noqa: E731
    assert ladder / single == pytest.approx(per_item(20) / per_item(5), rel=1e-2)
    assert "1 run(s) (20 -> rungs 1,2,5,10,20)" in rows["ladder:probab"]["note"]
    # the ladder adds what the ladder adds, nothing else changes
    assert _tflop(without) + ladder == pytest.approx(_tflop(_plan("--no-controls", "--attack-budgets", "probab=1,2,5,10,20")))  # fmt: skip
    assert rows["attack:probab"] == _rows(without)["attack:probab"]


def test_a_non_prefix_ladder_costs_one_run_per_rung() -> None:
    rows = _rows(
        _plan("--attacks", "quantization", "--attack-budgets", "quantization=int8,fp4,nf4")
    )
    assert rows["ladder:quantization"]["tflop"] == pytest.approx(3 * rows["attack:quantization"]["tflop"], abs=0.2)  # fmt: skip
    relearn = _rows(_plan("--attacks", "relearn", "--attack-budgets", "relearn=1,2"))
    one, two = (_rows(_plan("--attacks", "relearn", "--attack-budgets", f"relearn={k}"))["ladder:relearn"]["tflop"] for k in (1, 2))  # fmt: skip
    assert one < two and relearn["ladder:relearn"]["tflop"] == pytest.approx(one + two, abs=0.2)


def test_seeds_rerun_every_per_method_stage_per_extra_seed() -> None:
    one = _plan("--attack-budgets", "default")
    three = _plan("--attack-budgets", "default", "--seeds", "0,1,2")
    rows = _rows(three)
    per_seed = [c for s, c in rows.items() if not s.startswith("other seeds")]
    extra = rows["other seeds (1,2)"]
    assert extra["tflop"] == pytest.approx(2 * sum(c["tflop"] for c in per_seed), abs=0.2)
    assert extra["gpu_hours"] == pytest.approx(2 * sum(c["gpu_hours"] for c in per_seed), rel=1e-3)
    assert three["totals"]["gpu_hours"] >= one["totals"]["gpu_hours"]
    assert _tflop(three) == pytest.approx(_tflop(one) + extra["tflop"], abs=0.2)
    base = [c for c in three["cells"] if c["method"] == "base"]
    assert base == [c for c in one["cells"] if c["method"] == "base"]  # shared: paid once
    # --seeds naming only --seed is one seed: no extra row
    assert not [s for s in _rows(_plan("--seeds", "0")) if s.startswith("other seeds")]


def test_eval_every_costs_its_checkpoints() -> None:
    from unlearn_zoo import get_unlearner

    cfg = preset_config("smoke")
    a = Assumptions()
    n = count_parameters(KNOWN_MODELS[cfg.model])
    c = get_unlearner("ga").config
    steps = math.ceil(math.ceil(cfg.n_forget / (c.batch_size * c.grad_accum_steps)) * c.epochs)
    rows = {k: _rows(_plan("--eval-every", str(k)))["trajectory"] for k in (1, 4)}
    questions = PER_TYPE * len(cfg.types) + PER_TYPE  # SH, HS and retain, PER_TYPE each
    for k, row in rows.items():
        expected = 2 * n * (steps // k) * questions * (a.prompt_tokens + cfg.max_new_tokens)
        assert row["tflop"] == pytest.approx(expected / 1e12, abs=0.1)
    assert rows[1]["tflop"] > rows[4]["tflop"] > 0
    assert "trajectory" not in _rows(_plan())


def test_plan_reads_the_run_variables_and_passes_the_switches_to_slurm(tmp_path) -> None:
    env = {"LEAKRES_RUN_SEEDS": "0,1", "LEAKRES_RUN_CONTROLS": "false"}
    rows = _rows(_plan(env=env))
    assert "other seeds (1)" in rows and "control:probab" not in rows
    script = tmp_path / "s.sbatch"
    result = CliRunner().invoke(
        cli, ["plan", "--preset", "smoke", "--format", "slurm", "--script", str(script),
              "--seeds", "0,1,2", "--no-controls", "--eval-every", "4"],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = script.read_text()
    assert "--seeds 0,1,2" in text and "--no-controls" in text and "--eval-every 4" in text


def test_the_table_shows_where_the_time_goes() -> None:
    result = CliRunner().invoke(
        cli, ["plan", "--preset", "smoke", "--attack-budgets", "default", "--seeds", "0,1",
              "--eval-every", "4"], catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for line in ("of which:", "controls", "ladders", "control ladders", "trajectories",
                 "other seeds", "unlearning", "attacks"):  # fmt: skip
        assert line in result.stdout

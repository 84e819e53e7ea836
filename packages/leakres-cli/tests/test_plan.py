"""`leakres plan`: cells with estimates (table, json, slurm) and the validation that runs before any work.

No model is loaded: sizes come from the shipped table or a local config.json written here.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.config.run_config import preset_config
from leakres_cli.main import cli
from leakres_cli.scale.costs import KNOWN_MODELS, Assumptions, count_parameters

# No judge listens on port 9: these plans skip the endpoint probe (--offline); test_input_errors probes.
JUDGE_ENV = {"LEAKRES_RUN_JUDGE_MODEL": "judge-7b", "LEAKRES_RUN_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
             "LEAKRES_PLAN_OFFLINE": "1"}  # fmt: skip
PAPER_MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-14B", "Qwen/Qwen3-32B")
METHODS = ("ga", "npo", "rmu", "tv", "palu", "as")


def _plan(args: list[str], env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["plan", *args], env=env, catch_exceptions=False)


def _one_line_error(result, *fragments: str) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_parameter_counts_from_architecture_match_the_published_sizes() -> None:
    # the exact totals of the models' safetensors index files (metadata.total_size / 2 bytes)
    published = {
        "meta-llama/Llama-3.1-8B-Instruct": 8_030_261_248,
        "Qwen/Qwen3-14B": 14_768_307_200,
        "Qwen/Qwen3-32B": 32_762_123_264,
        "HuggingFaceTB/SmolLM2-135M-Instruct": 134_515_008,
    }
    for model, n in published.items():
        assert count_parameters(KNOWN_MODELS[model]) == n, model


def test_paper_plan_json_lists_every_cell_with_computed_costs(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = _plan(["--preset", "paper", "--format", "json", "--gpus", "8"], env=JUDGE_ENV)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    a = Assumptions()
    assert plan["assumptions"]["gpu_peak_tflops"] == a.gpu_peak_tflops
    assert {"flops", "memory", "gpu_hours", "not counted"} <= set(plan["assumptions"])
    jobs = plan["jobs"]
    assert [j["index"] for j in jobs] == list(range(3 * 7))
    assert {j["model"] for j in jobs} == set(PAPER_MODELS)
    assert [j["stage"] for j in jobs[:7]] == ["base", *METHODS]
    assert jobs[1]["id"] == "llama-3.1-8b-instruct/ga"
    stages = {(c["model"], c["method"], c["stage"]) for c in plan["cells"]}
    for model in PAPER_MODELS:
        for method in METHODS:
            for stage in ("unlearn", "eval", "attack:probab", "attack:focus_on_key",
                          "attack:quantization", "bbh"):  # fmt: skip
                assert (model, method, stage) in stages
    for cell in plan["cells"]:  # GPU-hours are the FLOPs at the stated throughput
        mfu = a.train_mfu if cell["stage"] == "unlearn" else a.inference_mfu
        hours = cell["tflop"] * 1e12 / (a.gpu_peak_tflops * 1e12 * mfu) / 3600
        assert cell["gpu_hours"] == pytest.approx(hours, rel=0.01, abs=0.002)
    base = next(c for c in plan["cells"] if c["model"] == "Qwen/Qwen3-32B" and c["stage"] == "base answers")  # fmt: skip
    n = count_parameters(KNOWN_MODELS["Qwen/Qwen3-32B"])
    sh_pool = preset_config("paper").sh_pool
    questions = 500 * 6 + (500 * 6 + sh_pool)  # multi-hop + SH (upper bound), 64 + 24 tokens each
    assert base["tflop"] == pytest.approx(2 * n * questions * 88 / 1e12, rel=1e-3)
    assert base["memory_gb"] > n * 2 / 1e9  # bf16 weights + KV cache

    def cell(model: str, method: str, stage: str) -> dict:
        return next(c for c in plan["cells"]
                    if (c["model"], c["method"], c["stage"]) == (model, method, stage))  # fmt: skip

    llama = count_parameters(KNOWN_MODELS["meta-llama/Llama-3.1-8B-Instruct"])
    # GA on one device as unlearn-zoo trains it: bf16 weights, grads, Adam m, v = 8 B/param + activations
    ga = cell("meta-llama/Llama-3.1-8B-Instruct", "ga", "unlearn")["memory_terms"]
    assert ga["gpus"] == 1 and ga["mode"].startswith("one device")
    assert ga["weights_gb"] + ga["gradients_gb"] + ga["optimizer_gb"] == pytest.approx(
        llama * 8 / 1e9, abs=0.05
    )
    terms = (
        "weights_gb",
        "gradients_gb",
        "optimizer_gb",
        "reference_gb",
        "activations_gb",
        "gather_gb",
    )
    assert ga["total_gb"] == pytest.approx(sum(ga[t] for t in terms), abs=0.05)
    assert 0 < ga["activations_gb"] < 10
    # NPO adds a frozen bf16 reference: 10 B/param + activations > 72 GB, so it is sharded in bf16
    # mixed precision: 18 B/param of states and the reference split over 3 GPUs
    npo = cell("meta-llama/Llama-3.1-8B-Instruct", "npo", "unlearn")
    t = npo["memory_terms"]
    assert npo["gpus"] == t["gpus"] == 3 and t["mode"].startswith("sharded")
    assert t["weights_gb"] + t["gradients_gb"] + t["optimizer_gb"] == pytest.approx(
        llama * 18 / 3e9, abs=0.05
    )
    assert t["reference_gb"] == pytest.approx(llama * 2 / 3e9, abs=0.05)
    lora = cell("Qwen/Qwen3-32B", "ga", "unlearn")  # large tier: LoRA on frozen bf16 weights
    trainable = int(n * 0.01)
    states = (n * 2 + trainable * 6) / 1e9  # frozen weights + the adapters' grads, m, v in bf16
    assert lora["memory_terms"]["weights_gb"] + lora["memory_terms"]["gradients_gb"] + lora[
        "memory_terms"]["optimizer_gb"] == pytest.approx(states, abs=0.05)  # fmt: skip
    assert lora["gpus"] == 1
    total = sum(c["gpu_hours"] for c in plan["cells"])
    assert plan["totals"]["gpu_hours"] == pytest.approx(total, abs=0.01)
    assert plan["totals"]["wall_hours_at_gpus"] == pytest.approx(total / 8, abs=0.01)
    assert any("judge-7b at http://127.0.0.1:9/v1" in c for c in plan["checks"])


def test_table_output_states_assumptions_and_totals() -> None:
    result = _plan(["--preset", "full"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "Assumptions:" in text and "gpu_peak_tflops: 312.0" in text and "train_mfu: 0.35" in text
    assert "Total:" in text and "GPU-hours over 7 jobs" in text
    for job in ("base", *METHODS):
        assert f"\n{job:<34} " in text
    assert "smollm2-135m-instruct: 0.13B parameters" in text


def test_slurm_script_runs_one_cell_per_array_task(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-appear")
    script = tmp_path / "grid.sbatch"
    result = _plan(
        ["--preset", "paper", "--format", "slurm", "--script", str(script), "--out", "runs/p"],
        env=JUDGE_ENV,
    )
    assert result.exit_code == 0, result.output
    text = script.read_text()
    assert text.startswith("#!/bin/bash\n")
    assert "#SBATCH --array=0-20" in text and "#SBATCH --gres=gpu:" in text
    assert "sk-must-not-appear" not in text
    cells = text.split("CELLS=(\n", 1)[1].split("\n)", 1)[0].splitlines()
    assert len(cells) == 21
    assert shlex.split(cells[0], comments=True) == ["llama-3.1-8b-instruct/base"]
    assert shlex.split(cells[20], comments=True) == ["qwen3-32b/as"]
    exec_line = next(line for line in text.splitlines() if line.startswith("exec leakres"))
    argv = shlex.split(exec_line)
    assert argv[1:4] == ["leakres", "run", "--preset"] and argv[4] == "paper"
    assert argv[-2:] == ["--cell", "$CELL"]
    assert "--out" in argv and argv[argv.index("--out") + 1] == "runs/p"
    assert "--array=0,7,14 --gres=gpu:1" in text  # base cells first, one GPU each
    # Every task asks for the GPUs its cell needs: llama NPO/TV/PALU train sharded. qwen3-32b RMU
    # trains LoRA (the large tier), so its reference is the adapters off and it holds no frozen copy
    # (unlearn-zoo's MethodNeeds.frozen_copies; the CLI's own list counted one before issue 23);
    # qwen3-32b TV keeps its frozen theta_p for the arithmetic even under LoRA: two GPUs.
    gpus = text.split("GPUS=(", 1)[1].split(")", 1)[0].split()
    assert gpus == ["1", "1", "3", "1", "3", "3", "1", "1", "1", "1", "1", "1", "1", "1",
                    "1", "1", "1", "1", "2", "1", "1"]  # fmt: skip
    assert "--array=2,4,5 --gres=gpu:3" in text and "--array=18 --gres=gpu:2" in text
    assert "accelerate launch --config_file" in text and "--num_processes" in text


def test_validation_errors_are_one_line_and_name_every_problem(tmp_path: Path) -> None:
    line = _one_line_error(
        _plan(["--methods", "ga,npoo", "--attacks", "probabb", "--source", "triples"]),
        "3 problem(s)",
        "npoo",
        "probabb",
        "source triples needs --input",
    )
    assert "did you mean" in line
    _one_line_error(_plan(["--preset", "paper"]), "judge-model")
    _one_line_error(
        _plan(["--preset", "paper"], env={"LEAKRES_RUN_JUDGE_MODEL": "j"}),
        "no endpoint",
        "--judge-base-url",
    )
    _one_line_error(_plan(["--model", "org/unknown-model"]), "org/unknown-model", "size unknown")
    _one_line_error(
        _plan(["--source", "mquake", "--input", str(tmp_path / "missing.json")]),
        "missing.json",
        "not a canonical MQuAKE name",
    )
    _one_line_error(_plan(["--engine", "openai"]), "--engine-cmd")
    _one_line_error(
        _plan(["--preset", "paper", "--model", "org/unknown-model"], env=JUDGE_ENV),
        "paper_settings.json",
        "org/unknown-model",
    )


def test_a_local_model_size_comes_from_its_config_json(tmp_path: Path) -> None:
    arch = dict(KNOWN_MODELS["meta-llama/Llama-3.1-8B-Instruct"])
    (tmp_path / "config.json").write_text(json.dumps(arch))
    result = _plan(["--model", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert any(f"8.03B parameters ({tmp_path / 'config.json'})" in c for c in plan["checks"])

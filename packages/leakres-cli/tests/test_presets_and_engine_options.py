"""The paper preset and its settings table, the grid's cells, and the engine options' errors.

All fast: nothing here loads a real model (the hook check uses a 2-layer random Llama).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from leakres_cli.config.paper_settings import load_table
from leakres_cli.config.run_config import PAPER_MODELS, preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.models.engines import unservable_reason
from leakres_cli.scale.costs import KNOWN_MODELS, count_parameters
from leakres_cli.scale.grid import find_cell, grid_cells, judge_endpoint_problem, model_config

KEY_VARS = ("LEAKRES_API_KEY", "LEAK_METRICS_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def _run(args: list[str], env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["run", *args], env=env, catch_exceptions=False)


def _one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_paper_preset_is_the_papers_grid() -> None:
    cfg = preset_config("paper")
    assert cfg.source == "mquake" and cfg.source_path == "MQuAKE-CF-3k-v2"
    assert cfg.per_type == 500 and len(cfg.types) == 7
    assert cfg.models == PAPER_MODELS
    assert cfg.methods == ("ga", "npo", "rmu", "tv", "palu", "as")
    assert cfg.attacks == ("probab", "focus_on_key", "quantization")
    assert cfg.attack_overrides == {"quantization": {"method": "fp4"}}
    assert cfg.judge == "llm" and cfg.judge_required
    assert cfg.bbh_tasks == ("all",) and cfg.bbh_limit == 0 and cfg.bbh_cot
    assert cfg.dtype == "auto" and cfg.method_settings == "paper"
    assert cfg.prompt_form == "bare"  # the paper's prompt; every other preset asks for the form


def test_settings_table_rows_say_where_each_value_comes_from() -> None:
    from unlearn_zoo import default_overrides

    table = load_table("paper")
    rows = {(r["method"], r["model"]): r for r in table["rows"]}
    assert len(rows) == 18 and {m for _, m in rows} == set(PAPER_MODELS)
    for (method, model), row in rows.items():
        assert set(row["provenance"]) == set(row["settings"])
        zoo = default_overrides(method, count_parameters(KNOWN_MODELS[model]))
        for key, value in row["settings"].items():
            source = row["provenance"][key]
            if source.startswith("unlearn-zoo"):  # still equal to the library's documented default
                expected = list(zoo[key]) if isinstance(zoo[key], tuple) else zoo[key]
                assert value == expected, (method, model, key)
            else:
                assert source.startswith("paper appendix D")
    assert rows[("npo", "Qwen/Qwen3-32B")]["settings"]["beta"] == 0.1


def test_model_config_puts_user_settings_over_the_table() -> None:
    cfg = preset_config("paper")
    cfg.method_overrides = {"ga": {"lr": 3e-6}}
    qwen = model_config(cfg, "Qwen/Qwen3-14B")
    assert qwen.model == "Qwen/Qwen3-14B"
    assert qwen.method_overrides["ga"]["lr"] == 3e-6  # --set wins
    assert qwen.method_overrides["ga"]["use_lora"] is True  # the table's large-tier row
    assert qwen.method_overrides["npo"]["beta"] == 0.1


def test_cells_by_id_and_by_index() -> None:
    cfg = preset_config("paper")
    cells = grid_cells(cfg)
    assert len(cells) == 21 and cells[0].id == "llama-3.1-8b-instruct/base"
    assert find_cell(cfg, "qwen3-14b/npo").index == 9
    assert find_cell(cfg, "9").id == "qwen3-14b/npo"
    with pytest.raises(LeakresError, match="the grid has 21 cells"):
        find_cell(cfg, "21")
    with pytest.raises(LeakresError, match=r"not a cell of this grid; cells: llama-3\.1-8b"):
        find_cell(cfg, "qwen3-14b/npoo")
    smoke = preset_config("smoke")
    assert [c.id for c in grid_cells(smoke)] == ["base", "ga"]
    assert find_cell(smoke, "smollm2-135m-instruct/ga").id == "ga"


def test_paper_run_without_a_judge_fails_before_any_work(tmp_path, monkeypatch) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    out = tmp_path / "o"
    _one_line_error(_run(["--preset", "paper", "--out", str(out)]), "--judge-model")
    _one_line_error(
        _run(["--preset", "paper", "--out", str(out), "--judge-model", "j"]),
        "requires the LLM judge",
        "no endpoint",
    )
    assert not out.exists()  # nothing was started


def test_paper_preset_with_only_leakres_api_key_is_not_refused(monkeypatch) -> None:
    """Regression (issue 23): the CLI's endpoint check read LEAK_METRICS_API_KEY and OPENAI_API_KEY
    only, while leak-metrics' judge reads LEAKRES_API_KEY first, so `--preset paper` with only that
    key was refused. The check now asks the judge class where its key comes from."""
    from leak_metrics import LLMJudge

    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    cfg = preset_config("paper", judge_model="j")
    refused = judge_endpoint_problem(cfg)
    assert refused is not None and "no endpoint" in refused
    assert " / ".join(LLMJudge.api_key_env_vars) in refused  # every variable the judge reads
    assert LLMJudge.api_key_env_vars[0] == "LEAKRES_API_KEY"
    monkeypatch.setenv("LEAKRES_API_KEY", "sk-test-only-leakres-key")
    assert judge_endpoint_problem(cfg) is None
    result = CliRunner().invoke(
        cli,
        ["plan", "--preset", "paper", "--judge-model", "j", "--offline"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "no endpoint" not in result.output
    assert "llm judge j at the OpenAI endpoint" in result.output
    assert "sk-test-only-leakres-key" not in result.output


def test_engine_option_errors(tmp_path) -> None:
    out = str(tmp_path / "o")
    _one_line_error(
        _run(["--engine", "openai", "--out", out]), "--engine openai needs --engine-cmd"
    )
    _one_line_error(
        _run(["--engine", "openai", "--engine-cmd", "vllm serve {model}", "--out", out]),
        "has no {port}",
    )
    _one_line_error(
        _run(["--engine-cmd", "vllm serve {model} --port {port}", "--out", out]),
        "only used with --engine openai",
    )
    _one_line_error(_run(["--cell", "npo", "--out", out]), "--cell 'npo'", "cells: base, ga")


def test_models_a_plain_server_cannot_run_are_kept_in_process() -> None:
    model = _tiny_llama()
    assert unservable_reason(model) is None
    handle = model.model.layers[1].self_attn.register_forward_hook(lambda m, i, o: o)
    assert "forward hooks on model.layers.1.self_attn" in unservable_reason(model)
    handle.remove()
    assert unservable_reason(model) is None


def _tiny_llama():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2)  # fmt: skip
    return LlamaForCausalLM(config)


def test_a_hooked_model_is_decoded_in_process_and_recorded(tmp_path) -> None:
    import sys

    from leakres_cli.models.engines import GenerationRouter

    router = GenerationRouter(
        "openai", f"{sys.executable} -m recover_attacks.serve --model {{model}} --port {{port}}",
        out_dir=tmp_path,
    )  # fmt: skip
    model = _tiny_llama()
    model.model.layers[0].self_attn.register_forward_hook(lambda m, i, o: o)
    router.register(model, "as")
    assert router.engine_for(model, tokenizer=None) is None  # no server was started
    record = router.describe()
    assert record["models"]["as"]["served"] is False
    assert "forward hooks" in record["models"]["as"]["reason"]
    assert not (tmp_path / "engine" / "models").exists()  # nothing saved for a server


def test_a_server_that_exits_is_a_one_line_error_naming_its_log(tmp_path) -> None:
    import sys

    from leakres_cli.models.engines import GenerationRouter

    command = f"{sys.executable} -c 'import sys; print(\"no such model\"); sys.exit(3)' {{model}} {{port}}"
    router = GenerationRouter("openai", command, out_dir=tmp_path, startup_timeout=60)
    model = _tiny_llama()
    router.register(model, "base", path=str(tmp_path / "weights"))
    with pytest.raises(LeakresError) as info:
        router.engine_for(model, tokenizer=None)
    message = str(info.value)
    assert "\n" not in message and "base model server failed" in message
    assert "exited with status 3" in message
    assert str(tmp_path / "engine" / "server-base.log") in message
    assert "no such model" in (tmp_path / "engine" / "server-base.log").read_text()

"""The run options of `leakres run`, `plan` and `tune` come from RunConfig (leakres_cli.config.options).

The expected option names and environment variables below are those of the hand-written options
before the options were generated: a renamed field or a lost option shows up here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from leakres_cli.config.options import DOCS, attribute_docs
from leakres_cli.config.run_config import RunConfig
from leakres_cli.main import cli


def _flags(text: str) -> set[str]:
    return set(text.split())


RUN_OPTIONS = _flags(
    """
    --preset --out --model --source --input --types --methods --attacks --n-forget --n-retain
    --per-type --sh-pool --judge --judge-model --judge-base-url --seed --seeds --batch-size
    --max-new-tokens --bootstrap --bbh-tasks --bbh-limit --bbh-cot --data-dir --allow-fewer
    --set --method-config --fresh --quiet --engine --engine-cmd --engine-prompts
    --engine-startup-timeout --engine-concurrency --dtype --cell --executor --ray-address
    --ray-cpus --save-models --report-to --push-to-hub --judge-timeout --judge-retries
    --prompt-form --attack-budgets
    --base --teach-source --teach-examples --teach-statements --teach-epochs --teach-lr --teach-batch
    --eval-every --controls
    """
)
PLAN_OPTIONS = _flags(
    """
    --preset --model --methods --attacks --source --input --per-type --judge --judge-model
    --judge-base-url --engine --engine-cmd --gpus --format --out --script --gpu-tflops
    --gpu-memory-gb --train-mfu --inference-mfu --offline --judge-timeout
    --attack-budgets --seeds --eval-every --controls
    """
)
TUNE_OPTIONS = _flags(
    """
    --method --model --preset --out --lr --epochs --tv-alpha --val-forget --val-retain --source
    --input --types --per-type --sh-pool --n-forget --n-retain --seed --judge --judge-model
    --judge-base-url --batch-size --max-new-tokens --bootstrap --bbh-tasks --bbh-limit
    --data-dir --dtype --allow-fewer --settings-out --quiet --judge-timeout --judge-retries
    --prompt-form
    --base --teach-source --teach-examples --teach-statements --teach-epochs --teach-lr --teach-batch
    """
)


def _options(name: str) -> dict[str, click.Option]:
    return {p.opts[0]: p for p in cli.commands[name].params if isinstance(p, click.Option)}


@pytest.mark.parametrize(
    ("command", "expected"), [("run", RUN_OPTIONS), ("plan", PLAN_OPTIONS), ("tune", TUNE_OPTIONS)]
)
def test_every_option_of_before_is_still_there(command: str, expected: set[str]) -> None:
    assert set(_options(command)) == expected


def test_environment_variables_keep_their_names() -> None:
    # run and tune: click's automatic LEAKRES_<COMMAND>_<OPTION>; plan: its judge/engine options
    # also read `leakres run`'s variables.
    assert _options("run")["--n-forget"].envvar is None
    plan = _options("plan")
    for flag in ("--judge", "--judge-model", "--judge-base-url", "--engine", "--engine-cmd"):
        stem = flag[2:].replace("-", "_").upper()
        assert plan[flag].envvar == [f"LEAKRES_PLAN_{stem}", f"LEAKRES_RUN_{stem}"]
    assert plan["--model"].envvar is None


def test_help_text_is_the_runconfig_docstring() -> None:
    for command in ("run", "tune"):
        sh_pool_help = _options(command)["--sh-pool"].help
        assert sh_pool_help.startswith("Single-hop questions asked to the base model")
        assert f"[preset default: {RunConfig().sh_pool}]" in sh_pool_help
    assert _options("plan")["--per-type"].help == _options("run")["--per-type"].help
    assert _options("run")["--methods"].help.startswith("Comma-separated unlearning methods")
    assert _options("tune")["--n-forget"].help.startswith("The run's forget facts (excluded).")
    assert "``" not in _options("run")["--engine"].help  # reST markup reduced to plain text
    # Every RunConfig field has its docstring entry (the module refuses to import otherwise).
    assert {f.name for f in dataclasses.fields(RunConfig)} <= set(DOCS)


def test_attribute_docs_reads_continuation_lines_and_stops_at_the_section_end() -> None:
    class Documented:
        """A class.

        Attributes:
            alpha: first line
                continued here (``literal``, :mod:`leakres_cli.config.options`).
            beta: one line.

        Notes: not an attribute.
        """

    assert attribute_docs(Documented) == {
        "alpha": "first line continued here (literal, leakres_cli.config.options).",
        "beta": "one line.",
    }


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("plan", ["--per-type", "0"]),
        ("plan", ["--engine", "vllm"]),
        ("tune", ["--method", "ga", "--seed", "-1"]),
        ("tune", ["--method", "ga", "--batch-size", "0"]),
        ("tune", ["--method", "ga", "--n-retain", "-1"]),
    ],
)
def test_plan_and_tune_range_check_at_parse_time_like_run(
    tmp_path: Path, command: str, args: list[str]
) -> None:
    out = tmp_path / "o"
    result = CliRunner().invoke(cli, [command, *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and args[-2] in result.stderr
    assert not out.exists()


def test_comma_lists_and_flags_reach_the_config() -> None:
    from leakres_cli.commands import run as run_module

    ctx = run_module.run_command.make_context(
        "run", ["--types", "SH, HS ,MP", "--methods", "ga,npo", "--bbh-cot", "--input", "x.json"]
    )
    cfg = run_module.config_from_params(ctx.params)
    assert cfg.types == ("SH", "HS", "MP") and cfg.methods == ("ga", "npo")
    assert cfg.bbh_cot is True and cfg.source_path == "x.json"
    assert cfg.n_forget == RunConfig().n_forget  # not given: the preset's value

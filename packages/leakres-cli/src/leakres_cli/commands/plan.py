"""`leakres plan`: the grid's cells with GPU-hour / memory estimates, and a check that it all resolves.

Nothing is loaded or downloaded: model sizes come from the shipped table or a local config.json
(:mod:`leakres_cli.scale.costs`), names from the libraries' registries, files from the disk.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from leakres_cli.commands.slurm import slurm_script
from leakres_cli.config.options import config_options, config_values
from leakres_cli.config.run_config import PRESETS, RunConfig, preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.redact import URL_FIELDS, redact_config, redact_text, redact_url
from leakres_cli.scale.costs import Assumptions, count_parameters, estimate, model_architecture
from leakres_cli.scale.grid import (
    Cell,
    grid_cells,
    grid_models,
    judge_endpoint_problem,
    model_config,
)

#: RunConfig fields that are options of `leakres plan` (those that choose the grid and its checks)
PLAN_FIELDS = (
    "model",
    "methods",
    "attacks",
    "source",
    "source_path",
    "per_type",
    "judge",
    "judge_model",
    "judge_base_url",
    "judge_timeout",
    "engine",
    "engine_cmd",
    "attack_budgets",
    "seeds",
    "eval_every",
    "controls",
)
# Read from `leakres plan`'s and `leakres run`'s variables alike (one setup for both).
SHARED_ENV = ("judge", "judge_model", "judge_base_url", "judge_timeout", "engine", "engine_cmd",
              "attack_budgets", "seeds", "eval_every", "controls")  # fmt: skip


def _env(option: str) -> list[str]:
    name = option.upper()
    return [f"LEAKRES_PLAN_{name}", f"LEAKRES_RUN_{name}"]


@click.command("plan")
@click.option("--preset", default="smoke", show_default=True, help=f"One of {', '.join(PRESETS)}.")
@config_options(PLAN_FIELDS, envvars={f: _env(f) for f in SHARED_ENV})
@click.option(
    "--gpus",
    type=click.IntRange(1, 100_000),
    default=None,
    help="GPUs available: wall-clock estimate, per-cell fit.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "slurm"]),
    default="table",
    show_default=True,
    help="table (text), json, or slurm (write a job-array script running `leakres run --cell`).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("leakres-out"),
    show_default=True,
    help="The run directory the SLURM jobs write into.",
)
@click.option(
    "--script",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where --format slurm writes the script [default: leakres-PRESET.sbatch].",
)
@click.option(
    "--gpu-tflops",
    type=click.FloatRange(0, 1e6, min_open=True),
    default=None,
    help="GPU peak bf16 TFLOP/s [312].",
)
@click.option(
    "--gpu-memory-gb",
    type=click.FloatRange(0, 1e6, min_open=True),
    default=None,
    help="GPU memory in GB [80].",
)
@click.option(
    "--train-mfu",
    type=click.FloatRange(0, 1, min_open=True),
    default=None,
    help="MFU of training [0.35].",
)
@click.option(
    "--inference-mfu",
    type=click.FloatRange(0, 1, min_open=True),
    default=None,
    help="MFU of generation [0.10].",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Skip the one request to the llm judge's endpoint (every other check still runs).",
)
def plan_command(
    preset: str,
    gpus: int | None,
    fmt: str,
    out_dir: Path,
    script: Path | None,
    gpu_tflops: float | None,
    gpu_memory_gb: float | None,
    train_mfu: float | None,
    inference_mfu: float | None,
    offline: bool,
    **options: Any,
) -> None:
    """List the grid's cells (model x method x stage) with estimated GPU-hours and memory, and check
    that every name, file, model size and the judge endpoint resolve, without loading a model: the
    same checks `leakres run` makes before it starts (the judge endpoint gets one 1-token request
    unless --offline). A judge URL with credentials is never printed or written (shown as ***); a
    query-string key (?api_key=) is refused: give the key in LEAKRES_API_KEY.

    `--format slurm` writes a SLURM job-array script: one array task per `leakres run --cell ID`.
    """
    # The `leakres run` flags that select the same grid (so the cells' fingerprints match).
    flags = {"input" if name == "source_path" else name: options[name] for name in PLAN_FIELDS}
    run_args = _run_args(preset=preset, **flags)
    cfg = preset_config(preset, **config_values(options, PLAN_FIELDS))
    if options["model"] is not None:
        cfg.models = ()
    assumptions = Assumptions(
        **{k: v for k, v in {"gpu_peak_tflops": gpu_tflops, "gpu_memory_gb": gpu_memory_gb,
                             "train_mfu": train_mfu, "inference_mfu": inference_mfu}.items()
           if v is not None}
    )  # fmt: skip
    notes = _checked(cfg, preset, offline, options)
    cells = grid_cells(cfg)
    job_ids = {(c.model, c.stage): c.id for c in cells}
    costs: list[Any] = []
    for name in grid_models(cfg):
        costs += estimate(model_config(cfg, name), (name,), job_ids, assumptions)
    plan = _plan_record(cfg, preset, cells, costs, assumptions, notes, gpus)
    if fmt == "json":
        click.echo(redact_text(json.dumps(plan, indent=2)))
    elif fmt == "table":
        click.echo(redact_text(_table(plan)))
    else:
        path = script or Path(f"leakres-{preset}.sbatch")
        try:
            path.write_text(
                redact_text(slurm_script(plan, cells, run_args, out_dir, gpus)), encoding="utf-8"
            )
        except OSError as exc:
            raise LeakresError(f"--script {path}: cannot write it ({exc.strerror or exc})") from exc
        click.echo(f"Wrote {path}: {len(cells)} array tasks (`leakres run --cell ID` each)")


def _checked(cfg: RunConfig, preset: str, offline: bool, options: dict[str, Any]) -> list[str]:
    """The plan's notes, after :func:`validate` and the run's preflight found no problem (one error
    naming them all otherwise)."""
    notes, problems = validate(cfg)
    from leakres_cli.config.preflight import preflight

    given = {name: options.get(name) for name in ("judge_model", "judge_base_url")}
    problems += [
        p for p in preflight(cfg, given, probe=not offline, download=False) if p not in problems
    ]
    if problems:
        raise LeakresError(
            f"plan --preset {preset}: {len(problems)} problem(s): " + "; ".join(problems)
        )
    return notes


def _run_args(**options: Any) -> list[str]:
    """The `leakres run` options that select the same grid (so the cells' fingerprints match).

    A URL that carries credentials is left out: the jobs read it from LEAKRES_RUN_JUDGE_BASE_URL
    in their environment (the script checks it is set), so it is never written into the script.
    """
    args: list[str] = []
    for name, value in options.items():
        if value is None:
            continue
        if name in URL_FIELDS and redact_url(str(value)) != str(value):
            continue
        flag = f"--{name.replace('_', '-')}"
        if isinstance(value, bool):  # a --x/--no-x switch (--no-controls)
            args.append(flag if value else f"--no-{flag[2:]}")
            continue
        args += [flag, str(value)]
    return args


def validate(cfg: RunConfig) -> tuple[list[str], list[str]]:
    """(notes, problems): every name, file and size of the grid, checked without loading models."""
    notes: list[str] = []
    problems: list[str] = []
    from leak_metrics import get_judge
    from recover_attacks import get_attack
    from unlearn_zoo import get_unlearner

    for kind, factory, names in (("method", get_unlearner, cfg.methods),
                                 ("attack", get_attack, cfg.attacks)):  # fmt: skip
        over = cfg.method_overrides if kind == "method" else cfg.attack_overrides
        for name in names:
            try:
                factory(name, **over.get(name, {}))
            except (KeyError, ValueError, TypeError) as exc:
                problems.append(f"{kind} {str(exc).strip(chr(39) + chr(34))}")
    from leakres_cli.stages.judging import endpoint_judges, needs_endpoint

    for name in (n.strip() for n in cfg.judge.split(",")):
        if needs_endpoint(name):  # built with its endpoint, checked just below
            continue
        try:
            get_judge(name)
        except (KeyError, ValueError, TypeError) as exc:
            problems.append(f"judge {str(exc).strip(chr(39) + chr(34))}")
    endpoint = judge_endpoint_problem(cfg)
    if endpoint:
        problems.append(endpoint)
    elif endpoint_judges(cfg):
        where = cfg.judge_base_url or os.environ.get("OPENAI_BASE_URL") or "the OpenAI endpoint"
        where = redact_url(where) if "://" in where else where
        notes.append(f"{endpoint_judges(cfg)[0]} judge {cfg.judge_model} at {where}")
    problems += _check_source(cfg, notes)
    from leakres_cli.models.engines import validate_engine

    try:
        validate_engine(cfg.engine, cfg.engine_cmd, cfg.engine_prompts)
    except LeakresError as exc:
        problems.append(str(exc))
    for name in grid_models(cfg):
        try:
            arch, origin = model_architecture(name)
            notes.append(f"{name}: {count_parameters(arch) / 1e9:.2f}B parameters ({origin})")
        except LeakresError as exc:
            problems.append(str(exc))
    if cfg.method_settings:
        from leakres_cli.scale.grid import check_method_settings

        problems += check_method_settings(cfg)
    if cfg.bbh_tasks:
        problems += _check_bbh(cfg, notes)
    return notes, problems


def _check_source(cfg: RunConfig, notes: list[str]) -> list[str]:
    from kg_qgen.sources import available_sources

    known = available_sources()
    if cfg.source not in known:
        return [f"unknown source '{cfg.source}'; known: {', '.join(known)}"]
    if cfg.source == "builtin":
        notes.append("source builtin: the knowledge base shipped in kg-qgen")
        return []
    if cfg.source == "fictional":  # preflight.SPEC_SOURCES: --input is a spec, not a file
        notes.append(f"source fictional: a seeded fictitious KB ({cfg.source_path or 'default'})")
        return []
    if not cfg.source_path:
        return [f"source {cfg.source} needs --input (a file, or a canonical MQuAKE name)"]
    path = Path(cfg.source_path).expanduser()
    if path.exists():
        notes.append(f"source {cfg.source}: {path}")
        return []
    if cfg.source == "mquake":
        from kg_qgen.sources.mquake import CANONICAL, cache_path_for, resolve_url

        url = resolve_url(cfg.source_path)
        if url is not None:
            cached = cache_path_for(url)
            state = "cached at " + str(cached) if cached.exists() else f"downloaded once from {url}"
            notes.append(f"source mquake: {cfg.source_path} ({state})")
            return []
        return [
            f"--input {cfg.source_path}: no such file, and not a canonical MQuAKE name "
            f"({', '.join(CANONICAL)}) or URL"
        ]
    return [f"--input {cfg.source_path}: no such file"]


def _check_bbh(cfg: RunConfig, notes: list[str]) -> list[str]:
    from leak_metrics.bbh.data import BBH_TASKS, default_data_dir

    tasks = BBH_TASKS if cfg.bbh_tasks == ("all",) else cfg.bbh_tasks
    unknown = [t for t in tasks if t not in BBH_TASKS]
    if unknown:
        return [f"unknown BBH task(s) {', '.join(unknown)}"]
    data = default_data_dir()
    if data is not None and all((data / "bbh" / f"{t}.json").is_file() for t in tasks):
        notes.append(f"BBH: {len(tasks)} tasks from {data}")
    else:
        notes.append(
            f"BBH: {len(tasks)} tasks, downloaded once (LEAKRES_DATA_DIR/bbh not complete)"
        )
    return []


def _plan_record(cfg: RunConfig, preset: str, cells: Sequence[Cell], costs: list[Any],
                 a: Assumptions, notes: list[str], gpus: int | None) -> dict[str, Any]:  # fmt: skip
    jobs = []
    for cell in cells:
        mine = [c for c in costs if c.job == cell.id]
        peak = max(mine, key=lambda c: c.memory_gb, default=None)
        infer = [c for c in mine if c.stage != "unlearn"]
        jobs.append({
            "index": cell.index, "id": cell.id, "model": cell.model, "stage": cell.stage,
            "gpu_hours": round(sum(c.gpu_hours for c in mine), 3),
            "memory_gb": max((c.memory_gb for c in mine), default=0.0),
            "gpus": max((c.gpus for c in mine), default=1),
            "peak_stage": peak.stage if peak else None,
            "train_gpus": max((c.gpus for c in mine if c.stage == "unlearn"), default=1),
            "inference_gpus": max((c.gpus for c in infer), default=1),
            "inference_memory_gb": max((c.memory_gb for c in infer), default=0.0),
            "inference_peak": max(infer, key=lambda c: c.memory_gb).stage if infer else None,
        })  # fmt: skip
    total = round(sum(c.gpu_hours for c in costs), 2)
    from leakres_cli.scale.run_extras import breakdown

    warnings = []
    if gpus is not None:
        warnings = [f"cell {j['id']} needs {j['gpus']} GPUs, more than --gpus {gpus}"
                    for j in jobs if j["gpus"] > gpus]  # fmt: skip
    return {
        "preset": preset,
        "config": {
            k: v for k, v in redact_config(cfg.to_dict()).items() if k != "method_overrides"
        },
        "assumptions": {
            **a.describe(),
            "flops": "2 N per token forward (generation, reference model), 6 N per token training",
            "gpu_hours": "FLOPs / (peak x MFU) / 3600; token counts are upper bounds",
            "memory": "inference: weights x bytes/dtype + KV cache of kv_batch_rows sequences; "
            "unlearning (leakres_cli.scale.memory, per cell's memory_terms): on one device as unlearn-zoo "
            "trains (bf16=False, AdamW in the weights' dtype: weights, grads, m, v = 8 B/param in "
            "bf16, 16 in float32) + frozen reference copies + activations at the method's batch "
            "size and max_length + logits; a cell that does not fit one GPU is sharded with the "
            "shipped accelerate FSDP config: bf16 mixed precision, 18 B/param (fp32 master, fp32 + "
            "bf16 grads, fp32 Adam, as accelerate's estimate-memory and DeepSpeed ZeRO-3 count) / "
            "GPUs + the largest layer gathered",
            "not counted": "model loading, server start-up, saving checkpoints, judge API time",
        },
        "checks": notes,
        "cells": [c.to_dict() for c in costs],
        "jobs": jobs,
        "totals": {
            "gpu_hours": total,
            "gpus": gpus,
            "wall_hours_at_gpus": round(total / gpus, 2) if gpus else None,
            "wall_note": "perfect packing of the cells on --gpus GPUs (an optimistic bound)",
            # where the time goes: unlearning, evaluation, attacks, controls, ladders, ...
            "by_kind": breakdown([c.to_dict() for c in costs]),
        },
        "warnings": warnings,
    }


def _table(plan: dict[str, Any]) -> str:
    lines = [f"leakres plan --preset {plan['preset']}", "", "Checks (all resolved):"]
    lines += [f"  - {n}" for n in plan["checks"]]
    lines += ["", f"{'job (--cell)':<34} {'stage':<22} {'TFLOP':>12} {'GPU-h':>9} {'mem GB':>8} {'GPUs':>4}"]  # fmt: skip
    for c in plan["cells"]:
        lines.append(f"{c['job']:<34} {c['stage']:<22} {c['tflop']:>12.1f} {c['gpu_hours']:>9.3f} "
                     f"{c['memory_gb']:>8.1f} {c['gpus']:>4}")  # fmt: skip
    t = plan["totals"]
    lines += ["", f"Total: {t['gpu_hours']:.2f} GPU-hours over {len(plan['jobs'])} jobs, of which:"]
    lines += [f"  {kind:<16} {k['tflop']:>12.1f} TFLOP {k['gpu_hours']:>9.3f} GPU-h {k['share_pct']:>5.1f}%"
              for kind, k in t["by_kind"].items()]  # fmt: skip
    if t["gpus"]:
        lines.append(f"Wall clock on {t['gpus']} GPUs: {t['wall_hours_at_gpus']:.2f} h ({t['wall_note']})")  # fmt: skip
    lines += [f"warning: {w}" for w in plan["warnings"]]
    lines += ["", "Assumptions:"]
    lines += [f"  {k}: {v}" for k, v in plan["assumptions"].items()]
    return "\n".join(lines)

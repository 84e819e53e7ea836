"""`leakres plan`: the grid's cells with GPU-hour / memory estimates, and a check that it all resolves.

Nothing is loaded or downloaded: model sizes come from the shipped table or a local config.json
(:mod:`leakres_cli.costs`), names from the libraries' registries, files from the disk.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ..config import PRESETS, RunConfig, preset_config
from ..costs import Assumptions, count_parameters, estimate, model_architecture
from ..errors import LeakresError
from ..grid import Cell, grid_cells, grid_models, judge_endpoint_problem, model_config
from ..options import config_options, config_values
from ..redact import REDACTED, URL_FIELDS, redact_config, redact_text, redact_url

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
    "engine",
    "engine_cmd",
)
# Read from `leakres plan`'s and `leakres run`'s variables alike (one setup for both).
SHARED_ENV = ("judge", "judge_model", "judge_base_url", "engine", "engine_cmd")


def _env(option: str) -> list[str]:
    name = option.upper()
    return [f"LEAKRES_PLAN_{name}", f"LEAKRES_RUN_{name}"]


@click.command("plan")
@click.option("--preset", default="smoke", show_default=True, help=f"One of {', '.join(PRESETS)}.")
@config_options(PLAN_FIELDS, envvars={f: _env(f) for f in SHARED_ENV})
@click.option(
    "--gpus", type=int, default=None, help="GPUs available: wall-clock estimate, per-cell fit."
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
@click.option("--gpu-tflops", type=float, default=None, help="GPU peak bf16 TFLOP/s [312].")
@click.option("--gpu-memory-gb", type=float, default=None, help="GPU memory in GB [80].")
@click.option("--train-mfu", type=float, default=None, help="MFU of training [0.35].")
@click.option("--inference-mfu", type=float, default=None, help="MFU of generation [0.10].")
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
    notes, problems = validate(cfg)
    from ..preflight import preflight

    given = {name: options.get(name) for name in ("judge_model", "judge_base_url")}
    problems += [
        p for p in preflight(cfg, given, probe=not offline, download=False) if p not in problems
    ]
    if problems:
        raise LeakresError(
            f"plan --preset {preset}: {len(problems)} problem(s): " + "; ".join(problems)
        )
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
                redact_text(_slurm(plan, cells, run_args, out_dir, gpus)), encoding="utf-8"
            )
        except OSError as exc:
            raise LeakresError(f"--script {path}: cannot write it ({exc.strerror or exc})") from exc
        click.echo(f"Wrote {path}: {len(cells)} array tasks (`leakres run --cell ID` each)")


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
        args += [f"--{name.replace('_', '-')}", str(value)]
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
    from ..judging import endpoint_judges, needs_endpoint

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
    from ..engines import validate_engine

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
        from ..grid import check_method_settings

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
            "unlearning (leakres_cli.memory, per cell's memory_terms): on one device as unlearn-zoo "
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
    lines += ["", f"Total: {t['gpu_hours']:.2f} GPU-hours over {len(plan['jobs'])} jobs"]
    if t["gpus"]:
        lines.append(f"Wall clock on {t['gpus']} GPUs: {t['wall_hours_at_gpus']:.2f} h ({t['wall_note']})")  # fmt: skip
    lines += [f"warning: {w}" for w in plan["warnings"]]
    lines += ["", "Assumptions:"]
    lines += [f"  {k}: {v}" for k, v in plan["assumptions"].items()]
    return "\n".join(lines)


def _slurm(plan: dict[str, Any], cells: Sequence[Cell], run_args: list[str], out_dir: Path,
           gpus: int | None) -> str:  # fmt: skip
    """One array script; each task gets the GPUs its cell needs (one sbatch per GPU count) and a
    cell that needs more than one is launched with the shipped accelerate FSDP config."""
    jobs = {j["id"]: j for j in plan["jobs"]}
    # The GPUs a task gets: what its unlearning needs (sharded with accelerate when > 1); generation
    # runs on one device whatever it needs (the warning below names the cells it does not fit).
    need = {c.index: jobs[c.id]["train_gpus"] for c in cells}
    hours = max(1.0, math.ceil(max(j["gpu_hours"] for j in jobs.values()) * 1.5 + 0.5))
    command = shlex.join(["leakres", "run", *run_args, "--out", str(out_dir), "--quiet"])
    launch = shlex.join(
        ["-m", "leakres_cli.main", "run", *run_args, "--out", str(out_dir), "--quiet"]
    )
    ids = "\n".join(f"  {shlex.quote(c.id)}  # {c.index}: {c.model} {c.stage}" for c in cells)
    counts = " ".join(str(need[c.index]) for c in cells)
    name = f"leakres-{plan['preset']}"
    too_many = [f"#   {c.id}: {need[c.index]} GPUs" for c in cells
                if gpus is not None and need[c.index] > gpus]  # fmt: skip
    too_many_note = (
        f"# WARNING: these cells need more GPUs than --gpus {gpus}:\n" + "\n".join(too_many) + "\n"
        if too_many
        else ""
    )
    one_device = [f"#   {j['id']}: {j['inference_memory_gb']} GB ({j['inference_peak']})"
                  for j in jobs.values() if j["inference_gpus"] > 1]  # fmt: skip
    if one_device:
        too_many_note += (
            "# WARNING: generation runs on one device, and these cells' generation needs more than\n"
            "# one GPU's memory (--gpu-memory-gb): they need larger GPUs as written:\n"
            + "\n".join(one_device)
            + "\n"
        )

    def submit(stage_base: bool, dependency: str) -> list[str]:
        lines = []
        for count in sorted({need[c.index] for c in cells}):
            chosen = [str(c.index) for c in cells
                      if need[c.index] == count and (c.stage == "base") == stage_base]  # fmt: skip
            if chosen:
                var = f"{'BASE' if stage_base else 'GRID'}{count}"
                lines.append(f"#   {var}=$(sbatch --parsable {dependency}--array={','.join(chosen)} "
                             f"--gres=gpu:{count} {name}.sbatch)")  # fmt: skip
        return lines

    base_lines = submit(True, "")
    base_vars = ":".join(f"${ln.split('=', 1)[0].split()[-1]}" for ln in base_lines)
    grid_lines = submit(False, f"--dependency=afterok:{base_vars} " if base_vars else "")
    grid_vars = ":".join(f"${ln.split('=', 1)[0].split()[-1]}" for ln in grid_lines)
    url = plan["config"].get("judge_base_url") or ""
    url_check = (
        "# The judge URL carries credentials, so it is not written here: export it before sbatch.\n"
        ': "${LEAKRES_RUN_JUDGE_BASE_URL:?export the judge URL with its credentials}"\n'
        if REDACTED in url
        else ""
    )
    submit_lines = "\n".join(["#   mkdir -p " + f"{out_dir}/slurm   # SLURM opens the --output log before the script runs",
                              *base_lines, *grid_lines])  # fmt: skip
    return f"""#!/bin/bash
# {name}: {len(cells)} cells of `leakres run` (written by `leakres plan --format slurm`).
# Estimated {plan["totals"]["gpu_hours"]} GPU-hours in all ({plan["assumptions"]["gpu_name"]};
# assumptions: `leakres plan --format json`). Each array task runs ONE cell into {out_dir}:
# the cells of a model share its run directory and cell store, so they are independent jobs.
#
# Each task asks for the GPUs its cell needs (GPUS below, from the plan's memory estimate): submit
# one array per GPU count, the base cells first, the method cells after them, then one run
# without --cell that finds every cell finished and writes results.json and the report:
{submit_lines}
#   sbatch --dependency=afterok:{grid_vars or "$BASE1"} --gres=gpu:0 --wrap {shlex.quote(command)}
# (A method cell whose base cell is missing computes it itself, so the order only saves work.)
# A cell that needs more than one GPU is sharded with accelerate and the shipped FSDP config
# (leakres_cli/accelerate/fsdp_14b_plus.yaml, bf16 mixed precision; not run on this project's
# machines); a one-GPU cell is a plain `leakres run --cell`.
#
# The llm judge's API key is read from LEAKRES_API_KEY / LEAK_METRICS_API_KEY / OPENAI_API_KEY in
# the job's environment (sbatch exports the submitting shell's); it is never written here.
{too_many_note}#SBATCH --job-name={name}
#SBATCH --array=0-{len(cells) - 1}
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --time={int(hours)}:00:00
#SBATCH --output={out_dir}/slurm/%A_%a.log
set -euo pipefail
{url_check}export HF_HUB_OFFLINE="${{HF_HUB_OFFLINE:-0}}" TOKENIZERS_PARALLELISM=false
CELLS=(
{ids}
)
GPUS=({counts})
CELL="${{CELLS[$SLURM_ARRAY_TASK_ID]}}"
NEED="${{GPUS[$SLURM_ARRAY_TASK_ID]}}"
HAVE="${{SLURM_GPUS_ON_NODE:-$NEED}}"
if [ "$HAVE" -lt "$NEED" ]; then
  echo "cell $CELL needs $NEED GPUs, this task has $HAVE: submit it with --gres=gpu:$NEED" >&2
  exit 2
fi
echo "leakres cell $SLURM_ARRAY_TASK_ID: $CELL on $NEED GPU(s)"
if [ "$NEED" -gt 1 ]; then
  CFG=$(python -c 'import leakres_cli, pathlib; print(pathlib.Path(leakres_cli.__file__).parent / "accelerate" / "fsdp_14b_plus.yaml")')
  exec accelerate launch --config_file "$CFG" --num_processes "$NEED" {launch} --cell "$CELL"
fi
exec {command} --cell "$CELL"
"""

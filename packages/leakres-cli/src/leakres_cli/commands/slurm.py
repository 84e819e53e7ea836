"""`leakres plan --format slurm`: the SLURM job-array script, one array task per `leakres run --cell`."""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from leakres_cli.redact import REDACTED
from leakres_cli.scale.grid import Cell


def slurm_script(plan: dict[str, Any], cells: Sequence[Cell], run_args: list[str], out_dir: Path,
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
    too_many_note = _warnings(jobs, cells, need, gpus)
    base_lines = _submit(cells, need, name, True, "")
    base_vars = ":".join(f"${ln.split('=', 1)[0].split()[-1]}" for ln in base_lines)
    after_base = f"--dependency=afterok:{base_vars} " if base_vars else ""
    grid_lines = _submit(cells, need, name, False, after_base)
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
{_array_task(ids, counts, launch, command)}"""


def _warnings(jobs: dict[str, dict[str, Any]], cells: Sequence[Cell], need: dict[int, int],
              gpus: int | None) -> str:  # fmt: skip
    """The script's warning comments: cells that need more GPUs than --gpus, and cells whose
    generation does not fit one GPU's memory ("" when there are none)."""
    too_many = [f"#   {c.id}: {need[c.index]} GPUs" for c in cells
                if gpus is not None and need[c.index] > gpus]  # fmt: skip
    note = (
        f"# WARNING: these cells need more GPUs than --gpus {gpus}:\n" + "\n".join(too_many) + "\n"
        if too_many
        else ""
    )
    one_device = [f"#   {j['id']}: {j['inference_memory_gb']} GB ({j['inference_peak']})"
                  for j in jobs.values() if j["inference_gpus"] > 1]  # fmt: skip
    if one_device:
        note += (
            "# WARNING: generation runs on one device, and these cells' generation needs more than\n"
            "# one GPU's memory (--gpu-memory-gb): they need larger GPUs as written:\n"
            + "\n".join(one_device)
            + "\n"
        )
    return note


def _submit(cells: Sequence[Cell], need: dict[int, int], name: str, stage_base: bool,
            dependency: str) -> list[str]:  # fmt: skip
    """The sbatch lines (one per GPU count) of the base cells or of the method cells."""
    lines = []
    for count in sorted({need[c.index] for c in cells}):
        chosen = [str(c.index) for c in cells
                  if need[c.index] == count and (c.stage == "base") == stage_base]  # fmt: skip
        if chosen:
            var = f"{'BASE' if stage_base else 'GRID'}{count}"
            lines.append(f"#   {var}=$(sbatch --parsable {dependency}--array={','.join(chosen)} "
                         f"--gres=gpu:{count} {name}.sbatch)")  # fmt: skip
    return lines


def _array_task(ids: str, counts: str, launch: str, command: str) -> str:
    """The script's body: the task's cell and GPU count, then `leakres run --cell` (through
    accelerate when the cell needs more than one GPU)."""
    return f"""CELLS=(
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

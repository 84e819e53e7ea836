"""The run grid: one run directory per model, and its independent job cells (``leakres run --cell``).

A grid is ``cfg.models`` (or just ``cfg.model``) x (``base`` + each method). The ``base`` cell builds
the questions and asks the base model (and BBH, if on); a method cell unlearns, evaluates and attacks
(it computes the base cell itself when that is missing, so a method cell never fails for want of
it). Every cell of a model writes into the same run directory and cell store, under the fingerprint
of the model's WHOLE configuration (all methods), so cells run as separate jobs, in any order or
at once, and a final ``leakres run`` without ``--cell`` finds them all and only writes results.json.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from leakres_cli.config.judges import judge_endpoint_problem
from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError


def model_slug(model: str) -> str:
    """A directory name for a model: the last path component of a Hub id or path, lowercased."""
    name = model.rstrip("/").split("/")[-1] or model
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower())


def grid_models(cfg: RunConfig) -> tuple[str, ...]:
    return cfg.models or (cfg.model,)


@dataclass(frozen=True)
class Cell:
    """One job of the grid: ``stage`` is ``base`` or a method name."""

    index: int
    model: str
    stage: str
    multi_model: bool

    @property
    def id(self) -> str:
        return f"{model_slug(self.model)}/{self.stage}" if self.multi_model else self.stage


def grid_cells(cfg: RunConfig) -> list[Cell]:
    models = grid_models(cfg)
    multi = len(models) > 1
    stages = ("base", *cfg.methods)
    out: list[Cell] = []
    for model in models:
        for stage in stages:
            out.append(Cell(len(out), model, stage, multi))
    return out


def find_cell(cfg: RunConfig, cell_id: str) -> Cell:
    """A cell by id (``base``, ``ga``, ``qwen3-14b/ga``) or by its index in the grid (SLURM array)."""
    cells = grid_cells(cfg)
    if cell_id.isdigit():
        index = int(cell_id)
        if index < len(cells):
            return cells[index]
        raise LeakresError(
            f"--cell {cell_id}: the grid has {len(cells)} cells (0-{len(cells) - 1})"
        )
    for cell in cells:
        if cell_id in (cell.id, f"{model_slug(cell.model)}/{cell.stage}"):
            return cell
    known = ", ".join(c.id for c in cells)
    raise LeakresError(f"--cell '{cell_id}' is not a cell of this grid; cells: {known}")


def model_config(cfg: RunConfig, model: str) -> RunConfig:
    """The configuration of one model's run: its own method settings from the shipped table."""
    out = dataclasses.replace(cfg, model=model)
    if cfg.method_settings:
        from leakres_cli.config.paper_settings import method_overrides

        out.method_overrides = method_overrides(
            cfg.methods, model, cfg.method_overrides, cfg.method_settings
        )
    return out


def run_dir(cfg: RunConfig, out_dir: Path, model: str) -> Path:
    return out_dir / model_slug(model) if len(grid_models(cfg)) > 1 else out_dir


def check_run_config(cfg: RunConfig) -> None:
    """Fail in a second, before any work, on what a long run would only find out late."""
    from leakres_cli.models.engines import resolve_dtype, validate_engine

    validate_engine(cfg.engine, cfg.engine_cmd, cfg.engine_prompts)
    resolve_dtype(cfg.dtype)
    if cfg.judge_required:
        problem = judge_endpoint_problem(cfg)
        if problem:
            raise LeakresError(f"--preset requires the LLM judge: {problem}")
    problems = check_method_settings(cfg)
    if problems:
        raise LeakresError(problems[0])


def check_method_settings(cfg: RunConfig) -> list[str]:
    """Every (method, model) row of the settings table exists and unlearn-zoo accepts it."""
    from leakres_cli.config.paper_settings import grid_settings

    return grid_settings(cfg)[1]


def seed_everything(seed: int) -> None:
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def run_cell(
    cfg: RunConfig,
    cell: Cell,
    out_dir: Path,
    *,
    fresh: bool = False,
    progress: bool = False,
    engine_options: dict | None = None,
) -> Path:
    """Run one cell into its model's run directory (returned): the model's WHOLE configuration
    fingerprints the store, only ``cell.stage`` (``base`` or one method) is computed."""
    from leakres_cli.scale.store import CellStore, cell_keys
    from leakres_cli.stages.pipeline import Benchmark

    full = model_config(cfg, cell.model)
    target = run_dir(cfg, out_dir, cell.model)
    if fresh:  # only this cell's files: the other cells may be other jobs
        import shutil

        cells = target / "cells"
        if cell.stage == "base":
            for name in ("questions", "base", "bbh-base", "judges"):
                (cells / f"{name}.json").unlink(missing_ok=True)
        else:  # the method's cells at --seed and at every other seed (--seeds)
            for path in (cells / cell.stage, *target.glob(f"seeds/*/cells/{cell.stage}")):
                if path.exists():
                    shutil.rmtree(path)
    only = dataclasses.replace(full, methods=() if cell.stage == "base" else (cell.stage,))
    seed_everything(full.seed)
    bench = Benchmark(only, target, progress=progress, engine_options=engine_options)
    key, earlier = cell_keys(full.fingerprint_dict())  # the whole grid's: one key per cell job
    bench.store = CellStore(target, key, bench.weights_record, accepted=earlier)
    bench.run()
    return target

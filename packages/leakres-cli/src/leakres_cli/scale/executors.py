"""Who runs the grid's cells: this process one after another (``local``), or Ray tasks (``ray``).

With ``--executor ray`` every cell (:func:`leakres_cli.scale.grid.run_cell`) is a Ray task: first the
``base`` cell of every model, then every method cell at once; each task writes its cell files into
the shared run directory exactly as ``leakres run --cell ID`` does, and the driver then collects
results.json from the finished cells in-process (no model is loaded for that). Ray's old
``local_mode`` is gone from Ray 2.x, so without ``--ray-address`` a local Ray instance is started on
this machine (``ray.init(num_cpus=...)``) and stopped afterwards; with an address the tasks go to
that cluster (the run directory must then be on storage every node sees).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.scale.grid import Cell, grid_cells

EXECUTORS = ("local", "ray")
#: non-secret variables the Ray workers need (API keys reach them only by the normal process
#: environment inheritance of a local instance, never through Ray's runtime_env records)
_WORKER_ENV = ("LEAKRES_CACHE_DIR", "LEAKRES_DATA_DIR", "HF_HUB_OFFLINE", "HF_HOME", "KG_QGEN_CACHE",
               "TOKENIZERS_PARALLELISM", "XDG_CACHE_HOME")  # fmt: skip


def _cell_task(
    cfg: RunConfig, cell: Cell, out_dir: str, engine_options: dict[str, Any], fresh: bool
) -> str:
    """Body of one Ray task: one torch thread per CPU Ray gave the task, then the cell."""
    import torch

    from leakres_cli.scale.grid import run_cell

    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    return str(run_cell(cfg, cell, Path(out_dir), fresh=fresh, engine_options=engine_options))


def run_cells_with_ray(
    cfg: RunConfig,
    out_dir: Path,
    *,
    engine_options: dict[str, Any],
    fresh: bool = False,
    num_cpus: int | None = None,
    address: str | None = None,
    cpus_per_cell: float = 1.0,
    gpus_per_cell: float = 0.0,
) -> list[str]:
    """Every cell of the grid as a Ray task (base cells first); returns the cell ids run."""
    try:
        import ray
    except ImportError as exc:
        raise LeakresError(
            "--executor ray needs Ray: pip install -c constraints.txt 'leakres-cli[ray]'"
        ) from exc
    env = {k: os.environ[k] for k in _WORKER_ENV if k in os.environ}
    init: dict[str, Any] = {"include_dashboard": False, "runtime_env": {"env_vars": env}}
    if address:
        init["address"] = address
    else:
        init["num_cpus"] = num_cpus or os.cpu_count() or 1
        # cells pass only configs and paths through Ray (results go to the run directory)
        init["object_store_memory"] = 256 * 1024 * 1024
    ray.init(**init)
    try:
        task = ray.remote(num_cpus=cpus_per_cell, num_gpus=gpus_per_cell, max_retries=0)(_cell_task)
        cells = grid_cells(cfg)
        done: list[str] = []
        for wave in (
            [c for c in cells if c.stage == "base"],
            [c for c in cells if c.stage != "base"],
        ):
            refs = [task.remote(cfg, c, str(out_dir), engine_options, fresh) for c in wave]
            try:
                ray.get(refs)
            except ray.exceptions.RayTaskError as exc:
                first = str(exc.cause if hasattr(exc, "cause") else exc).strip().splitlines()
                raise LeakresError(
                    f"a Ray cell task failed: {first[-1] if first else type(exc).__name__}; finished "
                    "cells are saved, rerun to resume"
                ) from exc
            done += [c.id for c in wave]
        return done
    finally:
        ray.shutdown()

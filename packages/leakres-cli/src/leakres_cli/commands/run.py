"""`leakres run`: the whole benchmark, end to end."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import click

from leakres_cli.config.options import RUN_FIELDS, config_options, config_values
from leakres_cli.config.overrides import parse_overrides
from leakres_cli.config.preflight import validate_names as _validate_names
from leakres_cli.config.run_config import PRESETS, RunConfig, preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.outputs.write import STAGING_PREFIX, remove_partial_writes
from leakres_cli.outputs.write import seed_everything as _seed_everything
from leakres_cli.outputs.write import write_outputs as _write_outputs
from leakres_cli.scale.executors import EXECUTORS
from leakres_cli.scale.lock import RunLock, cell_lock_name, remove_unused
from leakres_cli.scale.store import check_writable_dir

# Moved to leakres_cli.outputs.write (the library entry point writes them too); the old names stay
# importable from here for the tests.
__all__ = [
    "PREFLIGHT_GIVEN",
    "STAGING_PREFIX",
    "_seed_everything",
    "_validate_names",
    "_write_outputs",
    "build_config",
    "config_from_params",
    "remove_partial_writes",
    "run_command",
]

# Raw option values the preflight needs to tell "given" from "the preset's default".
PREFLIGHT_GIVEN = (
    "judge_model",
    "judge_base_url",
    "judge_timeout",
    "judge_retries",
    "bbh_limit",
    "ray_address",
    "ray_cpus",
    "executor",
)
# Outputs are rendered here (inside --out) before they replace the previous ones.


@click.command("run")
@click.option(
    "--preset",
    default="smoke",
    show_default=True,
    help=f"Named configuration: {', '.join(f'{k} ({v[0]})' for k, v in PRESETS.items())}.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("leakres-out"),
    show_default=True,
    help="Output directory (results.json, summary.md, cells/ for resuming).",
)
@config_options(RUN_FIELDS)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="METHOD.FIELD=VALUE",
    help="Override a method or attack hyperparameter, e.g. --set ga.lr=1e-5 --set probab.num_samples=10.",
)
@click.option(
    "--method-config",
    "method_configs",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Method settings file(s) written by `leakres tune` ({method: {field: value}}); --set on top.",
)
@click.option(
    "--fresh", is_flag=True, help="Ignore finished cells in --out and recompute everything."
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option(
    "--engine-startup-timeout",
    type=click.FloatRange(0, 86400, min_open=True),
    default=600.0,
    show_default=True,
    help="Seconds a server may take to answer its health check.",
)
@click.option(
    "--engine-concurrency",
    type=click.IntRange(1, 4096),
    default=16,
    show_default=True,
    help="Requests in flight at once to the server.",
)
@click.option(
    "--cell",
    default=None,
    metavar="ID",
    help="Run one cell of the grid only (`leakres plan` lists them: 'base', a method, or "
    "'MODEL-SLUG/METHOD' for multi-model presets; or the cell's index, e.g. $SLURM_ARRAY_TASK_ID) "
    "into the same run directory and cell store; a run without --cell then collects results.json.",
)
@click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="local",
    show_default=True,
    help="Who runs the grid's cells: this process in turn, or Ray tasks (base cells first, then "
    "every method cell at once; each as `--cell ID` would), then results.json is collected here.",
)
@click.option(
    "--ray-address",
    default=None,
    help="Ray cluster for --executor ray (default: start a local Ray instance on this machine).",
)
@click.option(
    "--ray-cpus",
    type=click.IntRange(1, 65536),
    default=None,
    help="CPUs of the local Ray instance [all cores].",
)
@click.option(
    "--push-to-hub",
    "push_to_hub",
    default=None,
    metavar="REPO",
    help="With --save-models: upload OUT/models (the unlearned models and the facts that "
    "reproduce the run) to the private Hub model repository REPO after the run "
    "(token: $HF_TOKEN or `huggingface-cli login`).",
)
# long: the command's order (checks, lock, grid, push) reads as one sequence; each step is a helper
def run_command(**params: Any) -> None:
    """Build questions, unlearn, evaluate and attack; write results.json and summary.md into --out.

    With no options it runs the `smoke` preset: single-hop and hypothetical-syllogism questions from the
    built-in knowledge base, gradient-ascent unlearning of facts the model knows, and the Probab sampling
    attack, on the embedded SmolLM2-135M-Instruct model (CPU, offline, a few minutes).

    A rerun with the same options and --out reuses finished cells (resume after a crash or Ctrl-C).
    Only one run at a time may use an --out directory (a second one exits with status 2).
    """
    cfg = config_from_params(params, validate=False)  # names: checked once, by resolve_grid
    out_dir: Path = params["out_dir"]
    fresh, quiet = bool(params["fresh"]), bool(params["quiet"])
    from leakres_cli.config.resolve import resolve_grid
    from leakres_cli.scale.grid import find_cell, grid_models, run_dir

    # Every check, once, before --out is created or locked: a refused run leaves nothing behind.
    given = {name: params.get(name) for name in PREFLIGHT_GIVEN}
    runs = resolve_grid(cfg, given=given, check_models=True)
    token = _push_token(params["push_to_hub"], cfg)  # --push-to-hub: refused now, not after
    chosen = find_cell(cfg, params["cell"]) if params["cell"] is not None else None
    if chosen is not None and params["executor"] != "local":
        raise LeakresError("--cell runs one cell in this process; drop --executor ray for it")
    engine_options = {
        "startup_timeout": params["engine_startup_timeout"],
        "concurrency": params["engine_concurrency"],
    }
    created = check_writable_dir(out_dir)
    locks = _run_locks(out_dir, chosen)
    try:
        for lock in locks:
            lock.acquire()
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        if chosen is not None:
            _run_cell(cfg, chosen, out_dir, fresh=fresh, quiet=quiet, engine_options=engine_options)
            return
        _prepare_run_dirs(cfg, out_dir, fresh)
        if params["executor"] == "ray":
            from leakres_cli.scale.executors import run_cells_with_ray

            ran = run_cells_with_ray(
                cfg, out_dir, engine_options=engine_options, fresh=False,
                num_cpus=params["ray_cpus"], address=params["ray_address"],
            )  # fmt: skip
            click.echo(f"Ray ran {len(ran)} cells: {', '.join(ran)}; collecting results")
        for name in grid_models(cfg):
            _execute(runs[name], run_dir(cfg, out_dir, name), quiet, engine_options)
        _push(cfg, out_dir, params["push_to_hub"], token)
    finally:
        for lock in reversed(locks):
            lock.release()
        # An error before any work (unknown model, ...) leaves no empty folder behind.
        remove_unused(out_dir, created, locks[-1].path.name)


def _run_locks(out_dir: Path, chosen: Any) -> list[RunLock]:
    """The locks to take, in order. The cells of a grid may run side by side as separate jobs (a
    SLURM array), each writing only its own cells: a --cell job holds --out's run lock shared
    (never beside a whole run on the same --out) and its cell's lock exclusively; a whole run (or
    the final collection) holds --out's run lock exclusively."""
    if chosen is None:
        return [RunLock(out_dir)]
    return [RunLock(out_dir, shared=True), RunLock(out_dir, name=cell_lock_name(chosen.id))]


def _push_token(repo: str | None, cfg: RunConfig) -> str | None:
    """The Hub token for ``--push-to-hub`` (None without it); no token, offline or no
    --save-models is a one-line error before any work."""
    if repo is None:
        return None
    from leakres_cli.outputs.hub import check_push

    return check_push(repo, cfg.save_models)


def _push(cfg: RunConfig, out_dir: Path, repo: str | None, token: str | None) -> None:
    """The saved models of every grid model to ``repo`` (one model: at its root); nothing
    without ``--push-to-hub``."""
    if repo is None or token is None:
        return
    from leakres_cli.outputs.hub import push_models
    from leakres_cli.scale.grid import grid_models, run_dir

    dirs = {name: run_dir(cfg, out_dir, name) for name in grid_models(cfg)}
    single = len(dirs) == 1
    folders = {("" if single else d.name): d / "models" for d in dirs.values()}
    click.echo(
        f"Pushed {', '.join(map(str, folders.values()))} to {push_models(folders, repo, token)}"
    )


def _prepare_run_dirs(cfg: RunConfig, out_dir: Path, fresh: bool) -> None:
    """Each model's run directory, without a killed run's partial files (and without its cells on
    --fresh). Called under the lock only: nothing else writes there now, so partial files can go
    and --fresh cannot pull cells/ out from under a running run."""
    from leakres_cli.scale.grid import grid_models, run_dir

    for name in grid_models(cfg):
        target = run_dir(cfg, out_dir, name)
        target.mkdir(parents=True, exist_ok=True)
        remove_partial_writes(target)
        for cells in ("cells", "seeds") if fresh else ():  # seeds/: --seeds' other seeds' cells
            if (target / cells).exists():
                shutil.rmtree(target / cells)


def _run_cell(cfg, cell, out_dir: Path, *, fresh: bool, quiet: bool, engine_options: dict) -> None:
    from leakres_cli.scale.grid import run_cell

    _seed_everything(cfg.seed)
    target = run_cell(
        cfg, cell, out_dir, fresh=fresh, progress=not quiet, engine_options=engine_options
    )
    click.echo(
        f"Cell {cell.id} done in {target / 'cells'}; `leakres run` with the same options and no "
        "--cell writes results.json once every cell is done"
    )


def config_from_params(params: dict[str, Any], *, validate: bool = True) -> RunConfig:
    """The run configuration of parsed `leakres run` options (``validate``: its names checked),
    or a one-line LeakresError."""
    options = config_values(params, RUN_FIELDS)
    preset, overrides = params.get("preset") or "smoke", tuple(params.get("overrides") or ())
    method_configs = tuple(params.get("method_configs") or ())
    return build_config(
        preset, overrides, method_configs=method_configs, validate=validate, **options
    )


def build_config(
    preset: str,
    overrides: tuple[str, ...],
    *,
    method_configs: tuple[Path, ...] = (),
    validate: bool = True,
    **options: Any,
) -> RunConfig:
    """The run configuration of a preset, option values, `leakres tune` settings files
    (--method-config) and --set overrides on top of them; ``validate``: its method, attack and
    judge names checked (`leakres run` leaves that to :func:`~leakres_cli.config.resolve.resolve_grid`)."""
    cfg = preset_config(preset, **options)
    if options.get("model") is not None:
        cfg.models = ()  # --model replaces a multi-model preset's grid
    method_over, attack_over = parse_overrides(overrides, cfg.methods, cfg.attacks)
    from leakres_cli.tune.tuning import load_method_config

    tuned = load_method_config(method_configs, cfg.methods) if method_configs else {}
    cfg.method_overrides = {m: {**tuned.get(m, {}), **method_over.get(m, {})}
                            for m in cfg.methods if m in tuned or m in method_over}  # fmt: skip
    cfg.attack_overrides = {
        a: {**cfg.attack_overrides.get(a, {}), **attack_over.get(a, {})}
        for a in sorted({*cfg.attack_overrides, *attack_over})
        if a in cfg.attacks
    }  # the preset's attack settings (paper: 4-bit quantization), the user's --set on top
    if validate:
        _validate_names(cfg)
    return cfg


def _execute(run: Any, out_dir: Path, quiet: bool, engine_options: dict) -> None:
    """One model's resolved run (:class:`~leakres_cli.config.resolve.ResolvedRun`) through the
    library entry point (:func:`leakres_cli.run_benchmark`); the command holds --out's lock."""
    from leakres_cli.api import run_benchmark

    done = run_benchmark(
        run, out_dir, progress=not quiet, engine_options=engine_options, lock=False
    )
    click.echo(done.summary)
    click.echo(
        f"Wrote {done.results_json}, {done.summary_md} and {len(done.tables)} table/plot files"
    )
    click.echo(f"Wrote {done.report_html} (open it in a browser)")

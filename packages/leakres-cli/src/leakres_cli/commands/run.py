"""`leakres run`: the whole benchmark, end to end."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import click

from ..config import ALL_TYPES, PRESETS, preset_config
from ..engines import DTYPES, ENGINES, PROMPT_MODES
from ..errors import LeakresError
from ..executors import EXECUTORS
from ..store import check_writable_dir, write_json_atomic, write_text_atomic


def _split(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _seed_everything(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


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
@click.option(
    "--model",
    default=None,
    help="Registered model name, local directory, .gguf file or Hugging Face id "
    "[preset default: smollm2-135m-instruct].",
)
@click.option(
    "--source", default=None, help="Knowledge source: builtin, mquake, triples [preset: builtin]."
)
@click.option(
    "--input", "source_path", default=None, help="Input file for --source mquake/triples."
)
@click.option(
    "--types", default=None, help=f"Comma-separated question types from {','.join(ALL_TYPES)}."
)
@click.option(
    "--methods", default=None, help="Comma-separated unlearning methods (see `leakres list`)."
)
@click.option(
    "--attacks", default=None, help="Comma-separated recovery attacks (see `leakres list`)."
)
@click.option("--n-forget", type=int, default=None, help="Number of facts to unlearn.")
@click.option("--n-retain", type=int, default=None, help="Number of retain facts.")
@click.option(
    "--per-type", type=int, default=None, help="Multi-hop questions built per type [preset: 40]."
)
@click.option(
    "--sh-pool",
    type=int,
    default=None,
    help="Single-hop questions asked to find facts the model knows [preset: 96].",
)
@click.option(
    "--judge",
    default=None,
    help="Judge, or several comma-separated (alias,llm): the first scores, the others report "
    "agreement (Cohen's kappa) [preset: alias].",
)
@click.option(
    "--judge-model", default=None, help="Model of the llm judge (OpenAI-compatible endpoint)."
)
@click.option(
    "--judge-base-url",
    default=None,
    help="Endpoint of the llm judge; the key is read from LEAK_METRICS_API_KEY or OPENAI_API_KEY.",
)
@click.option("--seed", type=int, default=None, help="Global seed [preset: 0].")
@click.option("--batch-size", type=int, default=None, help="Generation batch size [preset: 16].")
@click.option(
    "--bbh-tasks",
    default=None,
    help="Comma-separated BIG-Bench-Hard tasks for the utility ratio, or 'all' [preset: off].",
)
@click.option(
    "--bbh-limit", type=int, default=None, help="Examples per BBH task, 0 = all [preset: 5]."
)
@click.option(
    "--bbh-cot/--no-bbh-cot", default=None, help="Chain-of-thought BBH prompts [preset: off]."
)
@click.option(
    "--max-new-tokens",
    type=int,
    default=None,
    help="Greedy answer budget of the evaluation and of every attack [preset: 24].",
)
@click.option(
    "--data-dir",
    default=None,
    help="Data root (as LEAKRES_DATA_DIR); BBH is read from DATA_DIR/bbh [default: $LEAKRES_DATA_DIR].",
)
@click.option(
    "--allow-fewer/--no-allow-fewer",
    default=None,
    help="When the model knows fewer facts than --n-forget + --n-retain, run with fewer instead "
    "of stopping before training.",
)
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
    "--engine",
    type=click.Choice(ENGINES),
    default=None,
    help="Who generates: 'local' (in-process) or 'openai': an OpenAI-compatible server that leakres "
    "starts per model with --engine-cmd (the base model from its path, each unlearned model saved "
    "to OUT/engine/models/ as safetensors first) for the evaluation and the sampling attacks "
    "(probab, focus_on_key). Unlearning, BBH, FocusOnKey's key-token search and the attacks that "
    "need the weights (quantization, relearn) and in_context stay in-process [preset: local].",
)
@click.option(
    "--engine-cmd",
    default=None,
    metavar="TEMPLATE",
    help="Server command for --engine openai, with {model} and {port} (and optional {host}), e.g. "
    "'vllm serve {model} --port {port}'.",
)
@click.option(
    "--engine-prompts",
    type=click.Choice(PROMPT_MODES),
    default=None,
    help="Send the server token ids (exact; no second BOS) or text (servers that take text only, "
    "e.g. Ollama) [preset: ids].",
)
@click.option(
    "--engine-startup-timeout",
    type=float,
    default=600.0,
    show_default=True,
    help="Seconds a server may take to answer its health check.",
)
@click.option(
    "--engine-concurrency",
    type=int,
    default=16,
    show_default=True,
    help="Requests in flight at once to the server.",
)
@click.option(
    "--dtype",
    type=click.Choice(DTYPES),
    default=None,
    help="Weights' dtype; auto = bfloat16 on CUDA, float32 otherwise [preset: float32; paper: auto].",
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
    "--ray-cpus", type=int, default=None, help="CPUs of the local Ray instance [all cores]."
)
def run_command(preset: str, out_dir: Path, model: str | None, source: str | None, source_path: str | None,
                types: str | None, methods: str | None, attacks: str | None, n_forget: int | None,
                n_retain: int | None, per_type: int | None, sh_pool: int | None, judge: str | None,
                judge_model: str | None, judge_base_url: str | None, seed: int | None,
                batch_size: int | None, bbh_tasks: str | None, bbh_limit: int | None,
                bbh_cot: bool | None, max_new_tokens: int | None, data_dir: str | None,
                allow_fewer: bool | None, overrides: tuple[str, ...],
                method_configs: tuple[Path, ...], fresh: bool, quiet: bool,
                engine: str | None, engine_cmd: str | None, engine_prompts: str | None,
                engine_startup_timeout: float, engine_concurrency: int, dtype: str | None,
                cell: str | None, executor: str, ray_address: str | None,
                ray_cpus: int | None) -> None:  # fmt: skip
    """Build questions, unlearn, evaluate and attack; write results.json and summary.md into --out.

    With no options it runs the `smoke` preset: single-hop and hypothetical-syllogism questions from the
    built-in knowledge base, gradient-ascent unlearning of facts the model knows, and the Probab sampling
    attack, on the embedded SmolLM2-135M-Instruct model (CPU, offline, a few minutes).

    A rerun with the same options and --out reuses finished cells (resume after a crash or Ctrl-C).
    """
    cfg = preset_config(
        preset, model=model, source=source, source_path=source_path, types=_split(types),
        methods=_split(methods), attacks=_split(attacks), n_forget=n_forget, n_retain=n_retain,
        per_type=per_type, sh_pool=sh_pool, judge=judge, judge_model=judge_model,
        judge_base_url=judge_base_url, seed=seed, batch_size=batch_size,
        bbh_tasks=_split(bbh_tasks), bbh_limit=bbh_limit, bbh_cot=bbh_cot,
        max_new_tokens=max_new_tokens, data_dir=data_dir, allow_fewer=allow_fewer, engine=engine,
        engine_cmd=engine_cmd, engine_prompts=engine_prompts, dtype=dtype,
    )  # fmt: skip
    if model is not None:
        cfg.models = ()  # --model replaces a multi-model preset's grid
    method_over, attack_over = _parse_overrides(overrides, cfg.methods, cfg.attacks)
    from ..tuning import load_method_config

    tuned = load_method_config(method_configs, cfg.methods)
    cfg.method_overrides = {m: {**tuned.get(m, {}), **method_over.get(m, {})}
                            for m in cfg.methods if m in tuned or m in method_over}  # fmt: skip
    cfg.attack_overrides = {
        a: {**cfg.attack_overrides.get(a, {}), **attack_over.get(a, {})}
        for a in sorted({*cfg.attack_overrides, *attack_over})
        if a in cfg.attacks
    }  # the preset's attack settings (paper: 4-bit quantization), the user's --set on top
    _validate_names(cfg)
    from ..grid import check_run_config, find_cell, grid_models, model_config, run_dir

    check_run_config(cfg)
    chosen = find_cell(cfg, cell) if cell is not None else None
    if chosen is not None and executor != "local":
        raise LeakresError("--cell runs one cell in this process; drop --executor ray for it")
    check_writable_dir(out_dir)
    # Resolve the models before the long stages so a bad name fails in a second, not after building data.
    from ..models import resolve_model

    for name in grid_models(cfg):
        resolve_model(name)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    engine_options = {
        "startup_timeout": engine_startup_timeout, "concurrency": engine_concurrency,
    }  # fmt: skip
    if chosen is not None:
        _run_cell(cfg, chosen, out_dir, fresh=fresh, quiet=quiet, engine_options=engine_options)
        return
    if executor == "ray":
        from ..executors import run_cells_with_ray

        ran = run_cells_with_ray(
            cfg, out_dir, engine_options=engine_options, fresh=fresh, num_cpus=ray_cpus,
            address=ray_address,
        )  # fmt: skip
        click.echo(f"Ray ran {len(ran)} cells: {', '.join(ran)}; collecting results")
        fresh = False  # the cells were just recomputed by the tasks
    for name in grid_models(cfg):
        _run_model(
            model_config(cfg, name), run_dir(cfg, out_dir, name), fresh=fresh, quiet=quiet,
            engine_options=engine_options,
        )  # fmt: skip


def _run_cell(cfg, cell, out_dir: Path, *, fresh: bool, quiet: bool, engine_options: dict) -> None:
    from ..grid import run_cell

    target = run_cell(
        cfg, cell, out_dir, fresh=fresh, progress=not quiet, engine_options=engine_options
    )
    click.echo(
        f"Cell {cell.id} done in {target / 'cells'}; `leakres run` with the same options and no "
        "--cell writes results.json once every cell is done"
    )


def _run_model(cfg, out_dir: Path, *, fresh: bool, quiet: bool, engine_options: dict) -> None:
    check_writable_dir(out_dir)
    if fresh and (out_dir / "cells").exists():
        import shutil

        shutil.rmtree(out_dir / "cells")
    _seed_everything(cfg.seed)

    from ..pipeline import Benchmark
    from ..summary import render

    bench = Benchmark(cfg, out_dir, progress=not quiet, engine_options=engine_options)
    results = bench.run()
    write_json_atomic(out_dir / "results.json", results)
    text = render(results)
    write_text_atomic(out_dir / "summary.md", text)
    from ..paper_report import write_paper_report

    written = write_paper_report(results, out_dir)
    click.echo(text)
    click.echo(
        f"Wrote {out_dir / 'results.json'}, {out_dir / 'summary.md'} and {len(written)} table/plot files"
    )
    from ..report import write_report

    click.echo(f"Wrote {write_report([out_dir])} (open it in a browser)")


def _parse_value(raw: str) -> object:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _parse_overrides(items: tuple[str, ...], methods: tuple[str, ...], attacks: tuple[str, ...]):
    method_over: dict[str, dict] = {}
    attack_over: dict[str, dict] = {}
    for item in items:
        if "=" not in item or "." not in item.split("=", 1)[0]:
            raise LeakresError(f"--set expects NAME.FIELD=VALUE, got '{item}'")
        key, raw = item.split("=", 1)
        name, fld = key.split(".", 1)
        if name in methods:
            method_over.setdefault(name, {})[fld] = _parse_value(raw)
        elif name in attacks:
            attack_over.setdefault(name, {})[fld] = _parse_value(raw)
        else:
            raise LeakresError(
                f"--set {item}: '{name}' is neither a selected method ({', '.join(methods)}) "
                f"nor a selected attack ({', '.join(attacks)})"
            )
    return method_over, attack_over


def _validate_names(cfg) -> None:
    """Fail fast on unknown method/attack/judge names (the registries give 'did you mean' errors)."""
    from leak_metrics import get_judge
    from recover_attacks import get_attack
    from unlearn_zoo import get_unlearner

    for factory, names, over in ((get_unlearner, cfg.methods, cfg.method_overrides),
                                 (get_attack, cfg.attacks, cfg.attack_overrides)):  # fmt: skip
        for name in names:
            try:
                factory(name, **over.get(name, {}))
            except (KeyError, ValueError, TypeError) as exc:
                raise LeakresError(str(exc).strip("'\"")) from exc
    try:
        for name in cfg.judge.split(","):
            if name.strip() != "llm":  # the llm judge needs its endpoint, checked when it runs
                get_judge(name.strip())
            elif not cfg.judge_model:
                raise LeakresError("--judge llm needs --judge-model (and usually --judge-base-url)")
    except (KeyError, ValueError, TypeError) as exc:
        raise LeakresError(str(exc).strip("'\"")) from exc

"""`leakres run`: the whole benchmark, end to end."""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import click

from ..config import ALL_TYPES, PRESETS, RunConfig, preset_config
from ..errors import LeakresError
from ..lock import LOCK_NAME, RunLock
from ..redact import redact_config
from ..store import check_writable_dir, write_json_atomic, write_text_atomic

# Outputs are rendered here (inside --out) before they replace the previous ones.
STAGING_PREFIX = ".outputs-"


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
@click.option(
    "--n-forget", type=click.IntRange(min=1), default=None, help="Number of facts to unlearn."
)
@click.option(
    "--n-retain", type=click.IntRange(min=0), default=None, help="Number of retain facts."
)
@click.option(
    "--per-type",
    type=click.IntRange(min=1),
    default=None,
    help="Multi-hop questions built per type [preset: 40].",
)
@click.option(
    "--sh-pool",
    type=click.IntRange(min=1),
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
# numpy seeds must fit in 32 bits.
@click.option(
    "--seed", type=click.IntRange(0, 2**32 - 1), default=None, help="Global seed [preset: 0]."
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=None,
    help="Generation batch size [preset: 16].",
)
@click.option(
    "--max-new-tokens",
    type=click.IntRange(min=1),
    default=None,
    help="Tokens generated per answer [preset: 24].",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(min=1),
    default=None,
    help="Bootstrap resamples for the 95%% confidence intervals [preset: 1000].",
)
@click.option(
    "--bbh-tasks",
    default=None,
    help="Comma-separated BIG-Bench-Hard tasks for the utility ratio, or 'all' [preset: off].",
)
@click.option(
    "--bbh-limit",
    type=click.IntRange(min=0),
    default=None,
    help="Examples per BBH task, 0 = all [preset: 5].",
)
@click.option(
    "--bbh-cot/--no-bbh-cot", default=None, help="Chain-of-thought BBH prompts [preset: off]."
)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="METHOD.FIELD=VALUE",
    help="Override a method or attack hyperparameter, e.g. --set ga.lr=1e-5 --set probab.num_samples=10.",
)
@click.option(
    "--fresh", is_flag=True, help="Ignore finished cells in --out and recompute everything."
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
def run_command(preset: str, out_dir: Path, model: str | None, source: str | None, source_path: str | None,
                types: str | None, methods: str | None, attacks: str | None, n_forget: int | None,
                n_retain: int | None, per_type: int | None, sh_pool: int | None, judge: str | None,
                judge_model: str | None, judge_base_url: str | None, seed: int | None,
                batch_size: int | None, max_new_tokens: int | None, bootstrap: int | None,
                bbh_tasks: str | None, bbh_limit: int | None, bbh_cot: bool | None,
                overrides: tuple[str, ...], fresh: bool, quiet: bool) -> None:  # fmt: skip
    """Build questions, unlearn, evaluate and attack; write results.json and summary.md into --out.

    With no options it runs the `smoke` preset: single-hop and hypothetical-syllogism questions from the
    built-in knowledge base, gradient-ascent unlearning of facts the model knows, and the Probab sampling
    attack, on the embedded SmolLM2-135M-Instruct model (CPU, offline, a few minutes).

    A rerun with the same options and --out reuses finished cells (resume after a crash or Ctrl-C).
    Only one run at a time may use an --out directory (a second one exits with status 2).
    """
    cfg = config_from_params(click.get_current_context().params)
    created = check_writable_dir(out_dir)
    lock = RunLock(out_dir)
    try:
        # Resolve the model before the long stages so a bad name fails in a second, not after building data.
        from ..models import resolve_model

        model_path = resolve_model(cfg.model)
        lock.acquire()
        # Under the lock only: nothing else writes here now, so partial files of a killed run can go,
        # and --fresh cannot pull cells/ out from under a running run.
        remove_partial_writes(out_dir)
        if fresh and (out_dir / "cells").exists():
            shutil.rmtree(out_dir / "cells")
        _execute(cfg, out_dir, quiet, model_path)
    finally:
        lock.release()
        # An error before any work (unknown model, ...) leaves no empty folder behind.
        _remove_unused(out_dir, created)


# Options of `leakres run` that are not part of the run configuration.
_NOT_CONFIG = ("preset", "overrides", "out_dir", "fresh", "quiet")
_LIST_OPTIONS = ("types", "methods", "attacks", "bbh_tasks")


def config_from_params(params: dict[str, Any]) -> RunConfig:
    """The validated run configuration of parsed `leakres run` options, or a one-line LeakresError."""
    options = {k: v for k, v in params.items() if k not in _NOT_CONFIG}
    for name in _LIST_OPTIONS:
        options[name] = _split(options.get(name))
    preset, overrides = params.get("preset") or "smoke", tuple(params.get("overrides") or ())
    return build_config(preset, overrides, **options)


def build_config(preset: str, overrides: tuple[str, ...], **options: Any) -> RunConfig:
    """The validated run configuration of a preset, option values and --set overrides."""
    cfg = preset_config(preset, **options)
    method_over, attack_over = _parse_overrides(overrides, cfg.methods, cfg.attacks)
    cfg.method_overrides, cfg.attack_overrides = method_over, attack_over
    _validate_names(cfg)
    return cfg


def _execute(cfg: RunConfig, out_dir: Path, quiet: bool, model_path: str) -> None:
    _seed_everything(cfg.seed)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    from ..pipeline import Benchmark
    from ..summary import render

    bench = Benchmark(cfg, out_dir, progress=not quiet)
    results = bench.run()
    # A run resumed from finished cells never loads the model, so the pipeline has no path to report;
    # the resolved one is the same, and keeps results.json equal to an uninterrupted run's.
    if results.get("model_path") is None:
        results["model_path"] = model_path
    results["config"] = redact_config(results["config"])
    text = render(results)
    written = _write_outputs(results, text, out_dir)
    click.echo(text)
    click.echo(
        f"Wrote {out_dir / 'results.json'}, {out_dir / 'summary.md'} and "
        f"{len(written) - 2} table/plot files"
    )
    from ..report import write_report

    click.echo(f"Wrote {write_report([out_dir])} (open it in a browser)")


def _write_outputs(results: dict[str, Any], summary: str, out_dir: Path) -> list[Path]:
    """results.json, summary.md, tables/ and plots/ of this run, all rendered before any is replaced.

    They are rendered into a staging directory inside ``out_dir`` (same file system), then moved into
    place with ``os.replace``, results.json last: a crash while rendering leaves every previous output
    as it was, and a results.json on disk always comes with the summary, tables and plots of its run.
    """
    from ..paper_report import write_paper_report

    try:
        staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=STAGING_PREFIX))
    except OSError as exc:
        raise LeakresError(f"cannot write into {out_dir}: {exc.strerror or exc}") from exc
    try:
        try:
            write_text_atomic(staging / "summary.md", summary)
            write_paper_report(results, staging)
            write_json_atomic(staging / "results.json", results)
        except OSError as exc:  # matplotlib writes the plots itself
            raise LeakresError(f"cannot write the tables/plots into {out_dir}: {exc}") from exc
        except LeakresError as exc:  # name the file the user knows, not the staging copy
            raise LeakresError(str(exc).replace(str(staging), str(out_dir))) from exc
        files = sorted(p for p in staging.rglob("*") if p.is_file())
        files.sort(key=lambda p: p.name == "results.json")  # stable: results.json last
        written = []
        for src in files:
            dest = out_dir / src.relative_to(staging)
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dest)
            except OSError as exc:
                raise LeakresError(f"cannot write {dest}: {exc.strerror or exc}") from exc
            written.append(dest)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def remove_partial_writes(out_dir: Path) -> None:
    """Temp files and staging directories a killed run left behind (call with the run lock held)."""
    for staging in out_dir.glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(staging, ignore_errors=True)
    for tmp in out_dir.rglob(".*.tmp"):
        if tmp.is_file():
            tmp.unlink(missing_ok=True)


def _remove_unused(out_dir: Path, created: Path | None) -> None:
    """Remove the directories this run created if nothing but its lock file went into them."""
    if created is None or not out_dir.is_dir():
        return
    if {p.name for p in out_dir.iterdir()} - {LOCK_NAME}:
        return  # work started: keep everything (a rerun resumes from it)
    (out_dir / LOCK_NAME).unlink(missing_ok=True)
    for directory in (out_dir, *out_dir.parents):
        try:
            directory.rmdir()
        except OSError:
            break
        if directory == created:
            break


def _parse_value(raw: str) -> object:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, too deeply nested, a 5000-digit int: a string
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

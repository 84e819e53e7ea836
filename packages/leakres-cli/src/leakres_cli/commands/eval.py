"""`leakres eval`: measure a model unlearned elsewhere (bring your own model).

The base and the unlearned model, the facts that were removed: leakres builds the multi-hop
questions that reach those facts, keeps the facts the base model knows, and scores every type,
attack and utility with `leakres run`'s own stages (:mod:`leakres_cli.external`), writing the same
results.json, summary.md, tables, plots and report.html.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from ..config import preset_config
from ..errors import LeakresError
from ..lock import RunLock
from ..options import config_options
from .run import (
    _parse_overrides,
    _remove_unused,
    _seed_everything,
    _validate_names,
    _write_outputs,
    remove_partial_writes,
)

#: RunConfig fields that mean the same in `eval` as in `run` (no --methods, --n-forget, --model)
EVAL_FIELDS = (
    "source",
    "source_path",
    "types",
    "attacks",
    "n_retain",
    "sh_pool",
    "judge",
    "judge_model",
    "judge_base_url",
    "seed",
    "batch_size",
    "max_new_tokens",
    "bootstrap",
    "bbh_tasks",
    "bbh_limit",
    "bbh_cot",
    "data_dir",
    "allow_fewer",
    "engine",
    "engine_cmd",
    "engine_prompts",
    "dtype",
)


@click.command("eval")
@click.option(
    "--base", required=True, help="The model before unlearning (anything --model accepts)."
)
@click.option(
    "--unlearned",
    required=True,
    help="The unlearned model: anything --model accepts, or a peft adapter directory "
    "(adapter_config.json; loaded on --base, not merged) or an unlearn-zoo checkpoint.",
)
@click.option(
    "--forget",
    "forget_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help='JSONL of the forgotten facts: {"subject","relation","object"} labels, or SH ids of '
    "the --questions set.",
)
@click.option(
    "--retain",
    "retain_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSONL of retain facts (same format) [default: chosen among the facts the base model "
    "knows, as `leakres run` does, --n-retain of them].",
)
@click.option(
    "--questions",
    default=None,
    type=click.Path(exists=True, path_type=Path),
    help="A kg-qgen set folder (or questions.jsonl) [default: build from --source every "
    "multi-hop question that reaches a forget fact].",
)
@click.option(
    "--unlearned-endpoint",
    default=None,
    metavar="URL",
    help="An OpenAI-compatible /v1 URL serving the unlearned model (a black box: --unlearned is "
    "then the name it answers to). Only Probab and FocusOnKey can reach it; the attacks that need "
    "its weights are skipped and the summary says so. Key: $OPENAI_API_KEY.",
)
@click.option(
    "--label",
    default="unlearned",
    show_default=True,
    help="The unlearned model's name in results.json and the tables.",
)
@click.option(
    "--adapter-base",
    default=None,
    help="The model a peft adapter attaches to [default: --base].",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("leakres-eval"),
    show_default=True,
    help="Output directory (results.json, summary.md, cells/ for resuming).",
)
@config_options(EVAL_FIELDS)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="ATTACK.FIELD=VALUE",
    help="Override an attack hyperparameter, e.g. --set probab.num_samples=10.",
)
@click.option("--fresh", is_flag=True, help="Ignore finished cells in --out.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def eval_command(**params: Any) -> None:
    """Measure leak resistance of a model unlearned elsewhere.

    Same numbers as `leakres run` (FQ per type, S_suc, RR per attack, robustness, utility), for a
    base model, an unlearned model and the facts that were unlearned. Facts the knowledge source
    does not contain, or that the base model does not answer correctly, are listed with the reason;
    the evaluation goes on without them only with --allow-fewer.
    """
    from ..external import (
        AS_ADAPTER_FILE,
        PEFT_ADAPTER_CONFIG,
        EvalInputs,
        ExternalBenchmark,
        read_facts,
    )
    from ..options import config_values

    inputs = EvalInputs(
        unlearned=params["unlearned"],
        forget=read_facts(params["forget_path"]),
        retain=read_facts(params["retain_path"]) if params["retain_path"] else [],
        questions=str(params["questions"]) if params["questions"] else None,
        label=params["label"],
        adapter_base=params["adapter_base"],
        endpoint=params["unlearned_endpoint"],
    )
    if any("id" in f for f in inputs.forget + inputs.retain) and inputs.questions is None:
        raise LeakresError("facts given as SH ids need --questions (the set the ids belong to)")
    options = config_values(params, EVAL_FIELDS)
    options.update(model=params["base"], methods=(inputs.label,), n_forget=len(inputs.forget))
    if inputs.retain:
        options["n_retain"] = len(inputs.retain)
    cfg = build_eval_config(options, tuple(params["overrides"] or ()))
    skipped = []
    if inputs.endpoint is not None:
        from ..external import ENDPOINT_ATTACKS

        if cfg.bbh_tasks:
            raise LeakresError("--bbh-tasks decodes in-process; it needs the unlearned weights")
        skipped = [a for a in cfg.attacks if a not in ENDPOINT_ATTACKS]
        cfg.attacks = tuple(a for a in cfg.attacks if a in ENDPOINT_ATTACKS)
    out_dir: Path = params["out_dir"]
    from ..models import resolve_model
    from ..store import check_writable_dir

    model_path = resolve_model(cfg.model)  # a bad name fails before any work
    unlearned_dir = Path(inputs.unlearned).expanduser()
    is_checkpoint = unlearned_dir.is_dir() and any(
        (unlearned_dir / f).is_file() for f in (PEFT_ADAPTER_CONFIG, AS_ADAPTER_FILE)
    )
    if inputs.endpoint is None and not is_checkpoint:
        resolve_model(inputs.unlearned)  # ... and so does a bad unlearned model
    created = check_writable_dir(out_dir)
    lock = RunLock(out_dir)
    try:
        lock.acquire()
        remove_partial_writes(out_dir)
        if params["fresh"] and (out_dir / "cells").exists():
            import shutil

            shutil.rmtree(out_dir / "cells")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        _seed_everything(cfg.seed)
        bench = ExternalBenchmark(cfg, out_dir, inputs, progress=not params["quiet"])
        results = bench.run()
        if results.get("model_path") is None:
            results["model_path"] = model_path
        results["eval"] = eval_record(bench, inputs)
        results["eval"]["attacks_skipped"] = {
            a: "needs the unlearned model's weights (the model is behind --unlearned-endpoint)"
            for a in skipped
        }
        _write(results, out_dir)
    finally:
        lock.release()
        _remove_unused(out_dir, created)


def build_eval_config(options: dict[str, Any], overrides: tuple[str, ...]) -> Any:
    """The run configuration of an eval: the smoke preset's defaults, the options, attack --set;
    attacks and judges validated as in `run` (the one method is the supplied model's label, no
    unlearn-zoo name)."""
    import dataclasses

    cfg = preset_config("smoke", **options)
    cfg.models = ()
    _, attack_over = _parse_overrides(overrides, (), cfg.attacks)
    cfg.attack_overrides = {a: attack_over[a] for a in sorted(attack_over)}
    _validate_names(dataclasses.replace(cfg, methods=()))
    return cfg


def eval_record(bench: Any, inputs: Any) -> dict[str, Any]:
    """results.json's ``eval`` block: what was measured, what was left out and why."""
    base = bench.store.get("base") or {}
    method = bench.cfg.methods[0]
    return {
        "unlearned": ((bench.store.get(f"{method}/unlearn") or {}).get("external")),
        "label": method,
        "questions": inputs.questions,
        "facts_requested": {"forget": len(inputs.forget), "retain": len(inputs.retain)},
        "facts_excluded": base.get("excluded", []),
    }


def _write(results: dict[str, Any], out_dir: Path) -> None:
    from ..redact import redact_config
    from ..report import write_report
    from ..summary import render

    results["config"] = redact_config(results["config"])
    text = render(results) + _eval_notes(results["eval"])
    written = _write_outputs(results, text, out_dir)
    click.echo(text)
    click.echo(
        f"Wrote {out_dir / 'results.json'}, {out_dir / 'summary.md'} and "
        f"{len(written) - 2} table/plot files"
    )
    click.echo(f"Wrote {write_report([out_dir])} (open it in a browser)")


def _eval_notes(info: dict[str, Any]) -> str:
    lines = ["", "## Bring your own model", ""]
    model = info.get("unlearned") or {}
    lines.append(
        f"- unlearned model: {model.get('model')} ({model.get('kind')}, {model.get('path')})"
    )
    asked = info["facts_requested"]
    lines.append(f"- facts given: {asked['forget']} forget, {asked['retain']} retain")
    for attack, why in info.get("attacks_skipped", {}).items():
        lines.append(f"- attack {attack} skipped: {why}")
    for e in info["facts_excluded"]:
        lines.append(f"- left out ({e['role']}): {e['fact']}: {e['reason']}")
    return "\n".join(lines) + "\n"

"""`leakres eval`: measure a model unlearned elsewhere (bring your own model).

The base and the unlearned model, the facts that were removed: leakres builds the multi-hop
questions that reach those facts, keeps the facts the base model knows, and scores every type,
attack and utility with `leakres run`'s own stages (:mod:`leakres_cli.models.external`), writing the same
results.json, summary.md, tables, plots and report.html.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import click

from leakres_cli.config.options import config_options
from leakres_cli.config.overrides import parse_overrides
from leakres_cli.config.preflight import validate_names
from leakres_cli.config.run_config import preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.outputs.write import remove_partial_writes, seed_everything, write_outputs
from leakres_cli.scale.lock import RunLock, remove_unused

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
    "judge_timeout",
    "judge_retries",
    "seed",
    "batch_size",
    "max_new_tokens",
    "prompt_form",
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
    "then the name it answers to). Its answers, Probab, FocusOnKey's answer and its BBH go there; "
    "the attacks that need its weights are skipped and the summary says so. Key: $OPENAI_API_KEY.",
)
@click.option(
    "--base-endpoint",
    default=None,
    metavar="URL",
    help="An OpenAI-compatible /v1 URL serving the base model (a black box: --base is then the "
    "name it answers to). Its answers (which facts it knows, its accuracy per type) and its BBH "
    "come from there; FocusOnKey (it needs the base weights) is skipped and the summary says so. "
    "With --unlearned-endpoint too, only Probab runs. Key: $OPENAI_API_KEY.",
)
@click.option(
    "--tokenizer",
    default=None,
    metavar="MODEL",
    help="With --base-endpoint: the model whose tokenizer (chat template) formats the prompts; "
    "tokenizer files only [default: --base].",
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
@click.option(
    "--check-only",
    is_flag=True,
    help="Check the model paths and which facts the question source can ask (the reason per "
    "fact), print one table and exit (1: something cannot be measured); loads no model.",
)
def eval_command(**params: Any) -> None:
    """Measure leak resistance of a model unlearned elsewhere.

    Same numbers as `leakres run` (FQ per type, S_suc, RR per attack, robustness, utility), for a
    base model, an unlearned model and the facts that were unlearned. Facts the knowledge source
    does not contain, or that the base model does not answer correctly, are listed with the reason;
    the evaluation goes on without them only with --allow-fewer.

    Either model may be a black box behind an OpenAI-compatible endpoint (--base-endpoint,
    --unlearned-endpoint; prompts are formatted here with --tokenizer, default --base, and the key
    is $OPENAI_API_KEY): what needs its weights is skipped and listed in the summary and
    results.json (a black-box unlearned model: quantization, relearn, in_context; a black-box
    base: FocusOnKey). With both behind endpoints only Probab remains.
    """
    from leakres_cli.commands.eval_check import preflight, unlearned_is_checkpoint
    from leakres_cli.models.external import ExternalBenchmark

    inputs = _eval_inputs(params)
    cfg, skipped = _eval_config(params, inputs, validate=False)
    out_dir: Path = params["out_dir"]
    from leakres_cli.models.catalog import resolve_model
    from leakres_cli.scale.store import check_writable_dir

    adapter, is_checkpoint = unlearned_is_checkpoint(inputs.unlearned)
    # paths, then the facts the source can ask: seconds, before any model or endpoint work
    _check_black_box_options(inputs, cfg, adapter, contact=False)  # option combinations
    preflight(cfg, inputs, is_checkpoint, check_only=params["check_only"])
    validate_names(dataclasses.replace(cfg, methods=()))  # imports the attack registry: seconds
    _check_black_box_options(inputs, cfg, adapter)
    model_path = resolve_model(cfg.model) if inputs.base_endpoint is None else None
    created = check_writable_dir(out_dir)
    lock = RunLock(out_dir)
    try:
        lock.acquire()
        remove_partial_writes(out_dir)
        if params["fresh"] and (out_dir / "cells").exists():
            import shutil

            shutil.rmtree(out_dir / "cells")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        seed_everything(cfg.seed)
        bench = ExternalBenchmark(cfg, out_dir, inputs, progress=not params["quiet"])
        results = _run_reporting_endpoint_errors(bench)
        if results.get("model_path") is None:
            results["model_path"] = model_path
        results["eval"] = eval_record(bench, inputs, results["model_path"])
        results["eval"]["attacks_skipped"] = skipped
        _write(results, out_dir)
    finally:
        lock.release()
        remove_unused(out_dir, created)


def _eval_inputs(params: dict[str, Any]) -> Any:
    """The :class:`~leakres_cli.models.external.EvalInputs` of the command's options (facts files read)."""
    from leakres_cli.config.paths import check_name
    from leakres_cli.models.external import EvalInputs, read_facts

    check_name(params["label"], "--label")  # it names cells/<label>/ inside --out
    inputs = EvalInputs(
        unlearned=params["unlearned"],
        forget=read_facts(params["forget_path"]),
        retain=read_facts(params["retain_path"]) if params["retain_path"] else [],
        questions=str(params["questions"]) if params["questions"] else None,
        label=params["label"],
        adapter_base=params["adapter_base"],
        endpoint=params["unlearned_endpoint"],
        base_endpoint=params["base_endpoint"],
        tokenizer=params["tokenizer"],
    )
    if any("id" in f for f in inputs.forget + inputs.retain) and inputs.questions is None:
        raise LeakresError("facts given as SH ids need --questions (the set the ids belong to)")
    if inputs.questions is not None:  # every record checked now, before any model work
        from leakres_cli.config.inputs import read_question_set

        read_question_set(inputs.questions)
    return inputs


def _eval_config(
    params: dict[str, Any], inputs: Any, *, validate: bool = True
) -> tuple[Any, dict[str, str]]:
    """The run configuration, and the attacks left out because a model is a black box (why);
    ``validate=False``: attack and judge names not checked yet (the caller does, after the
    preflight that needs no registry)."""
    from leakres_cli.config.options import config_values

    options = config_values(params, EVAL_FIELDS)
    options.update(model=params["base"], methods=(inputs.label,), n_forget=len(inputs.forget))
    if inputs.retain:
        options["n_retain"] = len(inputs.retain)
    cfg = build_eval_config(options, tuple(params["overrides"] or ()), validate=validate)
    from leakres_cli.models.black_box import skipped_attacks

    skipped = skipped_attacks(
        cfg.attacks,
        base_remote=inputs.base_endpoint is not None,
        unlearned_remote=inputs.endpoint is not None,
    )
    cfg.attacks = tuple(a for a in cfg.attacks if a not in skipped)
    return cfg, skipped


def _check_black_box_options(inputs: Any, cfg: Any, adapter: bool, contact: bool = True) -> None:
    """One-line errors for what cannot work with black-box models, then (``contact``) one request
    to each endpoint (dead, refusing the key, or not serving the named model), before any work."""
    from leakres_cli.models.black_box import check_endpoint, load_tokenizer

    base_remote, unlearned_remote = inputs.base_endpoint is not None, inputs.endpoint is not None
    if inputs.tokenizer is not None and not base_remote:
        raise LeakresError(
            "--tokenizer formats the prompts of a black-box base; it needs --base-endpoint (a "
            "local base formats them with its own tokenizer)"
        )
    if base_remote and unlearned_remote and cfg.engine != "local":
        raise LeakresError(
            f"--engine {cfg.engine} serves local weights; with --base-endpoint and "
            "--unlearned-endpoint there are none"
        )
    if base_remote and adapter and inputs.adapter_base is None:
        raise LeakresError(
            f"the unlearned model {inputs.unlearned} is a peft adapter: it needs the weights it "
            "attaches to (--adapter-base MODEL), and the base is behind --base-endpoint"
        )
    for option, url in (
        ("--base-endpoint", inputs.base_endpoint),
        ("--unlearned-endpoint", inputs.endpoint),
    ):
        if url is not None and not url.startswith(("http://", "https://")):
            from leakres_cli.redact import redact_url

            raise LeakresError(
                f"{option} expects an http(s)://host[:port]/v1 URL, got {redact_url(url)}"
            )
    if not contact:
        return
    if base_remote:
        check_endpoint("--base-endpoint", inputs.base_endpoint, cfg.model)
        option = "--tokenizer" if inputs.tokenizer else "--base"
        load_tokenizer(inputs.tokenizer or cfg.model, option)  # fails now, not after the questions
    if unlearned_remote:
        check_endpoint("--unlearned-endpoint", inputs.endpoint, inputs.unlearned)


def _run_reporting_endpoint_errors(bench: Any) -> dict[str, Any]:
    """``bench.run()``; an endpoint that fails mid-run (after the client's retries) is a one-line
    error (its URL redacted by the CLI's error handler), the finished cells kept for a rerun."""
    from recover_attacks.engine import ServerError

    try:
        return bench.run()
    except ServerError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise LeakresError(
            f"{first}; the finished cells are kept, rerun the same command to resume"
        ) from exc


def build_eval_config(
    options: dict[str, Any], overrides: tuple[str, ...], *, validate: bool = True
) -> Any:
    """The run configuration of an eval: the smoke preset's defaults, the options, attack --set;
    attacks and judges validated as in `run` (the one method is the supplied model's label, no
    unlearn-zoo name)."""
    cfg = preset_config("smoke", **options)
    cfg.models = ()
    _, attack_over = parse_overrides(overrides, (), cfg.attacks)
    cfg.attack_overrides = {a: attack_over[a] for a in sorted(attack_over)}
    if validate:
        validate_names(dataclasses.replace(cfg, methods=()))
    return cfg


def eval_record(bench: Any, inputs: Any, model_path: str | None) -> dict[str, Any]:
    """results.json's ``eval`` block: what was measured, what was left out and why."""
    base = bench.store.get("base") or {}
    method = bench.cfg.methods[0]
    if inputs.base_endpoint is not None:
        base_model = {**bench.model()[0].describe(), "tokenizer": bench.tokenizer_path}
    else:
        base_model = {"model": bench.cfg.model, "kind": "model", "path": model_path}
    return {
        "base": base_model,
        "unlearned": ((bench.store.get(f"{method}/unlearn") or {}).get("external")),
        "label": method,
        "questions": inputs.questions,
        "facts_requested": {"forget": len(inputs.forget), "retain": len(inputs.retain)},
        "facts_excluded": base.get("excluded", []),
    }


def _write(results: dict[str, Any], out_dir: Path) -> None:
    from leakres_cli.outputs.report import write_report
    from leakres_cli.outputs.summary import render
    from leakres_cli.redact import redact_config

    results["config"] = redact_config(results["config"])
    text = render(results) + _eval_notes(results["eval"])
    written = write_outputs(results, text, out_dir)
    click.echo(text)
    click.echo(
        f"Wrote {out_dir / 'results.json'}, {out_dir / 'summary.md'} and "
        f"{len(written) - 2} table/plot files"
    )
    click.echo(f"Wrote {write_report([out_dir])} (open it in a browser)")


def _eval_notes(info: dict[str, Any]) -> str:
    lines = ["", "## Bring your own model", ""]
    for side in ("base", "unlearned"):
        model = info.get(side) or {}
        where = model.get("endpoint") or model.get("path")
        lines.append(f"- {side} model: {model.get('model')} ({model.get('kind')}, {where})")
    if all((info.get(side) or {}).get("kind") == "endpoint" for side in ("base", "unlearned")):
        lines.append(
            "- both models are black boxes (API models, outside the paper's scope): answers, "
            "utility and the attacks that decode through an endpoint only"
        )
    asked = info["facts_requested"]
    lines.append(f"- facts given: {asked['forget']} forget, {asked['retain']} retain")
    for attack, why in info.get("attacks_skipped", {}).items():
        lines.append(f"- attack {attack} skipped: {why}")
    for e in info["facts_excluded"]:
        lines.append(f"- left out ({e['role']}): {e['fact']}: {e['reason']}")
    return "\n".join(lines) + "\n"

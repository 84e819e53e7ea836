"""``leakres eval`` from Python: :func:`evaluate` runs the command's own code (its preflight, lock,
cells and files) and returns the :class:`~leakres_cli.api.RunResult` of what it wrote.

::

    from leakres_cli import evaluate

    done = evaluate("smollm2-135m-instruct", "runs/x/models/ga", "runs/x/models/forget.jsonl",
                    "runs/eval", questions="runs/x/models", label="ga")
    done.results["methods"]["ga"]["fq_all_types"], done.results["weights"]

:func:`run_eval` is the command itself (``leakres eval`` is a thin click command that calls it with
its parsed options): its inputs and configuration (``config.eval_config``), the preflight
(``config.eval_check``, ``models.black_box``), then under ``--out``'s lock the run's own stages over
the supplied model (``models.external.ExternalBenchmark``) and the run's own outputs, with the
``eval`` block and its summary section (``outputs.eval_summary``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from leakres_cli.api import RunResult
from leakres_cli.errors import LeakresError


# long: the public entry point; its documented arguments are most of its lines
def evaluate(
    base: str,
    unlearned: str,
    forget: str | Path | list[dict[str, str]],
    out_dir: str | Path,
    *,
    retain: str | Path | list[dict[str, str]] | None = None,
    questions: str | Path | None = None,
    label: str = "unlearned",
    adapter_base: str | None = None,
    unlearned_endpoint: str | None = None,
    base_endpoint: str | None = None,
    tokenizer: str | None = None,
    overrides: tuple[str, ...] = (),
    fresh: bool = False,
    **options: Any,
) -> RunResult:
    """``leakres eval`` from Python: measure ``unlearned`` (unlearned elsewhere) against ``base`` on
    the ``forget`` facts; the same checks, cells and files as the command, which this runs.

    Args:
        base, unlearned: the models (anything ``--base`` / ``--unlearned`` accept).
        forget, retain: a facts file (JSONL) or the facts as ``{"subject", "relation", "object"}``
            dicts (written to ``out_dir/inputs/`` so the run can be repeated from the shell).
        out_dir: the output directory (cells, results.json, summary.md, report.html).
        questions, label, adapter_base, unlearned_endpoint, base_endpoint, tokenizer, fresh:
            as the command's options of the same names.
        overrides: attack ``--set`` strings, e.g. ``("probab.num_samples=10",)``.
        **options: the command's run options by RunConfig field name (``types=("SH", "HS")``,
            ``attacks=("probab",)``, ``n_retain=8``, ``allow_fewer=True``, ``seeds=(0, 1, 2)``, ...).

    Raises:
        LeakresError: a one-line reason (a bad path, a fact the source cannot ask, ...).
    """
    import contextlib
    import io

    from leakres_cli.config.eval_config import EVAL_FIELDS

    unknown = sorted(set(options) - set(EVAL_FIELDS))
    if unknown:
        raise LeakresError(
            f"evaluate(): unknown option(s) {', '.join(unknown)}; known: {', '.join(EVAL_FIELDS)}"
        )
    out = Path(out_dir)
    params: dict[str, Any] = {name: None for name in EVAL_FIELDS}
    for name, value in options.items():
        params[name] = (
            ",".join(map(str, value)) if isinstance(value, (list, tuple)) else value
        )  # seeds=(0, 1) too
    params.update(
        base=base, unlearned=unlearned, questions=Path(questions) if questions else None,
        forget_path=_facts_file(forget, out, "forget"),
        retain_path=None if retain is None else _facts_file(retain, out, "retain"),
        label=label, adapter_base=adapter_base, unlearned_endpoint=unlearned_endpoint,
        base_endpoint=base_endpoint, tokenizer=tokenizer, out_dir=out, overrides=tuple(overrides),
        fresh=fresh, quiet=True, check_only=False,
    )  # fmt: skip
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        run_eval(params)
    results = json.loads((out / "results.json").read_text())
    written = tuple(p for p in (*(out / "tables").glob("*"), *(out / "plots").glob("*")))
    return RunResult(
        results=results,
        summary=(out / "summary.md").read_text(),
        out_dir=out,
        results_json=out / "results.json",
        summary_md=out / "summary.md",
        tables=tuple(sorted(written)),
        report_html=out / "report.html" if (out / "report.html").is_file() else None,
    )


def _facts_file(facts: str | Path | list[dict[str, str]], out: Path, role: str) -> Path:
    """A facts file path as given, or the facts written as JSONL under ``out/inputs/``."""
    if isinstance(facts, (str, Path)):
        return Path(facts)
    from leakres_cli.scale.store import write_text_atomic

    path = out / "inputs" / f"{role}.jsonl"
    write_text_atomic(path, "".join(json.dumps(dict(f), ensure_ascii=False) + "\n" for f in facts))
    return path


def run_eval(params: dict[str, Any]) -> None:
    """`leakres eval` with its parsed options (click's names: ``base``, ``unlearned``,
    ``forget_path``, ..., ``out_dir``, ``overrides``, ``fresh``, ``quiet``, ``check_only``, and
    :data:`~leakres_cli.config.eval_config.EVAL_FIELDS`): every check before ``--out`` is created
    or locked, then the run, results.json and its companions, printed as the command prints them.

    Raises:
        LeakresError: a one-line reason (a bad path or option, a fact the source cannot ask, an
            endpoint that fails, ...).
    """
    import os

    from leakres_cli.config.eval_check import preflight
    from leakres_cli.config.preflight import validate_names
    from leakres_cli.models.black_box import check_black_box_options
    from leakres_cli.models.catalog import resolve_model
    from leakres_cli.models.external import ExternalBenchmark, unlearned_is_checkpoint
    from leakres_cli.outputs.write import remove_partial_writes, seed_everything
    from leakres_cli.scale.lock import RunLock, remove_unused
    from leakres_cli.scale.store import check_writable_dir

    inputs = _eval_inputs(params)
    cfg, skipped = _eval_config(params, inputs)
    out_dir: Path = params["out_dir"]
    adapter, is_checkpoint = unlearned_is_checkpoint(inputs.unlearned)
    # paths, then the facts the source can ask: seconds, before any model or endpoint work
    check_black_box_options(inputs, cfg.engine, cfg.model, adapter, contact=False)
    preflight(cfg, inputs, is_checkpoint, check_only=params["check_only"])
    validate_names(dataclasses.replace(cfg, methods=()))  # imports the attack registry: seconds
    check_black_box_options(inputs, cfg.engine, cfg.model, adapter)
    model_path = resolve_model(cfg.model) if inputs.base_endpoint is None else None
    created = check_writable_dir(out_dir)
    lock = RunLock(out_dir)
    try:
        lock.acquire()
        remove_partial_writes(out_dir)
        for cells in ("cells", "seeds") if params["fresh"] else ():  # seeds/: --seeds' others
            if (out_dir / cells).exists():
                import shutil

                shutil.rmtree(out_dir / cells)
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        seed_everything(cfg.seed)
        bench = ExternalBenchmark(cfg, out_dir, inputs, progress=not params["quiet"])
        results = _run_reporting_endpoint_errors(bench)
        if results.get("model_path") is None:
            results["model_path"] = model_path
        results["eval"] = bench.eval_record(results["model_path"])
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


def _eval_config(params: dict[str, Any], inputs: Any) -> tuple[Any, dict[str, str]]:
    """The run configuration (names not checked yet: :func:`run_eval` does, after the preflight
    that needs no registry), and the attacks left out because a model is a black box (why)."""
    from leakres_cli.config.eval_config import eval_run_config
    from leakres_cli.models.black_box import skipped_attacks

    cfg = eval_run_config(
        params, inputs.label, len(inputs.forget), len(inputs.retain), validate=False
    )
    skipped = skipped_attacks(
        cfg.attacks,
        base_remote=inputs.base_endpoint is not None,
        unlearned_remote=inputs.endpoint is not None,
    )
    cfg.attacks = tuple(a for a in cfg.attacks if a not in skipped)
    return cfg, skipped


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


def _write(results: dict[str, Any], out_dir: Path) -> None:
    """results.json, summary.md (the run's summary and the eval's section), tables, plots and
    report.html, each announced as `leakres run` announces them."""
    import click

    from leakres_cli.outputs.eval_summary import eval_notes
    from leakres_cli.outputs.report import write_report
    from leakres_cli.outputs.summary import render
    from leakres_cli.outputs.write import write_outputs
    from leakres_cli.redact import redact_config

    results["config"] = redact_config(results["config"])
    text = render(results) + eval_notes(results["eval"])
    written = write_outputs(results, text, out_dir)
    click.echo(text)
    click.echo(
        f"Wrote {out_dir / 'results.json'}, {out_dir / 'summary.md'} and "
        f"{len(written) - 2} table/plot files"
    )
    click.echo(f"Wrote {write_report([out_dir])} (open it in a browser)")

"""The library entry point: one benchmark run from Python, without click.

::

    from leakres_cli import RunConfig, run_benchmark

    done = run_benchmark(RunConfig(methods=("ga",), attacks=("probab",)), "runs/notebook")
    done.results["methods"]["ga"]["fq_all_types"]["value"], done.results_json

``leakres run`` calls the same function for each model of its grid (after its own checks, under
the lock it holds), so a run from Python and one from the shell write the same files.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import RunConfig


@dataclass(frozen=True)
class RunResult:
    """What one run produced.

    Attributes:
        results: the results record, as written to ``results.json`` (ARCHITECTURE.md section 5;
            the configuration in it has URL credentials redacted).
        summary: the text of ``summary.md`` (what ``leakres run`` prints).
        out_dir: the run directory (cells, outputs, lock).
        results_json: ``out_dir/results.json``.
        summary_md: ``out_dir/summary.md``.
        tables: every other output file written with them (``tables/``, ``plots/``).
        report_html: ``out_dir/report.html``, None when ``report=False``.
    """

    results: dict[str, Any]
    summary: str
    out_dir: Path
    results_json: Path
    summary_md: Path
    tables: tuple[Path, ...]
    report_html: Path | None


# long: the public entry point; its documented arguments are 30 of its lines
def run_benchmark(
    config: RunConfig,
    out_dir: str | Path,
    *,
    progress: bool = False,
    engine_options: dict[str, Any] | None = None,
    model_path: str | None = None,
    report: bool = True,
    lock: bool = True,
    checks: bool = True,
) -> RunResult:
    """Run the benchmark of one model (``config.model``) into ``out_dir``; return what it wrote.

    A rerun with the same configuration and ``out_dir`` reuses the finished cells (resume).

    Args:
        config: the run configuration (``leakres_cli.config.preset_config(name, **fields)`` gives a
            preset's); a multi-model grid (``config.models``) is ``leakres run``'s to split.
        out_dir: the run directory; created when missing.
        progress: show progress bars.
        engine_options: ``GenerationRouter`` options of ``--engine openai`` (``startup_timeout``,
            ``concurrency``).
        model_path: the resolved model path to record when a resumed run never loads the model
            (default: resolved here from ``config.model``).
        report: also write ``report.html``.
        lock: hold the run lock of ``out_dir`` for the run (``leakres run`` holds it itself).
        checks: make ``leakres run``'s checks first (names, engine, judge endpoint, source size),
            before ``out_dir`` is created: a refused run leaves nothing behind.

    Raises:
        LeakresError: a one-line reason the run cannot start or go on.
    """
    from .errors import LeakresError

    if len(config.models) > 1:
        raise LeakresError(
            f"run_benchmark runs one model; config.models has {len(config.models)} (use "
            "leakres_cli.grid.model_config(config, name) per model, as `leakres run` does)"
        )
    out = Path(out_dir)
    if checks:
        from .grid import check_run_config
        from .preflight import check, validate_names

        validate_names(config)
        check_run_config(config)
        check(config, {})
    if model_path is None:
        from .models import resolve_model

        model_path = resolve_model(config.model)
    out.mkdir(parents=True, exist_ok=True)
    run_lock = None
    if lock:
        from .lock import RunLock

        run_lock = RunLock(out)
        run_lock.acquire()
    try:
        return _run_locked(config, out, progress, engine_options, model_path, report)
    finally:
        if run_lock is not None:
            run_lock.release()


def _run_locked(
    cfg: RunConfig,
    out: Path,
    progress: bool,
    engine_options: dict[str, Any] | None,
    model_path: str,
    report: bool,
) -> RunResult:
    from .outputs import remove_partial_writes, seed_everything, write_outputs
    from .pipeline import Benchmark
    from .redact import redact_config
    from .summary import render

    remove_partial_writes(out)  # under the lock: whatever a killed run left behind
    seed_everything(cfg.seed)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    results = Benchmark(cfg, out, progress=progress, engine_options=engine_options).run()
    # A run resumed from finished cells never loads the model, so the pipeline has no path to report;
    # the resolved one is the same, and keeps results.json equal to an uninterrupted run's.
    if results.get("model_path") is None:
        results["model_path"] = model_path
    results["config"] = redact_config(results["config"])
    text = render(results)
    written = write_outputs(results, text, out)
    report_html = None
    if report:
        from .report import write_report

        report_html = Path(write_report([out]))
    others = tuple(p for p in written if p.name not in ("results.json", "summary.md"))
    return RunResult(
        results=json.loads((out / "results.json").read_text()),  # the record as written (JSON)
        summary=text,
        out_dir=out,
        results_json=out / "results.json",
        summary_md=out / "summary.md",
        tables=others,
        report_html=report_html,
    )


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
            ``attacks=("probab",)``, ``n_retain=8``, ``allow_fewer=True``, ...).

    Raises:
        LeakresError: a one-line reason (a bad path, a fact the source cannot ask, ...).
    """
    import contextlib
    import io

    from .commands.eval import EVAL_FIELDS, eval_command
    from .errors import LeakresError

    unknown = sorted(set(options) - set(EVAL_FIELDS))
    if unknown:
        raise LeakresError(
            f"evaluate(): unknown option(s) {', '.join(unknown)}; known: {', '.join(EVAL_FIELDS)}"
        )
    out = Path(out_dir)
    params: dict[str, Any] = {name: None for name in EVAL_FIELDS}
    for name, value in options.items():
        params[name] = ",".join(value) if isinstance(value, (list, tuple)) else value
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
        eval_command.callback(**params)  # type: ignore[misc]
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
    from .store import write_text_atomic

    path = out / "inputs" / f"{role}.jsonl"
    write_text_atomic(path, "".join(json.dumps(dict(f), ensure_ascii=False) + "\n" for f in facts))
    return path

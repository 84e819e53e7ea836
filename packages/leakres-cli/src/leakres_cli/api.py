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

from leakres_cli.config.resolve import ResolvedRun
from leakres_cli.config.run_config import RunConfig


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
    config: RunConfig | ResolvedRun,
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
        config: the run configuration (``leakres_cli.config.run_config.preset_config(name, **fields)`` gives a
            preset's), resolved here (:func:`leakres_cli.config.resolve.resolve`) before anything
            else; or a :class:`ResolvedRun` (what ``leakres run`` passes), taken as it is. A
            multi-model grid (``config.models``) is ``leakres run``'s to split.
        out_dir: the run directory; created when missing.
        progress: show progress bars.
        engine_options: ``GenerationRouter`` options of ``--engine openai`` (``startup_timeout``,
            ``concurrency``).
        model_path: the resolved model path to record when a resumed run never loads the model
            (default: resolved here from ``config.model``; a ResolvedRun carries its own).
        report: also write ``report.html``.
        lock: hold the run lock of ``out_dir`` for the run (``leakres run`` holds it itself).
        checks: make ``leakres run``'s checks first (names, engine, judge endpoint, source size),
            before ``out_dir`` is created: a refused run leaves nothing behind. Off: only the
            checks the pipeline makes when it starts (:func:`leakres_cli.config.resolve.settle`).

    Raises:
        LeakresError: a one-line reason the run cannot start or go on.
    """
    run = _resolved(config, checks, model_path)  # every check, before out_dir is created
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    run_lock = None
    if lock:
        from leakres_cli.scale.lock import RunLock

        run_lock = RunLock(out)
        run_lock.acquire()
    try:
        return _run_locked(run, out, progress, engine_options, report)
    finally:
        if run_lock is not None:
            run_lock.release()


def _resolved(config: RunConfig | ResolvedRun, checks: bool, model_path: str | None) -> ResolvedRun:
    """The run as the pipeline takes it: ``config`` resolved (``checks``), or settled with its
    model's path; a :class:`ResolvedRun` is taken as it is."""
    if isinstance(config, ResolvedRun):
        return config
    from leakres_cli.config.resolve import resolve, settle

    if len(config.models) > 1:
        from leakres_cli.errors import LeakresError

        raise LeakresError(
            f"run_benchmark runs one model; config.models has {len(config.models)} (use "
            "leakres_cli.config.resolve.resolve_grid(config), as `leakres run` does)"
        )
    if checks:
        return resolve(config, model_path=model_path)
    if model_path is None:
        from leakres_cli.models.catalog import resolve_model

        model_path = resolve_model(config.model)
    return settle(config, model_path)


def _run_locked(
    run: ResolvedRun,
    out: Path,
    progress: bool,
    engine_options: dict[str, Any] | None,
    report: bool,
) -> RunResult:
    from leakres_cli.outputs.summary import render
    from leakres_cli.outputs.write import remove_partial_writes, seed_everything, write_outputs
    from leakres_cli.redact import redact_config
    from leakres_cli.stages.pipeline import Benchmark

    remove_partial_writes(out)  # under the lock: whatever a killed run left behind
    seed_everything(run.config.seed)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    results = Benchmark(run, out, progress=progress, engine_options=engine_options).run()
    # A run resumed from finished cells never loads the model, so the pipeline has no path to report;
    # the resolved one is the same, and keeps results.json equal to an uninterrupted run's.
    if results.get("model_path") is None:
        results["model_path"] = run.model_path
    results["config"] = redact_config(results["config"])
    text = render(results)
    written = write_outputs(results, text, out)
    report_html = None
    if report:
        from leakres_cli.outputs.report import write_report

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

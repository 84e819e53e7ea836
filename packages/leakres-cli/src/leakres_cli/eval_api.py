"""``leakres eval`` from Python: :func:`evaluate` runs the command's own code (its preflight, lock,
cells and files) and returns the :class:`~leakres_cli.api.RunResult` of what it wrote.

::

    from leakres_cli import evaluate

    done = evaluate("smollm2-135m-instruct", "runs/x/models/ga", "runs/x/models/forget.jsonl",
                    "runs/eval", questions="runs/x/models", label="ga")
    done.results["methods"]["ga"]["fq_all_types"], done.results["weights"]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from leakres_cli.api import RunResult


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

    from leakres_cli.commands.eval import EVAL_FIELDS, eval_command
    from leakres_cli.errors import LeakresError

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
    from leakres_cli.scale.store import write_text_atomic

    path = out / "inputs" / f"{role}.jsonl"
    write_text_atomic(path, "".join(json.dumps(dict(f), ensure_ascii=False) + "\n" for f in facts))
    return path

"""`leakres eval`'s preflight (issue 39, item 2): the paths and the facts, in seconds, before any model loads.

:func:`preflight` checks every local model option as a path first (``./name`` or a missing
``dir/name``: "no such directory", a Hub id only when it is in the local cache or on the Hub), then
which given facts the question source can ask (:mod:`leakres_cli.config.fact_check`, the reason per fact).
``--check-only`` prints both as one table and exits (0: everything can be measured as far as can
be told without a model; 1: not); without it a fact that cannot be asked stops the eval here,
before the base model loads, unless ``--allow-fewer``. The facts the base model does not know are
only known once it has answered: the base evaluation lists them (``external_base``).

May import what ``config`` may: ``models.catalog`` for the model paths.
"""

from __future__ import annotations

from typing import Any

import click

from leakres_cli.errors import LeakresError


def _model_rows(cfg: Any, inputs: Any, is_checkpoint: bool) -> list[tuple[str, str, str]]:
    """(option, value, verdict) per model option; the verdict is ``ok (...)`` or the error."""
    from leakres_cli.models.catalog import MODELS, _gguf_path, check_model

    options: list[tuple[str, str | None, bool]] = [
        ("--base", cfg.model, inputs.base_endpoint is None),
        ("--unlearned", inputs.unlearned, inputs.endpoint is None and not is_checkpoint),
        ("--adapter-base", inputs.adapter_base, True),
        ("--tokenizer", inputs.tokenizer, True),
    ]
    rows = []
    for option, value, local in options:
        if value is None:
            continue
        if not local:
            endpoint = inputs.base_endpoint if option == "--base" else inputs.endpoint
            why = "a checkpoint directory" if endpoint is None else "behind an endpoint"
            rows.append((option, value, f"ok ({why})"))
            continue
        try:
            if value in MODELS:  # registered: its GGUF is there (converting it would load it)
                rows.append((option, value, f"ok (registered, {_gguf_path(MODELS[value])})"))
                continue
            rows.append((option, value, f"ok ({check_model(value)})"))
        except LeakresError as exc:
            rows.append((option, value, f"error: {exc}"))
    return rows


def preflight(cfg: Any, inputs: Any, is_checkpoint: bool, *, check_only: bool) -> None:
    """The model paths, then the facts (module docstring). Raises a one-line LeakresError for a
    bad model; prints the table and exits under ``check_only``."""
    from leakres_cli.config.fact_check import check_facts, fact_table

    models = _model_rows(cfg, inputs, is_checkpoint)
    bad = [
        f"{option} {verdict.removeprefix('error: ')}"
        for option, _, verdict in models
        if verdict.startswith("error")
    ]
    if bad and not check_only:
        raise LeakresError(bad[0])
    rows = check_facts(cfg, inputs)
    missing = [r for r in rows if r["reason"] is not None]
    if check_only:
        lines = ["| model | value | check |", "|---|---|---|"]
        lines += [f"| {o} | {v} | {verdict} |" for o, v, verdict in models]
        askable = len(rows) - len(missing)
        click.echo("\n".join(lines) + "\n\n" + fact_table(rows))
        click.echo(
            f"\n{askable} of {len(rows)} facts can be asked; whether the base model knows them "
            "is known only once it answers (run without --check-only)"
        )
        click.get_current_context().exit(1 if bad or missing else 0)
    if missing and not cfg.allow_fewer:
        listing = "".join(
            f"\n  {r['role']} {r['fact'].get('id') or tuple(r['fact'].values())}: {r['reason']}"
            for r in missing
        )
        raise LeakresError(
            f"{len(missing)} of the given facts cannot be asked by the question source (pass "
            f"--allow-fewer to go on without them; --check-only lists every fact):{listing}"
        )

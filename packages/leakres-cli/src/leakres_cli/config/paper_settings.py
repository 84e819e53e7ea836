"""The shipped per-(method, model) unlearning settings of ``--preset paper`` (data/paper_settings.json).

Each row names its provenance per value: the paper's appendix D where it prints a value (NPO's beta),
else unlearn-zoo's documented per-size default (the paper gives only ranges; the file's ``about``
says which). The CLI applies a row on top of unlearn-zoo's ``default_overrides`` and under the
user's ``--set``, so every value used is recorded in the run's config.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError

TABLES = {"paper": "paper_settings.json"}


@cache
def load_table(name: str = "paper") -> dict[str, Any]:
    if name not in TABLES:
        raise LeakresError(f"unknown settings table '{name}'; known: {', '.join(TABLES)}")
    text = resources.files("leakres_cli").joinpath("data", TABLES[name]).read_text("utf-8")
    return json.loads(text)


def settings_for(method: str, model: str, table: str = "paper") -> dict[str, Any]:
    """The row's settings for (method, model); a one-line error naming both when there is none."""
    for row in load_table(table)["rows"]:
        if row["method"] == method and row["model"] == model:
            return {k: tuple(v) if isinstance(v, list) else v for k, v in row["settings"].items()}
    models = sorted({r["model"] for r in load_table(table)["rows"]})
    raise LeakresError(
        f"data/{TABLES[table]}: no row for method '{method}' and model '{model}' "
        f"(the table covers {', '.join(models)}); pass the settings with --set {method}.FIELD=VALUE "
        "or choose a covered model"
    )


def method_overrides(
    methods: tuple[str, ...], model: str, user: dict[str, dict[str, Any]], table: str = "paper"
) -> dict[str, dict[str, Any]]:
    """Per method: the table's row for ``model``, the user's ``--set`` values on top."""
    return {m: {**settings_for(m, model, table), **user.get(m, {})} for m in methods}


def grid_settings(cfg: RunConfig) -> tuple[dict[str, dict[str, dict[str, Any]]], list[str]]:
    """Per grid model (``cfg.models``, else ``cfg.model``), the method settings its run uses (the
    table's rows under ``cfg.method_overrides`` when ``cfg.method_settings`` names a table, else
    those overrides as they are); and every problem: a missing row, or a value unlearn-zoo refuses."""
    models = cfg.models or (cfg.model,)
    if not cfg.method_settings:
        return dict.fromkeys(models, cfg.method_overrides), []
    from unlearn_zoo import get_unlearner

    found: dict[str, dict[str, dict[str, Any]]] = {}
    problems: list[str] = []
    for model in models:
        try:
            found[model] = method_overrides(
                cfg.methods, model, cfg.method_overrides, cfg.method_settings
            )
        except LeakresError as exc:
            problems.append(str(exc))
            continue
        for method, values in found[model].items():
            try:
                get_unlearner(method, **values)  # the fields exist and type-check
            except (KeyError, ValueError, TypeError) as exc:
                problems.append(
                    f"settings of {method} for {model}: {str(exc).strip(chr(39) + chr(34))}"
                )
    return found, problems


def check_grid_settings(cfg: RunConfig) -> dict[str, dict[str, dict[str, Any]]]:
    """:func:`grid_settings`, its first problem as a one-line LeakresError."""
    found, problems = grid_settings(cfg)
    if problems:
        raise LeakresError(problems[0])
    return found

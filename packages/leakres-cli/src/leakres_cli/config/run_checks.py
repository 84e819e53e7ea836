"""The checks of a run's settings and data files that the pipeline made when it started, now made
by the resolve step (:mod:`leakres_cli.config.resolve`) before any model work: what ``--base``
cannot be combined with, attack token budgets that differ from the evaluation's, the
``--attack-budgets`` ladders, and where
BIG-Bench-Hard is read from (its files checked, or fetched into leak-metrics' cache).

Imports nothing of the CLI but ``run_config`` and ``errors``; the stages re-export these names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError

BASES = ("pretrained", "tuned", "taught")


def check_base(cfg: RunConfig) -> None:
    """What ``--base`` cannot be combined with, refused before any work."""
    if cfg.base not in BASES:
        raise LeakresError(f"--base must be one of {', '.join(BASES)}, got '{cfg.base}'")
    if cfg.base == "pretrained":
        return
    if cfg.engine != "local":
        raise LeakresError(
            f"--base {cfg.base} needs --engine local (the taught model is not saved for a server)"
        )
    if not any(t != "SH" for t in cfg.types):
        raise LeakresError(
            f"--base {cfg.base} teaches worked examples of multi-hop types: none given"
        )


def attack_decoding_conflicts(cfg: RunConfig) -> list[str]:
    """``--set ATTACK.max_new_tokens=N`` that differs from the run's budget (one protocol)."""
    return [
        f"--set {attack}.max_new_tokens={over['max_new_tokens']}"
        for attack, over in cfg.attack_overrides.items()
        if "max_new_tokens" in over and over["max_new_tokens"] != cfg.max_new_tokens
    ]


def bbh_data(cfg: RunConfig) -> dict[str, Any]:
    """Where BBH is read from: ``<data dir>/bbh`` (leak-metrics' layout), checked up front.

    The data dir is --data-dir, else ``$LEAKRES_DATA_DIR``; with neither, leak-metrics' own
    fallback applies (download into its cache). A missing file or unknown task stops the run
    here, before any model is loaded or trained.
    """
    from leak_metrics.bbh import BBH_TASKS

    tasks = list(BBH_TASKS) if cfg.bbh_tasks == ("all",) else list(cfg.bbh_tasks)
    unknown = [t for t in tasks if t not in BBH_TASKS]
    if unknown:
        raise LeakresError(f"unknown BBH task(s) {unknown}; known: {', '.join(BBH_TASKS)}")
    root = cfg.data_dir or os.environ.get("LEAKRES_DATA_DIR")
    if not root:
        _fetch_up_front(tasks)
        return {"tasks": tasks, "data_dir": None, "source": "auto"}
    bbh_dir = Path(root) / "bbh"
    missing = [
        path
        for task in tasks
        for path in (bbh_dir / "bbh" / f"{task}.json", bbh_dir / "cot-prompts" / f"{task}.txt")
        if not path.is_file()
    ]
    if missing:
        raise LeakresError(
            f"BBH file {missing[0]} not found ({len(missing)} missing): the data dir "
            f"{root} (--data-dir or LEAKRES_DATA_DIR) must hold bbh/bbh/<task>.json and "
            "bbh/cot-prompts/<task>.txt"
        )
    return {"tasks": tasks, "data_dir": str(bbh_dir), "source": "local"}


def _fetch_up_front(tasks: list[str]) -> None:
    """Without a data dir, leak-metrics downloads BBH (pinned, checksummed) into its cache: do it
    now, so an offline machine stops here with one line instead of after the base model's work."""
    from leak_metrics.bbh import load_bbh_task
    from leak_metrics.errors import LeakMetricsError

    for task in tasks:
        try:
            load_bbh_task(task, source="auto")
        except LeakMetricsError as exc:
            raise LeakresError(
                f"BBH task {task}: {exc}. Offline, point --data-dir (or LEAKRES_DATA_DIR) at a "
                "folder holding bbh/bbh/<task>.json and bbh/cot-prompts/<task>.txt"
            ) from exc


def attack_ladders(cfg: RunConfig) -> dict[str, tuple[int | str, ...]]:
    """``{attack: rungs}`` of ``--attack-budgets`` (``none``: {}), every rung validated by the
    attack's config class before any model work (a LeakresError quoting the option otherwise)."""
    spec = (cfg.attack_budgets or "none").strip()
    if spec in ("", "none"):
        return {}
    from recover_attacks import get_attack_class
    from recover_attacks.budgets import ladder_runs, parse_budgets
    from recover_attacks.errors import RecoverAttacksError

    try:
        classes = {a: get_attack_class(a) for a in cfg.attacks}
        axes = {a: c.budget for a, c in classes.items() if getattr(c, "budget", None) is not None}
        chosen = parse_budgets(spec, list(cfg.attacks), axes)
        for attack, rungs in chosen.items():
            ladder_runs(classes[attack], rungs)
    except (RecoverAttacksError, KeyError, ValueError) as exc:
        raise LeakresError(f"--attack-budgets {spec!r}: {exc}") from exc
    return chosen


def check_settings(cfg: RunConfig) -> dict[str, Any] | None:
    """The checks above as one-line LeakresErrors, in the order the pipeline made them; BBH's
    data record (results.json's ``bbh``), None when BBH is off."""
    check_base(cfg)
    attack_ladders(cfg)  # a bad --attack-budgets fails before any model work
    conflicts = attack_decoding_conflicts(cfg)
    if conflicts:
        raise LeakresError(
            f"{conflicts[0]} differs from the evaluation's --max-new-tokens "
            f"{cfg.max_new_tokens}: attacks decode with the evaluation's budget (a longer "
            "answer is more likely to contain the gold); change --max-new-tokens for both instead"
        )
    return bbh_data(cfg) if cfg.bbh_tasks else None

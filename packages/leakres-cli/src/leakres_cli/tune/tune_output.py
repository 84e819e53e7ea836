"""`leakres tune`'s outputs: tune.md, the settings file, and reading settings files back
(`leakres run --method-config`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from leakres_cli.errors import LeakresError

SETTINGS_PROVENANCE_KEY = "provenance"


def _metric(m: dict[str, Any] | None) -> str:
    if m is None:
        return "-"
    if m["value"] is None:
        return "undefined"
    ci = "" if m.get("ci_low") is None else f" [{m['ci_low']:.2f}, {m['ci_high']:.2f}]"
    return f"{m['value']:.2f}{ci}"


def render_markdown(result: dict[str, Any]) -> str:
    bbh_on = result["bbh"] is not None
    v = result["validation"]
    lines = [
        f"# leakres tune: {result['method']} on {result['model']}{_base_text(result)} "
        f"(seed {result['seed']})",
        "",
        f"Validation split: {v['n_forget']} forget / {v['n_retain']} retain facts, disjoint from the "
        f"run's {v['n_run_forget_facts_excluded']} forget facts ({v['rule']}).",
        f"Base model on them under the trials' protocol: forget accuracy "
        f"{_metric(v['base_accuracy_forget'])}, retain accuracy {_metric(v['base_accuracy_retain'])}.",
        f"Rule: {result['rule']}.",
        f"unlearn-zoo default: {result['default_trial']} (in the grid: "
        f"{'yes' if result['default_in_grid'] else 'no'}).",
        "",
        "| trial | lr | epochs | alpha | SH FQ [95% CI] | retain ratio [95% CI] |"
        + (" BBH ratio [95% CI] |" if bbh_on else "")
        + " eligible | wall s |",
        "|---|---|---|---|---|---|" + ("---|" if bbh_on else "") + "---|---|",
    ]
    chosen_key = result["chosen"]["key"] if result["chosen"] else None
    for row in result["trials"]:
        mark = " **chosen**" if row["key"] == chosen_key else ""
        alpha = "-" if row["alpha"] is None else f"{row['alpha']:g}"
        bbh = f" {_metric(row['bbh_ratio'])} |" if bbh_on else ""
        lines.append(
            f"| {row['key']}{mark} | {row['lr']:g} | {row['epochs']:g} | {alpha} | "
            f"{_metric(row['fq_sh'])} | {_metric(row['retain_ratio'])} |{bbh} "
            f"{'yes' if row['eligible'] else 'no'} | {row['wall_s']:.1f} |"
        )
    lines.append("")
    if result["chosen"] is None:
        lines.append(
            "No trial forgot any validation forget fact: nothing chosen, no settings file."
        )
    else:
        how = (
            "by the floor (floor_met: true)"
            if result["floor_met"]
            else f"by the fallback (floor_met: false, no trial met the floor: {floor_text(result)}"
            f"{relative_text(result)})"
        )
        lines.append(f"Chosen {how}: {chosen_key}; settings: `{json.dumps(result['settings'])}`.")
    return "\n".join(lines) + "\n"


def _base_text(result: dict[str, Any]) -> str:
    """ " (theta_p: tuned, N steps)" for a search on a tuned or taught base; "" otherwise."""
    block = result.get("base_model")
    if not block:
        return ""
    steps = (block.get("training") or {}).get("steps")
    return f" (theta_p: {block['kind']}" + (f", {steps} teaching steps)" if steps else ")")


def relative_text(result: dict[str, Any]) -> str:
    """For a fallback pick, "; relative floor: utility >= 0.62 (0.9 x that of the gentlest trial,
    TRIAL)"; "" when the floor was met."""
    relaxed = result["relative_floor"]
    if relaxed is None:
        return ""
    basis = (
        f"{result['utility_floor']:g} x that of the gentlest trial, {relaxed['trial']}"
        if relaxed["basis"] == "gentlest"
        else f"capped at the highest among the trials that forget, {relaxed['trial']}'s"
    )
    return f"; relative floor: utility >= {relaxed['value']:.2f} ({basis})"


def floor_text(result: dict[str, Any]) -> str:
    floor = f"{result['utility_floor']:g}"
    bbh = f" and BBH ratio >= {floor}" if result["bbh"] is not None else ""
    return f"retain ratio >= {floor}{bbh} of the base"


def settings_file(result: dict[str, Any]) -> dict[str, Any]:
    """``{method: {field: value}, "provenance": {...}}``: what `leakres run --method-config` reads."""
    return {
        result["method"]: result["settings"],
        SETTINGS_PROVENANCE_KEY: {
            "written_by": "leakres tune",
            "model": result["model"],
            # the settings fit this theta_p: a tuned or taught base unlearns at other settings
            "base": (result.get("base_model") or {}).get("kind", "pretrained"),
            "seed": result["seed"],
            "rule": result["rule"],
            "chosen_trial": result["chosen"]["key"],
            "floor_met": result["floor_met"],
            "relative_floor": result["relative_floor"],
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "search_fingerprint": result["fingerprint"],
        },
    }


def load_method_config(paths: tuple[Path, ...], methods: tuple[str, ...]) -> dict[str, dict]:
    """Per method, the settings of `leakres tune` settings files (one-line errors name file/key)."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise LeakresError(f"--method-config {path}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise LeakresError(f"--method-config {path}: not JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise LeakresError(
                f"--method-config {path}: expected an object {{method: {{field: value}}}}"
            )
        for method, fields in data.items():
            if method == SETTINGS_PROVENANCE_KEY:
                continue
            if not isinstance(fields, dict):
                raise LeakresError(
                    f"--method-config {path}: '{method}' must be an object of field: value, "
                    f"got {type(fields).__name__}"
                )
            if method not in methods:
                raise LeakresError(
                    f"--method-config {path}: method '{method}' is not among --methods "
                    f"({', '.join(methods)}); add it there or leave the file out"
                )
            if method in out:
                raise LeakresError(f"--method-config {path}: '{method}' is set by another file too")
            out[method] = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    return out

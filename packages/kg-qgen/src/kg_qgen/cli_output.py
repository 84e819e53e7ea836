"""What ``kg-qgen build`` and ``verify`` print: the kept counts, shortfalls, dropped aliases,
wording reports and verification lines (the command module keeps the options and the flow)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kg_qgen.pipeline import save

__all__ = [
    "echo_build_summary",
    "echo_verification",
    "refuse_failed_verification",
    "save_and_say_what_stayed",
]


def save_and_say_what_stayed(
    result: Any, out_dir: Path, overwrite: bool, meta: dict[str, Any]
) -> None:
    """Save the build; one line for each file of an earlier build that was kept (review, ...)."""
    from kg_qgen.keep import Kept

    kept = Kept()
    save(result, out_dir, overwrite=overwrite, meta=meta, kept=kept)
    for line in kept.lines():
        click.echo(line)


def echo_build_summary(
    result: Any, graph: Any, type_list: tuple[str, ...], per_type: int, out_dir: Path
) -> None:
    """What ``build`` kept per type, its shortfalls and the verification, one line each."""
    click.echo(f"{graph!r}")
    for t in type_list:
        c = result.counts[t]
        click.echo(
            f"{t}: kept {c['kept']}/{per_type} (matches {c['matches']}, rejected {c['rejected']})"
        )
    for t, why in result.shortfall.items():
        click.echo(f"shortfall {t}: {why}")
    dropped = {t: result.counts[t].get("aliases_dropped") for t in type_list}
    cells = "; ".join(
        f"{t} " + ", ".join(f"{k} {n}" for k, n in d.items()) for t, d in dropped.items() if d
    )
    if cells:
        click.echo(f"answer aliases dropped (codes, jokes, emojis; kept questions): {cells}")
    if result.wording_variety is not None:
        from kg_qgen.wording import VarietyReport

        click.echo(VarietyReport(**result.wording_variety).line())
    if result.verification is not None:
        click.echo(f"verification passed ({out_dir / 'verify_report.json'})")


def refuse_failed_verification(report: dict[str, Any] | None, out_dir: Path) -> None:
    """A set that failed verification is shown and not saved."""
    if report is not None and not report["ok"]:
        echo_verification(report, err=True)
        raise click.ClickException(
            f"verification failed: nothing written to {out_dir} (kg-qgen build --no-verify "
            "saves it anyway)"
        )


def echo_verification(report: dict[str, Any], err: bool = False, show: int = 5) -> None:
    from kg_qgen.verify.report import VerifyReport

    rep = VerifyReport(
        ok=report["ok"], n=report["n"], per_type=report["per_type"], set_checks=report["set_checks"]
    )
    for line in rep.summary_lines():
        click.echo(line, err=err)
    for f in rep.failures()[:show]:
        click.echo(f"  {f['id']} [{f['check']}] {f['reason']}", err=err)
    if len(rep.failures()) > show:
        click.echo(f"  ... {len(rep.failures()) - show} more in the report", err=err)

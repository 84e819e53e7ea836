"""``leak-metrics`` command line: ``check-judge``.

``leak-metrics check-judge --judge alias`` runs a judge over every labelled set of the labels
folder (:mod:`leak_metrics.judges.label_sets`: the development set, the round-three sealed set
(now development), the round-four sealed set, any other ``judge_labels*.jsonl``; each set's
human-human agreement when its second labels are there) or over a labelled file of
your own (``--labels FILE``; format in :mod:`leak_metrics.judges.labelled`), and prints
agreement, false-correct and false-incorrect overall, per question type and per stage, so you can
see how far to trust the judge before a paper-scale run. For an LLM judge give ``--base-url`` and ``--model``;
the API key is read from the environment variable named by ``--api-key-env`` (never from the
command line, so it stays out of shell history and process lists).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from leak_metrics.errors import LeakMetricsError
from leak_metrics.judges import get_judge
from leak_metrics.judges.label_sets import (
    DEV_FILES,
    SEALED_FILE,
    SEALED_R4_FILE,
    SetReport,
    data_dir,
    markdown_report,
    report_folder,
    report_set,
)
from leak_metrics.judges.labelled import load_labels


@click.group()
def main() -> None:
    """Judges, Forget Quality, Recovery Rate and their checks."""


@main.command("check-judge")
@click.option("--judge", "judge_name", default="alias", show_default=True, help="Judge name.")
@click.option("--labels", "labels_path", default=None, help="One labelled JSONL of your own.")
@click.option(
    "--labels-dir",
    default=None,
    help=f"Folder with {DEV_FILES[0]} (+ {DEV_FILES[1]}, {SEALED_FILE}, {SEALED_R4_FILE}, "
    "their *_second.jsonl labels, any other judge_labels*.jsonl); default: the shipped data "
    "folder.",
)
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (LLM judge).")
@click.option("--model", default=None, help="Judge model name (LLM judge).")
@click.option(
    "--api-key-env",
    default="OPENAI_API_KEY",
    show_default=True,
    help="Environment variable holding the API key (LLM judge).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the tables as JSON.")
@click.option("--show-disagreements", is_flag=True, help="List every disagreement with its class.")
def check_judge(
    judge_name: str,
    labels_path: str | None,
    labels_dir: str | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str,
    as_json: bool,
    show_disagreements: bool,
) -> None:
    """Agreement of a judge with careful reading labels: overall, per type and per stage."""
    overrides: dict[str, Any] = {}
    if judge_name.lower() == "llm":
        if base_url:
            overrides["base_url"] = base_url
        if model:
            overrides["model"] = model
        overrides["api_key"] = os.environ.get(api_key_env) or "EMPTY"
    elif base_url or model:
        raise click.UsageError(f"--base-url/--model apply to the llm judge, not '{judge_name}'")
    try:
        judge = get_judge(judge_name, **overrides)
        reports = _reports(judge, labels_path, labels_dir)
    except LeakMetricsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if as_json:
        payload: dict[str, Any] = {"judge": judge.describe(), "sets": []}
        for report, _ in reports:
            block = report.as_dict()
            if show_disagreements:
                block["disagreements"] = report.disagreements
            payload["sets"].append(block)
        labellers = [humans for _, humans in reports if humans is not None]
        if labellers:
            payload["labellers"] = labellers
        # the first set's rows stay at the top level (earlier callers read them there)
        payload.update({k: v for k, v in reports[0][0].as_dict().items() if k != "set"})
        click.echo(json.dumps(payload, indent=2, default=str))
        return
    click.echo(f"judge: {judge_name}")
    for report, humans in reports:
        click.echo("")
        click.echo(markdown_report(report))
        if show_disagreements:
            for d in report.disagreements:
                label = "correct" if d["label"] else "incorrect"
                click.echo(
                    f"- [{d['class']}] {d['id']} ({d['type']}, {d['stage']}): label {label}, "
                    f"judge {d['judge']} ({d['reason']})"
                )
        if humans is not None:
            click.echo("")
            click.echo(_humans_line(humans))


def _reports(
    judge: Any, labels_path: str | None, labels_dir: str | None
) -> list[tuple[SetReport, dict[str, Any] | None]]:
    """The sets to report: a user's file alone, or every set in the labels folder."""
    if labels_path is not None:
        return [(report_set(labels_path, judge, load_labels(labels_path)), None)]
    folder = Path(labels_dir) if labels_dir else data_dir()
    return report_folder(judge, folder)


def _humans_line(humans: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.1f}%"

    def k(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.3f}"

    line = (
        f"human-human agreement ({humans['set']}: first vs second labeller, {humans['n']} "
        f"shared ids): {pct(humans['agreement'])}, Cohen's kappa {k(humans['kappa'])}; "
        f"the judge vs the first labeller on the same ids: {pct(humans['judge_on_same_ids'])}, "
        f"kappa {k(humans['judge_kappa_on_same_ids'])}"
    )
    if humans["only_second"]:
        line += f" ({len(humans['only_second'])} second-label ids not in the set)"
    return line


if __name__ == "__main__":  # pragma: no cover
    main()

"""``leak-metrics`` command line: ``check-judge``.

``leak-metrics check-judge --judge alias`` runs a judge over the shipped labelled responses (or a
labelled file of your own, ``--labels FILE``; format in :mod:`leak_metrics.judges.labelled`) and
prints agreement, false-correct and false-incorrect per question type, so you can see how far to
trust the judge before a paper-scale run. For an LLM judge give ``--base-url`` and ``--model``;
the API key is read from the environment variable named by ``--api-key-env`` (never from the
command line, so it stays out of shell history and process lists).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from leak_metrics.errors import LeakMetricsError
from leak_metrics.judges import get_judge
from leak_metrics.judges.labelled import agreement_table, load_labels


@click.group()
def main() -> None:
    """Judges, Forget Quality, Recovery Rate and their checks."""


@main.command("check-judge")
@click.option("--judge", "judge_name", default="alias", show_default=True, help="Judge name.")
@click.option("--labels", "labels_path", default=None, help="Labelled JSONL (default: shipped).")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (LLM judge).")
@click.option("--model", default=None, help="Judge model name (LLM judge).")
@click.option(
    "--api-key-env",
    default="OPENAI_API_KEY",
    show_default=True,
    help="Environment variable holding the API key (LLM judge).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
@click.option("--show-disagreements", is_flag=True, help="List every disagreement.")
def check_judge(
    judge_name: str,
    labels_path: str | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str,
    as_json: bool,
    show_disagreements: bool,
) -> None:
    """Agreement of a judge with careful reading labels, per question type."""
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
        labelled = load_labels(labels_path)
        judge = get_judge(judge_name, **overrides)
        table = agreement_table(judge, labelled)
    except LeakMetricsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    source = labels_path or "shipped labels"
    if as_json:
        payload = {"judge": judge.describe(), "labels": source, **table.as_dict()}
        if show_disagreements:
            payload["disagreements"] = table.disagreements
        click.echo(json.dumps(payload, indent=2, default=str))
        return
    click.echo(f"judge: {judge_name}; labels: {source} ({table.overall.n} responses)")
    click.echo(table.markdown())
    if show_disagreements:
        for d in table.disagreements:
            label = "correct" if d["label"] else "incorrect"
            click.echo(f"- {d['id']}: label {label}, judge {d['judge']} ({d['reason']})")


if __name__ == "__main__":  # pragma: no cover
    main()

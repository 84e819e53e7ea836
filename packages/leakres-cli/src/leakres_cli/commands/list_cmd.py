"""`leakres list`: what names the other options accept."""

from __future__ import annotations

import click

from leakres_cli.config.run_config import PRESETS
from leakres_cli.models.catalog import describe_models


@click.command("list")
def list_command() -> None:
    """List registered models, presets, unlearning methods, attacks and judges."""
    from leak_metrics import available_judges
    from recover_attacks import list_attacks
    from unlearn_zoo import list_unlearners

    click.echo("Models (or give a local directory, a .gguf file, or a Hugging Face id):")
    for m in describe_models():
        click.echo(f"  {m['name']:<24} {m['description']}")
    click.echo("Presets:")
    for name, (desc, _) in PRESETS.items():
        click.echo(f"  {name:<24} {desc}")
    click.echo("Unlearning methods: " + ", ".join(list_unlearners()))
    click.echo("Recovery attacks:   " + ", ".join(list_attacks()))
    click.echo("Judges:             " + ", ".join(available_judges()))

"""`leakres prepare`: resolve (and cache) a model ahead of time."""

from __future__ import annotations

import click

from leakres_cli.models.catalog import resolve_model


@click.command("prepare")
@click.option("--model", default="smollm2-135m-instruct", show_default=True,
              help="Registered model name, local directory, .gguf file or Hugging Face id.")  # fmt: skip
def prepare_command(model: str) -> None:
    """Convert the model once (GGUF -> safetensors cache) and print where it lives."""
    click.echo(resolve_model(model))

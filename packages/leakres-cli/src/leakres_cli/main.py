"""The `leakres` command group."""

from __future__ import annotations

import sys

import click

from leakres_cli import logfilters
from leakres_cli.commands.eval import eval_command
from leakres_cli.commands.list_cmd import list_command
from leakres_cli.commands.plan import plan_command
from leakres_cli.commands.prepare import prepare_command
from leakres_cli.commands.report import report_command
from leakres_cli.commands.run import run_command
from leakres_cli.commands.tune import tune_command
from leakres_cli.errors import LeakresError
from leakres_cli.redact import install_log_redaction, redact_text
from leakres_cli.version import __version__


class LeakresGroup(click.Group):
    """Turns LeakresError and a bad option value into a one-line message and exit status 2."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        logfilters.install()
        install_log_redaction()
        try:
            return super().invoke(ctx)
        except LeakresError as exc:
            click.echo(f"error: {redact_text(str(exc))}", err=True)
            sys.exit(2)
        except click.UsageError as exc:  # a subcommand's option out of range, unknown, missing
            click.echo(f"error: {redact_text(exc.format_message())}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo(
                "interrupted: finished cells are saved; rerun the same command to resume", err=True
            )
            sys.exit(130)


@click.group(cls=LeakresGroup, context_settings={"auto_envvar_prefix": "LEAKRES",
                                                 "help_option_names": ["-h", "--help"]})  # fmt: skip
@click.version_option(__version__, prog_name="leakres")
def cli() -> None:
    """Leak-resistant unlearning benchmark.

    Builds logic-typed multi-hop questions from a knowledge base, unlearns facts a model knows, evaluates
    Forget Quality per question type, and attacks the unlearned model to measure the Recovery Rate.

    Start with `leakres run` (offline, CPU, a few minutes). Every option can also be set through an
    environment variable LEAKRES_<COMMAND>_<OPTION>, e.g. LEAKRES_RUN_MODEL=HuggingFaceTB/SmolLM2-360M-Instruct.
    """


cli.add_command(run_command)
cli.add_command(list_command)
cli.add_command(prepare_command)
cli.add_command(plan_command)
cli.add_command(report_command)
cli.add_command(tune_command)
cli.add_command(eval_command)


if __name__ == "__main__":  # pragma: no cover
    cli()

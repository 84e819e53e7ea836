"""`leakres report`: one self-contained HTML page for one or several run directories."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("report")
@click.argument(
    "run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path)
)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the page [default: RUN_DIR/report.html for one run, ./report.html for several].",
)
def report_command(run_dirs: tuple[Path, ...], out_path: Path | None) -> None:
    """Write report.html: config and versions, Forget Quality per type (table and heatmap),
    Recovery Rate per attack and hop, the ideal-triangle radar, utility, unlearning loss curves,
    a per-question drill-down and, with several RUN_DIRs, a side-by-side comparison.

    The page is one self-contained file (inline CSS, JavaScript and SVG): it opens offline.
    """
    from leakres_cli.outputs.report import write_report

    path = write_report(list(run_dirs), out_path)
    click.echo(f"Wrote {path}")

"""The self-contained HTML report of one or several runs (``leakres report``, end of ``leakres run``).

One file, viewable offline: CSS, JavaScript and the SVG charts are inline; nothing is fetched.
Sections: config and versions, Forget Quality per type and method (table + heatmap), Recovery
Rate per attack and hop (table + bars with CIs), the ideal-triangle radar, utility, unlearning
loss curves, a per-question drill-down with filters, and - with several runs - a side-by-side
comparison. Missing or unknown values show as "n/a" with the reason where results.json gives one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from markupsafe import Markup

from leakres_cli.outputs.report.load import RunData, load_run
from leakres_cli.outputs.report.view import build_comparison, build_view
from leakres_cli.scale.store import write_text_atomic

__all__ = ["REPORT_NAME", "RunData", "load_run", "render_report", "write_report"]

REPORT_NAME = "report.html"


def _environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=PackageLoader("leakres_cli.outputs.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["svg"] = Markup  # our own SVG strings, every text inside already escaped
    return env


def render_report(runs: Sequence[RunData]) -> str:
    """The HTML text of the report for ``runs`` (at least one)."""
    if not runs:
        raise ValueError("render_report needs at least one run")
    from leakres_cli.version import __version__

    views = [build_view(run, i) for i, run in enumerate(runs)]
    comparison = build_comparison(views) if len(runs) > 1 else None
    template = _environment().get_template("report.html.j2")
    return template.render(
        views=views,
        comparison=comparison,
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        leakres_version=__version__,
    )


def write_report(run_dirs: Sequence[str | Path], out: str | Path | None = None) -> Path:
    """Load every run directory, render, and write the report atomically; returns its path.

    Default location: ``RUN_DIR/report.html`` for one run, ``./report.html`` for several.
    """
    runs = [load_run(d) for d in run_dirs]
    names = [r.name for r in runs]
    for run in runs:  # runs from folders with the same name stay distinguishable
        if names.count(run.name) > 1:
            run.name = f"{run.name} ({run.path})"
    target = Path(out) if out is not None else (
        Path(run_dirs[0]) / REPORT_NAME if len(runs) == 1 else Path(REPORT_NAME)
    )  # fmt: skip
    write_text_atomic(target, render_report(runs), hint="")  # a report has no cells to resume
    umask = os.umask(0)
    os.umask(umask)
    target.chmod(0o666 & ~umask)  # a page to share: readable like any new file, not 0600
    from leakres_cli.outputs.curves import write_figures

    write_figures(runs, target.parent)  # recovery_curves.png/.pdf beside it (a ladder ran)
    if len(runs) == 1:  # comparisons.png/.pdf beside it (the run compared methods)
        from leakres_cli.outputs.comparison_plot import write_comparison_figure

        write_comparison_figure(runs[0].results, target.parent)
    return target

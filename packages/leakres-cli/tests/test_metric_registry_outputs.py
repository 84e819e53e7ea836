"""Issue 37 item 4: a metric added with one function and one ``register_metric`` call shows in a
run's results.json, summary.md, tables/metrics.* and report.html, with no CLI change.

The run is test_scoring_chance's tiny run (the pipeline for real on kg-qgen's built-in facts with
the alias judge, the models scripted stand-ins), on SH and HS only. What the scripted models
answer fixes the expected values by hand: the base model gives the gold answer everywhere; the
unlearned model says "I do not know." on every SH and HS question and gives the gold on the first
half of the retain facts only. So the share of the base model's right answers the unlearned model
gets wrong is 100% on each type, and the unlearned model keeps 50% of the retain facts.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from leak_metrics import MetricSpec, MetricValue, accuracy, register_metric
from leak_metrics.metric_specs import METRICS
from leakres_cli.main import cli
from leakres_cli.outputs.metric_rows import metric_rows
from markupsafe import escape
from test_scoring_chance import _script

ARGS = ["run", "--quiet", "--types", "SH,HS", "--per-type", "8", "--sh-pool", "30",
        "--n-forget", "6", "--n-retain", "4", "--methods", "ga", "--attacks", "probab",
        "--seed", "0"]  # fmt: skip


def forgotten_share(base_correct, unlearned_correct, *, seed=0, n_resamples=1000) -> MetricValue:
    """The one function: of the items the base model answered right, the share answered wrong
    after unlearning (with leak-metrics' bootstrap CI)."""
    wrong = [
        None if u is None else not u
        for b, u in zip(base_correct, unlearned_correct, strict=True)
        if b
    ]
    return accuracy(wrong, seed=seed, n_resamples=n_resamples)


FORGOTTEN = MetricSpec(
    "forgotten_share", "forgotten", "share of the base model's right answers lost by unlearning",
    "test", True, "percent", "type", ("base_correct", "unlearned_correct"), forgotten_share,
    label="forgotten share (test)",
)  # fmt: skip
RETAIN_KEPT = MetricSpec(
    "retain_kept", "kept", "share of the retain facts still answered right after unlearning",
    "test", True, "percent", "method", ("retain_unlearned_correct",),
    lambda retain_unlearned_correct, **boot: accuracy(retain_unlearned_correct, **boot),
    label="retain kept (test)",
)  # fmt: skip


@pytest.fixture
def registered():
    try:
        for spec in (FORGOTTEN, RETAIN_KEPT):
            register_metric(spec)
        yield
    finally:
        for spec in (FORGOTTEN, RETAIN_KEPT):
            METRICS._builtin.pop(spec.name, None)


def test_a_registered_metric_reaches_results_summary_tables_and_report(
    tmp_path, monkeypatch, registered
) -> None:
    _script(monkeypatch, {"trained": 0, "retain_kept": set()})
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    ga = results["methods"]["ga"]
    for qtype in ("SH", "HS"):
        share = ga["per_type"][qtype]["forgotten_share"]
        assert share["value"] == 1.0 and share["n"] == ga["per_type"][qtype]["n"]
    assert ga["retain_kept"]["value"] == 0.5 and ga["retain_kept"]["n"] == 4

    summary = (out / "summary.md").read_text()
    fq_header = next(line for line in summary.splitlines() if line.startswith("| method | type"))
    assert "forgotten share (test)" in fq_header
    tri_header = next(line for line in summary.splitlines() if "retain unlearned" in line)
    assert "retain kept (test)" in tri_header
    for path in (out / "tables" / "metrics.md", out / "tables" / "metrics.csv"):
        table = path.read_text()
        assert "forgotten share (test)" in table and "retain kept (test)" in table
        assert FORGOTTEN.definition in table
    page = (out / "report.html").read_text()
    assert "forgotten share (test)" in page and str(escape(FORGOTTEN.definition)) in page
    assert "retain kept (test)" in page

    rows = {(r["where"], r["spec"].name): r["metric"] for r in metric_rows(results)}
    assert rows[("HS", "forgotten_share")]["value"] == 1.0
    assert rows[("-", "retain_kept")]["value"] == 0.5


def test_a_metric_needing_what_its_level_lacks_is_named(tmp_path, monkeypatch) -> None:
    bad = MetricSpec(
        "needs_logits", "logits", "a metric on logits", "test", True, "percent", "type",
        ("logits",), lambda logits: MetricValue(0.0, None, None, 0),
    )  # fmt: skip
    _script(monkeypatch, {"trained": 0, "retain_kept": set()})
    register_metric(bad)
    try:
        result = CliRunner().invoke(cli, [*ARGS, "--out", str(tmp_path / "run")])
    finally:
        METRICS._builtin.pop(bad.name, None)
    assert result.exit_code != 0
    assert "metric 'needs_logits' needs logits" in result.output

"""`leakres report`: one self-contained HTML page from real run directories, read defensively."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.errors import LeakresError
from leakres_cli.main import cli
from leakres_cli.outputs.report import load_run, render_report, write_report
from markupsafe import escape
from report_support import FIXTURE_MULTI, FIXTURE_RUN, copy_run


def _results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text())


def _cell(run: Path, name: str) -> dict:
    return json.loads((run / "cells" / f"{name}.json").read_text())


def _write(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data))


class _Links(HTMLParser):
    """Every URL-bearing attribute and every <script>/<link>/<img> of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "srcset") and value is not None:
                self.urls.append(value)


def test_report_of_a_real_run_has_every_section(tmp_path: Path):
    run = copy_run(tmp_path / "run")
    path = write_report([run])
    assert path == run / "report.html"
    html = path.read_text()
    results = _results(run)
    for heading in ("Forget Quality per question type", "Recovery Rate per attack and hop",
                    "Ideal triangle", "Utility", "Unlearning loss", "Per-question drill-down",
                    "Full configuration", "Library versions"):  # fmt: skip
        assert heading in html
    assert results["config"]["model"] in html
    for name, ver in results["versions"].items():
        assert f"<th>{name}</th><td>{ver}</td>" in html
    ga = results["methods"]["ga"]
    fq_sh = ga["per_type"]["SH"]["fq"]
    assert (
        f"{100 * fq_sh['value']:.1f} [{100 * fq_sh['ci_low']:.0f}, {100 * fq_sh['ci_high']:.0f}]"
        in html
    )
    rr = ga["attacks"]["probab"]["rr_SH"]
    assert f"{100 * rr['value']:.1f} [{100 * rr['ci_low']:.0f}, {100 * rr['ci_high']:.0f}]" in html
    # charts: heatmap, RR bars, radar, loss curve (one path per method with the recorded points)
    assert html.count("<svg ") == 4
    curve = _cell(run, "ga/unlearn")["payload"]["loss_curve"]
    assert f"{curve[0]['loss']:.4g}" in html and f"{curve[-1]['loss']:.4g}" in html
    # drill-down: one row per scored question, with its text, gold answer and stored answers
    base = _cell(run, "base")["payload"]
    ids = base["forget_ids"] + base["multi_hop_ids"] + base["retain_ids"]
    assert html.count('<tr data-type="') == len(ids)
    questions = {q["id"]: q for q in _cell(run, "questions")["payload"]["questions"]}
    ev = _cell(run, "ga/eval")["payload"]
    first = ids[0]
    assert escape(questions[first]["question"]) in html
    assert escape(ev["answers"][first]) in html
    attack = _cell(run, "ga/attack-probab")["payload"]
    attacked = next(iter(attack["responses"]))
    assert escape(attack["responses"][attacked][0]) in html


def test_report_is_self_contained(tmp_path: Path):
    html = write_report([copy_run(tmp_path / "run")]).read_text()
    links = _Links()
    links.feed(html)
    assert "img" not in links.tags and "iframe" not in links.tags
    assert all(u.startswith(("#", "data:")) for u in links.urls), links.urls
    assert "<script src" not in html and 'rel="stylesheet"' not in html and "@import" not in html
    assert "url(" not in html.split("<style>")[1].split("</style>")[0]
    # the only absolute URL is the SVG namespace (an identifier, never fetched)
    assert {u for u in html.split('"') if u.startswith(("http://", "https://"))} == {
        "http://www.w3.org/2000/svg"
    }


def test_model_output_is_escaped(tmp_path: Path):
    run = copy_run(tmp_path / "run")
    ev = _cell(run, "ga/eval")
    first = next(iter(ev["payload"]["answers"]))
    ev["payload"]["answers"][first] = '<script>alert("pwned")</script><img src=x onerror=alert(1)>'
    _write(run / "cells" / "ga" / "eval.json", ev)
    html = write_report([run]).read_text()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(" in html


def test_missing_unknown_and_new_fields_render_as_n_a(tmp_path: Path):
    """results.json written by a newer (more fields) or broken pipeline must not crash the page."""
    run = copy_run(tmp_path / "run")
    r = _results(run)
    ga = r["methods"]["ga"]
    del ga["per_type"]["HS"]["fq"]  # missing metric
    ga["per_type"]["SH"]["fq"].update(
        value=None, undefined_reason="base accuracy is 0", n_unjudged=3
    )
    ga["fq_all_types"]["n_unjudged"] = 2  # new field on a defined metric
    ga["robustness"] = "not a dict"
    ga["attacks"]["probab"]["rr_MH"] = None
    ga["attacks"]["probab"]["rr_per_type"] = ["garbage"]
    del ga["utility"]
    ga["some_future_metric"] = {"value": 0.5}
    r["dataset"] = None
    r["timings_s"] = {"total": "soon"}
    r["new_top_level"] = {"anything": [1, 2]}
    _write(run / "results.json", r)
    (run / "cells" / "ga" / "unlearn.json").unlink()
    # The run also keeps an unlearn record inside results.json; without both, the curve is n/a.
    r["methods"]["ga"].pop("unlearn", None)
    _write(run / "results.json", r)
    html = write_report([run]).read_text()
    assert 'title="n = 12; 3 unjudged; n/a: base accuracy is 0"' in html
    assert 'title="n/a: not in results.json"' in html  # the deleted HS FQ
    assert "2 unjudged" in html
    assert "no loss values recorded" in html


def test_cells_of_another_configuration_are_left_out(tmp_path: Path):
    run = copy_run(tmp_path / "run")
    ev = _cell(run, "ga/eval")
    ev["config_fingerprint"] = "0000000000000000"
    _write(run / "cells" / "ga" / "eval.json", ev)
    loaded = load_run(run)
    assert "ga" not in loaded.evals
    assert any("written by another configuration" in w for w in loaded.warnings)
    html = render_report([loaded])
    assert "written by another configuration than results.json - left out" in html
    assert 'class="v na"><b>n/a</b>' in html  # the unlearned answers are not shown


def test_without_cells_the_report_still_renders(tmp_path: Path):
    run = copy_run(tmp_path / "run")
    import shutil

    shutil.rmtree(run / "cells")
    html = write_report([run]).read_text()
    assert "no cells/ folder" in html and "No per-question cells" in html
    assert "Forget Quality per question type" in html


def test_bad_run_directories_are_one_line_errors(tmp_path: Path):
    with pytest.raises(LeakresError, match=r"results\.json: not found"):
        load_run(tmp_path)
    (tmp_path / "results.json").write_text("{not json")
    result = CliRunner().invoke(cli, ["report", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 2
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "results.json: not valid JSON" in lines[0]


def test_two_runs_side_by_side(tmp_path: Path):
    a = copy_run(tmp_path / "lr-1e-5")
    b = copy_run(tmp_path / "lr-5e-5")
    r = _results(b)
    r["methods"]["ga"]["fq_all_types"].update(value=0.777, ci_low=0.5, ci_high=0.9)
    r["config"]["model"] = "other-model"
    _write(b / "results.json", r)
    out = tmp_path / "compare.html"
    result = CliRunner().invoke(
        cli, ["report", str(a), str(b), "--out", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    html = out.read_text()
    table = html.split('id="comparison-table"')[1].split("</table>")[0]
    assert "lr-1e-5" in table and "lr-5e-5" in table and "other-model" in table
    assert "77.7 [50, 90]" in table
    assert f"{100 * _results(a)['methods']['ga']['fq_all_types']['value']:.1f}" in table
    assert html.count('class="card run"') == 2


def test_leakres_run_writes_the_report_at_the_end(tmp_path: Path, monkeypatch):
    """`leakres run` ends by writing report.html next to results.json (the pipeline is replaced by
    the fixture's results so this test takes seconds; the full run is tests/test_smoke_pipeline)."""
    from leakres_cli.models import catalog as models
    from leakres_cli.stages.pipeline import Benchmark

    out = copy_run(tmp_path / "out")
    (out / "results.json").unlink()
    monkeypatch.setattr(models, "resolve_model", lambda name: name)
    monkeypatch.setattr(Benchmark, "run", lambda self: _results(FIXTURE_RUN))
    result = CliRunner().invoke(cli, ["run", "--quiet", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"Wrote {out / 'report.html'}" in result.output
    html = (out / "report.html").read_text()
    assert "Per-question drill-down" in html and "written by another configuration" not in html


def test_multi_method_run_with_undefined_metrics(tmp_path: Path):
    """A real 7-type, GA+NPO, 2-attack run where many metrics are undefined (small n, empty S_suc)."""
    run = copy_run(tmp_path / "multi", FIXTURE_MULTI)
    html = write_report([run]).read_text()
    r = _results(run)
    assert list(r["methods"]) == ["ga", "npo"]
    for t in ("SH", "HS", "MP", "LL", "CC", "DS", "MT"):
        assert f"<th>{t}</th>" in html
    mp = r["methods"]["ga"]["per_type"]["MP"]["fq"]
    assert mp["value"] is None and mp["undefined_reason"]
    assert f"n/a: {escape(mp['undefined_reason'])}" in html  # the reason is in the tooltip
    rr = r["methods"]["ga"]["attacks"]["probab"]["rr_SH"]
    assert rr["value"] is None and f"n/a: {escape(rr['undefined_reason'])}" in html
    assert (
        html.count("<title>ga</title></path>") == 1 and html.count("<title>npo</title></path>") == 1
    )
    # attack columns: 2 methods x 2 attacks; only S_suc items were attacked (the rest show –)
    assert html.count(">npo: probab</th>") == 1 and html.count(">ga: focus_on_key</th>") == 1
    attacked = sum(len(_cell(run, f"{m}/attack-{a}")["payload"]["recovered"])
                   for m in ("ga", "npo") for a in ("probab", "focus_on_key"))  # fmt: skip
    base = _cell(run, "base")["payload"]
    rows = len(base["forget_ids"] + base["multi_hop_ids"] + base["retain_ids"])
    assert attacked >= 1  # NPO had one successfully unlearned item
    not_attacked = 'title="not attacked: only successfully unlearned items (S_suc) are"'
    assert html.count(not_attacked) == 4 * rows - attacked


def test_comparing_two_real_runs(tmp_path: Path):
    a, b = copy_run(tmp_path / "smoke"), copy_run(tmp_path / "types", FIXTURE_MULTI)
    html = write_report([a, b], tmp_path / "both.html").read_text()
    table = html.split('id="comparison-table"')[1].split("</table>")[0]
    assert table.count("<tr><td><a href=") == 3  # smoke/ga, types/ga, types/npo
    for t in ("SH", "HS", "MP", "LL", "CC", "DS", "MT"):
        assert f"<th>FQ {t}</th>" in table
    assert "smoke / ga" in html and "types / npo" in html  # the radar legend

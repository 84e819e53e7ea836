"""The report page in a real browser (headless Debian Chromium driven by Playwright): it loads
from a file:// URL with nothing fetched and no console errors, and its drill-down filters work.
With ``LEAKRES_UPDATE_SCREENSHOTS=1`` it also writes the README screenshot to docs/img/.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from leakres_cli.outputs.report import write_report
from report_support import (
    FIXTURE_MULTI,
    FIXTURE_RUN,
    browser_context,
    chromium_path,
    copy_run,
    save_screenshot,
)

DOCS_IMG = Path(__file__).resolve().parents[3] / "docs" / "img"


def test_report_loads_offline_without_console_errors(tmp_path: Path):
    chromium_path()
    from playwright.sync_api import expect

    path = write_report([copy_run(tmp_path / "smoke")])
    base = json.loads((FIXTURE_RUN / "cells" / "base.json").read_text())["payload"]
    n = len(base["forget_ids"] + base["multi_hop_ids"] + base["retain_ids"])
    n_hs = sum(i.startswith("HS") for i in base["multi_hop_ids"])
    problems: list[str] = []
    requests: list[str] = []
    with browser_context() as ctx:
        page = ctx.new_page()
        page.on(
            "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
        )
        page.on("pageerror", lambda err: problems.append(str(err)))
        page.on("request", lambda req: requests.append(req.url))
        page.goto(path.as_uri())
        table = page.locator("table.drill")
        count = page.locator(".filters .count")
        expect(count).to_have_text(f"{n} of {n} questions")
        page.select_option("select[data-filter=type]", "HS")
        expect(count).to_have_text(f"{n_hs} of {n} questions")
        expect(table.locator("tbody tr:visible")).to_have_count(n_hs)
        page.select_option("select[data-filter=type]", "")
        page.check("input[data-filter=leaked]")
        n_leaked = table.locator("tr[data-leaked=yes]").count()
        expect(count).to_have_text(f"{n_leaked} of {n} questions")
        page.uncheck("input[data-filter=leaked]")
        page.fill("input[data-filter=text]", base["forget_ids"][0].lower())  # ids are unique
        expect(table.locator("tbody tr:visible")).to_have_count(1)
        page.fill("input[data-filter=text]", "")
        svg_boxes = [page.locator("svg").nth(i).bounding_box() for i in range(4)]
        assert all(b and b["width"] > 50 and b["height"] > 30 for b in svg_boxes)  # charts render
        if os.environ.get("LEAKRES_UPDATE_SCREENSHOTS") == "1":
            page.evaluate("window.scrollTo(0, 0)")  # the sticky header back on top
            clip = {"x": 0, "y": 0, "width": 1300, "height": 1500}
            save_screenshot(page, DOCS_IMG / "report.png", full_page=True, clip=clip)
    assert problems == [], problems
    assert requests == [path.as_uri()]  # the page itself and nothing else


def test_comparison_page_of_two_real_runs_loads_cleanly(tmp_path: Path):
    chromium_path()
    from playwright.sync_api import expect

    runs = [copy_run(tmp_path / "smoke"), copy_run(tmp_path / "types", FIXTURE_MULTI)]
    path = write_report(runs, tmp_path / "compare.html")
    problems: list[str] = []
    with browser_context() as ctx:
        page = ctx.new_page()
        page.on(
            "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
        )
        page.on("pageerror", lambda err: problems.append(str(err)))
        page.goto(path.as_uri())
        expect(page.locator("#comparison-table tbody tr")).to_have_count(3)
        expect(page.locator("section.run")).to_have_count(2)
        expect(page.locator(".filters .count")).to_have_count(2)  # one drill-down per run
        page.click("header a[href='#run-1']")
        expect(page.locator("#run-1 h1")).to_be_in_viewport()
    assert problems == [], problems

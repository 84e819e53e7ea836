"""The annotation app in a real browser: headless Debian Chromium driven by Playwright.

Annotates three items with the keyboard shortcuts and a click, reloads, checks what the page
and the database hold and what the results page computes, with no console errors. With
``LEAKRES_UPDATE_SCREENSHOTS=1`` it also writes the README screenshot to docs/img/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="not run: the review app needs Flask (kg-qgen[review])")

from kg_qgen.review.app import create_app
from kg_qgen.review.session import ReviewSession
from review_support import browser_context, build_set, chromium_path, save_screenshot, serve

DOCS_IMG = Path(__file__).resolve().parents[3] / "docs" / "img"


def test_annotate_three_items_reload_and_summary(tmp_path: Path):
    chromium_path()  # skip (or fail under CI) before building anything when there is no browser
    from playwright.sync_api import expect

    built = build_set(tmp_path / "set", per_type=6)
    session = ReviewSession.open(built, per_type=2, seed=0, db_path=tmp_path / "review.sqlite")
    ids = [s.item_id for s in session.sample]
    problems: list[str] = []
    with serve(create_app(session)) as url, browser_context() as ctx:
        page = ctx.new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda err: problems.append(str(err)))
        page.goto(url + "/")
        page.fill("#annotator", "alice")
        page.click("button[type=submit]")
        saved = re.compile(r"^saved at ")
        ready = page.locator("html[data-review-ready=true]")  # key handlers attached
        expect(page).to_have_url(re.compile(r"/item/0$"))
        expect(ready).to_have_count(1)

        page.keyboard.press("y")  # item 0: yes
        expect(page.locator("#status")).to_have_text(saved)
        expect(page.locator("#progress-text")).to_have_text(f"1 / {len(ids)} judged")
        page.keyboard.press("j")
        expect(page).to_have_url(re.compile(r"/item/1$"))
        expect(ready).to_have_count(1)

        page.keyboard.press("n")  # item 1: no, flagged leak, with a comment
        page.keyboard.press("l")
        page.keyboard.press("c")
        page.keyboard.type("the question names the bridge")
        page.keyboard.press("Escape")  # leaves the box: the comment is saved on blur
        expect(page.locator("#status")).to_have_text(saved)
        page.keyboard.press("j")
        expect(page).to_have_url(re.compile(r"/item/2$"))
        expect(ready).to_have_count(1)

        page.click("#btn-yes")  # item 2: yes, by mouse
        expect(page.locator("#status")).to_have_text(saved)
        page.reload()  # what the page shows now comes from the database
        expect(ready).to_have_count(1)
        expect(page.locator("#btn-yes")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#btn-no")).to_have_attribute("aria-pressed", "false")
        if os.environ.get("LEAKRES_UPDATE_SCREENSHOTS") == "1":
            save_screenshot(page, DOCS_IMG / "review-item.png", full_page=True)
        page.keyboard.press("k")
        expect(page).to_have_url(re.compile(r"/item/1$"))
        expect(ready).to_have_count(1)
        expect(page.locator("#btn-no")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#flag-leak")).to_be_checked()
        expect(page.locator("#comment")).to_have_value("the question names the bridge")

        anns = {a.item_id: a for a in session.store.annotations("alice")}
        assert {i: a.verdict for i, a in anns.items()} == {
            ids[0]: True,
            ids[1]: False,
            ids[2]: True,
        }
        assert anns[ids[1]].flags == ["leak"]
        assert anns[ids[1]].comment == "the question names the bridge"

        page.goto(url + "/results")
        summary = session.summary()
        assert summary.overall.n_judged == 3 and summary.overall.n_yes == 2
        expect(page.locator("#score")).to_have_text(f"{summary.score:.1f}")
        expect(page.locator("tr[data-type=all] td").nth(3)).to_have_text("3")  # judged
        expect(page.locator("#annotators")).to_contain_text("alice")
        page.keyboard.press("y")  # shortcuts are only on item pages: nothing happens here
        page.goto(url + "/")  # the annotator resumes at the first undecided item
        expect(page).to_have_url(re.compile(r"/item/3$"))
    assert problems == [], problems

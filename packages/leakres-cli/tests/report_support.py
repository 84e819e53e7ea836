"""Helpers for the report tests: a copy of the fixture run, and the system browser.

The browser is Debian's Chromium (/usr/bin/chromium, package ``chromium``; ``.ci/run`` installs
it) driven by Playwright for Python, which never downloads a browser of its own here. Without a
browser the browser test skips and says why; under ``CI=true`` it fails instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

FIXTURE_RUN = Path(__file__).resolve().parent / "fixtures" / "run-smoke"
FIXTURE_MULTI = (
    Path(__file__).resolve().parent / "fixtures" / "run-types-ga-npo"
)  # 2 methods, 2 attacks
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def copy_run(dest: Path, fixture: Path = FIXTURE_RUN) -> Path:
    """A writable copy of a fixture run directory."""
    shutil.copytree(fixture, dest)
    return dest


def chromium_path() -> str:
    path = os.environ.get("LEAKRES_CHROMIUM", "/usr/bin/chromium")
    problems = []
    if not (Path(path).is_file() and os.access(path, os.X_OK)):
        problems.append(f"no Chromium at {path} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("Playwright for Python is not installed (pip install playwright)")
    if problems:
        reason = "not run: no browser: " + "; ".join(problems)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; CI=true requires the browser (.ci/run installs it)")
        pytest.skip(reason)
    return path


@contextmanager
def browser_context(viewport: dict[str, int] | None = None) -> Iterator[Any]:
    """A fresh headless Chromium profile (new --user-data-dir), closed and deleted afterwards."""
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    profile = tempfile.mkdtemp(prefix="leakres-chromium-")
    try:
        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(
                profile,
                executable_path=exe,
                headless=True,
                args=CHROMIUM_FLAGS,
                viewport=viewport or {"width": 1300, "height": 900},
            )
            try:
                yield ctx
            finally:
                ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def save_screenshot(page: Any, path: Path, **kwargs: Any) -> None:
    """A README screenshot, reduced to a 128-colour palette when Pillow is there (about 3x smaller)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), **kwargs)
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)

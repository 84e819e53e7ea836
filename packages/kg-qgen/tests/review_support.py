"""Helpers shared by the review / score tests: a small built set, a live server, the browser.

The browser is Debian's Chromium (/usr/bin/chromium, package ``chromium``; ``.ci/run`` installs
it) driven by Playwright for Python; Playwright never downloads a browser of its own here.
Without a browser the browser tests skip and say why; under ``CI=true`` they fail instead, so a
CI that lost its browser cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

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


def build_set(out: Path, per_type: int = 6, seed: int = 0) -> Path:
    """A real kg-qgen build of the packaged built-in KB (all seven types), saved to ``out``."""
    import kg_qgen

    result = kg_qgen.build(kg_qgen.load_source("builtin"), per_type=per_type, seed=seed)
    kg_qgen.save(result, out)
    return out


def chromium_path() -> str:
    """The system Chromium, or skip (fail under CI=true) saying what is missing."""
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
    profile = tempfile.mkdtemp(prefix="kgq-chromium-")
    try:
        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(
                profile,
                executable_path=exe,
                headless=True,
                args=CHROMIUM_FLAGS,
                viewport=viewport or {"width": 1000, "height": 900},
            )
            try:
                yield ctx
            finally:
                ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve a WSGI app on 127.0.0.1 (a free port) in a thread; yields its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


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

"""Writing a run's outputs (results.json, summary.md, tables/, plots/) all or nothing, cleaning what
a killed run left, and seeding every random generator before a run."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import move_into_place, write_json_atomic, write_text_atomic

STAGING_PREFIX = ".outputs-"


def seed_everything(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def write_outputs(results: dict[str, Any], summary: str, out_dir: Path) -> list[Path]:
    """results.json, summary.md, tables/ and plots/ of this run, all rendered before any is replaced.

    Every URL in ``results`` is masked first (:func:`~leakres_cli.redact.mask_urls`) and the summary
    goes through :func:`~leakres_cli.redact.redact_text`: no credential reaches a file.
    They are rendered into a staging directory inside ``out_dir`` (same file system), then moved into
    place (:func:`~leakres_cli.scale.store.move_into_place`), results.json last: a crash while rendering leaves every previous output
    as it was, and a results.json on disk always comes with the summary, tables and plots of its run.
    """
    from leakres_cli.outputs.paper_report import write_paper_report
    from leakres_cli.redact import mask_urls, redact_text

    results.update(mask_urls(results))  # every credential in any URL it holds (in place: callers
    summary = redact_text(summary)  # read it back), and in the summary's text

    try:
        staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=STAGING_PREFIX))
    except OSError as exc:
        raise LeakresError(f"cannot write into {out_dir}: {exc.strerror or exc}") from exc
    try:
        try:
            write_text_atomic(staging / "summary.md", summary)
            write_paper_report(results, staging)
            write_json_atomic(staging / "results.json", results)
        except OSError as exc:  # matplotlib writes the plots itself
            raise LeakresError(f"cannot write the tables/plots into {out_dir}: {exc}") from exc
        except LeakresError as exc:  # name the file the user knows, not the staging copy
            raise LeakresError(str(exc).replace(str(staging), str(out_dir))) from exc
        files = sorted(p for p in staging.rglob("*") if p.is_file())
        files.sort(key=lambda p: p.name == "results.json")  # stable: results.json last
        written = []
        for src in files:
            dest = out_dir / src.relative_to(staging)
            try:
                move_into_place(src, dest)
            except OSError as exc:
                raise LeakresError(f"cannot write {dest}: {exc.strerror or exc}") from exc
            written.append(dest)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def remove_partial_writes(out_dir: Path) -> None:
    """Temp files and staging directories a killed run left behind (call with the run lock held)."""
    for staging in out_dir.glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(staging, ignore_errors=True)
    for tmp in out_dir.rglob(".*.tmp"):
        if tmp.is_file():
            tmp.unlink(missing_ok=True)

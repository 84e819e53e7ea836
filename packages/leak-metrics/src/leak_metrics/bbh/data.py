"""BBH data: the 27 task names, loading a task (local copy or the canonical download), and the
seeded choice of examples to score.

Files, as in suzgunmirac/BIG-Bench-Hard: ``bbh/<task>.json`` (``{"examples": [{"input",
"target"}, ...]}``) and ``cot-prompts/<task>.txt`` (a canary header, ``-----``, then the task
description and three worked examples). Where they are read from:

- ``data_dir`` when given, else ``$LEAKRES_DATA_DIR/bbh`` when that variable is set;
- otherwise (or when a file is missing there and ``source="auto"``) the canonical files are
  downloaded once from the repository's raw URLs at the pinned commit ``BBH_COMMIT`` (never a
  moving branch) into ``cache_dir`` (default ``$XDG_CACHE_HOME/leak_metrics/bbh`` or
  ``~/.cache/leak_metrics/bbh``).

Download rules (:func:`fetch_verified`): at most ``MAX_DOWNLOAD_BYTES`` per file; the sha256 must
equal the pinned one in :mod:`leak_metrics.bbh.checksums`, else :class:`BBHDownloadError` and
nothing is cached; the cache file is written atomically (temp file in the same directory, then
``os.replace``), so a crash or a truncated transfer never leaves a partial file; a cached file
whose hash does not match is fetched again, never trusted. Files in ``data_dir`` are the user's
own copy and are read as they are.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import os
import random
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from leak_metrics.atomic import atomic_write
from leak_metrics.bbh.checksums import BBH_COMMIT, SHA256
from leak_metrics.errors import InputError, LeakMetricsError

logger = logging.getLogger(__name__)

BBH_TASKS: tuple[str, ...] = (
    "boolean_expressions",
    "causal_judgement",
    "date_understanding",
    "disambiguation_qa",
    "dyck_languages",
    "formal_fallacies",
    "geometric_shapes",
    "hyperbaton",
    "logical_deduction_five_objects",
    "logical_deduction_seven_objects",
    "logical_deduction_three_objects",
    "movie_recommendation",
    "multistep_arithmetic_two",
    "navigate",
    "object_counting",
    "penguins_in_a_table",
    "reasoning_about_colored_objects",
    "ruin_names",
    "salient_translation_error_detection",
    "snarks",
    "sports_understanding",
    "temporal_sequences",
    "tracking_shuffled_objects_five_objects",
    "tracking_shuffled_objects_seven_objects",
    "tracking_shuffled_objects_three_objects",
    "web_of_lies",
    "word_sorting",
)

REMOTE_BASE = f"https://raw.githubusercontent.com/suzgunmirac/BIG-Bench-Hard/{BBH_COMMIT}"
# The largest upstream file is 286,443 bytes; 4 MiB leaves room and stops a runaway response.
MAX_DOWNLOAD_BYTES = 4 * 1024 * 1024
_CHUNK = 64 * 1024


class BBHDownloadError(LeakMetricsError):
    """A BBH file could not be downloaded intact (network, size cap, truncation, hash)."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_verified(
    url: str,
    dest: Path,
    sha256: str,
    *,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    timeout_s: float = 60.0,
) -> Path:
    """Download ``url`` to ``dest`` when its size is at most ``max_bytes`` and its sha256 is
    ``sha256``; written atomically (temp file next to ``dest``, then ``os.replace``). Raises
    :class:`BBHDownloadError` otherwise and leaves ``dest`` as it was."""
    digest = hashlib.sha256()
    size = 0
    declared: str | None = None
    # Every check runs inside the block, so a failed one leaves ``dest`` untouched.
    with atomic_write(dest, "wb", suffix=".part", durable=True) as out:
        try:
            with urllib.request.urlopen(url, timeout=timeout_s) as reply:
                declared = reply.headers.get("Content-Length")
                if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                    raise BBHDownloadError(
                        f"{url}: {declared} bytes declared, over the {max_bytes}-byte cap"
                    )
                while chunk := reply.read(_CHUNK):
                    size += len(chunk)
                    if size > max_bytes:
                        raise BBHDownloadError(f"{url}: over the {max_bytes}-byte cap")
                    digest.update(chunk)
                    out.write(chunk)
        except BBHDownloadError:
            raise
        except Exception as exc:  # URLError, HTTPError, IncompleteRead (truncated), timeout
            raise BBHDownloadError(f"{url}: download failed ({type(exc).__name__}: {exc})") from exc
        if declared is not None and declared.isdigit() and size != int(declared):
            raise BBHDownloadError(
                f"{url}: truncated download ({size} of {declared} bytes); not cached"
            )
        if digest.hexdigest() != sha256:
            raise BBHDownloadError(
                f"{url}: sha256 {digest.hexdigest()} of {size} bytes != pinned {sha256} "
                "(truncated or changed upstream); not cached"
            )
    return dest


def default_data_dir() -> Path | None:
    """``$LEAKRES_DATA_DIR/bbh``, or ``None`` (then only the download is used)."""
    env = os.environ.get("LEAKRES_DATA_DIR")
    return Path(env) / "bbh" if env else None


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "leak_metrics" / "bbh"


@dataclass(frozen=True)
class BBHTask:
    """One task: its examples (``{"input", "target"}``) and the few-shot CoT prompt text (canary
    header removed)."""

    name: str
    examples: list[dict[str, str]]
    cot_prompt: str


def _strip_canary(text: str) -> str:
    marker = "\n-----\n"
    if marker in text:
        return text.split(marker, 1)[1]
    return text


def _read_or_fetch(
    relative: str,
    data_dir: Path | None,
    source: str,
    cache_dir: Path,
    *,
    remote_base: str = REMOTE_BASE,
    checksums: Mapping[str, str] = SHA256,
) -> str:
    local = data_dir / relative if data_dir is not None else None
    if source in ("local", "auto") and local is not None and local.is_file():
        return local.read_text(encoding="utf-8")
    if source == "local":
        where = local if local is not None else f"<no data dir>/{relative}"
        raise FileNotFoundError(
            f"BBH file {where} not found; set LEAKRES_DATA_DIR, pass data_dir, or use source='remote'"
        )
    expected = checksums.get(relative)
    if expected is None:
        raise BBHDownloadError(f"no pinned sha256 for BBH file {relative}; refusing to download")
    cached = cache_dir / relative
    if cached.is_file():
        actual = sha256_file(cached)
        if actual == expected:
            return cached.read_text(encoding="utf-8")
        logger.warning(
            "cached BBH file %s has sha256 %s, not the pinned one; fetching again", cached, actual
        )
    fetch_verified(f"{remote_base}/{relative}", cached, expected)
    return cached.read_text(encoding="utf-8")


def load_bbh_task(
    task: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    source: str = "auto",
    cache_dir: str | os.PathLike[str] | None = None,
) -> BBHTask:
    """Load one task. ``source``: ``"local"`` (data dir only), ``"remote"`` (the canonical files,
    downloaded once into the disk cache) or ``"auto"`` (local when present, else remote)."""
    if task not in BBH_TASKS:
        close = difflib.get_close_matches(task, BBH_TASKS, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ValueError(f"unknown BBH task '{task}'; {hint}Known: {', '.join(BBH_TASKS)}")
    if source not in ("local", "remote", "auto"):
        raise ValueError(f"source must be 'local', 'remote' or 'auto', got '{source}'")
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    examples_text = _read_or_fetch(f"bbh/{task}.json", root, source, cache)
    prompt_text = _read_or_fetch(f"cot-prompts/{task}.txt", root, source, cache)
    where = f"bbh/{task}.json"
    try:
        examples = json.loads(examples_text)["examples"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{where}: expected a JSON object with 'examples'") from exc
    if not isinstance(examples, list):
        raise InputError(f"{where}: 'examples' must be a list")
    for i, example in enumerate(examples):
        for key in ("input", "target"):
            if not isinstance(example, dict) or not isinstance(example.get(key), str):
                raise InputError(f"{where}: example #{i} has no string field '{key}'")
    return BBHTask(task, examples, _strip_canary(prompt_text).strip())


def select_examples(n_examples: int, limit: int | None, seed: int, task: str) -> list[int]:
    """Indices of the examples to score: all, or ``limit`` drawn with a per-task seeded RNG."""
    if limit is None or limit >= n_examples:
        return list(range(n_examples))
    rng = random.Random(f"{seed}:{task}")
    return sorted(rng.sample(range(n_examples), limit))

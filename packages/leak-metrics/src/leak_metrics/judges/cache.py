"""On-disk verdict cache: one small JSON file per key, safe to share between threads and runs.

An entry is ``{"verdict": "correct" | "incorrect", "reason": str}``. A file that is not exactly
that (garbage or truncated bytes, not UTF-8, other JSON, wrong types, unreadable) is *ignored*:
one warning names the file, :meth:`VerdictCache.get` returns ``None`` and the item is judged again
(the fresh verdict then replaces the file). A bad file never crashes the judge and never reads as
"incorrect". Unjudged (``None``) verdicts are never stored, so a rerun retries them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from leak_metrics.atomic import atomic_write

logger = logging.getLogger(__name__)

VERDICTS = ("correct", "incorrect")


def cache_key(
    judge_model: str,
    prompt_version: str,
    question: str,
    answer: str,
    aliases: Sequence[str],
    response: str,
    options: Sequence[str] = (),
) -> str:
    """sha256 over the fields that determine a verdict (no endpoint, never the API key)."""
    payload = json.dumps(
        [judge_model, prompt_version, question, answer, list(aliases), response, list(options)],
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def parse_entry(raw: bytes) -> dict[str, str] | None:
    """The entry held by a cache file's bytes, or ``None`` when they are not a valid entry.

    Never raises: every malformed input (bytes, encoding, JSON, shape, types) gives ``None``.
    """
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    verdict, reason = data.get("verdict"), data.get("reason")
    if verdict not in VERDICTS or not isinstance(reason, str):
        return None
    return {"verdict": verdict, "reason": reason}


class VerdictCache:
    """Maps a cache key to ``{"verdict": "correct"|"incorrect", "reason": str}``.

    Only decided verdicts are stored: an unjudged item is retried on the next run.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, str] | None:
        """The valid entry for ``key``; ``None`` when absent or unusable (warned once per read)."""
        path = self._path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:  # a directory, no permission, I/O error: judge again
            logger.warning("ignoring unreadable judge cache file %s (%s)", path, type(exc).__name__)
            return None
        entry = parse_entry(raw)
        if entry is None:
            logger.warning(
                "ignoring malformed judge cache file %s (%d bytes; expected a JSON object "
                'with "verdict": "correct"|"incorrect" and a string "reason"); judging again',
                path,
                len(raw),
            )
        return entry

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Store a decided verdict; refuses anything else so no bad entry is ever written."""
        if value.get("verdict") not in VERDICTS or not isinstance(value.get("reason"), str):
            raise ValueError(f"not a decided verdict entry: {sorted(value)}")
        # Write-then-rename so a concurrent reader never sees half a file.
        with atomic_write(self._path(key)) as handle:
            json.dump({"verdict": value["verdict"], "reason": value["reason"]}, handle)

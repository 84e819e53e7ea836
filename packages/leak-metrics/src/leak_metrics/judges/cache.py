"""On-disk verdict cache: one small JSON file per key, safe to share between threads and runs."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def cache_key(
    judge_model: str,
    prompt_version: str,
    question: str,
    answer: str,
    aliases: Sequence[str],
    response: str,
) -> str:
    """sha256 over the fields that determine a verdict (no endpoint, never the API key)."""
    payload = json.dumps(
        [judge_model, prompt_version, question, answer, list(aliases), response],
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class VerdictCache:
    """Maps a cache key to ``{"verdict": "correct"|"incorrect", "reason": str}``.

    Only decided verdicts are stored: an unjudged item is retried on the next run.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write-then-rename so a concurrent reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(value, handle, ensure_ascii=False)
        os.replace(tmp, path)

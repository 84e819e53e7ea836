"""On-disk JSON cache in front of any backend.

Key = sha256 of the canonical JSON of (backend id, model, prompt version, messages, sampling
parameters). One small JSON file per completion under ``cache_dir/<key[:2]>/<key>.json``, written
atomically (temp file + rename) so concurrent runs never see half-written entries. Only
completions are cached, never failures; credentials are not part of keys or entries.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kg_qgen.atomic import atomic_write
from kg_qgen.llm.backend import LLMBackend, LLMBackendError, Messages
from kg_qgen.llm.prompts import PROMPT_VERSION

__all__ = ["CachedBackend", "cache_key"]


def cache_key(
    backend_id: str, model: str, prompt_version: str, messages: Messages, params: dict[str, Any]
) -> str:
    payload = {
        "backend": backend_id,
        "model": model,
        "prompt_version": prompt_version,
        "messages": messages,
        "params": params,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CachedBackend:
    """Wraps ``backend``; cached prompts are answered from disk, the rest go to the backend.

    ``hits`` and ``misses`` count lookups since creation (tests and progress reports use them).
    """

    def __init__(
        self, backend: LLMBackend, cache_dir: str | Path, prompt_version: str = PROMPT_VERSION
    ) -> None:
        self.backend = backend
        self.cache_dir = Path(cache_dir)
        self.prompt_version = prompt_version
        self.backend_id = backend.backend_id
        self.model = backend.model
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"CachedBackend({self.backend!r}, cache_dir={str(self.cache_dir)!r})"

    def describe(self) -> dict[str, Any]:
        inner = getattr(self.backend, "describe", None) or getattr(self.backend, "settings", None)
        base = inner() if callable(inner) else {"backend": self.backend_id, "model": self.model}
        return {**base, "cache_dir": str(self.cache_dir), "prompt_version": self.prompt_version}

    def settings(self) -> dict[str, Any]:
        """Deprecated alias of :meth:`describe` (the run metadata every family reports)."""
        return self.describe()

    def _path(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def _read(self, key: str) -> str | None:
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            # a corrupt or unreadable entry (bad JSON, bad bytes, a folder in its place, absurd
            # nesting or numbers) is a miss; the fresh completion replaces it
            return None
        value = entry.get("completion") if isinstance(entry, dict) else None
        return value if isinstance(value, str) else None

    def _write(self, key: str, completion: str) -> None:
        entry = {"backend": self.backend_id, "model": self.model, "completion": completion}
        with atomic_write(self._path(key)) as fh:
            json.dump(entry, fh, ensure_ascii=False)

    def complete_many(
        self,
        prompts: list[Messages],
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        response_format_json: bool = True,
    ) -> list[str]:
        params = {
            "temperature": temperature,
            "max_tokens": max_tokens,
            "response_format_json": response_format_json,
        }
        keys = [
            cache_key(self.backend_id, self.model, self.prompt_version, m, params) for m in prompts
        ]
        results: list[str | None] = [self._read(k) for k in keys]
        todo = [i for i, r in enumerate(results) if r is None]
        self.hits += len(prompts) - len(todo)
        self.misses += len(todo)
        errors: dict[int, str] = {}
        if todo:
            try:
                fresh: list[str | None] = list(
                    self.backend.complete_many([prompts[i] for i in todo], **params)
                )
            except LLMBackendError as err:
                if len(err.results) != len(todo):
                    raise
                fresh = err.results
                errors = {todo[j]: msg for j, msg in err.errors.items()}
            for i, text in zip(todo, fresh, strict=True):
                if text is not None:
                    self._write(keys[i], text)
                    results[i] = text
        if errors:
            raise LLMBackendError(
                f"{len(errors)} of {len(prompts)} request(s) failed; first: {errors[min(errors)]}",
                results=results,
                errors=errors,
            )
        return [r for r in results if r is not None]

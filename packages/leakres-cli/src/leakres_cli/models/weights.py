"""What was scored: a content hash of a model's weights, so cells are keyed on the weights, not the path.

A model retrained in place at the same path must be rescored, not answered from the old cells
(issue 39, item 1). :func:`model_digest` hashes the files that hold a local model's weights (every
``*.safetensors`` / ``*.bin`` / ``*.gguf`` shard, a peft adapter's ``adapter_config.json``); a
registered GGUF model (the embedded SmolLM2) is keyed on its GGUF file, the source of the cached
safetensors copy. Each file is hashed streamed (sha256, 1 MiB reads) and the hash is cached in
``<cache dir>/weight-hashes.json`` under the file's resolved path, size and mtime (ns), so a second
call on unchanged files reads no weights (any write changes the ctime too). :func:`endpoint_digest` keys a model behind an endpoint on
what a black box offers: the served model list and a fixed short greedy completion.

:func:`leakres_cli.scale.store.digest_key` turns a digest record into the short key a cell stores.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import write_json_atomic

#: the files whose bytes are a model's weights (or decide how an adapter applies to them)
WEIGHT_PATTERNS = ("*.safetensors", "*.bin", "*.gguf", "*.pt", "adapter_config.json")
CACHE_FILE = "weight-hashes.json"
#: the fixed greedy completion that keys an endpoint's model (a served model retrained under the
#: same name answers it differently, at the cost of one short request)
PROBE_PROMPT = "The capital of France is"
PROBE_TOKENS = 8
_CHUNK = 1 << 20


def _cache_path() -> Path:
    from leakres_cli.models.catalog import cache_dir

    return cache_dir() / CACHE_FILE


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # absent or unreadable: every file is hashed again (the cache is only a shortcut)
    return data if isinstance(data, dict) else {}


def file_sha256(path: Path, cache: dict[str, Any]) -> str:
    """The sha256 of ``path``'s bytes: from ``cache`` when its size and mtime are unchanged, else
    streamed and put into ``cache`` (the caller saves it)."""
    resolved = str(path.resolve())
    st = path.stat()
    hit = cache.get(resolved)
    stamp = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns}
    if isinstance(hit, dict) and all(hit.get(k) == v for k, v in stamp.items()):
        return str(hit["sha256"])
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    cache[resolved] = {**stamp, "sha256": h.hexdigest()}
    return h.hexdigest()


def weight_files(path: Path) -> list[Path]:
    """The weight files of a model directory (sorted, recursive: sharded and nested layouts), or
    ``[path]`` for one file."""
    if path.is_file():
        return [path]
    found = {p for pattern in WEIGHT_PATTERNS for p in path.rglob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: p.relative_to(path).as_posix())


def hash_files(root: Path, files: Iterable[Path]) -> dict[str, Any]:
    """``{"sha256", "files"}``: one hash over each file's relative name and content hash."""
    cache_path = _cache_path()
    cache = _read_cache(cache_path)
    before = dict(cache)
    per_file = {}
    for f in files:
        name = f.name if root.is_file() else f.relative_to(root).as_posix()
        try:
            per_file[name] = file_sha256(f, cache)
        except OSError as exc:
            raise LeakresError(f"cannot read the weights file {f}: {exc.strerror or exc}") from exc
    if cache != before:
        # a read-only cache dir only costs the next call the hashing again
        with contextlib.suppress(LeakresError):
            write_json_atomic(cache_path, cache)
    combined = hashlib.sha256(json.dumps(per_file, sort_keys=True).encode()).hexdigest()
    return {"sha256": combined, "files": per_file}


def _local_source(name_or_path: str) -> Path | None:
    """The file or directory whose bytes are ``name_or_path``'s weights; None for a Hub id that is
    not in the local Hugging Face cache."""
    from leakres_cli.models.catalog import MODELS, _gguf_path

    if name_or_path in MODELS and MODELS[name_or_path].gguf_filename:
        return _gguf_path(MODELS[name_or_path])
    path = Path(name_or_path).expanduser()
    if path.exists():
        return path
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name_or_path, local_files_only=True))
    except Exception:  # not cached (or not a Hub id): nothing local to hash
        return None


def model_digest(name_or_path: str) -> dict[str, Any]:
    """``{"model", "path", "sha256", "files"}`` of a local model (``sha256`` None: a Hub id with no
    local copy, keyed on its name only; the record says so)."""
    source = _local_source(name_or_path)
    if source is None:
        return {"model": name_or_path, "path": None, "sha256": None, "files": {},
                "note": "not found locally: keyed on the name only"}  # fmt: skip
    files = weight_files(source)
    if not files:
        raise LeakresError(f"model {source}: no weight files ({', '.join(WEIGHT_PATTERNS)})")
    return {"model": name_or_path, "path": str(source), **hash_files(source, files)}


def endpoint_digest(url: str, model: str) -> dict[str, Any]:
    """``{"model", "endpoint", "served", "probe", "sha256"}`` of a model behind an OpenAI-compatible
    endpoint: the served model ids and the greedy completion of :data:`PROBE_PROMPT` (the URL is
    kept redacted; its credentials never enter the record)."""
    import openai

    from leakres_cli.redact import redact_url

    client = openai.OpenAI(
        base_url=url,
        api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY",
        timeout=30.0,
        max_retries=1,
    )
    try:
        try:
            served = sorted(m.id for m in client.models.list())
        except openai.NotFoundError:
            served = []
        try:
            reply = client.completions.create(
                model=model, prompt=PROBE_PROMPT, max_tokens=PROBE_TOKENS, temperature=0.0
            )
            probe: str | None = reply.choices[0].text if reply.choices else ""
        except openai.APIStatusError:  # no /completions (a chat-only server): the model list only
            probe = None
    except openai.APIError as exc:
        raise LeakresError(
            f"endpoint {redact_url(url)}: cannot probe model '{model}' ({type(exc).__name__})"
        ) from None
    finally:
        client.close()
    record = {"model": model, "endpoint": redact_url(url), "served": served, "probe": probe}
    return {
        **record,
        "sha256": hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest(),
    }

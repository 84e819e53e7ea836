"""Command-line hook for ``kg-qgen build`` (imported by :mod:`kg_qgen.cli` when present).

:func:`llm_options` adds the ``--llm-*`` options; :func:`from_cli` turns them into the generator,
the LLM checks and the ``text`` source's keyword arguments. The API key is deliberately not an
option (it would end up in shell history and process lists): set ``KG_QGEN_LLM_API_KEY`` or
``OPENAI_API_KEY``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

__all__ = ["backend_from_options", "from_cli", "llm_options"]

_OPTIONS = [
    click.option(
        "--llm-backend",
        type=click.Choice(["openai", "transformers"]),
        default=None,
        help="LLM backend; without it no LLM is used.",
    ),
    click.option("--llm-model", default=None, help="Model name (openai) or path / hub id."),
    click.option("--llm-base-url", default=None, help="OpenAI-compatible endpoint root (openai)."),
    click.option("--llm-gguf-file", default=None, help="GGUF file inside --llm-model (local)."),
    click.option(
        "--llm-cache-dir",
        type=click.Path(path_type=Path),
        default=None,
        help="On-disk completion cache (recommended).",
    ),
    click.option("--llm-max-concurrency", type=click.IntRange(min=1), default=8, show_default=True),
    click.option("--llm-timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True),
    click.option("--llm-max-retries", type=click.IntRange(min=0), default=4, show_default=True),
    click.option("--llm-batch-size", type=click.IntRange(min=1), default=16, show_default=True),
    click.option("--llm-generate", is_flag=True, help="Generate questions with the LLM."),
    click.option("--llm-verify", is_flag=True, help="Add the decomposition and uniqueness checks."),
    click.option("--llm-n-paraphrases", type=click.IntRange(min=1), default=3, show_default=True),
    click.option(
        "--llm-max-parse-retries", type=click.IntRange(min=0), default=2, show_default=True
    ),
    click.option(
        "--llm-chunk-words",
        type=click.IntRange(min=20),
        default=200,
        show_default=True,
        help="Words per chunk for --source text.",
    ),
]


def llm_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Click decorator adding every ``--llm-*`` option (parameter names start with ``llm_``)."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def backend_from_options(options: dict[str, Any], seed: int = 0) -> Any:
    """The (cached, when ``llm_cache_dir`` is set) backend described by the options."""
    from kg_qgen.llm.backend import make_backend
    from kg_qgen.llm.cache import CachedBackend

    name = options.get("llm_backend")
    model = options.get("llm_model")
    if not model:
        raise click.UsageError("--llm-model is required with --llm-backend")
    if name == "openai":
        if not options.get("llm_base_url"):
            raise click.UsageError("--llm-base-url is required with --llm-backend openai")
        backend = make_backend(
            "openai",
            base_url=options["llm_base_url"],
            model=model,
            max_concurrency=options.get("llm_max_concurrency", 8),
            timeout=options.get("llm_timeout", 60.0),
            max_retries=options.get("llm_max_retries", 4),
            seed=seed,
        )
    else:
        backend = make_backend(
            name,
            model_name_or_path=model,
            batch_size=options.get("llm_batch_size", 16),
            gguf_file=options.get("llm_gguf_file"),
            seed=seed,
        )
    cache_dir = options.get("llm_cache_dir")
    return CachedBackend(backend, cache_dir) if cache_dir else backend


def from_cli(options: dict[str, Any], seed: int) -> dict[str, Any]:
    """``generator`` / ``checks`` / ``source_kwargs`` for ``kg-qgen build`` from ``--llm-*``."""
    wants = options.get("llm_generate") or options.get("llm_verify")
    ctx = click.get_current_context(silent=True)
    source = ctx.params.get("source") if ctx is not None else None
    if options.get("llm_backend") is None:
        if wants or source == "text":
            raise click.UsageError(
                "--llm-generate, --llm-verify and --source text need --llm-backend and --llm-model"
            )
        return {}
    backend = backend_from_options(options, seed)
    out: dict[str, Any] = {}
    if options.get("llm_generate"):
        from kg_qgen.llm_factory import make_llm_generator

        out["generator"] = make_llm_generator(
            seed=seed,
            backend=backend,
            n_paraphrases=options.get("llm_n_paraphrases", 3),
            max_parse_retries=options.get("llm_max_parse_retries", 2),
        )
    if options.get("llm_verify"):
        from kg_qgen.llm.checks import llm_checks

        out["checks"] = llm_checks(backend)
    if source == "text":
        out["source_kwargs"] = {
            "backend": backend,
            "chunk_words": options.get("llm_chunk_words", 200),
        }
    return out

"""Secrets never persist nor print: one function, :func:`redact_text`, for every place text leaves the CLI.

API keys are read from the environment only (LEAKRES_API_KEY, LEAK_METRICS_API_KEY, KG_QGEN_LLM_API_KEY,
OPENAI_API_KEY) and never enter the run configuration. A URL can still carry a secret
(``https://user:password@host/v1``, ``/v1;api_key=...``); a query-string key (``?api_key=``,
``?key=``) or a fragment is refused by :func:`check_judge_url` (the OpenAI client appends its paths
after the query, so it could not work). Every URL written or printed is masked whole
(:func:`redact_url`: userinfo, secret query and ``;`` parameters, fragment), and the cell
fingerprints hash the masked configuration (:func:`mask_urls`), so a stored fingerprint cannot be
used to check a guessed password offline.

:func:`redact_text` is applied to the plan (every format), the SLURM script, every error message
(``LeakresGroup``), every log record (:func:`install_log_redaction`) and the configuration stored in
results.json (hence the summary and the report). It masks the keys in the environment, URL
credentials, secret query values, bearer tokens and ``sk-`` keys (leak-metrics' ``redact``).
"""

from __future__ import annotations

import logging
import os
from typing import Any
from urllib.parse import urlsplit

REDACTED = "***"
#: Variables whose value is an API key (sent as a header; never written or printed).
KEY_VARIABLES = ("LEAKRES_API_KEY", "LEAK_METRICS_API_KEY", "KG_QGEN_LLM_API_KEY", "OPENAI_API_KEY")
# Configuration fields that hold URLs.
URL_FIELDS = ("judge_base_url",)


def redact_url(url: str) -> str:
    """``url`` with every credential form masked (leak-metrics' ``mask_url``): the userinfo,
    secret-looking query and ``;`` parameter values, and the whole fragment."""
    from leak_metrics.redact import mask_url

    return mask_url(url)


def mask_urls(obj: Any) -> Any:
    """A copy of a JSON-like object whose every string holding a URL (``://``) went through
    :func:`redact_url`: what the cell fingerprints hash and what results.json keeps."""
    if isinstance(obj, str):
        return redact_url(obj) if "://" in obj else obj
    if isinstance(obj, dict):
        return {k: mask_urls(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [mask_urls(v) for v in obj]
    return obj


def redact_config(config: dict[str, Any]) -> dict[str, Any]:
    """A copy of a run configuration (``RunConfig.to_dict()``) safe to write to disk."""
    safe = dict(config)
    for name in URL_FIELDS:
        if isinstance(safe.get(name), str):
            safe[name] = redact_url(safe[name])
    return safe


def redact_text(text: str) -> str:
    """``text`` with every credential it may carry replaced by ``***``: the API keys of the
    environment (:data:`KEY_VARIABLES`), ``user:password@`` in URLs, secret-looking query values,
    bearer tokens and ``sk-`` keys. The one redaction for everything the CLI prints or writes."""
    from leak_metrics.redact import redact

    return redact(text, [os.environ.get(name) for name in KEY_VARIABLES])


def check_judge_url(url: str | None) -> str | None:
    """Why ``url`` cannot be a judge endpoint (None: it can): a query string or fragment would be
    glued in front of the client's ``/chat/completions`` path, so a key there is never sent as the
    endpoint expects; the key belongs in LEAKRES_API_KEY (sent as the Authorization header)."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return "--judge-base-url is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"--judge-base-url expects http(s)://host[:port]/path, got {redact_url(url)}"
    if parts.query or parts.fragment:
        return (
            "--judge-base-url takes no query string or fragment (the client appends "
            "/chat/completions after it; put an API key in LEAKRES_API_KEY), got " + redact_url(url)
        )
    return None


class RedactingFilter(logging.Filter):
    """Rewrites a log record's message through :func:`redact_text` (keeps the record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to logging's own error report
            return True
        clean = redact_text(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def install_log_redaction() -> None:
    """Redact every record of every handler the root logger has or gets (idempotent)."""
    root = logging.getLogger()
    if not any(isinstance(f, RedactingFilter) for f in root.filters):
        root.addFilter(RedactingFilter())
    for handler in (*root.handlers, logging.lastResort):
        if handler is not None and not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())

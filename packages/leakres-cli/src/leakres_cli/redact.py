"""Secrets never persist: credentials in URLs are redacted before anything is written.

API keys are read from the environment only (LEAK_METRICS_API_KEY / OPENAI_API_KEY, by leak-metrics) and
never enter the run configuration. A URL can still carry a secret (``https://user:password@host/v1``,
``?api_key=...``); every URL-valued field of the configuration is stored with those parts replaced by
``***``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "***"
# Query parameters whose value is a credential (api_key, access_token, sig, password, ...).
_SECRET_PARAM = re.compile(r"key|token|secret|passw|auth|sig|cred", re.IGNORECASE)
# Configuration fields that hold URLs.
URL_FIELDS = ("judge_base_url",)


def redact_url(url: str) -> str:
    """``url`` with its userinfo and secret-looking query values replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED  # not parseable: it may be anything, so nothing of it is kept
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode(
            [(k, REDACTED if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*"
        )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_config(config: dict[str, Any]) -> dict[str, Any]:
    """A copy of a run configuration (``RunConfig.to_dict()``) safe to write to disk."""
    safe = dict(config)
    for name in URL_FIELDS:
        if isinstance(safe.get(name), str):
            safe[name] = redact_url(safe[name])
    return safe

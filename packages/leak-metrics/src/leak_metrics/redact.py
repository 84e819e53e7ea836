"""Removing secrets from text before it becomes a verdict reason, an exception message, a log
line or a cache entry.

Removed: every exact secret passed (the API key in use), ``Bearer/Basic/Token <token>``, values of
``api_key`` / ``authorization`` / ``x-api-key`` fields (``=`` or ``:`` separated, quoted or not),
OpenAI-style ``sk-...`` keys, the ``user:password@`` part of URLs and the values of secret-looking
query parameters (``?key=``, ``&access_token=``, ``sig``, ``password``, ...). Each is replaced by
``***`` so the text still says *that* something was there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

MASK = "***"

_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@'\"]+@")
_VALUE = r"[^\s'\",;&}\]]+"
_BEARER = re.compile(rf"(?i)\b((?:bearer|basic|token)\s+){_VALUE}")
_KEY_FIELD = re.compile(
    r"(?i)((?:api[_-]?key|authorization|x-api-key|access[_-]?token)['\"]?\s*[:=]\s*['\"]?"
    rf"(?:(?:bearer|basic|token)\s+)?){_VALUE}"
)
# A query parameter whose name says it is a credential: key, api_key, token, secret, sig, auth, ...
_QUERY_SECRET = re.compile(
    r"(?i)([?&;][^=&\s'\"#]*(?:key|token|secret|passw|auth|sig|cred)[^=&\s'\"#]*=)[^&\s'\"#]+"
)
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")
_MIN_SECRET = 4  # shorter "secrets" (e.g. a placeholder "x") would mask ordinary words


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with the secrets and credential patterns above replaced by ``***``."""
    for secret in sorted(
        {s for s in secrets if s and len(s) >= _MIN_SECRET}, key=len, reverse=True
    ):
        text = text.replace(secret, MASK)
    text = _URL_CREDENTIALS.sub(rf"\1{MASK}@", text)
    text = _BEARER.sub(rf"\1{MASK}", text)
    text = _KEY_FIELD.sub(rf"\1{MASK}", text)
    text = _QUERY_SECRET.sub(rf"\1{MASK}", text)
    return _SK_KEY.sub(MASK, text)


def strip_url_credentials(url: str) -> str:
    """``url`` without its ``user:password@`` part (for messages and settings records)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def url_secrets(url: str | None) -> list[str]:
    """The user name and password embedded in ``url`` (to redact them wherever they appear)."""
    if not url:
        return []
    parts = urlsplit(url)
    return [s for s in (parts.username, parts.password) if s]

"""Removing secrets from text before it becomes a verdict reason, an exception message, a log
line or a cache entry.

Removed: every exact secret passed (the API key in use), ``Bearer/Basic/Token <token>``, values of
``api_key`` / ``authorization`` / ``x-api-key`` fields (``=`` or ``:`` separated, quoted or not),
OpenAI-style ``sk-...`` keys, and in every URL (:func:`mask_url`) the ``user:password@`` part, the
values of secret-looking query and ``;`` parameters (``?key=``, ``&access_token=``, ``;api_key=``,
``sig``, ``password``, ...) and the fragment. Each is replaced by
``***`` so the text still says *that* something was there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

MASK = "***"

# userinfo up to the LAST "@" of the authority (a password may hold a raw "@")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s'\"?#]*@")
# A URL inside free text (up to a space or quote): masked whole by :func:`mask_url`.
_URL_IN_TEXT = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+")
_SECRET_NAME = r"[^=&;/\s'\"#?]*(?:key|token|secret|passw|auth|sig|cred)[^=&;/\s'\"#?]*="
# Secret-looking ``;name=value`` path parameters (a value ends at "/" or ";") and ``?``/``&``/``;``
# query parameters (a value ends at "&", ";" or "#").
_PATH_PARAM = re.compile(rf"(?i)(;{_SECRET_NAME})[^/;]*")
_QUERY_PARAM = re.compile(rf"(?i)((?:^|[&;]){_SECRET_NAME})[^&;]*")
_VALUE = r"[^\s'\",;&}\]]+"
_BEARER = re.compile(rf"(?i)\b((?:bearer|basic|token)\s+){_VALUE}")
_KEY_FIELD = re.compile(
    r"(?i)((?:api[_-]?key|authorization|x-api-key|access[_-]?token)['\"]?\s*[:=]\s*['\"]?"
    rf"(?:(?:bearer|basic|token)\s+)?){_VALUE}"
)
# A query parameter whose name says it is a credential: key, api_key, token, secret, sig, auth, ...
_QUERY_SECRET = re.compile(
    r"(?i)([?&;#][^=&\s'\"#]*(?:key|token|secret|passw|auth|sig|cred)[^=&\s'\"#]*=)[^&\s'\"#]+"
)
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")
_MIN_SECRET = 4  # shorter "secrets" (e.g. a placeholder "x") would mask ordinary words


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with the secrets and credential patterns above replaced by ``***``."""
    for secret in sorted(
        {s for s in secrets if s and len(s) >= _MIN_SECRET}, key=len, reverse=True
    ):
        text = text.replace(secret, MASK)
    text = _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0)), text)
    text = _URL_CREDENTIALS.sub(rf"\1{MASK}@", text)
    text = _BEARER.sub(rf"\1{MASK}", text)
    text = _KEY_FIELD.sub(rf"\1{MASK}", text)
    text = _QUERY_SECRET.sub(rf"\1{MASK}", text)
    return _SK_KEY.sub(MASK, text)


def mask_url(url: str) -> str:
    """``url`` with every credential form masked by ``***``: the userinfo (``user:password@``),
    secret-looking ``;name=value`` path parameters and ``?``/``&``/``;`` query parameters
    (``api_key``, ``key``, ``token``, ``sig``, ...) and the whole fragment (a client never sends
    it; OAuth puts tokens there). An unparseable URL is ``***`` whole. Idempotent."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rsplit('@', 1)[1]}"
    path = _PATH_PARAM.sub(rf"\1{MASK}", parts.path)
    query = _QUERY_PARAM.sub(rf"\1{MASK}", parts.query)
    fragment = MASK if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


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

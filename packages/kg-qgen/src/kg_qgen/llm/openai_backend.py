"""OpenAI-compatible chat-completions backend (OpenAI, vLLM, llama.cpp server, Ollama, ...).

Uses the official ``openai`` client (the ``llm`` extra). Requests of a batch run concurrently in
a thread pool of ``max_concurrency`` workers. Retries and timeouts are the client's own
(``openai.OpenAI(max_retries=..., timeout=...)``): connection errors, timeouts, 408, 409, 429 and
5xx are retried up to ``max_retries`` times with its exponential backoff (0.5 s doubling to 8 s,
jittered; a server's ``Retry-After`` is honoured) and logged by the client ("Retrying request in
... (retry k of n)"); other 4xx errors fail at once. leak-metrics' LLM judge configures its client
the same way (tests/test_shared_contracts.py checks both).

The API key comes from the ``api_key`` argument, else ``LEAKRES_API_KEY``, else
``KG_QGEN_LLM_API_KEY`` (this package's older name), else ``OPENAI_API_KEY``. It is kept in a
private attribute, is not part of ``repr``, ``backend_id``, cache keys or results, and is redacted
from every error message and log line.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from kg_qgen.llm.backend import LLMBackendError, Messages

__all__ = ["OpenAIBackend"]

log = logging.getLogger(__name__)

API_KEY_ENV_VARS = ("LEAKRES_API_KEY", "KG_QGEN_LLM_API_KEY", "OPENAI_API_KEY")
# Local servers usually need no key, but the client insists on a non-empty string.
_NO_KEY = "no-key"


def _strip_userinfo(url: str) -> str:
    """The URL without any ``user:password@`` part (never put credentials in ids or logs)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible endpoint.

    Args:
        base_url: endpoint root, e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8000/v1``.
        model: model name sent with each request.
        api_key: explicit key; default from ``LEAKRES_API_KEY`` / ``KG_QGEN_LLM_API_KEY`` /
            ``OPENAI_API_KEY``.
        max_concurrency: at most this many requests in flight (default 8).
        timeout: seconds per request attempt, the client's ``timeout`` (default 60).
        max_retries: the client's retries per request (timeout, connection error, 408, 409, 429,
            5xx; default 4).
        backoff_base: deprecated and ignored: the client's backoff schedule applies.
        seed: sent as the request ``seed`` (servers that honour it sample reproducibly).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        max_concurrency: int = 8,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff_base: float = 1.0,
        seed: int | None = 0,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        try:
            import openai
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError(
                "OpenAIBackend needs the 'openai' package: pip install 'kg-qgen[llm]'"
            ) from err
        self._openai = openai
        self.base_url = base_url
        self.model = model
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.seed = seed
        self.backend_id = f"openai:{_strip_userinfo(base_url)}"
        key = api_key or next((os.environ[v] for v in API_KEY_ENV_VARS if os.environ.get(v)), "")
        self.__api_key = key
        self._client = openai.OpenAI(
            base_url=base_url, api_key=key or _NO_KEY, timeout=timeout, max_retries=max_retries
        )

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(base_url={_strip_userinfo(self.base_url)!r}, model={self.model!r}, "
            f"max_concurrency={self.max_concurrency}, timeout={self.timeout}, "
            f"max_retries={self.max_retries})"
        )

    def describe(self) -> dict[str, Any]:
        """Credential-free settings, for recording in results."""
        return {
            "backend": "openai",
            "base_url": _strip_userinfo(self.base_url),
            "model": self.model,
            "max_concurrency": self.max_concurrency,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
        }

    def settings(self) -> dict[str, Any]:
        """Deprecated alias of :meth:`describe` (the run metadata every family reports)."""
        return self.describe()

    def _redact(self, text: str) -> str:
        if self.__api_key:
            text = text.replace(self.__api_key, "***")
        return text

    def _retryable(self, err: Exception) -> bool:
        """What the openai client retries (so a failure of this kind used every attempt)."""
        o = self._openai
        if isinstance(err, o.APITimeoutError | o.APIConnectionError):
            return True
        return isinstance(err, o.APIStatusError) and (
            err.status_code in (408, 409, 429) or err.status_code >= 500
        )

    def _describe(self, err: Exception) -> str:
        o = self._openai
        if isinstance(err, o.APITimeoutError):
            return f"request timed out after {self.timeout:g} s"
        if isinstance(err, o.APIStatusError):
            return self._redact(f"HTTP {err.status_code}: {err.message}")
        return self._redact(f"{type(err).__name__}: {err}")

    def _complete_one(self, messages: Messages, params: dict[str, Any]) -> str:
        try:
            resp = self._client.chat.completions.create(
                model=self.model, messages=messages, **params
            )
        except Exception as err:  # the client has already retried what is worth retrying
            reason = self._describe(err)
            tried = f" after {self.max_retries + 1} attempt(s)" if self._retryable(err) else ""
            log.warning("%s: %s%s", self.backend_id, reason, tried)
            raise LLMBackendError(f"{self.backend_id}: {reason}{tried}") from None
        content = resp.choices[0].message.content if resp.choices else None
        if content is None:
            raise LLMBackendError("the endpoint returned no message content")
        return content

    def complete_many(
        self,
        prompts: list[Messages],
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        response_format_json: bool = True,
    ) -> list[str]:
        params: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens}
        if self.seed is not None:
            params["seed"] = self.seed
        if response_format_json:
            params["response_format"] = {"type": "json_object"}
        results: list[str | None] = [None] * len(prompts)
        errors: dict[int, str] = {}

        def run(i: int) -> None:
            try:
                results[i] = self._complete_one(prompts[i], params)
            except LLMBackendError as err:
                errors[i] = str(err)

        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            list(pool.map(run, range(len(prompts))))
        if errors:
            first = errors[min(errors)]
            raise LLMBackendError(
                f"{len(errors)} of {len(prompts)} request(s) failed; first: {first}",
                results=results,
                errors=errors,
            )
        return [r for r in results if r is not None]

"""LLM judge: asks a chat model for a JSON verdict, through an OpenAI-compatible endpoint or a
local transformers model.

Prompt (version ``PROMPT_VERSION``): a fixed system message stating the grading rules of the
alias judge in words - judge the committed answer (the first answer sentence,
``COMMITTED_ANSWER_RULE``); a hedge between candidates, a negation of the gold or a refusal is
incorrect (``HEDGE_RULE``); yes/no answers are compared with what the question asks, on both
polarities (``YES_NO_RULE``) - and a user message holding the question, the gold answer with its
accepted aliases, the candidate options the question shows, the response and its committed answer;
the model must answer with ``{"verdict": "correct"|"incorrect", "reason": "..."}``. Decoding is
greedy (temperature 0).

Reliability rules: requests run in a thread pool of ``max_concurrency`` workers; a failed request
is retried ``max_retries`` times, after which the verdict is ``None`` (unjudged) with the last error
as reason, never "incorrect". Over an OpenAI-compatible endpoint the transport retries (timeout,
connection error, 408, 409, 429, 5xx) and the per-request timeout are the openai client's own
(``openai.OpenAI(max_retries=..., timeout=...)``, its backoff: 0.5 s doubling to 8 s, jittered),
configured exactly like kg-qgen's ``OpenAIBackend`` (tests/test_shared_contracts.py); a reply that
is not the JSON above is asked again here, after ``backoff_s * 2**k`` seconds. A backend without
retries of its own (the local transformers one) has every failure asked again here. Decided verdicts are cached on disk keyed by sha256 of (judge model,
prompt version, question, gold, aliases, options, response). The API key is held only by the client
object, and every verdict reason, log line, exception message and cache entry is passed through
:func:`leak_metrics.redact.redact` (the key in use, bearer tokens, key fields, URL credentials), so
an error body that echoes the Authorization header cannot leak it. :meth:`LLMJudge.check_endpoint`
sends one small request and raises :class:`~leak_metrics.errors.JudgeEndpointError` saying whether
the endpoint is unreachable, refuses the key (401/403) or does not know the model (404).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Protocol
from urllib.parse import unquote, urlsplit

from leak_metrics._optional import require
from leak_metrics.datatypes import JudgeItem, Verdict
from leak_metrics.errors import JudgeEndpointError
from leak_metrics.judges.answer_span import committed_answer
from leak_metrics.judges.base import Judge
from leak_metrics.judges.cache import VerdictCache, cache_key
from leak_metrics.judges.local_backend import TransformersChatBackend
from leak_metrics.judges.prompt_rules import COMMITTED_ANSWER_RULE, HEDGE_RULE, YES_NO_RULE
from leak_metrics.redact import mask_url, redact, strip_url_credentials, url_secrets

logger = logging.getLogger(__name__)

PROMPT_VERSION = "leakres-judge-v3"

SYSTEM_PROMPT = (
    "You are a strict grader of short factual answers. Decide whether the RESPONSE states the "
    "GOLD ANSWER to the QUESTION. Accept any surface form that refers to the same entity or value "
    "as the gold answer or one of the accepted aliases (synonyms, abbreviations, translations, "
    "more specific descriptions that clearly identify it). Reject responses that give a different "
    f"answer. {COMMITTED_ANSWER_RULE} {HEDGE_RULE} {YES_NO_RULE} "
    "Reply with JSON only, exactly: "
    '{"verdict": "correct" or "incorrect", "reason": "<one short sentence>"}'
)

USER_TEMPLATE = (
    "QUESTION: {question}\n"
    "GOLD ANSWER: {answer}\n"
    "ACCEPTED ALIASES: {aliases}\n"
    "CANDIDATE OPTIONS: {options}\n"
    "RESPONSE: {response}\n"
    "COMMITTED ANSWER (the response's first answer sentence): {committed}\n"
    "Is the RESPONSE correct? Reply with the JSON object only."
)


def build_messages(item: JudgeItem) -> list[dict[str, str]]:
    """The exact chat messages sent to the judge model for ``item``."""
    aliases = "; ".join(item.aliases) if item.aliases else "(none)"
    options = "; ".join(item.options) if item.options else "(none shown)"
    user = USER_TEMPLATE.format(
        question=item.question,
        answer=item.answer,
        aliases=aliases,
        options=options,
        response=item.response,
        committed=committed_answer(item.response),
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


_JSON_OBJECT = re.compile(r"\{.*?\}", re.DOTALL)


class JudgeReplyError(ValueError):
    """The judge model answered, but not with the required JSON object."""


def parse_reply(text: str) -> tuple[bool, str]:
    """Parse the judge reply into ``(correct, reason)``; tolerant of code fences and prose around
    the object, strict about the ``verdict`` value."""
    for match in _JSON_OBJECT.finditer(text):
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        verdict = str(data.get("verdict", "")).strip().lower()
        if verdict in ("correct", "incorrect"):
            return verdict == "correct", str(data.get("reason", ""))
    snippet = text.strip().replace("\n", " ")[:80]
    raise JudgeReplyError(f"reply is not a JSON verdict: {snippet!r}")


@dataclass
class Usage:
    """Counters kept by an LLM judge (thread-safe updates through ``LLMJudge``)."""

    requests: int = 0
    failed_requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    unjudged: int = 0


class ChatBackend(Protocol):
    """Something that turns chat messages into a reply text plus token usage."""

    model_name: str

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, int]]: ...

    def describe(self) -> dict[str, Any]: ...


# Optional backend methods, used when present: ``redact(text) -> str`` (remove the backend's
# secrets) and ``check() -> None`` (raise JudgeEndpointError when the backend cannot be used).


@dataclass(frozen=True)
class OpenAIBackendConfig:
    """Settings of an OpenAI-compatible endpoint (the API key is passed separately, never here).

    model: judge model name sent to the endpoint. base_url: None = the openai client default
    (``OPENAI_BASE_URL`` or api.openai.com). timeout_s: per-request timeout. max_tokens: reply cap.
    """

    model: str = "gpt-4o-mini"
    base_url: str | None = None
    timeout_s: float = 60.0
    max_tokens: int = 200


#: the longest the endpoint check waits for its one test request (seconds)
CHECK_TIMEOUT_S = 10.0

# The key's lookup order, after an explicit api_key; LEAK_METRICS_API_KEY is this package's
# older name (the same order as kg-qgen's OpenAIBackend, with its own older name).
API_KEY_ENV_VARS = ("LEAKRES_API_KEY", "LEAK_METRICS_API_KEY", "OPENAI_API_KEY")
# Local servers (vLLM, llama.cpp) usually accept any key; the client insists on one.
NO_KEY = "no-key"


def api_key_from_env() -> tuple[str, str] | None:
    """``(variable, key)``: the first of :data:`API_KEY_ENV_VARS` that is set, None when none is;
    the key the judge sends when no ``api_key`` is given (callers must never print the key)."""
    return next(((v, os.environ[v]) for v in API_KEY_ENV_VARS if os.environ.get(v)), None)


class OpenAIChatBackend:
    """Chat completions through the ``openai`` client (extra ``llm``), temperature 0.

    ``max_retries`` is the client's transport retries (the judge passes its own ``max_retries``);
    ``config.timeout_s`` is the client's per-attempt timeout.
    """

    def __init__(
        self, config: OpenAIBackendConfig, api_key: str | None = None, *, max_retries: int = 0
    ) -> None:
        openai = require("openai", "llm", "the LLM judge over an OpenAI-compatible endpoint")
        found = api_key_from_env()
        key = api_key or (found[1] if found else "") or NO_KEY
        self.max_retries = max_retries
        self.config = config
        self.model_name = config.model
        self._openai = openai
        self._url_secrets = url_secrets(config.base_url)
        base_url, headers = config.base_url, None
        if base_url is not None and self._url_secrets:
            # user:password@ in the base URL: sent as HTTP Basic auth (what httpx would do with
            # it), but kept out of the URL the client holds, so its request logs never show it.
            parts = urlsplit(base_url)
            pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
            headers = {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
            base_url = strip_url_credentials(base_url)
            self._url_secrets.append(headers["Authorization"].split(" ", 1)[1])
        self._client = openai.OpenAI(
            api_key=key,
            base_url=base_url,
            timeout=config.timeout_s,
            max_retries=max_retries,
            default_headers=headers,
        )
        # for messages and records only: every credential form masked (``;api_key=``, ...)
        self.base_url = mask_url(str(self._client.base_url))

    def __repr__(self) -> str:
        return f"OpenAIChatBackend(model={self.config.model!r}, base_url={self.base_url!r})"

    def describe(self) -> dict[str, Any]:
        return {"backend": "openai", **asdict(self.config), "base_url": self.base_url}

    def redact(self, text: str) -> str:
        """``text`` without the key in use, URL credentials or anything shaped like a key."""
        secrets = [self._client.api_key, *self._url_secrets]
        return redact(text, secrets)

    def check(self) -> None:
        """One 1-token request, without retries and within :data:`CHECK_TIMEOUT_S` (or the
        per-request timeout, when shorter): a hanging endpoint fails in seconds, not after
        ``timeout_s x (max_retries + 1)``; :class:`JudgeEndpointError` says what is wrong, in one line."""
        openai = self._openai
        where = f"judge endpoint {self.base_url}"
        timeout = min(self.config.timeout_s, CHECK_TIMEOUT_S)
        try:
            reply = self._client.with_options(
                timeout=timeout, max_retries=0
            ).chat.completions.create(
                model=self.config.model,
                messages=[{"role": "user", "content": "Reply with OK."}],
                temperature=0,
                max_tokens=1,
            )
        except (ValueError, openai.APIResponseValidationError):  # a 200 whose body is not JSON
            raise JudgeEndpointError(
                f"{where} answered the test request (1 token) with a body that is not a chat "
                "completion (not JSON; is the base URL an OpenAI-compatible /v1 endpoint?)"
            ) from None
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            # "from None": the chained exception's text may hold the server's echo of the key.
            raise JudgeEndpointError(
                f"{where} is unauthorised (HTTP {exc.status_code}): the API key was refused; "
                "pass api_key= or set LEAK_METRICS_API_KEY / OPENAI_API_KEY"
            ) from None
        except openai.NotFoundError:
            raise JudgeEndpointError(
                f"{where} answered HTTP 404: model '{self.config.model}' is unknown there "
                "(or the base URL lacks its path, e.g. /v1)"
            ) from None
        except openai.APITimeoutError:
            raise JudgeEndpointError(
                f"{where} did not answer the test request (1 token) within {timeout:g} s "
                "(a hanging server? raise --judge-timeout / timeout_s if it is only slow)"
            ) from None
        except openai.APIConnectionError as exc:
            # The transport error underneath ("Connection refused") says more than openai's.
            detail = f"{exc}: {exc.__cause__}" if exc.__cause__ is not None else str(exc)
            cause = self.redact(f"{type(exc).__name__}: {detail}").replace("\n", " ")[:160]
            raise JudgeEndpointError(f"{where} is unreachable ({cause})") from None
        except openai.APIStatusError as exc:
            raise JudgeEndpointError(
                f"{where} answered HTTP {exc.status_code} to the test request (1 token)"
            ) from None
        if not isinstance(getattr(reply, "choices", None), list):  # e.g. an HTML page, as text
            raise JudgeEndpointError(
                f"{where} answered the test request (1 token) with something that is not a chat "
                "completion (an HTML page? is the base URL an OpenAI-compatible /v1 endpoint?)"
            )

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, int]]:
        reply = self._client.chat.completions.create(
            model=self.config.model,
            messages=messages,  # type: ignore[arg-type]
            temperature=0,
            max_tokens=self.config.max_tokens,
        )
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        if reply.usage is not None:
            usage = {
                "prompt_tokens": int(reply.usage.prompt_tokens or 0),
                "completion_tokens": int(reply.usage.completion_tokens or 0),
            }
        text = (reply.choices[0].message.content or "") if reply.choices else ""
        return text, usage


@dataclass(frozen=True)
class LLMJudgeConfig:
    """Reliability settings of the LLM judge.

    max_concurrency: parallel requests (thread pool size). max_retries: extra attempts after a
    failed request. backoff_s: first retry delay, doubled per attempt. cache_dir: verdict cache
    directory (None disables caching).
    """

    max_concurrency: int = 8
    max_retries: int = 3
    backoff_s: float = 1.0
    cache_dir: str | None = None


class LLMJudge(Judge):
    """Judge by asking a chat model; see the module docstring for prompt and reliability rules."""

    name = "llm"
    config_cls = LLMJudgeConfig
    needs_endpoint: ClassVar[bool] = True
    api_key_env_vars: ClassVar[tuple[str, ...]] = API_KEY_ENV_VARS
    api_key_from_env = staticmethod(api_key_from_env)

    def __init__(self, backend: ChatBackend, config: LLMJudgeConfig | None = None) -> None:
        self.backend = backend
        self.config = config or LLMJudgeConfig()
        self.cache = VerdictCache(self.config.cache_dir) if self.config.cache_dir else None
        self.usage = Usage()
        self._usage_lock = threading.Lock()

    @classmethod
    def from_openai(
        cls,
        model: str = OpenAIBackendConfig.model,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = OpenAIBackendConfig.timeout_s,
        max_tokens: int = OpenAIBackendConfig.max_tokens,
        **config: Any,
    ) -> LLMJudge:
        backend_config = OpenAIBackendConfig(model, base_url, timeout_s, max_tokens)
        judge_config = LLMJudgeConfig(**config)
        backend = OpenAIChatBackend(backend_config, api_key, max_retries=judge_config.max_retries)
        return cls(backend, judge_config)

    @classmethod
    def from_transformers(
        cls, model: Any, tokenizer: Any, *, max_new_tokens: int = 96, **config: Any
    ) -> LLMJudge:
        backend = TransformersChatBackend(model, tokenizer, max_new_tokens=max_new_tokens)
        return cls(backend, LLMJudgeConfig(**config))

    def __repr__(self) -> str:
        return f"LLMJudge(backend={self.backend!r}, config={self.config})"

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "prompt_version": PROMPT_VERSION,
            **self.backend.describe(),
            **asdict(self.config),
            "usage": asdict(self.usage),
        }

    def identity(self) -> dict[str, Any]:
        """:meth:`describe` without the usage counters, which change with every call."""
        return {k: v for k, v in self.describe().items() if k != "usage"}

    def _count(self, **deltas: int) -> None:
        with self._usage_lock:
            for key, delta in deltas.items():
                setattr(self.usage, key, getattr(self.usage, key) + delta)

    def check_endpoint(self) -> None:
        """Send one small request; raise :class:`JudgeEndpointError` with a one-line message
        saying whether the endpoint is unreachable, unauthorised (401/403) or does not know the
        model (404). The message names the base URL without credentials and never the key."""
        check = getattr(self.backend, "check", None)
        if check is not None:
            check()

    def _redact(self, text: str) -> str:
        redact_fn = getattr(self.backend, "redact", None)
        return redact_fn(text) if redact_fn is not None else redact(text)

    def _key(self, item: JudgeItem) -> str:
        return cache_key(
            self.backend.model_name,
            PROMPT_VERSION,
            item.question,
            item.answer,
            item.aliases,
            item.response,
            item.options,
        )

    def _judge_one(self, item: JudgeItem) -> Verdict:
        key = self._key(item)
        if self.cache is not None:
            cached = self.cache.get(key)  # None also for a malformed file: judged again
            if cached is not None:
                self._count(cache_hits=1)
                correct = cached["verdict"] == "correct"
                return Verdict(correct, self._redact(cached["reason"]), self.name, item.id)

        messages = build_messages(item)
        last_error = "no attempt made"
        # Retries the backend makes itself (the openai client's), per request.
        own_retries = int(getattr(self.backend, "max_retries", 0))
        attempts = 0
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                time.sleep(self.config.backoff_s * 2 ** (attempt - 1))
            self._count(requests=1)
            try:
                text, usage = self.backend.complete(messages)
            except Exception as exc:  # the backend's own retries, if any, are spent
                attempts += 1 + own_retries
                last_error = self._failed(item, exc, attempts)
                if own_retries:
                    break  # asking again would repeat the client's retries
                continue
            attempts += 1
            self._count(**usage)
            try:
                correct, reason = parse_reply(text)
            except JudgeReplyError as exc:  # an unusable reply is asked again
                last_error = self._failed(item, exc, attempts)
                continue
            reason = self._redact(reason)
            if self.cache is not None:
                verdict_text = "correct" if correct else "incorrect"
                self.cache.put(key, {"verdict": verdict_text, "reason": reason})
            return Verdict(correct, reason, self.name, item.id)
        self._count(unjudged=1)
        return Verdict(
            None, f"unjudged after {attempts} attempts: {last_error}", self.name, item.id
        )

    def _failed(self, item: JudgeItem, exc: Exception, attempts: int) -> str:
        """Count and log one failed request; its one-line reason, redacted."""
        self._count(failed_requests=1)
        # Only the exception type and message, redacted (an error body may echo the
        # Authorization header), then cut; redacting first so a cut never splits a key.
        error = self._redact(f"{type(exc).__name__}: {exc}")[:200]
        logger.warning(
            "judge request for item %s failed (%d attempt(s) so far): %s", item.id, attempts, error
        )
        return error

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        if not items:
            return []
        workers = max(1, min(self.config.max_concurrency, len(items)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm-judge") as pool:
            return list(pool.map(self._judge_one, items))

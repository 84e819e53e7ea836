"""Decoding through the ``/v1/completions`` endpoint of an OpenAI-compatible server.

Works with vLLM, SGLang, llama.cpp's ``llama-server``, Ollama and :mod:`recover_attacks.serve`.
Prompts are formatted here, with the model's own tokenizer and the same
:func:`~recover_attacks.generation.format_prompt` as in-process (ARCHITECTURE.md section 3), and
sent as plain completions, so the server applies no chat template of its own: a question reaches
the model as the same text (or, with ``prompt_token_ids=True``, the same token ids) in both
engines. Retries and timeouts are the openai client's own (``max_retries``, ``timeout``).

Reproducibility: greedy requests use ``temperature=0``. Sampled requests send
``seed = request_seed(config.seed, prompt, 0)`` (one request per prompt, ``n`` samples), so a
prompt's samples do not depend on the other prompts where the server honours ``seed`` (vLLM,
SGLang, llama.cpp do; a server's random stream is its own, so sampled texts differ from the
in-process engine's even at the same seed, while greedy answers are the same).

``DecodingConfig.answer_end`` (stop once the judged answer has ended) is not applied here: no
server runs the caller's rule, and a server ``stop`` string would cut "D.C. is" at ". ". The
server decodes the full budget; its texts are whole, so the rule finds the same committed answer
in them as in the local engine's shortened ones (a known limit: only the time is not saved).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..errors import MissingDependencyError
from .base import Engine, EngineStats, check_prompts, count_generated
from .config import DecodingConfig, request_seed
from .errors import EngineError, ServerError


class OpenAIEngine(Engine):
    """An :class:`Engine` over an OpenAI-compatible completions endpoint.

    Args:
        base_url: the server's API root, e.g. ``http://127.0.0.1:8000/v1``
            (:attr:`ServerProcess.base_url` gives it for a server leakres started).
        model: the model name the server serves (``vllm serve DIR`` serves it as ``DIR``).
        tokenizer: the model's tokenizer, for :meth:`format_prompt` / :meth:`answer` (prompts
            passed to :meth:`complete` are used as they are) and for ``prompt_token_ids``.
        api_key: key for the server; default: ``$OPENAI_API_KEY`` or ``"EMPTY"`` (local servers
            ignore it). Never logged or recorded.
        timeout: seconds per request (the openai client's ``timeout``).
        max_retries: the openai client's retries (connection errors, 408/409/429/5xx, with
            exponential backoff).
        concurrency: requests in flight at once (the server batches them).
        prompt_token_ids: send token ids (tokenized like the in-process engine) instead of text:
            exact even where a server would add a BOS token to a chat-formatted text (vLLM does
            for tokenizers that add one). Needs ``tokenizer``; Ollama does not accept it.
        add_special_tokens: with ``prompt_token_ids``, tokenize with special tokens; default:
            only without a chat template (the in-process rule).
        send_seed: send ``seed`` with sampled requests.
        extra_body: extra JSON fields for every request (server-specific options).
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        tokenizer: Any = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 5,
        concurrency: int = 16,
        prompt_token_ids: bool = False,
        add_special_tokens: bool | None = None,
        send_seed: bool = True,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        try:
            import openai
        except ImportError as exc:
            raise MissingDependencyError(
                "OpenAIEngine needs the openai client: pip install 'recover-attacks[openai]'"
            ) from exc
        if concurrency < 1:
            raise EngineError(f"OpenAIEngine: concurrency must be >= 1, got {concurrency}")
        if prompt_token_ids and tokenizer is None:
            raise EngineError("OpenAIEngine: prompt_token_ids=True needs the model's tokenizer")
        self.base_url = base_url
        self.model = model
        self.tokenizer = tokenizer
        self.timeout = timeout
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.prompt_token_ids = prompt_token_ids
        if add_special_tokens is None:
            add_special_tokens = tokenizer is not None and not getattr(
                tokenizer, "chat_template", None
            )
        self.add_special_tokens = add_special_tokens
        self.send_seed = send_seed
        self.extra_body = dict(extra_body or {})
        key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self._client = openai.OpenAI(
            base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries
        )

    def format_prompt(self, question: str) -> str:
        if self.tokenizer is None:
            raise EngineError(
                "OpenAIEngine: formatting questions needs the model's tokenizer (tokenizer=...); "
                "or pass formatted prompts to complete()"
            )
        from ..chat_format import format_prompt

        return format_prompt(self.tokenizer, question)

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.name,
            "base_url": self.base_url,
            "model": self.model,
            "prompt_token_ids": self.prompt_token_ids,
            "concurrency": self.concurrency,
            "max_retries": self.max_retries,
            "timeout": self.timeout,
        }

    def close(self) -> None:
        self._client.close()

    def _request(self, index: int, prompt: str, config: DecodingConfig) -> tuple[list[str], Any]:
        body: dict[str, Any] = dict(self.extra_body)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "prompt": prompt,
            "max_tokens": config.max_new_tokens,
            "n": config.num_samples if config.do_sample else 1,
        }
        if self.prompt_token_ids:
            kwargs["prompt"] = list(
                self.tokenizer(prompt, add_special_tokens=self.add_special_tokens)["input_ids"]
            )
        if config.stop:
            kwargs["stop"] = list(config.stop)
        if config.do_sample:
            kwargs.update(temperature=config.temperature, top_p=config.top_p)
            if config.top_k > 0:
                body["top_k"] = config.top_k  # not an OpenAI field; vLLM/SGLang/llama.cpp read it
            if self.send_seed:
                kwargs["seed"] = request_seed(config.seed, prompt, 0)
        else:
            kwargs.update(temperature=0.0, top_p=1.0)
        if body:
            kwargs["extra_body"] = body
        try:
            reply = self._client.completions.create(**kwargs)
        except Exception as exc:  # the client already retried; name the prompt and the server
            raise ServerError(
                f"OpenAIEngine: prompt #{index} failed at {self.base_url} (model {self.model!r}): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        choices = sorted(reply.choices, key=lambda c: c.index)
        texts = [c.text or "" for c in choices]
        if len(texts) != kwargs["n"]:
            raise ServerError(
                f"OpenAIEngine: prompt #{index}: asked {kwargs['n']} completions, got {len(texts)}"
            )
        if not config.do_sample:
            texts = texts * config.num_samples
        return texts, reply.usage

    def complete(
        self, prompts: Sequence[str], config: DecodingConfig, *, progress: bool = False
    ) -> list[list[str]]:
        check_prompts("OpenAIEngine", prompts)
        stats = EngineStats(prompts=len(prompts), responses=len(prompts) * config.num_samples)
        self.last_stats = stats
        started = time.perf_counter()
        results: list[list[str]] = [[] for _ in prompts]
        from tqdm.auto import tqdm

        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = [pool.submit(self._request, i, p, config) for i, p in enumerate(prompts)]
            for i, future in enumerate(tqdm(futures, desc="generate", disable=not progress)):
                texts, usage = future.result()
                results[i] = texts
                if usage is not None:
                    stats.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
                    stats.generated_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        stats.seconds = time.perf_counter() - started
        count_generated(stats.generated_tokens)
        return results

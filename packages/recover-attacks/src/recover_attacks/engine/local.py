"""In-process engine: continuous batching over one shared KV cache, with a shared-prefix cache.

How a call runs:

1. All prompts are tokenized (the caller's tokenizer is only read, never changed). Their longest
   common token prefix (the chat template's system prompt and ``<|im_start|>user``, or BBH's
   few-shot examples) is run through the model once; its KV cache is shared by every prompt.
2. Prompts wait in a queue, longest first. While rows are free, waiting prompts are prefilled
   together (only their own tokens; left-padded among themselves, the prefix in front) and their
   first token is chosen from the prefill logits. ``num_samples`` rows are made per prompt by
   repeating its cache rows, so a prompt is prefilled once however many samples it gets.
3. Every step runs all running rows for one token. A row that hits EOS, a stop string or its
   budget leaves the batch at once (no compute is spent on finished rows); when enough rows are
   free, waiting prompts are prefilled and join (continuous batching). Columns no row sees any
   more are dropped, so the cache stays as short as the longest live row.

Rows may hold holes (masked columns) anywhere; keys keep the rotary position they were computed
at and each row's next position id is its own count of real tokens, so a row's attention is the
same as in a one-prompt-at-a-time loop. Results equal that loop's up to floating-point summation
order (different matrix shapes can change the last bits of a logit); a greedy answer can only
differ where the top two logits are within that noise (a numerical tie).

Models whose cache is not plain full attention (sliding windows, linear attention) fall back to
``model.generate`` in length-sorted batches (``settings()["path"]`` says which ran).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import torch

from . import kv
from .base import Engine, EngineStats, check_prompts, count_generated
from .config import DecodingConfig
from .continuous import ContinuousBatching
from .errors import EngineError
from .fallback import fallback_generate
from .rows import model_device, model_dtype
from .stops import StopStrings

__all__ = ["DEFAULT_MAX_PREFILL_TOKENS", "LocalEngine", "model_device", "model_dtype"]

# Prefill at most this many (padded) prompt tokens in one forward pass: bounds activation memory.
DEFAULT_MAX_PREFILL_TOKENS = 8192


class LocalEngine(ContinuousBatching, Engine):
    """Continuous-batching generation with a transformers causal LM held in this process.

    Args:
        model: a transformers causal LM (also a peft or bitsandbytes-quantized one). Put in eval
            mode for the call and restored after; its weights and dtype are never changed.
        tokenizer: its tokenizer; only read (no padding side or pad token is set on it).
        max_batch_size: most sequences decoded at once (a sampled prompt takes ``num_samples``
            rows). ``None``: as many as fit in ``memory_fraction`` of the free memory (see
            :func:`~recover_attacks.engine.memory.auto_max_rows`).
        max_prefill_tokens: most padded prompt tokens per prefill forward pass.
        prefix_cache: compute the prompts' common token prefix once and share its KV cache.
        refill_fraction: waiting prompts join when at least this share of the rows is free
            (a prefill pass is cheapest when it takes several prompts at once).
        add_special_tokens: tokenize prompts with the tokenizer's special tokens (BOS). Default:
            only without a chat template, since a chat template writes them itself.
        memory_fraction: share of free memory the automatic batch size may plan for.
        static_cache: decode in fixed-shape slots over a preallocated ``StaticCache``
            (:mod:`~recover_attacks.engine.static`). Default: on CUDA only (on a CPU the
            shrinking dynamic batch wastes less compute).
        compile: ``torch.compile(mode="reduce-overhead")`` the static decode step (CUDA graphs).
            Default: on CUDA only. For bf16 on CUDA load the model with ``dtype=torch.bfloat16``
            (:meth:`from_pretrained` does); the engine never changes the caller's model.
        static_capacity: columns of the static cache (default: twice the widest prompt plus
            the budget, plus 8); when the write column reaches it, rows are shifted left.
    """

    name = "local"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_batch_size: int | None = None,
        max_prefill_tokens: int = DEFAULT_MAX_PREFILL_TOKENS,
        prefix_cache: bool = True,
        refill_fraction: float = 0.25,
        add_special_tokens: bool | None = None,
        memory_fraction: float = 0.5,
        static_cache: bool | None = None,
        compile: bool | None = None,
        static_capacity: int | None = None,
    ) -> None:
        super().__init__()
        if max_batch_size is not None and max_batch_size < 1:
            raise EngineError(f"LocalEngine: max_batch_size must be >= 1, got {max_batch_size}")
        if max_prefill_tokens < 1 or not 0 < refill_fraction <= 1:
            raise EngineError(
                "LocalEngine: need max_prefill_tokens >= 1 and 0 < refill_fraction <= 1"
            )
        self.model = model
        self.tokenizer = tokenizer
        self.max_batch_size = max_batch_size
        self.max_prefill_tokens = max_prefill_tokens
        self.prefix_cache = prefix_cache
        self.refill_fraction = refill_fraction
        self.memory_fraction = memory_fraction
        self.static_cache = static_cache
        self.compile = compile
        self.static_capacity = static_capacity
        if add_special_tokens is None:
            add_special_tokens = not getattr(tokenizer, "chat_template", None)
        self.add_special_tokens = add_special_tokens
        self._config = getattr(model, "config", None)
        self._path = "continuous"
        #: Per response of the last call: "stop" (EOS or a stop string) or "length".
        self.last_finish_reasons: list[list[str]] = []
        #: Per response of the last call: the generated token ids (EOS dropped, before any
        #: stop-string cut).
        self.last_token_ids: list[list[list[int]]] = []

    @classmethod
    def from_pretrained(
        cls,
        path: str,
        *,
        device: str | None = None,
        dtype: torch.dtype | None = None,
        **engine_kwargs: Any,
    ) -> LocalEngine:
        """Load a model directory (safetensors) and its tokenizer: bfloat16 on CUDA, float32 on
        CPU unless ``dtype`` is given; ``engine_kwargs`` go to the constructor."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if dtype is None:
            dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, use_safetensors=True)
        return cls(model.to(device).eval(), tokenizer, **engine_kwargs)

    # -- Engine interface -------------------------------------------------------------------

    def format_prompt(self, question: str) -> str:
        from ..chat_format import format_prompt

        return format_prompt(self.tokenizer, question)

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.name,
            "max_batch_size": self.max_batch_size,
            "prefix_cache": self.prefix_cache,
            "path": self._path,
            "static_cache": self._use_static(model_device(self.model)),
            "device": str(model_device(self.model)),
            "dtype": str(model_dtype(self.model)).removeprefix("torch."),
        }

    @torch.no_grad()
    def complete(
        self,
        prompts: Sequence[str],
        config: DecodingConfig,
        *,
        progress: bool = False,
        seeds: Sequence[int] | None = None,
    ) -> list[list[str]]:
        """See :meth:`Engine.complete`. ``seeds`` (one per prompt) replaces ``config.seed`` per
        prompt (a server batching requests that each carry their own seed)."""
        check_prompts("LocalEngine", prompts)
        if not prompts:
            self.last_stats = EngineStats()
            self.last_finish_reasons = []
            self.last_token_ids = []
            return []
        ids = self.tokenizer(list(prompts), add_special_tokens=self.add_special_tokens)["input_ids"]
        return self.complete_ids(
            ids, config, progress=progress, seeds=seeds, seed_keys=list(prompts)
        )

    @torch.no_grad()
    def complete_ids(
        self,
        token_ids: Sequence[Sequence[int]],
        config: DecodingConfig,
        *,
        progress: bool = False,
        seeds: Sequence[int] | None = None,
        seed_keys: Sequence[str] | None = None,
    ) -> list[list[str]]:
        """:meth:`complete` on prompts given as token ids. A sample's seed is
        ``request_seed(seed, key, j)`` with ``key`` the prompt text (``seed_keys``; default: the
        ids decoded). ``last_finish_reasons`` then holds ``"stop"`` (EOS or a stop string) or
        ``"length"`` per response."""
        self.last_stats = EngineStats(prompts=len(token_ids))
        self.last_finish_reasons = []
        self.last_token_ids = []
        if not token_ids:
            return []
        ids = [[int(t) for t in row] for row in token_ids]
        for i, row in enumerate(ids):
            if not row:
                raise EngineError(f"LocalEngine: prompt #{i} has no tokens")
        if seeds is not None and len(seeds) != len(ids):
            raise EngineError(f"LocalEngine: {len(seeds)} seeds for {len(ids)} prompts")
        if seed_keys is None:
            seed_keys = [self.tokenizer.decode(row) for row in ids]
        started = time.perf_counter()
        was_training = self.model.training
        self.model.eval()
        try:
            try:
                tokens = self._continuous(ids, list(seed_keys), config, progress, seeds)
                self._path = "continuous"
            except kv.UnsupportedCacheError as why:
                self._path = f"model.generate ({why})"
                tokens = fallback_generate(self, ids, list(seed_keys), config, progress, seeds)
        finally:
            self.model.train(was_training)
        self.last_token_ids = tokens
        stops = StopStrings(self.tokenizer, config.stop)
        texts = []
        for per_prompt in tokens:
            texts.append([])
            reasons = []
            for t in per_prompt:
                full = self.tokenizer.decode(t, skip_special_tokens=True)
                cut = stops.cut(full)
                texts[-1].append(cut)
                reasons.append(
                    "stop" if cut != full or len(t) < config.max_new_tokens else "length"
                )
            self.last_finish_reasons.append(reasons)
        self.last_stats.seconds = time.perf_counter() - started
        count_generated(self.last_stats.generated_tokens)
        return texts

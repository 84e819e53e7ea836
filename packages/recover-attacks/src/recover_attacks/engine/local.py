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
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from tqdm.auto import tqdm

from . import kv
from .base import Engine, EngineStats, count_generated
from .config import DecodingConfig, request_seed
from .errors import EngineError
from .memory import auto_max_rows
from .sampling import choose, make_generator
from .stops import AnswerEnd, StopStrings

# Prefill at most this many (padded) prompt tokens in one forward pass: bounds activation memory.
DEFAULT_MAX_PREFILL_TOKENS = 8192
# A shared prefix shorter than this is not worth a separate forward pass.
MIN_PREFIX_TOKENS = 4


@dataclass
class _Row:
    request: int
    sample: int
    next_position: int
    generator: torch.Generator | None
    tokens: list[int] = field(default_factory=list)


@dataclass
class _Batch:
    cache: Any
    mask: torch.Tensor  # [rows, columns] bool: which cache columns each row attends to
    rows: list[_Row]


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    gen = getattr(model, "generation_config", None)
    eos = getattr(gen, "eos_token_id", None) if gen is not None else None
    if eos is None:
        eos = getattr(tokenizer, "eos_token_id", None)
    if eos is None:
        return set()
    return {int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])}


def _common_prefix(sequences: Sequence[Sequence[int]]) -> int:
    first = sequences[0]
    n = min(len(s) for s in sequences)
    for s in sequences[1:]:
        i = 0
        while i < n and s[i] == first[i]:
            i += 1
        n = i
        if n == 0:
            break
    return n


def model_device(model: Any) -> torch.device:
    try:
        return next(model.parameters()).device
    except StopIteration:  # pragma: no cover - parameterless model
        return torch.device("cpu")


def model_dtype(model: Any) -> torch.dtype:
    for p in model.parameters():
        if p.dtype.is_floating_point:
            return p.dtype
    return torch.float32  # pragma: no cover


class LocalEngine(Engine):
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
        from .prompts import format_prompt

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
        for i, p in enumerate(prompts):
            if not isinstance(p, str):
                raise EngineError(
                    f"LocalEngine: prompt #{i} must be a string, got {type(p).__name__}"
                )
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
                tokens = self._fallback(ids, list(seed_keys), config, progress, seeds)
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

    # -- continuous batching ----------------------------------------------------------------

    def _forward(self, input_ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor, cache):
        self.last_stats.forward_passes += 1
        out = self.model(
            input_ids=input_ids,
            attention_mask=mask.long(),
            position_ids=positions,
            cache=cache,
            use_cache=True,
            logits_to_keep=1,
        )
        # DynamicCache is updated in place; the same object carries the new keys and values.
        return out.logits[:, -1, :], cache

    def _max_rows(self, ids: Sequence[Sequence[int]], config: DecodingConfig, device) -> int:
        if self.max_batch_size is not None:
            return self.max_batch_size
        longest = max(len(r) for r in ids) + config.max_new_tokens
        return auto_max_rows(
            self._config,
            device,
            longest,
            model_dtype(self.model),
            memory_fraction=self.memory_fraction,
        )

    def _continuous(
        self,
        ids: list[list[int]],
        prompts: list[str],
        config: DecodingConfig,
        progress: bool,
        seeds: Sequence[int] | None = None,
    ) -> list[list[list[int]]]:
        if self._config is None:
            raise kv.UnsupportedCacheError("the model has no config")
        device = model_device(self.model)
        stats = self.last_stats
        samples = config.num_samples if config.do_sample else 1
        eos = _eos_ids(self.model, self.tokenizer)
        stops = StopStrings(self.tokenizer, config.stop)
        answer = AnswerEnd(self.tokenizer, config.answer_end, config.answer_end_triggers)
        max_rows = max(self._max_rows(ids, config, device), samples)
        refill_at = max(1, int(max_rows * self.refill_fraction))
        stats.extra.update(max_rows=max_rows)

        # Shared prefix: never the whole of a prompt (its last token's logits are needed).
        n_prefix = 0
        prefix = None
        if self.prefix_cache and len(ids) > 1:
            n_prefix = min(_common_prefix(ids), min(len(r) for r in ids) - 1)
        if n_prefix >= MIN_PREFIX_TOKENS:
            prefix = kv.new_cache(self._config)
            head = torch.tensor([ids[0][:n_prefix]], device=device)
            _, prefix = self._forward(
                head,
                torch.ones_like(head, dtype=torch.bool),
                torch.arange(n_prefix, device=device)[None],
                prefix,
            )
            kv.check_supported(prefix)
            stats.prefix_tokens = n_prefix
            stats.prompt_tokens += n_prefix
        else:
            n_prefix = 0

        results: list[list[list[int]]] = [[[] for _ in range(samples)] for _ in ids]
        queue = deque(sorted(range(len(ids)), key=lambda i: (-len(ids[i]), i)))
        bar = tqdm(total=len(ids) * samples, desc="generate", disable=not progress, leave=False)

        def finished(row: _Row) -> bool:
            """Whether ``row`` is done after its last token; if so its response is recorded."""
            token = row.tokens[-1]
            done = False
            if token in eos:
                row.tokens.pop()  # EOS ends the response and is not part of it
                stats.generated_tokens += 1
                done = True
            elif (
                len(row.tokens) >= config.max_new_tokens
                or (stops and stops.hit(row.tokens))
                or (answer and answer.hit(row.tokens))
            ):
                done = True
            if done:
                results[row.request][row.sample] = row.tokens
                stats.generated_tokens += len(row.tokens)
                bar.update(1)
            return done

        def admit(free: int) -> list[int]:
            """Waiting prompts that fit ``free`` rows and the prefill token budget."""
            admitted: list[int] = []
            width = 0
            while queue and (len(admitted) + 1) * samples <= free:
                new_width = max(width, len(ids[queue[0]]) - n_prefix)
                if admitted and new_width * (len(admitted) + 1) > self.max_prefill_tokens:
                    break
                admitted.append(queue.popleft())
                width = new_width
            return admitted

        def prefill(admitted: list[int]) -> _Batch:
            return self._prefill(
                admitted, ids, prompts, n_prefix, prefix, config, samples, device, seeds
            )

        try:
            if self._use_static(device):
                widest = n_prefix + max(len(r) - n_prefix for r in ids)
                self._static_loop(
                    queue,
                    admit,
                    prefill,
                    finished,
                    widest,
                    max_rows,
                    refill_at,
                    samples,
                    config,
                    device,
                )
            else:
                self._dynamic_loop(
                    queue, admit, prefill, finished, max_rows, refill_at, samples, config, device
                )
        finally:
            bar.close()
        stats.responses = len(ids) * samples
        if samples < config.num_samples:  # greedy: every sample is the same response
            results = [r * config.num_samples for r in results]
        return results

    def _use_static(self, device: torch.device) -> bool:
        return self.static_cache if self.static_cache is not None else device.type == "cuda"

    def _dynamic_loop(
        self, queue, admit, prefill, finished, max_rows, refill_at, samples, config, device
    ) -> None:
        """Rows live in one DynamicCache that shrinks as rows finish and grows as prompts join."""
        running: _Batch | None = None

        def retire(batch: _Batch) -> _Batch | None:
            keep = [i for i, row in enumerate(batch.rows) if not finished(row)]
            if not keep:
                return None
            if len(keep) < len(batch.rows):
                index = torch.tensor(keep, device=device)
                kv.select_rows(batch.cache, index)
                batch.mask = batch.mask.index_select(0, index)
                batch.rows = [batch.rows[i] for i in keep]
                # Drop columns that no remaining row attends to (finished rows' old prompts).
                alive = batch.mask.any(dim=0)
                dead = int((~alive).sum())
                if dead >= max(8, batch.mask.shape[1] // 4):
                    columns = alive.nonzero().squeeze(-1)
                    kv.select_columns(batch.cache, columns)
                    batch.mask = batch.mask.index_select(1, columns)
            return batch

        while queue or running is not None:
            active = len(running.rows) if running is not None else 0
            free = max_rows - active
            if queue and (active == 0 or free >= refill_at) and free >= samples:
                joined = retire(prefill(admit(free)))
                if joined is not None:
                    running = joined if running is None else self._merge(running, joined)
            if running is None:
                continue
            running = retire(self._step(running, config, device))

    def _static_loop(
        self, queue, admit, prefill, finished, widest, max_rows, refill_at, samples, config, device
    ) -> None:
        """Fixed-shape slots (:class:`~recover_attacks.engine.static.StaticSlots`): finished rows
        are masked and their slots refilled; the decode step can be compiled."""
        from .static import StaticSlots

        compile_step = self.compile if self.compile is not None else device.type == "cuda"
        capacity = self.static_capacity or 2 * (widest + config.max_new_tokens) + 8
        capacity = max(capacity, widest + 2)
        slots = StaticSlots(self.model, max_rows, capacity, widest, compile_step=compile_step)
        self.last_stats.extra.update(static_capacity=capacity, compiled=compile_step)
        rows: list[_Row | None] = [None] * max_rows
        while queue or any(r is not None for r in rows):
            free = [s for s, r in enumerate(rows) if r is None]
            live = max_rows - len(free)
            if queue and (live == 0 or len(free) >= refill_at) and len(free) >= samples:
                joined = prefill(admit(len(free)))
                keep = [i for i, row in enumerate(joined.rows) if not finished(row)]
                if keep:
                    index = torch.tensor(keep, device=device)
                    kv.select_rows(joined.cache, index)
                    targets = free[: len(keep)]
                    slots.place(targets, joined.cache, joined.mask.index_select(0, index))
                    for slot, i in zip(targets, keep, strict=True):
                        rows[slot] = joined.rows[i]
            live_slots = [s for s, r in enumerate(rows) if r is not None]
            if not live_slots:
                continue
            tokens = torch.zeros((max_rows, 1), dtype=torch.long)
            positions = torch.zeros((max_rows, 1), dtype=torch.long)
            alive = torch.zeros(max_rows, dtype=torch.bool)
            for s in live_slots:
                row = rows[s]
                assert row is not None
                tokens[s, 0], positions[s, 0], alive[s] = row.tokens[-1], row.next_position, True
            self.last_stats.forward_passes += 1
            logits = slots.step(tokens.to(device), positions.to(device), alive.to(device))
            live_rows = [rows[s] for s in live_slots]
            picked = choose(
                logits.index_select(0, torch.tensor(live_slots, device=device)),
                config,
                [r.generator for r in live_rows if r is not None],
            ).tolist()
            done = []
            for s, row, token in zip(live_slots, live_rows, picked, strict=True):
                assert row is not None
                row.next_position += 1
                row.tokens.append(int(token))
                if finished(row):
                    rows[s] = None
                    done.append(s)
            slots.free(done)
        self.last_stats.extra["static_shifts"] = slots.shifts

    def _prefill(
        self,
        admitted: list[int],
        ids: list[list[int]],
        prompts: list[str],
        n_prefix: int,
        prefix: Any,
        config: DecodingConfig,
        samples: int,
        device: torch.device,
        seeds: Sequence[int] | None = None,
    ) -> _Batch:
        tails = [ids[i][n_prefix:] for i in admitted]
        width = max(len(t) for t in tails)
        k = len(admitted)
        input_ids = torch.zeros((k, width), dtype=torch.long)
        mask = torch.zeros((k, n_prefix + width), dtype=torch.bool)
        mask[:, :n_prefix] = True
        positions = torch.full((k, width), n_prefix, dtype=torch.long)
        for r, tail in enumerate(tails):
            pad = width - len(tail)
            input_ids[r, pad:] = torch.tensor(tail)
            mask[r, n_prefix + pad :] = True
            positions[r, pad:] = torch.arange(n_prefix, n_prefix + len(tail))
            self.last_stats.prompt_tokens += len(tail)
        cache = (
            kv.expand_rows(self._config, prefix, k)
            if prefix is not None
            else kv.new_cache(self._config)
        )
        mask = mask.to(device)
        logits, cache = self._forward(input_ids.to(device), mask, positions.to(device), cache)
        kv.check_supported(cache)
        if samples > 1:
            kv.repeat_rows(cache, samples)
            mask = mask.repeat_interleave(samples, dim=0)
            logits = logits.repeat_interleave(samples, dim=0)
        rows = [
            _Row(
                request=i,
                sample=j,
                next_position=len(ids[i]),
                generator=make_generator(
                    request_seed(config.seed if seeds is None else seeds[i], prompts[i], j)
                )
                if config.do_sample
                else None,
            )
            for i in admitted
            for j in range(samples)
        ]
        first = choose(logits, config, [r.generator for r in rows]).tolist()
        for row, token in zip(rows, first, strict=True):
            row.tokens.append(int(token))
        return _Batch(cache, mask, rows)

    def _step(self, batch: _Batch, config: DecodingConfig, device: torch.device) -> _Batch:
        rows = batch.rows
        input_ids = torch.tensor([[r.tokens[-1]] for r in rows], device=device)
        positions = torch.tensor([[r.next_position] for r in rows], device=device)
        batch.mask = torch.cat([batch.mask, batch.mask.new_ones((len(rows), 1))], dim=1)
        logits, batch.cache = self._forward(input_ids, batch.mask, positions, batch.cache)
        picked = choose(logits, config, [r.generator for r in rows]).tolist()
        for row, token in zip(rows, picked, strict=True):
            row.next_position += 1
            row.tokens.append(int(token))
        return batch

    def _merge(self, a: _Batch, b: _Batch) -> _Batch:
        width = max(a.mask.shape[1], b.mask.shape[1])
        cache = kv.concat_rows(self._config, a.cache, b.cache)
        mask = torch.cat([kv.pad_mask_left(a.mask, width), kv.pad_mask_left(b.mask, width)], dim=0)
        return _Batch(cache, mask, a.rows + b.rows)

    # -- fallback for caches the engine cannot edit -----------------------------------------

    def _fallback(
        self,
        ids: list[list[int]],
        prompts: list[str],
        config: DecodingConfig,
        progress: bool,
        seeds: Sequence[int] | None = None,
    ) -> list[list[list[int]]]:
        """``model.generate`` on length-sorted, left-padded batches (the engine before this one).

        Sampling is seeded per prompt (``torch.manual_seed`` of the prompt's first sample seed,
        one prompt per call), so it is still independent of the batch composition.
        """
        from transformers import GenerationConfig

        device = model_device(self.model)
        eos = sorted(_eos_ids(self.model, self.tokenizer))
        pad = eos[0] if eos else 0
        rows = self.max_batch_size or 16
        per_call = 1 if config.do_sample else rows
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": config.max_new_tokens,
            "num_return_sequences": config.num_samples if config.do_sample else 1,
            "eos_token_id": eos or None,
            "pad_token_id": pad,
            "do_sample": config.do_sample,
        }
        if config.do_sample:
            gen_kwargs.update(
                temperature=config.temperature, top_p=config.top_p, top_k=config.top_k
            )
        if config.stop:
            gen_kwargs["stop_strings"] = list(config.stop)
        generation_config = GenerationConfig(**gen_kwargs)
        answer = AnswerEnd(self.tokenizer, config.answer_end, config.answer_end_triggers)

        order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))
        results: list[list[list[int]]] = [[] for _ in ids]
        for s in tqdm(range(0, len(order), per_call), desc="generate", disable=not progress):
            idx = order[s : s + per_call]
            width = max(len(ids[i]) for i in idx)
            input_ids = torch.tensor(
                [[pad] * (width - len(ids[i])) + ids[i] for i in idx], device=device
            )
            mask = torch.tensor(
                [[0] * (width - len(ids[i])) + [1] * len(ids[i]) for i in idx], device=device
            )
            if config.do_sample:
                base = config.seed if seeds is None else seeds[idx[0]]
                torch.manual_seed(request_seed(base, prompts[idx[0]], 0))
            extra: dict[str, Any] = {"tokenizer": self.tokenizer} if config.stop else {}
            if answer:  # the prompt's columns end at ``width``; the rule reads what follows
                extra["stopping_criteria"] = [_AnswerEndCriteria(answer, width)]
            out = self.model.generate(
                input_ids=input_ids,
                attention_mask=mask,
                generation_config=generation_config,
                **extra,
            )
            new = out[:, width:].tolist()
            per = gen_kwargs["num_return_sequences"]
            for j, i in enumerate(idx):
                chunk = new[j * per : (j + 1) * per]
                results[i] = [[t for t in seq if t not in eos and t != pad] for seq in chunk]
                self.last_stats.prompt_tokens += len(ids[i])
                self.last_stats.generated_tokens += sum(len(seq) for seq in results[i])
        self.last_stats.responses = len(ids) * config.num_samples
        if not config.do_sample and config.num_samples > 1:
            results = [r * config.num_samples for r in results]
        return results


class _AnswerEndCriteria:
    """:class:`AnswerEnd` as a transformers stopping criterion of ``model.generate`` (per row;
    a finished row is padded by ``generate`` and its padding dropped afterwards)."""

    def __init__(self, answer: AnswerEnd, width: int = 0) -> None:
        self.answer = answer
        self.width = width

    def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.Tensor:
        rows = input_ids[:, self.width :].tolist()
        done = [bool(r) and self.answer.hit(r) for r in rows]
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)

"""Continuous batching, the decoding path of :class:`~recover_attacks.engine.local.LocalEngine`
(how a call runs: that module's docstring). :class:`ContinuousBatching` is the engine's mixin
that holds the loop; :class:`_Schedule` the waiting prompts and the finished responses."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from tqdm.auto import tqdm

from . import kv
from .base import EngineStats
from .config import DecodingConfig, request_seed
from .memory import auto_max_rows
from .rows import _Batch, _common_prefix, _eos_ids, _Row, model_device, model_dtype
from .sampling import choose, make_generator
from .stops import AnswerEnd, StopStrings

# A shared prefix shorter than this is not worth a separate forward pass.
MIN_PREFIX_TOKENS = 4


@dataclass
class _Schedule:
    """One call's waiting prompts (longest first) and finished responses (tokens per sample)."""

    ids: list[list[int]]
    n_prefix: int
    samples: int
    max_prefill_tokens: int
    config: DecodingConfig
    stats: EngineStats
    eos: set[int]
    stops: StopStrings
    answer: AnswerEnd
    bar: Any
    queue: deque[int] = field(init=False)
    results: list[list[list[int]]] = field(init=False)

    def __post_init__(self) -> None:
        ids = self.ids
        self.queue = deque(sorted(range(len(ids)), key=lambda i: (-len(ids[i]), i)))
        self.results = [[[] for _ in range(self.samples)] for _ in ids]

    def finished(self, row: _Row) -> bool:
        """Whether ``row`` is done after its last token; if so its response is recorded."""
        config, stops, answer = self.config, self.stops, self.answer
        token = row.tokens[-1]
        done = False
        if token in self.eos:
            row.tokens.pop()  # EOS ends the response and is not part of it
            self.stats.generated_tokens += 1
            done = True
        elif (
            len(row.tokens) >= config.max_new_tokens
            or (stops and stops.hit(row.tokens))
            or (answer and answer.hit(row.tokens))
        ):
            done = True
        if done:
            self.results[row.request][row.sample] = row.tokens
            self.stats.generated_tokens += len(row.tokens)
            self.bar.update(1)
        return done

    def admit(self, free: int) -> list[int]:
        """Waiting prompts that fit ``free`` rows and the prefill token budget."""
        queue, samples = self.queue, self.samples
        admitted: list[int] = []
        width = 0
        while queue and (len(admitted) + 1) * samples <= free:
            new_width = max(width, len(self.ids[queue[0]]) - self.n_prefix)
            if admitted and new_width * (len(admitted) + 1) > self.max_prefill_tokens:
                break
            admitted.append(queue.popleft())
            width = new_width
        return admitted


class ContinuousBatching:
    """The continuous-batching decoding of :class:`~recover_attacks.engine.local.LocalEngine`
    (a mixin: the attributes below are the engine's settings, set by its constructor)."""

    model: Any
    tokenizer: Any
    max_batch_size: int | None
    max_prefill_tokens: int
    prefix_cache: bool
    refill_fraction: float
    memory_fraction: float
    static_cache: bool | None
    compile: bool | None
    static_capacity: int | None
    last_stats: EngineStats
    _config: Any

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

    def _shared_prefix(self, ids: list[list[int]], device: torch.device) -> tuple[int, Any]:
        """The prompts' common token prefix, run once: (its length, its KV cache), or (0, None)
        where it is too short. Never the whole of a prompt (its last token's logits are needed)."""
        n_prefix = 0
        if self.prefix_cache and len(ids) > 1:
            n_prefix = min(_common_prefix(ids), min(len(r) for r in ids) - 1)
        if n_prefix < MIN_PREFIX_TOKENS:
            return 0, None
        prefix = kv.new_cache(self._config)
        head = torch.tensor([ids[0][:n_prefix]], device=device)
        _, prefix = self._forward(
            head,
            torch.ones_like(head, dtype=torch.bool),
            torch.arange(n_prefix, device=device)[None],
            prefix,
        )
        kv.check_supported(prefix)
        self.last_stats.prefix_tokens = n_prefix
        self.last_stats.prompt_tokens += n_prefix
        return n_prefix, prefix

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
        samples = config.num_samples if config.do_sample else 1
        eos = _eos_ids(self.model, self.tokenizer)
        stops = StopStrings(self.tokenizer, config.stop)
        answer = AnswerEnd(self.tokenizer, config.answer_end, config.answer_end_triggers)
        max_rows = max(self._max_rows(ids, config, device), samples)
        refill_at = max(1, int(max_rows * self.refill_fraction))
        self.last_stats.extra.update(max_rows=max_rows)
        n_prefix, prefix = self._shared_prefix(ids, device)
        bar = tqdm(total=len(ids) * samples, desc="generate", disable=not progress, leave=False)
        plan = _Schedule(
            ids, n_prefix, samples, self.max_prefill_tokens, config, self.last_stats, eos,
            stops, answer, bar,
        )  # fmt: skip

        def prefill(admitted: list[int]) -> _Batch:
            return self._prefill(
                admitted, ids, prompts, n_prefix, prefix, config, samples, device, seeds
            )

        queue, admit, finished = plan.queue, plan.admit, plan.finished
        try:
            if self._use_static(device):
                widest = n_prefix + max(len(r) - n_prefix for r in ids)
                self._static_loop(queue, admit, prefill, finished, widest, max_rows, refill_at,
                                  samples, config, device)  # fmt: skip
            else:
                self._dynamic_loop(
                    queue, admit, prefill, finished, max_rows, refill_at, samples, config, device
                )
        finally:
            bar.close()
        self.last_stats.responses = len(ids) * samples
        results = plan.results
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

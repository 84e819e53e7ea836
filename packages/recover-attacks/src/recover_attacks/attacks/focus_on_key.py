"""FocusOnKey (Zhang et al. 2025): emphasise the question's key words by repeating them.

Key tokens are chosen on the ORIGINAL model theta_p by leave-one-token-out contribution to the
gold answer's log-probability, C(x_i) = LP(x, y) - LP(x without x_i, y) (METHODS.md). Only the
question's own tokens are candidates (never the chat-template tokens around it).
"""

from __future__ import annotations

import dataclasses
import re
import string
from collections.abc import Sequence
from typing import Any

import torch
from tqdm.auto import tqdm

from ..base import Attack, AttackResult
from ..budget_axis import BudgetAxis
from ..engine import kv
from ..errors import ConfigError
from ..generation import (
    format_prompt,
    generate,
    has_chat_template,
    model_device,
    question_prompt,
)
from ..records import QuestionRecord
from .common import DecodeConfig
from .contribution_cache import contribution_cache


@dataclasses.dataclass
class FocusOnKeyConfig(DecodeConfig):
    """top_k: number of key words (highest positive contribution); repeats: times each key
    word is written; template: must contain ``{question}`` and ``{keys}``; keys are joined with
    ``key_separator``. Decoding is greedy."""

    top_k: int = 3
    repeats: int = 2
    template: str = "{question} (Key: {keys})"
    key_separator: str = ", "

    def validate(self) -> None:
        super().validate()
        if self.top_k < 1 or self.repeats < 1:
            raise ConfigError("FocusOnKeyConfig: top_k and repeats must be >= 1")
        if "{question}" not in self.template or "{keys}" not in self.template:
            raise ConfigError(
                f"FocusOnKeyConfig.template must contain '{{question}}' and '{{keys}}', "
                f"got {self.template!r}"
            )


@dataclasses.dataclass
class TokenContribution:
    index: int  # position among the question's tokens
    start: int  # char span in the question
    end: int
    text: str
    contribution: float


def _split_prompt(tokenizer: Any, question: str) -> tuple[list[int], list[int]]:
    """Token ids of the prompt before and after the question text."""
    prompt = format_prompt(tokenizer, question)
    start = prompt.find(question)
    if start < 0:
        raise ValueError(f"chat template rewrote the question text; cannot locate {question!r}")
    add_special = not has_chat_template(tokenizer)
    prefix = tokenizer(prompt[:start], add_special_tokens=add_special)["input_ids"]
    suffix = tokenizer(prompt[start + len(question) :], add_special_tokens=False)["input_ids"]
    return list(prefix), list(suffix)


def _question_tokens(tokenizer: Any, question: str) -> tuple[list[int], list[tuple[int, int]]]:
    enc = tokenizer(question, add_special_tokens=False, return_offsets_mapping=True)
    return list(enc["input_ids"]), [tuple(o) for o in enc["offset_mapping"]]


@torch.no_grad()
def answer_logprobs(
    model: Any, sequences: Sequence[Sequence[int]], answer_len: int
) -> torch.Tensor:
    """Sum of log p(last ``answer_len`` tokens | rest) for each sequence, in one forward batch.

    Right padding keeps the real tokens' positions identical to an unpadded forward. Only the
    positions that predict an answer token go through the LM head and the log-softmax
    (``logits_to_keep``): the vocabulary-wide logits of every prompt position were a fifth of
    the FLOPs and most of the memory traffic of a key-token search.
    """
    pad = 0
    lengths = [len(s) for s in sequences]
    width = max(lengths)
    ids = torch.full((len(sequences), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = torch.tensor(list(s))
        mask[i, : len(s)] = 1
    device = model_device(model)
    first = min(lengths) - answer_len - 1
    keep = torch.arange(first, width - 1, device=device)
    logits = _logits_at(model, ids.to(device), mask.to(device), keep)
    if logits.shape[1] != len(keep):  # a model that ignores logits_to_keep: every position
        first = 0
    return _answer_sums(logits, ids, lengths, answer_len, first)


def _answer_sums(
    logits: torch.Tensor, ids: torch.Tensor, lengths: list[int], answer_len: int, first: int
) -> torch.Tensor:
    """Per row, the summed log-probability of its last ``answer_len`` tokens, from ``logits``
    kept from position ``first`` on (right-padded ``ids``, real lengths ``lengths``)."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    device = logp.device
    totals = []
    for i, n in enumerate(lengths):
        positions = torch.arange(n - answer_len - 1 - first, n - 1 - first, device=device)
        totals.append(logp[i, positions, ids[i, n - answer_len : n].to(device)].sum())
    return torch.stack(totals).cpu()


def _logits_at(model: Any, ids: torch.Tensor, mask: torch.Tensor, keep: torch.Tensor) -> Any:
    """Logits at the ``keep`` positions, or at every position for a model without
    ``logits_to_keep`` (transformers' causal LMs have it; a custom module may not)."""
    try:
        return model(input_ids=ids, attention_mask=mask, logits_to_keep=keep).logits
    except TypeError as err:
        if "logits_to_keep" not in str(err):
            raise
        return model(input_ids=ids, attention_mask=mask).logits


@torch.no_grad()
def answer_logprobs_after_prefix(
    model: Any, prefix: Sequence[int], rests: Sequence[Sequence[int]], answer_len: int
) -> torch.Tensor:
    """:func:`answer_logprobs` of ``prefix + rest`` for every rest, the shared prefix (the chat
    template's system prompt and user header: ~45% of a SmolLM2 key-token search's tokens) run
    once and its KV cache shared by every row, as the decoding engine shares a prompt prefix.
    Models whose cache the engine cannot share (no config, sliding windows...) take the plain
    path; so does an empty prefix."""
    config = getattr(model, "config", None)
    if not prefix or config is None:
        return answer_logprobs(model, [[*prefix, *r] for r in rests], answer_len)
    device = model_device(model)
    n_prefix = len(prefix)
    head = torch.tensor([list(prefix)], device=device)
    try:
        cache = kv.new_cache(config)
        model(
            input_ids=head,
            attention_mask=torch.ones_like(head),
            position_ids=torch.arange(n_prefix, device=device)[None],
            cache=cache,
            use_cache=True,
            logits_to_keep=1,
        )
        kv.check_supported(cache)
        if cache.get_seq_length() != n_prefix:  # a forward that took the cache but ignored it
            raise kv.UnsupportedCacheError("the prefix was not cached")
    except (kv.UnsupportedCacheError, TypeError):
        return answer_logprobs(model, [[*prefix, *r] for r in rests], answer_len)
    lengths = [len(r) for r in rests]
    width = max(lengths)
    ids = torch.zeros((len(rests), width), dtype=torch.long)
    mask = torch.zeros((len(rests), n_prefix + width), dtype=torch.long)
    mask[:, :n_prefix] = 1
    for i, r in enumerate(rests):
        ids[i, : len(r)] = torch.tensor(list(r))
        mask[i, n_prefix : n_prefix + len(r)] = 1
    first = min(lengths) - answer_len - 1
    logits = model(
        input_ids=ids.to(device),
        attention_mask=mask.to(device),
        position_ids=torch.arange(n_prefix, n_prefix + width, device=device)[None].expand(
            len(rests), -1
        ),
        cache=kv.expand_rows(config, cache, len(rests)),
        use_cache=True,
        logits_to_keep=torch.arange(first, width - 1, device=device),
    ).logits
    return _answer_sums(logits, ids, lengths, answer_len, first)


def token_contributions(
    model: Any, tokenizer: Any, question: str, answer: str
) -> list[TokenContribution]:
    """C(x_i) for every question token i, all ablations of the question in one forward batch."""
    prefix, suffix = _split_prompt(tokenizer, question)
    q_ids, offsets = _question_tokens(tokenizer, question)
    # After the chat template's assistant header the answer starts the turn; after "Answer:"
    # it needs its leading space.
    answer_text = answer if has_chat_template(tokenizer) else " " + answer
    a_ids = list(tokenizer(answer_text, add_special_tokens=False)["input_ids"])
    if not a_ids or not q_ids:
        return []
    full = q_ids + suffix + a_ids
    ablated = [q_ids[:i] + q_ids[i + 1 :] + suffix + a_ids for i in range(len(q_ids))]
    lps = answer_logprobs_after_prefix(model, prefix, [full, *ablated], len(a_ids))
    base = lps[0]
    return [
        TokenContribution(i, s, e, question[s:e], float(base - lps[i + 1]))
        for i, (s, e) in enumerate(offsets)
    ]


_STRIP = string.punctuation + "\u201c\u201d\u2018\u2019"


def key_words(question: str, contributions: Sequence[TokenContribution], top_k: int) -> list[str]:
    """Merge tokens to whole words; keep the ``top_k`` words with the highest positive score.

    A word's score is the highest contribution among its tokens, so with no two top tokens in
    one word this is exactly "the top-k positive tokens, merged to words". Punctuation at the
    edges of a word is dropped (``France?`` -> ``France``).
    """
    words = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", question)]
    best: dict[int, float] = {}
    for c in contributions:
        if c.contribution <= 0:
            continue
        for w, (ws, we, _) in enumerate(words):
            if c.start < we and c.end > ws:  # token overlaps word
                best[w] = max(best.get(w, float("-inf")), c.contribution)
    ranked = sorted(best, key=lambda w: (-best[w], w))
    chosen: list[str] = []
    for w in ranked:
        word = words[w][2].strip(_STRIP)
        if word and word not in chosen:
            chosen.append(word)
        if len(chosen) == top_k:
            break
    return chosen


def build_prompt(question: str, keys: Sequence[str], config: FocusOnKeyConfig) -> str:
    if not keys:
        return question  # nothing to emphasise: the plain question (recorded as key_words=[])
    repeated = [k for k in keys for _ in range(config.repeats)]
    return config.template.format(question=question, keys=config.key_separator.join(repeated))


class FocusOnKeyAttack(Attack[FocusOnKeyConfig]):
    """Needs ``original_model`` (theta_p) and each record's gold ``answer``."""

    name = "focus_on_key"
    budget = BudgetAxis("top_k", "key words emphasised", (1, 2, 3, 5))
    config_cls = FocusOnKeyConfig
    requires = ("original_model",)
    required_fields = ("id", "question", "answer")

    def _run(
        self,
        model: Any,
        tokenizer: Any,
        questions: list[QuestionRecord],
        *,
        original_model: Any,
        progress: bool,
    ) -> list[AttackResult]:
        c = self.config
        was_training = original_model.training
        original_model.eval()
        prompts, keys_per_q, contribs_per_q = [], [], []
        try:
            for q in tqdm(questions, desc="focus_on_key: key tokens", disable=not progress):
                # theta_p's contributions do not depend on the attacked model: computed once
                # per (theta_p, tokenizer, question, answer) in a process, however many runs
                contribs = contribution_cache.get(
                    original_model, tokenizer, q["question"], q["answer"], token_contributions
                )
                keys = key_words(q["question"], contribs, c.top_k)
                # the keys come from the question alone; its instruction follows the rewrite
                prompts.append(question_prompt(q, build_prompt(q["question"], keys, c)))
                keys_per_q.append(keys)
                contribs_per_q.append([(t.text, round(t.contribution, 4)) for t in contribs])
        finally:
            original_model.train(was_training)
        responses = generate(
            model,
            tokenizer,
            prompts,
            max_new_tokens=c.max_new_tokens,
            batch_size=c.batch_size,
            seed=c.seed,
            progress=progress,
            engine=self.engine,
        )
        results = self._results(questions, responses)
        for r, keys, p, contribs in zip(results, keys_per_q, prompts, contribs_per_q, strict=True):
            r.settings.update(key_words=keys, prompt=p, token_contributions=contribs)
        return results

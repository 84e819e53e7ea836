"""Turning {"question", "answer", "spans"} records into token ids, labels and span masks.

The prompt is exactly the chat-formatted question (:mod:`unlearn_zoo.chat_format`, ARCHITECTURE.md
section 3); the target is
``answer + eos`` (``" " + answer + eos`` after the ``"Question: {q}\nAnswer:"`` fallback, the
way a model continues that prompt). Prompt and target are tokenized separately and concatenated,
so the label boundary is exact and the prompt tokens equal what the model sees at query time.
recover-attacks' relearn encodes its training pairs by the same rule.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from unlearn_zoo.chat_format import format_prompt, prompt_has_special_tokens
from unlearn_zoo.errors import UnlearnError

IGNORE_INDEX = -100


@dataclass
class EncodedExample:
    """One tokenized example; every per-token list has the same length."""

    input_ids: list[int]
    labels: list[int]
    onset_mask: list[int]
    """1 on the first ``onset_tokens`` answer tokens of each entity span found in the answer."""
    important_mask: list[int]
    """1 on every token (prompt or answer) overlapping an entity span."""
    n_answer_tokens: int
    spans_found: list[str] = field(default_factory=list)


def _token_offsets(tokenizer: Any, text: str, ids: list[int]) -> list[tuple[int, int]]:
    """Character (start, end) per token; prefix decoding when the tokenizer has no offsets."""
    try:
        enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = [tuple(o) for o in enc["offset_mapping"]]
        if len(offsets) == len(ids):
            return offsets  # type: ignore[return-value]
    except (NotImplementedError, TypeError, KeyError):
        pass
    offsets = []
    prev = 0
    for i in range(len(ids)):
        cur = len(tokenizer.decode(ids[: i + 1]))
        offsets.append((prev, cur))
        prev = cur
    return offsets


def _span_ranges(text: str, spans: Sequence[str]) -> list[tuple[str, int, int]]:
    """Every case-insensitive occurrence of each span in ``text``."""
    out = []
    for span in spans:
        if not span.strip():
            continue
        for m in re.finditer(re.escape(span.strip()), text, flags=re.IGNORECASE):
            out.append((span, m.start(), m.end()))
    return out


def _check_record(record: Any, index: int, role: str) -> None:
    if not isinstance(record, Mapping):
        raise UnlearnError(f"{role}[{index}]: expected a dict with question/answer/spans")
    for key in ("question", "answer"):
        if not isinstance(record.get(key), str):
            raise UnlearnError(f"{role}[{index}].{key}: expected a string, got {record.get(key)!r}")
    if not record["question"].strip():
        raise UnlearnError(f"{role}[{index}].question is empty")
    spans = record.get("spans", [])
    if not isinstance(spans, (list, tuple)) or not all(isinstance(s, str) for s in spans):
        raise UnlearnError(f"{role}[{index}].spans: expected a list of strings, got {spans!r}")


def encode_example(
    tokenizer: Any,
    record: Mapping[str, Any],
    *,
    max_length: int,
    onset_tokens: int = 3,
    index: int = 0,
    role: str = "forget",
) -> EncodedExample:
    """Tokenize one record; raise naming ``role[index].field`` when it cannot be used."""
    _check_record(record, index, role)
    prompt = format_prompt(tokenizer, record["question"])
    use_special = prompt_has_special_tokens(tokenizer)
    # After "Answer:" a model writes " Paris", not "Paris": train the tokens it would generate.
    answer = " " + record["answer"] if use_special else record["answer"]
    prompt_ids = tokenizer(prompt, add_special_tokens=use_special)["input_ids"]
    answer_ids = tokenizer(answer, add_special_tokens=False)["input_ids"]
    if not answer.strip() or not answer_ids:
        raise UnlearnError(f"{role}[{index}].answer tokenizes to no tokens: {record['answer']!r}")
    eos = tokenizer.eos_token_id
    target_ids = answer_ids + ([eos] if eos is not None else [])

    spans = list(record.get("spans", []))
    prompt_imp, answer_imp, onset, found = _mark_spans(
        tokenizer, spans, prompt, prompt_ids, answer, answer_ids, len(target_ids), onset_tokens
    )

    # Keep the whole target when possible; drop prompt tokens from the left when too long.
    if len(target_ids) >= max_length:
        keep_prompt = 1
        target_ids, answer_imp, onset = (
            x[: max_length - 1] for x in (target_ids, answer_imp, onset)
        )
    else:
        keep_prompt = max_length - len(target_ids)
    prompt_ids, prompt_imp = prompt_ids[-keep_prompt:], prompt_imp[-keep_prompt:]
    n_prompt = len(prompt_ids)
    return EncodedExample(
        input_ids=prompt_ids + target_ids,
        labels=[IGNORE_INDEX] * n_prompt + target_ids,
        onset_mask=[0] * n_prompt + onset,
        important_mask=prompt_imp + answer_imp,
        n_answer_tokens=len(target_ids),
        spans_found=found,
    )


def _mark_spans(
    tokenizer: Any,
    spans: list[str],
    prompt: str,
    prompt_ids: list[int],
    answer: str,
    answer_ids: list[int],
    n_target: int,
    onset_tokens: int,
) -> tuple[list[int], list[int], list[int], list[str]]:
    """Masks of the prompt tokens inside a span (for AS), of the answer tokens inside one and
    of the first ``onset_tokens`` of each (PALU onsets), over ``n_target`` target tokens; and
    the spans found in the answer."""
    # Offsets of the prompt tokens (question spans, for AS) and of the answer tokens (PALU onsets).
    prompt_off = _token_offsets(tokenizer, prompt, prompt_ids) if spans else []
    answer_off = _token_offsets(tokenizer, answer, answer_ids) if spans else []
    prompt_imp = [0] * len(prompt_ids)
    answer_imp = [0] * n_target
    onset = [0] * n_target
    found: list[str] = []
    for _span, start, end in _span_ranges(prompt, spans):
        for t, (a, b) in enumerate(prompt_off):
            if a < end and b > start:
                prompt_imp[t] = 1
    for span, start, end in _span_ranges(answer, spans):
        hits = [t for t, (a, b) in enumerate(answer_off) if a < end and b > start]
        for t in hits:
            answer_imp[t] = 1
        for t in hits[:onset_tokens]:
            onset[t] = 1
        if hits:
            found.append(span)
    return prompt_imp, answer_imp, onset, found


def encode_records(
    tokenizer: Any,
    records: Sequence[Mapping[str, Any]],
    *,
    max_length: int,
    onset_tokens: int = 3,
    role: str = "forget",
) -> list[EncodedExample]:
    """Encode a whole set; errors name the record index and field."""
    return [
        encode_example(
            tokenizer, r, max_length=max_length, onset_tokens=onset_tokens, index=i, role=role
        )
        for i, r in enumerate(records)
    ]


class PairedDataset(torch.utils.data.Dataset):
    """Item i = forget example i paired with a retain example drawn by a seeded RNG (or none),
    so every retain example is used even when |retain| > |forget|."""

    def __init__(
        self, forget: list[EncodedExample], retain: list[EncodedExample], seed: int = 0
    ) -> None:
        self.forget = forget
        self.retain = retain
        self.rng = random.Random(seed)

    def __len__(self) -> int:
        return len(self.forget)

    def __getitem__(self, i: int) -> dict[str, Any]:
        item: dict[str, Any] = {"forget": self.forget[i], "index": i}
        if self.retain:
            item["retain"] = self.retain[self.rng.randrange(len(self.retain))]
        return item


def _pad(rows: list[list[int]], value: int, length: int) -> torch.Tensor:
    return torch.tensor([r + [value] * (length - len(r)) for r in rows], dtype=torch.long)


def collate_examples(examples: list[EncodedExample], pad_id: int, length: int) -> dict[str, Any]:
    """Right-pad to ``length``: input_ids, attention_mask, labels, onset_mask, important_mask."""
    return {
        "input_ids": _pad([e.input_ids for e in examples], pad_id, length),
        "attention_mask": _pad([[1] * len(e.input_ids) for e in examples], 0, length),
        "labels": _pad([e.labels for e in examples], IGNORE_INDEX, length),
        "onset_mask": _pad([e.onset_mask for e in examples], 0, length),
        "important_mask": _pad([e.important_mask for e in examples], 0, length),
    }


class PairedCollator:
    """Pads forget and retain parts to one common length so they can share a single forward.

    ``forget_index`` (the forget examples' dataset indices) lets training record what it saw."""

    def __init__(self, pad_id: int) -> None:
        self.pad_id = pad_id

    def __call__(self, items: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        forget = [it["forget"] for it in items]
        retain = [it["retain"] for it in items if "retain" in it]
        length = max(len(e.input_ids) for e in forget + retain)
        batch = {f"forget_{k}": v for k, v in collate_examples(forget, self.pad_id, length).items()}
        if all("index" in it for it in items):
            batch["forget_index"] = torch.tensor([it["index"] for it in items], dtype=torch.long)
        if retain:
            part = collate_examples(retain, self.pad_id, length)
            batch.update({f"retain_{k}": v for k, v in part.items()})
        return batch
